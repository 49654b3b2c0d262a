"""What train.py's backends (stable-baselines3 in :mod:`agents.training`, RLlib in :mod:`agents.rllib_training`)
share: the parser whose errors are one line, argument types, the training rewards and the evaluations' baselines
and seeds. Nothing heavy is imported."""

from __future__ import annotations

import argparse
import math

from sobek_env.env import REWARD_MODES

# the margin over the best opponent paid as it accrues (at each scoring), or one of the environment's rewards
ROUND_MARGIN = "round-margin"
REWARDS = (ROUND_MARGIN, *REWARD_MODES)
EVAL_BASELINES = ("random", "heuristic")  # what a run's periodic evaluations play against
EVAL_SEED = 2**31  # evaluation game g is dealt with seed EVAL_SEED + g: the same deals at every evaluation


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
