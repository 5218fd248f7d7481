"""Step 4 of a bound: shooting, then melee, for both sides (L172-L173, L285-L456).

Each player names the shots of their own cards (target and up to two aiding shooters); the
phasing player may also give the order in which combats are fought (`order`: markers of
shooters and of cards in melee). Melee needs no orders: every card in contact fights.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.cest_la_guerre.bound import Bound
from games.cest_la_guerre.combat import (
    Combatant,
    chart_factor,
    chart_row,
    describe_results,
    distance_between,
    judge,
    melee_modifiers,
    outcome,
    shooting_modifiers,
)
from games.cest_la_guerre.events import private, public
from games.cest_la_guerre.geometry import (
    CARD_DEPTH,
    along,
    distance_ahead,
    extent,
    lateral_overlap,
    pose_of,
    rect_of,
    segment_hits,
    step,
    within,
)
from games.cest_la_guerre.hidden import public_name, reveal
from games.cest_la_guerre.outcomes import apply_results, fall_back
from games.cest_la_guerre.relations import (
    REACH,
    close,
    contacts_on,
    flank_rear_enemies,
    front_enemy,
    in_melee,
    overlaps_on,
    rear_supporters,
)
from games.cest_la_guerre.terrain import centre, elevation, los_clear
from games.cest_la_guerre.units import (
    by_marker,
    can_shoot,
    find,
    is_artillery,
    is_dummy,
    marker_order,
    placed,
    weapon_range,
)
from referee.kit import Dice, Problem, thaw

Unit = dict[str, Any]
ELEVATED_CLEARANCE = 100  # friends must be farther than this from the target for guns on a hill (L313)


# -- who may shoot whom ---------------------------------------------------------------------


def engaged(state: Mapping[str, Any], unit: Mapping[str, Any]) -> bool:
    """Return whether a card is in melee or overlaps an enemy in melee (it neither shoots nor is shot at)."""
    if in_melee(state, unit):
        return True
    return any(
        enemy["owner"] != unit["owner"]
        and close(enemy, unit, REACH)
        and any(over is unit for over, _ in overlaps_on(state, enemy))
        and in_melee(state, enemy)
        for enemy in placed(state)
    )


def in_lane(
    state: Mapping[str, Any], shooter: Mapping[str, Any], target: Mapping[str, Any], reach: int | None = None
) -> float | None:
    """Return the range to `target` if it lies in the shooter's lane within its weapon's reach
    (or `reach`, for a card whose weapon the asker may not know), else None."""
    if reach is None:
        reach = weapon_range(shooter, state["options"])
    pose, area = pose_of(shooter), rect_of(target)
    facing = shooter["facing"]
    front = along(step((shooter["x"], shooter["y"]), facing, CARD_DEPTH // 2), facing)
    farthest = extent(area, facing)[1]
    if farthest <= front or lateral_overlap(pose, state["options"]["shooting_lane_width_mm"], area) <= 0:
        return None
    distance = distance_ahead(pose, area)
    return distance if distance <= reach else None


def line_blocked(
    state: Mapping[str, Any], shooter: Mapping[str, Any], target: Mapping[str, Any], as_artillery: bool | None = None
) -> str | None:
    """Return what blocks the line from shooter to target (a sight-blocking feature, a card), or None.

    `as_artillery` judges the shooter as guns (which fire over friends from a hill) or not,
    whatever it is: for a face-down card judged from what both players see."""
    start, end = centre(shooter), centre(target)
    if not los_clear(state, start, end):
        return "terrain blocks the line of sight"
    guns = is_artillery(shooter) if as_artillery is None else as_artillery
    high = guns and elevation(state, shooter) > 0
    for other in placed(state):
        if other is shooter or other is target:
            continue
        if segment_hits(start, end, rect_of(other).buffer(-1, join_style="mitre")):
            if (
                high
                and other["owner"] == shooter["owner"]
                and not within(rect_of(other), rect_of(target), ELEVATED_CLEARANCE)
            ):
                continue
            return f"{other['marker']} stands in the line of fire"
    return None


def shots_allowed(state: Mapping[str, Any], unit: Mapping[str, Any]) -> int:
    """Return how many times a card may shoot in this combat step (2 for Prussian double fire, L715)."""
    options = state["options"]
    side = state["sides"][unit["owner"]]
    double = (
        options["prussian_double_fire"]
        and "prussian_double_fire" in side.get("special_rules", [])
        and unit["type"] in options["double_fire_types"]
        and not unit["moved_bound"]
    )
    return 2 if double else 1


def artillery_moved(state: Mapping[str, Any], unit: Mapping[str, Any]) -> bool:
    """Return whether artillery moved (not merely pivoted) this Round, so may not shoot (L313)."""
    key = "moved_round" if state["options"]["artillery_still_for"] == "round" else "moved_bound"
    return is_artillery(unit) and bool(unit[key])


def shooter_unready(state: Mapping[str, Any], unit: Mapping[str, Any] | None) -> str | None:
    """Return why this card cannot shoot at anything now (whatever the target), or None."""
    if unit is None or unit["status"] != "table":
        return "the shooter is not on the table"
    if is_dummy(unit) or not can_shoot(unit, state["options"]):
        return f"{unit['id']} cannot shoot"
    if artillery_moved(state, unit):
        return f"{unit['id']} is artillery that moved this Round"
    if unit["shots"] >= shots_allowed(state, unit):
        return f"{unit['id']} has already shot"
    if engaged(state, unit):
        return f"{unit['id']} is in melee (or overlaps a unit in melee)"
    return None


def shooter_problem(state: Mapping[str, Any], unit: Mapping[str, Any] | None, target: Mapping[str, Any]) -> str | None:
    """Return why this card cannot shoot at `target` now, or None."""
    unready = shooter_unready(state, unit)
    if unready is not None or unit is None:
        return unready
    return _target_out_of_reach(state, unit, target)


def _target_out_of_reach(state: Mapping[str, Any], unit: Mapping[str, Any], target: Mapping[str, Any]) -> str | None:
    if in_lane(state, unit, target) is None:
        reach = weapon_range(unit, state["options"])
        return f"{target['marker']} is not in {unit['id']}'s lane within its range ({reach} mm)"
    return line_blocked(state, unit, target)


def legal_targets(state: Mapping[str, Any], unit: Mapping[str, Any]) -> list[Unit]:
    """Return the enemy cards `unit` may shoot at now, nearest first (then in marker order): the
    cards in its lane within its range, not in melee, with nothing between (L295, L315)."""
    if shooter_unready(state, unit) is not None:
        return []
    found = []
    for target in placed(state):
        if target["owner"] == unit["owner"]:
            continue
        distance = in_lane(state, unit, target)
        if distance is None or line_blocked(state, unit, target) is not None or engaged(state, target):
            continue
        found.append((distance, marker_order(target), target))
    found.sort(key=lambda item: (item[0], item[1]))
    return [target for _, _, target in found]


def must_shoot(state: Mapping[str, Any], role: str) -> list[tuple[Unit, list[Unit]]]:
    """Return each of `role`'s cards that must shoot now, with the targets it may choose among.

    Units able to shoot "can and must" (L295, L172). A card that has shot once this step has
    done what it must: Prussian double fire's second shot is a choice (L715 "may").
    """
    found = []
    for unit in sorted(placed(state), key=marker_order):
        if unit["owner"] != role or unit["shots"]:
            continue
        targets = legal_targets(state, unit)
        if targets:
            found.append((unit, targets))
    return found


def complete_shots(state: Mapping[str, Any], role: str, shots: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Return `role`'s shots with every obligatory shot its player left out added (marked `auto`).

    A card not named as a shooter or an aide shoots at the target the option `unnamed_shot_target`
    picks among its legal ones; at a target its side already shoots at it aids that shot while
    there is room (L317: a 2nd or 3rd shooter aids the first; G-39), else it takes the next target.
    """
    options = state["options"]
    result = [{**shot, "aides": list(shot.get("aides") or [])} for shot in shots]
    named: set[int] = set()
    groups: dict[str, dict[str, Any]] = {}
    for shot in result:
        for ref in [shot["shooter"], *shot["aides"]]:
            unit = find(state, role, ref) if isinstance(ref, str) else None
            if unit is not None:
                named.add(id(unit))
        if isinstance(shot["target"], str):
            groups.setdefault(shot["target"], shot)
    for unit, targets in must_shoot(state, role):
        if id(unit) in named:
            continue
        if options.get("unnamed_shot_target", "nearest") == "lowest_marker":
            targets = sorted(targets, key=marker_order)
        for target in targets:
            group = groups.get(target["marker"])
            if group is None:
                group = {"shooter": unit["marker"], "target": target["marker"], "aides": [], "auto": True}
                groups[target["marker"]] = group
                result.append(group)
                break
            if len(group["aides"]) < options["aiding_shooters"]:
                group["aides"].append(unit["marker"])
                group.setdefault("auto_aides", []).append(unit["marker"])
                break
    return result


