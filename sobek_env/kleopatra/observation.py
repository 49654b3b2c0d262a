"""Observation vectors (rules §15): one seat's :class:`~.view.View` as named slices of one float32 vector.

:func:`describe_layout` names the slices; :class:`Observer` writes a seat's view of a state into one
preallocated buffer, in the ``original`` or ``memory`` mode; :func:`decode` reads a vector back into
the same :class:`~.view.View`. What a seat may see is decided in ``view.py`` alone: the reference
encoder, :meth:`Observer.encode_python`, copies a View into numbers and nothing else.

A compiled twin (``sobek_env/kleopatra/_observe.pyx``, built by ``pip install`` when Cython and a C
compiler are at hand) writes the identical vector straight from the state, keeping the garden's rows
between calls until the palace changes; :meth:`Observer.encode` uses it when it was built (the tests
compare the two on every seat of many games). Its compiled decoder likewise reads a vector back for
:func:`decode` (:func:`decode_python` is the reference). ``SOBEK_PURE_PYTHON=1`` forces the Python paths.

Entries are counts, 0/1 flags, one-hot rows, or (talents, amulets, offers) counts divided by
``SCORE_SCALE``; ``turn`` is the turn divided by ``max_turns``. :func:`observation_bounds` gives
each entry's bounds, derived in ``bounds.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from itertools import compress
from typing import Any

import numpy as np

from ..compiled import extension
from ..game import BufferObserver
from .actions import BUILDS
from .bounds import max_amulets, max_talents
from .catalogue import (
    CLEOPATRA_END,
    DICE,
    GATE_PARTS,
    NUM_KINDS,
    NUM_TILES,
    NUM_WALL_SLOTS,
    OBELISK_PIECES,
    ORIENTATIONS,
    SPHINX_PIECES,
    SQUARES,
    STALLS,
    START_MERCHANTS,
    START_STATUES,
    UNITS,
    make_rules,
)
from .phases import PHASE_INDEX, PHASE_NAMES
from .state import GameState
from .view import EMPTY, View, view

_observe = extension("._observe", __package__)
COMPILED = _observe is not None

SCORE_SCALE = 100.0
CARD_COLUMNS = NUM_KINDS + 1   # a card's visible side: its kind, or face down
TOP_COLUMNS = NUM_KINDS + 2    # the deck's top: a kind, face down, or empty
RESOURCES = 5


def _shapes(n: int) -> list[tuple[str, tuple[int, ...], str]]:
    k, o = NUM_KINDS, n - 1
    return [
        ("phase", (len(PHASE_NAMES),), "one-hot phase of rules §14.2 (first: the start of a turn)"),
        ("acting", (n,), "one-hot relative seat that must act now (0 = the observer)"),
        ("active", (n,), "one-hot relative seat whose turn it is"),
        ("turn", (1,), "the turn in progress / max_turns"),
        ("over", (1,), "1 once the game is over"),
        ("hand", (k,), "own hand, cards per kind"),
        ("hand_sizes", (n,), "cards in each hand, per relative seat"),
        ("talents", (n,), "talents / 100: own; opponents' in memory mode or once the game is over"),
        ("amulets", (n,), "amulets / 100: own; opponents' in memory mode or once the game is over"),
        ("merchants", (n,), "Nile merchants left, per relative seat"),
        ("statues", (n,), "statues of Anubis left, per relative seat"),
        ("sanctuary_squares", (n,), "squares of each seat's sanctuaries"),
        ("eliminated", (n,), "fed to the crocodile (at the end)"),
        ("winners", (n,), "won (at the end)"),
        ("known_hands", (o, k), "memory mode: cards known to be in each opponent's hand"),
        ("known_discard", (k,), "memory mode: cards known to be in the discard pile"),
        ("deck_face_up", (1,), "memory mode: face-up cards in the deck"),
        ("shown", (o,), "opponents who showed their hand to the observer's Beggar this turn"),
        ("shown_hands", (o, k), "the hands shown, cards per kind"),
        ("stalls", (STALLS, CARD_COLUMNS), "per stall: face-up cards per kind, then the face-down count"),
        ("deck_size", (1,), "cards in the deck"),
        ("deck_top", (TOP_COLUMNS,), "one-hot deck top: its kind if face up, then face down, then empty"),
        ("discard_size", (1,), "cards in the discard pile"),
        ("palms", (SQUARES,), "palm squares (static)"),
        ("covered", (SQUARES,), "squares covered by a mosaic"),
        ("sanctuary", (SQUARES,), "sanctuary squares"),
        ("sanctuary_owner", (n, SQUARES), "per relative seat, the squares of his sanctuaries"),
        ("tile_anchor", (NUM_TILES,), "per tile, 1 + its anchor square once placed, else 0"),
        ("tile_orient", (NUM_TILES,), "per placed tile, its orientation"),
        ("walls", (NUM_WALL_SLOTS,), "wall slots built (chain order W1-W9)"),
        ("gate", (GATE_PARTS,), "gate parts built (left, right)"),
        ("sphinxes", (1,), "sphinxes built"),
        ("obelisks", (1,), "obelisks built"),
        ("pedestal", (1,), "pedestal built"),
        ("throne", (1,), "throne built"),
        ("complete", (6,), "categories complete: walls, sphinxes, obelisks, gate, throne, mosaics"),
        ("cleopatra", (1,), "Cleopatra's step (0-5)"),
        ("in_quarry", (NUM_TILES,), "mosaic tiles still in the quarry"),
        ("top_tile", (NUM_TILES,), "one-hot top tile of the stack"),
        ("removed", (NUM_TILES,), "tiles removed from the game"),
        ("stack_order", (NUM_TILES,),
         "1-based place of each tile in the stack where known (the top; all after a Scribe)"),
        ("altar", (1,), "dice on the altar"),
        ("pool", (len(UNITS),), "quarry visit: units in the pool (5 resources, trompe, merchant)"),
        ("paid", (k,), "quarry visit: the payment row, cards per kind"),
        ("built", (len(BUILDS),), "quarry visit: elements built, per build action (wall:1 .. mosaic)"),
        ("refill_cards", (STALLS, CARD_COLUMNS), "refill: visible side of each card still to place, in order"),
        ("refill_filled", (STALLS,), "refill: stalls already given a card"),
        ("tile", (NUM_TILES,), "one-hot mosaic tile being placed"),
        ("orient", (ORIENTATIONS,), "one-hot orientation chosen for it"),
        ("offered_sanctuary", (SQUARES,), "the new sanctuary a statue may go on"),
        ("envoy_resource", (RESOURCES,), "one-hot resource the Envoy asks for"),
        ("envoy_offers", (n,), "cards offered to the Envoy, per relative seat"),
        ("envoy_accepted", (n,), "cards the Envoy accepted, per relative seat"),
        ("envoy_target", (n,), "one-hot relative seat whose offer is being accepted"),
        ("vizier_drawn", (k,), "the Vizier's draw not yet kept (its player only)"),
        ("vizier_kept", (1,), "cards the Vizier kept so far"),
        ("courtesan_discard", (k,), "the discard pile searched by the observer's Courtesan"),
        ("ceremony_offer", (1,), "ceremony: own running offer / 100"),
        ("ceremony_closed", (n,), "ceremony: seats that closed their offer"),
        ("last_offers", (n,), "the last ceremony's offers / 100"),
        ("last_places", (n,), "the last ceremony's places (0: no ceremony yet)"),
    ]


SCALED = frozenset({"talents", "amulets", "ceremony_offer", "last_offers"})


@cache
def _layout(n: int) -> tuple[dict[str, slice], dict[str, tuple[int, ...]], int]:
    slices, shapes, start = {}, {}, 0
    for name, shape, _ in _shapes(n):
        size = int(np.prod(shape))
        slices[name] = slice(start, start + size)
        shapes[name] = shape
        start += size
    return slices, shapes, start


def _check_players(n: int) -> None:
    if isinstance(n, bool) or not isinstance(n, int) or not 2 <= n <= 5:
        raise ValueError(f"num_players must be an integer from 2 to 5, got {n!r}")


def describe_layout(num_players: int) -> list[tuple[str, tuple[int, ...], str]]:
    """(name, shape, meaning) of every slice, in order: the documentation of the vector."""
    _check_players(num_players)
    return list(_shapes(num_players))


def observation_layout(num_players: int) -> dict[str, slice]:
    """The named slices of the observation vector."""
    _check_players(num_players)
    return dict(_layout(num_players)[0])


def observation_shapes(num_players: int) -> dict[str, tuple[int, ...]]:
    _check_players(num_players)
    return dict(_layout(num_players)[1])


def observation_size(num_players: int) -> int:
    _check_players(num_players)
    return _layout(num_players)[2]


def observation_bounds(num_players: int, **rules: Any) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) of every entry, for a Box space: 0, and the bounds derived in ``bounds.py``."""
    options = make_rules(num_players, **rules)
    n, cards = num_players, float(options.total_cards)
    scaled_talents = max_talents(options) / SCORE_SCALE
    high_of = {
        "turn": 1.0, "merchants": START_MERCHANTS, "statues": START_STATUES, "sanctuary_squares": SQUARES,
        "tile_anchor": SQUARES, "tile_orient": ORIENTATIONS - 1, "sphinxes": SPHINX_PIECES,
        "obelisks": OBELISK_PIECES, "cleopatra": CLEOPATRA_END, "stack_order": NUM_TILES, "altar": DICE,
        "built": NUM_TILES, "vizier_kept": 5, "last_places": n, "pool": 2 * cards + START_MERCHANTS,
        "talents": scaled_talents, "ceremony_offer": scaled_talents, "last_offers": scaled_talents,
        "amulets": max_amulets(options) / SCORE_SCALE,
    }
    counts = {"hand", "hand_sizes", "known_hands", "known_discard", "deck_face_up", "shown_hands", "stalls",
              "deck_size", "discard_size", "paid", "vizier_drawn", "courtesan_discard", "envoy_offers",
              "envoy_accepted"}
    slices, _, size = _layout(n)
    high = np.ones(size, dtype=np.float32)
    for name, sl in slices.items():
        if name in high_of:
            high[sl] = high_of[name]
        elif name in counts:
            high[sl] = cards
    return np.zeros(size, dtype=np.float32), high


