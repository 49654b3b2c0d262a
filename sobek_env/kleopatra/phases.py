"""The phases of a turn (rules §14.2), each a type that owns its legal actions, its transitions, its
document form, its checks and its description.

A state's ``pending`` is an instance of one of these (its fields are the phase's data), or None at
the start of a turn (:class:`Turn`). A character's sub-phases and the offering ceremony interrupt
the phase they were started from (the start of the turn, a quarry visit, or :class:`After`); they
hold it in their ``resume`` field and hand back to it when they end (rules §14.2), so the
document form of an interrupting phase nests the phase it returns to (``"resume": null`` is the
start of the turn). The mosaic sub-phases and the statue questions resume the quarry visit they
belong to.

The moves several phases share (taking a stall, playing a character, ending a visit or a turn,
the ceremony's reveal, the end of the game) are methods of the state (``state.py``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from ..game import Phase
from . import actions as A
from . import strict
from .catalogue import (
    BEGGAR_TALENTS,
    BID_STEPS,
    CHARACTER_AMULETS,
    CHARACTERS,
    COSTS,
    DICE,
    GATE,
    GATE_SIDES,
    KIND_UNITS,
    KINDS,
    LIMIT_DISCARD_AMULETS,
    LIMIT_KEEP_AMULETS_PER_CARD,
    MERCHANT_UNIT,
    MOSAICS,
    NUM_KINDS,
    NUM_TILES,
    NUM_WALL_SLOTS,
    OBELISK_PIECES,
    OBELISKS,
    RESOURCE_KINDS,
    SCRIBE,
    SMUGGLER,
    SPHINX_PIECES,
    SPHINXES,
    STALLS,
    STANDARD,
    TAINTED,
    THRONE,
    TILE_NAMES,
    TROMPE_UNIT,
    UNITS,
    VIZIER_AMULETS_PER_CARD,
    VIZIER_DRAW,
    WALLS,
)
from .palace import ALL_WALLS

if TYPE_CHECKING:
    from .state import GameState

# Characters that can be played at will during one's turn (the Smuggler only at the hand limit, rules §3).
FREE_CHARACTERS = tuple(k for k in CHARACTERS if k != SMUGGLER)
_FREE_CHARACTER_IDS = tuple((k, A.character_action(k)) for k in FREE_CHARACTERS)
_RESOURCE_CARD_IDS = tuple((k, A.CARD + k) for k in RESOURCE_KINDS)
_TAINTED = frozenset(TAINTED)

Fault = tuple[str, str] | None  # (field path inside the pending, problem), or None when sound


def character_ids(hand: list[int]) -> list[int]:
    """The ``character:`` ids of the characters ``hand`` can play at will (rules §3, §8)."""
    return [a for k, a in _FREE_CHARACTER_IDS if hand[k]]


def cover(pool: list[int], cost: tuple[int, ...], trompe_ok: tuple[bool, ...]) -> bool:
    """rules §5 "Covering a cost": whether ``pool`` (7 unit counts) covers ``cost`` (5 resource units),
    each unit by that resource, else a trompe unit (where allowed), else a merchant unit."""
    trompe_need = merchant_need = 0
    for r in range(5):
        short = cost[r] - pool[r]
        if short > 0:
            if trompe_ok[r]:
                trompe_need += short
            else:
                merchant_need += short
    if trompe_need > pool[TROMPE_UNIT]:
        merchant_need += trompe_need - pool[TROMPE_UNIT]
    return merchant_need <= pool[MERCHANT_UNIT]


def consume(pool: list[int], cost: tuple[int, ...], trompe_ok: tuple[bool, ...]) -> None:
    """Take ``cost`` out of ``pool``, least flexible unit first (rules §5); the cost is known covered."""
    for r in range(5):
        need = cost[r]
        if not need:
            continue
        take = min(pool[r], need)
        pool[r] -= take
        need -= take
        if need and trompe_ok[r]:
            take = min(pool[TROMPE_UNIT], need)
            pool[TROMPE_UNIT] -= take
            need -= take
        pool[MERCHANT_UNIT] -= need


def available_categories(s: GameState) -> list[int]:
    """The categories with a piece still in the quarry (the throne & pedestal as one)."""
    out = []
    if s.walls != ALL_WALLS:
        out.append(WALLS)
    if s.sphinxes < SPHINX_PIECES:
        out.append(SPHINXES)
    if s.obelisks < OBELISK_PIECES:
        out.append(OBELISKS)
    if s.gate != 3:
        out.append(GATE)
    if not s.throne:
        out.append(THRONE)
    if s.stack:
        out.append(MOSAICS)
    return out


def affordable(s: GameState, pool: list[int]) -> bool:
    """Whether ``pool`` covers some element still in the quarry (rules §5)."""
    ok = s.rules_trompe
    return any(cover(pool, COSTS[c], ok) for c in available_categories(s))


def hand_pool(s: GameState, p: int, pool: list[int] | None = None) -> list[int]:
    """The units ``p`` could put in a pool: ``pool`` plus his resource cards and his merchants."""
    out = [0] * len(UNITS) if pool is None else list(pool)
    hand = s.hands[p]
    for k in RESOURCE_KINDS:
        if hand[k]:
            unit, amount = KIND_UNITS[k]
            out[unit] += amount * hand[k]
    out[MERCHANT_UNIT] += s.merchants[p]
    return out


# ---------------------------------------------------------------------- the base classes


class KleopatraPhase(Phase):
    """A phase of Kleopatra. ``acts_active`` tells whether the active player is the one who acts."""

    acts_active: ClassVar[bool] = True
    __slots__ = ()

    def fault(self, s: GameState) -> Fault:
        """The first way this pending does not fit ``s`` (path inside the pending, problem), or None."""
        if self.acts_active and s.current_player != s.active_player:
            return ("", f"the active player {s.active_player} acts at {self.name}, "
                        f"but current_player is {s.current_player}")
        return self.data_fault(s)

    def data_fault(self, s: GameState) -> Fault:
        """:meth:`fault` without the question of who acts (also asked of an interrupted phase)."""
        return None

    def check(self, s: GameState) -> None:
        from ..errors import InvariantError

        problem = self.fault(s)
        if problem is not None:
            where = f"pending{'.' + problem[0] if problem[0] else ''}"
            raise InvariantError(f"{where}: {problem[1]}")

    @classmethod
    def read(cls, doc: Mapping[str, Any], s: GameState, path: str) -> Phase:
        strict.obj(doc, path, ("phase",))
        return cls()


class Interrupting(KleopatraPhase):
    """A phase that interrupts another and hands back to it: ``resume`` (None: the start of the turn)."""

    resumable: ClassVar[tuple[str, ...]] = ("turn", "quarry", "after")
    __slots__ = ("resume",)

    def __init__(self, resume: KleopatraPhase | None) -> None:
        self.resume = resume

    def document(self) -> dict[str, Any]:
        return {"resume": None if self.resume is None else {"phase": self.resume.name, **self.resume.document()}}

    def data_fault(self, s: GameState) -> Fault:
        name = "turn" if self.resume is None else self.resume.name
        if name not in self.resumable:
            return ("resume", f"{self.name} cannot return to {name}; it returns to {', '.join(self.resumable)}")
        if self.resume is not None:
            if isinstance(self.resume, Quarry):  # a mosaic being placed counts as built
                inner = self.resume.data_fault(s, building=self.resumable == ("quarry",))
            else:
                inner = self.resume.data_fault(s)
            if inner is not None:
                return (f"resume.{inner[0]}" if inner[0] else "resume", inner[1])
        return None

    def copy_resume(self) -> KleopatraPhase | None:
        return None if self.resume is None else self.resume.copy()

    def hand_back(self, s: GameState) -> None:
        """End this phase: the interrupted one continues, played by the active player."""
        s.pending = self.resume
        s.current_player = s.active_player

    @classmethod
    def read_resume(cls, doc: Mapping[str, Any], s: GameState, path: str) -> KleopatraPhase | None:
        value = doc.get("resume")
        if value is None:
            return None
        where = strict.join(path, "resume")
        inner = strict.obj(value, where, _ALL_KEYS, ("phase",))
        name = inner["phase"]
        if name not in cls.resumable or name == "turn":
            raise strict.fail(f"{where}.phase", f"{cls.name} returns to {', '.join(cls.resumable)} "
                                                f"(write null for the start of the turn), got {name!r:.40}")
        return PHASES[name].read(inner, s, where)


# ---------------------------------------------------------------------- the turn


class Turn(KleopatraPhase):
    """rules §3: characters at will, then one main action: a market visit or a quarry visit."""

    name = "turn"
    description = "start of the turn: play characters, then visit the market or the quarry"
    __slots__ = ()

    def legal(self, s: GameState) -> list[int]:
        p = s.active_player
        stalls = s.stalls
        if stalls[0] or stalls[1] or stalls[2]:
            out = [A.MARKET + i for i in range(STALLS) if stalls[i]]
        else:  # rules §4.1 [decision]: all empty, any stall may be chosen
            out = [A.MARKET + i for i in range(STALLS)]
        if s.can_visit_quarry(p):
            out.append(A.QUARRY)
        hand = s.hands[p]
        out += [a for k, a in _FREE_CHARACTER_IDS if hand[k]]
        return out

    def apply(self, s: GameState, action: int) -> None:
        if action < A.QUARRY:
            s.visit_market(action - A.MARKET)
        elif action == A.QUARRY:
            s.emit("quarry")
            s.pending = Quarry([0] * len(UNITS), [0] * NUM_KINDS, [])
        else:
            s.play_character(CHARACTERS[action - A.CHARACTER], None)


class Refill(KleopatraPhase):
    """rules §4.2: give each drawn card a stall; the last one left goes by itself."""

    name = "refill"
    description = "choose the stall for the next drawn card"
    __slots__ = ("drawn", "filled")

    def __init__(self, drawn: list[int], filled: list[bool]) -> None:
        self.drawn = drawn      # cards still to place (kind * 2 + face up), the next one first
        self.filled = filled    # per stall: already given a card in this refill

    def copy(self) -> Refill:
        return Refill(list(self.drawn), list(self.filled))

    def legal(self, s: GameState) -> list[int]:
        return [A.STALL + i for i in range(STALLS) if not self.filled[i]]

    def apply(self, s: GameState, action: int) -> None:
        self.place(s, action - A.STALL)

    def place(self, s: GameState, stall: int) -> None:
        s.stalls[stall].append(self.drawn.pop(0))
        self.filled[stall] = True
        free = [i for i in range(STALLS) if not self.filled[i]]
        if self.drawn and len(free) == 1:  # rules §4.2: exactly one stall left for it
            self.place(s, free[0])
        elif not self.drawn:
            s.pending = AFTER

    def document(self) -> dict[str, Any]:
        return {"drawn": [card_doc(c) for c in self.drawn], "filled": [i for i in range(STALLS) if self.filled[i]]}

    @classmethod
    def read(cls, doc: Mapping[str, Any], s: GameState, path: str) -> Refill:
        strict.obj(doc, path, ("phase", "drawn", "filled"), ("drawn",))
        drawn = read_cards(doc["drawn"], strict.join(path, "drawn"), STALLS)
        filled = [False] * STALLS
        for i in strict.seats(doc.get("filled", []), strict.join(path, "filled"), STALLS):
            filled[i] = True
        return cls(drawn, filled)

    def data_fault(self, s: GameState) -> Fault:
        free = STALLS - sum(self.filled)
        if not self.drawn:
            return ("drawn", "no card left to place (the refill would have ended)")
        if len(self.drawn) > free:
            return ("drawn", f"{len(self.drawn)} cards to place but only {free} stall(s) left")
        if free == 1:
            return ("drawn", "the last stall takes its card by itself (rules §4.2)")
        return super().data_fault(s)


class After(KleopatraPhase):
    """rules §3.3-3.4: after the main action, characters at will, then ``end_turn``."""

    name = "after"
    description = "after the main action: play characters or end the turn"
    __slots__ = ()

    def legal(self, s: GameState) -> list[int]:
        out = character_ids(s.hands[s.active_player])
        out.append(A.END_TURN)
        return out

    def apply(self, s: GameState, action: int) -> None:
        if action == A.END_TURN:
            s.end_turn()
        else:
            s.play_character(CHARACTERS[action - A.CHARACTER], self)


AFTER = After()


# ---------------------------------------------------------------------- the quarry visit


class Quarry(KleopatraPhase):
    """rules §5: pay cards and merchants into the pool, build what it covers, play characters; ``done``."""

    name = "quarry"
    description = "quarry visit: pay resources, build elements, then done"
    __slots__ = ("pool", "paid", "built")

    def __init__(self, pool: list[int], paid: list[int], built: list[int]) -> None:
        self.pool = pool        # 7 unit counts (rules §5)
        self.paid = paid        # the payment row: cards paid this visit, per kind
        self.built = built      # the build action ids of this visit, in order

    def copy(self) -> Quarry:
        return Quarry(list(self.pool), list(self.paid), list(self.built))

    def legal(self, s: GameState) -> list[int]:
        p = s.active_player
        hand = s.hands[p]
        pool = self.pool
        out = [a for k, a in _FREE_CHARACTER_IDS if hand[k]]
        if s.merchants[p]:
            out.append(A.MERCHANT)
        ok = s.rules_trompe
        if s.walls != ALL_WALLS and cover(pool, COSTS[WALLS], ok):
            out += [A.WALL + k for k in range(NUM_WALL_SLOTS) if not (s.walls >> k) & 1]
        if s.gate != 3 and cover(pool, COSTS[GATE], ok):
            out += [A.GATE + side for side in range(2) if not (s.gate >> side) & 1]
        if s.sphinxes < SPHINX_PIECES and cover(pool, COSTS[SPHINXES], ok):
            out.append(A.SPHINX)
        if s.obelisks < OBELISK_PIECES and cover(pool, COSTS[OBELISKS], ok):
            out.append(A.OBELISK)
        if not s.throne and cover(pool, COSTS[THRONE], ok):
            out.append(A.THRONE if s.pedestal else A.PEDESTAL)
        if s.stack and cover(pool, COSTS[MOSAICS], ok):
            out.append(A.MOSAIC)
        out += [a for k, a in _RESOURCE_CARD_IDS if hand[k]]
        if self.built:
            out.append(A.DONE)
        return out

    def apply(self, s: GameState, action: int) -> None:
        p = s.active_player
        if action >= A.CARD:
            if action == A.DONE:
                s.finish_quarry(self)
                return
            kind = action - A.CARD  # rules §5.1: pay a card into the payment row
            s.hands[p][kind] -= 1
            s.seen_out(p, kind)
            self.paid[kind] += 1
            unit, amount = KIND_UNITS[kind]
            self.pool[unit] += amount
            if kind in _TAINTED:
                s.amulets[p] += s.rules.tainted_amulets
            s.emit("quarry:paid-tainted" if kind in _TAINTED else "quarry:paid-card")
        elif action == A.MERCHANT:
            s.merchants[p] -= 1
            self.pool[MERCHANT_UNIT] += 1
            s.emit("quarry:paid-merchant")
        elif action >= A.WALL:
            s.build(self, action)
        else:
            s.play_character(CHARACTERS[action - A.CHARACTER], self)

    def document(self) -> dict[str, Any]:
        return {
            "pool": {UNITS[u]: c for u, c in enumerate(self.pool) if c},
            "paid": strict.names(self.paid),
            "built": [A.ACTION_NAMES[a] for a in self.built],
        }

    @classmethod
    def read(cls, doc: Mapping[str, Any], s: GameState, path: str) -> Quarry:
        strict.obj(doc, path, ("phase", "pool", "paid", "built"))
        limit = 2 * s.rules.total_cards + len(s.merchants) * 3
        pool_doc = strict.obj(doc.get("pool", {}), strict.join(path, "pool"), UNITS)
        pool = [strict.integer(pool_doc.get(u, 0), f"{path}.pool.{u}", 0, limit) for u in UNITS]
        paid = strict.cards(doc.get("paid", []), strict.join(path, "paid"), s.rules.total_cards, RESOURCE_KINDS)
        built = []
        for i, name in enumerate(strict.array(doc.get("built", []), strict.join(path, "built"), _MOST_BUILDS)):
            if not isinstance(name, str) or name not in _BUILD_IDS:
                raise strict.fail(f"{path}.built[{i}]", f"not a build action: {name!r:.40}")
            built.append(_BUILD_IDS[name])
        return cls(pool, paid, built)

    def data_fault(self, s: GameState, building: bool = False) -> Fault:
        """``building``: a mosaic of this visit is being placed (it counts as built)."""
        built = self.built
        for a in built:
            if A.WALL <= a < A.GATE and not (s.walls >> (a - A.WALL)) & 1:
                return ("built", f"{A.ACTION_NAMES[a]} is listed but wall slot {a - A.WALL + 1} is empty")
            if A.GATE <= a < A.SPHINX and not (s.gate >> (a - A.GATE)) & 1:
                return ("built", f"{A.ACTION_NAMES[a]} is listed but that gate part is not built")
            if a not in (A.SPHINX, A.OBELISK, A.MOSAIC) and built.count(a) > 1:
                return ("built", f"{A.ACTION_NAMES[a]} is listed twice")
        for a, have in ((A.SPHINX, s.sphinxes), (A.OBELISK, s.obelisks), (A.MOSAIC, len(s.mosaics)),
                        (A.PEDESTAL, int(s.pedestal)), (A.THRONE, int(s.throne))):
            if built.count(a) > have:
                return ("built", f"lists {built.count(a)} {A.ACTION_NAMES[a]} but the palace has {have}")
        mine = built.count(A.MOSAIC)
        if mine and any(m[3] != s.active_player for m in s.mosaics[-mine:]):
            return ("built", "the mosaics built this visit (the last ones placed) must be the active player's")
        if not built and not building and not affordable(s, hand_pool(s, s.active_player, self.pool)):
            return ("built", "nothing was built and the pool, hand and merchants cover no element left")
        return None


class MosaicTile(Interrupting):
    """rules §6.1: the top tile, or any placeable tile by playing a Scribe (2 amulets)."""

    name = "mosaic_tile"
    description = "choose the mosaic tile: the top one, or another by playing a Scribe"
    resumable = ("quarry",)
    __slots__ = ()

    def copy(self) -> MosaicTile:
        return MosaicTile(self.copy_resume())

    def legal(self, s: GameState) -> list[int]:
        top = s.stack[0]
        if not s.hands[s.active_player][SCRIBE]:
            return [A.TILE + top]
        blocked = s.covered | s.sanctuary_union
        geo = s.rules.geometry
        return sorted(A.TILE + t for t in s.stack if t == top or geo.tile_placeable(t, blocked))

    def apply(self, s: GameState, action: int) -> None:
        tile = action - A.TILE
        scribe = tile != s.stack[0]
        if scribe:
            s.play_scribe_for_tile()
        s.stack.remove(tile)
        s.pending = MosaicOrient(self.resume, tile, scribe)

    @classmethod
    def read(cls, doc: Mapping[str, Any], s: GameState, path: str) -> MosaicTile:
        strict.obj(doc, path, ("phase", "resume"), ("resume",))
        return cls(cls.read_resume(doc, s, path))

    def data_fault(self, s: GameState) -> Fault:
        if not s.stack:
            return ("", "no tile is left in the quarry")
        return super().data_fault(s)


class MosaicOrient(Interrupting):
    """rules §6.2: the orientation of the chosen tile."""

    name = "mosaic_orient"
    description = "choose the orientation of the mosaic tile"
    resumable = ("quarry",)
    __slots__ = ("tile", "scribe")

    def __init__(self, resume: KleopatraPhase | None, tile: int, scribe: bool) -> None:
        super().__init__(resume)
        self.tile = tile
        self.scribe = scribe  # chosen with a Scribe: its player sees the stack while placing it

    def copy(self) -> MosaicOrient:
        return MosaicOrient(self.copy_resume(), self.tile, self.scribe)

    def legal(self, s: GameState) -> list[int]:
        blocked = s.covered | s.sanctuary_union
        return [A.ORIENT + r for r in s.rules.geometry.legal_orients(self.tile, blocked)]

    def apply(self, s: GameState, action: int) -> None:
        s.pending = MosaicSquare(self.resume, self.tile, self.scribe, action - A.ORIENT)

    def document(self) -> dict[str, Any]:
        return {"tile": TILE_NAMES[self.tile], "scribe": self.scribe, **super().document()}

    @classmethod
    def read(cls, doc: Mapping[str, Any], s: GameState, path: str) -> MosaicOrient:
        strict.obj(doc, path, ("phase", "resume", "tile", "scribe"), ("resume", "tile"))
        tile = strict.tile(doc["tile"], strict.join(path, "tile"))
        scribe = strict.boolean(doc.get("scribe", False), strict.join(path, "scribe"))
        return cls(cls.read_resume(doc, s, path), tile, scribe)

    def data_fault(self, s: GameState) -> Fault:
        if not s.rules.geometry.tile_placeable(self.tile, s.covered | s.sanctuary_union):
            return ("tile", f"tile {TILE_NAMES[self.tile]} has no legal placement")
        return super().data_fault(s)


class MosaicSquare(MosaicOrient):
    """rules §6.2: the square of the anchor; then sanctuaries, statues and tile removal (rules §6.4-6.5)."""

    name = "mosaic_square"
    description = "choose the square of the tile's anchor"
    __slots__ = ("orient",)

    def __init__(self, resume: KleopatraPhase | None, tile: int, scribe: bool, orient: int) -> None:
        super().__init__(resume, tile, scribe)
        self.orient = orient

    def copy(self) -> MosaicSquare:
        return MosaicSquare(self.copy_resume(), self.tile, self.scribe, self.orient)

    def legal(self, s: GameState) -> list[int]:
        blocked = s.covered | s.sanctuary_union
        return [A.SQUARE + i for i in s.rules.geometry.legal_squares(self.tile, self.orient, blocked)]

    def apply(self, s: GameState, action: int) -> None:
        s.place_mosaic(self.resume, self.tile, self.orient, action - A.SQUARE)

    def document(self) -> dict[str, Any]:
        return {"orient": self.orient, **super().document()}

    @classmethod
    def read(cls, doc: Mapping[str, Any], s: GameState, path: str) -> MosaicSquare:
        strict.obj(doc, path, ("phase", "resume", "tile", "scribe", "orient"), ("resume", "tile", "orient"))
        tile = strict.tile(doc["tile"], strict.join(path, "tile"))
        orient = strict.integer(doc["orient"], strict.join(path, "orient"), 0, 7)
        scribe = strict.boolean(doc.get("scribe", False), strict.join(path, "scribe"))
        return cls(cls.read_resume(doc, s, path), tile, scribe, orient)

    def data_fault(self, s: GameState) -> Fault:
        if self.orient not in s.rules.geometry.legal_orients(self.tile, s.covered | s.sanctuary_union):
            return ("orient", f"orientation {self.orient} of tile {TILE_NAMES[self.tile]} has no legal square")
        return super().data_fault(s)


class Anubis(Interrupting):
    """rules §6.4: for each new sanctuary, in order, put a statue of Anubis on it or not."""

    name = "anubis"
    description = "put a statue of Anubis on the new sanctuary, or not"
    resumable = ("quarry",)
    __slots__ = ("queue",)

    def __init__(self, resume: KleopatraPhase | None, queue: list[int]) -> None:
        super().__init__(resume)
        self.queue = queue  # indices into s.sanctuaries still to ask about, the one offered first

    def copy(self) -> Anubis:
        return Anubis(self.copy_resume(), list(self.queue))

    def legal(self, s: GameState) -> list[int]:
        return [A.YES, A.NO]

    def apply(self, s: GameState, action: int) -> None:
        p = s.active_player
        index = self.queue.pop(0)
        if action == A.YES:
            s.sanctuaries[index][1] = p
            s.statues[p] -= 1
            s.garden_changed()
            s.emit("sanctuary:claimed")
        elif s.log is not None:
            s.log.append("sanctuary:unclaimed")
        if not self.queue:
            self.hand_back(s)
        elif not s.statues[p]:  # rules §6.4: no question once his statues are used
            if s.log is not None:
                s.log.extend(["sanctuary:unclaimed"] * len(self.queue))
            self.hand_back(s)

    def document(self) -> dict[str, Any]:
        return {"sanctuaries": list(self.queue), **super().document()}

    @classmethod
    def read(cls, doc: Mapping[str, Any], s: GameState, path: str) -> Anubis:
        strict.obj(doc, path, ("phase", "resume", "sanctuaries"), ("resume", "sanctuaries"))
        where = strict.join(path, "sanctuaries")
        queue = []
        for i, v in enumerate(strict.array(doc["sanctuaries"], where, len(s.sanctuaries))):
            index = strict.integer(v, f"{where}[{i}]", 0, max(0, len(s.sanctuaries) - 1))
            if index in queue:
                raise strict.fail(f"{where}[{i}]", f"sanctuary {index} is listed twice")
            queue.append(index)
        return cls(cls.read_resume(doc, s, path), queue)

    def data_fault(self, s: GameState) -> Fault:
        if not self.queue:
            return ("sanctuaries", "no sanctuary left to ask about")
        if sorted(self.queue) != self.queue:
            return ("sanctuaries", "the questions go in the order of the sanctuaries")
        for index in self.queue:
            if not 0 <= index < len(s.sanctuaries) or s.sanctuaries[index][1] is not None:
                return ("sanctuaries", f"sanctuary {index} is not an unclaimed sanctuary")
        if not s.statues[s.active_player]:
            return ("sanctuaries", f"player {s.active_player} has no statue left to place")
        return super().data_fault(s)


# ---------------------------------------------------------------------- the end of the turn


class HandLimit(KleopatraPhase):
    """rules §9: more than 10 cards at the end of the turn: keep, discard, or play a Smuggler."""

    name = "hand_limit"
    description = "hand limit: keep all cards (1 amulet per extra card), discard down (1 amulet), or a Smuggler"
    __slots__ = ()

    def legal(self, s: GameState) -> list[int]:
        out = [A.LIMIT_KEEP, A.LIMIT_DISCARD]
        if s.hands[s.active_player][SMUGGLER]:
            out.insert(0, A.character_action(SMUGGLER))
        return out

    def apply(self, s: GameState, action: int) -> None:
        p = s.active_player
        if action == A.LIMIT_KEEP:
            s.amulets[p] += LIMIT_KEEP_AMULETS_PER_CARD * (sum(s.hands[p]) - s.rules.hand_limit)
            s.emit("hand-limit:keep")
            s.next_turn()
        elif action == A.LIMIT_DISCARD:
            s.amulets[p] += LIMIT_DISCARD_AMULETS
            s.emit("hand-limit:discard")
            s.pending = LIMIT_DISCARD
        else:  # rules §8 Smuggler: keep every other card for its own amulet
            s.hands[p][SMUGGLER] -= 1
            s.seen_out(p, SMUGGLER)
            s.amulets[p] += CHARACTER_AMULETS[SMUGGLER]
            s.discard_public(SMUGGLER, 1)
            s.emit("character:smuggler")
            s.next_turn()

    def data_fault(self, s: GameState) -> Fault:
        if sum(s.hands[s.active_player]) <= s.rules.hand_limit:
            return ("", f"player {s.active_player} holds no more than {s.rules.hand_limit} cards")
        return super().data_fault(s)


class LimitDiscard(HandLimit):
    """rules §9: discard cards of one's choice face down, one at a time, down to the limit."""

    name = "limit_discard"
    description = "discard a card (face down) down to the hand limit"
    __slots__ = ()

    def legal(self, s: GameState) -> list[int]:
        hand = s.hands[s.active_player]
        return [A.CARD + k for k in range(NUM_KINDS) if hand[k]]

    def apply(self, s: GameState, action: int) -> None:
        p = s.active_player
        kind = action - A.CARD
        hand = s.hands[p]
        hand[kind] -= 1
        s.unseen_out(p, 1, (p,))
        s.discard_private(p, kind)
        if sum(hand) <= s.rules.hand_limit:
            s.next_turn()


