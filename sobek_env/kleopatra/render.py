"""A readable text picture of the table, drawn from one seat's :class:`~.view.View` (so it shows only what
that seat may see, rules §12): the market, the garden as an 8 x 8 grid with its walls, gate, sphinx alley,
obelisks, pedestal and throne, Cleopatra and the altar, the seat's own hand and pyramid, the opponents'
public facts, and what is being decided with the legal actions by name."""

from __future__ import annotations

from .actions import ACTION_NAMES, BUILDS
from .catalogue import (
    CATEGORIES,
    CLEOPATRA_END,
    DICE,
    KINDS,
    NUM_KINDS,
    NUM_WALL_SLOTS,
    OBELISK_PIECES,
    RESOURCES,
    SPHINX_PIECES,
    TILE_NAMES,
    UNITS,
    Rules,
)
from .palace import orient_cells
from .state import GameState
from .view import EMPTY, FACE_DOWN, View, view


def _cards(counts: list[int]) -> str:
    parts = [f"{c}x {KINDS[k]}" if c > 1 else KINDS[k] for k, c in enumerate(counts[:NUM_KINDS]) if c]
    return ", ".join(parts) if parts else "-"


def _seat_name(v: View, rel: int, seat: int) -> str:
    return "you" if rel == 0 else f"player_{(seat + rel) % v.num_players}"