# ---------------------------------------------------------------------- encoding a View


def _one_hot(b: np.ndarray, at: int, index: int | None) -> None:
    if index is not None:
        b[at + index] = 1.0


def encode_view(v: View, buffer: np.ndarray, max_turns: int) -> np.ndarray:
    """Write ``v`` into ``buffer`` (the layout of ``v.num_players``): the reference encoding."""
    n = v.num_players
    slices = _layout(n)[0]
    b = buffer
    b[:] = 0.0

    def put(name: str, values: Any, scale: float = 1.0) -> None:
        b[slices[name]] = np.asarray(values, dtype=np.float64).ravel() / scale

    def flags(name: str, squares: list[int]) -> None:
        for i in squares:
            b[slices[name].start + i] = 1.0

    at = {name: sl.start for name, sl in slices.items()}
    _one_hot(b, at["phase"], PHASE_INDEX[v.phase])
    _one_hot(b, at["acting"], v.acting)
    _one_hot(b, at["active"], v.active)
    b[at["turn"]] = v.turn / max_turns
    b[at["over"]] = v.over
    for name in ("hand", "hand_sizes", "merchants", "statues", "sanctuary_squares", "eliminated", "winners",
                 "known_hands", "known_discard", "shown", "shown_hands", "stalls", "walls", "gate", "complete",
                 "in_quarry", "removed", "stack_order", "pool", "paid", "built", "refill_filled",
                 "envoy_offers", "envoy_accepted", "vizier_drawn", "courtesan_discard", "ceremony_closed",
                 "last_places", "tile_orient"):
        values = getattr(v, name)
        if values:
            put(name, values)
    for name in ("talents", "amulets", "last_offers"):
        put(name, getattr(v, name), SCORE_SCALE)
    for name in ("deck_face_up", "deck_size", "discard_size", "sphinxes", "obelisks", "pedestal", "throne",
                 "cleopatra", "altar", "vizier_kept"):
        b[at[name]] = getattr(v, name)
    b[at["ceremony_offer"]] = v.ceremony_offer / SCORE_SCALE
    _one_hot(b, at["deck_top"], v.deck_top)
    flags("palms", v.palms)
    flags("covered", v.covered)
    flags("sanctuary", v.sanctuaries)
    for i, owned in enumerate(v.owned):
        for sq in owned:
            b[at["sanctuary_owner"] + i * SQUARES + sq] = 1.0
    for t, anchor in enumerate(v.tile_anchor):
        if anchor is not None:
            b[at["tile_anchor"] + t] = anchor + 1
    _one_hot(b, at["top_tile"], v.top_tile)
    for row, card in enumerate(v.refill_cards):
        b[at["refill_cards"] + row * CARD_COLUMNS + card] = 1.0
    _one_hot(b, at["tile"], v.tile)
    _one_hot(b, at["orient"], v.orient)
    flags("offered_sanctuary", v.offered_sanctuary)
    _one_hot(b, at["envoy_resource"], v.envoy_resource)
    _one_hot(b, at["envoy_target"], v.envoy_target)
    return b


