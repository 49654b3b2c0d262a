"""The game-agnostic layer over every registered game: the PettingZoo and Gymnasium contracts, masks,
seeding, pickling, and the conventions real clients rely on (INTERFACE.md, "Games")."""

from __future__ import annotations

import copy
import pickle
import random
import subprocess
import sys

import gymnasium
import numpy as np
import pytest
import torch
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test

import sobek_env
from agents import RandomAgent
from sobek_env import GAMES, IllegalActionError, SingleAgentEnv, load_game, registry
from sobek_env.errors import UnknownAgentError

TABLES = [(name, n) for name in GAMES for n in load_game(name).player_counts]


def _first_legal(observation: dict) -> int:
    return int(np.flatnonzero(observation["action_mask"])[0])


@pytest.mark.parametrize("mode", ["original", "memory"])
@pytest.mark.parametrize(("game", "num_players"), TABLES)
def test_pettingzoo_api(game: str, num_players: int, mode: str) -> None:
    api_test(sobek_env.env(game=game, num_players=num_players, observation_mode=mode), num_cycles=200)


@pytest.mark.parametrize(("game", "num_players"), TABLES)
def test_parallel_api(game: str, num_players: int) -> None:
    parallel_api_test(sobek_env.parallel_env(game=game, num_players=num_players), num_cycles=200)


@pytest.mark.parametrize("game", GAMES)
def test_parallel_masks_give_every_live_agent_an_action(game: str) -> None:
    """TorchRL and RLlib draw an action for every live agent from its own mask: a waiting agent's mask
    allows only WAIT (ignored by step), the acting agent's is its legal actions, and a game plays out so."""
    from sobek_env.parallel import WAIT

    env, rng = sobek_env.parallel_env(game=game, num_players=3 if game == "sobek" else 2), np.random.default_rng(0)
    observations, _ = env.reset(seed=5)
    waiting_steps = 0
    while env.agents:
        for agent in env.agents:
            mask = observations[agent]["action_mask"]
            if agent == env.acting:
                assert np.array_equal(np.flatnonzero(mask), sorted(env.game.legal_actions()))
            else:
                assert np.flatnonzero(mask).tolist() == [WAIT]
                waiting_steps += 1
        actions = {agent: int(rng.choice(np.flatnonzero(observations[agent]["action_mask"]))) for agent in env.agents}
        observations, *_ = env.step(actions)
    assert waiting_steps > 0 and env.game.is_over
    assert not any(observation["action_mask"].any() for observation in observations.values())


@pytest.mark.parametrize(("game", "num_players"), TABLES)
def test_single_agent_env_passes_gymnasium_checker(game: str, num_players: int) -> None:
    check_env(SingleAgentEnv(RandomAgent(0), game=game, num_players=num_players), skip_render_check=True)


@pytest.mark.parametrize("game", GAMES)
def test_versioned_modules_and_gymnasium_ids(game: str) -> None:
    info = load_game(game)
    assert info.version == registry.version(game)
    module = __import__(f"sobek_env.{game}_v{info.version}", fromlist=["env"])
    for made in (module.env().unwrapped, module.raw_env(), module.parallel_env()):
        assert made.metadata["name"] == f"{game}_v{info.version}" and made.metadata["render_fps"] > 0
        assert made.table.game is info
    env = gymnasium.make(f"sobek_env/{game.capitalize()}-v{info.version}", opponents=["random"] * (
        info.default_players - 1))
    observation, _ = env.reset(seed=3)
    assert observation.shape == (info.observation_size(info.default_players),)


@pytest.mark.parametrize("game", GAMES)
def test_masks_equal_the_legal_actions_and_sampling_is_legal(game: str) -> None:
    env = sobek_env.env(game=game)
    env.reset(seed=5)
    state = env.unwrapped.game
    for steps, agent in enumerate(env.agent_iter()):
        observation, _, done, truncated, _ = env.last()
        if done or truncated:
            env.step(None)
            continue
        assert np.flatnonzero(observation["action_mask"]).tolist() == state.legal_actions()
        for other in env.possible_agents:
            if other != agent:
                assert not env.observe(other)["action_mask"].any()
        action = env.action_space(agent).sample()  # the space samples legal actions only
        assert action in state.legal_actions()
        env.step(action)
        if steps > 400:
            break


