"""Agents for every registered game: generic ones (random, learned) and each game's baselines
(``agents/<game>/``). Build one from a string with :func:`make`."""

from agents.players.base import Agent, BaseAgent, SeededAgent, TableAgent, TableMismatchError, legal_ids
from agents.players.random_agent import RandomAgent
from agents.players.registry import AGENT_NAMES, make


def __getattr__(name: str):
    """Sobek's baselines keep their names (``agents.HeuristicAgent``), imported only when asked for."""
    if name in ("GreedyAgent", "HeuristicAgent"):
        from agents import sobek

        return getattr(sobek, name)
    raise AttributeError(f"module 'agents' has no attribute {name!r}")


__all__ = ["AGENT_NAMES", "Agent", "BaseAgent", "GreedyAgent", "HeuristicAgent", "RandomAgent", "SeededAgent",
           "TableAgent", "TableMismatchError", "legal_ids", "make"]
