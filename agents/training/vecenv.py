"""stable-baselines3's ``VecEnv`` over :func:`sobek_env.vector_env`: many games stepped in one call, for
MaskablePPO (``action_masks`` through ``env_method``, as sb3-contrib asks for them).

sb3's convention for a finished episode is kept: its last observation is in the step's info under
``terminal_observation``, and the observation returned is the new game's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.vector import VectorEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices


class SharedGamesVecEnv(VecEnv):
    """An sb3 ``VecEnv`` whose games are stepped together and have no methods or attributes of their own: only
    their action masks (:meth:`action_masks`), which sb3-contrib asks for through ``env_method``. A method the
    games share goes to :meth:`shared_method`, an attribute to :meth:`shared_attribute`; ``what`` names the
    environment in the messages."""

    what = "the batched environment"

    def action_masks(self) -> np.ndarray:
        """Each game's legal actions, ``(num_envs, num_actions)`` bool."""
        raise NotImplementedError

    def shared_method(self, method_name: str, indices: VecEnvIndices, *args: Any, **kwargs: Any) -> list[Any]:
        """``env_method`` of a method the games share (none here)."""
        raise AttributeError(f"the games of {self.what} have no method {method_name!r} of their own")

    def shared_attribute(self, attr_name: str) -> Any:
        """The attribute ``attr_name`` every game shares."""
        return getattr(self, attr_name)

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None,
                   **method_kwargs: Any) -> list[Any]:
        if method_name == "action_masks" and not method_args and not method_kwargs:
            masks = self.action_masks()
            return [masks[i] for i in self._get_indices(indices)]
        return self.shared_method(method_name, indices, *method_args, **method_kwargs)

    def has_attr(self, attr_name: str) -> bool:
        return attr_name == "action_masks"

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        value = None if attr_name == "render_mode" else self.shared_attribute(attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        raise AttributeError(f"the games of {self.what} share their attributes; cannot set {attr_name!r}")

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]


class SB3VectorEnv(SharedGamesVecEnv):
    """``venv`` (a :func:`sobek_env.vector_env`) as an sb3 ``VecEnv``; ``seed(s)`` seeds the next reset."""

    def __init__(self, venv: VectorEnv) -> None:
        self.venv = venv
        super().__init__(venv.num_envs, venv.single_observation_space, venv.single_action_space)
        self._actions: np.ndarray | None = None
        self._next_seed: int | None = None

    def reset(self) -> np.ndarray:
        observations, _ = self.venv.reset(seed=self._next_seed)
        self._next_seed = None
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return observations

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict]]:
        observations, rewards, terminated, truncated, info = self.venv.step(self._actions)
        dones = terminated | truncated
        infos: list[dict] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(dones):
            infos[i] = {**info["final_info"][i], "terminal_observation": info["final_obs"][i],
                        "TimeLimit.truncated": bool(truncated[i] and not terminated[i])}
        return observations, rewards.astype(np.float32), dones, infos

    def action_masks(self) -> np.ndarray:
        return self.venv.action_masks()

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        self._next_seed = seed
        return [seed] * self.num_envs

    def close(self) -> None:
        self.venv.close()

    def shared_attribute(self, attr_name: str) -> Any:
        return getattr(self.venv, attr_name)
