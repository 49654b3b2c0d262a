"""A learned player: a MaskablePPO policy saved by ``train.py``, and what its model file records.

A model file (:mod:`agents.players.modelfile`) holds the policy's tensors and, in ``sobek.json``, the
table it was trained for (game, player count, observation mode; the observation size alone
cannot tell the two observation modes apart), how it was trained, and a description of its
network: a policy class among this module's own, layer sizes, an activation and a feature
extractor from fixed lists. :func:`load_ppo` checks that record field by field, rebuilds the
network from the description and loads only tensors into it, so loading a model runs no code
from the file; it refuses a model made for another table.
"""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor, MlpExtractor
from stable_baselines3.common.type_aliases import Schedule
from torch import nn

from agents.players import modelfile
from agents.players.base import PolicyAgent
from agents.players.features import Featurizer, feature_sets, feature_size
from agents.players.heads import add_heads, build_heads, heads_parameters, heads_problem
from agents.players.modelfile import (
    MAX_LAYERS,
    MAX_PARAMETERS,
    MAX_WIDTH,
    META_MEMBER,
    MODEL_FORMAT,
    PPO_FILE,
    Fields,
    ModelFile,
    read_meta_document,
    read_tensors,
    record_table,
    write_model,
)
from sobek_env.game import Table

if TYPE_CHECKING:
    from sb3_contrib import MaskablePPO


class Log1pFeatures(BaseFeaturesExtractor):
    """The observation vector squashed by ``log(1 + x)``: counts and raw points (deck size, set
    points up to ~80) stay on the scale of the one-hot entries, with no statistics to save.

    With ``squashed`` entries given, only those first ones are squashed; the rest (derived
    features, see :mod:`agents.players.features`, already scaled and possibly negative) pass as they are.
    With ``reads`` given, the network reads only the first ``reads`` entries of a row: what follows is for
    training alone (``train.py --imitation``: the teacher's choice, which the loss reads and the policy must not),
    and a row of those first entries alone plays as well.
    """

    def __init__(self, observation_space: spaces.Box, squashed: int | None = None, reads: int | None = None) -> None:
        size = int(np.prod(observation_space.shape))
        self.reads = size if reads is None else reads
        super().__init__(observation_space, features_dim=self.reads)
        self.squashed = self.reads if squashed is None else squashed

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        flat = observations.flatten(1)[:, :self.reads]
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
    """MaskablePPO's policy for features that carry an advised action (Sobek's ``advice``): the advice
    one-hot over the actions (features ``advice_start`` onwards) is added to the logits with a learnt
    weight that starts at ``prior``. The network learns where to depart from the advice instead of
    learning the game from nothing."""

    def __init__(self, *args, advice_start: int, prior: float = 3.0, **kwargs) -> None:
        self.advice_start = advice_start
        self.prior = prior
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        actions = int(self.action_space.n)
        self.mlp_extractor = AdvisedExtractor(self.features_dim, self.net_arch, self.activation_fn, self.device,
                                              (self.advice_start, self.advice_start + actions))

    def _build(self, lr_schedule: Schedule) -> None:
        super()._build(lr_schedule)
        self.action_net = AdvisedHead(self.mlp_extractor.hidden, int(self.action_space.n), self.prior)
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def _get_constructor_parameters(self) -> dict:
        return {**super()._get_constructor_parameters(), "advice_start": self.advice_start, "prior": self.prior}


def _mlp(sizes: list[int], activation_fn: type[nn.Module]) -> nn.Sequential:
    """Linear layers between ``sizes``, each followed by the activation."""
    layers: list[nn.Module] = []
    for a, b in pairwise(sizes):
        layers += [nn.Linear(a, b), activation_fn()]
    return nn.Sequential(*layers)


class SharedTrunk(nn.Module):
    """One MLP whose last layer feeds both heads: the policy and the value read the same latent, as in a
    ``net:`` model (:class:`agents.players.net.PolicyValueNet`)."""

    def __init__(self, feature_dim: int, hidden: list[int], activation_fn: type[nn.Module]) -> None:
        super().__init__()
        self.trunk = _mlp([feature_dim, *hidden], activation_fn)
        self.latent_dim_pi = self.latent_dim_vf = hidden[-1]

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        latent = self.trunk(features)
        return latent, latent

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return self.trunk(features)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.trunk(features)


