"""A learned player: a MaskablePPO policy saved by ``train.py``.

The model file is sb3-contrib's zip with one extra member, ``sobek.json``,
recording the table it was trained for (player count, observation mode,
reward mode), since the observation size alone cannot tell the two
observation modes apart. :func:`load_ppo` refuses a model made for another
table. This module is the only one of ``agents`` that imports torch.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

import sobek_env

from .base import SeededAgent

MODEL_FORMAT = "sobek-ppo/1"
META_MEMBER = "sobek.json"


class Log1pFeatures(BaseFeaturesExtractor):
    """The observation vector squashed by ``log(1 + x)``: counts and raw points (deck size, set
    points up to ~80) stay on the scale of the one-hot entries, with no statistics to save."""

    def __init__(self, observation_space: spaces.Box) -> None:
        super().__init__(observation_space, features_dim=int(np.prod(observation_space.shape)))

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return torch.log1p(observations.flatten(1))


class PPOAgent(SeededAgent):
    """Plays the action of a MaskablePPO policy among the legal ones: the most probable
    (``deterministic=True``) or one drawn from the masked distribution with its own generator."""

    name = "ppo"

    def __init__(
        self,
        policy: MaskableActorCriticPolicy,
        meta: dict,
        deterministic: bool = True,
        seed: int | None = None,
    ) -> None:
        super().__init__(seed)
        self.policy = policy
        self.meta = meta
        self.deterministic = deterministic

    def act(self, observation: dict) -> int:
        mask = np.asarray(observation["action_mask"], dtype=bool)
        obs = torch.as_tensor(observation["observation"], dtype=torch.float32).reshape(1, -1)
        with torch.no_grad():
            features = self.policy.pi_features_extractor(obs)
            logits = self.policy.action_net(self.policy.mlp_extractor.forward_actor(features))[0].numpy()
        logits = np.where(mask, logits.astype(np.float64), -np.inf)
        if self.deterministic:
            return int(np.argmax(logits))
        weights = np.exp(logits - logits.max())
        cumulative = np.cumsum(weights)
        return int(np.searchsorted(cumulative, self.rng.random() * cumulative[-1], side="right"))


def save_ppo(model: MaskablePPO, path: str | Path, meta: dict, with_optimizer: bool = True) -> None:
    """Save ``model`` to ``path`` (a .zip) with ``meta`` (num_players, observation_mode, ...) as ``sobek.json``.

    ``with_optimizer=False`` writes Adam's moments as empty, which makes the file a third of the size:
    enough to play and to fine-tune, but a resumed run should start from a full checkpoint.
    """
    path = Path(path)
    optimizer = model.policy.optimizer
    if not with_optimizer:
        model.policy.optimizer = type(optimizer)(optimizer.param_groups[0]["params"], **optimizer.defaults)
    try:
        model.save(path)
    finally:
        model.policy.optimizer = optimizer
    record = {"format": MODEL_FORMAT, **meta, "observation_size": int(model.observation_space.shape[0])}
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr(META_MEMBER, json.dumps(record, indent=1))


def read_meta(path: str | Path) -> dict:
    """The ``sobek.json`` record of a model file; FileNotFoundError or ValueError if there is none."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"model file {str(path)!r} not found; give the model.zip that train.py saved")
    try:
        with zipfile.ZipFile(path) as archive:
            if META_MEMBER not in archive.namelist() or "data" not in archive.namelist():
                raise ValueError(f"{str(path)!r} is a zip but not a Sobek MaskablePPO model (no {META_MEMBER}); "
                                 "give a model.zip saved by train.py")
            meta = json.loads(archive.read(META_MEMBER))
    except (zipfile.BadZipFile, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{str(path)!r} is not a MaskablePPO model zip ({exc}); "
                         "give a model.zip saved by train.py") from None
    if not isinstance(meta, dict) or meta.get("format") != MODEL_FORMAT:
        raise ValueError(f"{str(path)!r} records an unknown model format in {META_MEMBER}; expected {MODEL_FORMAT!r}")
    return meta


def load_ppo(
    path: str | Path,
    deterministic: bool = True,
    num_players: int | None = None,
    observation_mode: str | None = None,
    seed: int | None = None,
) -> PPOAgent:
    """Load the model at ``path`` as a :class:`PPOAgent`.

    ``num_players`` and ``observation_mode``, when given, must be those the model was trained
    for: a model for another table is refused with a ValueError naming both values. Torch is
    set to one thread: on one observation at a time, more threads only contend (10x slower).
    """
    meta = read_meta(path)
    for key, wanted in (("num_players", num_players), ("observation_mode", observation_mode)):
        if wanted is not None and meta.get(key) != wanted:
            raise ValueError(f"model {str(path)!r} was trained for {key}={meta.get(key)!r} but this table has "
                             f"{key}={wanted!r}; train a model for {key}={wanted!r} or change the table")
    torch.set_num_threads(1)
    try:
        model = MaskablePPO.load(path, device="cpu")
    except Exception as exc:  # sb3 raises anything from KeyError to pickle errors on a foreign zip
        raise ValueError(f"{str(path)!r} could not be loaded as a MaskablePPO model ({type(exc).__name__}: {exc}); "
                         "give a model.zip saved by train.py") from None
    size = max(s.stop for s in sobek_env.observation_layout(meta["num_players"]).values())
    if model.observation_space.shape != (size,):
        raise ValueError(f"model {str(path)!r} reads observations of shape {model.observation_space.shape} but the "
                         f"environment now gives ({size},) for {meta['num_players']} players; retrain the model")
    model.policy.set_training_mode(False)
    return PPOAgent(model.policy, meta, deterministic=deterministic, seed=seed)
