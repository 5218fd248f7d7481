"""The cards: who holds what, the card data the referee supplied, and whether a play is legal
(6.3: one use per card; 6.4 CP; 6.5 events; 6.5.5 interrupts; 13.5 Tac cards; 22.3, 22.5, 22.7)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.clash_of_sovereigns import arithmetic
from games.clash_of_sovereigns.seats import DECK_OF_POWER, DECK_TITLES, DECKS
from games.clash_of_sovereigns.supplies import USES, supplied
from referee.kit import Problem, decks

COLONIAL_POWERS = ("france", "britain")  # 22.3
COLONIAL_CP = 3  # 22.3: a 3+ CP card
SOVEREIGN_LIMIT = 2  # 22.5
SEA_TRANSPORT_MAX_SP = 15  # 16.3, 22.9
NEUTRAL_PORT_POWERS = ("france", "spain", "britain")  # 22.9
SEASON_USES = {"spring": ("spring",), "winter": ("winter", "late-winter")}  # 4.1.5; 4.3.2


def card_info(state: Mapping[str, Any], deck: str, card: str) -> dict[str, Any]:
    """Return a card's supplied data ({} for an unknown card)."""
    data = supplied(state, "cards")
    for entry in data["decks"] if data else []:
        if entry["deck"] == deck:
            return next((dict(c) for c in entry["cards"] if c["id"] == card), {})
    return {}


