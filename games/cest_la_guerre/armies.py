"""Armies: the 28 lists and the point system, an army order checked against them, and the roster
of cards it gives (rulebook L116-L158; extraction sections 2.3-2.5).

A card's id is what its owner writes in orders. It names the troop type and grade and counts in
list order (`reg-inf-average-3`, `general-1`, `dummy-2`), so a player can name reserve cards in
the same order that buys the army. The opponent never sees these ids (see hidden.py).
"""

from __future__ import annotations

import difflib
import itertools
import re
from collections.abc import Mapping, Sequence
from typing import Any

from games.cest_la_guerre.data import COSTS, LISTS, NO_GRADE, SWAPS, TROOPS, show_points, unit_cost
from referee.kit import Problem

POINT_SYSTEM = "point-system"
MAX_NAME = 40
_SLUGS = {
    "general": "general",
    "sub_command": "sub-command",
    "reg_inf": "reg-inf",
    "pike": "pikes",
    "coi": "irregulars",
    "light_inf": "light-inf",
    "cavalry": "cavalry",
    "heavy_cav": "heavy-cav",
    "light_cav": "light-cav",
    "artillery": "artillery",
    "heavy_artillery": "heavy-artillery",
    "horse_artillery": "horse-artillery",
    "engineers": "engineers",
    "dummy": "dummy",
}
_SINGLE_GRADE = ("general", "light_inf", "light_cav", "engineers", "artillery", "heavy_artillery", "horse_artillery")


def describe_entry(entry: Mapping[str, Any]) -> str:
    """Return a card's description in words: "Elite Regular Infantry (British Infantry)"."""
    kind = TROOPS[entry["type"]]["name"]
    grade = entry.get("grade", NO_GRADE)
    words = kind if grade in (NO_GRADE, None) else f"{grade.capitalize()} {kind}"
    if entry.get("weapon") == "rifle":
        words += " with rifles"
    label = entry.get("label") or ("British Infantry" if entry.get("british") else None)
    return f"{words} ({label})" if label else words


def describe_option(option: Sequence[Mapping[str, Any]]) -> str:
    """Return an alternative of a list in words: "2 Average Cavalry"."""
    return " + ".join(f"{item.get('n', 1)} {describe_entry(item)}" for item in option)


