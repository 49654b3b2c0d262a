"""Kleopatra and the Society of Architects (Cathala & Maublanc, 2006) as a game engine.

The rules are ``KLEOPATRA_RULES.md`` (every [decision] of it is a value of ``catalogue.py`` or a rules
option); the public names are those of INTERFACE.md, "Kleopatra".

==================== ==========================================================================
Players              2 to 5 (default 3; 2 as the variant with crocodile margin 3)
Actions              144 ids, rules §14.1: ``ACTION_NAMES[i]``, ``action_id(name)``
Phases               rules §14.2: a type per phase (``phases.py``), ``state.phase``
Observation          ``Observer(n, mode).encode(state, seat)``: a float32 vector whose named slices are
                     ``observation_layout(n)`` / ``describe_layout(n)``; modes ``original`` and ``memory``
Document             ``state.to_json()`` / ``GameState.from_json(text)``: ``kleopatra-state/1``
Game object          ``GAME`` (``sobek_env.load_game("kleopatra")``)
==================== ==========================================================================

::

    from sobek_env import kleopatra as K
    s = K.GameState.new(num_players=3, seed=7)     # rules options as keyword arguments
    while not s.is_over:
        s.apply(s.legal_actions()[0])              # current_player acts, an opponent in sub-decisions
    s.scores, s.winners, s.eliminated

A turn is characters at will, one market or quarry visit, characters, ``end_turn`` and the hand limit.
Sub-decisions are single steps: a refill's stalls, payments and builds one at a time, a mosaic's tile,
orientation and square, a statue per new sanctuary, each opponent's answer to a Beggar or an Envoy, the
Vizier's keeps, and the offering ceremony's secret bids, one raise per step. Chance (shuffles, the deck's
orientation, the dice) comes from the state's own seeded generator; ``resample(seat, rng)`` re-draws what
a seat cannot know, for search agents.
"""

from ..errors import IllegalActionError, StateFormatError
from .actions import ACTION_NAMES, NUM_ACTIONS, action_id
from .game import GAME, KleopatraGame
from .observation import Observer, describe_layout, observation_bounds, observation_layout, observation_shapes
from .state import EVENTS, GameState
from .view import View

__all__ = [
    "ACTION_NAMES", "NUM_ACTIONS", "action_id", "GameState", "IllegalActionError", "StateFormatError",
    "GAME", "KleopatraGame", "EVENTS", "Observer", "View", "describe_layout", "observation_layout",
    "observation_shapes", "observation_bounds",
]