HAND_LIMIT = HandLimit()
LIMIT_DISCARD = LimitDiscard()


# ---------------------------------------------------------------------- the characters (rules §8)


class Beggar(Interrupting):
    """rules §8 Beggar: each opponent in turn order gives 2 talents or a standard resource card."""

    name = "beggar"
    description = "give the Beggar's player 2 talents or a standard resource card"
    acts_active = False
    __slots__ = ("queue",)

    def __init__(self, resume: KleopatraPhase | None, queue: list[int]) -> None:
        super().__init__(resume)
        self.queue = queue  # opponents still to answer after the current player

    def copy(self) -> Beggar:
        return Beggar(self.copy_resume(), list(self.queue))

    def legal(self, s: GameState) -> list[int]:
        hand = s.hands[s.current_player]
        out = [A.CARD + k for k in STANDARD if hand[k]]
        if s.talents[s.current_player] >= BEGGAR_TALENTS:
            out.append(A.TALENTS)
        return out

    def apply(self, s: GameState, action: int) -> None:
        victim, p = s.current_player, s.active_player
        if action == A.TALENTS:
            s.talents[victim] -= BEGGAR_TALENTS
            s.talents[p] += BEGGAR_TALENTS
            s.emit("beggar:gave-talents")
        else:
            s.give_card(victim, p, action - A.CARD)
            s.emit("beggar:gave-card")
        s.ask_beggar_victims(self.queue, self.resume)

    def document(self) -> dict[str, Any]:
        return {"queue": list(self.queue), **super().document()}

    @classmethod
    def read(cls, doc: Mapping[str, Any], s: GameState, path: str) -> Beggar:
        strict.obj(doc, path, ("phase", "resume", "queue"))
        queue = strict.seats(doc.get("queue", []), strict.join(path, "queue"), s.num_players)
        return cls(cls.read_resume(doc, s, path), queue)

    def data_fault(self, s: GameState) -> Fault:
        n, active, victim = s.num_players, s.active_player, s.current_player
        if victim == active:
            return ("", "the Beggar's player does not answer his own Beggar")
        order = [(active + i) % n for i in range(1, n)]
        at = order.index(victim)
        if self.queue != [q for q in order[at + 1:] if q in self.queue]:
            return ("queue", f"must list opponents after player {victim} in turn order")
        if not self.legal(s):
            return ("", f"player {victim} can give nothing: he would have shown his hand instead")
        return super().data_fault(s)


