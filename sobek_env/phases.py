"""One handler per phase of a turn: each owns its legal actions and its transitions.

A state with ``pending is None`` is at the start of a turn (:class:`TurnStart`).
Every sub-decision (building a set, choosing a token, a character's choices,
Scribe discards, the first-player choice) is a :class:`Pending` whose ``phase``
names its handler in :data:`HANDLERS`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from . import actions as A
from .catalogue import (
    CHARACTER_KINDS,
    COURTESAN,
    COURTESAN_MAX_CARDS,
    CURSE,
    DECEIT,
    EMBALMING,
    FIRST_CHARACTER,
    FLOOD,
    GOODS,
    GUILDS,
    HIGH_PRIEST,
    HIGH_PRIESTESS,
    KIND_BACK,
    MERCHANT,
    NUM_KINDS,
    NUM_TOKEN_KINDS,
    PROSPERITY,
    PROSPERITY_GOODS,
    QUEEN,
    QUEEN_DRAW,
    SCRIBE_FISH,
    SCRIBE_HAND_LIMIT,
    SCRIBE_WHEAT,
    SET_MIN_CARDS,
    TAKE_WINDOW,
    THIEF,
    VIZIER,
    next_space,
    previous_space,
)

if TYPE_CHECKING:
    from .state import GameState

ALL_GOODS = tuple(range(len(GOODS)))


@dataclass
class Pending:
    """A sub-decision in progress. Which fields matter depends on ``phase``."""

    phase: str
    goods: int = -1                 # set, courtesan_card: the goods being laid
    cards: list[int] = field(default_factory=list)  # set: counts of the cards laid so far
    target: int = -1                # vizier_card, thief_back: the opponent's seat
    symbol: int = -1                # guild: the hieroglyph
    actor: int = -1                 # scribe: the seat that played the Scribe
    queue: list[int] = field(default_factory=list)  # scribe: seats still to discard after the current one

    def copy(self) -> Pending:
        return Pending(self.phase, self.goods, list(self.cards), self.target, self.symbol, self.actor, list(self.queue))


class Handler:
    """The legal actions and transitions of one phase."""

    def legal(self, s: GameState) -> list[int]:
        raise NotImplementedError

    def apply(self, s: GameState, a: int) -> None:
        raise NotImplementedError


def _opponents(s: GameState) -> list[int]:
    return [A.PLAYER + o for o in range(1, s.rules.num_players)]


def _seat(s: GameState, offset: int) -> int:
    return (s.current_player + offset) % s.rules.num_players


class TurnStart(Handler):
    """rules §3: take a card, play a character, or start a set."""

    def legal(self, s: GameState) -> list[int]:
        hand = s.hands[s.current_player]
        out = list(range(A.TAKE, A.TAKE + min(TAKE_WINDOW, len(s.nile))))
        out += [A.CHARACTER + k - FIRST_CHARACTER for k in CHARACTER_KINDS if hand[k]]
        out += [A.SET + g for g in ALL_GOODS if s.fitting_in_hand(s.current_player, g) >= SET_MIN_CARDS]
        return out

    def apply(self, s: GameState, a: int) -> None:
        p = s.current_player
        if a < A.CHARACTER:
            s.take_from_nile(p, a - A.TAKE, corruption=True)
        elif a < A.SET:
            kind = FIRST_CHARACTER + a - A.CHARACTER
            s.lay_from_hand(p, kind)
            s.discard[kind] += 1
            POWERS[kind](s, p)
        else:
            s.pending = Pending("set", goods=a - A.SET, cards=[0] * NUM_KINDS)


class BuildSet(Handler):
    """rules §6: lay fitting cards one by one, then ``done`` once three or more are down."""

    def legal(self, s: GameState) -> list[int]:
        pend = s.pending
        hand = s.hands[s.current_player]
        out = [A.CARD + k for k in s.rules.fits[pend.goods] if hand[k]]
        out.sort()
        if sum(pend.cards) >= SET_MIN_CARDS:
            out.append(A.DONE)
        return out

    def apply(self, s: GameState, a: int) -> None:
        pend = s.pending
        p = s.current_player
        if a == A.DONE:
            s.add_to_set(p, pend.goods, pend.cards)
            if any(s.tokens):  # rules §6: laying a set triggers an event while tokens remain
                s.pending = Pending("token")
            else:
                s.end_turn()
            return
        kind = a - A.CARD
        s.lay_from_hand(p, kind)
        pend.cards[kind] += 1


class ChooseToken(Handler):
    """rules §7: pick one of the round's remaining tokens and resolve it at once."""

    def legal(self, s: GameState) -> list[int]:
        return [A.TOKEN + t for t in range(NUM_TOKEN_KINDS) if s.tokens[t]]

    def apply(self, s: GameState, a: int) -> None:
        token = a - A.TOKEN
        p = s.current_player
        s.tokens[token] -= 1
        if token == CURSE:
            s.pending = Pending("curse")
            return
        if token == PROSPERITY:
            if any(s.sets[p][g] is not None for g in PROSPERITY_GOODS):
                s.pending = Pending("prosperity")
                return
            s.used_tokens[token] += 1  # no wheat, fish or cattle set: just discarded
            s.end_turn()
            return
        s.used_tokens[token] += 1
        if token in GUILDS:
            s.markers[p] = next_space(s.markers[p], token)
            if Guild.targets(s, token):
                s.pending = Pending("guild", symbol=token)
            else:
                s.end_turn()
        elif token == FLOOD:
            s.end_turn(again=True)
        elif token == EMBALMING:
            s.embalm(p)
            s.end_turn()
        elif token == DECEIT:
            s.markers[p] += sum(s.piles[p])
            s.end_turn()


