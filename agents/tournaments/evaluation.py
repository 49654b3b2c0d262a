"""Play agents against each other in any registered game and report win rates, scores, the game's own
statistics (Sobek: round points, corruption, the penalty) and ratings.

    sobek-env evaluate --players 4 --games 200 --agents heuristic greedy random random
    sobek-env evaluate --players 3 --games 120 --agents heuristic --vs random --sweep tolerance=0,0.25,0.5,0.75,1
    sobek-env evaluate --game kleopatra --players 3 --games 300 --agents heuristic random random

Give exactly one spec per seat (the same spec may repeat); the seats rotate
so every agent sits in every seat equally often, hence --games must be a
multiple of --players. Game i is dealt with seed --seed + i, and each agent is
seeded from its game's seed and seat, so a run gives the same results with
any --workers. Each spec position is its own row (a repeated spec is numbered
random#1, random#2, ...). The win rate counts a shared victory as a fraction;
its 95% interval is Wilson's. The rating is openskill's Plackett-Luce,
updated in game order.

With --sweep KEY=V1,V2,... the first --agents spec plays with each value of
its option KEY against the --vs spec(s) (one spec fills every other seat, or
give one per other seat), --games games per value; the plot shows score
against corruption, coloured by win rate.

Results go to --out (default results/): evaluate.csv and evaluate.json, or
sweep.csv, sweep.json and sweep.png, with the exact command and seeds. Each
game is written to games.jsonl in --out as it ends: an interrupted tournament
(Ctrl-C, SIGTERM, a dead worker) keeps its games, and --resume with the same
arguments plays only the others, giving the results of an uninterrupted run.
While a tournament runs, its --out is locked: a second one there is refused.

With --backend ray the games are Ray tasks, on a local Ray (--workers
CPUs) or, with --address ADDR, on the Ray cluster there (ray start --head
prints its address; every CPU of the cluster plays). The results are those
of --backend local for the same seeds, games are written as they end, and an
interrupted run keeps them (--resume may use either backend). Model files of
ppo: and rllib: specs are sent to the cluster's nodes; the nodes need the
project installed (pip install "sobek-env[ray]").

With --save-replays DIR every game (or the first --replays N of each
tournament) is saved to DIR as a replay file (game-0000.jsonl, ...; a sweep
prefixes the value, tolerance=0.5-game-0000.jsonl) as it ends, the same files
for any --workers; step through one with sobek-env replay FILE.
DIR is locked like --out while the tournament runs, and refused if it holds
replays of another tournament under the names this one would write; --resume
also writes the replays its games are missing (playing those games again).

A human seat plays at this terminal, so in this process (--workers 1).
The results are written even if the output stops being read (| head).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import dataclasses
import errno
import io
import json
import os
import shlex
import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO

from agents import make
from agents.common.arguments import non_negative_int, positive_int
from agents.common.files import DirectoryLock, lock_for_command, write_atomic, write_figure
from agents.common.workers import WorkerDied, signals_held, sigterm_as_interrupt, stopped_by
from agents.games import tables as game_tables
from agents.players.human import QuitGame
from agents.players.registry import parse_spec, with_option
from agents.tournaments.tournament import (
    BACKENDS,
    AgentSummary,
    GameRecord,
    format_table,
    play_tournament,
    seating_for,
    summarize,
)
from sobek_env import archive
from sobek_env.game import OBSERVATION_MODES
from sobek_env.registry import GAMES, load_game
from sobek_env.replay import MAX_LINE_BYTES as MAX_REPLAY_LINE
from sobek_env.replay import Replay, ReplayError, json_line

GAMES_FILE = "games.jsonl"
GAMES_FORMAT = "sobek-games/1"
MAX_LINE_BYTES = 1024 * 1024


def parse_sweep(text: str) -> tuple[str, list[str]]:
    """argparse type for ``--sweep KEY=V1,V2,...``: the key and its values."""
    key, eq, values = (part.strip() for part in text.partition("="))
    settings = [v.strip() for v in values.split(",")]
    if not eq or not key.isidentifier() or not all(settings):
        raise argparse.ArgumentTypeError(f"expected KEY=V1,V2,... (e.g. tolerance=0,0.5,1), got {text!r}")
    return key, settings


def build_parser() -> argparse.ArgumentParser:
    """The command line of this module (its docstring is the help's epilog)."""
    parser = argparse.ArgumentParser(
        prog="sobek-env evaluate", description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 2)[2],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", choices=GAMES, default="sobek", help="the game (default sobek)")
    parser.add_argument("--players", type=positive_int, required=True,
                        help="players per game (Sobek 2-4, Kleopatra 2-5)")
    parser.add_argument("--games", type=positive_int, default=120,
                        help="games to play (per sweep value); a multiple of --players (default 120)")
    parser.add_argument("--agents", nargs="+", required=True, metavar="SPEC",
                        help="one spec per seat: random, greedy, heuristic[:tolerance=X], ismcts[:simulations=N], "
                             "ppo:PATH[,deterministic=false], rllib:PATH[,deterministic=false]")
    parser.add_argument("--out", type=Path, default=Path("results"), help="directory for results (default results/)")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="game i is dealt with seed S + i (default 0)")
    parser.add_argument("--workers", type=positive_int, default=None,
                        help="processes playing games, or with --backend ray the CPUs of the local Ray "
                             "(default: the number of cores; 1 with a human seat)")
    parser.add_argument("--backend", choices=BACKENDS, default="local",
                        help="local: worker processes of this machine; ray: Ray tasks (default local)")
    parser.add_argument("--address", metavar="ADDR",
                        help="with --backend ray: the Ray cluster's address (HOST:PORT as ray start --head prints "
                             "it, ray://HOST:PORT, or auto); default: a local Ray")
    parser.add_argument("--mode", choices=OBSERVATION_MODES, default="original",
                        help="observation mode (default original)")
    parser.add_argument("--sweep", type=parse_sweep, metavar="KEY=V1,V2,...",
                        help="vary the first agent's option KEY over these values")
    parser.add_argument("--vs", nargs="+", metavar="SPEC", help="with --sweep: the opponents' spec(s)")
    parser.add_argument("--save-replays", type=Path, metavar="DIR",
                        help="save each game as a replay file in DIR (sobek-env replay FILE)")
    parser.add_argument("--replays", type=non_negative_int, metavar="N",
                        help="with --save-replays: save only the first N games of each tournament (default all)")
    parser.add_argument("--resume", action="store_true",
                        help=f"continue the interrupted tournament in --out ({GAMES_FILE}) with the same arguments")
    return parser