class Courtesan(Interrupting):
    """rules §8 Courtesan: take one card of one's choice from the discard pile."""

    name = "courtesan"
    description = "take a card of your choice from the discard pile"
    __slots__ = ()

    def copy(self) -> Courtesan:
        return Courtesan(self.copy_resume())

    def legal(self, s: GameState) -> list[int]:
        discard = s.discard
        return [A.CARD + k for k in range(NUM_KINDS) if discard[k]]

    def apply(self, s: GameState, action: int) -> None:
        s.take_from_discard(s.active_player, action - A.CARD)
        self.hand_back(s)

    @classmethod
    def read(cls, doc: Mapping[str, Any], s: GameState, path: str) -> Courtesan:
        strict.obj(doc, path, ("phase", "resume"))
        return cls(cls.read_resume(doc, s, path))

    def data_fault(self, s: GameState) -> Fault:
        if not any(s.discard):
            return ("", "the discard pile is empty (the Courtesan would have had no effect)")
        return super().data_fault(s)


class EnvoyResource(Interrupting):
    """rules §8 Envoy: name the standard resource asked for."""

    name = "envoy_resource"
    description = "name the standard resource your Envoy asks for"
    __slots__ = ()

    def copy(self) -> EnvoyResource:
        return EnvoyResource(self.copy_resume())

    def legal(self, s: GameState) -> list[int]:
        return [A.CARD + k for k in STANDARD]

    def apply(self, s: GameState, action: int) -> None:
        n = s.num_players
        s.pending = EnvoyOffer(self.resume, action - A.CARD, [0] * n)
        s.current_player = (s.active_player + 1) % n

    @classmethod
    def read(cls, doc: Mapping[str, Any], s: GameState, path: str) -> EnvoyResource:
        strict.obj(doc, path, ("phase", "resume"))
        return cls(cls.read_resume(doc, s, path))


