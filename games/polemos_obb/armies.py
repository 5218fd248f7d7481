"""Armies and set-up: scenarios (built in, or supplied by the referee), orders of battle, generators.

A scenario names two sides, their armies (one per player), each army's C-in-C and divisions.
An army may instead be generated: the scenario gives its divisions' commanders, arms and lines
(the rulebook's "Using the generators" page is missing), and the muster phase rolls the rest on
the nation's generator through the referee's dice, so the generated army is itself verifiable.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from games.polemos_obb.model import PACKAGE, TROOPS, State
from games.polemos_obb.options import require_table
from games.polemos_obb.resolution import Resolution
from games.polemos_obb.table import check_table_data
from referee.kit import GameDataError, MissingTableError, load_data

BUILT_IN_SCENARIOS = ("combat-example", "danube-demo")
BUILT_IN_GENERATORS = ("imperialist",)
BOOK_SCENARIOS = {"blenheim-1704": "Scenario - Blenheim 1704, rulebook pp. 48-54"}
BOOK_GENERATORS = ("french", "bavaria", "united-provinces", "britain", "denmark", "allied", "spain", "portugal")
ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,47}")
BASE_FIELDS = ("type", "class", "school", "nationality")
RANDOM_GRADE = "random"


# -- scenarios ----------------------------------------------------------------------------


def load_scenario(scenario: str, overlays: Mapping[str, Any]) -> dict[str, Any]:
    """Return a scenario's data, checked: the referee's copy first, then the game's own."""
    supplied = overlays.get("scenarios", {})
    if scenario in supplied:
        data = supplied[scenario]
        source = f"option scenarios.{scenario}"
    elif scenario in BUILT_IN_SCENARIOS:
        data = load_data(PACKAGE, f"scenarios/{scenario}.yaml")
        source = f"polemos_obb/data/scenarios/{scenario}.yaml"
    elif scenario in BOOK_SCENARIOS:
        raise MissingTableError(
            f"scenario {scenario} ({BOOK_SCENARIOS[scenario]}) is not in the rulebook file: its order of battle, "
            "generals, sides and special rules must come from the referee's own copy",
            hints=(f"the referee gives it as option scenarios.{scenario} (the scenario format is in the README)",),
        )
    else:
        known = ", ".join([*BUILT_IN_SCENARIOS, *supplied])
        raise GameDataError(
            f"polemos-obb has no scenario {scenario!r}",
            hints=(f"scenarios: {known}; a referee may supply more as option scenarios.<id>",),
        )
    check_scenario(data, source)
    return dict(data)


def scenario_roles(scenario: Mapping[str, Any]) -> tuple[str, ...]:
    """Return the roles of a scenario: one per army, named after the army."""
    return tuple(army for side in scenario["sides"] for army in side["armies"])


def check_scenario(data: Any, source: str) -> None:
    """Raise GameDataError naming the first thing wrong in a scenario's data."""
    _keys(data, source, required=("schema_version", "id", "title", "sides", "armies"), optional=("source", "table"))
    if data["schema_version"] != 1:
        raise GameDataError(f"{source}: schema_version must be 1")
    sides = data["sides"]
    if not isinstance(sides, list) or len(sides) != 2:
        raise GameDataError(f"{source}: sides must list exactly two sides (each with id, title, armies)")
    armies = data["armies"]
    if not isinstance(armies, Mapping):
        raise GameDataError(f"{source}: armies must map each army id to its army")
    listed: list[str] = []
    for index, side in enumerate(sides):
        where = f"{source}: sides[{index}]"
        _keys(side, where, required=("id", "title", "armies"))
        _id(side["id"], f"{where}.id")
        if not isinstance(side["armies"], list) or not side["armies"]:
            raise GameDataError(f"{where}.armies must list at least one army id")
        listed += side["armies"]
    if sorted(listed) != sorted(armies) or len(set(listed)) != len(listed):
        raise GameDataError(f"{source}: the sides must list every army exactly once (armies: {', '.join(armies)})")
    ids: dict[str, set[str]] = {"general": set(), "division": set(), "brigade": set(), "base": set()}
    for army_id, army in armies.items():
        _army(army_id, army, f"{source}: armies.{army_id}", ids)
    if "table" in data:
        check_table_data(data["table"], source, sorted(ids["division"]))


