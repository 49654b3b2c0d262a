"""The heuristic baseline for Kleopatra: a planner that heads for target visits, with a corruption standing.

**Planning.** A hand is worth the best *target visit* it is heading for (:mod:`.prospects`): up to four
elements with their talents and build bonus (rules §1.3, §5.3), less a price per unit still missing, plus a
little for the units left over. Every choice that changes the hand is measured by that worth: the stall it
takes (face-down cards at the catalogue's average), whether it builds now or gathers for a bigger visit
(a visit now keeps what is left for the next target, and gives up most of a market visit's gain), the cards
it pays, discards at the hand limit, gives a Beggar, offers an Envoy, keeps from a Vizier or takes with a
Courtesan. Walls go in the slots that lengthen an unbuilt gate part's run and beside mosaics; mosaics go on
palms, beside walls and where they close a sanctuary while it holds a statue of Anubis.

**Corruption.** The crocodile eats the most corrupt architect (rules §11.4), so every amulet is priced by
its *standing*: the amulets it would end with (its pyramid, one per corrupt card in hand, less its
sanctuaries' squares) minus what the most corrupt opponent is expected to end with (in ``memory`` mode his
known amulets and hand; in ``original`` mode, where opponents' pyramids are hidden, a careful opponent's
rate of :data:`OPPONENT_RATE` amulets per turn of the game, his hand, his sanctuaries and the last
ceremony's places). The ``tolerance`` knob in [0, 1] sets the safety margin it keeps below that opponent
(:data:`MARGIN` amulets at 0, none at 1) and the price of an amulet while it is safe; the price climbs
toward :data:`DANGER_PRICE` talents as the standing nears the margin.

- **Characters**: a held character costs an amulet at the end anyway (rules §11.1), so the Courtesan,
  the Vizier (keeping only what pays) and the Envoy (accepting only what pays) are played before the main
  action, and a Scribe turns a die for no amulet; the Beggar (one amulet more) only while an amulet is
  cheap. The Smuggler is kept for the hand limit.
- **Ceremonies**: it bids to win first place (3 amulets back, rules §10) when its standing is close, more
  the closer it is, nothing when safely clean; a Scribe removes a die when a ceremony would hurt.
- **Sheds**: at the hand limit it weighs keeping against discarding (corrupt cards first); it offers an
  opponent's Envoy cards it can spare (each takes an amulet back) while amulets are dear; it claims
  sanctuaries with its statues, saving one for a bigger sanctuary while many tiles remain.
"""

from __future__ import annotations

import math

import numpy as np

from sobek_env.game import Table
from sobek_env.kleopatra import actions as A
from sobek_env.kleopatra.catalogue import (
    BEGGAR,
    CHARACTERS,
    CORRUPT,
    COURTESAN,
    ENVOY,
    MERCHANT_VALUE,
    NUM_KINDS,
    RESOURCE_KINDS,
    SCRIBE,
    SMUGGLER,
    STANDARD,
    VIZIER,
)

from .common import (
    CARD_COUNTS,
    UNSEEN_CORRUPT,
    Plan,
    Position,
    affordable_plans,
    bid_step,
    build_action,
    corrupt_cards,
    hand_units,
    mosaic_step,
    pay_action,
    stall_cards,
    unit_worth,
)
from .greedy import GreedyAgent
from .prospects import Prospects

