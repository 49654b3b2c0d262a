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

Worker processes are spawned, end with their parent however it ends, and a
worker that dies ends the tournament with :class:`~agents.common.workers.WorkerDied`
instead of a hang. With ``backend="ray"`` the games are Ray tasks instead, on
a local Ray or a cluster (:mod:`agents.tournaments.cluster`), with the same results. Each
game is handed to ``on_record`` as it finishes, and a tournament given the
games already ``done`` plays only the others, with the same results.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import multiprocessing
import os
import signal
import statistics
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from pettingzoo import AECEnv

import sobek_env
from agents.common.workers import WorkerDied, die_with_parent
from agents.players.base import Agent
from agents.players.registry import make
from sobek_env.env import ask
from sobek_env.game import Game
from sobek_env.registry import load_game

BACKENDS = ("local", "ray")
Z95 = 1.959963984540054  # the standard normal quantile of a two-sided 95% interval


@dataclass(frozen=True)
class GameRecord:
    """The outcome of one game: who sat where, final scores and winners, and the game's statistics; and if asked
    for, its actions in order as (seat, action id), for a replay, with the values a searching agent gave the
    legal actions of its decisions (not part of :meth:`to_dict`)."""

    index: int
    seed: int
    seating: tuple[int, ...]  # seating[seat] = position of the agent in the list of specs
    scores: tuple[int, ...]   # per seat
    winners: tuple[int, ...]  # seats
    stats: tuple[dict, ...]   # per seat: Game.statistics of the finished game (totals such as round points)
    actions: tuple[tuple[int, int], ...] = field(default=(), compare=False, repr=False)
    # per seat: the decisions with a choice (more than one legal action) and the CPU seconds its agent spent
    # on them; measurements of the machine, so not compared (empty in records written before they were kept)
    decisions: tuple[int, ...] = field(default=(), compare=False)
    seconds: tuple[float, ...] = field(default=(), compare=False)
    # with the actions: by an action's index in them, the mean reward of each legal action the deciding agent
    # measured (an agent's ``last_means``, as ismcts's)
    values: dict[int, dict[int, float]] = field(default_factory=dict, compare=False, repr=False)

    def seat_of(self, agent: int) -> int:
        """The seat of the agent at ``agent``'s position in the list of specs."""
        return self.seating.index(agent)

    def to_dict(self) -> dict:
        """A JSON-ready form."""
        doc = {"index": self.index, "seed": self.seed, "seating": list(self.seating), "scores": list(self.scores),
               "winners": list(self.winners), "stats": [dict(seat) for seat in self.stats]}
        if self.decisions:
            doc |= {"decisions": list(self.decisions), "seconds": [round(t, 6) for t in self.seconds]}
        return doc

    @classmethod
    def from_dict(cls, doc: Any, num_players: int) -> GameRecord:
        """The record :meth:`to_dict` wrote; ValueError naming the first bad field."""
        fields = ("index", "seed", "seating", "scores", "winners", "stats")
        if not isinstance(doc, dict) or set(doc) not in (set(fields), {*fields, "decisions", "seconds"}):
            raise ValueError(f"a game record has the fields {', '.join(fields)} (and decisions, seconds, or neither)")
        for key in ("index", "seed"):
            if not _is_int(doc[key]) or doc[key] < 0:
                raise ValueError(f"{key}: must be an integer from 0, got {doc[key]!r}")
        for key, size in (("seating", num_players), ("scores", num_players), ("winners", None)):
            value = doc[key]
            if not isinstance(value, list) or not all(_is_int(v) for v in value) or len(value) != (size or len(value)):
                raise ValueError(f"{key}: must be a list of {size or 'some'} integers, got {value!r}")
        if sorted(doc["seating"]) != list(range(num_players)) or not set(doc["winners"]) <= set(range(num_players)):
            raise ValueError(f"seating and winners: must be seats 0 to {num_players - 1}")
        stats = doc["stats"]
        if not isinstance(stats, list) or len(stats) != num_players or not all(
                isinstance(seat, dict) and all(isinstance(k, str) and _is_number(v) for k, v in seat.items())
                for seat in stats):
            raise ValueError(f"stats: must be a list of {num_players} objects of numbers")
        decisions, seconds = doc.get("decisions", []), doc.get("seconds", [])
        if "decisions" in doc and not (isinstance(decisions, list) and len(decisions) == num_players
                                       and all(_is_int(v) and v >= 0 for v in decisions)):
            raise ValueError(f"decisions: must be a list of {num_players} integers from 0, got {decisions!r}")
        if "seconds" in doc and not (isinstance(seconds, list) and len(seconds) == num_players
                                     and all(_is_number(v) and v >= 0 for v in seconds)):
            raise ValueError(f"seconds: must be a list of {num_players} numbers from 0, got {seconds!r}")
        return cls(doc["index"], doc["seed"], tuple(doc["seating"]), tuple(doc["scores"]), tuple(doc["winners"]),
                   tuple(stats), decisions=tuple(decisions), seconds=tuple(float(t) for t in seconds))


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


