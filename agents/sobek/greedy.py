"""The greedy baseline: a one-step look-ahead on what the observation shows.

It values a hand by the sets it could lay soon (rules §6: scarabs times cards),
takes the card that most raises that value less a fixed price per corruption
card, lays the set worth most as soon as it can, and settles every
sub-decision by its immediate effect. At the round's end it lays the horizontal
sets that place the most cards (then the most scarabs), without weighing the
corruption penalty, and it discards every
family character a High Priest(ess) lets it discard.
"""

from __future__ import annotations

from agents.players.base import TableAgent
from sobek_env.sobek import actions as A
from sobek_env.sobek.catalogue import (
    AMULET,
    AMULET_SET,
    BEIGE,
    CHARACTER_KINDS,
    COURTESAN,
    CURSE,
    DECEIT,
    EMBALMING,
    FIRST_CHARACTER,
    FLOOD,
    GREEN,
    GUILDS,
    HIGH_PRIEST,
    HIGH_PRIESTESS,
    MERCHANT,
    ORANGE,
    PROSPERITY,
    PROSPERITY_GOODS,
    QUEEN,
    SCRIBE_FISH,
    SCRIBE_HAND_LIMIT,
    SCRIBE_WHEAT,
    SET_MIN_CARDS,
    TAKE_WINDOW,
    THIEF,
    VIZIER,
    Rules,
    next_space,
    previous_space,
)
from sobek_env.sobek.decode import HIDDEN, NUM_GOODS, View

from .sets import amulet_set_kinds, goods_groups, horizontal_layouts, table_for

CORRUPTION_PRICE = 2.0    # points a corruption card is assumed to cost
FILL_SCARABS = 0.7        # scarabs expected on a card still to come
COMPLETION = (0.0, 0.2, 0.5)  # chance that a group of 0, 1, 2 cards reaches a set
HIDDEN_CHARACTER = 2.0    # value of a face-down character on the Nile
MIN_SET = 3               # a set worth less is not laid yet (unless the round is ending)
FLOOD_VALUE = 3.0
AMULET_SET_VALUE = float(MIN_SET)  # an amulets-only set: a base a later extension multiplies, and an event
CHARACTER_VALUE = {QUEEN: 5.0, VIZIER: 2.5, THIEF: 2.5}  # powers without an exact one-step value


def group_value(cards: int, scarabs: int, table: tuple[int, int, int]) -> float:
    """What a hand group of one goods adds when laid, or its chance-weighted worth if still short."""
    on_table, table_scarabs, prosperity = table
    base = table_scarabs + 2 * prosperity
    if cards >= SET_MIN_CARDS:
        return (base + scarabs) * (on_table + cards) - base * on_table
    if cards == 0:
        return 0.0
    if on_table:
        return ((base + scarabs) * (on_table + cards) - base * on_table) * COMPLETION[cards]
    return (scarabs + FILL_SCARABS * (SET_MIN_CARDS - cards)) * SET_MIN_CARDS * COMPLETION[cards]


def hand_value(hand: list[int], tables: list[tuple[int, int, int]], rules: Rules) -> float:
    """Sum of the goods groups; amulets go one by one where they add most."""
    counts, scarabs = goods_groups(hand, rules)
    tables = [table_for(tables, g) for g in range(NUM_GOODS)]
    values = [group_value(counts[g], scarabs[g], tables[g]) for g in range(NUM_GOODS)]
    for _ in range(hand[AMULET]):
        best, best_g = 0.0, -1
        for g in range(NUM_GOODS):
            gain = group_value(counts[g] + 1, scarabs[g], tables[g]) - values[g]
            if gain > best:
                best, best_g = gain, g
        if best_g < 0:
            break
        counts[best_g] += 1
        values[best_g] += best
    return sum(values)


