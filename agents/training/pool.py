"""The opponents a learner trains against: fixed agents by spec and weight, plus frozen
snapshots of the learner itself (self-play), drawn independently for each seat of each episode.

It is the ``opponents`` pool of :class:`sobek_env.SingleAgentEnv`, which calls
``sample(rng, count)`` at every reset.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from agents.common.arguments import MAX_WEIGHT
from agents.players.base import Agent
from agents.players.ppo import PPOAgent, load_ppo
from agents.players.registry import make
from sobek_env.game import Game
from sobek_env.registry import load_game

WEIGHT_SEPARATOR = "@"


def parse_entry(text: str) -> tuple[str, float]:
    """``SPEC[@WEIGHT]`` as (spec, weight); the weight defaults to 1 and must be positive (at most
    :data:`agents.common.arguments.MAX_WEIGHT`: weights are relative)."""
    spec, separator, weight = text.rpartition(WEIGHT_SEPARATOR)
    if not separator:
        return text, 1.0
    try:
        value = float(weight)
    except ValueError:
        raise ValueError(f"opponent {text!r}: the weight after {WEIGHT_SEPARATOR!r} must be a number, "
                         f"e.g. heuristic:tolerance=0.2{WEIGHT_SEPARATOR}2") from None
    if not spec or not 0 < value <= MAX_WEIGHT:  # (a NaN is refused too)
        raise ValueError(f"opponent {text!r} needs a spec and a positive weight of at most {MAX_WEIGHT:,}, "
                         f"e.g. random{WEIGHT_SEPARATOR}0.5")
    return spec, value


class OpponentPool:
    """Fixed opponents ``entries`` (spec, weight) plus the latest ``max_snapshots`` frozen snapshots
    of the learner (model paths, oldest first), which share ``self_play_weight`` equally (while
    there is none, the fixed opponents fill every seat).

    Every seat is drawn independently; each seat gets its own agent object, built once.
    Snapshots play by sampling their policy, so self-play games vary.
    """

    def __init__(
        self,
        entries: Sequence[tuple[str, float]],
        num_players: int,
        observation_mode: str = "original",
        self_play_weight: float = 0.0,
        max_snapshots: int = 5,
        snapshots: Sequence[str | Path] = (),
        game: Game | str = "sobek",
    ) -> None:
        if any(weight <= 0 for _, weight in entries):
            raise ValueError(f"opponent weights must be positive, got {list(entries)}")
        if self_play_weight < 0:
            raise ValueError(f"self_play_weight must be >= 0, got {self_play_weight}")
        if not entries and self_play_weight == 0:
            raise ValueError("the pool is empty: give at least one opponent or a positive self_play_weight")
        if max_snapshots < 1:
            raise ValueError(f"max_snapshots must be at least 1, got {max_snapshots}")
        self.entries = [(spec, float(weight)) for spec, weight in entries]
        self.game = load_game(game)
        self.table = self.game.table(num_players, observation_mode)
        self.num_players = num_players
        self.observation_mode = observation_mode
        self.self_play_weight = float(self_play_weight)
        self.max_snapshots = max_snapshots
        self.snapshots: list[str] = []
        self._agents: dict[str, list[Agent]] = {
            spec: [self._make(spec) for _ in range(num_players - 1)] for spec, _ in self.entries
        }
        for path in snapshots:
            self.add_snapshot(path)

    def _make(self, spec: str) -> Agent:
        return make(spec, table=self.table)

    def add_snapshot(self, path: str | Path) -> None:
        """Add the model at ``path`` as an opponent, dropping the oldest beyond ``max_snapshots``."""
        first = load_ppo(path, deterministic=False, table=self.table)
        key = str(path)
        self._agents[key] = [first] + [PPOAgent(first.policy, first.meta, deterministic=False)
                                       for _ in range(self.num_players - 2)]
        self.snapshots.append(key)
        for old in self.snapshots[:-self.max_snapshots]:
            del self._agents[old]
        self.snapshots = self.snapshots[-self.max_snapshots:]

    def probabilities(self) -> list[tuple[str, float]]:
        """Each option (spec or snapshot path) with its probability of filling a seat."""
        options = list(self.entries)
        if self.snapshots and self.self_play_weight > 0:
            share = self.self_play_weight / len(self.snapshots)
            options += [(path, share) for path in self.snapshots]
        total = sum(weight for _, weight in options)
        if total == 0:
            raise RuntimeError("the pool has only self-play and no snapshot yet; add_snapshot() before sampling")
        return [(option, weight / total) for option, weight in options]

    def sample(self, rng: np.random.Generator, count: int) -> list[Agent]:
        """``count`` opponents, one per seat, each drawn from :meth:`probabilities`."""
        options = self.probabilities()
        picks = rng.choice(len(options), size=count, p=[p for _, p in options])
        return [self._agents[options[pick][0]][seat] for seat, pick in enumerate(picks)]
