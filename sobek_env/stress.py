"""Stress run for any registered game: play many games with varied policies, check the invariants
as they go, and count how often each action and each rules path of the engine was reached.

    sobek-env stress [--game sobek] --games 100000 --workers 2 [--seed 0] [--players 2 3 4]
                      [--env-every 10] [--engine native] [--check-every 10] [--json report.json]
                      [--progress]

Game ``i`` uses seed ``seed + i``: its player count, rules options, policies and
every choice follow from that seed alone, so a run is identical for any number
of workers and on either engine, and a failure names the seed that replays it.
The games are played on the game's default engine (``--engine`` chooses). After
every ``--check-every``-th step of a game and after its last, the state must
pass the game's ``check_play``, which reads the Python engine's fields: on the
native engine that step is played a second time, by the Python engine from the
native state's Python twin, and the two documents must be equal before the twin
is checked, so a checked step also compares the engines. The default checks
every step on Python; on native, where a checked step costs several hundred
times a step, the profile's ``NATIVE_CHECK_EVERY`` (about 16 checks a
game). What the checks guard are conserved counts and bounds, which once broken
stay broken, so a sampled check still catches the step's fault a few steps
later. Once per game (at a step drawn from
its seed) the state is written to JSON, read back, compared, and play continues
from the copy; every ``--env-every``-th game is played through the PettingZoo
environment, checking the action mask of the seat to move and of another seat,
that observations lie in the observation space, and that the rewards sum to the
reward mode's definition. No game may take more steps than the game's derived
``max_game_length``.

What a game reached is counted from the engine's own report of the rules paths
it took (the state's ``log``), beside the count of every action id. What is
particular to a game (its policies, which weight action kinds so that rare
corners are reached; its report's sections; the rare paths it must show) is its
stress profile, which its game object gives (``Game.stress_profile()``, e.g. ``sobek_env/sobek/stress.py``).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from types import ModuleType
from typing import Any

from .arguments import non_negative_int, positive_int
from .env import REWARD_MODES, raw_env
from .game import Game, State, python_state
from .registry import GAMES, load_game

CHUNK = 100  # games per task handed to a worker


def profile(game: Game) -> ModuleType:
    """The game's stress profile (:meth:`Game.stress_profile`)."""
    return game.stress_profile()


@dataclass(frozen=True)
class GameSetup:
    """Everything a stress game is, drawn from its seed."""

    seed: int
    num_players: int
    options: dict
    policies: tuple[Any, ...]  # per seat: an object with weights(state, legal) -> list[float]
    tags: tuple[str, ...]      # the profile's counters of the kind of game this is (e.g. "game:collectors")
    reload_step: int           # the step after which the state goes through JSON
    resample_step: int         # the step after which a seat's resample must keep what that seat sees
    via_env: bool
    observation_mode: str
    reward_mode: str


def game_setup(game: Game, seed: int, players: Sequence[int], env_every: int) -> GameSetup:
    """Draw a game's player count, rules, policies and checks from its seed (the profile draws its part)."""
    rng = random.Random(f"{game.name}-stress:{seed}")
    n = players[seed % len(players)]
    options, policies, tags = profile(game).draw(rng, n)
    return GameSetup(
        seed=seed, num_players=n, options=options, policies=tuple(policies), tags=tuple(tags),
        reload_step=rng.randrange(1, profile(game).RELOAD_WITHIN),
        resample_step=rng.randrange(1, profile(game).RELOAD_WITHIN),
        via_env=env_every > 0 and seed % env_every == 0,
        observation_mode=rng.choice(game.observation_modes),
        reward_mode=rng.choice(REWARD_MODES),
    )


