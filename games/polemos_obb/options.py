"""The game's options and the data its referee supplies: read once at set-up, checked, kept in the state.

Options that settle what the rulebook file leaves open are named here with their defaults.
Referee-supplied data (tables from the file's missing pages, overlays such as the Blenheim
scenario) arrive through the options too; `supplied.yaml` names each part and where it is used.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from games.polemos_obb.model import PACKAGE, TROOPS
from referee.kit import GameDataError, NotSupplied, Table, Tables, load_data, parse_tables

OPTIONS = {
    "rounds": "how many game turns the battle lasts (a whole number; leave out for no limit)",
    "tables": "the referee's die-roll tables (the configuration's `tables:`): bombardment, rally, "
    "officer-grade from the rulebook's missing pages; a table with the id of one of the game's "
    "own tables replaces it",
    "default_response": "fight or decline: what a defending base does in a defender response round after "
    "'no effect' when its player left no standing order (default fight)",
    "carry_over_tp": "true to keep unspent Tempo points for the next turn; the rulebook does not say "
    "(default false: they lapse)",
    "major_generals_yield_tp": "true to give a C-in-C 1 TP for each Major General commanding a division, "
    "as for Lieutenant Generals; the rulebook names only Lieutenant Generals (default false)",
    "morale_losses": "game or turn: whether a division's morale check counts every base it has lost in the "
    "battle or only those lost this turn (default game)",
    "fall_back_shakes_bd": "the outcome-round fall-back, in base depths, from which every base of the division "
    "becomes shaken (default 6: the book's 6BD did, its 5BD did not)",
    "attack_needs_move": "true (default) when a base may open an attack only if its brigade had a move order "
    "this turn (the advance to contact is the end of a move); false to allow any base to attack",
    "recoiled_bases_readvance": "false (new games: the book's reading) when only a base that was not pushed back may "
    "advance back into contact in a continuing round; true (games begun before) lets any listed base re-advance",
    "defenders_support": "true (new games: the book implies defenders have support) to let a defending army "
    "declare support in its standing orders; false (games begun before): only attackers claim support",
    "fighting_bases_support": "false (new games: the example's supporters are bases not themselves in a pair) "
    "when a base fighting in a pair may not be declared as a supporter; true (games begun before) allows it "
    "(the book is silent)",
    "defending_winner_follows_up": "true (default: the book says the winner takes the follow-up test) when a "
    "defending base that wins also tests to follow up; false: only the attacker's winners do (the book is "
    "silent on defenders)",
    "guns_move_with_column": "true (new games: the book lets limbered field guns move with their infantry's column "
    "at no TP cost) to accept `with: DIVISION` on a limbered gun's move; false (games begun before): the guns "
    "pay as a brigade",
    "pace": "skip-idle (new games) adjudicates at once a phase in which no player can give an order (bombardment "
    "with no guns or without the table, a contact phase where no contact is possible, the morale phase) and takes "
    "orders sent ahead for a half-turn; every-phase (games begun before) waits for each",
    "letters": "army-board (new games): notices and reports carry the army board, the outcome round's rule and the "
    "battle's result with each side's losses; plain (games begun before): the letters as they were",
    "army_board": "brigades (new games): with letters army-board, the army board is a table of one row a brigade "
    "and a picture (an SVG in the HTML letter, a PNG attached); divisions (games begun before): one text row a "
    "division",
    "battlefield": "table (new games): every base has a position on the referee's table, moves are checked against "
    "the book's rates and contacts, support and columns are read from the positions; players (games begun before): "
    "geometry stays on the players' own table and the referee accepts their declarations",
    "base_width_mm": "the base width (BW) in mm on the referee's table, a base depth (BD) being half of it (the book: "
    "BW:BD = 2:1, absolute size the players' choice; default 60, the book's 60 x 30 mm bases)",
    "terrain_moves": "refuse (default: the terrain effects of p. 22 are missing from the rulebook file) refuses a move "
    "that enters a terrain piece, naming it; free lets bases cross terrain at their full rate",
    "table_edge": "stop (default: the rulebook file says nothing of a base driven off the table) stops a base going "
    "back (a recoil, a break, a fall-back, a bombardment's result) at the table's edge, where it stays in play; "
    "remove takes a base the move would carry off the table out of the battle, counted as a base lost",
    "bombardment_range": "a gun's range in base widths on the referee's table (the bombardment rules, p. 17, are "
    "missing; default none: any enemy base on the field is a target, as the players declare): a gun fires only at "
    "an enemy base before its front within that many BW edge to edge, the fire form lists each gun's targets in "
    "range, and with pace skip-idle a bombardment in which no gun has a target in range costs no mail",
    "order_costs": "Tempo-point costs the rulebook file lacks, by order kind and group size (see README)",
    "army_morale": "each army's starting critical morale factor and what happens when it runs out (see README)",
    "combat_results": "the official combat results chart, replacing the one reconstructed from the example",
    "combat_modifiers": "combat modifiers, added to (or, by name, replacing) the reconstructed ones",
    "generators": "army generators for nations other than imperialist, by nation (see README)",
    "scenarios": "scenarios not built into the game (e.g. blenheim-1704), by id (see README)",
}
DEFAULTS: dict[str, Any] = {
    "rounds": None,
    "default_response": "fight",
    "carry_over_tp": False,
    "major_generals_yield_tp": False,
    "morale_losses": "game",
    "fall_back_shakes_bd": 6,
    "attack_needs_move": True,
}
# Settings added after games were begun: a game's state holds one only when its options gave it
# (new games get the book's readings through NEW_GAME_OPTIONS), so that games begun before set up,
# replay and audit as they did; `setting()` reads them with these defaults, the rules they began with.
LATER_DEFAULTS: dict[str, Any] = {
    "recoiled_bases_readvance": True,
    "defenders_support": False,
    "fighting_bases_support": True,
    "defending_winner_follows_up": True,
    "guns_move_with_column": False,
    "pace": "every-phase",
    "letters": "plain",
    "army_board": "divisions",
    "battlefield": "players",
    "base_width_mm": 60,
    "terrain_moves": "refuse",
    "table_edge": "stop",
    "bombardment_range": None,
}
NEW_GAME_OPTIONS: dict[str, Any] = {
    "recoiled_bases_readvance": False,
    "defenders_support": True,
    "fighting_bases_support": False,
    "guns_move_with_column": True,
    "pace": "skip-idle",
    "letters": "army-board",
    "army_board": "brigades",
    "battlefield": "table",
}
OVERLAYS = ("tables", "order_costs", "army_morale", "combat_results", "combat_modifiers", "generators", "scenarios")
COMBAT_RESULTS = ("no-effect", "recoil", "recoil-shaken", "broken")
COST_KINDS = ("move", "continue", "remount", "limber", "unlimber", "rally")
MODIFIER_CONDITIONS = {
    "side": ("attacker", "defender"),
    "round": ("advance-to-contact", "defender-response", "continuing"),
    "arm": ("infantry", "cavalry", "artillery"),
    "type": tuple(TROOPS["types"]),
    "school": tuple(TROOPS["schools"]),
    "class": tuple(TROOPS["classes"]),
    "state": ("fresh", "shaken"),
    "opponent_arm": ("infantry", "cavalry", "artillery"),
    "opponent_type": tuple(TROOPS["types"]),
    "opponent_state": ("fresh", "shaken"),
}
FLAG_CONDITIONS = ("supported", "followed_up", "overlapped")
EXHAUSTION = ("game-ends", "army-leaves")
SUPPLIED: dict[str, Any] = load_data(PACKAGE, "supplied.yaml")
BUILT_IN_TABLES: dict[str, Table] = parse_tables(load_data(PACKAGE, "tables.yaml"), "polemos_obb/data/tables.yaml")
COMBAT: dict[str, Any] = load_data(PACKAGE, "combat.yaml")
COSTS: dict[str, Any] = load_data(PACKAGE, "costs.yaml")
_RANGE = re.compile(r"([0-9]{1,3})(?:-([0-9]{1,3})|(\+))?")


class Refused(GameDataError):
    """Referee-supplied data the game cannot use: `path` names the field, `detail` what is wrong with it."""

    def __init__(self, path: str, detail: str, hints: tuple[str, ...] = ()) -> None:
        super().__init__(f"{path} {detail}", hints=hints)
        self.path = path
        self.detail = detail


def read_options(options: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    """Return (settings, referee-supplied data, names of options this game does not know).

    Unknown options are kept aside, not refused: a configuration may carry options for
    other tools. The view lists them so that a misspelt name shows.
    """
    settings = dict(DEFAULTS)
    overlays: dict[str, Any] = {}
    ignored: list[str] = []
    for name, value in options.items():
        if name in DEFAULTS or name in LATER_DEFAULTS:
            settings[name] = _checked_setting(name, value)
        elif name in OVERLAYS:
            overlays[name] = _checked_overlay(name, value)
        else:
            ignored.append(str(name))
    return settings, overlays, sorted(ignored)


def _checked_setting(name: str, value: Any) -> Any:
    where = f"option {name}"
    if name == "rounds":
        if value is not None and (not _is_int(value) or value < 1):
            raise GameDataError(f"{where} must be a whole number of at least 1, got {value!r}")
    elif name == "default_response":
        _one_of(where, value, ("fight", "decline"))
    elif name == "pace":
        _one_of(where, value, ("every-phase", "skip-idle"))
    elif name == "letters":
        _one_of(where, value, ("plain", "army-board"))
    elif name == "army_board":
        _one_of(where, value, ("divisions", "brigades"))
    elif name == "battlefield":
        _one_of(where, value, ("players", "table"))
    elif name == "terrain_moves":
        _one_of(where, value, ("refuse", "free"))
    elif name == "bombardment_range":
        if value is not None and (not isinstance(value, int | float) or isinstance(value, bool) or value <= 0):
            raise GameDataError(f"{where} must be a positive number of base widths (or leave it out), got {value!r}")
    elif name == "table_edge":
        _one_of(where, value, ("stop", "remove"))
    elif name == "base_width_mm":
        if not _is_int(value) or not 10 <= value <= 1000:
            raise GameDataError(f"{where} must be a whole number of mm from 10 to 1000, got {value!r}")
    elif name == "morale_losses":
        _one_of(where, value, ("game", "turn"))
    elif name == "fall_back_shakes_bd":
        if not _is_int(value) or value < 1:
            raise GameDataError(f"{where} must be a whole number of base depths (at least 1), got {value!r}")
    elif not isinstance(value, bool):
        raise GameDataError(f"{where} must be true or false, got {value!r}")
    return value


def setting(state: Mapping[str, Any], name: str) -> Any:
    """Return a game's setting: its own, else the default it began with (see LATER_DEFAULTS)."""
    config = state["config"]
    return config[name] if name in config else {**DEFAULTS, **LATER_DEFAULTS}[name]


