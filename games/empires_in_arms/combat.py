"""A combat's rounds under chapter 12.0, with the core Combat Resolution Table, the Guard
Commitment Table and the competitive rolls the referee supplies (supplies.py): artillery
bombardment (12.3.5), guard commitment (12.3.4), cavalry superiority and the modifier cap
(12.3.3), breaking, and the losses each nationality takes (12.2.5, 12.3.6).

A combat is plain data in the state: its kind, area and terrain, each side's units, players and
commander, the round, each side's morale loss (in tenths), whether a side has committed its guard
(once a combat: the module's reading of "once per day of combat") and whether it has broken.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.empires_in_arms import guard, land, losses
from referee.kit import Dice, Event, NotSupplied

SIDES = ("attacker", "defender")
LAND_TYPES = ("infantry", "militia", "cavalry", "cossack", "freikorps", "artillery", "guard")
BOMBARD_TABLE = "5-5"  # 12.3.5: always the "5-5" table


def other(side: str) -> str:
    """Return the opposing side."""
    return "defender" if side == "attacker" else "attacker"


def is_naval(combat: Mapping[str, Any]) -> bool:
    """Return whether the combat is a naval combat (losses in ships)."""
    return bool(combat["kind"] == "naval")


def contingents(combat: Mapping[str, Any], units: Mapping[str, Any], side: str) -> dict[str, dict[str, int]]:
    """Return a side's strength by nationality: ships, or army factors by type."""
    found: dict[str, dict[str, int]] = {}
    for unit_id in combat["sides"][side]["units"]:
        unit = units[unit_id]
        into = found.setdefault(unit["nation"], {})
        if is_naval(combat):
            into["ships"] = into.get("ships", 0) + unit.get("ships", 0)
        else:
            for kind, count in unit.get("factors", {}).items():
                into[kind] = into.get(kind, 0) + count
    return found


def totals(by_nation: Mapping[str, Mapping[str, int]]) -> dict[str, int]:
    """Return a side's factors by type, every nationality together."""
    found: dict[str, int] = {}
    for factors in by_nation.values():
        for kind, count in factors.items():
            found[kind] = found.get(kind, 0) + count
    return found


def strength(by_nation: Mapping[str, Mapping[str, int]]) -> int:
    """Return a side's strength factors (every factor or ship)."""
    return sum(totals(by_nation).values())


def _table(supplied: Mapping[str, Any], need: str, why: str) -> Mapping[str, Any]:
    found = supplied.get(need)
    if found is None:
        raise NotSupplied(
            need, f"{why} needs '{need}', which the referee has not supplied", (f"referee supply GAMEDIR {need}.yaml",)
        )
    return found


def read_results(results: Mapping[str, Any], column: str, roll: int) -> dict[str, int]:
    """Return the Combat Resolution Table's result in `column` for a modified roll (clamped to the
    table's rows): {losses: factors the other side loses, morale: its morale loss in tenths}."""
    rows = results["columns"][column]
    lowest, highest = min(int(r) for r in rows), max(int(r) for r in rows)
    row = rows[str(min(max(roll, lowest), highest))]
    return {"losses": int(row["losses"]), "morale": round(float(row.get("morale", 0)) * 10)}