@dataclass
class Summary:
    """What a batch of games reached; batches merge by sums and maxima, so order does not matter."""

    games: int = 0
    steps: int = 0
    checked: int = 0  # steps after which the invariants were checked
    counts: Counter = field(default_factory=Counter)
    steps_by_players: Counter = field(default_factory=Counter)
    longest: dict[int, int] = field(default_factory=dict)      # players -> most steps in a game
    max_score: int = 0
    failures: list[tuple[int, str]] = field(default_factory=list)  # (game seed, what broke)

    def merge(self, other: Summary) -> None:
        self.games += other.games
        self.steps += other.steps
        self.checked += other.checked
        self.counts.update(other.counts)
        self.steps_by_players.update(other.steps_by_players)
        for n, v in other.longest.items():
            self.longest[n] = max(self.longest.get(n, 0), v)
        self.max_score = max(self.max_score, other.max_score)
        self.failures = sorted(self.failures + other.failures)


class StressFailure(AssertionError):
    """A game broke a check of the stress run itself (bound, JSON reload, environment)."""


def _reload(game: Game, s: State) -> State:
    copy = game.from_json(s.to_json(), engine=s.engine)
    if copy != s or copy.legal_actions() != s.legal_actions():
        raise StressFailure("the state read back from JSON differs from the original")
    return copy


def check_resample(game: Game, s: State, seat: int, rng: random.Random) -> None:
    """A determinization for ``seat`` must be a sound state that shows ``seat`` exactly what ``s`` shows it,
    in both observation modes (INTERFACE.md, "Games")."""
    other = s.resample(seat, rng)
    game.check(other)
    for mode in game.observation_modes:
        observer = game.observer(s.num_players, mode)
        if not (observer.encode(other, seat) == observer.encode(s, seat).copy()).all():
            raise StressFailure(f"resample changed what seat {seat} sees in {mode} mode")


def expected_rewards(game: Game, s: State, mode: str, start: list[int]) -> list[float]:
    """INTERFACE.md: what each seat's rewards over a whole game add up to in ``mode`` (``start``: the
    scores the game began with)."""
    if mode == "win":
        return [1.0 if p in s.winners else -1.0 for p in range(s.num_players)]
    if mode == "margin":
        return [v / game.score_scale for v in game.margins(s)]
    return [(v - v0) / game.score_scale for v, v0 in zip(s.scores, start)]


class EnvDriver:
    """Plays a game through ``raw_env``, checking masks, observations and rewards on the way."""

    def __init__(self, game: Game, setup: GameSetup, engine: str) -> None:
        self.game = game
        self.env = raw_env(game=game, num_players=setup.num_players, observation_mode=setup.observation_mode,
                           reward_mode=setup.reward_mode, **setup.options)
        self.env.reset(seed=setup.seed)
        if self.env.game.engine != engine:  # the environment deals on the default engine: the same game moves over
            self.env.game = game.from_json(self.env.game.to_json(), engine=engine)
        self.start = self.env.game.scores
        self.space = self.env.observation_space("player_0")
        self.totals = [0.0] * setup.num_players

    def before(self, s: State) -> None:
        env, n = self.env, s.num_players
        if env.agent_selection != f"player_{s.current_player}":
            raise StressFailure(f"{env.agent_selection} selected but seat {s.current_player} must act")
        for seat in (s.current_player, (s.current_player + 1) % n):
            obs = env.observe(f"player_{seat}")
            mask = obs["action_mask"]
            expected = s.legal_actions() if seat == s.current_player else []
            if [a for a in range(len(mask)) if mask[a]] != expected:
                raise StressFailure(f"seat {seat}'s mask differs from its legal actions {expected}")
            if not self.space.contains(obs):
                raise StressFailure(f"seat {seat}'s observation lies outside the observation space")

    def act(self, a: int) -> None:
        self.env.step(a)
        for p in range(len(self.totals)):
            self.totals[p] += self.env.rewards[f"player_{p}"]

    def finish(self, s: State) -> None:
        expected = expected_rewards(self.game, s, self.env.reward_mode, self.start)
        if any(abs(got - want) > 1e-9 for got, want in zip(self.totals, expected)):
            raise StressFailure(f"{self.env.reward_mode} rewards add up to {self.totals}, not {expected}")


def check_every_default(game: Game, engine: str | None = None) -> int:
    """The default ``--check-every`` on ``engine`` (None: the game's default engine): 1 on Python, the profile's
    ``NATIVE_CHECK_EVERY`` on native."""
    return profile(game).NATIVE_CHECK_EVERY if game.engine_of(engine) == "native" else 1


