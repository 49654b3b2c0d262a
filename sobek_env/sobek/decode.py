"""What the baselines reason with: a seat's :class:`~.view.View` read back from its observation, with the
rules' tables (rules §1) and the estimates an agent derives from what it sees.

Agents see only the observation dict and the table they sit at (game, players, mode, rules
options); :class:`View` decodes one observation through the table's layout into the fields of
:class:`sobek_env.sobek.view.View` (the one class of a seat's view, which the encoder writes), so strategy
code reads ``view.hand`` or ``view.nile`` instead of offsets, and adds ``view.fits`` or
``view.kind_scarabs`` for the table's rules instead of assuming the defaults, and the estimates
``unseen``, ``coming*``, ``pile_size`` and ``memory``.

Every decision of a baseline decodes its observation, and a search's rollouts make that most of their
time: where the compiled encoder was built, its twin ``_observe.Decoder`` reads the vector and derives
the estimates; ``observation.read_python`` and :meth:`View._derive` (the references, which the tests
compare it with) read what it leaves.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import cache
from typing import Any

import numpy as np

from .catalogue import (
    AMULET,
    FIRST_CHARACTER,
    GOODS,
    GREEN,
    KIND_BACK,
    NUM_KINDS,
    START_HAND,
    TOTAL_CARDS,
    TWO_PLAYER_SET_ASIDE,
    Rules,
    make_rules,
)
from .observation import _observe, checked_vector, decoder, observation_layout, observation_shapes, read_python
from .view import HIDDEN
from .view import View as SeatView

NUM_GOODS = len(GOODS)
START_KINDS = frozenset(k for k in range(NUM_KINDS) if KIND_BACK[k] == GREEN)
NILE_COLUMNS = FIRST_CHARACTER + 1
_CHARACTERS = slice(FIRST_CHARACTER, NUM_KINDS)


class Counts:
    """What a table's rules make of the card kinds, as arrays for the decoder's sums."""

    def __init__(self, rules: Rules) -> None:
        self.catalogue = np.array(rules.catalogue)
        # kind x goods: the beige and orange cards that count as each goods (start cards never come from the deck)
        self.coming = np.array([[float(k in rules.members[g] and k not in START_KINDS) for g in range(NUM_GOODS)]
                                for k in range(NUM_KINDS)])
        self.coming_scarabs = self.coming * np.array(rules.kind_scarabs, dtype=float)[:, None]
        self.deck_kinds = np.array([float(k not in START_KINDS) for k in range(NUM_KINDS)])
        deck = TOTAL_CARDS - sum(rules.catalogue[k] for k in START_KINDS)  # beige and orange cards
        n = rules.num_players
        # cards in play during a round: the deck (less the 2-player set-aside) and the green hands (rules §2)
        self.round_cards = deck - (TWO_PLAYER_SET_ASIDE if n == 2 else 0) + START_HAND * n


@cache
def _tables(num_players: int, rules_key: tuple) -> tuple[Rules, Counts]:
    rules = make_rules(num_players, **{key: dict(value) for key, value in rules_key})
    return rules, Counts(rules)


def rules_key(rules: Mapping[str, Any]) -> tuple:
    """A table's rules options as a hashable key."""
    return tuple(sorted((key, tuple(sorted(value.items()))) for key, value in rules.items()))


def at_least(mean: float, k: int) -> float:
    """P(Poisson(mean) >= k): the chance of finding ``k`` more cards when ``mean`` are expected."""
    if k <= 0:
        return 1.0
    if mean <= 0.0:
        return 0.0
    term = total = math.exp(-mean)
    for i in range(1, k):
        term *= mean / i
        total += term
    return 1.0 - total


