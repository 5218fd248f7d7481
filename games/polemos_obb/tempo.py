"""Tempo points: each C-in-C's income, and the sealed simultaneous bids for the Tempo.

Income: 1 TP for the C-in-C, 1 more if he commands a division in person, 1 per Lieutenant
General still counting, and a D6. The die is rolled when the turn before closes (in the
muster phase for turn 1), so every player knows what they hold when they bid; the roll is in
the public record, so Tempo points are public too.

Bids are orders of the bid phase, sealed by the core until it is adjudicated. Allies roll
off (1D6 each, ties rolled again) for whose bid their side uses; the higher side bid wins;
a tie stays with last turn's Tempo side, or on the first turn goes to the draw. Every army
of the winning side gains 2 TP, and every army pays its own bid.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.polemos_obb.model import State, army_order, is_in_play, side_ids
from games.polemos_obb.resolution import Resolution
from referee.kit import Problem

TEMPO_BONUS = 2
MINIMUM_BID = 1


def income_parts(state: Mapping[str, Any], army: str) -> list[dict[str, Any]]:
    """Return the fixed parts of an army's TP income, each {what, tp}."""
    record = state["armies"][army]
    generals = state["generals"]
    parts = [{"what": f"C-in-C ({generals[record['c_in_c']]['name']})", "tp": 1}]
    in_person = record["in_person"]
    if in_person is not None and not state["divisions"][in_person]["spent"]:
        parts.append({"what": f"commands {state['divisions'][in_person]['title']} in person", "tp": 1})
    counted = ["lieutenant-general"] + (["major-general"] if state["config"]["major_generals_yield_tp"] else [])
    for division in record["divisions"]:
        general = generals[state["divisions"][division]["commander"]]
        if (
            general["rank"] in counted
            and general["counts_for_tp"]
            and general["status"] == "active"
            and not state["divisions"][division]["spent"]
        ):
            parts.append({"what": general["name"], "tp": 1})
    return parts


def roll_income(r: Resolution, turn: int) -> None:
    """Roll every army's income for `turn` and add it to the TPs it holds."""
    lines = []
    for army in army_order(r.state):
        if not is_in_play(r.state, army):
            continue
        record = r.state["armies"][army]
        parts = income_parts(r.state, army)
        die = r.d6(label=f"tempo/income/{army}", purpose=f"{record['title']}: Tempo points die for turn {turn}")
        income = sum(p["tp"] for p in parts) + die
        before = record["tp"]
        record["tp"] = before + income
        lines.append({"army": army, "title": record["title"], "parts": parts, "die": die, "income": income,
                      "carried": before, "held": record["tp"]})  # fmt: skip
    text = "; ".join(f"{line['title']} {line['held']} TP" for line in lines)
    r.say("tempo.income", f"Tempo points for turn {turn}: {text}.", {"turn": turn, "armies": lines})


def bid_problems(state: Mapping[str, Any], army: str, orders: Mapping[str, Any]) -> list[Problem]:
    """Return what is wrong with an army's bid: it must be at least 1 and at most the TPs held."""
    bid = orders.get("bid")
    held = state["armies"][army]["tp"]
    if not isinstance(bid, int) or bid < MINIMUM_BID:
        return [Problem("illegal.bid.minimum", "orders.bid", f"the smallest bid is {MINIMUM_BID}")]
    if bid > held:
        return [Problem("illegal.bid.too-high", "orders.bid", f"you hold {held} TP, so you can bid at most {held}")]
    return []


def resolve_bids(r: Resolution, bids: Mapping[str, int]) -> str:
    """Settle the Tempo from every army's bid; return the winning side. `bids` maps army to bid."""
    state = r.state
    held = {army: state["armies"][army]["tp"] for army in bids}
    ally_rolls = []
    side_bids = {}
    for side in side_ids(state):
        bidders = [a for a in army_order(state) if a in bids and state["armies"][a]["side"] == side]
        if not bidders:
            continue
        chosen, rounds = _ally_roll_off(r, bidders) if len(bidders) > 1 else (bidders[0], [])
        if rounds:
            title = next(s["title"] for s in state["sides"] if s["id"] == side)
            chosen_title = state["armies"][chosen]["title"]
            ally_rolls.append(
                {"side": side, "title": title, "rounds": rounds, "chosen": chosen, "chosen_title": chosen_title}
            )
        side_bids[side] = {"side": side, "army": chosen, "bid": bids[chosen]}
    winner, decided_by, draw = _winner(r, side_bids)
    after = []
    for army in bids:
        record = state["armies"][army]
        bonus = TEMPO_BONUS if record["side"] == winner else 0
        record["tp"] = record["tp"] + bonus - bids[army]
        after.append({"army": army, "title": record["title"], "held": held[army], "bonus": bonus, "bid": bids[army],
                      "left": record["tp"]})  # fmt: skip
    state["tempo"] = {"side": winner, "by_turn": [*state["tempo"]["by_turn"], winner]}
    sides = {s["id"]: s["title"] for s in state["sides"]}
    revealed = ", ".join(f"{state['armies'][a]['title']} {b}" for a, b in bids.items())
    r.say(
        "tempo.auction",
        f"Tempo bids revealed: {revealed}. {sides[winner]} win the Tempo ({decided_by}).",
        {
            "turn": state["turn"],
            "bids": [
                {
                    "army": a,
                    "title": state["armies"][a]["title"],
                    "side": state["armies"][a]["side"],
                    "held": held[a],
                    "bid": b,
                }  # fmt: skip
                for a, b in bids.items()
            ],
            "ally_rolls": ally_rolls,
            "side_bids": list(side_bids.values()),
            "winner": winner,
            "winner_title": sides[winner],
            "decided_by": decided_by,
            "draw": draw,
            "after": after,
        },
    )
    return winner


def _ally_roll_off(r: Resolution, armies: list[str]) -> tuple[str, list[list[dict[str, Any]]]]:
    """Roll 1D6 for each ally, again among those tied highest, until one is left; return it and the rolls."""
    contenders = list(armies)
    rounds: list[list[dict[str, Any]]] = []
    while len(contenders) > 1:
        attempt = len(rounds) + 1
        rolls = [
            {
                "army": a,
                "title": r.state["armies"][a]["title"],
                "roll": r.d6(label=f"tempo/ally/{a}/{attempt}", purpose=f"{a}: ally roll for whose bid counts"),
            }
            for a in contenders
        ]
        rounds.append(rolls)
        best = max(entry["roll"] for entry in rolls)
        contenders = [entry["army"] for entry in rolls if entry["roll"] == best]
    return contenders[0], rounds


def _winner(r: Resolution, side_bids: Mapping[str, Mapping[str, Any]]) -> tuple[str, str, int | None]:
    """Return (winning side, how it was decided, the first-turn draw's roll or None)."""
    state: State = r.state
    if len(side_bids) == 1:
        return next(iter(side_bids)), "the only side bidding", None
    (first, a), (second, b) = side_bids.items()
    if a["bid"] != b["bid"]:
        return (first if a["bid"] > b["bid"] else second), "the higher bid", None
    last = state["tempo"]["side"]
    if last is not None:
        return last, "equal bids: last turn's Tempo side keeps it", None
    lookup = r.read("first-turn-draw", label="tempo/first-turn-draw", purpose="equal bids on the first turn: the draw")
    winner = first if lookup.result == "first-side" else second
    return winner, "equal bids on the first turn: the draw", lookup.values[0]
