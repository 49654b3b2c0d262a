"""Sobek's table drawn as a picture (the ``rgb_array`` render mode, replay GIFs), as one seat sees it.

What is drawn comes from the same places as the text picture (``render.py``): the public table read from
the state (the Nile with characters face down, scores, sets, curses, hand backs, used tokens, the round
summaries, the sub-decision in progress) and the seat's own view (:func:`~.view.view`: his hand and
corruption pile, what he remembers, the tokens he looks through, the pile his Vizier searches). The full
view draws every seat's private part as that seat sees it. Nothing else is read, so a seat's picture
cannot show what it may not see.

Layout, top to bottom: the status bar; the scoring track (0-99 in two rows, as the board's loop, with its
hieroglyphs and a marker per seat); the Nile (positions 0-8, the take window 0-3 marked), the deck, the
round's event tokens and the discarded characters; a panel per seat (score, hand, corruption pile,
curses, sets); what is being decided and the scored rounds.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np

from ..picture import HIGHLIGHT, INK, LINE, MUTED, PANEL, PAPER, SEAT_COLOURS, WHITE, Canvas, shade, text_colour
from .catalogue import (
    AMULET,
    BACKS,
    CHARACTERS,
    FACE_UP_ON_NILE,
    FIRST_CHARACTER,
    GOODS,
    HIEROGLYPHS,
    KIND_BACK,
    NUM_KINDS,
    PLAIN,
    ROUNDS,
    SCARAB,
    SET_SLOTS,
    START,
    TAKE_WINDOW,
    TOKENS,
    Rules,
    symbol_at,
)
from .phases import TURN_START, BuildSet, CourtesanCard, Guild, HorizontalSet
from .scoring import TableSet, scarabs_of, vertical_value
from .view import View, chooses_token, knows_tokens, searched_pile, view

if TYPE_CHECKING:  # for the annotations only: the state's module reaches this one through the game
    from .state import GameState

# The colour of each goods' cards (and of the amulet), of each back, and of each event token.
GOODS_COLOURS = {
    "ivory": (238, 228, 196), "ebony": (74, 52, 40), "marble": (176, 184, 198),
    "cattle": (178, 92, 52), "fish": (62, 132, 196), "wheat": (228, 184, 60), "amulet": (38, 164, 152),
}
BACK_COLOURS = {"green": (84, 150, 72), "beige": (214, 194, 150), "orange": (232, 128, 38)}
TOKEN_COLOURS = {
    "guild": (212, 170, 40), "flood": (52, 120, 200), "curse": (110, 40, 120), "prosperity": (40, 150, 80),
    "embalming": (140, 100, 60), "deceit": (90, 90, 90),
}
CHARACTER_MARKS = {  # the letters on a character card
    "queen": "Q", "vizier": "V", "merchant": "M", "high-priest": "HP", "thief": "T",
    "high-priestess": "HS", "scribe-fish": "S", "scribe-wheat": "S", "courtesan": "C",
}
TOKEN_LABELS = {
    "guild-ankh": "ankh", "guild-eye": "eye", "guild-feather": "feather", "guild-lotus": "lotus",
    "flood": "flood", "curse": "curse", "prosperity": "prosp.", "embalming": "embalm", "deceit": "deceit",
}

# how a player sorts cards: goods by goods (start, plain, scarab cards), then amulets, then characters
HAND_ORDER = (*(k for g in range(len(GOODS)) for k in (START[g], PLAIN[g], SCARAB[g])), AMULET,
              *range(FIRST_CHARACTER, NUM_KINDS))

WIDTH = 1180
TRACK_TOP, NILE_TOP, SEATS_TOP = 44, 132, 290
NILE_HEIGHT = 152
SEAT_HEIGHT, SEAT_GAP, FOOTER_HEIGHT = 140, 6, 112
TRACK_SPACES, TRACK_ROW = 100, 50      # the board's loop of 100 spaces, drawn as two rows
MINI = (26, 36)                        # a card in a hand, a pile or a set
NILE_CARD = (70, 100)
MAX_SCARAB_DOTS = 3                    # a card with more scarabs shows their number


def frame_size(num_players: int) -> tuple[int, int]:
    """(height, width) of every picture of a ``num_players`` game."""
    return SEATS_TOP + num_players * (SEAT_HEIGHT + SEAT_GAP) + FOOTER_HEIGHT, WIDTH


def picture(s: GameState, seat: int | None = None, memory: bool = False, full: bool = False) -> np.ndarray:
    """The table as ``seat`` sees it (default: the player to move), or with ``full`` every seat's hand and
    pile as its owner sees them: an (H, W, 3) uint8 array of :func:`frame_size`."""
    n = s.rules.num_players
    seat = s.current_player if seat is None else seat
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
        raise ValueError(f"seat must be a seat of this {n}-player game (0 to {n - 1}), got {seat!r}")
    canvas = Canvas(_background(n).copy())
    mode = "memory" if memory else "original"
    views = {p: view(s, p, mode) for p in range(n)} if full else {seat: view(s, seat, mode)}
    _status(canvas, s, seat, full)
    _markers(canvas, s)
    _nile(canvas, s)
    for p in range(n):
        _seat_panel(canvas, s, p, views, seat, memory, SEATS_TOP + p * (SEAT_HEIGHT + SEAT_GAP))
    _footer(canvas, s, views, seat, memory, canvas.height - FOOTER_HEIGHT)
    return canvas.array()


@cache
def _background(n: int) -> Any:
    """What every picture of an ``n``-player game shares (the track, the frames of the panels), drawn once."""
    height, width = frame_size(n)
    c = Canvas.blank(width, height, PAPER)
    c.box((0, 0, c.width, 38), fill=(60, 48, 36))
    c.text((14, 19), "SOBEK", 18, (240, 210, 120), bold=True, anchor="lm")
    _track(c)
    c.panel((8, NILE_TOP, c.width - 8, NILE_TOP + NILE_HEIGHT), "", (120, 170, 210), (222, 234, 240))
    c.text((16, NILE_TOP + 3), "THE NILE (position 0 nearest the 0 space)", 10, (60, 100, 140), bold=True)
    for p in range(n):
        top = SEATS_TOP + p * (SEAT_HEIGHT + SEAT_GAP)
        c.box((8, top, c.width - 8, top + SEAT_HEIGHT), fill=PANEL, outline=LINE, width=2, radius=6)
        c.box((10, top + 2, 20, top + SEAT_HEIGHT - 2), fill=SEAT_COLOURS[p], radius=3)
    top = height - FOOTER_HEIGHT
    c.panel((8, top + 4, 700, top + FOOTER_HEIGHT - 6), "NOW")
    c.panel((708, top + 4, c.width - 8, top + FOOTER_HEIGHT - 6), "SCORED ROUNDS: points / corruption / penalty")
    return c.image


# ---------------------------------------------------------------------- cards, tokens and hieroglyphs


def card_colour(kind: int, rules: Rules) -> tuple[int, int, int]:
    """The face colour of a card kind: its goods' colour, the amulet's, or a character's orange."""
    if kind == AMULET:
        return GOODS_COLOURS["amulet"]
    if kind >= FIRST_CHARACTER:
        return BACK_COLOURS["orange"]
    return GOODS_COLOURS[GOODS[rules.kind_goods[kind]]]


