"""Sobek's baseline agents (``greedy``, ``heuristic``) and the derived features its learned agents read."""

from .greedy import GreedyAgent
from .heuristic import HeuristicAgent

BASELINES = {"greedy": GreedyAgent, "heuristic": HeuristicAgent}

__all__ = ["BASELINES", "GreedyAgent", "HeuristicAgent"]