def _army(army_id: str, army: Any, where: str, ids: dict[str, set[str]]) -> None:
    _id(army_id, where)
    _keys(army, where, required=("title", "c_in_c"), optional=("divisions", "generate", "in_person"))
    _general(army["c_in_c"], f"{where}.c_in_c", ids, rank="c-in-c")
    if ("divisions" in army) == ("generate" in army):
        raise GameDataError(f"{where}: give either divisions (an order of battle) or generate (a generator)")
    divisions = army.get("divisions") or army["generate"].get("divisions")
    if "generate" in army:
        _keys(army["generate"], f"{where}.generate", required=("generator", "size", "divisions"))
    if not isinstance(divisions, list) or not divisions:
        raise GameDataError(f"{where}: an army needs at least one division")
    for index, division in enumerate(divisions):
        _division(division, f"{where}.divisions[{index}]", ids, generated="generate" in army, c_in_c=army["c_in_c"])
    in_person = army.get("in_person")
    if in_person is not None and in_person not in [d["id"] for d in divisions]:
        raise GameDataError(f"{where}.in_person names {in_person!r}, which is not one of this army's divisions")


def _division(data: Any, where: str, ids: dict[str, set[str]], generated: bool, c_in_c: Mapping[str, Any]) -> None:
    if generated:
        _keys(data, where, required=("id", "title", "arm", "commander"), optional=("line",))
        if data["arm"] not in ("infantry", "cavalry", "artillery"):
            raise GameDataError(f"{where}.arm must be infantry, cavalry or artillery")
    else:
        _keys(data, where, required=("id", "title", "commander", "brigades"), optional=("line", "base"))
    _unique(data["id"], f"{where}.id", ids["division"])
    commander = data["commander"]
    if isinstance(commander, Mapping) and set(commander) == {"id"}:
        if commander["id"] != c_in_c["id"]:
            raise GameDataError(f"{where}.commander: only the C-in-C may be named by id alone (he commands in person)")
    else:
        _general(commander, f"{where}.commander", ids)
    if data.get("line", 1) not in (1, 2):
        raise GameDataError(f"{where}.line must be 1 (first line) or 2")
    if generated:
        return
    defaults = data.get("base", {})
    _base_fields(defaults, f"{where}.base", partial=True)
    if not isinstance(data["brigades"], list) or not data["brigades"]:
        raise GameDataError(f"{where}.brigades must list the division's brigades")
    for index, brigade in enumerate(data["brigades"]):
        bwhere = f"{where}.brigades[{index}]"
        if isinstance(brigade, str):
            _unique(brigade, bwhere, ids["brigade"])
            _unique(brigade, bwhere, ids["base"])
            _base_fields(defaults, bwhere, partial=False)
            continue
        _keys(brigade, bwhere, required=("id",), optional=("bases", *BASE_FIELDS))
        _unique(brigade["id"], f"{bwhere}.id", ids["brigade"])
        fields = {**defaults, **{k: v for k, v in brigade.items() if k in BASE_FIELDS}}
        bases = brigade.get("bases", [brigade["id"]])
        if not isinstance(bases, list) or not 1 <= len(bases) <= 2:
            raise GameDataError(f"{bwhere}.bases: a brigade has one or two bases")
        for base in bases:
            _unique(base, f"{bwhere}.bases", ids["base"])
        _base_fields(fields, bwhere, partial=False)


