"""What Kleopatra's baselines share: the decoded position, card values and the quarry-visit planner.

Everything here reads only a seat's observation (decoded into a :class:`~sobek_env.kleopatra.view.View`)
and the table's rules data (costs, values, the garden's geometry). The planner answers "which
elements could I build in one visit with the pool, my hand and my merchants, how would I pay, and
what is it worth?" (rules §5, §1.3): it tries every multiset of up to :data:`MAX_BUILDS` elements the
units cover, values each on the palace as it would stand after the visit, adds the build bonus and
charges merchants (3 talents each at the end, rules §11.5) and tainted cards (amulets, priced by the
caller).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from sobek_env.game import Table
from sobek_env.kleopatra import actions as A
from sobek_env.kleopatra.catalogue import (
    BUILD_BONUS_THREE_OR_MORE,
    BUILD_BONUS_TWO,
    CHARACTERS,
    CORRUPT,
    COSTS,
    DEFAULT_CARD_COUNTS,
    DOUBLED,
    GATE,
    GATE_BASE,
    KIND_UNITS,
    KINDS,
    MERCHANT_UNIT,
    MERCHANT_VALUE,
    MOSAIC_BASE,
    MOSAICS,
    NUM_KINDS,
    NUM_WALL_SLOTS,
    OBELISK_PIECES,
    OBELISK_VALUE,
    OBELISKS,
    PEDESTAL_VALUE,
    RESOURCE_KINDS,
    SPHINX_PIECES,
    SPHINX_VALUES,
    SPHINXES,
    STANDARD,
    THRONE,
    THRONE_VALUE,
    TROMPE,
    TROMPE_UNIT,
    UNITS,
    WALL_BASE,
    WALLS,
    Rules,
    make_rules,
)
from sobek_env.kleopatra.observation import decode
from sobek_env.kleopatra.palace import Geometry, gate_run, mask_of
from sobek_env.kleopatra.phases import cover
from sobek_env.kleopatra.view import FACE_DOWN, View

MAX_BUILDS = 5              # the most elements one planned visit holds
UNIT_VALUE = (1.2, 1.3, 1.6, 1.4, 1.9)  # talents one unit of artisan, stone, marble, wood, lapis is worth in hand
LEFTOVER = 0.5              # weight of the units a plan leaves in hand (they serve a later visit)
EXTRA_MOSAIC = 4.5          # a mosaic after the first of a visit: its tile is not known yet
CARD_COUNTS = tuple(DEFAULT_CARD_COUNTS[k] for k in KINDS)
PALACE_MEMOS = 128          # palace states whose values are kept between decisions (per process)


@dataclass
class Position:
    """A decoded observation with its mask, the rules and the palace as bitmasks."""

    view: View
    mask: np.ndarray
    rules: Rules
    covered: int = 0
    blocked: int = 0
    walls: int = 0
    gate: int = 0
    memo: dict = field(default_factory=dict)  # values that depend only on the palace (see palace_memo)

    def legal(self, action: int) -> bool:
        return bool(self.mask[action])

    def legal_ids(self) -> list[int]:
        return np.flatnonzero(self.mask).tolist()

    @property
    def geo(self) -> Geometry:
        return self.rules.geometry


def table_rules(table: Table) -> Rules:
    """The rules of ``table`` (agents keep them: building them is slower than a decision)."""
    return make_rules(table.num_players, **dict(table.rules))


def position(observation: dict, table: Table, rules: Rules | None = None) -> Position:
    """Decode ``observation`` for ``table`` (through the game's decoder) into a :class:`Position`;
    ``rules`` are the table's, if the caller has them already."""
    rules = table_rules(table) if rules is None else rules
    v = decode(observation, table.num_players, rules.max_turns)
    p = Position(v, np.asarray(observation["action_mask"]), rules)
    p.covered = mask_of(v.covered)
    p.blocked = p.covered | mask_of(v.sanctuaries)
    p.walls = sum(1 << k for k in range(NUM_WALL_SLOTS) if v.walls[k])
    p.gate = sum(1 << s for s in range(2) if v.gate[s])
    p.memo = palace_memo(p)
    return p


_MEMOS: OrderedDict[tuple, dict] = OrderedDict()


def palace_memo(p: Position) -> dict:
    """The memo of ``p``'s palace: the values the planners derive from the palace and the quarry alone (the
    walls a visit would take, what elements earn, the top tile's palms, the target visits). The palace
    changes only when someone builds, so most decisions of a game share it, with every seat; the
    :data:`PALACE_MEMOS` most recent are kept."""
    v = p.view
    key = (p.rules, p.covered, p.blocked, p.walls, p.gate, v.sphinxes, v.obelisks, v.pedestal, v.throne,
           v.top_tile, tuple(v.in_quarry))
    memo = _MEMOS.get(key)
    if memo is None:
        memo = _MEMOS[key] = {}
        if len(_MEMOS) > PALACE_MEMOS:
            _MEMOS.popitem(last=False)
    else:
        _MEMOS.move_to_end(key)
    return memo


# ---------------------------------------------------------------------- cards and units


def hand_units(hand: list[int]) -> list[int]:
    """The 7 pool units (rules §5) the resource cards of ``hand`` would give."""
    out = [0] * len(UNITS)
    for k in RESOURCE_KINDS:
        unit, amount = KIND_UNITS[k]
        out[unit] += amount * hand[k]
    return out


def corrupt_cards(hand: list[int]) -> int:
    """Cards with the corruption symbol: each costs an amulet when paid or at the end (rules §11.1)."""
    return sum(c for k, c in enumerate(hand) if CORRUPT[k])


def unit_worth(units: list[int]) -> float:
    """Talents the loose units are worth in hand (a trompe unit as the dearest material it may stand for)."""
    return sum(UNIT_VALUE[r] * units[r] for r in range(5)) + max(UNIT_VALUE[1:]) * units[TROMPE_UNIT]


def unseen_mean_worth() -> float:
    """The average worth of a card one cannot see (the catalogue's mix), corruption not counted."""
    total = sum(CARD_COUNTS)
    worth = sum(CARD_COUNTS[k] * unit_worth(hand_units([int(j == k) for j in range(NUM_KINDS)]))
                for k in RESOURCE_KINDS)
    return worth / total


UNSEEN_WORTH = unseen_mean_worth()
UNSEEN_CORRUPT = sum(c for k, c in enumerate(CARD_COUNTS) if CORRUPT[k]) / sum(CARD_COUNTS)


def stall_cards(row: list[int]) -> tuple[list[int], int]:
    """A stall row of the view: face-up counts per kind, and its face-down count."""
    return list(row[:NUM_KINDS]), row[FACE_DOWN]


# ---------------------------------------------------------------------- the palace's values


def bonus(count: int) -> int:
    """rules §5.3: talents for building ``count`` elements in one visit."""
    return BUILD_BONUS_THREE_OR_MORE if count >= 3 else BUILD_BONUS_TWO if count == 2 else 0


def wall_slot_score(p: Position, slot: int, walls: int, gate: int) -> float:
    """How good an empty wall slot is: its adjacency now (rules §1.4) plus a little for lengthening the run
    of an unbuilt gate part (which a later gate part will be paid for)."""
    score = float(WALL_BASE + (p.geo.wall_masks[slot] & p.covered).bit_count())
    for side in range(2):
        if not (gate >> side) & 1 and gate_run(walls | (1 << slot), side) > gate_run(walls, side):
            score += 0.5
    return score


def choose_walls(p: Position, count: int, walls: int, gate: int) -> tuple[list[int], int]:
    """The ``count`` best empty slots, taken one by one, and the walls mask with them built."""
    chosen = []
    for _ in range(count):
        free = [k for k in range(NUM_WALL_SLOTS) if not (walls >> k) & 1]
        if not free:
            break
        best = max(free, key=lambda k: (wall_slot_score(p, k, walls, gate), -k))
        chosen.append(best)
        walls |= 1 << best
    return chosen, walls


def best_mosaic_value(p: Position) -> int:
    """4 + the most palms the top tile can cover now (rules §6.3)."""
    if "mosaic" not in p.memo:
        p.memo["mosaic"] = _best_mosaic_value(p)
    return p.memo["mosaic"]


def _best_mosaic_value(p: Position) -> int:
    top = p.view.top_tile
    if top is None:
        return MOSAIC_BASE
    palms = [(m & p.geo.palms).bit_count() for _, _, m in p.geo.placements_of_tile[top] if not m & p.blocked]
    return MOSAIC_BASE + max(palms, default=0)


def room(p: Position) -> list[int]:
    """Pieces of each category still in the quarry (the throne & pedestal as one category of 2)."""
    v = p.view
    return [
        NUM_WALL_SLOTS - bin(p.walls).count("1"),
        SPHINX_PIECES - v.sphinxes,
        OBELISK_PIECES - v.obelisks,
        2 - bin(p.gate).count("1"),
        2 - int(v.pedestal) - int(v.throne),
        sum(v.in_quarry),
    ]


# ---------------------------------------------------------------------- planning a visit


@dataclass
class Plan:
    """A set of elements to build in one visit: counts per category, the wall slots and gate parts, the
    cards and merchants to pay beyond the pool, and its worth in talents."""

    counts: list[int] = field(default_factory=lambda: [0] * 6)
    walls: list[int] = field(default_factory=list)
    gates: list[int] = field(default_factory=list)
    pay: list[int] = field(default_factory=list)     # card kinds, in paying order
    merchants: int = 0
    talents: float = 0.0     # talents the builds (and the bonus) earn
    value: float = 0.0       # talents less the merchants, the tainted cards' price, plus the leftover

    @property
    def size(self) -> int:
        return sum(self.counts)


def total_cost(counts: list[int] | tuple[int, ...]) -> list[int]:
    return [sum(counts[c] * COSTS[c][r] for c in range(6)) for r in range(5)]


def payment(pool: list[int], need: list[int] | tuple[int, ...], hand: list[int], merchants: int,
            trompe_ok: tuple[bool, ...], tainted_first: bool) -> tuple[list[int], int] | None:
    """Cards (kinds) and merchants to add to ``pool`` so that it covers ``need``, or None.

    Per resource: doubled cards while two units are short (first, if ``tainted_first``: their
    amulet is owed at the end anyway), then single cards, then a doubled card for a last unit; then
    Trompe-l'oeil for short materials; merchants last (they are worth 3 talents kept).
    """
    hand = list(hand)
    units = list(pool)
    pay: list[int] = []

    def take(kind: int) -> None:
        hand[kind] -= 1
        pay.append(kind)
        unit, amount = KIND_UNITS[kind]
        units[unit] += amount

    for r in range(5):
        single, double = STANDARD[r], DOUBLED[r]
        while need[r] - units[r] >= 2 and hand[double] and tainted_first:
            take(double)
        while need[r] - units[r] >= 1 and hand[single]:
            take(single)
        while need[r] - units[r] >= 1 and hand[double]:
            take(double)
    short = sum(max(0, need[r] - units[r]) for r in range(1, 5) if trompe_ok[r]) - units[TROMPE_UNIT]
    while short > 0 and hand[TROMPE]:
        take(TROMPE)
        short -= 1
    if cover(units, tuple(need), trompe_ok):
        return pay, 0
    for m in range(1, merchants + 1):
        units[MERCHANT_UNIT] += 1
        if cover(units, tuple(need), trompe_ok):
            return pay, m
    return None


def _candidates(limit: list[int], depth: int) -> list[list[int]]:
    """Every multiset of at most ``depth`` elements within ``limit`` pieces per category (not empty)."""
    return [list(c) for c, _ in candidate_costs(tuple(limit), depth)]


@lru_cache(maxsize=512)
def candidate_costs(limit: tuple[int, ...], depth: int) -> tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]:
    """:func:`_candidates` of ``limit`` with each one's total cost, computed once per quarry state."""
    out: list[list[int]] = []

    def grow(counts: list[int], start: int, left: int) -> None:
        for c in range(start, 6):
            if counts[c] < limit[c] and left:
                counts[c] += 1
                out.append(list(counts))
                grow(counts, c, left - 1)
                counts[c] -= 1

    grow([0] * 6, 0, depth)
    return tuple((tuple(c), tuple(total_cost(c))) for c in out)