class TrunkPolicy(MaskableActorCriticPolicy):
    """MaskablePPO's policy with one trunk for the policy and the value (``net_arch``'s ``pi`` and ``vf``, which
    must be equal): the layout of a ``net:`` model, so that PPO can start from a network of expert iteration
    and give one back (:func:`policy_from_net`, :func:`net_from_policy`)."""

    trunk_class: type[SharedTrunk] = SharedTrunk

    def _build_mlp_extractor(self) -> None:
        arch = self.net_arch
        if isinstance(arch, dict):
            if arch["pi"] != arch["vf"]:
                raise ValueError(f"a shared trunk has one set of layers, got pi={arch['pi']} and vf={arch['vf']}")
            arch = arch["pi"]
        self.mlp_extractor = self.trunk_class(self.features_dim, list(arch), self.activation_fn)


class HeadsTrunk(SharedTrunk):
    """A shared trunk whose policy latent carries the features after the trunk's output: a network's structured
    heads (:mod:`agents.players.heads`) read the observation beside the latent."""

    def __init__(self, feature_dim: int, hidden: list[int], activation_fn: type[nn.Module]) -> None:
        super().__init__(feature_dim, hidden, activation_fn)
        self.latent_dim_pi = hidden[-1] + feature_dim

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        latent = self.trunk(features)
        return torch.cat((latent, features), dim=1), latent

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return torch.cat((self.trunk(features), features), dim=1)


class HeadsActionNet(nn.Module):
    """The policy's logits of a network with structured heads: its linear head over the trunk's latent, then each
    head's scores, from the observation (the features' ``log(1 + x)`` undone) and the latent, as
    :class:`agents.players.net.PolicyValueNet` computes them."""

    def __init__(self, latent: int, actions: int, heads: nn.ModuleDict) -> None:
        super().__init__()
        self.latent = latent
        self.policy = nn.Linear(latent, actions)
        self.heads = heads

    def forward(self, latent_pi: torch.Tensor) -> torch.Tensor:
        latent, observations = latent_pi[:, :self.latent], torch.expm1(latent_pi[:, self.latent:])
        return add_heads(self.heads, observations, latent, self.policy(latent))


class HeadsPolicy(TrunkPolicy):
    """:class:`TrunkPolicy` with a network's structured ``heads`` (of ``game`` at ``num_players``), so that PPO
    can start from such a network and give one back. Its features must be the observation, all squashed."""

    trunk_class = HeadsTrunk

    def __init__(self, *args, game: str, num_players: int, heads: list[str], **kwargs) -> None:
        self.game, self.num_players, self.head_names = game, num_players, list(heads)
        super().__init__(*args, **kwargs)

    def _build(self, lr_schedule: Schedule) -> None:
        super()._build(lr_schedule)
        latent = self.mlp_extractor.latent_dim_vf
        heads = build_heads(self.game, self.head_names, self.num_players, latent)
        self.action_net = HeadsActionNet(latent, int(self.action_space.n), heads)
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def _get_constructor_parameters(self) -> dict:
        return {**super()._get_constructor_parameters(), "game": self.game, "num_players": self.num_players,
                "heads": self.head_names}


def critic_state_size(table: Table) -> int:
    """The entries a state critic reads after the features: ``env.state()`` (the full-information vector), then
    the learner's seat one-hot (the state is written from seat 0's side)."""
    return table.game.state_size(table.num_players) + table.num_players


def state_features(table: Table, state: Any, seat: int) -> np.ndarray:
    """What a state critic reads after the learner's features in ``state`` (:func:`critic_state_size` entries):
    ``env.state()`` and ``seat`` one-hot; zeros once the game is over (a finished game's value is never asked)."""
    n = table.num_players
    extra = np.zeros(critic_state_size(table), np.float32)
    if not state.is_over:
        extra[:-n] = table.game.state_vector(state)
        extra[len(extra) - n + seat] = 1.0
    return extra


class StateCritic(nn.Module):
    """A shared trunk's layout for the policy, over the first ``actor_size`` features (the observation), and a
    value network of its own over the whole row: the observation, then what :func:`critic_state_size` counts,
    which only training writes. The policy never reads the state: a row of the observation alone plays."""

    def __init__(self, feature_dim: int, actor_size: int, hidden: list[int], critic: list[int],
                 activation_fn: type[nn.Module]) -> None:
        super().__init__()
        self.actor_size = actor_size
        self.trunk = _mlp([actor_size, *hidden], activation_fn)
        self.critic = _mlp([feature_dim, *critic], activation_fn)
        self.latent_dim_pi, self.latent_dim_vf = hidden[-1], critic[-1]

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return self.trunk(features[:, :self.actor_size])

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.critic(features)


