"""The ``kleopatra-state/1`` JSON document (INTERFACE.md): writing it, and reading it strictly.

Reading checks types, ranges, known kinds and tiles, the cards by kind across all zones, the 12 tiles
across the stack, the garden and the removed pile, legal placements, sanctuaries, the categories and
Cleopatra, the memory, the pending phase, and that the player to move has a legal action. Every
failure is a StateFormatError whose message starts with the offending field's path. Unknown and
duplicate keys, NaN and Infinity, lists longer than the game allows and documents nested deeper than
it allows are refused before they are read in full.

Required: ``format``, ``num_players``, ``seed``, ``active_player``, ``current_player``, ``cleopatra``,
``altar``, ``players`` (each with ``hand``, ``talents``, ``amulets``, ``merchants``, ``statues``),
``stalls``, ``deck``, ``palace`` and ``mosaic_stack``. The others may be left out when empty or at
their start value: ``rules`` ({}), ``turn`` (1), ``discard``, ``set_aside``, ``removed_tiles``,
``eliminated``, ``shown`` ([]), ``pending`` (null), ``over`` (false), ``memory`` (nothing known),
``last_ceremony`` (null), ``rng`` (a fresh generator from ``seed``), a player's ``built`` and
``ceremonies_won`` (0), and every part of ``palace`` (nothing built).

The engine's own fields: ``set_aside`` (characters played this turn, rules §8 [decision]);
``memory`` (rules §12: per seat, and for the public, the cards known to be in each hand and in the
discard pile, and whether the seat saw the mosaic stack with a Scribe); ``shown`` (seats whose hand
the active player saw with his Beggar this turn); ``last_ceremony`` (its offers and places);
``rng``. ``pending`` is a phase document (``phases.py``): ``{"phase": name, ...its fields}``.
"""

from __future__ import annotations

import json
import random
from operator import le
from typing import Any

from ..document import parse
from ..errors import StateFormatError
from . import strict
from .catalogue import (
    CHARACTERS,
    CLEOPATRA_END,
    DICE,
    GATE_SIDES,
    KINDS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_TILES,
    NUM_WALL_SLOTS,
    OBELISK_PIECES,
    RULES_OPTIONS,
    SPHINX_PIECES,
    STALLS,
    STANDARD,
    START_MERCHANTS,
    START_STATUES,
    TILE_NAMES,
    make_rules,
)
from .palace import tile_mask
from .phases import PHASES, Ceremony, MosaicOrient, card_doc, quarry_visit, read_cards
from .state import _CATEGORY_OF_BUILD, GameState

FORMAT = "kleopatra-state/1"
MAX_DOCUMENT = 8_000_000   # characters: far above any document the engine writes
MAX_COUNT = 1_000_000      # talents, amulets and other counters: far above anything reachable
MAX_SEED = 2**128
ELEMENTS = NUM_WALL_SLOTS + SPHINX_PIECES + OBELISK_PIECES + len(GATE_SIDES) + 2 + NUM_TILES
TOP_KEYS = ("format", "num_players", "rules", "seed", "active_player", "current_player", "turn", "cleopatra",
            "altar", "players", "stalls", "deck", "discard", "set_aside", "palace", "mosaic_stack",
            "removed_tiles", "pending", "over", "eliminated", "memory", "shown", "last_ceremony", "rng")
REQUIRED = ("format", "num_players", "seed", "active_player", "current_player", "cleopatra", "altar", "players",
            "stalls", "deck", "palace", "mosaic_stack")
PLAYER_KEYS = ("hand", "talents", "amulets", "merchants", "statues", "built", "ceremonies_won")
PALACE_KEYS = ("walls", "gate", "sphinxes", "obelisks", "pedestal", "throne", "mosaics", "sanctuaries")


# ---------------------------------------------------------------------- writing


def _pending_doc(s: GameState) -> dict[str, Any] | None:
    if s.pending is None:
        return None
    return {"phase": s.pending.name, **s.pending.document()}


