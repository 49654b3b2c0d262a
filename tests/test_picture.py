"""Drawn pictures of the table (render_mode="rgb_array", replay GIFs) and the table in colour for terminals:
a fixed frame per game and player count through whole games, nothing a seat may not see, every visible
change drawn, Gymnasium's and PettingZoo's rendering, GIFs that read back, bad input refused."""

from __future__ import annotations

import importlib.util
import itertools
import random
import subprocess
import sys
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from PIL import Image

import sobek_env
from sobek_env import load_game
from sobek_env.console import plain
from sobek_env.picture import CAPTION_HEIGHT, save_gif
from sobek_env.replay import Replay

ROOT = Path(__file__).resolve().parent.parent
TABLES = [("sobek", 2), ("sobek", 3), ("sobek", 4), ("kleopatra", 2), ("kleopatra", 3), ("kleopatra", 5)]
MODES = ("original", "memory")


def play(game_name: str, n: int, seed: int, every: int) -> list:
    """Copies of one seeded random game, one every ``every`` steps and the last (Kleopatra's random games run
    long: its players there prefer building, which ends them sooner)."""
    game, rng = load_game(game_name), random.Random(seed)
    state, out, step = game.new(n, seed), [], 0
    quarry = {a for a, name in enumerate(game.action_names) if name.split(":")[0] in
              ("quarry", "wall", "gate", "sphinx", "obelisk", "pedestal", "throne", "mosaic")}
    while not state.is_over:
        if step % every == 0:
            out.append(state.clone())
        legal = state.legal_actions()
        building = [a for a in legal if a in quarry]
        state.apply(rng.choice(building if building and rng.random() < 0.8 else legal))
        step += 1
    out.append(state)
    return out


@pytest.mark.parametrize(("game_name", "n"), TABLES)
def test_every_frame_of_a_game_has_the_frame_size(game_name: str, n: int) -> None:
    game = load_game(game_name)
    height, width = game.frame_size(n)
    states = play(game_name, n, seed=n, every=12 if game_name == "sobek" else 70)
    assert states[-1].is_over and len(states) > 8
    for i, state in enumerate(states):
        frame = game.render_rgb(state, i % n, MODES[i % 2], full=i % 3 == 0)
        assert frame.shape == (height, width, 3) and frame.dtype == np.uint8
    assert game.render_rgb(states[-1]).shape == (height, width, 3)  # the player to move, at the end too


@pytest.mark.parametrize(("game_name", "n", "mode"), [("sobek", 3, "original"), ("sobek", 4, "memory"),
                                                      ("kleopatra", 3, "memory"), ("kleopatra", 5, "original")])
def test_a_seats_picture_does_not_move_when_what_it_cannot_see_is_dealt_again(game_name: str, n: int,
                                                                              mode: str) -> None:
    game = load_game(game_name)
    rng = random.Random(5)
    hidden_moved = 0
    for state in play(game_name, n, seed=10 + n, every=12 if game_name == "sobek" else 70)[:-1]:
        seat = rng.randrange(n)
        twin = state.resample(seat, random.Random(rng.random()))
        mine = game.render_rgb(state, seat, mode)
        assert np.array_equal(mine, game.render_rgb(twin, seat, mode))
        assert plain(game.render_rich(state, seat, mode)) == plain(game.render_rich(twin, seat, mode))
        assert game.render_text(state, seat, mode) == game.render_text(twin, seat, mode)
        # the check has teeth: the full view, which shows every hand, moves when the hands were dealt again
        hidden_moved += not np.array_equal(game.render_rgb(state, seat, mode, full=True),
                                           game.render_rgb(twin, seat, mode, full=True))
    assert hidden_moved >= 3


@pytest.mark.parametrize(("game_name", "n", "start"), [("sobek", 3, 0), ("sobek", 4, 40), ("kleopatra", 3, 0),
                                                       ("kleopatra", 4, 300)])
def test_every_change_the_text_picture_shows_is_drawn(game_name: str, n: int, start: int) -> None:
    """The text picture is the reference of what a seat sees: whenever it changes (its list of legal actions
    aside), the drawn picture changes too."""
    game = load_game(game_name)
    states = play(game_name, n, seed=20 + n, every=1)[start:start + 40]
    text = [[game.render_text(s, seat).partition("\nLegal: ")[0] for seat in range(n)] for s in states]
    pictures = [[game.render_rgb(s, seat) for seat in range(n)] for s in states]
    changes = 0
    for i, seat in itertools.product(range(len(states) - 1), range(n)):
        if text[i][seat] != text[i + 1][seat]:
            changes += 1
            assert not np.array_equal(pictures[i][seat], pictures[i + 1][seat]), \
                f"seat {seat} sees a change the picture does not show:\n{text[i][seat]}\n---\n{text[i + 1][seat]}"
    assert changes > 90