def _checked_overlay(name: str, value: Any) -> Any:
    if name == "tables":
        supplied_tables(value)
    elif name == "order_costs":
        _check_costs(value)
    elif name == "army_morale":
        _check_army_morale(value)
    elif name == "combat_results":
        parse_chart(value, "option combat_results")
    elif name == "combat_modifiers":
        _check_modifiers(value, "option combat_modifiers")
    elif not isinstance(value, Mapping):
        raise GameDataError(f"option {name} must be a mapping of id to data, got {type(value).__name__}")
    return value


# -- tables -------------------------------------------------------------------------------


def supplied_tables(raw: Any) -> dict[str, Table]:
    """Return the referee's tables, checked: a known id must give results the game can use."""
    tables = _parse_cached(json.dumps(raw, sort_keys=True))
    for table_id, table in tables.items():
        allowed = _allowed_results(table_id)
        if allowed is None:
            continue
        results = {v for row in table.rows for v in (row.result.values() if table.columns else [row.result])}
        strays = sorted(str(r) for r in results if r not in allowed)
        if strays:
            raise GameDataError(
                f"the referee's table {table_id} gives result(s) {', '.join(strays)}, which the game cannot apply",
                hints=(f"table {table_id} results must be among: {', '.join(map(str, allowed))}",),
            )
        if table_id == "bombardment" and table.columns:
            odd = [c for c in table.columns if c not in ("light-artillery", "field-artillery")]
            if odd:
                raise GameDataError(
                    f"the referee's bombardment table has column(s) {', '.join(odd)}",
                    hints=("name its columns after the firing base's type: light-artillery, field-artillery",),
                )
    return tables


