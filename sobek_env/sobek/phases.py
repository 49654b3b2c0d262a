"""One type per phase of a turn: each owns its legal actions, its transitions, its document form and its checks.

A state whose ``pending`` is None is at the start of a turn (:data:`TURN_START`
decides). Every sub-decision (building a set, choosing a token, a character's
choices, Scribe discards, the first-player choice, the horizontal sets at the
round's end) is an instance of a :class:`SobekPhase` subclass held in
``pending``; its fields are that sub-decision's data. :data:`PHASES` lists the
phase types in the order of the observation's one-hot ``phase`` section.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import compress
from typing import TYPE_CHECKING, Any, ClassVar

from .. import document as D
from ..errors import InvariantError
from ..game import Phase
from . import actions as A
from .catalogue import (
    AMULET,
    AMULET_SET,
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
    HIEROGLYPHS,
    HIGH_PRIEST,
    HIGH_PRIESTESS,
    KIND_BACK,
    KINDS,
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
    SET_SLOTS,
    TAKE_WINDOW,
    THIEF,
    TOTAL_CARDS,
    VIZIER,
    next_space,
    previous_space,
)

if TYPE_CHECKING:
    from .state import GameState

ALL_GOODS = tuple(range(len(GOODS)))
TAKE_ACTIONS = list(range(A.TAKE, A.TAKE + TAKE_WINDOW))  # a slice as long as the Nile: those within reach
CHARACTER_ACTIONS = tuple(A.CHARACTER + k - FIRST_CHARACTER for k in CHARACTER_KINDS)  # the last kinds of a hand
SET_ACTIONS = tuple(A.SET + g for g in ALL_GOODS)
KIND_IDS = range(NUM_KINDS)
Fault = tuple[str, str] | None  # (field of the pending document, what is wrong), or None


class SobekPhase(Phase):
    """A Sobek sub-decision. :meth:`fault` says what, if anything, does not fit the state: the
    reader refuses such a document (naming the field) and :meth:`check` raises InvariantError."""

    __slots__ = ()
    fields: ClassVar[tuple[str, ...]] = ()  # the keys of the document form besides "phase"

    def fault(self, s: GameState) -> Fault:
        return None

    def check(self, s: GameState) -> None:
        fault = self.fault(s)
        if fault is not None:
            raise InvariantError(f"pending {self.name}: {fault[0]}: {fault[1]}")

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self.document() == other.document()

    def __repr__(self) -> str:
        return f"<{self.name} {self.document()}>"


# ---------------------------------------------------------------------- document helpers

def _names(counts: list[int]) -> list[str]:
    return [KINDS[k] for k, c in enumerate(counts) for _ in range(c)]


def _counts(value: Any, path: str) -> list[int]:
    counts = [0] * NUM_KINDS
    for i, v in enumerate(D.array(value, path, TOTAL_CARDS)):
        counts[D.name(v, f"{path}[{i}]", KINDS, "card kind")] += 1
    return counts


def _seat(value: Any, path: str, s: GameState) -> int:
    return D.integer(value, path, 0, s.num_players - 1)


def _queue(value: Any, path: str, s: GameState) -> list[int]:
    return [_seat(v, f"{path}[{i}]", s) for i, v in enumerate(D.array(value, path, s.num_players))]


def _fitting(cards: list[int], fits: tuple[int, ...]) -> Fault:
    for k, c in enumerate(cards):
        if c and k not in fits:
            return "cards", f"card {KINDS[k]!r} does not fit"
    return None


def _opponent_target(target: int, s: GameState) -> Fault:
    if target == s.current_player:
        return "target", "must be an opponent of the current player"
    return None


# ---------------------------------------------------------------------- the start of a turn

class TurnStart(SobekPhase):
    """rules §3: take a card, play a character, or start a set."""

    name = "turn"
    description = "start of a turn: take a Nile card, play a character or lay a set"
    __slots__ = ()

    def legal(self, s: GameState) -> list[int]:
        hand = s.hands[s.current_player]
        out = TAKE_ACTIONS[:len(s.nile)]
        out += compress(CHARACTER_ACTIONS, hand[FIRST_CHARACTER:])
        # s.fitting_in_hand of every goods in one pass over the kinds in hand (this runs at most steps):
        # amulets fit every set, any other card the set of its goods (rules §6)
        kind_goods = s.rules.kind_goods
        fitting = [hand[AMULET]] * len(GOODS)
        for k in compress(KIND_IDS, hand):
            g = kind_goods[k]
            if g >= 0:
                fitting[g] += hand[k]
        out += compress(SET_ACTIONS, map(SET_MIN_CARDS.__le__, fitting))
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
            s.pending = BuildSet(a - A.SET, [0] * NUM_KINDS)


# ---------------------------------------------------------------------- sets and events

class BuildSet(SobekPhase):
    """rules §6: lay fitting cards one by one, then ``done`` once three or more are down."""

    name = "set"
    description = "laying a set: add fitting cards, then done (3 cards at least)"
    fields = ("goods", "cards")
    __slots__ = ("goods", "cards")

    def __init__(self, goods: int, cards: list[int]) -> None:
        self.goods = goods
        self.cards = cards  # counts of the cards laid so far (off the hand, not yet on the table)

    def legal(self, s: GameState) -> list[int]:
        hand = s.hands[s.current_player]
        out = [A.CARD + k for k in s.rules.fits[self.goods] if hand[k]]
        out.sort()  # fits lists the amulet last, though characters' ids are above it
        if sum(self.cards) >= SET_MIN_CARDS:
            out.append(A.DONE)
        return out

    def apply(self, s: GameState, a: int) -> None:
        p = s.current_player
        if a == A.DONE:
            s.lay_set(p, self.goods, self.cards)
            if any(s.tokens):  # rules §6: laying a set triggers an event while tokens remain
                s.pending = ChooseToken()
            else:
                s.emit("token:none-left")
                s.end_turn()
            return
        kind = a - A.CARD
        s.lay_from_hand(p, kind)
        self.cards[kind] += 1

    def copy(self) -> BuildSet:
        return BuildSet(self.goods, list(self.cards))

    def document(self) -> dict[str, Any]:
        return {"goods": GOODS[self.goods], "cards": _names(self.cards)}

    @classmethod
    def read(cls, doc: Mapping[str, Any], s: GameState, path: str) -> BuildSet:
        goods = D.name(D.get(doc, "goods", path + "."), f"{path}.goods", GOODS, "goods")
        return cls(goods, _counts(doc.get("cards", []), f"{path}.cards"))

    def fault(self, s: GameState) -> Fault:
        if sum(self.cards) + s.fitting_in_hand(s.current_player, self.goods) < SET_MIN_CARDS:
            return "cards", "the set can never reach 3 cards with the cards in hand"
        return _fitting(self.cards, s.rules.fits[self.goods])


class ChooseToken(SobekPhase):
    """rules §7: look through the round's remaining tokens, pick one and resolve it at once."""

    name = "token"
    description = "choosing one of the face-down event tokens"
    __slots__ = ()

    def legal(self, s: GameState) -> list[int]:
        return [A.TOKEN + t for t in range(NUM_TOKEN_KINDS) if s.tokens[t]]

    def apply(self, s: GameState, a: int) -> None:
        token = a - A.TOKEN
        p = s.current_player
        s.token_glimpse[p] = True  # rules §10: he has seen which tokens remain
        s.tokens[token] -= 1
        if token == CURSE:
            s.pending = Curse()
            return
        if token == PROSPERITY:
            if Prosperity.targets(s):
                s.pending = Prosperity()
                return
            s.used_tokens[token] += 1  # no wheat, fish, cattle or amulets-only set: just discarded
            s.emit("token:prosperity:no-set")
            s.end_turn()
            return
        s.used_tokens[token] += 1
        if token in GUILDS:
            s.markers[p] = next_space(s.markers[p], token)
            if Guild.targets(s, token):
                s.pending = Guild(token)
            else:
                s.emit("token:guild:no-target")
                s.end_turn()
        elif token == FLOOD:
            s.emit("token:flood:chain" if s.extra_turns else "token:flood:extra-turn")
            s.end_turn(again=True)
        elif token == EMBALMING:
            s.emit("token:embalming:cards" if any(s.piles[p]) else "token:embalming:empty-pile")
            s.embalm(p)
            s.end_turn()
        elif token == DECEIT:
            pile = sum(s.piles[p])
            s.emit("token:deceit:points" if pile else "token:deceit:zero")
            s.markers[p] += pile
            s.end_turn()