def check_args(parser: argparse.ArgumentParser, args: argparse.Namespace) -> list[list[str]]:
    """Validate the arguments together (argparse-style exit 2 on error); return each table's specs."""
    game = load_game(args.game)
    if args.players not in game.player_counts:
        parser.error(f"argument --players: {game.title} is for {game.min_players} to {game.max_players} players, "
                     f"got {args.players}")
    if args.sweep:
        if len(args.agents) != 1 or not args.vs:
            parser.error("--sweep needs one --agents spec (the agent whose option varies) and --vs SPEC(s)")
        if len(args.vs) not in (1, args.players - 1):
            parser.error(f"--vs takes 1 spec or {args.players - 1} (one per other seat), got {len(args.vs)}")
        opponents = args.vs * (args.players - 1) if len(args.vs) == 1 else args.vs
        key, values = args.sweep
        tables = [[_setting(parser, args.agents[0], key, v), *opponents] for v in values]
    else:
        if args.vs:
            parser.error("--vs only goes with --sweep; put every seat's spec in --agents")
        if len(args.agents) != args.players:
            parser.error(f"--agents takes exactly one spec per seat: {args.players} for --players {args.players}, "
                         f"got {len(args.agents)} (a spec may repeat, e.g. heuristic random random)")
        tables = [args.agents]
    if args.replays is not None and args.save_replays is None:
        parser.error("--replays N goes with --save-replays DIR (where to save them)")
    if args.address is not None and args.backend != "ray":
        parser.error("--address is the address of a Ray cluster: it goes with --backend ray")
    if args.backend == "ray" and any(parse_spec(spec)[0] == "human" for table in tables for spec in table):
        parser.error("human plays at this terminal, and --backend ray plays the games on Ray workers; "
                     "use --backend local")
    if args.games % args.players:
        larger = args.games + args.players - args.games % args.players
        parser.error(f"--games {args.games} is not a multiple of --players {args.players} (seats rotate so every "
                     f"agent sits in every seat equally); use e.g. {larger}")
    for spec in dict.fromkeys(spec for table in tables for spec in table):
        try:
            make(spec, game=game, num_players=args.players, observation_mode=args.mode)
        except (ValueError, OSError, ImportError) as exc:
            parser.error(str(exc))
    human = any(parse_spec(spec)[0] == "human" for table in tables for spec in table)
    if human and (args.workers or 1) > 1:
        parser.error(f"human plays at this terminal, so in this process: --workers must be 1, got {args.workers}")
    if args.workers is None:
        args.workers = 1 if human else os.cpu_count() or 1
    return tables