def fight_round(
    combat: Mapping[str, Any],
    units: Mapping[str, Any],
    choices: Mapping[str, Mapping[str, Any]],
    morale: Mapping[str, int],
    supplied: Mapping[str, Any],
    rules: Mapping[str, bool],
    dice: Dice,
) -> tuple[dict[str, Any], dict[str, Any], list[Event]]:
    """Fight one round; return the combat after it (round losses to allocate in `owed`, broken
    sides), the units after the guard's immediate losses, and the events.

    `choices[side]` holds the side's combat table (`table`), its guard commitment (`guard`:
    {nation, shift} or None) and whether its artillery bombards (`bombard`); `morale[side]` is
    the side's morale level in tenths."""
    results = _table(supplied, "combat_results", f"round {combat['round']} of combat {combat['id']}")
    cid, rnd = combat["id"], combat["round"]
    label = f"combat/{cid}/round-{rnd}"
    units = {key: dict(value) for key, value in units.items()}
    combat = {**combat, "owed": {side: dict(combat["owed"][side]) for side in SIDES}}
    events: list[Event] = []
    before = {side: contingents(combat, units, side) for side in SIDES}
    kind = combat["kind"]
    fights = {side: True for side in SIDES}
    broken = {side: bool(combat["broken"][side]) for side in SIDES}
    inflicted = {side: 0 for side in SIDES}  # factors each side inflicts this round
    bombarded = {side: 0 for side in SIDES}  # of them, by its artillery's bombardment
    morale_hit = {side: 0 for side in SIDES}

    # 12.3.5: a side of artillery alone "at any time during a combat round" breaks at once: it
    # neither bombards nor fights (the losses of the last round may have left it so).
    if rules["artillery_corps"]:
        for side in SIDES:
            if not broken[side] and land.only_artillery(totals(before[side])):
                broken[side], fights[side] = True, False
                events.append(_artillery_alone(cid, side))

    # 12.3.5: both artillery corps bombard at once, before the round, on the 5-5 table, casualties only.
    for side in SIDES:
        own = before[side]
        if not (rules["artillery_corps"] and choices[side].get("bombard") and fights[side]):
            continue
        artillery = totals(own).get("artillery", 0)
        if not land.can_bombard(list(own), artillery, kind, combat["terrain"]):
            continue
        roll = dice.roll(results["dice"], label=f"{label}/{side}/bombard")[0]
        hit = read_results(results, BOMBARD_TABLE, roll)["losses"]
        inflicted[side] += hit
        bombarded[side] += hit
        events.append(
            Event(
                "combat.bombardment",
                f"{side}'s artillery bombards on the {BOMBARD_TABLE} table: rolled {roll}, {hit} casualties (12.3.5)",
                {"combat": cid, "round": rnd, "side": side, "roll": roll, "casualties": hit},
            )
        )

    # 12.3.4: guard commitments, each rolled on the Guard Commitment Table.
    committed: dict[str, Any] = {}
    for side in SIDES:
        pledge = choices[side].get("guard") if rules["guard_commitment"] and not is_naval(combat) else None
        if not pledge or not fights[side]:
            continue
        table = _table(supplied, "guard_table", f"{side}'s guard commitment in combat {cid}")
        nation, shift = pledge["nation"], pledge["shift"]
        roll = dice.roll(table["dice"], label=f"{label}/{side}/guard")[0]
        lost = int(table["columns"][f"+{shift}"][str(roll)])
        present = before[side][nation]["guard"]
        left, outcome = guard.guard_outcome(present, lost)
        units = _remove(units, combat["sides"][side]["units"], nation, {"guard": present - left})
        committed[side] = {"nation": nation, "shift": shift, "left": left}
        combat["guard_used"] = {**combat["guard_used"], side: True}
        text = f"{side} commits the {nation} guard for +{shift}: rolled {roll}, {present - left} guard factor(s) lost"
        if outcome == "breaks":
            fights[side] = False
            broken[side] = True
            text += "; no guard is left, so the side breaks without fighting this round (12.3.4)"
        events.append(
            Event(
                "combat.guard",
                text,
                {
                    "combat": cid,
                    "round": rnd,
                    "side": side,
                    "nation": nation,
                    "shift": shift,
                    "roll": roll,
                    "lost": present - left,
                },
            )
        )

    # The round's fire: each side that fights rolls on its table, cavalry superiority +1, net +1 at most.
    now = {side: contingents(combat, units, side) for side in SIDES}
    if rules["artillery_corps"]:
        for side in SIDES:
            if fights[side] and not broken[side] and land.only_artillery(totals(now[side])):
                broken[side], fights[side] = True, False
                events.append(_artillery_alone(cid, side))
    for side in SIDES:
        if not fights[side]:
            continue
        column = choices[side]["table"]
        if side in committed:
            column = guard.shifted_table(column, committed[side]["shift"])
        modifiers = []
        if rules["cavalry_superiority"] and not is_naval(combat):
            bonus = land.cavalry_superiority(totals(now[side]), totals(now[other(side)]), kind)
            if bonus:
                modifiers.append(bonus)
        modifier = land.capped_modifier(modifiers) if modifiers else 0
        roll = dice.roll(results["dice"], label=f"{label}/{side}")[0]
        result = read_results(results, column, roll + modifier)
        inflicted[side] += result["losses"]
        morale_hit[other(side)] += result["morale"]
        events.append(
            Event(
                "combat.fire",
                f"{side} fights on the {column} table: rolled {roll}"
                f"{f' {modifier:+d} (cavalry superiority)' if modifier else ''},"
                f" {result['losses']} losses and {result['morale'] / 10:.1f} morale to the {other(side)}",
                {
                    "combat": cid,
                    "round": rnd,
                    "side": side,
                    "table": column,
                    "roll": roll,
                    "modifier": modifier,
                    **result,
                },
            )
        )

    morale_loss = {side: combat["morale_loss"][side] + morale_hit[side] for side in SIDES}
    breaks_at = round(float(results["breaks_at_morale"]) * 10)
    fight_is_naval = is_naval(combat)
    for side in SIDES:
        if fight_is_naval:
            break  # a naval combat ends after its rounds; morale is the land combat's
        if morale[side] - morale_loss[side] <= breaks_at and not broken[side]:
            broken[side] = True
            events.append(
                Event(
                    "combat.broken",
                    f"{side}'s morale falls to {(morale[side] - morale_loss[side]) / 10:.1f}: it breaks",
                    {"combat": cid, "side": side},
                )
            )
    for side in committed:
        if fights[side] and guard.breaks_after_commitment(True, broken[other(side)]) and not broken[side]:
            broken[side] = True
            events.append(
                Event(
                    "combat.broken",
                    f"{side} committed its guard and did not break the {other(side)}: it breaks (12.3.4)",
                    {"combat": cid, "side": side},
                )
            )
    for side in SIDES:
        owed = dict(combat["owed"][side])
        owed["count"] = owed.get("count", 0) + inflicted[other(side)]
        # 12.3.5: bombardment casualties spare militia where possible when the side *already* has
        # a morale loss of 2.0 (before this round's fire); the round's other losses do not.
        if rules["artillery_corps"] and land.bombardment_spares_militia(combat["morale_loss"][side] / 10):
            owed["spare_militia"] = owed.get("spare_militia", 0) + bombarded[other(side)]
        combat["owed"][side] = owed
    combat["morale_loss"] = morale_loss
    combat["broken"] = broken
    return combat, units, events


