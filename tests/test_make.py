"""The Makefile's checks: make test lists its slowest tests, make test-long runs every long check the suite
leaves out (each test module that reads SOBEK_LONG, the stress command of each game), and .ci/run runs the
suite."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def dry_run(target: str) -> list[str]:
    """The commands ``make TARGET`` would run, without running them (the install's too if it is due)."""
    if shutil.which("make") is None:
        pytest.fail("make is not installed: the project's checks are run by it")
    result = subprocess.run(["make", "-n", target], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def test_make_test_lists_the_20_slowest_tests() -> None:
    (suite,) = [line for line in dry_run("test") if " -m pytest " in line]
    assert "--durations=20" in suite.split()


def test_make_test_long_runs_every_module_that_reads_sobek_long_and_the_stress_command() -> None:
    commands = dry_run("test-long")
    (long_suite,) = [line for line in commands if " -m pytest " in line]
    assert long_suite.startswith("SOBEK_LONG=1 ")
    reading = {str(p.relative_to(ROOT)) for p in (ROOT / "tests").rglob("test_*.py") if "SOBEK_LONG" in p.read_text()}
    assert len(reading) >= 10 and reading <= set(long_suite.split())
    for game in ("sobek", "kleopatra"):
        (stress,) = [line for line in commands if re.search(rf"sobek-env stress --game {game} --games \d+", line)]
        assert int(re.search(r"--games (\d+)", stress).group(1)) > 90  # more than the suite's


def test_ci_runs_the_suite_first() -> None:
    steps = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line.startswith("make ")]
    assert steps[0] == "make test" and "make docs" in steps and "make test-web" in steps
