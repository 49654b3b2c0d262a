"""The heuristic baseline for Kleopatra: the greedy planner, with a corruption standing and a plan.

The crocodile eats the most corrupt architect (rules §11.4), so everything turns on one estimate:
its *standing*, the amulets it would end with (its pyramid, plus one per corrupt card in hand, less
its sanctuaries' squares) minus what the most corrupt opponent is expected to end with (in
``memory`` mode his known amulets and hand; in ``original`` mode, where opponents' pyramids are
hidden, a clean opponent's rate of :data:`OPPONENT_RATE` amulets per turn, corrected by the last
ceremony's places and his sanctuaries). The ``tolerance`` knob in [0, 1] sets the safety margin it
keeps below that opponent (:data:`MARGIN` amulets at 0, none at 1) and the price of an amulet while
it is safe; once inside the margin an amulet costs :data:`DANGER_PRICE` talents.

- **Building**: it plans visits from its hand and the market like the greedy player (waiting for a
  bigger visit measured no better: elements are a race) and builds whenever it can. Walls go first
  in the slots that lengthen an unbuilt gate part's run; a gate part is built after them; mosaics
  go on palms, beside walls built this visit, and where they close a sanctuary while it holds a statue of Anubis.
- **Characters**: a held character costs an amulet at the end anyway, so Courtesan, Vizier, Envoy
  and Scribe (turning a die) cost nothing more and are played when they pay; the Beggar (one amulet
  more) only while safe. The Smuggler is kept for the hand limit.
- **Ceremonies**: it bids high when it stands near the top of the corruption table (first place
  gives back 3 amulets, last place takes n-1), a little when close, nothing when safely clean; a Scribe
  removes a die when a ceremony would hurt.
- **Corruption sheds**: at the hand limit it discards corrupt cards first; it offers an Envoy cards it
  can spare while in danger; it saves a statue for a sanctuary of two squares or more while many
  tiles are left.
"""

from __future__ import annotations

import math

from sobek_env.game import Table
from sobek_env.kleopatra import actions as A
from sobek_env.kleopatra.catalogue import (
    BEGGAR,
    CORRUPT,
    COURTESAN,
    ENVOY,
    NUM_KINDS,
    RESOURCE_KINDS,
    SCRIBE,
    SMUGGLER,
    VIZIER,
)

from .common import (
    UNSEEN_CORRUPT,
    Position,
    Pricing,
    bid_step,
    corrupt_cards,
    hand_units,
    mosaic_step,
    stall_cards,
    unit_worth,
)
from .greedy import GreedyAgent

BEST = 0.5               # the default tolerance
MARGIN = 4.0             # amulets kept below the most corrupt opponent at tolerance 0
SAFE_PRICE = (2.0, 0.7)  # talents per amulet while safe, at tolerance 0 and 1
DANGER_PRICE = 5.0       # talents per amulet once inside the margin
OPPONENT_RATE = 0.45     # amulets a clean opponent gathers per turn of his (original mode)
LATE = 3                 # Cleopatra's step from which a spare statue takes any sanctuary
SMALL_SANCTUARY = 2      # squares: smaller sanctuaries wait for a bigger one while tiles remain
TILES_LEFT = 5           # ... that many tiles or fewer: take any sanctuary
CEREMONY_PLACES = (-3, 1, 2, 3, 4)


def check_tolerance(tolerance: object) -> float:
    """``tolerance`` as a float in [0, 1]; ValueError otherwise."""
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or math.isnan(tolerance) \
            or not 0.0 <= tolerance <= 1.0:
        raise ValueError(f"tolerance must be a number from 0 to 1, got {tolerance!r}")
    return float(tolerance)


