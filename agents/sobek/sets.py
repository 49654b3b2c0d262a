"""Set planning the baselines share, computed from the observation's counts alone.

:func:`horizontal_layouts` lists the ways a hand can be laid as horizontal sets at
the round's end (rules §5), and :func:`after_set` mirrors where a set laid during
the round lands (rules §6: an extension, the amulets-only set taking a goods, or a
new set). Tables are per set slot (the six goods, then the amulets-only set) as
(cards, scarabs, Prosperity tokens), as :class:`sobek_env.sobek.decode.View` decodes them.
``rules`` is the table's :class:`sobek_env.sobek.catalogue.Rules` (``view.rules``).
"""

from __future__ import annotations

from itertools import combinations

from sobek_env.sobek.catalogue import AMULET, AMULET_SET, NUM_KINDS, PROSPERITY_GOODS, SET_MIN_CARDS, Rules
from sobek_env.sobek.decode import NUM_GOODS

Table = tuple[int, int, int]
Layout = list[tuple[int, list[int]]]  # (declared goods, card counts) per horizontal set, in the order to lay them


def goods_groups(hand: list[int], rules: Rules) -> tuple[list[int], list[int]]:
    """Per goods: the hand's cards that count as it (amulets aside) and their scarabs."""
    counts, scarabs = [0] * NUM_GOODS, [0] * NUM_GOODS
    for g in range(NUM_GOODS):
        for k in rules.members[g]:
            if hand[k]:
                counts[g] += hand[k]
                scarabs[g] += hand[k] * rules.kind_scarabs[k]
    return counts, scarabs


def horizontal_layouts(hand: list[int], rules: Rules, laid: set[int] = frozenset()) -> list[Layout]:
    """Every sensible layout of horizontal sets from ``hand`` (the goods in ``laid`` are taken): for
    each choice of goods, all their cards, amulets where a group needs them, and the spare amulets on
    the first set or, three or more, as an amulets-only set (laid first, declared with a free goods).
    The empty layout (lay nothing) comes first."""
    counts, _ = goods_groups(hand, rules)
    amulets = hand[AMULET]
    groups = [g for g in range(NUM_GOODS) if g not in laid and counts[g] and counts[g] + amulets >= SET_MIN_CARDS]
    free = [g for g in range(NUM_GOODS) if g not in laid]
    layouts: list[Layout] = [[]]
    for size in range(len(groups) + 1):
        for chosen in combinations(groups, size):
            need = sum(max(0, SET_MIN_CARDS - counts[g]) for g in chosen)
            if need > amulets:
                continue
            spare = amulets - need
            sets = []
            for g in chosen:
                cards = [hand[k] if k in rules.members[g] else 0 for k in range(NUM_KINDS)]
                cards[AMULET] = max(0, SET_MIN_CARDS - counts[g])
                sets.append((g, cards))
            if sets and spare:
                with_spare = [(g, list(c)) for g, c in sets]
                with_spare[0][1][AMULET] += spare
                layouts.append(with_spare)
            elif sets:
                layouts.append(sets)
            if spare >= SET_MIN_CARDS and free:
                # laid first, it may be declared with any goods not laid yet (it takes none): one not chosen
                # if there is one, so that the plan's sets are told apart by their declared goods
                declared = next((g for g in free if g not in chosen), free[0])
                loose = [0] * NUM_KINDS
                loose[AMULET] = spare
                layouts.append([(declared, loose), *sets])
    return layouts


def layout_points(layout: Layout, rules: Rules) -> int:
    """What a layout scores: the scarabs on its cards, not multiplied (rules §6)."""
    return sum(c * rules.kind_scarabs[k] for _, cards in layout for k, c in enumerate(cards) if c)


def landing_slot(tables: list[Table], goods: int, amulets_only: bool) -> int:
    """rules §6: the slot a set declared as ``goods`` lands on: the goods' own set; else the amulets-only
    set (which takes the goods unless its Prosperity forbids it); else a new set (of amulets only, or of the goods)."""
    if tables[goods][0]:
        return goods
    loose = tables[AMULET_SET]
    if loose[0] and (amulets_only or not loose[2] or goods in PROSPERITY_GOODS):
        return AMULET_SET
    return AMULET_SET if amulets_only else goods


def after_set(tables: list[Table], goods: int, cards: list[int], rules: Rules) -> list[Table]:
    """The tables after laying ``cards`` (counts per kind) as a set declared ``goods`` (rules §6)."""
    amulets_only = cards[AMULET] == sum(cards)
    slot = landing_slot(tables, goods, amulets_only)
    out = list(tables)
    c, s, p = out[slot]
    merged = (c + sum(cards), s + sum(rules.kind_scarabs[k] * n for k, n in enumerate(cards) if n), p)
    if slot == AMULET_SET and not amulets_only:
        out[AMULET_SET] = (0, 0, 0)
        slot = goods
    out[slot] = merged
    return out


def table_for(tables: list[Table], goods: int) -> Table:
    """The set a group of ``goods`` would extend: its own, else the amulets-only set if it may take it."""
    own = tables[goods]
    if own[0]:
        return own
    loose = tables[AMULET_SET]
    if loose[0] and (not loose[2] or goods in PROSPERITY_GOODS):
        return loose
    return own


def amulet_set_kinds(tables: list[Table], rules: Rules) -> list[int]:
    """The kinds the Courtesan may put on the amulets-only set (rules §6)."""
    limited = tables[AMULET_SET][2] > 0
    return [k for k in range(NUM_KINDS) if k == AMULET or any(
        k in rules.members[g] and not tables[g][0] and (not limited or g in PROSPERITY_GOODS)
        for g in range(NUM_GOODS))]