def start_backend(parser: argparse.ArgumentParser, args: argparse.Namespace) -> contextlib.ExitStack:
    """With --backend ray, Ray connected (a local Ray started, or the cluster at --address reached) until the
    returned stack is closed; a missing Ray or an address nothing answers stops the command, changing nothing."""
    stack = contextlib.ExitStack()
    if args.backend == "ray":
        from agents.tournaments.cluster import RayUnavailable, ray_session

        try:
            stack.enter_context(ray_session(args.address, args.workers))
        except RayUnavailable as exc:
            parser.error(str(exc))
    return stack


def lock_out(parser: argparse.ArgumentParser, out: Path) -> DirectoryLock:
    """The lock of --out for this run (creating it), held until it ends: a second run there is refused."""
    return lock_for_command(parser, out, "results")


def lock_replays(parser: argparse.ArgumentParser, args: argparse.Namespace) -> DirectoryLock | None:
    """The lock of --save-replays for this run (creating it, so it is known to be writable before any game),
    held until it ends; None without --save-replays or when it is --out (locked already)."""
    if args.save_replays is None or args.save_replays.resolve() == args.out.resolve():
        return None
    return lock_for_command(parser, args.save_replays, "replays", "--save-replays")


def replay_prefix(args: argparse.Namespace, table: int) -> str:
    """What the names of table ``table``'s replays start with: a sweep's value (``tolerance=0.5-``)."""
    if not args.sweep:
        return ""
    key, values = args.sweep
    return f"{key}={values[table]}-"


def replay_path(args: argparse.Namespace, table: int, index: int) -> Path:
    return args.save_replays / f"{replay_prefix(args, table)}game-{index:04d}.jsonl"


def replays_kept(args: argparse.Namespace) -> int:
    """How many games of each tournament are saved as replays."""
    return 0 if args.save_replays is None else args.games if args.replays is None else args.replays


def check_replays(parser: argparse.ArgumentParser, args: argparse.Namespace, tables: list[list[str]]) -> None:
    """Refuse a --save-replays holding, under a name this run would write, a replay of another tournament (its
    header is not the one this run would write there): rewriting it would lose it. This tournament's own
    replays (a run resumed, or run again) would be written again the same."""
    for table, specs in enumerate(tables):
        for index in range(replays_kept(args)):
            path = replay_path(args, table, index)
            if not path.exists():
                continue
            seating = seating_for(index, args.players)
            mine = Replay(args.game, args.players, args.seed + index, {}, args.mode, [specs[p] for p in seating])
            try:
                with path.open("rb") as file:
                    header = json_line(file.readline(MAX_REPLAY_LINE + 1), f"{path} line 1")
            except (OSError, ReplayError):
                header = None
            if header != mine.header():
                parser.error(f"--save-replays {str(args.save_replays)!r} holds {path.name}, which is not this "
                             "tournament's game there (another tournament's replay?); choose another directory")


