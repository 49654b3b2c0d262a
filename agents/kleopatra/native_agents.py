"""Kleopatra's baselines at native speed: ``greedy`` and ``heuristic`` deciding in C++ (agents/kleopatra/native/).

The agents here are the Python baselines behind :class:`agents.players.native.NativeBaseline`, whose ``act``
gives the seat's observation dict to the compiled twin (``agents.kleopatra._baselines``); that decodes the
vector as :func:`sobek_env.kleopatra.observation.decode` does and plans as the Python baseline does, so it
returns the same action id (``tests/kleopatra/test_native_baselines.py``). The Python baselines stay the
reference, and what reads the heuristic's reasoning rather than its choice (``decide`` on a decoded
:class:`~agents.kleopatra.common.Position`, ``own_final``, ``standing``..., used by the advice features) stays
Python. :data:`NATIVE` is False where the extension was not built, or where ``SOBEK_PURE_PYTHON=1`` asks for the
Python paths; ``agents.make`` then builds the Python agents.
"""

from __future__ import annotations

from typing import Any

from agents.players.native import Compiled, NativeBaseline
from sobek_env.game import Table

from .greedy import GreedyAgent
from .heuristic import HeuristicAgent


def _table_of(baselines: Any, table: Table) -> Any:
    # the observation mode too: Kleopatra's baselines read the memory observations' extra entries
    return baselines.NativeTable(table.num_players, table.observation_mode, dict(table.rules))


COMPILED = Compiled(__package__, _table_of)
NATIVE, _baselines, native_table, playouts = COMPILED.built, COMPILED.baselines, COMPILED.table, COMPILED.playouts


class NativeGreedyAgent(NativeBaseline, GreedyAgent, compiled=COMPILED, agent="greedy"):
    """:class:`GreedyAgent` deciding in compiled code."""


class NativeHeuristicAgent(NativeBaseline, HeuristicAgent, compiled=COMPILED, agent="heuristic"):
    """:class:`HeuristicAgent` deciding in compiled code, at its ``tolerance``."""


__all__ = ["NATIVE", "NativeGreedyAgent", "NativeHeuristicAgent", "playouts", "native_table"]