@lru_cache(maxsize=32)
def _parse_cached(text: str) -> dict[str, Table]:
    return parse_tables(json.loads(text), "the referee's tables (the configuration's `tables:`)")


def _allowed_results(table_id: str) -> tuple[Any, ...] | None:
    if table_id in SUPPLIED["tables"]:
        return tuple(SUPPLIED["tables"][table_id]["results"])
    table = BUILT_IN_TABLES.get(table_id)
    if table is None:
        return None
    return tuple({v for row in table.rows for v in (row.result.values() if table.columns else [row.result])})


def game_tables(state: Mapping[str, Any]) -> Tables:
    """Return the tables a game reads: the book's, the generators', then the referee's over them."""
    tables = dict(BUILT_IN_TABLES)
    for generator in state["generators"].values():
        tables.update(_parse_cached(json.dumps({"schema_version": 1, "tables": generator["tables"]}, sort_keys=True)))
    if "tables" in state["overlays"]:
        tables.update(supplied_tables(state["overlays"]["tables"]))
    return Tables(tables)


def require_table(state: Mapping[str, Any], table_id: str) -> Table:
    """Return a referee-supplied table, or raise NotSupplied saying what it is and how to supply it."""
    tables = game_tables(state)
    if table_id in tables:
        return tables.get(table_id)
    raise NotSupplied(f"tables/{table_id}", missing_table_message(table_id), hints=(supply_hint(table_id),))


