"""Scoring of a round (rules §5, §6, §8): horizontal sets, set values, the corruption penalty.

Pure functions on card counts, so the rules can be read and tested apart from the state.
"""

from __future__ import annotations

from itertools import product

from .catalogue import (
    AMULET,
    CURSE_WEIGHT,
    GOODS,
    NUM_KINDS,
    POINTS_PER_LOT,
    PROSPERITY_SCARABS,
    SET_MIN_CARDS,
    Rules,
    previous_space,
    symbol_at,
)


class TableSet:
    """A vertical set on the table: card counts and the Prosperity tokens on it."""

    __slots__ = ("cards", "prosperity")

    def __init__(self, cards: list[int], prosperity: int = 0) -> None:
        self.cards = cards
        self.prosperity = prosperity

    def copy(self) -> TableSet:
        return TableSet(list(self.cards), self.prosperity)


def scarabs_of(cards: list[int], rules: Rules) -> int:
    """The scarabs printed on a group of cards."""
    return sum(cards[k] * v for k, v in rules.scarab_kinds)


def vertical_value(table_set: TableSet, rules: Rules) -> int:
    """rules §6: (scarabs + 2 per Prosperity) x number of cards."""
    return set_value(sum(table_set.cards), scarabs_of(table_set.cards, rules), table_set.prosperity)


def set_value(cards: int, scarabs: int, prosperity: int) -> int:
    """:func:`vertical_value` from a set's card count, scarabs and Prosperity tokens (when they are at hand)."""
    return (scarabs + PROSPERITY_SCARABS * prosperity) * cards


def horizontal_sets(hand: list[int], rules: Rules) -> list[tuple[int, list[int]]]:
    """rules §5 [decision]: the horizontal sets laid from a hand at the round's end.

    Places the most cards, then the most scarabs, then prefers the goods first in
    order. Every card of a chosen goods goes in; amulets complete the goods that
    need them and the spare ones join the first set; amulets alone make a set of
    the first goods. Returns (goods, card counts) pairs in goods order.
    """
    count = [sum(hand[k] for k in rules.members[g]) for g in range(len(GOODS))]
    scarabs = [sum(hand[k] * rules.kind_scarabs[k] for k in rules.members[g]) for g in range(len(GOODS))]
    amulets = hand[AMULET]
    full = [g for g in range(len(GOODS)) if count[g] >= SET_MIN_CARDS]
    # Goods that too few amulets could complete are left out of the search: they are never laid.
    partial = [g for g in range(len(GOODS)) if 0 < count[g] < SET_MIN_CARDS <= count[g] + amulets]
    best: tuple | None = None
    for pick in product((True, False), repeat=len(partial)):
        chosen = [g for g, take in zip(partial, pick) if take]
        if sum(SET_MIN_CARDS - count[g] for g in chosen) > amulets:
            continue
        laid = sorted(full + chosen)
        if laid:
            placed = sum(count[g] for g in laid) + amulets
        else:
            placed = amulets if amulets >= SET_MIN_CARDS else 0
        key = (placed, sum(scarabs[g] for g in laid), pick)
        if best is None or key > best[0]:
            best = (key, laid, chosen)
    _, laid, chosen = best
    if not laid:
        if amulets < SET_MIN_CARDS:
            return []
        cards = [0] * NUM_KINDS
        cards[AMULET] = amulets
        return [(0, cards)]
    spare = amulets - sum(SET_MIN_CARDS - count[g] for g in chosen)
    out = []
    for g in laid:
        cards = [0] * NUM_KINDS
        for k in rules.members[g]:
            cards[k] = hand[k]
        cards[AMULET] = (SET_MIN_CARDS - count[g]) if g in chosen else 0
        if g == laid[0]:
            cards[AMULET] += spare
        out.append((g, cards))
    return out


def corruption(pile: list[int], curses: int) -> int:
    """rules §8.2: cards in the corruption pile plus two per Curse."""
    return sum(pile) + CURSE_WEIGHT * curses


def most_corrupt(piles: list[list[int]], curses: list[int], rules: Rules) -> list[int]:
    """rules §8.2: the seats with the highest corruption, ties broken by scarabs in the pile."""
    level = [corruption(pile, c) for pile, c in zip(piles, curses)]
    top = max(level)
    if top == 0:  # [decision] nobody is corrupt without corruption
        return []
    tied = [p for p, v in enumerate(level) if v == top]
    if len(tied) > 1:
        scarabs = {p: scarabs_of(piles[p], rules) for p in tied}
        most = max(scarabs.values())
        tied = [p for p in tied if scarabs[p] == most]
    return tied


def penalised_position(position: int, round_points: int) -> int:
    """rules §8.3: move back one space with the current symbol per lot of 10 round points."""
    symbol = symbol_at(position)
    for _ in range(round_points // POINTS_PER_LOT):
        earlier = previous_space(position, symbol)
        if earlier is None:
            return 0
        position = earlier
    return position
