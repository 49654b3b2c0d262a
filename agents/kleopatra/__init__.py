"""Kleopatra's baseline agents (``greedy``, ``heuristic``), reading only the observation through the game's decoder."""

from .greedy import GreedyAgent
from .heuristic import BEST, HeuristicAgent

BASELINES = {"greedy": GreedyAgent, "heuristic": HeuristicAgent}

__all__ = ["BASELINES", "BEST", "GreedyAgent", "HeuristicAgent"]