def _remove(units: dict[str, Any], ids: Sequence[str], nation: str, taken: Mapping[str, int]) -> dict[str, Any]:
    """Return the units after removing `taken` factors (by type) of `nation`, unit by unit in order."""
    left = dict(taken)
    for unit_id in ids:
        unit = units[unit_id]
        if unit["nation"] != nation:
            continue
        key = "ships" if "ships" in unit else None
        if key:
            take = min(unit["ships"], left.get("ships", 0))
            units[unit_id] = {**unit, "ships": unit["ships"] - take}
            left["ships"] = left.get("ships", 0) - take
            continue
        factors = dict(unit.get("factors", {}))
        for kind, count in list(left.items()):
            take = min(count, factors.get(kind, 0))
            factors[kind] = factors.get(kind, 0) - take
            left[kind] = count - take
        units[unit_id] = {**unit, "factors": factors}
    return units


def take_losses(
    combat: Mapping[str, Any],
    units: Mapping[str, Any],
    side: str,
    split: Mapping[str, int],
    spare_militia: int,
    chosen: Mapping[str, Mapping[str, int]] | None = None,
) -> tuple[dict[str, Any], dict[str, dict[str, int]]]:
    """Return the units after `side` loses `split` (factors or ships by nationality), and what
    each lost by type: the types its controlling player chose (`chosen`, 12.3.6) when they add up
    to its loss and it has them, else type by type in LAND_TYPES' order, the first
    `spare_militia` of the side's losses (the bombardment casualties 12.3.5 keeps off militia)
    taken from other factors where possible."""
    units = {key: dict(value) for key, value in units.items()}
    by_nation = contingents(combat, units, side)
    spared = [k for k in LAND_TYPES if k != "militia"] + ["militia"]
    taken_all = {}
    for nation, count in sorted(split.items()):
        if count <= 0:
            continue
        picked = (chosen or {}).get(nation)
        if picked and is_choice_of_types(picked, by_nation[nation], count):
            taken = {kind: n for kind, n in picked.items() if n > 0}
        elif is_naval(combat):
            _, taken = losses.take_from(by_nation[nation], count, ["ships"])
        else:
            first = min(count, spare_militia)
            left, taken = losses.take_from(by_nation[nation], first, spared)
            _, rest = losses.take_from(left, count - first, LAND_TYPES)
            taken = {
                kind: taken.get(kind, 0) + rest.get(kind, 0) for kind in LAND_TYPES if kind in taken or kind in rest
            }
            spare_militia -= first
        units = _remove(units, combat["sides"][side]["units"], nation, taken)
        taken_all[nation] = taken
    return units, taken_all


def is_choice_of_types(picked: Mapping[str, int], present: Mapping[str, int], count: int) -> bool:
    """Return whether a player's choice of factor types adds up to `count` and the contingent has them."""
    return sum(picked.values()) == count and all(0 <= n <= present.get(kind, 0) for kind, n in picked.items())


def competitive_rolls(
    nations: Sequence[str], procedure: Mapping[str, Any], label: str, dice: Dice
) -> tuple[dict[str, list[int]], list[dict[str, int]]]:
    """Roll the referee's competitive-roll procedure for `nations`, those tied rolling again
    until none is; return each one's rolls (compared in order: the first roll, then the
    tie-breakers) and every round of rolls made."""
    rolls: dict[str, list[int]] = {nation: [] for nation in nations}
    rounds: list[dict[str, int]] = []
    rolling = sorted(nations)
    attempt = 0
    while rolling and attempt < 20:
        attempt += 1
        rolled = {nation: sum(dice.roll(procedure["dice"], label=f"{label}/{attempt}/{nation}")) for nation in rolling}
        rounds.append(rolled)
        for nation, value in rolled.items():
            rolls[nation].append(value)
        keys = [tuple(rolls[nation]) for nation in rolls]
        rolling = sorted(nation for nation in rolls if keys.count(tuple(rolls[nation])) > 1)
    return rolls, rounds


def _artillery_alone(cid: str, side: str) -> Event:
    return Event(
        "combat.broken",
        f"{side} has only artillery left: it breaks without fighting (12.3.5)",
        {"combat": cid, "side": side},
    )