class StateCriticPolicy(MaskableActorCriticPolicy):
    """MaskablePPO's policy for ``train.py --critic state``: a ``net:`` model's trunk and policy head over the
    observation (the first ``actor_size`` entries of a row), and a critic of ``net_arch["vf"]`` layers over the
    observation and the full state (:class:`StateCritic`), as PerfectDou's and Suphx's critics see the hidden
    cards in training. The ``net:`` model's own value head (``public_value``: the observation's value, which a
    guided search reads) is kept as it was given, out of the optimizer."""

    def __init__(self, *args, actor_size: int, **kwargs) -> None:
        self.actor_size = actor_size
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        arch = self.net_arch
        if not isinstance(arch, dict) or not arch["pi"] or not arch["vf"]:
            raise ValueError(f"a state critic needs the policy's and the critic's layers, got {arch!r}")
        self.mlp_extractor = StateCritic(self.features_dim, self.actor_size, list(arch["pi"]), list(arch["vf"]),
                                         self.activation_fn)

    def _build(self, lr_schedule: Schedule) -> None:
        super()._build(lr_schedule)  # the optimizer is made here: the public value head, added after, stays out
        self.public_value = nn.Linear(self.mlp_extractor.latent_dim_pi, 1)
        self.public_value.requires_grad_(False)

    def _get_constructor_parameters(self) -> dict:
        return {**super()._get_constructor_parameters(), "actor_size": self.actor_size}


# a net: model's tensors and a TrunkPolicy's, layer by layer (the trunk's Linear layers are every other module);
# a StateCriticPolicy keeps the net's value head as public_value, its value_net being the state critic's
NET_TO_POLICY = (("trunk.", "mlp_extractor.trunk."), ("policy.", "action_net."), ("value.", "value_net."))
NET_TO_HEADS_POLICY = (("trunk.", "mlp_extractor.trunk."), ("policy.", "action_net.policy."),
                       ("heads.", "action_net.heads."), ("value.", "value_net."))  # a HeadsPolicy's
NET_TO_STATE_CRITIC = (("trunk.", "mlp_extractor.trunk."), ("policy.", "action_net."), ("value.", "public_value."))
STATE_CRITIC_ONLY = ("mlp_extractor.critic.", "value_net.")  # what a net: model does not hold


def _prefixes(state_critic: bool, heads: bool) -> tuple[tuple[str, str], ...]:
    return NET_TO_STATE_CRITIC if state_critic else NET_TO_HEADS_POLICY if heads else NET_TO_POLICY


def policy_from_net(net_state: dict[str, torch.Tensor], state_critic: bool = False,
                    heads: bool = False) -> dict[str, torch.Tensor]:
    """A :class:`TrunkPolicy`'s tensors from a ``net:`` model's: the trunk and both heads as they are (the
    value head's ``tanh`` is dropped: the critic reads the unit itself). With ``state_critic``, the tensors a
    :class:`StateCriticPolicy` takes from it: all but its state critic's; with ``heads``, a :class:`HeadsPolicy`'s,
    its structured heads included."""
    prefixes = _prefixes(state_critic, heads)
    return {_renamed(name, prefixes): tensor for name, tensor in net_state.items()}


def net_from_policy(policy_state: dict[str, torch.Tensor], state_critic: bool = False,
                    heads: bool = False) -> dict[str, torch.Tensor]:
    """A ``net:`` model's tensors from a :class:`TrunkPolicy`'s, or with ``state_critic`` a
    :class:`StateCriticPolicy`'s, whose state critic it leaves out, or with ``heads`` a :class:`HeadsPolicy`'s
    (the inverse of :func:`policy_from_net`)."""
    inverse = tuple((b, a) for a, b in _prefixes(state_critic, heads))
    return {_renamed(name, inverse): tensor for name, tensor in policy_state.items()
            if not (state_critic and name.startswith(STATE_CRITIC_ONLY))}


