"""What each game's agents package gives the game-agnostic agents: one registration per game.

A game's package under ``agents/`` (``agents/sobek/``, ``agents/kleopatra/``) ends its ``__init__`` with one
call to :func:`register`, naming its baselines, its search's settings, its training defaults, its derived
feature sets and the columns the corruption study reads. The registry of agents, the search, training and the
analysis tools look these up here by game, so none of them names a game, and adding a game adds a package
beside the others with no edit above it (docs/adding-a-game.md).

The packages are found, the first time a game's tables are asked for, among the sub-packages of ``agents``
that bear the name of a registered game (:data:`sobek_env.registry.GAMES`).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from sobek_env.game import Game
from sobek_env.registry import GAMES, load_game


def _frozen(table: Mapping[Any, Any]) -> Mapping[Any, Any]:
    return MappingProxyType(dict(table))


@dataclass(frozen=True)
class GameAgents:
    """One game's tables for its agents.

    ``baselines``: what ``agents.make`` builds for each baseline name (``greedy``, ``heuristic``): classes made
    as ``cls(table, **options, seed=...)``; ``reference_baselines`` the pure-Python reference of each (the same
    classes where a game has no compiled twins). ``search``: the ``ismcts`` options a spec starts from.
    ``timesteps``: ``train.py``'s default budget per player count; ``training``: its options that differ from
    the common defaults. ``feature_sets``: name -> (size of the added entries by player count, the class that
    computes them from an observation dict, made for a table), ``default_features`` the one ``train.py`` uses.
    ``corruption_axes``: the corruption study's (column of corruption, column of its cost, the cost's label),
    ``penalty_rate``: (column, label) of how often corruption was punished, both columns of
    :meth:`Game.statistics`; None where the game has no such study. ``playouts``: builds the compiled whole
    playouts the search rolls out with, ``playouts(table, [(policy, tolerance) per seat])``, returning None
    where they were not built (:mod:`agents.search.playouts`); None where the game has none. ``native_table``:
    the compiled baselines' view of a table, ``native_table(table)``, for compiled code that plays them without
    Python (:mod:`agents.training.batched`), or None where they were not built.
    """

    game: str
    baselines: Mapping[str, type]
    reference_baselines: Mapping[str, type] | None = None
    search: Mapping[str, Any] = field(default_factory=dict)
    timesteps: Mapping[int, int] = field(default_factory=dict)
    training: Mapping[str, Any] = field(default_factory=dict)
    feature_sets: Mapping[str, tuple[Callable[[int], int], type]] = field(default_factory=dict)
    default_features: str | None = None
    corruption_axes: tuple[str, str, str] | None = None
    penalty_rate: tuple[str, str] | None = None
    playouts: Callable[..., Any] | None = None
    native_table: Callable[..., Any] | None = None

    def __post_init__(self) -> None:
        for name in ("baselines", "search", "timesteps", "training", "feature_sets"):
            object.__setattr__(self, name, _frozen(getattr(self, name)))
        object.__setattr__(self, "reference_baselines", _frozen(self.reference_baselines or self.baselines))
        if self.default_features is not None and self.default_features not in self.feature_sets:
            raise ValueError(f"{self.game}'s default_features {self.default_features!r} is not one of its "
                             f"feature_sets ({', '.join(self.feature_sets) or 'none'})")


NONE = GameAgents(game="", baselines={})  # a game without an agents package: no baselines, no own tables
_REGISTERED: dict[str, GameAgents] = {}


def register(entry: GameAgents) -> None:
    """Register a game's tables (called once, by the game's package under ``agents/``)."""
    load_game(entry.game)  # ValueError naming the games for a name sobek_env does not know
    if entry.game in _REGISTERED and _REGISTERED[entry.game] is not entry:
        raise ValueError(f"the agents of {entry.game} are registered twice")
    _REGISTERED[entry.game] = entry


def tables(game: Game | str) -> GameAgents:
    """The tables ``game``'s agents package registered, or :data:`NONE` if it has no such package."""
    name = load_game(game).name
    if name not in _REGISTERED:
        _discover()
    return _REGISTERED.get(name, NONE)


def baseline(game: Game | str, name: str) -> type:
    """The class of ``game``'s baseline ``name``; ValueError if the game has none of that name."""
    own = tables(game).baselines
    if name not in own:
        title = load_game(game).title
        if not own:
            raise ValueError(f"{title} has no baseline agents yet; use random or ppo:PATH")
        raise ValueError(f"{title} has no baseline {name!r}; its baselines are {', '.join(own)}")
    return own[name]


def _discover() -> None:
    """Import the sub-packages of ``agents`` named after a registered game: each registers itself. One that
    cannot be imported (blocked, as a test that plays without the baselines blocks it) registers nothing."""
    for found in pkgutil.iter_modules([str(Path(__file__).parent)], prefix=f"{__package__}."):
        if found.ispkg and found.name.rpartition(".")[2] in GAMES:
            try:
                importlib.import_module(found.name)
            except ModuleNotFoundError as exc:  # a game's package made unimportable: that game has no agents
                if exc.name != found.name:
                    raise
