"""A person at the terminal: shows the table as his seat sees it (in colour, with rich), lists the legal
actions numbered with a few words each, and reads a choice.

The choice is a number from the list or an action's name (``take:2``, ``market:0``); anything else
is refused with the legal actions listed again, and nothing changes. ``help`` explains, ``save FILE``
saves the game (when the driver offers it, as the play command does) and ``quit`` leaves, as does
the end of the input.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from agents.players.base import BaseAgent, legal_ids
from sobek_env.console import menu, printer
from sobek_env.game import Table

HELP = ("Type the number of an action or its name, then Enter. Other commands: "
        "help (this text), save FILE (save the game to resume it with --load FILE), quit (leave the game).")


class QuitGame(Exception):
    """The person chose to leave the game (``quit``, or the end of the input)."""


class Saver(Protocol):
    def save(self, path: str) -> str: ...


class HumanAgent(BaseAgent):
    """An agent whose decisions a person types (see the module docstring). It is handed the state only to draw
    the table through the game's renderer, which shows what its seat may see and no more. ``write`` takes
    strings and rich renderables (default: a rich console on the terminal)."""

    name = "human"
    wants_state = True

    def __init__(self, table: Table, read: Callable[[str], str] = input, write: Callable[[Any], Any] | None = None,
                 saver: Saver | None = None) -> None:
        self.table = table
        self.read = read
        self.write = write or printer()
        self.saver = saver
        self.state: Any = None  # the position being decided, for the menu's words

    def menu(self, legal: list[int]) -> Any:
        """The legal actions, numbered from 1, each said in the game's words for the position (a rich table)."""
        return menu(self.table.game, legal, self.state)

    def act(self, observation: dict, state: Any = None) -> int:
        legal = legal_ids(observation)
        game = self.table.game
        seat = state.current_player if state is not None else None
        self.state = state
        if state is not None:
            self.write(game.render_rich(state, seat, self.table.observation_mode))
        self.write("Your choices:")
        self.write(self.menu(legal))
        while True:
            try:
                answer = self.read(f"player_{seat}> " if seat is not None else "> ").strip()
            except EOFError:
                raise QuitGame from None
            choice = self.choose(answer, legal)
            if choice is not None:
                return choice

    def choose(self, answer: str, legal: list[int]) -> int | None:
        """The action ``answer`` names, or None after handling a command or refusing it."""
        names = self.table.game.action_names
        command, _, argument = answer.partition(" ")
        if command == "quit":
            raise QuitGame
        if command in ("help", "?"):
            self.write(HELP)
            self.write(self.menu(legal))
        elif command == "save":
            if not argument.strip():
                self.write("save needs a file name: save FILE")
            elif self.saver is None:
                self.write("this game cannot be saved from here")
            else:
                self.write(self.saver.save(argument.strip()))
        elif answer.isdigit() and 1 <= int(answer) <= len(legal):
            return legal[int(answer) - 1]
        elif answer in names and names.index(answer) in legal:
            return names.index(answer)
        else:
            why = "is not legal now" if answer in names else "is neither a number from the list nor an action"
            self.write(f"{answer!r} {why}; nothing changed. The legal actions are:")
            self.write(self.menu(legal))
        return None