def _twin(s: State) -> State:
    """The Python twin of a native state, played beside it for one checked step."""
    return python_state(s)


def _check_step(game: Game, s: State, twin: State | None) -> None:
    """The invariants after a checked step; on the native engine, first the Python engine's play of that step
    (``twin``, already applied) must have given the same document."""
    if twin is not None:
        if twin.to_json() != s.to_json():
            raise StressFailure("the native and the Python engine's states differ after the same action")
        s = twin
    game.check_play(s)


def play_game(game: Game, setup: GameSetup, summary: Summary, engine: str | None = None,
              check_every: int | None = None) -> None:
    """Play one game on ``engine`` (default: the game's), checking the invariants after every ``check_every``-th
    step and the last (default: :func:`check_every_default`); record it in ``summary``."""
    engine = game.engine_of(engine)
    every = check_every or check_every_default(game, engine)
    n, c = setup.num_players, summary.counts
    c[f"game:{n}-players"] += 1
    c["game:rules-varied"] += bool(setup.options)
    c["game:via-env"] += setup.via_env
    c.update(setup.tags)
    names = game.action_names
    steps = checked = 0
    events: list[str] = []
    try:
        driver = EnvDriver(game, setup, engine) if setup.via_env else None
        s = driver.env.game if driver else game.new(n, seed=setup.seed, engine=engine, **setup.options)
        s.log = events
        game.check_play(s)
        native = s.engine == "native"
        rng = random.Random(f"{game.name}-stress-policy:{setup.seed}")
        bound = game.max_game_length(n, **setup.options)
        while not s.is_over:
            if steps >= bound:
                raise StressFailure(f"the game is still running after {bound} steps, its derived bound")
            legal = s.legal_actions()
            a = rng.choices(legal, setup.policies[s.current_player].weights(s, legal))[0]
            if driver:
                driver.before(s)
            c[f"action:{names[a]}"] += 1
            checking = (steps + 1) % every == 0
            twin = _twin(s) if checking and native else None
            (driver.act if driver else s.apply)(a)
            steps += 1
            if checking:
                if twin is not None:
                    twin.apply(a)
                _check_step(game, s, twin)
                checked += 1
            if steps == setup.reload_step and not s.is_over:
                s = _reload(game, s)
                s.log = events
                c["game:json-reload"] += 1
                if driver:
                    driver.env.game = s
            if steps == setup.resample_step and not s.is_over:
                check_resample(game, s, rng.randrange(n), random.Random(setup.seed))
                c["game:resample"] += 1
        if steps % every:  # the last step was not checked yet
            game.check_play(s)
            checked += 1
        if driver:
            driver.finish(s)
        summary.max_score = max(summary.max_score, *s.scores)
    except Exception as exc:  # a stress run reports every failure with the seed that replays it
        summary.failures.append((setup.seed, f"step {steps}: {type(exc).__name__}: {exc}"))
    c.update(events)
    summary.games += 1
    summary.steps += steps
    summary.checked += checked
    summary.steps_by_players[n] += steps
    summary.longest[n] = max(summary.longest.get(n, 0), steps)


def play_range(task: tuple[str, int, int, tuple[int, ...], int, str, int]) -> Summary:
    """Play games ``start`` .. ``start + count - 1`` (a worker's task)."""
    name, start, count, players, env_every, engine, check_every = task
    game = load_game(name)
    summary = Summary()
    for seed in range(start, start + count):
        play_game(game, game_setup(game, seed, players, env_every), summary, engine, check_every)
    return summary