BEST = 1.0               # the default tolerance: the most tolerant won most against greedy (see the docs)
MARGIN = 4.0             # amulets kept below the most corrupt opponent at tolerance 0
SAFE_PRICE = (2.0, 0.7)  # talents per amulet while safe, at tolerance 0 and 1
DANGER_PRICE = 5.0       # talents per amulet at the margin and beyond
PRICE_SLOPE = 1.5        # amulets over which the price climbs from safe to danger
OPPONENT_RATE = 0.14     # amulets a careful opponent gathers per turn of the game (original mode)
OPPONENT_HAND = 0.3      # ... per card in his hand (its corrupt cards cost one each at the end)
LATE = 3                 # Cleopatra's step from which a spare statue takes any sanctuary
SMALL_SANCTUARY = 2      # squares: smaller sanctuaries wait for a bigger one while tiles remain
TILES_LEFT = 5           # ... that many tiles or fewer: take any sanctuary
CEREMONY_PLACES = (-3, 1, 2, 3, 4)
MARKET_KEPT = 0.6        # share of a market visit's gain still there after a quarry visit (a turn later)
PROSPECT_WEIGHT = 0.85   # weight of what a hand is heading for against talents earned now (it may never be built)
ENDING = 0.6             # ... times this once Cleopatra is one step from the palace
BEGGAR_GAIN = 1.6        # talents an opponent's answer to a Beggar is worth (2 talents or a card)
COURTESAN_GAIN = 2.0     # talents the best card of the discard pile adds, unseen
VIZIER_GAIN = 1.5        # talents a Vizier's draw adds, unseen (it keeps only what pays)
CHARACTER_OPTION = 0.5   # a character that can be played for no amulet (Envoy, Scribe)
ENVOY_SWING = 1.5        # an accepted Envoy card moves an amulet to the player from an opponent
LIMIT_CARD = 0.6         # talents a card discarded at the hand limit is worth, unseen
UNSEEN_MIX = np.array(CARD_COUNTS, dtype=float) / sum(CARD_COUNTS)  # a face-down card: the catalogue's mix


def check_tolerance(tolerance: object) -> float:
    """``tolerance`` as a float in [0, 1]; ValueError otherwise."""
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or math.isnan(tolerance) \
            or not 0.0 <= tolerance <= 1.0:
        raise ValueError(f"tolerance must be a number from 0 to 1, got {tolerance!r}")
    return float(tolerance)


def _minus(hand: list[int], kind: int, count: int = 1) -> list[int]:
    out = list(hand)
    out[kind] -= count
    return out


