"""The registry of games: each name maps to the package that defines its :class:`~sobek_env.game.Game`.

A game package is imported only when it is loaded, so the game-agnostic layer and one game never
import another game.
"""

from __future__ import annotations

import importlib

from .game import Game

# name -> the module whose GAME is the game object (in the manner of OpenSpiel's registered games)
_PACKAGES = {"sobek": "sobek_env.sobek", "kleopatra": "sobek_env.kleopatra"}
GAMES: tuple[str, ...] = tuple(_PACKAGES)


def load_game(name: str | Game) -> Game:
    """The game object registered as ``name`` (a game object is returned as it is)."""
    if isinstance(name, Game):
        return name
    if name not in _PACKAGES:
        raise ValueError(f"unknown game {name!r}; the games are {', '.join(GAMES)}")
    return importlib.import_module(_PACKAGES[name]).GAME