class EnvoyOffer(Interrupting):
    """rules §8 Envoy: each opponent in turn order offers cards of the resource one at a time, then stops.

    [decision] The run never ends by itself: an opponent with nothing (more) to offer still answers
    ``no``, because ending his run for him would tell everybody how many such cards he holds."""

    name = "envoy_offer"
    description = "offer the Envoy one more card of the named resource, or stop"
    acts_active = False
    __slots__ = ("resource", "offers")

    def __init__(self, resume: KleopatraPhase | None, resource: int, offers: list[int]) -> None:
        super().__init__(resume)
        self.resource = resource  # a standard kind
        self.offers = offers      # per seat: cards offered

    def copy(self) -> EnvoyOffer:
        return EnvoyOffer(self.copy_resume(), self.resource, list(self.offers))

    def legal(self, s: GameState) -> list[int]:
        o = s.current_player
        if s.hands[o][self.resource] > self.offers[o]:
            return [A.YES, A.NO]
        return [A.NO]

    def apply(self, s: GameState, action: int) -> None:
        o = s.current_player
        if action == A.YES:
            self.offers[o] += 1
            s.offered(o, self.resource, self.offers[o])
            s.emit("envoy:offered")
            return
        nxt = (o + 1) % s.num_players
        if nxt != s.active_player:
            s.current_player = nxt
            return
        offering = s.envoy_order(self.offers)
        if not offering:
            s.emit("envoy:no-offer")
            self.hand_back(s)
            return
        s.pending = EnvoyAccept(self.resume, self.resource, self.offers, [0] * s.num_players, offering[0])
        s.current_player = s.active_player

    def document(self) -> dict[str, Any]:
        return {"resource": KINDS[self.resource], "offers": list(self.offers), **super().document()}

    @classmethod
    def read(cls, doc: Mapping[str, Any], s: GameState, path: str) -> EnvoyOffer:
        strict.obj(doc, path, ("phase", "resume", "resource", "offers"), ("resource", "offers"))
        resource = strict.kind(doc["resource"], strict.join(path, "resource"))
        if resource not in STANDARD:
            raise strict.fail(strict.join(path, "resource"), "the Envoy names a standard resource")
        offers = _counts_per_seat(doc["offers"], strict.join(path, "offers"), s, s.rules.total_cards)
        return cls(cls.read_resume(doc, s, path), resource, offers)

    def data_fault(self, s: GameState) -> Fault:
        n, active, o = s.num_players, s.active_player, s.current_player
        if o == active:
            return ("", "the Envoy's player does not offer to himself")
        after = False
        for i in range(1, n):
            q = (active + i) % n
            if self.offers[q] > s.hands[q][self.resource]:
                return ("offers", f"player {q} offers more {KINDS[self.resource]} cards than he holds")
            if after and self.offers[q]:
                return ("offers", f"player {q} offers before his turn to answer")
            after = after or q == o
        if self.offers[active]:
            return ("offers", "the Envoy's player offers nothing")
        return super().data_fault(s)


