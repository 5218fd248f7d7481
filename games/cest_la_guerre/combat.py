"""One combat's arithmetic: chart factors, modifiers, the 2D6 each side rolls, who lost and
whether doubled, and what the Combat Outcome Chart makes of it (L329-L444; section 3b, R6).

Shooting and melee share the procedure; `kind` says which chart and which modifiers apply.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from games.cest_la_guerre.data import CHARTS
from games.cest_la_guerre.geometry import CARD_DEPTH, along, gap, offset, pose_of, rect_of
from games.cest_la_guerre.relations import flank_rear_enemies, overlaps_on, rear_supporters
from games.cest_la_guerre.terrain import (
    elevation,
    in_bad_going,
    in_bad_going_for_outcome,
    in_fortification,
    river_under,
)
from games.cest_la_guerre.units import is_artillery, is_mounted, troop, unit_class

MODIFIERS: dict[str, int] = CHARTS["modifiers"]
NEAR_ARTILLERY = 200
CLOSE_ORDER = ("pike", "coi")


@dataclass
class Combatant:
    """One side of a combat: its card, chart row and factor, modifiers, dice and total."""

    unit: dict[str, Any]
    row: str = ""
    factor: int = 0
    modifiers: list[tuple[str, int]] = field(default_factory=list)
    dice: list[int] = field(default_factory=list)

    @property
    def total(self) -> int:
        """The combat total: dice, factor and modifiers."""
        return sum(self.dice) + self.factor + sum(value for _, value in self.modifiers)

    def as_data(self) -> dict[str, Any]:
        """Return the combatant as plain data for events."""
        return {
            "marker": self.unit["marker"],
            "row": self.row,
            "factor": self.factor,
            "modifiers": [{"name": n, "value": v} for n, v in self.modifiers],
            "dice": list(self.dice),
            "total": self.total,
        }

    def breakdown(self) -> str:
        """Return the total as a sum a player can check: "(3+4) +4 row reg_inf, +1 british_shooting = 12"."""
        parts = [f"({'+'.join(map(str, self.dice))})", f"{self.factor:+d} {self.row}"]
        parts += [f"{value:+d} {name}" for name, value in self.modifiers]
        return " ".join(parts) + f" = {self.total}"


def chart_row(unit: Mapping[str, Any], options: Mapping[str, Any], distance: float) -> str:
    """Return the chart row a card fights on (Disorder rows; artillery by range; a Square by option)."""
    if unit.get("in_square"):
        return str(options["square_factor_row"])
    if unit.get("disordered"):
        return "mounted_disorder" if is_mounted(unit) else "infantry_disorder"
    row = str(troop(unit)["rows"]["combat"])
    if row == "artillery":
        return "artillery_near" if distance <= NEAR_ARTILLERY else "artillery_far"
    return row


def chart_factor(kind: str, row: str, opponent: Mapping[str, Any], options: Mapping[str, Any]) -> int:
    """Return the factor of `row` against the opponent's class on the shooting or melee chart."""
    chart = CHARTS[kind]
    column = unit_class(opponent)
    if kind == "melee" and row in options["melee_chart_fill"]:
        return int(options["melee_chart_fill"][row][column])
    return int(chart[row][column])


def distance_between(a: Mapping[str, Any], b: Mapping[str, Any]) -> int:
    """Return the shortest distance between two cards in whole mm (rounded down)."""
    return math.floor(gap(rect_of(a), rect_of(b)))


def is_enfilade(shooter: Mapping[str, Any], target: Mapping[str, Any], options: Mapping[str, Any]) -> bool:
    """Return whether a shot takes the target in flank or rear from level with or behind its front (L321)."""
    if target.get("in_square"):
        return False
    if target["type"] == "engineers":
        return bool(options["engineers_always_enfiladed"])
    ahead = along(offset(pose_of(target), pose_of(shooter)), target["facing"])
    return ahead <= CARD_DEPTH // 2


def common_modifiers(
    state: Mapping[str, Any], unit: Mapping[str, Any], opponent: Mapping[str, Any], in_contact: bool = False
) -> list[tuple[str, int]]:
    """Return the modifiers of any combat: grade, General, casualties, going, fortification, heavy guns.

    The -2 of bad going is the unit's own when it stands in bad going, and a mounted unit's when
    the enemy it is *in contact* with stands in bad going (L392): never a mounted unit shot at
    from a wood.
    """
    options = state["options"]
    found: list[tuple[str, int]] = []
    commander = unit["type"] in ("general", "sub_command")
    if unit["grade"] == "elite" or (commander and options["command_grade_in_combat"] and unit["grade"] == "brilliant"):
        found.append(("elite", MODIFIERS["elite"]))
    if unit["grade"] == "inferior" and (not commander or options["command_grade_in_combat"]):
        found.append(("inferior", MODIFIERS["inferior"]))
    if unit["type"] == "general" or (commander and options["general_bonus"] == "all_commanders"):
        found.append(("general", MODIFIERS["general"]))
    if unit["type"] == "heavy_artillery":
        found.append(("heavy_artillery", MODIFIERS["heavy_artillery"]))
    if in_fortification(state, unit, options["fortification_min_mm"]):
        found.append(("fortification", MODIFIERS["fortification"]))
    if unit["casualties"]:
        found.append((f"{unit['casualties']} casualties", MODIFIERS["per_casualty"] * unit["casualties"]))
    if in_bad_going(state, unit):
        found.append(("bad_going", MODIFIERS["bad_going"]))
    elif in_contact and is_mounted(unit) and in_bad_going(state, opponent):
        found.append(("mounted_vs_enemy_in_bad_going", MODIFIERS["bad_going"]))
    return found


