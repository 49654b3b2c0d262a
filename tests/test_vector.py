"""The batched environment (``sobek_env.vector_env``): many games in one call, each game's learner seat seeing
exactly what the AEC environment shows it, with rewards as the AEC environment gives them."""

from __future__ import annotations

import multiprocessing

import numpy as np
import pytest
from gymnasium.vector import VectorEnv

import sobek_env
from sobek_env import IllegalActionError

TABLES = [(g, n) for g in sobek_env.GAMES for n in sobek_env.load_game(g).player_counts
          if n >= sobek_env.load_game(g).default_players]


def _play(venv: VectorEnv, steps: int, seed: int) -> list[tuple]:
    """``steps`` steps of uniformly random legal learner actions; everything the env returned."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(steps):
        masks = venv.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        out.append(venv.step(actions))
    return out


def _aec_view(game: str, n: int, mode: str, state, seat: int) -> dict:
    aec = sobek_env.raw_env(game=game, num_players=n, observation_mode=mode)
    aec.reset(seed=0)
    aec.game = state
    return aec.observe(f"player_{seat}")


@pytest.mark.parametrize(("game", "n"), TABLES)
@pytest.mark.parametrize("mode", ["original", "memory"])
def test_each_learner_sees_what_the_aec_environment_shows_its_seat(game: str, n: int, mode: str) -> None:
    venv = sobek_env.vector_env(game=game, num_envs=3, num_players=n, observation_mode=mode, seed=1)
    assert isinstance(venv, VectorEnv)
    obs, info = venv.reset(seed=4)
    for step in range(60):
        for i, state in enumerate(venv.states()):
            seat = int(info["seat"][i])
            assert state.current_player == seat and not state.is_over
            view = _aec_view(game, n, mode, state, seat)
            np.testing.assert_array_equal(obs[i], view["observation"])
            np.testing.assert_array_equal(venv.action_masks()[i], view["action_mask"].astype(bool))
        obs, _, _, _, info = _play(venv, 1, step)[0]


@pytest.mark.parametrize("game", sobek_env.GAMES)
def test_a_seeded_reset_replays_every_game(game: str) -> None:
    def run() -> list:
        venv = sobek_env.vector_env(game=game, num_envs=4)
        first = venv.reset(seed=9)[0]
        return [first, *[(o, r, t) for o, r, t, _, _ in _play(venv, 150, 0)]]

    a, b = run(), run()
    np.testing.assert_array_equal(a[0], b[0])
    for x, y in zip(a[1:], b[1:]):
        for u, v in zip(x, y):
            np.testing.assert_array_equal(u, v)
    other = sobek_env.vector_env(game=game, num_envs=4)
    assert not np.array_equal(other.reset(seed=10)[0], a[0])


@pytest.mark.parametrize("game", sobek_env.GAMES)
def test_a_game_depends_on_its_index_and_the_seed_not_on_the_number_of_games(game: str) -> None:
    small, big = (sobek_env.vector_env(game=game, num_envs=k) for k in (2, 5))
    np.testing.assert_array_equal(small.reset(seed=3)[0], big.reset(seed=3)[0][:2])


@pytest.mark.parametrize("game", sobek_env.GAMES)
def test_finished_games_are_dealt_anew_with_their_win_rewards(game: str) -> None:
    venv = sobek_env.vector_env(game=game, num_envs=2, reward_mode="win")
    venv.reset(seed=0)
    ended = 0
    for obs, rewards, terminated, truncated, info in _play(venv, 1500, 1):
        assert not truncated.any()
        for i in np.flatnonzero(terminated):
            ended += 1
            final = info["final_info"][i]
            assert rewards[i] == (1.0 if final["seat"] in final["winners"] else -1.0)
            assert info["final_obs"][i].shape == obs[i].shape
            assert venv.action_masks()[i].any()  # the new game awaits its learner
        assert (rewards[~terminated] == 0).all()
    assert ended >= 2


@pytest.mark.parametrize("game", sobek_env.GAMES)
def test_score_rewards_add_up_to_the_final_score(game: str) -> None:
    venv = sobek_env.vector_env(game=game, num_envs=1, reward_mode="score", seat=0)
    venv.reset(seed=2)
    total = venv.states()[0].scores[0] / sobek_env.load_game(game).score_scale  # Kleopatra starts with talents
    for _, rewards, terminated, _, info in _play(venv, 3000, 2):
        total += float(rewards[0])
        if terminated[0]:
            assert total == pytest.approx(info["final_info"][0]["scores"][0] / sobek_env.load_game(game).score_scale)
            return
    pytest.fail("no game ended")


def test_agent_specs_play_the_other_seats() -> None:
    venv = sobek_env.vector_env(game="sobek", num_envs=2, opponents=("heuristic",), seed=0)
    venv.reset()
    _play(venv, 20, 0)


def test_bad_requests_are_refused_and_change_nothing() -> None:
    venv = sobek_env.vector_env(game="sobek", num_envs=2)
    with pytest.raises(RuntimeError, match="reset"):
        venv.step(np.zeros(2, int))
    venv.reset(seed=0)
    before = [s.to_json() for s in venv.states()]
    masks = venv.action_masks()
    illegal = int(np.flatnonzero(~masks[1])[0])
    legal = int(np.flatnonzero(masks[0])[0])
    with pytest.raises(IllegalActionError, match="game 1"):
        venv.step(np.array([legal, illegal]))
    with pytest.raises(ValueError, match="shape"):
        venv.step(np.array([legal]))
    with pytest.raises(IllegalActionError):
        venv.step(np.array([legal, 1.5], dtype=object))
    assert [s.to_json() for s in venv.states()] == before
    for bad in ({"num_envs": 0}, {"reward_mode": "points"}, {"seat": 2}, {"num_players": 9},
                {"opponents": ("random", "random")}, {"num_threads": 0}, {"num_threads": 1.5}):
        with pytest.raises(ValueError):
            sobek_env.vector_env(game="sobek", **bad)


def _run(game: str, engine: str, steps: int, **kwargs) -> list[tuple]:
    venv = sobek_env.vector_env(game=game, engine=engine, **kwargs)
    assert (venv._batch is not None) == (engine == "native")
    first, info = venv.reset()
    out = [(first.tobytes(), info["seat"].tolist())]
    rng = np.random.default_rng(7)
    for _ in range(steps):
        masks = venv.action_masks()
        obs, rewards, terminated, _, info = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        finals = [None if f is None else (f[0].tobytes(), f[1]) for f in zip(info["final_obs"], info["final_info"])
                  if f[0] is not None]
        out.append((obs.tobytes(), masks.tobytes(), rewards.tolist(), terminated.tolist(), info["seat"].tolist(),
                    finals))
    return out


@pytest.mark.parametrize("game", sobek_env.GAMES)
@pytest.mark.parametrize(("reward_mode", "mode", "seat"), [("win", "original", None), ("margin", "memory", None),
                                                          ("score", "original", 1)])
def test_the_native_batch_plays_exactly_the_python_path(game: str, reward_mode: str, mode: str, seat) -> None:
    kwargs = {"num_envs": 3, "seed": 11, "reward_mode": reward_mode, "observation_mode": mode, "seat": seat}
    steps = 700 if game == "sobek" else 1800
    native = _run(game, "native", steps, **kwargs)
    assert native == _run(game, "python", steps, **kwargs)
    assert sum(any(step[3]) for step in native[1:]) >= 1  # games ended and were dealt anew on both paths


def test_a_batch_of_another_table_is_refused_before_it_is_made() -> None:
    with pytest.raises(ValueError):
        sobek_env.vector_env(game="kleopatra", num_players=6)
    with pytest.raises(ValueError, match="engine must be one of"):
        sobek_env.vector_env(game="sobek", engine="gpu")


@pytest.mark.parametrize("game", sobek_env.GAMES)
def test_threads_step_the_same_games(game: str) -> None:
    kwargs = {"num_envs": 7, "seed": 5, "reward_mode": "score", "observation_mode": "memory"}
    steps = 300 if game == "sobek" else 600
    one = _run(game, "native", steps, **kwargs)
    assert _run(game, "native", steps, num_threads=2, **kwargs) == one
    assert _run(game, "native", 40, num_threads=16, **kwargs) == one[:41]  # more threads than games


def _steps(venv: VectorEnv, steps: int) -> list[bytes]:
    rng = np.random.default_rng(3)
    out = []
    for _ in range(steps):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in venv.action_masks()])
        obs, rewards, terminated, _, _ = venv.step(actions)
        out.append(obs.tobytes() + rewards.tobytes() + terminated.tobytes())
    return out


def _child_steps(venv: VectorEnv, steps: int, pipe) -> None:
    pipe.send(_steps(venv, steps))


def test_a_forked_process_steps_a_threaded_batch_on_threads_of_its_own() -> None:
    """The batch's worker threads are kept between calls; a child forked after they started has none of
    them, so it starts its own: it steps the same games as its parent, and the parent's threads go on."""
    venv = sobek_env.vector_env(game="sobek", num_envs=6, num_threads=2, seed=2)
    venv.reset()
    _steps(venv, 20)  # the threads are running
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_child_steps, args=(venv, 30, send))
    child.start()
    try:
        assert receive.poll(60), "the forked child did not step its batch"
        theirs = receive.recv()
        child.join(10)
        assert child.exitcode == 0
    finally:
        child.kill()
    assert _steps(venv, 30) == theirs


@pytest.mark.parametrize("game", sobek_env.GAMES)
def test_the_batch_says_what_a_game_weighs(game: str) -> None:
    batch = sobek_env.vector_env(game=game, num_envs=2)._batch
    size = sobek_env.load_game(game).observation_size(batch.num_players)
    assert 0 < batch.state_bytes < batch.bytes_per_game
    assert batch.bytes_per_game > batch.state_bytes + 2 * 4 * size  # its observation rows at least
