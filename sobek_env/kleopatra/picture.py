"""Kleopatra's table drawn as a picture (the ``rgb_array`` render mode, replay GIFs), from one seat's view.

Everything drawn comes from :func:`~.view.view` (what the seat may see, rules §12) and the rules' fixed
geometry, as the text picture does (``render.py``); the full view draws each seat's private part (hand,
talents, amulets) from that seat's own view. So a seat's picture cannot show what it may not see.

Layout: the status bar; on the left the palace as a plan seen from above, the back on top (the throne
on its pedestal behind the back wall, the column walls round the garden's three sides, the garden's
mosaic grid with its palms, tiles and sanctuaries, the gate's two parts at the front, the sphinx alley
and the obelisks on the plaza before it); on the right the market's three stalls, the deck, Cleopatra's
steps, the altar's dice and the quarry; then a panel per seat; then what is being decided.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np

from ..picture import HIGHLIGHT, INK, LINE, MUTED, PANEL, PAPER, SEAT_COLOURS, WHITE, Canvas, shade, text_colour
from .catalogue import (
    CATEGORIES,
    CLEOPATRA_END,
    DICE,
    GATE_PARTS,
    KINDS,
    NUM_KINDS,
    NUM_TILES,
    NUM_WALL_SLOTS,
    OBELISK_PIECES,
    RESOURCES,
    SPHINX_PIECES,
    STALLS,
    THRONE_PIECES,
    TILE_NAMES,
    UNITS,
    Rules,
)
from .palace import orient_cells
from .phases import PHASES
from .render import wall_sides
from .view import EMPTY, FACE_DOWN, View, view

# The colour and letters of each card kind; the units of a quarry pool take their resource's colour.
KIND_COLOURS = {
    "artisan": (214, 178, 122), "stone": (150, 150, 146), "marble": (238, 238, 242), "wood": (140, 92, 50),
    "lapis": (44, 82, 172), "trompe": (196, 160, 214), "character": (150, 36, 52),
}
KIND_MARKS = {
    "artisan": "A", "stone": "S", "marble": "M", "wood": "W", "lapis": "L", "trompe": "T",
    "beggar": "Be", "courtesan": "Co", "envoy": "En", "scribe": "Sc", "smuggler": "Sm", "vizier": "Vi",
}
UNIT_COLOURS = (*(KIND_COLOURS[r] for r in RESOURCES), KIND_COLOURS["trompe"], (70, 120, 150))
BACK = (36, 92, 96)
TILE_COLOURS = (
    (231, 138, 120), (120, 178, 226), (240, 196, 96), (150, 206, 140), (212, 140, 196), (120, 200, 196),
    (236, 160, 70), (170, 150, 226), (200, 214, 110), (226, 120, 150), (110, 160, 130), (140, 150, 172),
)

if TYPE_CHECKING:  # for the annotations only: the state's module reaches this one through the game
    from .state import GameState
SAND, PALM, STONE_BUILT = (236, 220, 180), (60, 140, 70), (198, 170, 120)

WIDTH, HEIGHT = 1180, 900
CELL = 40
PALACE = (8, 44, 536, 600)          # the palace panel (x0, y0, x1, y1)
SEATS_TOP, SEAT_HEIGHT = 606, 176
FOOTER_TOP = 788
MINI = (24, 34)


def frame_size(num_players: int) -> tuple[int, int]:
    """(height, width) of every picture: the same for every number of players."""
    return HEIGHT, WIDTH


def picture(s: GameState, seat: int | None = None, mode: str = "original", full: bool = False) -> np.ndarray:
    """The table as ``seat`` sees it (default: the player to move) in observation ``mode``, or with ``full``
    every seat's hand, talents and amulets as its owner sees them: an (H, W, 3) uint8 array."""
    n = s.num_players
    seat = s.current_player if seat is None else seat
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
        raise ValueError(f"seat must be a seat of this {n}-player game (0 to {n - 1}), got {seat!r}")
    v = view(s, seat, mode)
    own = {p: view(s, p, mode) for p in range(n)} if full else {seat: v}
    c = Canvas(_background(s.rules).copy())
    _status(c, v, seat, full)
    _palace(c, v, s.rules, seat)
    _market(c, v)
    _progress(c, v, s.rules, seat)
    for p in range(n):
        _seat_panel(c, v, own, p, seat, mode)
    _footer(c, v, s.rules, seat)
    return c.array()


