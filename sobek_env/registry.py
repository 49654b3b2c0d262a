"""The registry of games: the game packages under ``sobek_env/``, each giving one :class:`~sobek_env.game.Game`.

A game is a package ``sobek_env/<name>/`` whose ``GAME`` is its game object, beside its versioned module
``sobek_env/<name>_v<version>.py`` (PettingZoo's convention: the environments with the game fixed). The
registry finds them by looking at the files, without importing any: registering the environments imports no
game, the game-agnostic layer and one game never import another game, and adding a game is adding its package
and its versioned module, with no edit here (docs/adding-a-game.md). A test checks each version against the
game object's own ``version``.
"""

from __future__ import annotations

import ast
import importlib
import math
import pkgutil
import re
from pathlib import Path

from .game import Game

_VERSIONED = re.compile(r"(?P<name>[a-z][a-z0-9_]*)_v(?P<version>[1-9][0-9]*)")


def discover(folder: Path, package: str) -> dict[str, tuple[str, int]]:
    """The games in ``folder`` (the directory of ``package``): name -> (the game package's module name, its
    version), each package that has a versioned module beside it (the highest version where there are several),
    in the order the games joined the project (each versioned module's ``JOINED``, read without importing it;
    by name where it is missing)."""
    here = list(pkgutil.iter_modules([str(folder)], prefix=f"{package}."))
    packages = {found.name.rpartition(".")[2]: found.name for found in here if found.ispkg}
    games: dict[str, tuple[str, int]] = {}
    joined: dict[str, float] = {}
    for found in here:
        versioned = _VERSIONED.fullmatch(found.name.rpartition(".")[2])
        if versioned and not found.ispkg and versioned["name"] in packages:
            name, number = versioned["name"], int(versioned["version"])
            if number > games.get(name, ("", 0))[1]:
                games[name] = (packages[name], number)
                joined[name] = _joined(folder / f"{found.name.rpartition('.')[2]}.py")
    return dict(sorted(games.items(), key=lambda item: (joined[item[0]], item[0])))


def _joined(path: Path) -> float:
    """The ``JOINED = N`` of a versioned module, read from its text (infinity where it has none)."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["JOINED"]:
            value = ast.literal_eval(node.value)
            if isinstance(value, int) and not isinstance(value, bool):
                return value
    return math.inf


_PACKAGES = discover(Path(__file__).parent, __package__)
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