def to_document(s: GameState) -> dict[str, Any]:
    """The state as a JSON-ready dict."""
    n = s.num_players
    version, internal, gauss = s.rng.getstate()
    public = n
    return {
        "format": FORMAT,
        "num_players": n,
        "rules": s.rules.overrides(),
        "seed": s.seed,
        "active_player": s.active_player,
        "current_player": s.current_player,
        "turn": s.turn,
        "cleopatra": s.cleopatra,
        "altar": s.altar,
        "players": [
            {"hand": strict.names(s.hands[p]), "talents": s.talents[p], "amulets": s.amulets[p],
             "merchants": s.merchants[p], "statues": s.statues[p], "built": s.built_by[p],
             "ceremonies_won": s.ceremonies_won[p]}
            for p in range(n)
        ],
        "stalls": [[card_doc(c) for c in stall] for stall in s.stalls],
        "deck": [card_doc(c) for c in reversed(s.deck)],
        "discard": strict.names(s.discard),
        "set_aside": strict.names(s.set_aside),
        "palace": {
            "walls": [k + 1 for k in range(NUM_WALL_SLOTS) if (s.walls >> k) & 1],
            "gate": [side for i, side in enumerate(GATE_SIDES) if (s.gate >> i) & 1],
            "sphinxes": s.sphinxes,
            "obelisks": s.obelisks,
            "pedestal": s.pedestal,
            "throne": s.throne,
            "mosaics": [{"tile": TILE_NAMES[t], "orient": r, "square": sq, "by": p} for t, r, sq, p, _ in s.mosaics],
            "sanctuaries": [{"squares": _squares(mask), "owner": owner} for mask, owner in s.sanctuaries],
        },
        "mosaic_stack": [TILE_NAMES[t] for t in s.stack],
        "removed_tiles": [TILE_NAMES[t] for t in s.removed],
        "pending": _pending_doc(s),
        "over": s.over,
        "eliminated": list(s.eaten),
        "memory": {
            "public": {"hands": [strict.names(row) for row in s.known[public]],
                       "discard": strict.names(s.known_discard[public])},
            "seats": [{"hands": [strict.names(row) for row in s.known[v]],
                       "discard": strict.names(s.known_discard[v]), "saw_stack": s.saw_stack[v]}
                      for v in range(n)],
        },
        "shown": list(s.shown),
        "last_ceremony": None if s.last_offers is None else {"offers": list(s.last_offers),
                                                             "places": list(s.last_places)},
        "rng": [version, list(internal), gauss],
    }


def _squares(mask: int) -> list[int]:
    return [i for i in range(64) if (mask >> i) & 1]


def dump(s: GameState) -> str:
    return json.dumps(to_document(s), separators=(",", ":"))


# ---------------------------------------------------------------------- reading


def load(text: str | bytes) -> GameState:
    """Parse and validate a state document; raise StateFormatError naming the first bad field."""
    return from_document(parse(text, MAX_DOCUMENT))


def from_document(doc: Any) -> GameState:
    """Build a state from a parsed document, validating every field."""
    try:
        return _read(doc)
    except RecursionError:  # a nesting no field allows, met while reading it
        raise StateFormatError("document: nested too deeply") from None


