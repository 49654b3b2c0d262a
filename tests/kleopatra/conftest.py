"""The ``scenario_engine`` fixture: a rule test module marked with it runs once per engine (``scenario.ENGINES``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from . import scenario


@pytest.fixture(params=scenario.ENGINES)
def scenario_engine(request: pytest.FixtureRequest) -> Iterator[str]:
    scenario.engine = request.param
    yield request.param
    scenario.engine = "python"