def _renamed(name: str, prefixes: tuple[tuple[str, str], ...]) -> str:
    for old, new in prefixes:
        if name.startswith(old):
            return new + name[len(old):]
    raise ValueError(f"tensor {name!r} belongs to neither network's layout")


class PPOAgent(PolicyAgent):
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
        super().__init__(deterministic, seed, record_table(meta))
        self.policy = policy
        self.meta = meta
        self.featurize = Featurizer(meta["features"], self.table)

    def logits(self, observation: dict) -> np.ndarray:
        """The policy's logit of each action, -inf for the illegal ones."""
        mask = np.asarray(observation["action_mask"], dtype=bool)
        obs = torch.as_tensor(self.featurize(observation)).reshape(1, -1)
        with torch.no_grad():
            features = self.policy.pi_features_extractor(obs)
            logits = self.policy.action_net(self.policy.mlp_extractor.forward_actor(features))[0].numpy()
        return np.where(mask, logits.astype(np.float64), -np.inf)


# ---------------------------------------------------------------- the network's description

POLICIES: dict[str, type[MaskableActorCriticPolicy]] = {
    "MaskableActorCriticPolicy": MaskableActorCriticPolicy, "AdvisedPolicy": AdvisedPolicy,
    "TrunkPolicy": TrunkPolicy, "StateCriticPolicy": StateCriticPolicy, "HeadsPolicy": HeadsPolicy}
ACTIVATIONS: dict[str, type[nn.Module]] = {"ReLU": nn.ReLU, "Tanh": nn.Tanh}
EXTRACTORS: dict[str, tuple[type[BaseFeaturesExtractor], tuple[str, ...]]] = {
    "Log1pFeatures": (Log1pFeatures, ("squashed", "reads"))}  # class, keyword arguments
ADAM_KWARGS = {"eps": 1e-5}  # what sb3's policies give Adam; a checkpoint's optimizer state assumes it


def describe_policy(policy: MaskableActorCriticPolicy) -> dict[str, Any]:
    """The ``policy`` entry of ``sobek.json``: what :func:`build_policy` needs to rebuild ``policy``'s network.
    ValueError if the network is not one this module can describe (and so rebuild)."""
    cls = type(policy).__name__
    activation = policy.activation_fn.__name__
    extractor = policy.features_extractor_class.__name__
    problems = []
    if POLICIES.get(cls) is not type(policy):
        problems.append(f"policy class {cls}")
    if ACTIVATIONS.get(activation) is not policy.activation_fn:
        problems.append(f"activation {activation}")
    if EXTRACTORS.get(extractor, (None,))[0] is not policy.features_extractor_class:
        problems.append(f"feature extractor {extractor}")
    if not policy.share_features_extractor:
        problems.append("separate feature extractors for the policy and the value")
    if policy.optimizer_class is not torch.optim.Adam or policy.optimizer_kwargs != ADAM_KWARGS:
        problems.append(f"optimizer {policy.optimizer_class.__name__}({policy.optimizer_kwargs})")
    if problems:
        raise ValueError(f"this network cannot be described in {META_MEMBER}: {'; '.join(problems)} "
                         f"(allowed: policies {', '.join(POLICIES)}, activations {', '.join(ACTIVATIONS)}, "
                         f"extractors {', '.join(EXTRACTORS)}, Adam)")
    net_arch = policy.net_arch
    if isinstance(net_arch, list):
        net_arch = {"pi": net_arch, "vf": net_arch}
    description = {"class": cls, "net_arch": {"pi": list(net_arch["pi"]), "vf": list(net_arch["vf"])},
                   "activation": activation, "features_extractor": extractor,
                   "features_extractor_kwargs": dict(policy.features_extractor_kwargs)}
    if isinstance(policy, AdvisedPolicy):
        description.update(advice_start=policy.advice_start, advice_prior=float(policy.prior))
    if isinstance(policy, StateCriticPolicy):
        description["actor_size"] = policy.actor_size
    if isinstance(policy, HeadsPolicy):
        description["heads"] = list(policy.head_names)
    return description


