"""The contact phase's orders: new attacks, carried-over engagements, generals overrun, checked.

These checks hold a declaration to what the state can tell (whose bases, which still stand, who
is already in contact, who moved this turn) and, on the referee's table (option battlefield:
table), to the positions: contact, reach, support, column and generals overrun.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from games.polemos_obb.manoeuvres import poses_now
from games.polemos_obb.model import army_of_base, is_standing, live_pairs, side_of, standing_bases
from games.polemos_obb.options import setting
from games.polemos_obb.table import (
    CONFORM_BW,
    TOUCH_MM,
    blocking,
    bw,
    conform_pose,
    general_outline,
    in_bw,
    on_table,
    outline_of,
    size_of,
    supports,
    touching_bases,
)
from referee.kit import Problem
from referee.kit.tabletop import outline


def contact_problems(state: Mapping[str, Any], army: str, orders: Mapping[str, Any]) -> list[Problem]:
    """Return what is wrong with an army's contact orders, in words its player can act on."""
    problems: list[Problem] = []
    side = side_of(state, army)
    engaged = {b for e in state["engagements"] for p in live_pairs(state, e) for b in p["bases"]}
    used: set[str] = set()
    attackers: set[str] = set()
    for index, attack in enumerate(orders.get("attacks", [])):
        path = f"orders.attacks[{index}]"
        problems += _attack_problems(state, army, side, attack, path, engaged, used, attackers)
    for index, plan in enumerate(orders.get("engagements", [])):
        problems += _engagement_problems(state, army, plan, f"orders.engagements[{index}]")
    named = orders.get("overrun_generals", [])
    for index, general_id in enumerate(named):
        general = state["generals"].get(general_id)
        if general_id in named[:index]:
            problems.append(Problem("illegal.overrun.twice", f"orders.overrun_generals[{index}]", "named twice"))
        elif general is None or side_of(state, general["army"]) == side or general["status"] != "active":
            problems.append(
                Problem(
                    "illegal.overrun.general",
                    f"orders.overrun_generals[{index}]",
                    f"{general_id!r} is not an enemy general on the field",
                )
            )
        elif on_table(state) and (why := overrun_problem(state, general_id, orders.get("attacks", []))):
            problems.append(Problem("illegal.overrun.not-in-the-way", f"orders.overrun_generals[{index}]", why))
    return problems


def _attack_problems(
    state: Mapping[str, Any],
    army: str,
    side: str,
    attack: Mapping[str, Any],
    path: str,
    engaged: set[str],
    used: set[str],
    attackers: set[str],
) -> list[Problem]:
    problems = []
    divisions = state["divisions"]
    division, target = attack["division"], attack["target"]
    if division not in divisions or divisions[division]["army"] != army:
        mine = ", ".join(d for d in state["armies"][army]["divisions"] if not divisions[d]["spent"])
        return [
            Problem(
                "illegal.attack.division", f"{path}.division", f"{division!r} is not one of your divisions ({mine})"
            )
        ]
    if divisions[division]["spent"]:
        return [Problem("illegal.attack.spent", f"{path}.division", f"{division} is spent and takes no further part")]
    if division in attackers:
        problems.append(Problem("illegal.attack.twice", f"{path}.division", f"{division} already attacks this phase"))
    attackers.add(division)
    if target not in divisions or side_of(state, divisions[target]["army"]) == side or divisions[target]["spent"]:
        return [
            *problems,
            Problem("illegal.attack.target", f"{path}.target", f"{target!r} is not an enemy division on the field"),
        ]
    if "pairs" not in attack:
        if not on_table(state):
            return [*problems, Problem("illegal.attack.pairs", f"{path}.pairs", NAME_THE_PAIRS)]
        attack = with_pairs(state, attack)
        if not attack["pairs"]:
            no_contact = [p for p in table_problems(state, attack, path) if p.code == "illegal.attack.no-contact"]
            return [*problems, *(no_contact or [_no_pairs(state, attack, path)])]
    own_bases: list[str] = []
    for number, pair in enumerate(attack["pairs"]):
        where = f"{path}.pairs[{number}]"
        own, enemy = pair
        if own not in state["bases"] or state["bases"][own]["division"] != division or not is_standing(state, own):
            problems.append(Problem("illegal.attack.base", where, f"{own!r} is not a standing base of {division}"))
        elif state["config"]["attack_needs_move"] and state["bases"][own]["brigade"] not in state["moved"]:
            problems.append(
                Problem(
                    "illegal.attack.not-moved",
                    where,
                    f"{own}'s brigade had no move order this turn; an attack is the end of a move "
                    "(give it a move order in your moves phase)",
                )
            )
        if enemy not in state["bases"] or state["bases"][enemy]["division"] != target or not is_standing(state, enemy):
            problems.append(Problem("illegal.attack.enemy", where, f"{enemy!r} is not a standing base of {target}"))
        for base in (own, enemy):
            if base in used or base in engaged:
                problems.append(
                    Problem("illegal.attack.paired", where, f"{base} is already in contact with another base")
                )
            used.add(base)
        own_bases.append(own)
    paired = {b for pair in attack["pairs"] for b in pair}
    problems += _support_problems(state, attack.get("support", []), paired | engaged, f"{path}.support", paired)
    problems += _round_problems(attack.get("rounds", []), own_bases, f"{path}.rounds")
    if on_table(state) and not problems:
        problems += table_problems(state, attack, path)
    return problems


