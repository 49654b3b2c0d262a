"""The greedy baseline for Kleopatra: every decision by its immediate effect, corruption at a fixed price.

- At the start of a turn it plays the characters whose power pays at once (Beggar, Courtesan,
  Vizier), then goes to the quarry whenever it can build something, else takes the market stall
  that most raises the worth of its hand (the best visit its hand could pay for, plus its loose
  units) less :data:`AMULET_PRICE` talents per corrupt card.
- In the quarry it builds the visit worth most talents now (element values on the palace after the
  visit, the +2/+5 bonus; merchants charged their 3 end talents), pays for it and stops.
- A mosaic goes where it covers most palms (and squares beside walls built this visit, and claims
  a sanctuary); every sanctuary gets a statue while one is left.
- Sub-decisions: it keeps cards worth more than their amulets (Vizier, Envoy), gives a Beggar the
  cheapest card unless 2 talents are cheaper, keeps one extra card at the hand limit or plays its
  Smuggler, and offers a small fixed bid in a ceremony.
"""

from __future__ import annotations

from collections.abc import Callable

from agents.players.base import TableAgent
from sobek_env.kleopatra import actions as A
from sobek_env.kleopatra.catalogue import (
    BEGGAR,
    CORRUPT,
    COURTESAN,
    NUM_KINDS,
    RESOURCE_KINDS,
    SMUGGLER,
    STANDARD,
    VIZIER,
    Rules,
)

from .common import (
    UNSEEN_CORRUPT,
    UNSEEN_WORTH,
    Position,
    Pricing,
    best_plan,
    bid_step,
    hand_units,
    least_useful,
    mosaic_step,
    position,
    quarry_step,
    stall_cards,
    table_rules,
    unit_worth,
)

AMULET_PRICE = 1.5        # talents one amulet is assumed to cost
CHARACTER_WORTH = 1.0     # a character card kept in hand, before its amulets
GREEDY_BID = 3            # talents offered in a ceremony
BEGGAR_TALENTS = 2