class View(SeatView):
    """One observation decoded: the fields of :class:`sobek_env.sobek.view.View` (seat 0 is the observer,
    then the opponents in seat order), with the table's rules and what the baselines derive.

    ``rules`` and its tables ``fits``, ``members``, ``kind_scarabs``, ``kind_goods``, ``catalogue``;
    ``n`` the number of players and ``mask`` the legal actions; ``hand_size`` the cards in each hand.
    ``unseen`` counts per kind the cards this seat has not seen this round; ``coming*``
    are those that may still come from the deck (no start cards), per goods and in all.
    ``pile_size`` is each seat's corruption pile size, estimated for the opponents when the view does not
    hold it; ``memory`` whether it held them (the table is read in memory mode, as far as one view tells).
    """

    __slots__ = (
        "rules", "fits", "members", "kind_scarabs", "kind_goods", "catalogue", "n", "mask", "hand_size",
        "pile_size", "memory", "unseen", "coming", "coming_scarabs", "coming_amulets", "coming_total",
    )

    def __init__(self, observation: Mapping[str, Any], num_players: int,
                 rules: Mapping[str, Any] | None = None) -> None:
        rules_, tables = _tables(num_players, rules_key(rules or {}))
        n = num_players
        self.rules = rules_
        self.fits, self.members, self.kind_scarabs = rules_.fits, rules_.members, rules_.kind_scarabs
        self.kind_goods, self.catalogue = rules_.kind_goods, rules_.catalogue
        vector = checked_vector(observation["observation"], n)
        self.mask = observation["action_mask"]
        self.n = n
        read = None
        if _observe is not None and vector.dtype == np.float32 and vector.ndim == 1:
            read = decoder(n).fill(self, np.ascontiguousarray(vector), rules_.catalogue)
        if read is None:
            read_python(self, vector, n)
            self.hand_size = [sum(b) for b in self.hand_backs]
            read = self._derive(vector, tables)
        unseen, own_cards, pile_backs = read
        self.unseen = unseen
        deck_like = np.array(unseen) * tables.deck_kinds
        self.coming = (deck_like @ tables.coming).tolist()
        self.coming_scarabs = (deck_like @ tables.coming_scarabs).tolist()
        self.coming_amulets = float(deck_like[AMULET])
        self.coming_total = float(deck_like.sum())
        placed = self.deck + len(self.nile) + sum(self.hand_size) + own_cards - sum(self.hand)
        self.pile_size = self._pile_sizes(pile_backs, tables.round_cards - placed)

    def _derive(self, vector: np.ndarray, tables: Counts) -> tuple[list[float], int, list[int]]:
        """What the rest is derived from, counted from ``vector`` as the compiled decoder counts it (the
        reference it is tested against): the unseen cards per kind, the observer's own cards off his hand
        (pile, discard, sets) and in it, and each seat's pile size by its backs."""
        lay, shapes = observation_layout(self.n), observation_shapes(self.n)
        counts = vector.astype(np.int64)  # every entry but the scores and points is a count

        def block(name: str) -> np.ndarray:
            return counts[lay[name]].reshape(shapes[name])

        set_cards = block("set_cards").sum(axis=0)
        # the cards of a set (or horizontal set) being laid are off the hand; the Courtesan's are on the set
        building = block("building") if self.phase in ("set", "horizontal_set") else 0
        own = (block("hand") + block("pile") + block("discard") + set_cards + building
               + block("horizontal").sum(axis=0))
        seen = own + block("known_hands").sum(axis=0) + block("known_piles").sum(axis=0)
        seen[:NILE_COLUMNS - 1] += block("nile")[:, :NILE_COLUMNS - 1].sum(axis=0)
        unseen = np.maximum(tables.catalogue - seen, 0).astype(float)
        hidden = self.nile.count(HIDDEN)
        if hidden:  # a face-down character on the Nile is no longer in the deck
            left = unseen[_CHARACTERS].sum()
            unseen[_CHARACTERS] *= max(0.0, left - hidden) / left if left else 0.0
        return unseen.tolist(), int(own.sum()), block("pile_backs").sum(axis=1).tolist()

    def _pile_sizes(self, sizes: list[int], unaccounted: int) -> list[float]:
        """Corruption pile size per seat: own exactly; opponents from the memory counts, or else
        from what the table does not account for (every card of the round is somewhere visible
        or in a pile), shared equally among the opponents."""
        n = self.n
        others = max(0, unaccounted)
        self.memory = sum(sizes[1:]) > 0 or others == 0
        if self.memory:
            return [float(x) for x in sizes]
        return [float(sizes[0])] + [others / (n - 1)] * (n - 1)

    def legal(self, action: int) -> bool:
        return bool(self.mask[action])


__all__ = ["HIDDEN", "NUM_GOODS", "View", "at_least"]
