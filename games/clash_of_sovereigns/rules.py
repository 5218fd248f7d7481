"""Rules of Clash of Sovereigns (GMT, 2024): the year's seasons and power turns, the cards and
their uses, the sealed reactions, the battles (README.md says what comes from the book).

A year runs Late Winter, Spring, Summer, Fall, Winter (4.0). Late Winter, Summer, Fall and
Winter are made of power turns, one phase each, in the power order the referee supplies: the
power's seat plays a card and every other seat seals its standing reactions (possibly none),
so a turn takes one mail from each seat and no more. Spring is one phase for every seat (4.1:
its body is lost; a card may be used for its Spring use). A Major Battle adds a phase in which
both sides send their force and Tac cards, sealed together. The game waits at its start for
the referee's cards, hands and power order; the first phase after deals.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.clash_of_sovereigns import arithmetic, battle, cards, options, seats
from games.clash_of_sovereigns.schemas import ORDER_SCHEMA
from games.clash_of_sovereigns.seats import DECK_OF_POWER, POWERS, SIDES, seat_of_power
from games.clash_of_sovereigns.supplies import AT_START, SUPPLIES, supplied
from games.clash_of_sovereigns.turn import PowerTurn, track_changes
from referee.kit import Dice, Event, GameDataError, InPlay, PhaseSpec, Problem, Secret, decks, schema, thaw
from referee.kit.procedure import tracks

SEASONS = ("late-winter", "spring", "summer", "fall", "winter")  # 4.0
TURN_SEASONS = ("late-winter", "summer", "fall", "winter")  # 4.2, 4.3, 4.4: power turns
WINTER_SEASONS = ("late-winter", "winter")  # 4.3.5, 4.4.5: winter quarters and attrition
SEASON_TITLES = {
    "late-winter": "Late Winter",
    "spring": "Spring",
    "summer": "Summer",
    "fall": "Fall",
    "winter": "Winter",
}
OPTIONS = options.OPTIONS
CHANGING_AIMS_YEARS = (1744, 1746)  # 22.6


def _tracks() -> dict[str, dict[str, Any]]:
    raw: dict[str, Any] = {}
    for power in POWERS:
        raw[f"vp-{power}"] = {"title": f"{power.title()} VP", "start": 0}
        raw[f"event-vp-{power}"] = {"title": f"{power.title()} Event VP", "start": 0}
        raw[f"mw-{power}"] = {"title": f"{power.title()} MW", "start": 0}
    parsed = tracks.parse_tracks(raw)
    assert parsed is not None
    return parsed


def setup(scenario: str, players: Sequence[str], given: Mapping[str, Any]) -> dict[str, Any]:
    """Return the state before the first phase: seats, options, tracks; no cards until supplied."""
    seating = seats.SEATINGS[scenario]
    read = options.read_options(given)
    state = {
        "scenario": scenario,
        "seats": {seat: list(held) for seat, held in sorted(seating.items())},
        "options": read,
        "year": read["first_year"],
        "season": "late-winter",
        "turn": 1,
        "step": {"kind": "start"},
        "supplied": {},
        "cards": None,
        "periods_in": ["early"],
        "tracks": _tracks(),
        "sieges": {},
        "colonial": {"louisbourg": [], "india": [], "bought": {}},
        "mulligans": {side: True for side in SIDES} if read["mulligans"] else {},
        "sovereigns": {"louis-xv": 0, "george-ii": 0},
        "battles": [],
        "played": [],
    }
    return _supplied_at_start(state, given.get("supplied"))


def _supplied_at_start(state: dict[str, Any], given: Any) -> dict[str, Any]:
    """Return the state with what the configuration supplies (option `supplied`), each part
    checked as `referee supply` checks it; raise GameDataError naming every problem."""
    if given is None:
        return state
    if not isinstance(given, Mapping):
        raise GameDataError("option supplied must map need ids to their data: {cards: ..., hands: ...}")
    for need_id, data in given.items():
        if need_id not in SUPPLIES.by_id:
            raise GameDataError(f"option supplied.{need_id}: no such need; needs: {', '.join(SUPPLIES.by_id)}")
        problems = schema.check(data, SUPPLIES.by_id[need_id].shape, f"options.supplied.{need_id}")
        if not problems:
            state, problems = SUPPLIES.supply(state, need_id, data)
        if problems:
            raise GameDataError(
                f"option supplied.{need_id}: " + "; ".join(f"{p.path}: {p.message}" for p in problems[:5]),
                hints=("the data is a supply file's `data:` part (README.md, What the referee supplies)",),
            )
    return state


def power_order(state: Mapping[str, Any]) -> list[str]:
    """Return the supplied order of the power turns ([] before it is supplied)."""
    data = supplied(state, "power_order")
    return list(data["order"]) if data else []


def _name(state: Mapping[str, Any]) -> str:
    step = state["step"]
    if step["kind"] == "power":
        return f"{state['season']}-{step['power']}"
    return step["kind"]


def title(state: Mapping[str, Any]) -> str:
    """Return the open phase's title: its year, season and whose turn."""
    step, when = state["step"], f"{SEASON_TITLES[state['season']]} {state['year']}"
    if step["kind"] == "power":
        return f"{when}: {step['power'].title()}'s turn (played by {seat_of_power(state, step['power'])})"
    if step["kind"] == "battle":
        fight = state["battles"][0]
        return f"{when}: Major Battle at {fight['at']}, {fight['attacker'].title()} against {fight['defender'].title()}"
    if step["kind"] == "changing-aims":
        return f"{when}: Sovereigns' Changing Aims (22.6)"
    if step["kind"] == "start":
        return "The start: the decks are dealt once the referee has supplied the cards, hands and power order"
    return f"{when}: Spring Admin/Reinforcement (4.1)"


