"""Sobek's baseline agents (``greedy``, ``heuristic``) and the derived features its learned agents read,
registered with :mod:`agents.games` together with Sobek's search settings and training defaults.

``BASELINES`` is what ``agents.make`` builds: the compiled twins (:mod:`agents.sobek.native_agents`) where
they were built, the Python reference otherwise or with ``SOBEK_PURE_PYTHON=1``; ``PYTHON_BASELINES`` is
always the reference. ``playouts`` builds the whole playouts in compiled code the search rolls out with
(:mod:`agents.search.playouts`).
"""

from agents.games import GameAgents, register

from .features import DEFAULT_FEATURES, FEATURE_SETS
from .greedy import GreedyAgent
from .heuristic import HeuristicAgent
from .native_agents import NATIVE, NativeGreedyAgent, NativeHeuristicAgent, native_table, playouts

PYTHON_BASELINES = {"greedy": GreedyAgent, "heuristic": HeuristicAgent}
BASELINES = {"greedy": NativeGreedyAgent, "heuristic": NativeHeuristicAgent} if NATIVE else PYTHON_BASELINES

register(GameAgents(
    game="sobek",
    baselines=BASELINES,
    reference_baselines=PYTHON_BASELINES,
    playouts=playouts,
    native_table=native_table if NATIVE else None,
    # the heuristic's choice for the first 30% of the game, then the paired search, which beat the tree search
    # for less time a decision (docs/results/search.md, "Sobek: the paired search"); 64 determinizations, the
    # budget ladder's 4x rung, since the native playouts made them cheap ("The budget ladder")
    search={"mode": "paired", "simulations": 64, "rollout": "heuristic", "depth": 0, "guide": "heuristic",
            "late": 0.3, "steps": 16000},
    # budgets set for runs of about an hour on 2 cores with the advice features; fewer steps with more
    # players, whose opponents act between the learner's steps
    timesteps={2: 3_000_000, 3: 2_500_000, 4: 2_000_000},
    feature_sets=FEATURE_SETS,
    default_features=DEFAULT_FEATURES,
    corruption_axes=("corruption_per_round", "penalty_per_game", "points lost to the corruption penalty per game"),
    penalty_rate=("most_corrupt_rate", "share of rounds most corrupt (penalised)"),
))

__all__ = ["BASELINES", "PYTHON_BASELINES", "GreedyAgent", "HeuristicAgent", "playouts"]
