"""The game state of Sobek and the moves shared by several phases.

``GameState`` holds the table as counts per card kind (rules §1.1) and
delegates each decision to its pending phase (``phases.py``). The transitions
that several phases share live here: taking from the Nile, deliveries, laying
cards and sets, what players remember, the end of a turn, and the round's end.

What each player remembers (rules §10, ``memory`` mode) is kept per viewer:
``known_hands[v][t]`` and ``known_piles[v][t]`` are the cards viewer ``v`` saw
going face up into seat ``t``'s hand or corruption pile and did not see leave
(an upper bound where a card left face down), plus his private glimpses (the
pile he searched with the Vizier, the card his Thief drew); ``token_glimpse[v]``
says he has looked through the round's face-down tokens, so he knows which
remain. A count never exceeds the cards of its kind.

``log`` is None, or a list to which the engine appends the name of every rules
path it takes (:data:`EVENTS`), for the stress run's report.
"""

from __future__ import annotations

import random
from numbers import Integral
from operator import add
from typing import TYPE_CHECKING

from ..game import PhasedState
from . import actions as A
from .catalogue import (
    AMULET,
    AMULET_SET,
    CURSE,
    DELIVERY_SIZE,
    EARLY_END_ROUND,
    EARLY_END_SCORE,
    FACE_UP_ON_NILE,
    FIRST_CHARACTER,
    GREEN,
    KIND_BACK,
    NUM_KINDS,
    NUM_TOKEN_KINDS,
    PROSPERITY,
    PROSPERITY_GOODS,
    ROUNDS,
    SET_MIN_CARDS,
    SET_SLOTS,
    START,
    START_HAND,
    TOKEN_COUNTS,
    TOKENS_PER_ROUND,
    TWO_PLAYER_SET_ASIDE,
    Rules,
    backs_of,
    make_rules,
)
from .phases import TURN_START, BuildSet, Curse, FirstPlayer, Horizontal, HorizontalSet, Prosperity
from .scoring import TableSet, corruption, most_corrupt, penalised_position, scarabs_of, vertical_value

if TYPE_CHECKING:
    from ..game import State

# Every event name the engine can append to GameState.log.
EVENTS: tuple[str, ...] = (
    "power:queen:drew-cards", "power:queen:deck-empty",
    "power:vizier:took-card", "power:vizier:empty-pile",
    "power:merchant:in-window", "power:merchant:beyond-window", "power:merchant:emptied-nile",
    "priest:discarded", "priest:nothing", "priest:discarded-character", "priest:kept-character",
    "power:thief:stole-green", "power:thief:stole-beige", "power:thief:stole-orange", "power:thief:empty-hand",
    "power:scribe:0-opponents", "power:scribe:1-opponent", "power:scribe:2-opponents", "power:scribe:3-opponents",
    "power:scribe:discard",
    "power:courtesan:no-set", "power:courtesan:1-card", "power:courtesan:2-cards", "power:courtesan:gave-goods",
    "token:guild:pushed-back", "token:guild:several-targets", "token:guild:no-target",
    "token:flood:extra-turn", "token:flood:chain",
    "token:curse:placed", "token:curse:both-on-one-player",
    "token:prosperity:placed", "token:prosperity:both-on-one-set", "token:prosperity:no-set",
    "token:embalming:cards", "token:embalming:empty-pile",
    "token:deceit:points", "token:deceit:zero",
    "token:none-left",
    "set:new", "set:extension", "set:amulets-only", "set:amulets-only-extended", "set:with-character",
    "delivery:full", "delivery:short",
    "round:scored", "round:most-corrupt-tie", "round:nobody-corrupt", "round:penalised",
    "round:horizontal-set", "round:horizontal-amulets-only", "round:horizontal-declined",
    "round:first-player-tie", "round:first-player-self", "round:first-player-other",
    "end:normal", "end:early", "end:shared-victory", "end:sole-winner",
)
ROUND_END_PHASES = (Horizontal, HorizontalSet)
EMPTY = (0,) * NUM_KINDS  # no card of any kind


