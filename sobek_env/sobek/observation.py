"""Observation vectors: what one seat sees (rules §10), as named slices of one float32 vector.

:func:`observation_layout` gives the slices; :class:`Observer` writes a state
into a preallocated buffer through named views, in the ``original`` or
``memory`` information variant. Seats are relative: row 0 is the observing
seat, then the opponents in seat order after him.

The encoding has two implementations that write identical vectors: the Python
:meth:`Observer.encode_python`, the reference, and a compiled twin
(``sobek_env/sobek/_observe.pyx``, built by ``pip install`` when Cython and a C
compiler are at hand) that :meth:`Observer.encode` uses when it was built.
Set the environment variable ``SOBEK_PURE_PYTHON=1`` (before importing
``sobek_env``) to force the Python path; :data:`COMPILED` tells which is in use.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from ..compiled import extension
from ..game import OBSERVATION_MODES as MODES
from ..game import BufferObserver, layout_of
from .catalogue import (
    BACKS,
    CURSE,
    CURSE_WEIGHT,
    FIRST_CHARACTER,
    HIEROGLYPHS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NILE_FACE,
    NUM_KINDS,
    NUM_TOKEN_KINDS,
    PROSPERITY,
    ROUNDS,
    SCORE_SCALE,
    SET_SLOTS,
    SYMBOLS,
    Rules,
    backs_of,
    symbol_at,
)
from .phases import (
    PHASE_INDEX,
    PHASES,
    BuildSet,
    CourtesanCard,
    Curse,
    Guild,
    HorizontalSet,
    Prosperity,
    Scribe,
    ThiefBack,
    VizierCard,
)
from .scoring import TableSet, scarabs_of, set_value
from .state import GameState
from .view import seat_view

_observe = extension("._observe", __package__)
COMPILED = _observe is not None  # whether Observer.encode runs the compiled encoder

NILE_SLOTS = 9
NILE_COLUMNS = FIRST_CHARACTER + 1  # the 19 face-up kinds, then "a character, face down"
HIGH = 100.0         # upper bound of every entry (counts never exceed 63; scores / 100)


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


class Observer(BufferObserver):
    """Writes what one seat sees into a preallocated float32 buffer, exposed as named views.

    What the seat may see is :func:`sobek_env.view.seat_view`'s; the encoder only copies it and the
    public table into numbers. :meth:`encode` runs the compiled encoder when it was built, else
    :meth:`encode_python` (module docstring). In the Python path every entry but the points is a
    small count or a one-hot flag (below 64; a bytearray would raise, not wrap, above 255), so it
    stages them in a bytearray, where writing a row from the engine's lists is a C-level copy,
    converts the whole vector to float32 with one numpy call, then writes the rows of points.
    The per-back counts of each hand and pile and the rows of each player's sets are kept between
    calls and redone only for what changed.
    """

    def __init__(self, num_players: int, mode: str = "original") -> None:
        super().__init__(num_players, mode, _layout)
        n = num_players
        slices, shapes, size = _layout(n)
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
        # per Nile position and card kind, the entry of the one-hot "nile" section (what the kind shows there)
        self._nile_cell = tuple(
            tuple(slices["nile"].start + pos * NILE_COLUMNS + NILE_FACE[kind] for kind in range(NUM_KINDS))
            for pos in range(NILE_SLOTS)
        )
        if _observe is not None:  # the compiled twin writes the same buffer, so the named views serve both paths
            self._compiled = _observe.Encoder(self.buffer, self._at, n, self.memory)
            self._encode = self._compiled.encode_seat

    def encode_python(self, s: GameState, seat: int) -> np.ndarray:
        """:meth:`encode` in pure Python: the reference the compiled encoder is tested against."""
        n, b, at, whole, rows = self.num_players, self._stage, self._at, self._whole, self._rows
        view = seat_view(s, seat, self.memory)
        order = self._order[seat]
        b[:] = self._blank
        b[whole["hand"]] = view.hand
        b[whole["pile"]] = view.pile
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
            if i == 0 or view.opponent_piles:
                b[rows["pile_backs"][i]] = _backs(self._piles_counted, p, s.piles[p])
            own = s.sets[p]
            if any(own):  # most players have no set most of the time
                points[i], prosperity = self._stage_sets(i, p, own, s.rules)
                revealed[PROSPERITY] += prosperity
            if s.horizontal[p]:
                b[rows["horizontal"][i]] = _sum_rows([cards for _, cards in s.horizontal[p]])
            if i and view.known_hands is not None:
                b[rows["known_hands"][i - 1]] = view.known_hands[p]
                b[rows["known_piles"][i - 1]] = view.known_piles[p]
        b[at["tokens_left"]] = sum(s.tokens)
        if view.token_choice is not None:
            b[whole["token_choice"]] = view.token_choice
        if view.tokens_known is not None:
            b[whole["tokens_known"]] = view.tokens_known
        if view.vizier_pile is not None:
            b[whole["vizier_pile"]] = view.vizier_pile
        b[whole["discard"]] = s.discard
        pending = s.pending
        b[at["phase"] + (0 if pending is None else PHASE_INDEX[type(pending)])] = 1
        if pending is not None:
            kind = type(pending)
            if kind is Curse:  # chosen, not yet placed
                revealed[CURSE] += 1
            elif kind is Prosperity:
                revealed[PROSPERITY] += 1
            elif kind in (BuildSet, HorizontalSet, CourtesanCard):
                b[whole["building"]] = pending.cards
                b[at["phase_goods"] + (pending.slot if kind is CourtesanCard else pending.goods)] = 1
            elif kind in (VizierCard, ThiefBack):
                b[at["phase_target"] + (pending.target - seat) % n] = 1
            elif kind is Scribe:
                b[at["phase_target"] + (pending.actor - seat) % n] = 1
            elif kind is Guild:
                b[at["guild_symbol"] + pending.symbol] = 1
        b[whole["used_tokens"]] = revealed
        last = s.round_log[-1] if s.round_log else None
        if last is not None:
            b[whole["last_corruption"]] = [last["corruption"][p] - CURSE_WEIGHT * last["curses"][p] for p in order]
            b[whole["last_curses"]] = [last["curses"][p] for p in order]
            for p in last["most_corrupt"]:
                b[at["last_most_corrupt"] + (p - seat) % n] = 1
            for i, p in enumerate(order):
                b[rows["last_horizontal"][i]] = last["horizontal"][p]
        np.copyto(self.buffer, self._staged)
        views = self.views
        views["scores"][:] = [s.markers[p] / SCORE_SCALE for p in order]
        views["set_points"][:] = [v / SCORE_SCALE for v in points]
        if last is not None:
            views["last_points"][:] = [last["points"][p] / SCORE_SCALE for p in order]
            views["last_penalty"][:] = [last["penalty"][p] / SCORE_SCALE for p in order]
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
    """For one player's sets as (slot, cards, Prosperity tokens): a copy of them, the row of the ``sets``
    section, the row of ``set_cards``, what they score now and their Prosperity tokens."""
    sets_row = [0] * (len(SET_SLOTS) * 3)
    points = prosperity = 0
    for g, cards, tokens in laid:
        count, scarabs = sum(cards), scarabs_of(cards, rules)
        sets_row[3 * g:3 * g + 3] = count, scarabs, tokens
        points += set_value(count, scarabs, tokens)
        prosperity += tokens
    set_cards = _sum_rows([cards for _, cards, _ in laid])
    return [(g, list(cards), tokens) for g, cards, tokens in laid], sets_row, set_cards, points, prosperity


def _sum_rows(groups: list[list[int]]) -> list[int]:
    """Cards per kind over several groups of counts."""
    return [sum(column) for column in zip(*groups)]


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
