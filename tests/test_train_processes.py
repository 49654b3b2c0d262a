"""Training as a real process: killed or stopped, it leaves no worker behind, and SIGTERM checkpoints as Ctrl-C does.

Each run is a session of its own, so that every process it started (its environment workers are
forked) can be found in /proc by its process group, and killed at the end whatever happened.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from processes import children, group, wait_for

from agents.training import sb3 as training

ROOT = Path(__file__).resolve().parent.parent
TINY = ["--players", "2", "--envs", "2", "--n-steps", "256", "--batch-size", "256", "--epochs", "1", "--net", "16",
        "--checkpoint-every", "1024", "--snapshot-every", "1024", "--eval-every", "4096", "--eval-games", "2",
        "--seed", "3", "--pool", "random"]

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds processes in /proc")


@pytest.fixture
def start(tmp_path: Path) -> Iterator:
    """Start train.py in a session of its own; at the end, kill whatever is left of it."""
    started: list[subprocess.Popen] = []

    def launch(*args: str) -> subprocess.Popen:
        process = subprocess.Popen([sys.executable, "train.py", *args], cwd=ROOT, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True, start_new_session=True)
        started.append(process)
        return process

    yield launch
    for process in started:
        for pid in group(process.pid):
            os.kill(pid, signal.SIGKILL)
        process.wait(10)


def training_under_way(process: subprocess.Popen, out: Path) -> None:
    """Wait for the first checkpoint: the workers are running and the run has learned something."""
    wait_for(lambda: (out / "checkpoints" / "step_0000001024").is_dir() or process.poll() is not None, 120,
             "the first checkpoint")
    assert process.poll() is None, process.communicate()
    assert len(children(process.pid)) == 2  # the two environment workers


def test_sigkill_of_the_trainer_leaves_no_worker(start, tmp_path: Path) -> None:
    out = tmp_path / "run"
    process = start(*TINY, "--timesteps", "100000", "--out", str(out))
    training_under_way(process, out)
    os.kill(process.pid, signal.SIGKILL)
    process.wait(10)
    wait_for(lambda: not group(process.pid), 10, "the workers to end with their trainer")


def test_sigterm_checkpoints_like_ctrl_c_and_resume_continues(start, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "run"
    process = start(*TINY, "--timesteps", "3072", "--out", str(out))
    training_under_way(process, out)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 128 + signal.SIGTERM, err
    assert "Traceback" not in err
    last = max((out / "checkpoints").iterdir())
    steps = json.loads((last / "state.json").read_text())["timesteps"]
    assert steps >= 1024 and steps % 512 == 0  # a rollout boundary: 256 steps x 2 envs
    assert err.strip().splitlines()[-1] == (f"stopped by SIGTERM; sobek-env train --out {out} --resume continues "
                                            f"from the checkpoint at {steps:,} steps")
    wait_for(lambda: not group(process.pid), 10, "the workers to end")
    training.main(["--out", str(out), "--resume"])
    assert f"resuming from {last} at {steps:,} steps" in capsys.readouterr().out
    assert json.loads((out / "checkpoints" / "step_0000003072" / "state.json").read_text())["timesteps"] == 3072


def test_a_dead_worker_stops_the_run_with_one_clear_line_and_a_checkpoint(start, tmp_path: Path) -> None:
    out = tmp_path / "run"
    process = start(*TINY, "--timesteps", "100000", "--out", str(out))
    training_under_way(process, out)
    worker = min(children(process.pid))
    os.kill(worker, signal.SIGKILL)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 1, err
    assert "Traceback" not in err and "EOFError" not in err
    last = max((out / "checkpoints").iterdir())
    steps = json.loads((last / "state.json").read_text())["timesteps"]
    assert err.strip().splitlines()[-1] == (
        f"sobek-env train: error: environment worker 0 (process {worker}) was killed by SIGKILL; "
        f"sobek-env train --out {out} --resume continues from the checkpoint at {steps:,} steps")
    wait_for(lambda: not group(process.pid), 10, "the other worker to end")
