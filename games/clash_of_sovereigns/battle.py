"""A Major Battle (13.2): both sides' forces and Tac cards, sealed in the same phase and opened
together; ABR, terrain, cavalry, Tac and Worn DRMs; the Day of Battle card; each side's die
on the CRT; losses, the winner, leader casualties (13.3-13.7, 22.1, 22.2)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.clash_of_sovereigns import arithmetic, labels
from games.clash_of_sovereigns.cards import card_info, find_deck, leader
from games.clash_of_sovereigns.rolls import Roller, table
from games.clash_of_sovereigns.seats import seat_of_power
from games.clash_of_sovereigns.supplies import supplied
from referee.kit import Dice, Event, NotSupplied, decks

SIDES = ("attacker", "defender")


def army_rating(state: Mapping[str, Any], nation: str) -> int:
    """Return a nation's Army Rating in the game's year (the latest supplied from that year on)."""
    ratings = supplied(state, "ratings")
    if ratings is None:
        raise NotSupplied("ratings", "the army ratings are not supplied: a Major Battle reads them (13.3)")
    found = [r for r in ratings["armies"] if r["nation"] == nation and r.get("from_year", 0) <= state["year"]]
    if not found:
        raise NotSupplied("ratings", f"no army rating is supplied for the {nation} army in {state['year']} (13.3)")
    return max(found, key=lambda r: r.get("from_year", 0))["rating"]


def side_abr(state: Mapping[str, Any], force: Mapping[str, Any]) -> tuple[int, list[str]]:
    """Return a side's ABR (13.3) and how it was made: the (mixed) Army Rating, the commander's
    rating, and the subordinates' when option subordinate_ratings is always."""
    nations = sorted({entry["nation"] for entry in force["nations"]})
    ratings = [army_rating(state, nation) for nation in nations]
    army = arithmetic.mixed_army_rating(ratings)
    commander = _leader_rating(state, force["commander"])
    others = (
        [_leader_rating(state, name) for name in force.get("subordinates") or []]
        if state["options"]["subordinate_ratings"] == "always"
        else []
    )
    how = [
        f"army {army}"
        + (
            f" (average of {', '.join(f'{n} {r}' for n, r in zip(nations, ratings))}, rounded up)"
            if len(nations) > 1
            else ""
        ),
        f"{force['commander']} {commander}",
    ]
    how += [f"{name} {rating}" for name, rating in zip(force.get("subordinates") or [], others)]
    return arithmetic.army_battle_rating(army, commander, others), how


def _leader_rating(state: Mapping[str, Any], name: str) -> int:
    found = leader(state, name)
    if found is None:
        raise NotSupplied("ratings", f"no rating is supplied for the leader {name} (13.3.2)")
    return int(found["rating"])


def crt_column(columns: Sequence[str], sp: int) -> str:
    """Return the CRT column a side of `sp` SP fires on: the one with the largest least SP it reaches."""
    reached = [c for c in columns if int(c[3:]) <= sp]
    return max(reached or [min(columns, key=lambda c: int(c[3:]))], key=lambda c: int(c[3:]))


def tac_drms(
    state: Mapping[str, Any], seat_tac: Mapping[str, Sequence[tuple[str, str]]]
) -> tuple[list[int], list[int], list[str]]:
    """Return the Tac card DRMs aimed at each side (13.5: a card's own DRM to its side, its enemy
    DRM to the other) and what each card did."""
    aimed: tuple[list[int], list[int]] = ([], [])
    said = []
    for index, side in enumerate(SIDES):
        for deck, card in seat_tac.get(side, ()):
            info = card_info(state, deck, card).get("tac", {})
            own, enemy = info.get("own", 0), info.get("enemy", 0)
            aimed[index].append(own)
            aimed[1 - index].append(enemy)
            said.append(
                f"{side} plays {card_info(state, deck, card).get('name', card)}: {own:+d} to itself, {enemy:+d} "
                "to the enemy"
            )
    return aimed[0], aimed[1], said