def run(
    games: int, workers: int = 1, seed: int = 0, players: Sequence[int] | None = None, env_every: int = 10,
    progress: Callable[[int], None] | None = None, game: Game | str = "sobek", engine: str | None = None,
    check_every: int | None = None,
) -> tuple[Summary, float]:
    """Play ``games`` games of ``game`` on ``workers`` processes; the merged summary and the seconds it took.

    ``players`` defaults to every player count the game allows, ``engine`` to the game's default engine and
    ``check_every`` to :func:`check_every_default`. A worker that dies ends the run with BrokenProcessPool
    (never a hang)."""
    game = load_game(game)
    players = tuple(players or game.player_counts)
    engine = game.engine_of(engine)
    check_every = check_every or check_every_default(game, engine)
    tasks = [(game.name, seed + start, min(CHUNK, games - start), players, env_every, engine, check_every)
             for start in range(0, games, CHUNK)]
    total = Summary()
    began = time.perf_counter()
    if workers == 1:
        parts = map(play_range, tasks)
        for part in parts:
            total.merge(part)
            if progress:
                progress(total.games)
    else:
        with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
            for part in pool.map(play_range, tasks):
                total.merge(part)
                if progress:
                    progress(total.games)
    return total, time.perf_counter() - began


# ---------------------------------------------------------------------- the report


def sections(game: Game) -> dict[str, tuple[str, ...]]:
    """Every counter of the report, by section: the games, the profile's sections, every action."""
    spec = profile(game)
    counts = tuple(f"game:{n}-players" for n in game.player_counts)
    return {
        "games": (*counts, *spec.GAME_TAGS, "game:rules-varied", "game:via-env", "game:json-reload",
                  "game:resample"),
        **spec.SECTIONS,
        "actions": tuple(f"action:{name}" for name in game.action_names),
    }


def report_data(summary: Summary, seconds: float, args: dict, game: Game | str = "sobek") -> dict:
    """The report as a JSON-ready dict."""
    game = load_game(game)
    groups = sections(game)
    return {
        "game": game.name,
        "run": args,
        "games": summary.games,
        "seconds": round(seconds, 2),
        "games_per_second": round(summary.games / seconds, 1) if seconds else None,
        "steps": summary.steps,
        "checked_steps": summary.checked,
        "length": {
            str(n): {
                "games": summary.counts[f"game:{n}-players"],
                "mean_steps": round(summary.steps_by_players[n] / summary.counts[f"game:{n}-players"], 1),
                "max_steps": summary.longest[n],
                "bound": game.max_game_length(n),
            }
            for n in sorted(summary.longest)
        },
        "max_score": summary.max_score,
        "rare_paths": {name: sum(summary.counts[k] for k in keys) for name, keys in profile(game).RARE_PATHS.items()},
        "counts": {key: summary.counts[key] for keys in groups.values() for key in keys},
        "never_reached": [key for keys in groups.values() for key in keys if not summary.counts[key]],
        "failures": [{"seed": s, "error": e} for s, e in summary.failures],
    }


def format_report(data: dict) -> str:
    """The report as readable text."""
    run_args, counts = data["run"], data["counts"]
    game = load_game(data["game"])
    seconds = max(data["seconds"], 0.01)
    every = run_args["env_every"]
    if run_args["engine"] == "native":
        checks = (f"invariants checked after {data['checked_steps']} of the {data['steps']} steps (every"
                  f" {run_args['check_every']}th of a game and its last), each such step also played by the Python"
                  " engine from the same state with the same document after it")
    else:
        checks = (f"invariants checked after {data['checked_steps']} of the {data['steps']} steps"
                  + (f" (every {run_args['check_every']}th of a game and its last)" if run_args["check_every"] > 1
                     else ""))
    lines = [
        f"{game.title} stress run: {data['games']} games, seeds {run_args['seed']}.."
        f"{run_args['seed'] + data['games'] - 1}, players {'/'.join(map(str, run_args['players']))},"
        f" {run_args['workers']} worker(s), {run_args['engine']} engine",
        f"time {data['seconds']:.1f} s, {data['games'] / seconds:.1f} games/s,"
        f" {data['steps']} steps ({data['steps'] / seconds:.0f} steps/s)",
        f"{checks}; JSON reload and replay in"
        f" {data['counts']['game:json-reload']} games; a seat's resample checked in {data['counts']['game:resample']};"
        + (f" every {every}th game through the environment" if every else " no game through the environment"),
        f"failures: {len(data['failures'])}",
        "",
        f"Game length (steps per game; the bound is derived in sobek_env/{game.name}/)",
        f"  {'players':>7} {'games':>8} {'mean':>7} {'max':>5} {'bound':>6}",
    ]
    for n, row in data["length"].items():
        lines.append(f"  {n:>7} {row['games']:>8} {row['mean_steps']:>7} {row['max_steps']:>5} {row['bound']:>6}")
    lines += [f"  highest final score: {data['max_score']}", "", "Rare paths"]
    lines += [f"  {name:<46} {v:>10}" for name, v in data["rare_paths"].items()]
    for section, keys in sections(game).items():
        lines += ["", section.capitalize()]
        width = 2 if section == "actions" else 1
        cells = [f"{key.removeprefix('game:').removeprefix('action:'):<36} {counts[key]:>10}" for key in keys]
        lines += ["  " + "   ".join(cells[i:i + width]) for i in range(0, len(cells), width)]
    lines += ["", "Never reached: " + (", ".join(data["never_reached"]) or "none")]
    if data["failures"]:
        lines += ["", f"Failures (replay with load_game({game.name!r}).new and the seed):"]
        lines += [f"  seed {f['seed']}: {f['error']}" for f in data["failures"][:50]]
    return "\n".join(lines)


