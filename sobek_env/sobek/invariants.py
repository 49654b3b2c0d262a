"""Checks that states must pass; used by the tests, the state reader and the stress run.

:func:`check` holds for every state the engine can be in, including any state
``GameState.from_json`` accepts (the reader runs it last). :func:`check_play`
adds what holds only for states reached by play from ``GameState.new`` (a
hand-built test position may break it). :func:`check_mask` compares an
environment's action mask with the legal actions.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import gt

from ..errors import InvariantError
from .actions import NUM_ACTIONS
from .catalogue import (
    AMULET,
    AMULET_SET,
    FLOOD,
    GREEN,
    KIND_BACK,
    NUM_KINDS,
    NUM_TOKEN_KINDS,
    PROSPERITY_GOODS,
    ROUNDS,
    SET_MIN_CARDS,
    START_HAND,
    TOKEN_COUNTS,
    TOKENS_PER_ROUND,
    TWO_PLAYER_SET_ASIDE,
)
from .jsonstate import entry_fault, scored_rounds
from .phases import BuildSet, CourtesanCard, HorizontalSet
from .state import ROUND_END_PHASES, GameState

__all__ = ["InvariantError", "check", "check_mask", "check_play"]


def _check_cards(s: GameState) -> None:
    counts = s.card_counts()
    if counts != list(s.rules.catalogue):
        raise InvariantError(f"cards not conserved: {counts} != {list(s.rules.catalogue)}")
    zones = [*s.hands, *s.piles, s.discard, s.out_of_round]
    zones += [row for rows in (*s.known_hands, *s.known_piles) for row in rows]
    zones += [t.cards for own in s.sets for t in own if t is not None]
    zones += [cards for own in s.horizontal for _, cards in own]
    if isinstance(s.pending, (BuildSet, HorizontalSet, CourtesanCard)):
        zones.append(s.pending.cards)
    if set(map(len, zones)) != {NUM_KINDS} or min(map(min, zones)) < 0:
        bad = [zone for zone in zones if len(zone) != NUM_KINDS or min(zone) < 0]
        raise InvariantError(f"a zone (hand, pile, set, memory…) has a negative count or wrong length: {bad}")
    for rows in (*s.known_hands, *s.known_piles):
        for memory in rows:
            if any(map(gt, memory, s.rules.catalogue)):
                raise InvariantError(f"memory lists more cards than exist: {memory}")
    for p, own in enumerate(s.sets):
        for slot, table_set in enumerate(own):
            if table_set is None:
                continue
            cards = table_set.cards
            if slot == AMULET_SET:
                if cards[AMULET] != sum(cards):
                    raise InvariantError(f"player {p}'s amulets-only set holds other cards: {cards}")
            elif sum(cards) != sum(cards[k] for k in s.rules.fits[slot]) or cards[AMULET] == sum(cards):
                raise InvariantError(f"player {p}'s set of goods {slot} holds a card that does not fit it, "
                                     "or only amulets")
            if table_set.prosperity and slot not in (*PROSPERITY_GOODS, AMULET_SET):
                raise InvariantError(f"player {p} has Prosperity on a set of goods {slot}")


def _check_tokens(s: GameState) -> None:
    tokens = s.token_counts()
    if min(s.tokens) < 0 or min(s.used_tokens) < 0 or min(s.curses) < 0:
        raise InvariantError(f"negative token count: tokens {s.tokens}, used {s.used_tokens}, curses {s.curses}")
    if any(tokens[t] > TOKEN_COUNTS[t] for t in range(NUM_TOKEN_KINDS)):
        raise InvariantError(f"more tokens of a kind than the game has: {tokens}")
    if sum(tokens) > TOKENS_PER_ROUND:  # rules §2.5
        raise InvariantError(f"the round has {sum(tokens)} tokens, more than {TOKENS_PER_ROUND}")
    if not 0 <= s.extra_turns <= TOKEN_COUNTS[FLOOD]:
        raise InvariantError(f"{s.extra_turns} Flood turns in a row")


def _check_round_log(s: GameState) -> None:
    """The log holds the last rounds scored, in order, and never the round in progress (its scoring would
    log it twice)."""
    scored = scored_rounds(s)
    rounds = [entry["round"] for entry in s.round_log]
    if rounds != list(range(scored - len(rounds) + 1, scored + 1)):
        raise InvariantError(f"rounds {rounds} logged in round {s.round}{' (over)' if s.over else ''}: the log "
                             f"must end with round {scored}, the last one scored, and list each once in order")
    for entry in s.round_log:
        fault = entry_fault(entry, s)
        if fault is not None:
            raise InvariantError(f"round {entry['round']}'s log: {fault[0]}: {fault[1]}")


def check(s: GameState) -> None:
    """Raise InvariantError if ``s`` breaks an invariant of the rules or of the engine."""
    n = s.rules.num_players
    if not 1 <= s.round <= ROUNDS:
        raise InvariantError(f"round {s.round} out of range")
    if not (0 <= s.current_player < n and 0 <= s.first_player < n):
        raise InvariantError(f"seat out of range: current {s.current_player}, first {s.first_player}")
    _check_cards(s)
    _check_tokens(s)
    if min(s.markers) < 0:  # rules §1.3
        raise InvariantError(f"negative score: {s.markers}")
    _check_round_log(s)
    if s.pending is not None:
        if s.over:
            raise InvariantError(f"a finished game has a pending {s.pending.name}")
        s.pending.check(s)
    legal = s.legal_actions()
    if legal != sorted(set(legal)) or any(not 0 <= a < NUM_ACTIONS for a in legal):
        raise InvariantError(f"legal actions not sorted, unique ids: {legal}")
    if s.over:
        if legal:
            raise InvariantError("a finished game offers actions")
        return
    if not legal:
        raise InvariantError(f"player {s.current_player} has no legal action at {s.phase or 'turn start'}")
    if not s.nile and not isinstance(s.pending, ROUND_END_PHASES):  # rules §3: while the round runs
        raise InvariantError("the Nile is empty while the round runs")


def check_play(s: GameState) -> None:
    """:func:`check`, plus what holds only for states reached by play from ``GameState.new``."""
    check(s)
    n = s.rules.num_players
    tokens = sum(s.token_counts())
    if tokens != TOKENS_PER_ROUND:  # rules §2.5, also on the table of a finished game
        raise InvariantError(f"the round has {tokens} tokens, not {TOKENS_PER_ROUND}")
    for p, own in enumerate(s.sets):
        for table_set in own:
            if table_set is not None and sum(table_set.cards) < SET_MIN_CARDS:  # rules §6
                raise InvariantError(f"player {p} has a set of fewer than {SET_MIN_CARDS} cards")
        for _, cards in s.horizontal[p]:
            if sum(cards) < SET_MIN_CARDS:  # rules §5
                raise InvariantError(f"player {p} has a horizontal set of fewer than {SET_MIN_CARDS} cards")
    greens = sum(c for k, c in enumerate(s.rules.catalogue) if KIND_BACK[k] == GREEN)
    aside = greens - START_HAND * n + (TWO_PLAYER_SET_ASIDE if n == 2 else 0)
    if sum(s.out_of_round) != aside:  # rules §2.2-2.3: out of the round for the whole round
        raise InvariantError(f"{sum(s.out_of_round)} cards out of the round, not {aside}")
    if len(s.round_log) != s.round - 1 + s.over:
        raise InvariantError(f"{len(s.round_log)} rounds logged in round {s.round}")
    if s.over and (s.nile or s.deck):  # rules §5: the round ends when the last card is taken
        raise InvariantError("the game ended with cards on the Nile or in the deck")


def check_mask(s: GameState, seat: int, mask: Sequence[int]) -> None:
    """The environment's action mask for ``seat``: exactly the legal actions if it must act, else none."""
    if len(mask) != NUM_ACTIONS:
        raise InvariantError(f"the mask has {len(mask)} entries, not {NUM_ACTIONS}")
    marked = [a for a in range(NUM_ACTIONS) if mask[a]]
    expected = s.legal_actions() if seat == s.current_player else []
    if marked != expected:
        raise InvariantError(f"mask for seat {seat} marks {marked}; legal for it: {expected}")
