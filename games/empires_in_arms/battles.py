"""A combat's life in the state: declared (overwhelming numbers and the defender's withdrawal,
12.3.10), fought round by round (combat.py) with each side's table and guard commitment sealed
and revealed together, losses shared between nationalities (allied proposals sealed and
compared, competitive rolls when they differ or are missing), and leader casualties in the same
adjudication that ends it (12.7).

Rounds need no mail when both commanders have a sealed standing policy naming their table: the
module fights them at once, revealing each policy with its proof the first time it is used.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from games.empires_in_arms import combat as fight
from games.empires_in_arms import land, leaders, losses, words
from games.empires_in_arms.combat import SIDES
from games.empires_in_arms.economy import add_months
from games.empires_in_arms.guard import commitment_problem
from referee.kit import Dice, Event, NotSupplied, reveal_choices, seal_choice, sealed_box

MAX_ROUNDS_IN_ONE_GO = 40


def date_of(state: Mapping[str, Any], turn: int) -> str:
    """Return the month (YYYY-MM) of `turn`: one turn a month from the game's start."""
    year, month = (int(part) for part in state["start"].split("-"))
    year, index = divmod(year * 12 + month - 1 + turn - 1, 12)
    return f"{year:04d}-{index + 1:02d}"


def leaders_with(state: Mapping[str, Any], unit_ids: list[str]) -> list[str]:
    """Return the active leaders stacked with these units."""
    return sorted(
        name for name, leader in state["leaders"].items() if leader["with"] in unit_ids and leader["status"] == "active"
    )


def strategic_rating(state: Mapping[str, Any], unit_ids: list[str], date: str, at_home_of_france: bool) -> int | None:
    """Return the commanding strategic rating of a force: its best active leader's (Napoleon's by
    date, 12.3.7), else the best corps rating (the corps leader of 12.3.7, or a lone corps')."""
    best: int | None = None
    for name in leaders_with(state, unit_ids):
        leader = state["leaders"][name]
        rating = leader["strategic"]
        if state["rules"]["napoleon_ratings"] and name == "napoleon":
            rating, _ = leaders.napoleon_ratings(rating, leader["tactical"], date, at_home_of_france)
        best = rating if best is None else max(best, rating)
    if best is not None:
        return best
    corps = [state["units"][u].get("strategic") for u in unit_ids if state["units"][u].get("strategic") is not None]
    if len(corps) == 1 or (corps and state["rules"]["corps_leaders"]):
        return max(corps)
    return None


def side_morale(state: Mapping[str, Any], unit_ids: list[str], date: str) -> int:
    """Return a side's morale level in tenths, British-trained corps at 4.0 (12.3.2): its lowest
    unit's, or with the option `side_morale: weighted` the mean of its units' weighted by their
    factors (ships), rounded down to the tenth (the chapter does not say; the core rules do)."""
    levels = []
    weights = []
    for unit_id in unit_ids:
        unit = state["units"][unit_id]
        level = round(float(unit.get("morale", 0)) * 10)
        if state["rules"]["british_training"]:
            minor = state["minors"].get(unit["nation"], {})
            level = round(
                land.trained_morale(
                    unit["nation"], minor.get("british_since"), date, unit["type"] == "garrison", level / 10
                )
                * 10
            )
        levels.append(level)
        weights.append(unit["ships"] if "ships" in unit else sum(unit.get("factors", {}).values()))
    if not levels:
        return 0
    if state.get("side_morale", "lowest") == "weighted" and sum(weights) > 0:
        return sum(level * weight for level, weight in zip(levels, weights, strict=True)) // sum(weights)
    return min(levels)


