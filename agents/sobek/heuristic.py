"""The heuristic baseline: a set-collecting strategy that watches the corruption race.

Every choice is scored by one estimate, :meth:`Model.value`: the points the
agent's sets and hand should bring this round (rules §6: scarabs times cards,
with the cards it can still expect of each goods), less the expected loss of
being the most corrupt (rules §8.3, about half the round's points) plus the
expected gain of an opponent being so. The hand's cards that cannot be laid in
time count as corruption (rules §5). ``tolerance`` scales the corruption terms
(0: avoids corruption, 1: ignores it).

At the round's end it chooses among the layouts of horizontal sets its hand allows
(laying none included) by the same estimate, with the penalty it would pay counted
exactly on the scoring track: a most-corrupt player may decline points that would
push him past a multiple of 10. An amulets-only set counts as the base of the goods
it would take (rules §6); family characters in the pile are kept only when an
Embalming or a Deceit may still make them pay.
"""

from __future__ import annotations

import math
from numbers import Real

from agents.players.base import TableAgent
from sobek_env.compiled import extension
from sobek_env.game import Table
from sobek_env.sobek import actions as A
from sobek_env.sobek.catalogue import (
    AMULET,
    AMULET_SET,
    BACKS,
    CHARACTER_KINDS,
    COURTESAN,
    CURSE,
    CURSE_WEIGHT,
    DECEIT,
    EMBALMING,
    FIRST_CHARACTER,
    FLOOD,
    GREEN,
    GUILDS,
    HIGH_PRIEST,
    HIGH_PRIESTESS,
    KIND_BACK,
    MERCHANT,
    NUM_KINDS,
    NUM_TOKEN_KINDS,
    ORANGE,
    PROSPERITY,
    PROSPERITY_GOODS,
    PROSPERITY_SCARABS,
    QUEEN,
    QUEEN_DRAW,
    SCRIBE_FISH,
    SCRIBE_HAND_LIMIT,
    SCRIBE_WHEAT,
    SET_MIN_CARDS,
    TAKE_WINDOW,
    THIEF,
    TOKEN_COUNTS,
    VIZIER,
    next_space,
    previous_space,
)
from sobek_env.sobek.decode import HIDDEN, NUM_GOODS, View, at_least
from sobek_env.sobek.scoring import penalised_position

from .greedy import _laid_goods, horizontal_card
from .sets import (
    Layout,
    after_set,
    amulet_set_kinds,
    goods_groups,
    horizontal_layouts,
    layout_points,
    table_for,
)

_points = extension("._points", __package__)  # None: Model.hand_points's Python body serves
assert _points is None or _points.GOODS_COUNT == NUM_GOODS

BEST = 0.35              # default tolerance: the best of 0.1 to 0.5 against the greedy baseline

CARDS_PER_TAKE = 2.0     # Nile cards per take of each player, discounting turns spent on sets and characters
FOCUS = 1.5              # how much more often than chance the agent finds cards of a goods it wants
PENALTY_SHARE = 0.5      # most corrupt: a lot per 10 points, each lot about 5 spaces back (rules §8.3)
OPP_LEFTOVER = 0.5       # share of an opponent's hand expected to end the round in his pile
OPP_FINAL_LEFTOVER = 0.8  # the same when the round ends now (some of it makes horizontal sets)
OPP_CARD_POINTS = 2.0    # points an opponent's hand card is expected to bring him
SIGMA_BASE, SIGMA_PER_CARD = 1.0, 0.1  # spread of the corruption race, wider with more cards to come
SIGMA_END = 0.6
HIDDEN_VALUE = 4.0       # a face-down character on the Nile
FLOOD_VALUE = 4.0        # an extra turn
VIZIER_VALUE = 4.0       # the best card of a pile we cannot see
THIEF_VALUE = 3.0        # a random card of a hand we cannot see
HOLD = {                 # worth of keeping a character for a better moment, early in a round
    QUEEN: 8.0, VIZIER: 4.0, MERCHANT: 8.0, HIGH_PRIEST: 6.0, THIEF: 4.0,
    HIGH_PRIESTESS: 6.0, SCRIBE_FISH: 4.0, SCRIBE_WHEAT: 4.0, COURTESAN: 6.0,
}
HOLD_TURNS = 3.0         # the hold value fades over the agent's last turns of the round
SCRIBE_RISK = 1.0        # share of the cards above 6 in hand lost per Scribe an opponent may hold (rules §4)
TOKEN_USE = 0.5          # chance of laying a set in time to draw a given face-down token


