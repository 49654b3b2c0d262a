"""Kleopatra's baseline agents (``greedy``, ``heuristic``), reading only the observation through the game's decoder.

``BASELINES`` is what ``agents.make`` builds: the compiled twins (:mod:`agents.kleopatra.native_agents`) where
they were built, the Python reference otherwise or with ``SOBEK_PURE_PYTHON=1``; ``PYTHON_BASELINES`` is always
the reference. ``playouts`` builds the whole playouts in compiled code the search rolls out with
(:mod:`agents.search.playouts`).
"""

from .greedy import GreedyAgent
from .heuristic import BEST, HeuristicAgent
from .native_agents import NATIVE, NativeGreedyAgent, NativeHeuristicAgent, playouts

PYTHON_BASELINES = {"greedy": GreedyAgent, "heuristic": HeuristicAgent}
BASELINES = {"greedy": NativeGreedyAgent, "heuristic": NativeHeuristicAgent} if NATIVE else PYTHON_BASELINES

__all__ = ["BASELINES", "BEST", "NATIVE", "PYTHON_BASELINES", "GreedyAgent", "HeuristicAgent", "playouts"]