def declare(
    state: dict[str, Any], player: str, order: Mapping[str, Any], turn: int, dice: Dice
) -> tuple[dict[str, Any], list[Event]]:
    """Return the state with a declared combat queued (or the defender withdrawn), and the events."""
    serial = state["serial"] + 1
    cid = f"c{serial}"
    attackers, defenders = list(order["attackers"]), list(order["defenders"])
    kind = order["kind"]
    sides = {
        "attacker": _side(state, attackers),
        "defender": _side(state, defenders),
    }
    new = {**state, "serial": serial}
    events: list[Event] = []
    date = date_of(state, turn)
    combat = {
        "id": cid,
        "turn": turn,
        "kind": kind,
        "area": order.get("area", state["units"][attackers[0]]["area"]),
        "terrain": order.get("terrain", "clear"),
        "sides": sides,
        "round": 1,
        "morale": {side: side_morale(state, sides[side]["units"], date) for side in SIDES},
        "morale_loss": {side: 0 for side in SIDES},
        "broken": {side: False for side in SIDES},
        "guard_used": {side: False for side in SIDES},
        "owed": {side: {} for side in SIDES},
        "stage": "round",
        "leaders": {side: leaders_with(state, sides[side]["units"]) for side in SIDES},
    }
    if kind != "naval":
        strengths = {side: fight.strength(fight.contingents(combat, state["units"], side)) for side in SIDES}
        fought = land.combat_kind(
            kind, strengths["attacker"], strengths["defender"], state["rules"]["overwhelming_numbers"]
        )
        if fought != kind:
            combat["kind"] = fought
            events.append(
                Event(
                    "combat.overwhelming",
                    f"combat {cid} at {combat['area']}: {strengths['attacker']} against {strengths['defender']} "
                    "strength "
                    "factors, 5:1 or better: it is fought as trivial combat (12.3.10)",
                    {"combat": cid, "strengths": strengths},
                )
            )
            if strengths["attacker"] >= 5 * strengths["defender"]:
                new, withdrew, happened = _try_withdrawal(new, combat, date, dice)
                events += happened
                if withdrew:
                    return new, events
    events.insert(
        0,
        Event(
            "combat.declared",
            f"{player} attacks at {combat['area']} ({combat['kind']} combat {cid}): "
            f"{', '.join(attackers)} against {', '.join(defenders)}",
            {"combat": cid, "kind": combat["kind"], "attackers": attackers, "defenders": defenders},
        ),
    )
    new["combats"] = [*new["combats"], combat]
    return new, events


def _side(state: Mapping[str, Any], unit_ids: list[str]) -> dict[str, Any]:
    owners = sorted({state["powers"][state["units"][u]["power"]]["player"] for u in unit_ids})
    commander = state["powers"][state["units"][unit_ids[0]]["power"]]["player"]
    return {"units": unit_ids, "players": owners, "commander": commander}


def _try_withdrawal(
    state: dict[str, Any], combat: dict[str, Any], date: str, dice: Dice
) -> tuple[dict[str, Any], bool, list[Event]]:
    """The outnumbered defender's withdrawal attempt before trivial combat (12.3.10), when its
    commander's sealed standing policy asks for it; cavalry withdrawals add +1 (12.3.3)."""
    commander = combat["sides"]["defender"]["commander"]
    state, policy, events = use_policy(state, commander)
    if not policy or not policy.get("withdraw_if_outnumbered"):
        return state, False, events
    units = combat["sides"]["defender"]["units"]
    rating = strategic_rating(state, units, date, combat["area"] in state["powers"].get("france", {}).get("home", []))
    if rating is None:
        events.append(
            Event(
                "combat.no-withdrawal",
                f"combat {combat['id']}: the defender has no strategic rating to withdraw with",
                {"combat": combat["id"]},
            )
        )
        return state, False, events
    if state["rules"]["cavalry_withdrawals"]:
        defending = fight.totals(fight.contingents(combat, state["units"], "defender"))
        attacking = fight.totals(fight.contingents(combat, state["units"], "attacker"))
        moves = [state["units"][u].get("movement", 0) for u in units]
        rating = land.withdrawal_rating(rating, moves, land.is_all_cavalry(defending), land.is_all_cavalry(attacking))
    roll = dice.roll(state["withdrawal_die"], label=f"combat/{combat['id']}/withdrawal")[0]
    ok = land.withdraws(roll, rating)
    events.append(
        Event(
            "combat.withdrawal",
            f"combat {combat['id']}: the outnumbered defender tries to withdraw, needing {rating} or less: "
            f"rolled {roll}, "
            + ("it withdraws and no combat is fought (12.3.10)" if ok else "it must fight the trivial combat"),
            {"combat": combat["id"], "rating": rating, "roll": roll, "withdrew": ok},
        )
    )
    return state, ok, events


def _worded(event: Event, said: str) -> Event:
    """Return a sealed.choice event telling its chooser their choice in words."""
    return replace(event, text=f"You sealed your choice for {event.data['box']}: {said}")