@cache
def _background(rules: Rules) -> Any:
    """What every picture of a rules set shares (the frames, the garden's squares and palms), drawn once."""
    c = Canvas.blank(WIDTH, HEIGHT, PAPER)
    c.box((0, 0, WIDTH, 38), fill=(40, 54, 80))
    c.text((14, 19), "KLEOPATRA", 18, (240, 210, 120), bold=True, anchor="lm")
    c.panel(PALACE, "THE PALACE (seen from above, the back on top)")
    c.panel((544, 44, WIDTH - 8, 236), "THE MARKET")
    c.panel((544, 242, WIDTH - 8, 600), "")
    c.panel((8, FOOTER_TOP, WIDTH - 8, HEIGHT - 6), "NOW")
    gx, gy = _garden_origin(rules)
    size = rules.garden_size
    palms = set(rules.palms)
    for y in range(size):
        for x in range(size):
            x0, y0 = gx + x * CELL, gy + (size - 1 - y) * CELL
            c.box((x0, y0, x0 + CELL, y0 + CELL), fill=SAND, outline=(214, 196, 150))
            if 8 * y + x in palms:
                _palm(c, x0 + CELL / 2, y0 + CELL / 2, (150, 200, 140))
            c.text((x0 + 3, y0 + 2), str(8 * y + x), 7, (170, 150, 110))  # the square's id (square:<id>)
    return c.image


def _garden_origin(rules: Rules) -> tuple[int, int]:
    """The top-left corner of the garden's back-left square."""
    return 112 + (8 - rules.garden_size) * CELL // 2, 146


# ---------------------------------------------------------------------- small shapes


def draw_card(c: Canvas, x: float, y: float, kind: int, size: tuple[int, int] = MINI, count: int = 1) -> None:
    """A card face up (``kind``) or face down (:data:`FACE_DOWN`); a badge with ``count`` if more than one.
    A doubled resource shows its letter twice, a tainted card or character a dark corner (corruption)."""
    w, h = size
    if kind == FACE_DOWN:
        c.box((x, y, x + w, y + h), fill=BACK, outline=shade(BACK, 0.5), radius=3)
        cx, cy, r = x + w / 2, y + h / 2, w * 0.3
        c.draw.polygon([(cx, cy - r), (cx + r, cy), (cx, cy + r), (cx - r, cy)], outline=(120, 170, 170), width=2)
    else:
        name = KINDS[kind]
        base = name.rstrip("2")
        colour = KIND_COLOURS.get(base, KIND_COLOURS["character"])
        c.box((x, y, x + w, y + h), fill=colour, outline=shade(colour, 0.55), radius=3)
        mark = KIND_MARKS[base] * (2 if name.endswith("2") else 1)
        c.text((x + w / 2, y + h / 2), mark, 10 if len(mark) > 1 else 12, text_colour(colour), bold=True,
               anchor="mm")
        if kind >= KINDS.index("artisan2"):  # the corruption symbol (rules §1.1)
            c.draw.polygon([(x + 1, y + h - 1), (x + 9, y + h - 1), (x + 1, y + h - 9)], fill=(30, 30, 30))
    if count > 1:
        c.badge((x + w - 2, y + 3), str(count), INK, 9)