def _read(doc: Any) -> GameState:
    doc = strict.obj(doc, "", TOP_KEYS)
    if doc.get("format") != FORMAT:
        raise strict.fail("format", f"must be {FORMAT!r}, got {doc.get('format')!r:.40}")
    strict.obj(doc, "", TOP_KEYS, REQUIRED)
    n = strict.integer(doc["num_players"], "num_players", MIN_PLAYERS, MAX_PLAYERS)
    rules_doc = strict.obj(doc.get("rules", {}), "rules", RULES_OPTIONS)
    try:
        rules = make_rules(n, **rules_doc)
    except (ValueError, TypeError) as exc:
        raise strict.fail("rules", str(exc)) from None
    s = GameState(rules, strict.integer(doc["seed"], "seed", 0, MAX_SEED))
    total = rules.total_cards
    s.active_player = strict.seat(doc["active_player"], "active_player", n)
    s.current_player = strict.seat(doc["current_player"], "current_player", n)
    s.turn = strict.integer(doc.get("turn", 1), "turn", 1, rules.max_turns)
    s.cleopatra = strict.integer(doc["cleopatra"], "cleopatra", 0, CLEOPATRA_END)
    s.altar = strict.integer(doc["altar"], "altar", 0, DICE)
    s.over = strict.boolean(doc.get("over", False), "over")

    for p, pdoc in enumerate(strict.array(doc["players"], "players", n, n)):
        path = f"players[{p}]"
        pdoc = strict.obj(pdoc, path, PLAYER_KEYS, PLAYER_KEYS[:5])
        s.hands[p] = strict.cards(pdoc["hand"], f"{path}.hand", total)
        s.talents[p] = strict.integer(pdoc["talents"], f"{path}.talents", 0, MAX_COUNT)
        s.amulets[p] = strict.integer(pdoc["amulets"], f"{path}.amulets", 0, MAX_COUNT)
        s.merchants[p] = strict.integer(pdoc["merchants"], f"{path}.merchants", 0, START_MERCHANTS)
        s.statues[p] = strict.integer(pdoc["statues"], f"{path}.statues", 0, START_STATUES)
        s.built_by[p] = strict.integer(pdoc.get("built", 0), f"{path}.built", 0, ELEMENTS)
        s.ceremonies_won[p] = strict.integer(pdoc.get("ceremonies_won", 0), f"{path}.ceremonies_won", 0, MAX_COUNT)

    stalls = strict.array(doc["stalls"], "stalls", STALLS, STALLS)
    s.stalls = [read_cards(stall, f"stalls[{i}]", total) for i, stall in enumerate(stalls)]
    s.deck = read_cards(doc["deck"], "deck", total)[::-1]
    s.discard = strict.cards(doc.get("discard", []), "discard", total)
    s.set_aside = strict.cards(doc.get("set_aside", []), "set_aside", total, CHARACTERS)
    _read_palace(doc["palace"], s)
    _read_tiles(doc, s)
    if "rng" in doc:
        _read_rng(doc["rng"], s)
    _read_memory(doc.get("memory"), s)
    s.shown = strict.seats(doc.get("shown", []), "shown", n)
    _read_last_ceremony(doc.get("last_ceremony"), s)
    s.eaten = strict.seats(doc.get("eliminated", []), "eliminated", n)
    s.pending = _read_pending(doc.get("pending"), s)

    check_consistency(s)
    return s


def check_consistency(s: GameState) -> None:
    """Everything the zones, the palace, the memory and the pending must agree on (StateFormatError
    naming the field); ``invariants.check`` runs the same checks on states reached by play. The counts per
    kind are taken to be never negative: the reader reads them so, and ``invariants.check`` checks it first."""
    _check_cards(s)
    _check_tiles(s)
    _check_palace(s)
    _check_memory(s)
    _check_end(s)
    _check_turn(s)
    _check_statistics(s)


