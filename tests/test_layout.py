"""The project's layout: no import circles between its modules, and the library (sobek_env) sealed from the
agents package and the learning libraries."""

from __future__ import annotations

import ast
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import agents
import sobek_env
from sobek_env.registry import load_game

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("sobek_env", "agents")
SEALED_FROM = ("agents", "torch", "stable_baselines3")

# Imports inside a function that close a circle, each kept on purpose: the pickling of a game object by its
# registry name and a Python state finding its game object (which writes, reads and resamples it) the same way,
# Sobek's document reader ending with the invariants checker (which reads states), and Kleopatra's rules options
# that build the palace's geometry (which reads the catalogue's tables). Any other circle fails the test.
LAZY_CIRCLES = {
    ("sobek_env.game", "sobek_env.registry"),
    ("sobek_env.sobek.jsonstate", "sobek_env.sobek.invariants"),
    ("sobek_env.kleopatra.catalogue", "sobek_env.kleopatra.palace"),
}


def project_modules(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the project (both packages, their compiled sources, the top-level scripts) by dotted name."""
    found = {path.stem: path for path in root.glob("*.py") if path.name not in ("setup.py",)}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")) + sorted((root / package).rglob("*.pyx")):
            parts = path.relative_to(root).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


# a Cython source is not Python: its imports are read line by line (cimports are C-level and never circular here)
_CYTHON_IMPORT = re.compile(
    r"^(?P<indent>\s*)(?:from\s+(?P<source>[.\w]+)\s+import\s+(?P<names>[^#]+)|import\s+(?P<modules>[.\w, ]+))")


def _imports(path: Path, name: str) -> list[tuple[int, str, list[str], bool]]:
    """(level, module, imported names, at module level) of each import statement of the module at ``path``."""
    if path.suffix == ".pyx":
        found = []
        for line in path.read_text().splitlines():
            match = _CYTHON_IMPORT.match(line)
            if not match:
                continue
            top = not match["indent"]
            if match["modules"]:
                found += [(0, module.strip(), [], top) for module in match["modules"].split(",")]
            else:
                source = match["source"]
                level = len(source) - len(source.lstrip("."))
                names = [n.split(" as ")[0].strip(" ()\\") for n in match["names"].split(",")]
                found.append((level, source.lstrip("."), [n for n in names if n], top))
        return found
    found = []

    def visit(nodes: list[ast.stmt], top: bool) -> None:
        for node in nodes:
            if isinstance(node, ast.Import):
                found.extend((0, alias.name, [], top) for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                found.append((node.level, node.module or "", [alias.name for alias in node.names], top))
            elif isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                continue  # for type checkers only: never imported when the program runs
            inner = top and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            for field in ("body", "orelse", "finalbody", "handlers"):
                block = getattr(node, field, None)
                if isinstance(block, list):
                    visit(block, inner)

    visit(ast.parse(path.read_text(), str(path)).body, True)
    return found


def import_graph(modules: dict[str, Path]) -> dict[str, dict[str, bool]]:
    """For each module, the project modules it imports, each with whether some import of it is at module level."""
    graph: dict[str, dict[str, bool]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        edges: dict[str, bool] = {}
        for level, module, names, top in _imports(path, name):
            if level:
                base = package.split(".")[: len(package.split(".")) - level + 1]
                module = ".".join(base + ([module] if module else []))
            targets = [f"{module}.{n}" if f"{module}.{n}" in modules else module for n in names] or [module]
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    edges[target] = edges.get(target, False) or top
        graph[name] = edges
    return graph


def circles(graph: dict[str, dict[str, bool]], allowed: set[tuple[str, str]] = frozenset(),
            module_level_only: bool = False) -> list[list[str]]:
    """The import circles of ``graph`` (strongly connected groups of modules, each as one cycle through them),
    leaving out the edges of ``allowed`` and, with ``module_level_only``, the imports inside functions."""
    edges = {m: sorted(t for t, top in out.items() if (top or not module_level_only) and (m, t) not in allowed)
             for m, out in graph.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def strong(v: str) -> None:  # Tarjan's algorithm
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in edges[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            strong(v)
    return [_cycle(group, edges) for group in groups]


def _cycle(group: list[str], edges: dict[str, list[str]]) -> list[str]:
    """One cycle through the first module of a strongly connected ``group``, for the message."""
    start, members = group[0], set(group)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in edges[v]:
                if w == start:
                    return paths[v] + [start]
                if w in members and w not in paths:
                    paths[w] = paths[v] + [w]
                    nxt.append(w)
        frontier = nxt
    return group


def _said(found: list[list[str]]) -> str:
    return "; ".join(" -> ".join(cycle) for cycle in found)


def test_the_graph_sees_every_kind_of_import(tmp_path: Path) -> None:
    """The detector itself: a circle through relative, absolute, from-package and function-level imports is found,
    and a TYPE_CHECKING import is not counted."""
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "__init__.py").write_text("")
    (tmp_path / "agents" / "a.py").write_text("from . import b\n")
    (tmp_path / "agents" / "b.py").write_text("from agents.c import thing\n")
    (tmp_path / "agents" / "c.py").write_text("def f():\n    import agents.a\n")
    (tmp_path / "agents" / "d.py").write_text("from typing import TYPE_CHECKING\n"
                                              "if TYPE_CHECKING:\n    import agents.e\n")
    (tmp_path / "agents" / "e.py").write_text("import agents.d\n")
    (tmp_path / "sobek_env").mkdir()
    graph = import_graph(project_modules(tmp_path))
    assert circles(graph) == [["agents.a", "agents.b", "agents.c", "agents.a"]]
    assert circles(graph, module_level_only=True) == []
    assert circles(graph, allowed={("agents.c", "agents.a")}) == []


def test_no_module_level_import_circle() -> None:
    found = circles(import_graph(project_modules()), module_level_only=True)
    assert not found, f"modules import each other at module level: {_said(found)}"


def test_no_import_circle_but_the_few_kept_inside_functions() -> None:
    """A function-level import may close a circle only where LAZY_CIRCLES says why; every entry is still needed."""
    graph = import_graph(project_modules())
    found = circles(graph, LAZY_CIRCLES)
    assert not found, f"modules import each other (move the shared part down, or pass it in): {_said(found)}"
    for importer, imported in LAZY_CIRCLES:
        assert graph[importer].get(imported) is False, f"{importer} no longer imports {imported} inside a function"
        assert circles(graph, LAZY_CIRCLES - {(importer, imported)}), f"{importer} -> {imported} closes no circle"


def _sobek_env_modules() -> list[str]:
    """Every module of sobek_env: its Python modules, and its compiled ones where they were built here."""
    return sorted(name for name, path in project_modules().items() if name.split(".")[0] == "sobek_env"
                  and (path.suffix == ".py" or importlib.util.find_spec(name) is not None))


def _loaded_after(code: str) -> list[str]:
    """Which of SEALED_FROM a fresh interpreter has loaded after running ``code``."""
    probe = f"{code}\nimport sys\nprint(' '.join(m for m in {SEALED_FROM!r} if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.split()


def test_every_sobek_env_module_is_listed() -> None:
    names = _sobek_env_modules()
    assert {"sobek_env", "sobek_env.env", "sobek_env.single", "sobek_env.vector", "sobek_env.sobek.state",
            "sobek_env.kleopatra.game", "sobek_env.arguments"} <= set(names)


def test_no_sobek_env_module_imports_agents_nor_a_learning_library() -> None:
    """Every module imported in turn in one fresh interpreter, which after each import lists what of SEALED_FROM
    that import brought in: a sealed module is loaded only by the first import that needs it, so a leak is
    named against the first module that makes it, and no leak hides behind another."""
    modules = _sobek_env_modules()
    probe = (f"import importlib, sys\nfor module in {modules!r}:\n    before = set(sys.modules)\n"
             "    importlib.import_module(module)\n"
             f"    print(module, *sorted(m for m in {SEALED_FROM!r} if m in sys.modules and m not in before))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    loaded = {line.split()[0]: line.split()[1:] for line in done.stdout.splitlines()}
    assert list(loaded) == modules
    leaks = {module: found for module, found in loaded.items() if found}
    assert not leaks, "; ".join(f"importing {module} imports {', '.join(found)}" for module, found in leaks.items())


@pytest.mark.parametrize("game_id", ["sobek_env/Sobek-v1", "sobek_env/Kleopatra-v1"])
def test_gymnasium_ids_play_the_built_in_random_opponent_without_agents(game_id: str) -> None:
    code = (f"import gymnasium, numpy, sobek_env\nenv = gymnasium.make({game_id!r})\nenv.reset(seed=3)\n"
            "for _ in range(30):\n"
            "    _, _, over, _, _ = env.step(int(numpy.flatnonzero(env.unwrapped.action_masks())[0]))\n"
            "    if over: env.reset()\n")
    assert _loaded_after(code) == []


def test_vector_env_with_random_opponents_needs_no_agents() -> None:
    code = ("import numpy, sobek_env\nv = sobek_env.vector_env(num_envs=2, engine='python', seed=1)\nv.reset()\n"
            "v.step(numpy.array([int(numpy.flatnonzero(m)[0]) for m in v.action_masks()]))")
    assert _loaded_after(code) == []


def test_the_built_in_random_opponent_draws_as_the_agents_random() -> None:
    """The Gymnasium ids' default opponent plays the games ``agents.make("random")`` played there before."""
    def episode(opponents: object) -> list[float]:
        env = sobek_env.SingleAgentEnv(opponents, num_players=3, seat=0)
        observation, _ = env.reset(seed=11)
        seen = [float(observation.sum())]
        for _ in range(60):
            observation, _, over, _, _ = env.step(int(np.flatnonzero(env.action_masks())[-1]))
            seen.append(float(observation.sum()))
            if over:
                break
        return seen

    table = load_game("sobek").table(3)
    assert episode("random") == episode([agents.make("random", table=table), agents.make("random", table=table)])


def test_an_opponent_factory_builds_the_specs() -> None:
    made = []

    def factory(spec: str, table: object) -> object:
        made.append((spec, table))
        return agents.RandomAgent(table=table)

    env = sobek_env.SingleAgentEnv(["greedy", "random"], num_players=3, make_agent=factory)
    assert made == [("greedy", env.table)] and isinstance(env.opponents[0], agents.RandomAgent)
    vector = sobek_env.vector_env(num_envs=2, num_players=3, opponents=("heuristic",), make_agent=factory)
    assert [spec for spec, _ in made[1:]] == ["heuristic", "heuristic"] and vector.opponents[0].name == "random"
    with pytest.raises(ValueError, match="opponent 7 is neither an agent spec nor an agent with act"):
        sobek_env.SingleAgentEnv([7, "random"], num_players=3)
