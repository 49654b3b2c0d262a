"""Replays: evaluate.py saves games that play again to the same end, damaged files are refused naming the line,
and the viewer steps through a game as one seat sees it."""

from __future__ import annotations

import errno
import json
import os
import random
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest

from agents.tournaments.evaluation import main as evaluate
from sobek_env import load_game
from sobek_env.console import plain
from sobek_env.replay import FORMAT, MAX_LINE_BYTES, Replay, ReplayError, browse, json_line, picture

ROOT = Path(__file__).resolve().parent.parent


def tournament(tmp_path: Path, game: str, agents: list[str], games: int, *extra: str) -> tuple[Path, list[dict]]:
    """Run evaluate.py with --save-replays; the replay directory and the games it reports."""
    out, replays = tmp_path / "out", tmp_path / "replays"
    evaluate(["--game", game, "--players", str(len(agents)), "--games", str(games), "--agents", *agents,
              "--out", str(out), "--workers", "1", "--save-replays", str(replays), *extra])
    return replays, json.loads((out / "evaluate.json").read_text())["games_played"]


@pytest.mark.parametrize(("game", "agents"), [("sobek", ["greedy", "random"]),
                                              ("kleopatra", ["heuristic", "random", "random"])])
def test_saved_replays_play_again_to_the_same_end(tmp_path: Path, game: str, agents: list[str]) -> None:
    replays, records = tournament(tmp_path, game, agents, len(agents))
    assert sorted(p.name for p in replays.glob("*.jsonl")) == [f"game-{i:04d}.jsonl" for i in range(len(agents))]
    info = load_game(game)
    for record in records:
        replay = Replay.load(replays / f"game-{record['index']:04d}.jsonl")
        final = replay.final_state()
        assert final.is_over
        assert (final.scores, final.winners) == (record["scores"], record["winners"])
        assert info.statistics(final) == record["stats"]
        assert replay.seed == record["seed"]
        assert replay.agents == [agents[p] for p in record["seating"]]
        assert all(seat in range(len(agents)) for seat, _ in replay.actions)


def test_replays_are_the_same_for_any_workers_and_limited_by_replays(tmp_path: Path) -> None:
    one, _ = tournament(tmp_path / "one", "sobek", ["random", "random"], 4, "--replays", "3")
    two, _ = tournament(tmp_path / "two", "sobek", ["random", "random"], 4, "--replays", "3", "--workers", "2")
    names = sorted(p.name for p in one.glob("*.jsonl"))
    assert names == ["game-0000.jsonl", "game-0001.jsonl", "game-0002.jsonl"]
    assert names == sorted(p.name for p in two.glob("*.jsonl"))
    for name in names:
        assert (one / name).read_text() == (two / name).read_text()


def test_replays_without_save_replays_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit):
        evaluate(["--players", "2", "--games", "2", "--agents", "random", "random", "--out", str(tmp_path),
                  "--replays", "1"])
    assert "--save-replays" in capsys.readouterr().err


# ---------------------------------------------------------------- damaged files


@pytest.fixture(scope="module")
def good() -> str:
    """A whole Sobek game between two random players, as replay text."""
    game = load_game("sobek")
    state = game.new(2, 11)
    replay = Replay("sobek", 2, 11, {}, "original", ["random", "random"])
    rng = random.Random(4)
    while not state.is_over:
        action = rng.choice(state.legal_actions())
        replay.actions.append((state.current_player, action))
        state.apply(action)
    return replay.dumps(state)


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def test_a_good_replay_reads_back_whole(good: str) -> None:
    replay = Replay.loads(good)
    assert replay.dumps() == good
    assert json.loads(_lines(good)[0])["format"] == FORMAT
    assert len(_lines(good)) == len(replay.actions) + 2


def _illegal(lines: list[str]) -> list[str]:
    doc = json.loads(lines[5])
    state = Replay.loads("".join(lines[:5]) + '{"over":false,"scores":[0,0],"winners":[]}\n').final_state()
    doc["action"] = next(a for a in range(76) if a not in state.legal_actions())
    return [*lines[:5], json.dumps(doc) + "\n", *lines[6:]]


def _final(lines: list[str], **change: object) -> list[str]:
    return [*lines[:-1], json.dumps({**json.loads(lines[-1]), **change}) + "\n"]


def _out_of_turn(lines: list[str]) -> list[str]:
    doc = json.loads(lines[2])
    return [*lines[:2], json.dumps({**doc, "seat": 1 - doc["seat"]}) + "\n", *lines[3:]]


def _valued(lines: list[str], values: object) -> list[str]:
    """Line 3 (the second action) with ``values``."""
    doc = {**json.loads(lines[2]), "values": values}
    return [*lines[:2], json.dumps(doc, separators=(",", ":")) + "\n", *lines[3:]]