class GreedyAgent(TableAgent):
    """One-step look-ahead: best immediate set, else the take or character that adds most value."""

    name = "greedy"

    def act(self, observation: dict) -> int:
        view = self.table.game.decode(observation, self.table)
        action = _HANDLERS[view.phase](self, view)
        if not view.legal(action):  # a safety net: every handler aims at a legal id
            action = next(a for a in range(A.NUM_ACTIONS) if view.mask[a])
        return action

    # ------------------------------------------------------------------ start of a turn

    def _turn(self, v: View) -> int:
        tables = v.sets[0]
        best_set, best_value = -1, float(MIN_SET)
        ending = v.deck == 0
        for g in range(NUM_GOODS):
            if v.legal(A.SET + g):
                value = self._set_gain(v, g)
                if value >= best_value or (ending and value > 0):
                    best_set, best_value = A.SET + g, value
        if best_set >= 0:
            return best_set
        now = hand_value(v.hand, tables, v.rules)
        best, best_score = A.TAKE, float("-inf")
        for i in range(min(TAKE_WINDOW, len(v.nile))):
            score = self._card_gain(v, v.nile[i], now) - CORRUPTION_PRICE * i
            if score > best_score:
                best, best_score = A.TAKE + i, score
        for kind in CHARACTER_KINDS:
            if v.hand[kind]:
                v.hand[kind] -= 1
                rest = hand_value(v.hand, tables, v.rules)
                score = self._power(v, kind, rest) - (now - rest)  # the power, less the card's worth in hand
                v.hand[kind] += 1
                if score > best_score:
                    best, best_score = A.CHARACTER + kind - FIRST_CHARACTER, score
        return best

    def _card_gain(self, v: View, kind: int, now: float) -> float:
        if kind == HIDDEN:
            return HIDDEN_CHARACTER
        v.hand[kind] += 1
        gain = hand_value(v.hand, v.sets[0], v.rules) - now
        v.hand[kind] -= 1
        return gain

    def _set_gain(self, v: View, g: int) -> float:
        members = sum(v.hand[k] for k in v.members[g])
        table = table_for(v.sets[0], g)
        if not members and not table[0]:  # amulets only: a base for a later extension (rules §6)
            return AMULET_SET_VALUE
        cards = members + v.hand[AMULET]
        scarabs = sum(v.hand[k] * v.kind_scarabs[k] for k in v.members[g])
        return group_value(cards, scarabs, table)

    def _power(self, v: View, kind: int, now: float) -> float:
        """The immediate worth of a character's power, the card already out of the hand."""
        if kind == MERCHANT:
            return max((self._card_gain(v, k, now) for k in v.nile), default=0.0)
        if kind in (HIGH_PRIEST, HIGH_PRIESTESS):
            return CORRUPTION_PRICE * max(sum(v.pile[k] for k in v.members[g]) for g in range(NUM_GOODS))
        if kind in (SCRIBE_FISH, SCRIBE_WHEAT):
            return CORRUPTION_PRICE * sum(max(0, size - SCRIBE_HAND_LIMIT) for size in v.hand_size[1:])
        if kind == COURTESAN:
            return max((self._courtesan_gain(v, g)[0] for g in range(AMULET_SET + 1) if v.sets[0][g][0]),
                       default=0.0)
        return CHARACTER_VALUE[kind]

    def _courtesan_gain(self, v: View, g: int) -> tuple[float, list[int]]:
        """The best one or two fitting cards for the set in slot ``g`` and what they add."""
        on_table, scarabs, prosperity = v.sets[0][g]
        fits = amulet_set_kinds(v.sets[0], v.rules) if g == AMULET_SET else v.fits[g]
        fitting = sorted((k for k in fits for _ in range(v.hand[k])), key=lambda k: -v.kind_scarabs[k])[:2]
        base = scarabs + 2 * prosperity
        added = sum(v.kind_scarabs[k] for k in fitting)
        return (base + added) * (on_table + len(fitting)) - base * on_table, fitting

    # ------------------------------------------------------------------ sub-decisions

    def _build(self, v: View) -> int:
        for k in v.fits[v.phase_goods]:  # members first, amulets last
            if v.hand[k]:
                return A.CARD + k
        return A.DONE

    def _token(self, v: View) -> int:
        pos = v.scores[0]
        pile = sum(v.pile)
        value = {
            FLOOD: FLOOD_VALUE,
            CURSE: 2 * CORRUPTION_PRICE,
            # rules §7: Prosperity may also go on the amulets-only set
            PROSPERITY: 2 * max((v.sets[0][g][0] for g in (*PROSPERITY_GOODS, AMULET_SET)), default=0),
            EMBALMING: CORRUPTION_PRICE * pile,
            DECEIT: float(pile),
        }
        for g in GUILDS:
            earlier = [previous_space(v.scores[o], g) for o in range(1, v.n)]
            back = max((v.scores[o] - e for o, e in zip(range(1, v.n), earlier) if e is not None), default=0)
            value[g] = next_space(pos, g) - pos + back
        return A.TOKEN + max((t for t in value if v.token_choice[t]), key=value.__getitem__)

    def _leader(self, v: View) -> int:
        """The legal opponent target with the highest score."""
        options = [o for o in range(1, v.n) if v.legal(A.PLAYER + o)]
        return A.PLAYER + max(options, key=v.scores.__getitem__)

    def _prosperity(self, v: View) -> int:
        options = [A.SLOT_ACTIONS[g] for g in (*PROSPERITY_GOODS, AMULET_SET) if v.legal(A.SLOT_ACTIONS[g])]
        return max(options, key=lambda a: v.sets[0][A.ACTION_SLOT[a]][0])

    def _priest(self, v: View) -> int:
        return A.GOODS_CHOICE + max(range(NUM_GOODS), key=lambda g: sum(v.pile[k] for k in v.members[g]))

    def _vizier(self, v: View) -> int:
        return A.PLAYER + max(range(1, v.n), key=lambda o: v.pile_size[o])

    def _pick_card(self, v: View, pool: list[int]) -> int:
        """The card of ``pool`` (counts per kind) that adds most to the hand."""
        now = hand_value(v.hand, v.sets[0], v.rules)
        kinds = [k for k, c in enumerate(pool) if c]
        return A.CARD + max(kinds, key=lambda k: self._card_gain(v, k, now))

    def _scribe(self, v: View) -> int:
        now = hand_value(v.hand, v.sets[0], v.rules)
        kinds = [k for k, c in enumerate(v.hand) if c]

        def loss(k: int) -> float:
            v.hand[k] -= 1
            lost = now - hand_value(v.hand, v.sets[0], v.rules)
            v.hand[k] += 1
            return lost

        return A.CARD + min(kinds, key=loss)

    def _thief(self, v: View) -> int:
        return A.PLAYER + max(range(1, v.n), key=lambda o: (v.hand_backs[o][BEIGE], v.hand_size[o]))

    def _thief_back(self, v: View) -> int:
        # beige goods first, then characters, then plain start cards
        return next(A.BACK + b for b in (BEIGE, ORANGE, GREEN) if v.legal(A.BACK + b))

    def _courtesan(self, v: View) -> int:
        options = [g for g in range(AMULET_SET + 1) if v.legal(A.SLOT_ACTIONS[g])]
        return A.SLOT_ACTIONS[max(options, key=lambda g: self._courtesan_gain(v, g)[0])]

    def _courtesan_card(self, v: View) -> int:
        _, fitting = self._courtesan_gain(v, v.phase_goods)
        return A.CARD + fitting[0] if fitting else A.DONE

    def _merchant(self, v: View) -> int:
        now = hand_value(v.hand, v.sets[0], v.rules)
        return A.TAKE + max(range(len(v.nile)), key=lambda i: self._card_gain(v, v.nile[i], now))

    def _first_player(self, v: View) -> int:
        return A.PLAYER  # itself: the first pick of the fresh Nile

    def _priest_characters(self, v: View) -> int:
        """Every family character it may discard leaves the pile: one corruption card less each."""
        return next(a for a in range(A.CARD, A.DONE + 1) if v.legal(a))

    def _horizontal(self, v: View) -> int:
        layout = _most_cards(v, v.hand, _laid_goods(v))
        return A.SET + layout[0][0] if layout else A.DONE

    def _horizontal_set(self, v: View) -> int:
        return horizontal_card(v, lambda hand, laid: _most_cards(v, hand, laid))


