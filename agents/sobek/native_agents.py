"""Sobek's baselines at native speed: ``greedy`` and ``heuristic`` deciding in C++ (agents/sobek/native/).

The agents here are the Python baselines with :class:`agents.players.native.NativeBaseline` in front: ``act``
hands the seat's observation dict to the compiled twin (``agents.sobek._baselines``), which decodes the vector
as :class:`sobek_env.sobek.decode.View` does and plans as the Python baseline does, so it returns the same
action id (``tests/sobek/test_native_baselines.py``). The Python baselines stay the reference, and what reads
the heuristic's reasoning rather than its choice (:func:`agents.sobek.heuristic.advise`, used by the advice
features) stays Python. :data:`NATIVE` is False where the extension was not built, or where
``SOBEK_PURE_PYTHON=1`` asks for the Python paths; ``agents.make`` then builds the Python agents.
"""

from __future__ import annotations

from agents.players.native import Compiled, NativeBaseline

from .greedy import GreedyAgent
from .heuristic import HeuristicAgent

COMPILED = Compiled(__package__, lambda baselines, table: baselines.NativeTable(table.num_players, table.rules))
NATIVE, _baselines, native_table, playouts = COMPILED.built, COMPILED.baselines, COMPILED.table, COMPILED.playouts


class NativeGreedyAgent(NativeBaseline, GreedyAgent, compiled=COMPILED, agent="greedy"):
    """:class:`GreedyAgent` deciding in compiled code."""


class NativeHeuristicAgent(NativeBaseline, HeuristicAgent, compiled=COMPILED, agent="heuristic"):
    """:class:`HeuristicAgent` deciding in compiled code, at its ``tolerance``."""


__all__ = ["NATIVE", "NativeGreedyAgent", "NativeHeuristicAgent", "native_table", "playouts"]