def target_problem(state: Mapping[str, Any], owner: str, ref: Any) -> tuple[Unit | None, str | None]:
    """Return the target card named by marker, or why there is none to shoot at."""
    target = by_marker(state, ref) if isinstance(ref, str) else None
    if target is None or target["owner"] == owner or target["status"] != "table":
        return None, f"there is no enemy card {ref!r} on the table (name enemy cards by their markers)"
    if engaged(state, target):
        return None, f"{target['marker']} is in melee (or overlaps a unit in melee)"
    return target, None


def combat_problems(state: Mapping[str, Any], owner: str, orders: Mapping[str, Any]) -> list[Problem]:
    """Return why a player's combat orders cannot stand, checked against the table as it is now."""
    work = thaw(state)
    problems: list[Problem] = []
    if orders.get("order") and owner != state["phasing"]:
        problems.append(Problem("illegal.combat.order", "orders.order", f"only {state['phasing']} orders the combats"))
    targets: set[str] = set()
    for index, shot in enumerate(orders.get("shots") or []):
        path = f"orders.shots[{index}]"
        target, why = target_problem(work, owner, shot["target"])
        if target is None:
            problems.append(Problem("illegal.shot.target", f"{path}.target", str(why)))
            continue
        if target["marker"] in targets:
            problems.append(
                Problem(
                    "illegal.shot.target",
                    f"{path}.target",
                    f"{target['marker']} is already a target: a second or third shooter aids the first (G-39)",
                )
            )
        targets.add(target["marker"])
        aides = shot.get("aides") or []
        if len(aides) > state["options"]["aiding_shooters"]:
            problems.append(
                Problem(
                    "illegal.shot.aides", f"{path}.aides", f"at most {state['options']['aiding_shooters']} aid a shot"
                )
            )
        for key, ref in [("shooter", shot["shooter"]), *((f"aides[{i}]", r) for i, r in enumerate(aides))]:
            unit = find(work, owner, ref)
            why = shooter_problem(work, unit, target) if unit else f"you have no card {ref!r}"
            if why:
                problems.append(Problem("illegal.shot", f"{path}.{key}", why))
            elif unit is not None:
                unit["shots"] += 1
    for index, pick in enumerate(orders.get("primary") or []):
        path = f"orders.primary[{index}]"
        enemy = by_marker(work, pick["engineers"]) if isinstance(pick["engineers"], str) else None
        attacker = find(work, owner, str(pick["attacker"]))
        if enemy is None or enemy["owner"] == owner or enemy["status"] != "table":
            problems.append(
                Problem("illegal.primary", f"{path}.engineers", f"there is no enemy card {pick['engineers']!r}")
            )
        elif attacker is None or all(e is not attacker for e, _ in contacts_on(work, enemy)):
            problems.append(
                Problem("illegal.primary", f"{path}.attacker", f"{pick['attacker']} does not touch {enemy['marker']}")
            )
    return problems


