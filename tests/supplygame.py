"""`supply-test`: a small game whose rulebook leaves out two things its referee supplies (issue 15).

Three rounds; each player moves 0..5 a round and scores it. From round 2 each move is multiplied
by the side's morale factor (`morale`, a data need: wanted `now` from round 2, so the phase is
held before adjudication until it is supplied). In round 3 a die is read on the weather table
(`weather`, a table need the module cannot foresee: wanted `later`, and `resolve` raises
NotSupplied when it is missing). The core's supply tests play it; run as a script, it is the
`referee` command with this game installed (for tests that start the CLI in a subprocess).
"""

from __future__ import annotations

import copy
import sys

if __name__ == "__main__":
    # Run as a script, tests/ comes first on sys.path, and its games/ folder (test files, no
    # __init__) would stand in for the real `games` package under an editable install.
    sys.path.remove(sys.path[0])
from collections.abc import Mapping, Sequence
from typing import Any

from referee.kit import Event, GameModule, Need, NotSupplied, PhaseSpec, Problem, Supplies, Wanted

GAME_ID = "supply-test"
PLAYERS = ("alice", "bob")
ROUNDS = 3

MORALE = Need(
    id="morale",
    title="the morale factor of each side",
    book="Morale, p. 12",
    needed_by="every move from round 2",
    shape={
        "type": "map",
        "fields": {
            "factors": {
                "type": "map",
                "fields": {side: {"type": "int", "min": 1, "max": 9} for side in PLAYERS},
                "required": list(PLAYERS),
            }
        },
        "required": ["factors"],
    },
    template="# Morale, p. 12: the morale factor of each side.\nfactors:\n  alice:   # 1..9\n  bob:     # 1..9\n",
    example="# An example, not the book's values.\nfactors: {alice: 2, bob: 3}\n",
)
WEATHER = Need(
    id="weather",
    title="the weather table",
    book="Weather, p. 14",
    needed_by="round 3",
    shape={
        "type": "map",
        "fields": {"rows": {"type": "list", "items": {"type": "int", "min": 0, "max": 3}, "min": 6, "max": 6}},
        "required": ["rows"],
    },
    template="# Weather, p. 14: the bonus for each roll of 1d6.\nrows:   # six numbers 0..3, for a roll of 1 ... 6\n",
    example="# An example, not the book's values.\nrows: [0, 0, 1, 1, 2, 3]\n",
    kind="table",
)


def _wanted(state: Any) -> list[Wanted]:
    supplied = state["supplied"]
    morale = (
        Wanted("morale", "supplied")
        if "morale" in supplied
        else Wanted("morale", "now" if state["turn"] >= 2 else "later", "every move from round 2 is multiplied by it")
    )
    weather = Wanted("weather", "supplied") if "weather" in supplied else Wanted("weather", "later", "read in round 3")
    return [morale, weather]


def _supply(state: Any, need: str, data: Any) -> tuple[Any, list[Problem]]:
    if need == "morale" and sum(data["factors"].values()) > 12:
        total = sum(data["factors"].values())
        return state, [Problem("supply.morale.total", "data.factors", f"the factors add up to {total}; at most 12")]
    new = copy.deepcopy(state)
    new["supplied"][need] = copy.deepcopy(data)
    return new, []


def _setup(scenario: str, players: Sequence[str], options: Mapping[str, Any]) -> Any:
    return {"turn": 1, "score": {p: 0 for p in players}, "supplied": {}}


def _phase(state: Any) -> PhaseSpec | None:
    if state["turn"] > ROUNDS:
        return None
    schema = {"type": "map", "fields": {"move": {"type": "int", "min": 0, "max": 5}}, "required": ["move"]}
    return PhaseSpec(state["turn"], "round", PLAYERS, schema=schema, default_orders={"move": 0}, example={"move": 3})


def _resolve(state: Any, orders: Mapping[str, Any], dice: Any) -> tuple[Any, list[Event]]:
    new = copy.deepcopy(state)
    events = []
    bonus = 0
    if state["turn"] == 3:
        if "weather" not in state["supplied"]:
            raise NotSupplied("weather", "the weather table (Weather, p. 14) is not supplied")
        roll = dice.roll("1d6", label="weather")[0]
        bonus = state["supplied"]["weather"]["rows"][roll - 1]
        events.append(Event("weather", f"The weather roll is {roll}: every side gains {bonus}."))
    for player in sorted(orders):
        factor = state["supplied"]["morale"]["factors"][player] if state["turn"] >= 2 else 1
        gained = orders[player]["move"] * factor + bonus
        new["score"][player] += gained
        events.append(Event("move", f"{player} moves {orders[player]['move']} and scores {gained}."))
    new["turn"] += 1
    return new, events


GAME = GameModule(
    id=GAME_ID,
    title="Supply test",
    version="1",
    scenarios=("standard",),
    roles=lambda scenario, options: PLAYERS,
    setup=_setup,
    phase=_phase,
    validate=lambda state, player, orders: [],
    resolve=_resolve,
    view=lambda state, player: {"turn": state["turn"], "score": state["score"], "supplied": sorted(state["supplied"])},
    check=lambda state: [],
    supplies=Supplies((MORALE, WEATHER), _wanted, _supply),
)


def install() -> None:
    """Add this game to the installed games (games.GAMES) of this process."""
    import games

    if GAME not in games.GAMES:
        games.GAMES = (*games.GAMES, GAME)


if __name__ == "__main__":
    install()
    from referee.cli import main

    sys.argv[0] = "referee"
    main()