class Model:
    """The agent's estimate of its round, built once per decision from a :class:`View`."""

    def __init__(self, v: View, weight: float) -> None:
        self.v = v
        self.weight = weight
        n = v.n
        left = v.deck + len(v.nile)
        self.turns = left / (n * CARDS_PER_TAKE)  # the agent's takes still to come
        unseen = v.unseen
        pool = v.coming_total or 1.0
        self.deck_share = [c / pool for c in v.coming]
        share = min(1.0, self.turns * FOCUS / pool)  # of the cards to come, the share the agent gets
        self.future = [c * share for c in v.coming]
        self.future_scarabs = [c * share for c in v.coming_scarabs]
        self.future_amulets = v.coming_amulets * share
        self.amulet_share = v.coming_amulets / pool
        self.risk = math.exp(-self.turns)  # the round ends before a set held in hand is laid
        self.hold = min(1.0, self.turns / HOLD_TURNS)
        in_hands = sum(v.hand_backs[o][ORANGE] for o in range(1, n))  # unseen characters held by opponents
        held = min(1.0, in_hands / (sum(unseen[k] for k in CHARACTER_KINDS) or 1.0))
        self.scribe_threat = SCRIBE_RISK * (unseen[SCRIBE_FISH] + unseen[SCRIBE_WHEAT]) * held
        self.sigma = SIGMA_BASE + SIGMA_PER_CARD * left
        self.opp_corruption = [
            v.pile_size[o] + CURSE_WEIGHT * v.curses[o] + OPP_LEFTOVER * v.hand_size[o] for o in range(1, n)
        ]
        self.opp_points = [v.set_points[o] + OPP_CARD_POINTS * v.hand_size[o] for o in range(1, n)]
        self.opp_weight = 1.0 / (n - 1)
        self.corruption = sum(v.pile) + CURSE_WEIGHT * v.curses[0]
        self.tables = [tuple(t) for t in v.sets[0]]
        self._tokens: list[float] | None = None
        self.base = self.value(v.hand)

    # ------------------------------------------------------------------ the estimate

    def group(self, g: int, cards: int, scarabs: float, table: tuple[int, int, int]) -> tuple[float, float]:
        """(expected points, expected leftover cards) of a hand group of goods ``g``."""
        on_table, table_scarabs, prosperity = table
        if not cards and not on_table:
            return 0.0, 0.0
        base = table_scarabs + PROSPERITY_SCARABS * prosperity
        future = self.future[g]
        gain = (base + scarabs + self.future_scarabs[g]) * (on_table + cards + future) - base * on_table
        need = SET_MIN_CARDS - cards
        if need <= 0:  # complete: laid in time, or else a horizontal set of its scarabs (rules §5)
            return gain * (1.0 - self.risk) + self.risk * scarabs, 0.0
        chance = at_least(future + self.future_amulets, need)
        return chance * gain, (1.0 - chance) * cards

    def hand_points(self, hand: list[int], tables: list[tuple[int, int, int]]) -> tuple[float, float]:
        """(expected points, expected leftover cards) of a hand; amulets go where they add most. Compiled
        (``_points.hand_points``, the same floats) where built; :meth:`python_hand_points` is the reference."""
        if _points is not None:
            return _points.hand_points(self, hand, tables, _effective_tables, HOLD)
        return self.python_hand_points(hand, tables)

    def python_hand_points(self, hand: list[int], tables: list[tuple[int, int, int]]) -> tuple[float, float]:
        """:meth:`hand_points` in Python."""
        points, leftover = [], []
        counts, scarabs = goods_groups(hand, self.v.rules)
        tables = _effective_tables(tables, counts)
        for g in range(NUM_GOODS):
            p, lo = self.group(g, counts[g], scarabs[g], tables[g])
            points.append(p)
            leftover.append(lo)
        spare = 0
        for _ in range(hand[AMULET]):
            best, best_g, best_lo = 0.0, -1, 0.0
            for g in range(NUM_GOODS):
                if counts[g] or tables[g][0]:
                    p, lo = self.group(g, counts[g] + 1, scarabs[g], tables[g])
                    if p - points[g] > best:
                        best, best_g, best_lo = p - points[g], g, lo
            if best_g < 0:
                spare += 1
                continue
            counts[best_g] += 1
            points[best_g] += best
            leftover[best_g] = best_lo
        held = sum(HOLD[k] * hand[k] for k in CHARACTER_KINDS if hand[k]) * self.hold
        scribed = self.scribe_threat * max(0, sum(hand) - SCRIBE_HAND_LIMIT)
        return sum(points) + held, sum(leftover) + spare + scribed

    def race(self, points: float, corruption: float, opp: list[float], sigma: float) -> float:
        """Expected points won or lost to the most-corrupt penalty (rules §8.3), times the weight."""
        top = max(range(len(opp)), key=opp.__getitem__)
        x = 1.7 * (corruption - opp[top]) / sigma
        me = 1.0 / (1.0 + math.exp(-x)) if x > -30 else 0.0
        return self.weight * PENALTY_SHARE * (
            (1.0 - me) * self.opp_points[top] * self.opp_weight - me * points
        )

    def penalty(self, points: float) -> float:
        """What being the most corrupt would cost with ``points`` round points (rules §8.3), on the track."""
        position = self.v.scores[0] + round(points)
        return float(position - penalised_position(position, round(points)))

    def value(
        self,
        hand: list[int],
        tables: list[tuple[int, int, int]] | None = None,
        corruption: float = 0.0,
        opp: list[float] | None = None,
    ) -> float:
        """Expected round points with ``hand`` and ``tables``, ``corruption`` extra pile cards,
        opponents' corruption ``opp``; the corruption race included."""
        tables = self.tables if tables is None else tables
        points, leftover = self.hand_points(hand, tables)
        points += sum((s + PROSPERITY_SCARABS * p) * c for c, s, p in tables)
        mine = self.corruption + corruption + leftover
        return points + self.race(points, mine, self.opp_corruption if opp is None else opp, self.sigma)

    def with_card(self, kind: int, corruption: float = 0.0) -> float:
        """The estimate after ``kind`` joins the hand (a face-down character: its average worth)."""
        hand = self.v.hand
        if kind == HIDDEN:
            return self.value(hand, corruption=corruption) + HIDDEN_VALUE * self.hold
        hand[kind] += 1
        out = self.value(hand, corruption=corruption)
        hand[kind] -= 1
        return out

    def without(self, kind: int) -> float:
        """The estimate after ``kind`` leaves the hand."""
        hand = self.v.hand
        hand[kind] -= 1
        out = self.value(hand)
        hand[kind] += 1
        return out

    def take(self, position: int, corruption: bool) -> float:
        """The estimate after taking the Nile card at ``position``, the cards before it going to the
        pile if ``corruption`` (rules §3) or staying (the Merchant); taking the last card ends the round."""
        v = self.v
        kind = v.nile[position]
        skipped = position if corruption else 0
        if v.deck or len(v.nile) > skipped + 1:
            return self.with_card(kind, skipped)
        hand = list(v.hand)
        if kind != HIDDEN:
            hand[kind] += 1
        return self.ending(hand, skipped)

    def draw(self) -> float:
        """Expected gain of one random card of the deck (the Queen's draw)."""
        hand, total = self.v.hand, 0.0
        for g in range(NUM_GOODS):
            share = self.deck_share[g]
            if share:
                cards = sum(hand[k] for k in self.v.members[g])
                scarabs = sum(hand[k] * self.v.kind_scarabs[k] for k in self.v.members[g])
                mean = self.future_scarabs[g] / self.future[g] if self.future[g] else 0.0
                table = table_for(self.tables, g)
                before = self.group(g, cards, scarabs, table)[0]
                after = self.group(g, cards + 1, scarabs + mean, table)[0]
                total += share * (after - before)
        return total + self.amulet_share * (self.with_card(AMULET) - self.value(hand))

    def ending(self, hand: list[int], corruption: float) -> float:
        """The estimate if the round ends now: the best layout of horizontal sets, the rest to the pile."""
        layouts = horizontal_layouts(hand, self.v.rules, _laid_goods(self.v))
        return max(self.end_value(hand, layout, corruption) for layout in layouts)

    def best_layout(self, hand: list[int], laid: set[int]) -> Layout:
        """The layout of horizontal sets (possibly none) that the round's end values most."""
        return max(horizontal_layouts(hand, self.v.rules, laid), key=lambda layout: self.end_value(hand, layout, 0.0))

    def end_value(self, hand: list[int], layout: Layout, corruption: float) -> float:
        """The round's end with ``layout`` laid from ``hand``: the points, and the penalty counted exactly."""
        v = self.v
        placed = sum(sum(cards) for _, cards in layout)
        laid = sum(c * v.kind_scarabs[k] for k, c in enumerate(v.horizontal[0]) if c)  # laid before this decision
        points = laid + layout_points(layout, v.rules)
        points += sum((s + PROSPERITY_SCARABS * p) * c for c, s, p in self.tables)
        opp = [v.pile_size[o] + CURSE_WEIGHT * v.curses[o] + OPP_FINAL_LEFTOVER * v.hand_size[o]
               for o in range(1, v.n)]
        top = max(range(len(opp)), key=opp.__getitem__)
        x = 1.7 * (self.corruption + corruption + sum(hand) - placed - opp[top]) / SIGMA_END
        me = 1.0 / (1.0 + math.exp(-x)) if x > -30 else 0.0
        denied = OPP_CARD_POINTS * self.opp_weight * sum(v.hand_size[1:]) * (1.0 - self.risk)
        race = self.weight * ((1.0 - me) * PENALTY_SHARE * self.opp_points[top] * self.opp_weight
                              - me * self.penalty(points))
        return points + denied + race

    # ------------------------------------------------------------------ sets

    def plan_set(self, g: int, building: list[int] | None = None) -> list[int]:
        """The hand cards to lay on a set of ``g`` beside the ``building`` ones already down: every
        goods card, characters unless worth keeping, amulets where the set pays more than the hand."""
        hand, members, kind_scarabs = self.v.hand, self.v.members, self.v.kind_scarabs
        out = [k for k in members[g] if k < FIRST_CHARACTER for _ in range(hand[k])]
        _, scarabs, prosperity = table_for(self.tables, g)
        laid = sum(building) if building else 0
        per_card = scarabs + PROSPERITY_SCARABS * prosperity + sum(kind_scarabs[k] for k in out)
        if building:
            per_card += sum(kind_scarabs[k] * c for k, c in enumerate(building))
        for k in members[g]:
            if k >= FIRST_CHARACTER and hand[k] and (
                laid + len(out) < SET_MIN_CARDS or per_card > HOLD[k] * self.hold
            ):
                out.append(k)
        amulets = hand[AMULET]
        needed = max(0, SET_MIN_CARDS - laid - len(out))
        out += [AMULET] * min(amulets, needed)
        rest = list(hand)
        for k in out:
            rest[k] -= 1
        while rest[AMULET]:
            keep = self.hand_points(rest, self.tables)[0]
            rest[AMULET] -= 1
            if keep - self.hand_points(rest, self.tables)[0] > per_card:
                rest[AMULET] += 1
                break
            out.append(AMULET)
        return out

    def after_set(self, g: int, cards: list[int]) -> tuple[list[int], list[tuple[int, int, int]]]:
        """The hand and tables after laying ``cards`` (a list of kinds) as a set declared ``g``."""
        hand = list(self.v.hand)
        counts = [0] * NUM_KINDS
        for k in cards:
            hand[k] -= 1
            counts[k] += 1
        return hand, after_set(self.tables, g, counts, self.v.rules)

    # ------------------------------------------------------------------ tokens

    def token_values(self, tables: list[tuple[int, int, int]]) -> list[float]:
        """What each token kind would be worth to the agent now (rules §7), with ``tables`` as its sets."""
        if self._tokens is None:
            self._tokens = self._token_base()
        out = list(self._tokens)
        out[PROSPERITY] = max(
            [PROSPERITY_SCARABS * (tables[g][0] + self.future[g] * at_least(self.future[g], SET_MIN_CARDS))
             for g in PROSPERITY_GOODS if tables[g][0]] + [PROSPERITY_SCARABS * tables[AMULET_SET][0]],
            default=0.0,
        )
        return out

    def _token_base(self) -> list[float]:
        """The token values that do not depend on the set being laid."""
        v = self.v
        out = [0.0] * NUM_TOKEN_KINDS
        me = v.scores[0]
        leader = max(range(1, v.n), key=v.scores.__getitem__)
        for t in GUILDS:
            back = 0.0
            for o in range(1, v.n):
                earlier = previous_space(v.scores[o], t)
                if earlier is not None:
                    back = max(back, (v.scores[o] - earlier) * (1.0 if o == leader else self.opp_weight))
            out[t] = next_space(me, t) - me + back
        out[FLOOD] = FLOOD_VALUE * self.hold + 1.0
        opp = self.opp_corruption
        now = self.race(self.base, self.corruption, opp, self.sigma)
        for o in range(len(opp)):
            cursed = list(opp)
            cursed[o] += CURSE_WEIGHT
            out[CURSE] = max(out[CURSE], self.race(self.base, self.corruption, cursed, self.sigma) - now)
        pile = sum(v.pile)
        if pile:
            hand = [a + b for a, b in zip(v.hand, v.pile)]
            out[EMBALMING] = self.value(hand, corruption=-pile) - self.base
        out[DECEIT] = float(pile)
        return out

    def token_chance(self, tables: list[tuple[int, int, int]]) -> float:
        """Expected worth of the token a set laid now would bring: the best of the face-down ones,
        drawn from the kinds not yet revealed this round."""
        v = self.v
        left = v.tokens_left
        if not left:
            return 0.0
        values = self.token_values(tables)
        pool = sorted(
            (values[t] for t in range(NUM_TOKEN_KINDS) for _ in range(TOKEN_COUNTS[t] - v.used_tokens[t])),
            reverse=True,
        )
        m = len(pool)  # the round's face-down tokens are among these, so m >= left
        return sum(x * math.comb(m - i - 1, left - 1) for i, x in enumerate(pool)) / math.comb(m, left)