# -- resolving -------------------------------------------------------------------------------


def run_combat(state: Mapping[str, Any], orders: Mapping[str, Mapping[str, Any]], dice: Dice) -> Bound:
    """Fight the combat step of the phasing player's bound on a copy of `state`; return the Bound."""
    phasing = state["phasing"]
    b = Bound(thaw(state), phasing, dice)
    for unit in b.state["units"]:
        unit["shots"] = 0
    sequence = [str(m) for m in (orders.get(phasing) or {}).get("order") or []]
    sides = (phasing, *(r for r in b.state["roles"] if r != phasing))
    shots = [
        (owner, shot)
        for owner in sides
        for shot in complete_shots(b.state, owner, (orders.get(owner) or {}).get("shots") or [])
    ]
    shots.sort(key=lambda item: _place_in(sequence, _marker_of(b.state, item[0], item[1]["shooter"])))
    for owner in sides:
        for pick in (orders.get(owner) or {}).get("primary") or []:
            attacker = find(b.state, owner, str(pick["attacker"]))
            if attacker is not None and attacker["marker"]:
                b.chosen[str(pick["engineers"])] = str(attacker["marker"])
    shot_at: dict[str, set[str]] = {role: set() for role in sides}
    for owner, shot in shots:
        due = _still_due(b.state, owner, shot)
        if due is not None:
            _tell_unnamed(b, owner, due)
            shoot(b, owner, due)
            shot_at[owner].add(str(due["target"]))
    _take_remaining_shots(b, sides, sequence, shot_at)
    fought: set[frozenset[str]] = set()
    while True:
        pair = _next_melee(b, sequence, fought)
        if pair is None:
            break
        fought.add(frozenset(u["marker"] for u in pair))
        melee(b, *pair)
    return b


