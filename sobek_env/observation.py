"""Observation vectors: what one seat sees (rules §10), as named slices of one float32 vector.

:func:`observation_layout` gives the slices; :class:`Observer` writes a state
into a preallocated buffer through named views, in the ``original`` or
``memory`` information variant. Seats are relative: row 0 is the observing
seat, then the opponents in seat order after him.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from .catalogue import (
    BACKS,
    CURSE,
    FIRST_CHARACTER,
    GOODS,
    HIEROGLYPHS,
    KIND_BACK,
    NUM_KINDS,
    NUM_TOKEN_KINDS,
    PROSPERITY,
    ROUNDS,
    SYMBOLS,
    symbol_at,
)
from .phases import PHASES
from .scoring import scarabs_of, vertical_value
from .state import GameState

MODES = ("original", "memory")
NILE_SLOTS = 9
NILE_COLUMNS = FIRST_CHARACTER + 1  # the 19 face-up kinds, then "a character, face down"
SCORE_SCALE = 100.0  # scores are given in hundreds of points
HIGH = 100.0         # upper bound of every entry (counts never exceed 63; scores / 100)


def _shapes(n: int) -> list[tuple[str, tuple[int, ...], str]]:
    g, k, t = len(GOODS), NUM_KINDS, NUM_TOKEN_KINDS
    return [
        ("hand", (k,), "own hand, cards per kind"),
        ("pile", (k,), "own corruption pile, cards per kind"),
        ("nile", (NILE_SLOTS, NILE_COLUMNS),
         "per Nile position (0 nearest the 0 space): one-hot kind; last column = face-down character"),
        ("deck_size", (1,), "cards left in the deck"),
        ("round", (ROUNDS,), "one-hot round"),
        ("scores", (n,), "scores / 100, per relative seat"),
        ("to_move", (n,), "one-hot relative seat that must act now"),
        ("first_player", (n,), "one-hot relative seat that began the round"),
        ("track_symbol", (n, len(SYMBOLS)), "one-hot symbol of the space each marker stands on"),
        ("hand_backs", (n, len(BACKS)), "cards in each hand per back (green, beige, orange)"),
        ("pile_backs", (n, len(BACKS)), "cards in each corruption pile per back; opponents only in memory mode"),
        ("curses", (n,), "Curse tokens on each player"),
        ("sets", (n, g, 3), "each player's set per goods: cards, scarabs on them, Prosperity tokens"),
        ("set_cards", (n, k), "cards per kind in each player's sets"),
        ("set_points", (n,), "what each player's sets would score now"),
        ("known_hands", (n - 1, k), "memory mode: cards seen going into each opponent's hand, not seen leaving"),
        ("known_piles", (n - 1, k), "memory mode: cards seen going into each opponent's corruption pile"),
        ("tokens_left", (1,), "this round's tokens still face down"),
        ("used_tokens", (t,), "this round's tokens already revealed (used, or lying on a player or set)"),
        ("token_choice", (t,), "the face-down tokens, shown only to the player choosing one"),
        ("discard", (k,), "the face-up discard, cards per kind"),
        ("vizier_pile", (k,), "the corruption pile being searched with the Vizier (its searcher only)"),
        ("building", (k,), "cards laid so far in the set being built or by the Courtesan"),
        ("phase", (len(PHASES),), "one-hot sub-decision; first entry = start of a turn"),
        ("phase_goods", (g,), "goods of the set being built or the Courtesan's set"),
        ("phase_target", (n,), "relative seat of the opponent targeted (Vizier, Thief) or the Scribe's player"),
        ("guild_symbol", (len(HIEROGLYPHS),), "hieroglyph of the Guild whose opponent is being chosen"),
    ]


@cache
def _layout(n: int) -> tuple[dict[str, slice], dict[str, tuple[int, ...]], int]:
    slices, shapes, start = {}, {}, 0
    for name, shape, _ in _shapes(n):
        size = int(np.prod(shape))
        slices[name] = slice(start, start + size)
        shapes[name] = shape
        start += size
    return slices, shapes, start


def observation_layout(num_players: int) -> dict[str, slice]:
    """The named slices of the observation vector for ``num_players`` (2 to 4)."""
    if num_players not in (2, 3, 4):
        raise ValueError(f"num_players must be 2, 3 or 4, got {num_players!r}")
    return dict(_layout(num_players)[0])


def observation_shapes(num_players: int) -> dict[str, tuple[int, ...]]:
    """The shape of each named slice (reshape ``obs[layout[name]]`` to it)."""
    return dict(_layout(num_players)[1])


def observation_size(num_players: int) -> int:
    return _layout(num_players)[2]


def describe_layout(num_players: int) -> list[tuple[str, tuple[int, ...], str]]:
    """(name, shape, meaning) of every slice, in order: the documentation of the vector."""
    return list(_shapes(num_players))


class Observer:
    """Writes what one seat sees into a preallocated float32 buffer, exposed as named views."""

    def __init__(self, num_players: int, mode: str = "original") -> None:
        if mode not in MODES:
            raise ValueError(f"observation_mode must be one of {MODES}, got {mode!r}")
        self.num_players = num_players
        self.memory = mode == "memory"
        slices, shapes, size = _layout(num_players)
        self.buffer = np.zeros(size, dtype=np.float32)
        self.views = {name: self.buffer[sl].reshape(shapes[name]) for name, sl in slices.items()}

    def encode(self, s: GameState, seat: int) -> np.ndarray:
        """Fill the buffer with ``seat``'s view of ``s`` and return it (not a copy)."""
        n, v, rules = self.num_players, self.views, s.rules
        self.buffer.fill(0.0)
        order = [(seat + i) % n for i in range(n)]
        relative = {p: i for i, p in enumerate(order)}
        v["hand"][:] = s.hands[seat]
        v["pile"][:] = s.piles[seat]
        nile = v["nile"]
        for pos, kind in enumerate(s.nile):
            nile[pos, kind if kind < FIRST_CHARACTER else FIRST_CHARACTER] = 1.0
        v["deck_size"][0] = len(s.deck)
        v["round"][s.round - 1] = 1.0
        v["to_move"][relative[s.current_player]] = 1.0
        v["first_player"][relative[s.first_player]] = 1.0
        for i, p in enumerate(order):
            v["scores"][i] = s.markers[p] / SCORE_SCALE
            v["track_symbol"][i, symbol_at(s.markers[p])] = 1.0
            v["hand_backs"][i] = s.hand_backs(p)
            v["curses"][i] = s.curses[p]
            if i == 0 or self.memory:
                for k, c in enumerate(s.piles[p]):
                    if c:
                        v["pile_backs"][i, KIND_BACK[k]] += c
            points = 0
            for g, table_set in enumerate(s.sets[p]):
                if table_set is not None:
                    v["sets"][i, g] = (sum(table_set.cards), scarabs_of(table_set.cards, rules), table_set.prosperity)
                    v["set_cards"][i] += table_set.cards
                    points += vertical_value(table_set, rules)
            v["set_points"][i] = points
            if i and self.memory:
                v["known_hands"][i - 1] = s.known_hands[p]
                v["known_piles"][i - 1] = s.known_piles[p]
        v["tokens_left"][0] = sum(s.tokens)
        revealed = v["used_tokens"]
        revealed[:] = s.used_tokens
        revealed[CURSE] += sum(s.curses)  # lying on players
        revealed[PROSPERITY] += sum(t.prosperity for own in s.sets for t in own if t is not None)
        v["discard"][:] = s.discard
        pend = s.pending
        v["phase"][PHASES.index(None if pend is None else pend.phase)] = 1.0
        if pend is not None:
            acting = s.current_player == seat
            if pend.phase == "token" and acting:
                v["token_choice"][:] = s.tokens
            elif pend.phase in ("curse", "prosperity"):
                revealed[CURSE if pend.phase == "curse" else PROSPERITY] += 1  # chosen, not yet placed
            if pend.phase in ("set", "courtesan_card"):
                v["building"][:] = pend.cards
                v["phase_goods"][pend.goods] = 1.0
            if pend.phase in ("vizier_card", "thief_back"):
                v["phase_target"][relative[pend.target]] = 1.0
                if pend.phase == "vizier_card" and acting:
                    v["vizier_pile"][:] = s.piles[pend.target]
            elif pend.phase == "scribe":
                v["phase_target"][relative[pend.actor]] = 1.0
            elif pend.phase == "guild":
                v["guild_symbol"][pend.symbol] = 1.0
        return self.buffer


