"""The game state of Kleopatra and the moves shared by several phases.

``GameState`` holds the table (hands and piles as counts per card kind, stalls and the deck as ordered
cards, the palace as bitmasks) and delegates each decision to its pending phase (``phases.py``). The
transitions several phases share live here: the market visit, playing a character, building, placing
a mosaic, the end of a visit, the ceremony, the end of a turn and of the game.

A card in a stall, the deck or a refill is one int, ``kind * 2 + face_up``. The deck's top card is
its *last* element here (``deck[0]`` is the top in the document).

Memory (rules §12): ``known[v][o]`` counts, per kind, the cards viewer ``v`` knows for certain to be in
seat ``o``'s hand, and ``known_discard[v]`` those he knows to be in the discard pile; viewer ``n`` is
the public, who sees only public events (so every seat knows at least what it knows). A card seen
going in adds to the count; a card seen going out takes from it; a card going out unseen takes one
from every count, since it might have been any of them. These are the memory-mode observation and
what :meth:`GameState.resample` keeps.
"""

from __future__ import annotations

import itertools
import random
from numbers import Integral
from typing import TYPE_CHECKING, Any

from ..game import PhasedState
from . import actions as A
from .catalogue import (
    BEGGAR,
    BEGGAR_TALENTS,
    BUILD_BONUS_THREE_OR_MORE,
    BUILD_BONUS_TWO,
    CHARACTER_AMULETS,
    CLEOPATRA_END,
    CORRUPT,
    COSTS,
    COURTESAN,
    DICE,
    DIE_FACES,
    END_CARD_AMULETS,
    ENVOY,
    ENVOY_AMULETS_PER_CARD,
    GATE,
    KINDS,
    MERCHANT_VALUE,
    MOSAICS,
    NUM_KINDS,
    NUM_TILES,
    OBELISK_PIECES,
    OBELISK_VALUE,
    OBELISKS,
    PEDESTAL_VALUE,
    REFILL_DRAW,
    SCRIBE,
    SCRIBE_CHOOSE_AMULETS,
    SPHINX_PIECES,
    SPHINX_VALUES,
    SPHINXES,
    STALLS,
    STANDARD,
    START_HAND,
    START_MERCHANTS,
    START_STATUES,
    START_TALENTS,
    THRONE,
    THRONE_VALUE,
    VIZIER,
    VIZIER_DRAW,
    WALLS,
    Rules,
    make_rules,
)
from .palace import ALL_WALLS, NOT_FIRST_COLUMN, NOT_LAST_COLUMN, gate_value
from .phases import (
    AFTER,
    HAND_LIMIT,
    TURN,
    Anubis,
    Ceremony,
    Courtesan,
    EnvoyResource,
    KleopatraPhase,
    MosaicTile,
    Quarry,
    Refill,
    ScribeDie,
    Vizier,
    affordable,
    consume,
    hand_pool,
    pending_chain,
)

if TYPE_CHECKING:
    from ..game import State

# The event names the engine writes to ``GameState.log`` (when it is a list), for the stress report.
EVENTS: tuple[str, ...] = (
    "market", "market:empty", "refill:short", "refill:nothing", "reshuffle",
    "quarry", "quarry:paid-card", "quarry:paid-tainted", "quarry:paid-merchant",
    "quarry:built:wall", "quarry:built:gate", "quarry:built:sphinx", "quarry:built:obelisk",
    "quarry:built:pedestal", "quarry:built:throne", "quarry:built:mosaic",
    "quarry:bonus-2", "quarry:bonus-5", "quarry:surplus-lost", "cleopatra:advanced", "cleopatra:two-steps",
    "mosaic:scribe-choice", "sanctuary:formed", "sanctuary:formed-far", "sanctuary:claimed", "sanctuary:unclaimed",
    "tile:removed", "mosaic:complete-by-removal", "dice:rolled",
    "character:beggar", "character:courtesan", "character:envoy", "character:scribe", "character:smuggler",
    "character:vizier",
    "beggar:gave-card", "beggar:gave-talents", "beggar:showed-hand",
    "courtesan:took", "courtesan:empty-discard",
    "envoy:offered", "envoy:no-offer", "envoy:accepted", "envoy:declined", "envoy:amulet-from-supply",
    "scribe:die-added", "scribe:die-removed",
    "vizier:kept-0", "vizier:kept-1", "vizier:kept-2", "vizier:kept-3", "vizier:kept-4", "vizier:kept-5",
    "vizier:nothing-drawn",
    "ceremony", "ceremony:from-dice", "ceremony:from-scribe", "ceremony:all-tied", "ceremony:tie",
    "hand-limit:keep", "hand-limit:discard",
    "end:cleopatra", "end:max-turns", "crocodile:eaten", "crocodile:several-eaten", "crocodile:hungry",
    "end:sole-winner", "end:tie-broken-by-amulets", "end:shared-victory",
)