def active(state: Mapping[str, Any]) -> tuple[str, ...]:
    """Return the seats that send orders in the open phase: every seat, always. A battle's window
    opens to every seat too: the two sides send their forces and Tac cards, every other seat may
    end its cards in play, move a track or send nothing, so that no opponent is shut out of the
    only phase where a live choice is made."""
    return tuple(sorted(state["seats"]))


def fights(state: Mapping[str, Any], seat: str) -> bool:
    """Return whether a seat plays one of the two sides of the open battle."""
    if state["step"]["kind"] != "battle":
        return False
    fight = state["battles"][0]
    return seat in (seat_of_power(state, fight["attacker"]), seat_of_power(state, fight["defender"]))


def phase(state: Mapping[str, Any]) -> PhaseSpec | None:
    """Return the open phase, or None once the last year's Winter is played."""
    if state["step"]["kind"] == "over":
        return None
    return PhaseSpec(
        turn=state["turn"],
        name=_name(state),
        active=active(state),
        sealed=True,
        schema=_schema(state),
        default_orders={},
        example={},
        title=title(state),
    )


def _schema(state: Mapping[str, Any]) -> dict[str, Any]:
    """Return the orders' schema with the fields the open phase takes from any of its seats."""
    names = {name for seat in active(state) for name in _fields(state, seat)}
    return {**ORDER_SCHEMA, "fields": {k: v for k, v in ORDER_SCHEMA["fields"].items() if k in names}}


def roles(scenario: str, given: Mapping[str, Any]) -> tuple[str, ...]:
    """Return the seats of the scenario."""
    return seats.roles(scenario, given)


# -- orders ---------------------------------------------------------------------------------