def _read_palace(value: Any, s: GameState) -> None:
    doc = strict.obj(value, "palace", PALACE_KEYS)
    for i, v in enumerate(strict.array(doc.get("walls", []), "palace.walls", NUM_WALL_SLOTS)):
        slot = strict.integer(v, f"palace.walls[{i}]", 1, NUM_WALL_SLOTS)
        if (s.walls >> (slot - 1)) & 1:
            raise strict.fail(f"palace.walls[{i}]", f"wall {slot} is listed twice")
        s.walls |= 1 << (slot - 1)
    for i, v in enumerate(strict.array(doc.get("gate", []), "palace.gate", len(GATE_SIDES))):
        if v not in GATE_SIDES:
            raise strict.fail(f"palace.gate[{i}]", f"unknown gate part {v!r:.40}; the parts are left, right")
        side = GATE_SIDES.index(v)
        if (s.gate >> side) & 1:
            raise strict.fail(f"palace.gate[{i}]", f"gate part {v} is listed twice")
        s.gate |= 1 << side
    s.sphinxes = strict.integer(doc.get("sphinxes", 0), "palace.sphinxes", 0, SPHINX_PIECES)
    s.obelisks = strict.integer(doc.get("obelisks", 0), "palace.obelisks", 0, OBELISK_PIECES)
    s.pedestal = strict.boolean(doc.get("pedestal", False), "palace.pedestal")
    s.throne = strict.boolean(doc.get("throne", False), "palace.throne")
    if s.throne and not s.pedestal:
        raise strict.fail("palace.throne", "the throne is built only after the pedestal")
    geo, n = s.rules.geometry, s.num_players
    for i, v in enumerate(strict.array(doc.get("mosaics", []), "palace.mosaics", NUM_TILES)):
        path = f"palace.mosaics[{i}]"
        m = strict.obj(v, path, ("tile", "orient", "square", "by"), ("tile", "orient", "square", "by"))
        tile = strict.tile(m["tile"], f"{path}.tile")
        orient = strict.integer(m["orient"], f"{path}.orient", 0, 7)
        square = strict.integer(m["square"], f"{path}.square", 0, 63)
        by = strict.seat(m["by"], f"{path}.by", n)
        mask = geo.placement_mask(tile, orient, square)
        if mask is None:
            raise strict.fail(path, f"tile {TILE_NAMES[tile]} in orientation {orient} cannot be anchored on "
                                    f"square {square} (off the garden, or not a distinct orientation)")
        if mask & s.covered:
            raise strict.fail(path, f"tile {TILE_NAMES[tile]} overlaps another mosaic")
        s.covered |= mask
        s.mosaics.append((tile, orient, square, by, mask))
    for i, v in enumerate(strict.array(doc.get("sanctuaries", []), "palace.sanctuaries", 64)):
        path = f"palace.sanctuaries[{i}]"
        sd = strict.obj(v, path, ("squares", "owner"), ("squares",))
        squares = strict.array(sd["squares"], f"{path}.squares", s.rules.sanctuary_max_squares)
        mask = 0
        for j, sq in enumerate(squares):
            sq = strict.integer(sq, f"{path}.squares[{j}]", 0, 63)
            if not (geo.garden >> sq) & 1 or (mask >> sq) & 1:
                raise strict.fail(f"{path}.squares[{j}]", f"square {sq} is off the garden or listed twice")
            mask |= 1 << sq
        owner = sd.get("owner")
        if owner is not None:
            owner = strict.seat(owner, f"{path}.owner", n)
        s.sanctuaries.append([mask, owner])
        s.sanctuary_union |= mask


def _read_tiles(doc: dict[str, Any], s: GameState) -> None:
    for key, target in (("mosaic_stack", s.stack), ("removed_tiles", s.removed)):
        for i, v in enumerate(strict.array(doc.get(key, []), key, NUM_TILES)):
            target.append(strict.tile(v, f"{key}[{i}]"))


def _read_rng(value: Any, s: GameState) -> None:
    version, internal, gauss = strict.array(value, "rng", 3, 3)
    internal = strict.array(internal, "rng[1]", 625)
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in internal):
        raise strict.fail("rng[1]", "must be a list of integers")
    if gauss is not None and not isinstance(gauss, float):
        raise strict.fail("rng[2]", "must be null or a number")
    generator = random.Random()
    try:
        generator.setstate((version, tuple(internal), gauss))
    except (TypeError, ValueError, OverflowError) as exc:
        raise strict.fail("rng", f"not a generator state ({exc})") from None
    s.rng = generator


