"""Kleopatra's stress profile, for the generic runner ``sobek-env stress --game kleopatra``.

The policies weight action kinds (building in the quarry, playing characters, hoarding at the
market) so that rare corners (characters, ceremonies, mosaics and sanctuaries, the hand limit,
the end by ``max_turns``) are reached more often than uniform play reaches them; one game in ten
plays with varied rules options. The report groups the engine's events (``state.EVENTS``) by
what they are about.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from .actions import ACTION_NAMES
from .state import EVENTS, GameState

RELOAD_WITHIN = 600  # the JSON round trip happens at a step drawn below this
NATIVE_CHECK_EVERY = 100  # a game of about 1,600 steps is checked 16 times on the native engine

# Action weights of each policy, by action name or its prefix before ":" (default 1).
PROFILES: dict[str, dict[str, float]] = {
    "uniform": {},
    "builder": {"quarry": 30.0, "card": 3.0, "merchant": 2.0, "wall": 20.0, "gate": 20.0, "sphinx": 20.0,
                "obelisk": 20.0, "pedestal": 20.0, "throne": 20.0, "mosaic": 20.0, "done": 0.5, "yes": 3.0},
    "characters": {"character": 30.0, "die:add": 5.0, "bid": 3.0, "yes": 2.0},
    "hoarder": {"market": 5.0, "quarry": 0.2, "limit:keep": 3.0, "character:vizier": 10.0},
}
VARIED_OPTIONS = (
    {"priest_faces": 3}, {"hand_limit": 4, "max_turns": 80}, {"mosaic_reflections": True},
    {"sanctuary_max_squares": 20, "tainted_amulets": 2}, {"crocodile_margin": 2},
    {"card_counts": {"scribe": 6, "courtesan": 5, "beggar": 4, "vizier": 3}, "max_turns": 150},
    {"trompe_stands_for": ["artisan", "stone", "marble", "wood", "lapis"]}, {"ceremony_table": [-5, 0, 2, 4, 6]},
)
GAME_TAGS: tuple[str, ...] = ()

# The engine's events by section of the report; a counter never reached is listed as zero.
_EVENT_SECTION = {
    "market": "market and deck", "refill": "market and deck", "reshuffle": "market and deck",
    "quarry": "quarry and palace", "cleopatra": "quarry and palace", "mosaic": "quarry and palace",
    "sanctuary": "quarry and palace", "tile": "quarry and palace", "dice": "quarry and palace",
    "ceremony": "ceremonies", "end": "ends", "crocodile": "ends", "hand-limit": "characters and hand limit",
}
SECTIONS: dict[str, tuple[str, ...]] = {
    section: tuple(e for e in EVENTS if _EVENT_SECTION.get(e.split(":")[0], "characters and hand limit") == section)
    for section in ("ends", "market and deck", "quarry and palace", "characters and hand limit", "ceremonies")
}

# The rare paths the stress run must show reached, as sums of counters.
RARE_PATHS: dict[str, tuple[str, ...]] = {
    "end by Cleopatra (5 categories complete)": ("end:cleopatra",),
    "end after max_turns": ("end:max-turns",),
    "several players fed to the crocodile": ("crocodile:several-eaten",),
    "the crocodile stays hungry": ("crocodile:hungry",),
    "a tie broken by amulets": ("end:tie-broken-by-amulets",),
    "a shared victory": ("end:shared-victory",),
    "a sanctuary formed far from the new tile": ("sanctuary:formed-far",),
    "mosaics completed by removing tiles": ("mosaic:complete-by-removal",),
    "a ceremony where everyone offered the same": ("ceremony:all-tied",),
    "a Beggar's victim shows his hand": ("beggar:showed-hand",),
    "an Envoy's amulet from the supply": ("envoy:amulet-from-supply",),
    "a Scribe chooses the mosaic": ("mosaic:scribe-choice",),
    "the deck reshuffled from the discard": ("reshuffle",),
}


class Policy:
    """Chooses among the legal actions at random, with the weights of one profile."""

    def __init__(self, profile: dict[str, float]) -> None:
        self.table = tuple(profile.get(name, profile.get(name.split(":")[0], 1.0)) for name in ACTION_NAMES)

    def weights(self, s: GameState, legal: Sequence[int]) -> list[float]:
        return [self.table[a] for a in legal]


def draw(rng: random.Random, n: int) -> tuple[dict, list[Policy], list[str]]:
    """A game's rules options, its policies per seat (uniform twice as likely as each other profile) and tags."""
    options = rng.choice(VARIED_OPTIONS) if rng.random() < 0.1 else {}
    names = [rng.choice(["uniform", "uniform", *PROFILES]) for _ in range(n)]
    return dict(options), [Policy(PROFILES[name]) for name in names], []
