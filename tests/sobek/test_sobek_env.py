"""The PettingZoo environment and the single-agent wrapper: API conformance, rewards, errors."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

import sobek_env
from agents import RandomAgent
from sobek_env import IllegalActionError, SingleAgentEnv, observation_layout
from sobek_env.game import python_state
from sobek_env.sobek.observation import describe_layout, observation_size


@pytest.mark.parametrize("mode", ["original", "memory"])
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_pettingzoo_api(num_players: int, mode: str) -> None:
    api_test(sobek_env.env(num_players=num_players, observation_mode=mode), num_cycles=300)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_single_agent_env_passes_gymnasium_checker(num_players: int) -> None:
    check_env(SingleAgentEnv(RandomAgent(0), num_players=num_players), skip_render_check=True)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_layout_tiles_the_vector(num_players: int) -> None:
    layout = observation_layout(num_players)
    covered = sorted((s.start, s.stop) for s in layout.values())
    assert covered[0][0] == 0
    assert all(a[1] == b[0] for a, b in itertools.pairwise(covered))
    assert covered[-1][1] == observation_size(num_players)
    assert [name for name, _, _ in describe_layout(num_players)] == list(layout)


def play(env, seed: int, policy_seed: int = 0):
    """Play one game with random legal actions; yield after every step."""
    env.reset(seed=seed)
    rng = np.random.default_rng(policy_seed)
    for agent in env.agent_iter():
        obs, _reward, term, trunc, _info = env.last()
        if term or trunc:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        yield agent


def test_observation_is_from_the_observers_seat() -> None:
    env = sobek_env.env(num_players=3)
    env.reset(seed=5)
    game = env.unwrapped.game
    layout = observation_layout(3)
    for seat, agent in enumerate(env.possible_agents):
        obs = env.observe(agent)["observation"]
        assert obs[layout["hand"]].tolist() == python_state(game).hands[seat]
        assert obs[layout["scores"]].tolist() == [0.0, 0.0, 0.0]
        assert obs[layout["to_move"]].argmax() == (game.current_player - seat) % 3


def test_only_the_player_to_move_has_a_mask() -> None:
    env = sobek_env.env(num_players=4)
    env.reset(seed=1)
    for agent in env.possible_agents:
        mask = env.observe(agent)["action_mask"]
        assert mask.any() == (agent == env.agent_selection)


def test_original_mode_hides_opponents_piles_memory_mode_shows_them() -> None:
    views = {}
    for mode in ("original", "memory"):
        env = sobek_env.env(num_players=2, observation_mode=mode)
        env.reset(seed=11)
        mover = env.agent_selection
        env.step(sobek_env.action_id("take:3"))  # three cards into the mover's pile
        other = next(a for a in env.possible_agents if a != mover)
        views[mode] = env.observe(other)["observation"][observation_layout(2)["pile_backs"]].reshape(2, 3)
    assert views["original"][1].sum() == 0
    assert views["memory"][1].sum() == 3


@pytest.mark.parametrize("reward_mode", ["win", "margin", "score"])
def test_reward_sums_follow_the_mode(reward_mode: str) -> None:
    env = sobek_env.env(num_players=3, reward_mode=reward_mode)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for _ in play(env, seed=21):
        for a, r in env.rewards.items():
            totals[a] += r
    game = env.unwrapped.game
    scores, winners = game.scores, game.winners
    for seat, agent in enumerate(env.possible_agents):
        if reward_mode == "win":
            expected = 1.0 if seat in winners else -1.0
        elif reward_mode == "margin":
            expected = (scores[seat] - max(s for p, s in enumerate(scores) if p != seat)) / 100
        else:
            expected = scores[seat] / 100
        assert totals[agent] == pytest.approx(expected)


def test_illegal_action_raises_and_changes_nothing() -> None:
    env = sobek_env.env(num_players=2)
    env.reset(seed=3)
    before = env.unwrapped.game.to_json()
    illegal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError, match=sobek_env.ACTION_NAMES[illegal]):
        env.step(illegal)
    with pytest.raises(IllegalActionError, match="integer"):
        env.step(1.5)
    assert env.unwrapped.game.to_json() == before


def test_illegal_action_terminate_mode_penalises_the_offender() -> None:
    env = sobek_env.env(num_players=3, illegal_action="terminate")
    env.reset(seed=3)
    offender = env.agent_selection
    illegal = int(np.flatnonzero(env.observe(offender)["action_mask"] == 0)[0])
    env.step(illegal)
    assert all(env.terminations.values())
    assert env._cumulative_rewards[offender] == -1.0
    assert sum(env._cumulative_rewards.values()) == -1.0


@pytest.mark.parametrize("kwargs, message", [
    ({"num_players": 5}, "num_players"),
    ({"observation_mode": "full"}, "observation_mode"),
    ({"reward_mode": "points"}, "reward_mode"),
    ({"render_mode": "rgb"}, "render_mode"),
    ({"illegal_action": "ignore"}, "illegal_action"),
    ({"scarabs": {"gold": 3}}, "gold"),
])
def test_bad_environment_arguments_are_named(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        sobek_env.env(**kwargs)


def test_ansi_render_shows_the_table_as_the_player_to_move_sees_it() -> None:
    env = sobek_env.env(num_players=2, render_mode="ansi")
    env.reset(seed=4)
    text = env.render()
    game = env.unwrapped.game
    assert f"player_{game.current_player} to move" in text
    assert "Nile:" in text and "Legal: take:0" in text
    opponent = 1 - game.current_player
    assert f"player_{opponent}: hand 2 (2 green)" in text


def test_a_character_on_the_nile_is_drawn_face_down_whichever_it_is() -> None:
    """rules §5: the Queen (the first character kind) once showed by name on the Nile."""
    from sobek_env.sobek import GameState
    from sobek_env.sobek.catalogue import KIND_INDEX

    dealt = (GameState.new(3, seed=k, engine="python") for k in range(100))
    state = next(s for s in dealt if KIND_INDEX["queen"] in s.nile)
    text = sobek_env.load_game("sobek").render_text(state, 0)
    nile = next(line for line in text.splitlines() if line.startswith("Nile:"))
    assert "queen" not in nile and nile.count("(character)") == sum(k >= KIND_INDEX["queen"] for k in state.nile)


def test_state_is_the_full_information_vector() -> None:
    env = sobek_env.env(num_players=4)
    env.reset(seed=2)
    state = env.state()
    assert env.state_space.contains(state)
    env2 = sobek_env.env(num_players=4)
    env2.reset(seed=3)
    assert not np.array_equal(state, env2.state())


def test_single_agent_env_reward_is_the_learners_and_episode_replays() -> None:
    def run(seed: int):
        env = SingleAgentEnv(RandomAgent(0), num_players=3, reward_mode="score")
        env.reset(seed=seed)
        rng = np.random.default_rng(0)
        total, trace, done = 0.0, [], False
        while not done:
            action = int(rng.choice(np.flatnonzero(env.action_masks())))
            _obs, reward, done, _truncated, info = env.step(action)
            total += reward
            trace.append(action)
        return total, trace, info

    total, trace, info = run(8)
    assert total == pytest.approx(info["scores"][info["seat"]] / 100)
    assert run(8)[1] == trace


def test_single_agent_env_rejects_bad_actions_and_opponents() -> None:
    env = SingleAgentEnv(RandomAgent(0), num_players=2)
    env.reset(seed=0)
    with pytest.raises(IllegalActionError):
        env.step(None)
    with pytest.raises(IllegalActionError):
        env.step(74)  # back:orange is never legal at the start of a turn
    with pytest.raises(ValueError, match="list of 2 agents"):
        SingleAgentEnv([RandomAgent(0)], num_players=3)
    with pytest.raises(ValueError, match="seat"):
        SingleAgentEnv(RandomAgent(0), num_players=2, seat=2)
