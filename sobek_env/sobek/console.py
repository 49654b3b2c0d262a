"""Sobek's table in a terminal, drawn with rich, as one seat sees it (rules §10).

It reads what the text picture (``render.py``) and the drawn picture (``picture.py``) read: the public
table from the state and the seat's own view (:func:`~.view.view`), in the pictures' colours.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from ..console import chip, chips, seat_name, seat_style
from .catalogue import (
    AMULET,
    BACKS,
    FACE_UP_ON_NILE,
    FIRST_CHARACTER,
    GOODS,
    HIEROGLYPHS,
    KINDS,
    ROUNDS,
    SET_SLOTS,
    START,
    TAKE_WINDOW,
    TOKENS,
    Rules,
)
from .phases import TURN_START, BuildSet, CourtesanCard, Guild, HorizontalSet
from .picture import BACK_COLOURS, HAND_ORDER, TOKEN_COLOURS, card_colour
from .scoring import TableSet, scarabs_of, vertical_value
from .view import View, chooses_token, knows_tokens, searched_pile, view

if TYPE_CHECKING:  # for the annotations only: the state's module reaches this one through the game
    from .state import GameState


def card_label(kind: int, rules: Rules) -> str:
    """A card's name on its chip: the goods with a dot per scarab (``ivory...``), ``start`` for a green card,
    the character's or the amulet's name."""
    if kind >= FIRST_CHARACTER or kind == AMULET:
        return KINDS[kind]
    goods = GOODS[rules.kind_goods[kind]]
    if kind in START:
        return f"{goods} start"
    return goods + "•" * rules.kind_scarabs[kind]


def card_chips(counts: list[int], rules: Rules) -> Text:
    return chips(chip(card_label(k, rules), card_colour(k, rules), counts[k]) for k in HAND_ORDER if counts[k])


def token_chip(token: int, count: int = 1) -> Text:
    name = TOKENS[token]
    return chip(name, TOKEN_COLOURS[name.partition("-")[0]], count)


def render_rich(s: GameState, seat: int | None = None, memory: bool = False) -> RenderableType:
    """The table as ``seat`` sees it (default: the player to move), in ``memory`` mode or not."""
    seat = s.current_player if seat is None else seat
    mine = view(s, seat, "memory" if memory else "original")
    rules, n = s.rules, s.rules.num_players
    title = Text(f"Sobek - round {s.round} of {ROUNDS} - as player_{seat} sees it", style="bold")
    if s.over:
        status = Text("Game over. Winner: " + ", ".join(f"player_{p}" for p in s.winners), style="bold yellow")
    else:
        status = Text.assemble(seat_name(s.current_player), " to move: ", (s.pending or TURN_START).description)
    scores = Text("Scores: ")
    for p in range(n):
        scores.append_text(seat_name(p))
        scores.append(f" {s.markers[p]}   ")
    nile = Text("Nile (0 = nearest the 0 space; 0-3 may be taken): ")
    for i, kind in enumerate(s.nile):
        up = FACE_UP_ON_NILE[kind]  # rules §5: characters lie face down
        label = card_label(kind, rules) if up else "character"
        colour = card_colour(kind, rules) if up else BACK_COLOURS["orange"]
        nile.append(f"{i}:", style="bold" if i < TAKE_WINDOW else "dim")
        nile.append_text(chip(label, colour))
        nile.append(" ")
    if not s.nile:
        nile.append("empty", style="dim")
    table_line = Text(f"Deck {len(s.deck)}   Tokens face down {sum(s.tokens)}   used: ")
    table_line.append_text(chips(token_chip(t, k) for t, k in enumerate(s.used_tokens) if k))
    table_line.append("   characters played: ")
    table_line.append_text(card_chips([v if k >= FIRST_CHARACTER else 0 for k, v in enumerate(s.discard)], rules))

    players = Table(show_lines=True, expand=False)
    for column in ("player", "score", "hand", "corruption pile", "sets on the table"):
        players.add_column(column)
    for i in range(n):
        p = (seat + i) % n
        name = seat_name(p, you=i == 0)
        if p == s.current_player and not s.over:
            name.append(" *", style="bold yellow")
        if i == 0:
            hand = card_chips(mine.hand, rules)
            pile = Text(f"{sum(mine.pile)}: ")
            pile.append_text(card_chips(mine.pile, rules))
        else:
            hand = chips(chip(BACKS[b], BACK_COLOURS[BACKS[b]], k) for b, k in enumerate(s.hand_backs(p)) if k)
            pile = Text("?", style="dim")
            if memory:  # the view's rows are per opponent (rules §10, memory mode)
                if any(mine.known_hands[i - 1]):
                    hand.append("\nremembered: ", style="dim")
                    hand.append_text(card_chips(mine.known_hands[i - 1], rules))
                pile = Text(f"{sum(mine.pile_backs[i])}; remembered: ")
                pile.append_text(card_chips(mine.known_piles[i - 1], rules))
        if s.curses[p]:
            pile.append("  ")
            pile.append_text(token_chip(TOKENS.index("curse"), s.curses[p]))
        players.add_row(name, str(s.markers[p]), hand, pile, _sets(s, p))

    parts: list[RenderableType] = [status, scores, nile, table_line, players]
    parts += _context(s, mine, seat, memory)
    if s.round_log:
        parts.append(_rounds(s))
    return Panel(Group(*parts), title=title, border_style=seat_style(seat), expand=False)


def _sets(s: GameState, p: int) -> Text:
    rules = s.rules
    out = Text()
    for slot, t in enumerate(s.sets[p]):
        if t is None:
            continue
        if out:
            out.append("\n")
        name = "amulets only" if SET_SLOTS[slot] == "amulet" else SET_SLOTS[slot]
        out.append(f"{name}: ", style="bold")
        out.append_text(card_chips(t.cards, rules))
        if t.prosperity:
            out.append(" ")
            out.append_text(token_chip(TOKENS.index("prosperity"), t.prosperity))
        out.append(f" = {vertical_value(TableSet(t.cards, t.prosperity), rules)}", style="dim")
    for slot, cards in s.horizontal[p]:
        if out:
            out.append("\n")
        out.append(f"horizontal {SET_SLOTS[slot]}: ", style="bold")
        out.append_text(card_chips(cards, rules))
        out.append(f" = {scarabs_of(cards, rules)}", style="dim")
    return out if out else Text("-", style="dim")


def _context(s: GameState, mine: View, seat: int, memory: bool) -> list[RenderableType]:
    """What is being decided, as far as ``seat`` may see it."""
    rules, pending, out = s.rules, s.pending, []
    if isinstance(pending, (BuildSet, HorizontalSet)):
        out.append(Text.assemble(f"Laying a set of {SET_SLOTS[pending.goods]}: ", card_chips(pending.cards, rules)))
    elif isinstance(pending, CourtesanCard):
        out.append(Text.assemble(f"Courtesan, adding to the {SET_SLOTS[pending.slot]} set: ",
                                 card_chips(pending.cards, rules)))
    elif isinstance(pending, Guild):
        out.append(Text(f"Guild of the {HIEROGLYPHS[pending.symbol]}: choose an opponent to move back"))
    if chooses_token(s, seat):
        out.append(Text.assemble("Tokens to choose from: ",
                                 chips(token_chip(t, k) for t, k in enumerate(mine.token_choice) if k)))
    elif knows_tokens(s, seat, memory):
        out.append(Text.assemble("Tokens you know are face down: ",
                                 chips(token_chip(t, k) for t, k in enumerate(mine.tokens_known or ()) if k)))
    searched = searched_pile(s, seat)
    if searched is not None:
        out.append(Text.assemble(f"player_{searched}'s corruption pile: ", card_chips(mine.vizier_pile, rules)))
    return out


def _rounds(s: GameState) -> Group:
    """The scored rounds (public, rules §10): round points, corruption, the most corrupt and the penalty."""
    n = s.rules.num_players
    table = Table()
    table.add_column("round")
    for p in range(n):
        table.add_column(seat_name(p))
    for entry in s.round_log:
        cells = []
        for p in range(n):
            penalty = f" / -{entry['penalty'][p]}" if entry["penalty"][p] else ""
            corrupt = p in entry["most_corrupt"]
            cells.append(Text(f"+{entry['points'][p]} / {entry['corruption'][p]}{penalty}",
                              style="bold red" if corrupt else ""))
        table.add_row(str(entry["round"]), *cells)
    return Group(Text("Scored rounds: points / corruption / penalty (the most corrupt in red)"), table)