# ---------------------------------------------------------------------- decoding


def _ints(values: list[float], scale: float = 1.0) -> list[int]:
    if scale == 1.0:
        return list(map(int, values))  # counts: whole numbers, exact in float32
    return [round(value * scale) for value in values]


def _index(values: list[float]) -> int | None:
    for i, value in enumerate(values):
        if value:
            return i
    return None


def _squares(values: list[float]) -> list[int]:
    return list(compress(range(len(values)), values))


def decode_vector(vector: np.ndarray, num_players: int, max_turns: int) -> View:
    """Read an observation vector back into the :class:`~.view.View` it was written from."""
    n = num_players
    size = _layout(n)[2]
    x = np.asarray(vector, dtype=np.float32)
    if x.shape != (size,):
        raise ValueError(f"an observation for {n} players has {size} entries, got shape {x.shape}")
    if _observe is not None:
        decoded = _decoder(n).decode(np.ascontiguousarray(x), max_turns)
        if decoded is not None:
            return decoded
    return decode_python(x, n, max_turns)


@cache
def _decoder(num_players: int) -> Any:
    slices, shapes, _ = _layout(num_players)
    return _observe.Decoder(slices, shapes, num_players)


def decode_python(x: np.ndarray, num_players: int, max_turns: int) -> View:
    """:func:`decode_vector` in Python (``x`` of the right size): the reference the compiled decoder is
    tested against, and the reader of vectors it leaves (entries not finite or beyond a C integer)."""
    n = num_players
    slices, shapes, _ = _layout(n)
    flat = x.tolist()  # Python floats: reading them one by one is far cheaper than from the array

    def part(name: str) -> list[float]:
        return flat[slices[name]]

    def rows(name: str) -> list[list[float]]:
        values, width = part(name), shapes[name][-1]
        return [values[i:i + width] for i in range(0, len(values), width)]

    v = View(n)
    v.phase = PHASE_NAMES[_index(part("phase")) or 0]
    v.acting, v.active = _index(part("acting")) or 0, _index(part("active")) or 0
    v.turn = round(float(part("turn")[0]) * max_turns)
    v.over = bool(part("over")[0])
    for name in ("hand", "hand_sizes", "merchants", "statues", "sanctuary_squares", "known_discard", "stack_order",
                 "pool", "paid", "built", "envoy_offers", "envoy_accepted", "vizier_drawn", "courtesan_discard",
                 "last_places", "tile_orient"):
        setattr(v, name, _ints(part(name)))
    for name in ("eliminated", "winners", "shown", "walls", "gate", "complete", "in_quarry", "removed",
                 "refill_filled", "ceremony_closed"):
        setattr(v, name, list(map(bool, part(name))))
    for name in ("talents", "amulets", "last_offers"):
        setattr(v, name, _ints(part(name), SCORE_SCALE))
    v.known_hands = [_ints(row) for row in rows("known_hands")]
    v.shown_hands = [_ints(row) for row in rows("shown_hands")]
    v.stalls = [_ints(row) for row in rows("stalls")]
    for name in ("deck_face_up", "deck_size", "discard_size", "sphinxes", "obelisks", "cleopatra", "altar",
                 "vizier_kept"):
        setattr(v, name, _ints(part(name))[0])
    v.pedestal, v.throne = bool(part("pedestal")[0]), bool(part("throne")[0])
    v.ceremony_offer = _ints(part("ceremony_offer"), SCORE_SCALE)[0]
    top = _index(part("deck_top"))
    v.deck_top = EMPTY if top is None else top
    v.palms, v.covered, v.sanctuaries = _squares(part("palms")), _squares(part("covered")), _squares(part("sanctuary"))
    v.owned = [_squares(row) for row in rows("sanctuary_owner")]
    v.tile_anchor = [None if a == 0 else a - 1 for a in _ints(part("tile_anchor"))]
    v.top_tile = _index(part("top_tile"))
    v.refill_cards = [card for card in (_index(row) for row in rows("refill_cards")) if card is not None]
    v.tile, v.orient = _index(part("tile")), _index(part("orient"))
    v.offered_sanctuary = _squares(part("offered_sanctuary"))
    v.envoy_resource, v.envoy_target = _index(part("envoy_resource")), _index(part("envoy_target"))
    return v


