"""Sobek's baseline agents (``greedy``, ``heuristic``) and the derived features its learned agents read.

``BASELINES`` is what ``agents.make`` builds: the compiled twin of ``greedy``
(:mod:`agents.sobek.native_agents`) where it was built, the Python reference otherwise or with
``SOBEK_PURE_PYTHON=1``; ``PYTHON_BASELINES`` is always the reference.
"""

from .greedy import GreedyAgent
from .heuristic import HeuristicAgent
from .native_agents import NATIVE, NativeGreedyAgent

PYTHON_BASELINES = {"greedy": GreedyAgent, "heuristic": HeuristicAgent}
BASELINES = {"greedy": NativeGreedyAgent, "heuristic": HeuristicAgent} if NATIVE else PYTHON_BASELINES

__all__ = ["BASELINES", "PYTHON_BASELINES", "GreedyAgent", "HeuristicAgent"]