# ---------------------------------------------------------------------- command line


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="sobek-env stress",
        description="Play many games, check every invariant after every step, count the rare paths reached.",
    )
    parser.add_argument("--game", choices=GAMES, default="sobek", help="the game (default sobek)")
    parser.add_argument("--games", type=positive_int, default=1000, help="games to play (default 1000)")
    parser.add_argument("--workers", type=positive_int, default=1, help="processes (default 1)")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="seed of the first game (default 0)")
    parser.add_argument("--players", type=positive_int, nargs="+",
                        help="player counts, used in turn (default: every count the game allows)")
    parser.add_argument("--env-every", type=non_negative_int, default=10,
                        help="play every Nth game through the PettingZoo environment (0: never; default 10)")
    parser.add_argument("--engine", choices=("native", "python"),
                        help="the engine to play on (default: the game's default, native where it was built)")
    parser.add_argument("--check-every", type=positive_int,
                        help="check the invariants after every Nth step of a game and its last (default: 1 on "
                             "Python, the game's NATIVE_CHECK_EVERY on native: 10 for Sobek, 100 for Kleopatra)")
    parser.add_argument("--json", type=Path, help="also write the report as JSON to this file")
    parser.add_argument("--progress", action="store_true", help="print progress to stderr")
    args = parser.parse_args(argv)
    game = load_game(args.game)
    args.players = args.players or list(game.player_counts)
    for n in args.players:
        if n not in game.player_counts:
            parser.error(f"argument --players: {game.title} is for {game.min_players} to {game.max_players} "
                         f"players, got {n}")
    if len(set(args.players)) != len(args.players):
        parser.error(f"argument --players: each count once, got {args.players}")
    try:
        args.engine = game.engine_of(args.engine)
    except ValueError as exc:
        parser.error(f"argument --engine: {exc}")
    args.check_every = args.check_every or check_every_default(game, args.engine)
    if args.json is not None and not args.json.parent.is_dir():
        parser.error(f"argument --json: directory {str(args.json.parent)!r} does not exist")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run the stress test; exit status 1 if any game failed a check."""
    args = parse_args(argv)
    step = max(args.games // 20, 1)

    def progress(done: int) -> None:
        if done % step < CHUNK or done == args.games:
            print(f"{done}/{args.games} games", file=sys.stderr, flush=True)

    summary, seconds = run(args.games, args.workers, args.seed, args.players, args.env_every,
                           progress if args.progress else None, game=args.game, engine=args.engine,
                           check_every=args.check_every)
    data = report_data(summary, seconds, {
        "games": args.games, "workers": args.workers, "seed": args.seed, "players": args.players,
        "env_every": args.env_every, "engine": args.engine, "check_every": args.check_every,
    }, game=args.game)
    print(format_report(data))
    if args.json is not None:
        args.json.write_text(json.dumps(data, indent=1) + "\n")
    return 1 if summary.failures else 0


if __name__ == "__main__":
    sys.exit(main())