class HeuristicAgent(TableAgent):
    """Plans sets by goods, times them for the event tokens, plays every character on purpose,
    and keeps out of the corruption race as far as ``tolerance`` (0 to 1) asks."""

    name = "heuristic"

    def __init__(self, table: Table, tolerance: float = BEST, seed: int | None = None) -> None:
        if isinstance(tolerance, bool) or not isinstance(tolerance, Real):
            raise ValueError(f"tolerance must be a number from 0 to 1, got {tolerance!r}")
        if not 0.0 <= tolerance <= 1.0:
            raise ValueError(f"tolerance must be from 0 to 1 (0 avoids corruption, 1 ignores it), got {tolerance}")
        super().__init__(table, seed)
        self.tolerance = float(tolerance)

    def act(self, observation: dict) -> int:
        return advise(observation, self.table, self.tolerance)[0]


def advise(observation: dict, table: Table, tolerance: float = BEST) -> tuple[int, list[tuple[float, int]], Model]:
    """The heuristic's reading of a decision with legal actions: (its action, its estimate of each
    choice at the start of a turn (none in a sub-decision), the :class:`Model` it reasoned with)."""
    view = table.game.decode(observation, table)
    model = Model(view, 2.0 * (1.0 - tolerance))  # 0.5 takes the corruption estimate as it is
    if view.phase is None:
        options = turn_options(model)
        action = max(options)[1]
    else:
        options = []
        action = _HANDLERS[view.phase](model)
    if not view.legal(action):  # a safety net: every handler aims at a legal id
        action = next(a for a in range(A.NUM_ACTIONS) if view.mask[a])
    return action, options, model