class Guild(SobekPhase):
    """rules §7 Guild: move back an opponent who has an earlier space with the hieroglyph."""

    name = "guild"
    description = "Guild: choosing the opponent to move back"
    fields = ("hieroglyph",)
    __slots__ = ("symbol",)

    def __init__(self, symbol: int) -> None:
        self.symbol = symbol

    @staticmethod
    def targets(s: GameState, symbol: int) -> list[int]:
        n = s.num_players
        return [A.PLAYER + o for o in range(1, n)
                if previous_space(s.markers[(s.current_player + o) % n], symbol) is not None]

    def legal(self, s: GameState) -> list[int]:
        return self.targets(s, self.symbol)

    def apply(self, s: GameState, a: int) -> None:
        s.emit("token:guild:several-targets" if len(self.legal(s)) > 1 else "token:guild:pushed-back")
        target = s.seat_at(a - A.PLAYER)
        s.markers[target] = previous_space(s.markers[target], self.symbol)
        s.end_turn()

    def document(self) -> dict[str, Any]:
        return {"hieroglyph": HIEROGLYPHS[self.symbol]}

    @classmethod
    def read(cls, doc: Mapping[str, Any], s: GameState, path: str) -> Guild:
        return cls(D.name(D.get(doc, "hieroglyph", path + "."), f"{path}.hieroglyph", HIEROGLYPHS, "hieroglyph"))