_CATEGORY_OF_BUILD = {
    **{A.WALL + k: WALLS for k in range(9)}, A.GATE: GATE, A.GATE + 1: GATE, A.SPHINX: SPHINXES,
    A.OBELISK: OBELISKS, A.PEDESTAL: THRONE, A.THRONE: THRONE, A.MOSAIC: MOSAICS,
}
_BUILD_EVENT = {a: f"quarry:built:{A.ACTION_NAMES[a].split(':')[0]}" for a in _CATEGORY_OF_BUILD}


# Stamps of garden contents: a state's garden changes get a stamp no other garden ever had, and a clone
# keeps its original's, so an encoder may keep what it drew of a garden for as long as the stamp is the same.
_GARDEN_STAMPS = itertools.count(1)


def _neighbours(mask: int) -> int:
    return ((mask << 1) & NOT_FIRST_COLUMN) | ((mask >> 1) & NOT_LAST_COLUMN) | (mask << 8) | (mask >> 8)


class GameState(PhasedState):
    """A game of Kleopatra in progress: the whole table, whose turn it is, and what is pending.

    Create one with :meth:`new` or :meth:`from_json`; drive it with :meth:`legal_actions` and
    :meth:`apply`. Attributes other than the public properties are the engine's own: agents never
    read them (a search agent uses :meth:`resample`).
    """

    turn_start = TURN
    action_names = A.ACTION_NAMES
    game_name = "kleopatra"
    __slots__ = (
        "rules", "seed", "rng", "turn", "active_player", "current_player", "cleopatra", "altar",
        "hands", "talents", "amulets", "merchants", "statues", "built_by", "ceremonies_won",
        "stalls", "deck", "discard", "set_aside",
        "walls", "gate", "sphinxes", "obelisks", "pedestal", "throne", "mosaics", "covered",
        "sanctuaries", "sanctuary_union", "stack", "removed", "palace_version",
        "pending", "over", "eaten", "known", "known_discard", "saw_stack", "shown",
        "last_offers", "last_places", "log", "rules_trompe", "_legal",
    )

    def __init__(self, rules: Rules, seed: int) -> None:
        n = rules.num_players
        self.rules = rules
        self.seed = seed
        self.rng = random.Random(seed)
        self.rules_trompe = tuple(r in rules.trompe_stands_for for r in range(5))
        self.turn = 1
        self.active_player = self.current_player = 0
        self.cleopatra = 0
        self.altar = 0                     # dice on the altar
        self.hands = [[0] * NUM_KINDS for _ in range(n)]
        self.talents = [START_TALENTS] * n
        self.amulets = [0] * n
        self.merchants = [START_MERCHANTS] * n
        self.statues = [START_STATUES] * n
        self.built_by = [0] * n            # elements each player built (statistics)
        self.ceremonies_won = [0] * n      # ceremonies each player finished first in (statistics)
        self.stalls: list[list[int]] = [[] for _ in range(STALLS)]  # bottom to top
        self.deck: list[int] = []          # the top card last
        self.discard = [0] * NUM_KINDS
        self.set_aside = [0] * NUM_KINDS   # characters played this turn (rules §8 [decision])
        self.walls = 0                     # bit k: wall slot W(k+1) built
        self.gate = 0                      # bit 0 left, bit 1 right
        self.sphinxes = self.obelisks = 0
        self.pedestal = self.throne = False
        self.mosaics: list[tuple[int, int, int, int, int]] = []  # (tile, orient, anchor, builder, mask)
        self.covered = 0
        self.sanctuaries: list[list] = []  # [mask, owner or None], in order of creation
        self.sanctuary_union = 0
        self.stack: list[int] = []         # the mosaic stack, top first
        self.removed: list[int] = []       # tiles removed from the game (rules §6.5)
        self.palace_version = next(_GARDEN_STAMPS)  # a new stamp whenever the garden changes
        self.pending: KleopatraPhase | None = None
        self.over = False
        self.eaten: list[int] = []
        self.known = [[[0] * NUM_KINDS for _ in range(n)] for _ in range(n + 1)]
        self.known_discard = [[0] * NUM_KINDS for _ in range(n + 1)]
        self.saw_stack = [False] * n       # saw the whole stack with a Scribe (rules §12)
        self.shown: list[int] = []         # seats that showed their hand to the active player this turn
        self.last_offers: list[int] | None = None  # the last ceremony's offers and places
        self.last_places: list[int] | None = None
        self.log: list[str] | None = None
        self._legal: list[int] | None = None

    # ------------------------------------------------------------------ public API

    @classmethod
    def new(cls, num_players: int = 3, seed: int | None = None, engine: str | None = None, **rules: Any) -> State:
        """Deal a new game (rules §2). ``rules`` are the options of rules §13.

        ``seed=None`` draws a seed from the operating system and records it in ``seed``. ``engine`` as in
        ``load_game("kleopatra").new``: by default the native engine where it was built, so the state may be a
        ``NativeState`` (the same protocol); ``engine="python"`` always gives this class, whose fields the rule
        code reads.
        """
        native = cls._native_engine(engine)
        if native is not None:
            return native.new(num_players, seed, **rules)
        options = make_rules(num_players, **rules)
        if seed is None:
            seed = random.SystemRandom().randrange(2**63)
        if isinstance(seed, bool) or not isinstance(seed, Integral) or seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
        s = cls(options, int(seed))
        rng, n = s.rng, num_players
        cards = [k for k in range(NUM_KINDS) for _ in range(options.card_counts[k])]
        rng.shuffle(cards)
        for p in range(n):
            for _ in range(START_HAND):
                s.hands[p][cards.pop()] += 1
        s.deck = s.make_deck(cards)
        for stall in s.stalls:
            if s.deck:
                stall.append(s.deck.pop())
        s.stack = list(range(NUM_TILES))
        rng.shuffle(s.stack)
        s.active_player = s.current_player = rng.randrange(n)  # rules §2.8 [decision]
        return s

    @property
    def scores(self) -> list[int]:
        """rules §11.5: talents + 3 per Nile merchant, for every seat at every moment (a copy)."""
        return [t + MERCHANT_VALUE * m for t, m in zip(self.talents, self.merchants)]

    @property
    def eliminated(self) -> list[int]:
        """The seats fed to the crocodile ([] until the game is over)."""
        return list(self.eaten)

    @property
    def winners(self) -> list[int]:
        """rules §11.6: the best survivors, ties going to the fewest amulets; [] until the game is over."""
        if not self.over:
            return []
        scores = self.scores
        alive = [p for p in range(self.num_players) if p not in self.eaten]
        best = max(scores[p] for p in alive)
        tied = [p for p in alive if scores[p] == best]
        fewest = min(self.amulets[p] for p in tied)
        return [p for p in tied if self.amulets[p] == fewest]

    @property
    def phase(self) -> type[KleopatraPhase]:
        """The pending phase's type (:class:`~.phases.Turn` at the start of a turn)."""
        return type(TURN if self.pending is None else self.pending)

    def _copy_into(self, o: GameState) -> None:
        """Copy the table into ``o`` (a bare instance; PhasedState.clone)."""
        o.rules, o.seed, o.rules_trompe = self.rules, self.seed, self.rules_trompe
        o.rng = random.Random()
        o.rng.setstate(self.rng.getstate())
        o.turn, o.active_player, o.current_player = self.turn, self.active_player, self.current_player
        o.cleopatra, o.altar = self.cleopatra, self.altar
        o.hands = [list(h) for h in self.hands]
        o.talents, o.amulets = list(self.talents), list(self.amulets)
        o.merchants, o.statues = list(self.merchants), list(self.statues)
        o.built_by, o.ceremonies_won = list(self.built_by), list(self.ceremonies_won)
        o.stalls = [list(st) for st in self.stalls]
        o.deck, o.discard, o.set_aside = list(self.deck), list(self.discard), list(self.set_aside)
        o.walls, o.gate, o.sphinxes, o.obelisks = self.walls, self.gate, self.sphinxes, self.obelisks
        o.pedestal, o.throne, o.mosaics, o.covered = self.pedestal, self.throne, list(self.mosaics), self.covered
        o.sanctuaries = [list(x) for x in self.sanctuaries]
        o.sanctuary_union, o.stack, o.removed = self.sanctuary_union, list(self.stack), list(self.removed)
        o.palace_version = self.palace_version
        o.pending = None if self.pending is None else self.pending.copy()
        o.over, o.eaten = self.over, list(self.eaten)
        o.known = [[list(row) for row in rows] for rows in self.known]
        o.known_discard = [list(row) for row in self.known_discard]
        o.saw_stack, o.shown = list(self.saw_stack), list(self.shown)
        o.last_offers = None if self.last_offers is None else list(self.last_offers)
        o.last_places = None if self.last_places is None else list(self.last_places)

    def __repr__(self) -> str:
        status = "over" if self.over else f"player {self.current_player} at {self.phase.name}"
        return f"<Kleopatra {self.num_players} players, turn {self.turn}, scores {self.scores}, {status}>"

    # ------------------------------------------------------------------ queries

    def can_visit_quarry(self, p: int) -> bool:
        """rules §5: his resource cards and merchants could pay for some element still in the quarry."""
        return affordable(self, hand_pool(self, p))

    def complete(self) -> list[bool]:
        """rules §1.3: per category, whether all its pieces are built (mosaics: none left in the quarry)."""
        return [self.walls == ALL_WALLS, self.sphinxes == SPHINX_PIECES, self.obelisks == OBELISK_PIECES,
                self.gate == 3, self.throne, not self.stack]

    def pending_cards(self) -> list[int]:
        """Cards per kind held by the pending phases: a payment row, a refill's or a Vizier's draw."""
        out = [0] * NUM_KINDS
        for phase in pending_chain(self.pending):
            if isinstance(phase, Quarry):
                for k, c in enumerate(phase.paid):
                    out[k] += c
            elif isinstance(phase, Refill):
                for card in phase.drawn:
                    out[card >> 1] += 1
            elif isinstance(phase, Vizier):
                for k, c in enumerate(phase.drawn):
                    out[k] += c
        return out

    def card_counts(self) -> list[int]:
        """How many cards of each kind lie in all zones together (the catalogue in a sound state)."""
        total = list(map(sum, zip(self.discard, self.set_aside, self.pending_cards(), *self.hands)))
        for card in itertools.chain(self.deck, *self.stalls):
            total[card >> 1] += 1
        return total

    # ------------------------------------------------------------------ memory (rules §12)

    def seen_in(self, p: int, kind: int, count: int = 1) -> None:
        """Cards of ``kind`` went into ``p``'s hand in view of everybody."""
        for v, rows in enumerate(self.known):
            if v != p:
                rows[p][kind] += count

    def seen_out(self, p: int, kind: int) -> None:
        """A card of ``kind`` left ``p``'s hand in view of everybody."""
        for rows in self.known:
            row = rows[p]
            if row[kind]:
                row[kind] -= 1

    def unseen_out(self, p: int, count: int, informed: tuple[int, ...]) -> None:
        """``count`` cards left ``p``'s hand unseen by all but ``informed``: any known card may be gone."""
        for v, rows in enumerate(self.known):
            if v in informed:
                continue
            row = rows[p]
            if any(row):
                for k in range(NUM_KINDS):
                    if row[k]:
                        row[k] = max(0, row[k] - count)

    def offered(self, o: int, kind: int, count: int) -> None:
        """``o`` openly offered ``count`` cards of ``kind`` to an Envoy: they are in his hand."""
        for v, rows in enumerate(self.known):
            if v != o and rows[o][kind] < count:
                rows[o][kind] = count

    def discard_public(self, kind: int, count: int) -> None:
        """Cards go face up onto the discard pile."""
        self.discard[kind] += count
        for row in self.known_discard:
            row[kind] += count

    def discard_private(self, p: int, kind: int, count: int = 1) -> None:
        """Cards go face down onto the discard pile; only ``p`` knows them."""
        self.discard[kind] += count
        self.known_discard[p][kind] += count

    # ------------------------------------------------------------------ drawing (rules §4.1)

    def make_deck(self, kinds: list[int]) -> list[int]:
        """rules §2.3: half the cards (rounded down) a random subset face up, all shuffled; top last."""
        rng = self.rng
        rng.shuffle(kinds)
        up = len(kinds) // 2
        deck = [k * 2 + (i < up) for i, k in enumerate(kinds)]
        rng.shuffle(deck)
        return deck

    def draw(self) -> int | None:
        """The top card of the deck, after a reshuffle of the discard pile if the deck is empty; None if
        there is no card to draw."""
        if not self.deck:
            if not any(self.discard):
                return None
            self.deck = self.make_deck([k for k in range(NUM_KINDS) for _ in range(self.discard[k])])
            self.discard = [0] * NUM_KINDS
            for row in self.known_discard:
                row[:] = self.discard
            self.emit("reshuffle")
        return self.deck.pop()

    # ------------------------------------------------------------------ the market (rules §4)

    def visit_market(self, stall: int) -> None:
        p = self.active_player
        cards = self.stalls[stall]
        hand = self.hands[p]
        for card in cards:
            kind = card >> 1
            hand[kind] += 1
            if card & 1:
                self.seen_in(p, kind)
        self.stalls[stall] = []
        self.emit("market" if cards else "market:empty")
        drawn = []
        for _ in range(REFILL_DRAW):
            card = self.draw()
            if card is None:
                break
            drawn.append(card)
        if not drawn:
            self.emit("refill:nothing")
            self.pending = AFTER
            return
        if len(drawn) < REFILL_DRAW and self.log is not None:
            self.log.append("refill:short")
        self.pending = Refill(drawn, [False] * STALLS)

    # ------------------------------------------------------------------ characters (rules §8)

    def play_character(self, kind: int, resume: KleopatraPhase | None) -> None:
        """rules §8: the card is set aside, its fixed amulets taken, its power resolved (interrupting
        ``resume``, which continues afterwards)."""
        p = self.active_player
        self.hands[p][kind] -= 1
        self.seen_out(p, kind)
        self.amulets[p] += CHARACTER_AMULETS[kind]
        self.set_aside[kind] += 1
        self.emit(f"character:{KINDS[kind]}")
        if kind == BEGGAR:
            n = self.num_players
            self.ask_beggar_victims([(p + i) % n for i in range(1, n)], resume)
        elif kind == COURTESAN:
            if any(self.discard):
                self.known_discard[p][:] = self.discard  # he searches the whole pile
                self.pending = Courtesan(resume)
            else:
                self.emit("courtesan:empty-discard")
                self.pending = resume
        elif kind == ENVOY:
            self.pending = EnvoyResource(resume)
        elif kind == SCRIBE:
            self.pending = ScribeDie(resume)
        elif kind == VIZIER:
            drawn = [0] * NUM_KINDS
            for _ in range(VIZIER_DRAW):
                card = self.draw()
                if card is None:
                    break
                drawn[card >> 1] += 1
            if any(drawn):
                self.pending = Vizier(resume, drawn, 0)
            else:
                self.emit("vizier:nothing-drawn")
                self.pending = resume

    def garden_changed(self) -> None:
        """A mosaic or a statue was placed: the garden gets a new stamp."""
        self.palace_version = next(_GARDEN_STAMPS)

    def play_scribe_for_tile(self) -> None:
        """rules §6.1, §8: a Scribe chooses the mosaic tile (2 amulets); its player sees the whole stack."""
        p = self.active_player
        self.hands[p][SCRIBE] -= 1
        self.seen_out(p, SCRIBE)
        self.amulets[p] += SCRIBE_CHOOSE_AMULETS
        self.set_aside[SCRIBE] += 1
        self.saw_stack[p] = True
        if self.log is not None:
            self.log += ["character:scribe", "mosaic:scribe-choice"]

    def ask_beggar_victims(self, queue: list[int], resume: KleopatraPhase | None) -> None:
        """rules §8 Beggar: the next opponent of ``queue`` who can give answers; one who cannot shows his
        hand to the active player instead."""
        from .phases import Beggar

        p = self.active_player
        while queue:
            victim = queue.pop(0)
            hand = self.hands[victim]
            if self.talents[victim] >= BEGGAR_TALENTS or any(hand[k] for k in STANDARD):
                self.current_player = victim
                self.pending = Beggar(resume, queue)
                return
            if victim not in self.shown:
                self.shown.append(victim)
            self.known[p][victim][:] = hand
            self.emit("beggar:showed-hand")
        self.current_player = p
        self.pending = resume

    def give_card(self, victim: int, p: int, kind: int) -> None:
        """rules §8 Beggar: ``victim`` gives ``p`` a card; only the two of them see which."""
        self.hands[victim][kind] -= 1
        self.hands[p][kind] += 1
        row = self.known[p][victim]
        if row[kind]:
            row[kind] -= 1
        self.unseen_out(victim, 1, (victim, p))
        self.known[victim][p][kind] += 1

    def take_from_discard(self, p: int, kind: int) -> None:
        """rules §8 Courtesan: ``p`` takes ``kind`` from the discard pile, which he searched."""
        discard = self.discard
        discard[kind] -= 1
        self.hands[p][kind] += 1
        for v, row in enumerate(self.known_discard):
            if v == p:
                row[:] = discard
            elif any(row):
                for k in range(NUM_KINDS):
                    if row[k]:
                        row[k] -= 1
        self.emit("courtesan:took")

    def envoy_order(self, offers: list[int]) -> list[int]:
        """The opponents who offered something, in turn order."""
        n, p = self.num_players, self.active_player
        return [(p + i) % n for i in range(1, n) if offers[(p + i) % n]]

    def accept_envoy_card(self, giver: int, kind: int) -> None:
        """rules §8 Envoy: an accepted card goes to the active player, and an amulet with it."""
        p = self.active_player
        self.hands[giver][kind] -= 1
        self.hands[p][kind] += 1
        self.seen_out(giver, kind)
        self.seen_in(p, kind)
        if self.amulets[giver]:
            self.amulets[giver] -= ENVOY_AMULETS_PER_CARD
        elif self.log is not None:  # rules §8 [decision]: from the supply
            self.log.append("envoy:amulet-from-supply")
        self.amulets[p] += ENVOY_AMULETS_PER_CARD
        self.emit("envoy:accepted")

    # ------------------------------------------------------------------ building (rules §5, §6)

    def build(self, visit: Quarry, action: int) -> None:
        """rules §5.1: the element's cost leaves the pool and the piece is placed."""
        consume(visit.pool, COSTS[_CATEGORY_OF_BUILD[action]], self.rules_trompe)
        self.emit(_BUILD_EVENT[action])
        if action == A.MOSAIC:
            self.pending = MosaicTile(visit)
            return
        if action < A.GATE:
            self.walls |= 1 << (action - A.WALL)
        elif action < A.SPHINX:
            self.gate |= 1 << (action - A.GATE)
        elif action == A.SPHINX:
            self.sphinxes += 1
        elif action == A.OBELISK:
            self.obelisks += 1
        elif action == A.PEDESTAL:
            self.pedestal = True
        else:
            self.throne = True
        visit.built.append(action)

    def place_mosaic(self, visit: Quarry, tile: int, orient: int, square: int) -> None:
        """rules §6.2-6.5: place the tile, form sanctuaries, remove unplaceable tiles, ask about statues."""
        p = self.active_player
        geo = self.rules.geometry
        mask = geo.placement_mask(tile, orient, square)
        self.covered |= mask
        self.mosaics.append((tile, orient, square, p, mask))
        visit.built.append(A.MOSAIC)
        self.garden_changed()
        first = len(self.sanctuaries)
        new = geo.new_sanctuaries(self.covered, [m for m, _ in self.sanctuaries], self.stack,
                                  self.rules.sanctuary_max_squares)
        for area in new:
            self.sanctuaries.append([area, None])
            self.sanctuary_union |= area
            self.emit("sanctuary:formed" if _neighbours(mask) & area else "sanctuary:formed-far")
        had_tiles = bool(self.stack)
        blocked = self.covered | self.sanctuary_union
        while self.stack and not geo.tile_placeable(self.stack[0], blocked):  # rules §6.5
            self.removed.append(self.stack.pop(0))
            self.emit("tile:removed")
        if had_tiles and not self.stack and self.log is not None:
            self.log.append("mosaic:complete-by-removal")
        if new and self.statues[p]:
            self.pending = Anubis(visit, list(range(first, first + len(new))))
            return
        if new and self.log is not None:
            self.log.extend(["sanctuary:unclaimed"] * len(new))
        self.pending = visit

    def finish_quarry(self, visit: Quarry) -> None:
        """rules §5.2-5.5: the payment row to the discard, talents, Cleopatra, the end or the dice."""
        p = self.active_player
        for k, c in enumerate(visit.paid):
            if c:
                self.discard_public(k, c)
        built = visit.built
        gained = 0
        sphinx = self.sphinxes - built.count(A.SPHINX)
        mosaic = len(self.mosaics) - built.count(A.MOSAIC)
        geo = self.rules.geometry
        for a in built:  # rules §5.3: valued on the palace as it stands now
            if a < A.GATE:
                gained += geo.wall_value(a - A.WALL, self.covered)
            elif a < A.SPHINX:
                gained += gate_value(self.walls, a - A.GATE)
            elif a == A.SPHINX:
                gained += SPHINX_VALUES[sphinx]
                sphinx += 1
            elif a == A.OBELISK:
                gained += OBELISK_VALUE
            elif a == A.PEDESTAL:
                gained += PEDESTAL_VALUE
            elif a == A.THRONE:
                gained += THRONE_VALUE
            else:
                gained += geo.mosaic_value(self.mosaics[mosaic][4])
                mosaic += 1
        if len(built) >= 3:
            gained += BUILD_BONUS_THREE_OR_MORE
        elif len(built) == 2:
            gained += BUILD_BONUS_TWO
        self.talents[p] += gained
        self.built_by[p] += len(built)
        step = min(CLEOPATRA_END, sum(self.complete()))
        if self.log is not None:
            if len(built) >= 2:
                self.log.append("quarry:bonus-5" if len(built) >= 3 else "quarry:bonus-2")
            if any(visit.pool):
                self.log.append("quarry:surplus-lost")
            if step > self.cleopatra:
                self.log.append("cleopatra:advanced" if step == self.cleopatra + 1 else "cleopatra:two-steps")
        self.cleopatra = step
        if step >= CLEOPATRA_END:
            self.end_game("end:cleopatra")
            return
        faces = self.rules.priest_faces  # rules §5.5: roll the dice not on the altar
        rng = self.rng
        for _ in range(DICE - self.altar):
            if rng.randrange(DIE_FACES) < faces:
                self.altar += 1
        self.emit("dice:rolled")
        if self.altar == DICE:
            self.emit("ceremony:from-dice")
            self.start_ceremony(AFTER)
        else:
            self.pending = AFTER

    # ------------------------------------------------------------------ the ceremony (rules §10)

    def start_ceremony(self, resume: KleopatraPhase | None) -> None:
        self.emit("ceremony")
        self.pending = Ceremony(resume, [0] * self.num_players)
        self.current_player = self.active_player

    def reveal_ceremony(self, ceremony: Ceremony) -> None:
        """rules §10.2-10.5: offers revealed and paid; places; amulets by place; dice off the altar."""
        n = self.num_players
        offers = ceremony.offers
        places = [1 + sum(1 for q in range(n) if offers[q] > offers[p]) for p in range(n)]
        table = self.rules.ceremony_table
        for p in range(n):
            self.talents[p] -= offers[p]
            self.amulets[p] = max(0, self.amulets[p] + table[places[p] - 1])
            if places[p] == 1:
                self.ceremonies_won[p] += 1
        if self.log is not None:
            if all(place == 1 for place in places):
                self.log.append("ceremony:all-tied")
            elif len(set(places)) < n:
                self.log.append("ceremony:tie")
        self.last_offers, self.last_places = list(offers), places
        self.altar = 0
        ceremony.hand_back(self)

    # ------------------------------------------------------------------ the end of a turn (rules §3, §9)

    def end_turn(self) -> None:
        p = self.active_player
        set_aside = self.set_aside
        if any(set_aside):  # rules §8 [decision]: played characters reach the discard at the turn's end
            for k, c in enumerate(set_aside):
                if c:
                    self.discard_public(k, c)
            self.set_aside = [0] * NUM_KINDS
        if sum(self.hands[p]) > self.rules.hand_limit:
            self.pending = HAND_LIMIT
        else:
            self.next_turn()

    def next_turn(self) -> None:
        self.shown = []
        if self.turn >= self.rules.max_turns:  # rules §11 [decision]
            self.end_game("end:max-turns")
            return
        self.turn += 1
        self.active_player = self.current_player = (self.active_player + 1) % self.num_players
        self.pending = None

    def end_game(self, reason: str) -> None:
        """rules §11: corrupt cards in hand, sanctuaries, the crocodile; the table stays as scored."""
        n = self.num_players
        self.amulets[:] = final_amulets(self)  # before the hands are discarded: their corrupt cards count
        for k, c in enumerate(self.set_aside):
            if c:
                self.discard_public(k, c)
        self.set_aside = [0] * NUM_KINDS
        for p in range(n):
            for k, c in enumerate(self.hands[p]):
                if c:
                    self.discard_public(k, c)
            self.hands[p] = [0] * NUM_KINDS
        for rows in self.known:
            for row in rows:
                row[:] = [0] * NUM_KINDS
        self.eaten = crocodile(self.amulets, self.rules.crocodile_margin)
        self.over = True
        self.pending = None
        self.shown = []
        self.current_player = self.active_player
        if self.log is not None:
            self.log.append(reason)
            if not self.eaten:
                self.log.append("crocodile:hungry")
            else:
                self.log.append("crocodile:eaten" if len(self.eaten) == 1 else "crocodile:several-eaten")
            winners = self.winners
            alive = [p for p in range(n) if p not in self.eaten]
            scores = self.scores
            if len(winners) > 1:
                self.log.append("end:shared-victory")
            elif sum(1 for p in alive if scores[p] == scores[winners[0]]) > 1:
                self.log.append("end:tie-broken-by-amulets")
            else:
                self.log.append("end:sole-winner")


def crocodile(amulets: list[int], margin: int) -> list[int]:
    """rules §11.4: the seats fed to the crocodile given the final amulets (the most, when they lead the
    fewest by ``margin`` or more)."""
    high = max(amulets)
    if high - min(amulets) < margin:
        return []
    return [p for p, a in enumerate(amulets) if a == high]


def final_amulets(s: GameState) -> list[int]:
    """The amulets each seat would end with were the game to end now (rules §11.1 and §11.3: corrupt cards
    in hand add theirs, owned sanctuaries take theirs away)."""
    out = [a + END_CARD_AMULETS * sum(c for k, c in enumerate(hand) if CORRUPT[k])
           for a, hand in zip(s.amulets, s.hands)]
    for mask, owner in s.sanctuaries:
        if owner is not None:
            out[owner] = max(0, out[owner] - mask.bit_count())
    return out