def use_policy(state: dict[str, Any], player: str) -> tuple[dict[str, Any], dict[str, Any] | None, list[Event]]:
    """Return the state, `player`'s standing policy (None without one) and, the first time it is
    used, the public event revealing it with its opening (anyone can check it against the
    commitment in the record of the phase it was sealed in)."""
    kept = state["policies"].get(player)
    if kept is None:
        return state, None, []
    if kept.get("revealed"):
        return state, kept["opening"]["value"], []
    box = {"name": f"policy-{player}", "from": [player], "sealed": {player: kept["opening"]}}
    _, event = reveal_choices(box)
    event = Event(
        "policy.revealed",
        f"{player}'s sealed standing policy is used, and revealed: {words.policy(kept['opening']['value'])}",
        event.data,
    )
    policies = {**state["policies"], player: {**kept, "revealed": True}}
    return {**state, "policies": policies}, kept["opening"]["value"], [event]


def policy_choice(
    policy: Mapping[str, Any] | None, combat: Mapping[str, Any], side: str, state: Mapping[str, Any]
) -> dict[str, Any] | None:
    """Return a side's round choices from its commander's standing policy, or None when the policy
    cannot fight this round for them (no table named)."""
    results = state["supplied"].get("combat_results") or {"columns": {}}
    if not policy or policy.get("table") not in results["columns"]:
        return None
    choice: dict[str, Any] = {"table": policy["table"], "bombard": bool(policy.get("bombard", True)), "guard": None}
    pledge = policy.get("guard")
    if pledge and combat["round"] in pledge.get("rounds", []) and not combat["guard_used"][side]:
        contingents = fight.contingents(combat, state["units"], side)
        if commitment_problem(contingents, pledge["nation"], pledge["shift"]) is None:
            choice["guard"] = {"nation": pledge["nation"], "shift": pledge["shift"]}
    return choice


def awaited(state: Mapping[str, Any]) -> tuple[str, list[str]] | None:
    """Return the open combat phase's name and active players, or None when no combat waits."""
    if not state["combats"]:
        return None
    combat = state["combats"][0]
    if combat["stage"] == "round":
        # Whether a commander has a policy is public (its sealing is announced); what it says is not.
        need = [
            combat["sides"][side]["commander"]
            for side in SIDES
            if combat["sides"][side]["commander"] not in state["policies"]
        ]
        return f"combat-{combat['id']}-round-{combat['round']}", sorted(set(need))
    return f"losses-{combat['id']}-round-{combat['round'] - 1}", sorted(combat["proposers"])


def _choice(
    state: Mapping[str, Any], combat: Mapping[str, Any], side: str, given: Mapping[str, Any] | None
) -> dict[str, Any]:
    """Return a side's round choices as ordered (the default table when a commander sent none)."""
    if given and given.get("table"):
        return {"table": given["table"], "bombard": bool(given.get("bombard", True)), "guard": given.get("guard")}
    results = state["supplied"].get("combat_results")
    if results is None:
        raise NotSupplied(
            "combat_results",
            "a combat round needs the Combat Resolution Table",
            ("referee supply GAMEDIR combat_results.yaml",),
        )
    return {"table": results["default_table"], "bombard": True, "guard": None}


def run_round(
    state: dict[str, Any], orders: Mapping[str, Mapping[str, Any]], dice: Dice
) -> tuple[dict[str, Any], list[Event]]:
    """Fight the open combat's round with the commanders' orders (or their standing policies);
    seal and reveal the choices together; then share the losses or ask the allies for proposals,
    and end the combat when a side breaks or the last round is fought."""
    combat = state["combats"][0]
    events: list[Event] = []
    choices: dict[str, Any] = {}
    naval = fight.is_naval(combat)
    box = sealed_box(f"combat-{combat['id']}-round-{combat['round']}", [combat["sides"][s]["commander"] for s in SIDES])
    for side in SIDES:
        commander = combat["sides"][side]["commander"]
        given = orders.get(commander)
        if given is None or not given.get("table"):
            state, policy, happened = use_policy(state, commander)
            events += happened
            choices[side] = policy_choice(policy, combat, side, state) or _choice(state, combat, side, None)
        else:
            choices[side] = _choice(state, combat, side, given)
        box, sealed = seal_choice(box, commander, choices[side], dice)
        said = words.round_choice(choices[side], naval)
        events += [_worded(e, said) for e in sealed if e.kind == "sealed.choice"]
    shown, revealed = reveal_choices(box)
    events.append(replace(revealed, text=words.sealed_text(box["name"], shown, lambda c: words.round_choice(c, naval))))
    fought, units, happened = fight.fight_round(
        combat, state["units"], choices, combat["morale"], state["supplied"], state["rules"], dice
    )
    events += happened
    state = {**state, "units": units}
    fought["round"] = combat["round"] + 1
    fought, pending = _owed(state, fought)
    fought["pending"] = pending
    fought["owed"] = {side: {} for side in SIDES}
    limit = int(state["supplied"]["combat_results"]["rounds"].get(fought["kind"], 1))
    fought["ended"] = any(fought["broken"].values()) or fought["round"] > limit
    if fought["ended"]:
        events.append(Event("combat.ended", _end_text(fought), {"combat": fought["id"], "broken": fought["broken"]}))
        if state["rules"]["leader_casualties"]:
            state, happened = _casualties(state, fought, dice)
            events += happened
    for side, share in list(pending.items()):
        if not share["proposers"]:
            state, happened = _apply(state, fought, side, share["shares"])
            events += happened
            del pending[side]
    fought["proposers"] = sorted({p for share in pending.values() for p in share["proposers"]})
    fought["stage"] = "losses" if pending else "round"
    return _after(state, fought), events


