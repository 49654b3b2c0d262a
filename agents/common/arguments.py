"""What train.py's backends (stable-baselines3 in :mod:`agents.training.sb3`, RLlib in
:mod:`agents.training.rllib_train`)
share: the parser whose errors are one line, argument types and the ranges they accept, the evaluations' baselines
and seeds (the rewards are :mod:`agents.training.rewards`; the number types, :mod:`sobek_env.arguments`, are
imported from the library so that every command shares them). Nothing heavy is imported."""

from __future__ import annotations

import argparse
import contextlib
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from sobek_env.arguments import non_negative_float, non_negative_int, number, positive_float, positive_int

EVAL_BASELINES = ("random", "heuristic")  # what a run's periodic evaluations play against
EVAL_SEED = 2**31  # evaluation game g is dealt with seed EVAL_SEED + g: the same deals at every evaluation


class TrainingParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line: ``sobek-env train: error: ...`` and exit status 2."""

    def error(self, message: str) -> None:
        self.exit(2, f"{self.prog}: error: {message}\n")


@contextlib.contextmanager
def one_line_errors(parser: argparse.ArgumentParser, about: str = "") -> Iterator[None]:
    """An OSError or ValueError raised inside (a missing or damaged file, a bad spec) ends the command through
    ``parser.error``: one line, ``about`` before it (``argument tournament``), and exit status 2."""
    try:
        yield
    except (OSError, ValueError) as exc:
        parser.error(f"{about}: {exc}" if about else str(exc))


def add_json_option(parser: argparse.ArgumentParser, instead_of: str) -> None:
    """``--json``: the command prints one JSON object instead of ``instead_of`` (``the table``)."""
    parser.add_argument("--json", action="store_true", help=f"print one JSON object instead of {instead_of}")


@dataclass(frozen=True)
class Bounds:
    """The numbers an option accepts: integers (``kind`` int) or finite numbers (float) from ``low`` (or, with
    ``above``, above it) to ``high``. Called on an option's text it is an argparse type; :meth:`check` checks a
    value read back from a run's config.json. One table of them serves both."""

    kind: type
    low: int | float
    high: int | float
    above: bool = False

    def __str__(self) -> str:
        noun = "an integer" if self.kind is int else "a number"
        low, high = (f"{int(v):,}" if v == int(v) else f"{v:g}" for v in (self.low, self.high))
        return f"{noun} above {low} and at most {high}" if self.above else f"{noun} from {low} to {high}"

    def holds(self, value: int | float) -> bool:
        return (self.low < value if self.above else self.low <= value) and value <= self.high

    def check(self, value: Any) -> int | float:
        """``value`` (from JSON) if it is such a number; ValueError saying what it must be otherwise."""
        kinds = (int,) if self.kind is int else (int, float)
        if isinstance(value, bool) or not isinstance(value, kinds) or not math.isfinite(value) or not self.holds(value):
            raise ValueError(f"must be {self}, got {value!r}")
        return value

    def __call__(self, text: str) -> int | float:
        value = number(text, self.kind)
        if not self.holds(value):
            raise argparse.ArgumentTypeError(f"must be {self}, got {text}")
        return value


# the ranges of the options both backends share. Upper bounds are where a value stops making sense (or would
# exhaust the machine) rather than hard limits of the code: a run is refused at once instead of failing later
MAX_STEPS = 10**12  # learner steps: centuries at the measured thousands of steps a second
SEEDS = Bounds(int, 0, 2**32 - 1)  # numpy's legacy seeding (np.random.seed, which sb3 and RLlib call) takes 32 bits
STEPS = Bounds(int, 1, MAX_STEPS)
LEARNING_RATES = Bounds(float, 0, 1, above=True)  # Adam's step size: beyond 1 the weights can only diverge
DISCOUNTS = Bounds(float, 0, 1, above=True)  # above 1 the returns grow without bound and training ends in NaN
GAE_LAMBDAS = Bounds(float, 0, 1)
CLIP_RANGES = Bounds(float, 0, 1, above=True)  # the policy ratio is clipped to [1 - clip, 1 + clip]
ENTROPY_COEFFICIENTS = Bounds(float, 0, 1)  # the rewards are margins over the score scale: a bonus above 1 swamps them
EPOCHS = Bounds(int, 1, 1000)
MAX_ROLLOUT = 2**20  # steps in one rollout or batch: of observations ~1,000 numbers each, 4 GB
BATCHES = Bounds(int, 2, MAX_ROLLOUT)  # advantages are normalised over a minibatch: one step gives 0/0
EVAL_GAMES = Bounds(int, 1, 10**6)
MAX_WEIGHT = 10**6  # opponents' weights are relative: a million to one already leaves one out
WEIGHTS = Bounds(float, 0, MAX_WEIGHT)
ENVS = Bounds(int, 1, 256)  # environments (games) played at once
# the numbers the options (and config.json fields) of both PPO backends accept, by field
PPO_RANGES: dict[str, Bounds] = {
    "timesteps": STEPS, "seed": SEEDS, "envs": ENVS, "snapshot_every": STEPS, "eval_every": STEPS,
    "eval_games": EVAL_GAMES, "eval_seed": SEEDS, "lr": LEARNING_RATES, "batch_size": BATCHES, "epochs": EPOCHS,
    "gamma": DISCOUNTS, "gae_lambda": GAE_LAMBDAS, "clip": CLIP_RANGES, "ent_coef": ENTROPY_COEFFICIENTS,
}


def layer_sizes(text: str) -> list[int]:
    """argparse type: hidden layer sizes such as ``256,256``."""
    try:
        sizes = [int(part) for part in text.split(",")]
    except ValueError:
        sizes = []
    if not sizes or min(sizes) <= 0:
        raise argparse.ArgumentTypeError(f"must be comma-separated positive layer sizes, e.g. 256,256; got {text!r}")
    return sizes


__all__ = ["EVAL_BASELINES", "EVAL_SEED", "Bounds", "TrainingParser", "add_json_option", "layer_sizes",
           "non_negative_float", "non_negative_int", "one_line_errors", "positive_float", "positive_int"]