def _legal_at_second_action(good: str) -> list[int]:
    replay = Replay.loads(good)
    state = replay.new_state()
    state.apply(replay.actions[0][1])
    return state.legal_actions()


DAMAGES = {
    "bad JSON": (lambda ls: [*ls[:3], "{seat: 0,\n", *ls[4:]], lambda n: 4),
    "unknown format": (lambda ls: [ls[0].replace(FORMAT, "chess-pgn/1"), *ls[1:]], lambda n: 1),
    "unknown version": (lambda ls: [ls[0].replace(FORMAT, "sobek-replay/2"), *ls[1:]], lambda n: 1),
    "unknown game": (lambda ls: [ls[0].replace('"sobek"', '"go"'), *ls[1:]], lambda n: 1),
    "illegal action": (_illegal, lambda n: 6),
    "out of turn": (_out_of_turn, lambda n: 3),
    "wrong scores": (lambda ls: _final(ls, scores=[999, 0]), lambda n: n),
    "wrong winners": (lambda ls: _final(ls, winners=[0, 1]), lambda n: n),
    "truncated: no final line": (lambda ls: ls[:-1], lambda n: n - 1),
    "truncated: cut mid-line": (lambda ls: [*ls[:-2], ls[-2][:7]], lambda n: n - 1),
    "an action after the end": (lambda ls: [*ls[:-1], ls[-2], ls[-1]], lambda n: n),
    "values not an object": (lambda ls: _valued(ls, [0.5]), lambda n: 3),
    "values of an illegal action": (lambda ls: _valued(ls, {"9999": 0.5}), lambda n: 3),
    "values not a number": (lambda ls: _valued(ls, {str(json.loads(ls[2])["action"]): "high"}), lambda n: 3),
    "an unknown field": (lambda ls: [*ls[:2], json.dumps({**json.loads(ls[2]), "note": 1}) + "\n", *ls[3:]],
                         lambda n: 3),
}


def test_values_of_a_searching_agents_decisions_read_back_with_their_actions(good: str) -> None:
    legal = _legal_at_second_action(good)
    lines = _lines(good)
    text = "".join(_valued(lines, {str(a): round(0.1 * i - 0.3, 3) for i, a in enumerate(legal)}))
    replay = Replay.loads(text)
    assert replay.values == {1: {a: round(0.1 * i - 0.3, 3) for i, a in enumerate(legal)}}
    assert replay.dumps() == text
    assert Replay.loads(good).values == {}


def test_evaluate_keeps_the_searchs_values_in_its_replays(tmp_path: Path) -> None:
    spec = "ismcts:settings=none,simulations=4,depth=10"
    replays, _ = tournament(tmp_path, "sobek", [spec, "random"], 2)
    for path in sorted(replays.glob("*.jsonl")):
        replay = Replay.load(path)
        seat = replay.agents.index(spec)
        searched = [i for i, (s, _) in enumerate(replay.actions) if s == seat and i in replay.values]
        assert searched and all(replay.actions[i][0] == seat for i in replay.values)
        for i in searched:
            assert replay.actions[i][1] in replay.values[i]  # the action played was among those valued


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_damaged_replay_is_refused_naming_the_line(good: str, damage: str) -> None:
    spoil, line = DAMAGES[damage]
    lines = _lines(good)
    text = "".join(spoil(lines))
    with pytest.raises(ReplayError, match=rf"game\.jsonl line {line(len(lines))}\b"):
        Replay.loads(text, "game.jsonl")


