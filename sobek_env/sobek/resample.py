"""Determinization (INTERFACE.md, ``resample``): a full state consistent with what one seat knows.

What a seat knows is what it sees in ``memory`` mode (rules §10, :func:`.view.view`), a superset
of the ``original`` view, so both observations stay as they were: the public table (the Nile with its
face-up cards, the sets, the discard, the revealed tokens, the scores, the round's summary, the
sub-decision in progress), the number of cards per back colour in every hand and every corruption
pile, its own hand and pile, what it remembers of each opponent's hand and pile, the face-down tokens
once it has looked through them (or while it chooses one), and the pile it is searching with the
Vizier. Everything else is re-drawn:

* the hidden cards (catalogue minus what the seat sees) are pooled by kind. The cards it remembers
  in an opponent's hand or pile go back there first, as far as that zone's back counts and the pool
  allow (memory is an upper bound: a card may have left face down, rules §10); the rest of each
  opponent's hand and pile, and the face-down characters on the Nile, are dealt from the shuffled
  pool, back colour by back colour, so every per-back count stays; the deck is dealt from what is
  left (never a green card while another is left: green cards are never in the deck, rules §2), and
  the remainder is out of the round (the unused green cards, the 2-player set-aside cards);
* the round's face-down tokens, unless the seat knows them, among the tokens not yet revealed;
* the other seats' memory (set to what the seat itself remembers: the public record plus its own
  glimpses; nobody's memory is visible to another seat);
* the future: the new state's seed and generator are drawn from ``rng``, never copied.

A deal that breaks what everybody saw of the sub-decision in progress (an opponent building a set
with cards that can never reach 3, deciding on a horizontal set he cannot form, …) is redrawn. The
pool is sorted and the places visited in a fixed order (opponents in seat order after the seat, hand
then pile, the Nile, the deck), so the result depends only on what the seat knows and on ``rng``.
"""

from __future__ import annotations

import random

from ..randomness import as_random
from .catalogue import (
    BACKS,
    BEIGE,
    FACE_UP_ON_NILE,
    GREEN,
    KIND_BACK,
    NUM_KINDS,
    NUM_TOKEN_KINDS,
    ORANGE,
    TOKEN_COUNTS,
    backs_of,
)
from .phases import BuildSet, HorizontalSet
from .state import GameState
from .view import View, chooses_token, knows_tokens, searched_pile, view

# Deals tried with the remembered cards kept in place; then (a remembered card may have left face down)
# deals in which they may lie anywhere hidden, among which the true state always is.
KEEP_MEMORY_ATTEMPTS = 500
MAX_ATTEMPTS = 100_000


def resample(s: GameState, player: int, rng: random.Random) -> GameState:
    """A state ``player`` cannot tell from ``s`` in memory mode, the rest re-drawn with ``rng``."""
    n = s.num_players
    if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < n:
        raise ValueError(f"player must be a seat from 0 to {n - 1}, got {player!r}")
    rng = as_random(rng)
    seed = rng.getrandbits(63)
    known = view(s, player, "memory")
    searched = searched_pile(s, player)
    tokens_seen = chooses_token(s, player) or knows_tokens(s, player, True)
    hidden = _hidden_cards(s, player, searched)
    for attempt in range(MAX_ATTEMPTS):
        r = _deal(s, player, known, searched, tokens_seen, hidden, rng, keep_memory=attempt < KEEP_MEMORY_ATTEMPTS)
        if s.over or _sound(r):
            r.seed, r.rng = seed, random.Random(seed)
            return r
    raise RuntimeError(f"no consistent deal found in {MAX_ATTEMPTS} attempts")


def _sound(r: GameState) -> bool:
    """Whether the sub-decision in progress fits the dealt hands and piles, and offers an action."""
    return (r.pending is None or r.pending.fault(r) is None) and bool(r.legal_actions())