def policy_spec(description: dict[str, Any],
                table: Table | None = None) -> tuple[type[MaskableActorCriticPolicy], dict[str, Any]]:
    """The policy class and keyword arguments of a (checked) description, as MaskablePPO takes them; a
    ``HeadsPolicy``'s heads are built for ``table``."""
    kwargs: dict[str, Any] = {
        "net_arch": {"pi": list(description["net_arch"]["pi"]), "vf": list(description["net_arch"]["vf"])},
        "activation_fn": ACTIVATIONS[description["activation"]],
        "features_extractor_class": EXTRACTORS[description["features_extractor"]][0],
        "features_extractor_kwargs": dict(description["features_extractor_kwargs"]),
    }
    if description["class"] == "AdvisedPolicy":
        kwargs.update(advice_start=description["advice_start"], prior=description["advice_prior"])
    if description["class"] == "StateCriticPolicy":
        kwargs["actor_size"] = description["actor_size"]
    if description["class"] == "HeadsPolicy":
        if table is None:
            raise ValueError("a HeadsPolicy's heads are built for a table: give it")
        kwargs.update(game=table.game.name, num_players=table.num_players, heads=list(description["heads"]))
    return POLICIES[description["class"]], kwargs


def _no_learning(progress_remaining: float) -> float:
    return 0.0


def build_policy(meta: dict[str, Any]) -> MaskableActorCriticPolicy:
    """An untrained network as the (checked) metadata ``meta`` describes it, for its tensors to be loaded into."""
    heads = meta["policy"]["class"] == "HeadsPolicy"
    cls, kwargs = policy_spec(meta["policy"], record_table(meta) if heads else None)
    observations = spaces.Box(-np.inf, np.inf, (meta["observation_size"],), np.float32)
    return cls(observations, spaces.Discrete(meta["action_count"]), _no_learning, **kwargs)


def load_state(module: nn.Module, state: dict[str, Any], path: str | Path, what: str = "policy") -> None:
    """Load tensors into ``module``, refusing missing, extra or misshapen ones with a ValueError."""
    modelfile.load_state(module, state, path, PPO_FILE, what)


# ---------------------------------------------------------------- checking sobek.json


META_FIELDS = ("format", "game", "num_players", "observation_mode", "reward_mode", "features", "timesteps",
               "observation_size", "action_count", "policy")
OPTIONAL_FIELDS = ("training", "rules")
POLICY_FIELDS = ("class", "net_arch", "activation", "features_extractor", "features_extractor_kwargs")
ADVICE_FIELDS = ("advice_start", "advice_prior")
CRITIC_FIELDS = ("actor_size",)  # StateCriticPolicy's
HEADS_FIELDS = ("heads",)  # HeadsPolicy's
TRAINING_FIELDS = ("num_timesteps", "n_updates")


def check_meta(meta: Any, path: str | Path) -> dict[str, Any]:
    """``meta`` if it is a complete, consistent record of a model this module can rebuild;
    else ValueError naming the first bad field."""
    f = Fields(path)
    f.keys(meta, "document", META_FIELDS, OPTIONAL_FIELDS)
    game = f.table(meta)
    if not isinstance(meta["reward_mode"], str) or not 0 < len(meta["reward_mode"]) <= 64:
        raise f.fail("reward_mode", f"must be the name of a reward, got {meta['reward_mode']!r}")
    features = f.choice(meta, "features", feature_sets(game))
    f.integer(meta, "timesteps", 0, 2**62)
    size = f.integer(meta, "observation_size", 1, 2**20)
    table = record_table(meta)
    actor = feature_size(features, table)
    state_critic = isinstance(meta["policy"], dict) and meta["policy"].get("class") == "StateCriticPolicy"
    taught = taught_policy(meta["policy"])
    reads = actor + (critic_state_size(table) if state_critic else 0) + (game.num_actions if taught else 0)
    if size != reads:
        what = f"its features {features!r}" + (" and the state its critic reads" if state_critic else "") + \
            (" and the teacher's choice its training read" if taught else "")
        raise ValueError(f"model {str(path)!r} reads vectors of shape ({size},) but {what} now give ({reads},) for "
                         f"{table.num_players} players; retrain the model")
    actions = f.integer(meta, "action_count", game.num_actions, game.num_actions)
    _check_policy(f, meta["policy"], size, actions, actor, table)
    if meta["policy"]["class"] == "HeadsPolicy":
        problem = heads_problem(meta["policy"]["heads"], game.name)
        if problem:
            raise f.fail("policy.heads", problem)
        if features != "raw" or meta["policy"]["features_extractor_kwargs"].get("squashed", actor) != actor:
            raise f.fail("policy.class", "HeadsPolicy reads the observation alone, all of it squashed: features "
                                         f"'raw', got {features!r}")
    if "training" in meta:
        f.keys(meta["training"], "training", TRAINING_FIELDS)
        for key in TRAINING_FIELDS:
            f.integer(meta["training"], key, 0, 2**62, f"training.{key}")
    return meta