def _trajectory(env, seed: int, steps: int = 10_000) -> list:
    env.reset(seed=seed)
    out = []
    for _, agent in zip(range(steps), env.agent_iter()):
        observation, reward, done, truncated, _ = env.last()
        action = None if done or truncated else _first_legal(observation)
        out.append((agent, action, reward, observation["observation"].sum()))
        env.step(action)
    return out


@pytest.mark.parametrize("game", GAMES)
def test_the_same_seed_gives_the_same_game(game: str) -> None:
    assert _trajectory(sobek_env.env(game=game), 11, 300) == _trajectory(sobek_env.env(game=game), 11, 300)
    assert _trajectory(sobek_env.env(game=game), 11, 300) != _trajectory(sobek_env.env(game=game), 12, 300)


def _continue_aec(env, steps: int) -> list:
    out = []
    for _, agent in zip(range(steps), env.agent_iter()):
        observation, reward, done, truncated, info = env.last()
        action = None if done or truncated else _first_legal(observation)
        out.append((agent, action, reward, observation["observation"].tobytes(), tuple(sorted(info))))
        env.step(action)
    return out


@pytest.mark.parametrize("game", GAMES)
def test_one_game_through_every_interface_pickles_and_copies_mid_game(game: str) -> None:
    """AEC, parallel, SingleAgentEnv and the Gymnasium id: pickled and deep-copied mid-game, each copy
    continues exactly as the original (the compiled encoder included)."""
    aec = sobek_env.env(game=game)
    aec.reset(seed=2)
    _continue_aec(aec, 25)
    for clone in (pickle.loads(pickle.dumps(aec)), copy.deepcopy(aec)):
        assert _continue_aec(clone, 80) == _continue_aec(copy.deepcopy(aec), 80)
    assert _continue_aec(pickle.loads(pickle.dumps(aec)), 60) == _continue_aec(aec, 60)

    par = sobek_env.parallel_env(game=game)
    observations, _ = par.reset(seed=4)
    for _ in range(20):
        observations, *_ = par.step({par.acting: _first_legal(observations[par.acting])})
    twins = [pickle.loads(pickle.dumps(par)), copy.deepcopy(par)]
    for _ in range(40):
        if not par.agents:
            break
        action = {par.acting: _first_legal(observations[par.acting])}
        observations, rewards, *_ = par.step(action)
        for twin in twins:
            assert twin.acting == next(iter(action))
            other, other_rewards, *_ = twin.step(action)
            assert all(np.array_equal(other[a]["observation"], observations[a]["observation"]) for a in observations)
            assert other_rewards == rewards

    info = load_game(game)
    for env in (SingleAgentEnv(RandomAgent(1), game=game),
                gymnasium.make(f"sobek_env/{game.capitalize()}-v{info.version}",
                               opponents=["random"] * (info.default_players - 1))):
        env.reset(seed=6)
        for _ in range(10):
            env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
        twin = copy.deepcopy(env)
        for _ in range(30):
            if env.unwrapped.game.is_over:
                break
            action = int(np.flatnonzero(env.unwrapped.action_masks())[0])
            mine, theirs = env.step(action), twin.step(action)
            assert np.array_equal(mine[0], theirs[0]) and mine[1:3] == theirs[1:3]
        assert pickle.loads(pickle.dumps(env.unwrapped)).game == env.unwrapped.game


