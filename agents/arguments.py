"""What train.py's backends (stable-baselines3 in :mod:`agents.training`, RLlib in :mod:`agents.rllib_training`)
share: the parser whose errors are one line, argument types, the training rewards and the evaluations' baselines
and seeds. Nothing heavy is imported."""

from __future__ import annotations

import argparse
import math

from sobek_env.env import REWARD_MODES

# the margin over the best opponent paid as it accrues (at each scoring), or one of the environment's rewards
ROUND_MARGIN = "round-margin"
# the same, but the game's final margin counts as MARGIN_CAP * tanh(margin / MARGIN_CAP): a loss by a little
# and a loss by a lot (an eaten Kleopatra player's) cost nearly alike, as they do in the standings
CAPPED_MARGIN = "capped-margin"
MARGIN_CAP = 0.1  # of the game's score scale: 10 talents in Kleopatra, 10 points in Sobek
LEAD_REWARDS = (ROUND_MARGIN, CAPPED_MARGIN)  # rewards paid as the learner's lead changes
REWARDS = (*LEAD_REWARDS, *REWARD_MODES)
# train.py (stable-baselines3) only: the capped margin less the advisor's on the same deal, from the learner's
# first departure from the advice (agents.training.TrainingEnv)
PAIRED_MARGIN = "paired-margin"
EVAL_BASELINES = ("random", "heuristic")  # what a run's periodic evaluations play against
EVAL_SEED = 2**31  # evaluation game g is dealt with seed EVAL_SEED + g: the same deals at every evaluation


def paid_lead(reward: str, lead: float, over: bool) -> float:
    """What a lead reward (:data:`LEAD_REWARDS`) has paid in all once the learner's margin / score scale is
    ``lead``: the lead itself, but at the end of the game a ``capped-margin`` squashes it. Paying the change
    of this at every step sums to the final value, and the lead before the end only shapes the reward
    (a potential, in the sense of Ng, Harada and Russell, 1999)."""
    if over and reward == CAPPED_MARGIN:
        return MARGIN_CAP * math.tanh(lead / MARGIN_CAP)
    return lead


class TrainingParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line: ``train.py: error: ...`` and exit status 2."""

    def error(self, message: str) -> None:
        self.exit(2, f"{self.prog}: error: {message}\n")


def positive_int(text: str) -> int:
    """argparse type: an integer above 0."""
    value = _number(text, int)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return value


def non_negative_int(text: str) -> int:
    """argparse type: an integer from 0."""
    value = _number(text, int)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {text}")
    return value


def positive_float(text: str) -> float:
    """argparse type: a finite number above 0."""
    value = _number(text, float)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return value


def non_negative_float(text: str) -> float:
    """argparse type: a finite number from 0."""
    value = _number(text, float)
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {text}")
    return value


def _number(text: str, kind: type) -> int | float:
    try:
        value = kind(text)
    except ValueError:
        noun = "an integer" if kind is int else "a number"
        raise argparse.ArgumentTypeError(f"must be {noun}, got {text!r}") from None
    if kind is float and not math.isfinite(value):  # an integer is always finite
        raise argparse.ArgumentTypeError(f"must be finite, got {text}")
    return value


def layer_sizes(text: str) -> list[int]:
    """argparse type: hidden layer sizes such as ``256,256``."""
    try:
        sizes = [int(part) for part in text.split(",")]
    except ValueError:
        sizes = []
    if not sizes or min(sizes) <= 0:
        raise argparse.ArgumentTypeError(f"must be comma-separated positive layer sizes, e.g. 256,256; got {text!r}")
    return sizes