def resolve_battle(state: dict[str, Any], orders: Mapping[str, Mapping[str, Any]], dice: Dice) -> list[Event]:
    """Fight the first battle waiting; return its events (the state changes in place)."""
    battle = state["battles"].pop(0)
    powers = (battle["attacker"], battle["defender"])
    seats = tuple(seat_of_power(state, power) for power in powers)
    forces = [orders.get(seat, {}).get("force") for seat in seats]
    events: list[Event] = []
    if any(force is None for force in forces):
        missing = ", ".join(seat for seat, force in zip(seats, forces) if force is None)
        return [
            Event(
                "battle.unfought",
                f"The battle at {battle['at']} is not fought: no force was sent by {missing}; the referee may "
                "settle it by override.",
                {"battle": battle},
            )
        ]
    crt = table(state, "crt")
    assert crt.columns is not None
    tac: dict[str, list[tuple[str, str]]] = {}
    for side, seat in zip(SIDES, seats):
        for card in orders[seat].get("tac") or []:
            deck = find_deck(state, seat, card)
            if deck is None:
                continue
            tac.setdefault(side, []).append((deck, card))
            info = card_info(state, deck, card)
            state["cards"], happened = decks.play(state["cards"], deck, seat, card, dice, use="tac")
            events += happened
            events.append(
                Event(
                    "card.played",
                    f"{seat} plays {info.get('name', card)} ({card}) as a Tac card at {battle['at']}.",
                    {"seat": seat, "deck": deck, "card": card, "use": "tac", "card_data": info},
                )
            )
            state["played"].append(
                {"power": seat, "card": card, "name": info.get("name", ""), "use": "tac", "text": info.get("text", "")}
            )
    sp = tuple(sum(entry["sp"] for entry in force["nations"]) for force in forces)  # type: ignore[index]
    abr = [side_abr(state, force) for force in forces]  # type: ignore[arg-type]
    abr_drm = arithmetic.abr_drms(abr[0][0], abr[1][0])
    terrain = arithmetic.terrain_drms(battle["terrain"])
    cavalry = (0, 0)
    if state["options"]["cavalry_superiority"]:
        cavalry = arithmetic.cavalry_superiority((sp[0], sp[1]), tuple(f.get("cavalry_sp", 0) for f in forces))  # type: ignore[union-attr,arg-type]
    aimed_a, aimed_d, said = tac_drms(state, tac)
    db = day_of_battle(state, dice, events) if state["options"]["day_of_battle"] else None
    drm = [
        arithmetic.battle_drm(abr_drm[i], aimed, forces[i].get("worn", 0), [terrain[i], cavalry[i]])  # type: ignore[union-attr]
        for i, aimed in enumerate((aimed_a, aimed_d))
    ]
    roller = Roller(state, {}, dice)
    percents, inflicted = [], []
    for index, side in enumerate(SIDES):
        column = crt_column(crt.columns, sp[index])
        lookup = roller.on_table(
            None,
            "battle",
            "crt",
            labels.battle(side),
            [{"drm": drm[index]}],
            events,
            f"the {side}'s battle roll",
            column,
        )
        percents.append(lookup.result)
        inflicted.append(arithmetic.losses_inflicted(sp[index], lookup.result))
    large = arithmetic.is_large_battle(sp[0], sp[1])
    if db is not None and large and db.get("large_halves_losses"):
        inflicted = [arithmetic.halve_round_up(n) for n in inflicted]
    winner = arithmetic.battle_winner((inflicted[0], inflicted[1]), (abr[0][0], abr[1][0]))
    lines = [
        f"{side} {powers[i].title()}: {sp[i]} SP, ABR {abr[i][0]} ({' + '.join(abr[i][1])}), DRM {drm[i]:+d}, "
        f"fires at {percents[i]}%: inflicts {inflicted[i]} SP"
        for i, side in enumerate(SIDES)
    ]
    result = (
        f"{powers[winner].title()} wins" if winner is not None else "a tie the book's illegible tie-break must settle"
    )
    events.append(
        Event(
            "battle.result",
            f"Major Battle at {battle['at']}: "
            + "; ".join(lines)
            + (f". Tac: {'; '.join(said)}" if said else "")
            + f". {result}"
            + (
                f"; {powers[1 - winner].title()}'s force takes a Worn marker or advances its own (-1 to -3, "
                "13.7; the players keep it and give it as `worn` in its next battle)"
                if winner is not None
                else ""
            )
            + ".",
            {
                "battle": battle,
                "sp": list(sp),
                "abr": [a[0] for a in abr],
                "drm": drm,
                "percent": percents,
                "inflicted": inflicted,
                "winner": None if winner is None else powers[winner],
                "large": large,
            },
        )
    )
    for side in SIDES if state["options"].get("leader_casualties", "each-battle") == "each-battle" else ():
        lookup = roller.on_table(
            None,
            "battle",
            "leader-casualty",
            labels.leader_casualty(side),
            [],
            events,
            f"the {side}'s leader casualty roll",
        )
        events.append(
            Event(
                "leader.casualty",
                f"Leader casualty roll, {side}: {lookup.row} -> {lookup.text} (13.6.2).",
                {"side": side, "lookup": lookup.as_dict()},
            )
        )
    return events


def day_of_battle(state: Mapping[str, Any], dice: Dice, events: list[Event]) -> dict[str, Any] | None:
    """Draw a Day of Battle card at random from the whole deck (22.1: each is shuffled back)."""
    cards = supplied(state, "day_of_battle")
    if cards is None:
        raise NotSupplied("day_of_battle", "the Day of Battle cards are not supplied (22.1)")
    number = sum(1 for event in events if event.kind == "day-of-battle") + 1
    drawn = dict(cards["cards"][dice.uniform(len(cards["cards"]), label=labels.day_of_battle(number))])
    events.append(
        Event(
            "day-of-battle",
            f"The attacker draws Day of Battle card {drawn['id']}: land battles: {drawn['land']} Large Battles: "
            f"{drawn['large']} It is shuffled back (22.1).",
            {"card": drawn},
        )
    )
    return drawn
