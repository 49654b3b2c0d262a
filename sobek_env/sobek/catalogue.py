"""The game's data tables: goods, card kinds, backs, tokens, the scoring track.

One place for each fact of rules §1 and §11. Everything else reads these tables;
a user who owns the physical game and disagrees with a [decision] changes it
here or passes a rules option to ``GameState.new``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from operator import itemgetter

GOODS = ("ivory", "ebony", "marble", "cattle", "fish", "wheat")

# rules §1.1: scarabs on a scarab card of each goods (ivory from the seeds, the rest [decision])
DEFAULT_SCARABS = {"ivory": 3, "ebony": 2, "marble": 2, "cattle": 1, "fish": 1, "wheat": 1}
PLAIN_CARDS = {"ivory": 3, "ebony": 3, "marble": 4, "cattle": 4, "fish": 5, "wheat": 5}
SCARAB_CARDS = {"ivory": 3, "ebony": 4, "marble": 3, "cattle": 5, "fish": 5, "wheat": 5}
# rules §1.1 [decision]: how many of each goods' plain cards have a green back
DEFAULT_GREEN_CARDS = {"ivory": 1, "ebony": 1, "marble": 1, "cattle": 2, "fish": 2, "wheat": 2}
AMULETS = 5
# rules §6: besides one set per goods, a player may have one set made only of amulets, which belongs
# to no goods until its first extension; it is the last of a player's set slots.
AMULET_SET = len(GOODS)
SET_SLOTS = (*GOODS, "amulet")  # a set's name in documents and actions (goods:amulet)

CHARACTERS = (
    "queen", "vizier", "merchant", "high-priest", "thief",
    "high-priestess", "scribe-fish", "scribe-wheat", "courtesan",
)
# rules §1.1 [decision]: the goods family each character belongs to
DEFAULT_FAMILIES = {
    "queen": "ivory", "vizier": "ebony", "merchant": "marble",
    "high-priest": "cattle", "thief": "cattle", "high-priestess": "fish",
    "scribe-fish": "fish", "scribe-wheat": "wheat", "courtesan": "wheat",
}

# The 28 card kinds in catalogue order (INTERFACE.md).
KINDS = (
    tuple(f"{g}-{t}" for g in GOODS for t in ("plain", "scarab"))
    + tuple(f"{g}-start" for g in GOODS)
    + ("amulet",)
    + CHARACTERS
)
NUM_KINDS = len(KINDS)
KIND_INDEX = {name: k for k, name in enumerate(KINDS)}
PLAIN = tuple(KIND_INDEX[f"{g}-plain"] for g in GOODS)
SCARAB = tuple(KIND_INDEX[f"{g}-scarab"] for g in GOODS)
START = tuple(KIND_INDEX[f"{g}-start"] for g in GOODS)
AMULET = KIND_INDEX["amulet"]
FIRST_CHARACTER = KIND_INDEX[CHARACTERS[0]]
CHARACTER_KINDS = tuple(range(FIRST_CHARACTER, NUM_KINDS))
QUEEN, VIZIER, MERCHANT, HIGH_PRIEST, THIEF, HIGH_PRIESTESS, SCRIBE_FISH, SCRIBE_WHEAT, COURTESAN = (
    CHARACTER_KINDS
)

BACKS = ("green", "beige", "orange")
GREEN, BEIGE, ORANGE = range(3)
KIND_BACK = tuple(
    GREEN if k in START else ORANGE if k >= FIRST_CHARACTER else BEIGE for k in range(NUM_KINDS)
)
# Cards on the Nile lie face up except characters (rules §5): what each kind shows there.
FACE_UP_ON_NILE = tuple(back != ORANGE for back in KIND_BACK)
FACE_DOWN_CHARACTER = FIRST_CHARACTER  # the Nile shows "a character" in place of its kind
NILE_FACE = tuple(k if FACE_UP_ON_NILE[k] else FACE_DOWN_CHARACTER for k in range(NUM_KINDS))
# The green kinds (the start cards) and the orange ones (the characters) each make one run of the
# catalogue order, so counting a hand per back takes three sums of slices (done at every observation).
_GREEN_KINDS = slice(START[0], START[-1] + 1)
_ORANGE_KINDS = slice(FIRST_CHARACTER, NUM_KINDS)


def backs_of(cards: list[int]) -> tuple[int, int, int]:
    """Cards per back colour (green, beige, orange) in counts per kind: public for a hand (rules §10)."""
    green, orange = sum(cards[_GREEN_KINDS]), sum(cards[_ORANGE_KINDS])
    return green, sum(cards) - green - orange, orange

# rules §1.2: the 12 event tokens
TOKENS = (
    "guild-ankh", "guild-eye", "guild-feather", "guild-lotus",
    "flood", "curse", "prosperity", "embalming", "deceit",
)
NUM_TOKEN_KINDS = len(TOKENS)
TOKEN_INDEX = {name: t for t, name in enumerate(TOKENS)}
TOKEN_COUNTS = (1, 1, 1, 1, 2, 2, 2, 1, 1)
GUILDS = (0, 1, 2, 3)  # token id == hieroglyph id for the four guilds
FLOOD, CURSE, PROSPERITY, EMBALMING, DECEIT = range(4, 9)
TOKENS_PER_ROUND = 5

# rules §1.3: the symbols of the scoring track
HIEROGLYPHS = ("ankh", "eye", "feather", "lotus")
NUMBER = len(HIEROGLYPHS)  # symbol id of the numbered spaces (multiples of 5)
SYMBOLS = (*HIEROGLYPHS, "number")
# [decision] hieroglyph order in the four blocks that repeat every 20 spaces
TRACK_BLOCKS = (
    (0, 1, 2, 3),  # ankh eye feather lotus
    (1, 3, 0, 2),  # eye lotus ankh feather
    (2, 0, 3, 1),  # feather ankh lotus eye
    (3, 2, 1, 0),  # lotus feather eye ankh
)

# Numbers of the rules, each named once.
START_HAND = 2              # rules §2.2
TWO_PLAYER_SET_ASIDE = 9    # rules §2.3
DELIVERY_SIZE = 9           # rules §5
TAKE_WINDOW = 4             # rules §3: positions 0-3 may be taken
QUEEN_DRAW = 3              # rules §4
SCRIBE_HAND_LIMIT = 6       # rules §4
COURTESAN_MAX_CARDS = 2     # rules §4
SET_MIN_CARDS = 3           # rules §6
PROSPERITY_SCARABS = 2      # rules §6, §7
PROSPERITY_GOODS = (3, 4, 5)  # cattle, fish, wheat (rules §7)
CURSE_WEIGHT = 2            # rules §8.2
POINTS_PER_LOT = 10         # rules §8.3
ROUNDS = 3                  # rules §9
EARLY_END_ROUND = 2         # rules §9
EARLY_END_SCORE = 100       # rules §9: more than this ends the game after round 2
MIN_PLAYERS, MAX_PLAYERS = 2, 4
TOTAL_CARDS = 63
SCORE_SCALE = 100.0         # observations and rewards give scores in hundreds of points


# The track repeats every 20 spaces: a numbered space, then a block of four hieroglyphs, four times.
TRACK_CYCLE = tuple(symbol for block in TRACK_BLOCKS for symbol in (NUMBER, *block))


def symbol_at(position: int) -> int:
    """The symbol id (index into SYMBOLS) of a space of the scoring track."""
    return TRACK_CYCLE[position % len(TRACK_CYCLE)]


def next_space(position: int, symbol: int) -> int:
    """The first space strictly after ``position`` that shows ``symbol``."""
    position += 1
    while symbol_at(position) != symbol:
        position += 1
    return position


def previous_space(position: int, symbol: int) -> int | None:
    """The last space strictly before ``position`` that shows ``symbol``, or None."""
    position -= 1
    while position >= 0:
        if symbol_at(position) == symbol:
            return position
        position -= 1
    return None


@dataclass(frozen=True)
class Rules:
    """The game's parameters: player count and the three rules options (rules §11).

    Built once per parameter set by :func:`make_rules`; holds the tables the
    engine reads on every step, derived from the options.
    """

    num_players: int
    scarabs: tuple[int, ...]        # per goods
    green_cards: tuple[int, ...]    # per goods
    families: tuple[int, ...]       # per character, goods index
    kind_goods: tuple[int, ...]     # per kind: goods it counts as, -1 for the amulet
    kind_scarabs: tuple[int, ...]   # per kind
    scarab_kinds: tuple[tuple[int, int], ...]  # (kind, scarabs) of the kinds that carry any: few of the 28
    members: tuple[tuple[int, ...], ...]  # per goods: kinds that count as it (no amulet)
    fits: tuple[tuple[int, ...], ...]     # per goods: members plus the amulet
    catalogue: tuple[int, ...]      # per kind: how many cards of it exist
    # per goods: picks the counts of ``fits`` from a hand in one C call (set legality is checked every turn)
    fit_counts: tuple[itemgetter, ...] = field(compare=False, repr=False)

    def overrides(self) -> dict[str, dict[str, str | int]]:
        """The options that differ from the defaults, as written in the state JSON."""
        out: dict[str, dict[str, str | int]] = {}
        for name, values, default, keys in (
            ("scarabs", self.scarabs, DEFAULT_SCARABS, GOODS),
            ("green_cards", self.green_cards, DEFAULT_GREEN_CARDS, GOODS),
        ):
            diff = {key: v for key, v in zip(keys, values) if v != default[key]}
            if diff:
                out[name] = diff
        fam = {c: GOODS[g] for c, g in zip(CHARACTERS, self.families) if GOODS[g] != DEFAULT_FAMILIES[c]}
        if fam:
            out["families"] = fam
        return out


def _check_option(name: str, given: object, keys: tuple[str, ...]) -> dict:
    if given is None:
        return {}
    if not isinstance(given, dict):
        raise ValueError(f"rules option '{name}' must be a dict, got {type(given).__name__}")
    for key in given:
        if key not in keys:
            raise ValueError(f"rules option '{name}': unknown key {key!r}; expected one of {', '.join(keys)}")
    return given


def make_rules(
    num_players: int,
    scarabs: dict[str, int] | None = None,
    green_cards: dict[str, int] | None = None,
    families: dict[str, str] | None = None,
) -> Rules:
    """Validate the player count and rules options and build the :class:`Rules`.

    Each option is a partial dict over the defaults of rules §1.1. Raises
    ValueError naming the bad option.
    """
    if isinstance(num_players, bool) or not isinstance(num_players, int):
        raise ValueError(f"num_players must be an int from {MIN_PLAYERS} to {MAX_PLAYERS}, got {num_players!r}")
    if not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
        raise ValueError(f"num_players must be from {MIN_PLAYERS} to {MAX_PLAYERS}, got {num_players}")
    sc = {**DEFAULT_SCARABS, **_check_option("scarabs", scarabs, GOODS)}
    gr = {**DEFAULT_GREEN_CARDS, **_check_option("green_cards", green_cards, GOODS)}
    fa = {**DEFAULT_FAMILIES, **_check_option("families", families, CHARACTERS)}
    for g in GOODS:
        v = sc[g]
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 9:
            raise ValueError(f"rules option 'scarabs': {g} must be an int from 0 to 9, got {v!r}")
        v = gr[g]
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= PLAIN_CARDS[g]:
            raise ValueError(f"rules option 'green_cards': {g} must be an int from 0 to {PLAIN_CARDS[g]}, got {v!r}")
    if sum(gr.values()) != sum(DEFAULT_GREEN_CARDS.values()):
        raise ValueError(f"rules option 'green_cards' must add up to 9 green cards, got {sum(gr.values())}")
    for c in CHARACTERS:
        if fa[c] not in GOODS:
            raise ValueError(f"rules option 'families': {c} must be one of {', '.join(GOODS)}, got {fa[c]!r}")
    return _build_rules(
        num_players,
        tuple(sc[g] for g in GOODS),
        tuple(gr[g] for g in GOODS),
        tuple(GOODS.index(fa[c]) for c in CHARACTERS),
    )


@cache
def _build_rules(
    num_players: int, scarabs: tuple[int, ...], green_cards: tuple[int, ...], families: tuple[int, ...]
) -> Rules:
    kind_goods = [-1] * NUM_KINDS
    kind_scarabs = [0] * NUM_KINDS
    catalogue = [0] * NUM_KINDS
    for g in range(len(GOODS)):
        name = GOODS[g]
        for k in (PLAIN[g], SCARAB[g], START[g]):
            kind_goods[k] = g
        kind_scarabs[SCARAB[g]] = scarabs[g]
        catalogue[PLAIN[g]] = PLAIN_CARDS[name] - green_cards[g]
        catalogue[SCARAB[g]] = SCARAB_CARDS[name]
        catalogue[START[g]] = green_cards[g]
    catalogue[AMULET] = AMULETS
    for c, g in zip(CHARACTER_KINDS, families):
        kind_goods[c] = g
        catalogue[c] = 1
    members = tuple(tuple(k for k in range(NUM_KINDS) if kind_goods[k] == g) for g in range(len(GOODS)))
    return Rules(
        num_players=num_players,
        scarabs=scarabs,
        green_cards=green_cards,
        families=families,
        kind_goods=tuple(kind_goods),
        kind_scarabs=tuple(kind_scarabs),
        scarab_kinds=tuple((k, v) for k, v in enumerate(kind_scarabs) if v),
        members=members,
        fits=tuple((*m, AMULET) for m in members),
        catalogue=tuple(catalogue),
        fit_counts=tuple(itemgetter(*m, AMULET) for m in members),
    )
