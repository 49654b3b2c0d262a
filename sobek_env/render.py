"""A readable text picture of the table, as one seat sees it (rules §10)."""

from __future__ import annotations

from .actions import ACTION_NAMES
from .catalogue import BACKS, GOODS, HIEROGLYPHS, KINDS, TOKENS
from .state import GameState


def _cards(counts: list[int]) -> str:
    parts = [f"{c}x {KINDS[k]}" if c > 1 else KINDS[k] for k, c in enumerate(counts) if c]
    return ", ".join(parts) if parts else "-"


def _tokens(counts: list[int]) -> str:
    parts = [f"{c}x {TOKENS[t]}" if c > 1 else TOKENS[t] for t, c in enumerate(counts) if c]
    return ", ".join(parts) if parts else "-"


def render_text(s: GameState, seat: int | None = None) -> str:
    """The table as ``seat`` sees it (default: the player to move)."""
    seat = s.current_player if seat is None else seat
    n = s.rules.num_players
    lines = []
    if s.over:
        status = f"game over, winners: {', '.join(f'player_{p}' for p in s.winners)}"
    else:
        status = f"player_{s.current_player} to move ({s.phase or 'start of turn'})"
    lines.append(f"Sobek, round {s.round}, {n} players: {status}")
    lines.append("Scores: " + " | ".join(
        f"player_{p}{'*' if p == s.current_player and not s.over else ''} {s.markers[p]}" for p in range(n)))
    nile = "  ".join(f"[{i}] {KINDS[k] if k < 19 else '(character)'}" for i, k in enumerate(s.nile))
    lines.append(f"Nile: {nile or '-'}   deck: {len(s.deck)}")
    lines.append(f"Tokens: {sum(s.tokens)} face down; used: {_tokens(s.used_tokens)}")
    for p in [(seat + i) % n for i in range(n)]:
        who = "You" if p == seat else f"player_{p}"
        backs = s.hand_backs(p)
        if p == seat:
            lines.append(f"{who} (player_{p}): hand {sum(s.hands[p])}: {_cards(s.hands[p])}")
            lines.append(f"    corruption pile {sum(s.piles[p])}: {_cards(s.piles[p])}")
        else:
            back_text = ", ".join(f"{c} {BACKS[b]}" for b, c in enumerate(backs) if c) or "empty"
            lines.append(f"{who}: hand {sum(backs)} ({back_text})")
        sets = [
            f"{GOODS[g]}: {_cards(t.cards)}" + (f" +{t.prosperity} prosperity" if t.prosperity else "")
            for g, t in enumerate(s.sets[p]) if t is not None
        ]
        sets += [f"{GOODS[g]} (horizontal): {_cards(c)}" for g, c in s.horizontal[p]]
        extra = f", curses {s.curses[p]}" if s.curses[p] else ""
        lines.append(f"    sets: {'; '.join(sets) or '-'}{extra}")
    pend = s.pending
    if pend is not None and s.current_player == seat:
        if pend.phase == "token":
            lines.append(f"Tokens to choose from: {_tokens(s.tokens)}")
        elif pend.phase in ("set", "courtesan_card"):
            lines.append(f"Laying on {GOODS[pend.goods]}: {_cards(pend.cards)}")
        elif pend.phase == "vizier_card":
            lines.append(f"player_{pend.target}'s corruption pile: {_cards(s.piles[pend.target])}")
        elif pend.phase == "guild":
            lines.append(f"Guild of the {HIEROGLYPHS[pend.symbol]}: choose an opponent to move back")
    if not s.over and s.current_player == seat:
        lines.append("Legal: " + ", ".join(ACTION_NAMES[a] for a in s.legal_actions()))
    return "\n".join(lines)
