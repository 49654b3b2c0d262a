"""A training run's evaluation games: the learner against a baseline in every other seat, on deals fixed by the
run's evaluation seed, wherever they are played (the trainer's process or its workers)."""

from __future__ import annotations

from collections.abc import Sequence

import sobek_env
from agents.players.base import Agent
from agents.players.registry import make
from agents.tournaments.tournament import agent_seed
from sobek_env.registry import load_game


def play_evaluation_games(learner: Agent, config: dict, opponent: str, games: Sequence[int],
                          seed_learner: bool = False) -> list[tuple[float, float]]:
    """Evaluation games number ``games`` of ``learner`` against ``opponent`` in every other seat, each game's
    (the learner's share of the win, its margin over the best opponent in points). Game g is dealt with
    the run's evaluation seed + g, the learner at seat g mod players, and the opponents are seeded for it
    as in tournaments: a game's result does not depend on which process plays it, or after which games.
    With ``seed_learner`` the learner (an agent with a ``seed`` method) is seeded for each game too, after
    the opponents, as one more of them; a trainer's learner plays deterministically and is not."""
    n = config["players"]
    table = load_game(config["game"]).table(n, config["mode"])
    opponents = [make(opponent, table=table) for _ in range(n - 1)]
    envs: dict[int, sobek_env.SingleAgentEnv] = {}
    results = []
    for game in games:
        seat, seed = game % n, config["eval_seed"] + game
        if seat not in envs:
            envs[seat] = sobek_env.SingleAgentEnv(opponents, num_players=n, seat=seat, game=table.game,
                                                  observation_mode=config["mode"])
        env = envs[seat]
        for i, agent in enumerate(opponents):
            if hasattr(agent, "seed"):
                agent.seed(agent_seed(seed, i))
        if seed_learner:
            learner.seed(agent_seed(seed, n - 1))
        observation, _ = env.reset(seed=seed)
        over = False
        while not over:
            action = learner.act({"observation": observation, "action_mask": env.action_masks()})
            observation, _, over, _, info = env.step(action)
        share = 1 / len(info["winners"]) if seat in info["winners"] else 0.0
        results.append((share, table.game.margins(env.game)[seat]))
    return results