def wall_sides(rules: Rules) -> list[str | None]:
    """Per wall slot, the edge of the garden it runs along (left, back, right), if it lies on one."""
    size = rules.garden_size
    sides: list[str | None] = []
    for slot in rules.wall_slots:
        xs, ys = {sq % 8 for sq in slot}, {sq // 8 for sq in slot}
        if slot and xs == {0}:
            sides.append("left")
        elif slot and xs == {size - 1}:
            sides.append("right")
        elif slot and ys == {size - 1}:
            sides.append("back")
        else:
            sides.append(None)
    return sides


def wall_edges(rules: Rules) -> tuple[dict[int, int], dict[int, int], dict[int, int]]:
    """The wall slot beside each garden row on the left and on the right, and beside each column at
    the back: three maps from the row (or column) to the slot's index."""
    left: dict[int, int] = {}
    right: dict[int, int] = {}
    back: dict[int, int] = {}
    for k, side in enumerate(wall_sides(rules)):
        for sq in rules.wall_slots[k]:
            if side == "left":
                left[sq // 8] = k
            elif side == "right":
                right[sq // 8] = k
            elif side == "back":
                back[sq % 8] = k
    return left, right, back


def garden_lines(v: View, rules: Rules, seat: int) -> list[str]:
    """The garden as a grid, back row on top: tile letters, ``^`` palms, sanctuaries as the owner's seat
    number (``*`` unclaimed), walls ``#`` built and ``:`` empty slots, the gate at the front."""
    size = rules.garden_size
    cell = {}
    for t, anchor in enumerate(v.tile_anchor):
        if anchor is None:
            continue
        shape = orient_cells(rules.tiles[t], v.tile_orient[t])
        ax, ay = shape[0]
        for x, y in shape:
            cell[anchor + (x - ax) + 8 * (y - ay)] = TILE_NAMES[t]
    owner = {}
    for rel, squares in enumerate(v.owned):
        for sq in squares:
            owner[sq] = str((seat + rel) % v.num_players)
    left, right, back = ({at: "#" if v.walls[k] else ":" for at, k in edge.items()} for edge in wall_edges(rules))
    palms = set(v.palms)
    sanctuaries = set(v.sanctuaries)
    lines = ["      " + " ".join(back.get(x, " ") for x in range(size)) + "      (back: the throne side)"]
    for y in range(size - 1, -1, -1):
        row = []
        for x in range(size):
            sq = 8 * y + x
            row.append(cell.get(sq) or owner.get(sq) or ("*" if sq in sanctuaries else "^" if sq in palms else "."))
        lines.append(f"  y={y} {left.get(y, ' ')} {' '.join(row)} {right.get(y, ' ')}")
    gate = f"[{'GATE-L' if v.gate[0] else 'gate-l'}]" + " " * max(1, 2 * size - 15) + \
           f"[{'GATE-R' if v.gate[1] else 'gate-r'}]"
    lines.append(f"        {gate}")
    lines.append("        x: " + " ".join(str(x) for x in range(size)))
    sphinx = " ".join(f"S{i + 1}" if i < v.sphinxes else "." for i in range(SPHINX_PIECES))
    obelisk = " ".join(f"O{i + 1}" if i < v.obelisks else "." for i in range(OBELISK_PIECES))
    lines.append(f"  Sphinx alley: {sphinx}   Obelisks: {obelisk}   "
                 f"Pedestal: {'built' if v.pedestal else '-'}   Throne: {'built' if v.throne else '-'}")
    walls = " ".join(f"W{k + 1}{'#' if v.walls[k] else ':'}" for k in range(NUM_WALL_SLOTS))
    lines.append(f"  Walls: {walls}")
    return lines


def render_view(v: View, rules: Rules, seat: int, legal: list[int]) -> str:
    """The text picture of ``v`` (seen by absolute ``seat``); ``legal`` is listed when he acts."""
    n = v.num_players
    who = _seat_name(v, v.acting, seat)
    if v.over:
        winners = [_seat_name(v, r, seat) for r in range(n) if v.winners[r]]
        eaten = [_seat_name(v, r, seat) for r in range(n) if v.eliminated[r]]
        status = f"game over; winners: {', '.join(winners)}; eaten by the crocodile: {', '.join(eaten) or 'nobody'}"
    else:
        turn = "your turn" if v.active == 0 else f"{_seat_name(v, v.active, seat)}'s turn"
        status = f"{who} to act ({v.phase}), {turn}"
    lines = [f"Kleopatra, turn {v.turn}/{rules.max_turns}, {n} players, seen by player_{seat}: {status}"]
    steps = "-".join(f"[{i}]" if i == v.cleopatra else str(i) for i in range(CLEOPATRA_END + 1))
    lines.append(f"Cleopatra: {steps}   Altar: {'@' * v.altar}{'o' * (DICE - v.altar)} ({v.altar}/{DICE})   "
                 f"Complete: {', '.join(c for c, done in zip(CATEGORIES, v.complete) if done) or '-'}")
    stalls = []
    for i, row in enumerate(v.stalls):
        down = f", {row[FACE_DOWN]} face down" if row[FACE_DOWN] else ""
        stalls.append(f"[{i}] {_cards(row)}{down}")
    lines.append("Market: " + "   ".join(stalls))
    top = "empty" if v.deck_top == EMPTY else "face down" if v.deck_top == FACE_DOWN else KINDS[v.deck_top]
    lines.append(f"Deck: {v.deck_size} cards, top {top}   Discard: {v.discard_size} cards")
    left = [TILE_NAMES[t] for t in sorted(range(len(v.in_quarry)), key=lambda t: v.stack_order[t] or 99)
            if v.in_quarry[t]]
    known = [TILE_NAMES[t] for t in sorted((t for t in range(len(v.stack_order)) if v.stack_order[t]),
                                           key=lambda t: v.stack_order[t])]
    lines.append(f"Mosaics in the quarry: {', '.join(left) or '-'}; top: "
                 f"{TILE_NAMES[v.top_tile] if v.top_tile is not None else '-'}"
                 + (f"; stack order seen: {' '.join(known)}" if len(known) > 1 else "")
                 + f"; removed: {', '.join(TILE_NAMES[t] for t, r in enumerate(v.removed) if r) or '-'}")
    lines.append("Palace and garden (tiles by letter, ^ palm, sanctuaries by owner's seat or * unclaimed, "
                 "walls # built : empty):")
    lines += garden_lines(v, rules, seat)
    lines.append(f"You (player_{seat}): hand {v.hand_sizes[0]}: {_cards(v.hand)}")
    lines.append(f"    talents {v.talents[0]}, amulets {v.amulets[0]}, merchants {v.merchants[0]}, "
                 f"statues {v.statues[0]}, sanctuary squares {v.sanctuary_squares[0]}")
    for r in range(1, n):
        text = (f"player_{(seat + r) % n}: {v.hand_sizes[r]} cards, merchants {v.merchants[r]}, "
                f"statues {v.statues[r]}, sanctuary squares {v.sanctuary_squares[r]}")
        if v.talents[r] or v.amulets[r] or v.over or any(v.known_hands[r - 1]):
            text += f", talents {v.talents[r]}, amulets {v.amulets[r]}"
        if any(v.known_hands[r - 1]):
            text += f"; known in hand: {_cards(v.known_hands[r - 1])}"
        if v.shown[r - 1]:
            text += f"; showed you: {_cards(v.shown_hands[r - 1])}"
        lines.append(text)
    if any(v.known_discard):
        lines.append(f"Known in the discard pile: {_cards(v.known_discard)}")
    if any(v.last_places):
        lines.append("Last ceremony: " + ", ".join(f"{_seat_name(v, r, seat)} offered {v.last_offers[r]} "
                                                   f"(place {v.last_places[r]})" for r in range(n)))
    lines += _context(v, seat)
    if legal:
        lines.append("Legal: " + ", ".join(ACTION_NAMES[a] for a in legal))
    return "\n".join(lines)


def _context(v: View, seat: int) -> list[str]:
    """What is being decided, as far as ``seat`` may see it."""
    out = []
    if any(v.pool) or any(v.paid) or any(v.built):
        built = [ACTION_NAMES[BUILDS[0] + i] + (f" x{c}" if c > 1 else "") for i, c in enumerate(v.built) if c]
        pool = ", ".join(f"{c} {UNITS[u]}" for u, c in enumerate(v.pool) if c) or "empty"
        out.append(f"Quarry visit: pool {pool}; paid {_cards(v.paid)}; built {', '.join(built) or 'nothing yet'}")
    if v.refill_cards:
        cards = ["face down" if c == FACE_DOWN else KINDS[c] for c in v.refill_cards]
        out.append(f"Refill: next {cards[0]}, then {', '.join(cards[1:]) or 'nothing'}; "
                   f"stalls filled: {[i for i, f in enumerate(v.refill_filled) if f]}")
    if v.tile is not None:
        out.append(f"Placing tile {TILE_NAMES[v.tile]}" + (f", orientation {v.orient}" if v.orient is not None else ""))
    if v.offered_sanctuary:
        out.append(f"New sanctuary on squares {v.offered_sanctuary}: put a statue of Anubis on it?")
    if v.envoy_resource is not None:
        offers = ", ".join(f"{_seat_name(v, r, seat)} {v.envoy_offers[r]}" for r in range(1, v.num_players))
        out.append(f"Envoy asks for {RESOURCES[v.envoy_resource]}; offers: {offers}")
        if v.envoy_target is not None:
            out.append(f"    accepting from {_seat_name(v, v.envoy_target, seat)} "
                       f"({v.envoy_accepted[v.envoy_target]} accepted so far)")
    if any(v.vizier_drawn):
        out.append(f"Your Vizier drew: {_cards(v.vizier_drawn)} (kept so far: {v.vizier_kept})")
    if any(v.courtesan_discard):
        out.append(f"The discard pile your Courtesan searches: {_cards(v.courtesan_discard)}")
    if v.phase == "ceremony":
        closed = [_seat_name(v, r, seat) for r in range(v.num_players) if v.ceremony_closed[r]]
        out.append(f"Offering ceremony: your offer so far {v.ceremony_offer}; closed: {', '.join(closed) or 'nobody'}")
    return out


def render_text(s: GameState, seat: int | None = None, mode: str = "original") -> str:
    """The table as ``seat`` sees it (default: the player to move), in observation ``mode``."""
    seat = s.current_player if seat is None else seat
    legal = s.legal_actions() if seat == s.current_player else []
    return render_view(view(s, seat, mode), s.rules, seat, legal)
