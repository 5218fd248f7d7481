"""Who the variable territories of Cockpit of Europe belong to, from who holds their key places
(1.23, 1.44, 1.47): pure functions for the players' board, which the module does not hold. A
holder is "allies", "france" or None (neither side)."""

from __future__ import annotations

from collections.abc import Sequence

from games.cockpit_of_europe.model import other


def ghent_control(ghent: str | None, fortified_areas: Sequence[str | None]) -> str | None:
    """Return who controls the Ghent Barrier Fort complex for victory (1.23): the Allies when
    they occupy Ghent or both its Fortified Areas, the French when they occupy Ghent and both;
    else neither (the extraction's reading of a complex split otherwise)."""
    if ghent == "allies" or all(area == "allies" for area in fortified_areas):
        return "allies"
    if ghent == "france" and all(area == "france" for area in fortified_areas):
        return "france"
    return None


def liege_alignment(city: str | None) -> dict[str, str]:
    """Return what the Bishopric of Liege is to each side (1.44): Friendly to the side holding the
    Fortified City of Liege and Enemy to the other; Unaligned while neither holds it."""
    if city is None:
        return {"allies": "unaligned", "france": "unaligned"}
    return {city: "friendly", other(city): "enemy"}


def bouillon_alignment(town: str | None) -> str:
    """Return what the Duchy of Bouillon is (1.47): Unaligned while the Allies control the Town of
    Bouillon, else Friendly to France."""
    return "unaligned" if town == "allies" else "friendly to france"