NAME_THE_PAIRS = (
    "name the pairs, [your base, enemy base]: the referee pairs the bases itself only on its table "
    "(option battlefield: table)"
)


def with_pairs(state: Mapping[str, Any], attack: Mapping[str, Any]) -> dict[str, Any]:
    """Return the attack with its pairs: the player's, else (on the referee's table) those the
    positions give, as `table_pairs` finds them, marked `paired_by_referee`; an attack that leaves
    out its support as well gets the support the positions give (`table_support`)."""
    if "pairs" in attack:
        return dict(attack)
    supporters = {b for entry in attack.get("support", []) for b in entry["by"]}
    pairs = table_pairs(state, attack["division"], attack["target"], supporters)
    paired = {**attack, "pairs": pairs, "paired_by_referee": True}
    if "support" not in attack:
        paired["support"] = table_support(state, attack["division"], pairs)
    return paired


def table_support(state: Mapping[str, Any], division: str, pairs: Sequence[Sequence[str]]) -> list[dict[str, Any]]:
    """Return the support the table gives an attack's pairs: each base of `division` standing in no
    pair that touches a paired base's flank or rear once the line has conformed (W beside X, L396;
    "directly behind", L426) supports it, the first such base in the pairs' order when it touches two.
    A supporter facing an enemy front to front within 1BW still gives none when the bases fight (L426)."""
    where = poses_now(state)
    for own, enemy in pairs:
        where[own] = conform_pose(state, own, enemy, where)
    fighting = _engaged(state) | {b for pair in pairs for b in pair}
    support: dict[str, list[str]] = {}
    for friend in standing_bases(state, division):
        if friend in fighting or friend not in where:
            continue
        backed = next((own for own, _ in pairs if supports(state, own, friend, where)), None)
        if backed is not None:
            support.setdefault(backed, []).append(friend)
    return [{"base": own, "by": support[own]} for own, _ in pairs if own in support]


def table_pairs(
    state: Mapping[str, Any], division: str, target: str, leave_out: set[str] | frozenset[str] = frozenset()
) -> list[list[str]]:
    """Return the pairs the table gives an attack by `division` on `target`, [own base, enemy base].

    The book leaves pairing to its missing pages (pp. 23-28); what it shows (L378-L382, L394-L399) is
    the attacking line conforming, each base against the enemy base before it, "the bases do NOT have
    to line up exactly opposite". So each base of the division free to attack (standing, in no pair,
    its brigade moved where option attack_needs_move holds, not in `leave_out`, the declared
    supporters) is paired with a free enemy base it touches or reaches as the line conforms (up to
    2BW, L382) without ending on another base: the nearest pairs first (a conform of 0 before one of
    1BW; between equals, the nearer centres, the most frontal), each base in one pair at most.
    """
    engaged = _engaged(state)
    needs_move = state["config"]["attack_needs_move"]
    where = poses_now(state)
    mine = [
        b
        for b in standing_bases(state, division)
        if b in where
        and b not in engaged
        and b not in leave_out
        and (not needs_move or state["bases"][b]["brigade"] in state["moved"])
    ]
    theirs = [b for b in standing_bases(state, target) if b in where and b not in engaged]
    reach = CONFORM_BW * bw(state) + TOUCH_MM
    candidates = []
    for own in mine:
        for enemy in theirs:
            end = conform_pose(state, own, enemy)
            carried = math.dist((end.x, end.y), (where[own].x, where[own].y))
            apart = math.dist((where[enemy].x, where[enemy].y), (where[own].x, where[own].y))
            if carried <= reach:
                candidates.append((round(carried, 1), round(apart, 1), mine.index(own), theirs.index(enemy)))
    pairs: dict[str, str] = {}
    for _, _, own_index, enemy_index in sorted(candidates):
        own, enemy = mine[own_index], theirs[enemy_index]
        if own in pairs or enemy in pairs.values():
            continue
        end = conform_pose(state, own, enemy, where)
        if any(b != enemy for b in blocking(state, own, end, where)) and end != where[own]:
            continue
        where[own] = end
        pairs[own] = enemy
    return [[own, pairs[own]] for own in mine if own in pairs]


