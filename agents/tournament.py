"""Play agents against each other and summarise the games (the engine of ``evaluate.py``).

Game ``i`` of a tournament is dealt with seed ``seed + i``, and the seats
rotate: agent ``j`` (its position in the list of specs) sits at seat
``(j + i) % P``, so over a multiple of ``P`` games every agent sits in every
seat equally often. The agent at a seat is reseeded for each game from the
game's seed and that seat (agents with a ``seed(int)`` method; the others must
not use chance), so results do not depend on how games are spread over worker
processes.

Statistics are per agent position: the same spec given twice is two rows
(``random#1``, ``random#2``), since they are different players at the table.
The win rate counts a shared victory as ``1/k`` of a win for each of the
``k`` winners; its 95% interval is Wilson's score interval. The rating is
openskill's Plackett-Luce, updated once per game in game order from the final
scores (ties share a rank), so it is deterministic.
"""

from __future__ import annotations

import math
import multiprocessing
import statistics
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from pettingzoo import AECEnv

import sobek_env

from .base import Agent
from .registry import make

Z95 = 1.959963984540054  # the standard normal quantile of a two-sided 95% interval


@dataclass(frozen=True)
class GameRecord:
    """The outcome of one game: who sat where, final scores and winners, and the round log."""

    index: int
    seed: int
    seating: tuple[int, ...]  # seating[seat] = position of the agent in the list of specs
    scores: tuple[int, ...]   # per seat
    winners: tuple[int, ...]  # seats
    rounds: tuple[dict, ...]  # GameState.round_log: points, corruption, most_corrupt, penalty per round

    def seat_of(self, agent: int) -> int:
        """The seat of the agent at ``agent``'s position in the list of specs."""
        return self.seating.index(agent)

    def to_dict(self) -> dict:
        """A JSON-ready form."""
        return {"index": self.index, "seed": self.seed, "seating": list(self.seating), "scores": list(self.scores),
                "winners": list(self.winners), "rounds": list(self.rounds)}


@dataclass(frozen=True)
class AgentSummary:
    """One agent's results over a tournament (the per-round means are over all scored rounds)."""

    label: str
    spec: str
    games: int
    wins: float                 # shared victories count 1/k
    win_rate: float
    win_low: float              # Wilson 95% interval
    win_high: float
    score_mean: float
    score_sd: float             # sample standard deviation of the final score
    points_per_round: float     # rules §8.1 round points
    corruption_per_round: float  # rules §8.2: corruption cards + 2 x curses
    most_corrupt_rate: float    # share of rounds in which it was (one of) the most corrupt
    penalty_per_game: float     # points lost to the most-corrupt penalty, per game
    rating_mu: float
    rating_sigma: float
    rating: float               # openskill ordinal, mu - 3 sigma


