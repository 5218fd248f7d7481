"""Where a player stands and their own order form (issue 18, item 2), for every game module.

For states reached by bounded play (tests/contract/play.py), and for each player who gives
orders, the order form the notice carries (the core's announce.order_template, with its
comments) reads back as YAML, fits the phase's schema, is accepted by the game's `validate` as
sent, and names no other player's ids; the notice shows where the player stands, with the
facts each game must give (Tempo points, cards in hand, Initiative Points...).

That nothing in `standing` or `example` comes from what a player may not see is the leak
test's part (tests/contract/test_leaks.py, "standing or order form"); the last test here shows
that it would catch a module whose standing told a secret.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import play
import pytest
from play import Reached, reach
from test_leaks import Checker, letters_game, open_phase

import games
from referee.game.announce import notice_context, order_template
from referee.game.opened import Game
from referee.kit import Fact, GameModule
from referee.kit.schema import check as schema_problems
from referee.letters.render import render
from referee.protocol.yamlsafe import load_strict

STATES_PER_GAME = 40
GAME_IDS = [g.id for g in games.GAMES]


def _game(game_id: str) -> GameModule:
    return next(g for g in games.GAMES if g.id == game_id)


def strings_in(value: Any) -> Iterator[str]:
    """Yield every text in plain data, keys and values."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings_in(item)
    elif isinstance(value, str):
        yield value


# -- what belongs to someone else, and what a player's standing must say, game by game ------------


def polemos_foreign(state: Any, player: str) -> set[str]:
    """Return the ids of the generals, divisions, brigades and bases of other players' armies."""
    others = {a for a, record in state["armies"].items() if record["player"] != player}
    ids = {g for g, record in state["generals"].items() if record["army"] in others}
    for division, record in state["divisions"].items():
        if record["army"] in others:
            ids |= {division, *record["brigades"]}
            ids |= {b for brigade in record["brigades"] for b in state["brigades"][brigade]["bases"]}
    return ids


def polemos_facts(state: Any, player: str) -> list[str]:
    army = next(a for a, record in state["armies"].items() if record["player"] == player)
    generals = [g for g, record in state["generals"].items() if record["army"] == army]
    return [f"Tempo points: {state['armies'][army]['tp']} TP", *generals]


def clg_foreign(state: Any, player: str) -> set[str]:
    """Return the markers of the other side's cards (card ids repeat across sides; markers do not)."""
    return {u["marker"] for u in state["units"] if u["owner"] != player and u["marker"]}


def clg_facts(state: Any, player: str) -> list[str]:
    side = state["sides"][player]
    facts = [u["marker"] for u in state["units"] if u["owner"] == player and u["status"] == "table"]
    if state["stage"] in ("move", "combat") and state["phasing"] == player:
        facts.append(f"Initiative Points left: {side['ip'] - side['ip_spent']} of {side['ip']}")
    return facts


def moderator_foreign(state: Any, player: str) -> set[str]:
    """Return the cards in other players' hands and the other players' names."""
    hands = state.get("cards", {}).get("decks", {}).values()
    held = {e["card"] for pile in hands for who, hand in pile["hands"].items() if who != player for e in hand}
    mine = {e["card"] for pile in hands for e in pile["hands"].get(player, [])}
    return (held - mine) | {p for p in state["players"] if p != player}


def moderator_facts(state: Any, player: str) -> list[str]:
    facts = [f"Round: {state['round']}"]
    for pile in state.get("cards", {}).get("decks", {}).values():
        facts += [f"(id {entry['card']})" for entry in pile["hands"].get(player, [])]
    return facts


def eia_foreign(state: Any, player: str) -> set[str]:
    """Return nothing: every unit of Empires in Arms is on the public map; only standing policies
    are hidden, and a form never copies one."""
    return set()


def eia_facts(state: Any, player: str) -> list[str]:
    powers = {p for p, record in state["powers"].items() if record["player"] == player}
    return [u for u, record in state["units"].items() if record["power"] in powers and not record.get("demobilised")]


def coe_foreign(state: Any, player: str) -> set[str]:
    """Return the other side's sealed candidates and sealed notes' texts."""
    pools = state["candidates"].get("allies" if player == "france" else "france", {}).values()
    found = {o["value"] for held in pools for o in held["openings"] if not o.get("opened")}
    return found | {n["text"] for n in state["notes"] if n["by"] != player and n["revealed"] is None}


def coe_facts(state: Any, player: str) -> list[str]:
    held = state["prestige"][player]
    return [f"{player}: Level {held['level']}, {held['pp']} PP"]


def cos_foreign(state: Any, player: str) -> set[str]:
    """Return the cards in other seats' hands (card ids are unique across the four decks)."""
    piles = (state.get("cards") or {}).get("decks", {}).values()
    return {e["card"] for pile in piles for who, hand in pile["hands"].items() if who != player for e in hand}


def cos_facts(state: Any, player: str) -> list[str]:
    piles = (state.get("cards") or {}).get("decks", {}).values()
    return [f"{e['card']} " for pile in piles for e in pile["hands"].get(player, [])]


FOREIGN: dict[str, Callable[[Any, str], set[str]]] = {
    "empires-in-arms": eia_foreign,
    "cockpit-of-europe": coe_foreign,
    "clash-of-sovereigns": cos_foreign,
    "polemos-obb": polemos_foreign,
    "cest-la-guerre": clg_foreign,
    "moderator": moderator_foreign,
}
FACTS: dict[str, Callable[[Any, str], list[str]]] = {
    "empires-in-arms": eia_facts,
    "cockpit-of-europe": coe_facts,
    "clash-of-sovereigns": cos_facts,
    "polemos-obb": polemos_facts,
    "cest-la-guerre": clg_facts,
    "moderator": moderator_facts,
}


