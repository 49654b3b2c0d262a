"""Build agents from short strings: ``random``, ``greedy``, ``heuristic:tolerance=0.3``, ``ppo:model.zip``,
``rllib:policy.zip``, ``net:model.zip``, ``ismcts:simulations=400``, ``human``.

Grammar: ``name[:args]``. ``random``, ``greedy`` and ``human`` (a person at the terminal) take no arguments;
``heuristic`` takes comma-separated ``key=value`` pairs (the keyword
arguments of the game's heuristic, e.g. ``tolerance``); ``ismcts`` takes
``key=value`` pairs too (``simulations``, ``time``, ``c``, ``rollout``, ``depth``, ``guide``, ``bias``,
``squash``, ``mode``, ``z``, ``late``, ``steps``, ``net``, ``top``, ``seed``:
:class:`agents.search.ismcts.ISMCTSAgent`), over the search settings its
game's package registered (:mod:`agents.games`); ``ppo`` (a model of
``sobek-env train``), ``rllib`` (a policy of ``sobek-env train --backend rllib``) and ``net`` (a policy-value
network of ``sobek-env train --algo exit``, :mod:`agents.players.net`) take a
file path, optionally followed by ``,deterministic=false``. A path may hold
commas: such a spec's options are only its trailing ``key=value`` parts, and
an argument that names an existing file (or directory) whole is a path.

Every agent is made for a table (:class:`sobek_env.game.Table`: the game, the
number of players, the observation mode, the rules options). ``greedy`` and
``heuristic`` are each game's own (registered by its package under ``agents/``: :mod:`agents.games`); the
others know no game.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agents.games import baseline, tables
from agents.players.base import Agent, BaseAgent
from agents.players.random_agent import RandomAgent
from sobek_env.game import Game, Table
from sobek_env.registry import load_game

AGENT_NAMES = ("random", "greedy", "heuristic", "ppo", "rllib", "net", "ismcts", "human")
MODEL_AGENTS = ("ppo", "rllib", "net")  # their first argument is a file path
BASELINES = ("greedy", "heuristic")  # each game's own, registered by its package (agents.games)
_TRUE = ("true", "1", "yes")
_FALSE = ("false", "0", "no")
_OPTION = re.compile(r"\s*[A-Za-z_]\w*\s*=.*")


def parse_spec(spec: str) -> tuple[str, list[str]]:
    """Split ``spec`` into its agent name and its comma-separated arguments; ValueError if malformed."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"empty agent spec {spec!r}; use one of {', '.join(AGENT_NAMES)}")
    name, colon, args = spec.strip().partition(":")
    if name not in AGENT_NAMES:
        raise ValueError(f"unknown agent {name!r} in spec {spec!r}; use one of {', '.join(AGENT_NAMES)}")
    if colon and not args:
        raise ValueError(f"agent spec {spec!r} ends with ':'; drop it or give arguments after it")
    if name in MODEL_AGENTS and args:
        return name, _path_and_options(args)
    return name, args.split(",") if args else []


def _path_and_options(args: str) -> list[str]:
    """A model spec's path, then its options: the trailing comma-separated ``key=value`` parts, unless the
    whole argument names an existing file or directory."""
    if Path(args.strip()).exists():
        return [args.strip()]
    parts = args.split(",")
    cut = len(parts)
    while cut > 1 and _OPTION.fullmatch(parts[cut - 1]):
        cut -= 1
    return [",".join(parts[:cut]), *parts[cut:]]


def with_option(spec: str, key: str, value: str) -> str:
    """``spec`` with the option ``key=value`` set (replacing an earlier value of ``key``)."""
    name, args = parse_spec(spec)
    fixed = args[:1] if name in MODEL_AGENTS else []  # the model path
    kept = fixed + [a for a in args[len(fixed):] if a.partition("=")[0].strip() != key]
    return f"{name}:{','.join([*kept, f'{key}={value}'])}"