class GamesFile:
    """``games.jsonl`` in --out: a header line (the format and the arguments that define the tournament),
    then one line per game as it ends (``{"table": t, ...record}``; a sweep has one table per value).

    A line is appended in one write, so a killed run leaves at most a cut-off last line, which
    :meth:`read` ignores and :meth:`open` removes before appending. ``done[t]`` holds table
    ``t``'s games already played, by index.
    """

    def __init__(self, out: Path, tables: int) -> None:
        self.path = out / GAMES_FILE
        self.done: list[dict[int, GameRecord]] = [{} for _ in range(tables)]
        self._fd: int | None = None
        self._archive: Path | None = None

    @classmethod
    def packed(cls, archive: Path, tables: int) -> GamesFile:
        """The games file inside a packed tournament (:mod:`sobek_env.archive`), to read in place."""
        games = cls(archive, tables)
        games._archive = archive
        return games

    @property
    def exists(self) -> bool:
        """Whether there is a games file to read (a packed tournament's is found as it is read)."""
        return self._archive.is_file() if self._archive is not None else self.path.is_file()

    @contextlib.contextmanager
    def _reading(self) -> Iterator[BinaryIO]:
        if self._archive is None:
            with self.path.open("rb") as file:
                yield file
        else:
            with archive.member(self._archive, GAMES_FILE) as file:
                yield file

    def read_header(self) -> dict:
        """The arguments the file's tournament was started with; ValueError if it has no whole header."""
        with self._reading() as file:
            head = file.readline(MAX_LINE_BYTES + 1)
        header = json_line(head, f"{self.path} line 1") if head.endswith(b"\n") else None
        if not (isinstance(header, dict) and header.get("format") == GAMES_FORMAT
                and isinstance(header.get("arguments"), dict)):
            raise ValueError(f"{str(self.path)!r} does not start with a {GAMES_FORMAT} header")
        return header["arguments"]

    def lines(self) -> int:
        """The whole game lines in the file."""
        with self.path.open("rb") as file:  # counted a block at a time: the file may be anyone's, of any size
            ends = sum(block.count(b"\n") for block in iter(lambda: file.read(MAX_LINE_BYTES), b""))
        return max(0, ends - 1)

    def read(self, num_players: int, games: int, seed: int) -> int:
        """Fill :attr:`done` from the file; the length of its whole lines. ValueError naming the line for
        anything but a cut-off last line."""
        with self._reading() as file:
            file.readline(MAX_LINE_BYTES + 1)
            whole, number = file.tell(), 1
            for line in iter(lambda: file.readline(MAX_LINE_BYTES + 1), b""):
                number += 1
                where = f"{self.path} line {number}"
                if not line.endswith(b"\n"):
                    if file.read(1):
                        raise ValueError(f"{where} is longer than the {MAX_LINE_BYTES:,} bytes of any game")
                    break  # the last line, cut off by a kill
                doc = json_line(line, where)  # the replays' line reader: UTF-8, nesting, numbers checked
                table = doc.pop("table", None) if isinstance(doc, dict) else None
                if not isinstance(table, int) or not 0 <= table < len(self.done):
                    raise ValueError(f"{where}: table must be an integer from 0 to {len(self.done) - 1}")
                try:
                    record = GameRecord.from_dict(doc, num_players)
                except ValueError as exc:
                    raise ValueError(f"{where}: {exc}") from None
                if record.index >= games or record.seed != seed + record.index:
                    raise ValueError(f"{where}: game {record.index} with seed {record.seed} is not of this tournament")
                self.done[table].setdefault(record.index, record)
                whole = file.tell()
        return whole

    @property
    def started(self) -> bool:
        """Whether the file is open to record games (its header written, or read to resume)."""
        return self._fd is not None

    @property
    def played(self) -> int:
        return sum(len(table) for table in self.done)

    def start(self, arguments: dict) -> None:
        """A new file with only the header, open to append."""
        write_atomic(self.path, json.dumps({"format": GAMES_FORMAT, "arguments": arguments}) + "\n")
        self.open()

    def open(self, whole: int | None = None) -> None:
        """Append from now on, after cutting the file to its ``whole`` lines."""
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
        if whole is not None:
            os.ftruncate(self._fd, whole)

    def append(self, table: int, record: GameRecord) -> None:
        """Record a game that has just ended (one write: a kill cuts at most this line). OSError naming the
        file if it cannot be written whole (a full disk), leaving the file as it was."""
        line = (json.dumps({"table": table, **record.to_dict()}) + "\n").encode()
        try:
            written = os.write(self._fd, line)
        except OSError as exc:
            raise OSError(exc.errno, exc.strerror, str(self.path)) from None
        if written < len(line):  # the disk filled up within the line: take the part back
            os.ftruncate(self._fd, os.fstat(self._fd).st_size - written)
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self.path))
        self.done[table][record.index] = record

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def tournament_arguments(args: argparse.Namespace) -> dict:
    """The arguments that define the games (not --workers, --out): a resumed tournament must give the same."""
    arguments = {"game": args.game, "players": args.players, "games": args.games, "seed": args.seed,
                 "mode": args.mode, "agents": args.agents, "vs": args.vs, "sweep": args.sweep}
    return json.loads(json.dumps(arguments))