def missing_table_message(table_id: str) -> str:
    """Return the sentence that says a referee-supplied table is missing and what needs it."""
    part = SUPPLIED["tables"][table_id]
    return (
        f"the {table_id} table ({part['book']}) is not in the rulebook file and this game's referee has not "
        f"supplied it; {part['needed_by']} needs it"
    )


REFEREE_CAN_SUPPLY = "the game's referee can supply it with `referee supply` and the game goes on"


def supply_hint(name: str) -> str:
    """Return how the referee supplies a missing part, mid-game: the need's id for `referee supply`."""
    need = f"tables/{name}" if name in SUPPLIED["tables"] else name
    return supply_command(need)


def supply_command(need: str) -> str:
    """Return the hint naming the commands that supply `need` to a game under way."""
    return (
        f"the game's referee supplies it with `referee supply GAMEDIR FILE` (a file with `supplies: {need}`); "
        f"`referee supply --template {need}` writes a commented skeleton to fill in from the book"
    )


# -- combat chart and modifiers -----------------------------------------------------------


def parse_chart(rows: Any, source: str) -> list[dict[str, Any]]:
    """Return combat results rows as {low, high (None: open), result}, checked to cover every difference."""
    if not isinstance(rows, list) or not rows:
        raise Refused(source, "must be a list of rows such as {difference: '2-3', result: recoil}")
    parsed = []
    for index, row in enumerate(rows):
        where = f"{source}[{index}]"
        if not isinstance(row, Mapping) or set(row) - {"difference", "result"}:
            raise Refused(where, "must be a mapping with difference and result")
        low, high = _difference(row.get("difference"), where)
        _one_of(f"{where}.result", row.get("result"), COMBAT_RESULTS)
        parsed.append({"low": low, "high": high, "result": row["result"]})
    expected = 0
    for index, row in enumerate(parsed):
        if row["low"] != expected:
            raise Refused(
                f"{source}[{index}].difference",
                f"starts at {row['low']}, but difference {expected} has no row (or two rows give it)",
                hints=("list rows from difference 0 upwards, each starting where the last ended",),
            )
        if row["high"] is None:
            if index != len(parsed) - 1:
                raise Refused(f"{source}[{index + 1}]", f"follows the open-ended row {row['low']}+: no row may")
            break
        expected = row["high"] + 1
    else:
        raise Refused(f"{source}[{len(parsed) - 1}].difference", "must be open-ended in the last row, e.g. '6+'")
    if parsed[0]["result"] != "no-effect":
        raise Refused(f"{source}[0].result", "must be no-effect: a difference of 0 must give no-effect")
    return parsed


def _difference(value: Any, where: str) -> tuple[int, int | None]:
    if _is_int(value) and value >= 0:
        return value, value
    match = _RANGE.fullmatch(str(value).replace(" ", "")) if isinstance(value, str) else None
    if match is None:
        raise Refused(f"{where}.difference", f"must be a number or a range such as '2-3' or '6+', got {value!r}")
    low = int(match.group(1))
    if match.group(3):
        return low, None
    high = int(match.group(2)) if match.group(2) else low
    if high < low:
        raise Refused(f"{where}.difference", f"{value!r} runs backwards")
    return low, high


def _check_modifiers(value: Any, source: str) -> None:
    if not isinstance(value, list):
        raise Refused(source, "must be a list of {name, value, when} entries")
    for index, entry in enumerate(value):
        _check_modifier(entry, f"{source}[{index}]")