@dataclass
class Pricing:
    """What the planner charges: talents per amulet of a paid tainted card (beyond the one it owes at the
    end anyway), whether a plan may use merchants, and the weight of the units it leaves."""

    tainted: float = 0.3
    merchants: bool = True
    leftover: float = LEFTOVER


def value_counts(p: Position, counts: list[int]) -> tuple[float, list[int], list[int]]:
    """Talents the elements of ``counts`` earn on the palace after the visit (without the bonus),
    with the wall slots and gate parts they would take."""
    key = tuple(counts)
    if key not in p.memo:
        p.memo[key] = _value_counts(p, counts)
    talents, slots, parts = p.memo[key]
    return talents, list(slots), list(parts)


def _value_counts(p: Position, counts: list[int]) -> tuple[float, list[int], list[int]]:
    v = p.view
    key = ("walls", counts[WALLS])
    if key not in p.memo:
        p.memo[key] = choose_walls(p, counts[WALLS], p.walls, p.gate)
    slots, walls = p.memo[key]
    talents = float(sum(WALL_BASE + (p.geo.wall_masks[k] & p.covered).bit_count() for k in slots))
    talents += sum(SPHINX_VALUES[v.sphinxes + i] for i in range(counts[SPHINXES]))
    talents += OBELISK_VALUE * counts[OBELISKS]
    parts = sorted((s for s in range(2) if not (p.gate >> s) & 1), key=lambda s: -gate_run(walls, s))
    parts = parts[:counts[GATE]]
    talents += sum(GATE_BASE + gate_run(walls, s) for s in parts)
    talents += (PEDESTAL_VALUE if not v.pedestal else THRONE_VALUE) * min(counts[THRONE], 1)
    talents += THRONE_VALUE * max(0, counts[THRONE] - 1)
    if counts[MOSAICS]:
        talents += best_mosaic_value(p) + EXTRA_MOSAIC * (counts[MOSAICS] - 1)
    return talents, slots, parts