# ---------------------------------------------------------------------- the start of a turn

def turn_options(m: Model) -> list[tuple[float, int]]:
    """Every choice at the start of a turn as (estimate after it, action id)."""
    v = m.v
    options = [(m.take(i, corruption=True), A.TAKE + i) for i in range(min(TAKE_WINDOW, len(v.nile)))]
    for g in range(NUM_GOODS):
        if v.legal(A.SET + g):
            hand, tables = m.after_set(g, m.plan_set(g))
            options.append((m.value(hand, tables) + m.token_chance(tables), A.SET + g))
    for kind in CHARACTER_KINDS:
        if v.hand[kind]:
            v.hand[kind] -= 1
            options.append((_POWERS[kind](m), A.CHARACTER + kind - FIRST_CHARACTER))
            v.hand[kind] += 1
    return options


def _merchant_gain(m: Model) -> float:
    return max((m.take(i, corruption=False) for i in range(len(m.v.nile))), default=m.value(m.v.hand))


def _priest_gain(m: Model) -> float:
    return m.value(m.v.hand, corruption=-max(_pile_counts(m.v)))


def _pile_counts(v: View) -> list[int]:
    return [sum(v.pile[k] for k in v.members[g]) for g in range(NUM_GOODS)]


def _queen_gain(m: Model) -> float:
    return m.value(m.v.hand) + min(QUEEN_DRAW, m.v.deck) * m.draw()