def _end_text(combat: Mapping[str, Any]) -> str:
    broken = [side for side in SIDES if combat["broken"][side]]
    how = f"the {' and the '.join(broken)} broke" if broken else "the last round is fought"
    return f"combat {combat['id']} at {combat['area']} ends: {how}"


def _owed(state: Mapping[str, Any], combat: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Return the combat and each side's losses to share this round: the rounded shares, and who
    must propose (nobody when one nationality, or proportional shares that round out)."""
    pending: dict[str, Any] = {}
    naval = fight.is_naval(combat)
    proportional = state["rules"]["proportional_naval_losses" if naval else "proportional_land_losses"]
    for side in SIDES:
        count = combat["owed"][side].get("count", 0)
        if count <= 0:
            continue
        strengths = {n: sum(f.values()) for n, f in fight.contingents(combat, state["units"], side).items()}
        strengths = {n: s for n, s in strengths.items() if s > 0}
        count = min(count, sum(strengths.values()))
        if count <= 0:
            continue
        shares = losses.proportional_shares(strengths, count)
        exact = losses.odd_losses(strengths, count) == 0
        if len(strengths) == 1:
            proposers: list[str] = []
            shares = {nation: count for nation in strengths}
        elif proportional and exact:
            proposers = []
        elif proportional:
            proposers = sorted({state["powers"][_power_of(state, combat, side, n)]["player"] for n in strengths})
        else:
            proposers = [combat["sides"][side]["commander"]]
        pending[side] = {"count": count, "strengths": strengths, "shares": shares, "proposers": proposers}
        if combat["owed"][side].get("spare_militia"):
            pending[side]["spare_militia"] = min(count, int(combat["owed"][side]["spare_militia"]))
    return combat, pending


def _power_of(state: Mapping[str, Any], combat: Mapping[str, Any], side: str, nation: str) -> str:
    return next(
        state["units"][u]["power"] for u in combat["sides"][side]["units"] if state["units"][u]["nation"] == nation
    )


def _apply(
    state: dict[str, Any],
    combat: Mapping[str, Any],
    side: str,
    split: Mapping[str, int],
    chosen: Mapping[str, Mapping[str, int]] | None = None,
) -> tuple[dict[str, Any], list[Event]]:
    spare = int((combat.get("pending") or {}).get(side, {}).get("spare_militia", 0))
    units, taken = fight.take_losses(combat, state["units"], side, split, spare, chosen)
    shown = "; ".join(
        f"{nation} {sum(kinds.values())} ({', '.join(f'{k} {v}' for k, v in kinds.items())})"
        for nation, kinds in taken.items()
    )
    event = Event(
        "combat.losses",
        f"combat {combat['id']}: the {side} loses {sum(split.values())}: {shown or 'nothing'}",
        {"combat": combat["id"], "side": side, "split": dict(split), "taken": taken},
    )
    return {**state, "units": units}, [event]


def _casualties(state: dict[str, Any], combat: Mapping[str, Any], dice: Dice) -> tuple[dict[str, Any], list[Event]]:
    present = {
        side: [n for n in combat["leaders"][side] if state["leaders"][n]["status"] == "active"] for side in SIDES
    }
    fates, events = leaders.leader_casualties(combat["id"], present, dice)
    kept = dict(state["leaders"])
    date = date_of(state, combat["turn"])
    for name, fate in fates.items():
        if fate["fate"] == "killed":
            kept[name] = {**kept[name], "status": "killed"}
        else:
            kept[name] = {**kept[name], "status": "wounded", "back": add_months(date, fate["months"] + 1)}
    return {**state, "leaders": kept}, events


def _after(state: dict[str, Any], combat: dict[str, Any]) -> dict[str, Any]:
    """Return the state with the combat updated, or removed once it has ended and its losses are taken."""
    rest = state["combats"][1:]
    if combat["ended"] and combat["stage"] == "round":
        return {**state, "combats": rest}
    return {**state, "combats": [combat, *rest]}


def settle_losses(
    state: dict[str, Any], orders: Mapping[str, Mapping[str, Any]], dice: Dice
) -> tuple[dict[str, Any], list[Event]]:
    """Share each side's losses from the allies' proposals, sealed and revealed together: applied
    when all agree and fit the rule, else decided by the referee's competitive rolls (12.2.5,
    12.3.6); without proportional losses, the commander's proposal."""
    combat = dict(state["combats"][0])
    events: list[Event] = []
    naval = fight.is_naval(combat)
    proportional = state["rules"]["proportional_naval_losses" if naval else "proportional_land_losses"]
    for side, share in sorted(combat["pending"].items()):
        given = {
            p: orders[p]["split"] for p in share["proposers"] if p in orders and orders[p].get("split") is not None
        }
        if given:
            box = sealed_box(f"losses-{combat['id']}-{side}-round-{combat['round'] - 1}", sorted(given))
            for player, proposal in sorted(given.items()):
                box, sealed = seal_choice(box, player, proposal, dice)
                events += [_worded(e, words.split(proposal)) for e in sealed if e.kind == "sealed.choice"]
            shown, revealed = reveal_choices(box)
            events.append(replace(revealed, text=words.sealed_text(box["name"], shown, words.split)))
        valid = {
            p: s
            for p, s in given.items()
            if not losses.split_problems(s, share["strengths"], share["count"], proportional)
        }
        split: Mapping[str, int] | None
        if proportional:
            split = losses.agreed(valid, share["proposers"])
        else:
            split = valid.get(share["proposers"][0])
        if split is None:
            procedure = state["supplied"].get("competitive_rolls")
            if procedure is None:
                raise NotSupplied(
                    "competitive_rolls",
                    "the allies' loss proposals differ or are missing",
                    ("referee supply GAMEDIR competitive_rolls.yaml",),
                )
            nations = [n for n in share["strengths"]]
            rolls, rounds = fight.competitive_rolls(
                nations, procedure, f"combat/{combat['id']}/odd-losses/{side}", dice
            )
            to_loser = procedure.get("odd_loss_to", "loser") == "loser"
            split = losses.settle_by_rolls(
                share["strengths"], share["count"], rolls, lowest_takes=procedure["higher_wins"] == to_loser
            )
            missing = [p for p in share["proposers"] if p not in given]
            why = f"no proposal from {', '.join(missing)}" if missing else "the proposals differ"
            events.append(
                Event(
                    "losses.competitive",
                    f"combat {combat['id']}, the {side}'s odd losses: {why}, so competitive rolls decide: "
                    + "; ".join(f"{n} {'/'.join(map(str, r))}" for n, r in sorted(rolls.items())),
                    {"combat": combat["id"], "side": side, "rolls": rolls, "rounds": rounds, "split": dict(split)},
                )
            )
        state, happened = _apply(state, combat, side, split, _types(state, combat, side, orders))
        events += happened
    combat.update(pending={}, proposers=[], stage="round")
    return _after(state, combat), events


def _types(
    state: Mapping[str, Any], combat: Mapping[str, Any], side: str, orders: Mapping[str, Mapping[str, Any]]
) -> dict[str, dict[str, int]]:
    """Return the factor types each controlling player chose for their own nationalities (12.3.6)."""
    chosen: dict[str, dict[str, int]] = {}
    for player, order in orders.items():
        for nation, kinds in (order.get("types") or {}).items():
            if (
                isinstance(kinds, Mapping)
                and state["powers"][_power_of(state, combat, side, nation)]["player"] == player
            ):
                chosen[nation] = {str(k): int(v) for k, v in kinds.items()}
    return chosen


def advance(state: dict[str, Any], dice: Dice) -> tuple[dict[str, Any], list[Event]]:
    """Fight every round no one needs to order (both commanders have standing policies); return
    the state once a combat waits on a player, or none is left."""
    events: list[Event] = []
    for _ in range(MAX_ROUNDS_IN_ONE_GO):
        found = awaited(state)
        if found is None or found[1]:
            break
        state, happened = run_round(state, {}, dice)
        events += happened
    return state, events
