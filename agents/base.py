"""The agent protocol: a name and ``act(observation) -> action id``; agents are made for a table."""

from __future__ import annotations

import random
from typing import Protocol, runtime_checkable

import numpy as np

from sobek_env.game import Table


@runtime_checkable
class Agent(Protocol):
    """Anything with a ``name`` and an ``act`` that maps the environment's observation dict
    (``"observation"``, ``"action_mask"``) to a legal action id."""

    name: str

    def act(self, observation: dict) -> int: ...


class SeededAgent:
    """Base for agents that use chance: one seeded generator, reset by :meth:`seed`."""

    name = "agent"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def seed(self, seed: int | None) -> None:
        """Restart the agent's generator (environments call this on a seeded reset)."""
        self.rng = random.Random(seed)

    def act(self, observation: dict) -> int:
        raise NotImplementedError


class PolicyAgent(SeededAgent):
    """Base for learned agents: a subclass gives :meth:`logits`; the agent plays the most probable legal
    action (``deterministic=True``) or one drawn from the masked distribution with its own generator."""

    def __init__(self, deterministic: bool = True, seed: int | None = None) -> None:
        super().__init__(seed)
        self.deterministic = deterministic

    def logits(self, observation: dict) -> np.ndarray:
        """The policy's logit of each action, -inf for the illegal ones."""
        raise NotImplementedError

    def act(self, observation: dict) -> int:
        logits = self.logits(observation)
        if self.deterministic:
            return int(np.argmax(logits))
        weights = np.exp(logits - logits.max())
        cumulative = np.cumsum(weights)
        return int(np.searchsorted(cumulative, self.rng.random() * cumulative[-1], side="right"))


class TableAgent(SeededAgent):
    """Base for agents that read the observation through their game's decoder: they are made for a
    :class:`~sobek_env.game.Table` (game, players, observation mode, rules options), never guess it."""

    def __init__(self, table: Table, seed: int | None = None) -> None:
        super().__init__(seed)
        self.table = table


def legal_ids(observation: dict) -> list[int]:
    """The legal action ids of an observation dict, from its mask."""
    return np.flatnonzero(observation["action_mask"]).tolist()
