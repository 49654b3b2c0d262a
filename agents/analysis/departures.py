"""Where an agent departs from a baseline: its decisions in replays, each set beside what the baseline would
have done from the same observation.

    sobek-env departures records/bar-kleopatra-ismcts.tar.xz --agent ismcts \
        --baseline heuristic --late 0.6

Each replay (``sobek-env evaluate --save-replays``, a directory of them, or a tournament packed in one file by
``sobek-env pack``) is played again. At every decision of
a seat that ``--agent`` played (its spec as the replay's header names it) with more than one legal action,
from ``--late`` of the game on (``Game.progress``), the ``--baseline`` agent is asked for its choice from
that seat's observation in the replay's mode (an agent that searches the state is handed it). Printed: the
decisions compared and how many differ, then per phase (the pending sub-decision) the same and the most
common departures, as ``baseline's action -> agent's action``. ``--json`` prints one JSON object.

The baseline is seeded from each replay's seed and the seat, so the figures are the same at every run.
What it shows is where a search or a learned agent changes the baseline's play, not whether the change
was right; ``agents.analysis.paired`` measures that on the same deals.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from agents.common.arguments import TrainingParser, add_json_option, one_line_errors
from agents.players.registry import make
from sobek_env import archive
from sobek_env.game import observe
from sobek_env.replay import Replay, ReplayError, packed_replays

COMMON = 4  # departures listed per phase


@dataclass
class Phase:
    """The decisions of one phase: how many were compared, how many differ, and the departures by kind."""

    decisions: int = 0
    differ: int = 0
    departures: Counter = field(default_factory=Counter)  # (baseline's action, agent's action) -> count


@dataclass
class Departures:
    """What :func:`departures` found over a set of replays."""

    agent: str
    baseline: str
    late: float
    games: int = 0
    phases: dict[str, Phase] = field(default_factory=dict)

    @property
    def decisions(self) -> int:
        return sum(p.decisions for p in self.phases.values())

    @property
    def differ(self) -> int:
        return sum(p.differ for p in self.phases.values())


def phase_name(state: Any) -> str:
    """The name of the state's pending sub-decision (``turn`` at the start of a turn)."""
    phase = state.phase
    return getattr(phase, "name", phase) or "turn"


def read_replays(paths: list[Path]) -> list[tuple[Path, Replay]]:
    """Every replay of ``paths`` (files, directories of ``*.jsonl`` files, or packed tournaments, whose replays
    are named as if the archive were their directory), in name order; ValueError naming a path that holds none
    or a file that cannot be played again."""
    files: list[Path] = []
    packed: list[tuple[Path, Replay]] = []
    for path in paths:
        if archive.is_archive(path) and path.is_file():
            try:
                found = [(path / name, replay) for name, replay in packed_replays(path)]
            except (OSError, ValueError) as exc:  # a replay's ReplayError, the archive's ArchiveError
                raise ValueError(str(exc)) from None
            if not found:
                raise ValueError(f"{str(path)!r} holds no replay ({archive.REPLAYS_DIRECTORY}/*.jsonl)")
            packed += found
        elif path.is_dir():
            found = sorted(path.glob("*.jsonl"))
            if not found:
                raise ValueError(f"{str(path)!r} holds no replay (*.jsonl)")
            files += found
        elif path.is_file():
            files.append(path)
        else:
            raise ValueError(f"{str(path)!r}: no such file or directory")
    out = []
    for path in files:
        try:
            out.append((path, Replay.load(path)))
        except (OSError, ReplayError) as exc:
            raise ValueError(str(exc)) from None
    return sorted(out + packed, key=lambda found: found[0])


class Decision(NamedTuple):
    """One decision in a replay: the state before it, the seat, the seat's observation dict, the action
    taken, and its index in the replay's actions (the key of its ``values``, if recorded)."""

    state: Any
    seat: int
    observation: dict
    action: int
    step: int


def decisions_of(replay: Replay, agent: str, late: float = 0.0) -> Iterator[Decision]:
    """Each decision of a seat ``agent`` played in ``replay`` with more than one legal action, from ``late``
    of the game on."""
    game = replay.game_object
    seats = {seat for seat, spec in enumerate(replay.agents) if spec == agent}
    observer = game.observer(replay.num_players, replay.mode)
    state = replay.new_state()
    for step, (seat, action) in enumerate(replay.actions):
        if seat in seats and len(state.legal_actions()) > 1 and game.progress(state) >= late:
            yield Decision(state, seat, observe(observer, state, seat, game.num_actions), action, step)
        state.apply(action)


