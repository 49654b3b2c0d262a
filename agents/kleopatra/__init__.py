"""Kleopatra's baseline agents (``greedy``, ``heuristic``), reading only the observation through the game's
decoder, and the derived features its learned agents read, registered with :mod:`agents.games` together with
Kleopatra's search settings and training defaults.

``BASELINES`` is what ``agents.make`` builds: the compiled twins (:mod:`agents.kleopatra.native_agents`) where
they were built, the Python reference otherwise or with ``SOBEK_PURE_PYTHON=1``; ``PYTHON_BASELINES`` is always
the reference. ``playouts`` builds the whole playouts in compiled code the search rolls out with
(:mod:`agents.search.playouts`).
"""

from agents.games import GameAgents, register

from .features import DEFAULT_FEATURES, FEATURE_SETS
from .greedy import GreedyAgent
from .heuristic import BEST, HeuristicAgent
from .native_agents import NATIVE, NativeGreedyAgent, NativeHeuristicAgent, native_table, playouts

PYTHON_BASELINES = {"greedy": GreedyAgent, "heuristic": HeuristicAgent}
BASELINES = {"greedy": NativeGreedyAgent, "heuristic": NativeHeuristicAgent} if NATIVE else PYTHON_BASELINES

register(GameAgents(
    game="kleopatra",
    baselines=BASELINES,
    reference_baselines=PYTHON_BASELINES,
    playouts=playouts,
    native_table=native_table if NATIVE else None,
    # the heuristic's choice until Cleopatra's third step, then each action played out to the end by
    # heuristics on the same 96 determinizations, fewer when their rollouts pass 16,000 actions
    # (docs/results/search.md, "Kleopatra: searching the late game"; 96 is the budget ladder's 4x rung)
    search={"mode": "paired", "simulations": 96, "rollout": "heuristic", "depth": 0, "guide": "heuristic",
            "late": 0.6, "steps": 16000},
    # budgets set for runs of one to two hours on 2 cores with the advice features (docs/kleopatra_learning.md);
    # fewer steps with more players, whose opponents act between the learner's steps
    timesteps={3: 1_000_000, 4: 800_000, 5: 600_000},
    # where its learner trains better otherwise (docs/kleopatra_learning.md): what corruption buys depends on
    # how corrupt the others are, so the learner meets the heuristic alone, and starts closer to the
    # heuristic's play. Its reward stays the round margin: the capped margin, meant to stop paying any price to
    # avoid the crocodile, fell further below the heuristic in every run, where the round margin held level
    training={"pool": ["heuristic@1"], "self_play_weight": 0.0, "advice_prior": 5.0},
    feature_sets=FEATURE_SETS,
    default_features=DEFAULT_FEATURES,
    corruption_axes=("amulets", "eliminated_rate", "share of games fed to the crocodile"),
    penalty_rate=("eliminated_rate", "share of games fed to the crocodile"),
))

__all__ = ["BASELINES", "BEST", "NATIVE", "PYTHON_BASELINES", "GreedyAgent", "HeuristicAgent", "playouts"]