class Curse(SobekPhase):
    """rules §7 Curse: give it to an opponent; it counts 2 corruption cards at scoring."""

    name = "curse"
    description = "Curse: choosing the opponent who receives it"
    __slots__ = ()

    def legal(self, s: GameState) -> list[int]:
        return s.opponent_actions()

    def apply(self, s: GameState, a: int) -> None:
        target = s.seat_at(a - A.PLAYER)
        s.curses[target] += 1
        s.emit("token:curse:both-on-one-player" if s.curses[target] > 1 else "token:curse:placed")
        s.end_turn()


class Prosperity(SobekPhase):
    """rules §7 Prosperity: put it on one of your wheat, fish or cattle sets, or your amulets-only set."""

    name = "prosperity"
    description = "Prosperity: choosing the wheat, fish, cattle or amulets-only set that receives it"
    __slots__ = ()

    @staticmethod
    def targets(s: GameState) -> list[int]:
        own = s.sets[s.current_player]
        return [A.SLOT_ACTIONS[g] for g in (*PROSPERITY_GOODS, AMULET_SET) if own[g] is not None]

    def legal(self, s: GameState) -> list[int]:
        return sorted(self.targets(s))

    def apply(self, s: GameState, a: int) -> None:
        table_set = s.sets[s.current_player][A.ACTION_SLOT[a]]
        table_set.prosperity += 1
        s.emit("token:prosperity:both-on-one-set" if table_set.prosperity > 1 else "token:prosperity:placed")
        s.end_turn()


# ---------------------------------------------------------------------- characters

