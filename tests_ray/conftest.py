"""Ray's tests (make test-ray): a local Ray in this process, shared by the tests that play in it and stopped
before those that start Ray in a process of their own (two Rays at once slow a small machine down to
timeouts); and the suite's helpers from tests/."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # processes.py, hostile.py

RAY_CPUS = 2


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
