"""Every Python block of README.md and of the documentation (docs/**/*.md) runs as written, so neither can
drift from the code.

Left out, each named below: the blocks for Tianshou, TorchRL and RLlib, which need libraries the project does
not depend on (they were run by hand in a venv of their own; docs/clients.md gives the versions; the blocks
of docs/ray.md run in tests_ray/test_docs.py, with Ray), and the specification (docs/spec/), whose blocks
sketch the interface's names rather than run.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "docs" / "spec"
PAGES = [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").rglob("*.md") if SPEC not in p.parents)]
OTHER_LIBRARIES = re.compile(r"^\s*(from|import) (tianshou|torchrl|ray)\b", re.M)
# (page, library) of every block left out because it needs a library the project does not depend on
LEFT_OUT = {("docs/clients.md", "tianshou"), ("docs/clients.md", "torchrl"), ("docs/clients.md", "ray"),
            ("docs/ray.md", "ray")}


def blocks(page: Path) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", page.read_text(encoding="utf-8"), flags=re.S | re.M)


BLOCKS = [(page.relative_to(ROOT).as_posix(), block) for page in PAGES for block in blocks(page)]
OWN = [(name, block) for name, block in BLOCKS if not OTHER_LIBRARIES.search(block)]


def test_only_the_other_libraries_blocks_are_left_out() -> None:
    left_out = {(name, OTHER_LIBRARIES.search(block).group(2)) for name, block in BLOCKS
                if OTHER_LIBRARIES.search(block)}
    assert left_out == LEFT_OUT
    assert {name for name, _ in OWN} >= {"README.md", "docs/environments.md", "docs/clients.md", "docs/play.md"}


@pytest.mark.parametrize(("page", "block"), OWN, ids=[f"{name}:{i}" for i, (name, _) in enumerate(OWN)])
def test_each_python_block_runs(page: str, block: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # blocks name files from the repository's root (models/ppo-2p.zip)
    exec(compile(block, f"{page} block starting {block[:40]!r}", "exec"), {"__name__": "doc"})