class Priest(SobekPhase):
    """rules §4 High Priest(ess): name a goods; every goods card of it leaves the corruption pile."""

    name = "priest"
    description = "High Priest(ess): choosing the goods to discard from the corruption pile"
    __slots__ = ()

    def legal(self, s: GameState) -> list[int]:
        return [A.GOODS_CHOICE + g for g in ALL_GOODS]

    def apply(self, s: GameState, a: int) -> None:
        p, goods = s.current_player, a - A.GOODS_CHOICE
        pile = s.piles[p]
        discarded = 0
        for kind in s.rules.members[goods]:
            if kind < FIRST_CHARACTER and pile[kind]:  # goods cards only; never amulets (rules §4)
                discarded += pile[kind]
                s.discard_from_pile(p, kind, pile[kind])
        s.emit("priest:discarded" if discarded else "priest:nothing")
        if PriestCharacters.choices(s, goods):
            s.pending = PriestCharacters(goods)
        else:
            s.end_turn()


class PriestCharacters(SobekPhase):
    """rules §4 High Priest(ess): the family's characters in the pile *may* be discarded, one by one."""

    name = "priest_characters"
    description = "High Priest(ess): discarding the goods' family characters from the pile, or done"
    fields = ("goods",)
    __slots__ = ("goods",)

    def __init__(self, goods: int) -> None:
        self.goods = goods

    @staticmethod
    def choices(s: GameState, goods: int) -> list[int]:
        pile = s.piles[s.current_player]
        return [A.CARD + k for k in s.rules.members[goods] if k >= FIRST_CHARACTER and pile[k]]

    def legal(self, s: GameState) -> list[int]:
        return [*self.choices(s, self.goods), A.DONE]

    def apply(self, s: GameState, a: int) -> None:
        if a == A.DONE:
            s.emit("priest:kept-character")
            s.end_turn()
            return
        s.discard_from_pile(s.current_player, a - A.CARD, 1)
        s.emit("priest:discarded-character")
        if not self.choices(s, self.goods):
            s.end_turn()

    def document(self) -> dict[str, Any]:
        return {"goods": GOODS[self.goods]}

    @classmethod
    def read(cls, doc: Mapping[str, Any], s: GameState, path: str) -> PriestCharacters:
        return cls(D.name(D.get(doc, "goods", path + "."), f"{path}.goods", GOODS, "goods"))

    def fault(self, s: GameState) -> Fault:
        if not self.choices(s, self.goods):
            return "goods", f"no character of the {GOODS[self.goods]} family is left in the pile"
        return None


class ChooseOpponent(SobekPhase):
    """A character's choice of any opponent (masking those with nothing to take would leak it); an
    opponent whose ``zone`` (hands or piles) is empty ends the power with no effect (rules §4)."""

    zone: ClassVar[str]
    follow_up: ClassVar[type[TargetPhase]]
    empty_event: ClassVar[str]
    __slots__ = ()

    def legal(self, s: GameState) -> list[int]:
        return s.opponent_actions()

    def apply(self, s: GameState, a: int) -> None:
        target = s.seat_at(a - A.PLAYER)
        if any(getattr(s, self.zone)[target]):
            s.pending = self.follow_up(target)
        else:
            s.emit(self.empty_event)
            s.end_turn()


class TargetPhase(SobekPhase):
    """A sub-decision about one opponent, ``target`` (a seat)."""

    fields = ("target",)
    __slots__ = ("target",)

    def __init__(self, target: int) -> None:
        self.target = target

    def document(self) -> dict[str, Any]:
        return {"target": self.target}

    @classmethod
    def read(cls, doc: Mapping[str, Any], s: GameState, path: str) -> TargetPhase:
        return cls(_seat(D.get(doc, "target", path + "."), f"{path}.target", s))

    def fault(self, s: GameState) -> Fault:
        return _opponent_target(self.target, s)


class VizierCard(TargetPhase):
    """rules §4 Vizier: take one card of your choice from the searched pile."""

    name = "vizier_card"
    description = "Vizier: taking one card of the searched corruption pile"
    __slots__ = ()

    def legal(self, s: GameState) -> list[int]:
        pile = s.piles[self.target]
        return [A.CARD + k for k in range(NUM_KINDS) if pile[k]]

    def apply(self, s: GameState, a: int) -> None:
        s.vizier_take(s.current_player, self.target, a - A.CARD)
        s.emit("power:vizier:took-card")
        s.end_turn()