def _vizier_gain(m: Model) -> float:
    v = m.v
    if not any(v.pile_size[1:]):
        return m.value(v.hand)
    known = v.known_piles[_vizier_target(m) - 1]
    best = max((m.with_card(k) for k in range(NUM_KINDS) if known[k]), default=m.value(v.hand))
    return max(m.value(v.hand) + VIZIER_VALUE, best)


def _vizier_target(m: Model) -> int:
    return max(range(1, m.v.n), key=lambda o: _vizier_score(m, o))


def _vizier_score(m: Model, o: int) -> float:
    """How rich a pile looks: its size, and what is known to lie in it (memory mode)."""
    v = m.v
    known = sum(v.kind_scarabs[k] * c for k, c in enumerate(v.known_piles[o - 1]))
    return v.pile_size[o] + known - 0.01 * v.scores[o]


def _scribe_gain(m: Model) -> float:
    v = m.v
    opp = list(m.opp_corruption)
    for o in range(1, v.n):
        excess = max(0, v.hand_size[o] - SCRIBE_HAND_LIMIT)
        opp[o - 1] += excess * (1.0 - OPP_LEFTOVER)  # those cards would partly have been corruption anyway
    return m.value(v.hand, opp=opp)


def _thief_gain(m: Model) -> float:
    v = m.v
    if not any(v.hand_size[1:]):
        return m.value(v.hand)
    return m.value(v.hand) + THIEF_VALUE * m.hold + 1.0