class Guild(Handler):
    """rules §7 Guild: move back an opponent who has an earlier space with the hieroglyph."""

    @staticmethod
    def targets(s: GameState, symbol: int) -> list[int]:
        n = s.rules.num_players
        return [
            A.PLAYER + o
            for o in range(1, n)
            if previous_space(s.markers[(s.current_player + o) % n], symbol) is not None
        ]

    def legal(self, s: GameState) -> list[int]:
        return self.targets(s, s.pending.symbol)

    def apply(self, s: GameState, a: int) -> None:
        target = _seat(s, a - A.PLAYER)
        s.markers[target] = previous_space(s.markers[target], s.pending.symbol)
        s.end_turn()


class Curse(Handler):
    """rules §7 Curse: give it to an opponent; it counts 2 corruption cards at scoring."""

    def legal(self, s: GameState) -> list[int]:
        return _opponents(s)

    def apply(self, s: GameState, a: int) -> None:
        s.curses[_seat(s, a - A.PLAYER)] += 1
        s.end_turn()


class Prosperity(Handler):
    """rules §7 Prosperity: put it on one of your wheat, fish or cattle sets."""

    def legal(self, s: GameState) -> list[int]:
        own = s.sets[s.current_player]
        return [A.GOODS_CHOICE + g for g in PROSPERITY_GOODS if own[g] is not None]

    def apply(self, s: GameState, a: int) -> None:
        s.sets[s.current_player][a - A.GOODS_CHOICE].prosperity += 1
        s.end_turn()


class Priest(Handler):
    """rules §4 High Priest/ess: discard every card of one goods from your corruption pile."""

    def legal(self, s: GameState) -> list[int]:
        return [A.GOODS_CHOICE + g for g in ALL_GOODS]

    def apply(self, s: GameState, a: int) -> None:
        p = s.current_player
        pile = s.piles[p]
        for kind in s.rules.members[a - A.GOODS_CHOICE]:  # members never include the amulet
            if pile[kind]:
                s.discard[kind] += pile[kind]
                pile[kind] = 0
                s.known_piles[p][kind] = 0  # they left face up
        s.end_turn()


class Vizier(Handler):
    """rules §4 Vizier: choose any opponent (masking empty piles would leak their size)."""

    def legal(self, s: GameState) -> list[int]:
        return _opponents(s)

    def apply(self, s: GameState, a: int) -> None:
        target = _seat(s, a - A.PLAYER)
        if any(s.piles[target]):
            s.pending = Pending("vizier_card", target=target)
        else:
            s.end_turn()


class VizierCard(Handler):
    """rules §4 Vizier: take one card of your choice from the searched pile."""

    def legal(self, s: GameState) -> list[int]:
        pile = s.piles[s.pending.target]
        return [A.CARD + k for k in range(NUM_KINDS) if pile[k]]

    def apply(self, s: GameState, a: int) -> None:
        kind = a - A.CARD
        s.piles[s.pending.target][kind] -= 1
        s.hands[s.current_player][kind] += 1
        s.end_turn()


class ScribeDiscard(Handler):
    """rules §4 Scribe: the opponent to move puts cards of his choice from hand to pile down to 6."""

    def legal(self, s: GameState) -> list[int]:
        hand = s.hands[s.current_player]
        return [A.CARD + k for k in range(NUM_KINDS) if hand[k]]

    def apply(self, s: GameState, a: int) -> None:
        p = s.current_player
        kind = a - A.CARD
        s.hands[p][kind] -= 1
        s.piles[p][kind] += 1  # face down: what others know of this hand stays as it was
        if sum(s.hands[p]) > SCRIBE_HAND_LIMIT:
            return
        pend = s.pending
        if pend.queue:
            s.current_player = pend.queue.pop(0)
        else:
            s.current_player = pend.actor
            s.end_turn()


class Thief(Handler):
    """rules §4 Thief: choose any opponent."""

    def legal(self, s: GameState) -> list[int]:
        return _opponents(s)

    def apply(self, s: GameState, a: int) -> None:
        target = _seat(s, a - A.PLAYER)
        if any(s.hands[target]):
            s.pending = Pending("thief_back", target=target)
        else:
            s.end_turn()