class Vizier(ChooseOpponent):
    """rules §4 Vizier: choose any opponent, then take a card of his corruption pile."""

    name = "vizier"
    description = "Vizier: choosing the opponent whose corruption pile to search"
    zone, follow_up, empty_event = "piles", VizierCard, "power:vizier:empty-pile"
    __slots__ = ()


class Scribe(SobekPhase):
    """rules §4 Scribe: the opponent to move puts cards of his choice from hand to pile down to 6."""

    name = "scribe"
    description = "Scribe: discarding cards from the hand to the corruption pile, down to 6"
    fields = ("actor", "queue")
    __slots__ = ("actor", "queue")

    def __init__(self, actor: int, queue: list[int]) -> None:
        self.actor = actor  # the seat that played the Scribe
        self.queue = queue  # seats still to discard after the current one

    def legal(self, s: GameState) -> list[int]:
        hand = s.hands[s.current_player]
        return [A.CARD + k for k in range(NUM_KINDS) if hand[k]]

    def apply(self, s: GameState, a: int) -> None:
        p = s.current_player
        kind = a - A.CARD
        s.hands[p][kind] -= 1
        s.piles[p][kind] += 1  # face down: what others know of this hand stays as it was
        s.emit("power:scribe:discard")
        if sum(s.hands[p]) > SCRIBE_HAND_LIMIT:
            return
        if self.queue:
            s.current_player = self.queue.pop(0)
        else:
            s.current_player = self.actor
            s.end_turn()

    def copy(self) -> Scribe:
        return Scribe(self.actor, list(self.queue))

    def document(self) -> dict[str, Any]:
        return {"actor": self.actor, "queue": list(self.queue)}

    @classmethod
    def read(cls, doc: Mapping[str, Any], s: GameState, path: str) -> Scribe:
        return cls(_seat(D.get(doc, "actor", path + "."), f"{path}.actor", s),
                   _queue(doc.get("queue", []), f"{path}.queue", s))

    def fault(self, s: GameState) -> Fault:
        seats = [s.current_player, *self.queue]
        if self.actor in seats or len(set(seats)) != len(seats):
            return "queue", "the Scribe's discards are by distinct opponents of the actor"
        for seat in seats:
            if sum(s.hands[seat]) <= SCRIBE_HAND_LIMIT:
                return "queue", f"player {seat} holds {SCRIBE_HAND_LIMIT} cards or fewer"
        return None


class ThiefBack(TargetPhase):
    """rules §4 Thief: name a back colour the opponent holds; a card with it is drawn at random."""

    name = "thief_back"
    description = "Thief: naming the back colour of the card to draw"
    __slots__ = ()

    def legal(self, s: GameState) -> list[int]:
        backs = s.hand_backs(self.target)
        return [A.BACK + b for b in range(len(backs)) if backs[b]]

    def apply(self, s: GameState, a: int) -> None:
        back = a - A.BACK
        victim = s.hands[self.target]
        kinds = [k for k in range(NUM_KINDS) if KIND_BACK[k] == back and victim[k]]
        draw = s.rng.randrange(sum(victim[k] for k in kinds))
        for kind in kinds:
            draw -= victim[kind]
            if draw < 0:
                break
        s.steal(s.current_player, self.target, kind)
        s.emit(f"power:thief:stole-{('green', 'beige', 'orange')[back]}")
        s.end_turn()


class Thief(ChooseOpponent):
    """rules §4 Thief: choose any opponent, then a back colour of his hand."""

    name = "thief"
    description = "Thief: choosing the opponent to steal from"
    zone, follow_up, empty_event = "hands", ThiefBack, "power:thief:empty-hand"
    __slots__ = ()


