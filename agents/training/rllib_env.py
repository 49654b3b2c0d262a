"""RLlib on any registered game, with no glue to write: a multi-agent environment, a masked module and the
policy mappings of self-play.

- :class:`RLlibEnv` is RLlib's ``MultiAgentEnv`` over the AEC environment, turn by turn: each step's
  observation is that of the one agent to act, as ``{"observations": ..., "action_mask": ...}``, the
  keys RLlib's action-masking modules read (its example ``ActionMaskingTorchRLModule`` works on it
  too). An agent's reward is paid with its next observation (all of them at the game's end), so no
  reward is lost between two of its turns. Its action spaces sample legal actions only, which RLlib's
  environment pre-check relies on (it steps the environment with ``action_space.sample()``).
- :class:`MaskedRLModule` is a PPO module (policy and value) whose network is
  :class:`agents.players.rllib_policy.MaskedNet`, so that what it learns is saved as a policy file
  that plays without Ray (``rllib:PATH``).
- Self-play: ``shared`` maps every seat to one learning module, ``main``; ``league`` maps one seat
  of each game to ``main`` and the others to frozen snapshots of it (``snapshot_0`` ...), which the
  trainer refreshes from ``main`` on a schedule (:class:`LeagueMapping`).

Ray is imported here at once: this module is imported only to train with RLlib, and names the
install command when Ray is missing.
"""

from __future__ import annotations

import random
from collections import OrderedDict
from typing import Any

import numpy as np

from agents.players.rllib_policy import MaskedNet
from agents.tournaments.cluster import RAY_INSTALL
from agents.training.rewards import LEAD_REWARDS, REWARDS, ROUND_MARGIN, lead_margins, paid_lead
from sobek_env.env import raw_env

try:
    import gymnasium as gym
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
    from ray.rllib.core.rl_module.torch import TorchRLModule
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
except ModuleNotFoundError as exc:
    if not (exc.name or "").startswith("ray"):
        raise
    raise ModuleNotFoundError(f"training with RLlib needs Ray's RLlib, which is not installed; install the extra: "
                              f"{RAY_INSTALL}") from None

MAIN = "main"  # the learning module
SELF_PLAY = ("shared", "league")
ENV_OPTIONS = ("game", "num_players", "observation_mode", "reward", "rules")
OBSERVATIONS = "observations"  # the key RLlib's masking modules read the observation under
MASK = "action_mask"


