"""What one seat may see (rules §10), decided once for every reader of the table.

The table's public part (the Nile with characters face down, the scores, the
sets, the discard, the revealed tokens, the round's summary, the sub-decision
in progress) is the same for everybody and read straight from the state. What
depends on the seat and the information mode is :func:`seat_view`'s: the
observation encoders (Python and compiled), the renderer and the resampler
read it, and none of them decides visibility for itself.
"""

from __future__ import annotations

from .phases import ChooseToken, VizierCard
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