def _still_due(state: Mapping[str, Any], owner: str, shot: Mapping[str, Any]) -> dict[str, Any] | None:
    """Return a shot as it still stands: the referee's own additions drop a card that has shot
    meanwhile (it returned fire) or a target that has gone; a player's shot stands as written."""
    added = set(shot.get("auto_aides") or [])
    if not shot.get("auto") and not added:
        return dict(shot)
    target = by_marker(state, str(shot["target"]))
    if target is None or target["status"] != "table":
        if shot.get("auto"):
            return None
        return {**shot, "aides": [ref for ref in shot["aides"] if ref not in added], "auto_aides": []}

    def fit(ref: str) -> bool:
        return shooter_problem(state, find(state, owner, ref), target) is None

    if shot.get("auto"):
        ready = [ref for ref in [shot["shooter"], *shot["aides"]] if fit(ref)]
        if not ready:
            return None
        return {"shooter": ready[0], "target": shot["target"], "aides": ready[1:], "auto": True}
    aides = [ref for ref in shot["aides"] if ref not in added or fit(ref)]
    return {**shot, "aides": aides, "auto_aides": [ref for ref in aides if ref in added]}


def _tell_unnamed(b: Bound, owner: str, shot: Mapping[str, Any]) -> None:
    """Tell a player which of their cards the referee made shoot, since every card able to must (L295)."""
    added = [shot["shooter"], *shot["aides"]] if shot.get("auto") else list(shot.get("auto_aides") or [])
    if added:
        rule = b.options.get("unnamed_shot_target", "nearest")
        b.events.append(
            private(
                owner,
                "shot.obliged",
                f"{', '.join(added)}, named in no shot of yours, must still shoot (L295): at {shot['target']} "
                f"(option unnamed_shot_target: {rule}).",
            )
        )


def _take_remaining_shots(
    b: Bound, sides: Sequence[str], sequence: Sequence[str], shot_at: dict[str, set[str]]
) -> None:
    """Make every card still able to shoot do so, at a target its side has not shot at (L295; G-39)."""
    for _ in range(len(b.state["units"]) + 1):
        due = [
            (owner, unit, [t for t in targets if t["marker"] not in shot_at[owner]])
            for owner in sides
            for unit, targets in must_shoot(b.state, owner)
        ]
        due = [item for item in due if item[2]]
        if not due:
            return
        due.sort(key=lambda item: (_place_in(sequence, item[1]["marker"]), sides.index(item[0]), marker_order(item[1])))
        owner, unit, targets = due[0]
        if b.options.get("unnamed_shot_target", "nearest") == "lowest_marker":
            targets = sorted(targets, key=marker_order)
        shot = {"shooter": unit["marker"], "target": targets[0]["marker"], "aides": [], "auto": True}
        _tell_unnamed(b, owner, shot)
        shoot(b, owner, shot)
        shot_at[owner].add(targets[0]["marker"])


