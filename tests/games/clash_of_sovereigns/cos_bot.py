"""A test bot for Clash of Sovereigns: plays a card from its hand each turn (operations with an
activation, a siege, a battle now and then; events; Spring uses), seals reactions on the spaces
its opponents use, and fights its battles with the Tac cards it may play. It reads the state
only for what its seat may see (its own hands, the public rest)."""

from __future__ import annotations

import random
from typing import Any

from games.clash_of_sovereigns import cards, seats
from games.clash_of_sovereigns.seats import DECK_OF_POWER, SIDE_OF_POWER

SPACES = ("Prague", "Glatz", "Kolin", "Mons")
NATION = {"france": "french", "prussia": "prussian", "austria": "austrian", "britain": "british"}
RATED = tuple(NATION)


def _leaders(state: dict[str, Any], power: str) -> list[str]:
    ratings = state["supplied"].get("ratings")
    return [item["name"] for item in ratings["leaders"] if item["power"] == power] if ratings else []


def orders_for(game: Any, state: dict[str, Any], spec: Any, seat: str, rng: random.Random) -> dict[str, Any]:
    """Return orders the rules accept, falling back to none."""
    kind = state["step"]["kind"]
    if kind == "power":
        power = state["step"]["power"]
        orders = (
            _turn(state, seat, power, rng)
            if seats.seat_of_power(state, power) == seat
            else _reactions(state, seat, rng)
        )
    elif kind == "battle":
        orders = _battle(state, seat, rng)
    elif kind == "spring":
        orders = _spring(state, seat, rng)
    else:
        orders = {}
    return orders if not game.validate(state, seat, orders) else {}


def _turn(state: dict[str, Any], seat: str, power: str, rng: random.Random) -> dict[str, Any]:
    deck = DECK_OF_POWER[power]
    hand = cards.hand(state, seat, deck)
    orders: dict[str, Any] = {}
    if state["season"] in ("winter", "late-winter") and rng.random() < 0.7:
        orders["attrition"] = [
            {"force": "main", "sp": rng.randint(5, 40), "percent": rng.choice([10, 20]), "ss": rng.randint(0, 3)}
        ]
    playable = [c for c in hand if set(cards.card_info(state, deck, c)["uses"]) & {"operations", "event", "winter"}]
    if state["mulligans"].get(seats.side_of_seat(state, seat)) and rng.random() < 0.2:
        orders["mulligan"] = {"on": rng.choice(["raid", "siege", "interception"]), "at_most": 3}
    if not playable or rng.random() < 0.1:
        return {**orders, "pass": True}
    card = rng.choice(playable)
    info = cards.card_info(state, deck, card)
    if "operations" in info["uses"] and rng.random() < 0.8:
        return {
            **orders,
            "play": {"card": card, "as": "operations", "operations": _operations(state, power, info, rng)},
        }
    if state["season"] in ("winter", "late-winter") and "winter" in info["uses"]:
        return {**orders, "play": {"card": card, "as": "winter"}}
    if "event" in info["uses"]:
        return {**orders, "play": {"card": card, "as": "event", "detail": "as the card says"}}
    return {**orders, "pass": True}


def _operations(state: dict[str, Any], power: str, info: dict[str, Any], rng: random.Random) -> list[dict[str, Any]]:
    leaders = _leaders(state, power)
    ratings = {item["name"]: item for item in state["supplied"]["ratings"]["leaders"]}
    if power == "austria" and rng.random() < 0.3:
        return [{"place_ch": {"space": rng.choice(SPACES), "enemy_sp": rng.randint(0, 6)}}]
    if not leaders:
        return [{"admin_march": True, "sp": rng.randint(1, 15), "moves": [{"to": rng.choice(SPACES)}]}]
    name = rng.choice(leaders)
    if ratings[name]["initiative"] > info["cp"]:
        return []
    sp = rng.randint(5, 40)
    moves = [{"to": rng.choice(SPACES)} for _ in range(rng.randint(0, 2))]
    op: dict[str, Any] = {"activate": name, "sp": sp, "moves": moves}
    enemies = [p for p in RATED if SIDE_OF_POWER[p] != SIDE_OF_POWER[power]]
    if power in RATED and rng.random() < 0.5:
        at = rng.choice(SPACES)
        op["moves"] = [*moves, {"to": at, "enemy_command": True}]
        op["battle"] = {
            "defender": rng.choice(enemies),
            "at": at,
            "terrain": rng.choice(["clear", "clear", "mountain"]),
        }
    elif rng.random() < 0.5:
        op["siege"] = {"space": rng.choice(SPACES), "rolls": 1}
    return [op]


def _reactions(state: dict[str, Any], seat: str, rng: random.Random) -> dict[str, Any]:
    powers = [p for p in seats.powers_of_seat(state, seat) if p in RATED]
    reactions: dict[str, Any] = {}
    if powers and rng.random() < 0.5:
        leaders = _leaders(state, powers[0])
        if leaders:
            reactions["intercept"] = [{"when_enters": rng.choice(SPACES), "leader": rng.choice(leaders)}]
    if rng.random() < 0.5:
        reactions["withdraw"] = [{"when_battle_at": rng.choice(SPACES), "to": "Budweis"}]
    for deck in state["seats"][seat]:
        for card in cards.hand(state, seat, deck):
            if "interrupt" in cards.card_info(state, deck, card)["uses"] and rng.random() < 0.6:
                raid = {"space": rng.choice(SPACES), "enemy_sp": rng.randint(0, 6)}
                reactions["interrupt"] = [{"card": card, "when_enters": rng.choice(SPACES), "raid": raid}]
    return {"reactions": reactions} if reactions else {}


def _battle(state: dict[str, Any], seat: str, rng: random.Random) -> dict[str, Any]:
    fight = state["battles"][0]
    if seat not in (seats.seat_of_power(state, fight["attacker"]), seats.seat_of_power(state, fight["defender"])):
        return {}  # the window is open to every seat; this one does not fight
    power = fight["attacker"] if seats.seat_of_power(state, fight["attacker"]) == seat else fight["defender"]
    leaders = _leaders(state, power) or ["De Saxe"]
    force = {
        "commander": leaders[0],
        "subordinates": leaders[1:2],
        "nations": [{"nation": NATION.get(power, "french"), "sp": rng.randint(5, 60)}],
        "cavalry_sp": rng.randint(0, 8),
        "worn": rng.randint(0, 1),
    }
    tac = []
    for deck in state["seats"][seat]:
        for card in cards.hand(state, seat, deck):
            info = cards.card_info(state, deck, card)
            if (
                "tac" in info["uses"]
                and info.get("tac", {}).get("cavalry_sp", 0) <= force["cavalry_sp"]
                and rng.random() < 0.7
            ):
                tac.append(card)
    return {"force": force, "tac": tac}


def _spring(state: dict[str, Any], seat: str, rng: random.Random) -> dict[str, Any]:
    for deck in state["seats"][seat]:
        for card in cards.hand(state, seat, deck):
            info = cards.card_info(state, deck, card)
            if "spring" in info["uses"] and rng.random() < 0.5:
                power = next(p for p in seats.powers_of_seat(state, seat) if DECK_OF_POWER[p] == deck)
                return {"play": {"card": card, "as": "spring", "power": power}}
    return {}
