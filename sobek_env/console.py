"""The table in a terminal, drawn with rich: what every game's terminal drawing and the play and replay
commands share (the seats' colours, coloured chips for cards, the numbered menu of legal actions).

Each game draws its own table from what one seat sees (``sobek_env/<game>/console.py``), with the
colours of its pictures; this module knows no game. The ``ansi`` render mode stays a plain string (the
environment's contract); rich is for people at a terminal.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from rich.console import Console, RenderableType
from rich.table import Table
from rich.text import Text

from .picture import SEAT_COLOURS, text_colour

if TYPE_CHECKING:
    from .game import Game

Colour = tuple[int, int, int]
TIMES = "\N{MULTIPLICATION SIGN}"


def rgb(colour: Colour) -> str:
    """A rich colour from an (r, g, b) triple."""
    return f"rgb({colour[0]},{colour[1]},{colour[2]})"


def seat_style(seat: int) -> str:
    """The seat's colour (the same as in the pictures), bold."""
    return f"bold {rgb(SEAT_COLOURS[seat % len(SEAT_COLOURS)])}"


def seat_name(seat: int, you: bool = False) -> Text:
    """``player_K`` in the seat's colour, ``You (player_K)`` for the seat looking."""
    return Text(f"You (player_{seat})" if you else f"player_{seat}", style=seat_style(seat))


def chip(label: str, colour: Colour, count: int = 1) -> Text:
    """A card or token as a coloured block: ``label`` on ``colour``, with a multiplication sign and N when it
    stands for N cards. The block is one word (its spaces become dashes), so a narrow terminal wraps between
    chips, never inside one."""
    text = f" {label.replace(' ', '-')}{f'{TIMES}{count}' if count > 1 else ''} "
    return Text(text, style=f"{rgb(text_colour(colour))} on {rgb(colour)}")


def chips(items: Iterable[Text], empty: str = "-") -> Text:
    """Chips side by side, a space apart (``empty`` if there are none)."""
    out = Text()
    for item in items:
        if out:
            out.append(" ")
        out.append_text(item)
    return out if out else Text(empty, style="dim")


def menu(game: Game, legal: Sequence[int], state: Any = None) -> Table:
    """The legal actions numbered from 1, each with its name and what it does: in the game's words for
    ``state`` (which card it takes, which set a card joins) when given, else a few general words."""
    table = Table(box=None, show_header=False, pad_edge=False, padding=(0, 1))
    table.add_column(justify="right", style="bold cyan")
    table.add_column(style="bold", no_wrap=True)
    table.add_column(style="dim")
    for i, action in enumerate(legal, 1):
        said = game.action_help(action) if state is None else game.describe_action(state, action)
        table.add_row(str(i), game.action_names[action], said)
    return table


def plain(renderable: RenderableType, width: int = 120) -> str:
    """What ``renderable`` shows, as plain text (for tests and logs)."""
    console = Console(width=width, record=True, file=_Null(), color_system=None)
    console.print(renderable)
    return console.export_text()


class _Null:
    """A file that keeps nothing (rich writes to it; the recording is what is read)."""

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass


def printer(console: Console | None = None) -> Any:
    """A ``write`` function for rich renderables and plain strings alike (strings are not read as markup)."""
    console = console or Console(highlight=False)

    def write(item: RenderableType) -> None:
        console.print(Text(item) if isinstance(item, str) else item)

    return write
