"""Observation vectors: what one seat sees (rules §10), as named slices of one float32 vector.

:func:`observation_layout` gives the slices; :class:`Observer` writes a state
into a preallocated buffer through named views, in the ``original`` or
``memory`` information variant. Seats are relative: row 0 is the observing
seat, then the opponents in seat order after him.

The encoding has two implementations that write identical vectors: the Python
:meth:`Observer.encode_python`, the reference, and a compiled twin
(``sobek_env/_observe.pyx``, built by ``pip install`` when Cython and a C
compiler are at hand) that :meth:`Observer.encode` uses when it was built.
Set the environment variable ``SOBEK_PURE_PYTHON=1`` (before importing
``sobek_env``) to force the Python path; :data:`COMPILED` tells which is in use.
"""

from __future__ import annotations

import os
from functools import cache

import numpy as np

from .catalogue import (
    BACKS,
    CURSE,
    FIRST_CHARACTER,
    GOODS,
    HIEROGLYPHS,
    NUM_KINDS,
    NUM_TOKEN_KINDS,
    PROSPERITY,
    ROUNDS,
    SYMBOLS,
    Rules,
    backs_of,
    symbol_at,
)
from .phases import PHASES
from .scoring import TableSet, scarabs_of, set_value
from .state import GameState

if os.environ.get("SOBEK_PURE_PYTHON", "") not in ("", "0"):
    _observe = None
else:
    try:
        from . import _observe
    except ImportError:  # not built (no compiler at install): the Python path serves
        _observe = None
COMPILED = _observe is not None  # whether Observer.encode runs the compiled encoder

