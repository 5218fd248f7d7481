"""Where an Empires in Arms player stands, and their own order form, drawn from their view."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.empires_in_arms import battles, guard, words
from games.empires_in_arms import combat as fight
from games.empires_in_arms.rules import phase, view
from referee.kit import Example, Fact


def standing(state: Mapping[str, Any], player: str) -> list[Fact]:
    """Return where `player` stands: the date, their powers and units, the combat waiting, their policy."""
    seen = view(state, player)
    facts = [Fact("Date", seen["date"]), Fact("Your powers", ", ".join(seen["your_powers"]) or "none")]
    mine = [
        f"{uid} ({u['nation']} {u['type']} at {u['area']}): "
        + (f"{u['ships']} ships" if "ships" in u else ", ".join(f"{k} {v}" for k, v in u["factors"].items() if v))
        for uid, u in seen["units"].items()
        if u["power"] in seen["your_powers"] and not u.get("demobilised")
    ]
    if mine:
        facts.append(Fact("Your units", str(len(mine)), tuple(mine)))
    if seen["options_in_play"]:
        facts.append(Fact("Optional rules in play", "", tuple(seen["options_in_play"])))
    policy = seen["policies"].get(player)
    if policy is not None:
        facts.append(
            Fact(
                "Your standing policy",
                "revealed" if policy["revealed"] else "sealed",
                (words.policy(policy["policy"]),),
            )
        )
    for who, kept in sorted(seen["policies"].items()):
        if who == player:
            continue
        if kept.get("revealed"):
            facts.append(Fact(f"{who}'s standing policy", "revealed", (words.policy(kept["policy"]),)))
        else:
            facts.append(Fact(f"{who}'s standing policy", "sealed: it fights their rounds without their mail"))
    for combat in seen["combats"]:
        facts.append(
            Fact(
                f"Combat {combat['id']} at {combat['area']}",
                f"{combat['kind']}, "
                + (
                    f"losses of round {combat['round'] - 1} to share"
                    if combat["stage"] == "losses"
                    else f"round {combat['round']}"
                ),
                tuple(_side_line(combat, side) for side in ("attacker", "defender")),
            )
        )
        for side, share in sorted((combat.get("losses_to_share") or {}).items()):
            facts.append(
                Fact(f"Losses to share (combat {combat['id']}, {side})", str(share["count"]), _share_lines(share))
            )
    spec = phase(state)
    if spec is not None and player in spec.active:
        facts.append(Fact("Awaited from you", f"your orders for {spec.title}"))
        if spec.name.startswith("combat-") and state["combats"][0]["kind"] != "naval":
            note = _guard_note(state, player)
            if note:
                facts.append(Fact("Your guard (12.3.4)", note))
    return facts


def _guard_note(state: Mapping[str, Any], player: str) -> str:
    """Return the note on `orders.guard` for a commander whose side may commit its guard: the
    nationalities and shifts 12.3.4 allows, and whether the other side chooses sealed too."""
    combat = state["combats"][0]
    if not state["rules"]["guard_commitment"]:
        return ""
    side = next(s for s in ("attacker", "defender") if combat["sides"][s]["commander"] == player)
    other = "defender" if side == "attacker" else "attacker"
    if combat["guard_used"][side]:
        return "your side has committed its guard in this combat already"
    mine = guard.guard_by_nation(fight.contingents(combat, state["units"], side))
    offers = [
        f"{nation} " + " or ".join(f"+{shift}" for shift in guard.shifts_allowed(nation, factors))
        for nation, factors in sorted(mine.items())
        if guard.shifts_allowed(nation, factors)
    ]
    if not offers:
        return ""
    both = guard.has_guard(fight.contingents(combat, state["units"], other))
    return f"you may commit one: {'; '.join(offers)}, with `guard: {{nation, shift}}`; " + (
        "the other side has guards too: both choices are sealed and revealed together"
        if both
        else "it is announced in the report"
    )


def _side_line(combat: Mapping[str, Any], side: str) -> str:
    """Return one side of a combat as a letter shows it: its units, commander, morale and guard."""
    line = f"{side} ({combat['sides'][side]['commander']}): {', '.join(combat['sides'][side]['units'])}"
    if combat["kind"] != "naval":
        level = (combat["morale"][side] - combat["morale_loss"][side]) / 10
        line += f"; morale {level:.1f} (lost {combat['morale_loss'][side] / 10:.1f})"
        if combat["guard_used"][side]:
            line += "; guard committed"
    return line + ("; broken" if combat["broken"][side] else "")


def _share_lines(share: Mapping[str, Any]) -> tuple[str, ...]:
    """Return what a loss proposal must respect: each nationality's strength and rounded share,
    and the odd losses left open (12.2.5, 12.3.6)."""
    odd = share["count"] - sum(share["shares"].values())
    lines = [
        f"{nation}: {share['strengths'][nation]} present, rounded share {share['shares'][nation]}"
        for nation in sorted(share["strengths"])
    ]
    if odd:
        lines.append(
            f"the rounded shares come to {sum(share['shares'].values())}: {abs(odd)} odd loss(es) "
            + ("to give" if odd > 0 else "to spare")
            + f"; proposals from {', '.join(share['proposers'])}, sealed; the same split from all stands, "
            "else competitive rolls decide"
        )
    else:
        lines.append(f"proposals from {', '.join(share['proposers'])}, sealed; the same split from all stands")
    return tuple(lines)


def example(state: Mapping[str, Any], player: str) -> Example | None:
    """Return `player`'s order form for the open phase: a round's table, a loss split, or a roll request."""
    spec = phase(state)
    if spec is None or player not in spec.active:
        return None
    waiting = battles.awaited(state)
    if waiting is not None and waiting[0].startswith("combat-"):
        results = state["supplied"].get("combat_results")
        table = results["default_table"] if results else "3-3"
        if state["combats"][0]["kind"] == "naval":
            return Example({"table": table}, {"orders.table": "the combat table your fleets fight on this round"})
        return Example(
            {"table": table, "bombard": True}, {"orders.table": "the combat table your side fights on this round"}
        )
    if waiting is not None:
        combat = state["combats"][0]
        share = next(s for s in combat["pending"].values() if player in s["proposers"])
        return Example(
            {"split": _rounded_out(share)},
            {"orders.split": f"{share['count']} losses between the nationalities; agree with your allies"},
        )
    return Example(
        {"rolls": [{"label": "first-roll", "dice": "2d6", "purpose": "what this roll decides"}]},
        {"orders.rolls[].label": "your name for the roll", "orders.rolls[].purpose": "what the roll is for"},
    )


def _rounded_out(share: Mapping[str, Any]) -> dict[str, int]:
    """Return the rounded shares with the odd losses given to the first nationalities that can take them."""
    split = dict(share["shares"])
    odd = share["count"] - sum(split.values())
    for nation in sorted(split):
        while odd > 0 and split[nation] < share["strengths"][nation]:
            split[nation], odd = split[nation] + 1, odd - 1
        while odd < 0 and split[nation] > 0:
            split[nation], odd = split[nation] - 1, odd + 1
    return split
