"""What a hand is worth to a planner that looks beyond this turn: the best *target* visit it is heading for.

The greedy planner (:func:`~agents.kleopatra.common.best_plan`) only values visits a hand can pay for now,
and prices every loose unit alike, so a hand of five stones and no artisan looks rich. Here a hand is
valued by the best visit of up to :data:`DEPTH` elements (rules §1.3, §5.3) it could complete, less a
price for every unit still missing (:data:`MISSING`, by resource: what fetching it from the market
costs in turns), plus a little for the units the target leaves over. A card is then worth what it adds
to that target: an artisan beside five stones is worth much, a sixth stone little.

Everything is computed once per decision for the palace as it stands (:class:`Prospects`); a hand is then
valued with a few array operations, so a decision can compare every stall, every discard and every card
a Vizier or a Courtesan offers.
"""

from __future__ import annotations

import numpy as np

from sobek_env.kleopatra.catalogue import (
    MERCHANT_VALUE,
    NUM_KINDS,
    RESOURCE_KINDS,
)

from .common import Position, bonus, candidate_costs, hand_units, room, value_counts

DEPTH = 4                                   # the most elements a target visit holds
# talents per unit a target still lacks (artisan, stone, marble, wood, lapis): roughly the market turns it takes
MISSING = np.array([2.1, 2.0, 2.75, 2.75, 3.25])
FAR = 0.12                                  # a target lacking u units costs FAR * u^2 more: it is several turns away
LEFTOVER = np.array([0.5, 0.35, 0.45, 0.45, 0.55])  # talents per unit a target leaves over (a later visit's start)
TROMPE_LEFTOVER = 0.5
KNOWN_HANDS = 1024                          # hands whose worth one palace's Prospects remember (then it forgets all)

_KIND_UNITS = np.array([hand_units([int(j == k) for j in range(NUM_KINDS)]) for k in range(NUM_KINDS)], dtype=float)


def ordered_dot(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """``matrix @ vector`` (over the last axis) summed from 0 left to right, each product rounded on its own: the
    same bits with any numpy and any BLAS (whose products sum in an order of their own, fused or not, and
    change it between releases), as the native heuristic sums them."""
    total = np.zeros(np.shape(matrix)[:-1])
    for j in range(len(vector)):
        total = total + matrix[..., j] * vector[j]
    return total


def units_of(hand: list[int] | np.ndarray) -> np.ndarray:
    """The 7 pool units of ``hand`` (counts per kind, fractions allowed), as floats."""
    return np.asarray(hand, dtype=float) @ _KIND_UNITS


class Prospects:
    """The target visits of one position: every multiset of at most :data:`DEPTH` elements still in the
    quarry, with what it earns (build bonus included) and what it costs."""

    def __init__(self, p: Position, depth: int = DEPTH) -> None:
        self.room = np.array(room(p))
        candidates = candidate_costs(tuple(int(r) for r in self.room), depth)
        self.counts = np.array([c for c, _ in candidates], dtype=int).reshape(-1, 6)
        self.talents = np.array([value_counts(p, list(c))[0] + bonus(sum(c)) for c, _ in candidates], dtype=float)
        self.need = np.array([need for _, need in candidates], dtype=float).reshape(-1, 5)
        self.materials = [r for r in range(1, 5) if r in p.rules.trompe_stands_for]
        self.known: dict[tuple, float] = {}  # hand_worth's results by hand, merchants, built and discount

    def worth(self, units: np.ndarray, merchants: int, built: np.ndarray | None = None,
              discount: float = 1.0) -> float:
        """Talents the pool ``units`` (7 floats) and ``merchants`` are worth as the start of a target visit;
        ``built`` (counts per category) are pieces no longer in the quarry; ``discount`` scales the price
        of missing units (higher near the end, when a far target may never be reached)."""
        have = units[:5]
        short = np.maximum(0.0, self.need - have)
        cost = ordered_dot(short, MISSING * discount)
        mats = self.materials
        trompe = units[5]
        if trompe > 0 and mats:
            mat_short = short[:, mats].sum(axis=1)
            covered = np.minimum(trompe, mat_short)
            mat_cost = ordered_dot(short[:, mats], MISSING[mats] * discount)
            per_unit = np.where(mat_short > 0, mat_cost / np.maximum(mat_short, 1e-9), 0.0)
            cost = cost - covered * per_unit
            missing = short.sum(axis=1) - covered
            trompe_left = trompe - covered
        else:
            missing = short.sum(axis=1)
            trompe_left = np.full(len(cost), trompe)
        if merchants:
            per_unit = np.where(missing > 0, cost / np.maximum(missing, 1e-9), 0.0)
            used = np.minimum(merchants, missing) * (per_unit > MERCHANT_VALUE)
            cost = cost - used * (per_unit - MERCHANT_VALUE)
            missing = missing - used
        left = ordered_dot(np.maximum(0.0, have - self.need), LEFTOVER) + trompe_left * TROMPE_LEFTOVER
        score = self.talents - cost - FAR * missing * missing + left
        if built is not None:
            score = np.where((self.counts <= self.room - built).all(axis=1), score, -np.inf)
        empty = ordered_dot(have, LEFTOVER) + trompe * TROMPE_LEFTOVER
        return float(max(empty, score.max(initial=-np.inf)))

    def hand_worth(self, hand: list[int] | np.ndarray, merchants: int, built: list[int] | np.ndarray | None = None,
                   discount: float = 1.0) -> float:
        """:meth:`worth` of the resource cards of ``hand`` (counts per kind, fractions allowed).

        Remembered per hand: a decision values the same hands several times (the hand as it is, before
        and after each card), and a search's rollouts meet the same hands on the same palace again."""
        key = (tuple(hand[k] for k in RESOURCE_KINDS), merchants, None if built is None else tuple(built), discount)
        worth = self.known.get(key)
        if worth is None:
            worth = self.fresh_hand_worth(hand, merchants, built, discount)
            if len(self.known) >= KNOWN_HANDS:
                self.known.clear()
            self.known[key] = worth
        return worth

    def fresh_hand_worth(self, hand: list[int] | np.ndarray, merchants: int,
                         built: list[int] | np.ndarray | None = None, discount: float = 1.0) -> float:
        """:meth:`hand_worth` computed anew."""
        counts = np.zeros(NUM_KINDS)
        for k in RESOURCE_KINDS:
            counts[k] = hand[k]
        return self.worth(units_of(counts), merchants, None if built is None else np.asarray(built), discount)
