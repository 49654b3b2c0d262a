"""A readable text picture of the table, as one seat sees it (rules §10)."""

from __future__ import annotations

from .actions import ACTION_NAMES
from .catalogue import BACKS, FACE_UP_ON_NILE, HIEROGLYPHS, KINDS, SET_SLOTS, TOKENS
from .phases import BuildSet, CourtesanCard, Guild, HorizontalSet
from .state import GameState
from .view import chooses_token, knows_tokens, searched_pile, view


def _cards(counts: list[int]) -> str:
    parts = [f"{c}x {KINDS[k]}" if c > 1 else KINDS[k] for k, c in enumerate(counts) if c]
    return ", ".join(parts) if parts else "-"


def _tokens(counts: list[int]) -> str:
    parts = [f"{c}x {TOKENS[t]}" if c > 1 else TOKENS[t] for t, c in enumerate(counts) if c]
    return ", ".join(parts) if parts else "-"


def _set_name(slot: int) -> str:
    return "amulets only" if SET_SLOTS[slot] == "amulet" else SET_SLOTS[slot]


def render_text(s: GameState, seat: int | None = None, memory: bool = False) -> str:
    """The table as ``seat`` sees it (default: the player to move), in ``memory`` mode or not."""
    seat = s.current_player if seat is None else seat
    mine = view(s, seat, "memory" if memory else "original")
    n = s.rules.num_players
    lines = []
    if s.over:
        status = f"game over, winners: {', '.join(f'player_{p}' for p in s.winners)}"
    else:
        status = f"player_{s.current_player} to move ({(s.pending.description if s.pending else 'start of turn')})"
    lines.append(f"Sobek, round {s.round}, {n} players: {status}")
    lines.append("Scores: " + " | ".join(
        f"player_{p}{'*' if p == s.current_player and not s.over else ''} {s.markers[p]}" for p in range(n)))
    nile = "  ".join(f"[{i}] {KINDS[k] if FACE_UP_ON_NILE[k] else '(character)'}" for i, k in enumerate(s.nile))
    lines.append(f"Nile: {nile or '-'}   deck: {len(s.deck)}")
    lines.append(f"Tokens: {sum(s.tokens)} face down; used: {_tokens(s.used_tokens)}")
    for i in range(n):
        p = (seat + i) % n
        if i == 0:
            lines.append(f"You (player_{p}): hand {sum(mine.hand)}: {_cards(mine.hand)}")
            lines.append(f"    corruption pile {sum(mine.pile)}: {_cards(mine.pile)}")
        else:
            backs = s.hand_backs(p)
            back_text = ", ".join(f"{c} {BACKS[b]}" for b, c in enumerate(backs) if c) or "empty"
            lines.append(f"player_{p}: hand {sum(backs)} ({back_text})")
            if memory:
                lines.append(f"    remembered in hand: {_cards(mine.known_hands[i - 1])}; "
                             f"in pile ({sum(mine.pile_backs[i])} cards): {_cards(mine.known_piles[i - 1])}")
        sets = [
            f"{_set_name(g)}: {_cards(t.cards)}" + (f" +{t.prosperity} prosperity" if t.prosperity else "")
            for g, t in enumerate(s.sets[p]) if t is not None
        ]
        sets += [f"horizontal {_set_name(g)}: {_cards(c)}" for g, c in s.horizontal[p]]
        extra = f", curses {s.curses[p]}" if s.curses[p] else ""
        lines.append(f"    sets: {'; '.join(sets) or '-'}{extra}")
    if s.round_log:
        last = s.round_log[-1]
        corrupt = ", ".join(f"player_{p}" for p in last["most_corrupt"]) or "nobody"
        lines.append(f"Round {last['round']} scored: points {last['points']}, corruption {last['corruption']}, "
                     f"most corrupt {corrupt}, penalty {last['penalty']}")
    pending = s.pending
    if chooses_token(s, seat):
        lines.append(f"Tokens to choose from: {_tokens(mine.token_choice)}")
    elif knows_tokens(s, seat, memory):
        lines.append(f"Tokens you know are face down: {_tokens(mine.tokens_known or [])}")
    searched = searched_pile(s, seat)
    if searched is not None:
        lines.append(f"player_{searched}'s corruption pile: {_cards(mine.vizier_pile)}")
    if isinstance(pending, (BuildSet, HorizontalSet)):
        lines.append(f"Laying on {SET_SLOTS[pending.goods]}: {_cards(pending.cards)}")
    elif isinstance(pending, CourtesanCard):
        lines.append(f"Courtesan, adding to the {_set_name(pending.slot)} set: {_cards(pending.cards)}")
    elif isinstance(pending, Guild):
        lines.append(f"Guild of the {HIEROGLYPHS[pending.symbol]}: choose an opponent to move back")
    if not s.over and s.current_player == seat:
        lines.append("Legal: " + ", ".join(ACTION_NAMES[a] for a in s.legal_actions()))
    return "\n".join(lines)
