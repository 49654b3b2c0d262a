"""``sobek-env``: one command for every tool of the project, each a subcommand.

    sobek-env play --agents human heuristic
    sobek-env evaluate --players 2 --games 400 --agents heuristic random
    sobek-env train --players 2 --out runs/p2
    sobek-env COMMAND --help

Each subcommand hands the rest of the command line to its module's ``main(argv)``, which holds the logic
and the options: nothing is parsed twice. A module is imported only when its subcommand runs, so
``sobek-env --help`` is quick and a tool whose optional dependencies are missing says which extra to install
instead of failing with a traceback. ``bench`` runs the scripts of ``benchmarks/``, which a source checkout
holds (an installed wheel does not).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import sobek_env

PROG = "sobek-env"
# the project's root in a source checkout (where benchmarks/ is); an installed wheel has no benchmarks/
ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Command:
    """A subcommand: what it does in one line, and where its ``main(argv)`` is."""

    summary: str
    module: str = ""       # the module whose main(argv) runs it
    script: str = ""       # or a script of the checkout, relative to the project's root
    extra: str = ""        # the optional dependencies it needs: pip install 'sobek-env[EXTRA]'


# The project's optional dependencies, by top-level module: what to install when one is missing.
EXTRAS = {"torch": "agents", "stable_baselines3": "agents", "sb3_contrib": "agents", "tensorboard": "agents",
          "matplotlib": "eval", "openskill": "eval", "tqdm": "eval", "PIL": "pictures", "pyspiel": "openspiel",
          "rlcard": "bench", "pygame": "bench", "ray": "ray"}

COMMANDS: dict[str, Command] = {
    "play": Command("play a game in the terminal against any agents, or watch agents play", "agents.apps.play"),
    "replay": Command("step through a saved game, print it, or draw it as a GIF or PNG", "sobek_env.replay"),
    "web": Command("play in the browser (the web app)", "agents.apps.web"),
    "evaluate": Command("a tournament between agents, or a sweep of an agent's option",
                        "agents.tournaments.evaluation"),
    "train": Command("train a player with MaskablePPO and self-play (--backend rllib: RLlib)",
                     "agents.training.sb3"),
    "standing": Command("the table of a tournament over the games played so far", "agents.analysis.standing"),
    "paired": Command("two tournaments of the same deals compared game by game", "agents.analysis.paired"),
    "ladder": Command("a search agent's skill ladder: win rate and time as its budget grows",
                      "agents.analysis.ladder"),
    "departures": Command("where an agent's decisions in replays depart from a baseline's",
                          "agents.analysis.departures"),
    "swaps": Command("what an agent's choices cost, phase by phase: the baseline with the agent in some phases",
                     "agents.analysis.swaps"),
    "study": Command("the corruption study's figure from the sweeps", "agents.analysis.study"),
    "curves": Command("learning curves side by side from train's eval.csv files", "agents.analysis.curves"),
    "imitate": Command("teach a policy network from an agent's decisions in replays", "agents.training.imitation"),
    "convert": Command("an old pickled model file as a weights-only one", "agents.training.convert"),
    "pack": Command("a tournament's games and replays as one compressed file (as records/ keeps them)",
                    "sobek_env.archive"),
    "stress": Command("seeded games with every invariant checked at every step", "sobek_env.stress"),
    "bench": Command("the environments' speed beside PettingZoo's and OpenSpiel's loops (a source checkout)",
                     script="benchmarks/bench_env.py"),
}

# `sobek-env bench NAME ...`: the other measurements of benchmarks/, by name (bench alone: the environments)
BENCHMARKS = {
    "env": "benchmarks/bench_env.py",
    "search": "benchmarks/bench_search.py",
    "pictures": "benchmarks/bench_pictures.py",
    "openspiel-table": "benchmarks/openspiel_table.py",
}


class CommandUnavailable(Exception):
    """A subcommand that cannot run here; the message says why and what to do."""


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser: ``--help`` (the subcommands, one line each), ``--version`` and the errors' usage."""
    width = max(map(len, COMMANDS)) + 2
    listing = "\n".join(f"  {name:<{width}}{command.summary}" for name, command in COMMANDS.items())
    parser = argparse.ArgumentParser(
        prog=PROG, usage=f"{PROG} [--version] COMMAND [ARGS ...]", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Sobek and Kleopatra: play, evaluate, train and analyse.",
        epilog=f"commands:\n{listing}\n\n{PROG} COMMAND --help gives a command's options; {PROG} bench NAME runs "
               f"another benchmark ({', '.join(BENCHMARKS)}).")
    parser.add_argument("--version", action="version", version=f"{PROG} {sobek_env.__version__}")
    return parser


def _missing(exc: ModuleNotFoundError, name: str, command: Command) -> CommandUnavailable:
    """The one-line reason a subcommand's module could not be imported."""
    top = (exc.name or "").split(".")[0]
    extra = EXTRAS.get(top, command.extra)
    if top in ("agents", "sobek_env"):
        return CommandUnavailable(f"{name} is not available in this installation ({exc.name} is missing)")
    hint = f"; install it with: pip install 'sobek-env[{extra}]'" if extra else ""
    return CommandUnavailable(f"{name} needs the module {top!r}, which is not installed{hint}")


def _load_script(path: Path) -> ModuleType:
    """A script of the checkout as a module (not run as __main__, so only its main is called)."""
    if not path.is_file():
        raise CommandUnavailable(f"{path.name} is not here: the benchmarks run from a source checkout "
                                 f"(looked for {path})")
    name = f"sobek_env_bench_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def entry(name: str, argv: list[str]) -> tuple[Callable[[list[str]], object], list[str], str]:
    """The ``main`` that runs subcommand ``name``, the arguments to give it and the command's name for its
    usage line; CommandUnavailable if its module (or an optional dependency of it) is not installed."""
    command, prog = COMMANDS[name], f"{PROG} {name}"
    try:
        if command.script:
            script = command.script
            if name == "bench" and argv and argv[0] in BENCHMARKS:
                script, prog, argv = BENCHMARKS[argv[0]], f"{prog} {argv[0]}", argv[1:]
            module = _load_script(ROOT / script)
        else:
            module = importlib.import_module(command.module)
    except ModuleNotFoundError as exc:
        raise _missing(exc, name, command) from None
    return module.main, argv, prog


def main(argv: Sequence[str] | None = None) -> int | None:
    """Run ``sobek-env ARGS`` (default: the command line's); the exit status its subcommand returns."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if not argv or argv[0].startswith("-"):
        parser.parse_args(argv)  # --help and --version exit here; anything else is an error below
        parser.error("give a command (sobek-env --help lists them)")
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        parser.error(f"unknown command {name!r}; the commands are: {', '.join(COMMANDS)}")
    try:
        run, rest, prog = entry(name, rest)
    except CommandUnavailable as exc:
        parser.error(str(exc))
    program = sys.argv[:1]
    sys.argv[:1] = [prog]  # the usage line of a parser that names no prog (the benchmarks')
    try:
        status = run(rest)
    except BrokenPipeError:  # | head: stop quietly, and keep Python from complaining about stdout at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    finally:
        sys.argv[:1] = program
    return status if isinstance(status, int) else None


if __name__ == "__main__":
    sys.exit(main())