def draw_card(c: Canvas, x: float, y: float, kind: int, rules: Rules, size: tuple[int, int] = MINI,
              count: int = 1) -> None:
    """A card face up: goods colour, its scarabs as dots, a green corner for a start card, a character's
    letters over its family's colour, an ankh for the amulet; a badge with ``count`` if more than one."""
    w, h = size
    big = w >= NILE_CARD[0]
    colour = card_colour(kind, rules)
    c.box((x, y, x + w, y + h), fill=colour, outline=shade(colour, 0.55), width=1, radius=3)
    ink = text_colour(colour)
    if kind >= FIRST_CHARACTER:
        family = GOODS_COLOURS[GOODS[rules.kind_goods[kind]]]
        c.box((x + 2, y + h - (14 if big else 8), x + w - 2, y + h - 2), fill=family, radius=2)
        name = CHARACTERS[kind - FIRST_CHARACTER]
        c.text((x + w / 2, y + h * 0.42), CHARACTER_MARKS[name], 22 if big else 11, ink, bold=True, anchor="mm")
        if big:
            c.text((x + w / 2, y + 6), name, 9, ink, anchor="ma")
    elif kind == AMULET:
        _ankh(c, x + w / 2, y + h * 0.48, h * 0.5, ink)
        if big:
            c.text((x + w / 2, y + 6), "amulet", 10, ink, anchor="ma")
    else:
        scarabs = rules.kind_scarabs[kind]
        if big:
            c.text((x + w / 2, y + 6), GOODS[rules.kind_goods[kind]], 11, ink, bold=True, anchor="ma")
        if scarabs > MAX_SCARAB_DOTS:  # more than dots can show (the rules option allows up to 9)
            c.text((x + (w / 2 if big else 8), y + h * (0.58 if big else 0.3)), str(scarabs), 18 if big else 10, ink,
                   bold=True, anchor="mm")
        elif big:
            for i in range(scarabs):
                _scarab(c, x + w / 2 + (i - (scarabs - 1) / 2) * 18, y + h * 0.58, 7, ink)
        else:  # a column at the left edge, so that a fanned set still shows every card's scarabs
            for i in range(scarabs):
                _scarab(c, x + 7, y + 8 + i * 9, 3.4, ink)
        if kind in START:
            c.draw.polygon([(x + w, y + h), (x + w - w * 0.45, y + h), (x + w, y + h - w * 0.45)],
                           fill=BACK_COLOURS["green"])
    if count > 1:
        c.badge((x + w - 2, y + 3), str(count), INK, 9)