def planned_games(arguments: dict) -> int:
    """How many games the tournament started with ``arguments`` plays (0 if they do not say)."""
    try:
        return int(arguments["games"]) * (len(arguments["sweep"][1]) if arguments.get("sweep") else 1)
    except (KeyError, TypeError, ValueError, IndexError):
        return 0


def prepare_games(parser: argparse.ArgumentParser, args: argparse.Namespace, games: GamesFile) -> None:
    """Start the games file, or with --resume read the games already played and open it to add the others."""
    arguments = tournament_arguments(args)
    if not args.resume:
        if games.path.exists():
            try:
                earlier = planned_games(games.read_header())
            except (ValueError, OSError):
                earlier = 0
            if games.lines() < earlier:
                parser.error(f"--out {str(args.out)!r} holds an unfinished tournament ({games.lines():,} of "
                             f"{earlier:,} games); continue it with --resume and its arguments, "
                             "or choose another --out")
        games.start(arguments)
        return
    if not games.path.exists():
        parser.error(f"no tournament to resume in --out {str(args.out)!r} (no {GAMES_FILE}); "
                     "start one without --resume")
    try:
        earlier = games.read_header()
    except (ValueError, OSError) as exc:
        parser.error(f"cannot resume: {exc}")
    differ = [key for key in arguments if earlier.get(key) != arguments[key]]
    if differ:
        changes = ", ".join(f"--{key} {_shown(arguments[key])} differs from its {_shown(earlier.get(key))}"
                            for key in differ)
        parser.error(f"--resume continues the tournament in --out with its own arguments: {changes}; "
                     "give them as they were, or start a new tournament in another --out")
    try:
        whole = games.read(args.players, args.games, args.seed)
    except (ValueError, OSError) as exc:
        parser.error(f"cannot resume: {exc}")
    games.open(whole)
    say(f"resuming: {games.played:,} of {planned_games(arguments):,} games already played in {games.path}")


def say(*parts: Any) -> None:
    """print, but a standard output that is no longer read (``| head``) stops the printing, not the run: what is
    left to print goes nowhere, and the results are still written."""
    try:
        print(*parts, flush=True)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except OSError as exc:  # a full disk under a redirection: name it, the file system's name being unknown
        raise OSError(exc.errno, exc.strerror, "<standard output>") from None


def _shown(value: Any) -> str:
    if value is None:
        return "(none)"
    if isinstance(value, list):
        return " ".join(map(str, value)) if all(not isinstance(v, list) for v in value) else json.dumps(value)
    return str(value)


def _setting(parser: argparse.ArgumentParser, spec: str, key: str, value: str) -> str:
    try:
        return with_option(spec, key, value)
    except ValueError as exc:
        parser.error(str(exc))


def progress_bar(description: str):
    """A ``progress`` callback for play_tournament showing a tqdm bar on a terminal."""
    from tqdm import tqdm

    def wrap(results: Iterator[GameRecord], total: int) -> Iterable[GameRecord]:
        return tqdm(results, total=total, desc=description, unit="game", leave=False, disable=None)

    return wrap


def run(
    specs: Sequence[str], args: argparse.Namespace, games: GamesFile, table: int, description: str,
) -> tuple[list[GameRecord], list[AgentSummary]]:
    """Play one tournament (the ``table``-th of the run) as the arguments say, with a progress bar, writing each
    game to ``games`` as it ends; its games and summaries."""
    def on_record(record: GameRecord) -> None:
        with signals_held():  # a stop lands after the game is written, counted and replayed, never between
            if record.index not in games.done[table]:
                games.append(table, record)
            elif record != games.done[table][record.index]:
                raise RuntimeError(f"game {record.index}, played again for its replay, does not end as "
                                   f"{games.path} says it did")
            if record.actions:
                save_replay(args, specs, record, replay_prefix(args, table))

    keep = replays_kept(args)
    # a game played but without its replay (a replay that could not be written) is played again, for its replay
    unsaved = {i for i in games.done[table] if i < keep and not replay_path(args, table, i).exists()}
    done = {i: record for i, record in games.done[table].items() if i not in unsaved}
    records = play_tournament(specs, args.games, game=args.game, seed=args.seed, observation_mode=args.mode,
                              workers=args.workers, progress=progress_bar(description), done=done,
                              on_record=on_record, keep_actions=keep, backend=args.backend, address=args.address)
    records = [games.done[table][record.index] for record in records]  # a game played again: as first recorded
    return records, summarize(records, specs, args.game)


