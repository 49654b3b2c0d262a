"""Playing in the terminal: the human agent, and sobek-env play driven as a person would, in a
pseudo-terminal: a legal choice, an illegal one (refused, nothing changes), save, quit, --load, to the end."""

from __future__ import annotations

import os
import pty
import re
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agents import make
from agents.players.human import QuitGame
from sobek_env import load_game
from sobek_env.console import plain
from sobek_env.replay import Replay

ROOT = Path(__file__).resolve().parent.parent
PROMPT = re.compile(r"player_(\d)> ")

# ---------------------------------------------------------------- the human agent


def scripted(answers: list[str], game: str = "sobek", num_players: int = 2):
    """A human agent reading ``answers`` and writing into the returned list (rich drawings as their text)."""
    agent = make("human", game=game, num_players=num_players)
    shown: list[str] = []
    keys = iter(answers)

    def read(prompt: str) -> str:
        try:
            return next(keys)
        except StopIteration:
            raise EOFError from None

    agent.read = read
    agent.write = lambda item: shown.append(item if isinstance(item, str) else plain(item))
    return agent, shown


def observation(state) -> dict:
    """The seat to move's observation dict, as the environment gives it."""
    import numpy as np

    game = load_game("sobek")
    mask = np.zeros(game.num_actions, dtype=np.int8)
    mask[state.legal_actions()] = 1
    return {"observation": game.observer(state.num_players).encode(state, state.current_player), "action_mask": mask}


def test_human_chooses_by_number_or_name_and_refuses_the_rest() -> None:
    state = load_game("sobek").new(2, 3)
    legal = state.legal_actions()
    agent, shown = scripted(["0", "99", "take:8", "nonsense", "help", "save x.jsonl", "2"])
    assert agent.act(observation(state), state=state) == legal[1]
    refusals = [i for i, s in enumerate(shown) if "nothing changed" in s]
    assert len(refusals) == 4
    assert "'take:8' is not legal now" in shown[refusals[2]]
    names = load_game("sobek").action_names
    for i in refusals:  # each refusal lists the legal actions again, numbered, each said in the game's words
        menu = [line for line in shown[i + 1].splitlines() if line.split()[0].isdigit()]  # long words wrap
        assert len(menu) == len(legal)
        assert all(line.split()[:2] == [str(n), names[a]] for n, (line, a) in enumerate(zip(menu, legal), 1))
        said = " ".join(shown[i + 1].split())
        assert all(load_game("sobek").describe_action(state, a) in said for a in legal)
    assert "take a face-down character from Nile position 0; nothing goes to your corruption pile" in \
        " ".join(shown[refusals[0] + 1].split())
    assert any("cannot be saved" in s for s in shown)
    agent, _ = scripted(["take:2"])
    assert agent.act(observation(state), state=state) == load_game("sobek").action_id("take:2")


def test_human_sees_only_his_seat() -> None:
    game = load_game("sobek")
    state = game.new(2, 3)
    agent, shown = scripted(["1"])
    agent.act(observation(state), state=state)
    assert shown[0] == plain(game.render_rich(state, state.current_player))
    assert f"You (player_{state.current_player})" in shown[0]


@pytest.mark.parametrize("answers", [["quit"], []])
def test_quit_or_the_end_of_input_leaves(answers: list[str]) -> None:
    state = load_game("sobek").new(2, 3)
    agent, _ = scripted(answers)
    with pytest.raises(QuitGame):
        agent.act(observation(state), state=state)


def test_human_sits_at_every_game() -> None:
    for name in ("sobek", "kleopatra"):
        assert make("human", game=name, num_players=3).name == "human"
    with pytest.raises(ValueError, match="takes no arguments"):
        make("human:x=1")


# ---------------------------------------------------------------- the command in a pseudo-terminal


