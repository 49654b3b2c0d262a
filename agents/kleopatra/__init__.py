"""Kleopatra's baseline agents (``greedy``, ``heuristic``), reading only the observation through the game's decoder."""

from .greedy import GreedyAgent

BASELINES = {"greedy": GreedyAgent}

__all__ = ["BASELINES", "GreedyAgent"]