class EnvoyAccept(EnvoyOffer):
    """rules §8 Envoy: for each opponent who offered, accept his offered cards one at a time, then stop."""

    name = "envoy_accept"
    description = "accept one more card offered by this opponent (1 amulet moves to you), or stop"
    acts_active = True
    __slots__ = ("accepted", "target")

    def __init__(self, resume: KleopatraPhase | None, resource: int, offers: list[int], accepted: list[int],
                 target: int) -> None:
        super().__init__(resume, resource, offers)
        self.accepted = accepted  # per seat: cards accepted
        self.target = target      # the opponent whose offer is being accepted

    def copy(self) -> EnvoyAccept:
        return EnvoyAccept(self.copy_resume(), self.resource, list(self.offers), list(self.accepted), self.target)

    def legal(self, s: GameState) -> list[int]:
        return [A.YES, A.NO]

    def apply(self, s: GameState, action: int) -> None:
        t = self.target
        if action == A.YES:
            self.accepted[t] += 1
            s.accept_envoy_card(t, self.resource)
            if self.accepted[t] < self.offers[t]:
                return
        elif s.log is not None:
            s.log.append("envoy:declined")
        later = [q for q in s.envoy_order(self.offers) if (q - s.active_player) % s.num_players
                 > (t - s.active_player) % s.num_players]
        if later:
            self.target = later[0]
        else:
            self.hand_back(s)

    def document(self) -> dict[str, Any]:
        doc = super().document()
        return {"accepted": list(self.accepted), "target": self.target, **doc}

    @classmethod
    def read(cls, doc: Mapping[str, Any], s: GameState, path: str) -> EnvoyAccept:
        strict.obj(doc, path, ("phase", "resume", "resource", "offers", "accepted", "target"),
                   ("resource", "offers", "target"))
        resource = strict.kind(doc["resource"], strict.join(path, "resource"))
        if resource not in STANDARD:
            raise strict.fail(strict.join(path, "resource"), "the Envoy names a standard resource")
        offers = _counts_per_seat(doc["offers"], strict.join(path, "offers"), s, s.rules.total_cards)
        accepted = _counts_per_seat(doc.get("accepted", [0] * s.num_players), strict.join(path, "accepted"), s,
                                    s.rules.total_cards)
        target = strict.seat(doc["target"], strict.join(path, "target"), s.num_players)
        return cls(cls.read_resume(doc, s, path), resource, offers, accepted, target)

    def data_fault(self, s: GameState) -> Fault:
        n, active, t = s.num_players, s.active_player, self.target
        if t == active or not self.offers[t] or self.accepted[t] >= self.offers[t]:
            return ("target", f"player {t} has no offered card left to accept")
        if self.offers[active] or self.accepted[active]:
            return ("offers", "the Envoy's player offers nothing")
        for i in range(1, n):
            q = (active + i) % n
            if self.accepted[q] > self.offers[q]:
                return ("accepted", f"player {q} has more cards accepted than offered")
            if self.offers[q] - self.accepted[q] > s.hands[q][self.resource]:
                return ("offers", f"player {q} no longer holds the cards he offered")
            if (q - active) % n > (t - active) % n and self.accepted[q]:
                return ("accepted", f"player {q}'s offer comes after player {t}'s")
        return Interrupting.data_fault(self, s)


