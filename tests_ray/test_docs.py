"""Every Python block of docs/ray.md runs as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parent.parent / "docs" / "ray.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)


def test_the_doc_has_python_blocks() -> None:
    assert BLOCKS


@pytest.mark.parametrize("block", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_each_python_block_of_the_ray_doc_runs(no_local_ray: None, block: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(DOC.parent.parent)
    exec(compile(block, f"docs/ray.md block starting {block[:40]!r}", "exec"), {"__name__": "doc"})