def affordable_plans(p: Position, hand: list[int], merchants: int, pool: list[int],
                     already: int) -> Iterator[tuple[Plan, list[int]]]:
    """Every visit of up to :data:`MAX_BUILDS` elements that ``pool`` plus ``hand`` plus ``merchants`` pay for,
    with the hand it leaves: each plan's talents include the change of the build bonus (``already`` elements
    were built this visit); its value is for the caller to set."""
    trompe_ok = tuple(r in p.rules.trompe_stands_for for r in range(5))
    units = [pool[i] + hand_units(hand)[i] for i in range(len(UNITS))]
    units[MERCHANT_UNIT] += merchants
    for fixed, need in candidate_costs(tuple(room(p)), MAX_BUILDS):
        if not cover(units, need, trompe_ok):
            continue
        paid = payment(pool, need, hand, merchants, trompe_ok, True)
        if paid is None:
            continue
        cards, used = paid
        counts = list(fixed)
        talents, slots, parts = value_counts(p, counts)
        talents += bonus(already + sum(counts)) - bonus(already)
        left = list(hand)
        for k in cards:
            left[k] -= 1
        yield Plan(counts, slots, parts, cards, used, talents), left


def best_plan(p: Position, hand: list[int], merchants: int, pool: list[int], already: int,
              pricing: Pricing, nonempty: bool = False) -> Plan | None:
    """The most valuable visit buildable from ``pool`` plus ``hand`` plus ``merchants`` (None: nothing
    worth more than building nothing, unless ``nonempty``). ``already`` elements were built this visit."""
    base = unit_worth(hand_units(hand)) * pricing.leftover
    best: Plan | None = None
    best_value = float("-inf") if nonempty else base
    for plan, left in affordable_plans(p, hand, merchants if pricing.merchants else 0, pool, already):
        value = (plan.talents - MERCHANT_VALUE * plan.merchants - pricing.tainted * sum(CORRUPT[k] for k in plan.pay)
                 + unit_worth(hand_units(left)) * pricing.leftover)
        if value > best_value:
            best_value = plan.value = value
            best = plan
    return best