class CourtesanSet(SobekPhase):
    """rules §4 Courtesan: choose an own set that a card in hand fits."""

    name = "courtesan"
    description = "Courtesan: choosing the set to add cards to"
    __slots__ = ()

    @staticmethod
    def choices(s: GameState) -> list[int]:
        p = s.current_player
        return sorted(A.SLOT_ACTIONS[slot] for slot in range(len(SET_SLOTS))
                      if s.sets[p][slot] is not None and CourtesanCard.fitting(s, p, slot))

    def legal(self, s: GameState) -> list[int]:
        return self.choices(s)

    def apply(self, s: GameState, a: int) -> None:
        s.pending = CourtesanCard(A.ACTION_SLOT[a], [0] * NUM_KINDS)


class CourtesanCard(SobekPhase):
    """rules §4 Courtesan: add 1 or 2 fitting cards; ``done`` after the first stops. A goods card on
    the amulets-only set gives it that goods (rules §6)."""

    name = "courtesan_card"
    description = "Courtesan: adding one or two cards to the set (done after the first stops)"
    fields = ("goods", "cards")
    __slots__ = ("slot", "cards")

    def __init__(self, slot: int, cards: list[int]) -> None:
        self.slot = slot    # the set's slot (a goods, or the amulets-only set)
        self.cards = cards  # added so far (already on the set)

    @staticmethod
    def fitting(s: GameState, p: int, slot: int) -> list[int]:
        """The kinds in ``p``'s hand that may go on his set in ``slot``."""
        hand = s.hands[p]
        if slot != AMULET_SET:
            return [k for k in s.rules.fits[slot] if hand[k]]
        return [k for k in s.amulet_set_fits(p) if hand[k]]

    def legal(self, s: GameState) -> list[int]:
        out = sorted(A.CARD + k for k in self.fitting(s, s.current_player, self.slot))
        if sum(self.cards):
            out.append(A.DONE)
        return out

    def apply(self, s: GameState, a: int) -> None:
        if a == A.DONE:
            s.emit("power:courtesan:1-card")
            s.end_turn()
            return
        kind = a - A.CARD
        p = s.current_player
        s.lay_from_hand(p, kind)
        self.slot = s.add_to_set(p, self.slot, kind)  # rules §4: onto the set, no event token
        self.cards[kind] += 1
        if sum(self.cards) == COURTESAN_MAX_CARDS:
            s.emit("power:courtesan:2-cards")
            s.end_turn()

    def copy(self) -> CourtesanCard:
        return CourtesanCard(self.slot, list(self.cards))

    def document(self) -> dict[str, Any]:
        return {"goods": SET_SLOTS[self.slot], "cards": _names(self.cards)}

    @classmethod
    def read(cls, doc: Mapping[str, Any], s: GameState, path: str) -> CourtesanCard:
        slot = D.name(D.get(doc, "goods", path + "."), f"{path}.goods", SET_SLOTS, "set")
        return cls(slot, _counts(doc.get("cards", []), f"{path}.cards"))

    def fault(self, s: GameState) -> Fault:
        p = s.current_player
        if s.sets[p][self.slot] is None:
            return "goods", f"player {p} has no {SET_SLOTS[self.slot]} set"
        if sum(self.cards) >= COURTESAN_MAX_CARDS:
            return "cards", "the Courtesan adds at most 2 cards; her power would have ended"
        laid = s.sets[p][self.slot].cards
        if any(c > laid[k] for k, c in enumerate(self.cards)):
            return "cards", "the cards added are not all on the set"
        if self.slot == AMULET_SET and any(self.cards[k] for k in range(NUM_KINDS) if k != AMULET):
            return "cards", "a goods card on the amulets-only set would have given it that goods"
        return _fitting(self.cards, s.rules.fits[self.slot]) if self.slot != AMULET_SET else None


class Merchant(SobekPhase):
    """rules §4 Merchant: take any card of the Nile, with no corruption."""

    name = "merchant"
    description = "Merchant: taking any Nile card, with no corruption"
    __slots__ = ()

    def legal(self, s: GameState) -> list[int]:
        return list(range(A.TAKE, A.TAKE + len(s.nile)))

    def apply(self, s: GameState, a: int) -> None:
        position = a - A.TAKE
        s.emit("power:merchant:in-window" if position < TAKE_WINDOW else "power:merchant:beyond-window")
        s.take_from_nile(s.current_player, position, corruption=False)


