"""The recorded play of a shipped model or network: what its tests compare with the figures of when it was
measured."""

from __future__ import annotations

import hashlib

import sobek_env
from agents import make


def recorded_play(agent: object, game: str, num_players: int) -> tuple[int, str]:
    """(decisions, sha256 of the actions, 16 hex digits) of ``agent`` in 3 seeded games against heuristic
    players, its seat rotating: a change in the engine, the observation, the features or the heuristic moves
    them."""
    actions = []
    for seed in range(3):
        opponents = [make("heuristic", game=game, num_players=num_players) for _ in range(num_players - 1)]
        env = sobek_env.SingleAgentEnv(opponents, num_players=num_players, seat=seed % num_players, game=game)
        observation, _ = env.reset(seed=seed)
        over = False
        while not over:
            actions.append(agent.act({"observation": observation, "action_mask": env.action_masks()}))
            observation, _, over, _, _ = env.step(actions[-1])
    return len(actions), hashlib.sha256(",".join(map(str, actions)).encode()).hexdigest()[:16]