def _check_policy(f: Fields, policy: Any, size: int, actions: int, actor: int, table: Table) -> None:
    f.keys(policy, "policy", POLICY_FIELDS, (*ADVICE_FIELDS, *CRITIC_FIELDS, *HEADS_FIELDS))
    cls = f.choice(policy, "class", POLICIES, "policy.class")
    f.choice(policy, "activation", ACTIVATIONS, "policy.activation")
    extractor = f.choice(policy, "features_extractor", EXTRACTORS, "policy.features_extractor")
    kwargs = f.keys(policy["features_extractor_kwargs"], "policy.features_extractor_kwargs",
                    (), EXTRACTORS[extractor][1])
    if "reads" in kwargs:  # a run with --imitation: the row's last entries are the teacher's one-hot choice
        f.integer(kwargs, "reads", actor, actor, "policy.features_extractor_kwargs.reads")
        if cls in ("AdvisedPolicy", "StateCriticPolicy"):
            raise f.fail("policy.features_extractor_kwargs.reads", f"does not go with {cls}")
    if "squashed" in kwargs:
        f.integer(kwargs, "squashed", 0, kwargs.get("reads", size), "policy.features_extractor_kwargs.squashed")
    net_arch = f.keys(policy["net_arch"], "policy.net_arch", ("pi", "vf"))
    for key in ("pi", "vf"):
        layers = net_arch[key]
        if not isinstance(layers, list) or len(layers) > MAX_LAYERS:
            raise f.fail(f"policy.net_arch.{key}", f"must be a list of at most {MAX_LAYERS} layer sizes, "
                                                   f"got {layers!r}")
        for i in range(len(layers)):
            f.integer(layers, i, 1, MAX_WIDTH, f"policy.net_arch.{key}[{i}]")
    if cls in ("TrunkPolicy", "HeadsPolicy") and net_arch["pi"] != net_arch["vf"]:
        raise f.fail("policy.net_arch", f"must give {cls}'s one trunk as equal pi and vf, got {net_arch!r}")
    if cls in ("TrunkPolicy", "HeadsPolicy") and not net_arch["pi"]:
        raise f.fail("policy.net_arch.pi", f"must give {cls}'s trunk at least one layer")
    if cls == "HeadsPolicy":
        f.keys(policy, "policy", (*POLICY_FIELDS, *HEADS_FIELDS))
    elif "heads" in policy:
        raise f.fail("policy.heads", f"belongs to HeadsPolicy only, not {cls}")
    if cls == "AdvisedPolicy":
        f.keys(policy, "policy", (*POLICY_FIELDS, *ADVICE_FIELDS))
        f.integer(policy, "advice_start", 0, size - actions, "policy.advice_start")
        f.number(policy, "advice_prior", "policy.advice_prior")
    elif any(key in policy for key in ADVICE_FIELDS):
        raise f.fail("policy.advice_start", f"belongs to AdvisedPolicy only, not {cls}")
    if cls == "StateCriticPolicy":
        f.keys(policy, "policy", (*POLICY_FIELDS, *CRITIC_FIELDS))
        f.integer(policy, "actor_size", actor, actor, "policy.actor_size")
        if not net_arch["pi"] or not net_arch["vf"]:
            raise f.fail("policy.net_arch", f"must give StateCriticPolicy's trunk and critic a layer each, "
                                            f"got {net_arch!r}")
    elif "actor_size" in policy:
        raise f.fail("policy.actor_size", f"belongs to StateCriticPolicy only, not {cls}")
    count = parameter_count(policy, size, actions, table)
    if count > MAX_PARAMETERS:
        raise f.fail("policy.net_arch", f"describes {count:,} parameters, more than the {MAX_PARAMETERS:,} a model "
                                        "file may hold")


def taught_policy(policy: Any) -> bool:
    """Whether a policy's description (perhaps not checked yet) reads only the first entries of its rows, those
    after being a teacher's choice for training alone (``train.py --imitation``)."""
    kwargs = policy.get("features_extractor_kwargs") if isinstance(policy, dict) else None
    return isinstance(kwargs, dict) and "reads" in kwargs