def _courtesan_plan(m: Model) -> tuple[float, int, list[int]]:
    """(estimate, set slot, cards) of the best Courtesan play: one or two fitting cards onto a set."""
    v = m.v
    best = (m.value(v.hand), -1, [])
    for g in range(AMULET_SET + 1):
        if not m.tables[g][0]:
            continue
        hand, tables, cards, slot = list(v.hand), list(m.tables), [], g
        for _ in range(2):
            step = _best_addition(m, slot, hand, tables)
            if step is None:
                break
            hand[step[1]] -= 1
            cards.append(step[1])
            tables, slot = step[2], step[3]
            if step[0] > best[0]:
                best = (step[0], g, list(cards))
    return best


def _best_addition(
    m: Model, slot: int, hand: list[int], tables: list[tuple[int, int, int]]
) -> tuple[float, int, list[tuple[int, int, int]], int] | None:
    """The fitting hand card whose move onto the set in ``slot`` leaves the best estimate:
    (estimate, kind, tables after, the set's slot after: a goods card gives the amulets-only set its goods)."""
    best = None
    v = m.v
    for k in (amulet_set_kinds(tables, v.rules) if slot == AMULET_SET else v.fits[slot]):
        if hand[k]:
            hand[k] -= 1
            after = slot if slot != AMULET_SET or k == AMULET else v.kind_goods[k]
            trial = _extend(tables, slot, k, v.kind_scarabs)
            if after != slot:
                trial[after], trial[slot] = trial[slot], (0, 0, 0)
            value = m.value(hand, trial)
            hand[k] += 1
            if best is None or value > best[0]:
                best = (value, k, trial, after)
    return best