class Vizier(Interrupting):
    """rules §8 Vizier: keep drawn cards one at a time (1 amulet each), ``done`` discards the rest."""

    name = "vizier"
    description = "keep one more of the cards your Vizier drew (1 amulet), or discard the rest"
    __slots__ = ("drawn", "kept")

    def __init__(self, resume: KleopatraPhase | None, drawn: list[int], kept: int) -> None:
        super().__init__(resume)
        self.drawn = drawn  # per kind: drawn cards not yet kept
        self.kept = kept

    def copy(self) -> Vizier:
        return Vizier(self.copy_resume(), list(self.drawn), self.kept)

    def legal(self, s: GameState) -> list[int]:
        out = [A.CARD + k for k in range(NUM_KINDS) if self.drawn[k]]
        out.append(A.DONE)
        return out

    def apply(self, s: GameState, action: int) -> None:
        p = s.active_player
        if action == A.DONE:
            for k in range(NUM_KINDS):
                if self.drawn[k]:
                    s.discard_private(p, k, self.drawn[k])
            self.finish(s)
            return
        kind = action - A.CARD
        self.drawn[kind] -= 1
        s.hands[p][kind] += 1
        s.amulets[p] += VIZIER_AMULETS_PER_CARD
        self.kept += 1
        if not any(self.drawn):
            self.finish(s)

    def finish(self, s: GameState) -> None:
        s.emit(f"vizier:kept-{self.kept}")
        self.hand_back(s)

    def document(self) -> dict[str, Any]:
        return {"drawn": strict.names(self.drawn), "kept": self.kept, **super().document()}

    @classmethod
    def read(cls, doc: Mapping[str, Any], s: GameState, path: str) -> Vizier:
        strict.obj(doc, path, ("phase", "resume", "drawn", "kept"), ("drawn",))
        drawn = strict.cards(doc["drawn"], strict.join(path, "drawn"), VIZIER_DRAW)
        kept = strict.integer(doc.get("kept", 0), strict.join(path, "kept"), 0, VIZIER_DRAW)
        return cls(cls.read_resume(doc, s, path), drawn, kept)

    def data_fault(self, s: GameState) -> Fault:
        if not any(self.drawn):
            return ("drawn", "no drawn card left (the Vizier's power would have ended)")
        if sum(self.drawn) + self.kept > VIZIER_DRAW:
            return ("kept", f"the Vizier draws at most {VIZIER_DRAW} cards")
        return super().data_fault(s)