def list_choices(army: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Return the list's alternatives in order, each as {kind, slots?, options: [text...]}."""
    found = []
    for entry in army["entries"]:
        if "choose_one" in entry:
            found.append({"kind": "one", "options": [describe_option(o) for o in entry["choose_one"]]})
        elif "choose_mix" in entry:
            mix = entry["choose_mix"]
            found.append(
                {"kind": "mix", "slots": mix["slots"], "options": [describe_option([o]) for o in mix["options"]]}
            )
    return found


def catalogue() -> dict[str, str]:
    """Return every list as one line: its name, period, points, cards and choices (for views)."""
    lines = {}
    for list_id, army in LISTS.items():
        choices = []
        for number, choice in enumerate(list_choices(army), start=1):
            options = "; ".join(f"{i}: {text}" for i, text in enumerate(choice["options"], start=1))
            slots = f" (fill {choice['slots']} cards)" if choice["kind"] == "mix" else ""
            choices.append(f"choice {number}{slots} = {options}")
        fixed = "; ".join(
            f"{e['n']} {describe_entry(e)}" for e in army["entries"] if "choose_one" not in e and "choose_mix" not in e
        )
        text = f"{army['name']}, {army['period_name']}, {show_points(int(army['total'] * 2))} points: {fixed}"
        lines[list_id] = text + (". " + ". ".join(choices) if choices else "")
    return lines


def _slug(entry: Mapping[str, Any]) -> str:
    kind = entry["type"]
    if entry.get("british") and kind == "reg_inf":
        base = "british-inf"
    elif kind == "light_inf" and entry.get("weapon") == "rifle":
        base = "rifles"
    else:
        base = _SLUGS[kind]
    grade = entry.get("grade", NO_GRADE)
    return base if kind in _SINGLE_GRADE or grade == NO_GRADE else f"{base}-{grade}"


def _expand(army: Mapping[str, Any], choices: Sequence[Any]) -> list[dict[str, Any]]:
    """Return the list's entries with each alternative replaced by the chosen one(s)."""
    entries: list[dict[str, Any]] = []
    picks = iter(choices)
    for entry in army["entries"]:
        if "choose_one" in entry:
            entries += [dict(item) for item in entry["choose_one"][next(picks) - 1]]
        elif "choose_mix" in entry:
            for number in next(picks):
                entries.append({**entry["choose_mix"]["options"][number - 1], "n": 1})
        else:
            entries.append(dict(entry))
    return entries


def _cards(entries: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Return one card per unit of the entries, with its id, description and cost."""
    counters: dict[str, int] = {}
    cards = []
    for entry in entries:
        for _ in range(entry.get("n", 1)):
            slug = _slug(entry)
            counters[slug] = counters.get(slug, 0) + 1
            cards.append(
                {
                    "id": f"{slug}-{counters[slug]}",
                    "type": entry["type"],
                    "grade": entry.get("grade", NO_GRADE),
                    "label": entry.get("label"),
                    "british": bool(entry.get("british")),
                    "british_no_bonus": bool(entry.get("british_no_bonus")),
                    "weapon": entry.get("weapon") or TROOPS[entry["type"]].get("weapon"),
                    "dismount": bool(entry.get("dismount")),
                    "condition": entry.get("condition"),
                    "cost": unit_cost(entry),
                }
            )
    return cards


def _choice_problems(army: Mapping[str, Any], choices: Any) -> list[Problem]:
    wanted = list_choices(army)
    path = "orders.choices"
    if not wanted:
        if choices:
            return [Problem("illegal.army.choices", path, f"list {army['id']} has no alternatives: leave choices out")]
        return []
    help_text = "; ".join(
        f"choice {n}: " + ", ".join(f"{i} = {o}" for i, o in enumerate(c["options"], start=1))
        for n, c in enumerate(wanted, start=1)
    )
    if not isinstance(choices, list) or len(choices) != len(wanted):
        example = [1 if c["kind"] == "one" else [1] * c["slots"] for c in wanted]
        return [
            Problem(
                "illegal.army.choices",
                path,
                f"list {army['id']} has {len(wanted)} alternative(s) ({help_text}); give one pick for each, "
                f"in order, e.g. choices: {example}",
            )
        ]
    problems = []
    for number, (choice, pick) in enumerate(zip(wanted, choices, strict=True), start=1):
        where = f"{path}[{number - 1}]"
        count = len(choice["options"])
        if choice["kind"] == "one":
            if isinstance(pick, bool) or not isinstance(pick, int) or not 1 <= pick <= count:
                problems.append(
                    Problem(
                        "illegal.army.choice",
                        where,
                        f"choice {number} of {army['id']} takes one option number from 1 to {count}: "
                        + ", ".join(f"{i} = {o}" for i, o in enumerate(choice["options"], start=1)),
                    )
                )
        elif (
            not isinstance(pick, list)
            or len(pick) != choice["slots"]
            or any(isinstance(p, bool) or not isinstance(p, int) or not 1 <= p <= count for p in pick)
        ):
            problems.append(
                Problem(
                    "illegal.army.choice",
                    where,
                    f"choice {number} of {army['id']} fills {choice['slots']} cards: give a list of "
                    f"{choice['slots']} option numbers (each 1 to {count}; "
                    + ", ".join(f"{i} = {o}" for i, o in enumerate(choice["options"], start=1))
                    + f"), e.g. {[1] * choice['slots']}",
                )
            )
    return problems


def _point_system_entries(orders: Mapping[str, Any], options: Mapping[str, Any]) -> tuple[list[Any], list[Problem]]:
    problems: list[Problem] = []
    entries = []
    if not options["point_system"]:
        return [], [Problem("illegal.army.list", "orders.list", "this game allows only the army lists")]
    for index, item in enumerate(orders.get("units") or []):
        where = f"orders.units[{index}]"
        kind = item.get("type")
        if kind not in COSTS or kind == "dummy":
            known = ", ".join(k for k in COSTS if k != "dummy")
            problems.append(
                Problem("illegal.army.type", f"{where}.type", f"unknown troop type {kind!r}; types: {known}")
            )
            continue
        grade = item.get("grade", NO_GRADE if NO_GRADE in COSTS[kind] else "average")
        if grade not in COSTS[kind]:
            problems.append(
                Problem(
                    "illegal.army.grade",
                    f"{where}.grade",
                    f"{TROOPS[kind]['name']} may be {', '.join(COSTS[kind])}, not {grade}",
                )
            )
            continue
        if item.get("british") and kind != "reg_inf":
            problems.append(Problem("illegal.army.british", where, "only regular infantry pays and gains as British"))
        if item.get("dismount") and kind not in ("cavalry", "heavy_cav"):
            problems.append(Problem("illegal.army.dismount", where, "only Cavalry or Heavy Cavalry may dismount"))
        weapon = item.get("weapon")
        if weapon is not None and (weapon not in ("musket", "rifle", "pistol") or TROOPS[kind]["shoots"] == "never"):
            if weapon == "pistol" and TROOPS[kind]["shoots"] == "never":
                pass
            else:
                problems.append(Problem("illegal.army.weapon", f"{where}.weapon", f"{kind} cannot carry {weapon}"))
        entry = {"n": item.get("count", 1), "type": kind, "grade": grade}
        for key in ("british", "dismount", "weapon", "label"):
            if item.get(key):
                entry[key] = item[key]
        entries.append(entry)
    generals = sum(e["n"] for e in entries if e["type"] == "general")
    rule = options.get("point_army_generals", "exactly_one")
    wanted = {"exactly_one": (1, 1, "exactly one"), "at_most_one": (0, 1, "at most one"), "any": (0, 999, "")}[rule]
    if not wanted[0] <= generals <= wanted[1]:
        problems.append(
            Problem(
                "illegal.army.general",
                "orders.units",
                f"an army has {wanted[2]} General, not {generals} (option point_army_generals: {rule})",
            )
        )
    return entries, problems


def _swap(entries: list[dict[str, Any]], list_id: str, swaps: Any, options: Mapping[str, Any]) -> list[Problem]:
    """Apply the French & Indian War swaps to `entries` in place; return the problems."""
    problems = []
    for index, swap in enumerate(swaps or []):
        where = f"orders.swaps[{index}]"
        spec = SWAPS.get(swap.get("swap"))
        if not options["fiw_swaps"]:
            problems.append(Problem("illegal.army.swap", where, "this game does not use the optional FIW swaps"))
            break
        if spec is None or list_id not in spec["lists"]:
            usable = [s for s, d in SWAPS.items() if list_id in d["lists"]]
            problems.append(
                Problem(
                    "illegal.army.swap", where, f"list {list_id} may use these swaps: {', '.join(usable) or 'none'}"
                )
            )
            continue
        take = swap.get("take") or next(iter(spec["take"]))
        if take not in spec["take"]:
            problems.append(Problem("illegal.army.swap", where, f"take one of: {', '.join(spec['take'])}"))
            continue
        give = spec["give"]
        donor = next(
            (e for e in entries if e["type"] == give["type"] and e.get("grade") == give["grade"] and e.get("n", 1)),
            None,
        )
        if donor is None:
            problems.append(Problem("illegal.army.swap", where, f"no {describe_entry(give)} is left to swap"))
            continue
        donor["n"] = donor.get("n", 1) - 1
        entries += [dict(item) for item in spec["take"][take]]
    return problems


def build_army(
    orders: Mapping[str, Any], options: Mapping[str, Any]
) -> tuple[dict[str, Any] | None, list[dict[str, Any]], list[Problem]]:
    """Return (the side's summary, its cards, problems) for an army order; refused when problems.

    Every independent problem is listed at once (the choices, the dummies, units on a list army,
    the reserve...), so that one answer fixes them all; a problem that only follows from another
    (the points of a list whose choices are wrong, a reserve card of a unit that is not there)
    is left out.
    """
    list_id = orders.get("list")
    problems: list[Problem] = []
    if list_id == POINT_SYSTEM:
        entries, problems = _point_system_entries(orders, options)
        army_name, period, total = "Point-system army", None, None
        special: list[str] = []
    elif list_id in LISTS:
        army = LISTS[list_id]
        problems = _choice_problems(army, orders.get("choices"))
        entries = [] if problems else _expand(army, orders.get("choices") or [])
        if not problems:
            problems += _swap(entries, list_id, orders.get("swaps"), options)
        army_name, period, total = army["name"], army["period"], int(army["total"] * 2)
        special = list(army.get("special_rules", []))
    else:
        close = difflib.get_close_matches(str(list_id), [*LISTS, POINT_SYSTEM], 3)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        problems = [
            Problem(
                "illegal.army.list",
                "orders.list",
                f"there is no army list {list_id!r}{hint}; your view lists all 28 (army_lists), or use {POINT_SYSTEM}",
            )
        ]
        return None, [], problems
    complete = not problems  # every card of the army is known: its points, reserve and names can be checked
    if list_id != POINT_SYSTEM and orders.get("units"):
        problems.append(Problem("illegal.army.units", "orders.units", f"units are for {POINT_SYSTEM} armies only"))
    dummies = orders.get("dummies", 0)
    cards = _cards(entries)
    cost = sum(card["cost"] for card in cards)
    if list_id == POINT_SYSTEM:
        cards += _cards([{"n": dummies, "type": "dummy"}])
        cost = sum(card["cost"] for card in cards)
        if cost > options["army_points"] * 2:  # over even without the units refused above
            problems.append(
                Problem(
                    "illegal.army.points",
                    "orders.units",
                    f"the army costs {show_points(cost)} points, over the game's {options['army_points']}",
                )
            )
        total = cost
    else:
        if complete and cost != total:
            problems.append(
                Problem(
                    "illegal.army.points",
                    "orders.choices",
                    f"the chosen list costs {show_points(cost)}, not its {show_points(total or 0)} points",
                )
            )
        if dummies > options["list_dummies"]:
            problems.append(
                Problem(
                    "illegal.army.dummies",
                    "orders.dummies",
                    f"a list army may add at most {options['list_dummies']} dummies in this game, not {dummies}",
                )
            )
        cards += _cards([{"n": dummies, "type": "dummy"}])
    if complete:
        problems += _reserve_problems(cards, orders.get("reserve") or [])
        problems += _name_problems(cards, orders.get("names") or [])
    if problems:
        return None, [], problems
    reserve = set(orders.get("reserve") or [])
    names = {item["unit"]: item["name"] for item in orders.get("names") or []}
    for card in cards:
        card["status"] = "reserve" if card["id"] in reserve else "army"
        card["name"] = names.get(card["id"])
    summary = {
        "list": list_id,
        "list_name": army_name,
        "period": period,
        "points": total,
        "special_rules": special,
    }
    return summary, cards, []


def _unknown_id(cards: Sequence[Mapping[str, Any]], wanted: str) -> str:
    ids = [card["id"] for card in cards]
    close = difflib.get_close_matches(wanted, ids, 1)
    guess = f" (did you mean {close[0]}?)" if close else ""
    return f"your army has no card {wanted!r}{guess}; its cards: {', '.join(ids)}"


def _reserve_problems(cards: Sequence[Mapping[str, Any]], reserve: Sequence[str]) -> list[Problem]:
    if not reserve:
        return []
    ids = {card["id"]: card for card in cards}
    problems = [
        Problem("illegal.army.reserve", "orders.reserve", _unknown_id(cards, r)) for r in reserve if r not in ids
    ]
    if len(set(reserve)) != len(reserve):
        problems.append(Problem("illegal.army.reserve", "orders.reserve", "a card is named twice in the reserve"))
    if problems:
        return problems
    if len(reserve) * 3 > len(cards):
        problems.append(
            Problem(
                "illegal.army.reserve",
                "orders.reserve",
                f"a Reserve Force may hold at most a third of the army's {len(cards)} cards (dummies count): "
                f"{len(cards) // 3}, not {len(reserve)} (L156)",
            )
        )
    if not any(ids[r]["type"] == "sub_command" for r in reserve):
        problems.append(
            Problem(
                "illegal.army.reserve",
                "orders.reserve",
                "a Reserve Force must include at least one Sub-Command (L156); "
                + (
                    "yours: " + ", ".join(c["id"] for c in cards if c["type"] == "sub_command")
                    if any(c["type"] == "sub_command" for c in cards)
                    else "this army has none, so it cannot keep a reserve"
                ),
            )
        )
    return problems


def _name_problems(cards: Sequence[Mapping[str, Any]], names: Sequence[Mapping[str, Any]]) -> list[Problem]:
    ids = {card["id"] for card in cards}
    problems = []
    seen: set[str] = set()
    for index, item in enumerate(names):
        where = f"orders.names[{index}]"
        if item["unit"] not in ids:
            problems.append(Problem("illegal.army.name", f"{where}.unit", _unknown_id(cards, item["unit"])))
        elif item["unit"] in seen:
            problems.append(Problem("illegal.army.name", f"{where}.unit", f"{item['unit']} is named twice"))
        elif not re.fullmatch(r"[^\x00-\x1f]{1,40}", item["name"]):
            problems.append(
                Problem("illegal.army.name", f"{where}.name", f"a name is 1 to {MAX_NAME} plain characters")
            )
        seen.add(item["unit"])
    return problems


def list_total(list_id: str, choices: Sequence[Any]) -> int:
    """Return the cost in half-points of a list under the given choices (used by tests and views)."""
    return sum(card["cost"] for card in _cards(_expand(LISTS[list_id], choices)))


def every_choice(list_id: str) -> list[list[Any]]:
    """Return every legal choices value for a list (each alternative, each mix)."""
    combos: list[list[Any]] = [[]]
    for choice in list_choices(LISTS[list_id]):
        count = len(choice["options"])
        if choice["kind"] == "one":
            picks: list[Any] = list(range(1, count + 1))
        else:
            picks = [list(p) for p in itertools.combinations_with_replacement(range(1, count + 1), choice["slots"])]
        combos = [[*combo, pick] for combo in combos for pick in picks]
    return combos