def draw_back(c: Canvas, x: float, y: float, back: int, size: tuple[int, int] = MINI, count: int = 1,
              label: str = "") -> None:
    """A card face down: its back's colour with a diamond; ``count`` in a badge, ``label`` across it."""
    w, h = size
    colour = BACK_COLOURS[BACKS[back]]
    c.box((x, y, x + w, y + h), fill=colour, outline=shade(colour, 0.55), width=1, radius=3)
    cx, cy, r = x + w / 2, y + h / 2, min(w, h) * 0.28
    c.draw.polygon([(cx, cy - r), (cx + r * 0.7, cy), (cx, cy + r), (cx - r * 0.7, cy)], outline=shade(colour, 0.7),
                   width=2)
    if label:
        c.text((cx, y + h - 8), label, 9, text_colour(colour), anchor="mm")
    if count > 1:
        c.badge((x + w - 2, y + 3), str(count), INK, 9)


def _scarab(c: Canvas, cx: float, cy: float, r: float, ink: tuple[int, int, int]) -> None:
    c.draw.ellipse((cx - r * 0.8, cy - r, cx + r * 0.8, cy + r), fill=ink)
    c.draw.line((cx, cy - r, cx, cy + r), fill=shade(ink, 1.6) if ink == INK else (120, 120, 120), width=1)


def _ankh(c: Canvas, cx: float, cy: float, h: float, ink: tuple[int, int, int]) -> None:
    w = max(1, int(h / 9))
    c.draw.ellipse((cx - h * 0.16, cy - h * 0.5, cx + h * 0.16, cy - h * 0.1), outline=ink, width=w)
    c.draw.line((cx, cy - h * 0.1, cx, cy + h * 0.5), fill=ink, width=w)
    c.draw.line((cx - h * 0.28, cy, cx + h * 0.28, cy), fill=ink, width=w)


def hieroglyph(c: Canvas, symbol: int, cx: float, cy: float, r: float, ink: tuple[int, int, int] = INK) -> None:
    """The four symbols of the track: ankh, eye, feather, lotus (rules §1.3), drawn small."""
    name = HIEROGLYPHS[symbol]
    if name == "ankh":
        _ankh(c, cx, cy, 2 * r, ink)
    elif name == "eye":
        c.draw.chord((cx - r, cy - r * 0.9, cx + r, cy + r * 0.5), 180, 360, outline=ink, width=1)
        c.draw.chord((cx - r, cy - r * 0.5, cx + r, cy + r * 0.9), 0, 180, outline=ink, width=1)
        c.disc((cx, cy), r * 0.3, ink)
    elif name == "feather":
        c.draw.ellipse((cx - r * 0.35, cy - r, cx + r * 0.35, cy + r * 0.8), outline=ink, width=1)
        c.draw.line((cx, cy - r * 0.6, cx, cy + r), fill=ink, width=1)
    else:  # lotus: three petals
        for dx in (-0.55, 0.0, 0.55):
            c.draw.ellipse((cx + dx * r - r * 0.28, cy - r * (0.9 if dx == 0 else 0.55), cx + dx * r + r * 0.28,
                            cy + r * 0.5), outline=ink, width=1)
        c.draw.line((cx - r * 0.8, cy + r * 0.55, cx + r * 0.8, cy + r * 0.55), fill=ink, width=1)