def _check_modifier(entry: Any, where: str) -> None:
    if not isinstance(entry, Mapping) or set(entry) - {"name", "value", "when"} or "name" not in entry:
        raise Refused(where, "must be a mapping with name, value and when")
    if not _is_int(entry.get("value")):
        raise Refused(f"{where}.value", "must be a whole number such as 1 or -1")
    when = entry.get("when", {})
    if not isinstance(when, Mapping):
        raise Refused(f"{where}.when", "must be a mapping of conditions")
    for key, condition in when.items():
        if key in FLAG_CONDITIONS:
            if not isinstance(condition, bool):
                raise Refused(f"{where}.when.{key}", "must be true or false")
        elif key == "side":
            _one_of(f"{where}.when.side", condition, MODIFIER_CONDITIONS["side"])
        elif key in MODIFIER_CONDITIONS:
            if not isinstance(condition, list) or not condition:
                raise Refused(f"{where}.when.{key}", f"must be a list, e.g. [{MODIFIER_CONDITIONS[key][0]}]")
            for item in condition:
                _one_of(f"{where}.when.{key}", item, MODIFIER_CONDITIONS[key])
        else:
            known = ", ".join([*MODIFIER_CONDITIONS, *FLAG_CONDITIONS])
            raise Refused(f"{where}.when.{key}", "is not a condition the game knows", hints=(f"conditions: {known}",))


def combat_chart(state: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Return the combat results rows in force: the referee's, else the reconstructed chart."""
    if "combat_results" in state["overlays"]:
        return parse_chart(state["overlays"]["combat_results"], "option combat_results")
    return parse_chart(COMBAT["results"], "polemos_obb/data/combat.yaml results")


def combat_modifiers(state: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Return the combat modifiers in force: the reconstructed ones, each replaced by a referee's of that name."""
    modifiers = {m["name"]: m for m in COMBAT["modifiers"]}
    for entry in state["overlays"].get("combat_modifiers", []):
        modifiers[entry["name"]] = entry
    return [m for m in modifiers.values() if m["value"] != 0]


# -- order costs --------------------------------------------------------------------------


def _check_costs(value: Any, where: str = "option order_costs") -> None:
    if not isinstance(value, Mapping):
        raise Refused(where, "must map an order kind to a list of {brigades, tp} entries")
    for kind, entries in value.items():
        _check_cost_kind(kind, entries, f"{where}.{kind}")


def _check_cost_kind(kind: Any, entries: Any, where: str) -> None:
    if kind not in COST_KINDS:
        raise Refused(where, f"is not an order kind with a cost: the kinds are {', '.join(COST_KINDS)}")
    if not isinstance(entries, list):
        raise Refused(where, "must be a list such as [{brigades: 2, tp: 3}]")
    for index, entry in enumerate(entries):
        if (
            not isinstance(entry, Mapping)
            or set(entry) != {"brigades", "tp"}
            or not all(_is_int(entry[k]) and entry[k] >= 0 for k in entry)
        ):
            raise Refused(f"{where}[{index}]", f"must be {{brigades: N, tp: N}} (whole numbers), got {entry!r}")


def order_cost(state: Mapping[str, Any], kind: str, brigades: int) -> int | None:
    """Return the TP cost of an order of `kind` for a group of `brigades`, or None if nobody supplied it."""
    table: dict[int, int] = {}
    for source in (COSTS["costs"], state["overlays"].get("order_costs", {})):
        for entry in source.get(kind, []):
            table[entry["brigades"]] = entry["tp"]
    return table.get(brigades)


# -- army morale --------------------------------------------------------------------------


def _check_army_morale(value: Any, where: str = "option army_morale") -> None:
    if not isinstance(value, Mapping) or set(value) - {"cmf", "when_exhausted"} or "cmf" not in value:
        raise Refused(where, "must be a mapping with cmf (army: number) and when_exhausted")
    if not isinstance(value["cmf"], Mapping):
        raise Refused(f"{where}.cmf", "must map each army id to its starting critical morale factor")
    for army, cmf in value["cmf"].items():
        if not _is_int(cmf) or cmf <= 0:
            raise Refused(f"{where}.cmf.{army}", f"must be a whole number of at least 1, got {cmf!r}")
    _one_of(f"{where}.when_exhausted", value.get("when_exhausted", "game-ends"), EXHAUSTION)


def _one_of(where: str, value: Any, allowed: tuple[Any, ...]) -> None:
    if value not in allowed:
        raise Refused(where, f"must be one of {', '.join(map(str, allowed))}, got {value!r}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# The game's own data is checked when the module loads, like a referee's.
_check_modifiers(COMBAT["modifiers"], "polemos_obb/data/combat.yaml modifiers")
parse_chart(COMBAT["results"], "polemos_obb/data/combat.yaml results")
