"""Game options: every gap of the rules extraction (G-01 ... G-47) as a named choice with the
extraction's proposed default, plus the few settings the rulebook leaves to the players.

A referee changes one in the game configuration (`options: {ip_dice: 2d6}`); `resolve_options`
checks every value and the resolved set is kept in the state, so every phase sees the same.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from games.cest_la_guerre.data import CHARTS, TERRAIN_MENU, TROOPS
from referee.kit import GameDataError, parse_spec

Check = Callable[[str, Any], None]


@dataclass(frozen=True)
class Option:
    """One option: its name, the gap it settles (or None), its default, a checker, and what it means."""

    name: str
    gap: str | None
    default: Any
    check: Check
    text: str


def _fail(name: str, value: Any, wanted: str) -> None:
    raise GameDataError(
        f"option {name!r} must be {wanted}, got {value!r}", hints=("see games/cest_la_guerre/README.md",)
    )


def whole(low: int, high: int) -> Check:
    def check(name: str, value: Any) -> None:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            _fail(name, value, f"a whole number from {low} to {high}")

    return check


def flag(name: str, value: Any) -> None:
    if not isinstance(value, bool):
        _fail(name, value, "true or false")


def one_of(*choices: Any) -> Check:
    def check(name: str, value: Any) -> None:
        if value not in choices:
            _fail(name, value, "one of " + ", ".join(str(c) for c in choices))

    return check


def dice_spec(name: str, value: Any) -> None:
    try:
        spec = parse_spec(value) if isinstance(value, str) else None
    except ValueError:
        spec = None
    if spec is None or spec.zero_based or spec.sides != 6:
        _fail(name, value, "six-sided dice such as 1d6 or 2d6 (the rulebook uses only d6, L78)")


def optional_rounds(name: str, value: Any) -> None:
    if value is not None:
        whole(1, 1000)(name, value)


def thresholds(name: str, value: Any) -> None:
    if not isinstance(value, Mapping) or sorted(value) != ["enemy_base", "flank", "own_base"]:
        _fail(name, value, "a mapping with own_base, flank and enemy_base")
    for key, item in value.items():
        whole(1, 36)(f"{name}.{key}", item)


def chart_rows(name: str, value: Any) -> None:
    if not isinstance(value, Mapping):
        _fail(name, value, "a mapping of melee chart rows")
    for row, factors in value.items():
        if row not in CHARTS["melee"]:
            _fail(name, row, "a melee chart row: " + ", ".join(CHARTS["melee"]))
        if not isinstance(factors, Mapping) or not {"infantry", "mounted"} <= set(factors) <= {"infantry", "mounted"}:
            _fail(f"{name}.{row}", factors, "{infantry: N, mounted: N}")
        for key in ("infantry", "mounted"):
            whole(-9, 9)(f"{name}.{row}.{key}", factors[key])


def terrain_menu(name: str, value: Any) -> None:
    if not isinstance(value, Mapping) or not value:
        _fail(name, value, "a mapping of terrain kinds")
    for kind, spec in value.items():
        if not isinstance(spec, Mapping) or set(spec) != {"going", "los_block", "elevation"}:
            _fail(f"{name}.{kind}", spec, "{going: good|bad|impassable, los_block: true|false, elevation: N}")
        one_of("good", "bad", "impassable")(f"{name}.{kind}.going", spec["going"])
        flag(f"{name}.{kind}.los_block", spec["los_block"])
        whole(0, 9)(f"{name}.{kind}.elevation", spec["elevation"])


def troop_types(name: str, value: Any) -> None:
    if not isinstance(value, list) or any(kind not in TROOPS for kind in value):
        _fail(name, value, "a list of troop types: " + ", ".join(TROOPS))


def table_size(name: str, value: Any) -> None:
    if not isinstance(value, list) or len(value) != 2:
        _fail(name, value, "[width, depth] in mm")
    whole(600, 4000)(f"{name} width", value[0])
    whole(400, 3000)(f"{name} depth", value[1])


def text(name: str, value: Any) -> None:
    if value is not None and (not isinstance(value, str) or len(value) > 200):
        _fail(name, value, "a short text or nothing")


def _default_melee_fill() -> dict[str, dict[str, int]]:
    return {
        row: {"infantry": factors["infantry"], "mounted": factors["mounted"]}
        for row, factors in CHARTS["melee"].items()
        if factors.get("filled") or row in ("cavalry", "heavy_cav", "infantry_disorder")
    }


SPECS: tuple[Option, ...] = (
    # -- settings the rulebook leaves to the players ------------------------------------------
    Option("rounds", None, None, optional_rounds, "stop after this many Rounds with no loser (a draw); none: no limit"),
    Option(
        "loss_threshold", None, 15, whole(1, 100), "points a side must lose (and more than the enemy) to lose (L460)"
    ),
    Option("army_points", None, 40, whole(10, 200), "the most a point-system army may cost (L66: 50 or more)"),
    Option("point_system", None, True, flag, "armies may also be bought card by card on the point system (L116)"),
    Option("list_dummies", None, 4, whole(0, 20), "dummy cards (0.5 pt each) a list army may add on top of its list"),
    Option("army_list_public", None, False, flag, "the opponent is told which list you chose (H1 leaves it open)"),
    Option("square", None, False, flag, "Napoleonic optional rule: Squares (L863-L871)"),
    Option("attack_column", None, False, flag, "Napoleonic optional rule: Attack Columns, rear support up to 2"),
    Option("fiw_swaps", None, False, flag, "French & Indian War optional swaps (Indian allies, woodsmen; L818)"),
    Option(
        "prussian_double_fire", None, True, flag, "SYW Prussia's infantry may shoot twice if it did not move (L715)"
    ),
    # -- the gaps ------------------------------------------------------------------------------
    Option("ip_dice", "G-01", "1d6", dice_spec, "dice rolled for Initiative Points each bound"),
    Option("reserve_dice", "G-02", "2d6", dice_spec, "dice rolled for a Reserve Force's arrival"),
    Option(
        "reserve_needs",
        "G-02",
        {"own_base": 5, "flank": 7, "enemy_base": 9},
        thresholds,
        "the least the reserve roll needs, by entry edge (enemy base edge '9 or 10' read as 9+)",
    ),
    Option("formations_fixed_at", "G-03", "bound", one_of("bound"), "Command Groups, Columns, Lines are fixed at"),
    Option("artillery_still_for", "G-03", "round", one_of("round", "bound"), "artillery shoots if it did not move in"),
    Option("combat_in_both_bounds", "G-04", True, flag, "the second bound has a combat step too (false: literal L174)"),
    Option("deployment_dice", "G-05", "1d6", dice_spec, "each side's deployment roll; ties are rolled again"),
    Option("side_draw", "G-05", "fair", one_of("fair"), "coin (even draw) or die (odd/even) decides the Low side"),
    Option("terrain_menu", "G-06", copy.deepcopy(TERRAIN_MENU), terrain_menu, "terrain kinds: going, LOS, elevation"),
    Option("reserve_entry_depth_mm", "G-07", 100, whole(30, 1000), "reserves are placed within this of the edge"),
    Option("shooting_lane_width_mm", "G-08", 50, whole(10, 500), "width of the lane straight ahead of a shooter"),
    Option("melee_chart_fill", "G-09", _default_melee_fill(), chart_rows, "melee rows lost or unclear in the print"),
    Option("pikes_in_melee", "G-10", 1, whole(-3, 3), "modifier for Pikes in melee"),
    Option("tie_rule", "G-11", "no_result", one_of("no_result", "reroll"), "what equal combat totals do"),
    Option("doubled_rule", "G-12", "positive_winner", one_of("positive_winner", "literal"), "doubling at totals <= 0"),
    Option("time_scale", "G-13", None, text, "real time of a Round, shown in views (the rulebook gives none)"),
    Option("river_crossing_allowance_mm", "G-14", 100, whole(0, 500), "a unit crossing a river moves at most this"),
    Option("artillery_crosses_rivers", "G-14", "at_crossings", one_of("at_crossings", "anywhere"), "artillery fords"),
    Option("river_roll_scope", "G-15", "per_river", one_of("per_river", "per_game"), "one condition roll per river"),
    Option("failed_crossing", "G-15", "stay", one_of("stay"), "a unit failing a Difficult crossing stays put"),
    Option("reveal_distance_mm", "G-16", 250, whole(0, 2000), "a face-down card within this of an enemy turns up"),
    Option("reveal_timing", "G-16", "after_each_move", one_of("after_each_move"), "when the reveal test runs"),
    Option("face_down_allowance_mm", "G-16", 150, whole(0, 1000), "most a face-down card moves (own rate if less)"),
    Option("combat_reveals", "G-16", True, one_of(True), "a card that shoots, is shot at or is in contact turns up"),
    Option("dummies_count_as_lost", "G-17", False, flag, "a removed dummy's 0.5 counts in the points lost"),
    Option("dummies_reveal_enemies", "G-17", False, flag, "a dummy near an enemy card turns that card up"),
    Option("reserve_moves_on_arrival", "G-18", True, flag, "a reserve may move in the bound it arrives"),
    Option("unarrived_reserve_lost", "G-18", False, flag, "a reserve still off the table counts as lost"),
    Option("reserve_attempt_ip", "G-18", 0, whole(0, 6), "IP an arrival attempt costs"),
    Option("ip_surcharges_stack", "G-19", True, flag, "the +1 surcharges add up (false: at most +1)"),
    Option("charge_ip", "G-19", 1, whole(0, 6), "IP of a subsequent (charge) move"),
    Option("reveal_ip", "G-19", 0, whole(0, 6), "IP of turning a card face up"),
    Option("ip_carry_over", "G-19", False, flag, "unspent IP are kept for the player's next bound"),
    Option("general_bonus", "G-20", "general_only", one_of("general_only", "all_commanders"), "who gets +1 General"),
    Option("command_grade_in_combat", "G-20", False, flag, "Brilliant/Inferior commanders also get +1/-1"),
    Option("charge_types", "G-21", ["cavalry", "heavy_cav", "light_cav"], troop_types, "who may make a charge move"),
    Option("column_excludes_engineers", "G-22", True, flag, "Combat Engineers may not be part of a Column"),
    Option(
        "line_crosses_river", "G-23", "command_group", one_of("command_group"), "a Line crosses as one only in a group"
    ),
    Option("line_same", "G-24", "type", one_of("type", "type_and_grade"), "what a Line's units must share"),
    Option("commander_moves_with_group", "G-25", True, flag, "a commander may move in its own group's move"),
    Option("face_down_commanders_command", "G-25", True, flag, "a face-down commander still forms a group"),
    Option("horse_artillery_range_mm", "G-26", 500, whole(0, 2000), "Horse Artillery's range (not printed)"),
    Option("coi_may_shoot", "G-27", False, flag, "Close Order Irregulars shoot (musket range, -1)"),
    Option("pistol_range_mm", "G-28", 25, whole(0, 500), "range of a point-system card armed with pistols or bows"),
    Option("dismount_ip", "G-29", 1, whole(0, 6), "IP to dismount or remount a point-system card that may"),
    Option("rear_support_for", "G-30", "attacker", one_of("attacker", "both"), "who gets rear support"),
    Option("rear_panic_friends_only", "G-31", True, flag, "rear panic hits only the destroyed unit's friends"),
    Option("rear_panic_depth_mm", "G-31", 50, whole(0, 500), "depth of the strip behind a destroyed unit"),
    Option("flee_allowance", "G-32", "good_going", one_of("good_going"), "the full move a fleeing unit makes"),
    Option(
        "flee_swerve_first",
        "G-32",
        "clockwise",
        one_of("clockwise", "anticlockwise"),
        "which way a fleeing unit swerves when either way needs the same turn",
    ),
    Option("fall_back_pass_through", "G-33", "movement_rules", one_of("movement_rules"), "who falls back through"),
    Option("square_factor_row", "G-34", "reg_inf", one_of("reg_inf", "pike_coi"), "chart row a Square fights on"),
    Option("square_ip", "G-34", 1, whole(0, 6), "IP to form or leave a Square"),
    Option("double_fire_types", "G-35", ["reg_inf"], troop_types, "Prussian units that may shoot twice"),
    Option("engineers_always_enfiladed", "G-36", True, flag, "shots at Combat Engineers always count as enfilade"),
    Option("artillery_must_flee", "G-37", "destroyed", one_of("destroyed", "flees"), "artillery made to flee"),
    Option("return_fire", "G-38", "lane_and_range", one_of("lane_and_range", "range"), "when a target shoots back"),
    Option("aiding_shooters", "G-39", 2, whole(0, 2), "most units aiding one shooter (a 4th may not join)"),
    Option("range_measure", "G-40", "front_edge", one_of("front_edge"), "range from the shooter's front edge"),
    Option("mixed_going", "G-41", "most_restrictive", one_of("most_restrictive"), "going of a move over several"),
    Option("road_rate", "G-42", "whole_path", one_of("whole_path"), "the road rate needs the whole move on road"),
    Option("fortification_min_mm", "G-43", 50, whole(0, 500), "a fortification counts once this long"),
    Option("victory_check", "G-44", "round_end", one_of("round_end", "bound_end"), "when victory is checked"),
    Option("infantry_contact_mounted", "G-45", "never", one_of("never", "flank_rear_allowed"), "infantry vs mounted"),
    Option("table_mm", "G-46", [1200, 900], table_size, "table [width, depth] in mm"),
    Option("players", "G-47", 2, whole(2, 2), "number of players (only two are covered)"),
    # -- where the rulebook is silent, found since the extraction (S-01 ...) -----------------------
    Option(
        "unnamed_shot_target",
        "S-01",
        "nearest",
        one_of("nearest", "lowest_marker"),
        "the target the referee picks for a card that must shoot (L295) but was named in no shot",
    ),
    Option(
        "engineers_primary",
        "S-02",
        "best_factor",
        one_of("best_factor", "lowest_marker"),
        "who fights Combat Engineers touched by several when the attacker chose none (L291)",
    ),
    Option(
        "combat_order",
        "S-03",
        "asked",
        one_of("asked", "marker_order"),
        "the moving player is asked the order of two or more combats (L172), or they go in marker order",
    ),
    Option(
        "point_army_generals",
        "S-04",
        "exactly_one",
        one_of("exactly_one", "at_most_one", "any"),
        "Generals a point-system army may buy (every list has exactly one)",
    ),
    Option(
        "no_room_to_turn", "S-05", "stays", one_of("stays"), "a card with no room to turn to face stays as it is (L325)"
    ),
    Option(
        "two_flanks_first",
        "S-06",
        "nearer",
        one_of("nearer", "lowest_marker"),
        "of two cards turning to face one enemy on their flanks, the one placed in front (L325)",
    ),
    Option(
        "engineering_per",
        "S-07",
        "round",
        one_of("round", "bound"),
        "Combat Engineers build their length once a Round, or once in each bound (L275 'per turn')",
    ),
    Option(
        "engineering_screen",
        "S-08",
        "centre_line",
        one_of("centre_line", "never"),
        "an enemy within 25 cm is screened off when a friendly card crosses the line between centres (L275)",
    ),
    Option(
        "engineering_reach_mm",
        "S-09",
        50,
        whole(0, 500),
        "a work begun, continued or demolished lies within this of its Combat Engineers (the book says not where)",
    ),
    Option("engineering_ip", "S-10", 0, whole(0, 6), "IP a Combat Engineer's turn of work costs (the book names none)"),
    Option(
        "shoreline_deployment",
        "S-11",
        True,
        flag,
        "where lake or sea fills a base edge, that side deploys within 10 cm of the water's edge (L154)",
    ),
    Option(
        "flank_contact",
        "S-12",
        "half",
        one_of("half", "whole"),
        "an enemy's front edge against a flank contacts it when it covers at least half the flank (so one card "
        "may contact the flanks of two, L325), or only the whole flank",
    ),
)
BY_NAME = {spec.name: spec for spec in SPECS}
OPTIONS: dict[str, str] = {
    spec.name: (f"[{spec.gap}] " if spec.gap else "")
    + spec.text
    + (" (default: see README)" if isinstance(spec.default, dict) else f" (default {spec.default!r})")
    for spec in SPECS
}
# The core adds the referee's tables to a module's options; this game has its own and ignores them.
IGNORED = ("tables",)


def resolve_options(given: Mapping[str, Any]) -> dict[str, Any]:
    """Return every option's value: the defaults overridden by `given`, each checked."""
    unknown = sorted(set(given) - set(BY_NAME) - set(IGNORED))
    if unknown:
        raise GameDataError(
            f"unknown option(s) for cest-la-guerre: {', '.join(unknown)}",
            hints=("the options are listed in games/cest_la_guerre/README.md",),
        )
    resolved: dict[str, Any] = {}
    for spec in SPECS:
        value = copy.deepcopy(given[spec.name]) if spec.name in given else copy.deepcopy(spec.default)
        if spec.name == "melee_chart_fill" and spec.name in given:
            value = {**copy.deepcopy(spec.default), **value}
        spec.check(spec.name, value)
        resolved[spec.name] = value
    return resolved
