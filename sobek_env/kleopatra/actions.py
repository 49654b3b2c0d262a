"""The 144 action ids of rules §14.1 (a contract, INTERFACE.md), built from the catalogue's tables."""

from __future__ import annotations

from .catalogue import (
    BID_STEPS,
    CHARACTERS,
    GATE_SIDES,
    KINDS,
    NUM_KINDS,
    NUM_TILES,
    NUM_WALL_SLOTS,
    ORIENTATIONS,
    SQUARES,
    STALLS,
    TILE_NAMES,
)

MARKET = 0                          # market:<stall>
QUARRY = MARKET + STALLS
CHARACTER = QUARRY + 1              # character:<kind> for the six characters, catalogue order
END_TURN = CHARACTER + len(CHARACTERS)
STALL = END_TURN + 1                # stall:<s>: where the next refill card goes
MERCHANT = STALL + STALLS
WALL = MERCHANT + 1                 # wall:1 .. wall:9
GATE = WALL + NUM_WALL_SLOTS        # gate:left, gate:right
SPHINX = GATE + len(GATE_SIDES)
OBELISK = SPHINX + 1
PEDESTAL = OBELISK + 1
THRONE = PEDESTAL + 1
MOSAIC = THRONE + 1
TILE = MOSAIC + 1                   # tile:<name>
ORIENT = TILE + NUM_TILES           # orient:0 .. orient:7
SQUARE = ORIENT + ORIENTATIONS      # square:0 .. square:63
CARD = SQUARE + SQUARES             # card:<kind>
DONE = CARD + NUM_KINDS
YES = DONE + 1
NO = YES + 1
TALENTS = NO + 1
DIE_ADD = TALENTS + 1
DIE_REMOVE = DIE_ADD + 1
LIMIT_KEEP = DIE_REMOVE + 1
LIMIT_DISCARD = LIMIT_KEEP + 1
BID = LIMIT_DISCARD + 1             # bid:1, bid:2, bid:5, bid:10
NUM_ACTIONS = BID + len(BID_STEPS)
BUILDS = range(WALL, MOSAIC + 1)    # the 16 build actions of a quarry visit

ACTION_NAMES: tuple[str, ...] = (
    *(f"market:{s}" for s in range(STALLS)),
    "quarry",
    *(f"character:{KINDS[k]}" for k in CHARACTERS),
    "end_turn",
    *(f"stall:{s}" for s in range(STALLS)),
    "merchant",
    *(f"wall:{k + 1}" for k in range(NUM_WALL_SLOTS)),
    *(f"gate:{side}" for side in GATE_SIDES),
    "sphinx", "obelisk", "pedestal", "throne", "mosaic",
    *(f"tile:{name}" for name in TILE_NAMES),
    *(f"orient:{r}" for r in range(ORIENTATIONS)),
    *(f"square:{i}" for i in range(SQUARES)),
    *(f"card:{kind}" for kind in KINDS),
    "done", "yes", "no", "talents", "die:add", "die:remove", "limit:keep", "limit:discard",
    *(f"bid:{k}" for k in BID_STEPS),
)
assert len(ACTION_NAMES) == NUM_ACTIONS == 144

_IDS = {name: i for i, name in enumerate(ACTION_NAMES)}


def action_id(name: str) -> int:
    """The id of an action name such as ``"market:2"``, ``"wall:4"`` or ``"card:lapis2"``."""
    try:
        return _IDS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown Kleopatra action name {name!r}; names look like 'market:0', 'wall:3', "
                         f"'card:artisan', 'bid:5'") from None


def character_action(kind: int) -> int:
    """The ``character:`` id of a character kind."""
    return CHARACTER + kind - CHARACTERS[0]