def deck_definitions(state: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Return the decks' definitions from the supplied cards: each deck owned by the seat holding
    it, no hand limit (hands are drawn up to their size), later periods' cards set aside."""
    data = supplied(state, "cards")
    definitions = {}
    for entry in data["decks"]:
        owner = next(seat for seat, held in state["seats"].items() if entry["deck"] in held)
        cards = []
        for card in entry["cards"]:
            shown: dict[str, Any] = {"id": card["id"], "name": card["name"], "count": 1, "cp": card["cp"]}
            if card.get("text"):
                shown["text"] = card["text"]
            if card.get("period", "early") != "early":
                shown["set_aside"] = True
            cards.append(shown)
        definitions[entry["deck"]] = {
            "title": DECK_TITLES[entry["deck"]],
            "cards": cards,
            "owner": owner,
            "per_player": False,
            "hand_limit": None,
            "deal": 0,
            "discard": "face-up",
            "reshuffle": "when-empty",
            "fields": {"cp": "int"},
            "uses": list(USES),
        }
    return decks.parse_decks({deck: definitions[deck] for deck in DECKS}, sorted(state["seats"]), "supplied cards")


def hand(state: Mapping[str, Any], seat: str, deck: str) -> list[str]:
    """Return the cards of `deck` in the seat's hand ([] before the decks are dealt)."""
    if not state["cards"]:
        return []
    pile = state["cards"]["decks"].get(deck)
    return [entry["card"] for entry in pile["hands"].get(seat, [])] if pile else []


def holds(state: Mapping[str, Any], seat: str, deck: str, card: str) -> bool:
    """Return whether the seat holds the card in its hand of `deck`."""
    return card in hand(state, seat, deck)


def find_deck(state: Mapping[str, Any], seat: str, card: str) -> str | None:
    """Return which of the seat's decks holds `card` in its hand, or None."""
    return next((deck for deck in state["seats"][seat] if holds(state, seat, deck, card)), None)


def leader(state: Mapping[str, Any], name: str) -> dict[str, Any] | None:
    """Return a leader's supplied ratings, or None (unknown, or ratings not supplied)."""
    ratings = supplied(state, "ratings")
    return next((dict(item) for item in ratings["leaders"] if item["name"] == name), None) if ratings else None


def play_problems(state: Mapping[str, Any], seat: str, power: str, play: Mapping[str, Any], path: str) -> list[Problem]:
    """Return the problems with the card a power plays: not held, a use it lacks, a use out of
    its season, and the checks of each use."""
    deck = DECK_OF_POWER[power]
    card, use = play["card"], play["as"]
    if not holds(state, seat, deck, card):
        held = ", ".join(hand(state, seat, deck)) or "no cards"
        return [Problem("illegal.card.not-held", f"{path}.card", f"{power} holds no {card} (its hand: {held})")]
    info = card_info(state, deck, card)
    problems = []
    if use not in info.get("uses", ()):
        allowed = ", ".join(info.get("uses", ())) or "nothing"
        problems.append(
            Problem("illegal.card.use", f"{path}.as", f"{card} may be played for {allowed}, not {use} (6.3.1)")
        )
        return problems
    season = state["season"]
    if use in SEASON_USES and season not in SEASON_USES[use]:
        problems.append(
            Problem(
                "illegal.card.season", f"{path}.as", f"a card is used as {use} only in {', '.join(SEASON_USES[use])}"
            )
        )
    if season == "spring" and use not in ("spring", "depot"):
        problems.append(
            Problem("illegal.card.season", f"{path}.as", "in Spring a card is used as spring or depot (4.1)")
        )
    if use == "operations":
        problems += operations_problems(state, power, info, play.get("operations") or [], f"{path}.operations")
    if use == "colonial-influence":
        problems += _colonial_problems(state, power, info, play, path)
    sovereign = info.get("sovereign") if use == "event" and state["options"]["sovereign_limits"] else None
    if sovereign and state["sovereigns"].get(sovereign, 0) >= SOVEREIGN_LIMIT:
        problems.append(
            Problem("illegal.card.sovereign", f"{path}.card", f"{sovereign} has taken the field twice already (22.5)")
        )
    if play.get("bombard") is not None:
        if not state["options"]["fleet_bombardment"]:
            problems.append(
                Problem(
                    "illegal.option", f"{path}.bombard", "Fleet Bombardment is optional rule 22.7, not in this game"
                )
            )
        elif not info.get("fleet_sortie") or use != "event":
            problems.append(
                Problem(
                    "illegal.card.bombard",
                    f"{path}.bombard",
                    "a bombardment comes with a Fleet Sortie card played as event (22.7)",
                )
            )
    return problems


def _colonial_problems(
    state: Mapping[str, Any], power: str, info: Mapping[str, Any], play: Mapping[str, Any], path: str
) -> list[Problem]:
    if not state["options"]["colonial_influence"]:
        return [Problem("illegal.option", f"{path}.as", "Colonial Influence is optional rule 22.3, not in this game")]
    if power not in COLONIAL_POWERS:
        return [
            Problem("illegal.card.colonial", f"{path}.as", "only the British and French buy Colonial Influence (22.3)")
        ]
    if info["cp"] < COLONIAL_CP:
        return [
            Problem(
                "illegal.card.colonial",
                f"{path}.card",
                f"Colonial Influence takes a 3+ CP card; this is {info['cp']} CP (22.3)",
            )
        ]
    if state["colonial"]["bought"].get(power) == state["year"]:
        return [
            Problem(
                "illegal.card.colonial",
                f"{path}.as",
                f"{power} has bought its Colonial Influence of {state['year']} (22.3.5)",
            )
        ]
    if play.get("colonial") is None:
        return [Problem("invalid.missing", f"{path}.colonial", "say where: louisbourg or india (22.3.1)")]
    return []


def operations_problems(
    state: Mapping[str, Any], power: str, info: Mapping[str, Any], operations: Sequence[Mapping[str, Any]], path: str
) -> list[Problem]:
    """Return the problems with a card's operations: CP over the card's value (6.4, 8.2), AP
    over each activation's allowance (8.3, 8.4), admin marches over 15 SP (8.8), C/H placed by
    others than Austria, sea transport over 15 SP (16.3, 22.9). Leaders' ratings are checked
    once supplied (before, the turn waits on the referee when adjudicated)."""
    problems: list[Problem] = []
    cp = 0
    rated = supplied(state, "ratings") is not None
    for index, op in enumerate(operations):
        where = f"{path}[{index}]"
        kinds = [k for k in ("activate", "admin_march", "place_ch", "free_leader_move", "sea_transport") if op.get(k)]
        if len(kinds) != 1:
            problems.append(
                Problem(
                    "invalid.operation",
                    where,
                    "give exactly one of activate, admin_march, place_ch, free_leader_move, sea_transport",
                )
            )
            continue
        kind = kinds[0]
        moves, sp = op.get("moves") or [], op.get("sp", 0)
        spent = arithmetic.activation_ap_spent(moves, op["siege"]["rolls"] if op.get("siege") else 0)
        if kind == "activate":
            found = leader(state, op["activate"])
            if rated and (found is None or found["power"] != power):
                problems.append(
                    Problem(
                        "illegal.leader",
                        f"{where}.activate",
                        f"{op['activate']} is not a leader of {power} in the supplied ratings",
                    )
                )
                continue
            if found is not None:
                cp += found["initiative"]
                allowance = arithmetic.ap_allowance(found["ap"], sp)
                if spent > allowance:
                    problems.append(
                        Problem(
                            "illegal.ap",
                            f"{where}.moves",
                            f"{op['activate']} has {allowance} AP (AP {found['ap']}, {sp} SP: 8.4) and these "
                            f"moves and sieges cost {spent} (8.3)",
                        )
                    )
        elif kind == "admin_march":
            cp += arithmetic.ADMIN_MARCH_CP
            if sp > arithmetic.ADMIN_MARCH_MAX_SP:
                problems.append(
                    Problem(
                        "illegal.admin-march", f"{where}.sp", f"an admin march moves at most 15 SP, not {sp} (8.8.1)"
                    )
                )
            if spent > arithmetic.ADMIN_MARCH_AP:
                problems.append(
                    Problem(
                        "illegal.ap", f"{where}.moves", f"an admin march has 6 AP; these moves cost {spent} (8.8.1)"
                    )
                )
            if op.get("battle") or op.get("siege"):
                problems.append(
                    Problem(
                        "illegal.admin-march", where, "an admin march may overrun but not attack or besiege (8.8.1)"
                    )
                )
        elif kind == "place_ch":
            cp += arithmetic.CH_PLACEMENT_CP
            if power != "austria":
                problems.append(Problem("illegal.ch", f"{where}.place_ch", "C/H are Austrian irregulars (12.0)"))
        elif kind == "free_leader_move":
            found = leader(state, op["free_leader_move"])
            if rated and (found is None or found["power"] != power):
                problems.append(
                    Problem(
                        "illegal.leader",
                        f"{where}.free_leader_move",
                        f"{op['free_leader_move']} is not a leader of {power}",
                    )
                )
            elif found is not None and spent > found["ap"]:
                problems.append(
                    Problem(
                        "illegal.ap",
                        f"{where}.moves",
                        f"{found['name']} alone has {found['ap']} AP; these moves cost {spent} (8.6)",
                    )
                )
            if sp or op.get("battle") or op.get("siege"):
                problems.append(
                    Problem(
                        "illegal.free-leader-move",
                        where,
                        "a leader moving alone takes no SP and fights no battle (8.6)",
                    )
                )
        else:
            transport = op["sea_transport"]
            if not info.get("fleet_sortie"):
                problems.append(
                    Problem(
                        "illegal.sea-transport",
                        f"{where}.sea_transport",
                        "Sea Transport is a Fleet Sortie mission (16.3)",
                    )
                )
            if sp > SEA_TRANSPORT_MAX_SP:
                problems.append(
                    Problem(
                        "illegal.sea-transport", f"{where}.sp", f"Sea Transport carries at most 15 SP, not {sp} (16.3)"
                    )
                )
            if transport.get("neutral") and (not state["options"]["neutral_ports"] or power not in NEUTRAL_PORT_POWERS):
                problems.append(
                    Problem(
                        "illegal.sea-transport",
                        f"{where}.sea_transport.neutral",
                        "neutral ports: optional rule 22.9, for France, Spain and Britain",
                    )
                )
        battle = op.get("battle")
        if battle is not None:
            problems += _battle_problems(state, power, battle, moves, f"{where}.battle")
    if cp > info.get("cp", 0):
        problems.append(
            Problem("illegal.cp", path, f"these operations cost {cp} CP; the card gives {info.get('cp', 0)} (6.4, 8.2)")
        )
    return problems


def _battle_problems(
    state: Mapping[str, Any], power: str, battle: Mapping[str, Any], moves: Sequence[Mapping[str, Any]], where: str
) -> list[Problem]:
    from games.clash_of_sovereigns.seats import SIDE_OF_POWER

    if SIDE_OF_POWER[battle["defender"]] == SIDE_OF_POWER[power]:
        return [Problem("illegal.battle.friend", f"{where}.defender", f"{battle['defender']} is {power}'s ally")]
    if moves and not (moves[-1]["to"] == battle["at"] and moves[-1].get("enemy_command")):
        return [
            Problem(
                "illegal.battle.where",
                f"{where}.at",
                "a battle is fought where the moves end, entered with enemy_command: true (+1 AP, 13.1)",
            )
        ]
    return []


def tac_problems(
    state: Mapping[str, Any], seat: str, tac: Sequence[str], force: Mapping[str, Any] | None, path: str
) -> list[Problem]:
    """Return the problems with a side's Tac cards (13.5): held, a Tac card, its prerequisites
    met by the force declared (Ligonier's Finest Day: 4 cavalry SP), within the option's limit."""
    problems = []
    limit = state["options"]["tac_cards_per_side"]
    if limit is not None and len(tac) > limit:
        problems.append(
            Problem("illegal.tac.limit", path, f"at most {limit} Tac card(s) a side (option tac_cards_per_side)")
        )
    nations = {entry["nation"] for entry in (force or {}).get("nations", [])}
    for index, card in enumerate(tac):
        deck = find_deck(state, seat, card)
        if deck is None:
            problems.append(Problem("illegal.card.not-held", f"{path}[{index}]", f"you hold no {card}"))
            continue
        info = card_info(state, deck, card)
        if "tac" not in info.get("uses", ()):
            problems.append(Problem("illegal.card.use", f"{path}[{index}]", f"{card} is not a Tac card (13.5)"))
            continue
        needs = info.get("tac", {})
        cavalry = (force or {}).get("cavalry_sp", 0)
        if cavalry < needs.get("cavalry_sp", 0):
            problems.append(
                Problem(
                    "illegal.tac.prerequisite",
                    f"{path}[{index}]",
                    f"{info['name']} needs {needs['cavalry_sp']} cavalry SP in your force; you have {cavalry} (13.5)",
                )
            )
        if (
            needs.get("power")
            and needs["power"] not in nations
            and not any(n.startswith(needs["power"][:4]) for n in nations)
        ):
            problems.append(
                Problem(
                    "illegal.tac.prerequisite",
                    f"{path}[{index}]",
                    f"{info['name']} needs {needs['power']} SP in your force (13.5)",
                )
            )
    if len(set(tac)) != len(tac):
        problems.append(Problem("illegal.tac.twice", path, "each card once"))
    return problems


def intercept_problems(
    state: Mapping[str, Any], seat: str, intercepts: Sequence[Mapping[str, Any]], path: str
) -> list[Problem]:
    """Return the problems with sealed interceptions: each by a leader of the seat's powers
    (checked once the ratings are supplied)."""
    from games.clash_of_sovereigns.seats import powers_of_seat

    if supplied(state, "ratings") is None:
        return []
    mine = powers_of_seat(state, seat)
    problems = []
    for index, item in enumerate(intercepts):
        found = leader(state, item["leader"])
        if found is None or found["power"] not in mine:
            problems.append(
                Problem(
                    "illegal.leader", f"{path}[{index}].leader", f"{item['leader']} leads none of {', '.join(mine)}"
                )
            )
    return problems


def interrupt_problems(
    state: Mapping[str, Any], seat: str, interrupts: Sequence[Mapping[str, Any]], path: str
) -> list[Problem]:
    """Return the problems with sealed interrupts (6.5.5): cards held, marked interrupt, each
    with a trigger."""
    problems = []
    for index, item in enumerate(interrupts):
        deck = find_deck(state, seat, item["card"])
        if deck is None:
            problems.append(Problem("illegal.card.not-held", f"{path}[{index}].card", f"you hold no {item['card']}"))
        elif "interrupt" not in card_info(state, deck, item["card"]).get("uses", ()):
            problems.append(
                Problem("illegal.card.use", f"{path}[{index}].card", f"{item['card']} is not an interrupt card (6.5.5)")
            )
        if not item.get("when_enters") and not item.get("when_admin_march"):
            problems.append(
                Problem("invalid.missing", f"{path}[{index}]", "say when: when_enters: SPACE or when_admin_march: true")
            )
    return problems