def _marker_of(state: Mapping[str, Any], owner: str, ref: str) -> str:
    unit = find(state, owner, ref)
    return str(unit.get("marker")) if unit else ""


def _place_in(sequence: Sequence[str], marker: str) -> int:
    return sequence.index(marker) if marker in sequence else len(sequence)


def _roll(b: Bound, fighter: Combatant, number: int, what: str) -> None:
    assert b.dice is not None
    label = b.label("combat", str(number), fighter.unit["marker"])
    fighter.dice = b.dice.roll("2d6", label=label)
    b.events.append(
        public(
            "roll",
            f"{fighter.unit['marker']} rolls for {what}",
            label=label,
            purpose=f"{what}: {fighter.unit['marker']}",
        )
    )


def _tie(b: Bound, a: Combatant, d: Combatant, number: int, what: str) -> bool:
    """Re-roll ties when the game says so (gap G-11); return whether a tie stands."""
    again = 0
    while a.total == d.total and b.options["tie_rule"] == "reroll" and again < 20:
        again += 1
        for fighter in (a, d):
            assert b.dice is not None
            label = b.label("combat", f"{number}-again{again}", fighter.unit["marker"])
            fighter.dice = b.dice.roll("2d6", label=label)
            b.events.append(
                public("roll", f"{fighter.unit['marker']} rolls again", label=label, purpose=f"{what}, tie")
            )
    return a.total == d.total


def shoot(b: Bound, owner: str, shot: Mapping[str, Any]) -> None:
    """Resolve one shot: reveal, return fire, roll, and apply the outcome (L293-L331)."""
    state = b.state
    shooter = find(state, owner, shot["shooter"])
    target, why = target_problem(state, owner, shot["target"])
    if target is not None:
        why = shooter_problem(state, shooter, target)
    aides = [find(state, owner, ref) for ref in shot.get("aides") or []]
    if why is None and target is not None:
        # An aide that can no longer shoot (it fell back, its target moved) drops out; the shot stands.
        unable = [(ref, shooter_problem(state, a, target)) for ref, a in zip(shot.get("aides") or [], aides)]
        for ref, problem in unable:
            if problem:
                b.events.append(
                    private(owner, "shot.aide.dropped", f"{ref} does not aid the shot at {shot['target']}: {problem}.")
                )
        aides = [a for a, (_, problem) in zip(aides, unable) if not problem]
    if why is not None or shooter is None or target is None:
        b.events.append(
            private(
                owner, "shot.skipped", f"Your shot by {shot['shooter']} at {shot['target']} does not happen: {why}."
            )
        )
        return
    for unit in [shooter, *aides]:
        assert unit is not None
        reveal(state, unit, "it shoots", b.events)
    if not reveal(state, target, "shot at", b.events):
        b.events.append(public("shot.cancelled", f"The shot at {target['marker']} finds nothing: it was a dummy."))
        for unit in [shooter, *aides]:
            assert unit is not None
            unit["shots"] += 1  # the shot is lost (G-16), not owed again
        return
    number = b.next_number()
    distance = in_lane(state, shooter, target) or 0
    returns = _returns_fire(state, target, shooter)
    s = Combatant(shooter, chart_row(shooter, b.options, distance))
    t = Combatant(target, chart_row(target, b.options, distance_between(target, shooter)))
    s.factor = chart_factor("shooting", s.row, target, b.options)
    t.factor = chart_factor("shooting", t.row, shooter, b.options)
    s.modifiers = shooting_modifiers(state, shooter, target, True, [a for a in aides if a is not None])
    t.modifiers = shooting_modifiers(state, target, shooter, returns)
    t.modifiers += [(f"aided by {a['marker']}", -1) for a in aides if a is not None]
    shooter["shots"] += 1
    for aide in aides:
        assert aide is not None
        aide["shots"] += 1
    if returns:
        target["shots"] += 1
    _roll(b, s, number, "shooting")
    _roll(b, t, number, "shooting")
    tie = _tie(b, s, t, number, "shooting")
    names = f"{public_name(shooter)} shoots at {public_name(target)} ({distance} mm)"
    if aides:
        names += ", aided by " + ", ".join(a["marker"] for a in aides if a)
    names += "; it shoots back" if returns else "; no return fire"
    detail = f"{shooter['marker']}: {s.breakdown()}; {target['marker']}: {t.breakdown()}"
    data = {"shooter": s.as_data(), "target": t.as_data(), "returned": returns}
    if tie:
        b.events.append(public("combat.shooting", f"{names}. {detail}. A tie: no result (G-11).", **data))
        return
    verdict = judge(s, t, b.options["doubled_rule"])
    assert verdict.loser is not None and verdict.winner is not None
    loser, winner = verdict.loser.unit, verdict.winner.unit
    doubled = " doubled" if verdict.doubled else ""
    if loser is shooter and not returns:
        b.events.append(
            public(
                "combat.shooting",
                f"{names}. {detail}. {loser['marker']} loses{doubled}, but it shot unanswered: no effect.",
                **data,
            )
        )
        return
    results = outcome(state, loser, winner, False, verdict.doubled)
    b.events.append(
        public(
            "combat.shooting",
            f"{names}. {detail}. {loser['marker']} loses{doubled}: it {describe_results(results)}.",
            **data,
            loser=loser["marker"],
            doubled=verdict.doubled,
            results=results,
        )
    )
    apply_results(b, loser, results, f"shot by {winner['marker']}" if loser is target else "lost a firefight")