def _extend(tables: list[tuple[int, int, int]], slot: int, kind: int,
            kind_scarabs: tuple[int, ...]) -> list[tuple[int, int, int]]:
    """The tables after one card of ``kind`` joins the set in ``slot``."""
    out = list(tables)
    c, s, p = out[slot]
    out[slot] = (c + 1, s + kind_scarabs[kind], p)
    return out


def _effective_tables(tables: list[tuple[int, int, int]], counts: list[int]) -> list[tuple[int, int, int]]:
    """Per goods, the set its hand group would extend: its own; the amulets-only set goes to the one goods
    without a set that holds the most cards (it can take only one goods, rules §6)."""
    loose = tables[AMULET_SET]
    out = list(tables[:NUM_GOODS])
    if loose[0]:
        free = [g for g in range(NUM_GOODS) if not tables[g][0] and (not loose[2] or g in PROSPERITY_GOODS)]
        if free:
            out[max(free, key=counts.__getitem__)] = loose
    return out


_POWERS = {
    QUEEN: _queen_gain,
    VIZIER: _vizier_gain,
    MERCHANT: _merchant_gain,
    HIGH_PRIEST: _priest_gain,
    THIEF: _thief_gain,
    HIGH_PRIESTESS: _priest_gain,
    SCRIBE_FISH: _scribe_gain,
    SCRIBE_WHEAT: _scribe_gain,
    COURTESAN: lambda m: _courtesan_plan(m)[0],
}


# ---------------------------------------------------------------------- sub-decisions

def _build(m: Model) -> int:
    v = m.v
    plan = m.plan_set(v.phase_goods, v.building)
    if plan:
        return A.CARD + plan[0]
    if v.legal(A.DONE):
        return A.DONE
    fitting = [k for k in v.fits[v.phase_goods] if v.hand[k]]  # cannot stop below three cards
    return A.CARD + max(fitting, key=m.without)


def _token(m: Model) -> int:
    values = m.token_values(m.tables)
    return A.TOKEN + max((t for t in range(NUM_TOKEN_KINDS) if m.v.token_choice[t]), key=values.__getitem__)


def _guild(m: Model) -> int:
    v = m.v
    leader = max(range(1, v.n), key=v.scores.__getitem__)

    def loss(o: int) -> float:
        return (v.scores[o] - previous_space(v.scores[o], v.guild_symbol)) * (2.0 if o == leader else 1.0)

    return A.PLAYER + max((o for o in range(1, v.n) if v.legal(A.PLAYER + o)), key=loss)


def _curse(m: Model) -> int:
    def gain(o: int) -> float:
        opp = list(m.opp_corruption)
        opp[o - 1] += CURSE_WEIGHT
        return m.value(m.v.hand, opp=opp) + 0.01 * m.v.scores[o]

    return A.PLAYER + max(range(1, m.v.n), key=gain)


def _prosperity(m: Model) -> int:
    v = m.v
    options = [g for g in (*PROSPERITY_GOODS, AMULET_SET) if v.legal(A.SLOT_ACTIONS[g])]
    return A.SLOT_ACTIONS[max(options, key=lambda g: m.tables[g][0] + (m.future[g] if g < NUM_GOODS else 0.0))]


def _priest(m: Model) -> int:
    v = m.v
    counts = _pile_counts(v)
    scarabs = [sum(v.pile[k] * v.kind_scarabs[k] for k in v.members[g]) for g in range(NUM_GOODS)]
    return A.GOODS_CHOICE + max(range(NUM_GOODS), key=lambda g: (counts[g], scarabs[g]))


def _vizier(m: Model) -> int:
    return A.PLAYER + _vizier_target(m)


def _vizier_card(m: Model) -> int:
    pile = m.v.vizier_pile
    return A.CARD + max((k for k in range(NUM_KINDS) if pile[k]), key=m.with_card)