def parameter_count(policy: dict[str, Any], size: int, actions: int, table: Table) -> int:
    """The parameters of the network a description builds for ``table`` (its linear layers, its action and value
    heads, and a HeadsPolicy's structured heads)."""
    def dense(sizes: list[int]) -> int:
        return sum(a * b + b for a, b in pairwise(sizes))

    size = policy["features_extractor_kwargs"].get("reads", size)  # the entries after are for training alone
    pi, vf = [size, *policy["net_arch"]["pi"]], [size, *policy["net_arch"]["vf"]]
    if policy["class"] == "StateCriticPolicy":  # the trunk reads the observation; the net's value head is kept
        pi[0] = policy["actor_size"]
        return dense(pi) + dense(vf) + dense([pi[-1], actions]) + dense([vf[-1], 1]) + dense([pi[-1], 1])
    trunks = dense(pi) if policy["class"] in ("TrunkPolicy", "HeadsPolicy") else dense(pi) + dense(vf)
    heads = heads_parameters(table.game.name, policy.get("heads"), table.num_players, policy["net_arch"]["pi"])
    return trunks + dense([pi[-1], actions]) + dense([vf[-1], 1]) + 1 + heads


# ---------------------------------------------------------------- reading and writing models


def read_meta(path: str | Path) -> dict[str, Any]:
    """The checked ``sobek.json`` record of a model file: FileNotFoundError, LegacyModelError for a model in
    the old format, or ValueError naming what is wrong."""
    return check_meta(read_meta_document(path), path)


def read_model(path: str | Path, with_optimizer: bool = False) -> ModelFile:
    """The checked metadata and the tensors of a model file (and the optimizer's state, if asked and present)."""
    meta = read_meta(path)
    policy, optimizer = read_tensors(path, with_optimizer)
    return ModelFile(meta, policy, optimizer)


def save_ppo(model: MaskablePPO, path: str | Path, meta: dict, with_optimizer: bool = True) -> None:
    """Save ``model`` to ``path`` (a .zip) with ``meta`` (num_players, observation_mode, ...) in ``sobek.json``.

    ``with_optimizer=True`` makes a training checkpoint: the optimizer's state and the trainer's
    counters too. Without them the file is a third of the size: enough to play and to fine-tune.
    """
    if with_optimizer:
        training = {"num_timesteps": int(model.num_timesteps), "n_updates": int(model._n_updates)}
        save_policy(model.policy, path, meta, training, model.policy.optimizer.state_dict())
    else:
        save_policy(model.policy, path, meta)


def save_policy(policy: MaskableActorCriticPolicy, path: str | Path, meta: dict, training: dict | None = None,
                optimizer: dict | None = None) -> None:
    """Save a policy network (trained by :func:`save_ppo`'s MaskablePPO or otherwise, as agents.training.imitation
    does) to ``path`` with ``meta`` in ``sobek.json``: a model ``ppo:`` plays and ``train.py --init`` starts
    from. ``training`` (counters) and ``optimizer`` (its state) make it a training checkpoint."""
    record = {"format": MODEL_FORMAT, **meta,
              "observation_size": int(policy.observation_space.shape[0]), "action_count": int(policy.action_space.n),
              "policy": describe_policy(policy)}
    if training is not None:
        record["training"] = training
    write_model(path, check_meta(record, path), policy.state_dict(), optimizer)


def load_ppo(
    path: str | Path,
    deterministic: bool = True,
    num_players: int | None = None,
    observation_mode: str | None = None,
    seed: int | None = None,
    table: Table | None = None,
) -> PPOAgent:
    """Load the model at ``path`` as a :class:`PPOAgent`, without running anything from the file.

    The ``table`` (or ``num_players`` and ``observation_mode``), when given, must be the one the model
    was trained for (game, players, mode, rules options): a model for another table is refused with a
    ValueError naming both values. A model in the old format is refused with a LegacyModelError naming
    the command that converts it. Torch is set to one thread: on one observation at a time, more
    threads only contend (10x slower).
    """
    meta, policy = modelfile.load_network(path, PPO_FILE, check_meta, build_policy, table, "policy",
                                          num_players=num_players, observation_mode=observation_mode)
    return PPOAgent(policy, meta, deterministic=deterministic, seed=seed)
