"""A training run's directory: its configuration, checkpoints, self-play snapshots and evaluation log.

Every file is written aside and renamed into place, so a killed run leaves each file whole, old
or new. A checkpoint is a directory ``checkpoints/step_N`` holding ``model.zip`` (the network,
the optimizer's state and the trainer's counters, in the safe model format) and ``state.json``
(its step count and the snapshots then playing, by name in ``snapshots/``). Resuming takes the
newest checkpoint that reads back whole, warning about any newer one that does not.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import json
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agents.common.files import DirectoryLock, lock_for_command, read_json, write_atomic
from agents.common.workers import sigterm_as_interrupt, stopped_by
from agents.players.modelfile import ModelFile
from agents.players.ppo import build_policy, load_ppo, load_state, read_model, save_ppo

if TYPE_CHECKING:
    from sb3_contrib import MaskablePPO

KEEP_CHECKPOINTS = 2
CHECKPOINT_PATTERN = "step_*[0-9]"
MAX_STATE_BYTES = 1024 * 1024


class RunError(Exception):
    """The run directory's files cannot be used; the message says why and what to do."""


@dataclass(frozen=True)
class Checkpoint:
    """A checkpoint read back whole: where it is, its step count, the snapshots then playing, the model."""

    path: Path
    timesteps: int
    snapshots: list[str]
    model: ModelFile
    cpu_seconds: float = 0.0  # what the run had spent by then (0 in checkpoints from before it was recorded)


