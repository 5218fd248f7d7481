"""A power's turn (4.2, 4.3, 4.4): its card played for one use, its operations space by space
(8.11: move, intercept, withdraw, battle), and the other seats' standing reactions, sealed
every turn and opened only when the moves trigger them (6.5.5 interrupts, 9.0 interception,
10.0 withdrawal, 16.3 naval interception)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.clash_of_sovereigns import arithmetic, labels
from games.clash_of_sovereigns.battle import day_of_battle
from games.clash_of_sovereigns.cards import card_info, leader
from games.clash_of_sovereigns.rolls import Roller
from games.clash_of_sovereigns.seats import DECK_OF_POWER, SIDE_OF_POWER, powers_of_seat, seat_of_power, side_of_seat
from referee.kit import Dice, Event, Hidden, NotSupplied, decks
from referee.kit.procedure import tracks

# The sealed reactions of a seat: a fixed number of slots, so that the seal tells no one how
# many reactions a seat left standing.
SLOTS = {"intercept": 0, "withdraw": 10, "interrupt": 20, "naval_intercept": 30}
SLOT_COUNT = 31


def seal_reactions(seat: str, reactions: Mapping[str, Any] | None, dice: Dice) -> tuple[Hidden, Event]:
    """Seal a seat's standing reactions for this turn; return the seal and the private event
    giving the seat its openings (everyone else sees nothing of them until one is triggered)."""
    values: list[Any] = [None] * SLOT_COUNT
    for kind, start in SLOTS.items():
        given = (reactions or {}).get(kind)
        if kind == "naval_intercept":
            values[start] = {"naval_intercept": True} if given else None
            continue
        for index, item in enumerate(given or []):
            values[start + index] = {"kind": kind, **item}
    hidden = dice.seal(values, label=labels.reactions(seat))
    count = sum(value is not None for value in values)
    event = Event(
        "reactions.sealed",
        f"Your standing reactions for this turn are sealed ({count} standing); each is opened only if triggered.",
        {"seat": seat, "openings": [hidden.opening(i) for i in range(SLOT_COUNT)]},
        (seat,),
    )
    return hidden, event


class PowerTurn:
    """One power turn's resolution: the state as it changes, the events, the sealed reactions."""

    def __init__(self, state: dict[str, Any], orders: Mapping[str, Mapping[str, Any]], dice: Dice, power: str) -> None:
        self.state, self.orders, self.dice, self.power = state, orders, dice, power
        self.mover = seat_of_power(state, power)
        self.events: list[Event] = []
        self.roller = Roller(state, orders, dice)
        self.seals: dict[str, Hidden] = {}
        self.reactions: dict[str, Mapping[str, Any]] = {}
        self.used: set[tuple[str, str, int]] = set()
        self.counter = 0

    def next_number(self) -> int:
        self.counter += 1
        return self.counter

    def seal_all(self) -> None:
        """Every seat but the mover seals its reactions (possibly none)."""
        for seat in sorted(self.state["seats"]):
            if seat == self.mover:
                continue
            reactions = self.orders.get(seat, {}).get("reactions") or {}
            if side_of_seat(self.state, seat) == SIDE_OF_POWER[self.power]:
                reactions = {}  # an ally has nothing to react to
            self.reactions[seat] = reactions
            self.seals[seat], event = seal_reactions(seat, reactions, self.dice)
            self.events.append(event)

    def _open(self, seat: str, kind: str, index: int, why: str) -> Mapping[str, Any]:
        """Open one triggered reaction for everyone, with its proof."""
        self.used.add((seat, kind, index))
        item = (self.reactions[seat].get(kind) or [])[index] if kind != "naval_intercept" else {"naval_intercept": True}
        slot = SLOTS[kind] + index
        self.events.append(
            Event(
                "reaction.opened",
                f"{seat}'s sealed {kind.replace('_', ' ')} is triggered ({why}) and opened: {describe(kind, item)}.",
                {"seat": seat, "kind": kind, "reaction": dict(item), "openings": [self.seals[seat].opening(slot)]},
            )
        )
        return item

    def _triggered(self, kind: str, test: Any) -> list[tuple[str, int, Mapping[str, Any]]]:
        found = []
        for seat, reactions in sorted(self.reactions.items()):
            for index, item in enumerate(reactions.get(kind) or []):
                if (seat, kind, index) not in self.used and test(seat, item):
                    found.append((seat, index, item))
        return found

    # -- the card ---------------------------------------------------------------------------

    def play(self, play: Mapping[str, Any]) -> None:
        """Play the mover's card for its use, then carry the use out."""
        deck = DECK_OF_POWER[self.power]
        info = card_info(self.state, deck, play["card"])
        use = play["as"]
        text_told = self._card_moves(deck, self.mover, play["card"], use, info)
        self.events.append(
            Event(
                "card.played",
                f"{self.power.title()} plays {info.get('name', play['card'])} ({play['card']}, {info.get('cp', 0)} CP) "
                f"as {use}."
                + ("" if text_told else f" Card text: {info.get('text', '(none supplied)')}")
                + (f" Its player says: {play['detail']}" if play.get("detail") else ""),
                {
                    "power": self.power,
                    "seat": self.mover,
                    "deck": deck,
                    "card": play["card"],
                    "use": use,
                    "card_data": info,
                },
            )
        )
        self.state["played"].append(
            {
                "power": self.power,
                "card": play["card"],
                "name": info.get("name", ""),
                "use": use,
                "text": info.get("text", ""),
            }
        )
        if use == "operations":
            for op in play.get("operations") or []:
                self.operation(op, info)
        elif use == "event":
            self.event(play, info)
        elif use == "colonial-influence":
            self.state["colonial"][play["colonial"]].append(self.power)
            self.state["colonial"]["bought"][self.power] = self.state["year"]
            self.events.append(
                Event(
                    "colonial.placed",
                    f"{self.power.title()} places a Colonial Influence marker in {play['colonial'].title()} (22.3.1).",
                    {"power": self.power, "area": play["colonial"]},
                )
            )

    def _card_moves(self, deck: str, seat: str, card: str, use: str, info: Mapping[str, Any]) -> bool:
        """Move the played card where its use sends it; return whether the deck's line told its text
        (a card played to the discard pile has its text told there, so the game need not repeat it)."""
        cards = self.state["cards"]
        text_told = False
        if use == "event" and info.get("stays_in_play"):
            cards, happened = decks.put_in_play(cards, deck, seat, card, self.dice, use=use)
        elif use == "event" and info.get("one_time"):
            cards, happened = decks.remove(cards, deck, seat, card, self.dice)
        else:
            cards, happened = decks.play(cards, deck, seat, card, self.dice, use=use)
            text_told = True
        self.state["cards"] = cards
        self.events += happened
        return text_told

    def event(self, play: Mapping[str, Any], info: Mapping[str, Any]) -> None:
        """An event's fixed parts: a sovereign takes the field (22.5), Colonial Influence rolls
        (22.3.2), a Fleet Bombardment (22.7). The rest of its text the players carry out."""
        if info.get("sovereign"):
            self.state["sovereigns"][info["sovereign"]] = self.state["sovereigns"].get(info["sovereign"], 0) + 1
        area = info.get("colonial_event")
        if area and self.state["colonial"][area]:
            for number, power in enumerate(self.state["colonial"][area], start=1):
                seat = seat_of_power(self.state, power)
                roll = self.roller.d6(
                    seat, "colonial-influence", labels.colonial(area, number), self.events, f"{power}'s CI marker"
                )
                ok = arithmetic.colonial_influence_succeeds(power, roll)
                self.events.append(
                    Event(
                        "colonial.rolled",
                        f"{power.title()}'s CI marker in {area.title()} rolls {roll}: "
                        + (
                            "success, a +1 or -1 DRM on the Colonial Event roll at its owner's choice (22.3.3)"
                            if ok
                            else "no success"
                        )
                        + "; the marker returns to the pool (22.3.5).",
                        {"power": power, "area": area, "roll": roll, "success": ok},
                    )
                )
            self.state["colonial"][area] = []
        if play.get("bombard") is not None:
            self.bombard(play["bombard"])

    def bombard(self, bombard: Mapping[str, Any]) -> None:
        """A Fleet Bombardment (22.7): naval interception first, then a d6 a section, each 6 a Depot, then SP."""
        if self.naval_intercepted(f"the bombardment of {bombard['space']}", attempts=1):
            return
        rolls = self.dice.roll(f"{bombard['sections']}d6", label=labels.bombardment(bombard["space"]))
        depots, sp = arithmetic.bombardment(rolls, bombard["depots"], bombard["sp"])
        self.events.append(
            Event(
                "bombardment",
                f"{bombard['sections']} fleet section(s) bombard {bombard['space']}: {rolls}; {depots} Depot(s) "
                f"and {sp} SP eliminated (22.7).",
                {"space": bombard["space"], "rolls": rolls, "depots": depots, "sp": sp},
            )
        )

    def naval_intercepted(self, what: str, attempts: int) -> bool:
        """Roll each sealed naval interception against a sortie; return whether one succeeds."""
        for seat in sorted(self.reactions):
            if not self.reactions[seat].get("naval_intercept") or (seat, "naval_intercept", 0) in self.used:
                continue
            self._open(seat, "naval_intercept", 0, what)
            for _ in range(attempts):
                lookup = self.roller.on_table(
                    seat,
                    "interception",
                    "naval-interception",
                    labels.naval(seat, self.next_number()),
                    [],
                    self.events,
                    f"{seat}'s naval interception",
                )
                ok = _succeeds(lookup)
                self.events.append(
                    Event(
                        "naval.interception",
                        f"{seat} tries to intercept {what}: {lookup.row} -> {_text(lookup)}.",
                        {"seat": seat, "lookup": lookup.as_dict(), "success": ok},
                    )
                )
                if ok:
                    return True
        return False

    # -- operations -------------------------------------------------------------------------

    def operation(self, op: Mapping[str, Any], info: Mapping[str, Any]) -> None:
        """Carry out one use of the card's CP, space by space."""
        if op.get("place_ch"):
            self.raid(self.mover, op["place_ch"], "a C/H placed with CP")
            return
        if op.get("sea_transport"):
            transport = op["sea_transport"]
            attempts = (
                2 if transport.get("neutral") and self.power == "britain" and transport.get("from_atlantic") else 1
            )
            if not self.naval_intercepted(f"the Sea Transport to {transport['to']}", attempts):
                self.events.append(
                    Event(
                        "sea.transport",
                        f"{self.power.title()} carries {op.get('sp', 0)} SP by sea to {transport['to']} (16.3).",
                        {"to": transport["to"], "sp": op.get("sp", 0)},
                    )
                )
            return
        who = op.get("activate") or op.get("free_leader_move") or "an admin march"
        admin = bool(op.get("admin_march"))
        found = leader(self.state, op["activate"]) if op.get("activate") else None
        if op.get("activate") and found is None:
            raise NotSupplied(
                "ratings", "the leaders' ratings are not supplied: an activation costs its leader's Initiative (8.2)"
            )
        moves = op.get("moves") or []
        spent = arithmetic.activation_ap_spent(moves, op["siege"]["rolls"] if op.get("siege") else 0)
        allowance = (
            arithmetic.ADMIN_MARCH_AP
            if admin
            else arithmetic.ap_allowance(found["ap"], op.get("sp", 0))
            if found
            else None
        )
        cost = f", {found['initiative']} CP" if found else ""
        self.events.append(
            Event(
                "activation",
                f"{self.power.title()} activates {who}{cost} with {op.get('sp', 0)} SP: "
                + (f"{allowance} AP, " if allowance is not None else "")
                + f"spends {spent} AP over {len(moves)} space(s)"
                + (f" and {op['siege']['rolls']} siege roll(s)" if op.get("siege") else "")
                + " (8.3, 8.4).",
                {"power": self.power, "who": who, "sp": op.get("sp", 0), "ap": allowance, "spent": spent},
            )
        )
        if admin:
            for seat, index, item in self._triggered(
                "interrupt", lambda seat, item: bool(item.get("when_admin_march"))
            ):
                self.interrupt(seat, index, item, "an admin march")
        stopped = False
        for move in moves:
            space = move["to"]
            self.events.append(
                Event(
                    "move",
                    f"{who} enters {space}" + (" (overrun, 0 AP)" if move.get("overrun") else "") + ".",
                    {"who": who, "to": space},
                )
            )
            for seat, index, item in self._triggered(
                "interrupt", lambda seat, item, s=space: item.get("when_enters") == s
            ):
                self.interrupt(seat, index, item, f"{who} entering {space}")
            for seat, index, item in self._triggered(
                "intercept", lambda seat, item, s=space: item.get("when_enters") == s
            ):
                if self.intercept(seat, index, item, who, space):
                    stopped = True
                    break
            if stopped:
                self.events.append(
                    Event(
                        "move.stopped",
                        f"{who}'s move stops in {space}: it is intercepted (9.0).",
                        {"who": who, "at": space},
                    )
                )
                return
        if op.get("siege"):
            self.siege(op["siege"])
        if op.get("battle"):
            self.battle(op["battle"], who)

    def interrupt(self, seat: str, index: int, item: Mapping[str, Any], why: str) -> None:
        """A sealed interrupt is triggered: its card is played as an interrupt (6.5.5)."""
        deck = next((d for d in self.state["seats"][seat] if item["card"] in _hand(self.state, seat, d)), None)
        self._open(seat, "interrupt", index, why)
        if deck is None:
            self.events.append(
                Event(
                    "interrupt.skipped",
                    f"{seat} no longer holds {item['card']}: the interrupt is not played.",
                    {"seat": seat},
                )
            )
            return
        info = card_info(self.state, deck, item["card"])
        self._card_moves(deck, seat, item["card"], "interrupt", info)
        self.events.append(
            Event(
                "card.played",
                f"{seat} interrupts with {info.get('name', item['card'])} ({item['card']})."
                + (f" Its player says: {item['detail']}" if item.get("detail") else ""),
                {"seat": seat, "deck": deck, "card": item["card"], "use": "interrupt", "card_data": info},
            )
        )
        self.state["played"].append(
            {
                "power": seat,
                "card": item["card"],
                "name": info.get("name", ""),
                "use": "interrupt",
                "text": info.get("text", ""),
            }
        )
        if item.get("raid"):
            self.raid(seat, item["raid"], f"{info.get('name', item['card'])}")

    def raid(self, seat: str, raid: Mapping[str, Any], why: str) -> None:
        """A C/H raid (12.4): a d6 greater than the enemy SP in the space succeeds."""
        roll = self.roller.d6(
            seat, "raid", labels.raid(raid["space"], self.next_number()), self.events, f"the raid on {raid['space']}"
        )
        ok = arithmetic.raid_succeeds(roll, raid["enemy_sp"])
        self.events.append(
            Event(
                "raid",
                f"C/H raid on {raid['space']} ({why}): rolls {roll} against {raid['enemy_sp']} enemy SP: "
                + ("success; the C/H flips to Successful Raid (12.4)" if ok else "fails (12.4)")
                + ".",
                {"space": raid["space"], "roll": roll, "enemy_sp": raid["enemy_sp"], "success": ok},
            )
        )

    def intercept(self, seat: str, index: int, item: Mapping[str, Any], who: str, space: str) -> bool:
        """A sealed interception is triggered: roll it (9.2); a success brings a Major Battle."""
        self._open(seat, "intercept", index, f"{who} entering {space}")
        if self.state["options"]["day_of_battle"]:
            day_of_battle(self.state, self.dice, self.events)  # 22.1: drawn just before an intercept too
        lookup = self.roller.on_table(
            seat,
            "interception",
            "interception",
            labels.interception(seat, self.next_number()),
            item.get("modifiers") or [],
            self.events,
            f"{seat}'s interception",
        )
        ok = _succeeds(lookup)
        self.events.append(
            Event(
                "interception",
                f"{item['leader']} tries to intercept at {space}: {lookup.row} -> {_text(lookup)}.",
                {"seat": seat, "lookup": lookup.as_dict(), "success": ok},
            )
        )
        if ok:
            found = leader(self.state, item["leader"])
            power = found["power"] if found else powers_of_seat(self.state, seat)[0]
            self._queue(power, self.power, space, "clear", intercept=True)
        return ok

    def siege(self, siege: Mapping[str, Any]) -> None:
        """Siege rolls (15.4): 2 AP each, each read on the siege table; +1 advances the level."""
        space = siege["space"]
        for _ in range(siege["rolls"]):
            lookup = self.roller.on_table(
                self.mover,
                "siege",
                "siege",
                labels.siege(space, self.next_number()),
                siege.get("modifiers") or [],
                self.events,
                f"the siege of {space}",
            )
            level = self.state["sieges"].get(space, 0)
            if "advance" in _effects(lookup):
                level = min(level + 1, 3)
                self.state["sieges"][space] = level
            self.events.append(
                Event(
                    "siege",
                    f"Siege roll at {space}: {lookup.row} -> {_text(lookup)}; {space} stands at Siege +{level} (15.4).",
                    {"space": space, "lookup": lookup.as_dict(), "level": level},
                )
            )

    def battle(self, battle: Mapping[str, Any], who: str) -> None:
        """A Major Battle is declared: the defender's sealed withdrawals first (10.0), then the battle."""
        defender_seat = seat_of_power(self.state, battle["defender"])
        at = battle["at"]
        for seat, index, item in self._triggered(
            "withdraw", lambda seat, item: seat == defender_seat and item.get("when_battle_at") == at
        ):
            self._open(seat, "withdraw", index, f"{who} attacking at {at}")
            lookup = self.roller.on_table(
                seat,
                "withdrawal",
                "withdrawal",
                labels.withdrawal(seat, self.next_number()),
                item.get("modifiers") or [],
                self.events,
                f"{seat}'s withdrawal",
            )
            ok = _succeeds(lookup)
            self.events.append(
                Event(
                    "withdrawal",
                    f"{battle['defender'].title()} tries to withdraw from {at} to {item['to']}: {lookup.row} -> "
                    f"{_text(lookup)}.",
                    {"seat": seat, "lookup": lookup.as_dict(), "success": ok},
                )
            )
            if ok:
                return
            break
        self._queue(self.power, battle["defender"], at, battle.get("terrain", "clear"))

    def _queue(self, attacker: str, defender: str, at: str, terrain: str, intercept: bool = False) -> None:
        self.state["battles"].append(
            {"attacker": attacker, "defender": defender, "at": at, "terrain": terrain, "intercept": intercept}
        )
        self.events.append(
            Event(
                "battle.declared",
                f"A Major Battle at {at}: {attacker.title()} attacks {defender.title()}; both sides send their "
                "force and Tac cards next.",
                {"attacker": attacker, "defender": defender, "at": at},
            )
        )

    # -- the rest of a turn ------------------------------------------------------------------

    def attrition(self, items: Any) -> None:
        """Winter attrition (17.3) of the forces the mover lists."""
        for item in items or []:
            loss = arithmetic.attrition_loss(
                item["sp"], item["percent"], item.get("demoralized", False), item.get("ss", 0)
            )
            self.events.append(
                Event(
                    "attrition",
                    f"{self.power.title()}'s {item['force']} ({item['sp']} SP, {item['percent']}% region) loses "
                    f"{loss} SP to attrition (5.1, 17.3).",
                    {"force": item["force"], "loss": loss},
                )
            )


