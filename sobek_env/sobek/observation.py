"""Observation vectors: what one seat sees (rules §10), its :class:`~.view.View` as named slices of one
float32 vector.

:func:`observation_layout` gives the slices; :class:`Observer` writes a seat's view of a state into a
preallocated buffer through named views, in the ``original`` or ``memory`` information variant;
:func:`decode` reads a vector back into the same :class:`~.view.View`. Seats are relative: row 0 is the
observing seat, then the opponents in seat order after him. What a seat may see is decided in ``view.py``
alone: the reference encoder, :meth:`Observer.encode_python`, copies a View into numbers and nothing else.

A compiled twin (``sobek_env/sobek/_observe.pyx``, built by ``pip install`` when Cython and a C compiler
are at hand) writes the identical vector straight from the state; :meth:`Observer.encode` uses it when it
was built (the tests compare the two on every seat of many games). Its compiled decoder likewise reads a
vector back for :func:`decode` (:func:`decode_python` is the reference). Set the environment variable
``SOBEK_PURE_PYTHON=1`` (before importing ``sobek_env``) to force the Python paths; :data:`COMPILED` tells
which is in use.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

import numpy as np

from ..compiled import extension
from ..game import OBSERVATION_MODES as MODES
from ..game import BufferObserver, layout_of
from .catalogue import (
    BACKS,
    FIRST_CHARACTER,
    HIEROGLYPHS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_KINDS,
    NUM_TOKEN_KINDS,
    ROUNDS,
    SCORE_SCALE,
    SET_SLOTS,
    SYMBOLS,
)
from .phases import PHASES
from .state import GameState
from .view import View, view

_observe = extension("._observe", __package__)
COMPILED = _observe is not None  # whether Observer.encode runs the compiled encoder

NILE_SLOTS = 9
NILE_COLUMNS = FIRST_CHARACTER + 1  # the 19 face-up kinds, then "a character, face down"
HIGH = 100.0         # upper bound of every entry (counts never exceed 63; scores / 100)
_PHASE_NUMBER = {phase.name: i for i, phase in enumerate(PHASES)}  # a View's phase: its one-hot entry


def _shapes(n: int) -> list[tuple[str, tuple[int, ...], str]]:
    k, t, slots = NUM_KINDS, NUM_TOKEN_KINDS, len(SET_SLOTS)
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
        ("sets", (n, slots, 3), "each player's set per goods, then his amulets-only set: cards, scarabs on them, "
                                "Prosperity tokens"),
        ("set_cards", (n, k), "cards per kind in each player's sets"),
        ("set_points", (n,), "what each player's sets would score now / 100"),
        ("horizontal", (n, k), "cards per kind in each player's horizontal sets laid at this round's end"),
        ("known_hands", (n - 1, k), "memory mode: cards seen going into each opponent's hand, not seen leaving"),
        ("known_piles", (n - 1, k), "memory mode: cards known in each opponent's corruption pile (seen going in, "
                                    "or in the pile searched with the Vizier)"),
        ("tokens_left", (1,), "this round's tokens still face down"),
        ("used_tokens", (t,), "this round's tokens already revealed (used, or lying on a player or set)"),
        ("token_choice", (t,), "the face-down tokens, shown only to the player choosing one"),
        ("tokens_known", (t,), "memory mode: the face-down tokens, once this seat has looked through them this round"),
        ("discard", (k,), "the face-up discard, cards per kind"),
        ("vizier_pile", (k,), "the corruption pile being searched with the Vizier (its searcher only)"),
        ("building", (k,), "cards laid so far in the set being built (also a horizontal one) or by the Courtesan"),
        ("phase", (len(PHASES),), "one-hot sub-decision; first entry = start of a turn"),
        ("phase_goods", (slots,), "goods of the set being built or the Courtesan's set (last: amulets-only set)"),
        ("phase_target", (n,), "relative seat of the opponent targeted (Vizier, Thief) or the Scribe's player"),
        ("guild_symbol", (len(HIEROGLYPHS),), "hieroglyph of the Guild whose opponent is being chosen"),
        ("last_points", (n,), "the last scored round: each player's round points / 100"),
        ("last_corruption", (n,), "the last scored round: each player's corruption cards"),
        ("last_curses", (n,), "the last scored round: Curses on each player"),
        ("last_most_corrupt", (n,), "the last scored round: 1 for each most corrupt player"),
        ("last_penalty", (n,), "the last scored round: points each player lost to the penalty / 100"),
        ("last_horizontal", (n, k), "the last scored round: cards per kind in each player's horizontal sets"),
    ]


@cache
def _layout(n: int) -> tuple[dict[str, slice], dict[str, tuple[int, ...]], int]:
    return layout_of(_shapes(n))


def observation_layout(num_players: int) -> dict[str, slice]:
    """The named slices of the observation vector for ``num_players`` (2 to 4)."""
    if isinstance(num_players, bool) or num_players not in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        raise ValueError(f"num_players must be {MIN_PLAYERS} to {MAX_PLAYERS}, got {num_players!r}")
    return dict(_layout(num_players)[0])


def observation_shapes(num_players: int) -> dict[str, tuple[int, ...]]:
    """The shape of each named slice (reshape ``obs[layout[name]]`` to it)."""
    return dict(_layout(num_players)[1])


def observation_size(num_players: int) -> int:
    return _layout(num_players)[2]


def describe_layout(num_players: int) -> list[tuple[str, tuple[int, ...], str]]:
    """(name, shape, meaning) of every slice, in order: the documentation of the vector."""
    return list(_shapes(num_players))


# ---------------------------------------------------------------------- encoding a View


@cache
def _plan(n: int) -> tuple[dict[str, int], dict[str, tuple[slice, ...]], bytes]:
    """For the layout of ``n`` players: each section's offset, the slices of the rows of the sections with
    several, and a blank vector of bytes."""
    slices, shapes, size = _layout(n)
    rows = {}
    for name, sl in slices.items():
        count = shapes[name][0]
        width = (sl.stop - sl.start) // count
        rows[name] = tuple(slice(sl.start + i * width, sl.start + (i + 1) * width) for i in range(count))
    return {name: sl.start for name, sl in slices.items()}, rows, bytes(size)


def encode_view(v: View, buffer: np.ndarray) -> np.ndarray:
    """Write ``v`` into ``buffer`` (the layout of ``v.num_players``): the reference encoding, a copy and nothing
    else. Every entry but the points is a small count or a one-hot flag (below 64; a bytearray would raise,
    not wrap, above 255), so they are staged in a bytearray, where writing a row from a list is a C-level
    copy, and the whole vector converted to float32 at once; then the rows of points are written."""
    n = v.num_players
    slices = _layout(n)[0]
    at, rows, blank = _plan(n)
    b = bytearray(blank)

    def put_rows(name: str, values: list[list[int]]) -> None:
        for sl, row in zip(rows[name], values):
            b[sl] = row

    def one_hot(name: str, index: int) -> None:
        if index >= 0:
            b[at[name] + index] = 1

    b[slices["hand"]] = v.hand
    b[slices["pile"]] = v.pile
    for sl, column in zip(rows["nile"], v.nile):
        b[sl.start + column] = 1
    b[at["deck_size"]] = v.deck
    one_hot("round", v.round - 1)
    one_hot("to_move", v.to_move)
    one_hot("first_player", v.first_player)
    for sl, symbol in zip(rows["track_symbol"], v.track_symbol):
        b[sl.start + symbol] = 1
    put_rows("hand_backs", v.hand_backs)
    put_rows("pile_backs", v.pile_backs)
    b[slices["curses"]] = v.curses
    for sl, seat_sets in zip(rows["sets"], v.sets):
        b[sl] = [entry for slot in seat_sets for entry in slot]
    put_rows("set_cards", v.set_cards)
    put_rows("horizontal", v.horizontal)
    put_rows("known_hands", v.known_hands)
    put_rows("known_piles", v.known_piles)
    b[at["tokens_left"]] = v.tokens_left
    b[slices["used_tokens"]] = v.used_tokens
    b[slices["token_choice"]] = v.token_choice
    if v.tokens_known is not None:
        b[slices["tokens_known"]] = v.tokens_known
    b[slices["discard"]] = v.discard
    b[slices["vizier_pile"]] = v.vizier_pile
    b[slices["building"]] = v.building
    one_hot("phase", 0 if v.phase is None else _PHASE_NUMBER[v.phase])
    one_hot("phase_goods", v.phase_goods)
    one_hot("phase_target", v.phase_target)
    one_hot("guild_symbol", v.guild_symbol)
    b[slices["last_corruption"]] = v.last_corruption
    b[slices["last_curses"]] = v.last_curses
    b[slices["last_most_corrupt"]] = v.last_most_corrupt
    put_rows("last_horizontal", v.last_horizontal)
    if len(b) != len(blank):  # a row of the wrong length resizes a bytearray instead of raising
        raise ValueError(f"a view of {n} players does not fit the layout of {len(blank)} entries")
    np.copyto(buffer, np.frombuffer(b, dtype=np.uint8))
    for name in ("scores", "set_points", "last_points", "last_penalty"):
        buffer[slices[name]] = [points / SCORE_SCALE for points in getattr(v, name)]
    return buffer


# ---------------------------------------------------------------------- decoding


def read_python(v: View, x: np.ndarray, num_players: int) -> None:
    """Set the fields of ``v`` (a :class:`~.view.View`, or a reader built on one) from the vector ``x``: the
    reference the compiled decoder is tested against, and the reader of the vectors it leaves (entries not
    finite or beyond a C integer)."""
    lay, shapes, _ = _layout(num_players)
    counts = x.astype(np.int64)  # every entry but the scores and points is a count
    values = counts.tolist()

    def block(name: str) -> list:
        return counts[lay[name]].reshape(shapes[name]).tolist()

    def index(name: str) -> int:
        row = values[lay[name]]
        return row.index(1) if 1 in row else -1

    def points(name: str) -> list[int]:
        return [round(value * SCORE_SCALE) for value in x[lay[name]].tolist()]

    v.num_players = num_players
    v.hand = values[lay["hand"]]
    v.pile = values[lay["pile"]]
    nile = counts[lay["nile"]].reshape(shapes["nile"])
    v.nile = nile.argmax(axis=1)[nile.any(axis=1)].tolist()  # the Nile fills positions from 0
    v.deck = values[lay["deck_size"].start]
    v.round = index("round") + 1
    v.scores = points("scores")
    v.to_move = index("to_move")
    v.first_player = index("first_player")
    v.track_symbol = [row.index(1) if 1 in row else -1 for row in block("track_symbol")]
    v.hand_backs = block("hand_backs")
    v.pile_backs = block("pile_backs")
    v.curses = values[lay["curses"]]
    v.sets = block("sets")
    v.set_cards = block("set_cards")
    v.set_points = points("set_points")
    v.horizontal = block("horizontal")
    v.known_hands = block("known_hands")
    v.known_piles = block("known_piles")
    v.tokens_left = values[lay["tokens_left"].start]
    v.used_tokens = values[lay["used_tokens"]]
    v.token_choice = values[lay["token_choice"]]
    known_tokens = values[lay["tokens_known"]]
    v.tokens_known = known_tokens if any(known_tokens) else None
    v.discard = values[lay["discard"]]
    v.vizier_pile = values[lay["vizier_pile"]]
    v.building = values[lay["building"]]
    phase = index("phase")
    v.phase = None if phase == 0 else PHASES[phase].name
    v.phase_goods = index("phase_goods")
    v.phase_target = index("phase_target")
    v.guild_symbol = index("guild_symbol")
    v.last_points = points("last_points")
    v.last_corruption = values[lay["last_corruption"]]
    v.last_curses = values[lay["last_curses"]]
    v.last_most_corrupt = values[lay["last_most_corrupt"]]
    v.last_penalty = points("last_penalty")
    v.last_horizontal = block("last_horizontal")


def checked_vector(vector: Any, num_players: int) -> np.ndarray:
    """``vector`` as an array, if it has the size of a ``num_players`` observation (else ValueError)."""
    x = np.asarray(vector)
    size = observation_size(num_players)
    if x.shape != (size,):  # another table's vector would be read with this layout, without a word
        raise ValueError(f"an observation for {num_players} players has {size} entries, got shape {x.shape}")
    return x


def decode_python(x: np.ndarray, num_players: int) -> View:
    """:func:`decode` in Python: the reference the compiled decoder is tested against."""
    v = View.__new__(View)
    read_python(v, checked_vector(x, num_players), num_players)
    return v


@cache
def decoder(num_players: int) -> Any:
    """The compiled reader of observations for ``num_players`` (``_observe.Decoder``), where it was built."""
    return _observe.Decoder(observation_layout(num_players), observation_shapes(num_players), num_players)


def decode(observation: Mapping[str, Any] | np.ndarray, num_players: int) -> View:
    """The :class:`~.view.View` an observation (its dict, or the vector alone) was written from."""
    vector = observation["observation"] if isinstance(observation, Mapping) else observation
    x = checked_vector(vector, num_players)
    v = View.__new__(View)
    if _observe is not None and x.dtype == np.float32 and decoder(num_players).read(v, np.ascontiguousarray(x)):
        return v
    read_python(v, x, num_players)
    return v


# ---------------------------------------------------------------------- the observer


class Observer(BufferObserver):
    """Writes what one seat sees into a preallocated float32 buffer, exposed as named views.

    :meth:`encode_python`, the reference, copies the seat's :func:`~.view.view` into numbers (what the seat
    may see is decided there alone); :meth:`encode` runs the compiled twin when it was built, which writes
    the same vector straight from the state (module docstring).
    """

    def __init__(self, num_players: int, mode: str = "original") -> None:
        super().__init__(num_players, mode, _layout)
        if _observe is not None:  # the compiled twin writes the same buffer, so the named views serve both paths
            self._compiled = _observe.Encoder(self.buffer, _plan(num_players)[0], num_players, self.memory)
            self._encode = self._compiled.encode

    def encode_python(self, s: GameState, seat: int) -> np.ndarray:
        """:meth:`encode` through a :class:`~.view.View`: the reference the compiled encoder is tested against."""
        return encode_view(view(s, seat, self.mode), self.buffer)


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


__all__ = ["Observer", "observation_layout", "observation_shapes", "describe_layout", "encode_state", "encode_view",
           "decode", "decode_python", "MODES"]
