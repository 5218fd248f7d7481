"""Bulk work without the garbage collector: adjudicating or checking a phase of many rolls.

Python's cyclic garbage collector runs every few hundred allocations and, once enough objects
survive, scans every object alive: a phase of 10,000 rolls makes millions of small objects
(dice, events, rendered lines) and almost no cycles, so the scans found nothing and cost a
quarter of the time, growing faster than the phase. `bulk_work` turns it off for the length
of one piece of work and back on after, also when the work fails; the few cycles it leaves are
collected then. Reference counting frees everything else as usual.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def bulk_work() -> Iterator[None]:
    """Run the body with the cyclic garbage collector off (as it was before when nested)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
