"""Build agents from short strings: ``random``, ``greedy``, ``heuristic:tolerance=0.3``, ``ppo:model.zip``.

Grammar: ``name[:args]``. ``random`` and ``greedy`` take no arguments;
``heuristic`` takes comma-separated ``key=value`` pairs (the keyword
arguments of :class:`agents.heuristic.HeuristicAgent`, e.g. ``tolerance``);
``ppo`` takes a model path, optionally followed by ``,deterministic=false``
(a path may therefore not contain a comma).
"""

from __future__ import annotations

import inspect
from pathlib import Path

from .base import Agent
from .greedy import GreedyAgent
from .heuristic import HeuristicAgent
from .random_agent import RandomAgent

AGENT_NAMES = ("random", "greedy", "heuristic", "ppo")
_TRUE = ("true", "1", "yes")
_FALSE = ("false", "0", "no")


def parse_spec(spec: str) -> tuple[str, list[str]]:
    """Split ``spec`` into its agent name and its comma-separated arguments; ValueError if malformed."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"empty agent spec {spec!r}; use one of {', '.join(AGENT_NAMES)}")
    name, colon, args = spec.strip().partition(":")
    if name not in AGENT_NAMES:
        raise ValueError(f"unknown agent {name!r} in spec {spec!r}; use one of {', '.join(AGENT_NAMES)}")
    if colon and not args:
        raise ValueError(f"agent spec {spec!r} ends with ':'; drop it or give arguments after it")
    return name, args.split(",") if args else []


def with_option(spec: str, key: str, value: str) -> str:
    """``spec`` with the option ``key=value`` set (replacing an earlier value of ``key``)."""
    name, args = parse_spec(spec)
    kept = [a for a in args if a.partition("=")[0].strip() != key]
    return f"{name}:{','.join([*kept, f'{key}={value}'])}"


def make(
    spec: str,
    *,
    num_players: int | None = None,
    observation_mode: str | None = None,
    seed: int | None = None,
) -> Agent:
    """The agent described by ``spec`` (see the module docstring).

    ``num_players`` and ``observation_mode`` describe the table a learned model
    must fit; ``seed`` seeds agents that use chance. Raises ValueError for an
    unknown or malformed spec and FileNotFoundError for a missing model file.
    """
    name, args = parse_spec(spec)
    if name == "ppo":
        return _make_ppo(spec, args, num_players, observation_mode, seed)
    if name == "heuristic":
        return HeuristicAgent(**_keyword_args(spec, args, HeuristicAgent), seed=seed)
    if args:
        raise ValueError(f"agent {name!r} takes no arguments, got {spec!r}; write just {name!r}")
    if name == "greedy":
        return GreedyAgent(seed=seed)
    return RandomAgent(seed=seed)


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
        if p.name != "seed" and p.default is not inspect.Parameter.empty
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


def _make_ppo(
    spec: str, args: list[str], num_players: int | None, observation_mode: str | None, seed: int | None
) -> Agent:
    if not args or not args[0].strip():
        raise ValueError(f"agent spec {spec!r} needs a model path: ppo:path/to/model.zip")
    path = Path(args[0].strip())
    options = _pairs(spec, args[1:])
    unknown = set(options) - {"deterministic"}
    if unknown:
        raise ValueError(f"unknown argument {min(unknown)!r} in agent spec {spec!r}; "
                         "ppo takes a path and optionally deterministic=true|false")
    deterministic = _boolean(spec, "deterministic", options.get("deterministic", "true"))
    if not path.is_file():
        raise FileNotFoundError(f"model file {str(path)!r} of agent spec {spec!r} not found; "
                                "give the .zip that train.py saved")
    from .ppo import load_ppo

    return load_ppo(path, deterministic=deterministic, num_players=num_players, observation_mode=observation_mode,
                    seed=seed)
