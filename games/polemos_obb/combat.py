"""Combat in the contact phase: engagements fought round by round, then the division outcome round.

The attacking player declares which division attacks which, the pairs of bases in contact once
the line has conformed, and any supporting base; on the referee's table (option battlefield:
table) contact_orders.py holds them to the positions, and the bases are moved here: the conform,
recoils, breaks, follow-ups, re-advances and falls back.
The rules here are those of the book's worked example (pp. 31-36; the contact-phase pages
are missing), see the README for each reconstruction:

- A new attack fights an advance-to-contact round, a defender response round and a
  continuing round; an engagement carried over from an earlier turn fights three continuing
  rounds, in the contact phase of the side that now holds the Tempo (it is then the attacker).
- A new attack on a division already engaged is fought interleaved with that engagement,
  round for round, and both share one outcome round.
- The attacker chooses the order of the combats in each round (a list of his bases); pairs
  he does not list fight after the listed ones, in the order they were declared.
- Defender response round: a pair whose winner followed up must fight; after "no effect"
  the defending base fights or declines by its player's standing order; a pair whose loser
  recoiled and was not followed up is no longer in contact.
- Continuing round: pairs in contact fight; an attacking base whose opponent is out of
  contact may advance back into contact (by listing it in that round's order) and fight.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.polemos_obb.contact_orders import with_pairs
from games.polemos_obb.generals import capture_roll, risk_to_general
from games.polemos_obb.manoeuvres import poses_now
from games.polemos_obb.model import (
    State,
    arm_of,
    army_of_base,
    army_order,
    division_arm,
    is_standing,
    json_pointer,
    live_pairs,
    side_of_base,
    standing_bases,
)
from games.polemos_obb.options import COMBAT, combat_chart, combat_modifiers, setting
from games.polemos_obb.resolution import Resolution
from games.polemos_obb.table import (
    bd,
    blocking,
    bw,
    conform_pose,
    generals_in_the_way,
    go_back,
    go_to,
    on_table,
    overlapped_by,
    pose_of,
    support_cancelled_by,
    supports,
)

ROUNDS = ("advance-to-contact", "defender-response", "continuing")
CONTINUING = ("continuing", "continuing", "continuing")
ORDINALS = ("1st", "2nd", "3rd")
POINTS = {"broken": 3, "shaken": 2, "recoiled": 1}
OUTCOME_RULE = (
    "each division scores 3 a base broken, 2 a base shaken and 1 a base recoiled in this encounter, plus a die; "
    "the HIGHER score loses and falls back the difference less 2 base depths, unless it broke more enemy bases "
    "than it lost"
)
CAVALRY_FAILED_BD = 2  # a cavalry attack that fails falls back 1BW = 2BD


# -- the contact phase --------------------------------------------------------------------


def resolve_contact(r: Resolution, orders: Mapping[str, Mapping[str, Any]], side: str) -> None:
    """Fight the contact phase of `side`: its new attacks, and (holding the Tempo) every carried-over engagement.

    `orders` maps each army of the side to its contact orders.
    """
    state = r.state
    armies = [a for a in army_order(state) if a in orders]
    overrun: set[str] = set()
    for army in armies:
        for general_id in orders[army].get("overrun_generals", []):
            if state["generals"][general_id]["status"] == "active":  # an ally may have named him too
                overrun.add(general_id)
                capture_roll(r, general_id, "overrun", "in the way of the enemy's advance")
    fighting = [e for e in state["engagements"] if e["fought_turn"] != state["turn"]]
    if not state["step"].startswith("tempo-"):
        fighting = []
    plans: dict[str, list[list[str]]] = {e["id"]: [[], [], []] for e in fighting}
    for army in armies:
        for plan in orders[army].get("engagements", []):
            engagement = next(e for e in fighting if e["id"] == plan["engagement"])
            _declare_support(state, engagement, plan.get("support", []))
            for number, order in enumerate(plan.get("rounds", [])[:3]):
                plans[engagement["id"]][number] += order
    for army in armies:
        for attack in orders[army].get("attacks", []):
            attack = _free_pairs(r, _paired(r, attack))
            if not attack["pairs"]:
                continue
            engagement = _open_engagement(r, attack)
            fighting.append(engagement)
            if on_table(state):  # the referee finds the generals in the way, named or not (L326)
                for general_id in generals_in_the_way(state, attack["division"]):
                    if general_id not in overrun:
                        overrun.add(general_id)
                        capture_roll(r, general_id, "overrun", "in the way of the enemy's advance")
            given = [list(order) for order in attack.get("rounds", [])[:3]]
            plans[engagement["id"]] = given + [[] for _ in range(3 - len(given))]
    for group in _groups(fighting):
        _fight_encounter(r, group, plans, side)
    state["engagements"] = [e for e in state["engagements"] if not e.get("ended")]


def _paired(r: Resolution, attack: Mapping[str, Any]) -> dict[str, Any]:
    """Return the attack with its pairs; those the referee reads from the table (the player named
    none) are said in the report."""
    attack = with_pairs(r.state, attack)
    if attack.get("paired_by_referee"):
        pairs = ", ".join(f"{own} with {enemy}" for own, enemy in attack["pairs"]) or "no base"
        support = "; ".join(f"{' and '.join(e['by'])} support {e['base']}" for e in attack.get("support", []))
        r.say(
            "combat.paired",
            f"The referee pairs the bases of {attack['division']}'s attack on {attack['target']} from the table: "
            f"{pairs}" + (f"; {support}" if support else "") + ".",
            {
                "division": attack["division"],
                "target": attack["target"],
                "pairs": attack["pairs"],
                "support": attack.get("support", []),
            },  # fmt: skip
        )
    return attack


def _free_pairs(r: Resolution, attack: Mapping[str, Any]) -> dict[str, Any]:
    """Return the attack without pairs whose enemy base an ally's attack this phase already took.

    Each player's orders were checked alone, so two allies may have named the same enemy base;
    the army listed first in the scenario has it.
    """
    taken = {b for e in r.state["engagements"] for p in live_pairs(r.state, e) for b in p["bases"]}
    kept = [pair for pair in attack["pairs"] if pair[1] not in taken]
    for own, enemy in (pair for pair in attack["pairs"] if pair[1] in taken):
        r.say(
            "combat.pair-dropped",
            f"{own} finds {enemy} already in contact with an ally's base: {own} does not attack it.",
            {"base": own, "enemy": enemy},
        )
    return {**attack, "pairs": kept}


def _open_engagement(r: Resolution, attack: Mapping[str, Any]) -> dict[str, Any]:
    state = r.state
    number = state["next_engagement"]
    state["next_engagement"] = number + 1
    engagement = {
        "id": f"e{number}",
        "divisions": [attack["division"], attack["target"]],
        "launched_by": attack["division"],
        "started": state["turn"],
        "fought_turn": None,
        "new": True,
        "pairs": [{"bases": list(pair), "contact": True, "last": None} for pair in attack["pairs"]],
        "support": {},
    }
    _declare_support(state, engagement, attack.get("support", []))
    state["engagements"].append(engagement)
    column = attack.get("column")
    if on_table(state):
        column = state["divisions"][attack["target"]].get("formation") == "defile"  # read from the table (L249)
        for own, enemy in attack["pairs"]:
            _moved(state, engagement, own, conform_pose(state, own, enemy), "conforms")
    if column:
        shaken = [b for b in standing_bases(state, attack["target"]) if state["bases"][b]["state"] == "fresh"]
        for base in shaken:
            state["bases"][base]["state"] = "shaken"
        engagement["column_shaken"] = shaken
    return engagement


def _moved(state: State, engagement: dict[str, Any], base: str, end: Any, why: str) -> None:
    """Put a base at `end` on the table; the encounter's report draws the move (an arrow)."""
    start = pose_of(state, base)
    if (round(start.x, 1), round(start.y, 1), round(start.facing, 1)) == (
        round(end.x, 1),
        round(end.y, 1),
        round(end.facing, 1),
    ):
        return
    move = go_to(state, base, end)
    engagement.setdefault("moves", []).append({**move, "why": why})


