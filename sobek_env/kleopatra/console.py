"""Kleopatra's table in a terminal, drawn with rich, from one seat's :class:`~.view.View` (rules §12).

The same sources and colours as the drawn picture (``picture.py``): the market's stalls, the palace as a
plan (the garden's squares with their ids, so that ``square:<id>`` can be read off, palms, tiles and
sanctuaries in their colours, the walls round it, the gate, sphinxes, obelisks, pedestal and throne),
Cleopatra and the altar, the seats, and what is being decided.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from ..console import chip, chips, rgb, seat_name, seat_style
from ..picture import SEAT_COLOURS, shade
from .catalogue import (
    CATEGORIES,
    CLEOPATRA_END,
    DICE,
    GATE_PARTS,
    KINDS,
    NUM_TILES,
    NUM_WALL_SLOTS,
    OBELISK_PIECES,
    RESOURCES,
    SPHINX_PIECES,
    THRONE_PIECES,
    TILE_NAMES,
    UNITS,
    Rules,
)
from .phases import PHASES
from .picture import BACK, KIND_COLOURS, PALM, SAND, STONE_BUILT, TILE_COLOURS, UNIT_COLOURS, tile_squares
from .render import wall_edges
from .view import EMPTY, FACE_DOWN, View, view

if TYPE_CHECKING:  # for the annotations only: the state's module reaches this one through the game
    from .state import GameState


def card_chip(kind: int, count: int = 1) -> Text:
    """A card as a chip in its kind's colour; :data:`FACE_DOWN` is a back."""
    if kind == FACE_DOWN:
        return chip("face down", BACK, count)
    name = KINDS[kind]
    return chip(name, KIND_COLOURS.get(name.rstrip("2"), KIND_COLOURS["character"]), count)


def card_chips(counts: list[int]) -> Text:
    return chips(card_chip(k, c) for k, c in enumerate(counts) if c)


def render_rich(s: GameState, seat: int | None = None, mode: str = "original") -> RenderableType:
    """The table as ``seat`` sees it (default: the player to move), in observation ``mode``."""
    seat = s.current_player if seat is None else seat
    v = view(s, seat, mode)
    n, rules = v.num_players, s.rules

    def name(r: int) -> Text:
        return seat_name((seat + r) % n, you=r == 0)

    if v.over:
        winners = ", ".join(f"player_{(seat + r) % n}" for r in range(n) if v.winners[r])
        eaten = ", ".join(f"player_{(seat + r) % n}" for r in range(n) if v.eliminated[r]) or "nobody"
        status = Text(f"Game over. Winner: {winners}; eaten by the crocodile: {eaten}", style="bold yellow")
    else:
        status = Text.assemble(name(v.acting), f" to act: {PHASES[v.phase].description}")
        if v.active != v.acting:
            status.append_text(Text.assemble("  (", name(v.active), "'s turn)"))
    steps = Text("Cleopatra: ")
    for i in range(CLEOPATRA_END + 1):
        steps.append(f"[{i}]" if i == v.cleopatra else f" {i} ", style="bold yellow" if i == v.cleopatra else "dim")
    steps.append(f"   Altar: {'@' * v.altar}{'o' * (DICE - v.altar)} ({v.altar} of {DICE} dice; 5: ceremony)")

    market = Table(title="Market", title_justify="left", show_lines=False)
    for i in range(len(v.stalls)):
        market.add_column(f"stall {i}")
    market.add_column("deck / discard")
    top = "empty" if v.deck_top == EMPTY else None
    deck = Text(f"{v.deck_size} cards, top: ")
    deck.append_text(Text(top) if top else card_chip(v.deck_top))
    deck.append(f"\ndiscard {v.discard_size}")
    market.add_row(*(Text("\n").join(card_chip(k, c) for k, c in enumerate(row) if c) or Text("empty", style="dim")
                     for row in v.stalls), deck)

    seats = Table(title="Players", title_justify="left")
    for column in ("player", "talents", "amulets", "merchants", "statues", "sanctuary sq.", "hand"):
        seats.add_column(column)
    revealed = mode == "memory" or v.over  # rules §12: others' talents and amulets are secret until the end
    for r in range(n):
        label = name(r)
        if r == v.active and r and not v.over:
            label.append(" (his turn)", style="dim")
        if v.over and v.eliminated[r]:
            label.append(" eaten", style="bold red")
        hidden = r > 0 and not revealed
        if r == 0:
            hand = card_chips(v.hand)
        else:
            hand = Text(f"{v.hand_sizes[r]} cards")
            known = v.shown_hands[r - 1] if v.shown[r - 1] else v.known_hands[r - 1]
            if any(known):
                hand.append("; shown to you: " if v.shown[r - 1] else "; known: ", style="dim")
                hand.append_text(card_chips(known))
        seats.add_row(label, "?" if hidden else str(v.talents[r]), "?" if hidden else str(v.amulets[r]),
                      str(v.merchants[r]), str(v.statues[r]), str(v.sanctuary_squares[r]), hand)

    parts: list[RenderableType] = [status, steps, market, palace(v, rules, seat), _quarry(v), seats]
    parts += _context(v, seat)
    title = Text(f"Kleopatra - turn {v.turn} - as player_{seat} sees it", style="bold")
    return Panel(Group(*parts), title=title, border_style=seat_style(seat), expand=False)


