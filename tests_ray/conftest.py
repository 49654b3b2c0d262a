"""Ray's tests (make test-ray): a local Ray in this process, shared by the tests that play in it and stopped
before those that start Ray in a process of their own (two Rays at once slow a small machine down to
timeouts); and the suite's helpers from tests/."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # processes.py, hostile.py

RAY_CPUS = 2


def session(sid: int) -> list[int]:
    """The live processes of the session ``sid``: a driver started in a session of its own and all that its Ray
    started (Ray's workers lead process groups of their own, so a process group does not hold them)."""
    from processes import _stats

    return [pid for pid, fields in _stats() if int(fields[3]) == sid]


def command_line(pid: int) -> str:
    """The command line of ``pid`` ('' if it has ended); a Ray worker shows its task's name there."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


@pytest.fixture
def sessions() -> Iterator[list]:
    """Processes started in sessions of their own, killed with everything they started at the end."""
    import os
    import signal

    started: list = []
    yield started
    for process in started:
        for pid in session(process.pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        process.wait(30)


@pytest.fixture
def local_ray() -> ModuleType:
    """A local Ray of RAY_CPUS CPUs in this process (started by the first test that asks); the code under test
    finds it connected and uses it."""
    import ray

    if not ray.is_initialized():
        ray.init(address="local", num_cpus=RAY_CPUS, include_dashboard=False, logging_level="ERROR",
                 log_to_driver=False)
    return ray


@pytest.fixture
def no_local_ray() -> None:
    """No Ray in this process: the test starts its own elsewhere."""
    import ray

    ray.shutdown()


@pytest.fixture(scope="session", autouse=True)
def stop_ray_at_the_end() -> Iterator[None]:
    yield
    import ray

    ray.shutdown()