def wilson_interval(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval for a proportion of ``successes`` (may be fractional) in ``trials``."""
    if trials <= 0:
        raise ValueError(f"trials must be positive, got {trials}")
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must lie between 0 and trials ({trials}), got {successes}")
    p = successes / trials
    z2n = z * z / trials
    centre = (p + z2n / 2) / (1 + z2n)
    half = z / (1 + z2n) * math.sqrt(p * (1 - p) / trials + z2n / (4 * trials))
    return max(0.0, centre - half), min(1.0, centre + half)


def seating_for(game: int, num_players: int) -> tuple[int, ...]:
    """Who sits where in game ``game``: ``seating[seat]`` is the agent's position in the specs."""
    return tuple((seat - game) % num_players for seat in range(num_players))


def agent_seed(game_seed: int, seat: int) -> int:
    """The seed of the agent at ``seat`` in the game dealt with ``game_seed``."""
    return int(np.random.SeedSequence((game_seed, seat)).generate_state(1)[0])


class GamePlayer:
    """Plays games through the AEC environment, keeping one environment per table and one
    agent per spec position, so models are loaded once per process."""

    def __init__(self) -> None:
        self._envs: dict[tuple[int, str], AECEnv] = {}
        self._agents: dict[tuple[str, int, int, str], Agent] = {}

    def play(self, specs: Sequence[str], game: int, seed: int, observation_mode: str = "original") -> GameRecord:
        """Play game number ``game`` of a tournament between ``specs``, dealt with ``seed``."""
        num_players = len(specs)
        seating = seating_for(game, num_players)
        env = self._envs.get((num_players, observation_mode))
        if env is None:
            env = sobek_env.env(num_players=num_players, observation_mode=observation_mode)
            self._envs[(num_players, observation_mode)] = env
        players = {}
        for seat, position in enumerate(seating):
            agent = self._agent(specs[position], position, num_players, observation_mode)
            if hasattr(agent, "seed"):
                agent.seed(agent_seed(seed, seat))
            players[f"player_{seat}"] = agent
        env.reset(seed=seed)
        for name in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            env.step(None if termination or truncation else players[name].act(observation))
        state = env.unwrapped.game
        return GameRecord(game, seed, seating, tuple(state.scores), tuple(state.winners),
                          tuple(dict(entry) for entry in state.round_log))

    def _agent(self, spec: str, position: int, num_players: int, observation_mode: str) -> Agent:
        key = (spec, position, num_players, observation_mode)
        if key not in self._agents:
            self._agents[key] = make(spec, num_players=num_players, observation_mode=observation_mode)
        return self._agents[key]


_WORKER: GamePlayer | None = None


def _start_worker() -> None:
    global _WORKER
    _WORKER = GamePlayer()


def _play_in_worker(task: tuple[tuple[str, ...], int, int, str]) -> GameRecord:
    specs, game, seed, observation_mode = task
    return _WORKER.play(specs, game, seed, observation_mode)


def play_tournament(
    specs: Sequence[str],
    games: int,
    *,
    seed: int = 0,
    observation_mode: str = "original",
    workers: int = 1,
    progress: Callable[[Iterator[GameRecord], int], Iterable[GameRecord]] | None = None,
) -> list[GameRecord]:
    """Play ``games`` games between ``specs`` (one per seat) and return them in game order.

    ``games`` must be a multiple of the number of players (seat rotation);
    ``workers`` > 1 spreads the games over that many processes with the same
    results. ``progress(iterator, total)`` may wrap the results as they come
    (e.g. ``tqdm``).
    """
    num_players = len(specs)
    if games <= 0 or games % num_players:
        raise ValueError(f"games must be a positive multiple of the number of players ({num_players}), got {games}")
    tasks = [(tuple(specs), i, seed + i, observation_mode) for i in range(games)]
    workers = max(1, min(workers, games))
    if workers == 1:
        player = GamePlayer()
        results: Iterator[GameRecord] = (player.play(*task) for task in tasks)
        return list(progress(results, games) if progress else results)
    # spawn, not fork: a parent that has loaded a torch model may not fork safely
    with multiprocessing.get_context("spawn").Pool(workers, initializer=_start_worker) as pool:
        results = pool.imap(_play_in_worker, tasks, chunksize=max(1, games // (workers * 16)))
        return list(progress(results, games) if progress else results)


def labels_for(specs: Sequence[str]) -> list[str]:
    """Row labels: the spec, numbered ``#1``, ``#2``… where the same spec appears more than once."""
    seen: dict[str, int] = {}
    labels = []
    for spec in specs:
        seen[spec] = seen.get(spec, 0) + 1
        labels.append(f"{spec}#{seen[spec]}" if specs.count(spec) > 1 else spec)
    return labels


def ratings(records: Sequence[GameRecord], num_agents: int) -> list[tuple[float, float]]:
    """Each agent position's openskill Plackett-Luce (mu, sigma), updated game by game in order."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    teams = [[model.rating()] for _ in range(num_agents)]
    for record in records:
        order = [record.seat_of(agent) for agent in range(num_agents)]
        teams = model.rate(teams, scores=[record.scores[seat] for seat in order])
    return [(team[0].mu, team[0].sigma) for team in teams]


def summarize(records: Sequence[GameRecord], specs: Sequence[str]) -> list[AgentSummary]:
    """One :class:`AgentSummary` per spec position over ``records``."""
    rated = ratings(records, len(specs))
    summaries = []
    for agent, (spec, label) in enumerate(zip(specs, labels_for(specs))):
        seats = [record.seat_of(agent) for record in records]
        scores = [record.scores[seat] for record, seat in zip(records, seats)]
        wins = sum(1 / len(r.winners) for r, seat in zip(records, seats) if seat in r.winners)
        rounds = [(entry, seat) for record, seat in zip(records, seats) for entry in record.rounds]
        low, high = wilson_interval(wins, len(records))
        mu, sigma = rated[agent]
        summaries.append(AgentSummary(
            label=label, spec=spec, games=len(records), wins=wins, win_rate=wins / len(records),
            win_low=low, win_high=high, score_mean=statistics.fmean(scores),
            score_sd=statistics.stdev(scores) if len(scores) > 1 else 0.0,
            points_per_round=statistics.fmean(e["points"][s] for e, s in rounds),
            corruption_per_round=statistics.fmean(e["corruption"][s] for e, s in rounds),
            most_corrupt_rate=statistics.fmean(s in e["most_corrupt"] for e, s in rounds),
            penalty_per_game=sum(e["penalty"][s] for e, s in rounds) / len(records),
            rating_mu=mu, rating_sigma=sigma, rating=mu - 3 * sigma,
        ))
    return summaries


TABLE_COLUMNS = (
    ("agent", "{0.label}"),
    ("win rate", "{0.win_rate:.3f}"),
    ("95% CI", "[{0.win_low:.3f}, {0.win_high:.3f}]"),
    ("score ± sd", "{0.score_mean:.1f} ± {0.score_sd:.1f}"),
    ("points/round", "{0.points_per_round:.2f}"),
    ("corruption/round", "{0.corruption_per_round:.2f}"),
    ("most corrupt", "{0.most_corrupt_rate:.1%}"),
    ("penalty/game", "{0.penalty_per_game:.2f}"),
    ("rating (mu ± sigma)", "{0.rating_mu:.1f} ± {0.rating_sigma:.2f}"),
)


def format_table(summaries: Sequence[AgentSummary]) -> str:
    """The summaries as an aligned text table, one row per agent."""
    rows = [[header for header, _ in TABLE_COLUMNS]]
    rows += [[fmt.format(s) for _, fmt in TABLE_COLUMNS] for s in summaries]
    widths = [max(len(row[c]) for row in rows) for c in range(len(TABLE_COLUMNS))]
    lines = ["  ".join(cell.ljust(w) if c == 0 else cell.rjust(w) for c, (cell, w) in enumerate(zip(row, widths)))
             for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)
