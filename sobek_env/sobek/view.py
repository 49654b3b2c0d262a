"""What one seat sees (rules §10): decided here, once, for both information modes.

:func:`view` reads a state into a :class:`View` of named Python values, as the observing seat is
entitled to see it: seats are relative (0 is the observer, then the opponents in seat order after
him) and what he may not see is absent (zeros, or None). A View holds exactly what the observation
vector holds: the observation encoder (``observation.py``) only copies it into numbers, and its
decoder reads them back into the same class (``decode.View``, what the baselines reason with, adds the
rules' tables and estimates to it). The web app's :func:`document`, the renderers and the resampler
read the seat's private facts from a View, and whether a private part is on show at all from the
predicates below. Nothing else decides visibility.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..game import check_observation_mode
from .catalogue import (
    BACKS,
    CURSE,
    CURSE_WEIGHT,
    FACE_DOWN_CHARACTER,
    FACE_UP_ON_NILE,
    HIEROGLYPHS,
    KINDS,
    NILE_FACE,
    NUM_KINDS,
    NUM_TOKEN_KINDS,
    PROSPERITY,
    ROUNDS,
    SET_SLOTS,
    TAKE_WINDOW,
    TOKENS,
    Rules,
    backs_of,
    symbol_at,
)
from .phases import (
    TURN_START,
    BuildSet,
    ChooseToken,
    CourtesanCard,
    Curse,
    Guild,
    HorizontalSet,
    Prosperity,
    Scribe,
    ThiefBack,
    VizierCard,
)
from .scoring import TableSet, scarabs_of, set_value, vertical_value
from .state import GameState

HIDDEN = FACE_DOWN_CHARACTER  # the Nile column of a face-down character: "some character" (rules §5)


def _zeros(width: int = NUM_KINDS) -> list[int]:
    return [0] * width


@dataclass(slots=True)
class View:
    """One seat's view of the table, as its observation holds it. Per-seat lists are in relative order
    (0 = the observer); ``known_hands`` and ``known_piles`` have a row per opponent, from the one after him.

    Cards are counts per kind (28), tokens counts per token kind (9), backs counts per back (green, beige,
    orange); scores and points are whole points. ``nile`` lists by position what each card shows:
    its kind, or :data:`HIDDEN` for a face-down character. ``sets[i][slot]`` is (cards, scarabs, Prosperity
    tokens) of the set of that goods (the last slot: the amulets-only set), ``set_cards[i]`` their cards per
    kind, ``horizontal[i]`` the cards of the horizontal sets laid at this round's end. ``phase`` is the
    pending sub-decision's name (None at the start of a turn); ``phase_goods``, ``phase_target`` (a relative
    seat) and ``guild_symbol`` are -1 where the sub-decision has none. ``last_*`` is the public summary of the
    last scored round (``last_corruption`` without the Curses' share). Private parts: ``pile_backs`` of the
    opponents and ``known_*`` in memory mode only; ``token_choice`` while he chooses a token;
    ``tokens_known`` (None unless he has looked through the face-down tokens this round, in memory mode,
    and some are left); ``vizier_pile`` while he searches it."""

    num_players: int
    hand: list[int]
    pile: list[int]
    nile: list[int]
    deck: int
    round: int
    scores: list[int]
    to_move: int
    first_player: int
    track_symbol: list[int]
    hand_backs: list[list[int]]
    pile_backs: list[list[int]]
    curses: list[int]
    sets: list[list[list[int]]]
    set_cards: list[list[int]]
    set_points: list[int]
    horizontal: list[list[int]]
    known_hands: list[list[int]]
    known_piles: list[list[int]]
    tokens_left: int
    used_tokens: list[int]
    token_choice: list[int]
    tokens_known: list[int] | None
    discard: list[int]
    vizier_pile: list[int]
    building: list[int]
    phase: str | None
    phase_goods: int
    phase_target: int
    guild_symbol: int
    last_points: list[int]
    last_corruption: list[int]
    last_curses: list[int]
    last_most_corrupt: list[int]
    last_penalty: list[int]
    last_horizontal: list[list[int]]


def chooses_token(s: GameState, seat: int) -> bool:
    """Whether ``seat`` is choosing a token, and so sees the face-down ones (rules §7, §10)."""
    return s.current_player == seat and not s.over and type(s.pending) is ChooseToken


def knows_tokens(s: GameState, seat: int, memory: bool) -> bool:
    """Whether ``seat`` remembers the face-down tokens, having looked through them this round (rules §10,
    memory mode). The vector cannot tell this from not knowing once none is left; the table's readers can."""
    return memory and s.token_glimpse[seat]


def searched_pile(s: GameState, seat: int) -> int | None:
    """The seat whose corruption pile ``seat`` is searching with the Vizier, shown to him alone (rules §4)."""
    pending = s.pending
    if s.current_player == seat and not s.over and type(pending) is VizierCard:
        return pending.target
    return None


def _sets_of(own: list[TableSet | None], rules: Rules) -> tuple[list[list[int]], list[int], int, int]:
    """One player's sets: (cards, scarabs, Prosperity tokens) per slot, their cards per kind, what they score
    now and their Prosperity tokens."""
    row, cards, points, prosperity = [[0, 0, 0] for _ in SET_SLOTS], _zeros(), 0, 0
    if not any(own):  # most players have no set most of the time
        return row, cards, points, prosperity
    for slot, table_set in enumerate(own):
        if table_set is not None:
            count, scarabs = sum(table_set.cards), scarabs_of(table_set.cards, rules)
            row[slot] = [count, scarabs, table_set.prosperity]
            points += set_value(count, scarabs, table_set.prosperity)
            prosperity += table_set.prosperity
            cards = [a + b for a, b in zip(cards, table_set.cards)]
    return row, cards, points, prosperity


def _laid(groups: list[tuple[int, list[int]]]) -> list[int]:
    """Cards per kind of a player's horizontal sets."""
    cards = _zeros()
    for _, group in groups:
        cards = [a + b for a, b in zip(cards, group)]
    return cards


def view(s: GameState, seat: int, mode: str = "original") -> View:
    """What ``seat`` sees of ``s`` in ``mode`` (rules §10)."""
    check_observation_mode(mode)
    n, memory = s.rules.num_players, mode == "memory"
    order = [(seat + i) % n for i in range(n)]
    opponents = order[1:]
    pending, kind = s.pending, type(s.pending)
    revealed = list(s.used_tokens)
    revealed[CURSE] += sum(s.curses)  # lying on players
    sets = [_sets_of(s.sets[p], s.rules) for p in order]
    revealed[PROSPERITY] += sum(entry[3] for entry in sets)  # lying on sets
    if kind is Curse:  # chosen, not yet placed
        revealed[CURSE] += 1
    elif kind is Prosperity:
        revealed[PROSPERITY] += 1
    building, goods, target, symbol = _zeros(), -1, -1, -1
    if kind in (BuildSet, HorizontalSet, CourtesanCard):
        building = list(pending.cards)
        goods = pending.slot if kind is CourtesanCard else pending.goods
    elif kind in (VizierCard, ThiefBack):
        target = (pending.target - seat) % n  # chosen in the open (rules §4)
    elif kind is Scribe:
        target = (pending.actor - seat) % n
    elif kind is Guild:
        symbol = pending.symbol
    searched = searched_pile(s, seat)
    last = s.round_log[-1] if s.round_log else None
    return View(
        num_players=n,
        hand=list(s.hands[seat]),
        pile=list(s.piles[seat]),
        nile=[NILE_FACE[k] for k in s.nile],  # characters lie face down (rules §5)
        deck=len(s.deck),
        round=s.round,
        scores=[s.markers[p] for p in order],
        to_move=(s.current_player - seat) % n,
        first_player=(s.first_player - seat) % n,
        track_symbol=[symbol_at(s.markers[p]) for p in order],
        hand_backs=[list(backs_of(s.hands[p])) for p in order],
        # rules §10: the size of the others' piles (by back) only with memory
        pile_backs=[list(backs_of(s.piles[p])) if p == seat or memory else [0] * len(BACKS) for p in order],
        curses=[s.curses[p] for p in order],
        sets=[entry[0] for entry in sets],
        set_cards=[entry[1] for entry in sets],
        set_points=[entry[2] for entry in sets],
        horizontal=[_laid(s.horizontal[p]) for p in order],
        # what he remembers of each opponent's hand and pile, glimpses included (memory mode)
        known_hands=[list(s.known_hands[seat][p]) if memory else _zeros() for p in opponents],
        known_piles=[list(s.known_piles[seat][p]) if memory else _zeros() for p in opponents],
        tokens_left=sum(s.tokens),
        used_tokens=revealed,
        token_choice=list(s.tokens) if chooses_token(s, seat) else _zeros(NUM_TOKEN_KINDS),
        tokens_known=list(s.tokens) if knows_tokens(s, seat, memory) and any(s.tokens) else None,
        discard=list(s.discard),
        vizier_pile=_zeros() if searched is None else list(s.piles[searched]),
        building=building,
        phase=None if pending is None else pending.name,
        phase_goods=goods,
        phase_target=target,
        guild_symbol=symbol,
        last_points=[last["points"][p] if last else 0 for p in order],
        last_corruption=[last["corruption"][p] - CURSE_WEIGHT * last["curses"][p] if last else 0 for p in order],
        last_curses=[last["curses"][p] if last else 0 for p in order],
        last_most_corrupt=[int(p in last["most_corrupt"]) if last else 0 for p in order],
        last_penalty=[last["penalty"][p] if last else 0 for p in order],
        last_horizontal=[list(last["horizontal"][p]) if last else _zeros() for p in order],
    )


def _named(counts: list[int]) -> dict[str, int]:
    return {KINDS[k]: n for k, n in enumerate(counts) if n}


def document(s: GameState, seat: int, memory: bool) -> dict[str, Any]:
    """What ``seat`` sees of ``s`` (the public table from the state, his private part from his :func:`view`),
    as JSON-able values: the web app's table. Cards are counts by kind name; a character on the Nile is
    ``null`` (face down, rules §5)."""
    mine = view(s, seat, "memory" if memory else "original")
    n, pending = s.rules.num_players, s.pending
    seats = []
    for p in range(n):
        i = (p - seat) % n
        entry: dict[str, Any] = {
            "seat": p, "score": s.markers[p], "hand_size": sum(s.hands[p]),
            "hand_backs": dict(zip(BACKS, s.hand_backs(p))), "curses": s.curses[p],
            "sets": [{"slot": SET_SLOTS[slot], "cards": _named(t.cards), "prosperity": t.prosperity,
                      "value": vertical_value(TableSet(t.cards, t.prosperity), s.rules)}
                     for slot, t in enumerate(s.sets[p]) if t is not None],
            "horizontal": [{"slot": SET_SLOTS[slot], "cards": _named(cards), "value": scarabs_of(cards, s.rules)}
                           for slot, cards in s.horizontal[p]],
        }
        if i == 0:
            entry["hand"], entry["pile"] = _named(mine.hand), _named(mine.pile)
        if i == 0 or memory:  # the view holds the others' pile sizes only with memory
            entry["pile_size"] = sum(mine.pile_backs[i])
        if memory and i:
            entry["remembered_hand"] = _named(mine.known_hands[i - 1])
            entry["remembered_pile"] = _named(mine.known_piles[i - 1])
        seats.append(entry)
    doc: dict[str, Any] = {
        "round": s.round, "rounds": ROUNDS, "first_player": s.first_player,
        "phase": (pending or TURN_START).name, "doing": (pending or TURN_START).description,
        "nile": [KINDS[k] if FACE_UP_ON_NILE[k] else None for k in s.nile], "take_window": TAKE_WINDOW,
        "deck": len(s.deck), "tokens_face_down": sum(s.tokens),
        "used_tokens": {TOKENS[t]: k for t, k in enumerate(s.used_tokens) if k},
        "discard": _named(s.discard), "seats": seats,
        "rounds_scored": [{key: entry[key] for key in ("round", "points", "corruption", "most_corrupt", "penalty")}
                          for entry in s.round_log],
    }
    if isinstance(pending, (BuildSet, HorizontalSet)):
        doc["laying"] = {"slot": SET_SLOTS[pending.goods], "cards": _named(pending.cards)}
    elif isinstance(pending, CourtesanCard):
        doc["laying"] = {"slot": SET_SLOTS[pending.slot], "cards": _named(pending.cards)}
    elif isinstance(pending, Guild):
        doc["guild"] = HIEROGLYPHS[pending.symbol]
    elif isinstance(pending, (ThiefBack, VizierCard)):
        doc["target"] = pending.target  # chosen in the open (rules §4)
    if chooses_token(s, seat):
        doc["token_choice"] = {TOKENS[t]: k for t, k in enumerate(mine.token_choice) if k}
    elif knows_tokens(s, seat, memory):
        doc["tokens_known"] = {TOKENS[t]: k for t, k in enumerate(mine.tokens_known or ()) if k}
    searched = searched_pile(s, seat)
    if searched is not None:
        doc["vizier_pile"] = {"seat": searched, "cards": _named(mine.vizier_pile)}
    return doc
