"""An agent is made for one table and refuses any other's: the observation's and the mask's lengths are
checked before every decision, and a mismatch is one line naming both tables and the call that makes the
agent for the other (issue 34: a 2-player heuristic read a 4-player game's observations and crashed a
round later, deep inside its planner)."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
import torch

import agents
import sobek_env
from agents import BaseAgent, TableMismatchError
from agents.players.random_agent import RandomAgent
from agents.players.rllib_policy import MaskedNet, save_policy
from sobek_env.env import ask

ROOT = Path(__file__).resolve().parent.parent
MODELS = {"sobek": ROOT / "models" / "ppo-2p.zip", "kleopatra": ROOT / "models" / "kleopatra-ppo-3p.zip"}
SPECS = ["random", "greedy", "heuristic", "heuristic:tolerance=0.3", "ismcts:simulations=2", "human"]
OTHER = {"sobek": 4, "kleopatra": 4}  # a player count other than the game's default


def first_decision(agent: BaseAgent, game: str, num_players: int, seed: int = 3000) -> object:
    """Play a game of ``num_players`` with ``agent`` at seat 0 and random players elsewhere, as the issue's match
    harness did, up to ``agent``'s first decision: what it returns, or the error it raises."""
    env = sobek_env.env(game=game, num_players=num_players)
    env.reset(seed=seed)
    rng = random.Random(seed)
    for name in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        if name == "player_0":
            try:
                return ask(agent, observation, env.unwrapped.game)
            except TableMismatchError as exc:
                return exc
        env.step(rng.choice(np.flatnonzero(observation["action_mask"]).tolist()))
    raise AssertionError("the game ended before seat 0 decided")


def one_line(exc: Exception) -> str:
    message = str(exc)
    assert "\n" not in message and message, f"not one line: {message!r}"
    return message


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("game", ["sobek", "kleopatra"])
def test_an_agent_for_the_default_table_refuses_another_tables_game_at_its_first_decision(game: str, spec: str) -> None:
    agent = agents.make(spec, game=game, seed=1)
    default = sobek_env.load_game(game).default_players
    outcome = first_decision(agent, game, OTHER[game])
    assert isinstance(outcome, TableMismatchError) and isinstance(outcome, ValueError), outcome
    message = one_line(outcome)
    assert f"{agent.name} agent made for {game}, {default} players, original observations" in message
    assert f"an observation of {sobek_env.load_game(game).observation_size(OTHER[game])} entries" in message
    assert f"the layout of {game}, {OTHER[game]} players" in message
    remake = f"agents.make({spec!r}, game={game!r}, num_players={OTHER[game]})"
    assert message.endswith(remake)
    # the advice is right: the agent it names plays that table
    advised = eval(remake, {"agents": agents})  # the message's own call, as a user would paste it
    if spec != "human":
        action = first_decision(advised, game, OTHER[game])
        assert isinstance(action, int)


@pytest.mark.parametrize("game", ["sobek", "kleopatra"])
def test_the_agent_of_the_right_table_plays_where_the_other_is_refused(game: str) -> None:
    """The check refuses only mismatches: the same game at the agent's own table goes on."""
    for spec in SPECS[:-1]:
        agent = agents.make(spec, game=game, num_players=OTHER[game], seed=1)
        action = first_decision(agent, game, OTHER[game])
        assert isinstance(action, int), action


@pytest.mark.parametrize("game, other", [("sobek", "kleopatra"), ("kleopatra", "sobek")])
def test_another_games_observation_is_refused_naming_that_game(game: str, other: str) -> None:
    agent = agents.make("heuristic", game=game, num_players=3, observation_mode="memory")
    outcome = first_decision(agent, other, 3)
    message = one_line(outcome)
    assert f"heuristic agent made for {game}, 3 players, memory observations" in message
    assert f"the layout of {other}, 3 players" in message
    assert message.endswith(f"agents.make('heuristic', game={other!r}, num_players=3, observation_mode='memory')")