@dataclass(frozen=True)
class AgentSummary:
    """One agent's results over a tournament. ``stats`` holds the game's own columns (``Game.columns``),
    each a ratio of sums over the games (Sobek: round points per round, most-corrupt rounds, ...);
    they read as attributes too (``summary.points_per_round``)."""

    label: str
    spec: str
    games: int
    wins: float                 # shared victories count 1/k
    win_rate: float
    win_low: float              # Wilson 95% interval
    win_high: float
    score_mean: float
    score_sd: float             # sample standard deviation of the final score
    rating_mu: float
    rating_sigma: float
    rating: float               # openskill ordinal, mu - 3 sigma
    stats: dict[str, float]     # the game's columns, by attribute name
    seconds_per_decision: float | None = None  # CPU seconds of a decision with a choice, over the timed games
    timed_games: int = 0        # the games that timed their decisions (records of older runs did not)

    def __getattr__(self, name: str) -> float:
        stats = self.__dict__.get("stats", {})
        if name in stats:
            return stats[name]
        raise AttributeError(f"{type(self).__name__!r} has no attribute {name!r}")

    def row(self) -> dict[str, Any]:
        """A flat, JSON- and CSV-ready form: the fields, then the game's columns."""
        fields = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "stats"}
        return {**fields, **self.stats}


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


def turns(env: AECEnv) -> Iterator[tuple[int, dict]]:
    """The seat to act and its observation at each decision of the game ``env`` plays from its reset; the caller
    steps the action. The seats that are done get their ``None`` step here, as the AEC protocol asks."""
    state = env.unwrapped.game
    for _ in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        yield state.current_player, observation


def agent_seed(game_seed: int, seat: int) -> int:
    """The seed of the agent at ``seat`` in the game dealt with ``game_seed``."""
    return int(np.random.SeedSequence((game_seed, seat)).generate_state(1)[0])


class GamePlayer:
    """Plays games of one game through the AEC environment, keeping one environment per table and one
    agent per spec position, so models are loaded once per process. Agents that want the game's state
    (search agents, ``wants_state``) are handed it with the observation."""

    def __init__(self, game: Game | str = "sobek") -> None:
        self.game = load_game(game)
        self._envs: dict[tuple[int, str], AECEnv] = {}
        self._agents: dict[tuple[str, int, int, str], Agent] = {}

    def play(self, specs: Sequence[str], game: int, seed: int, observation_mode: str = "original",
             keep_actions: bool = False) -> GameRecord:
        """Play game number ``game`` of a tournament between ``specs``, dealt with ``seed``; the record holds
        the game's actions if ``keep_actions``."""
        num_players = len(specs)
        seating = seating_for(game, num_players)
        env = self._envs.get((num_players, observation_mode))
        if env is None:
            env = sobek_env.env(game=self.game, num_players=num_players, observation_mode=observation_mode)
            self._envs[(num_players, observation_mode)] = env
        players = []
        for seat, position in enumerate(seating):
            agent = self._agent(specs[position], position, num_players, observation_mode)
            if hasattr(agent, "seed"):
                agent.seed(agent_seed(seed, seat))
            players.append(agent)
        env.reset(seed=seed)
        state = env.unwrapped.game
        actions: list[tuple[int, int]] = []
        values: dict[int, dict[int, float]] = {}
        decisions, seconds = [0] * num_players, [0.0] * num_players
        for seat, observation in turns(env):
            start = time.process_time()
            action = ask(players[seat], observation, state)
            if observation["action_mask"].sum() > 1:
                seconds[seat] += time.process_time() - start
                decisions[seat] += 1
            if keep_actions:
                means = getattr(players[seat], "last_means", None)
                if means:
                    values[len(actions)] = {int(a): float(m) for a, m in means.items()}
                actions.append((seat, int(action)))
            env.step(action)
        return GameRecord(game, seed, seating, tuple(state.scores), tuple(state.winners),
                          tuple(self.game.statistics(state)), tuple(actions), values=values,
                          decisions=tuple(decisions), seconds=tuple(seconds))

    def _agent(self, spec: str, position: int, num_players: int, observation_mode: str) -> Agent:
        key = (spec, position, num_players, observation_mode)
        if key not in self._agents:
            self._agents[key] = make(spec, game=self.game, num_players=num_players, observation_mode=observation_mode)
        return self._agents[key]


