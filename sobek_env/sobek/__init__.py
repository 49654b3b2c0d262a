"""Sobek, Bruno Cathala's card game of trading and corruption on the Nile (2 to 4 players).

The engine (:class:`GameState`, pure Python), its native twin (:data:`NativeState`, C++ in
``native/``, None where it was not built or ``SOBEK_PURE_PYTHON=1``), its observation encoder and
decoder, its text rendering and its game object :data:`GAME`, registered as ``"sobek"``.
The rules are ``SOBEK_RULES.md``; every [decision] value is in :mod:`.catalogue`.
"""

from ..compiled import extension
from ..errors import IllegalActionError, StateFormatError
from .actions import ACTION_NAMES, NUM_ACTIONS, action_id
from .game import GAME, SobekGame
from .observation import describe_layout, observation_layout, observation_shapes
from .state import GameState

NativeState = getattr(extension("._native", __name__), "NativeState", None)  # None: not built, or turned off

__all__ = [
    "ACTION_NAMES", "GAME", "GameState", "IllegalActionError", "NUM_ACTIONS", "NativeState", "SobekGame",
    "StateFormatError", "action_id", "describe_layout", "observation_layout", "observation_shapes",
]