def decode(observation: Mapping[str, Any] | np.ndarray, num_players: int, max_turns: int = 400) -> View:
    """The :class:`~.view.View` of an environment observation (its dict, or the vector alone)."""
    vector = observation["observation"] if isinstance(observation, Mapping) else observation
    return decode_vector(vector, num_players, max_turns)


# ---------------------------------------------------------------------- the observer


class Observer(BufferObserver):
    """Writes what one seat sees into a preallocated float32 buffer (returned, not copied), exposed as
    named views; see the module docstring for its two implementations."""

    def __init__(self, num_players: int, mode: str = "original") -> None:
        _check_players(num_players)
        super().__init__(num_players, mode, _layout)
        if _observe is not None:
            at = {name: sl.start for name, sl in _layout(num_players)[0].items()}
            self._compiled = _observe.Encoder(self.buffer, at, num_players, self.memory)
            self._encode = self._compiled.encode

    def encode_python(self, state: GameState, seat: int) -> np.ndarray:
        """:meth:`encode` through a :class:`~.view.View`: the reference the compiled encoder is tested against."""
        if state.num_players != self.num_players:
            raise ValueError(f"the observer is for {self.num_players} players, the state has {state.num_players}")
        return encode_view(view(state, seat, self.mode), self.buffer, state.rules.max_turns)