def save_replay(args: argparse.Namespace, specs: Sequence[str], record: GameRecord, prefix: str = "") -> Path:
    """Save ``record``'s game (which holds its actions) in --save-replays as ``<prefix>game-<index>.jsonl``,
    checked by playing it again."""
    replay = Replay(args.game, args.players, record.seed, {}, args.mode, [specs[p] for p in record.seating],
                    list(record.actions), dict(record.values))
    final = replay.final_state()
    if tuple(final.scores) != record.scores:
        raise RuntimeError(f"game {record.index} does not replay to its scores {record.scores} (got {final.scores})")
    path = args.save_replays / f"{prefix}game-{record.index:04d}.jsonl"
    replay.save(path, final)
    return path


def header(args: argparse.Namespace) -> dict:
    """What reproduces the run: the command, its arguments and the seeds."""
    return {
        "command": args.command, "game": args.game, "players": args.players, "games": args.games, "mode": args.mode,
        "workers": args.workers, "backend": args.backend, "seed": args.seed,
        "seeds": f"game i (0..{args.games - 1}) is dealt with seed {args.seed} + i; "
                 "each agent is seeded from its game's seed and seat",
    }


def write_csv(path: Path, rows: list[dict]) -> None:
    """``rows`` (dicts with the same keys) as a CSV file with a header line (written aside, then renamed)."""
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    write_atomic(path, text.getvalue().encode())


def evaluate(specs: list[str], args: argparse.Namespace, games: GamesFile) -> None:
    """Play the tournament between ``specs``, print its table and save evaluate.csv and evaluate.json."""
    records, summaries = run(specs, args, games, 0, "games")
    write_csv(args.out / "evaluate.csv", [s.row() for s in summaries])  # first: whatever becomes of the output
    report = {**header(args), "agents": specs, "summary": [s.row() for s in summaries],
              "games_played": [r.to_dict() for r in records]}
    write_atomic(args.out / "evaluate.json", json.dumps(report, indent=1))
    say(f"{load_game(args.game).title}: {args.games} games, {args.players} players, seeds {args.seed}.."
        f"{args.seed + args.games - 1}, {args.mode} observations\n")
    say(format_table(summaries, args.game))
    say(f"\nwrote {args.out / 'evaluate.csv'} and {args.out / 'evaluate.json'}")


def sweep(tables: list[list[str]], args: argparse.Namespace, games: GamesFile) -> None:
    """Play one tournament per sweep value; print and save the swept agent's rows and the plot."""
    key, values = args.sweep
    if game_tables(args.game).corruption_axes is None:  # refused before any game is played
        raise SystemExit(f"error: --sweep: {load_game(args.game).title} has no corruption axes to plot a sweep on")
    points = []
    for table, (value, specs) in enumerate(zip(values, tables)):
        _, summaries = run(specs, args, games, table, f"{key}={value}")
        points.append(dataclasses.replace(summaries[0], label=f"{key}={value}"))
    opponents = ", ".join(tables[0][1:])
    rows = [{key: value, **p.row()} for value, p in zip(values, points)]
    write_csv(args.out / "sweep.csv", rows)  # first: whatever becomes of the output
    report = {**header(args), "agent": args.agents[0], "opponents": tables[0][1:], "sweep": {key: values},
              "results": rows}
    write_atomic(args.out / "sweep.json", json.dumps(report, indent=1))
    plot_sweep(points, key, values, f"{load_game(args.game).title}: {args.agents[0]} against {opponents}",
               args.out / "sweep.png", args.game)
    say(f"{parse_spec(args.agents[0])[0]} by {key} against {opponents}: {args.games} games per value, "
        f"{args.players} players, seeds {args.seed}..{args.seed + args.games - 1}\n")
    say(format_table(points, args.game))
    say(f"\nwrote {args.out / 'sweep.csv'}, {args.out / 'sweep.json'} and {args.out / 'sweep.png'}")