def validate(state: Mapping[str, Any], seat: str, orders: Mapping[str, Any]) -> list[Problem]:
    """Return the problems with a seat's orders for the open phase."""
    kind = state["step"]["kind"]
    problems: list[Problem] = []
    allowed = _fields(state, seat)
    for name in orders:
        if name not in allowed:
            problems.append(
                Problem(
                    "illegal.field",
                    f"orders.{name}",
                    f"'{name}' is not taken in this phase ({title(state)}); here: {', '.join(allowed) or 'nothing'}",
                )
            )
    if problems:
        return problems
    play = orders.get("play")
    if play is not None:
        if kind == "power":
            power = state["step"]["power"]
        else:
            power = play.get("power") or seats.powers_of_seat(state, seat)[0]
            if power not in seats.powers_of_seat(state, seat):
                return [
                    Problem(
                        "illegal.power",
                        "orders.play.power",
                        f"{seat} plays {', '.join(seats.powers_of_seat(state, seat))}",
                    )
                ]
        problems += cards.play_problems(state, seat, power, play, "orders.play")
        if orders.get("pass"):
            problems.append(Problem("invalid.pass", "orders.pass", "play a card or pass, not both"))
    elif (
        kind == "power"
        and _is_mover(state, seat)
        and not state["options"]["may_pass"]
        and _hand_of_power(state)
        and not orders.get("pass")
    ):
        problems.append(
            Problem("illegal.must-play", "orders.play", "option may_pass is off: play a card (you hold some)")
        )
    reactions = orders.get("reactions") or {}
    if reactions and kind == "power" and seats.side_of_seat(state, seat) == seats.SIDE_OF_POWER[state["step"]["power"]]:
        problems.append(
            Problem(
                "illegal.reactions.ally",
                "orders.reactions",
                "reactions are to the other side's turns; this is an ally's",
            )
        )
    problems += cards.interrupt_problems(state, seat, reactions.get("interrupt") or [], "orders.reactions.interrupt")
    problems += cards.intercept_problems(state, seat, reactions.get("intercept") or [], "orders.reactions.intercept")
    if kind == "battle" and fights(state, seat) and "force" not in orders:
        problems.append(
            Problem(
                "invalid.missing",
                "orders.force",
                "send your force: commander, nations [{nation, sp}], cavalry_sp, worn",
            )
        )
    if kind == "battle" and fights(state, seat):
        problems += cards.tac_problems(state, seat, orders.get("tac") or [], orders.get("force"), "orders.tac")
    if orders.get("mulligan") is not None:
        side = seats.side_of_seat(state, seat)
        if not state["options"]["mulligans"]:
            problems.append(
                Problem("illegal.option", "orders.mulligan", "Mulligans are optional rule 22.10, not in this game")
            )
        elif not state["mulligans"].get(side):
            problems.append(
                Problem("illegal.mulligan.spent", "orders.mulligan", f"the {side.title()} Mulligan is spent (22.10)")
            )
    for index, item in enumerate(orders.get("end_in_play") or []):
        if not any(item["card"] in _in_play(state, deck) for deck in state["seats"][seat]):
            problems.append(
                Problem(
                    "illegal.card.not-in-play",
                    f"orders.end_in_play[{index}].card",
                    f"none of your cards in play is {item['card']}",
                )
            )
    march = orders.get("free_march")
    if march is not None:
        if march["power"] not in seats.powers_of_seat(state, seat):
            problems.append(
                Problem(
                    "illegal.power",
                    "orders.free_march.power",
                    f"{seat} plays {', '.join(seats.powers_of_seat(state, seat))}",
                )
            )
        if arithmetic.activation_ap_spent(march.get("moves") or []) > arithmetic.ADMIN_MARCH_AP:
            problems.append(Problem("illegal.ap", "orders.free_march.moves", "an admin march has 6 AP (8.8.1)"))
    problems += tracks.order_problems(state, orders)
    return problems


def _in_play(state: Mapping[str, Any], deck: str) -> list[str]:
    pile = state["cards"]["decks"].get(deck) if state["cards"] else None
    return [entry["card"] for entry in (pile or {}).get("in_play", [])]


def _is_mover(state: Mapping[str, Any], seat: str) -> bool:
    return state["step"]["kind"] == "power" and seat_of_power(state, state["step"]["power"]) == seat


def _hand_of_power(state: Mapping[str, Any]) -> list[str]:
    power = state["step"]["power"]
    return cards.hand(state, seat_of_power(state, power), DECK_OF_POWER[power])


