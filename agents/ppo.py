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
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor, MlpExtractor
from stable_baselines3.common.type_aliases import Schedule
from torch import nn

from sobek_env.actions import NUM_ACTIONS

from .base import SeededAgent
from .features import FEATURE_SETS, Featurizer, feature_size

MODEL_FORMAT = "sobek-ppo/1"
META_MEMBER = "sobek.json"


class Log1pFeatures(BaseFeaturesExtractor):
    """The observation vector squashed by ``log(1 + x)``: counts and raw points (deck size, set
    points up to ~80) stay on the scale of the one-hot entries, with no statistics to save.

    With ``squashed`` entries given, only those first ones are squashed; the rest (derived
    features, see :mod:`agents.features`, already scaled and possibly negative) pass as they are.
    """

    def __init__(self, observation_space: spaces.Box, squashed: int | None = None) -> None:
        size = int(np.prod(observation_space.shape))
        super().__init__(observation_space, features_dim=size)
        self.squashed = size if squashed is None else squashed

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        flat = observations.flatten(1)
        if self.squashed == flat.shape[1]:
            return torch.log1p(flat)
        return torch.cat((torch.log1p(flat[:, :self.squashed]), flat[:, self.squashed:]), dim=1)


class AdvisedExtractor(MlpExtractor):
    """sb3's policy and value networks, the policy's latent followed by the features' advice
    one-hot (``advice``: its slice of the features), which :class:`AdvisedHead` reads."""

    def __init__(self, feature_dim: int, net_arch: list[int] | dict[str, list[int]], activation_fn: type[nn.Module],
                 device: torch.device | str, advice: tuple[int, int]) -> None:
        super().__init__(feature_dim, net_arch=net_arch, activation_fn=activation_fn, device=device)
        self.hidden = self.latent_dim_pi
        self.advice = slice(*advice)
        self.latent_dim_pi = self.hidden + advice[1] - advice[0]

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return torch.cat((self.policy_net(features), features[:, self.advice]), dim=1)


class AdvisedHead(nn.Module):
    """Action logits: a linear layer of the policy's latent plus ``prior`` (learnt) times the advice
    one-hot, so that an untrained policy already leans to the heuristic's choice."""

    def __init__(self, hidden: int, actions: int, prior: float) -> None:
        super().__init__()
        self.hidden = hidden
        self.linear = nn.Linear(hidden, actions)
        nn.init.orthogonal_(self.linear.weight, gain=0.01)  # as sb3 starts its action layer
        nn.init.zeros_(self.linear.bias)
        self.prior = nn.Parameter(torch.tensor(float(prior)))

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        return self.linear(latent[:, :self.hidden]) + self.prior * latent[:, self.hidden:]


class AdvisedPolicy(MaskableActorCriticPolicy):
    """MaskablePPO's policy for the ``advice`` features: the heuristic's choice (features
    ``advice_start`` to ``advice_start + 75``) is added to the logits with a learnt weight that
    starts at ``prior``. The network learns where to depart from the heuristic instead of
    learning the game from nothing."""

    def __init__(self, *args, advice_start: int, prior: float = 3.0, **kwargs) -> None:
        self.advice_start = advice_start
        self.prior = prior
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = AdvisedExtractor(self.features_dim, self.net_arch, self.activation_fn, self.device,
                                              (self.advice_start, self.advice_start + NUM_ACTIONS))

    def _build(self, lr_schedule: Schedule) -> None:
        super()._build(lr_schedule)
        self.action_net = AdvisedHead(self.mlp_extractor.hidden, NUM_ACTIONS, self.prior)
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def _get_constructor_parameters(self) -> dict:
        return {**super()._get_constructor_parameters(), "advice_start": self.advice_start, "prior": self.prior}


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
        self.featurize = Featurizer(meta.get("features", "raw"), meta["num_players"])

    def act(self, observation: dict) -> int:
        mask = np.asarray(observation["action_mask"], dtype=bool)
        obs = torch.as_tensor(self.featurize(observation)).reshape(1, -1)
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
    features = meta.get("features", "raw")  # models before feature sets read the observation alone
    if features not in FEATURE_SETS or meta.get("num_players") not in (2, 3, 4):
        raise ValueError(f"model {str(path)!r} records num_players={meta.get('num_players')!r} and "
                         f"features={features!r} in {META_MEMBER}; expected 2 to 4 players and one of "
                         f"{', '.join(FEATURE_SETS)}")
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
    size = feature_size(features, meta["num_players"])
    if model.observation_space.shape != (size,):
        raise ValueError(f"model {str(path)!r} reads vectors of shape {model.observation_space.shape} but its "
                         f"features {features!r} now give ({size},) for {meta['num_players']} players; "
                         "retrain the model")
    model.policy.set_training_mode(False)
    return PPOAgent(model.policy, meta, deterministic=deterministic, seed=seed)