def make(
    spec: str,
    *,
    game: Game | str = "sobek",
    num_players: int | None = None,
    observation_mode: str | None = None,
    rules: Mapping[str, Any] | None = None,
    seed: int | None = None,
    table: Table | None = None,
) -> Agent:
    """The agent described by ``spec`` (see the module docstring) for a table of ``game``.

    ``num_players`` (default: the game's default), ``observation_mode`` (default ``original``) and
    ``rules`` (rules options) describe the table, or give ``table`` itself; a learned model must fit
    it. ``seed`` seeds agents that use chance. Raises ValueError for an unknown or malformed spec or
    table and FileNotFoundError for a missing model file. The agent refuses the observations of any other
    table with a :class:`~agents.players.base.TableMismatchError`.
    """
    name, args = parse_spec(spec)
    if table is None:
        table = load_game(game).table(num_players, observation_mode or "original", **(rules or {}))
    agent = _make(name, spec, args, table, seed)
    agent.spec = spec.strip()  # a mismatch's advice repeats it, options and all
    return agent


def _make(name: str, spec: str, args: list[str], table: Table, seed: int | None) -> BaseAgent:
    if name in MODEL_AGENTS:
        return _make_learned(name, spec, args, table, seed)
    if name == "ismcts":
        return _make_ismcts(spec, args, table, seed)
    if name in BASELINES:
        cls = baseline(table.game, name)
        return cls(table, **_keyword_args(spec, args, cls), seed=seed)
    if args:
        raise ValueError(f"agent {name!r} takes no arguments, got {spec!r}; write just {name!r}")
    if name == "human":
        from agents.players.human import HumanAgent

        return HumanAgent(table)
    return RandomAgent(seed=seed, table=table)


def _pairs(spec: str, args: list[str]) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for arg in args:
        key, eq, value = (part.strip() for part in arg.partition("="))
        if not eq or not key or not value:
            raise ValueError(f"malformed argument {arg!r} in agent spec {spec!r}; write key=value, e.g. tolerance=0.3")
        if key in pairs:
            raise ValueError(f"argument {key!r} given twice in agent spec {spec!r}")
        pairs[key] = value
    return pairs


def _keyword_args(spec: str, args: list[str], cls: type) -> dict[str, object]:
    """The ``key=value`` arguments converted to the types of ``cls``'s keyword defaults."""
    params = {
        p.name: p.default for p in inspect.signature(cls).parameters.values()
        if p.name not in ("seed", "table") and p.default is not inspect.Parameter.empty
    }
    converted: dict[str, object] = {}
    for key, value in _pairs(spec, args).items():
        if key not in params:
            known = ", ".join(params) or "none"
            raise ValueError(f"unknown argument {key!r} in agent spec {spec!r}; the arguments are: {known}")
        converted[key] = _convert(spec, key, value, params[key])
    return converted


def _convert(spec: str, key: str, value: str, default: object) -> object:
    if isinstance(default, bool):
        return _boolean(spec, key, value)
    kind = type(default) if isinstance(default, (int, float)) else str
    try:
        return kind(value)
    except ValueError:
        raise ValueError(f"{key} must be {'a number' if kind is float else 'an integer'} in agent spec {spec!r}, "
                         f"got {value!r}") from None


def _boolean(spec: str, key: str, value: str) -> bool:
    if value.lower() in _TRUE:
        return True
    if value.lower() in _FALSE:
        return False
    raise ValueError(f"{key} must be true or false in agent spec {spec!r}, got {value!r}")