class ScribeDie(Interrupting):
    """rules §8 Scribe: turn one die onto the altar or off it (no amulet)."""

    name = "scribe_die"
    description = "turn one High Priest die: onto the altar, or off it"
    __slots__ = ()

    def copy(self) -> ScribeDie:
        return ScribeDie(self.copy_resume())

    def legal(self, s: GameState) -> list[int]:
        out = []
        if s.altar < DICE:
            out.append(A.DIE_ADD)
        if s.altar:
            out.append(A.DIE_REMOVE)
        return out

    def apply(self, s: GameState, action: int) -> None:
        if action == A.DIE_ADD:
            s.altar += 1
            s.emit("scribe:die-added")
            if s.altar == DICE:
                s.emit("ceremony:from-scribe")
                s.start_ceremony(self.resume)
                return
        else:
            s.altar -= 1
            s.emit("scribe:die-removed")
        self.hand_back(s)

    @classmethod
    def read(cls, doc: Mapping[str, Any], s: GameState, path: str) -> ScribeDie:
        strict.obj(doc, path, ("phase", "resume"))
        return cls(cls.read_resume(doc, s, path))


class Ceremony(Interrupting):
    """rules §10, §14.3: each player in turn order, the active player first, raises his secret offer
    with ``bid:k`` and closes it with ``done``; then the offers are revealed and paid."""

    name = "ceremony"
    description = "offering ceremony: raise your secret offer, or close it"
    acts_active = False
    __slots__ = ("offers",)

    def __init__(self, resume: KleopatraPhase | None, offers: list[int]) -> None:
        super().__init__(resume)
        self.offers = offers  # per seat: the running offer (0 for those who have not bid yet)

    def copy(self) -> Ceremony:
        return Ceremony(self.copy_resume(), list(self.offers))

    def legal(self, s: GameState) -> list[int]:
        b = s.current_player
        room = s.talents[b] - self.offers[b]
        out = [A.DONE]
        out += [A.BID + i for i, step in enumerate(BID_STEPS) if step <= room]
        return out

    def apply(self, s: GameState, action: int) -> None:
        b = s.current_player
        if action != A.DONE:
            self.offers[b] += BID_STEPS[action - A.BID]
            return
        nxt = (b + 1) % s.num_players
        if nxt == s.active_player:
            s.reveal_ceremony(self)
        else:
            s.current_player = nxt

    def closed(self, s: GameState) -> list[bool]:
        """Per seat: has closed his offer (the seats before the current bidder in the bidding order)."""
        n, active = s.num_players, s.active_player
        done = (s.current_player - active) % n
        return [(p - active) % n < done for p in range(n)]

    def document(self) -> dict[str, Any]:
        return {"offers": list(self.offers), **super().document()}

    @classmethod
    def read(cls, doc: Mapping[str, Any], s: GameState, path: str) -> Ceremony:
        strict.obj(doc, path, ("phase", "resume", "offers"))
        offers = _counts_per_seat(doc.get("offers", [0] * s.num_players), strict.join(path, "offers"), s,
                                  max(s.talents))
        return cls(cls.read_resume(doc, s, path), offers)

    def data_fault(self, s: GameState) -> Fault:
        if s.altar != DICE:
            return ("", f"a ceremony takes place with all {DICE} dice on the altar, not {s.altar}")
        n, active, b = s.num_players, s.active_player, s.current_player
        for p in range(n):
            if self.offers[p] > s.talents[p]:
                return ("offers", f"player {p} offers more than his {s.talents[p]} talents")
            if (p - active) % n > (b - active) % n and self.offers[p]:
                return ("offers", f"player {p} has an offer before his turn to bid")
        return super().data_fault(s)