def compare_replay(replay: Replay, agent: str, baseline: str, late: float, found: Departures) -> None:
    """Add ``replay``'s decisions of the seats ``agent`` played to ``found``."""
    game = replay.game_object
    table = game.table(replay.num_players, replay.mode, **replay.rules)
    askers = {seat: make(baseline, table=table, seed=replay.seed * 1000 + seat)
              for seat, spec in enumerate(replay.agents) if spec == agent}
    names = game.action_names
    for state, seat, observation, action, _ in decisions_of(replay, agent, late):
        asker = askers[seat]
        if getattr(asker, "wants_state", False):
            choice = asker.act(observation, state=state.clone())
        else:
            choice = asker.act(observation)
        phase = found.phases.setdefault(phase_name(state), Phase())
        phase.decisions += 1
        if choice != action:
            phase.differ += 1
            phase.departures[(names[choice], names[action])] += 1
    found.games += 1


def check_seated(replays: list[tuple[Path, Replay]], agent: str) -> None:
    """ValueError naming the first replay where no seat is played by ``agent``."""
    for path, replay in replays:
        if agent not in replay.agents:
            raise ValueError(f"{str(path)!r}: no seat is played by {agent!r} (its seats: {', '.join(replay.agents)})")


def departures(replays: list[tuple[Path, Replay]], agent: str, baseline: str, late: float = 0.0) -> Departures:
    """The decisions of ``agent`` in ``replays`` against ``baseline``'s from the same observations;
    ValueError if a replay seats no ``agent``, or the baseline cannot sit at its table."""
    check_seated(replays, agent)
    found = Departures(agent, baseline, late)
    for _, replay in replays:
        compare_replay(replay, agent, baseline, late, found)
    return found


def share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def format_departures(found: Departures) -> str:
    """The comparison as a few lines and a table by phase, the most common phases first."""
    lines = [f"{found.games:,} games, {found.decisions:,} decisions of {found.agent} with a choice"
             + (f" from {found.late:g} of the game on" if found.late else "")
             + f": {found.differ:,} ({share(found.differ, found.decisions)}) differ from {found.baseline}'s",
             "", f"{'phase':<16} {'decisions':>9} {'differ':>7} {'share':>6}   "
             f"most common ({found.baseline} -> {found.agent})"]
    for name, phase in sorted(found.phases.items(), key=lambda item: (-item[1].decisions, item[0])):
        common = ", ".join(f"{b} -> {a} ({n})" for (b, a), n in phase.departures.most_common(COMMON))
        lines.append(f"{name:<16} {phase.decisions:>9,} {phase.differ:>7,} {share(phase.differ, phase.decisions):>6}   "
                     f"{common}")
    return "\n".join(lines)


def as_json(found: Departures) -> dict:
    doc = asdict(found)
    doc["decisions"], doc["differ"] = found.decisions, found.differ
    for name, phase in found.phases.items():
        doc["phases"][name]["departures"] = [{"baseline": b, "agent": a, "count": n}
                                             for (b, a), n in phase.departures.most_common()]
    return doc


def unit_share(text: str) -> float:
    """argparse type: a share of the game from 0 to 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number from 0 to 1, got {text}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be a number from 0 to 1, got {text}")
    return value


def add_replay_arguments(parser: argparse.ArgumentParser, what: str) -> None:
    """The replays, ``--agent`` (whose decisions are ``what``) and ``--late``, as the replay tools take them."""
    parser.add_argument("replays", type=Path, nargs="+",
                        help="replay files, directories of them, or packed tournaments (.tar.xz)")
    parser.add_argument("--agent", required=True, metavar="SPEC",
                        help=f"the spec, as the replays' headers name it, whose decisions are {what}")
    parser.add_argument("--late", type=unit_share, default=0.0, metavar="X",
                        help="only decisions from this share of the game on (Game.progress; default 0: all)")


def build_parser() -> argparse.ArgumentParser:
    parser = TrainingParser(prog="sobek-env departures",
                            description="Where an agent's decisions in replays depart from a baseline's, "
                                        "asked from the same observations.")
    add_replay_arguments(parser, "compared")
    parser.add_argument("--baseline", default="heuristic", metavar="SPEC",
                        help="the agent asked at each of those decisions (default heuristic)")
    add_json_option(parser, "the table")
    return parser


def main(argv: list[str] | None = None) -> None:
    parser = build_parser()
    args = parser.parse_args(argv)
    with one_line_errors(parser):  # a bad file or spec, a missing model file
        found = departures(read_replays(args.replays), args.agent, args.baseline, args.late)
    print(json.dumps(as_json(found)) if args.json else format_departures(found))


if __name__ == "__main__":
    main(sys.argv[1:])
