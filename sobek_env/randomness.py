"""The generators a caller may hand the engines, made into the one kind they draw from.

Search agents and RL code hold different generators: Python's ``random.Random``, numpy's
``Generator`` or just a seed. :func:`as_random` turns each into a ``random.Random`` that the engines
(Python and native alike) draw from in one fixed way, so a result depends only on the generator given.
"""

from __future__ import annotations

import random
from numbers import Integral
from typing import Any

SEED_BITS = 63  # a seed drawn from a numpy generator is below 2**63


def as_random(rng: Any, name: str = "rng") -> random.Random:
    """``rng`` itself if it is a ``random.Random``; a ``random.Random`` seeded from it if it is a numpy
    ``Generator`` (one draw, so the generator advances) or a non-negative integer seed. TypeError or
    ValueError naming ``name`` for anything else."""
    if isinstance(rng, random.Random):
        return rng
    if isinstance(rng, Integral) and not isinstance(rng, bool):
        if int(rng) < 0:
            raise ValueError(f"{name} as a seed must be a non-negative integer, got {int(rng)}")
        return random.Random(int(rng))
    if type(rng).__name__ == "Generator" and hasattr(rng, "bit_generator") and hasattr(rng, "integers"):
        return random.Random(int(rng.integers(0, 2**SEED_BITS)))
    raise TypeError(f"{name} must be a random.Random, a numpy Generator or an integer seed, "
                    f"got {type(rng).__name__}")