MODES = ("original", "memory")
NILE_SLOTS = 9
NILE_COLUMNS = FIRST_CHARACTER + 1  # the 19 face-up kinds, then "a character, face down"
SCORE_SCALE = 100.0  # scores are given in hundreds of points
HIGH = 100.0         # upper bound of every entry (counts never exceed 63; scores / 100)
PHASE_INDEX = {phase: i for i, phase in enumerate(PHASES)}


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
        ("set_points", (n,), "what each player's sets would score now / 100"),
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
    """Writes what one seat sees into a preallocated float32 buffer, exposed as named views.

    :meth:`encode` runs the compiled encoder when it was built, else :meth:`encode_python` (module
    docstring). In the Python path every entry but the scores and the set points is a small count or
    a one-hot flag (below 64; a bytearray would raise, not wrap, above 255), so it stages them in a bytearray,
    where writing a row from the engine's lists is a C-level copy, converts the whole vector to
    float32 with one numpy call, then writes the two rows of floats. Writing the numpy views slice
    by slice cost several times as much. The per-back counts of each hand and pile and the rows of
    each player's sets are kept between calls and redone only for what changed.
    """

    def __init__(self, num_players: int, mode: str = "original") -> None:
        if mode not in MODES:
            raise ValueError(f"observation_mode must be one of {MODES}, got {mode!r}")
        n = num_players
        self.num_players = n
        self.memory = mode == "memory"
        slices, shapes, size = _layout(n)
        self.buffer = np.zeros(size, dtype=np.float32)
        self.views = {name: self.buffer[sl].reshape(shapes[name]) for name, sl in slices.items()}
        self._stage = bytearray(size)
        self._staged = np.frombuffer(self._stage, dtype=np.uint8)  # a view: no copy at conversion
        self._blank = bytes(size)
        self._at = {name: sl.start for name, sl in slices.items()}
        self._whole = slices
        self._rows = {name: _rows(sl, shapes[name][0]) for name, sl in slices.items() if len(shapes[name]) > 1}
        self._order = tuple(tuple((seat + i) % n for i in range(n)) for seat in range(n))
        # per seat, the hand and the corruption pile last counted per back, with their counts
        self._hands_counted: list[tuple[list[int], tuple[int, int, int]] | None] = [None] * n
        self._piles_counted: list[tuple[list[int], tuple[int, int, int]] | None] = [None] * n
        self._sets_staged: list[tuple | None] = [None] * n  # per seat: _set_rows of the sets last seen
        # per Nile position and card kind, the entry of the one-hot "nile" section
        self._nile_cell = tuple(
            tuple(slices["nile"].start + pos * NILE_COLUMNS + min(kind, FIRST_CHARACTER) for kind in range(NUM_KINDS))
            for pos in range(NILE_SLOTS)
        )

        # the compiled twin writes the same buffer, so the named views serve both paths
        self._compiled = None if _observe is None else _observe.Encoder(self.buffer, self._at, n, self.memory)

    def encode(self, s: GameState, seat: int) -> np.ndarray:
        """Fill the buffer with ``seat``'s view of ``s`` and return it (not a copy)."""
        if self._compiled is not None:
            return self._compiled.encode(s, seat)
        return self.encode_python(s, seat)

    def encode_python(self, s: GameState, seat: int) -> np.ndarray:
        """:meth:`encode` in pure Python: the reference the compiled encoder is tested against."""
        n, b, at, whole, rows = self.num_players, self._stage, self._at, self._whole, self._rows
        order = self._order[seat]
        b[:] = self._blank
        b[whole["hand"]] = s.hands[seat]
        b[whole["pile"]] = s.piles[seat]
        for cells, kind in zip(self._nile_cell, s.nile):
            b[cells[kind]] = 1
        b[at["deck_size"]] = len(s.deck)
        b[at["round"] + s.round - 1] = 1
        b[at["to_move"] + (s.current_player - seat) % n] = 1
        b[at["first_player"] + (s.first_player - seat) % n] = 1
        b[whole["curses"]] = s.curses[seat:] + s.curses[:seat]
        revealed = list(s.used_tokens)
        revealed[CURSE] += sum(s.curses)  # lying on players
        points = [0] * n
        for i, p in enumerate(order):
            b[at["track_symbol"] + i * len(SYMBOLS) + symbol_at(s.markers[p])] = 1
            b[rows["hand_backs"][i]] = _backs(self._hands_counted, p, s.hands[p])
            if i == 0 or self.memory:
                b[rows["pile_backs"][i]] = _backs(self._piles_counted, p, s.piles[p])
            own = s.sets[p]
            if any(own):  # most players have no set most of the time
                points[i], prosperity = self._stage_sets(i, p, own, s.rules)
                revealed[PROSPERITY] += prosperity
            if i and self.memory:
                b[rows["known_hands"][i - 1]] = s.known_hands[p]
                b[rows["known_piles"][i - 1]] = s.known_piles[p]
        b[at["tokens_left"]] = sum(s.tokens)
        b[whole["discard"]] = s.discard
        pend = s.pending
        b[at["phase"] + PHASE_INDEX[None if pend is None else pend.phase]] = 1
        if pend is not None:
            acting = s.current_player == seat
            if pend.phase == "token" and acting:
                b[whole["token_choice"]] = s.tokens
            elif pend.phase in ("curse", "prosperity"):
                revealed[CURSE if pend.phase == "curse" else PROSPERITY] += 1  # chosen, not yet placed
            if pend.phase in ("set", "courtesan_card"):
                b[whole["building"]] = pend.cards
                b[at["phase_goods"] + pend.goods] = 1
            if pend.phase in ("vizier_card", "thief_back"):
                b[at["phase_target"] + (pend.target - seat) % n] = 1
                if pend.phase == "vizier_card" and acting:
                    b[whole["vizier_pile"]] = s.piles[pend.target]
            elif pend.phase == "scribe":
                b[at["phase_target"] + (pend.actor - seat) % n] = 1
            elif pend.phase == "guild":
                b[at["guild_symbol"] + pend.symbol] = 1
        b[whole["used_tokens"]] = revealed
        np.copyto(self.buffer, self._staged)
        self.views["scores"][:] = [s.markers[p] / SCORE_SCALE for p in order]
        self.views["set_points"][:] = [v / SCORE_SCALE for v in points]
        return self.buffer

    def _stage_sets(self, i: int, p: int, own: list[TableSet | None], rules: Rules) -> tuple[int, int]:
        """Stage seat ``p``'s sets in relative row ``i``; return what they score now and their Prosperity tokens.

        Sets change seldom, so their rows are kept per seat and rebuilt only when a set changed."""
        laid = [(g, t.cards, t.prosperity) for g, t in enumerate(own) if t is not None]
        staged = self._sets_staged[p]
        if staged is None or staged[0] != laid:
            staged = self._sets_staged[p] = _set_rows(laid, rules)
        _, sets_row, set_cards, points, prosperity = staged
        self._stage[self._rows["sets"][i]] = sets_row
        self._stage[self._rows["set_cards"][i]] = set_cards
        return points, prosperity


def _set_rows(laid: list[tuple[int, list[int], int]], rules: Rules) -> tuple:
    """For one player's sets as (goods, cards, Prosperity tokens): a copy of them, the row of the ``sets``
    section, the row of ``set_cards``, what they score now and their Prosperity tokens."""
    sets_row = [0] * (len(GOODS) * 3)
    points = prosperity = 0
    for g, cards, tokens in laid:
        count, scarabs = sum(cards), scarabs_of(cards, rules)
        sets_row[3 * g:3 * g + 3] = count, scarabs, tokens
        points += set_value(count, scarabs, tokens)
        prosperity += tokens
    set_cards = [sum(column) for column in zip(*(cards for _, cards, _ in laid))]
    return [(g, list(cards), tokens) for g, cards, tokens in laid], sets_row, set_cards, points, prosperity


def _backs(counted: list, p: int, cards: list[int]) -> tuple[int, int, int]:
    """``backs_of(cards)`` for seat ``p``'s hand or pile, recounted only when it changed since ``counted[p]``
    was taken: between two observations most hands and piles stay as they were."""
    last = counted[p]
    if last is None or last[0] != cards:
        last = counted[p] = (list(cards), backs_of(cards))
    return last[1]


def _rows(whole: slice, count: int) -> tuple[slice, ...]:
    """The slices of the ``count`` equal rows of a section (its first axis)."""
    width = (whole.stop - whole.start) // count
    return tuple(slice(whole.start + i * width, whole.start + (i + 1) * width) for i in range(count))


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