def draw_token(c: Canvas, cx: float, cy: float, token: int | None, r: float = 13, count: int = 1,
               label: bool = True) -> None:
    """An event token face up (its colour, a hieroglyph for a Guild, a short word under it), or face down
    (``token`` None)."""
    if token is None:
        c.disc((cx, cy), r, (60, 52, 44), (30, 26, 22), 2)
        c.text((cx, cy), "?", 13, (230, 220, 200), bold=True, anchor="mm")
    else:
        name = TOKENS[token]
        colour = TOKEN_COLOURS[name.partition("-")[0]]
        c.disc((cx, cy), r, colour, shade(colour, 0.6), 2)
        ink = text_colour(colour)
        if name.startswith("guild"):
            hieroglyph(c, HIEROGLYPHS.index(name.partition("-")[2]), cx, cy, r * 0.6, ink)
        else:
            c.text((cx, cy), {"flood": "~", "curse": "x", "prosperity": "+2", "embalming": "E", "deceit": "D"}[name],
                   12, ink, bold=True, anchor="mm")
        if label:
            c.text((cx, cy + r + 7), TOKEN_LABELS[name], 9, INK, anchor="mm")
    if count > 1:
        c.badge((cx + r - 2, cy - r + 2), str(count), INK, 9)


def kinds_row(c: Canvas, x: float, y: float, counts: list[int], rules: Rules, right: float,
              size: tuple[int, int] = MINI) -> float:
    """Cards by kind from ``x`` (one card per kind, a badge for the count) up to ``right``; where it ended.
    Kinds that do not fit are summed in a ``+k`` note."""
    step = size[0] + 5
    shown = [k for k in HAND_ORDER if counts[k]]
    room = max(0, int((right - x) // step))
    if len(shown) > room:
        room = max(0, room - 1)
    for k in shown[:room]:
        draw_card(c, x, y, k, rules, size, counts[k])
        x += step
    rest = sum(counts[k] for k in shown[room:])
    if rest:
        x += c.text((x, y + size[1] / 2), f"+{rest}", 11, MUTED, anchor="lm") + 6
    return x


# ---------------------------------------------------------------------- the parts of the table


def _status(c: Canvas, s: GameState, seat: int, full: bool) -> None:
    n = s.rules.num_players
    c.text((92, 19), f"round {s.round} of {ROUNDS} - {n} players", 13, WHITE, anchor="lm")
    who = "full view (every hand open)" if full else f"as player_{seat} sees it"
    right = c.width - 14 - c.text((c.width - 14, 19), who, 12, (220, 210, 190), anchor="rm") - 16
    if s.over:
        best = ", ".join(f"player_{p}" for p in s.winners)
        text, colour = f"Game over - winner{'s' if len(s.winners) > 1 else ''}: {best}", HIGHLIGHT
        c.text((330, 19), text, 14, colour, bold=True, anchor="lm")
        return
    mover = s.current_player
    c.disc((340, 19), 8, SEAT_COLOURS[mover], WHITE, 2)
    what = (s.pending or TURN_START).description
    c.text((354, 19), c.fit(f"player_{mover} to move: {what}", right - 354, 12, True), 12, WHITE, bold=True,
           anchor="lm")


TRACK_LEFT, TRACK_SPACE, TRACK_ROW_HEIGHT = 44, 22, 38


def _track(c: Canvas) -> None:
    """The scoring track 0-99 as two rows of 50 spaces: numbers every 5, hieroglyphs between (rules §1.3)."""
    c.text((10, TRACK_TOP + 12), "score", 10, MUTED, anchor="lm")
    for pos in range(TRACK_SPACES):
        x, y = _space(pos)
        numbered = pos % 5 == 0
        c.box((x, y, x + TRACK_SPACE - 1, y + 24), fill=(226, 212, 180) if numbered else (244, 236, 216),
              outline=LINE)
        if numbered:
            c.text((x + TRACK_SPACE / 2, y + 12), str(pos), 9, INK, bold=True, anchor="mm")
        else:
            hieroglyph(c, symbol_at(pos), x + TRACK_SPACE / 2, y + 12, 6, (110, 90, 60))


def _space(pos: int) -> tuple[int, int]:
    row, col = divmod(pos, TRACK_ROW)
    return TRACK_LEFT + col * TRACK_SPACE, TRACK_TOP + row * TRACK_ROW_HEIGHT


def _markers(c: Canvas, s: GameState) -> None:
    """A marker per seat under its space; a score of 100 or more stands on its space minus 100 (the board's
    "0 counts as 100") with a ring round the marker."""
    at: dict[int, list[int]] = {}
    for p, score in enumerate(s.markers):
        at.setdefault(score % TRACK_SPACES, []).append(p)
    for pos, seats in at.items():
        x, y = _space(pos)
        for i, p in enumerate(seats):
            cx = x + TRACK_SPACE / 2 + (i - (len(seats) - 1) / 2) * 10
            c.disc((cx, y + 31), 6, SEAT_COLOURS[p], WHITE, 1)
            if s.markers[p] >= TRACK_SPACES:
                c.disc((cx, y + 31), 9, None, SEAT_COLOURS[p], 2)


def _nile(c: Canvas, s: GameState) -> None:
    top = NILE_TOP
    w, h = NILE_CARD
    x0, gap = 22, 8
    reach = min(TAKE_WINDOW, len(s.nile))
    if reach:  # rules §3: only positions 0-3 may be taken
        x1 = x0 + reach * (w + gap) - gap
        c.box((x0 - 5, top + 16, x1 + 5, top + 148), fill=(196, 220, 236), outline=(60, 110, 170), width=2,
              radius=5)
        c.text(((x0 + x1) / 2, top + 140), "take window", 10, (40, 90, 150), bold=True, anchor="mm")
    for i in range(9):
        x = x0 + i * (w + gap)
        if i < len(s.nile):
            if FACE_UP_ON_NILE[s.nile[i]]:  # rules §5: characters lie face down
                draw_card(c, x, top + 20, s.nile[i], s.rules, NILE_CARD)
            else:
                draw_back(c, x, top + 20, KIND_BACK[s.nile[i]], NILE_CARD, label="character")
        else:
            c.box((x, top + 20, x + w, top + 20 + h), outline=(170, 196, 214), width=1, radius=3)
        c.text((x + w / 2, top + 20 + h + 7), str(i), 10, INK, anchor="mm")
    # the deck
    x = x0 + 9 * (w + gap) + 10
    for i in range(3, 0, -1):
        c.box((x + 2 * i, top + 20 - 2 * i, x + 2 * i + 56, top + 100 - 2 * i), fill=BACK_COLOURS["beige"],
              outline=shade(BACK_COLOURS["beige"], 0.6), radius=3)
    c.box((x, top + 20, x + 56, top + 100), fill=BACK_COLOURS["beige"], outline=shade(BACK_COLOURS["beige"], 0.6),
          radius=3)
    c.text((x + 28, top + 52), str(len(s.deck)), 18, INK, bold=True, anchor="mm")
    c.text((x + 28, top + 76), "deck", 10, INK, anchor="mm")
    # the round's event tokens: face down, then used
    x = x0 + 9 * (w + gap) + 90
    c.text((x, top + 8), "event tokens", 10, MUTED, bold=True)
    down = sum(s.tokens)
    for i in range(down):
        draw_token(c, x + 14 + i * 30, top + 40, None)
    used = [(t, k) for t, k in enumerate(s.used_tokens) if k]
    for i, (t, k) in enumerate(used):  # wider apart: their names are under them
        draw_token(c, x + 14 + down * 30 + i * 40, top + 40, t, count=k)
    c.text((x, top + 70), "played characters", 10, MUTED, bold=True)
    kinds_row(c, x, top + 86, [v if k >= FIRST_CHARACTER else 0 for k, v in enumerate(s.discard)], s.rules,
              c.width - 14, (20, 28))


def _seat_panel(c: Canvas, s: GameState, p: int, views: dict[int, View], seat: int, memory: bool,
                top: int) -> None:
    rules = s.rules
    relative, viewer = (p - seat) % s.rules.num_players, views[seat]  # p's seat in the viewer's View
    colour = SEAT_COLOURS[p]
    acting = p == s.current_player and not s.over
    if acting:
        c.box((8, top, c.width - 8, top + SEAT_HEIGHT), outline=HIGHLIGHT, width=4, radius=6)
    name = f"player_{p}" + (" (you)" if p == seat and len(views) == 1 else "")
    c.text((30, top + 8), name, 14, colour, bold=True)
    if p == s.first_player and not s.over:
        c.text((30, top + 27), "first player", 9, MUTED)
    if s.over and p in s.winners:
        c.text((30, top + 27), "WINNER", 11, (170, 120, 0), bold=True)
    c.text((30, top + 46), f"{s.markers[p]}", 24, INK, bold=True)
    c.text((30, top + 74), "points", 9, MUTED)
    own = views.get(p)
    pile = sum(own.pile) if own is not None else sum(viewer.pile_backs[relative]) if memory else None
    # the corruption pile: a face-down stack, its size when the seat may know it (rules §10)
    c.box((96, top + 44, 126, top + 84), fill=(90, 70, 60), outline=(40, 30, 25), radius=3)
    c.text((111, top + 64), "?" if pile is None else str(pile), 13, WHITE, bold=True, anchor="mm")
    c.text((111, top + 92), "corruption", 9, MUTED, anchor="mm")
    for i in range(s.curses[p]):
        draw_token(c, 150, top + 56 + i * 30, TOKENS.index("curse"), r=10)
    # the hand
    x, y = 196, top + 8
    backs = s.hand_backs(p)
    c.text((x, y), f"hand {sum(backs)}", 10, MUTED, bold=True)
    if own is not None:
        kinds_row(c, x + 52, y, own.hand, rules, 700)
    else:
        end = x + 52
        for b, k in enumerate(backs):
            if k:
                draw_back(c, end, y, b, count=k)
                end += MINI[0] + 5
        if memory and any(viewer.known_hands[relative - 1]):  # a row per opponent (rules §10, memory mode)
            end += c.text((end + 4, y + 18), "remembered:", 9, MUTED, anchor="lm") + 10
            end = kinds_row(c, end, y, viewer.known_hands[relative - 1], rules, 700)
    # the corruption pile's cards, where the seat sees or remembers them
    x = 712
    if own is not None:
        c.text((x, y), "in corruption pile", 10, MUTED, bold=True)
        kinds_row(c, x + 125, y, own.pile, rules, c.width - 16)
    elif memory:
        c.text((x, y), "remembered in pile", 10, MUTED, bold=True)
        kinds_row(c, x + 125, y, viewer.known_piles[relative - 1], rules, c.width - 16)
    # the sets on the table
    y = top + 56
    c.text((196, y), "sets", 10, MUTED, bold=True)
    x = 248
    sets = [(slot, t.cards, t.prosperity, False) for slot, t in enumerate(s.sets[p]) if t is not None]
    sets += [(slot, cards, 0, True) for slot, cards in s.horizontal[p]]
    if not sets:
        c.text((x, y + 18), "none", 10, MUTED, anchor="lm")
    for slot, cards, prosperity, horizontal in sets:
        x = _set(c, x, y, slot, cards, prosperity, horizontal, rules) + 14
        if x > c.width - 60:
            break


def _set(c: Canvas, x: float, y: float, slot: int, cards: list[int], prosperity: int, horizontal: bool,
         rules: Rules) -> float:
    """One set as a fan of its cards with its worth under it; where it ends."""
    kinds = [k for k in HAND_ORDER for _ in range(cards[k])]
    total = len(kinds)
    step = min(14, 84 / max(1, total - 1))
    for i, k in enumerate(kinds):
        draw_card(c, x + i * step, y, k, rules)
    end = x + (total - 1) * step + MINI[0]
    for i in range(prosperity):
        draw_token(c, end + 10, y + 8 + i * 20, TOKENS.index("prosperity"), r=8, label=False)
    end += 20 if prosperity else 0
    scarabs = scarabs_of(cards, rules)
    if horizontal:
        caption = f"horizontal: {scarabs} pts"
    else:
        caption = f"{total} cards x {scarabs + 2 * prosperity} = {vertical_value(TableSet(cards, prosperity), rules)}"
    name = "amulets" if SET_SLOTS[slot] == "amulet" else SET_SLOTS[slot]
    c.text((x, y + MINI[1] + 4), name, 9, INK, bold=True)
    width = c.text((x, y + MINI[1] + 16), caption, 9, MUTED)
    return max(end, x + width, x + c.width_of(name, 9, True))


def _footer(c: Canvas, s: GameState, views: dict[int, View], seat: int, memory: bool, top: int) -> None:
    rules, n = s.rules, s.rules.num_players
    x, y = 20, top + 24
    if s.over:
        order = sorted(range(n), key=lambda p: -s.markers[p])
        c.text((x, y), "Final scores: " + ", ".join(f"player_{p} {s.markers[p]}" for p in order), 12, INK, bold=True)
    else:
        what = (s.pending or TURN_START).description
        c.text((x, y), c.fit(f"player_{s.current_player}: {what}", 670, 11), 11, INK)
    y += 20
    pending = s.pending
    viewer = views[seat]
    if isinstance(pending, (BuildSet, HorizontalSet)):
        c.text((x, y + 16), f"laying {SET_SLOTS[pending.goods]}:", 10, MUTED, anchor="lm")
        kinds_row(c, x + 110, y, pending.cards, rules, 690)
    elif isinstance(pending, CourtesanCard):
        c.text((x, y + 16), f"Courtesan, onto {SET_SLOTS[pending.slot]}:", 10, MUTED, anchor="lm")
        kinds_row(c, x + 150, y, pending.cards, rules, 690)
    elif isinstance(pending, Guild):
        c.text((x, y + 16), "Guild of the", 10, MUTED, anchor="lm")
        hieroglyph(c, pending.symbol, x + 82, y + 16, 8)
        c.text((x + 96, y + 16), f"{HIEROGLYPHS[pending.symbol]}: an opponent moves back", 10, MUTED, anchor="lm")
    if chooses_token(s, seat):
        c.text((x, y + 16), "tokens to choose from:", 10, MUTED, anchor="lm")
        _tokens(c, x + 150, y + 12, viewer.token_choice)
    elif knows_tokens(s, seat, memory) and len(views) == 1:
        c.text((x, y + 16), "face-down tokens you know:", 10, MUTED, anchor="lm")
        _tokens(c, x + 170, y + 12, viewer.tokens_known or [])
    searched = searched_pile(s, seat)
    if searched is not None:
        c.text((x + 330, y + 16), f"player_{searched}'s pile:", 10, MUTED, anchor="lm")
        kinds_row(c, x + 440, y, viewer.vizier_pile, rules, 690)
    _rounds(c, s, top)


def _tokens(c: Canvas, x: float, y: float, counts: list[int]) -> None:
    for t, k in enumerate(counts):
        if k:
            draw_token(c, x, y, t, r=11, count=k)
            x += 40


def _rounds(c: Canvas, s: GameState, top: int) -> None:
    """The scored rounds (public, rules §10): each seat's round points, corruption and penalty, the most
    corrupt marked."""
    n = s.rules.num_players
    x0, y0, col = 790, top + 24, (c.width - 8 - 790) / n
    for p in range(n):
        c.text((x0 + p * col + col / 2, y0), f"player_{p}", 10, SEAT_COLOURS[p], bold=True, anchor="ma")
    if not s.round_log:
        c.text((720, y0 + 24), "no round scored yet", 10, MUTED)
    for r, entry in enumerate(s.round_log):
        y = y0 + 18 + r * 18
        c.text((720, y), f"round {entry['round']}", 10, INK)
        for p in range(n):
            penalty = f" / -{entry['penalty'][p]}" if entry["penalty"][p] else ""
            text = f"+{entry['points'][p]} / {entry['corruption'][p]}{penalty}"
            corrupt = p in entry["most_corrupt"]
            c.text((x0 + p * col + col / 2, y), text, 10, (170, 40, 40) if corrupt else INK, bold=corrupt, anchor="ma")