class HeuristicAgent(GreedyAgent):
    """Target-visit planning with a corruption standing (see the module docstring); ``tolerance`` in [0, 1]."""

    name = "heuristic"

    def __init__(self, table: Table, tolerance: float = BEST, seed: int | None = None) -> None:
        super().__init__(table, seed)
        self.tolerance = check_tolerance(tolerance)

    @staticmethod
    def prospects(p: Position) -> Prospects:
        """The target visits of this decision's palace (computed once per position)."""
        if "prospects" not in p.memo:
            p.memo["prospects"] = Prospects(p)
        return p.memo["prospects"]

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
        estimate = OPPONENT_RATE * v.turn + OPPONENT_HAND * v.hand_sizes[i]
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

    def amulet_price(self, p: Position, extra: float = 1.0) -> float:
        """Talents one more amulet costs: cheap while far below the margin, :data:`DANGER_PRICE` beyond it."""
        low, high = SAFE_PRICE
        safe = low + (high - low) * self.tolerance
        x = (self.standing(p) + extra + MARGIN * (1.0 - self.tolerance)) / PRICE_SLOPE
        return safe + (DANGER_PRICE - safe) / (1.0 + math.exp(-4.0 * (x + 0.5)))

    @staticmethod
    def prospect_weight(p: Position) -> float:
        """Weight of what a hand is heading for, against talents earned now: less once the game may end at
        the next completed category (rules §11)."""
        return PROSPECT_WEIGHT * (ENDING if p.view.cleopatra >= 4 else 1.0)

    def hand_worth(self, p: Position, hand: list[int] | np.ndarray, merchants: int | None = None) -> float:
        merchants = p.view.merchants[0] if merchants is None else merchants
        return self.prospects(p).hand_worth(hand, merchants) * self.prospect_weight(p)

    def character_worth(self, p: Position, kind: int) -> float:
        """Talents a character in hand is worth, its amulets priced (held to the end, it costs one)."""
        price = self.amulet_price(p)
        held = -price
        if kind == BEGGAR:
            return max(held, (p.view.num_players - 1) * BEGGAR_GAIN - 2 * price)
        if kind == COURTESAN:
            return COURTESAN_GAIN - price
        if kind == VIZIER:
            return VIZIER_GAIN
        if kind in (ENVOY, SCRIBE):
            return CHARACTER_OPTION
        return held + CHARACTER_OPTION  # the Smuggler: an amulet, but it saves a hand-limit discard

    def card_loss(self, p: Position, hand: list[int], kind: int) -> float:
        """Talents lost by giving up one card of ``kind`` from ``hand`` (a corrupt card saves its amulet)."""
        if kind in CHARACTERS:
            return self.character_worth(p, kind)
        loss = self.hand_worth(p, hand) - self.hand_worth(p, _minus(hand, kind))
        return loss - self.amulet_price(p, 0.0) * CORRUPT[kind]

    def card_gain(self, p: Position, hand: list[int], kind: int) -> float:
        """Talents gained by taking one card of ``kind`` into ``hand`` (its end amulet priced)."""
        if kind in CHARACTERS:
            return self.character_worth(p, kind)
        more = list(hand)
        more[kind] += 1
        return self.hand_worth(p, more) - self.hand_worth(p, hand) - self.amulet_price(p) * CORRUPT[kind]

    # ------------------------------------------------------------------ the market

    def stall_value(self, p: Position, s: int) -> float:
        """The hand's worth after taking stall ``s``: its face-up cards, face-down cards at the catalogue's
        mix, every corrupt card at the amulet price, characters at their worth, and the hand limit."""
        v = p.view
        up, down = stall_cards(v.stalls[s])
        hand = np.array(v.hand, dtype=float) + np.array(up, dtype=float) + down * UNSEEN_MIX
        worth = self.hand_worth(p, hand)
        amulets = sum(up[k] for k in RESOURCE_KINDS if CORRUPT[k]) + down * UNSEEN_CORRUPT
        worth -= self.amulet_price(p, amulets) * amulets
        worth += sum(up[k] * self.character_worth(p, k) for k in CHARACTERS)
        over = sum(v.hand) + sum(up) + down - p.rules.hand_limit
        if over > 0 and not v.hand[SMUGGLER] and not up[SMUGGLER]:
            worth -= self.amulet_price(p) + LIMIT_CARD * over
        return worth

    def turn(self, p: Position) -> int:
        action = self.character(p)
        if action is not None:
            return action
        stalls = [s for s in range(3) if p.legal(A.MARKET + s)]
        values = {A.MARKET + s: self.stall_value(p, s) for s in stalls}
        if p.legal(A.QUARRY):
            plan = self.visit(p, p.view.hand, p.view.merchants[0], [0] * 7, 0)
            if plan is not None:
                gain = max(values.values(), default=0.0) - self.hand_worth(p, p.view.hand)
                values[A.QUARRY] = plan.value + MARKET_KEPT * max(0.0, gain)
        if not values:
            return p.legal_ids()[0]
        return max(values, key=lambda a: (values[a], -a))

    # ------------------------------------------------------------------ the quarry

    def visit(self, p: Position, hand: list[int], merchants: int, pool: list[int], already: int) -> Plan | None:
        """The best set of elements to build now from ``pool``, ``hand`` and ``merchants``: talents (and the
        build bonus) less the merchants' end value, plus the worth of what it leaves for the next target."""
        pr, weight = self.prospects(p), self.prospect_weight(p)
        best: Plan | None = None
        for plan, left in affordable_plans(p, hand, merchants, pool, already):
            after = pr.hand_worth(left, merchants - plan.merchants, built=plan.counts) * weight
            plan.value = plan.talents - MERCHANT_VALUE * plan.merchants + after
            if best is None or plan.value > best.value:
                best = plan
        return best

    def quarry(self, p: Position) -> int:
        v = p.view
        already = sum(v.built)
        plan = self.visit(p, v.hand, v.merchants[0], v.pool, already)
        stop = self.hand_worth(p, v.hand)
        if plan is not None and (not already or plan.value > stop):
            action = build_action(p, plan) or pay_action(p, plan)
            if action is not None:
                return action
        if p.legal(A.DONE):
            return A.DONE
        return super().quarry(p)

    def mosaic(self, p: Position) -> int:
        return mosaic_step(p, max(1.0, self.amulet_price(p, 0.0)), 0.3)

    def anubis(self, p: Position) -> int:
        v = p.view
        big = len(v.offered_sanctuary) >= SMALL_SANCTUARY
        ending = sum(v.in_quarry) <= TILES_LEFT or (v.statues[0] >= 2 and v.cleopatra >= LATE)
        return A.YES if big or ending else A.NO

    # ------------------------------------------------------------------ characters

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
        gain = (v.num_players - 1) * BEGGAR_GAIN
        if p.legal(A.character_action(BEGGAR)) and gain > self.amulet_price(p, 2.0):
            return A.character_action(BEGGAR)
        return None

    def courtesan(self, p: Position) -> int:
        kinds = [k for k in range(NUM_KINDS) if p.legal(A.CARD + k)]
        return A.CARD + max(kinds, key=lambda k: (self.card_gain(p, p.view.hand, k), -k))

    def vizier(self, p: Position) -> int:
        kinds = [k for k in range(NUM_KINDS) if p.legal(A.CARD + k)]
        if kinds:
            k = max(kinds, key=lambda k: (self.card_gain(p, p.view.hand, k), -k))
            if self.card_gain(p, p.view.hand, k) > self.amulet_price(p):
                return A.CARD + k
        return A.DONE

    def envoy_resource(self, p: Position) -> int:
        return A.CARD + max(STANDARD, key=lambda r: (self.card_gain(p, p.view.hand, r), -r))

    def envoy_accept(self, p: Position) -> int:
        r = p.view.envoy_resource
        if r is not None and p.legal(A.YES) and self.card_gain(p, p.view.hand, r) > ENVOY_SWING * self.amulet_price(p):
            return A.YES
        return A.NO

    def envoy_offer(self, p: Position) -> int:
        v = p.view
        r = v.envoy_resource
        if r is None or not p.legal(A.YES) or v.amulets[0] <= v.envoy_offers[0]:
            return A.NO
        hand = _minus(v.hand, r, v.envoy_offers[0])
        if self.card_loss(p, hand, r) < ENVOY_SWING * self.amulet_price(p, -1.0):
            return A.YES
        return A.NO

    def beggar(self, p: Position) -> int:
        v = p.view
        kinds = [k for k in STANDARD if p.legal(A.CARD + k)]
        if kinds:
            k = min(kinds, key=lambda k: (self.card_loss(p, v.hand, k), k))
            if not p.legal(A.TALENTS) or self.card_loss(p, v.hand, k) < 2.0:
                return A.CARD + k
        return A.TALENTS

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

    # ------------------------------------------------------------------ the hand limit

    def hand_limit(self, p: Position) -> int:
        v = p.view
        if p.legal(A.character_action(SMUGGLER)):
            return A.character_action(SMUGGLER)
        over = sum(v.hand) - p.rules.hand_limit
        hand, lost = list(v.hand), 0.0
        for _ in range(over):
            k = self.least_needed(p, hand)
            lost += self.card_loss(p, hand, k)
            hand[k] -= 1
        keep = self.amulet_price(p, over) * over
        return A.LIMIT_KEEP if keep < self.amulet_price(p) + lost else A.LIMIT_DISCARD

    def least_needed(self, p: Position, hand: list[int]) -> int:
        kinds = [k for k in range(NUM_KINDS) if hand[k]]
        return min(kinds, key=lambda k: (self.card_loss(p, hand, k), k))

    def limit_discard(self, p: Position) -> int:
        return A.CARD + self.least_needed(p, p.view.hand)

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