def _scribe(m: Model) -> int:
    return A.CARD + max((k for k in range(NUM_KINDS) if m.v.hand[k]), key=m.without)


def _steal_value(m: Model, o: int, back: int) -> float:
    """Expected gain of a card with ``back`` drawn from opponent ``o``'s hand."""
    v = m.v
    count = v.hand_backs[o][back]
    if not count:
        return float("-inf")
    known = [(k, c) for k, c in enumerate(v.known_hands[o - 1]) if c and KIND_BACK[k] == back]
    seen = sum(c for _, c in known)
    total = sum(c * (m.with_card(k) - m.base) for k, c in known)
    unknown = max(0, count - seen)
    guess = {GREEN: 1.0, ORANGE: HIDDEN_VALUE}.get(back, THIEF_VALUE)
    return (total + unknown * guess) / max(count, seen)


def _thief(m: Model) -> int:
    v = m.v
    leader = max(range(1, v.n), key=v.scores.__getitem__)
    return A.PLAYER + max(
        range(1, v.n),
        key=lambda o: max(_steal_value(m, o, b) for b in range(len(BACKS))) + (0.5 if o == leader else 0.0),
    )


def _thief_back(m: Model) -> int:
    return A.BACK + max(range(len(BACKS)), key=lambda b: _steal_value(m, m.v.phase_target, b))


def _courtesan(m: Model) -> int:
    _, g, _ = _courtesan_plan(m)
    if g < 0 or not m.v.legal(A.SLOT_ACTIONS[g]):
        g = max((g for g in range(AMULET_SET + 1) if m.v.legal(A.SLOT_ACTIONS[g])), key=lambda g: m.tables[g][1])
    return A.SLOT_ACTIONS[g]


def _courtesan_card(m: Model) -> int:
    v = m.v
    step = _best_addition(m, v.phase_goods, v.hand, m.tables)
    if step is None or (v.legal(A.DONE) and step[0] <= m.base):
        return A.DONE
    return A.CARD + step[1]


def _merchant(m: Model) -> int:
    v = m.v
    return A.TAKE + max(range(len(v.nile)), key=lambda i: m.take(i, corruption=False))


def _first_player(m: Model) -> int:
    return A.PLAYER  # itself: the first pick of the fresh Nile


def _priest_characters(m: Model) -> int:
    """Discard a family character from the pile (one corruption card less) unless an Embalming (which
    would bring it back to hand) or a Deceit (a point per pile card) may still come its way (rules §4, §7)."""
    v = m.v
    kind = next(a for a in range(A.CARD, A.DONE) if v.legal(a)) - A.CARD
    if v.tokens_known is not None:
        chance = [TOKEN_USE * v.tokens_known[t] for t in range(NUM_TOKEN_KINDS)]
    else:
        hidden = [TOKEN_COUNTS[t] - v.used_tokens[t] for t in range(NUM_TOKEN_KINDS)]
        share = v.tokens_left / max(1, sum(hidden))
        chance = [TOKEN_USE * share * c for c in hidden]
    keep = chance[EMBALMING] * HOLD[kind] * m.hold + chance[DECEIT]
    discard = m.value(v.hand, corruption=-1.0) - m.base
    return A.CARD + kind if discard >= keep else A.DONE


def _horizontal(m: Model) -> int:
    layout = m.best_layout(m.v.hand, _laid_goods(m.v))
    return A.SET + layout[0][0] if layout else A.DONE


def _horizontal_set(m: Model) -> int:
    return horizontal_card(m.v, m.best_layout)


_HANDLERS = {  # the sub-decisions; the start of a turn is advise()'s choice among turn_options()
    "set": _build,
    "token": _token,
    "guild": _guild,
    "curse": _curse,
    "prosperity": _prosperity,
    "priest": _priest,
    "vizier": _vizier,
    "vizier_card": _vizier_card,
    "scribe": _scribe,
    "thief": _thief,
    "thief_back": _thief_back,
    "courtesan": _courtesan,
    "courtesan_card": _courtesan_card,
    "merchant": _merchant,
    "first_player": _first_player,
    "priest_characters": _priest_characters,
    "horizontal": _horizontal,
    "horizontal_set": _horizontal_set,
}
