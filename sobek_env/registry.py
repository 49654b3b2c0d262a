"""The registry of games: each name maps to the package that defines its :class:`~sobek_env.game.Game`.

A game package is imported only when it is loaded, so the game-agnostic layer and one game never
import another game. The registry also knows each game's version (the suffix of its environment
module and Gymnasium id), so that registering the environments imports no game; a test checks it
against the game object's own ``version``.
"""

from __future__ import annotations

import importlib

from .game import Game

# name -> (the module whose GAME is the game object, its version), in the manner of OpenSpiel's registry
_PACKAGES = {"sobek": ("sobek_env.sobek", 1), "kleopatra": ("sobek_env.kleopatra", 1)}
GAMES: tuple[str, ...] = tuple(_PACKAGES)


def load_game(name: str | Game) -> Game:
    """The game object registered as ``name`` (a game object is returned as it is)."""
    if isinstance(name, Game):
        return name
    if name not in _PACKAGES:
        raise ValueError(f"unknown game {name!r}; the games are {', '.join(GAMES)}")
    return importlib.import_module(_PACKAGES[name][0]).GAME


def version(name: str) -> int:
    """The registered version of game ``name``, without importing it."""
    return _PACKAGES[name][1]