def _read_memory(value: Any, s: GameState) -> None:
    if value is None:
        return
    n, total = s.num_players, s.rules.total_cards
    doc = strict.obj(value, "memory", ("public", "seats"))
    views = []
    if "public" in doc:
        views.append((n, strict.obj(doc["public"], "memory.public", ("hands", "discard")), "memory.public"))
    for v, seat_doc in enumerate(strict.array(doc.get("seats", []), "memory.seats", n, n if "seats" in doc else None)):
        path = f"memory.seats[{v}]"
        views.append((v, strict.obj(seat_doc, path, ("hands", "discard", "saw_stack")), path))
    for v, vdoc, path in views:
        rows = strict.array(vdoc.get("hands", [[]] * n), f"{path}.hands", n, n)
        s.known[v] = [strict.cards(row, f"{path}.hands[{o}]", total) for o, row in enumerate(rows)]
        s.known_discard[v] = strict.cards(vdoc.get("discard", []), f"{path}.discard", total)
        if v < n:
            s.saw_stack[v] = strict.boolean(vdoc.get("saw_stack", False), f"{path}.saw_stack")


def _read_last_ceremony(value: Any, s: GameState) -> None:
    if value is None:
        return
    n = s.num_players
    doc = strict.obj(value, "last_ceremony", ("offers", "places"), ("offers", "places"))
    offers = [strict.integer(v, f"last_ceremony.offers[{i}]", 0, MAX_COUNT)
              for i, v in enumerate(strict.array(doc["offers"], "last_ceremony.offers", n, n))]
    places = [strict.integer(v, f"last_ceremony.places[{i}]", 1, n)
              for i, v in enumerate(strict.array(doc["places"], "last_ceremony.places", n, n))]
    if places != [1 + sum(1 for q in offers if q > o) for o in offers]:
        raise strict.fail("last_ceremony.places", "must be 1 + the number of players who offered more")
    s.last_offers, s.last_places = offers, places


def _read_pending(value: Any, s: GameState) -> Any:
    if value is None:
        return None
    doc = strict.obj(value, "pending", {"phase", *_PENDING_KEYS}, ("phase",))
    name = doc["phase"]
    if not isinstance(name, str) or name not in PHASES or name == "turn":
        raise strict.fail("pending.phase", f"unknown phase {name!r:.40}; expected one of "
                                           f"{', '.join(p for p in PHASES if p != 'turn')} (null for the turn)")
    if s.over:
        raise strict.fail("pending", "must be null once the game is over")
    return PHASES[name].read(doc, s, "pending")


_EVERY_TILE = list(range(NUM_TILES))
_PENDING_KEYS = ("resume", "drawn", "filled", "pool", "paid", "built", "tile", "scribe", "orient", "sanctuaries",
                 "queue", "resource", "offers", "accepted", "target", "kept")


# ---------------------------------------------------------------------- consistency


def _check_cards(s: GameState) -> None:
    total = s.card_counts()
    if tuple(total) == s.rules.card_counts:
        return
    for k, c in enumerate(total):
        if c != s.rules.card_counts[k]:
            raise strict.fail("cards", f"the zones hold {c} {KINDS[k]!r} card(s) but the game has "
                                       f"{s.rules.card_counts[k]} (hands, stalls, deck, discard, set_aside and "
                                       f"pending together must hold the {s.rules.total_cards} cards)")


def _pending_tile(s: GameState) -> int | None:
    return s.pending.tile if isinstance(s.pending, MosaicOrient) else None


def _check_tiles(s: GameState) -> None:
    seen = [*s.stack, *(m[0] for m in s.mosaics), *s.removed]
    tile = _pending_tile(s)
    if tile is not None:
        seen.append(tile)
    seen.sort()
    if seen != _EVERY_TILE:  # not each tile once: name the first that is not
        for t in range(NUM_TILES):
            if seen.count(t) != 1:
                raise strict.fail("mosaic_stack", f"tile {TILE_NAMES[t]} appears {seen.count(t)} times across "
                                                  f"mosaic_stack, palace.mosaics, removed_tiles and pending "
                                                  f"(must be 1)")
    blocked = s.covered | s.sanctuary_union
    # while a chosen tile awaits its place, the new top tile is checked after the placement (rules §6.5)
    if s.stack and tile is None and not s.rules.geometry.tile_placeable(s.stack[0], blocked):
        raise strict.fail("mosaic_stack[0]", f"the top tile {TILE_NAMES[s.stack[0]]} has no legal placement "
                                             f"(it would have been removed, rules §6.5)")