class Terminal:
    """``sobek-env play ARGS`` on a pseudo-terminal, read and typed into as a person would."""

    def __init__(self, *args: str) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"}
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: its controlling terminal is the pty, so Ctrl-C is a SIGINT
            signal.signal(signal.SIGINT, signal.SIG_DFL)  # a runner in the background may have it ignored,
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # or blocked (the mask survives exec)
            os.chdir(ROOT)
            os.execve(sys.executable, [sys.executable, "-m", "agents.apps.cli", "play", *args], env)
        self.text = ""

    def expect(self, pattern: str | re.Pattern, timeout: float = 60) -> re.Match:
        """Read until ``pattern`` appears in what came since the last match; the match."""
        regex = re.compile(pattern) if isinstance(pattern, str) else pattern
        deadline = time.monotonic() + timeout
        while True:
            match = regex.search(self.text)
            if match:
                self.seen, self.text = self.text[:match.end()], self.text[match.end():]
                return match
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                raise AssertionError(f"timed out waiting for {regex.pattern!r}; got:\n{self.text[-3000:]}")
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                raise AssertionError(f"the program ended before {regex.pattern!r}; got:\n{self.text[-3000:]}")
            self.text += chunk.decode(errors="replace").replace("\r\n", "\n")

    def type(self, line: str) -> None:
        os.write(self.fd, line.encode() + b"\n")

    def press_ctrl_c(self) -> None:
        """Ctrl-C once the program waits at its prompt. Python's ``input`` writes the prompt, then reads:
        a SIGINT between the two only sets a flag that the blocked read never looks at, so a person's
        Ctrl-C, a moment after the prompt, would be missed if it came in that gap (seen 1 run in 6
        under load). Wait until the program sleeps (``/proc``, where there is one)."""
        stat = Path(f"/proc/{self.pid}/stat")
        deadline = time.monotonic() + 10
        while stat.exists() and time.monotonic() < deadline:
            if stat.read_text().rpartition(")")[2].split()[0] == "S":
                break
            time.sleep(0.01)
        time.sleep(0.05)
        os.write(self.fd, b"\x03")

    def status(self, timeout: float = 60) -> int:
        """Read to the end and return the exit status."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.drain()
                os.close(self.fd)
                return os.waitstatus_to_exitcode(status)
            self.drain(0.1)
        os.kill(self.pid, signal.SIGKILL)
        raise AssertionError("the program did not end")

    def drain(self, timeout: float = 0.0) -> None:
        while select.select([self.fd], [], [], timeout)[0]:
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:
                return
            if not chunk:
                return
            self.text += chunk.decode(errors="replace").replace("\r\n", "\n")
            timeout = 0.0


def menu_before(seen: str) -> str:
    """The last list of legal actions in ``seen``."""
    return seen.rpartition("The legal actions are:\n")[2] if "nothing changed" in seen else \
        seen.rpartition("Your choices:\n")[2]


def test_play_save_quit_load_and_finish(tmp_path: Path) -> None:
    saved, kept, final = tmp_path / "saved.jsonl", tmp_path / "kept.jsonl", tmp_path / "final.jsonl"
    term = Terminal("--game", "sobek", "--players", "2", "--agents", "human", "random", "--seed", "5",
                    "--pause", "0", "--save", str(kept))
    assert term.expect(PROMPT).group(1) == "0"
    first = term.seen
    assert "You (player_0)" in first and "You (player_1)" not in first
    term.type("1")
    term.expect(r"player_0 \(human\): take:\d")
    term.expect(PROMPT)
    menu = menu_before(term.seen).rpartition("\n")[0]
    term.type("999")
    term.expect(PROMPT)
    assert "'999' is neither a number from the list nor an action; nothing changed" in term.seen
    assert menu_before(term.seen).rpartition("\n")[0] == menu  # the same choices: nothing changed
    before = Replay.load(kept).actions
    term.type(f"save {saved}")
    term.expect(PROMPT)
    assert f"saved to {saved}" in term.seen
    term.type("quit")
    term.expect("You left the game")
    assert term.status() == 0
    assert "Traceback" not in term.text
    replay = Replay.load(saved)
    assert replay.actions == before and replay.agents == ["human", "random"] and replay.seed == 5
    assert not replay.final_state().is_over

    term = Terminal("--load", str(saved), "--pause", "0", "--save", str(final))
    term.expect(f"resumed after {len(before)} actions")
    while True:
        match = term.expect(re.compile(r"player_0> |Game over\. Scores: .*\n.*\n"))
        if match.group(0).startswith("Game over"):
            break
        term.type("1")
    assert term.status() == 0
    ended = Replay.load(final)
    state = ended.final_state()
    assert state.is_over and ended.actions[:len(before)] == before
    assert f"player_0 (human) {state.scores[0]}, player_1 (random) {state.scores[1]}" in match.group(0)
    assert f"player_{state.winners[0]}" in match.group(0).splitlines()[1]


def test_ctrl_c_leaves_cleanly(tmp_path: Path) -> None:
    term = Terminal("--game", "kleopatra", "--agents", "random", "human", "greedy", "--seed", "2", "--pause", "0",
                    "--save", str(tmp_path / "g.jsonl"))
    term.expect(r"player_1> ")
    term.press_ctrl_c()
    term.expect("Game interrupted")
    assert term.status() == 130
    assert "Traceback" not in term.text and "KeyboardInterrupt" not in term.text
    assert not Replay.load(tmp_path / "g.jsonl").final_state().is_over


def test_wait_shows_one_agent_move_per_key_and_the_table_in_colour(tmp_path: Path) -> None:
    term = Terminal("--game", "kleopatra", "--players", "2", "--agents", "heuristic", "human", "--seed", "3",
                    "--wait", "--pause", "0")
    waits = 0
    while waits < 4:
        match = term.expect(re.compile(r"Enter: next move |player_1> "))
        if match.group(0).startswith("Enter"):
            moves = re.findall(r"player_\d \((?:heuristic|human)\): \S+", term.seen)
            assert len(moves) == 1 and moves[0].startswith("player_0 (heuristic)")  # one move per key
            waits += 1
            term.type("")
        else:
            table = term.seen
            assert "You (player_1)" in table and "You (player_0)" not in table
            assert "sphinx alley" in table and "Market" in table and "Your choices:" in table
            term.type("1")
    term.expect(re.compile(r"Enter: next move |player_1> "))
    term.press_ctrl_c()
    term.expect("Game interrupted")
    assert term.status() == 130
    assert "Traceback" not in term.text


# ---------------------------------------------------------------- saves that fail


def test_a_save_file_that_cannot_be_written_is_refused_before_the_game(tmp_path: Path) -> None:
    target = tmp_path / "nodir" / "x.jsonl"
    result = subprocess.run([sys.executable, "-m", "agents.apps.play", "--agents", "human", "random", "--save",
                             str(target)], cwd=ROOT, input="quit\n", capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1] == (f"sobek-env play: error: argument --save: cannot write "
                                              f"{str(target)!r} (No such file or directory); choose another file")
    assert "kept" not in result.stdout and "Traceback" not in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_save_that_fails_during_the_game_says_so_at_once_and_at_the_end(tmp_path: Path) -> None:
    folder = tmp_path / "saves"
    folder.mkdir()
    term = Terminal("--game", "sobek", "--agents", "human", "random", "--seed", "5", "--pause", "0",
                    "--save", str(folder / "g.jsonl"))
    move = re.compile(r"player_\d \((?:human|random)\): .*\n(.*)")
    term.expect(PROMPT)
    saved = len(move.findall(term.seen))  # the moves before the person's first choice (saved)
    shutil.rmtree(folder)  # the place of the saves is gone (as a full disk, an unmounted drive)
    term.type("1")
    term.expect(PROMPT)
    moves = move.findall(re.sub(r"\x1b\[[\d;]*m", "", term.seen))
    assert len(moves) >= 2  # each move is followed at once by its failed save
    assert all(line == f"could not save to {str(folder / 'g.jsonl')!r} (No such file or directory); "
                       "the game goes on unsaved" for line in moves)
    term.type("quit")
    term.expect(r"You left the game\..*\n")
    assert term.seen.rpartition("You left the game.")[2].strip() == (
        f"The game could not be saved to {folder / 'g.jsonl'} (No such file or directory); the last save there "
        f"was after {saved} of its {saved + len(moves)} actions.")
    assert term.status() == 0 and "Traceback" not in term.text
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------- odd numbers


@pytest.mark.parametrize(("args", "message"), [
    (["--pause", "nan"], "argument --pause: must be from 0 to 3600 seconds, got nan"),
    (["--pause", "inf"], "argument --pause: must be from 0 to 3600 seconds, got inf"),
    (["--pause", "-0.5"], "argument --pause: must be from 0 to 3600 seconds, got -0.5"),
    (["--seed", "-1"], "argument --seed: must be 0 or more, got -1"),
])
def test_odd_numbers_are_refused_naming_the_option_before_the_game(
        args: list[str], message: str, capsys: pytest.CaptureFixture) -> None:
    from agents.apps.play import main

    with pytest.raises(SystemExit) as exit_info:
        main(["--agents", "random", "random", *args])
    assert exit_info.value.code == 2
    out, err = capsys.readouterr()
    assert err.splitlines()[-1] == f"sobek-env play: error: {message}" and out == ""