class GreedyAgent(TableAgent):
    """One-step look-ahead on the observation: build what pays now, else take the best stall."""

    name = "greedy"
    price = AMULET_PRICE
    _rules: Rules | None = None

    def act(self, observation: dict) -> int:
        if self._rules is None:
            self._rules = table_rules(self.table)
        return self.decide(position(observation, self.table, self._rules))

    def decide(self, p: Position) -> int:
        """The action for a decoded observation (learned agents' ``advice`` features call it too)."""
        action = self.handlers()[p.view.phase](p)
        if not p.legal(action):  # a safety net: every handler aims at a legal id
            action = p.legal_ids()[0]
        return action

    def handlers(self) -> dict[str, Callable[[Position], int]]:
        return {
            "turn": self.turn, "refill": self.refill, "quarry": self.quarry, "mosaic_tile": self.mosaic_tile,
            "mosaic_orient": self.mosaic, "mosaic_square": self.mosaic, "anubis": self.anubis,
            "after": self.after, "hand_limit": self.hand_limit, "limit_discard": self.limit_discard,
            "beggar": self.beggar, "courtesan": self.courtesan, "envoy_resource": self.envoy_resource,
            "envoy_offer": self.envoy_offer, "envoy_accept": self.envoy_accept, "vizier": self.vizier,
            "scribe_die": self.scribe_die, "ceremony": self.ceremony,
        }

    # ------------------------------------------------------------------ values

    def pricing(self, p: Position) -> Pricing:
        return Pricing(tainted=0.0)

    def amulet_price(self, p: Position) -> float:
        return self.price

    def card_worth(self, p: Position, kind: int) -> float:
        """A card kept in hand: its units (a character: a fixed worth) less the amulet it owes at the end."""
        units = hand_units([int(j == kind) for j in range(NUM_KINDS)])
        worth = unit_worth(units) if kind in RESOURCE_KINDS else CHARACTER_WORTH
        return worth - self.amulet_price(p) * CORRUPT[kind]

    def hand_worth(self, p: Position, hand: list[int]) -> float:
        """The best visit ``hand`` (with the merchants) could pay for, plus its loose units."""
        pricing = self.pricing(p)
        plan = best_plan(p, hand, p.view.merchants[0], [0] * 7, 0, pricing)
        if plan is not None:
            return plan.value
        return unit_worth(hand_units(hand)) * pricing.leftover

    def stall_worth(self, p: Position, s: int) -> float:
        """How much taking stall ``s`` adds: the hand's worth with its face-up cards, the face-down
        cards at the average, every corrupt card at the amulet price, and the hand limit."""
        v = p.view
        up, down = stall_cards(v.stalls[s])
        hand = [v.hand[k] + up[k] for k in range(NUM_KINDS)]
        gain = self.hand_worth(p, hand) - self.hand_worth(p, v.hand)
        gain += sum(up[k] * CHARACTER_WORTH for k in range(NUM_KINDS) if k not in RESOURCE_KINDS)
        gain += down * (UNSEEN_WORTH * self.pricing(p).leftover - UNSEEN_CORRUPT * self.amulet_price(p))
        gain -= self.amulet_price(p) * sum(up[k] for k in range(NUM_KINDS) if CORRUPT[k])
        over = sum(hand) + down - p.rules.hand_limit
        if over > 0:
            gain -= self.amulet_price(p) * min(over, 1) + 0.5 * over
        return gain

    # ------------------------------------------------------------------ the turn

    def character(self, p: Position) -> int | None:
        """A character whose power pays at once: Beggar, Courtesan (a pile to search), Vizier (a deck)."""
        v = p.view
        if p.legal(A.character_action(BEGGAR)) and (p.view.num_players - 1) * BEGGAR_TALENTS > 2 * self.amulet_price(p):
            return A.character_action(BEGGAR)
        if p.legal(A.character_action(COURTESAN)) and v.discard_size:
            return A.character_action(COURTESAN)
        if p.legal(A.character_action(VIZIER)) and v.deck_size + v.discard_size:
            return A.character_action(VIZIER)
        return None

    def turn(self, p: Position) -> int:
        action = self.character(p)
        if action is not None:
            return action
        if p.legal(A.QUARRY) and self.wants_quarry(p):
            return A.QUARRY
        return self.best_stall(p)

    def wants_quarry(self, p: Position) -> bool:
        plan = best_plan(p, p.view.hand, p.view.merchants[0], [0] * 7, 0, self.pricing(p), nonempty=True)
        return plan is not None and plan.talents - 3 * plan.merchants > 0

    def best_stall(self, p: Position) -> int:
        stalls = [s for s in range(3) if p.legal(A.MARKET + s)]
        return max(stalls, key=lambda s: (self.stall_worth(p, s), -s)) if stalls else p.legal_ids()[0]

    def refill(self, p: Position) -> int:
        return next(A.STALL + s for s in range(3) if p.legal(A.STALL + s))

    def after(self, p: Position) -> int:
        action = self.character(p)
        return action if action is not None else A.END_TURN

    # ------------------------------------------------------------------ the quarry

    def quarry(self, p: Position) -> int:
        return quarry_step(p, self.pricing(p))

    def mosaic_tile(self, p: Position) -> int:
        top = p.view.top_tile
        if top is not None and p.legal(A.TILE + top):
            return A.TILE + top
        return p.legal_ids()[0]

    def mosaic(self, p: Position) -> int:
        return mosaic_step(p, self.amulet_price(p), 0.0)

    def anubis(self, p: Position) -> int:
        return A.YES

    # ------------------------------------------------------------------ the hand limit

    def hand_limit(self, p: Position) -> int:
        if p.legal(A.character_action(SMUGGLER)):
            return A.character_action(SMUGGLER)
        over = sum(p.view.hand) - p.rules.hand_limit
        return A.LIMIT_KEEP if over <= 1 else A.LIMIT_DISCARD

    def limit_discard(self, p: Position) -> int:
        kinds = [k for k in range(NUM_KINDS) if p.view.hand[k]]
        return A.CARD + least_useful(p, kinds, self.amulet_price(p))

    # ------------------------------------------------------------------ characters' sub-decisions

    def beggar(self, p: Position) -> int:
        kinds = [k for k in STANDARD if p.legal(A.CARD + k)]
        if kinds:
            k = min(kinds, key=lambda k: (self.card_worth(p, k), k))
            if not p.legal(A.TALENTS) or self.card_worth(p, k) < BEGGAR_TALENTS:
                return A.CARD + k
        return A.TALENTS

    def courtesan(self, p: Position) -> int:
        kinds = [k for k in range(NUM_KINDS) if p.legal(A.CARD + k)]
        return A.CARD + max(kinds, key=lambda k: (self.card_worth(p, k), -k))

    def envoy_resource(self, p: Position) -> int:
        def gain(r: int) -> float:
            hand = list(p.view.hand)
            hand[r] += 2
            return self.hand_worth(p, hand)
        return A.CARD + max(STANDARD, key=lambda r: (gain(r), -r))

    def envoy_offer(self, p: Position) -> int:
        r = p.view.envoy_resource
        if r is not None and p.legal(A.YES) and self.card_worth(p, r) < self.amulet_price(p):
            return A.YES
        return A.NO

    def envoy_accept(self, p: Position) -> int:
        r = p.view.envoy_resource
        if r is not None and p.legal(A.YES) and self.card_worth(p, r) > self.amulet_price(p):
            return A.YES
        return A.NO

    def vizier(self, p: Position) -> int:
        kinds = [k for k in range(NUM_KINDS) if p.legal(A.CARD + k)]
        if kinds:
            k = max(kinds, key=lambda k: (self.card_worth(p, k), -k))
            if self.card_worth(p, k) > self.amulet_price(p):
                return A.CARD + k
        return A.DONE

    def scribe_die(self, p: Position) -> int:
        return A.DIE_REMOVE if p.legal(A.DIE_REMOVE) else A.DIE_ADD

    def ceremony(self, p: Position) -> int:
        return bid_step(p, min(GREEDY_BID, p.view.talents[0]))