def _returns_fire(state: Mapping[str, Any], target: Mapping[str, Any], shooter: Mapping[str, Any]) -> bool:
    """Return whether the target must shoot back at its shooter (L313; gap G-38)."""
    if target["shots"] or not can_shoot(target, state["options"], returning=True) or artillery_moved(state, target):
        return False
    if state["options"]["return_fire"] == "range" or target["type"] == "engineers":
        # Combat Engineers have no "straight ahead": they return fire at a shooter within range (L291).
        return distance_between(target, shooter) <= weapon_range(target, state["options"])
    return in_lane(state, target, shooter) is not None


def _next_melee(b: Bound, sequence: Sequence[str], fought: set[frozenset[str]]) -> tuple[Unit, Unit] | None:
    """Return the next pair to fight: a card and its frontal (or primary) enemy, in the phasing player's order."""
    pairs = []
    for unit in placed(b.state):
        contacts = contacts_on(b.state, unit)
        if not contacts:
            continue
        if unit["type"] == "engineers":
            enemy = engineers_primary(b.state, unit, b.chosen)
        else:
            enemy = front_enemy(b.state, unit) or contacts[0][0]
            if enemy["type"] == "engineers" and engineers_primary(b.state, enemy, b.chosen) is not unit:
                continue  # Combat Engineers fight the one card their attacker chose (L291)
        key = frozenset((unit["marker"], enemy["marker"]))
        if key in fought:
            continue
        attacker, defender = (enemy, unit) if enemy["owner"] == b.role else (unit, enemy)
        rank = min(_place_in(sequence, attacker["marker"]), _place_in(sequence, defender["marker"]))
        pairs.append((rank, attacker["marker"], attacker, defender))
    if not pairs:
        return None
    pairs.sort(key=lambda p: (p[0], p[1]))
    return pairs[0][2], pairs[0][3]


def engineers_primary(state: Mapping[str, Any], engineers: Mapping[str, Any], chosen: Mapping[str, str]) -> Unit:
    """Return the card that fights Combat Engineers touched by several: the attacking player's
    choice (L291), named in their combat orders (`primary`), else the option `engineers_primary`:
    the card with the best melee factor against them (then the first marker), or the first marker."""
    contacts = sorted((e for e, _ in contacts_on(state, engineers)), key=marker_order)
    named = chosen.get(engineers["marker"])
    for enemy in contacts:
        if enemy["marker"] == named:
            return enemy
    if state["options"].get("engineers_primary", "best_factor") == "best_factor":
        options = state["options"]
        contacts.sort(key=lambda e: -chart_factor("melee", chart_row(e, options, 0), engineers, options))
    return contacts[0]


