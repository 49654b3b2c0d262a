"""What every game's ``agents/<game>/native_agents.py`` shares: a game's compiled baselines and playouts
(:class:`Compiled`), and :class:`NativeBaseline`, which puts a Python baseline's decisions in compiled code.

A game's native agents are its Python baselines with :class:`NativeBaseline` in front, naming the game's
:class:`Compiled` and the agent: the same names, options (the registry reads the Python baseline's signature)
and checks; only ``act`` changes, handing the seat's observation dict to the compiled twin.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from agents.players.base import BaseAgent
from sobek_env.compiled import extension
from sobek_env.game import Table


class Compiled:
    """One game's compiled twins: ``_baselines`` and ``_playouts`` of ``package`` (None where not built), and
    ``table_of``, how its baselines see a table (their ``NativeTable`` from the module and the table)."""

    def __init__(self, package: str, table_of: Callable[[Any, Table], Any]) -> None:
        self.baselines = extension("._baselines", package)
        self.whole_playouts = extension("._playouts", package)
        self._table_of = table_of

    @property
    def built(self) -> bool:
        return self.baselines is not None

    def table(self, table: Table) -> Any:
        """The compiled baselines' view of ``table``."""
        return self._table_of(self.baselines, table)

    def playouts(self, table: Table, policies: Sequence[tuple[str, float]]) -> Any | None:
        """Whole playouts at ``table`` in compiled code (the game's ``_playouts.Playouts``), one ``(name,
        tolerance)`` policy per seat (:func:`agents.search.playouts.seat_policies`); None where not built."""
        if self.whole_playouts is None:
            return None
        return self.whole_playouts.Playouts(self.table(table), policies, table.observation_mode == "memory")


class NativeBaseline(BaseAgent):
    """Put before a Python baseline: ``class NativeGreedyAgent(NativeBaseline, GreedyAgent, compiled=...,
    agent="greedy")`` decides as ``GreedyAgent`` does, in the compiled twin. An agent like any other
    (:class:`~agents.players.base.BaseAgent`): its ``act`` is checked against its table first."""

    compiled: ClassVar[Compiled]
    agent: ClassVar[str]
    reference: ClassVar[type]  # the Python baseline this class stands before, which its twin decides as

    def __init_subclass__(cls, compiled: Compiled, agent: str, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.compiled, cls.agent = compiled, agent
        cls.reference = next(c for c in cls.__bases__ if not issubclass(c, NativeBaseline))
        reference = next(c.__init__ for c in cls.__mro__[1:] if "__init__" in vars(c) and c is not NativeBaseline)

        @functools.wraps(reference)  # the Python baseline's signature, from which the registry reads the options
        def __init__(self: Any, table: Table, *args: Any, **options: Any) -> None:
            reference(self, table, *args, **options)
            self._native = compiled.table(table)  # made now: a table the twin cannot seat is refused at once

        cls.__init__ = __init__

    def act(self, observation: dict) -> int:
        # the greedy baseline has no tolerance: the compiled greedy reads none
        return self.compiled.baselines.decide(self._native, self.agent, getattr(self, "tolerance", 0.0), observation)
