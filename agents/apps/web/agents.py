"""Who may sit at a web table: the agents offered for a game, a number of players and an observation mode,
and the check of the specs a request sends.

A request chooses among: ``human``, ``random``, ``greedy``, ``heuristic`` with a tolerance from 0 to 1
(``heuristic:tolerance=0.3``), ``ismcts`` (the game's search settings) or ``ismcts:simulations=N`` (N up to
:data:`MAX_SIMULATIONS`), and each shipped model that fits the table (``ppo:<its file>``, from the
server's models folder). Nothing else: a spec from the network never names a file of its own choosing,
nor a search so long it would hold a worker for ever.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from sobek_env.game import Game

from .sessions import WebError

MAX_SIMULATIONS = 2000
PLAIN = ("human", "random", "greedy", "heuristic", "ismcts")
LABELS = {
    "human": "a person (human)", "random": "random", "greedy": "greedy", "heuristic": "heuristic",
    "ismcts": "ismcts (search, the game's settings)",
}


@cache
def _model_tables(folder: Path) -> tuple[tuple[str, str, str, int, str], ...]:
    """(spec, file name, game, players, mode) of each model in ``folder`` whose metadata reads (torch needed)."""
    try:
        from agents.players.modelfile import FORMAT_KINDS, read_meta_document
    except ImportError:  # the agents extra is not installed: no model can be played anyway
        return ()
    found = []
    for path in sorted(folder.glob("*.zip")):
        for kind in dict.fromkeys(FORMAT_KINDS.values()):  # each reader refuses the other kinds' files
            try:
                meta = read_meta_document(path, kind)
            except (ValueError, OSError):
                continue
            found.append((f"{kind.spec}:{path}", path.name, meta.get("game"), meta.get("num_players"),
                          meta.get("observation_mode")))
            break
    return tuple(found)


def models_for(game: Game, num_players: int, mode: str, folder: Path | None) -> list[tuple[str, str]]:
    """(spec, file name) of the models in ``folder`` made for this table."""
    if folder is None:
        return []
    return [(spec, name) for spec, name, g, n, m in _model_tables(folder.resolve())
            if (g, n, m) == (game.name, num_players, mode)]


def agent_choices(game: Game, num_players: int, mode: str, folder: Path | None) -> list[dict[str, str]]:
    """The agents offered for the table: ``{"spec", "label"}`` each."""
    out = [{"spec": name, "label": LABELS[name]} for name in PLAIN]
    out += [{"spec": spec, "label": f"model {name}"} for spec, name in models_for(game, num_players, mode, folder)]
    return out


def check_spec(spec: Any, game: Game, num_players: int, mode: str, folder: Path | None) -> str:
    """``spec`` if it is one the web app plays (see the module docstring); WebError 400 saying what is allowed."""
    allowed = ("human, random, greedy, heuristic[:tolerance=X] (X from 0 to 1), ismcts[:simulations=N] "
               f"(N from 1 to {MAX_SIMULATIONS}) or a model this table offers (GET /api/agents)")
    if not isinstance(spec, str) or len(spec) > 4096:
        raise WebError(400, f"an agent spec must be a string: {allowed}")
    name, _, args = spec.partition(":")
    if spec in PLAIN or spec in (s for s, _ in models_for(game, num_players, mode, folder)):
        return spec
    key, eq, value = args.partition("=")
    try:
        number = float(value) if name == "heuristic" else int(value)
    except ValueError:
        number = None
    if name == "heuristic" and key == "tolerance" and eq and number is not None and 0 <= number <= 1:
        return spec
    if name == "ismcts" and key == "simulations" and eq and number is not None and 1 <= number <= MAX_SIMULATIONS:
        return spec
    raise WebError(400, f"agent spec {spec!r:.60} is not offered here; use {allowed}")


def make_agents(specs: Sequence[str], game: Game, num_players: int, mode: str, seed: int) -> list[Any]:
    """An agent per seat (None for a person), each seeded from the game's seed as the play command does."""
    from agents import make
    from agents.tournaments.tournament import agent_seed

    out = []
    for seat, spec in enumerate(specs):
        if spec == "human":
            out.append(None)
            continue
        try:
            out.append(make(spec, game=game, num_players=num_players, observation_mode=mode,
                            seed=agent_seed(seed, seat)))
        except (ValueError, OSError, ImportError) as exc:
            raise WebError(400, f"seat {seat}: {exc}") from None
    return out