def _make_ismcts(spec: str, args: list[str], table: Table, seed: int | None) -> Agent:
    """``ismcts:key=value,...`` (:class:`agents.search.ismcts.ISMCTSAgent`'s options) over the game's settings, or
    with ``settings=none`` over the class's defaults alone; a ``seed`` in the spec replaces ``seed``."""
    from agents.search.ismcts import ISMCTSAgent  # the search and its numpy tree, only when one is asked for

    options = _pairs(spec, args)
    known = (*(name for name in inspect.signature(ISMCTSAgent).parameters if name != "table"), "settings")
    unknown = [key for key in options if key not in known]
    if unknown:
        raise ValueError(f"unknown argument {unknown[0]!r} in agent spec {spec!r}; "
                         f"the arguments are: {', '.join(known)}")
    if "seed" in options:
        seed = _convert(spec, "seed", options.pop("seed"), 0)
    settings = options.pop("settings", "game")
    if settings not in ("game", "none"):
        raise ValueError(f"settings must be game (start from the game's settings) or none (the agent's own "
                         f"defaults), got {settings!r} in agent spec {spec!r}")
    kwargs = _keyword_args(spec, [a for a in args if a.partition("=")[0].strip() not in ("seed", "settings")],
                           ISMCTSAgent)
    if settings == "game":
        kwargs = dict(tables(table.game).search) | kwargs  # the game's settings, then the spec's
    try:
        return ISMCTSAgent(table, **kwargs, seed=seed)
    except ValueError as exc:
        raise ValueError(f"{exc} in agent spec {spec!r}") from None


# what each learned agent's file is called, and what to give
SAVED = {"ppo": ("model.zip", "the .zip that train.py saved"),
         "rllib": ("policy.zip", "the policy.zip that train.py --backend rllib saved"),
         "net": ("model.zip", "the model.zip that train.py --algo exit saved")}
# files of RLlib's own checkpoint directories (Algorithm.save): pickles, never opened here
RLLIB_CHECKPOINT_FILES = ("rllib_checkpoint.json", "algorithm_state.pkl", "class_and_ctor_args.pkl")


def _make_learned(name: str, spec: str, args: list[str], table: Table, seed: int | None) -> Agent:
    """``ppo:PATH[,deterministic=...]``, ``rllib:PATH[,deterministic=...]`` or ``net:PATH[,deterministic=...]``."""
    file_name, saved = SAVED[name]
    if not args or not args[0].strip():
        raise ValueError(f"agent spec {spec!r} needs a model path: {name}:path/to/{file_name}")
    path = Path(args[0].strip())
    options = _pairs(spec, args[1:])
    unknown = set(options) - {"deterministic"}
    if unknown:
        raise ValueError(f"unknown argument {min(unknown)!r} in agent spec {spec!r}; "
                         f"{name} takes a path and optionally deterministic=true|false")
    deterministic = _boolean(spec, "deterministic", options.get("deterministic", "true"))
    if path.is_dir():
        inside = path / file_name
        if name == "rllib" and not inside.is_file() and any((path / f).exists() for f in RLLIB_CHECKPOINT_FILES):
            raise IsADirectoryError(f"{str(path)!r} of agent spec {spec!r} is an RLlib checkpoint directory: its "
                                    "pickles run code when loaded, so it is never opened here; give the policy.zip "
                                    "that train.py --backend rllib writes (weights and a JSON description only)")
        hint = f", e.g. {name}:{inside}" if inside.is_file() else ""
        raise IsADirectoryError(f"model path {str(path)!r} of agent spec {spec!r} is a directory; "
                                f"give the model file in it{hint}")
    if not path.is_file():
        hint = (f" (options follow the path as key=value, e.g. {name}:{file_name},deterministic=false)"
                if "," in str(path) else "")
        raise FileNotFoundError(f"model file {str(path)!r} of agent spec {spec!r} not found; give {saved}{hint}")
    if name == "rllib":
        from agents.players.rllib_policy import load_rllib

        return load_rllib(path, deterministic=deterministic, seed=seed, table=table)
    if name == "net":
        from agents.players.net import load_net

        return load_net(path, deterministic=deterministic, seed=seed, table=table)
    from agents.players.ppo import load_ppo

    return load_ppo(path, deterministic=deterministic, seed=seed, table=table)