def _check_palace(s: GameState) -> None:
    geo = s.rules.geometry
    owned = [0] * s.num_players
    if s.sanctuaries:
        areas = geo.free_areas(s.covered)
        stack = tile_mask(s.stack)
        masks = []
        for i, (mask, owner) in enumerate(s.sanctuaries):
            if mask not in areas:
                raise strict.fail(f"palace.sanctuaries[{i}]", "must be exactly one free area of the garden "
                                                                 "(uncovered, edge-connected)")
            if mask in masks:
                raise strict.fail(f"palace.sanctuaries[{i}]", "the same sanctuary is listed twice")
            masks.append(mask)
            if geo.tiles_inside(mask) & stack:
                t = next(t for t in s.stack if geo.fits_inside(t, mask))
                raise strict.fail(f"palace.sanctuaries[{i}]", f"tile {TILE_NAMES[t]} of the stack fits inside it, "
                                                                 f"so it is no sanctuary")
            if owner is not None:
                owned[owner] += 1
    for p in range(s.num_players):
        if s.statues[p] + owned[p] > START_STATUES:
            raise strict.fail(f"players[{p}].statues", f"{s.statues[p]} statues left plus {owned[p]} on sanctuaries "
                                                       f"is more than the {START_STATUES} he has")
    complete = s.complete()
    if _pending_tile(s) is not None:
        complete[-1] = False  # the chosen tile is still to be placed
    expected = sum(complete)
    visit = quarry_visit(s.pending)
    if visit is not None:  # rules §5.4: categories completed during this visit count at its end
        done_now = {_CATEGORY_OF_BUILD[a] for a in visit.built}
        expected = sum(c for i, c in enumerate(complete) if i not in done_now)
    if not s.over and expected >= CLEOPATRA_END:
        raise strict.fail("cleopatra", f"{expected} categories are complete: the game would be over")
    if s.cleopatra != min(CLEOPATRA_END, expected):
        raise strict.fail("cleopatra", f"must be {min(CLEOPATRA_END, expected)}, the number of complete categories "
                                       f"(at most {CLEOPATRA_END}), got {s.cleopatra}")
    if s.altar == DICE and not isinstance(s.pending, Ceremony):
        raise strict.fail("altar", f"all {DICE} dice on the altar with no ceremony pending")


def _check_memory(s: GameState) -> None:
    n, known, hands = s.num_players, s.known, s.hands
    public, public_discard = known[n], s.known_discard[n]
    # Most rows of a seat's memory are the public's row again. Such a row includes the public's, and it lies in
    # the hand whenever the public's row does: checked once here, it settles those rows without a look.
    public_fits = [_within(public[o], hands[o]) for o in range(n)]
    public_discard_fits = _within(public_discard, s.discard)
    for v in range(n + 1):
        for o in range(n):
            row = known[v][o]
            if v == o:  # an empty row lies in any hand (counts are never negative)
                if any(row):
                    raise strict.fail(f"{_viewer(v, n)}.hands[{o}]", "a seat's own hand is not kept in its memory")
            elif not (public_fits[o] and row == public[o]):
                if not _within(row, hands[o]):
                    raise strict.fail(f"{_viewer(v, n)}.hands[{o}]", f"lists cards not in player {o}'s hand")
                if v < n and not _within(public[o], row):
                    raise strict.fail(f"{_viewer(v, n)}.hands[{o}]", "must include what the public knows of that hand")
        row = s.known_discard[v]
        if not (public_discard_fits and row == public_discard):
            if not _within(row, s.discard):
                raise strict.fail(f"{_viewer(v, n)}.discard", "lists cards not in the discard pile")
            if v < n and not _within(public_discard, row):
                raise strict.fail(f"{_viewer(v, n)}.discard", "must include what the public knows of the discard pile")
    for i, o in enumerate(s.shown):
        path = f"shown[{i}]"
        if o == s.active_player:
            raise strict.fail(path, "the active player does not show his hand to himself")
        if s.talents[o] >= 2 or any(s.hands[o][k] for k in STANDARD):
            raise strict.fail(path, f"player {o} could have given something to the Beggar")
        if s.known[s.active_player][o] != s.hands[o]:
            raise strict.fail(path, f"memory.seats[{s.active_player}].hands[{o}] must be player {o}'s shown hand")


