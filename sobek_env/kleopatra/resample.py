"""Determinization (INTERFACE.md, ``resample``): a full state consistent with what one seat knows.

What a seat knows is what its memory-mode observation holds (rules §12, ``view.py``): the public table,
its own hand, talents and amulets, every seat's talents and amulets, the cards known to be in each
hand and in the discard pile, hands shown to it this turn, the stack order if it saw it with a
Scribe, its own ceremony offer. Everything else is re-drawn uniformly among the states consistent
with that:

* the hidden cards (each opponent's hand beyond what is known of it, the faces of face-down cards in
  the stalls and in a refill, every deck card but a face-up top, the discard pile beyond what is
  known of it, another seat's Vizier draw) are pooled by kind, shuffled, and dealt back to the same
  places; an opponent who showed his hand to a Beggar this turn holds no standard card (everybody saw
  him give nothing), so his cards come from the pool's other cards;
* which deck cards below the top lie face up (their number is kept: public events add up to it);
* the mosaic stack below its top tile, unless the seat saw it;
* other seats' unrevealed ceremony offers (uniform from 0 to their talents);
* other seats' private memory (set to what the public knows, plus what the seat knows they know of
  its own hand);
* the future: the new state's generator is seeded from ``rng``, never copied.

The pool and the places are visited in a fixed order (kinds, then seats, stalls, deck, discard), so the
result depends only on what the seat knows and on ``rng``.
"""

from __future__ import annotations

import random

from ..randomness import as_random
from .catalogue import NUM_KINDS, STANDARD
from .phases import Ceremony, Refill, Vizier
from .state import GameState

_STANDARD = frozenset(STANDARD)


MAX_ATTEMPTS = 100_000


def resample(s: GameState, player: int, rng: random.Random) -> GameState:
    """A state ``player`` cannot tell from ``s`` in memory mode, the rest re-drawn with ``rng``.

    A deal is redrawn while it breaks what everybody saw: a quarry visit with nothing built yet must be
    affordable from the pool, hand and merchants, and a Beggar's victim being asked must have something
    to give (rejection keeps the draw uniform among the consistent deals; the true one is among them)."""
    n = s.num_players
    if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < n:
        raise ValueError(f"player must be a seat from 0 to {n - 1}, got {player!r}")
    rng = as_random(rng)
    seed = rng.getrandbits(63)
    for _ in range(MAX_ATTEMPTS):
        r = _deal(s, player, rng)
        if r.pending is None or r.pending.fault(r) is None:
            r.seed, r.rng = seed, random.Random(seed)
            return r
    raise RuntimeError(f"no consistent deal found in {MAX_ATTEMPTS} attempts")


def _deal(s: GameState, player: int, rng: random.Random) -> GameState:
    n = s.num_players
    r = s.clone()
    pool = [0] * NUM_KINDS
    knows = s.known[player]

    # the opponents' hands beyond what is known of them
    unknown_in_hand = [0] * n
    for o in range(n):
        if o == player:
            continue
        for k in range(NUM_KINDS):
            extra = s.hands[o][k] - knows[o][k]
            pool[k] += extra
            unknown_in_hand[o] += extra
        r.hands[o] = list(knows[o])
    # face-down cards in the stalls and in a refill
    stall_slots = [[i for i, c in enumerate(stall) if not c & 1] for stall in s.stalls]
    for stall, slots in zip(s.stalls, stall_slots):
        for i in slots:
            pool[stall[i] >> 1] += 1
    refill = r.pending if isinstance(r.pending, Refill) else None
    refill_slots = [i for i, c in enumerate(refill.drawn) if not c & 1] if refill is not None else []
    for i in refill_slots:
        pool[refill.drawn[i] >> 1] += 1
    # the deck, but a face-up top card
    deck = s.deck
    top_seen = bool(deck) and bool(deck[-1] & 1)
    hidden_deck = deck[:-1]  # below the top: kinds and which lie face up are hidden
    for c in deck if not top_seen else hidden_deck:
        pool[c >> 1] += 1
    face_up_below = sum(c & 1 for c in hidden_deck)
    # the discard pile beyond what is known of it
    for k in range(NUM_KINDS):
        pool[k] += s.discard[k] - s.known_discard[player][k]
    r.discard = list(s.known_discard[player])
    # another seat's Vizier draw
    vizier = r.pending if isinstance(r.pending, Vizier) and s.active_player != player else None
    if vizier is not None:
        for k in range(NUM_KINDS):
            pool[k] += vizier.drawn[k]
        vizier_count = sum(vizier.drawn)
        vizier.drawn = [0] * NUM_KINDS

    cards = [k for k in range(NUM_KINDS) for _ in range(pool[k])]
    rng.shuffle(cards)
    shown = [o for o in s.shown if o != player and s.active_player != player]
    for o in shown:  # everybody saw him give nothing: no standard card in his hand
        picked = [i for i, k in enumerate(cards) if k not in _STANDARD][:unknown_in_hand[o]]
        for i in picked:
            r.hands[o][cards[i]] += 1
        for i in reversed(picked):
            del cards[i]
        unknown_in_hand[o] = 0
    at = 0
    for o in range(n):
        for k in cards[at:at + unknown_in_hand[o]]:
            r.hands[o][k] += 1
        at += unknown_in_hand[o]
    for stall, slots in zip(r.stalls, stall_slots):
        for i in slots:
            stall[i] = cards[at] * 2
            at += 1
    for i in refill_slots:
        refill.drawn[i] = cards[at] * 2
        at += 1
    ups = set(rng.sample(range(len(hidden_deck)), face_up_below))
    new_deck = [cards[at + i] * 2 + (i in ups) for i in range(len(hidden_deck))]
    at += len(hidden_deck)
    if top_seen:
        new_deck.append(deck[-1])
    elif deck:  # a face-down top: its face is hidden, its back is not
        new_deck.append(cards[at] * 2)
        at += 1
    r.deck = new_deck
    if vizier is not None:
        for k in cards[at:at + vizier_count]:
            vizier.drawn[k] += 1
        at += vizier_count
    for k in cards[at:]:
        r.discard[k] += 1

    if len(s.stack) > 1 and not s.saw_stack[player]:
        rest = sorted(s.stack[1:])
        rng.shuffle(rest)
        r.stack = [s.stack[0], *rest]

    ceremony = r.pending if isinstance(r.pending, Ceremony) else None
    if ceremony is not None:
        closed = ceremony.closed(s)
        for q in range(n):
            if q != player and (closed[q] or q == s.current_player):
                ceremony.offers[q] = rng.randint(0, s.talents[q])

    public = n
    for w in range(n):
        if w == player:
            continue
        for o in range(n):
            if o != w and o != player:
                r.known[w][o] = list(s.known[public][o])
        r.known_discard[w] = list(s.known_discard[public])
    if s.active_player != player:
        for o in s.shown:
            r.known[s.active_player][o] = list(r.hands[o])
    r._legal = None
    return r