def melee(b: Bound, attacker: Unit, defender: Unit) -> None:
    """Fight one melee: the phasing player's card against the enemy it touches (L325-L339)."""
    state = b.state
    everyone = [attacker, defender]
    for unit in (attacker, defender):
        everyone += flank_rear_enemies(state, unit) + [over for over, _ in overlaps_on(state, unit)]
    for unit in everyone:
        if unit["status"] == "table":
            reveal(state, unit, "in contact", b.events)
    if attacker["status"] != "table" or defender["status"] != "table":
        return
    support_both = b.options["rear_support_for"] == "both"
    number = b.next_number()
    a = Combatant(attacker, chart_row(attacker, b.options, 0))
    d = Combatant(defender, chart_row(defender, b.options, 0))
    a.factor = chart_factor("melee", a.row, defender, b.options)
    d.factor = chart_factor("melee", d.row, attacker, b.options)
    a.modifiers = melee_modifiers(state, attacker, defender, support_both)
    d.modifiers = melee_modifiers(state, defender, attacker, True)
    _roll(b, a, number, "melee")
    _roll(b, d, number, "melee")
    tie = _tie(b, a, d, number, "melee")
    names = f"Melee: {public_name(attacker)} against {public_name(defender)}"
    detail = f"{attacker['marker']}: {a.breakdown()}; {defender['marker']}: {d.breakdown()}"
    data = {"attacker": a.as_data(), "defender": d.as_data()}
    if tie:
        b.events.append(public("combat.melee", f"{names}. {detail}. A tie: no result (G-11).", **data))
        return
    verdict = judge(a, d, b.options["doubled_rule"])
    assert verdict.loser is not None and verdict.winner is not None
    loser, winner = verdict.loser.unit, verdict.winner.unit
    results = outcome(state, loser, winner, True, verdict.doubled)
    side_attackers = [e for e in flank_rear_enemies(state, loser) if e is not winner]
    if side_attackers and "hold" not in results and not loser.get("in_square"):
        results = ["destroyed"]
        why = "fought in front and on a flank or rear"
    else:
        why = f"beaten by {winner['marker']}"
    doubled = " doubled" if verdict.doubled else ""
    b.events.append(
        public(
            "combat.melee",
            f"{names}. {detail}. {loser['marker']} loses{doubled}: it {describe_results(results)}.",
            **data,
            loser=loser["marker"],
            doubled=verdict.doubled,
            results=results,
        )
    )
    supported = loser is attacker or support_both
    supporters = _supporters(state, loser) if supported else []
    winners_flankers = [e for e in flank_rear_enemies(state, winner) if e is not loser]
    for supporter in supporters:
        _supporter_follows(b, supporter, results)
    apply_results(b, loser, results, why)
    if loser.get("in_square"):
        partner = next((u for u in placed(state) if u["marker"] == loser["in_square"]), None)
        if partner is not None:
            apply_results(b, partner, results, "its Square lost")
    for flanker in winners_flankers:
        if flanker["status"] == "table":
            fall_back(b, flanker, f"its side lost against {winner['marker']}")


def _supporters(state: Mapping[str, Any], unit: Mapping[str, Any]) -> list[Unit]:
    return rear_supporters(state, unit, 2 if state["options"]["attack_column"] else 1)


def _supporter_follows(b: Bound, supporter: Unit, results: Sequence[str]) -> None:
    """A rear supporter shares its front unit's fate, milder (L331-L335)."""
    if "destroyed" in results:
        apply_results(b, supporter, ["flee", "casualty"], "its front unit was destroyed")
    elif "flee" in results:
        apply_results(b, supporter, ["flee"], "its front unit fled")
    elif "fall_back" in results:
        apply_results(b, supporter, ["fall_back"], "its front unit fell back")