def palace(v: View, rules: Rules, seat: int) -> Text:
    """The palace as a plan, the back on top: throne and pedestal, the back walls, the garden rows with the
    left and right walls, the gate, then the sphinx alley and the obelisks. Each free square shows its id
    (green on a palm); tiles show their letter, sanctuaries their owner's colour."""
    n, size = v.num_players, rules.garden_size
    at = {}
    for t in range(NUM_TILES):
        if v.tile_anchor[t] is not None:
            for sq in tile_squares(rules, t, v.tile_orient[t], v.tile_anchor[t]):
                at[sq] = t
    owner = {sq: (seat + r) % n for r, squares in enumerate(v.owned) for sq in squares}
    sanctuaries, palms = set(v.sanctuaries), set(rules.palms)
    left, right, back = wall_edges(rules)

    def wall(k: int | None, width: int) -> Text:
        if k is None:
            return Text(" " * width)
        label = f"W{k + 1}".center(width)
        return Text(label, style=f"black on {rgb(STONE_BUILT)}" if v.walls[k] else "dim")

    out = Text()
    out.append(f"      {_built('pedestal', v.pedestal)} {_built('throne', v.throne)}\n")
    out.append("     ")
    for x in range(size):
        out.append_text(wall(back.get(x), 4))
    out.append("\n")
    for y in range(size - 1, -1, -1):
        out.append_text(wall(left.get(y), 4))
        out.append(" ")
        for x in range(size):
            sq = 8 * y + x
            if sq in at:
                colour = TILE_COLOURS[at[sq]]
                out.append(f" {TILE_NAMES[at[sq]]}  ", style=f"bold black on {rgb(colour)}")
            elif sq in sanctuaries:
                colour = shade(SEAT_COLOURS[owner[sq]], 1.5) if sq in owner else (200, 196, 188)
                mark = f"P{owner[sq]}" if sq in owner else "--"
                out.append(f" {mark} ", style=f"black on {rgb(colour)}")
            else:
                style = f"bold {rgb(PALM)} on {rgb(SAND)}" if sq in palms else f"black on {rgb(SAND)}"
                out.append(f" {sq:>2} ", style=style)
        out.append(" ")
        out.append_text(wall(right.get(y), 4))
        out.append("\n")
    gate = "  ".join(_built(f"gate {side}", v.gate[i]) for i, side in enumerate(("left", "right")[:GATE_PARTS]))
    out.append(f"      {gate}\n")
    sphinxes = " ".join(_built(f"S{i + 1}", i < v.sphinxes) for i in range(SPHINX_PIECES))
    obelisks = " ".join(_built(f"O{i + 1}", i < v.obelisks) for i in range(OBELISK_PIECES))
    out.append(f"      sphinx alley: {sphinxes}   obelisks: {obelisks}\n")
    out.append("      (squares by id: green on a palm; P<k>: player_k's sanctuary, --: unclaimed)", style="dim")
    return out