def test_the_viewer_refuses_a_damaged_file_with_its_line(tmp_path: Path, good: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(_lines(good)[:-1]))
    result = subprocess.run([sys.executable, "-m", "sobek_env.replay", str(path), "--print"], cwd=ROOT,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert f"line {len(_lines(good)) - 1}" in result.stderr and "truncated" in result.stderr
    assert "Traceback" not in result.stderr


# ---------------------------------------------------------------- files from strangers: read within bounds


def _with_line(good: str, number: int, line: bytes) -> bytes:
    """``good`` with its line ``number`` replaced by ``line`` (bytes, no newline)."""
    lines = [part.encode() for part in _lines(good)]
    return b"".join([*lines[:number - 1], line + b"\n", *lines[number:]])


HOSTILE = {
    "nested arrays": (lambda good: b"[" * 2000 + b"]" * 2000 + b"\n", 1, "nested more than 8 levels"),
    "nesting just past the limit": (lambda good: _with_line(good, 2, b'{"seat":0,"action":1,"values":'
                                                             + b"[" * 8 + b"]" * 8 + b"}"), 2, "nested more than"),
    "a byte that is not UTF-8": (lambda good: _with_line(good, 3, b'{"seat":0,"action":\xff}'), 3, "not UTF-8"),
    "a number of 5,000 digits": (lambda good: _with_line(good, 2, b'{"seat":0,"action":' + b"7" * 5000 + b"}"), 2,
                                 "a number of 5,000 characters, more than the 4,300 allowed"),
    "NaN": (lambda good: _with_line(good, 2, b'{"seat":0,"action":1,"values":{"1":NaN}}'), 2, "NaN is not a number"),
    "a key twice": (lambda good: _with_line(good, 2, b'{"seat":0,"seat":1,"action":1}'), 2, "'seat' appears twice"),
    "a line of 100,000 bytes": (lambda good: _with_line(good, 4, b" " * 100_000), 4, "longer than the 65,536 bytes"),
    "zeros without an end": (lambda good: b"\0" * 1_000_000, 1, "longer than the 65,536 bytes"),
}


@pytest.mark.parametrize("hostile", list(HOSTILE))
def test_a_hostile_replay_is_refused_in_one_line_naming_it(tmp_path: Path, good: str, hostile: str) -> None:
    make, line, problem = HOSTILE[hostile]
    path = tmp_path / "game.jsonl"
    path.write_bytes(make(good))
    with pytest.raises(ReplayError, match=rf"game\.jsonl line {line}: .*{problem}"):
        Replay.load(path)
    result = subprocess.run([sys.executable, "-m", "sobek_env.replay", str(path), "--print"], cwd=ROOT,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and f"line {line}: " in result.stderr, result.stderr[-2000:]


def test_a_long_line_is_refused_having_read_no_more_than_a_line_of_it(tmp_path: Path, good: str) -> None:
    path = tmp_path / "game.jsonl"
    path.write_bytes(_with_line(good, 3, b"[" + b"0," * 15_000_000 + b"0]"))  # 30 MB
    tracemalloc.start()
    try:
        with pytest.raises(ReplayError, match="line 3: longer than"):
            Replay.load(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 * MAX_LINE_BYTES


def test_a_replay_longer_than_its_game_can_be_is_refused_at_the_first_line_too_many(
        good: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The most lines come from the game's derived bound on its length (here made 10 steps, so that a real
    game passes it): a header, 10 actions, the final line."""
    game = type(load_game("sobek"))
    monkeypatch.setattr(game, "max_game_length", lambda self, num_players, **rules: 10)
    with pytest.raises(ReplayError, match=r"game\.jsonl line 13: a 2-player game has at most 10 actions"):
        Replay.loads(good, "game.jsonl")
    Replay.loads("".join(_lines(good)[:11]) + '{"over":false,"scores":[0,0],"winners":[]}\n')


def test_the_limits_are_far_above_the_longest_real_game() -> None:
    """The longest game either game allows fits the line count (derived from it); the longest header (every
    Kleopatra rules option spelled out, five long model paths) and an action valuing all of the game's
    actions, each with the longest float, fit a line many times over and nest within the limit."""
    from sobek_env.kleopatra.catalogue import OPTION_DEFAULTS

    header = Replay("kleopatra", 5, 2**63 - 1, dict(OPTION_DEFAULTS), "original", ["ppo:" + "m" * 4096] * 5)
    header.new_state()
    action = {"seat": 4, "action": 143, "values": {str(a): -1.2345678901234567e-300 for a in range(144)}}
    for doc in (header.header(), action):
        text = json.dumps(doc, separators=(",", ":"))
        assert 3 * len(text) < MAX_LINE_BYTES
        assert json_line(text.encode(), "x") == doc


# ---------------------------------------------------------------- the viewer


def test_print_shows_one_step_as_one_seat_sees_it(tmp_path: Path, good: str) -> None:
    path = tmp_path / "game.jsonl"
    path.write_text(good)
    result = subprocess.run([sys.executable, "-m", "sobek_env.replay", str(path), "--print", "--step", "4",
                             "--seat", "1"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    replay = Replay.loads(good)
    states = list(replay.states())
    assert result.stdout.strip() == picture(replay, states, 4, seat=1).strip()
    assert result.stdout.startswith("--- step 4/")
    assert "You (player_1)" in result.stdout and "You (player_0)" not in result.stdout


def test_full_view_shows_every_seat() -> None:
    game = load_game("sobek")
    replay = Replay("sobek", 2, 3, {}, "original", [])
    states = list(replay.states())
    text = picture(replay, states, 0, full=True)
    for seat in range(2):
        assert game.render_text(states[0], seat) in text


def test_browse_steps_forwards_backwards_and_jumps(good: str) -> None:
    replay = Replay.loads(good)
    keys = iter(["", "n", "p", "7", "x", "q"])
    shown: list = []
    browse(replay, 0, False, 0, read=lambda prompt: next(keys), write=shown.append)
    steps = [int(s.split()[2].split("/")[0]) for s in shown if isinstance(s, str) and s.startswith("--- step")]
    assert steps == [0, 1, 2, 1, 7, 7]
    assert any("unknown key 'x'" in s for s in shown if isinstance(s, str))
    states = list(replay.states())
    drawn = [plain(s) for s in shown if not isinstance(s, str)]  # each step's table in colour, as seat 0 sees it
    assert drawn == [plain(load_game("sobek").render_rich(states[step], 0)) for step in steps]
    assert all("You (player_0)" in d and "You (player_1)" not in d for d in drawn)


# ---------------------------------------------------------------- pictures


def test_gif_has_a_frame_per_step(tmp_path: Path, good: str) -> None:
    from PIL import Image

    path, gif = tmp_path / "short.jsonl", tmp_path / "short.gif"
    replay = Replay.loads(good)
    replay.actions = replay.actions[:5]
    replay.save(path)
    result = subprocess.run([sys.executable, "-m", "sobek_env.replay", str(path), "--gif", str(gif), "--seat", "0"],
                            cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    with Image.open(gif) as image:
        assert image.n_frames == 6


@pytest.mark.parametrize("fails", ["write", "rename"])
def test_a_failed_save_names_the_file_asked_for_and_leaves_nothing_aside(
        tmp_path: Path, good: str, monkeypatch: pytest.MonkeyPatch, fails: str) -> None:
    def full(*args: object, **kwargs: object) -> None:
        if fails == "write":  # half of it written, as a disk filling up
            Path.write_bytes(args[0], good[:100].encode())
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(args[0]))

    if fails == "write":
        monkeypatch.setattr(Path, "write_text", full)
    else:
        monkeypatch.setattr(os, "replace", full)
    with pytest.raises(OSError) as error:
        Replay.loads(good).save(tmp_path / "game.jsonl")
    assert (error.value.errno, error.value.filename) == (errno.ENOSPC, str(tmp_path / "game.jsonl"))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("args", "message"), [
    (["--seconds", "inf"], "argument --seconds: must be more than 0 and at most 655.35 seconds, got inf"),
    (["--seconds", "nan"], "argument --seconds: must be more than 0 and at most 655.35 seconds, got nan"),
    (["--seconds", "1000"], "argument --seconds: must be more than 0 and at most 655.35 seconds, got 1000"),
    (["--every", "0"], "argument --every: must be 1 or more, got 0"),
])
def test_odd_numbers_for_a_gif_are_refused_naming_the_option(
        tmp_path: Path, good: str, args: list[str], message: str, capsys: pytest.CaptureFixture) -> None:
    from sobek_env.replay import main

    (tmp_path / "game.jsonl").write_text(good)
    with pytest.raises(SystemExit) as exit_info:
        main([str(tmp_path / "game.jsonl"), "--gif", str(tmp_path / "game.gif"), *args])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"sobek-env replay: error: {message}"
    assert list(tmp_path.iterdir()) == [tmp_path / "game.jsonl"]


@pytest.mark.parametrize(("output", "where", "status", "problem"), [
    ("--gif", "nodir/game.gif", 2, "(no directory '{tmp}/nodir')"),
    ("--png", "nodir/game.png", 2, "(no directory '{tmp}/nodir')"),
    ("--gif", "taken", 1, "(Is a directory)"),  # a directory where the picture should go
])
def test_a_picture_that_cannot_be_written_is_named_as_asked(
        tmp_path: Path, good: str, output: str, where: str, status: int, problem: str,
        capsys: pytest.CaptureFixture) -> None:
    from sobek_env.replay import main

    (tmp_path / "game.jsonl").write_text(good)
    (tmp_path / "taken").mkdir()
    with pytest.raises(SystemExit) as exit_info:
        main([str(tmp_path / "game.jsonl"), output, str(tmp_path / where), "--step", "2"])
    assert exit_info.value.code == status
    err = capsys.readouterr().err.splitlines()[-1]
    assert err.endswith(f"cannot write {str(tmp_path / where)!r} {problem.format(tmp=tmp_path)}")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.jsonl", "taken"]


def test_printing_into_a_closed_pipe_stops_quietly(tmp_path: Path, good: str) -> None:
    (tmp_path / "game.jsonl").write_text(good)
    process = subprocess.Popen([sys.executable, "-m", "sobek_env.replay", str(tmp_path / "game.jsonl"), "--print"],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    process.stdout.close()  # as | head does once it has its lines
    assert process.stderr.read() == "" and process.wait(60) == 1
