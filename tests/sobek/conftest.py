"""The ``engine`` fixture: the rule tests that use it run once per engine (the native one where it was built)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sobek_env.sobek import NativeState

from . import scenario

ENGINES = ["python"] if NativeState is None else ["python", "native"]


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> Iterator[str]:
    """Makes :func:`scenario.build` (and load) deal states on the engine of this run."""
    scenario.ENGINE = request.param
    yield request.param
    scenario.ENGINE = "python"
