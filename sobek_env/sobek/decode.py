"""Reading a Sobek observation back: its named slices as plain Python numbers, with the rules'
tables (rules §1) an agent reasons with. The decoder of :mod:`.observation`'s encoder.

Agents see only the observation dict and the table they sit at (game, players, mode, rules
options); :class:`View` decodes one observation through the table's layout, so strategy code
reads ``view.hand`` or ``view.nile`` instead of offsets, and ``view.fits`` or
``view.kind_scarabs`` for the table's rules instead of assuming the defaults.

Every decision of a baseline decodes its observation, and a search's rollouts make that most of their
time: where the compiled encoder was built, its twin ``_observe.Decoder`` reads the vector, and
``View._read`` (the reference, which the tests compare it with) reads only what it leaves.
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
    SCORE_SCALE,
    START_HAND,
    TOTAL_CARDS,
    TWO_PLAYER_SET_ASIDE,
    Rules,
    make_rules,
)
from .observation import _observe, observation_layout, observation_shapes, observation_size
from .phases import PHASES

NUM_GOODS = len(GOODS)
HIDDEN = FIRST_CHARACTER  # the Nile column of a face-down character: "some character"
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
def _tables(num_players: int, rules_key: tuple) -> tuple[Rules, Counts, dict[str, slice], dict[str, tuple]]:
    rules = make_rules(num_players, **{key: dict(value) for key, value in rules_key})
    return rules, Counts(rules), observation_layout(num_players), observation_shapes(num_players)


@cache
def _decoder(num_players: int) -> Any:
    """The compiled reader of observations for ``num_players`` (``_observe.Decoder``)."""
    return _observe.Decoder(observation_layout(num_players), observation_shapes(num_players), num_players)


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


class View:
    """One observation decoded: seat 0 is the observer, then the opponents in seat order.

    Counts are lists of ints per card kind (28), per goods (6), per token kind (9)
    or per relative seat; ``sets[p][g]`` is (cards, scarabs, Prosperity tokens) of the
    set of goods ``g``, and ``sets[p][AMULET_SET]`` of the amulets-only set.
    ``horizontal[p]`` counts per kind the cards of the horizontal sets laid at this round's
    end; ``last_*`` is the public summary of the last scored round (rules §10);
    ``tokens_known`` the face-down tokens, once seen (memory mode), else None.
    ``unseen`` counts per kind the cards this seat has not seen this round; ``coming*``
    are those that may still come from the deck (no start cards), per goods and in all.
    ``nile`` lists kinds by position, :data:`HIDDEN` for a face-down character.
    ``phase`` is the pending sub-decision's name (None at the start of a turn).
    """

    __slots__ = (
        "rules", "fits", "members", "kind_scarabs", "kind_goods", "catalogue",
        "n", "mask", "hand", "pile", "nile", "deck", "round", "scores", "hand_size", "hand_backs", "pile_size",
        "curses", "sets", "set_points", "known_hands", "known_piles", "tokens_left", "used_tokens",
        "token_choice", "discard", "vizier_pile", "building", "phase", "phase_goods", "phase_target",
        "guild_symbol", "memory", "unseen", "coming", "coming_scarabs", "coming_amulets", "coming_total",
        "horizontal", "tokens_known", "last_points", "last_corruption", "last_curses", "last_most_corrupt",
        "last_penalty",
    )

    def __init__(self, observation: Mapping[str, Any], num_players: int,
                 rules: Mapping[str, Any] | None = None) -> None:
        rules_, tables, lay, shapes = _tables(num_players, rules_key(rules or {}))
        n = num_players
        self.rules = rules_
        self.fits, self.members, self.kind_scarabs = rules_.fits, rules_.members, rules_.kind_scarabs
        self.kind_goods, self.catalogue = rules_.kind_goods, rules_.catalogue
        vector = np.asarray(observation["observation"])
        size = observation_size(n)
        if vector.shape != (size,):  # another table's vector would be read with this layout, without a word
            raise ValueError(f"an observation for {n} players has {size} entries, got shape {vector.shape}")
        self.mask = observation["action_mask"]
        self.n = n
        read = None
        if _observe is not None and vector.dtype == np.float32 and vector.ndim == 1:
            read = _decoder(n).fill(self, np.ascontiguousarray(vector), rules_.catalogue)
        if read is None:
            read = self._read(vector, tables, lay, shapes)
        unseen, own_cards, pile_backs = read
        self.unseen = unseen
        deck_like = np.array(unseen) * tables.deck_kinds
        self.coming = (deck_like @ tables.coming).tolist()
        self.coming_scarabs = (deck_like @ tables.coming_scarabs).tolist()
        self.coming_amulets = float(deck_like[AMULET])
        self.coming_total = float(deck_like.sum())
        placed = self.deck + len(self.nile) + sum(self.hand_size) + own_cards - sum(self.hand)
        self.pile_size = self._pile_sizes(pile_backs, tables.round_cards - placed)

    def _read(self, vector: np.ndarray, tables: Counts, lay: dict[str, slice],
              shapes: dict[str, tuple]) -> tuple[list[float], int, list[int]]:
        """Read ``vector`` into the fields (the reference the compiled decoder is tested against); return
        what the rest is derived from: the unseen cards per kind, the observer's own cards off his hand
        (pile, discard, sets) and in it, and each seat's pile size by its backs."""
        counts = vector.astype(np.int64)  # every entry but the scores and points is a count
        values = counts.tolist()

        def block(name: str) -> np.ndarray:
            return counts[lay[name]].reshape(shapes[name])

        def index(name: str) -> int:
            row = values[lay[name]]
            return row.index(1) if 1 in row else -1

        self.hand = values[lay["hand"]]
        self.pile = values[lay["pile"]]
        nile = block("nile")
        self.nile = nile.argmax(axis=1)[nile.any(axis=1)].tolist()  # the Nile fills positions from 0
        self.deck = values[lay["deck_size"].start]
        self.round = index("round") + 1
        self.scores = [round(x * SCORE_SCALE) for x in vector[lay["scores"]].tolist()]
        self.hand_backs = block("hand_backs").tolist()
        self.hand_size = [sum(b) for b in self.hand_backs]
        self.curses = values[lay["curses"]]
        self.sets = block("sets").tolist()
        self.set_points = [round(x * SCORE_SCALE) for x in vector[lay["set_points"]].tolist()]
        known_hands, known_piles = block("known_hands"), block("known_piles")
        self.known_hands = known_hands.tolist()
        self.known_piles = known_piles.tolist()
        self.tokens_left = values[lay["tokens_left"].start]
        self.used_tokens = values[lay["used_tokens"]]
        self.token_choice = values[lay["token_choice"]]
        known_tokens = values[lay["tokens_known"]]
        self.tokens_known = known_tokens if any(known_tokens) else None
        self.discard = values[lay["discard"]]
        self.vizier_pile = values[lay["vizier_pile"]]
        self.building = values[lay["building"]]
        phase = index("phase")
        self.phase = None if phase == 0 else PHASES[phase].name
        self.phase_goods = index("phase_goods")
        self.phase_target = index("phase_target")
        self.guild_symbol = index("guild_symbol")
        horizontal = block("horizontal")
        self.horizontal = horizontal.tolist()
        self.last_points = [round(x * SCORE_SCALE) for x in vector[lay["last_points"]].tolist()]
        self.last_corruption = values[lay["last_corruption"]]
        self.last_curses = values[lay["last_curses"]]
        self.last_most_corrupt = values[lay["last_most_corrupt"]]
        self.last_penalty = [round(x * SCORE_SCALE) for x in vector[lay["last_penalty"]].tolist()]

        set_cards = block("set_cards").sum(axis=0)
        # the cards of a set (or horizontal set) being laid are off the hand; the Courtesan's are on the set
        building = block("building") if self.phase in ("set", "horizontal_set") else 0
        own = block("hand") + block("pile") + block("discard") + set_cards + building + horizontal.sum(axis=0)
        seen = own + known_hands.sum(axis=0) + known_piles.sum(axis=0)
        seen[:NILE_COLUMNS - 1] += nile[:, :NILE_COLUMNS - 1].sum(axis=0)
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