def _viewer(v: int, n: int) -> str:
    return "memory.public" if v == n else f"memory.seats[{v}]"


def _within(part: list[int], whole: list[int]) -> bool:
    """Whether ``part`` has at most ``whole``'s count of every kind."""
    return all(map(le, part, whole))


def _check_end(s: GameState) -> None:
    if not s.over:
        if s.eaten:
            raise strict.fail("eliminated", "only a finished game has eliminated players")
        return
    for p in range(s.num_players):
        if any(s.hands[p]):
            raise strict.fail(f"players[{p}].hand", "hands are discarded at the end of the game (rules §11.1)")
    if any(s.set_aside):
        raise strict.fail("set_aside", "empty once the game is over")
    if s.shown:
        raise strict.fail("shown", "empty once the game is over")
    high, low = max(s.amulets), min(s.amulets)
    eaten = [p for p in range(s.num_players) if s.amulets[p] == high] if high - low >= s.rules.crocodile_margin else []
    if s.eaten != eaten:
        raise strict.fail("eliminated", f"must be {eaten}: the players with the most amulets when they lead the "
                                        f"fewest by {s.rules.crocodile_margin} or more (rules §11.4)")


def _check_statistics(s: GameState) -> None:
    """The statistics within what the table shows: the elements the players built, with those of a visit to
    the quarry still under way (its builder is credited when it ends), within the palace; ceremonies won
    within the last ceremony (play keeps both: it adds to the two sides together, so a document within them
    plays on to documents within them)."""
    palace = (s.walls.bit_count() + s.gate.bit_count() + s.sphinxes + s.obelisks + s.pedestal + s.throne
              + len(s.mosaics))
    visit = quarry_visit(s.pending)
    building = len(visit.built) if visit is not None else 0
    if sum(s.built_by) + building > palace:
        p = next(p for p in range(s.num_players) if sum(s.built_by[:p + 1]) + building > palace)
        under_way = f" and {building} in the visit under way" if building else ""
        raise strict.fail(f"players[{p}].built", f"the players built {sum(s.built_by)} elements in all"
                                                 f"{under_way}, but the palace holds {palace}")
    for p in range(s.num_players):
        if s.ceremonies_won[p] and s.last_places is None:
            raise strict.fail(f"players[{p}].ceremonies_won", "a ceremony was won, so last_ceremony cannot be null")
        if s.last_places is not None and s.last_places[p] == 1 and not s.ceremonies_won[p]:
            raise strict.fail(f"players[{p}].ceremonies_won", "must be 1 or more: he won the last ceremony")


def _check_turn(s: GameState) -> None:
    if s.over:
        return
    if s.pending is None and s.current_player != s.active_player:
        raise strict.fail("current_player", "must be active_player at the start of a turn (pending null)")
    if s.pending is not None:
        problem = s.pending.fault(s)
        if problem is not None:
            raise strict.fail(f"pending.{problem[0]}" if problem[0] else "pending", problem[1])
    if not s.legal_actions():
        raise strict.fail("pending", f"player {s.current_player} would have no legal action")