def _no_pairs(state: Mapping[str, Any], attack: Mapping[str, Any], path: str) -> Problem:
    return Problem(
        "illegal.attack.no-pairs",
        f"{path}.pairs",
        f"no base of {attack['division']} free to attack touches or reaches a free base of {attack['target']} "
        "as the line conforms (up to 2BW, L382): move into contact first, or name the pairs",
    )


def table_problems(state: Mapping[str, Any], attack: Mapping[str, Any], path: str) -> list[Problem]:
    """Hold an attack's claims to the referee's table (option battlefield: table).

    The attack needs a first contact: a base of the division touching a base of the target.
    Each pair touches, or the attacking base reaches its enemy as the line conforms, up to 2BW
    (L382); each supporter stands beside or directly behind its base once the line has
    conformed (L396, L426); the target is caught in march column exactly when it is in defile.
    """
    division, target = attack["division"], attack["target"]
    mine = [b for b in standing_bases(state, division) if "pose" in state["bases"][b]]
    theirs = [b for b in standing_bases(state, target) if "pose" in state["bases"][b]]
    titles = {d: state["divisions"][d]["title"] for d in (division, target)}
    if not any(touching_bases(state, outline_of(state, b), theirs) for b in mine):
        nearest = min(((outline_of(state, a).distance(outline_of(state, e)), a, e) for a in mine for e in theirs),
                      default=None)  # fmt: skip
        apart = f": the nearest are {nearest[1]} and {nearest[2]}, {in_bw(state, nearest[0])} apart" if nearest else ""
        return [
            Problem(
                "illegal.attack.no-contact",
                path,
                f"no base of {titles[division]} touches {titles[target]} on the table{apart}; an attack opens "
                "from contact made by a move (move into contact in your moves phase)",
            )
        ]
    problems = []
    where = poses_now(state)
    reach = CONFORM_BW * bw(state)
    for number, (own, enemy) in enumerate(attack["pairs"]):
        end = conform_pose(state, own, enemy)
        distance = math.dist((end.x, end.y), (where[own].x, where[own].y))
        if distance > reach + TOUCH_MM:
            problems.append(
                Problem(
                    "illegal.attack.out-of-reach",
                    f"{path}.pairs[{number}]",
                    f"{own} cannot reach {enemy}: conforming would carry it {in_bw(state, distance)}, and the line "
                    "conforms by wheeling forward up to 2BW (L382)",
                )
            )
        blocked = [b for b in blocking(state, own, end, where) if b != enemy]
        if blocked and distance > TOUCH_MM:
            problems.append(
                Problem(
                    "illegal.attack.blocked",
                    f"{path}.pairs[{number}]",
                    f"{own} cannot conform onto {enemy}: it would end on {', '.join(blocked)}",
                )
            )
        where[own] = end
    problems += _beside_problems(state, attack.get("support", []), where, f"{path}.support")
    if attack.get("column") and state["divisions"][target].get("formation") != "defile":
        problems.append(
            Problem(
                "illegal.attack.column",
                f"{path}.column",
                f"{titles[target]} is deployed, not in march column (defile): leave column out, the referee "
                "reads it from the table",
            )
        )
    return problems


def _beside_problems(
    state: Mapping[str, Any], support: Sequence[Mapping[str, Any]], where: Mapping[str, Any], path: str
) -> list[Problem]:
    """Return the supporters not beside or directly behind the base they support on the table."""
    problems = []
    for index, entry in enumerate(support):
        for supporter in entry["by"]:
            if supporter in where and entry["base"] in where and not supports(state, entry["base"], supporter, where):
                problems.append(
                    Problem(
                        "illegal.support.not-beside",
                        f"{path}[{index}].by",
                        f"{supporter} does not stand beside or directly behind {entry['base']} on the table "
                        "(support is a friend touching its flank or rear, L396, L426)",
                    )
                )
    return problems


