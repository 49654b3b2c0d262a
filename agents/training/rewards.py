"""The rewards a learner trains on beside the environment's own (``win``, ``margin``, ``score``): its lead
over the best opponent, paid as it changes, optionally squashed at the end. Both trainers (stable-baselines3 in
:mod:`agents.training.sb3`, RLlib in :mod:`agents.training.rllib_env`) read them here; nothing heavy is
imported."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from sobek_env.env import REWARD_MODES

if TYPE_CHECKING:
    from sobek_env.game import Game, State

# the margin over the best opponent paid as it accrues (at each scoring), or one of the environment's rewards
ROUND_MARGIN = "round-margin"
# the same, but the game's final margin counts as MARGIN_CAP * tanh(margin / MARGIN_CAP): a loss by a little
# and a loss by a lot (an eaten Kleopatra player's) cost nearly alike, as they do in the standings
CAPPED_MARGIN = "capped-margin"
MARGIN_CAP = 0.1  # of the game's score scale: 10 talents in Kleopatra, 10 points in Sobek
# the margin were the game to end now (Game.outlook) paid as it changes: in Kleopatra a step that makes the
# learner the most corrupt costs it at once what the crocodile would take, instead of at the game's end. At the
# end the outlook is the margin, so a game's rewards sum to the final margin less the outlook at the learner's
# first decision (a constant of the deal: potential-based shaping, as below); in Sobek it is round-margin
OUTLOOK_MARGIN = "outlook-margin"
# the outlook squashed as the capped margin squashes the final margin, at every step: a step is paid by how much
# it moves the learner toward or away from winning were the game to end now, so that crossing from a narrow loss
# to a narrow win counts, and a loss by a little or by a lot (the crocodile's) nearly alike. A game's rewards sum
# to the capped final margin less the capped outlook at the learner's first decision
CAPPED_OUTLOOK = "capped-outlook"
OUTLOOK_REWARDS = (OUTLOOK_MARGIN, CAPPED_OUTLOOK)  # the lead rewards that count Game.outlook
SQUASHED_ALONG = (CAPPED_OUTLOOK,)  # the lead rewards whose lead paid_lead squashes before the end too
LEAD_REWARDS = (ROUND_MARGIN, CAPPED_MARGIN, *OUTLOOK_REWARDS)  # rewards paid as the learner's lead changes
REWARDS = (*LEAD_REWARDS, *REWARD_MODES)
# train.py (stable-baselines3) only: the capped margin less the advisor's on the same deal, from the learner's
# first departure from the advice (agents.training.sb3.TrainingEnv)
PAIRED_MARGIN = "paired-margin"


def lead_margins(reward: str, game: Game, state: State) -> list[float]:
    """Each seat's lead in ``state`` as the lead ``reward`` counts it, in points: ``Game.outlook`` for
    ``outlook-margin`` and ``capped-outlook``, else ``Game.margins``."""
    return game.outlook(state) if reward in OUTLOOK_REWARDS else game.margins(state)


def paid_lead(reward: str, lead: float, over: bool) -> float:
    """What a lead reward (:data:`LEAD_REWARDS`) has paid in all once the learner's margin / score scale is
    ``lead``: the lead itself, but at the end of the game a ``capped-margin`` squashes it, and a
    ``capped-outlook`` squashes it at every step. Paying the change of this at every step sums to the final
    value, and the lead before the end only shapes the reward (a potential, in the sense of Ng, Harada and
    Russell, 1999)."""
    if reward in SQUASHED_ALONG or (over and reward == CAPPED_MARGIN):
        return MARGIN_CAP * math.tanh(lead / MARGIN_CAP)
    return lead
