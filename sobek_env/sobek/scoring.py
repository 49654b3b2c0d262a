"""Scoring of a round (rules §6, §8): set values, corruption, the most corrupt and the penalty.

Pure functions on card counts, so the rules can be read and tested apart from the state.
"""

from __future__ import annotations

from .catalogue import (
    CURSE_WEIGHT,
    POINTS_PER_LOT,
    PROSPERITY_SCARABS,
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
