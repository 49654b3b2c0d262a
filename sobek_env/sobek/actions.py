"""The 76 action ids (INTERFACE.md), built from the catalogue's tables."""

from __future__ import annotations

from .catalogue import AMULET_SET, BACKS, CHARACTERS, GOODS, KINDS, MAX_PLAYERS, TOKENS

TAKE = 0            # take:<position>, also the Merchant's pick
NILE_POSITIONS = 9
CHARACTER = TAKE + NILE_POSITIONS
SET = CHARACTER + len(CHARACTERS)
CARD = SET + len(GOODS)
DONE = CARD + len(KINDS)
TOKEN = DONE + 1
PLAYER = TOKEN + len(TOKENS)
GOODS_CHOICE = PLAYER + MAX_PLAYERS
BACK = GOODS_CHOICE + len(GOODS)
GOODS_AMULET = BACK + len(BACKS)  # appended by the rules revision so that ids 0-74 keep their meaning
NUM_ACTIONS = GOODS_AMULET + 1

ACTION_NAMES: tuple[str, ...] = (
    tuple(f"take:{i}" for i in range(NILE_POSITIONS))
    + tuple(f"character:{c}" for c in CHARACTERS)
    + tuple(f"set:{g}" for g in GOODS)
    + tuple(f"card:{k}" for k in KINDS)
    + ("done",)
    + tuple(f"token:{t}" for t in TOKENS)
    + tuple(f"player:{o}" for o in range(MAX_PLAYERS))
    + tuple(f"goods:{g}" for g in GOODS)
    + tuple(f"back:{b}" for b in BACKS)
    + ("goods:amulet",)
)
assert len(ACTION_NAMES) == NUM_ACTIONS == 76

# The goods:<...> id that names each set slot (the six goods, then the amulets-only set), and back.
SLOT_ACTIONS = (*range(GOODS_CHOICE, GOODS_CHOICE + len(GOODS)), GOODS_AMULET)
ACTION_SLOT = {a: slot for slot, a in enumerate(SLOT_ACTIONS)}
assert ACTION_SLOT[GOODS_AMULET] == AMULET_SET

_IDS = {name: i for i, name in enumerate(ACTION_NAMES)}


def action_id(name: str) -> int:
    """The id of an action name such as ``"take:2"`` or ``"card:fish-scarab"``."""
    try:
        return _IDS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown action name {name!r}; names look like 'take:0', 'set:fish', 'done'") from None
