"""The game state of Sobek and the moves shared by several phases.

``GameState`` holds the table as counts per card kind (rules §1.1) and
delegates each decision to the handler of its phase (``phases.py``). The
transitions that several phases share live here: taking from the Nile,
deliveries, laying cards, the end of a turn, and the end of a round.
"""

from __future__ import annotations

import random
from numbers import Integral

from . import actions as A
from .catalogue import (
    CURSE,
    DELIVERY_SIZE,
    EARLY_END_ROUND,
    EARLY_END_SCORE,
    FACE_UP_ON_NILE,
    GREEN,
    KIND_BACK,
    NUM_KINDS,
    NUM_TOKEN_KINDS,
    PROSPERITY,
    ROUNDS,
    START,
    START_HAND,
    TOKEN_COUNTS,
    TOKENS_PER_ROUND,
    TWO_PLAYER_SET_ASIDE,
    Rules,
    backs_of,
    make_rules,
)
from .errors import IllegalActionError
from .phases import HANDLERS, TURN_START, Pending
from .scoring import TableSet, corruption, horizontal_sets, most_corrupt, penalised_position, scarabs_of, vertical_value


class GameState:
    """A game of Sobek in progress: the whole table, whose turn it is, and what is pending.

    Create one with :meth:`new` or :meth:`from_json`; drive it with
    :meth:`legal_actions` and :meth:`apply`. Attributes other than the public
    properties are the engine's own: agents never read them.
    """

    __slots__ = (
        "rules", "seed", "rng", "round", "first_player", "current_player", "markers",
        "hands", "piles", "curses", "sets", "horizontal", "nile", "deck", "tokens",
        "used_tokens", "discard", "out_of_round", "pending", "over", "known_hands",
        "known_piles", "round_log", "_legal",
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
        self.round_log: list[dict] = []  # what each scored round gave (points, corruption, penalties)
        self.over = False
        self._clear_table()

    def _clear_table(self) -> None:
        n = self.rules.num_players
        self.hands = [[0] * NUM_KINDS for _ in range(n)]
        self.piles = [[0] * NUM_KINDS for _ in range(n)]   # corruption piles
        self.curses = [0] * n
        self.sets: list[list[TableSet | None]] = [[None] * 6 for _ in range(n)]  # one per goods
        self.horizontal: list[list[tuple[int, list[int]]]] = [[] for _ in range(n)]
        self.nile: list[int] = []        # nile[0] is the position nearest the 0 space
        self.deck: list[int] = []        # deck[0] is the top card
        self.tokens = [0] * NUM_TOKEN_KINDS       # this round's tokens still face down
        self.used_tokens = [0] * NUM_TOKEN_KINDS  # resolved this round
        self.discard = [0] * NUM_KINDS
        self.out_of_round = [0] * NUM_KINDS
        self.pending: Pending | None = None
        # rules §10 memory: cards seen face up going into each hand and pile, not seen leaving
        self.known_hands = [[0] * NUM_KINDS for _ in range(n)]
        self.known_piles = [[0] * NUM_KINDS for _ in range(n)]
        self._legal: list[int] | None = None

    # ------------------------------------------------------------------ public API

    @classmethod
    def new(cls, num_players: int = 2, seed: int | None = None, **options) -> GameState:
        """Deal a new game. ``options`` are the rules options of rules §11.

        ``seed=None`` draws a seed from the operating system and records it in
        ``seed``, so the game can still be replayed.
        """
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
    def num_players(self) -> int:
        return self.rules.num_players

    @property
    def is_over(self) -> bool:
        return self.over

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
        return None if self.pending is None else self.pending.phase

    def legal_actions(self) -> list[int]:
        """The sorted legal action ids for ``current_player`` ([] once the game is over)."""
        return list(self._legal_ids())

    def _legal_ids(self) -> list[int]:
        if self._legal is None:
            if self.over:
                self._legal = []
            else:
                handler = TURN_START if self.pending is None else HANDLERS[self.pending.phase]
                self._legal = handler.legal(self)
        return self._legal

    def apply(self, action: int) -> None:
        """Play ``action`` for ``current_player``.

        Raises IllegalActionError, leaving the state unchanged, for anything
        but a legal integer id.
        """
        if type(action) is not int:
            if isinstance(action, bool) or not isinstance(action, Integral):
                raise IllegalActionError(f"an action must be an integer id from 0 to 74, got {action!r}")
            action = int(action)
        legal = self._legal_ids()
        if action not in legal:
            raise IllegalActionError(self._illegal_message(action, legal))
        self._legal = None
        handler = TURN_START if self.pending is None else HANDLERS[self.pending.phase]
        handler.apply(self, action)

    def _illegal_message(self, action: int, legal: list[int]) -> str:
        if self.over:
            return f"action {action} is not legal: the game is over"
        if not 0 <= action < A.NUM_ACTIONS:
            what = f"action {action} is out of range (ids are 0 to {A.NUM_ACTIONS - 1})"
        else:
            what = f"action {action} ({A.ACTION_NAMES[action]}) is not legal now"
        phase = self.phase or "turn start"
        names = ", ".join(f"{a} {A.ACTION_NAMES[a]}" for a in legal)
        return f"{what} for player {self.current_player} at {phase}; legal: {names}"

    def clone(self) -> GameState:
        """An independent copy (including the random generator)."""
        other = GameState.__new__(GameState)
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
        other.known_hands = [list(h) for h in self.known_hands]
        other.known_piles = [list(h) for h in self.known_piles]
        other.round_log = [dict(entry) for entry in self.round_log]
        other._legal = None
        return other

    def to_json(self) -> str:
        """The state as a ``sobek-state/1`` JSON document (INTERFACE.md)."""
        from .jsonstate import dump

        return dump(self)

    @classmethod
    def from_json(cls, text: str | bytes) -> GameState:
        """Rebuild a state from :meth:`to_json`'s document; StateFormatError names a bad field."""
        from .jsonstate import load

        return load(text)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameState):
            return NotImplemented
        from .jsonstate import to_document

        return to_document(self) == to_document(other)

    __hash__ = None  # mutable

    def __repr__(self) -> str:
        status = "over" if self.over else f"player {self.current_player} at {self.phase or 'turn start'}"
        return f"<GameState {self.num_players} players, round {self.round}, scores {self.markers}, {status}>"

    # ------------------------------------------------------------------ queries used by the phases

    def fitting_in_hand(self, p: int, goods: int) -> int:
        """How many cards in ``p``'s hand fit a set of ``goods`` (rules §6)."""
        return sum(self.rules.fit_counts[goods](self.hands[p]))

    def hand_backs(self, p: int) -> list[int]:
        """Cards in ``p``'s hand per back colour (green, beige, orange): public (rules §10)."""
        return list(backs_of(self.hands[p]))

    def card_counts(self) -> list[int]:
        """How many cards of each kind lie in all zones together (63 in a sound state)."""
        total = [0] * NUM_KINDS
        groups = [self.discard, self.out_of_round, *self.hands, *self.piles]
        for own in self.sets:
            groups += [t.cards for t in own if t is not None]
        for own in self.horizontal:
            groups += [cards for _, cards in own]
        if self.pending is not None and self.pending.phase == "set":
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
        if self.pending is not None and self.pending.phase == "curse":
            seen[CURSE] += 1
        elif self.pending is not None and self.pending.phase == "prosperity":
            seen[PROSPERITY] += 1
        return seen

    # ------------------------------------------------------------------ moves shared by the phases

    def end_turn(self, again: bool = False) -> None:
        """Close the turn; the next seat plays, or the same one after a Flood (rules §3, §7)."""
        self.pending = None
        if not again:
            self.current_player = (self.current_player + 1) % self.rules.num_players

    def take_from_nile(self, p: int, position: int, corruption: bool) -> None:
        """rules §3 take (skipped cards to the corruption pile) or the Merchant's take (rules §4)."""
        nile = self.nile
        kind = nile[position]
        if corruption:
            pile, known = self.piles[p], self.known_piles[p]
            for skipped in nile[:position]:
                pile[skipped] += 1
                if FACE_UP_ON_NILE[skipped]:
                    known[skipped] += 1
            del nile[: position + 1]
        else:
            del nile[position]
        self.hands[p][kind] += 1
        if FACE_UP_ON_NILE[kind]:
            self.known_hands[p][kind] += 1
        if nile:
            self.end_turn()
        elif self.deck:  # rules §5: the Nile is emptied, so a new delivery comes at once
            self.deliver()
            self.end_turn()
        else:  # rules §5: the last card of the last delivery ends the round at once
            self._end_round()

    def deliver(self) -> None:
        """rules §5: up to 9 cards from the top of the deck; the first drawn lies farthest."""
        drawn = self.deck[:DELIVERY_SIZE]
        del self.deck[:DELIVERY_SIZE]
        drawn.reverse()
        self.nile = drawn

    def lay_from_hand(self, p: int, kind: int) -> None:
        """A card leaves ``p``'s hand face up (a set, a played character)."""
        self.hands[p][kind] -= 1
        if self.known_hands[p][kind]:
            self.known_hands[p][kind] -= 1

    def add_to_set(self, p: int, goods: int, cards: list[int]) -> None:
        """rules §6: a new set, or an extension of the set of that goods."""
        table_set = self.sets[p][goods]
        if table_set is None:
            self.sets[p][goods] = TableSet(list(cards))
        else:
            for k, c in enumerate(cards):
                table_set.cards[k] += c

    def embalm(self, p: int) -> None:
        """rules §7 Embalming: the whole corruption pile goes into the hand."""
        hand, pile = self.hands[p], self.piles[p]
        known_hand, known_pile = self.known_hands[p], self.known_piles[p]
        for k in range(NUM_KINDS):
            hand[k] += pile[k]
            pile[k] = 0
            known_hand[k] += known_pile[k]
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

    def _end_round(self) -> None:
        """rules §5 and §8: horizontal sets, leftover hands, scoring, the penalty, then §9 or a new round."""
        rules, n = self.rules, self.rules.num_players
        for p in range(n):
            hand, pile = self.hands[p], self.piles[p]
            for goods, cards in horizontal_sets(hand, rules):
                self.horizontal[p].append((goods, cards))
                for k, c in enumerate(cards):
                    hand[k] -= c
            for k in range(NUM_KINDS):
                pile[k] += hand[k]
                hand[k] = 0
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
        self.round_log.append({
            "round": self.round,
            "points": points,
            "corruption": [corruption(self.piles[p], self.curses[p]) for p in range(n)],
            "most_corrupt": corrupt,
            "penalty": [before[p] - self.markers[p] for p in range(n)],
        })
        self.pending = None
        if self.round == ROUNDS or (self.round == EARLY_END_ROUND and max(self.markers) > EARLY_END_SCORE):
            self.over = True  # rules §9: the table stays as it was scored
            return
        self.round += 1
        self._setup_round()
        low = min(self.markers)
        lowest = [p for p in range(n) if self.markers[p] == low]
        chooser = lowest[0] if len(lowest) == 1 else self.rng.choice(lowest)  # rules §2.6, online rule
        self.first_player = self.current_player = chooser
        self.pending = Pending("first_player")
