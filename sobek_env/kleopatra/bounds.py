"""Derived bounds: the longest game, the most talents and amulets a player can hold.

Game-length bound
-----------------
A game has at most ``max_turns`` turns (rules §11). Within one turn (``turn_steps``):

* **characters**: a played character stays set aside until the turn's end (rules §8 [decision]), so
  each of the ``C`` character cards is played at most once per turn, one step each, plus its
  sub-steps: a Beggar asks each of the ``n - 1`` opponents once; a Courtesan takes one card; an
  Envoy names a resource (1), each opponent offers at most the ``S`` standard cards of that resource
  there are and says ``no`` once (``n - 1 + S``), and the active player accepts at most those cards
  and says ``no`` at most once per opponent (``S + n - 1``); a Scribe turns one die (1; choosing a
  tile is the ``tile:`` step of a build); a Vizier keeps at most 5 cards and says ``done`` (6);
* **the main action**: a market visit is 1 step plus at most 2 refill choices; a quarry visit is 1
  step, at most one payment per card of the game (a paid card waits in the payment row until
  ``done``) and per merchant (3), then ``done``; its builds are counted per game below;
* **the end**: ``end_turn``, then a hand-limit choice and at most ``cards - hand_limit`` discards;
* **ceremonies**: at most one from the dice and one per Scribe card, each with ``n`` closing steps.

Over the whole game: each of the 33 elements is built once (16 build ids, a mosaic adds ``tile:``,
``orient:`` and ``square:``); every statue question concerns a new sanctuary, and sanctuaries are
disjoint sets of squares (at most 64); and every ``bid:`` step raises an offer that is paid in full,
so there are no more bid steps than talents ever minted (``max_talents``: the start talents, every
element's best value, and the best visit bonuses; the Beggar only moves talents). Hence

    max_game_length = max_turns * turn_steps + 33 + 3 * 12 + 64 + max_talents.

Talents and amulets
-------------------
Talents are minted only by the start (5 each) and by builds (``max_talents``, the sum of every
element's best value and of the best bonuses); a single player can hold them all. Amulets are
gained per turn at most from: each character card once (its fixed cost, or 2 for a Scribe choosing a
tile, 1 per card kept by a Vizier, 1 per card accepted by an Envoy), the tainted cards paid, the hand
limit (at most ``cards - hand_limit``), and the turn's ceremonies; then once at the end, 1 per corrupt
card in hand. Both bound the observation's entries (``observation.observation_bounds``).
"""

from __future__ import annotations

from .catalogue import (
    BEGGAR,
    BUILD_BONUS_THREE_OR_MORE,
    BUILD_BONUS_TWO,
    CHARACTER_AMULETS,
    CHARACTERS,
    CORRUPT,
    COURTESAN,
    ENVOY,
    ENVOY_AMULETS_PER_CARD,
    GATE_BASE,
    GATE_PARTS,
    LIMIT_DISCARD_AMULETS,
    LIMIT_KEEP_AMULETS_PER_CARD,
    MOSAIC_BASE,
    NUM_TILES,
    NUM_WALL_SLOTS,
    OBELISK_PIECES,
    OBELISK_VALUE,
    PEDESTAL_VALUE,
    SCRIBE,
    SCRIBE_CHOOSE_AMULETS,
    SMUGGLER,
    SPHINX_VALUES,
    STALLS,
    STANDARD,
    START_MERCHANTS,
    START_TALENTS,
    TAINTED,
    THRONE_VALUE,
    VIZIER,
    VIZIER_AMULETS_PER_CARD,
    VIZIER_DRAW,
    WALL_BASE,
    Rules,
)

ELEMENTS = NUM_WALL_SLOTS + len(SPHINX_VALUES) + OBELISK_PIECES + GATE_PARTS + 2 + NUM_TILES
MOSAIC_EXTRA_STEPS = 3  # tile:, orient:, square:
MAX_SANCTUARIES = 64


def max_bonuses() -> int:
    """The best sum of visit bonuses over the game's 33 elements (rules §5.3): visits of 3 builds."""
    best = [0] * (ELEMENTS + 1)
    for k in range(2, ELEMENTS + 1):
        best[k] = max(best[k - 2] + BUILD_BONUS_TWO, max(best[k - j] + BUILD_BONUS_THREE_OR_MORE
                                                        for j in range(3, k + 1)) if k >= 3 else 0)
    return best[ELEMENTS]


def max_talents(rules: Rules) -> int:
    """Every talent a game can mint: the start talents, every element at its best value, the bonuses."""
    geo = rules.geometry
    walls = sum(WALL_BASE + len(slot) for slot in rules.wall_slots)
    gate = GATE_PARTS * (GATE_BASE + NUM_WALL_SLOTS)
    mosaics = sum(MOSAIC_BASE + palms for palms in geo.max_palms)
    elements = walls + sum(SPHINX_VALUES) + OBELISK_PIECES * OBELISK_VALUE + gate + PEDESTAL_VALUE + THRONE_VALUE
    return START_TALENTS * rules.num_players + elements + mosaics + max_bonuses()


def max_score(rules: Rules) -> int:
    from .catalogue import MERCHANT_VALUE

    return max_talents(rules) + MERCHANT_VALUE * START_MERCHANTS


def _most_standard(rules: Rules) -> int:
    return max(rules.card_counts[k] for k in STANDARD)


def turn_steps(rules: Rules) -> int:
    """The most steps of one turn, outside the per-game terms (module docstring)."""
    n, counts = rules.num_players, rules.card_counts
    std = _most_standard(rules)
    sub_steps = {BEGGAR: n - 1, COURTESAN: 1, ENVOY: 1 + 2 * (n - 1) + 2 * std, SCRIBE: 1, SMUGGLER: 0,
                 VIZIER: VIZIER_DRAW + 1}
    characters = sum(counts[k] * (1 + sub_steps[k]) for k in CHARACTERS)
    market = 1 + (STALLS - 1)
    quarry = 1 + rules.total_cards + START_MERCHANTS + 1
    end = 1 + 1 + max(0, rules.total_cards - rules.hand_limit)
    ceremonies = (1 + counts[SCRIBE]) * n
    return characters + max(market, quarry) + end + ceremonies


def max_game_length(rules: Rules) -> int:
    """The most steps a game can take (module docstring)."""
    per_game = ELEMENTS + MOSAIC_EXTRA_STEPS * NUM_TILES + MAX_SANCTUARIES + max_talents(rules)
    return rules.max_turns * turn_steps(rules) + per_game


def max_amulets(rules: Rules) -> int:
    """The most amulets one player can hold (module docstring)."""
    counts = rules.card_counts
    characters = sum(counts[k] * CHARACTER_AMULETS[k] for k in CHARACTERS)
    characters += counts[SCRIBE] * SCRIBE_CHOOSE_AMULETS + counts[VIZIER] * VIZIER_DRAW * VIZIER_AMULETS_PER_CARD
    characters += counts[ENVOY] * _most_standard(rules) * ENVOY_AMULETS_PER_CARD
    tainted = sum(counts[k] for k in TAINTED) * rules.tainted_amulets
    limit = max(LIMIT_DISCARD_AMULETS, LIMIT_KEEP_AMULETS_PER_CARD * max(0, rules.total_cards - rules.hand_limit))
    ceremonies = (1 + counts[SCRIBE]) * max(0, *rules.ceremony_table)
    per_turn = characters + tainted + limit + ceremonies
    return rules.max_turns * per_turn + sum(c for k, c in enumerate(counts) if CORRUPT[k])