def now() -> str:
    """The UTC time, for the records."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class Run:
    """The run directory ``out`` (see the module docstring)."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.config = out / "config.json"
        self.checkpoints = out / "checkpoints"
        self.snapshots = out / "snapshots"
        self.evaluations = out / "eval.csv"
        self.evaluated = out / "evaluated"  # with --keep-evaluated: each evaluation's model

    def write_config(self, config: dict) -> None:
        """Write config.json (aside, then renamed, so that a crash leaves the old one)."""
        self.out.mkdir(parents=True, exist_ok=True)
        write_atomic(self.config, json.dumps(config, indent=1) + "\n")

    def read_config(self) -> dict:
        """The run's configuration, as JSON; ValueError naming the file if it is not a bounded JSON object."""
        config = read_json(self.config)
        if not isinstance(config, dict):
            raise ValueError(f"{str(self.config)!r} holds a JSON {type(config).__name__}, not an object")
        return config

    # ------------------------------------------------------------ checkpoints

    def checkpoint_dirs(self) -> list[Path]:
        """The checkpoint directories, oldest first (a checkpoint being written has another name)."""
        return sorted(p for p in self.checkpoints.glob(CHECKPOINT_PATTERN) if p.is_dir())

    def read_checkpoint(self, path: Path, num_players: int, observation_mode: str) -> Checkpoint:
        """The checkpoint in ``path``, read and checked whole: its state, its model with the optimizer's state,
        and each snapshot it names; ValueError (or OSError) saying what is wrong."""
        state = read_json(path / "state.json", MAX_STATE_BYTES)
        if not (isinstance(state, dict) and isinstance(state.get("timesteps"), int)
                and isinstance(state.get("snapshots"), list) and all(isinstance(s, str) for s in state["snapshots"])):
            raise ValueError(f"{str(path / 'state.json')!r} lacks its timesteps (an integer) or snapshots "
                             "(a list of file names)")
        model = read_model(path / "model.zip", with_optimizer=True)
        training = model.meta.get("training")
        if model.optimizer is None or training is None:
            raise ValueError(f"{str(path / 'model.zip')!r} has no optimizer state: it is a model, not a checkpoint")
        policy = build_policy(model.meta)  # the tensors must fit the network the metadata describes
        load_state(policy, model.policy, path / "model.zip")
        load_state(policy.optimizer, model.optimizer, path / "model.zip", "optimizer")
        if training["num_timesteps"] != state["timesteps"]:
            raise ValueError(f"{str(path / 'model.zip')!r} is at {training['num_timesteps']:,} steps but its "
                             f"state.json says {state['timesteps']:,}")
        # state.json names files in snapshots/, so a run may move (the first checkpoints stored whole paths)
        snapshots = [str(self.snapshots / Path(name).name) for name in state["snapshots"]]
        for snapshot in snapshots:
            load_ppo(snapshot, num_players=num_players, observation_mode=observation_mode)
        cpu = state.get("cpu_seconds", 0.0)
        if isinstance(cpu, bool) or not isinstance(cpu, (int, float)) or not 0 <= cpu < 1e12:
            raise ValueError(f"{str(path / 'state.json')!r} has cpu_seconds={cpu!r}, not a number of seconds")
        return Checkpoint(path, state["timesteps"], snapshots, model, float(cpu))

    def last_checkpoint(self, num_players: int, observation_mode: str) -> Checkpoint | None:
        """The newest checkpoint that reads back whole, warning on stderr about each newer one that does not;
        None if there is none; RunError if there are checkpoints but none can be used."""
        problems = []
        for path in reversed(self.checkpoint_dirs()):
            try:
                checkpoint = self.read_checkpoint(path, num_players, observation_mode)
            except (ValueError, OSError) as exc:
                problems.append(f"{path.name}: {exc}")
                print(f"warning: the checkpoint {str(path)!r} cannot be used ({exc}); "
                      "trying the one before", file=sys.stderr)
                continue
            return checkpoint
        if problems:
            raise RunError(f"no usable checkpoint in {str(self.checkpoints)!r} ({'; '.join(problems)}); "
                           "start a new run in another --out")
        return None

    def save_checkpoint(self, model: MaskablePPO, meta: dict, snapshots: list[str], cpu_seconds: float = 0.0) -> Path:
        """Model with optimizer, snapshots in play, step count and the CPU seconds spent so far; written aside,
        then renamed.

        Checkpoints of later steps (from a continuation that was lost, since this one resumed
        before them) are removed, so the newest checkpoint is always this run's last one.
        """
        steps = model.num_timesteps
        self.checkpoints.mkdir(parents=True, exist_ok=True)
        for leftover in self.checkpoints.glob(".step_*"):  # a checkpoint being written when a run was killed
            shutil.rmtree(leftover, ignore_errors=True)
        final = self.checkpoints / f"step_{steps:010d}"
        aside = Path(tempfile.mkdtemp(dir=self.checkpoints, prefix=f".{final.name}."))
        save_ppo(model, aside / "model.zip", meta)
        state = {"timesteps": steps, "snapshots": [Path(p).name for p in snapshots], "saved": now(),
                 "cpu_seconds": round(cpu_seconds, 1)}
        write_atomic(aside / "state.json", json.dumps(state, indent=1) + "\n")
        aside.chmod(0o755)
        shutil.rmtree(final, ignore_errors=True)
        aside.rename(final)
        done = self.checkpoint_dirs()
        stale = [p for p in done if p.name > final.name]
        for old in stale + [p for p in done if p not in stale][:-KEEP_CHECKPOINTS]:
            shutil.rmtree(old)
        return final

    def save_snapshot(self, model: MaskablePPO, meta: dict) -> str:
        """Freeze the model for self-play (without its optimizer); its path."""
        self.snapshots.mkdir(parents=True, exist_ok=True)
        path = self.snapshots / f"step_{model.num_timesteps:010d}.zip"
        save_ppo(model, path, meta, with_optimizer=False)
        return str(path)

    # ------------------------------------------------------------ evaluations

    def read_evaluations(self) -> tuple[list[str], list[dict[str, str]]]:
        """eval.csv's columns and rows (none if there is no file)."""
        if not self.evaluations.is_file():
            return [], []
        reader = csv.DictReader(io.StringIO(self.evaluations.read_text(), newline=""))
        rows = [row for row in reader if None not in row and None not in row.values()]  # a cut-off last line
        return list(reader.fieldnames or []), rows

    def write_evaluations(self, columns: list[str], rows: list[dict[str, Any]]) -> None:
        """eval.csv with these rows, written aside, then renamed."""
        text = io.StringIO()
        writer = csv.DictWriter(text, fieldnames=columns, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
        write_atomic(self.evaluations, text.getvalue().encode())

    def log_eval(self, row: dict) -> None:
        """Add an evaluation to eval.csv."""
        columns, rows = self.read_evaluations()
        self.write_evaluations(columns or list(row), [*rows, row])

    def drop_evaluations_after(self, steps: int) -> int:
        """Remove the evaluations of steps beyond ``steps`` (made by a continuation that was lost, and made
        again by the run resuming at ``steps``), and their kept models; how many evaluations were removed."""
        columns, rows = self.read_evaluations()
        kept = [row for row in rows if not row.get("timesteps", "").isdigit() or int(row["timesteps"]) <= steps]
        if len(kept) < len(rows):
            self.write_evaluations(columns, kept)
        for path in self.evaluated.glob("step_*.zip") if self.evaluated.is_dir() else ():
            number = path.name.removeprefix("step_").split(".")[0]
            if number.isdigit() and int(number) > steps:
                path.unlink()
        return len(rows) - len(kept)

    def keep_evaluated(self, steps: int, model: Path) -> Path:
        """Keep a copy of the model file an evaluation at ``steps`` played (written aside, then renamed); its
        path, beside which a ``net:`` model of it may go (:meth:`evaluated_net`)."""
        self.evaluated.mkdir(parents=True, exist_ok=True)
        path = self.evaluated / f"step_{steps:010d}.zip"
        write_atomic(path, model.read_bytes())
        return path

    def evaluated_net(self, steps: int) -> Path:
        """Where the ``net:`` model of the evaluation at ``steps`` goes."""
        return self.evaluated / f"step_{steps:010d}.net.zip"


# ---------------------------------------------------------------- the command line of a run's directory


def run_options(parser: argparse.ArgumentParser, argv: Sequence[str] | None,
                resumable: Sequence[str]) -> tuple[dict[str, Any], Path, bool]:
    """The options given on the command line (without --out and --resume), the run's directory and whether the
    run resumes; exits with status 2 and one line if --resume finds no run there or is given options beyond the
    ``resumable`` ones, or a new run finds one there."""
    given = vars(parser.parse_args(argv))
    out: Path = given.pop("out")
    resume = given.pop("resume", False)
    if resume:
        if not (out / "config.json").is_file():
            parser.error(f"no run to resume in {str(out)!r} (no config.json); start one without --resume")
        refused = sorted(set(given) - set(resumable))
        if refused:
            options = ", ".join("--" + key.replace("_", "-") for key in refused)
            parser.error(f"--resume continues the run with its config.json; drop {options} "
                         "or start a new run in another --out")
    else:
        _refuse_a_run_in(parser, out)
    return given, out, resume


def lock_run(parser: argparse.ArgumentParser, out: Path, new: bool = False) -> DirectoryLock:
    """The lock of --out for this run (creating it), held until it ends: a second run there is refused, and so,
    for a ``new`` run, is one that another command started there meanwhile."""
    lock = lock_for_command(parser, out, "the run")
    if new:
        try:
            _refuse_a_run_in(parser, out)  # started while this one was checking its configuration
        except SystemExit:
            lock.release()
            raise
    return lock


def _refuse_a_run_in(parser: argparse.ArgumentParser, out: Path) -> None:
    if (out / "config.json").exists():
        parser.error(f"{str(out)!r} already holds a run; continue it with --resume or choose another --out")


@contextlib.contextmanager
def ending_a_run(prog: str, out: Path, lock: DirectoryLock, resume_hint: Callable[[Path], str]) -> Iterator[None]:
    """Around a run's training in ``out``: SIGTERM stops it as Ctrl-C does; a :class:`RunError` ends the command in
    one line (``prog: error: ...``, status 2), an interrupt with what stopped it and ``resume_hint(out)``; the
    run's ``lock`` is released however it ends."""
    try:
        with sigterm_as_interrupt():  # until the training handles it, then after
            yield
    except RunError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt as exc:
        what, status = stopped_by(exc)
        print(f"{what}; {resume_hint(out)}", file=sys.stderr)
        sys.exit(status)
    finally:
        lock.release()
