"""MaskablePPO trains on the batched environment through the sb3 adapter (agents.training.vecenv)."""

from __future__ import annotations

import numpy as np
import pytest
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
from stable_baselines3.common.vec_env import VecMonitor

import sobek_env
from agents.training.vecenv import SB3VectorEnv


@pytest.mark.parametrize("game", sobek_env.GAMES)
def test_maskable_ppo_learns_on_the_batched_environment(game: str) -> None:
    env = VecMonitor(SB3VectorEnv(sobek_env.vector_env(game=game, num_envs=4, seed=0)))
    assert is_masking_supported(env)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64, n_epochs=1, seed=0, verbose=0)
    model.learn(256)
    assert model.num_timesteps == 256
    obs = env.reset()
    masks = get_action_masks(env)
    assert masks.shape == (4, sobek_env.load_game(game).num_actions)
    actions, _ = model.predict(obs, action_masks=masks, deterministic=True)
    assert all(masks[i, a] for i, a in enumerate(actions))


def test_a_finished_game_hands_over_its_last_observation() -> None:
    env = SB3VectorEnv(sobek_env.vector_env(game="sobek", num_envs=2, seed=1))
    env.reset()
    rng = np.random.default_rng(0)
    for _ in range(2000):
        masks = get_action_masks(env)
        env.step_async(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        obs, rewards, dones, infos = env.step_wait()
        if dones.any():
            i = int(np.flatnonzero(dones)[0])
            assert infos[i]["terminal_observation"].shape == obs[i].shape
            assert rewards[i] in (1.0, -1.0) and "scores" in infos[i]
            return
    pytest.fail("no game ended")