def shooting_modifiers(
    state: Mapping[str, Any],
    unit: Mapping[str, Any],
    opponent: Mapping[str, Any],
    shoots: bool,
    aides: Sequence[Mapping[str, Any]] = (),
) -> list[tuple[str, int]]:
    """Return a shooting combatant's modifiers (`shoots`: it fires, rather than only being shot at).

    Enfilade counts when the shooter or any card aiding it takes the target in flank or rear (L321).
    """
    options = state["options"]
    found = common_modifiers(state, unit, opponent, False)
    if not shoots:
        return found
    if unit["type"] == "reg_inf" and unit.get("british") and not unit.get("british_no_bonus"):
        found.append(("british_shooting", MODIFIERS["british_shooting"]))
    enfilading = [u for u in (unit, *aides) if is_enfilade(u, opponent, options)]
    if enfilading:
        by = "" if enfilading[0] is unit else f" by {enfilading[0]['marker']}"
        found.append((f"enfilade{by}", MODIFIERS["enfilade"]))
    if is_artillery(unit) and opponent["type"] in CLOSE_ORDER:
        found.append(("artillery_vs_close_order", MODIFIERS["artillery_vs_close_order"]))
    if unit["type"] == "coi":
        found.append(("coi_shooting", MODIFIERS["coi_shooting"]))
    return found


def melee_modifiers(
    state: Mapping[str, Any], unit: Mapping[str, Any], opponent: Mapping[str, Any], opponent_supported: bool
) -> list[tuple[str, int]]:
    """Return a melee combatant's modifiers, with flanks, overlaps, rear support, hills and rivers."""
    options = state["options"]
    found = common_modifiers(state, unit, opponent, True)
    if unit["type"] == "pike":
        found.append(("pikes_in_melee", options["pikes_in_melee"]))
    if elevation(state, unit) > elevation(state, opponent):
        found.append(("uphill", MODIFIERS["uphill_or_river_bank"]))
    elif river_under(state, opponent) is not None and river_under(state, unit) is None:
        found.append(("defending_river_bank", MODIFIERS["uphill_or_river_bank"]))
    for enemy in flank_rear_enemies(state, unit):
        if enemy is opponent:
            continue  # Combat Engineers: every contact is on the rear, the one they fight included
        found.append((f"{enemy['marker']} on flank or rear", MODIFIERS["per_flank_or_rear_enemy"]))
    if not unit.get("in_square"):
        for enemy, side in overlaps_on(state, unit):
            found.append((f"{side} flank overlapped by {enemy['marker']}", MODIFIERS["per_flank_or_rear_enemy"]))
    if opponent_supported:
        depth = 2 if options["attack_column"] else 1
        for supporter in rear_supporters(state, opponent, depth):
            found.append((f"rear support of {supporter['marker']}", MODIFIERS["per_rear_supporter"]))
    return found


@dataclass(frozen=True)
class Verdict:
    """Who lost a combat and whether doubled (loser None: a tie with no result)."""

    winner: Combatant | None
    loser: Combatant | None
    doubled: bool


def judge(a: Combatant, b: Combatant, doubled_rule: str) -> Verdict:
    """Return the verdict: the lower total loses; doubled if the winner has at least twice the loser's."""
    if a.total == b.total:
        return Verdict(None, None, False)
    winner, loser = (a, b) if a.total > b.total else (b, a)
    if loser.total <= 0 and doubled_rule == "positive_winner":
        doubled = winner.total > 0
    else:
        doubled = winner.total >= 2 * loser.total
    return Verdict(winner, loser, doubled)


def outcome(
    state: Mapping[str, Any], loser: Mapping[str, Any], winner: Mapping[str, Any], melee: bool, doubled: bool
) -> list[str]:
    """Return the Combat Outcome Chart's results for the loser: fall_back, flee, hold, destroyed, casualty."""
    if loser.get("in_square"):
        row = "pike_coi"
    elif loser.get("disordered"):
        row = "disorder"
    else:
        row = str(troop(loser)["rows"]["outcome"])
    situations = {
        "contact_vs_mounted": melee and is_mounted(winner),
        "contact": melee,
        "shot": not melee,
        "bad_going": in_bad_going_for_outcome(state, loser),
        "otherwise": True,
    }
    for situation, results in CHARTS["outcomes"][row]["doubled" if doubled else "not_doubled"]:
        if situations[situation]:
            return list(results)
    raise AssertionError(f"outcome row {row} has no 'otherwise'")


def describe_results(results: Sequence[str]) -> str:
    """Return results in words: "falls back and rolls for casualties"."""
    words = {
        "fall_back": "falls back",
        "flee": "flees in disorder",
        "hold": "holds its position",
        "destroyed": "is destroyed",
    }
    text = " and ".join(words[r] for r in results if r in words) or "stays"
    casualties = results.count("casualty")
    if casualties:
        text += " and rolls for casualties" + (" twice" if casualties > 1 else "")
    return text
