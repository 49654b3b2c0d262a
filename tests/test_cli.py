"""The ``sobek-env`` command: declared as the project's console script, a subcommand for each tool whose
``--help`` works, dispatch to each module's ``main(argv)``, one-line errors, and the docs in its form."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from agents.apps import cli

ROOT = Path(__file__).resolve().parent.parent
# the tools the docs name: each must be a subcommand
TOOLS = ("play", "replay", "evaluate", "train", "web", "standing", "paired", "ladder", "departures", "swaps", "study",
         "curves", "convert", "imitate", "pack", "bench", "stress")


def command() -> list[str]:
    """The installed script beside this interpreter if there is one, else the module."""
    script = Path(sys.executable).with_name("sobek-env")
    if script.is_file() and shutil.which(str(script)):
        return [str(script)]
    return [sys.executable, "-m", "agents.apps.cli"]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*command(), *args], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "COLUMNS": "100"})


def declared_scripts() -> dict[str, str]:
    """pyproject.toml's [project.scripts] (tomllib from Python 3.11; before it, the section's lines)."""
    text = (ROOT / "pyproject.toml").read_text()
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: the section is name = "value" lines
        section = text.split("[project.scripts]\n", 1)[1].split("\n[", 1)[0]
        return dict(re.findall(r'^([\w-]+) = "([^"]+)"', section, flags=re.M))
    return tomllib.loads(text)["project"]["scripts"]


def test_pyproject_installs_the_command() -> None:
    scripts = declared_scripts()
    assert scripts == {"sobek-env": "agents.apps.cli:main"}
    module, _, function = scripts["sobek-env"].partition(":")
    assert callable(getattr(importlib.import_module(module), function))


def test_every_tool_is_a_subcommand_listed_on_one_line_of_the_help() -> None:
    result = run("--help")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert set(cli.COMMANDS) == set(TOOLS)
    for name in TOOLS:
        listed = [line for line in lines if line.split()[:1] == [name]]
        assert listed == [f"  {name:<12}{cli.COMMANDS[name].summary}"], name


@pytest.mark.parametrize("name", [name for name in TOOLS if name != "web"])
def test_each_subcommand_gives_its_help(name: str, capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.main([name, "--help"])
    out, err = capsys.readouterr()
    assert exit_info.value.code == 0, err
    assert out.startswith(f"usage: sobek-env {name} ") and err == ""


def test_the_help_of_a_subcommand_through_the_command() -> None:
    result = run("standing", "--help")
    assert result.returncode == 0 and result.stdout.startswith("usage: sobek-env standing "), result.stderr


@pytest.mark.parametrize("name", ["search", "pictures", "openspiel-table"])
def test_each_benchmark_gives_its_help(name: str, capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["bench", name, "--help"])
    out, _ = capsys.readouterr()
    assert exit_info.value.code == 0 and out.startswith(f"usage: sobek-env bench {name} ")


def test_web_runs_the_web_app_or_says_it_is_not_there(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["web", "--help"])
    out, err = capsys.readouterr()
    if importlib.util.find_spec("agents.apps.web") is None:
        assert exit_info.value.code == 2
        assert err.splitlines()[-1] == ("sobek-env: error: web is not available in this installation "
                                        "(agents.apps.web is missing)")
    else:
        assert exit_info.value.code == 0 and out.startswith("usage: sobek-env web")


@pytest.mark.parametrize(("args", "message"), [
    (["bogus"], "unknown command 'bogus'; the commands are: " + ", ".join(cli.COMMANDS)),
    ([], "give a command (sobek-env --help lists them)"),
    (["--bogus"], "unrecognized arguments: --bogus"),
])
def test_a_bad_command_line_is_one_error_under_the_usage(args: list[str], message: str) -> None:
    result = run(*args)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.splitlines() == ["usage: sobek-env [--version] COMMAND [ARGS ...]",
                                          f"sobek-env: error: {message}"]


def fake(calls: list, status: object = None) -> ModuleType:
    """A module whose main records what it was given."""
    module = ModuleType("fake")

    def main(argv: list[str]) -> object:
        calls.append((list(argv), sys.argv[0]))
        return status

    module.main = main
    return module


@pytest.mark.parametrize("name", [name for name, c in cli.COMMANDS.items() if c.module])
def test_each_subcommand_hands_the_rest_of_the_line_to_its_module(
        name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list = []
    monkeypatch.setitem(sys.modules, cli.COMMANDS[name].module, fake(calls))
    assert cli.main([name, "records/x", "--json", "--seed", "3"]) is None
    assert calls == [(["records/x", "--json", "--seed", "3"], f"sobek-env {name}")]


def test_a_subcommand_status_is_the_command_status(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list = []
    monkeypatch.setitem(sys.modules, "sobek_env.stress", fake(calls, status=1))
    program = sys.argv[0]
    assert cli.main(["stress", "--games", "2"]) == 1
    assert calls == [(["--games", "2"], "sobek-env stress")] and sys.argv[0] == program


def test_the_real_module_runs_from_the_command(tmp_path: Path) -> None:
    result = run("stress", "--game", "sobek", "--games", "2", "--workers", "1", "--json", str(tmp_path / "s.json"))
    assert result.returncode == 0, result.stderr
    assert "failures: 0" in result.stdout and (tmp_path / "s.json").is_file()


def test_bench_runs_a_script_of_the_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    run_env, argv, prog = cli.entry("bench", ["--quick"])
    assert run_env.__module__ == "sobek_env_bench_bench_env" and argv == ["--quick"] and prog == "sobek-env bench"
    run_search, argv, prog = cli.entry("bench", ["search", "--quick"])
    assert run_search.__module__ == "sobek_env_bench_bench_search" and argv == ["--quick"]
    assert prog == "sobek-env bench search"


def test_bench_outside_a_checkout_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture) -> None:
    monkeypatch.setattr(cli, "ROOT", tmp_path)
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["bench", "--quick"])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "sobek-env: error: bench_env.py is not here: the benchmarks run from a source checkout "
        f"(looked for {tmp_path / 'benchmarks' / 'bench_env.py'})")


def test_a_missing_optional_dependency_names_the_extra(monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture) -> None:
    def no_torch(name: str) -> ModuleType:
        raise ModuleNotFoundError("No module named 'torch'", name="torch")

    monkeypatch.setattr(cli.importlib, "import_module", no_torch)
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["train", "--help"])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "sobek-env: error: train needs the module 'torch', which is not installed; install it with: "
        "pip install 'sobek-env[agents]'")


def test_the_old_play_module_runs_the_play_command_and_imports_no_agents() -> None:
    result = subprocess.run([sys.executable, "-m", "sobek_env.play", "--help"], cwd=ROOT, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0 and result.stdout.startswith("usage: sobek-env play "), result.stderr
    check = "import sys, sobek_env.play; print(sorted(m for m in sys.modules if m.split('.')[0] == 'agents'))"
    result = subprocess.run([sys.executable, "-c", check], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and result.stdout.strip() == "[]", result.stderr


# the old forms of the commands: python -m MODULE, python SCRIPT.py (a line break may split them)
OLD_FORM = re.compile(r"python\s+(-m\s+(sobek_env|agents)\.[\w.]+|(train|evaluate|demo)\.py|benchmarks/\w+\.py)")


def test_the_docs_give_every_command_in_its_new_form() -> None:
    pages = [ROOT / "README.md", ROOT / "records" / "README.md",
             *(p for p in (ROOT / "docs").rglob("*.md") if "spec" not in p.relative_to(ROOT / "docs").parts)]
    old = {str(p.relative_to(ROOT)): match.group(0) for p in pages for match in OLD_FORM.finditer(p.read_text())}
    assert old == {}
