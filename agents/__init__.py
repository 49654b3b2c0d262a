"""Agents for Sobek: baselines and learned players. Build one from a string with :func:`make`."""

from .base import Agent, SeededAgent, legal_ids
from .random_agent import RandomAgent

__all__ = ["Agent", "SeededAgent", "RandomAgent", "legal_ids"]
