"""The uniform random baseline."""

from __future__ import annotations

from agents.players.base import SeededAgent, legal_ids


class RandomAgent(SeededAgent):
    """Picks uniformly among the legal actions, from its own seeded generator. Made for a table (as the
    registry makes it), it refuses another table's observations; made with none, it plays at any."""

    name = "random"

    def act(self, observation: dict) -> int:
        return self.rng.choice(legal_ids(observation))