def kinds_row(c: Canvas, x: float, y: float, counts: list[int], right: float, size: tuple[int, int] = MINI,
              rows: int = 1) -> float:
    """Cards by kind (one per kind with a count badge; index :data:`FACE_DOWN` for backs) from ``x`` to
    ``right``, in up to ``rows`` rows; where the last row ended. What does not fit is summed in a note."""
    shown = [k for k in range(len(counts)) if counts[k]]
    step = size[0] + 5
    per_row = max(1, int((right - x) // step))
    room = per_row * rows
    if len(shown) > room:
        room -= 1
    end = x
    for i, k in enumerate(shown[:room]):
        row, col = divmod(i, per_row)
        draw_card(c, x + col * step, y + row * (size[1] + 6), k, size, counts[k])
        end = x + (col + 1) * step
    rest = sum(counts[k] for k in shown[room:])
    if rest:
        row = min(rows - 1, len(shown[:room]) // per_row)
        c.text((end + 2, y + row * (size[1] + 6) + size[1] / 2), f"+{rest}", 10, MUTED, anchor="lm")
    return end


def _palm(c: Canvas, cx: float, cy: float, colour: tuple[int, int, int]) -> None:
    c.draw.line((cx, cy - 4, cx + 1, cy + 11), fill=shade(colour, 0.6), width=2)
    for dx, dy in ((-9, -1), (9, -1), (-6, -9), (6, -9), (0, -11)):
        c.draw.line((cx, cy - 4, cx + dx, cy - 4 + dy), fill=colour, width=3)


def _statue(c: Canvas, cx: float, cy: float, colour: tuple[int, int, int], h: float = 22) -> None:
    """A statue of Anubis: a plinth, a seated body, a jackal's head with two ears."""
    dark = shade(colour, 0.6)
    c.box((cx - h * 0.35, cy + h * 0.3, cx + h * 0.35, cy + h * 0.5), fill=dark)
    c.box((cx - h * 0.2, cy - h * 0.1, cx + h * 0.2, cy + h * 0.3), fill=colour, outline=dark)
    c.disc((cx, cy - h * 0.22), h * 0.15, colour, dark)
    for side in (-1, 1):
        c.draw.polygon([(cx + side * h * 0.05, cy - h * 0.32), (cx + side * h * 0.16, cy - h * 0.5),
                        (cx + side * h * 0.16, cy - h * 0.26)], fill=colour, outline=dark)


def _coin(c: Canvas, cx: float, cy: float, r: float = 8) -> None:
    c.disc((cx, cy), r, (232, 190, 60), (150, 110, 20), 2)


def _pyramid(c: Canvas, cx: float, cy: float, r: float = 9) -> None:
    c.draw.polygon([(cx - r, cy + r * 0.8), (cx + r, cy + r * 0.8), (cx, cy - r)], fill=(70, 120, 70),
                   outline=(30, 60, 30))


def _boat(c: Canvas, cx: float, cy: float, colour: tuple[int, int, int]) -> None:
    """A Nile merchant: a small boat with a sail."""
    c.draw.polygon([(cx - 9, cy + 2), (cx + 9, cy + 2), (cx + 6, cy + 7), (cx - 6, cy + 7)], fill=colour)
    c.draw.line((cx, cy + 2, cx, cy - 9), fill=shade(colour, 0.6), width=1)
    c.draw.polygon([(cx + 1, cy - 9), (cx + 7, cy + 1), (cx + 1, cy + 1)], fill=WHITE, outline=shade(colour, 0.6))


def _die(c: Canvas, x: float, y: float, on_altar: bool) -> None:
    """A High Priest die: on the altar it shows the priest (a gold ankh-like mark), else its blank face."""
    c.box((x, y, x + 26, y + 26), fill=(250, 236, 170) if on_altar else WHITE, outline=(90, 80, 60), width=2,
          radius=5)
    if on_altar:
        c.disc((x + 13, y + 9), 4, None, (150, 100, 10), 2)
        c.draw.line((x + 13, y + 13, x + 13, y + 21), fill=(150, 100, 10), width=2)
        c.draw.line((x + 8, y + 16, x + 18, y + 16), fill=(150, 100, 10), width=2)


def tile_squares(rules: Rules, tile: int, orient: int, anchor: int) -> list[int]:
    """The squares a tile covers with its anchor (its first cell, rules §1.5) on ``anchor``."""
    shape = orient_cells(rules.tiles[tile], orient)
    ax, ay = shape[0]
    return [anchor + (x - ax) + 8 * (y - ay) for x, y in shape]


def draw_shape(c: Canvas, x: float, y: float, rules: Rules, tile: int, orient: int = 0, cell: int = 9) -> None:
    """A mosaic tile's shape, small (the quarry's top tile, the tile being placed)."""
    shape = orient_cells(rules.tiles[tile], orient)
    top = max(cy for _, cy in shape)
    for cx, cy in shape:
        x0, y0 = x + cx * cell, y + (top - cy) * cell
        c.box((x0, y0, x0 + cell, y0 + cell), fill=TILE_COLOURS[tile], outline=shade(TILE_COLOURS[tile], 0.5))


def _dashed_box(c: Canvas, rect: tuple[float, float, float, float], colour: tuple[int, int, int]) -> None:
    """An outline of dashes: a place where an element is still to be built."""
    x0, y0, x1, y1 = rect
    for a, b, horizontal, fixed in ((x0, x1, True, y0), (x0, x1, True, y1), (y0, y1, False, x0), (y0, y1, False, x1)):
        pos = a
        while pos < b:
            end = min(pos + 4, b)
            c.draw.line((pos, fixed, end, fixed) if horizontal else (fixed, pos, fixed, end), fill=colour, width=1)
            pos += 7


# ---------------------------------------------------------------------- the parts of the table


def _status(c: Canvas, v: View, seat: int, full: bool) -> None:
    n = v.num_players
    c.text((138, 19), f"turn {v.turn} - {n} players", 13, WHITE, anchor="lm")
    who = "full view (every hand open)" if full else f"as player_{seat} sees it"
    right = WIDTH - 14 - c.text((WIDTH - 14, 19), who, 12, (210, 215, 230), anchor="rm") - 16
    if v.over:
        winners = ", ".join(f"player_{(seat + r) % n}" for r in range(n) if v.winners[r])
        c.text((330, 19), f"Game over - winner{'s' if sum(v.winners) > 1 else ''}: {winners}", 14, HIGHLIGHT,
               bold=True, anchor="lm")
        return
    acting = (seat + v.acting) % n
    c.disc((340, 19), 8, SEAT_COLOURS[acting], WHITE, 2)
    what = f"player_{acting} to act: {PHASES[v.phase].description}"
    c.text((354, 19), c.fit(what, right - 354, 12, True), 12, WHITE, bold=True, anchor="lm")


def _palace(c: Canvas, v: View, rules: Rules, seat: int) -> None:
    size = rules.garden_size
    gx, gy = _garden_origin(rules)
    gw = size * CELL
    n = v.num_players
    # the garden: tiles, sanctuaries (the owner's colour and statue, grey if unclaimed)
    owner = {sq: (seat + r) % n for r, squares in enumerate(v.owned) for sq in squares}
    at: dict[int, int] = {}
    for t in range(NUM_TILES):
        if v.tile_anchor[t] is not None:
            for sq in tile_squares(rules, t, v.tile_orient[t], v.tile_anchor[t]):
                at[sq] = t
    for sq in v.sanctuaries:
        x0, y0 = _square_xy(sq, gx, gy, size)
        colour = shade(SEAT_COLOURS[owner[sq]], 1.55) if sq in owner else (200, 196, 188)
        c.box((x0 + 1, y0 + 1, x0 + CELL - 1, y0 + CELL - 1), fill=colour)
        for k in range(-CELL, CELL, 8):  # hatched: no tile may go here any more
            c.draw.line((x0 + max(0, k), y0 + max(0, -k), x0 + min(CELL, CELL + k), y0 + min(CELL, CELL - k)),
                        fill=shade(colour, 0.85), width=1)
    for sq, t in at.items():
        x0, y0 = _square_xy(sq, gx, gy, size)
        c.box((x0, y0, x0 + CELL, y0 + CELL), fill=TILE_COLOURS[t])
        if sq in rules.palms:
            _palm(c, x0 + CELL / 2, y0 + CELL / 2, shade(TILE_COLOURS[t], 0.75))
    for sq, t in at.items():  # each tile's outline: a thick edge where the neighbour is not the same tile
        x0, y0 = _square_xy(sq, gx, gy, size)
        edge = shade(TILE_COLOURS[t], 0.45)
        x, y = sq % 8, sq // 8
        for nx, ny, line in ((x - 1, y, (x0, y0, x0, y0 + CELL)), (x + 1, y, (x0 + CELL, y0, x0 + CELL, y0 + CELL)),
                             (x, y + 1, (x0, y0, x0 + CELL, y0)), (x, y - 1, (x0, y0 + CELL, x0 + CELL, y0 + CELL))):
            if at.get(8 * ny + nx) != t or not (0 <= nx < size and 0 <= ny < size):
                c.draw.line(line, fill=edge, width=3)
    for t in range(NUM_TILES):
        if v.tile_anchor[t] is not None:
            x0, y0 = _square_xy(v.tile_anchor[t], gx, gy, size)
            c.text((x0 + 6, y0 + CELL - 6), TILE_NAMES[t], 11, shade(TILE_COLOURS[t], 0.35), bold=True, anchor="lb")
    for r, squares in enumerate(v.owned):
        for area in _areas(squares):  # a statue on each sanctuary, on its first square
            x0, y0 = _square_xy(area[0], gx, gy, size)
            _statue(c, x0 + CELL / 2, y0 + CELL / 2, SEAT_COLOURS[(seat + r) % n])
    c.box((gx, gy, gx + gw, gy + gw), outline=(150, 130, 90), width=2)
    # the column walls along the garden's sides
    for k, side in enumerate(wall_sides(rules)):
        if side is None:
            continue
        squares = rules.wall_slots[k]
        if side == "back":
            xs = [sq % 8 for sq in squares]
            rect = (gx + min(xs) * CELL + 2, gy - 16, gx + (max(xs) + 1) * CELL - 2, gy - 4)
        else:
            ys = [sq // 8 for sq in squares]
            top, bottom = gy + (size - 1 - max(ys)) * CELL + 2, gy + (size - min(ys)) * CELL - 2
            rect = (gx - 16, top, gx - 4, bottom) if side == "left" else (gx + gw + 4, top, gx + gw + 16, bottom)
        _wall(c, rect, v.walls[k], f"W{k + 1}", side)
    # the throne on its pedestal, behind the back wall
    cx = gx + gw / 2
    pedestal = (cx - 60, gy - 50, cx + 60, gy - 32)
    throne = (cx - 20, gy - 84, cx + 20, gy - 52)
    _element(c, pedestal, v.pedestal, "pedestal")
    _element(c, throne, v.throne, "throne")
    # the gate's two parts at the front, the sphinx alley and the obelisks on the plaza
    front = gy + gw
    for part in range(GATE_PARTS):
        x0 = gx - 16 if part == 0 else cx + 6
        x1 = cx - 6 if part == 0 else gx + gw + 16
        _element(c, (x0, front + 4, x1, front + 18), v.gate[part], f"gate {'left' if part == 0 else 'right'}")
    for i in range(SPHINX_PIECES):
        row, side = divmod(i, 2)  # S1/S2, S3/S4, S5/S6 face each other across the alley (rules §1.4)
        x = cx - 58 if side == 0 else cx + 22
        y = front + 28 + row * 28
        _sphinx(c, x, y, i < v.sphinxes, f"S{i + 1}", facing=1 if side == 0 else -1)
    for i in range(OBELISK_PIECES):
        x = gx + 8 if i == 0 else gx + gw - 24
        _obelisk(c, x, front + 32, i < v.obelisks, f"O{i + 1}")


def _areas(squares: list[int]) -> list[list[int]]:
    """``squares`` split into edge-connected groups, each sorted: one seat's sanctuaries (two sanctuaries are
    never edge-adjacent, or they would have been one free area, rules §6.4)."""
    left, out = set(squares), []
    while left:
        start = min(left)
        group, frontier = {start}, [start]
        while frontier:
            sq = frontier.pop()
            for nxt in (sq - 8, sq + 8, *((sq - 1,) if sq % 8 else ()), *((sq + 1,) if sq % 8 != 7 else ())):
                if nxt in left and nxt not in group:
                    group.add(nxt)
                    frontier.append(nxt)
        left -= group
        out.append(sorted(group))
    return out


def _square_xy(square: int, gx: int, gy: int, size: int) -> tuple[int, int]:
    return gx + (square % 8) * CELL, gy + (size - 1 - square // 8) * CELL


def _wall(c: Canvas, rect: tuple[float, float, float, float], built: bool, label: str, side: str) -> None:
    x0, y0, x1, y1 = rect
    if built:
        c.box(rect, fill=STONE_BUILT, outline=shade(STONE_BUILT, 0.5), width=1)
        long = x1 - x0 > y1 - y0
        for i in range(int((x1 - x0 if long else y1 - y0) // 12) + 1):  # the columns
            p = (x0 if long else y0) + 6 + i * 12
            if p < (x1 if long else y1) - 3:
                c.disc((p, (y0 + y1) / 2) if long else ((x0 + x1) / 2, p), 3, shade(STONE_BUILT, 0.7))
    else:
        _dashed_box(c, rect, (150, 130, 100))
    where = {"back": ((x0 + x1) / 2, y0 - 7), "left": (x0 - 14, (y0 + y1) / 2), "right": (x1 + 14, (y0 + y1) / 2)}
    c.text(where[side], label, 9, INK if built else MUTED, bold=built, anchor="mm")


def _element(c: Canvas, rect: tuple[float, float, float, float], built: bool, label: str) -> None:
    if built:
        c.box(rect, fill=STONE_BUILT, outline=shade(STONE_BUILT, 0.5), width=2, radius=3)
    else:
        _dashed_box(c, rect, (150, 130, 100))
    c.text(((rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2), label, 9, INK if built else MUTED, bold=built,
           anchor="mm")


def _sphinx(c: Canvas, x: float, y: float, built: bool, label: str, facing: int) -> None:
    """A sphinx seen from above: a body and a head turned to the alley."""
    body = (x, y, x + 36, y + 20)
    if built:
        c.box(body, fill=STONE_BUILT, outline=shade(STONE_BUILT, 0.5), radius=6)
        hx = x + 36 if facing > 0 else x
        c.disc((hx, y + 10), 7, STONE_BUILT, shade(STONE_BUILT, 0.5))
    else:
        _dashed_box(c, body, (150, 130, 100))
    c.text((x + 18, y + 10), label, 9, INK if built else MUTED, bold=built, anchor="mm")


def _obelisk(c: Canvas, x: float, y: float, built: bool, label: str) -> None:
    if built:
        c.draw.polygon([(x, y + 76), (x + 16, y + 76), (x + 13, y + 10), (x + 8, y), (x + 3, y + 10)],
                       fill=STONE_BUILT, outline=shade(STONE_BUILT, 0.5))
    else:
        _dashed_box(c, (x, y, x + 16, y + 76), (150, 130, 100))
    c.text((x + 8, y + 88), label, 9, INK if built else MUTED, bold=built, anchor="mm")


def _market(c: Canvas, v: View) -> None:
    width = 140
    for i, row in enumerate(v.stalls[:STALLS]):
        x = 556 + i * (width + 10)
        c.box((x, 64, x + width, 228), fill=(226, 216, 192), outline=LINE, radius=4)
        c.text((x + width / 2, 72), f"stall {i}", 11, INK, bold=True, anchor="ma")
        if sum(row) == 0:
            c.text((x + width / 2, 146), "empty", 10, MUTED, anchor="mm")
        kinds_row(c, x + 8, 92, row, x + width - 4, (28, 40), rows=3)
    # the deck and its top card, the discard pile
    x = 556 + STALLS * (width + 10) + 6
    c.text((x, 64), "deck", 11, INK, bold=True)
    if v.deck_top == EMPTY:
        c.box((x, 82, x + 40, 138), outline=LINE, radius=3)
    else:
        draw_card(c, x, 82, v.deck_top, (40, 56))
    c.text((x + 50, 100), f"{v.deck_size}", 16, INK, bold=True, anchor="lm")
    c.text((x + 50, 120), "cards", 9, MUTED, anchor="lm")
    c.text((x, 150), "discard pile", 11, INK, bold=True)
    c.box((x, 168, x + 40, 224), fill=(210, 200, 180), outline=LINE, radius=3)
    c.text((x + 50, 190), f"{v.discard_size}", 16, INK, bold=True, anchor="lm")
    c.text((x + 50, 210), "cards", 9, MUTED, anchor="lm")


def _progress(c: Canvas, v: View, rules: Rules, seat: int) -> None:
    """Cleopatra's steps, the altar's dice, and what the quarry still holds, category by category."""
    x, y = 556, 252
    c.text((x, y), "CLEOPATRA'S STEPS", 11, MUTED, bold=True)
    for step in range(CLEOPATRA_END + 1):
        sx, sy = x + step * 44, y + 74 - step * 9
        c.box((sx, sy, sx + 44, y + 86), fill=(222, 206, 168) if step < CLEOPATRA_END else (200, 160, 90),
              outline=(150, 130, 90))
        c.text((sx + 22, y + 78), "end" if step == CLEOPATRA_END else str(step), 9, INK, anchor="mm")
        if step == v.cleopatra:
            c.disc((sx + 22, sy - 12), 9, (40, 54, 80), (240, 210, 120), 2)
            c.text((sx + 22, sy - 12), "K", 10, (240, 210, 120), bold=True, anchor="mm")
    ax = x + 300
    c.text((ax, y), f"ALTAR ({v.altar} of {DICE})", 11, MUTED, bold=True)
    for i in range(DICE):
        _die(c, ax + i * 32, y + 22, i < v.altar)
    c.text((ax, y + 58), "5 on the altar: offering ceremony", 9, MUTED)
    # the quarry
    y = 356
    c.text((x, y), "THE QUARRY: built / pieces", 11, MUTED, bold=True)
    built_mosaics = sum(a is not None for a in v.tile_anchor)
    counts = (sum(v.walls), v.sphinxes, v.obelisks, sum(v.gate), int(v.pedestal) + int(v.throne), built_mosaics)
    pieces = (NUM_WALL_SLOTS, SPHINX_PIECES, OBELISK_PIECES, GATE_PARTS, THRONE_PIECES, NUM_TILES)
    for i, name in enumerate(CATEGORIES):
        row_y = y + 20 + i * 22
        done = v.complete[i]
        c.text((x, row_y + 8), name, 10, INK, bold=done, anchor="lm")
        for k in range(pieces[i]):
            bx = x + 70 + k * 15
            filled = k < counts[i]
            c.box((bx, row_y + 1, bx + 12, row_y + 15), fill=STONE_BUILT if filled else None,
                  outline=(150, 130, 90))
        if done:
            c.text((x + 70 + pieces[i] * 15 + 6, row_y + 8), "complete", 10, (30, 130, 60), bold=True, anchor="lm")
    # the mosaic tiles: the top of the stack (on view), how many remain, what was removed
    tx = 900
    c.text((tx, y), "MOSAIC TILES", 11, MUTED, bold=True)
    left = sum(v.in_quarry)
    c.text((tx, y + 20), f"{left} in the quarry; top: {'' if left else 'none'}", 10, INK)
    if v.top_tile is not None:
        draw_shape(c, tx + 140, y + 18, rules, v.top_tile, 0, 10)
        c.text((tx + 200, y + 24), TILE_NAMES[v.top_tile], 12, INK, bold=True)
    known = sorted((t for t in range(NUM_TILES) if v.stack_order[t]), key=lambda t: v.stack_order[t])
    if len(known) > 1:
        c.text((tx, y + 74), "stack order seen: " + " ".join(TILE_NAMES[t] for t in known), 9, MUTED)
    removed = [TILE_NAMES[t] for t in range(NUM_TILES) if v.removed[t]]
    c.text((tx, y + 90), f"removed: {' '.join(removed) or '-'}", 9, MUTED)
    if any(v.last_places):  # the offers are revealed together (rules §10)
        n = v.num_players
        c.text((x, y + 166), "LAST CEREMONY: offer (place)", 11, MUTED, bold=True)
        for p in range(n):
            r = (p - seat) % n
            c.text((x + p * 120, y + 186), f"player_{p}: {v.last_offers[r]} ({v.last_places[r]})", 10,
                   SEAT_COLOURS[p], bold=True)


def _seat_panel(c: Canvas, v: View, own: dict[int, View], p: int, seat: int, mode: str) -> None:
    n = v.num_players
    width = (WIDTH - 16 - (n - 1) * 6) / n
    x0, y0 = 8 + p * (width + 6), SEATS_TOP
    r = (p - seat) % n
    acting = not v.over and r == v.acting
    colour = SEAT_COLOURS[p]
    c.box((x0, y0, x0 + width, y0 + SEAT_HEIGHT), fill=PANEL, outline=HIGHLIGHT if acting else LINE,
          width=4 if acting else 2, radius=6)
    c.box((x0 + 2, y0 + 2, x0 + width - 2, y0 + 8), fill=colour, radius=2)
    you = " (you)" if p == seat and len(own) == 1 else ""
    c.text((x0 + 10, y0 + 14), f"player_{p}{you}", 13, colour, bold=True)
    if r == v.active and not v.over:
        c.text((x0 + width - 8, y0 + 16), "his turn", 9, MUTED, anchor="ra")
    if v.over:
        note = "eaten by the crocodile" if v.eliminated[r] else "WINNER" if v.winners[r] else ""
        c.text((x0 + width - 8, y0 + 16), note, 9, (170, 40, 40) if v.eliminated[r] else (170, 120, 0), bold=True,
               anchor="ra")
    # talents and amulets: hidden from the others (rules §12) except in memory mode and at the end
    mine = own.get(p)
    revealed = mode == "memory" or v.over
    talents = mine.talents[0] if mine is not None else v.talents[r] if revealed else None
    amulets = mine.amulets[0] if mine is not None else v.amulets[r] if revealed else None
    y = y0 + 44
    _coin(c, x0 + 18, y)
    c.text((x0 + 30, y), "?" if talents is None else str(talents), 13, INK, bold=True, anchor="lm")
    c.text((x0 + 18, y + 16), "talents", 8, MUTED, anchor="mm")
    _pyramid(c, x0 + 72, y)
    c.text((x0 + 84, y), "?" if amulets is None else str(amulets), 13, INK, bold=True, anchor="lm")
    c.text((x0 + 74, y + 16), "amulets", 8, MUTED, anchor="mm")
    bx = x0 + 126
    for i in range(v.merchants[r]):
        _boat(c, bx + i * 19, y, colour)
    c.text((bx + 19, y + 16), f"merchants {v.merchants[r]}", 8, MUTED, anchor="mm")
    sx = bx + 66
    for i in range(v.statues[r]):
        _statue(c, sx + i * 15, y - 2, colour, 18)
    c.text((sx + 7, y + 16), f"statues {v.statues[r]}", 8, MUTED, anchor="mm")
    # the hand: his own cards, or the others' backs and what the seat knows of them
    y = y0 + 70
    c.text((x0 + 10, y), f"hand {v.hand_sizes[r]}", 10, MUTED, bold=True)
    if v.sanctuary_squares[r]:
        c.text((x0 + width - 8, y), f"sanctuaries: {v.sanctuary_squares[r]} sq.", 9, MUTED, anchor="ra")
    right = x0 + width - 6
    if mine is not None:
        kinds_row(c, x0 + 10, y + 16, mine.hand, right, rows=2)
    else:
        counts = [0] * (NUM_KINDS + 1)
        counts[FACE_DOWN] = v.hand_sizes[r]
        end = kinds_row(c, x0 + 10, y + 16, counts, right)
        known = v.shown_hands[r - 1] if v.shown[r - 1] else v.known_hands[r - 1]
        if any(known):  # what the seat knows is among those cards
            label = "shown to you:" if v.shown[r - 1] else "of which known:"
            end += c.text((end + 2, y + 16 + MINI[1] / 2), label, 9, MUTED, anchor="lm") + 6
            kinds_row(c, end, y + 16, known, right, rows=2)


def _footer(c: Canvas, v: View, rules: Rules, seat: int) -> None:
    n = v.num_players
    x, y = 20, FOOTER_TOP + 24
    acting = (seat + v.acting) % n

    def name(r: int) -> str:
        return f"player_{(seat + r) % n}"

    if v.over:
        order = sorted(range(n), key=lambda r: (v.eliminated[r], -v.talents[r]))
        c.text((x, y), "Final talents: " + ", ".join(
            f"{name(r)} {v.talents[r]}" + (" (eaten)" if v.eliminated[r] else "") for r in order), 12, INK, bold=True)
        c.text((x, y + 20), "Amulets: " + ", ".join(f"player_{p} {v.amulets[(p - seat) % n]}" for p in range(n)), 11,
               INK)
        return
    c.text((x, y), f"player_{acting}: {PHASES[v.phase].description}", 11, INK)
    y += 20
    if any(v.pool) or any(v.paid) or any(v.built):
        c.text((x, y + 4), "quarry pool:", 10, MUTED)
        px = x + 76
        for u, k in enumerate(v.pool):
            if k:
                c.box((px + 9, y, px + 31, y + 22), fill=UNIT_COLOURS[u], outline=shade(UNIT_COLOURS[u], 0.5),
                      radius=3)
                c.text((px + 20, y + 11), str(k), 11, text_colour(UNIT_COLOURS[u]), bold=True, anchor="mm")
                c.text((px + 20, y + 30), UNITS[u], 8, MUTED, anchor="mm")
                px += 44
        c.text((px + 10, y + 4), "paid:", 10, MUTED)
        end = kinds_row(c, px + 42, y - 4, v.paid, px + 300, (20, 28))
        built = sum(v.built)
        c.text((end + 14, y + 4), f"built this visit: {built}", 10, MUTED)
        y += 36
    if v.refill_cards:
        c.text((x, y + 10), "refill, next card first:", 10, MUTED)
        for i, card in enumerate(v.refill_cards):
            draw_card(c, x + 140 + i * 32, y, card, (26, 36))
        filled = [str(i) for i, f in enumerate(v.refill_filled) if f]
        c.text((x + 250, y + 10), f"stalls filled: {', '.join(filled) or 'none yet'}", 10, MUTED)
    if v.tile is not None:
        c.text((x, y + 10), f"placing tile {TILE_NAMES[v.tile]}", 10, MUTED)
        draw_shape(c, x + 100, y - 2, rules, v.tile, v.orient or 0, 9)
        if v.orient is not None:
            c.text((x + 150, y + 10), f"orientation {v.orient}", 10, MUTED)
    if v.offered_sanctuary:
        c.text((x + 420, y + 10), f"new sanctuary of {len(v.offered_sanctuary)} square(s): a statue on it?", 10,
               MUTED)
    if v.envoy_resource is not None:
        offers = ", ".join(f"{name(r)} {v.envoy_offers[r]}" for r in range(1, n))
        accepting = "" if v.envoy_target is None else \
            f"; accepting from {name(v.envoy_target)} ({v.envoy_accepted[v.envoy_target]} so far)"
        c.text((x, y + 10), f"Envoy asks for {RESOURCES[v.envoy_resource]}; cards offered: {offers}{accepting}", 10,
               MUTED)
    if any(v.vizier_drawn):
        c.text((x, y + 10), f"your Vizier drew (kept {v.vizier_kept}):", 10, MUTED)
        kinds_row(c, x + 190, y, v.vizier_drawn, 1100, (22, 30))
    if any(v.courtesan_discard):
        c.text((x, y + 10), "the discard pile:", 10, MUTED)
        kinds_row(c, x + 110, y, v.courtesan_discard, 1160, (22, 30))
    if v.phase == "ceremony":
        closed = [name(r) for r in range(n) if v.ceremony_closed[r]]
        c.text((x, y + 10), f"offering ceremony: your offer so far {v.ceremony_offer}; closed: "
               f"{', '.join(closed) or 'nobody'}", 10, MUTED)