def _laid_goods(v: View) -> set[int]:
    """The goods of the horizontal sets it laid this round's end (from its cards on the table)."""
    laid = v.horizontal[0]
    return {g for g in range(NUM_GOODS) if any(laid[k] for k in v.members[g])}


def _most_cards(v: View, hand: list[int], laid: set[int]) -> list:
    """The layout of horizontal sets that places the most cards, then scores the most scarabs."""
    def key(layout: list) -> tuple[int, int]:
        return (sum(sum(cards) for _, cards in layout),
                sum(c * v.kind_scarabs[k] for _, cards in layout for k, c in enumerate(cards)))

    return max(horizontal_layouts(hand, v.rules, laid), key=key)


def horizontal_card(v: View, plan) -> int:
    """The next card of the horizontal set being laid, following ``plan(hand, laid)`` made on the hand as
    it was before this set (so the same plan is found at every step); ``done`` once the set is complete."""
    building, goods = v.building, v.phase_goods
    hand = [h + b for h, b in zip(v.hand, building)]
    only_amulets = building[AMULET] == sum(building)
    target = None
    for declared, cards in plan(hand, _laid_goods(v)):
        if declared == goods and (only_amulets or cards[AMULET] != sum(cards)):
            target = cards
            break
    if target is not None:
        for k in v.fits[goods]:
            if v.hand[k] and building[k] < target[k]:
                return A.CARD + k
    if v.legal(A.DONE):
        return A.DONE
    return next(A.CARD + k for k in v.fits[goods] if v.hand[k])  # cannot stop below three cards


_HANDLERS = {
    None: GreedyAgent._turn,
    "set": GreedyAgent._build,
    "token": GreedyAgent._token,
    "guild": GreedyAgent._leader,
    "curse": GreedyAgent._leader,
    "prosperity": GreedyAgent._prosperity,
    "priest": GreedyAgent._priest,
    "vizier": GreedyAgent._vizier,
    "vizier_card": lambda agent, v: agent._pick_card(v, v.vizier_pile),
    "scribe": GreedyAgent._scribe,
    "thief": GreedyAgent._thief,
    "thief_back": GreedyAgent._thief_back,
    "courtesan": GreedyAgent._courtesan,
    "courtesan_card": GreedyAgent._courtesan_card,
    "merchant": GreedyAgent._merchant,
    "first_player": GreedyAgent._first_player,
    "priest_characters": GreedyAgent._priest_characters,
    "horizontal": GreedyAgent._horizontal,
    "horizontal_set": GreedyAgent._horizontal_set,
}