def _back(state: State, engagement: dict[str, Any], base: str, distance: float, why: str) -> bool:
    """Move a base straight back `distance` mm on the table, facing kept; return whether it left the
    table (option table_edge: remove)."""
    move = go_back(state, base, distance)
    engagement.setdefault("moves", []).append({**move, "why": why})
    return bool(move.get("off_table"))


def _declare_support(state: State, engagement: dict[str, Any], support: Sequence[Mapping[str, Any]]) -> None:
    """Record declared supporters; a base given support again stands where its supporters can back it."""
    for entry in support:
        engagement["support"][entry["base"]] = list(entry["by"])
        state["bases"][entry["base"]]["moved_in_combat"] = False


def _standing_support(state: State, group: list[dict[str, Any]], side: str) -> list[str]:
    """Give the defending bases of an encounter the support their players' standing orders declare.

    The book implies defenders have support; a defender gives no orders in the attacker's contact
    phase, so its standing orders declare it. A supporter that is down, itself fighting where
    option fighting_bases_support is false, or (on the referee's table) not beside or directly
    behind the base, gives none. Return the standing orders used (pointers).
    """
    used = []
    fighting = {b for e in state["engagements"] for p in live_pairs(state, e) for b in p["bases"]}
    for engagement in group:
        for pair in live_pairs(state, engagement):
            for base in pair["bases"]:
                army = army_of_base(state, base)
                declared = state["standing"].get(army, {}).get("support", {}).get(base)
                if side_of_base(state, base) == side or not declared or base in engagement["support"]:
                    continue
                by = [b for b in declared if is_standing(state, b)]
                if not setting(state, "fighting_bases_support"):
                    by = [b for b in by if b not in fighting]
                if on_table(state):  # beside or directly behind it on the table (L396, L426)
                    where = poses_now(state)
                    by = [b for b in by if b in where and base in where and supports(state, base, b, where)]
                if by:
                    _declare_support(state, engagement, [{"base": base, "by": by}])
                    used.append(json_pointer("standing", army, "support", base))
    return used


