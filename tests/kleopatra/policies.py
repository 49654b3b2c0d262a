"""Seeded players for the property tests: the stress run's policies (``sobek_env.kleopatra.stress``)."""

from __future__ import annotations

import random

from sobek_env.kleopatra import GameState
from sobek_env.kleopatra.stress import PROFILES, Policy

__all__ = ["PROFILES", "Player", "play"]


class Player:
    """Picks a legal action with the weights of its seat's profile and its own seeded generator."""

    def __init__(self, profiles: list[str], seed: int) -> None:
        self.policies = [Policy(PROFILES[name]) for name in profiles]
        self.rng = random.Random(seed)

    def pick(self, s: GameState) -> int:
        legal = s.legal_actions()
        policy = self.policies[s.current_player % len(self.policies)]
        return self.rng.choices(legal, policy.weights(s, legal))[0]


def play(s: GameState, player: Player, steps: int | None = None) -> list[int]:
    """Play ``steps`` actions (or to the end); the actions played."""
    done = []
    while not s.is_over and (steps is None or len(done) < steps):
        a = player.pick(s)
        s.apply(a)
        done.append(a)
    return done