def _built(label: str, built: bool) -> str:
    return f"[{label.upper()}]" if built else f"({label})"


def _quarry(v: View) -> Text:
    counts = (sum(v.walls), v.sphinxes, v.obelisks, sum(v.gate), int(v.pedestal) + int(v.throne),
              sum(a is not None for a in v.tile_anchor))
    pieces = (NUM_WALL_SLOTS, SPHINX_PIECES, OBELISK_PIECES, GATE_PARTS, THRONE_PIECES, NUM_TILES)
    out = Text("Quarry, built of pieces: ")
    for i, category in enumerate(CATEGORIES):
        out.append(f"{category} {counts[i]}/{pieces[i]}", style="bold green" if v.complete[i] else "")
        out.append("   ")
    top = TILE_NAMES[v.top_tile] if v.top_tile is not None else "none"
    removed = " ".join(TILE_NAMES[t] for t in range(NUM_TILES) if v.removed[t]) or "-"
    out.append(f"\nMosaic tiles in the quarry: {sum(v.in_quarry)}, top: {top}; removed: {removed}")
    known = sorted((t for t in range(NUM_TILES) if v.stack_order[t]), key=lambda t: v.stack_order[t])
    if len(known) > 1:
        out.append(f"; stack order seen: {' '.join(TILE_NAMES[t] for t in known)}")
    return out


def _context(v: View, seat: int) -> list[RenderableType]:
    """What is being decided, as far as ``seat`` may see it."""
    n, out = v.num_players, []

    def name(r: int) -> str:
        return "you" if r == 0 else f"player_{(seat + r) % n}"

    if any(v.pool) or any(v.paid) or any(v.built):
        pool = chips(chip(UNITS[u], UNIT_COLOURS[u], c) for u, c in enumerate(v.pool) if c)
        out.append(Text.assemble("Quarry visit: pool ", pool, "; paid ", card_chips(v.paid),
                                 f"; built {sum(v.built)} this visit"))
    if v.refill_cards:
        filled = ", ".join(str(i) for i, f in enumerate(v.refill_filled) if f) or "none yet"
        out.append(Text.assemble("Refill, the next card first: ", chips(card_chip(c) for c in v.refill_cards),
                                 f"; stalls filled: {filled}"))
    if v.tile is not None:
        out.append(Text(f"Placing tile {TILE_NAMES[v.tile]}" + (f", orientation {v.orient}"
                                                                if v.orient is not None else "")))
    if v.offered_sanctuary:
        out.append(Text(f"New sanctuary on squares {v.offered_sanctuary}: put a statue of Anubis on it?"))
    if v.envoy_resource is not None:
        offers = ", ".join(f"{name(r)} {v.envoy_offers[r]}" for r in range(1, n))
        out.append(Text(f"Envoy asks for {RESOURCES[v.envoy_resource]}; offers: {offers}"))
    if any(v.vizier_drawn):
        out.append(Text.assemble(f"Your Vizier drew (kept so far {v.vizier_kept}): ", card_chips(v.vizier_drawn)))
    if any(v.courtesan_discard):
        out.append(Text.assemble("The discard pile your Courtesan searches: ", card_chips(v.courtesan_discard)))
    if any(v.known_discard):
        out.append(Text.assemble("Known in the discard pile: ", card_chips(v.known_discard)))
    if v.phase == "ceremony":
        closed = ", ".join(name(r) for r in range(n) if v.ceremony_closed[r]) or "nobody"
        out.append(Text(f"Offering ceremony: your secret offer so far {v.ceremony_offer}; closed: {closed}"))
    if any(v.last_places):
        out.append(Text("Last ceremony: " + ", ".join(f"{name(r)} offered {v.last_offers[r]} (place "
                                                      f"{v.last_places[r]})" for r in range(n))))
    return out
