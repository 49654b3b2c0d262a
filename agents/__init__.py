"""Agents for Sobek: baselines and learned players. Build one from a string with :func:`make`."""

from .base import Agent, SeededAgent, legal_ids
from .greedy import GreedyAgent
from .heuristic import HeuristicAgent
from .random_agent import RandomAgent
from .registry import AGENT_NAMES, make

__all__ = ["AGENT_NAMES", "Agent", "GreedyAgent", "HeuristicAgent", "RandomAgent", "SeededAgent", "legal_ids", "make"]
