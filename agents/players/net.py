"""A policy-value network that plays alone (``net:PATH``): the observation in, one forward pass, an action out.

The network of expert iteration (:mod:`agents.training.exit`): an MLP over the raw observation (squashed by
``log(1 + x)``, as the PPO models read it), whose trunk feeds two heads: the policy's logits over the actions,
masked to the legal ones, and the value, ``tanh`` of one unit, on the search's reward scale (the seat's
squashed margin, in [-1, 1]). A network may add structured heads (:mod:`agents.players.heads`) to the policy:
scores of some actions computed alike from the observation's slices and the trunk. At play time nothing else is
read or called: no heuristic, no search.

Its file (``sobek-net/1``) is the project's weights-only container (:mod:`agents.players.modelfile`):
``sobek.json`` records the table (game, players, observation mode, rules), ``features: "raw"``, the
observation size, the action count, the hidden layer sizes, the structured ``heads`` if any and, under
``training``, the run's configuration;
``policy.pt`` holds the tensors, read with ``torch.load(weights_only=True)``; a training checkpoint adds
``optimizer.pt``. :func:`load_net` checks the record field by field, builds the network it describes and
loads only tensors into it, so loading a network runs no code from the file.
"""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.players import modelfile
from agents.players.base import PolicyAgent
from agents.players.heads import add_heads, build_heads, heads_parameters, heads_problem
from agents.players.modelfile import MAX_LAYERS, MAX_PARAMETERS, MAX_WIDTH, NET_FILE, NET_FORMAT, Fields
from sobek_env.game import Table

FEATURES = "raw"  # what the network reads: the observation, nothing derived from a baseline
META_FIELDS = ("format", "game", "num_players", "observation_mode", "features", "observation_size", "action_count",
               "hidden")
OPTIONAL_FIELDS = ("rules", "training", "heads")