def sampled(game: GameModule) -> list[Reached]:
    """Return up to STATES_PER_GAME states bounded play reaches, taken phase by phase in turn so
    that every kind of phase with orders is among them."""
    by_phase: dict[str, list[Reached]] = {}
    for item in reach(game):
        if item.spec.active:
            by_phase.setdefault(item.spec.name, []).append(item)
    rounds = itertools.zip_longest(*(items[:: max(1, len(items) // STATES_PER_GAME)] for items in by_phase.values()))
    return [item for chosen in rounds for item in chosen if item is not None][:STATES_PER_GAME]


@pytest.fixture(scope="module")
def core(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Game]:
    """Return a function: game id -> a real core game (its directory, keys) to write letters with."""
    made: dict[str, Game] = {}

    def make(game_id: str) -> Game:
        if game_id not in made:
            made[game_id] = letters_game(_game(game_id), tmp_path_factory.mktemp(game_id))
        return made[game_id]

    return make


def test_every_game_says_where_a_player_stands_and_fills_in_their_form() -> None:
    """Every module in games/ implements both hooks (a new game must too)."""
    for game in games.GAMES:
        assert game.standing is not None, f"{game.id} has no standing hook"
        assert game.example is not None, f"{game.id} has no example hook"


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_each_players_form_parses_validates_and_names_only_their_ids(game_id: str, core: Callable[[str], Game]) -> None:
    game = _game(game_id)
    letters = core(game_id)
    checked = 0
    for item in sampled(game):
        state, spec = item.state, item.spec
        for player in spec.active:
            form = order_template(letters, open_phase(spec), spec, player, state)
            data = load_strict(form)
            assert data["player"] == player and "#" in form, f"{item.origin}: {player}'s form has no comments"
            orders = data["orders"]
            assert schema_problems(orders, spec.schema) == [], f"{item.origin}: {player}'s form breaks the schema"
            assert game.validate(state, player, orders) == [], f"{item.origin}: {player}'s own form is refused"
            named = set(strings_in(orders)) & FOREIGN[game_id](state, player)
            assert not named, f"{item.origin}: {player}'s form names another player's {sorted(named)}"
            checked += 1
    assert checked >= 10, f"{game_id}: only {checked} forms checked"


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_notices_show_where_the_player_stands_and_the_form_before_the_schema(
    game_id: str, core: Callable[[str], Game]
) -> None:
    game = _game(game_id)
    letters = dataclasses.replace(core(game_id), module=game)
    for item in sampled(game)[:: max(1, STATES_PER_GAME // 10)]:
        state, spec = item.state, item.spec
        for player in item.players:
            context, _ = notice_context(letters, open_phase(spec), spec, state, player)
            text, html = render("notice", context, game)
            assert "Where you stand" in text and "Where you stand" in html, item.origin
            section = text.split("Where you stand", 1)[1].split("\n\n", 1)[0]
            for fact in FACTS[game_id](state, player):
                assert fact in section, f"{item.origin}: {player}'s standing does not say {fact!r}:\n{section}"
            if player in spec.active:
                assert text.index("orders:") < text.index("field by field (for reference)"), item.origin
                assert html.index("<pre>") < html.index("field by field (for reference)"), item.origin


def test_moderator_forms_name_each_tables_modifiers_and_the_players_hand() -> None:
    """A moderator game with tables and a deck: the form asks for a roll on each table with the
    modifiers it takes beside it, and names the cards the player holds."""
    moderator = _game("moderator")
    decks = {"events": {"title": "Event cards", "cards": [{"id": "rain", "name": "Heavy rain", "count": 3}], "deal": 1}}
    options = {"rounds": 3, "tables": play._moderator_tests().TABLES, "decks": decks}
    state = moderator.setup("open", ["alice", "bob"], options)
    spec = moderator.phase(state)
    assert spec is not None
    state, _ = moderator.resolve(state, {"alice": {}, "bob": {}}, play.dice_for(b"standing", spec.turn, spec.name))
    example = moderator.example(state, "alice")
    assert example is not None
    tables = [r["table"] for r in example.orders["rolls"] if "table" in r]
    assert tables == ["events", "fire", "morale"]
    assert "close-range (+1)" in example.notes["orders.rolls[2].modifiers"]
    assert "you hold rain (Heavy rain)" in example.notes["orders.cards"]
    assert moderator.validate(state, "alice", example.orders) == []
    facts = {fact.name: fact for fact in moderator.standing(state, "alice")}
    assert facts["Your hand of Event cards (events)"].items == ("Heavy rain (id rain)",)


def test_the_leak_test_catches_a_standing_that_tells_a_secret(tmp_path: Path) -> None:
    """A module whose standing shows the hidden leaves of its state is caught by the leak test."""
    game = _game("moderator")

    def leaky(state: Any, player: str) -> list[Fact]:
        hidden = [pointer for pointer, roles in game.secrets(state) if player not in roles]
        return [Fact("Secrets", repr(_at(state, pointer))) for pointer in hidden]

    tattler = dataclasses.replace(game, standing=leaky)
    checker = Checker(tattler, letters_game(tattler, tmp_path))
    rich = [r for r in reach(tattler) if tattler.secrets(r.state)]
    for item in random.Random(1).sample(rich, 3):
        checker.check_state(item)
    assert any("standing or order form" in leak for leak in checker.leaks), checker.leaks[:3]


def _at(state: Any, pointer: str) -> Any:
    for token in pointer[1:].split("/"):
        state = state[int(token)] if isinstance(state, list) else state[token.replace("~1", "/").replace("~0", "~")]
    return state