@pytest.mark.parametrize("game", ["sobek", "kleopatra"])
def test_a_learned_model_refuses_another_table_and_says_it_needs_another_model(game: str) -> None:
    agent = agents.make(f"ppo:{MODELS[game]}", game=game, num_players=2 if game == "sobek" else 3)
    outcome = first_decision(agent, game, OTHER[game])
    message = one_line(outcome)
    assert "ppo agent made for" in message and "a model plays only the table it was trained for" in message
    assert message.endswith(f"agents.make('ppo:PATH', game={game!r}, num_players={OTHER[game]})")


def test_an_rllib_policy_refuses_another_table(tmp_path: Path) -> None:
    game = sobek_env.load_game("kleopatra")
    meta = {"game": "kleopatra", "num_players": 2, "observation_mode": "original", "reward": "round-margin",
            "timesteps": 1, "observation_size": game.observation_size(2), "action_count": game.num_actions,
            "network": {"hidden": [8], "activation": "ReLU"},
            "training": {"algorithm": "PPO", "self_play": "shared", "iterations": 1, "ray": "2.60.0"}}
    torch.manual_seed(0)
    save_policy(tmp_path / "policy.zip", meta, MaskedNet(game.observation_size(2), game.num_actions, [8]).state_dict())
    agent = agents.make(f"rllib:{tmp_path / 'policy.zip'}", game="kleopatra", num_players=2)
    assert isinstance(first_decision(agent, "kleopatra", 2), int)
    message = one_line(first_decision(agent, "kleopatra", 5))
    assert "rllib agent made for kleopatra, 2 players" in message
    assert message.endswith("agents.make('rllib:PATH', game='kleopatra', num_players=5)")


@pytest.mark.parametrize("spec", ["greedy", "heuristic", "random", "human"])
def test_a_wrong_mask_or_no_observation_dict_is_refused_in_one_line(spec: str) -> None:
    agent = agents.make(spec, game="sobek", num_players=2)
    size = sobek_env.load_game("sobek").observation_size(2)
    short_mask = {"observation": np.zeros(size, np.float32), "action_mask": np.ones(75, np.int8)}
    with pytest.raises(TableMismatchError, match="with 75 actions, which is no table's layout"):
        agent.act(short_mask)
    for given, shown in [(np.zeros(size, np.float32), "ndarray array"), (None, "None"),
                         ({"observation": np.zeros(size)}, "dict {'observation'")]:
        with pytest.raises(TableMismatchError) as refused:
            agent.act(given)
        assert f"was given {shown}" in one_line(refused.value) and "not the environment's observation dict" in str(
            refused.value)


def test_a_search_checks_the_state_it_reads() -> None:
    game = sobek_env.load_game("sobek")
    agent = agents.make("ismcts:simulations=2", game="sobek", num_players=2)
    with pytest.raises(TableMismatchError, match=r"the state of a 3-player game; .*num_players=3\)$"):
        agent.act(None, state=game.new(3, seed=1))
    assert agent.act(None, state=game.new(2, seed=1)) in game.new(2, seed=1).legal_actions()
    with pytest.raises(ValueError, match="state=game_state"):  # without a state, it says what it needs
        agent.act(None)


def test_every_agent_the_registry_makes_is_checked_by_the_one_base() -> None:
    made = [agents.make(spec, game="kleopatra") for spec in SPECS]
    made.append(agents.make(f"ppo:{MODELS['kleopatra']}", game="kleopatra"))
    for agent in made:
        assert isinstance(agent, BaseAgent) and agent.table == sobek_env.load_game("kleopatra").table(3)
        assert type(agent).act.__wrapped__  # BaseAgent wrapped it with the check


def test_a_random_agent_made_without_a_table_plays_at_any() -> None:
    for game, players in [("sobek", 4), ("kleopatra", 5)]:
        assert isinstance(first_decision(RandomAgent(0), game, players), int)
