"""Losses shared between the nationalities of a mixed stack or army (12.2.5 ships, 12.3.6 army
factors): shares as nearly proportional as possible, .5 rounding up, and the "odd" losses the
rounding leaves settled by the allies' agreement or, failing it, by competitive die rolls."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any


def proportional_shares(strengths: Mapping[str, int], lost: int) -> dict[str, int]:
    """Return each nationality's loss, its exact proportional share rounded half up (12.2.5: 68
    ships, 36/20/12, losing 10 -> 5/3/2). The shares may not add up to `lost`: see odd_losses."""
    total = sum(strengths.values())
    if total <= 0:
        return {nation: 0 for nation in strengths}
    shares = {}
    for nation, strength in strengths.items():
        exact = Fraction(lost * strength, total)
        shares[nation] = min(strength, int(exact + Fraction(1, 2)))
    return shares


def odd_losses(strengths: Mapping[str, int], lost: int) -> int:
    """Return the losses the rounded shares leave over: positive when they fall short of `lost`
    (someone takes more), negative when they exceed it (someone takes fewer), 0 when they round out."""
    return lost - sum(proportional_shares(strengths, lost).values())


def split_problems(split: Mapping[str, int], strengths: Mapping[str, int], lost: int, proportional: bool) -> list[str]:
    """Return what is wrong with a proposed split of `lost` between nationalities: every
    nationality named, the sum, no more than a contingent has, and with proportional losses
    each share within one of its rounded share (only the odd losses are open)."""
    found = []
    if set(split) != set(strengths):
        found.append(f"name every nationality present: {', '.join(sorted(strengths))}")
        return found
    if sum(split.values()) != min(lost, sum(strengths.values())):
        found.append(f"the losses must add up to {min(lost, sum(strengths.values()))}")
    for nation, count in split.items():
        if count < 0 or count > strengths[nation]:
            found.append(f"{nation} cannot lose {count}: it has {strengths[nation]}")
    if proportional:
        shares = proportional_shares(strengths, lost)
        for nation, count in split.items():
            if abs(count - shares[nation]) > 1:
                found.append(f"{nation}'s proportional share is {shares[nation]}: only an odd loss may change it")
    return found


def settle_by_rolls(
    strengths: Mapping[str, int], lost: int, rolls: Mapping[str, Sequence[int]], lowest_takes: bool
) -> dict[str, int]:
    """Return the split after competitive die rolls (12.2.5, 12.3.6): the rounded shares, then each
    odd loss taken by the lowest roll (`lowest_takes`, else the highest) among those who can take
    it, and an excess spared to the other end. `rolls` holds each nationality's rolls, compared in
    order (the first, then the tie-breakers)."""
    shares = proportional_shares(strengths, lost)
    odd = min(lost, sum(strengths.values())) - sum(shares.values())
    order = sorted(rolls, key=lambda nation: (list(rolls[nation]), nation), reverse=not lowest_takes)
    # order[0] takes an odd loss, order[-1] is spared one.
    step = 1 if odd > 0 else -1
    while odd != 0:
        takers = [n for n in order if (shares[n] < strengths[n] if step > 0 else shares[n] > 0)]
        if not takers:
            break
        nation = takers[0] if step > 0 else takers[-1]
        shares[nation] += step
        odd -= step
    return shares


def agreed(proposals: Mapping[str, Mapping[str, int] | None], players: Sequence[str]) -> Mapping[str, int] | None:
    """Return the split every player proposed alike, or None when one is missing or they differ."""
    given = [proposals.get(player) for player in players]
    if any(p is None for p in given):
        return None
    first = dict(given[0] or {})
    return first if all(dict(p or {}) == first for p in given) else None


def take_from(factors: Mapping[str, int], count: int, order: Sequence[str]) -> tuple[dict[str, int], dict[str, int]]:
    """Return (factors left, factors taken): `count` factors taken type by type in `order`."""
    left = dict(factors)
    taken: dict[str, int] = {}
    for kind in order:
        if count <= 0:
            break
        take = min(count, left.get(kind, 0))
        if take:
            left[kind] -= take
            taken[kind] = take
            count -= take
    return left, taken


def as_counts(value: Any) -> dict[str, int]:
    """Return a mapping of counts as plain ints (for states read back from JSON)."""
    return {str(key): int(count) for key, count in dict(value).items()}
