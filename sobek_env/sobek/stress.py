"""Sobek's stress profile, for the generic runner ``sobek-env stress --game sobek``.

The policies weight action kinds differently (characters, sets, events, hoarding
cards, amulets, collecting one goods to score big) so that rare corners are reached,
not only what uniform play reaches. One corner of the rules is not counted because
play cannot reach it: a corruption penalty stopping at 0 (rules §8.3). The marker
stands at ``p >= points`` when the penalty comes, so it moves back
``lots <= p // 10`` times, one block of 5 spaces each (every block holds each symbol
once), and never runs out of earlier spaces.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..game import python_state
from . import actions as A
from .actions import ACTION_NAMES
from .catalogue import CHARACTERS, DEFAULT_GREEN_CARDS, DELIVERY_SIZE, GOODS, PLAIN_CARDS, SCARAB, SET_MIN_CARDS
from .state import EVENTS, GameState

RELOAD_WITHIN = 120  # the JSON round trip happens at a step drawn below this
NATIVE_CHECK_EVERY = 10  # a game of about 160 steps is checked 16 times on the native engine

# Action weights of each policy, by action name or name prefix (default 1).
PROFILES: dict[str, dict[str, float]] = {
    "uniform": {},
    "characters": {"character": 40.0},
    "sets": {"set": 40.0, "card": 4.0},
    "events": {"set": 40.0, "done": 40.0, "token:flood": 10.0, "token:embalming": 4.0, "token:prosperity": 4.0},
    "hoarder": {
        "take:0": 1.0, "take:1": 2.0, "take:2": 3.0, "take:3": 4.0, "set": 0.02, "character": 0.1,
        "character:scribe-fish": 30.0, "character:scribe-wheat": 30.0, "character:queen": 5.0,
    },
    "amulets": {"set": 20.0, "card:amulet": 30.0, "goods:amulet": 30.0, "character:courtesan": 20.0, "done": 5.0},
}
GAME_TAGS = ("game:collectors",)  # the kinds of game this profile draws, counted in the report's games section

# The engine's events by section of the report; a counter never reached is listed as zero.
_EVENT_SECTION = {"power": "powers", "priest": "powers", "token": "tokens", "end": "ends"}
SECTIONS: dict[str, tuple[str, ...]] = {
    section: tuple(e for e in EVENTS if _EVENT_SECTION.get(e.split(":")[0], "sets and rounds") == section)
    for section in ("ends", "powers", "tokens", "sets and rounds")
}

# The rare paths the stress run must show reached, as sums of counters.
RARE_PATHS: dict[str, tuple[str, ...]] = {
    "normal end (after round 3)": ("end:normal",),
    "early end (after round 2, a score over 100)": ("end:early",),
    "shared victory": ("end:shared-victory",),
    "Queen's short delivery": ("delivery:short",),
    "Scribe with several opponents": ("power:scribe:2-opponents", "power:scribe:3-opponents"),
    "Flood chain": ("token:flood:chain",),
    "horizontal set declined": ("round:horizontal-declined",),
    "family character kept in the pile": ("priest:kept-character",),
    "amulets-only set given a goods": ("set:amulets-only-extended", "power:courtesan:gave-goods"),
}


# ---------------------------------------------------------------------- policies


def profile_weights(profile: dict[str, float]) -> tuple[float, ...]:
    """The weight of every action id under a profile (exact name first, then its prefix)."""
    return tuple(profile.get(name, profile.get(name.split(":")[0], 1.0)) for name in ACTION_NAMES)


class Policy:
    """Chooses among the legal actions at random, with weights by action id."""

    def __init__(self, weights: Sequence[float]) -> None:
        self.table = weights

    def weights(self, s: GameState, legal: list[int]) -> list[float]:
        return [self.table[a] for a in legal]


class Collector(Policy):
    """Collects one goods to score big: takes what fits it (its scarab cards first), lays it in
    one late set, then extends it, adds Prosperity and Courtesan cards (reaches the early end)."""

    def __init__(self, goods: int, patience: int) -> None:
        super().__init__(profile_weights({"card": 10.0, "done": 0.1, "token:prosperity": 50.0, "character": 0.3}))
        self.goods = goods
        self.patience = patience  # fitting cards in hand before laying the set

    def weights(self, s: GameState, legal: list[int]) -> list[float]:
        out = super().weights(s, legal)
        s = python_state(s)  # it reads the table (the Nile, sets, hand, deck): the Python engine's fields
        fits, p = s.rules.fits[self.goods], s.current_player
        laid = s.sets[p][self.goods] is not None
        for i, a in enumerate(legal):
            if a < A.CHARACTER:  # a take (skipping ``a`` cards) or the Merchant's pick
                kind = s.nile[a]
                value = 40.0 if kind == SCARAB[self.goods] else 20.0 if kind in fits else 0.3
                out[i] = value / (1 + 3 * (a if s.phase is None else 0))
            elif a == COURTESAN_ACTION and laid:
                out[i] = 50.0
            elif A.SET <= a < A.CARD:
                enough = s.fitting_in_hand(p, self.goods) >= (SET_MIN_CARDS if laid else self.patience)
                ready = enough or len(s.deck) < DELIVERY_SIZE
                out[i] = 100.0 if a - A.SET == self.goods and ready else 0.01
            elif a == A.GOODS_CHOICE + self.goods:
                out[i] = 10.0
        return out


COURTESAN_ACTION = ACTION_NAMES.index("character:courtesan")
WEIGHTS = {name: profile_weights(profile) for name, profile in PROFILES.items()}


def random_rules(rng: random.Random) -> dict[str, dict]:
    """Rules options (rules §11) drawn at random, within what ``make_rules`` accepts."""
    scarabs = {g: rng.randint(0, 9) for g in GOODS if rng.random() < 0.5}
    green = dict.fromkeys(GOODS, 0)
    for _ in range(sum(DEFAULT_GREEN_CARDS.values())):
        g = rng.choice([g for g in GOODS if green[g] < PLAIN_CARDS[g]])
        green[g] += 1
    families = {c: rng.choice(GOODS) for c in CHARACTERS if rng.random() < 0.5}
    return {"scarabs": scarabs, "green_cards": green, "families": families}


def draw(rng: random.Random, n: int) -> tuple[dict, list[Policy], list[str]]:
    """A game's rules options, its policies per seat and its tags, drawn for the generic runner.

    A game is played by collectors of distinct goods (15%), by one profile at every seat, or by
    a profile drawn for each seat; 10% of games vary the rules options.
    """
    options = random_rules(rng) if rng.random() < 0.1 else {}
    chance = rng.random()
    if chance < 0.15:
        return options, [Collector(g, rng.randint(5, 9)) for g in rng.sample(range(len(GOODS)), n)], ["game:collectors"]
    names = [rng.choice(sorted(PROFILES))] * n if chance < 0.55 else [rng.choice(sorted(PROFILES)) for _ in range(n)]
    return options, [Policy(WEIGHTS[name]) for name in names], []