def _fields(state: Mapping[str, Any], seat: str) -> tuple[str, ...]:
    kind = state["step"]["kind"]
    common = ("track", "mulligan", "end_in_play")
    if kind == "start":
        return ("track",)
    if kind == "battle":
        return ("force", "tac", *common) if fights(state, seat) else common
    if kind == "changing-aims":
        return ("free_march", "track")
    if kind == "spring":
        return ("play", "pass", *common)
    if _is_mover(state, seat):
        extra = ("attrition",) if state["season"] in WINTER_SEASONS else ()
        return ("play", "pass", *extra, *common)
    return ("reactions", *common)


# -- adjudication ---------------------------------------------------------------------------


def resolve(
    state: Mapping[str, Any], orders: Mapping[str, Mapping[str, Any]], dice: Dice
) -> tuple[dict[str, Any], list[Event]]:
    """Adjudicate the open phase and open the next."""
    new = thaw(state)
    new["played"] = []
    kind = new["step"]["kind"]
    events: list[Event] = []
    if kind == "start":
        missing = [need for need in AT_START if supplied(new, need) is None]
        if missing:  # the core holds the start instead (supplies.wanted); a direct caller gets this
            new["turn"] += 1
            text = f"The game waits for its referee to supply: {', '.join(missing)}; the start comes round again."
            return new, [Event("waiting", text, {"missing": missing})]
        events += _deal(new, dice)
    elif kind == "power":
        turn = PowerTurn(new, orders, dice, new["step"]["power"])
        turn.seal_all()
        mover = orders.get(turn.mover, {})
        if mover.get("play"):
            turn.play(mover["play"])
        else:
            events.append(
                Event(
                    "pass", f"{new['step']['power'].title()} plays no card this turn.", {"power": new["step"]["power"]}
                )
            )
        if new["season"] in WINTER_SEASONS:
            turn.attrition(mover.get("attrition"))
        events += turn.events
    elif kind == "battle":
        events += battle.resolve_battle(new, orders, dice)
    elif kind == "spring":
        for seat in sorted(orders):
            play = orders[seat].get("play")
            if play:
                power = play.get("power") or seats.powers_of_seat(new, seat)[0]
                turn = PowerTurn(new, {}, dice, power)
                turn.play(play)
                events += turn.events
    elif kind == "changing-aims":
        events += _free_marches(new, orders)
    for seat in sorted(orders):
        for item in orders[seat].get("end_in_play") or []:
            deck = next((d for d in new["seats"][seat] if item["card"] in _in_play(new, d)), None)
            if deck is not None:
                new["cards"], ended = decks.end_in_play(new["cards"], deck, item["card"], item["to"], dice, by=seat)
                events += ended
        events += track_changes(new, seat, orders[seat].get("track"))
    events += _advance(new, dice)
    new["turn"] += 1
    return new, events


def _free_marches(state: Mapping[str, Any], orders: Mapping[str, Mapping[str, Any]]) -> list[Event]:
    """22.6: each power's free 15 SP admin march, in the power order; none can be interrupted
    or intercepted, so no reaction is sealed for them."""
    marches = {o["free_march"]["power"]: o["free_march"] for o in orders.values() if o.get("free_march")}
    events = []
    for power in [p for p in power_order(state) if p in marches]:
        march = marches[power]
        path = ", ".join(move["to"] for move in march.get("moves") or []) or "no move"
        text = (
            f"{power.title()} makes its free admin march of {march['sp']} SP (22.6): {path}; it cannot be "
            "interrupted or intercepted."
        )
        events.append(Event("free-march", text, {"power": power, "sp": march["sp"], "moves": march.get("moves") or []}))
    return events


def _deal(state: dict[str, Any], dice: Dice) -> list[Event]:
    """Build the decks from the supplied cards, shuffle them and draw every hand to its size;
    set the tracks to their supplied starts."""
    definitions = cards.deck_definitions(state)
    state["cards"] = decks.new_decks(definitions, sorted(state["seats"]))
    state["cards"], events = decks.start(state["cards"], dice)
    for entry in supplied(state, "track_starts")["starts"]:
        state["tracks"][entry["track"]]["value"] = entry["start"]
    return events + _draw_all(state, dice)