def _general(data: Any, where: str, ids: dict[str, set[str]], rank: str | None = None) -> None:
    _keys(data, where, required=("id", "name", "grade"), optional=() if rank else ("rank",))
    _unique(data["id"], f"{where}.id", ids["general"])
    if data["grade"] not in (*TROOPS["grades"], RANDOM_GRADE):
        raise GameDataError(f"{where}.grade must be one of {', '.join(TROOPS['grades'])} or random")
    if rank is None and data.get("rank", "lieutenant-general") not in TROOPS["ranks"]:
        raise GameDataError(f"{where}.rank must be one of {', '.join(TROOPS['ranks'])}")


def _base_fields(fields: Any, where: str, partial: bool) -> None:
    if not isinstance(fields, Mapping) or set(fields) - set(BASE_FIELDS):
        raise GameDataError(f"{where}: base fields are {', '.join(BASE_FIELDS)}")
    if partial:
        return
    if fields.get("type") not in TROOPS["types"]:
        raise GameDataError(f"{where}: type must be one of {', '.join(TROOPS['types'])}")
    if fields.get("class") not in TROOPS["classes"]:
        raise GameDataError(f"{where}: class must be one of {', '.join(TROOPS['classes'])}")
    school = fields.get("school")
    if school is not None and school not in TROOPS["schools"]:
        raise GameDataError(f"{where}: school must be one of {', '.join(TROOPS['schools'])}")


