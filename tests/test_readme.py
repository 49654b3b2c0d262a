"""Every Python block of README.md runs as written, so the tour cannot drift from the code.

The blocks for Tianshou, TorchRL and RLlib need libraries the project does not depend on: they were run
by hand in a venv of their own (docs/clients.md gives the versions); the others run here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)
OTHER_CLIENTS = re.compile(r"^\s*(from|import) (tianshou|torchrl|ray)\b", re.M)
OWN = [block for block in BLOCKS if not OTHER_CLIENTS.search(block)]


def test_only_the_three_other_clients_blocks_are_left_out() -> None:
    left_out = [OTHER_CLIENTS.search(block).group(2) for block in BLOCKS if OTHER_CLIENTS.search(block)]
    assert sorted(left_out) == ["ray", "tianshou", "torchrl"] and len(OWN) >= 4


@pytest.mark.parametrize("block", OWN, ids=[f"block{i}" for i in range(len(OWN))])
def test_each_python_block_of_the_readme_runs(block: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(README.parent)
    exec(compile(block, f"README.md block starting {block[:40]!r}", "exec"), {"__name__": "readme"})
