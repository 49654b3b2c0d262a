"""What the baseline agents read: an observation's named slices as plain Python numbers,
plus the public tables (rules §1) they reason with.

Agents see only the observation dict; :class:`View` decodes it once per decision
(through :func:`sobek_env.observation_layout`) so the strategy code reads names
such as ``view.hand`` or ``view.nile`` instead of offsets.
"""

from __future__ import annotations

import math

import numpy as np

from sobek_env.catalogue import (
    AMULET,
    FIRST_CHARACTER,
    GOODS,
    GREEN,
    KIND_BACK,
    NUM_KINDS,
    START_HAND,
    TOTAL_CARDS,
    TWO_PLAYER_SET_ASIDE,
    make_rules,
)
from sobek_env.observation import observation_layout, observation_shapes, observation_size
from sobek_env.phases import PHASES

# Agents assume the default rules options (rules §1.1): the observation does not carry them.
RULES = make_rules(2)
KIND_SCARABS = RULES.kind_scarabs
MEMBERS = RULES.members
FITS = RULES.fits
CATALOGUE = RULES.catalogue
NUM_GOODS = len(GOODS)
HIDDEN = FIRST_CHARACTER  # the Nile column of a face-down character: "some character"
START_KINDS = frozenset(k for k in range(NUM_KINDS) if KIND_BACK[k] == GREEN)
ROUND_DECK = TOTAL_CARDS - sum(CATALOGUE[k] for k in START_KINDS)  # beige and orange cards
NILE_COLUMNS = FIRST_CHARACTER + 1


def _layouts() -> dict[int, tuple[int, dict[str, slice], dict[str, tuple[int, ...]]]]:
    """Vector length -> (players, slices, shapes): the length tells the number of players."""
    return {observation_size(n): (n, observation_layout(n), observation_shapes(n)) for n in (2, 3, 4)}


_LAYOUTS = _layouts()
_CATALOGUE = np.array(CATALOGUE)
# kind x goods: the beige and orange cards that count as each goods (start cards never come from the deck)
_COMING = np.array([[float(k in MEMBERS[g] and k not in START_KINDS) for g in range(NUM_GOODS)]
                    for k in range(NUM_KINDS)])
_COMING_SCARABS = _COMING * np.array(KIND_SCARABS, dtype=float)[:, None]
_DECK_KINDS = np.array([float(k not in START_KINDS) for k in range(NUM_KINDS)])
_CHARACTERS = slice(FIRST_CHARACTER, NUM_KINDS)


def round_cards(num_players: int) -> int:
    """Cards in play during a round: the deck (less the 2-player set-aside) and the green hands (rules §2)."""
    return ROUND_DECK - (TWO_PLAYER_SET_ASIDE if num_players == 2 else 0) + START_HAND * num_players


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
    or per relative seat; ``sets[p][g]`` is (cards, scarabs, Prosperity tokens).
    ``unseen`` counts per kind the cards this seat has not seen this round; ``coming*``
    are those that may still come from the deck (no start cards), per goods and in all.
    ``nile`` lists kinds by position, :data:`HIDDEN` for a face-down character.
    ``phase`` is the pending sub-decision's name (None at the start of a turn).
    """

    __slots__ = (
        "n", "mask", "hand", "pile", "nile", "deck", "round", "scores", "hand_size", "hand_backs", "pile_size",
        "curses", "sets", "set_points", "known_hands", "known_piles", "tokens_left", "used_tokens",
        "token_choice", "discard", "vizier_pile", "building", "phase", "phase_goods", "phase_target",
        "guild_symbol", "memory", "unseen", "coming", "coming_scarabs", "coming_amulets", "coming_total",
    )

    def __init__(self, observation: dict) -> None:
        vector = observation["observation"]
        n, lay, shapes = _LAYOUTS[vector.shape[0]]
        counts = vector.astype(np.int64)  # every entry but the scores and set points is a count
        values = counts.tolist()
        self.mask = observation["action_mask"]
        self.n = n

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
        self.scores = [round(x * 100) for x in vector[lay["scores"]].tolist()]
        self.hand_backs = block("hand_backs").tolist()
        self.hand_size = [sum(b) for b in self.hand_backs]
        self.curses = values[lay["curses"]]
        self.sets = block("sets").tolist()
        self.set_points = [round(x * 100) for x in vector[lay["set_points"]].tolist()]
        known_hands, known_piles = block("known_hands"), block("known_piles")
        self.known_hands = known_hands.tolist()
        self.known_piles = known_piles.tolist()
        self.tokens_left = values[lay["tokens_left"].start]
        self.used_tokens = values[lay["used_tokens"]]
        self.token_choice = values[lay["token_choice"]]
        self.discard = values[lay["discard"]]
        self.vizier_pile = values[lay["vizier_pile"]]
        self.building = values[lay["building"]]
        self.phase = PHASES[index("phase")]
        self.phase_goods = index("phase_goods")
        self.phase_target = index("phase_target")
        self.guild_symbol = index("guild_symbol")

        set_cards = block("set_cards").sum(axis=0)
        building = block("building") if self.phase == "set" else 0  # the Courtesan's cards are on the set
        own = block("hand") + block("pile") + block("discard") + set_cards + building
        seen = own + known_hands.sum(axis=0) + known_piles.sum(axis=0)
        seen[:NILE_COLUMNS - 1] += nile[:, :NILE_COLUMNS - 1].sum(axis=0)
        unseen = np.maximum(_CATALOGUE - seen, 0).astype(float)
        hidden = self.nile.count(HIDDEN)
        if hidden:  # a face-down character on the Nile is no longer in the deck
            left = unseen[_CHARACTERS].sum()
            unseen[_CHARACTERS] *= max(0.0, left - hidden) / left if left else 0.0
        self.unseen = unseen.tolist()
        deck_like = unseen * _DECK_KINDS
        self.coming = (deck_like @ _COMING).tolist()
        self.coming_scarabs = (deck_like @ _COMING_SCARABS).tolist()
        self.coming_amulets = float(deck_like[AMULET])
        self.coming_total = float(deck_like.sum())
        placed = self.deck + len(self.nile) + sum(self.hand_size) + int(own.sum()) - sum(self.hand)
        self.pile_size = self._pile_sizes(block("pile_backs").sum(axis=1).tolist(), placed)

    def _pile_sizes(self, sizes: list[int], placed: int) -> list[float]:
        """Corruption pile size per seat: own exactly; opponents from the memory counts, or else
        from what the table does not account for (every card of the round is somewhere visible
        or in a pile), shared equally among the opponents."""
        n = self.n
        others = max(0, round_cards(n) - placed)
        self.memory = sum(sizes[1:]) > 0 or others == 0
        if self.memory:
            return [float(x) for x in sizes]
        return [float(sizes[0])] + [others / (n - 1)] * (n - 1)

    def legal(self, action: int) -> bool:
        return bool(self.mask[action])


__all__ = ["FITS", "HIDDEN", "KIND_SCARABS", "MEMBERS", "NUM_GOODS", "View", "at_least", "round_cards"]