def _keys(data: Any, where: str, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> None:
    if not isinstance(data, Mapping):
        raise GameDataError(f"{where} must be a mapping with {', '.join(required)}")
    missing = [k for k in required if k not in data]
    unknown = [str(k) for k in data if k not in required and k not in optional]
    if missing or unknown:
        problem = f"lacks {', '.join(missing)}" if missing else f"has unknown key(s) {', '.join(unknown)}"
        raise GameDataError(f"{where} {problem}", hints=(f"keys: {', '.join((*required, *optional))}",))


def _id(value: Any, where: str) -> None:
    if not isinstance(value, str) or not ID.fullmatch(value):
        raise GameDataError(f"{where}: {value!r} is not an id (letters, digits, - and _; up to 48)")


def _unique(value: Any, where: str, seen: set[str]) -> None:
    _id(value, where)
    if value in seen:
        raise GameDataError(f"{where}: the id {value!r} is used twice")
    seen.add(value)


# -- generators ---------------------------------------------------------------------------


def load_generators(scenario: Mapping[str, Any], overlays: Mapping[str, Any]) -> dict[str, Any]:
    """Return the generators a scenario's armies need, checked; refuse one nobody supplied."""
    needed = {a["generate"]["generator"] for a in scenario["armies"].values() if "generate" in a}
    supplied = overlays.get("generators", {})
    generators = {}
    for nation in sorted(needed):
        if nation in supplied:
            data, source = supplied[nation], f"option generators.{nation}"
        elif nation in BUILT_IN_GENERATORS:
            data, source = load_data(PACKAGE, f"generators/{nation}.yaml"), f"polemos_obb/data/generators/{nation}.yaml"
        else:
            book = " (its page is missing from the rulebook file)" if nation in BOOK_GENERATORS else ""
            raise MissingTableError(
                f"scenario {scenario['id']} generates an army with the {nation} army generator{book}; "
                "the game has only the imperialist generator",
                hints=(f"the referee gives it as option generators.{nation}, in the shape of the imperialist one",),
            )
        check_generator(data, source)
        generators[nation] = data
    for army_id, army in scenario["armies"].items():
        if "generate" in army:
            size = army["generate"]["size"]
            sizes = generators[army["generate"]["generator"]]["sizes"]
            if size not in sizes:
                raise GameDataError(f"army {army_id}: generate.size must be one of {', '.join(sizes)}")
    return generators


def check_generator(data: Any, source: str) -> None:
    """Raise GameDataError naming the first thing wrong in an army generator's data."""
    _keys(
        data,
        source,
        required=("schema_version", "nation", "title", "sizes", "infantry", "cavalry", "artillery", "tables"),
    )
    tables = data["tables"]
    if not isinstance(tables, Mapping):
        raise GameDataError(f"{source}: tables must map table ids to tables")
    uses = {
        "infantry": ("brigades", "class", "nationality"),
        "cavalry": ("brigades", "type", "class", "nationality"),
        "artillery": ("light", "field"),
    }
    for arm, keys in uses.items():
        for key in keys:
            table_id = data[arm].get(key) if isinstance(data[arm], Mapping) else None
            if table_id not in tables:
                raise GameDataError(f"{source}: {arm}.{key} must name one of its tables, got {table_id!r}")
    if data["infantry"].get("type") not in TROOPS["types"]:
        raise GameDataError(f"{source}: infantry.type must be a troop type")


def generate_armies(r: Resolution) -> None:
    """Roll every generated army of the scenario on its generator, adding its divisions to the state."""
    state = r.state
    for army_id in [a for side in state["sides"] for a in side["armies"]]:
        spec = state["armies"][army_id].get("generate")
        if spec is None:
            continue
        generator = state["generators"][spec["generator"]]
        lines = []
        for division in spec["divisions"]:
            bases = _generate_division(r, army_id, division, generator, spec["size"])
            _add_division(state, army_id, division, bases)
            lines.append({"division": division["id"], "title": division["title"], "bases": bases})
        state["armies"][army_id]["generate"] = None
        r.say(
            "army.generated",
            f"{state['armies'][army_id]['title']} is rolled on the {generator['title']} generator ({spec['size']}).",
            {"army": army_id, "generator": generator["title"], "size": spec["size"], "divisions": lines},
        )


def _generate_division(
    r: Resolution, army: str, division: Mapping[str, Any], generator: Mapping[str, Any], size: str
) -> list[dict[str, Any]]:
    prefix = f"muster/{army}/{division['id']}"
    title = division["title"]
    arm = division["arm"]
    if arm == "artillery":
        plan = generator["artillery"]
        bases = []
        for kind in ("light", "field"):
            count = r.read(plan[kind], label=f"{prefix}/{kind}", purpose=f"{title}: {kind} artillery", column=size)
            bases += [{"type": f"{kind}-artillery", "class": "trained"} for _ in range(int(count.result))]
        return bases
    plan = generator[arm]
    first_line = ["first-line"] if division.get("line", 1) == 1 else []
    count = r.read(plan["brigades"], label=f"{prefix}/brigades", purpose=f"{title}: brigades")
    bases = []
    for number in range(1, int(count.result) + 1):
        where = f"{prefix}/{number}"
        if arm == "infantry":
            base: dict[str, Any] = {"type": plan["type"], "school": plan["school"]}
        else:
            base = {"type": r.read(plan["type"], label=f"{where}/type", purpose=f"{title} {number}: type").result}
        base["class"] = r.read(
            plan["class"], label=f"{where}/class", purpose=f"{title} {number}: class", modifiers=first_line
        ).result
        if arm == "infantry" or base["type"] in plan.get("nationality_for", ()):
            base["nationality"] = r.read(
                plan["nationality"], label=f"{where}/nationality", purpose=f"{title} {number}: nationality"
            ).result
        bases += [dict(base) for _ in range(plan.get("bases_per_brigade", 1))]
    return bases


def _add_division(state: State, army: str, spec: Mapping[str, Any], bases: list[dict[str, Any]]) -> None:
    """Add a generated division: each base its own brigade, ids numbered after the division."""
    division = spec["id"]
    brigades = []
    for number, fields in enumerate(bases, start=1):
        brigade = f"{division}-{number}"
        brigades.append(brigade)
        state["brigades"][brigade] = {"division": division, "bases": [brigade]}
        state["bases"][brigade] = new_base(division, brigade, fields)
    state["divisions"][division].update(brigades=brigades, bases_at_start=len(bases))


# -- the state's order of battle ----------------------------------------------------------


def new_base(division: str, brigade: str, fields: Mapping[str, Any]) -> dict[str, Any]:
    """Return a base's state record: fresh, with the flags its type needs."""
    kind = TROOPS["types"][fields["type"]]
    base = {
        "division": division,
        "brigade": brigade,
        "type": fields["type"],
        "class": fields["class"],
        "school": fields.get("school"),
        "nationality": fields.get("nationality"),
        "state": "fresh",
        "followed_up": False,
        "moved_in_combat": False,
    }
    if kind.get("dismounts"):
        base["dismounted"] = False
    if kind["arm"] == "artillery":
        base["limbered"] = True
    return base


def order_of_battle(scenario: Mapping[str, Any]) -> dict[str, Any]:
    """Return the state's armies, generals, divisions, brigades and bases for a scenario."""
    forces: dict[str, Any] = {"armies": {}, "generals": {}, "divisions": {}, "brigades": {}, "bases": {}}
    for side in scenario["sides"]:
        for army_id in side["armies"]:
            army = scenario["armies"][army_id]
            c_in_c = army["c_in_c"]
            forces["generals"][c_in_c["id"]] = new_general(c_in_c, army_id, "c-in-c", None)
            divisions = army.get("divisions") or army["generate"]["divisions"]
            forces["armies"][army_id] = {
                "title": army["title"],
                "side": side["id"],
                "player": army_id,
                "c_in_c": c_in_c["id"],
                "in_person": army.get("in_person"),
                "divisions": [d["id"] for d in divisions],
                "tp": 0,
                "cmf": None,
                "cmf_lost": 0,
                "exhausted": False,
                "generate": dict(army["generate"]) if "generate" in army else None,
            }
            for division in divisions:
                _add_listed_division(forces, army_id, division, c_in_c["id"])
    return forces


def _add_listed_division(forces: dict[str, Any], army: str, spec: Mapping[str, Any], c_in_c: str) -> None:
    division = spec["id"]
    commander = spec["commander"]
    if commander["id"] != c_in_c:
        forces["generals"][commander["id"]] = new_general(
            commander, army, commander.get("rank", "lieutenant-general"), division
        )
    brigades = []
    count = 0
    for brigade in spec.get("brigades", []):
        entry = {"id": brigade} if isinstance(brigade, str) else brigade
        fields = {**spec.get("base", {}), **{k: v for k, v in entry.items() if k in BASE_FIELDS}}
        bases = entry.get("bases", [entry["id"]])
        forces["brigades"][entry["id"]] = {"division": division, "bases": list(bases)}
        for base in bases:
            forces["bases"][base] = new_base(division, entry["id"], fields)
        brigades.append(entry["id"])
        count += len(bases)
    forces["divisions"][division] = {
        "title": spec["title"],
        "army": army,
        "commander": commander["id"],
        "line": spec.get("line", 1),
        "brigades": brigades,
        "bases_at_start": count,
        "spent": False,
    }


def new_general(spec: Mapping[str, Any], army: str, rank: str, division: str | None) -> dict[str, Any]:
    """Return a general's state record."""
    return {
        "name": spec["name"],
        "rank": rank,
        "grade": spec["grade"],
        "army": army,
        "division": division,
        "status": "active",
        "with_base": None,
        "no_move_turn": None,
        "no_orders_until": 0,
        "successor_due": None,
        "counts_for_tp": True,
        "successors": 0,
    }


def roll_random_grades(r: Resolution) -> None:
    """Roll the grade of every general whose scenario grade is random, on the officer-grade table."""
    for general_id in sorted(r.state["generals"]):
        general = r.state["generals"][general_id]
        if general["grade"] == RANDOM_GRADE:
            require_table(r.state, "officer-grade")
            general["grade"] = r.read(
                "officer-grade", label=f"muster/grade/{general_id}", purpose=f"grade of {general['name']}"
            ).result