@pytest.mark.parametrize("game", GAMES)
def test_step_takes_what_policies_return(game: str) -> None:
    """SB3's predict returns 0-d arrays; others return numpy or torch integer scalars."""
    for convert in (int, np.int64, np.int32, lambda a: np.array(a), lambda a: np.array([a]),
                    lambda a: torch.tensor(a), lambda a: torch.tensor([a])):
        env = sobek_env.env(game=game)
        env.reset(seed=1)
        action = _first_legal(env.observe(env.agent_selection))
        env.step(convert(action))
        single = SingleAgentEnv(RandomAgent(0), game=game)
        single.reset(seed=1)
        single.step(convert(int(np.flatnonzero(single.action_masks())[0])))
    env.reset(seed=1)
    for bad in (1.5, np.float32(2), torch.tensor(1.0), np.array([1, 2]), "3", None, True, torch.tensor(True)):
        with pytest.raises(IllegalActionError, match="integer"):
            env.step(bad)


@pytest.mark.parametrize("game", GAMES)
def test_infos_keep_one_shape_for_every_agent(game: str) -> None:
    env = sobek_env.env(game=game)
    env.reset(seed=9)
    shapes: set[tuple] = set()
    for _ in env.agent_iter():
        observation, _, done, truncated, _ = env.last()
        shapes |= {(tuple(sorted(info)), tuple(type(v).__name__ for _, v in sorted(info.items())))
                   for info in env.infos.values()}
        env.step(None if done or truncated else _first_legal(observation))
    assert shapes == {(("illegal", "score", "winner"), ("bool", "int", "bool"))}


@pytest.mark.parametrize("game", GAMES)
def test_terminate_mode_serves_tools_that_ignore_masks(game: str) -> None:
    env = sobek_env.env(game=game, illegal_action="terminate")
    env.reset(seed=3)
    offender = env.agent_selection
    illegal = int(np.flatnonzero(env.observe(offender)["action_mask"] == 0)[0])
    env.step(illegal)
    assert all(env.terminations.values()) and env.infos[offender]["illegal"]
    assert env.rewards[offender] == -1.0 and sum(env.rewards.values()) == -1.0


