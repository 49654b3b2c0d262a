"""The uniform random baseline."""

from __future__ import annotations

from .base import SeededAgent, legal_ids


class RandomAgent(SeededAgent):
    """Picks uniformly among the legal actions, from its own seeded generator."""

    name = "random"

    def act(self, observation: dict) -> int:
        return self.rng.choice(legal_ids(observation))