def overrun_problem(state: Mapping[str, Any], general_id: str, attacks: Sequence[Mapping[str, Any]]) -> str | None:
    """Return why a named general is not in the way of the advance (his base touching or under an
    attacking base once its line has conformed), or None when he is."""
    general = state["generals"][general_id]
    if "pose" not in general:
        return None
    shape = general_outline(state, general_id)
    for attack in attacks:
        where = poses_now(state)
        for own, enemy in with_pairs(state, attack)["pairs"]:
            if own in where and enemy in where:
                where[own] = conform_pose(state, own, enemy)
        for base in standing_bases(state, attack["division"]):
            if base in where and outline(where[base], size_of(state, base)).distance(shape) <= TOUCH_MM:
                return None
    return f"{general_id} stands in the way of none of your attacking bases on the table"


def _engagement_problems(state: Mapping[str, Any], army: str, plan: Mapping[str, Any], path: str) -> list[Problem]:
    engagement = next((e for e in state["engagements"] if e["id"] == plan["engagement"]), None)
    if engagement is None:
        ids = ", ".join(e["id"] for e in state["engagements"]) or "none"
        return [
            Problem("illegal.engagement.unknown", f"{path}.engagement", f"no engagement {plan['engagement']!r} ({ids})")
        ]
    if not state["step"].startswith("tempo-") or engagement["fought_turn"] == state["turn"]:
        return [
            Problem(
                "illegal.engagement.not-now",
                f"{path}.engagement",
                f"{engagement['id']} is fought in the contact phase of the side holding the Tempo, once a turn",
            )
        ]
    if all(state["divisions"][d]["army"] != army for d in engagement["divisions"]):
        return [
            Problem(
                "illegal.engagement.not-yours",
                f"{path}.engagement",
                f"{engagement['id']} involves none of your divisions",
            )
        ]
    own = [b for p in live_pairs(state, engagement) for b in p["bases"] if army_of_base(state, b) == army]
    paired = {b for p in live_pairs(state, engagement) for b in p["bases"]}
    problems = [
        *_support_problems(state, plan.get("support", []), paired | _engaged(state), f"{path}.support", paired),
        *_round_problems(plan.get("rounds", []), own, f"{path}.rounds"),
    ]
    if on_table(state) and not problems:
        problems += _beside_problems(state, plan.get("support", []), poses_now(state), f"{path}.support")
    return problems


def _engaged(state: Mapping[str, Any]) -> set[str]:
    return {b for e in state["engagements"] for p in live_pairs(state, e) for b in p["bases"]}


def _support_problems(
    state: Mapping[str, Any], support: Sequence[Mapping[str, Any]], fighting: set[str], path: str, paired: set[str]
) -> list[Problem]:
    """Return what is wrong with declared support: `paired` are the bases it may back, `fighting` those in a pair."""
    problems = []
    supporters_fight = setting(state, "fighting_bases_support")
    for index, entry in enumerate(support):
        base = entry["base"]
        if base not in paired:
            problems.append(Problem("illegal.support.base", f"{path}[{index}].base", f"{base!r} is not in a pair here"))
            continue
        for supporter in entry["by"]:
            if (
                supporter == base
                or supporter not in state["bases"]
                or state["bases"][supporter]["division"] != state["bases"][base]["division"]
                or not is_standing(state, supporter)
            ):
                problems.append(
                    Problem(
                        "illegal.support.by",
                        f"{path}[{index}].by",
                        f"{supporter!r} cannot support {base}: a supporter is another standing base of its division",
                    )
                )
            elif not supporters_fight and supporter in fighting:
                problems.append(
                    Problem(
                        "illegal.support.fighting",
                        f"{path}[{index}].by",
                        f"{supporter} is itself fighting in a pair, so it cannot support {base} "
                        "(option fighting_bases_support)",
                    )
                )
    return problems


def _round_problems(rounds: Sequence[Sequence[str]], own: Sequence[str], path: str) -> list[Problem]:
    problems = []
    for number, order in enumerate(rounds):
        for index, base in enumerate(order):
            if base not in own:
                problems.append(
                    Problem(
                        "illegal.round.base",
                        f"{path}[{number}][{index}]",
                        f"{base!r} is not one of your bases in this engagement ({', '.join(own) or 'none'})",
                    )
                )
    return problems
