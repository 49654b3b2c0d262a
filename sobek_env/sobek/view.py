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
    """``seat``'s private view of a state. Lists are the state's own (read them, never write them);
    a field is None where the seat may not see it. Opponents' rows follow the seat order after him."""

    __slots__ = ("seat", "hand", "pile", "opponent_piles", "known_hands", "known_piles", "token_choice",
                 "tokens_known", "vizier_pile")

    def __init__(self, s: GameState, seat: int, memory: bool) -> None:
        self.seat = seat
        self.hand = s.hands[seat]
        self.pile = s.piles[seat]
        self.opponent_piles = memory  # the size of each opponent's pile by back (memory mode only)
        if memory:  # what he remembers of each opponent's hand and pile, glimpses included
            hands, piles = s.known_hands[seat], s.known_piles[seat]
            self.known_hands = hands[seat + 1:] + hands[:seat]
            self.known_piles = piles[seat + 1:] + piles[:seat]
        else:
            self.known_hands = self.known_piles = None
        acting = s.current_player == seat and not s.over
        pending = s.pending
        self.token_choice = s.tokens if acting and type(pending) is ChooseToken else None
        self.tokens_known = s.tokens if memory and s.token_glimpse[seat] else None
        self.vizier_pile = s.piles[pending.target] if acting and type(pending) is VizierCard else None


def seat_view(s: GameState, seat: int, memory: bool) -> SeatView:
    """What ``seat`` sees of ``s`` beyond the public table, in ``memory`` mode or not."""
    return SeatView(s, seat, memory)