def _draw_all(state: dict[str, Any], dice: Dice) -> list[Event]:
    """Every deck's holder draws up to the deck's supplied hand size."""
    sizes = {entry["deck"]: entry["size"] for entry in supplied(state, "hands")["sizes"]}
    events: list[Event] = []
    for deck in seats.DECKS:
        holder = seats.holder_of_deck(state, deck)
        want = sizes[deck] - len(cards.hand(state, holder, deck))
        if want > 0:
            shuffles = state["cards"]["decks"][deck]["shuffles"]
            before = len(state["cards"]["decks"][deck]["draw"])
            state["cards"], drawn = decks.draw(state["cards"], deck, holder, want, dice)
            # The drawer learns the cards of the pile's top positions it drew (its proofs say so).
            taken = [f"/cards/decks/{deck}/draw/{i}" for i in range(min(want, before))]
            events += [
                Event(e.kind, e.text, {**e.data, "reveals": taken}, e.visible_to) if e.kind == "hand.drawn" else e
                for e in drawn
            ]
            if state["cards"]["decks"][deck]["shuffles"] != shuffles:
                events += _known_rest(state, deck, holder)
    return events


def _known_rest(state: Mapping[str, Any], deck: str, holder: str) -> list[Event]:
    """After a draw that ran the pile out and reshuffled the face-up discards, the holder knows
    what is left in the draw pile when it is one card (its copies): say so."""
    pile = state["cards"]["decks"][deck]["draw"]
    if len({entry["card"] for entry in pile}) != 1:
        return []
    text = (
        f"The {seats.DECK_TITLES[deck]} draw pile now holds only {pile[0]['card']} (the discards reshuffled, less "
        "your draw)."
    )
    return [Event("draw-pile.known", text, {"deck": deck}, (holder,))]


def _advance(state: dict[str, Any], dice: Dice) -> list[Event]:
    """Move to the next phase: a battle waiting, the next power, the next season or year."""
    if state["battles"]:
        if state["step"]["kind"] != "battle":
            state["resume"] = state["step"]
        state["step"] = {"kind": "battle"}
        return []
    if state["step"]["kind"] == "battle":
        state["step"] = state.pop("resume")
    step = state["step"]
    order = power_order(state)
    if step["kind"] == "power" and step["index"] + 1 < len(order):
        state["step"] = {"kind": "power", "power": order[step["index"] + 1], "index": step["index"] + 1}
        return []
    if step["kind"] == "start":
        if state["options"]["changing_aims"] and state["year"] in CHANGING_AIMS_YEARS:
            state["step"] = {"kind": "changing-aims"}
            return []
        return _season_start(state, dice, first=True)
    if step["kind"] == "changing-aims":
        return _season_start(state, dice, first=True)
    return _next_season(state, dice)


def _next_season(state: dict[str, Any], dice: Dice) -> list[Event]:
    index = SEASONS.index(state["season"])
    if index + 1 < len(SEASONS):
        state["season"] = SEASONS[index + 1]
    else:
        state["year"] += 1
        state["season"] = SEASONS[0]
        state["colonial"]["bought"] = {}
        if state["year"] > state["options"]["last_year"]:
            state["step"] = {"kind": "over"}
            return [
                Event(
                    "game.over",
                    f"The last year ({state['options']['last_year']}) is played: the game ends. Victory is "
                    "judged by the VP tracks (20.0, 23.0).",
                    {},
                )
            ]
    return _season_start(state, dice)