class RLlibEnv(MultiAgentEnv):
    """A registered game as RLlib's ``MultiAgentEnv``, one agent acting at a time (see the module docstring).

    ``config`` (RLlib's ``env_config``) may set ``game`` (default sobek), ``num_players`` (default: the
    game's), ``observation_mode``, ``reward`` (``round-margin``, the default: the margin over the best
    opponent paid as it accrues, summing to the final margin / the game's score scale; ``capped-margin``,
    the same with the final margin squashed; ``outlook-margin``, the margin were the game to end now
    (``Game.outlook``) paid as it moves; or one of the environment's reward modes, ``win``, ``margin``,
    ``score``) and ``rules`` (a dict of rules options).
    """

    def __init__(self, config: dict | None = None) -> None:
        super().__init__()
        config = dict(config or {})
        unknown = sorted(set(config) - set(ENV_OPTIONS))
        if unknown:
            raise ValueError(f"unknown RLlibEnv option {unknown[0]!r}; the options are {', '.join(ENV_OPTIONS)}")
        reward = config.get("reward", ROUND_MARGIN)
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, got {reward!r}")
        self.reward = reward
        self.aec = raw_env(game=config.get("game", "sobek"), num_players=config.get("num_players"),
                           observation_mode=config.get("observation_mode", "original"),
                           reward_mode="margin" if reward in LEAD_REWARDS else reward, **config.get("rules", {}))
        self.table = self.aec.table
        self.possible_agents = list(self.aec.possible_agents)
        self.agents = []
        self.observation_spaces = {}
        for agent in self.possible_agents:
            space = self.aec.observation_space(agent)
            self.observation_spaces[agent] = gym.spaces.Dict({OBSERVATIONS: space["observation"], MASK: space[MASK]})
        self.action_spaces = {agent: self.aec.action_space(agent) for agent in self.possible_agents}
        self._owed: dict[str, float] = {}
        self._paid: list[float] = []

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        observation = self.aec.observe(agent)
        return {OBSERVATIONS: observation["observation"], MASK: observation[MASK]}

    def _leads(self) -> list[float]:
        game = self.table.game
        return [margin / game.score_scale for margin in lead_margins(self.reward, game, self.aec.game)]

    def _pay(self, agents: list[str]) -> dict[str, float]:
        """What each of ``agents`` is owed since it was last paid, now paid."""
        if self.reward in LEAD_REWARDS:
            over = self.aec.game.is_over
            leads = [paid_lead(self.reward, lead, over) for lead in self._leads()]
            paid = {}
            for agent in agents:
                seat = self.aec.agent_name_mapping[agent]
                paid[agent], self._paid[seat] = leads[seat] - self._paid[seat], leads[seat]
            return paid
        paid = {agent: self._owed[agent] for agent in agents}
        self._owed.update(dict.fromkeys(agents, 0.0))
        return paid

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        self.aec.reset(seed=seed)
        self.agents = list(self.possible_agents)
        self._owed = dict.fromkeys(self.agents, 0.0)
        self._paid = [paid_lead(self.reward, lead, False) for lead in self._leads()] \
            if self.reward in LEAD_REWARDS else []
        acting = self.aec.agent_selection
        return {acting: self._observe(acting)}, {acting: {}}

    def step(self, action_dict: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        acting = self.aec.agent_selection
        if acting not in action_dict:
            raise ValueError(f"{acting} is to act, but the actions are for {sorted(action_dict)}")
        self.aec.step(action_dict[acting])
        for agent, reward in self.aec.rewards.items():
            self._owed[agent] += reward
        if self.aec.game.is_over:
            everyone = list(self.possible_agents)
            observations = {agent: self._observe(agent) for agent in everyone}
            self.agents = []
            return (observations, self._pay(everyone), {**dict.fromkeys(everyone, True), "__all__": True},
                    {**dict.fromkeys(everyone, False), "__all__": False},
                    {agent: {"score": self.aec.infos[agent]["score"], "winner": self.aec.infos[agent]["winner"]}
                     for agent in everyone})
        acting = self.aec.agent_selection
        return ({acting: self._observe(acting)}, self._pay([acting]), {"__all__": False}, {"__all__": False},
                {acting: {}})


class MaskedRLModule(TorchRLModule, ValueFunctionAPI):
    """PPO's module over :class:`RLlibEnv`'s observations: :class:`~agents.players.rllib_policy.MaskedNet`'s masked
    logits and values. ``model_config``: ``hidden`` (layer sizes, default [256, 256]) and ``activation``
    (``ReLU`` or ``Tanh``)."""

    def setup(self) -> None:
        space = self.observation_space
        if not isinstance(space, gym.spaces.Dict) or set(space.spaces) != {OBSERVATIONS, MASK}:
            raise ValueError(f"MaskedRLModule reads Dict observations of {OBSERVATIONS!r} and {MASK!r} (RLlibEnv's), "
                             f"got {space}")
        config = self.model_config or {}
        self.net = MaskedNet(space[OBSERVATIONS].shape[0], int(self.action_space.n),
                             list(config.get("hidden", [256, 256])), config.get("activation", "ReLU"))

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        observations = batch[Columns.OBS]
        return {Columns.ACTION_DIST_INPUTS: self.net.logits(observations[OBSERVATIONS], observations[MASK])}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        return self.net.value(batch[Columns.OBS][OBSERVATIONS])


def shared_mapping(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    """Self-play with one shared policy: every seat plays :data:`MAIN`."""
    return MAIN


class LeagueMapping:
    """Self-play against a league of frozen snapshots: in each episode one seat, drawn at random, plays
    :data:`MAIN` and every other seat a snapshot drawn from ``snapshots`` (module ids); draws come from a
    generator seeded with ``seed``. The draw of an episode is kept while it runs (RLlib asks once per
    agent), for the latest ``remember`` episodes."""

    def __init__(self, num_players: int, snapshots: list[str], seed: int, remember: int = 4096) -> None:
        if not snapshots:
            raise ValueError("a league needs at least one snapshot module")
        self.num_players = num_players
        self.snapshots = list(snapshots)
        self.rng = random.Random(seed)
        self.remember = remember
        self._matches: OrderedDict[Any, list[str]] = OrderedDict()

    def match(self) -> list[str]:
        """A new episode's module per seat."""
        seats = [self.rng.choice(self.snapshots) for _ in range(self.num_players)]
        seats[self.rng.randrange(self.num_players)] = MAIN
        return seats

    def __call__(self, agent_id: str, episode: Any, **kwargs: Any) -> str:
        key = getattr(episode, "id_", episode)
        if key not in self._matches:
            self._matches[key] = self.match()
            while len(self._matches) > self.remember:
                self._matches.popitem(last=False)
        return self._matches[key][int(str(agent_id).rpartition("_")[2])]