def plot_sweep(points: Sequence[AgentSummary], key: str, values: Sequence[str], title: str, path: Path,
               game: str = "sobek") -> None:
    """Two panels: mean final score against the game's corruption (one point per value, coloured by
    win rate, labelled with the value), and win rate with its interval and what corruption cost
    (the ``corruption_axes`` the game's agents package registered, :mod:`agents.games`) against the value."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    info = load_game(game)
    corruption, cost, cost_label = game_tables(game).corruption_axes
    labels = {c.name: c.label for c in info.columns}
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(12, 5))
    x = [getattr(p, corruption) for p in points]
    y = [p.score_mean for p in points]
    ax.plot(x, y, color="0.75", zorder=1)
    dots = ax.scatter(x, y, c=[p.win_rate for p in points], cmap="viridis", vmin=0, vmax=1, s=80, zorder=2)
    for i, (value, p) in enumerate(zip(values, points)):
        below = i % 2  # alternate sides so neighbouring labels do not overlap
        ax.annotate(value, (getattr(p, corruption), p.score_mean), textcoords="offset points",
                    xytext=(0, -14 if below else 8), ha="center", fontsize=8)
    ax.margins(x=0.1, y=0.15)
    fig.colorbar(dots, ax=ax, label="win rate")
    ax.set_xlabel(labels[corruption])
    ax.set_ylabel("mean final score")
    ax.set_title(f"score against corruption (labels: {key})", fontsize=10)

    try:
        settings = [float(v) for v in values]
    except ValueError:
        settings = list(range(len(values)))
        bx.set_xticks(settings, values)
    rates = [p.win_rate for p in points]
    bx.fill_between(settings, [p.win_low for p in points], [p.win_high for p in points], alpha=0.25, color="C0")
    bx.plot(settings, rates, "o-", color="C0", label="win rate (95% interval)")
    bx.set_ylim(0, 1)
    bx.set_xlabel(key)
    bx.set_ylabel("win rate", color="C0")
    penalty = bx.twinx()
    penalty.plot(settings, [getattr(p, cost) for p in points], "s--", color="C3", label=labels[cost])
    penalty.set_ylabel(cost_label, color="C3")
    bx.set_title(f"win rate and {labels[cost]} against {key}", fontsize=10)
    fig.suptitle(title, fontsize=11)
    write_figure(fig, path, 110)


def main(argv: list[str] | None = None) -> None:
    """Run the command line (``argv`` defaults to ``sys.argv[1:]``)."""
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else argv
    args = parser.parse_args(argv)
    args.command = shlex.join(["sobek-env", "evaluate", *argv])
    tables = check_args(parser, args)
    backend = start_backend(parser, args)
    locks = contextlib.ExitStack()
    try:
        locks.callback(lock_out(parser, args.out).release)
        replays = lock_replays(parser, args)
        if replays is not None:
            locks.callback(replays.release)
        check_replays(parser, args, tables)
    except SystemExit:
        locks.close()
        backend.close()
        raise
    games = GamesFile(args.out, len(tables))
    try:
        prepare_games(parser, args, games)
        with sigterm_as_interrupt():
            if args.sweep:
                sweep(tables, args, games)
            else:
                evaluate(tables[0], args, games)
    except (WorkerDied, KeyboardInterrupt, QuitGame, OSError) as exc:
        resume = args.command if args.resume else f"{args.command} --resume"
        kept = f"the {games.played:,} games played are kept in {games.path}; continue with: {resume}" \
            if games.started else "no game was played"
        if isinstance(exc, KeyboardInterrupt):
            what, status = stopped_by(exc)
            print(f"{what}; {kept}", file=sys.stderr)
            sys.exit(status)
        if isinstance(exc, QuitGame):
            what = "you left the tournament"
        elif isinstance(exc, OSError):  # a full disk, a directory gone: what was written stays whole
            what = f"sobek-env evaluate: error: {exc.strerror or exc}" + (f": {exc.filename!r}" if exc.filename else "")
        else:
            what = f"sobek-env evaluate: error: {exc}"
        print(f"{what}; {kept}", file=sys.stderr)
        sys.exit(1)
    finally:
        games.close()
        locks.close()
        backend.close()


if __name__ == "__main__":
    main()