def _counts_per_seat(value: Any, path: str, s: GameState, high: int) -> list[int]:
    n = s.num_players
    return [strict.integer(v, strict.join(path, i), 0, high)
            for i, v in enumerate(strict.array(value, path, n, n))]


# ---------------------------------------------------------------------- cards in documents


def card_doc(card: int) -> dict[str, Any]:
    """A card as the document writes it in stalls, the deck and a refill: ``{"kind": ..., "up": ...}``."""
    return {"kind": KINDS[card >> 1], "up": bool(card & 1)}


def read_cards(value: Any, path: str, most: int) -> list[int]:
    """A list of ``{"kind", "up"}`` cards read into engine cards (kind * 2 + face up)."""
    out = []
    for i, v in enumerate(strict.array(value, path, most)):
        where = strict.join(path, i)
        doc = strict.obj(v, where, ("kind", "up"), ("kind", "up"))
        out.append(strict.kind(doc["kind"], f"{where}.kind") * 2 + strict.boolean(doc["up"], f"{where}.up"))
    return out


def pending_chain(phase: KleopatraPhase | None) -> Iterator[KleopatraPhase]:
    """``phase``, then each phase it interrupts in turn, down to the one the turn itself is in."""
    while phase is not None:
        yield phase
        phase = phase.resume if isinstance(phase, Interrupting) else None


def quarry_visit(phase: KleopatraPhase | None) -> Quarry | None:
    """The quarry visit under way at ``phase`` (``phase`` itself, or one it interrupts), or None."""
    return next((visit for visit in pending_chain(phase) if isinstance(visit, Quarry)), None)


TURN = Turn()
# The phases of rules §14.2, in that order (the observation's one-hot order).
PHASES: dict[str, type[KleopatraPhase]] = {
    cls.name: cls for cls in (
        Turn, Refill, Quarry, MosaicTile, MosaicOrient, MosaicSquare, Anubis, After, HandLimit, LimitDiscard,
        Beggar, Courtesan, EnvoyResource, EnvoyOffer, EnvoyAccept, Vizier, ScribeDie, Ceremony,
    )
}
PHASE_NAMES = tuple(PHASES)
PHASE_INDEX = {name: i for i, name in enumerate(PHASE_NAMES)}
_ALL_KEYS = frozenset({"phase", "resume", "drawn", "filled", "pool", "paid", "built", "tile", "scribe", "orient",
                       "sanctuaries", "queue", "resource", "offers", "accepted", "target", "kept"})
_BUILD_IDS = {A.ACTION_NAMES[a]: a for a in A.BUILDS}
_MOST_BUILDS = NUM_WALL_SLOTS + len(GATE_SIDES) + SPHINX_PIECES + OBELISK_PIECES + 2 + NUM_TILES