@pytest.mark.parametrize("game_name", ["sobek", "kleopatra"])
def test_gymnasium_render_collection_and_the_aec_picture(game_name: str) -> None:
    game = load_game(game_name)
    env_id = "sobek_env/Sobek-v1" if game_name == "sobek" else "sobek_env/Kleopatra-v1"
    env = gymnasium.wrappers.RenderCollection(
        gymnasium.make(env_id, num_players=3, opponents=["random", "random"], render_mode="rgb_array", seat=0))
    env.reset(seed=3)
    for _ in range(6):
        mask = env.unwrapped.action_masks()
        _, _, done, _, _ = env.step(int(np.flatnonzero(mask)[0]))
        if done:
            break
    frames = env.render()
    assert len(frames) >= 3 and {f.shape for f in frames} == {(*game.frame_size(3), 3)}
    assert not all(np.array_equal(frames[0], f) for f in frames[1:])
    env.close()

    aec = sobek_env.env(game=game_name, num_players=3, render_mode="rgb_array")
    aec.reset(seed=4)
    aec.step(aec.unwrapped.game.legal_actions()[0])
    state = aec.unwrapped.game
    assert np.array_equal(aec.render(), game.render_rgb(state, state.current_player))
    parallel = sobek_env.parallel_env(game=game_name, num_players=3, render_mode="rgb_array")
    parallel.reset(seed=4)
    assert parallel.render().shape == (*game.frame_size(3), 3)


def test_the_seat_and_the_full_view_are_different_pictures_of_one_size() -> None:
    game = load_game("sobek")
    state = game.new(3, 8)
    views = [game.render_rgb(state, seat) for seat in range(3)] + [game.render_rgb(state, 0, full=True)]
    assert len({v.tobytes() for v in views}) == 4 and len({v.shape for v in views}) == 1
    assert np.array_equal(game.render_rgb(state), views[state.current_player])


@pytest.mark.parametrize("game_name", ["sobek", "kleopatra"])
def test_a_bad_seat_is_refused_by_name(game_name: str) -> None:
    game = load_game(game_name)
    state = game.new(3, 1)
    for seat in (3, -1, "0", True):
        with pytest.raises(ValueError, match="seat must be a seat of this 3-player game"):
            game.render_rgb(state, seat)
    with pytest.raises(ValueError, match="players"):
        game.frame_size(9)
    for draw in (game.render_rgb, game.render_rich):
        with pytest.raises(ValueError, match="observation_mode must be one of original, memory"):
            draw(state, 0, "full")


def test_save_gif_refuses_bad_frames_and_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "x.gif"
    frame = np.zeros((20, 30, 3), np.uint8)
    for frames, seconds, message in (([], 1.0, "at least one frame"), ([frame, frame[:10]], 1.0, "of one size"),
                                     ([frame[..., 0]], 1.0, "H x W x 3"), ([frame], 0, "more than 0")):
        with pytest.raises(ValueError, match=message):
            save_gif(frames, path, seconds)
    assert list(tmp_path.iterdir()) == []


def replay_file(tmp_path: Path, game_name: str, n: int, actions: int) -> Path:
    game = load_game(game_name)
    state, rng = game.new(n, 6), random.Random(6)
    replay = Replay(game_name, n, 6, {}, "original", ["random"] * n)
    for _ in range(actions):
        seat, action = state.current_player, rng.choice(state.legal_actions())
        state.apply(action)
        replay.actions.append((seat, action))
    path = tmp_path / f"{game_name}.jsonl"
    replay.save(path, state)
    return path


def run_replay(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sobek_env.replay", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)


@pytest.mark.parametrize(("game_name", "n"), [("sobek", 4), ("kleopatra", 3)])
def test_replay_gif_reads_back_with_a_frame_per_drawn_step(tmp_path: Path, game_name: str, n: int) -> None:
    path, gif = replay_file(tmp_path, game_name, n, 23), tmp_path / "out.gif"
    result = run_replay(str(path), "--gif", str(gif), "--full", "--every", "5", "--seconds", "0.25")
    assert result.returncode == 0, result.stderr
    assert "6 frames" in result.stdout  # steps 0, 5, 10, 15, 20 and the last, 23
    height, width = load_game(game_name).frame_size(n)
    with Image.open(gif) as image:
        assert image.n_frames == 6 and image.size == (width, height + CAPTION_HEIGHT)
        assert image.info["duration"] == 250
        image.seek(5)
        last = np.asarray(image.convert("RGB"))
    assert last[CAPTION_HEIGHT:].std() > 20  # a drawn table, not a blank page


def test_replay_gif_refuses_bad_options_and_an_unwritable_place(tmp_path: Path) -> None:
    path = replay_file(tmp_path, "sobek", 2, 4)
    for option, value, message in (("--seconds", "0", "must be more than 0"), ("--every", "0", "must be 1 or more")):
        result = run_replay(str(path), "--gif", str(tmp_path / "a.gif"), option, value)
        assert result.returncode == 2 and f"argument {option}: {message}" in result.stderr
    result = run_replay(str(path), "--gif", str(tmp_path / "no" / "such" / "dir" / "a.gif"))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"cannot write {str(tmp_path / 'no' / 'such' / 'dir' / 'a.gif')!r}" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sobek.jsonl"]


def test_the_picture_benchmark_reports_every_table(capsys: pytest.CaptureFixture) -> None:
    spec = importlib.util.spec_from_file_location("bench_pictures", ROOT / "benchmarks" / "bench_pictures.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    bench.main(["--quick"])
    rows = [line.split() for line in capsys.readouterr().out.splitlines()[1:]]
    assert [(row[0], int(row[1])) for row in rows] == [(name, n) for name in sobek_env.GAMES
                                                       for n in load_game(name).player_counts]
    for row in rows:
        assert tuple(map(int, (row[2], row[4]))) == load_game(row[0]).frame_size(int(row[1]))
        assert all(float(v) > 0 for v in row[5:])
