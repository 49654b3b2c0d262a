"""README.md stays short and its links lead somewhere; every rules section the code cites exists.

The documentation site's own links and anchors are checked by its strict build (`make docs`).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
SPEC = ROOT / "docs" / "spec"
LINK = re.compile(r"\]\(([^)\s]+)\)")
CITATION = re.compile(r"§ ?(\d+)(?:\.(\d+))?")
# a game's code cites its own rules file (docs/spec/index.md, "How the code cites the rules")
RULES = {"sobek": SPEC / "SOBEK_RULES.md", "kleopatra": SPEC / "KLEOPATRA_RULES.md"}
CODE = ("*.py", "*.pyx", "*.hpp")


def test_readme_is_at_most_250_lines() -> None:
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 250


def test_every_relative_link_of_the_readme_resolves_to_a_file() -> None:
    targets = [t for t in LINK.findall(README.read_text(encoding="utf-8")) if not re.match(r"[a-z]+:", t)]
    assert targets, "the README links into the docs"
    missing = [t for t in targets if not (ROOT / t.split("#")[0]).is_file()]
    assert missing == []


def sections(rules: Path) -> set[str]:
    """'N' for every section, 'N.M' for every subsection heading and every item M of a section's numbered lists."""
    found: set[str] = set()
    section = None
    for line in rules.read_text(encoding="utf-8").splitlines():
        if heading := re.match(r"#{2,3} (\d+)(?:\.(\d+))?\.? ", line):
            section = heading.group(1)
            found.add(section if heading.group(2) is None else f"{section}.{heading.group(2)}")
        elif section and (item := re.match(r"\s*(\d+)\. ", line)):  # nested lists too (§10.2)
            found.add(f"{section}.{item.group(1)}")
    return found


def citations(game: str) -> dict[str, str]:
    """Each section the game's code, tests and docs pages cite, with one place that cites it."""
    paths = [path for folder in (ROOT / "sobek_env" / game, ROOT / "agents" / game, ROOT / "tests" / game)
             for pattern in CODE for path in sorted(folder.rglob(pattern))]
    paths += [ROOT / "docs" / "games" / f"{game}.md", *sorted((ROOT / "docs").glob(f"{game}_*.md"))]
    cited: dict[str, str] = {}
    for path in paths:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for major, minor in CITATION.findall(line):
                cited.setdefault(major if not minor else f"{major}.{minor}", f"{path.relative_to(ROOT)}:{number}")
    return cited


@pytest.mark.parametrize("game", sorted(RULES))
def test_every_rules_section_the_code_cites_exists(game: str) -> None:
    known = sections(RULES[game])
    cited = citations(game)
    assert len(cited) > 10
    assert {key: where for key, where in cited.items() if key not in known} == {}


def test_the_section_reader_finds_headings_and_items() -> None:
    kleopatra = sections(RULES["kleopatra"])
    assert {"5", "5.3", "14.1", "1.4"} <= kleopatra and "14.9" not in kleopatra