def _season_start(state: dict[str, Any], dice: Dice, first: bool = False) -> list[Event]:
    """Open a season: bring in a period's cards when due, draw hands when due, open its first phase."""
    events = [
        Event(
            "season",
            f"{SEASON_TITLES[state['season']]} {state['year']} begins.",
            {"year": state["year"], "season": state["season"]},
        )
    ]
    events += _periods(state, dice)
    if state["season"] in supplied(state, "hands")["draw_in"] and not first:
        events += _draw_all(state, dice)
    if state["season"] == "spring":
        state["step"] = {"kind": "spring"}
    else:
        order = power_order(state)
        state["step"] = {"kind": "power", "power": order[0], "index": 0}
    return events


def _periods(state: dict[str, Any], dice: Dice) -> list[Event]:
    """Bring a war period's cards into every draw pile when its year and season come (2.1)."""
    events: list[Event] = []
    for period in supplied(state, "cards").get("periods") or []:
        due = (period["year"], SEASONS.index(period.get("season", "late-winter")))
        if period["period"] in state["periods_in"] or (state["year"], SEASONS.index(state["season"])) < due:
            continue
        state["periods_in"].append(period["period"])
        for entry in supplied(state, "cards")["decks"]:
            coming = [card["id"] for card in entry["cards"] if card.get("period", "early") == period["period"]]
            if coming:
                state["cards"], happened = decks.bring_in(state["cards"], entry["deck"], coming, dice)
                events += happened
    return events


# -- what each seat sees --------------------------------------------------------------------


def view(state: Mapping[str, Any], seat: str | None) -> dict[str, Any]:
    """Return what a seat (None: the public) sees: the calendar, the tracks, every deck as the
    seat may see it with the texts of its own hand, the cards played this phase, sieges."""
    deck_view: dict[str, Any] = decks.deck_view(state["cards"], seat) if state["cards"] else {}
    for deck, shown in deck_view.items():
        for entry in shown.get("your_hand", []):
            info = cards.card_info(state, deck, entry["card"])
            entry.update(
                {key: info[key] for key in ("cp", "uses", "text", "tac", "one_time", "stays_in_play") if key in info}
            )
        for entry in shown.get("in_play", []):
            entry["text"] = cards.card_info(state, deck, entry["card"]).get("text", "")
    return {
        "game": "clash-of-sovereigns",
        "you": seat,
        "your_powers": seats.powers_of_seat(state, seat) if seat else [],
        "seats": {name: list(held) for name, held in state["seats"].items()},
        "year": state["year"],
        "season": state["season"],
        "phase": title(state),
        "step": dict(state["step"]),
        "leaders": [dict(item) for item in (supplied(state, "ratings") or {"leaders": []})["leaders"]],
        "power_order": power_order(state),
        "options": dict(state["options"]),
        "supplied": sorted(state["supplied"]),
        "decks": deck_view,
        "played": [dict(entry) for entry in state["played"]],
        "battles": [dict(entry) for entry in state["battles"]],
        "tracks": tracks.view(state["tracks"]),
        "sieges": dict(state["sieges"]),
        "colonial": {area: list(state["colonial"][area]) for area in ("louisbourg", "india")},
        "mulligans": dict(state["mulligans"]),
        "sovereigns": dict(state["sovereigns"]),
    }


def secrets(state: Mapping[str, Any]) -> list[Secret]:
    """Return the hidden leaves: cards in draw piles (no one) and in hands (their holder)."""
    return decks.secrets(state["cards"], "/cards") if state["cards"] else []


def in_play(state: Mapping[str, Any]) -> list[InPlay]:
    """Return the shuffles whose cards some seat still may not know."""
    return decks.in_play(state["cards"]) if state["cards"] else []


def check(state: Mapping[str, Any]) -> list[str]:
    """Return broken invariants."""
    problems = []
    if state["season"] not in SEASONS:
        problems.append(f"unknown season {state['season']}")
    if state["cards"]:
        problems += decks.check(state["cards"])
    if state["step"]["kind"] == "battle" and not state["battles"]:
        problems.append("a battle phase without a battle")
    for side, left in state["mulligans"].items():
        if side not in SIDES or not isinstance(left, bool):
            problems.append(f"bad mulligan {side}")
    return problems + tracks.check(state["tracks"])