def build_action(p: Position, plan: Plan) -> int | None:
    """A build of ``plan`` that the pool covers now (walls first, the gate last), or None."""
    order = [WALLS, SPHINXES, OBELISKS, THRONE, MOSAICS, GATE]
    for c in order:
        if not plan.counts[c]:
            continue
        if c == WALLS:
            for k in plan.walls:
                if p.legal(A.WALL + k):
                    return A.WALL + k
        elif c == GATE:
            for s in plan.gates:
                if p.legal(A.GATE + s):
                    return A.GATE + s
        else:
            action = {SPHINXES: A.SPHINX, OBELISKS: A.OBELISK, MOSAICS: A.MOSAIC,
                      THRONE: A.THRONE if p.view.pedestal else A.PEDESTAL}[c]
            if p.legal(action):
                return action
    return None


def pay_action(p: Position, plan: Plan) -> int | None:
    """The next payment of ``plan``: its first card, else a merchant."""
    for k in plan.pay:
        if p.legal(A.CARD + k):
            return A.CARD + k
    if plan.merchants and p.legal(A.MERCHANT):
        return A.MERCHANT
    return None


def quarry_step(p: Position, pricing: Pricing) -> int:
    """One step of a quarry visit: build what the best plan can build now, else pay for it, else ``done``."""
    v = p.view
    already = sum(v.built)
    plan = best_plan(p, v.hand, v.merchants[0], v.pool, already, pricing, nonempty=not already)
    if plan is not None:
        action = build_action(p, plan) or pay_action(p, plan)
        if action is not None:
            return action
    if p.legal(A.DONE):
        return A.DONE
    builds = [a for a in A.BUILDS if p.legal(a)]
    if builds:
        return builds[0]
    pays = [a for a in range(A.CARD, A.CARD + NUM_KINDS) if p.legal(a)] + ([A.MERCHANT] if p.legal(A.MERCHANT) else [])
    return pays[0] if pays else p.legal_ids()[0]