class FirstPlayer(SobekPhase):
    """rules §2.6: the lowest scorer names the round's first player (offset 0 = himself)."""

    name = "first_player"
    description = "choosing the first player of the round (player:0 is yourself)"
    __slots__ = ()

    def legal(self, s: GameState) -> list[int]:
        return [A.PLAYER + o for o in range(s.num_players)]

    def apply(self, s: GameState, a: int) -> None:
        s.emit("round:first-player-self" if a == A.PLAYER else "round:first-player-other")
        first = s.seat_at(a - A.PLAYER)
        s.first_player = s.current_player = first
        s.pending = None

    def fault(self, s: GameState) -> Fault:
        if s.round == 1:  # rules §2.6: chosen at the start of a later round, once a round has been scored
            return "phase", "round 1's first player is drawn at random; the choice comes from round 2 on"
        if s.first_player != s.current_player:
            return "phase", "first_player must equal current_player while the first-player choice is pending"
        return None


# ---------------------------------------------------------------------- the round's end

class RoundEndPhase(SobekPhase):
    """What the two round-end phases share: the seats still to decide after the current one."""

    __slots__ = ("queue",)

    def _queue_fault(self, s: GameState) -> Fault:
        seats = [s.current_player, *self.queue]
        if len(set(seats)) != len(seats):
            return "queue", "each seat decides once at the round's end"
        if s.nile or s.deck:
            return "phase", "horizontal sets are laid only when the round ends (Nile and deck empty)"
        return None


class Horizontal(RoundEndPhase):
    """rules §5: at the round's end, a player lays horizontal sets of his choice (``set:``) or no
    more (``done``); players decide in turn from the one who took the last card."""

    name = "horizontal"
    description = "round's end: laying a horizontal set (set:<goods>) or no more (done)"
    fields = ("queue",)
    __slots__ = ()

    def __init__(self, queue: list[int]) -> None:
        self.queue = queue

    def legal(self, s: GameState) -> list[int]:
        return [*(A.SET + g for g in s.horizontal_goods(s.current_player)), A.DONE]

    def apply(self, s: GameState, a: int) -> None:
        if a == A.DONE:
            s.emit("round:horizontal-declined")
            s.next_round_end_decider(self.queue)
        else:
            s.pending = HorizontalSet(a - A.SET, [0] * NUM_KINDS, self.queue)

    def copy(self) -> Horizontal:
        return Horizontal(list(self.queue))

    def document(self) -> dict[str, Any]:
        return {"queue": list(self.queue)}

    @classmethod
    def read(cls, doc: Mapping[str, Any], s: GameState, path: str) -> Horizontal:
        return cls(_queue(doc.get("queue", []), f"{path}.queue", s))

    def fault(self, s: GameState) -> Fault:
        if not s.horizontal_goods(s.current_player):
            return "phase", f"player {s.current_player} can form no horizontal set and would have been skipped"
        return self._queue_fault(s)


