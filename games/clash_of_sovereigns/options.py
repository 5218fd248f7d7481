"""The game's options: the optional rules 22.1-22.10, each by name, and the choices the book
leaves open (README.md, Options). Every option is read once, at set-up, into the state."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.kit import GameDataError

# Optional rules (22.0: "in any combination by agreement of all players"): all off unless chosen.
OPTIONAL_RULES = {
    "day_of_battle": "22.1 Day of Battle cards: the attacker draws one at random before a Major Battle or interception",
    "cavalry_superiority": "22.2 Cavalry Superiority: 4 more cavalry SP (both sides 10 SP or more) give the other -1",
    "colonial_influence": "22.3 Colonial Influence: the British and French may spend one 3+ CP card a year on it",
    "limited_intelligence": "22.4 Limited Intelligence: enemy stacks are not examined (kept on the players' table)",
    "sovereign_limits": "22.5 Sovereign CICs: each sovereign takes the field at most twice a game",
    "changing_aims": "22.6 Sovereigns' Changing Aims: a free 15 SP admin march each before the 1744 and 1746 starts",
    "fleet_bombardment": "22.7 Fleet Bombardment: a Fleet Sortie card may bombard a coastal space",
    "supply_sharing": "22.8 Limited French and Prussian Supply Sharing",
    "neutral_ports": "22.9 Using Neutral Ports: Sea Transport of up to 15 SP to a neutral port",
    "mulligans": "22.10 Mulligans: each side rerolls one of its own non-battle rolls once a game",
}
# Choices the book leaves open (illegible or silent), with the reading each defaults to.
CHOICES = {
    "first_year": "the year whose Late Winter the game starts in (default 1741; the set-ups are in the absent "
    "Play Book)",
    "last_year": "the last year played (default 1748, the war's end)",
    "subordinate_ratings": "whether subordinate leaders' ratings add to the ABR: always (the book's 13.3 example "
    "counts Batthyani) or never",
    "tac_cards_per_side": "the most Tac cards a side may play in one battle (default: no limit; 13.5's limit is "
    "illegible)",
    "may_pass": "whether a power with cards may pass its turn instead of playing one (default true; 4.2.2 A is lost)",
    "leader_casualties": "when the 2d6 leader casualty roll is made: each-battle (one roll a side after every Major "
    "Battle: our reading of the garbled 13.6.2) or never",
    "supplied": "what the referee supplies, given at the start instead of by `referee supply`: {NEED: DATA} "
    "(the same data as a supply file's; see README.md)",
}
OPTIONS = {**OPTIONAL_RULES, **CHOICES}
SUBORDINATES = ("always", "never")


def read_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """Return the game's options as the state keeps them; raise GameDataError naming a bad one."""
    read: dict[str, Any] = {}
    for name in OPTIONAL_RULES:
        value = options.get(name, False)
        if not isinstance(value, bool):
            raise GameDataError(f"option {name} must be true or false, got {value!r}", hints=(OPTIONAL_RULES[name],))
        read[name] = value
    first, last = options.get("first_year", 1741), options.get("last_year", 1748)
    for name, year in (("first_year", first), ("last_year", last)):
        if isinstance(year, bool) or not isinstance(year, int) or not 1740 <= year <= 1748:
            raise GameDataError(f"option {name} must be a year from 1740 to 1748, got {year!r}")
    if last < first:
        raise GameDataError(f"option last_year ({last}) is before first_year ({first})")
    subordinates = options.get("subordinate_ratings", "always")
    if subordinates not in SUBORDINATES:
        raise GameDataError(f"option subordinate_ratings must be always or never, got {subordinates!r}")
    limit = options.get("tac_cards_per_side")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
        raise GameDataError(f"option tac_cards_per_side must be a whole number (0 or more), got {limit!r}")
    casualties = options.get("leader_casualties", "each-battle")
    if casualties not in ("each-battle", "never"):
        raise GameDataError(f"option leader_casualties must be each-battle or never, got {casualties!r}")
    may_pass = options.get("may_pass", True)
    if not isinstance(may_pass, bool):
        raise GameDataError(f"option may_pass must be true or false, got {may_pass!r}")
    return {
        **read,
        "first_year": first,
        "last_year": last,
        "subordinate_ratings": subordinates,
        "tac_cards_per_side": limit,
        "may_pass": may_pass,
        "leader_casualties": casualties,
    }