class ThiefBack(Handler):
    """rules §4 Thief: name a back colour the opponent holds; a card with it is drawn at random."""

    def legal(self, s: GameState) -> list[int]:
        backs = s.hand_backs(s.pending.target)
        return [A.BACK + b for b in range(len(backs)) if backs[b]]

    def apply(self, s: GameState, a: int) -> None:
        back = a - A.BACK
        victim = s.hands[s.pending.target]
        kinds = [k for k in range(NUM_KINDS) if KIND_BACK[k] == back and victim[k]]
        draw = s.rng.randrange(sum(victim[k] for k in kinds))
        for kind in kinds:
            draw -= victim[kind]
            if draw < 0:
                break
        victim[kind] -= 1
        s.hands[s.current_player][kind] += 1
        s.end_turn()


class CourtesanSet(Handler):
    """rules §4 Courtesan: choose an own set that a card in hand fits."""

    @staticmethod
    def choices(s: GameState) -> list[int]:
        p = s.current_player
        return [A.GOODS_CHOICE + g for g in ALL_GOODS if s.sets[p][g] is not None and s.fitting_in_hand(p, g)]

    def legal(self, s: GameState) -> list[int]:
        return self.choices(s)

    def apply(self, s: GameState, a: int) -> None:
        s.pending = Pending("courtesan_card", goods=a - A.GOODS_CHOICE, cards=[0] * NUM_KINDS)


class CourtesanCard(Handler):
    """rules §4 Courtesan: add 1 or 2 fitting cards; ``done`` after the first stops."""

    def legal(self, s: GameState) -> list[int]:
        pend = s.pending
        hand = s.hands[s.current_player]
        out = sorted(A.CARD + k for k in s.rules.fits[pend.goods] if hand[k])
        if sum(pend.cards):
            out.append(A.DONE)
        return out

    def apply(self, s: GameState, a: int) -> None:
        pend = s.pending
        if a == A.DONE:
            s.end_turn()
            return
        kind = a - A.CARD
        p = s.current_player
        s.lay_from_hand(p, kind)
        s.sets[p][pend.goods].cards[kind] += 1  # rules §4: onto the set, no event token
        pend.cards[kind] += 1
        if sum(pend.cards) == COURTESAN_MAX_CARDS:
            s.end_turn()


class Merchant(Handler):
    """rules §4 Merchant: take any card of the Nile, with no corruption."""

    def legal(self, s: GameState) -> list[int]:
        return list(range(A.TAKE, A.TAKE + len(s.nile)))

    def apply(self, s: GameState, a: int) -> None:
        s.take_from_nile(s.current_player, a - A.TAKE, corruption=False)


class FirstPlayer(Handler):
    """rules §2.6: the lowest scorer names the round's first player (offset 0 = himself)."""

    def legal(self, s: GameState) -> list[int]:
        return [A.PLAYER + o for o in range(s.rules.num_players)]

    def apply(self, s: GameState, a: int) -> None:
        first = _seat(s, a - A.PLAYER)
        s.first_player = s.current_player = first
        s.pending = None


# Character powers (rules §4): called once the card is on the discard.

def _queen(s: GameState, p: int) -> None:
    drawn = s.deck[:QUEEN_DRAW]
    del s.deck[:QUEEN_DRAW]
    for kind in drawn:
        s.hands[p][kind] += 1
    s.end_turn()


def _scribe(s: GameState, p: int) -> None:
    n = s.rules.num_players
    over = [(p + o) % n for o in range(1, n) if sum(s.hands[(p + o) % n]) > SCRIBE_HAND_LIMIT]
    if not over:
        s.end_turn()
        return
    s.pending = Pending("scribe", actor=p, queue=over[1:])
    s.current_player = over[0]


def _courtesan(s: GameState, p: int) -> None:
    if CourtesanSet.choices(s):
        s.pending = Pending("courtesan")
    else:
        s.end_turn()


def _ask(phase: str):
    def power(s: GameState, p: int) -> None:
        s.pending = Pending(phase)
    return power


POWERS = {
    QUEEN: _queen,
    VIZIER: _ask("vizier"),
    MERCHANT: _ask("merchant"),
    HIGH_PRIEST: _ask("priest"),
    THIEF: _ask("thief"),
    HIGH_PRIESTESS: _ask("priest"),
    SCRIBE_FISH: _scribe,
    SCRIBE_WHEAT: _scribe,
    COURTESAN: _courtesan,
}

TURN_START = TurnStart()
HANDLERS: dict[str, Handler] = {
    "set": BuildSet(),
    "token": ChooseToken(),
    "guild": Guild(),
    "curse": Curse(),
    "prosperity": Prosperity(),
    "priest": Priest(),
    "vizier": Vizier(),
    "vizier_card": VizierCard(),
    "scribe": ScribeDiscard(),
    "thief": Thief(),
    "thief_back": ThiefBack(),
    "courtesan": CourtesanSet(),
    "courtesan_card": CourtesanCard(),
    "merchant": Merchant(),
    "first_player": FirstPlayer(),
}
PHASES = (None, *HANDLERS)  # None: the start of a turn
