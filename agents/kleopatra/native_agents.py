"""Kleopatra's baselines at native speed: ``greedy`` and ``heuristic`` deciding in C++ (agents/kleopatra/native/).

The agents here are the Python baselines' subclasses, with the same names, options and checks; only ``act``
changes: it hands the seat's observation dict to the compiled twin (``agents.kleopatra._baselines``), which
decodes the vector as :func:`sobek_env.kleopatra.observation.decode` does and plans as the Python baseline does,
so it returns the same action id (``tests/kleopatra/test_native_baselines.py``). The Python baselines stay the
reference, and what reads the heuristic's reasoning rather than its choice (``decide`` on a decoded
:class:`~agents.kleopatra.common.Position`, ``own_final``, ``standing``..., used by the advice features) stays
Python. :data:`NATIVE` is False where the extension was not built, or where ``SOBEK_PURE_PYTHON=1`` asks for the
Python paths; ``agents.make`` then builds the Python agents.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agents.players.base import CompiledTwin
from sobek_env.compiled import extension
from sobek_env.game import Table

from .greedy import GreedyAgent
from .heuristic import HeuristicAgent

_baselines = extension("._baselines", __package__)
NATIVE = _baselines is not None
_playouts = extension("._playouts", __package__)


def native_table(table: Table) -> Any:
    """The compiled twin's view of ``table`` (players, observation mode, rules options)."""
    return _baselines.NativeTable(table.num_players, table.observation_mode, dict(table.rules))


class NativeGreedyAgent(CompiledTwin, GreedyAgent):
    """:class:`GreedyAgent` deciding in compiled code."""

    twin, decides_as, twin_table = _baselines, "greedy", staticmethod(native_table)


class NativeHeuristicAgent(CompiledTwin, HeuristicAgent):
    """:class:`HeuristicAgent` deciding in compiled code, at its ``tolerance``."""

    twin, decides_as, twin_table = _baselines, "heuristic", staticmethod(native_table)


def playouts(table: Table, policies: Sequence[tuple[str, float]]) -> Any | None:
    """Whole playouts at ``table`` in compiled code (``agents.kleopatra._playouts.Playouts``), one ``(name,
    tolerance)`` policy per seat (:func:`agents.search.playouts.seat_policies`); None where they were not built."""
    if _playouts is None:
        return None
    return _playouts.Playouts(native_table(table), policies, table.observation_mode == "memory")


__all__ = ["NATIVE", "NativeGreedyAgent", "NativeHeuristicAgent", "playouts", "native_table"]