class PolicyValueNet(nn.Module):
    """An MLP over ``log(1 + observation)``: a ReLU trunk of ``hidden`` layers, then a linear policy head
    (one logit per action), to which structured ``heads`` (if any) add, and a value head (``tanh`` of one unit)."""

    def __init__(self, observation_size: int, action_count: int, hidden: list[int],
                 heads: nn.ModuleDict | None = None) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        for a, b in pairwise([observation_size, *hidden]):
            layers += [nn.Linear(a, b), nn.ReLU()]
        self.trunk = nn.Sequential(*layers)
        self.policy = nn.Linear(hidden[-1], action_count)
        self.value = nn.Linear(hidden[-1], 1)
        self.heads = heads if heads is not None else nn.ModuleDict()

    def forward(self, observations: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(logits [n, actions], values [n]) of a batch of raw observations."""
        latent = self.trunk(torch.log1p(observations.clamp(min=0)))
        logits = add_heads(self.heads, observations, latent, self.policy(latent))
        return logits, torch.tanh(self.value(latent)).squeeze(1)


def masked_log_softmax(logits: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
    """Log-probabilities over the legal actions (``masks`` true); illegal ones get a large negative number,
    finite so that a target's zeros times them stay zero."""
    return torch.log_softmax(logits.masked_fill(~masks, -1e9), dim=1)


def masked_argmax(logits: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
    """Each row's most probable legal action (``masks`` true)."""
    return logits.masked_fill(~masks, -torch.inf).argmax(dim=1)


def parameter_count(observation_size: int, action_count: int, hidden: list[int]) -> int:
    """The parameters of the network these sizes build."""
    sizes = [observation_size, *hidden]
    return sum(a * b + b for a, b in pairwise(sizes)) + (hidden[-1] + 1) * (action_count + 1)


def net_problem(hidden: Any, observation_size: int, action_count: int, heads: int = 0) -> str | None:
    """What makes ``hidden`` layer sizes (with ``heads`` parameters of structured heads beside them) a network no
    model file may describe (None if nothing)."""
    if (not isinstance(hidden, list) or not 1 <= len(hidden) <= MAX_LAYERS
            or not all(isinstance(s, int) and not isinstance(s, bool) and 1 <= s <= MAX_WIDTH for s in hidden)):
        return f"must be 1 to {MAX_LAYERS} layers of 1 to {MAX_WIDTH:,} units each, got {hidden!r}"
    count = parameter_count(observation_size, action_count, hidden) + heads
    if count > MAX_PARAMETERS:
        return f"makes {count:,} parameters, more than the {MAX_PARAMETERS:,} a model file may hold"
    return None


def net_meta(table: Table, hidden: list[int], training: dict[str, Any] | None = None,
             heads: list[str] | None = None) -> dict[str, Any]:
    """The ``sobek.json`` record of a network of ``hidden`` layers (and structured ``heads``) for ``table``;
    ``training``: the run's configuration (any JSON object)."""
    meta = {"format": NET_FORMAT, "game": table.game.name, "num_players": table.num_players,
            "observation_mode": table.observation_mode, "features": FEATURES,
            "observation_size": table.game.observation_size(table.num_players),
            "action_count": table.game.num_actions, "hidden": list(hidden)}
    if table.rules:
        meta["rules"] = dict(table.rules)
    if heads:
        meta["heads"] = list(heads)
    if training is not None:
        meta["training"] = training
    return meta


def net_cpu_seconds(meta: dict) -> float:
    """The CPU seconds that made a network, its record's ``training.cpu_hours`` (0 if the record does not say): a
    run started from it (``--init net:PATH``) counts them, so that its CPU hours are its network's whole cost."""
    hours = meta.get("training", {}).get("cpu_hours", 0.0)
    return float(hours) * 3600 if isinstance(hours, (int, float)) and 0 <= hours < 1e8 else 0.0


def new_net(meta: dict[str, Any]) -> PolicyValueNet:
    """An untrained network as the (checked) record ``meta`` describes it."""
    heads = build_heads(meta["game"], meta.get("heads", []), meta["num_players"], meta["hidden"][-1])
    return PolicyValueNet(meta["observation_size"], meta["action_count"], meta["hidden"], heads)


def check_meta(meta: Any, path: str | Path) -> dict[str, Any]:
    """``meta`` if it is a complete, consistent ``sobek-net/1`` record; else ValueError naming the first bad field."""
    f = Fields(path, NET_FORMAT)
    f.keys(meta, "document", META_FIELDS, OPTIONAL_FIELDS)
    f.choice(meta, "format", (NET_FORMAT,))
    game = f.table(meta)
    f.choice(meta, "features", (FEATURES,))
    size = game.observation_size(meta["num_players"])
    f.integer(meta, "observation_size", size, size)
    f.integer(meta, "action_count", game.num_actions, game.num_actions)
    problem = heads_problem(meta.get("heads", []), meta["game"])
    if problem:
        raise f.fail("heads", problem)
    problem = net_problem(meta["hidden"], size, game.num_actions,
                          heads_parameters(meta["game"], meta.get("heads"), meta["num_players"], meta["hidden"]))
    if problem:
        raise f.fail("hidden", problem)
    if "training" in meta and not isinstance(meta["training"], dict):
        raise f.fail("training", f"must be an object, got {type(meta['training']).__name__}")
    return meta


def read_net(path: str | Path, with_optimizer: bool = False) -> tuple[dict[str, Any], dict[str, torch.Tensor],
                                                                      dict[str, Any] | None]:
    """The checked record, the tensors and (if asked and present) the optimizer's state of the network file at
    ``path``; FileNotFoundError, or ValueError saying what is wrong."""
    meta = check_meta(modelfile.read_meta_document(path, NET_FILE), path)
    tensors, optimizer = modelfile.read_tensors(path, with_optimizer, NET_FILE)
    return meta, tensors, optimizer


def load_weights(module: nn.Module, state: dict[str, Any], path: str | Path, what: str | None = None) -> None:
    """Load tensors into ``module``, refusing missing, extra or misshapen ones with a ValueError."""
    modelfile.load_state(module, state, path, NET_FILE, what)


def save_net(net: PolicyValueNet, path: str | Path, meta: dict[str, Any],
             optimizer: dict[str, Any] | None = None) -> None:
    """Write ``net`` with its record ``meta`` (from :func:`net_meta`) to ``path``; with ``optimizer`` (its
    state), a training checkpoint."""
    modelfile.write_model(path, check_meta(meta, path), net.state_dict(), optimizer)


class NetAgent(PolicyAgent):
    """Plays the most probable legal action of a :class:`PolicyValueNet` (or, ``deterministic=False``, one
    drawn from its masked distribution); :meth:`evaluate` also gives the value."""

    name = "net"

    def __init__(self, net: PolicyValueNet, meta: dict[str, Any], deterministic: bool = True,
                 seed: int | None = None) -> None:
        super().__init__(deterministic, seed, modelfile.record_table(meta))
        self.net = net.eval()
        self.meta = meta

    def evaluate(self, observation: dict) -> tuple[np.ndarray, float]:
        """The logits (-inf for the illegal actions) and the value of one observation dict."""
        mask = np.asarray(observation["action_mask"], dtype=bool)
        with torch.no_grad():
            logits, value = self.net(torch.as_tensor(observation["observation"], dtype=torch.float32).reshape(1, -1))
        return np.where(mask, logits[0].numpy().astype(np.float64), -np.inf), float(value[0])

    def logits(self, observation: dict) -> np.ndarray:
        return self.evaluate(observation)[0]


def load_net(path: str | Path, deterministic: bool = True, seed: int | None = None,
             table: Table | None = None) -> NetAgent:
    """The network at ``path`` as a :class:`NetAgent`, without running anything from the file. A network for
    another ``table`` than the one given is refused with a ValueError naming both. Torch is set to one thread:
    on one observation at a time, more threads only contend."""
    meta, net = modelfile.load_network(path, NET_FILE, check_meta, new_net, table)
    return NetAgent(net, meta, deterministic=deterministic, seed=seed)
