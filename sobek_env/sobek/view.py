"""What one seat may see (rules §10), decided once for every reader of the table.

The table's public part (the Nile with characters face down, the scores, the
sets, the discard, the revealed tokens, the round's summary, the sub-decision
in progress) is the same for everybody and read straight from the state. What
depends on the seat and the information mode is :func:`seat_view`'s: the
observation encoders (Python and compiled), the renderer and the resampler
read it, and none of them decides visibility for itself.
"""

from __future__ import annotations

from typing import Any

from .catalogue import BACKS, FACE_UP_ON_NILE, HIEROGLYPHS, KINDS, ROUNDS, SET_SLOTS, TAKE_WINDOW, TOKENS
from .phases import TURN_START, BuildSet, ChooseToken, CourtesanCard, Guild, HorizontalSet, ThiefBack, VizierCard
from .scoring import TableSet, scarabs_of, vertical_value
from .state import GameState


class SeatView:
    """A seat's private view of a state, in ``memory`` mode or not, filled by :meth:`see`. Lists are the
    state's own (read them, never write them); a field is None where the seat may not see it.

    An observer keeps one and refills it at every observation (a new object each time cost more than
    the filling); :func:`seat_view` gives a fresh one."""

    __slots__ = ("memory", "seat", "hand", "pile", "opponent_piles", "known_hands", "known_piles", "token_choice",
                 "tokens_known", "vizier_pile")

    def __init__(self, memory: bool) -> None:
        self.memory = memory
        self.opponent_piles = memory  # the size of each opponent's pile by back (memory mode only)

    def see(self, s: GameState, seat: int) -> SeatView:
        """Fill the view with what ``seat`` sees of ``s`` now; returns it."""
        memory = self.memory
        self.seat = seat
        self.hand = s.hands[seat]
        self.pile = s.piles[seat]
        if memory:  # what he remembers of each seat's hand and pile, glimpses included, by seat (his own
            # rows too: they hold only what he saw; readers take the opponents')
            self.known_hands, self.known_piles = s.known_hands[seat], s.known_piles[seat]
        else:
            self.known_hands = self.known_piles = None
        acting = s.current_player == seat and not s.over
        pending = s.pending
        self.token_choice = s.tokens if acting and type(pending) is ChooseToken else None
        self.tokens_known = s.tokens if memory and s.token_glimpse[seat] else None
        self.vizier_pile = s.piles[pending.target] if acting and type(pending) is VizierCard else None
        return self


def seat_view(s: GameState, seat: int, memory: bool) -> SeatView:
    """What ``seat`` sees of ``s`` beyond the public table, in ``memory`` mode or not."""
    return SeatView(memory).see(s, seat)


def _named(counts: list[int]) -> dict[str, int]:
    return {KINDS[k]: n for k, n in enumerate(counts) if n}


def document(s: GameState, seat: int, memory: bool) -> dict[str, Any]:
    """What ``seat`` sees of ``s`` (the public table and :func:`seat_view`), as JSON-able values: the web app's
    table. Cards are counts by kind name; a character on the Nile is ``null`` (face down, rules §5)."""
    view = seat_view(s, seat, memory)
    n, pending = s.rules.num_players, s.pending
    seats = []
    for p in range(n):
        own = p == seat
        entry: dict[str, Any] = {
            "seat": p, "score": s.markers[p], "hand_size": sum(s.hands[p]),
            "hand_backs": dict(zip(BACKS, s.hand_backs(p))), "curses": s.curses[p],
            "sets": [{"slot": SET_SLOTS[slot], "cards": _named(t.cards), "prosperity": t.prosperity,
                      "value": vertical_value(TableSet(t.cards, t.prosperity), s.rules)}
                     for slot, t in enumerate(s.sets[p]) if t is not None],
            "horizontal": [{"slot": SET_SLOTS[slot], "cards": _named(cards), "value": scarabs_of(cards, s.rules)}
                           for slot, cards in s.horizontal[p]],
        }
        if own:
            entry["hand"], entry["pile"] = _named(view.hand), _named(view.pile)
        if own or view.opponent_piles:  # rules §10: pile sizes of others only with memory
            entry["pile_size"] = sum(s.piles[p])
        if view.known_hands is not None and not own:
            entry["remembered_hand"], entry["remembered_pile"] = (_named(view.known_hands[p]),
                                                                  _named(view.known_piles[p]))
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
    if view.token_choice is not None:
        doc["token_choice"] = {TOKENS[t]: k for t, k in enumerate(view.token_choice) if k}
    elif view.tokens_known is not None:
        doc["tokens_known"] = {TOKENS[t]: k for t, k in enumerate(view.tokens_known) if k}
    if view.vizier_pile is not None:
        doc["vizier_pile"] = {"seat": pending.target, "cards": _named(view.vizier_pile)}
    return doc
