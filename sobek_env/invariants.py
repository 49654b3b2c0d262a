"""Checks that every reachable state must pass; used by the tests and the stress run."""

from __future__ import annotations

from .catalogue import CURSE, NUM_TOKEN_KINDS, PROSPERITY, TOKEN_COUNTS, TOKENS_PER_ROUND
from .state import GameState


class InvariantError(AssertionError):
    """A state broke one of the game's invariants (a bug in the engine)."""


def token_counts(s: GameState) -> list[int]:
    """This round's tokens by kind, wherever they are (face down, used, placed or pending)."""
    seen = [a + b for a, b in zip(s.tokens, s.used_tokens)]
    seen[CURSE] += sum(s.curses)
    seen[PROSPERITY] += sum(t.prosperity for own in s.sets for t in own if t is not None)
    if s.phase == "curse":
        seen[CURSE] += 1
    elif s.phase == "prosperity":
        seen[PROSPERITY] += 1
    return seen


def check(s: GameState) -> None:
    """Raise InvariantError if ``s`` breaks an invariant of the rules."""
    counts = s.card_counts()
    if list(counts) != list(s.rules.catalogue):
        raise InvariantError(f"cards not conserved: {counts} != {list(s.rules.catalogue)}")
    for zone in (*s.hands, *s.piles, s.discard, s.out_of_round):
        if min(zone) < 0:
            raise InvariantError(f"negative card count in a zone: {zone}")
    tokens = token_counts(s)
    if min(s.tokens) < 0 or any(tokens[t] > TOKEN_COUNTS[t] for t in range(NUM_TOKEN_KINDS)):
        raise InvariantError(f"token counts out of range: {tokens}")
    if not s.over and sum(tokens) != TOKENS_PER_ROUND:
        raise InvariantError(f"the round has {sum(tokens)} tokens, not {TOKENS_PER_ROUND}")
    if min(s.markers) < 0:
        raise InvariantError(f"negative score: {s.markers}")
    if s.over:
        if s.legal_actions():
            raise InvariantError("a finished game offers actions")
        return
    if not s.legal_actions():
        raise InvariantError(f"player {s.current_player} has no legal action at {s.phase}")
    if s.pending is None and not s.nile:
        raise InvariantError("the Nile is empty at the start of a turn")