_WORKER: GamePlayer | None = None


STOP_SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM})


@contextlib.contextmanager
def _stops_held() -> Iterator[None]:
    """SIGINT and SIGTERM held back while the pool may start a worker: a stop in the middle of a spawn left
    the child without its start-up data, and it printed a traceback. A held signal arrives right after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _start_worker(parent: int, game: str) -> None:
    global _WORKER
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)  # a spawned worker inherits the held mask
    die_with_parent(parent)
    _WORKER = GamePlayer(game)


def _play_in_worker(task: tuple[tuple[str, ...], int, int, str, bool]) -> GameRecord:
    return _WORKER.play(*task)


def play_tournament(
    specs: Sequence[str],
    games: int,
    *,
    game: Game | str = "sobek",
    seed: int = 0,
    observation_mode: str = "original",
    workers: int = 1,
    progress: Callable[[Iterator[GameRecord], int], Iterable[GameRecord]] | None = None,
    done: Mapping[int, GameRecord] | None = None,
    on_record: Callable[[GameRecord], None] | None = None,
    keep_actions: int = 0,
    backend: str = "local",
    address: str | None = None,
) -> list[GameRecord]:
    """Play ``games`` games of ``game`` between ``specs`` (one per seat) and return them in game order.

    ``games`` must be a multiple of the number of players (seat rotation);
    ``workers`` > 1 spreads the games over that many processes with the same
    results. ``progress(iterator, total)`` may wrap the results as they come
    (e.g. ``tqdm``). Games in ``done`` (by index) are not played again; each
    game played is passed to ``on_record`` as soon as it ends. The records of
    the first ``keep_actions`` games hold their actions (for replays). WorkerDied
    if a worker process dies.

    ``backend="ray"`` plays the games as Ray tasks: on the Ray already connected, else on the cluster at
    ``address``, else on a local Ray of ``workers`` CPUs (see :func:`agents.tournaments.cluster.ray_session`).
    """
    num_players = len(specs)
    if games <= 0 or games % num_players:
        raise ValueError(f"games must be a positive multiple of the number of players ({num_players}), got {games}")
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if address is not None and backend != "ray":
        raise ValueError(f"an address is for backend='ray' (a Ray cluster), not {backend!r}")
    done = dict(done or {})
    tasks = [(tuple(specs), i, seed + i, observation_mode, i < keep_actions) for i in range(games) if i not in done]
    workers = max(1, min(workers, len(tasks)))
    game = load_game(game)
    if backend == "ray" and tasks:
        results: Iterator[GameRecord] = _play_on_ray(tasks, game.name, address, workers)
    elif workers == 1:
        player = GamePlayer(game)
        results = (player.play(*task) for task in tasks)
    else:
        results = _play_in_workers(tasks, workers, game.name)
    with contextlib.closing(results):
        for record in progress(results, len(tasks)) if progress else results:
            done[record.index] = record
            if on_record:
                on_record(record)
    return [done[i] for i in range(games)]


def _play_on_ray(tasks: list[tuple], game: str, address: str | None, cpus: int) -> Iterator[GameRecord]:
    from agents.tournaments.cluster import play_on_ray, ray_session  # Ray, an optional extra, only when asked for

    with ray_session(address, cpus):
        yield from play_on_ray(tasks, game, GamePlayer)


def _play_in_workers(tasks: list[tuple], workers: int, game: str) -> Iterator[GameRecord]:
    """The games of ``tasks`` played by ``workers`` spawned processes, in the order they end.

    At most two games per worker are queued at a time, so that an interruption loses only those.
    """
    # spawn, not fork: a parent that has loaded a torch model may not fork safely
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"), initializer=_start_worker,
                               initargs=(os.getpid(), game))
    waiting = iter(tasks)
    running: set[Future] = set()
    finished = False
    try:
        for task in waiting:
            with _stops_held():  # a submit may start a worker
                running.add(pool.submit(_play_in_worker, task))
            if len(running) >= 2 * workers:
                break
        while running:
            ended, running = wait(running, return_when=FIRST_COMPLETED)
            for future in ended:
                yield future.result()
                task = next(waiting, None)
                if task is not None:
                    with _stops_held():
                        running.add(pool.submit(_play_in_worker, task))
        finished = True
    except BrokenProcessPool:
        raise WorkerDied("a worker process of the tournament died while playing (killed, or out of memory)") from None
    finally:
        ended = False
        if not finished:
            # stopped early: end the workers now, or the interpreter's exit would wait for each to play its
            # game to the end (minutes, for a search agent); the executor has no public way to do it before 3.14
            processes = list((getattr(pool, "_processes", None) or {}).values())
            for process in processes:
                with contextlib.suppress(Exception):
                    process.terminate()
            for process in processes:
                with contextlib.suppress(Exception):
                    process.join(5)
                    if process.is_alive():
                        process.kill()
                        process.join(5)
            ended = bool(processes)
        # with the workers gone, waiting costs nothing and lets the executor's thread close its pipe before
        # the interpreter's exit writes to it (left running, the two raced: "Bad file descriptor" at exit,
        # seen once in a loaded test run)
        pool.shutdown(wait=finished or ended, cancel_futures=True)


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


def summarize(records: Sequence[GameRecord], specs: Sequence[str], game: Game | str = "sobek") -> list[AgentSummary]:
    """One :class:`AgentSummary` per spec position over ``records`` of ``game``."""
    columns = load_game(game).columns
    rated = ratings(records, len(specs))
    summaries = []
    for agent, (spec, label) in enumerate(zip(specs, labels_for(specs))):
        seats = [record.seat_of(agent) for record in records]
        scores = [record.scores[seat] for record, seat in zip(records, seats)]
        wins = sum(1 / len(r.winners) for r, seat in zip(records, seats) if seat in r.winners)
        stats = [record.stats[seat] for record, seat in zip(records, seats)]
        low, high = wilson_interval(wins, len(records))
        mu, sigma = rated[agent]
        timed = [(r.decisions[seat], r.seconds[seat]) for r, seat in zip(records, seats) if r.decisions]
        decided = sum(n for n, _ in timed)
        summaries.append(AgentSummary(
            label=label, spec=spec, games=len(records), wins=wins, win_rate=wins / len(records),
            win_low=low, win_high=high, score_mean=statistics.fmean(scores),
            score_sd=statistics.stdev(scores) if len(scores) > 1 else 0.0,
            rating_mu=mu, rating_sigma=sigma, rating=mu - 3 * sigma,
            stats={column.name: column.value(stats) for column in columns},
            seconds_per_decision=math.fsum(t for _, t in timed) / decided if decided else None,
            timed_games=len(timed),
        ))
    return summaries


TABLE_COLUMNS = (
    ("agent", "{0.label}"),
    ("win rate", "{0.win_rate:.3f}"),
    ("95% CI", "[{0.win_low:.3f}, {0.win_high:.3f}]"),
    ("score ± sd", "{0.score_mean:.1f} ± {0.score_sd:.1f}"),
)
RATING_COLUMN = ("rating (mu ± sigma)", "{0.rating_mu:.1f} ± {0.rating_sigma:.2f}")


def _milliseconds(summary: AgentSummary) -> str:
    """The CPU milliseconds of a decision, and over how many games when not all were timed."""
    if summary.seconds_per_decision is None:
        return "-"
    ms = summary.seconds_per_decision * 1000
    timed = summary.timed_games
    note = f" ({timed} timed game{'' if timed == 1 else 's'})" if timed < summary.games else ""
    return (f"{ms:.0f}" if ms >= 100 else f"{ms:.2g}") + note


def format_table(summaries: Sequence[AgentSummary], game: Game | str = "sobek") -> str:
    """The summaries as an aligned text table, one row per agent, with the game's own columns."""
    own = [(c.label, "{0." + c.name + ":" + c.format + "}") for c in load_game(game).columns]
    columns = [*TABLE_COLUMNS, *own, RATING_COLUMN]
    rows = [[header for header, _ in columns] + ["CPU ms/decision"]]
    rows += [[fmt.format(s) for _, fmt in columns] + [_milliseconds(s)] for s in summaries]
    columns.append(("CPU ms/decision", ""))
    widths = [max(len(row[c]) for row in rows) for c in range(len(columns))]
    lines = ["  ".join(cell.ljust(w) if c == 0 else cell.rjust(w) for c, (cell, w) in enumerate(zip(row, widths)))
             for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)