# ---------------------------------------------------------------------- full information


_STATE_OBSERVERS: dict[int, Observer] = {}


def state_size(num_players: int) -> int:
    """The length of :func:`state_vector`: seat 0's memory-mode view, then what no seat sees."""
    n = num_players
    return observation_size(n) + (n + STALLS + 3) * NUM_KINDS + NUM_TILES + n


def state_vector(s: GameState) -> np.ndarray:
    """The full-information vector (for centralised critics): seat 0's memory-mode view, then every hand,
    the stalls' and the deck's true cards, the discard pile, the Vizier's draw, the whole mosaic stack
    (1-based places) and every running ceremony offer / 100."""
    n = s.num_players
    observer = _STATE_OBSERVERS.get(n)
    if observer is None:
        observer = _STATE_OBSERVERS[n] = Observer(n, "memory")
    head = observer.encode(s, 0)
    extra = np.zeros((n + STALLS + 3) * NUM_KINDS + NUM_TILES + n, dtype=np.float32)
    at = 0
    for hand in s.hands:
        extra[at:at + NUM_KINDS] = hand
        at += NUM_KINDS
    for pile in (*s.stalls, s.deck):
        for card in pile:
            extra[at + (card >> 1)] += 1
        at += NUM_KINDS
    extra[at:at + NUM_KINDS] = s.discard
    at += NUM_KINDS
    pending = s.pending
    if pending is not None and pending.name == "vizier":
        extra[at:at + NUM_KINDS] = pending.drawn
    at += NUM_KINDS
    for place, t in enumerate(s.stack):
        extra[at + t] = place + 1
    at += NUM_TILES
    if pending is not None and pending.name == "ceremony":
        extra[at:at + n] = [o / SCORE_SCALE for o in pending.offers]
    return np.concatenate([head, extra])