def describe(kind: str, item: Mapping[str, Any]) -> str:
    """Return a sealed reaction in words, as its seat wrote it."""
    if kind == "naval_intercept":
        return "intercept any fleet sortie (16.3)"
    if kind == "withdraw":
        said = f"withdraw to {item['to']} if a battle is declared at {item['when_battle_at']}"
    elif kind == "intercept":
        said = f"{item['leader']} intercepts a force entering {item['when_enters']}" + (
            f" from {item['from']}" if item.get("from") else ""
        )
    else:
        when = "an admin march starts" if item.get("when_admin_march") else f"a force enters {item.get('when_enters')}"
        said = f"play {item['card']} as an interrupt when {when}"
        if item.get("raid"):
            said += f", raiding {item['raid']['space']} ({item['raid']['enemy_sp']} enemy SP)"
        if item.get("detail"):
            said += f" ({item['detail']})"
    modifiers = item.get("modifiers") or []
    if modifiers:
        said += f", claiming {', '.join(str(m) for m in modifiers)}"
    return said


def track_changes(state: dict[str, Any], seat: str, changes: Any) -> list[Event]:
    """Apply a seat's changes of the VP and MW tracks, each with its reason."""
    events = []
    for change in changes or []:
        state["tracks"], event = tracks.move(state["tracks"], change["track"], change["change"], change["reason"], seat)
        events.append(event)
    return events


def _hand(state: Mapping[str, Any], seat: str, deck: str) -> list[str]:
    return [entry["card"] for entry in state["cards"]["decks"][deck]["hands"].get(seat, [])]


def _effects(lookup: Any) -> tuple[str, ...]:
    result = lookup.result
    if isinstance(result, Mapping):
        return tuple(result.get("effects") or ())
    return (str(result),)


def _succeeds(lookup: Any) -> bool:
    return "succeeds" in _effects(lookup)


def _text(lookup: Any) -> str:
    result = lookup.result
    return str(result.get("text", result)) if isinstance(result, Mapping) else str(result)