# ---------------------------------------------------------------------- mosaics


def sanctuaries_after(p: Position, mask: int, tile: int) -> list[int]:
    """The free areas that would become sanctuaries if ``tile`` covered ``mask`` (rules §6.4); they depend
    on the palace alone, so they are kept in its memo."""
    key = ("sanctuaries", tile, mask)
    if key not in p.memo:
        p.memo[key] = _sanctuaries_after(p, mask, tile)
    return p.memo[key]


def _sanctuaries_after(p: Position, mask: int, tile: int) -> list[int]:
    v = p.view
    covered = p.covered | mask
    stack = [t for t in range(len(v.in_quarry)) if v.in_quarry[t] and t != tile]
    known = [a for a in p.geo.free_areas(p.covered) if a & mask_of(v.sanctuaries) == a]
    return p.geo.new_sanctuaries(covered, known, stack, p.rules.sanctuary_max_squares)


def placement_score(p: Position, tile: int, mask: int, statue_worth: float, future_walls: float) -> float:
    """Talents a placement is worth now: palms, adjacency to walls built this visit, the future walls'
    adjacency, and the sanctuaries it creates (``statue_worth`` per square while a statue is left)."""
    v = p.view
    score = float((mask & p.geo.palms).bit_count())
    built_now = [k for k in range(NUM_WALL_SLOTS) if v.built[k]]
    for k in range(NUM_WALL_SLOTS):
        touched = (p.geo.wall_masks[k] & mask).bit_count()
        if k in built_now:
            score += touched
        elif not (p.walls >> k) & 1:
            score += future_walls * touched
    if v.statues[0]:
        areas = sanctuaries_after(p, mask, tile)
        if areas:
            score += statue_worth * max(a.bit_count() for a in areas)
    return score


def best_placement(p: Position, tile: int, statue_worth: float, future_walls: float,
                   orient: int | None = None) -> tuple[int, int]:
    """The (orientation, square) of ``tile`` with the best :func:`placement_score` (``orient`` fixed if given)."""
    best, best_score = (0, 0), float("-inf")
    for r, sq, m in p.geo.placements_of_tile[tile]:
        if m & p.blocked or (orient is not None and r != orient):
            continue
        score = placement_score(p, tile, m, statue_worth, future_walls)
        if score > best_score:
            best, best_score = (r, sq), score
    return best


def mosaic_step(p: Position, statue_worth: float, future_walls: float) -> int:
    """``mosaic_orient`` / ``mosaic_square``: the best placement of the chosen tile."""
    v = p.view
    tile = v.tile if v.tile is not None else 0
    r, sq = best_placement(p, tile, statue_worth, future_walls, v.orient)
    if v.phase == "mosaic_orient":
        return A.ORIENT + r
    return A.SQUARE + sq


# ---------------------------------------------------------------------- ceremonies


def bid_step(p: Position, target: int) -> int:
    """Raise the running offer toward ``target`` with the largest step that does not pass it, else ``done``."""
    gap = target - p.view.ceremony_offer
    for i in reversed(range(4)):
        step = (1, 2, 5, 10)[i]
        if step <= gap and p.legal(A.BID + i):
            return A.BID + i
    return A.DONE


def least_useful(p: Position, kinds: list[int], keep_worth: float) -> int:
    """Of ``kinds`` (in hand), the one whose loss costs least: a corrupt card saves its end amulet
    (``keep_worth`` talents), a resource costs its units' worth."""
    def loss(k: int) -> float:
        units = hand_units([int(j == k) for j in range(NUM_KINDS)])
        worth = unit_worth(units) if k in RESOURCE_KINDS else 1.0
        return worth - (keep_worth if CORRUPT[k] else 0.0) + 0.3 * (k in CHARACTERS)
    return min(kinds, key=lambda k: (loss(k), k))