def encode_state(s: GameState) -> np.ndarray:
    """The full-information vector (for centralised critics): seat 0's memory-mode view,
    then every hand and pile, the Nile's true kinds, the deck and the face-down tokens by kind."""
    n = s.rules.num_players
    view = Observer(n, "memory").encode(s, 0)
    extra = np.zeros(2 * n * NUM_KINDS + NILE_SLOTS * NUM_KINDS + NUM_KINDS + NUM_TOKEN_KINDS, dtype=np.float32)
    at = 0
    for rows in (s.hands, s.piles):
        for row in rows:
            extra[at:at + NUM_KINDS] = row
            at += NUM_KINDS
    for pos, kind in enumerate(s.nile):
        extra[at + pos * NUM_KINDS + kind] = 1.0
    at += NILE_SLOTS * NUM_KINDS
    for kind in s.deck:
        extra[at + kind] += 1.0
    at += NUM_KINDS
    extra[at:at + NUM_TOKEN_KINDS] = s.tokens
    return np.concatenate([view, extra])


def state_size(num_players: int) -> int:
    return observation_size(num_players) + (2 * num_players + NILE_SLOTS + 1) * NUM_KINDS + NUM_TOKEN_KINDS


__all__ = ["Observer", "observation_layout", "observation_shapes", "describe_layout", "encode_state", "MODES"]