class GameState(PhasedState):
    """A game of Sobek in progress: the whole table, whose turn it is, and what is pending.

    Create one with :meth:`new` or :meth:`from_json`; drive it with
    :meth:`legal_actions` and :meth:`apply`. Attributes other than the public
    properties are the engine's own: agents never read them.
    """

    turn_start = TURN_START
    action_names = A.ACTION_NAMES
    game_name = "sobek"
    __slots__ = (
        "rules", "seed", "rng", "round", "first_player", "current_player", "markers",
        "hands", "piles", "curses", "sets", "horizontal", "nile", "deck", "tokens",
        "used_tokens", "discard", "out_of_round", "pending", "over", "known_hands",
        "known_piles", "token_glimpse", "round_log", "extra_turns", "log", "_legal",
    )

    def __init__(self, rules: Rules, seed: int) -> None:
        n = rules.num_players
        self.rules = rules
        self.seed = seed
        self.rng = random.Random(seed)
        self.round = 1
        self.first_player = 0
        self.current_player = 0
        self.markers = [0] * n           # positions on the scoring track: the scores
        self.round_log: list[dict] = []  # what each scored round gave (the public summary of rules §10)
        self.over = False
        self.extra_turns = 0             # Flood turns the current player has taken in a row (rules §7)
        self.log: list[str] | None = None
        self._clear_table()

    def _clear_table(self) -> None:
        n = self.rules.num_players
        self.hands = [[0] * NUM_KINDS for _ in range(n)]
        self.piles = [[0] * NUM_KINDS for _ in range(n)]   # corruption piles
        self.curses = [0] * n
        # per player, one set per goods and the amulets-only set (rules §6)
        self.sets: list[list[TableSet | None]] = [[None] * len(SET_SLOTS) for _ in range(n)]
        self.horizontal: list[list[tuple[int, list[int]]]] = [[] for _ in range(n)]  # (slot, cards)
        self.nile: list[int] = []        # nile[0] is the position nearest the 0 space
        self.deck: list[int] = []        # deck[0] is the top card
        self.tokens = [0] * NUM_TOKEN_KINDS       # this round's tokens still face down
        self.used_tokens = [0] * NUM_TOKEN_KINDS  # resolved this round
        self.discard = [0] * NUM_KINDS
        self.out_of_round = [0] * NUM_KINDS
        self.pending = None
        self.known_hands = [[[0] * NUM_KINDS for _ in range(n)] for _ in range(n)]  # [viewer][seat]
        self.known_piles = [[[0] * NUM_KINDS for _ in range(n)] for _ in range(n)]
        self.token_glimpse = [False] * n
        self._legal: list[int] | None = None

    # ------------------------------------------------------------------ public API

    @classmethod
    def new(cls, num_players: int = 2, seed: int | None = None, engine: str | None = None, **options) -> State:
        """Deal a new game. ``options`` are the rules options of rules §11.

        ``seed=None`` draws a seed from the operating system and records it in
        ``seed``, so the game can still be replayed. ``engine`` as in ``load_game("sobek").new``: by default
        the native engine where it was built, so the state may be a ``NativeState`` (the same protocol);
        ``engine="python"`` always gives this class, whose fields the rule code reads.
        """
        native = cls._native_engine(engine)
        if native is not None:
            return native.new(num_players, seed, **options)
        unknown = set(options) - {"scarabs", "green_cards", "families"}
        if unknown:
            raise ValueError(
                f"unknown rules option(s) {', '.join(sorted(unknown))}; the options are scarabs, green_cards, families"
            )
        rules = make_rules(num_players, **options)
        if seed is None:
            seed = random.SystemRandom().randrange(2**63)
        if isinstance(seed, bool) or not isinstance(seed, Integral) or seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
        state = cls(rules, int(seed))
        state._setup_round()
        state.first_player = state.current_player = state.rng.randrange(num_players)  # rules §2.6
        return state

    @property
    def scores(self) -> list[int]:
        return list(self.markers)

    @property
    def winners(self) -> list[int]:
        """rules §9: the seats with the highest score, once the game is over; else []."""
        if not self.over:
            return []
        best = max(self.markers)
        return [p for p, v in enumerate(self.markers) if v == best]

    @property
    def phase(self) -> str | None:
        """The pending sub-decision's name, or None at the start of a turn."""
        return None if self.pending is None else self.pending.name

    def phase_name(self) -> str:
        return self.phase or "turn start"

    def _copy_into(self, other: GameState) -> None:
        """Copy the table into ``other`` (a bare instance; PhasedState.clone)."""
        other.rules = self.rules
        other.seed = self.seed
        other.rng = random.Random()
        other.rng.setstate(self.rng.getstate())
        other.round = self.round
        other.first_player = self.first_player
        other.current_player = self.current_player
        other.markers = list(self.markers)
        other.hands = [list(h) for h in self.hands]
        other.piles = [list(h) for h in self.piles]
        other.curses = list(self.curses)
        other.sets = [[None if t is None else t.copy() for t in own] for own in self.sets]
        other.horizontal = [[(g, list(c)) for g, c in own] for own in self.horizontal]
        other.nile = list(self.nile)
        other.deck = list(self.deck)
        other.tokens = list(self.tokens)
        other.used_tokens = list(self.used_tokens)
        other.discard = list(self.discard)
        other.out_of_round = list(self.out_of_round)
        other.pending = None if self.pending is None else self.pending.copy()
        other.over = self.over
        other.known_hands = [[list(h) for h in rows] for rows in self.known_hands]
        other.known_piles = [[list(h) for h in rows] for rows in self.known_piles]
        other.token_glimpse = list(self.token_glimpse)
        other.round_log = [_copy_entry(entry) for entry in self.round_log]
        other.extra_turns = self.extra_turns

    def __repr__(self) -> str:
        status = "over" if self.over else f"player {self.current_player} at {self.phase or 'turn start'}"
        return f"<GameState {self.num_players} players, round {self.round}, scores {self.markers}, {status}>"

    # ------------------------------------------------------------------ queries used by the phases

    def seat_at(self, offset: int) -> int:
        """The seat ``offset`` places to the left of the player to move."""
        return (self.current_player + offset) % self.rules.num_players

    def opponent_actions(self) -> list[int]:
        """``player:1`` … ``player:n-1``: every opponent."""
        return [A.PLAYER + o for o in range(1, self.rules.num_players)]

    def fitting_in_hand(self, p: int, goods: int) -> int:
        """How many cards in ``p``'s hand fit a set of ``goods`` (rules §6)."""
        return sum(self.rules.fit_counts[goods](self.hands[p]))

    def hand_backs(self, p: int) -> list[int]:
        """Cards in ``p``'s hand per back colour (green, beige, orange): public (rules §10)."""
        return list(backs_of(self.hands[p]))

    def amulet_set_fits(self, p: int) -> list[int]:
        """The kinds that may go on ``p``'s amulets-only set with the Courtesan (rules §6): amulets, and
        the cards of a goods he has no set of (only fish, cattle or wheat if it carries Prosperity)."""
        own, kind_goods = self.sets[p], self.rules.kind_goods
        limited = own[AMULET_SET] is not None and own[AMULET_SET].prosperity > 0
        return [k for k in range(NUM_KINDS) if k == AMULET or (
            own[kind_goods[k]] is None and (not limited or kind_goods[k] in PROSPERITY_GOODS))]

    def laid_horizontal_goods(self, p: int) -> set[int]:
        """The goods of ``p``'s horizontal sets this round's end (an amulets-only set has none)."""
        return {g for g, _ in self.horizontal[p] if g != AMULET_SET}

    def horizontal_goods(self, p: int) -> list[int]:
        """The goods ``p`` may still declare a horizontal set of (rules §5)."""
        laid, hand, out = self.laid_horizontal_goods(p), self.hands[p], []
        for g, fitting in enumerate(self.rules.fit_counts):  # fitting_in_hand, without a call per goods
            if g not in laid and sum(fitting(hand)) >= SET_MIN_CARDS:
                out.append(g)
        return out

    def card_counts(self) -> list[int]:
        """How many cards of each kind lie in all zones together (63 in a sound state)."""
        total = [0] * NUM_KINDS
        groups = [self.discard, self.out_of_round, *self.hands, *self.piles]
        for own in self.sets:
            groups += [t.cards for t in own if t is not None]
        for own in self.horizontal:
            groups += [cards for _, cards in own]
        if isinstance(self.pending, (BuildSet, HorizontalSet)):  # off the hand, not yet on the table
            groups.append(self.pending.cards)
        for group in groups:
            for k, c in enumerate(group):
                total[k] += c
        for k in self.nile:
            total[k] += 1
        for k in self.deck:
            total[k] += 1
        return total

    def token_counts(self) -> list[int]:
        """This round's tokens per kind, wherever they are: face down, used, lying on a player
        or a set, or chosen and waiting for a target (5 in a state reached by play)."""
        seen = [a + b for a, b in zip(self.tokens, self.used_tokens)]
        seen[CURSE] += sum(self.curses)
        seen[PROSPERITY] += sum(t.prosperity for own in self.sets for t in own if t is not None)
        if isinstance(self.pending, Curse):
            seen[CURSE] += 1
        elif isinstance(self.pending, Prosperity):
            seen[PROSPERITY] += 1
        return seen

    # ------------------------------------------------------------------ moves shared by the phases

    def end_turn(self, again: bool = False) -> None:
        """Close the turn; the next seat plays, or the same one after a Flood (rules §3, §7)."""
        self.pending = None
        if again:
            self.extra_turns += 1
        else:
            self.extra_turns = 0
            self.current_player = (self.current_player + 1) % self.rules.num_players

    def take_from_nile(self, p: int, position: int, corruption: bool) -> None:
        """rules §3 take (skipped cards to the corruption pile) or the Merchant's take (rules §4)."""
        nile = self.nile
        kind = nile[position]
        if corruption:
            pile = self.piles[p]
            for skipped in nile[:position]:
                pile[skipped] += 1
                if FACE_UP_ON_NILE[skipped]:
                    self._seen_entering(self.known_piles, p, skipped)
            del nile[: position + 1]
        else:
            del nile[position]
        self.hands[p][kind] += 1
        if FACE_UP_ON_NILE[kind]:
            self._seen_entering(self.known_hands, p, kind)
        if nile:
            self.end_turn()
            return
        if not corruption:
            self.emit("power:merchant:emptied-nile")
        if self.deck:  # rules §5: the Nile is emptied, so a new delivery comes at once
            self.emit("delivery:full" if len(self.deck) >= DELIVERY_SIZE else "delivery:short")
            self.deliver()
            self.end_turn()
        else:  # rules §5: the last card of the last delivery ends the round at once
            self.pending = None
            self.extra_turns = 0
            self.next_round_end_decider([(p + o) % self.rules.num_players for o in range(self.rules.num_players)])

    def _seen_entering(self, known: list[list[list[int]]], p: int, kind: int) -> None:
        """Every viewer saw a card of ``kind`` go face up into seat ``p``'s hand or pile."""
        most = self.rules.catalogue[kind]
        for rows in known:
            if rows[p][kind] < most:
                rows[p][kind] += 1

    def deliver(self) -> None:
        """rules §5: up to 9 cards from the top of the deck; the first drawn lies farthest."""
        drawn = self.deck[:DELIVERY_SIZE]
        del self.deck[:DELIVERY_SIZE]
        drawn.reverse()
        self.nile = drawn

    def lay_from_hand(self, p: int, kind: int) -> None:
        """A card leaves ``p``'s hand face up (a set, a played character): every viewer sees it go."""
        self.hands[p][kind] -= 1
        for rows in self.known_hands:
            if rows[p][kind]:
                rows[p][kind] -= 1

    def lay_set(self, p: int, goods: int, cards: list[int]) -> None:
        """rules §6: lay ``cards`` declared as ``goods``: an extension of the set of that goods; else of
        the amulets-only set, which takes the goods (unless its Prosperity forbids it); else a new set.
        A set made only of amulets belongs to no goods."""
        own = self.sets[p]
        amulets_only = cards[AMULET] == sum(cards)
        loose = own[AMULET_SET]
        if own[goods] is not None:
            slot, event = goods, "set:extension"
        elif loose is not None and (amulets_only or not loose.prosperity or goods in PROSPERITY_GOODS):
            slot, event = AMULET_SET, "set:extension"
            if not amulets_only:
                own[goods], own[AMULET_SET] = loose, None
                slot, event = goods, "set:amulets-only-extended"
        else:
            slot = AMULET_SET if amulets_only else goods
            own[slot] = TableSet([0] * NUM_KINDS)
            event = "set:amulets-only" if amulets_only else "set:new"
        laid = own[slot].cards
        for k, c in enumerate(cards):
            laid[k] += c
        self.emit(event)
        if any(cards[FIRST_CHARACTER:]):
            self.emit("set:with-character")

    def add_to_set(self, p: int, slot: int, kind: int) -> int:
        """rules §4 Courtesan: one card onto ``p``'s set in ``slot``; a goods card on the amulets-only
        set gives it that goods (rules §6). Returns the set's slot afterwards."""
        own = self.sets[p]
        if slot == AMULET_SET and kind != AMULET:
            slot = self.rules.kind_goods[kind]
            own[slot], own[AMULET_SET] = own[AMULET_SET], None
            self.emit("power:courtesan:gave-goods")
        own[slot].cards[kind] += 1
        return slot

    def discard_from_pile(self, p: int, kind: int, count: int) -> None:
        """Cards leave ``p``'s corruption pile face up to the discard (the High Priest's): all see them go."""
        pile = self.piles[p]
        pile[kind] -= count
        self.discard[kind] += count
        for rows in self.known_piles:
            rows[p][kind] = 0 if not pile[kind] else max(0, rows[p][kind] - count)

    def vizier_take(self, p: int, target: int, kind: int) -> None:
        """rules §4 Vizier: ``p`` takes ``kind`` from ``target``'s pile, having seen the whole pile
        (a private glimpse, rules §10: he now knows what is left in it)."""
        self.piles[target][kind] -= 1
        self.hands[p][kind] += 1
        self.known_piles[p][target] = list(self.piles[target])

    def steal(self, p: int, victim: int, kind: int) -> None:
        """rules §4 Thief: ``kind`` goes from ``victim``'s hand to ``p``'s; the thief sees which card."""
        self.hands[victim][kind] -= 1
        self.hands[p][kind] += 1
        known = self.known_hands[p][victim]
        if known[kind]:
            known[kind] -= 1

    def embalm(self, p: int) -> None:
        """rules §7 Embalming: the whole corruption pile goes into the hand, in view of all."""
        hand, pile = self.hands[p], self.piles[p]
        catalogue = self.rules.catalogue
        for k in range(NUM_KINDS):
            hand[k] += pile[k]
            pile[k] = 0
        for hands, piles in zip(self.known_hands, self.known_piles):
            known_hand, known_pile = hands[p], piles[p]
            for k in range(NUM_KINDS):
                known_hand[k] = min(catalogue[k], known_hand[k] + known_pile[k])
                known_pile[k] = 0

    # ------------------------------------------------------------------ rounds

    def _setup_round(self) -> None:
        """rules §2: gather everything, deal green hands, build the deck, deliver, draw tokens."""
        rules, rng, n = self.rules, self.rng, self.rules.num_players
        self._clear_table()
        greens = [k for k in START for _ in range(rules.catalogue[k])]
        rng.shuffle(greens)
        for p in range(n):
            for k in greens[p * START_HAND:(p + 1) * START_HAND]:
                self.hands[p][k] += 1
        for k in greens[n * START_HAND:]:
            self.out_of_round[k] += 1
        deck = [k for k in range(NUM_KINDS) if KIND_BACK[k] != GREEN for _ in range(rules.catalogue[k])]
        rng.shuffle(deck)
        if n == 2:
            for k in deck[:TWO_PLAYER_SET_ASIDE]:
                self.out_of_round[k] += 1
            del deck[:TWO_PLAYER_SET_ASIDE]
        self.deck = deck
        self.deliver()
        pool = [t for t in range(NUM_TOKEN_KINDS) for _ in range(TOKEN_COUNTS[t])]
        rng.shuffle(pool)
        for t in pool[:TOKENS_PER_ROUND]:
            self.tokens[t] += 1

    def next_round_end_decider(self, queue: list[int]) -> None:
        """rules §5: the next seat of ``queue`` that can form a horizontal set decides; the others are
        skipped. Once nobody is left, the round is scored."""
        while queue:
            seat = queue.pop(0)
            if self.horizontal_goods(seat):
                self.current_player = seat
                self.pending = Horizontal(queue)
                return
        self._score_round()

    def ends_with_this_round(self) -> bool:
        """rules §9: whether the game ends once the round in progress is scored (the last round, or the second
        with a score over 100), given the scores after it."""
        return self.round == ROUNDS or (self.round == EARLY_END_ROUND and max(self.markers) > EARLY_END_SCORE)

    def _score_round(self) -> None:
        """rules §5 and §8: leftover hands to the piles, scoring, the penalty, then §9 or a new round."""
        rules, n = self.rules, self.rules.num_players
        for hand, pile in zip(self.hands, self.piles):
            pile[:] = map(add, pile, hand)
            hand[:] = EMPTY
        points = [
            sum(vertical_value(t, rules) for t in self.sets[p] if t is not None)
            + sum(scarabs_of(cards, rules) for _, cards in self.horizontal[p])
            for p in range(n)
        ]
        for p in range(n):
            self.markers[p] += points[p]
        before = list(self.markers)
        corrupt = most_corrupt(self.piles, self.curses, rules)
        for p in corrupt:
            self.markers[p] = penalised_position(self.markers[p], points[p])
        penalty = [before[p] - self.markers[p] for p in range(n)]
        self.round_log.append({
            "round": self.round,
            "points": points,
            "corruption": [corruption(self.piles[p], self.curses[p]) for p in range(n)],
            "curses": list(self.curses),
            "most_corrupt": corrupt,
            "penalty": penalty,
            "horizontal": [[sum(column) for column in zip(*(cards for _, cards in self.horizontal[p]))]
                           if self.horizontal[p] else [0] * NUM_KINDS for p in range(n)],
        })
        self.emit("round:scored")
        if len(corrupt) > 1:
            self.emit("round:most-corrupt-tie")
        if not corrupt:
            self.emit("round:nobody-corrupt")
        if any(penalty):
            self.emit("round:penalised")
        self.pending = None
        if self.ends_with_this_round():
            self.over = True  # rules §9: the table stays as it was scored
            self.emit("end:normal" if self.round == ROUNDS else "end:early")
            self.emit("end:shared-victory" if len(self.winners) > 1 else "end:sole-winner")
            return
        self.round += 1
        self._setup_round()
        low = min(self.markers)
        lowest = [p for p in range(n) if self.markers[p] == low]
        if len(lowest) > 1:
            self.emit("round:first-player-tie")
        chooser = lowest[0] if len(lowest) == 1 else self.rng.choice(lowest)  # rules §2.6, online rule
        self.first_player = self.current_player = chooser
        self.pending = FirstPlayer()


def _copy_entry(entry: dict) -> dict:
    """A round-log entry with its lists copied."""
    return {key: [list(v) for v in value] if key == "horizontal" else (list(value) if isinstance(value, list)
            else value) for key, value in entry.items()}

