"""A policy learned with RLlib (``train.py --backend rllib``), as a file that loads without Ray and runs no code.

RLlib's own checkpoints (``Algorithm.save``) are directories of pickles: the algorithm's state and
each module's class and constructor arguments are cloudpickled, so restoring one runs whatever code
it carries. The project never reads them. Its RLlib training writes a policy file of its own instead
(``sobek-rllib/1``), a zip of two members:

- ``sobek.json``: the table the policy plays (game, player count, observation mode, rules options),
  the observation and action sizes, how it was trained, and its network: hidden layer sizes and an
  activation from a fixed list (:class:`MaskedNet` is the only architecture);
- ``policy.pt``: the network's tensors, read with ``torch.load(weights_only=True)``.

:func:`load_rllib` reads it with the bounds of :mod:`agents.players.modelfile` (file size, members, each
member's size, the metadata's size and nesting), checks the record field by field, rebuilds the
network from the description and loads only tensors into it, exactly as for ``ppo:`` models. It
needs torch, not Ray: a learned RLlib policy plays in evaluate.py like any agent (``rllib:PATH``).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.players import modelfile
from agents.players.base import PolicyAgent
from agents.players.modelfile import MAX_LAYERS, MAX_PARAMETERS, MAX_WIDTH, RLLIB_FILE, RLLIB_FORMAT, Fields
from sobek_env.game import Table

ACTIVATIONS: dict[str, type[nn.Module]] = {"ReLU": nn.ReLU, "Tanh": nn.Tanh}
MASKED = torch.finfo(torch.float32).min  # the logit added to an illegal action (log 0, kept finite)

META_FIELDS = ("format", "game", "num_players", "observation_mode", "reward", "timesteps", "observation_size",
               "action_count", "network")
OPTIONAL_FIELDS = ("rules", "training")
NETWORK_FIELDS = ("hidden", "activation")
TRAINING_FIELDS = ("algorithm", "self_play", "iterations", "ray")
MAX_TEXT = 64


def _mlp(sizes: Sequence[int], activation: type[nn.Module], last_gain: float) -> nn.Sequential:
    """Linear layers of ``sizes`` with ``activation`` between them, started orthogonally (as PPO's networks
    usually are: hidden layers at gain sqrt 2, the output at ``last_gain``)."""
    layers: list[nn.Module] = []
    for i, (fan_in, fan_out) in enumerate(pairwise(sizes)):
        linear = nn.Linear(fan_in, fan_out)
        nn.init.orthogonal_(linear.weight, gain=last_gain if i == len(sizes) - 2 else np.sqrt(2))
        nn.init.zeros_(linear.bias)
        layers.append(linear)
        if i < len(sizes) - 2:
            layers.append(activation())
    return nn.Sequential(*layers)


class MaskedNet(nn.Module):
    """The policy and value networks of an RLlib-trained player: two MLPs over ``log(1 + observation)``
    (counts and raw points kept on the scale of the one-hot entries); the policy's logits get ``log(mask)``
    added, so an illegal action has probability 0 (its logit is kept finite, as RLlib's masking does)."""

    def __init__(self, observation_size: int, action_count: int, hidden: Sequence[int],
                 activation: str = "ReLU") -> None:
        super().__init__()
        act = ACTIVATIONS[activation]
        self.pi = _mlp([observation_size, *hidden, action_count], act, last_gain=0.01)
        self.vf = _mlp([observation_size, *hidden, 1], act, last_gain=1.0)

    def logits(self, observations: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """The masked action logits of a batch of observations."""
        legal = torch.clamp(torch.log(mask.to(torch.float32)), min=MASKED)
        return self.pi(torch.log1p(observations.to(torch.float32))) + legal

    def value(self, observations: torch.Tensor) -> torch.Tensor:
        """The value of each observation of a batch, shape (B,)."""
        return self.vf(torch.log1p(observations.to(torch.float32))).squeeze(-1)


def build_net(meta: dict[str, Any]) -> MaskedNet:
    """An untrained network as the (checked) record ``meta`` describes it."""
    network = meta["network"]
    return MaskedNet(meta["observation_size"], meta["action_count"], network["hidden"], network["activation"])


def parameter_count(observation_size: int, action_count: int, hidden: Sequence[int]) -> int:
    """The parameters of the network a description builds (both MLPs)."""
    def dense(sizes: list[int]) -> int:
        return sum(a * b + b for a, b in pairwise(sizes))

    return dense([observation_size, *hidden, action_count]) + dense([observation_size, *hidden, 1])


class RLlibAgent(PolicyAgent):
    """Plays the action of an RLlib-trained policy among the legal ones: the most probable
    (``deterministic=True``) or one drawn from the masked distribution with its own generator."""

    name = "rllib"

    def __init__(self, net: MaskedNet, meta: dict, deterministic: bool = True, seed: int | None = None) -> None:
        super().__init__(deterministic, seed, modelfile.record_table(meta))
        self.net = net
        self.meta = meta

    def logits(self, observation: dict) -> np.ndarray:
        """The policy's logit of each action, -inf for the illegal ones."""
        mask = np.asarray(observation["action_mask"], dtype=bool)
        obs = torch.as_tensor(np.asarray(observation["observation"], dtype=np.float32)).reshape(1, -1)
        with torch.no_grad():
            logits = self.net.logits(obs, torch.as_tensor(mask).reshape(1, -1))[0].numpy()
        return np.where(mask, logits.astype(np.float64), -np.inf)


# ---------------------------------------------------------------- the record


def check_meta(meta: Any, path: str | Path) -> dict[str, Any]:
    """``meta`` if it is a complete, consistent record of a policy this module can rebuild; else ValueError
    naming the first bad field."""
    f = Fields(path, RLLIB_FORMAT)
    f.keys(meta, "document", META_FIELDS, OPTIONAL_FIELDS)
    game = f.table(meta)
    players = meta["num_players"]
    _text(f, meta, "reward", "reward")
    f.integer(meta, "timesteps", 0, 2**62)
    size = f.integer(meta, "observation_size", 1, 2**20)
    if size != game.observation_size(players):
        raise ValueError(f"model {str(path)!r} reads vectors of shape ({size},) but {game.title} now gives "
                         f"({game.observation_size(players)},) for {players} players; retrain the policy")
    actions = f.integer(meta, "action_count", game.num_actions, game.num_actions)
    network = f.keys(meta["network"], "network", NETWORK_FIELDS)
    f.choice(network, "activation", ACTIVATIONS, "network.activation")
    hidden = network["hidden"]
    if not isinstance(hidden, list) or not 1 <= len(hidden) <= MAX_LAYERS:
        raise f.fail("network.hidden", f"must be a list of 1 to {MAX_LAYERS} layer sizes, got {hidden!r}")
    for i in range(len(hidden)):
        f.integer(hidden, i, 1, MAX_WIDTH, f"network.hidden[{i}]")
    if parameter_count(size, actions, hidden) > MAX_PARAMETERS:
        raise f.fail("network.hidden", f"describes {parameter_count(size, actions, hidden):,} parameters, more "
                                       f"than the {MAX_PARAMETERS:,} a policy file may hold")
    if "training" in meta:
        training = f.keys(meta["training"], "training", (), TRAINING_FIELDS)
        for key in ("algorithm", "self_play", "ray"):
            if key in training:
                _text(f, training, key, f"training.{key}")
        if "iterations" in training:
            f.integer(training, "iterations", 0, 2**62, "training.iterations")
    return meta


def _text(f: Fields, doc: dict, key: str, field: str) -> str:
    value = doc[key]
    if not isinstance(value, str) or not 0 < len(value) <= MAX_TEXT:
        raise f.fail(field, f"must be a name of 1 to {MAX_TEXT} characters, got {value!r}")
    return value


# ---------------------------------------------------------------- reading and writing


def read_meta(path: str | Path) -> dict[str, Any]:
    """The checked ``sobek.json`` record of a policy file: FileNotFoundError, or ValueError naming what is wrong
    (a model of another kind is named as such, with the spec that plays it)."""
    return check_meta(modelfile.read_meta_document(path, RLLIB_FILE), path)


def read_weights(path: str | Path) -> dict[str, torch.Tensor]:
    """The network's tensors in the policy file ``path`` (a dict of names to tensors)."""
    return modelfile.read_tensors(path, kind=RLLIB_FILE)[0]


def save_policy(path: str | Path, meta: dict[str, Any], weights: dict[str, torch.Tensor]) -> None:
    """Write a policy file (aside, then renamed over ``path``): ``meta`` is the record without its format,
    ``weights`` the tensors of the :class:`MaskedNet` it describes (refused with a ValueError if they do not fit)."""
    record = check_meta({"format": RLLIB_FORMAT, **meta}, path)
    modelfile.load_state(build_net(record), weights, path, RLLIB_FILE)
    modelfile.write_model(path, record, {name: tensor.detach().cpu().contiguous() for name, tensor in weights.items()})


def load_rllib(path: str | Path, deterministic: bool = True, seed: int | None = None,
               table: Table | None = None) -> RLlibAgent:
    """Load the policy file at ``path`` as an :class:`RLlibAgent`, without running anything from the file.

    The ``table``, when given, must be the one the policy was trained for (game, players, mode, rules
    options): a policy for another table is refused with a ValueError naming both values. Torch is set to
    one thread: on one observation at a time, more threads only contend.
    """
    meta, net = modelfile.load_network(path, RLLIB_FILE, check_meta, build_net, table)
    return RLlibAgent(net, meta, deterministic=deterministic, seed=seed)