@pytest.mark.parametrize("game", GAMES)
def test_importing_the_layer_and_one_game_imports_no_other_game(game: str) -> None:
    code = (f"import sys, sobek_env, sobek_env.{game}, sobek_env.{game}_v1; sobek_env.env(game={game!r}); "
            "print(sorted({m.split('.')[1] for m in sys.modules if m.startswith('sobek_env.')}))")
    loaded = eval(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    assert not set(GAMES) - {game} & set(loaded), loaded


def test_the_registry_names_every_game_and_refuses_others() -> None:
    assert sobek_env.GAMES == GAMES and isinstance(sobek_env.__version__, str)
    for name in GAMES:
        info = load_game(name)
        assert info.name == name and info is load_game(info) and pickle.loads(pickle.dumps(info)) is info
        assert info.num_actions == len(info.action_names) == len(set(info.action_names))
        assert [info.action_id(a) for a in info.action_names] == list(range(info.num_actions))
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        load_game("chess")
    with pytest.raises(ValueError, match="unknown game"):
        sobek_env.env(game="chess")


@pytest.mark.parametrize("game", GAMES)
def test_the_single_agent_action_space_samples_legal_actions(game: str) -> None:
    env = SingleAgentEnv(RandomAgent(0), game=game)
    env.reset(seed=1)
    for _ in range(30):  # unseeded: legal in the position the env is in
        action = env.action_space.sample()
        assert env.action_masks()[action]
        env.step(action)
    for seed in range(5):  # seeded with s: legal in the game reset(seed=s) deals (Gymnasium's determinism check)
        env.action_space.seed(seed)
        action = env.action_space.sample()
        env.reset(seed=seed)
        assert env.action_masks()[action]


@pytest.mark.parametrize("mode", ["original", "memory"])
@pytest.mark.parametrize(("game", "num_players"), TABLES)
def test_a_seat_sees_no_difference_when_its_hidden_information_is_dealt_again(
        game: str, num_players: int, mode: str) -> None:
    """INTERFACE.md, "Games": ``resample(seat, rng)`` re-deals what the seat cannot know, so its
    observation and action mask stay identical, and the game plays on from the new deal."""
    env = sobek_env.env(game=game, num_players=num_players, observation_mode=mode)
    env.reset(seed=num_players)
    rng = np.random.default_rng(num_players)
    checked = 0
    for steps, _ in enumerate(env.agent_iter(max_iter=600)):
        observation, _, done, truncated, _ = env.last()
        if done or truncated:
            env.step(None)
            continue
        if steps % 23 == 0:
            truth = env.unwrapped.game
            for seat, other in enumerate(env.possible_agents):
                env.unwrapped.game = truth
                before = env.observe(other)
                env.unwrapped.game = truth.resample(seat, random.Random(steps + seat))
                after = env.observe(other)
                assert np.array_equal(before["observation"], after["observation"])
                assert np.array_equal(before["action_mask"], after["action_mask"])
                checked += 1
            # play on from the truth, or from a deal for the seat to move (a sound state like any other)
            env.unwrapped.game = truth.resample(truth.current_player, random.Random(steps)) if steps % 2 else truth
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    assert checked >= num_players


# ---------------------------------------------------------------------- the environments' edges


def _interfaces(game: str) -> list:
    """The AEC environment (wrapped and raw) and the parallel one, each of 3 seats."""
    return [sobek_env.env(game=game, num_players=3), sobek_env.raw_env(game=game, num_players=3),
            sobek_env.parallel_env(game=game, num_players=3)]


@pytest.mark.parametrize("game", GAMES)
def test_an_unknown_agent_is_named_with_the_agents(game: str) -> None:
    """observe, action_space and observation_space raised a bare KeyError('nobody')."""
    for env in _interfaces(game):
        env.reset(seed=1)
        calls = [env.action_space, env.observation_space]
        if not isinstance(env, sobek_env.parallel.TurnParallelEnv):
            calls.append(env.observe)
        for call in calls:
            for agent in ("nobody", "player_3", ["player_0"]):
                with pytest.raises(UnknownAgentError) as caught:
                    call(agent)
                assert str(caught.value).startswith(f"unknown agent {agent!r}; the agents are player_0, player_1, "
                                                    "player_2")
                assert isinstance(caught.value, KeyError) and isinstance(caught.value, ValueError)


@pytest.mark.parametrize("game", GAMES)
def test_numpy_integer_seeds_deal_the_game_of_the_same_int(game: str) -> None:
    """reset(seed=np.int64(5)) was refused though numpy integers are accepted as actions."""
    for seed in (np.int64(5), np.uint32(5), np.int8(5)):
        for make in (lambda: sobek_env.env(game=game), lambda: sobek_env.parallel_env(game=game)):
            env, twin = make(), make()
            env.reset(seed=seed)
            twin.reset(seed=5)
            assert env.unwrapped.game == twin.unwrapped.game if hasattr(env, "unwrapped") else env.game == twin.game
        single, twin = SingleAgentEnv(RandomAgent(0), game=game), SingleAgentEnv(RandomAgent(0), game=game)
        assert np.array_equal(single.reset(seed=seed)[0], twin.reset(seed=5)[0]) and single.game == twin.game
    info = load_game(game)
    made = gymnasium.make(f"sobek_env/{game.capitalize()}-v{info.version}", opponents="random")
    assert np.array_equal(made.reset(seed=np.int64(5))[0], made.reset(seed=5)[0])


BAD_SEEDS = [-1, np.int64(-1), True, np.bool_(True), 1.0, np.float64(2), "3", [3]]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("seed", BAD_SEEDS, ids=repr)
def test_a_refused_seed_changes_nothing(game: str, seed: object) -> None:
    """A refused reset leaves a running environment as it was and a fresh one asking for reset()."""
    message = "^seed must be None or a non-negative integer"
    for env in (*_interfaces(game), SingleAgentEnv(RandomAgent(0), game=game, num_players=3)):
        env.reset(seed=4)
        game_before = env.unwrapped.game if hasattr(env, "unwrapped") else env.game
        before = game_before.to_json()
        with pytest.raises(ValueError, match=message):
            env.reset(seed=seed)
        after = env.unwrapped.game if hasattr(env, "unwrapped") else env.game
        assert after is game_before and after.to_json() == before
    info = load_game(game)
    made = gymnasium.make(f"sobek_env/{game.capitalize()}-v{info.version}", opponents="random")
    with pytest.raises(ValueError, match=message):
        made.reset(seed=seed)


@pytest.mark.parametrize("game", GAMES)
def test_a_refused_seed_keeps_the_unseeded_resets_that_follow(game: str) -> None:
    env, twin = sobek_env.env(game=game), sobek_env.env(game=game)
    env.reset(seed=8)
    twin.reset(seed=8)
    with pytest.raises(ValueError):
        env.reset(seed=-1)
    env.reset()
    twin.reset()
    assert env.unwrapped.game == twin.unwrapped.game


@pytest.mark.parametrize("game", GAMES)
def test_after_a_refused_first_reset_every_call_says_to_call_reset(game: str) -> None:
    """step raised AttributeError ('raw_env' object has no attribute 'agent_selection') after reset(seed=-1)."""
    for env in _interfaces(game):
        with pytest.raises(ValueError, match=r"^seed must be"):
            env.reset(seed=-1)
        with pytest.raises(RuntimeError, match=r"call reset\(\) before step\(\)"):
            env.step({} if isinstance(env, sobek_env.parallel.TurnParallelEnv) else 0)
        if not isinstance(env, sobek_env.parallel.TurnParallelEnv):
            with pytest.raises(RuntimeError, match=r"call reset\(\) before observe\(\)"):
                env.observe("player_0")
            with pytest.raises(RuntimeError, match=r"call reset\(\) before last\(\)"):
                env.last()
        env.reset(seed=1)  # and the environment still works
        assert env.agents == ["player_0", "player_1", "player_2"]
    single = SingleAgentEnv(RandomAgent(0), game=game)
    with pytest.raises(ValueError, match=r"^seed must be"):
        single.reset(seed=-1)
    with pytest.raises(RuntimeError, match=r"call reset\(\) before step\(\)"):
        single.step(0)


def _play_out(env, seed: int) -> None:
    """Play ``env`` (an AEC environment) to the end of the game and through every dead step."""
    env.reset(seed=seed)
    for _ in env.agent_iter():
        observation, _, done, truncated, _ = env.last()
        env.step(None if done or truncated else _first_legal(observation))
    assert env.agents == [] and env.unwrapped.game.is_over


@pytest.mark.parametrize("game", GAMES)
def test_a_step_after_every_agent_is_done_warns_and_changes_nothing(game: str, caplog) -> None:
    """step(None) after the dead steps raised KeyError('player_2'); PettingZoo's convention is a warning."""
    for env in (sobek_env.env(game=game, num_players=3), sobek_env.raw_env(game=game, num_players=3)):
        _play_out(env, 3)
        before = env.unwrapped.game.to_json()
        caplog.clear()
        env.step(None)
        env.step(0)
        assert caplog.text.count("step() called after all agents are terminated") == 2
        assert env.unwrapped.game.to_json() == before and env.agents == []
        with pytest.raises(RuntimeError, match=r"^every agent is done \(the game is over\); call reset\(\)"):
            env.last()  # raised KeyError('player_2')
        env.reset(seed=4)
        assert env.agents == ["player_0", "player_1", "player_2"]


@pytest.mark.parametrize("game", GAMES)
def test_the_parallel_and_single_agent_envs_refuse_steps_with_a_clear_message(game: str) -> None:
    env = sobek_env.parallel_env(game=game, num_players=3)
    env.reset(seed=2)
    with pytest.raises(TypeError, match=r"^step takes a dict of actions by agent \(player_\d must act now\)"):
        env.step(None)
    while env.agents:
        env.step({env.acting: env.game.legal_actions()[0]})
    with pytest.raises(RuntimeError, match=r"the game is over; call reset\(\)"):
        env.step({})
    single = SingleAgentEnv(RandomAgent(0), game=game)
    single.reset(seed=2)
    while not single.game.is_over:
        single.step(int(np.flatnonzero(single.action_masks())[0]))
    with pytest.raises(RuntimeError, match=r"the episode is over; call reset\(\)"):
        single.step(None)
