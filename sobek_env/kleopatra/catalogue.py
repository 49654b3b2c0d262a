"""Kleopatra's data tables: card kinds, element costs and values, the palace geometry, the rules options.

One place for each fact of ``KLEOPATRA_RULES.md`` §1, §2, §8-§11 and §13. Every [decision] of the
rules file is a named value here or a rules option validated by :func:`make_rules`, so a user who
owns the physical game and disagrees changes it in this module or passes an option to
``GameState.new``. Everything else reads these tables.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .palace import Geometry

# ---------------------------------------------------------------------- cards (rules §1.1)

KINDS = (
    "artisan", "stone", "marble", "wood", "lapis",
    "artisan2", "stone2", "marble2", "wood2", "lapis2", "trompe",
    "beggar", "courtesan", "envoy", "scribe", "smuggler", "vizier",
)
NUM_KINDS = len(KINDS)
KIND_INDEX = {name: k for k, name in enumerate(KINDS)}
ARTISAN, STONE, MARBLE, WOOD, LAPIS = range(5)
ARTISAN2, STONE2, MARBLE2, WOOD2, LAPIS2, TROMPE = range(5, 11)
BEGGAR, COURTESAN, ENVOY, SCRIBE, SMUGGLER, VIZIER = range(11, 17)
STANDARD = (ARTISAN, STONE, MARBLE, WOOD, LAPIS)          # can go to a Beggar or an Envoy (rules §7)
DOUBLED = (ARTISAN2, STONE2, MARBLE2, WOOD2, LAPIS2)
TAINTED = (*DOUBLED, TROMPE)
RESOURCE_KINDS = (*STANDARD, *TAINTED)                     # can be paid in the quarry (rules §5)
CHARACTERS = (BEGGAR, COURTESAN, ENVOY, SCRIBE, SMUGGLER, VIZIER)
CORRUPT = tuple(k >= ARTISAN2 for k in range(NUM_KINDS))  # the corruption symbol (rules §1.1)
DEFAULT_CARD_COUNTS = {
    "artisan": 30, "stone": 18, "marble": 11, "wood": 9, "lapis": 7,
    "artisan2": 3, "stone2": 3, "marble2": 3, "wood2": 3, "lapis2": 3, "trompe": 8,
    "beggar": 2, "courtesan": 2, "envoy": 2, "scribe": 2, "smuggler": 2, "vizier": 1,
}
MAX_CARDS_OF_A_KIND = 200  # the card_counts option's ceiling: keeps documents and observations bounded

# Units of a quarry pool (rules §5): the five resources, then Trompe-l'oeil and Nile merchant units.
RESOURCES = ("artisan", "stone", "marble", "wood", "lapis")
UNITS = (*RESOURCES, "trompe", "merchant")
TROMPE_UNIT, MERCHANT_UNIT = 5, 6
MATERIALS = ("stone", "marble", "wood", "lapis")
# per resource kind: the unit it gives and how many (rules §1.1)
KIND_UNITS = (
    (0, 1), (1, 1), (2, 1), (3, 1), (4, 1),
    (0, 2), (1, 2), (2, 2), (3, 2), (4, 2),
    (TROMPE_UNIT, 1),
)

# ---------------------------------------------------------------------- numbers of the rules

STALLS = 3                  # rules §2.4
START_HAND = 3              # rules §2.2
START_TALENTS = 5           # rules §2.5
START_MERCHANTS = 3
START_STATUES = 2
DICE = 5                    # rules §1.2
DIE_FACES = 6
CLEOPATRA_END = 5           # rules §11: her last step ends the game
MERCHANT_VALUE = 3          # rules §11.5
END_CARD_AMULETS = 1        # rules §11.1: per corrupt card left in a hand
REFILL_DRAW = STALLS        # rules §4.2: one card per stall
VIZIER_DRAW = 5             # rules §8
BEGGAR_TALENTS = 2          # rules §8
# rules §8: fixed amulets of each character when played (the Envoy and the Vizier pay per card)
CHARACTER_AMULETS = {BEGGAR: 2, COURTESAN: 1, ENVOY: 0, SCRIBE: 0, SMUGGLER: 1, VIZIER: 0}
SCRIBE_CHOOSE_AMULETS = 2   # rules §8: a Scribe choosing a mosaic
ENVOY_AMULETS_PER_CARD = 1
VIZIER_AMULETS_PER_CARD = 1
LIMIT_DISCARD_AMULETS = 1   # rules §9
LIMIT_KEEP_AMULETS_PER_CARD = 1
BID_STEPS = (1, 2, 5, 10)   # rules §14.1: bid:k raises one's offer by k
# rules §5.3: talents for building several elements in one visit
BUILD_BONUS_TWO = 2
BUILD_BONUS_THREE_OR_MORE = 5

# ---------------------------------------------------------------------- the quarry (rules §1.3)

CATEGORIES = ("walls", "sphinxes", "obelisks", "gate", "throne", "mosaics")
WALLS, SPHINXES, OBELISKS, GATE, THRONE, MOSAICS = range(6)
SPHINX_PIECES, OBELISK_PIECES, GATE_PARTS, THRONE_PIECES = 6, 2, 2, 2
GATE_SIDES = ("left", "right")
# costs per category, in resource units (artisan, stone, marble, wood, lapis)
COSTS = (
    (1, 1, 0, 1, 0),   # a column wall: 1 artisan, 1 wood, 1 stone
    (1, 1, 1, 0, 0),   # a sphinx: 1 artisan, 1 stone, 1 marble
    (3, 2, 0, 2, 0),   # an obelisk: 3 artisans, 2 wood, 2 stone
    (2, 0, 1, 1, 1),   # a gate part: 2 artisans, 1 wood, 1 marble, 1 lapis
    (3, 0, 2, 0, 2),   # the pedestal or the throne: 3 artisans, 2 marble, 2 lapis
    (2, 1, 1, 0, 1),   # a mosaic: 2 artisans, 1 stone, 1 marble, 1 lapis
)
WALL_BASE = 3                     # + 1 per mosaic-covered square adjacent to its slot
SPHINX_VALUES = (2, 5, 2, 5, 2, 5)  # first of a pair 2, the one completing it 5
OBELISK_VALUE = 12
GATE_BASE = 4                     # + 1 per wall in the unbroken run joined to the part
PEDESTAL_VALUE = THRONE_VALUE = 12
MOSAIC_BASE = 4                   # + 1 per palm square the tile covers

# ---------------------------------------------------------------------- the palace (rules §1.4, §1.5)

GARDEN_SIZE = 8
PALMS = (3, 4, 8, 15, 18, 21, 33, 38, 43, 44, 48, 55, 58, 61)
# in chain order: from the left door frame round the back to the right door frame
WALL_SLOTS = (
    (0, 8, 16), (24, 32), (40, 48, 56),
    (56, 57, 58), (59, 60), (61, 62, 63),
    (47, 55, 63), (31, 39), (7, 15, 23),
)
NUM_WALL_SLOTS = len(WALL_SLOTS)
GARDEN = {"size": GARDEN_SIZE, "palms": list(PALMS), "wall_slots": [list(slot) for slot in WALL_SLOTS]}
TILE_NAMES = ("F", "I", "L", "N", "P", "T", "U", "V", "W", "X", "Y", "Z")
NUM_TILES = len(TILE_NAMES)
TILE_INDEX = {name: t for t, name in enumerate(TILE_NAMES)}
# the 12 pentominoes in orientation 0, cells (x, y) with y toward the back
TILES = {
    "F": ((1, 0), (0, 1), (1, 1), (1, 2), (2, 2)),
    "I": ((0, 0), (0, 1), (0, 2), (0, 3), (0, 4)),
    "L": ((0, 0), (1, 0), (0, 1), (0, 2), (0, 3)),
    "N": ((0, 0), (0, 1), (1, 1), (1, 2), (1, 3)),
    "P": ((0, 0), (0, 1), (1, 1), (0, 2), (1, 2)),
    "T": ((1, 0), (1, 1), (0, 2), (1, 2), (2, 2)),
    "U": ((0, 0), (1, 0), (2, 0), (0, 1), (2, 1)),
    "V": ((0, 0), (1, 0), (2, 0), (0, 1), (0, 2)),
    "W": ((1, 0), (2, 0), (0, 1), (1, 1), (0, 2)),
    "X": ((1, 0), (0, 1), (1, 1), (2, 1), (1, 2)),
    "Y": ((1, 0), (0, 1), (1, 1), (1, 2), (1, 3)),
    "Z": ((1, 0), (2, 0), (1, 1), (0, 2), (1, 2)),
}
ORIENTATIONS = 8  # 0-3 rotations; 4-7 reflected rotations (only with mosaic_reflections)
SQUARES = 64      # square ids 8*y + x on a garden of at most 8 x 8

# ---------------------------------------------------------------------- rules options (rules §13)

MIN_PLAYERS, MAX_PLAYERS, DEFAULT_PLAYERS = 2, 5, 3
CROCODILE_MARGIN = 1              # rules §11.4 [decision]: 3 to 5 players
TWO_PLAYER_CROCODILE_MARGIN = 3   # rules §11.4 [decision]: the 2-player variant
OPTION_DEFAULTS: dict[str, Any] = {
    "card_counts": DEFAULT_CARD_COUNTS,
    "tainted_amulets": 1,                         # rules §1.1 [decision]
    "trompe_stands_for": list(MATERIALS),         # rules §1.1 [decision]
    "priest_faces": 1,                            # rules §1.2
    "hand_limit": 10,                             # rules §9
    "ceremony_table": [-3, 1, 2, 3, 4],           # rules §10: amulets by place
    "crocodile_margin": None,                     # None: 1, or 3 with 2 players
    "mosaic_reflections": False,                  # rules §1.5 [decision]
    "sanctuary_max_squares": 8,                   # rules §6.4 [decision]
    "max_turns": 400,                             # rules §11 [decision]
    "garden": GARDEN,                             # rules §1.4 [decision]
    "tiles": {name: [list(c) for c in cells] for name, cells in TILES.items()},  # rules §1.5 [decision]
}
RULES_OPTIONS = tuple(OPTION_DEFAULTS)
# ceilings that keep every number of a state, a document and an observation bounded
MAX_TAINTED_AMULETS = 20
MAX_HAND_LIMIT = 200
MAX_CEREMONY_AMULETS = 20
MAX_CROCODILE_MARGIN = 1000
MAX_TURNS_CEILING = 100_000


@dataclass(frozen=True)
class Rules:
    """The parameters of one game: player count and every rules option (rules §13), validated.

    Built once per parameter set by :func:`make_rules`; :attr:`geometry` holds the palace tables
    precomputed from the garden and the tiles (``palace.py``).
    """

    num_players: int
    card_counts: tuple[int, ...]       # per kind
    tainted_amulets: int
    trompe_stands_for: tuple[int, ...]  # resource indices a Trompe-l'oeil unit may replace
    priest_faces: int
    hand_limit: int
    ceremony_table: tuple[int, ...]    # amulets by place 1..5; negative: given back (never below 0)
    crocodile_margin: int
    mosaic_reflections: bool
    sanctuary_max_squares: int
    max_turns: int
    garden_size: int
    palms: tuple[int, ...]
    wall_slots: tuple[tuple[int, ...], ...]
    tiles: tuple[tuple[tuple[int, int], ...], ...]  # per tile (TILE_NAMES order), its cells
    geometry: Geometry = field(compare=False, repr=False)

    @property
    def total_cards(self) -> int:
        return sum(self.card_counts)

    def overrides(self) -> dict[str, Any]:
        """The options that differ from the defaults, in the form ``make_rules`` takes (the JSON ``rules``)."""
        out: dict[str, Any] = {}
        counts = {KINDS[k]: c for k, c in enumerate(self.card_counts) if c != DEFAULT_CARD_COUNTS[KINDS[k]]}
        if counts:
            out["card_counts"] = counts
        for name in ("tainted_amulets", "priest_faces", "hand_limit", "mosaic_reflections",
                     "sanctuary_max_squares", "max_turns"):
            if getattr(self, name) != OPTION_DEFAULTS[name]:
                out[name] = getattr(self, name)
        if self.trompe_stands_for != tuple(RESOURCES.index(m) for m in MATERIALS):
            out["trompe_stands_for"] = [RESOURCES[r] for r in self.trompe_stands_for]
        if list(self.ceremony_table) != OPTION_DEFAULTS["ceremony_table"]:
            out["ceremony_table"] = list(self.ceremony_table)
        if self.crocodile_margin != default_crocodile_margin(self.num_players):
            out["crocodile_margin"] = self.crocodile_margin
        garden: dict[str, Any] = {}
        if self.garden_size != GARDEN_SIZE:
            garden["size"] = self.garden_size
        if self.palms != PALMS:
            garden["palms"] = list(self.palms)
        if self.wall_slots != WALL_SLOTS:
            garden["wall_slots"] = [list(slot) for slot in self.wall_slots]
        if garden:
            out["garden"] = garden
        tiles = {name: [list(c) for c in cells] for name, cells in zip(TILE_NAMES, self.tiles)
                 if cells != TILES[name]}
        if tiles:
            out["tiles"] = tiles
        return out


def default_crocodile_margin(num_players: int) -> int:
    return TWO_PLAYER_CROCODILE_MARGIN if num_players == 2 else CROCODILE_MARGIN


def _fail(option: str, problem: str) -> ValueError:
    return ValueError(f"rules option '{option}': {problem}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _int_option(name: str, value: Any, low: int, high: int) -> int:
    if not _is_int(value) or not low <= value <= high:
        raise _fail(name, f"must be an integer from {low} to {high}, got {value!r}")
    return value


def _partial(name: str, value: Any, keys: tuple[str, ...]) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise _fail(name, f"must be a dict, got {type(value).__name__}")
    for key in value:
        if key not in keys:
            raise _fail(name, f"unknown key {key!r}; expected one of {', '.join(keys)}")
    return value


def _square_list(name: str, value: Any, size: int, limit: int) -> tuple[int, ...]:
    if not isinstance(value, (list, tuple)) or len(value) > limit:
        raise _fail(name, f"must be a list of at most {limit} square ids, got {value!r:.80}")
    out = []
    for v in value:
        if not _is_int(v) or not 0 <= v < SQUARES or v % 8 >= size or v // 8 >= size:
            raise _fail(name, f"{v!r} is not a square of a {size} x {size} garden (ids are 8*y + x)")
        if v in out:
            raise _fail(name, f"square {v} is listed twice")
        out.append(v)
    return tuple(out)


def _tile_cells(name: str, value: Any) -> tuple[tuple[int, int], ...]:
    where = f"tiles.{name}"
    if not isinstance(value, (list, tuple)) or not 1 <= len(value) <= SQUARES:
        raise _fail(where, f"must be a list of 1 to {SQUARES} [x, y] cells, got {value!r:.80}")
    cells: list[tuple[int, int]] = []
    for cell in value:
        if (not isinstance(cell, (list, tuple)) or len(cell) != 2 or not all(_is_int(v) for v in cell)
                or not all(0 <= v < GARDEN_SIZE for v in cell)):
            raise _fail(where, f"a cell must be [x, y] with x and y from 0 to {GARDEN_SIZE - 1}, got {cell!r:.40}")
        if tuple(cell) in cells:
            raise _fail(where, f"cell {list(cell)} is listed twice")
        cells.append((cell[0], cell[1]))
    reached, frontier = {cells[0]}, [cells[0]]
    while frontier:
        x, y = frontier.pop()
        for nxt in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if nxt in cells and nxt not in reached:
                reached.add(nxt)
                frontier.append(nxt)
    if len(reached) != len(cells):
        raise _fail(where, "the cells must form one edge-connected shape")
    return tuple(cells)


def make_rules(num_players: int = DEFAULT_PLAYERS, **options: Any) -> Rules:
    """Validate the player count and the rules options of rules §13 and build the :class:`Rules`.

    ``card_counts``, ``garden`` and ``tiles`` may give only the parts that change. Raises
    ValueError naming the bad option.
    """
    if not _is_int(num_players) or not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
        raise ValueError(f"num_players must be an integer from {MIN_PLAYERS} to {MAX_PLAYERS}, got {num_players!r}")
    unknown = [name for name in options if name not in OPTION_DEFAULTS]
    if unknown:
        raise ValueError(f"unknown rules option(s) {', '.join(sorted(map(str, unknown)))}; "
                         f"the options are {', '.join(RULES_OPTIONS)}")
    given = {name: value for name, value in options.items() if value is not None}

    counts = {**DEFAULT_CARD_COUNTS, **_partial("card_counts", given.get("card_counts", {}), KINDS)}
    card_counts = tuple(_int_option(f"card_counts.{kind}", counts[kind], 0, MAX_CARDS_OF_A_KIND) for kind in KINDS)
    if sum(card_counts) < START_HAND * num_players:
        raise _fail("card_counts", f"{sum(card_counts)} cards cannot deal {START_HAND} to each of "
                                   f"{num_players} players")

    trompe = given.get("trompe_stands_for", OPTION_DEFAULTS["trompe_stands_for"])
    if (not isinstance(trompe, (list, tuple)) or any(not isinstance(r, str) or r not in RESOURCES for r in trompe)
            or len(set(trompe)) != len(trompe)):
        raise _fail("trompe_stands_for", f"must list distinct resources among {', '.join(RESOURCES)}, "
                                         f"got {trompe!r:.80}")
    table = given.get("ceremony_table", OPTION_DEFAULTS["ceremony_table"])
    if (not isinstance(table, (list, tuple)) or len(table) != MAX_PLAYERS
            or not all(_is_int(v) and -MAX_CEREMONY_AMULETS <= v <= MAX_CEREMONY_AMULETS for v in table)):
        raise _fail("ceremony_table", f"must be {MAX_PLAYERS} integers from {-MAX_CEREMONY_AMULETS} to "
                                      f"{MAX_CEREMONY_AMULETS} (amulets by place), got {table!r:.80}")
    reflections = given.get("mosaic_reflections", False)
    if not isinstance(reflections, bool):
        raise _fail("mosaic_reflections", f"must be true or false, got {reflections!r}")

    garden = _partial("garden", given.get("garden", {}), ("size", "palms", "wall_slots"))
    size = _int_option("garden.size", garden.get("size", GARDEN_SIZE), 1, GARDEN_SIZE)
    palms = _square_list("garden.palms", garden.get("palms", PALMS), size, SQUARES)
    slots = garden.get("wall_slots", WALL_SLOTS)
    if not isinstance(slots, (list, tuple)) or len(slots) != NUM_WALL_SLOTS:
        raise _fail("garden.wall_slots", f"must be {NUM_WALL_SLOTS} lists of square ids, got {slots!r:.80}")
    wall_slots = tuple(_square_list(f"garden.wall_slots[{i}]", slot, size, SQUARES) for i, slot in enumerate(slots))
    tile_spec = {**TILES, **_partial("tiles", given.get("tiles", {}), TILE_NAMES)}
    tiles = tuple(_tile_cells(name, tile_spec[name]) for name in TILE_NAMES)

    margin = given.get("crocodile_margin", default_crocodile_margin(num_players))
    return _build_rules(
        num_players=num_players,
        card_counts=card_counts,
        tainted_amulets=_int_option("tainted_amulets", given.get("tainted_amulets", 1), 0, MAX_TAINTED_AMULETS),
        trompe_stands_for=tuple(sorted(RESOURCES.index(r) for r in trompe)),
        priest_faces=_int_option("priest_faces", given.get("priest_faces", 1), 0, DIE_FACES),
        hand_limit=_int_option("hand_limit", given.get("hand_limit", 10), 0, MAX_HAND_LIMIT),
        ceremony_table=tuple(table),
        crocodile_margin=_int_option("crocodile_margin", margin, 1, MAX_CROCODILE_MARGIN),
        mosaic_reflections=reflections,
        sanctuary_max_squares=_int_option("sanctuary_max_squares", given.get("sanctuary_max_squares", 8), 1, SQUARES),
        max_turns=_int_option("max_turns", given.get("max_turns", 400), 1, MAX_TURNS_CEILING),
        garden_size=size,
        palms=palms,
        wall_slots=wall_slots,
        tiles=tiles,
    )


@cache
def _build_rules(**values: Any) -> Rules:
    from .palace import geometry

    geo: Geometry = geometry(values["garden_size"], values["palms"], values["wall_slots"], values["tiles"],
                             values["mosaic_reflections"])
    for t, name in enumerate(TILE_NAMES):
        if not geo.placements_of_tile[t]:
            raise _fail("tiles", f"tile {name} has no placement on the empty {values['garden_size']} x "
                                 f"{values['garden_size']} garden")
    return Rules(**values, geometry=geo)