class HeuristicAgent(GreedyAgent):
    """The greedy planner with a corruption standing (see the module docstring); ``tolerance`` in [0, 1]."""

    name = "heuristic"

    def __init__(self, table: Table, tolerance: float = BEST, seed: int | None = None) -> None:
        super().__init__(table, seed)
        self.tolerance = check_tolerance(tolerance)

    # ------------------------------------------------------------------ the corruption standing

    def own_final(self, p: Position) -> float:
        """Amulets it would end with: its pyramid, its corrupt cards, less its sanctuaries."""
        v = p.view
        return v.amulets[0] + corrupt_cards(v.hand) - v.sanctuary_squares[0]

    def opponent_final(self, p: Position, i: int) -> float:
        """Amulets opponent ``i`` (relative seat) is expected to end with."""
        v = p.view
        if self.table.observation_mode == "memory":
            known = v.known_hands[i - 1]
            unknown = max(0, v.hand_sizes[i] - sum(known))
            held = corrupt_cards(known) + UNSEEN_CORRUPT * unknown
            return v.amulets[i] + held - v.sanctuary_squares[i]
        estimate = OPPONENT_RATE * v.turn / v.num_players + UNSEEN_CORRUPT * v.hand_sizes[i]
        if v.last_places[i]:
            estimate += CEREMONY_PLACES[v.last_places[i] - 1]
        return max(0.0, estimate) - v.sanctuary_squares[i]

    def standing(self, p: Position) -> float:
        """Own expected final amulets minus the most corrupt opponent's (positive: it would be eaten)."""
        top = max(self.opponent_final(p, i) for i in range(1, p.view.num_players))
        return self.own_final(p) - top

    def danger(self, p: Position, extra: float = 0.0) -> bool:
        """Whether ``extra`` more amulets would bring it inside the safety margin."""
        return self.standing(p) + extra > -MARGIN * (1.0 - self.tolerance)

    def amulet_price(self, p: Position) -> float:
        if self.danger(p, 1.0):
            return DANGER_PRICE
        low, high = SAFE_PRICE
        return low + (high - low) * self.tolerance

    def pricing(self, p: Position) -> Pricing:
        return Pricing(tainted=0.2)

    # ------------------------------------------------------------------ the turn

    def character(self, p: Position) -> int | None:
        v = p.view
        if p.legal(A.character_action(COURTESAN)) and v.discard_size:
            return A.character_action(COURTESAN)
        if p.legal(A.character_action(VIZIER)) and v.deck_size + v.discard_size:
            return A.character_action(VIZIER)
        if p.legal(A.character_action(ENVOY)):
            return A.character_action(ENVOY)
        if p.legal(A.character_action(SCRIBE)) and (v.altar or not self.ceremony_hurts(p)):
            return A.character_action(SCRIBE)
        gain = (v.num_players - 1) * 2.0
        if p.legal(A.character_action(BEGGAR)) and gain > self.amulet_price(p):
            return A.character_action(BEGGAR)
        return None

    def refill(self, p: Position) -> int:
        """Spoil the market for the next player: a corrupt card on the richest stall, a good one on the poorest."""
        v = p.view
        card = v.refill_cards[0] if v.refill_cards else None
        stalls = [s for s in range(3) if p.legal(A.STALL + s)]

        def richness(s: int) -> float:
            up, down = stall_cards(v.stalls[s])
            return unit_worth(hand_units([up[k] if k in RESOURCE_KINDS else 0 for k in range(NUM_KINDS)])) + down

        bad = card is not None and card < NUM_KINDS and CORRUPT[card]
        return A.STALL + (max if bad else min)(stalls, key=lambda s: (richness(s), -s))

    # ------------------------------------------------------------------ the quarry

    def mosaic(self, p: Position) -> int:
        return mosaic_step(p, self.amulet_price(p), 0.3)

    def anubis(self, p: Position) -> int:
        v = p.view
        big = len(v.offered_sanctuary) >= SMALL_SANCTUARY
        ending = sum(v.in_quarry) <= TILES_LEFT or (v.statues[0] >= 2 and v.cleopatra >= LATE)
        return A.YES if big or ending else A.NO

    # ------------------------------------------------------------------ the hand limit

    def hand_limit(self, p: Position) -> int:
        if p.legal(A.character_action(SMUGGLER)):
            return A.character_action(SMUGGLER)
        over = sum(p.view.hand) - p.rules.hand_limit
        if over <= 1 and not corrupt_cards(p.view.hand):
            return A.LIMIT_KEEP
        return A.LIMIT_DISCARD

    # ------------------------------------------------------------------ ceremonies and dice

    def ceremony_hurts(self, p: Position) -> bool:
        """Whether a ceremony now would likely cost it: in danger with few talents to bid."""
        return self.danger(p) and p.view.talents[0] < self.danger_bid(p)

    def danger_bid(self, p: Position) -> int:
        v = p.view
        others = [v.last_offers[i] for i in range(1, v.num_players) if v.last_places[i]]
        return max(4, max(others, default=0) + 1)

    def scribe_die(self, p: Position) -> int:
        v = p.view
        if v.altar == 4 and p.legal(A.DIE_ADD) and self.danger(p) and not self.ceremony_hurts(p):
            return A.DIE_ADD  # a ceremony it can win
        if p.legal(A.DIE_REMOVE):
            return A.DIE_REMOVE
        return A.DIE_ADD

    def ceremony(self, p: Position) -> int:
        v = p.view
        talents = v.talents[0]
        if self.danger(p, v.num_players - 1):
            target = min(talents // 2, self.danger_bid(p))
        elif self.danger(p, v.num_players + 2):
            target = min(talents // 3, 3)
        else:
            target = min(talents // 5, 1)
        return bid_step(p, target)