def _hidden_cards(s: GameState, player: int, searched: int | None) -> list[int]:
    """Per kind, the cards ``player`` cannot see anywhere (``searched``: the pile he is looking through)."""
    hidden = list(s.rules.catalogue)
    seen = [s.hands[player], s.piles[player], s.discard]
    seen += [t.cards for own in s.sets for t in own if t is not None]
    seen += [cards for own in s.horizontal for _, cards in own]
    if isinstance(s.pending, (BuildSet, HorizontalSet)):  # off the hand, in view of all
        seen.append(s.pending.cards)
    if searched is not None:
        seen.append(s.piles[searched])
    for group in seen:
        for k, c in enumerate(group):
            hidden[k] -= c
    for k in s.nile:
        if FACE_UP_ON_NILE[k]:
            hidden[k] -= 1
    return hidden


def _deal(s: GameState, player: int, known: View, searched: int | None, tokens_seen: bool, hidden: list[int],
          rng: random.Random, keep_memory: bool) -> GameState:
    """One draw of everything ``player`` cannot see (``hidden``: those cards per kind), keeping what he knows
    (``known``: his memory-mode view; ``tokens_seen``: whether it shows him the face-down tokens)."""
    n = s.num_players
    r = s.clone()
    pool = list(hidden)
    opponents = [(player + i) % n for i in range(1, n)]

    # the hidden zones, each with the cards it needs per back colour: opponents' hands and piles
    zones: list[tuple[list[int], list[int], list[int]]] = []  # (zone in r, backs needed, remembered)
    for i, o in enumerate(opponents):  # the view's rows are per opponent, in this order
        r.hands[o] = [0] * NUM_KINDS
        zones.append((r.hands[o], list(backs_of(s.hands[o])), known.known_hands[i]))
        if o != searched:
            r.piles[o] = [0] * NUM_KINDS
            zones.append((r.piles[o], list(backs_of(s.piles[o])), known.known_piles[i]))
    if keep_memory:
        for zone, need, remembered in zones:
            _place_remembered(zone, need, remembered, pool, rng)

    by_back: list[list[int]] = [[] for _ in range(len(BACKS))]
    for k in range(NUM_KINDS):
        by_back[KIND_BACK[k]] += [k] * pool[k]
    for cards in by_back:
        rng.shuffle(cards)
    for zone, need, _ in zones:
        for back, count in enumerate(need):
            for _ in range(count):
                zone[by_back[back].pop()] += 1
    r.nile = [k if FACE_UP_ON_NILE[k] else by_back[KIND_BACK[k]].pop() for k in s.nile]

    rest = by_back[BEIGE] + by_back[ORANGE]
    rng.shuffle(rest)
    rest += by_back[GREEN]  # rules §2: the deck holds no green card while another card is left
    size = len(s.deck)
    r.deck = rest[:size]
    r.out_of_round = [0] * NUM_KINDS
    for k in rest[size:]:
        r.out_of_round[k] += 1

    if not tokens_seen:
        revealed = [a - b for a, b in zip(s.token_counts(), s.tokens)]
        unseen = [t for t in range(NUM_TOKEN_KINDS) for _ in range(TOKEN_COUNTS[t] - revealed[t])]
        r.tokens = [0] * NUM_TOKEN_KINDS
        for t in rng.sample(unseen, sum(s.tokens)):
            r.tokens[t] += 1

    for w in opponents:  # nobody sees another's memory: theirs becomes what this seat remembers
        for t in range(n):
            r.known_hands[w][t] = list(s.known_hands[player][t])
            r.known_piles[w][t] = list(s.known_piles[player][t])
    r._legal = None
    return r


def _place_remembered(zone: list[int], need: list[int], remembered: list[int], pool: list[int],
                      rng: random.Random) -> None:
    """Put the remembered cards still in the pool back into ``zone``, at most ``need`` per back colour
    (a random choice among them where more are remembered than fit: the others left face down)."""
    for back in range(len(BACKS)):
        candidates = [k for k in range(NUM_KINDS) if KIND_BACK[k] == back
                      for _ in range(min(remembered[k], pool[k]))]
        if len(candidates) > need[back]:
            candidates = rng.sample(candidates, need[back])
        for k in candidates:
            zone[k] += 1
            pool[k] -= 1
        need[back] -= len(candidates)