class HorizontalSet(RoundEndPhase):
    """rules §5: the horizontal set being laid: fitting cards, then ``done`` once three are in."""

    name = "horizontal_set"
    description = "round's end: laying a horizontal set: add fitting cards, then done (3 cards at least)"
    fields = ("goods", "cards", "queue")
    __slots__ = ("goods", "cards")

    def __init__(self, goods: int, cards: list[int], queue: list[int]) -> None:
        self.goods = goods
        self.cards = cards
        self.queue = queue

    def legal(self, s: GameState) -> list[int]:
        hand = s.hands[s.current_player]
        out = [A.CARD + k for k in s.rules.fits[self.goods] if hand[k]]
        out.sort()  # fits lists the amulet last, though characters' ids are above it
        if sum(self.cards) >= SET_MIN_CARDS:
            out.append(A.DONE)
        return out

    def apply(self, s: GameState, a: int) -> None:
        p = s.current_player
        if a != A.DONE:
            kind = a - A.CARD
            s.lay_from_hand(p, kind)
            self.cards[kind] += 1
            return
        amulets_only = self.cards[AMULET] == sum(self.cards)
        s.horizontal[p].append((AMULET_SET if amulets_only else self.goods, self.cards))  # no event (rules §5)
        s.emit("round:horizontal-amulets-only" if amulets_only else "round:horizontal-set")
        if s.horizontal_goods(p):
            s.pending = Horizontal(self.queue)
        else:
            s.next_round_end_decider(self.queue)

    def copy(self) -> HorizontalSet:
        return HorizontalSet(self.goods, list(self.cards), list(self.queue))

    def document(self) -> dict[str, Any]:
        return {"goods": GOODS[self.goods], "cards": _names(self.cards), "queue": list(self.queue)}

    @classmethod
    def read(cls, doc: Mapping[str, Any], s: GameState, path: str) -> HorizontalSet:
        goods = D.name(D.get(doc, "goods", path + "."), f"{path}.goods", GOODS, "goods")
        return cls(goods, _counts(doc.get("cards", []), f"{path}.cards"),
                   _queue(doc.get("queue", []), f"{path}.queue", s))

    def fault(self, s: GameState) -> Fault:
        if self.goods in s.laid_horizontal_goods(s.current_player):
            return "goods", f"a horizontal set of {GOODS[self.goods]} is already laid this round's end"
        if sum(self.cards) + s.fitting_in_hand(s.current_player, self.goods) < SET_MIN_CARDS:
            return "cards", "the set can never reach 3 cards with the cards in hand"
        return _fitting(self.cards, s.rules.fits[self.goods]) or self._queue_fault(s)


# ---------------------------------------------------------------------- character powers (rules §4)
# Each is called once the card is on the discard.

def _queen(s: GameState, p: int) -> None:
    drawn = s.deck[:QUEEN_DRAW]
    del s.deck[:QUEEN_DRAW]
    for kind in drawn:
        s.hands[p][kind] += 1
    s.emit("power:queen:drew-cards" if drawn else "power:queen:deck-empty")
    s.end_turn()


def _scribe(s: GameState, p: int) -> None:
    n = s.num_players
    over = [(p + o) % n for o in range(1, n) if sum(s.hands[(p + o) % n]) > SCRIBE_HAND_LIMIT]
    s.emit(f"power:scribe:{len(over)}-opponent{'s' if len(over) != 1 else ''}")
    if not over:
        s.end_turn()
        return
    s.pending = Scribe(p, over[1:])
    s.current_player = over[0]


def _courtesan(s: GameState, p: int) -> None:
    if CourtesanSet.choices(s):
        s.pending = CourtesanSet()
    else:
        s.emit("power:courtesan:no-set")
        s.end_turn()


def _ask(phase: type[SobekPhase]):
    def power(s: GameState, p: int) -> None:
        s.pending = phase()
    return power


POWERS = {
    QUEEN: _queen,
    VIZIER: _ask(Vizier),
    MERCHANT: _ask(Merchant),
    HIGH_PRIEST: _ask(Priest),
    THIEF: _ask(Thief),
    HIGH_PRIESTESS: _ask(Priest),
    SCRIBE_FISH: _scribe,
    SCRIBE_WHEAT: _scribe,
    COURTESAN: _courtesan,
}

TURN_START = TurnStart()
# The phase types in the order of the observation's one-hot section (the start of a turn first).
PHASES: tuple[type[SobekPhase], ...] = (
    TurnStart, BuildSet, ChooseToken, Guild, Curse, Prosperity, Priest, Vizier, VizierCard, Scribe, Thief,
    ThiefBack, CourtesanSet, CourtesanCard, Merchant, FirstPlayer, PriestCharacters, Horizontal, HorizontalSet,
)
PHASE_BY_NAME: dict[str, type[SobekPhase]] = {phase.name: phase for phase in PHASES if phase is not TurnStart}
PHASE_INDEX: dict[type[SobekPhase], int] = {phase: i for i, phase in enumerate(PHASES)}