def _groups(engagements: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Split engagements into encounters: those sharing a division are fought together."""
    groups: list[list[dict[str, Any]]] = []
    for engagement in engagements:
        joined = [g for g in groups if any(set(e["divisions"]) & set(engagement["divisions"]) for e in g)]
        merged = [e for g in joined for e in g] + [engagement]
        groups = [g for g in groups if g not in joined] + [merged]
    ordered = [sorted(g, key=engagements.index) for g in groups]
    return sorted(ordered, key=lambda g: engagements.index(g[0]))


def _fight_encounter(
    r: Resolution, group: list[dict[str, Any]], plans: Mapping[str, list[list[str]]], side: str
) -> None:
    state = r.state
    divisions = list(dict.fromkeys(d for e in group for d in e["divisions"]))
    tally: dict[str, dict[str, Any]] = {
        d: {"broken": [], "shaken": [], "recoiled": [], "inflicted": 0} for d in divisions
    }
    for engagement in group:
        for base in engagement.get("column_shaken", []):
            _mark(tally, state, base, "shaken")
    used_standing = _standing_support(state, group, side) if setting(state, "defenders_support") else []
    rounds = []
    for step in range(3):
        for engagement in group:
            kind = (ROUNDS if engagement["new"] else CONTINUING)[step]
            rounds.append(_fight_round(r, engagement, step + 1, kind, plans[engagement["id"]][step], side, tally))
    outcome = _outcome_round(r, group, divisions, tally)
    titles = {d: state["divisions"][d]["title"] for d in divisions}
    summaries = [
        {
            "id": e["id"],
            "divisions": list(e["divisions"]),
            "titles": [titles[d] for d in e["divisions"]],
            "launched_by": e["launched_by"],
            "new": e["new"],
            "column_shaken": e.get("column_shaken", []),
            **({"moves": e["moves"]} if e.get("moves") else {}),
        }
        for e in group
    ]
    for engagement in group:
        engagement["new"] = False
        engagement["fought_turn"] = state["turn"]
        engagement.pop("column_shaken", None)
        engagement.pop("moves", None)
        for pair in engagement["pairs"]:
            pair.pop("pushed_back", None)
    names = "; ".join(f"{e['titles'][0]} against {e['titles'][1]} ({e['id']})" for e in summaries)
    # The standing orders a defender response round made public (for the leak test: see views.py).
    reveals = sorted({pointer for played in rounds for pointer in played.pop("reveals")} | set(used_standing))
    data = {"engagements": summaries, "rounds": rounds, "outcome": outcome, "titles": titles}
    r.say(
        "combat.encounter", f"Encounter: {names}. {outcome['text']}", {**data, "reveals": reveals} if reveals else data
    )


def _fight_round(
    r: Resolution,
    engagement: dict[str, Any],
    number: int,
    kind: str,
    order: Sequence[str],
    side: str,
    tally: dict[str, dict[str, Any]],
) -> dict[str, Any]:
    state = r.state
    pairs = live_pairs(state, engagement)
    listed = [p for base in order for p in pairs if base in p["bases"]]
    ordered = list(dict.fromkeys(id(p) for p in [*listed, *pairs]))
    by_id = {id(p): p for p in pairs}
    combats, skipped = [], []
    reveals: set[str] = set()
    for key in ordered:
        pair = by_id[key]
        attacker, defender = sorted(pair["bases"], key=lambda b: side_of_base(state, b) != side)
        fights, reason = _fights(state, engagement, pair, kind, attacker, defender, order)
        army = army_of_base(state, defender)
        if kind == "defender-response" and pair["last"] == "no-effect" and army in state["standing"]:
            reveals.add(json_pointer("standing", army))  # the base did what its standing order says
        if not fights:
            skipped.append({"attacker": attacker, "defender": defender, "reason": reason})
            continue
        combat = _fight(r, engagement, number, kind, pair, attacker, defender, tally)
        combat["why"] = reason
        combats.append(combat)
    defenders_follow = setting(state, "defending_winner_follows_up")
    for combat in combats:
        tests = defenders_follow or combat["winner"] == combat["attacker"]["base"]
        if combat["outcome"] in ("recoiled", "shaken") and tests and is_standing(state, combat["loser"]):
            _follow_up(r, engagement, number, combat)
    title = kind.replace("-", " ") if engagement["new"] else f"{ORDINALS[number - 1]} continuing"
    return {
        "engagement": engagement["id"],
        "number": number,
        "kind": kind,
        "title": f"{title} round",
        "combats": combats,
        "skipped": skipped,
        "reveals": sorted(reveals),
    }


def _fights(
    state: State,
    engagement: dict[str, Any],
    pair: dict[str, Any],
    kind: str,
    attacker: str,
    defender: str,
    order: Sequence[str],
) -> tuple[bool, str]:
    """Return whether a pair fights this round, and why (or why not)."""
    if kind == "advance-to-contact":
        return True, "contact"
    if kind == "defender-response":
        if pair["last"] == "followed-up":
            return True, "must fight: the winner followed up"
        if pair["last"] == "no-effect":
            choice = standing_response(state, defender)
            if choice == "fight":
                return True, f"{defender} chooses to fight again"
            return False, f"{defender} declines to fight again"
        return False, "no longer in contact"
    if pair["contact"]:
        return True, "still in contact"
    if attacker in order and not setting(state, "recoiled_bases_readvance") and attacker in pair.get("pushed_back", []):
        return False, f"{attacker} was pushed back by {defender}: only a base that did not recoil may advance again"
    if attacker in order:
        end = conform_pose(state, attacker, defender) if on_table(state) else None
        if end is not None and (blocked := blocking(state, attacker, end)):
            return False, f"{attacker} cannot advance back into contact: {', '.join(blocked)} stands in the way"
        pair["contact"] = True
        state["bases"][attacker]["moved_in_combat"] = True
        if end is not None:
            _moved(state, engagement, attacker, end, "advances into contact")
        return True, f"{attacker} advances back into contact"
    return False, "not in contact"


def standing_response(state: Mapping[str, Any], base: str) -> str:
    """Return a defending base's standing choice after "no effect": its player's order, else the game default."""
    standing = state["standing"].get(army_of_base(state, base), {})
    return str(standing.get("bases", {}).get(base) or standing.get("respond") or state["config"]["default_response"])


def _fight(
    r: Resolution,
    engagement: dict[str, Any],
    number: int,
    kind: str,
    pair: dict[str, Any],
    attacker: str,
    defender: str,
    tally: dict[str, dict[str, Any]],
) -> dict[str, Any]:
    state = r.state
    bases = state["bases"]
    what = f"{attacker} against {defender}, {kind.replace('-', ' ')} round"
    sides = {}
    for base, opponent, role in ((attacker, defender, "attacker"), (defender, attacker, "defender")):
        roll = r.d6(label=f"combat/{engagement['id']}/{number}/{base}", purpose=f"{base} ({what})")
        modifiers = _modifiers(state, engagement, base, opponent, role, kind)
        sides[role] = {
            "base": base,
            "roll": roll,
            "modifiers": modifiers,
            "total": roll + sum(m["value"] for m in modifiers),
        }
    for base in (attacker, defender):
        bases[base]["followed_up"] = False
    a_total, d_total = sides["attacker"]["total"], sides["defender"]["total"]
    difference = abs(a_total - d_total)
    result = next(
        row["result"]
        for row in combat_chart(state)
        if row["low"] <= difference and (row["high"] is None or difference <= row["high"])
    )
    loser = winner = outcome = None
    pair["contact"], pair["last"] = True, "no-effect"
    if result != "no-effect" and difference:
        loser, winner = (attacker, defender) if a_total < d_total else (defender, attacker)
        outcome = apply_result(state, loser, result)
        _mark(tally, state, loser, outcome)
        if on_table(state):
            distance = COMBAT["broken_back_bw"] * bw(state) if outcome == "broken" else COMBAT["recoil_bd"] * bd(state)
            if _back(state, engagement, loser, distance, "broken" if outcome == "broken" else "recoils"):
                outcome = "broken"  # driven off the table: a base lost, scored as broken in the outcome round
                _mark(tally, state, loser, outcome)
        pair["contact"], pair["last"] = False, "apart"
        if not setting(state, "recoiled_bases_readvance"):
            # Kept for this encounter only by games that tell who recoiled (older states lack it).
            pair["pushed_back"] = sorted({*pair.get("pushed_back", []), loser})
        if outcome == "broken":
            tally[bases[winner]["division"]]["inflicted"] += 1
    combat: dict[str, Any] = {
        "attacker": sides["attacker"],
        "defender": sides["defender"],
        "difference": difference,
        "result": result,
        "loser": loser,
        "winner": winner,
        "outcome": outcome,
        "back": _distance_back(outcome),
        "state_after": {b: bases[b]["state"] for b in (attacker, defender)},
        "follow_up": None,
        "pair": pair["bases"],
        "generals": [],
    }
    if loser is not None and bases[loser].get("off_table"):
        combat["off_table"] = True
    for base in (attacker, defender):
        for general_id in _generals_with(state, base):
            breaks = bases[base]["state"] == "broken"
            key = f"{engagement['id']}/{number}"
            combat["generals"].append(
                risk_to_general(r, general_id, base, breaks, key, f"{base} fought", announce=False)
            )
            if breaks and state["generals"][general_id]["status"] == "active":
                combat["generals"].append(capture_roll(r, general_id, key, f"{base} broke", announce=False))
    return combat


def _distance_back(outcome: str | None) -> str | None:
    """Return how far the loser goes back, as the example states it: 1BD for a recoil, 2BW when broken."""
    if outcome is None:
        return None
    if outcome == "broken":
        return f"{COMBAT['broken_back_bw']}BW"
    return f"{COMBAT['recoil_bd']}BD"


def _generals_with(state: Mapping[str, Any], base: str) -> list[str]:
    return sorted(g for g, rec in state["generals"].items() if rec["with_base"] == base and rec["status"] == "active")


def _modifiers(
    state: Mapping[str, Any], engagement: Mapping[str, Any], base: str, opponent: str, role: str, kind: str
) -> list[dict[str, Any]]:
    """Return the combat modifiers whose conditions hold for `base` fighting `opponent`."""
    record, other = state["bases"][base], state["bases"][opponent]
    facts: dict[str, Any] = {
        "side": role,
        "round": kind,
        "arm": arm_of(state, base),
        "type": record["type"],
        "school": record["school"],
        "class": record["class"],
        "state": record["state"],
        "opponent_arm": arm_of(state, opponent),
        "opponent_type": other["type"],
        "opponent_state": other["state"],
        "supported": _is_supported(state, engagement, base),
        "followed_up": record["followed_up"],
        "overlapped": on_table(state) and bool(overlapped_by(state, base, opponent)),
    }
    applied = []
    for modifier in combat_modifiers(state):
        if all(
            facts[key] == wanted if isinstance(wanted, (bool, str)) else facts[key] in wanted
            for key, wanted in modifier.get("when", {}).items()
        ):
            applied.append({"name": modifier["name"], "value": modifier["value"]})
    return applied


def _is_supported(state: Mapping[str, Any], engagement: Mapping[str, Any], base: str) -> bool:
    """A base is supported while it stands where it was when support was declared, beside a standing supporter
    (on the referee's table, one not facing an enemy front to front within 1BW, L426)."""
    if state["bases"][base]["moved_in_combat"]:
        return False
    by = [b for b in engagement["support"].get(base, []) if is_standing(state, b)]
    if on_table(state):
        by = [b for b in by if support_cancelled_by(state, b) is None]  # L426
    return bool(by)


def apply_result(state: State, base: str, result: str) -> str:
    """Apply a combat (or bombardment) result to the base that lost; return recoiled, shaken or broken."""
    record = state["bases"][base]
    if result == "recoil-shaken" and record["state"] == "shaken":
        result = "broken"  # a shaken base that is shaken again breaks
    record["moved_in_combat"] = True
    if result == "broken":
        record.update(state="broken", followed_up=False)
        state["broken_this_turn"].append(base)
        return "broken"
    if result == "recoil-shaken":
        record["state"] = "shaken"
        return "shaken"
    return "recoiled"


def _mark(tally: dict[str, dict[str, Any]], state: Mapping[str, Any], base: str, outcome: str) -> None:
    division = tally[state["bases"][base]["division"]]
    if base not in division[outcome]:
        division[outcome].append(base)


def _follow_up(r: Resolution, engagement: dict[str, Any], number: int, combat: dict[str, Any]) -> None:
    state = r.state
    winner = combat["winner"]
    pair = next(p for p in engagement["pairs"] if p["bases"] == combat["pair"])
    if arm_of(state, winner) == "cavalry":
        follows, roll = True, None
    else:
        lookup = r.read(
            "follow-up",
            label=f"follow-up/{engagement['id']}/{number}/{winner}",
            purpose=f"{winner} tests to follow up {combat['loser']}",
        )
        follows, roll = lookup.result == "follows-up", lookup.natural
    combat["follow_up"] = {"base": winner, "roll": roll, "automatic": roll is None, "follows": follows}
    end = conform_pose(state, winner, combat["loser"]) if follows and on_table(state) else None
    if end is not None and (blocked := blocking(state, winner, end)):
        follows = False  # the ground the loser left is taken: a follow-up never ends on another base
        combat["follow_up"].update(follows=False, blocked=blocked)
    if follows:
        state["bases"][winner].update(followed_up=True, moved_in_combat=True)
        pair["contact"], pair["last"] = True, "followed-up"
        if end is not None:
            _moved(state, engagement, winner, end, "follows up")


# -- the outcome round --------------------------------------------------------------------


def _outcome_round(
    r: Resolution, group: list[dict[str, Any]], divisions: list[str], tally: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    state = r.state
    lines = {}
    for division in divisions:
        counted = _counted(tally[division])
        points = sum(POINTS[kind] * len(bases) for kind, bases in counted.items())
        lines[division] = {
            "division": division,
            "title": state["divisions"][division]["title"],
            **counted,
            "points": points,
            "inflicted": tally[division]["inflicted"],
            "sustained": len(counted["broken"]),
        }
    # The book's example rolls the division with most loss points first; the order only decides
    # which die is drawn first, never a result.
    for division in sorted(divisions, key=lambda d: -lines[d]["points"]):
        line = lines[division]
        line["roll"] = r.d6(label=f"outcome/{division}", purpose=f"{line['title']}: outcome round")
        line["score"] = line["points"] + line["roll"]
    comparisons = []
    fall_back: dict[str, dict[str, Any]] = {}
    for engagement in group:
        comparisons.append(_compare(engagement, lines, fall_back))
    for engagement in group:
        launcher, target = engagement["launched_by"], engagement["divisions"][1]
        if division_arm(state, launcher) == "cavalry" and target not in fall_back:
            _fall_back(
                fall_back, launcher, CAVALRY_FAILED_BD, "its cavalry attack did not succeed: falls back 1BW and reforms"
            )
    moves = [_apply_fall_back(state, division, entry) for division, entry in fall_back.items()]
    continuing, ended = [], []
    for engagement in group:
        over = any(d in fall_back or not standing_bases(state, d) for d in engagement["divisions"])
        if over or not live_pairs(state, engagement):
            _end(state, engagement)
            ended.append(engagement["id"])
        else:
            continuing.append(engagement["id"])
    text = "Outcome: " + ", ".join(f"{lines[d]['title']} {lines[d]['score']}" for d in divisions) + ". "
    text += " ".join(m["text"] for m in moves) or "Nobody falls back."
    if continuing:
        text += f" The fight goes on next turn ({', '.join(continuing)})."
    explained = {"rule": OUTCOME_RULE} if setting(state, "letters") == "army-board" else {}
    return {
        **explained,
        "divisions": [lines[d] for d in divisions],
        "comparisons": comparisons,
        "fall_backs": moves,
        "continuing": continuing,
        "ended": ended,
        "text": text,
    }


def _counted(tally: Mapping[str, Any]) -> dict[str, list[str]]:
    """Count each base once, at the worst it suffered in this encounter."""
    broken = list(tally["broken"])
    shaken = [b for b in tally["shaken"] if b not in broken]
    recoiled = [b for b in tally["recoiled"] if b not in broken and b not in shaken]
    return {"broken": broken, "shaken": shaken, "recoiled": recoiled}


def _compare(
    engagement: Mapping[str, Any], lines: Mapping[str, dict[str, Any]], fall_back: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    first, second = engagement["divisions"]
    a, b = lines[first], lines[second]
    comparison: dict[str, Any] = {
        "engagement": engagement["id"],
        "divisions": [first, second],
        "scores": [a["score"], b["score"]],
        "difference": abs(a["score"] - b["score"]),
        "loser": None,
        "held": False,
        "fall_back_bd": 0,
    }
    if a["score"] == b["score"]:
        return comparison
    loser = a if a["score"] > b["score"] else b
    comparison["loser"] = loser["division"]
    if loser["inflicted"] > loser["sustained"]:
        comparison["held"] = True  # it inflicted more losses in the encounter than it took: it holds
        return comparison
    distance = comparison["difference"] - 2
    if distance > 0:
        comparison["fall_back_bd"] = distance
        _fall_back(fall_back, loser["division"], distance, f"outcome {comparison['difference']} - 2 = {distance}BD")
    return comparison


def _fall_back(fall_back: dict[str, dict[str, Any]], division: str, bd: int, why: str) -> None:
    if bd > fall_back.get(division, {}).get("bd", 0):
        fall_back[division] = {"bd": bd, "why": why}


def _apply_fall_back(state: State, division: str, entry: Mapping[str, Any]) -> dict[str, Any]:
    """Fall a division back; from the option's distance on, its bases are shaken (shaken ones break)."""
    shaken, broken = [], []
    if entry["bd"] >= state["config"]["fall_back_shakes_bd"]:
        for base in standing_bases(state, division):
            if state["bases"][base]["state"] == "shaken":
                apply_result(state, base, "broken")
                broken.append(base)
            else:
                state["bases"][base]["state"] = "shaken"
                shaken.append(base)
    moves = []
    if on_table(state):
        moves = [{**go_back(state, base, entry["bd"] * bd(state)), "why": "falls back"}
                 for base in standing_bases(state, division)]  # fmt: skip
    title = state["divisions"][division]["title"]
    text = f"{title} falls back {entry['bd']}BD ({entry['why']})"
    if shaken or broken:
        text += f": {', '.join(shaken) or 'no base'} shaken, {', '.join(broken) or 'none'} broken"
    off_table = [move["base"] for move in moves if move.get("off_table")]
    if off_table:
        text += f"; {', '.join(off_table)} driven off the table, lost (option table_edge: remove)"
    return {"division": division, "title": title, "bd": entry["bd"], "why": entry["why"], "shaken": shaken,
            "broken": broken, "text": text + ".", **({"moves": moves} if moves else {}),
            **({"off_table": off_table} if off_table else {})}  # fmt: skip


def _end(state: State, engagement: dict[str, Any]) -> None:
    """End an engagement: its pairs part and their bases forget follow-ups and support."""
    engagement["ended"] = True
    for pair in engagement["pairs"]:
        for base in pair["bases"]:
            state["bases"][base].update(followed_up=False, moved_in_combat=False)


def end_engagements_of(state: State, division: str) -> list[str]:
    """End every engagement a (spent) division is in; return their ids."""
    ended = [e for e in state["engagements"] if division in e["divisions"]]
    for engagement in ended:
        _end(state, engagement)
    state["engagements"] = [e for e in state["engagements"] if not e.get("ended")]
    return [e["id"] for e in ended]
