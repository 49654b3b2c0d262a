"""Replays: a game saved as its deal and its actions, checked by playing it again, and a viewer.

A replay file is JSON lines (``sobek-replay/1``)::

    {"format": "sobek-replay/1", "game": "sobek", "num_players": 2, "rules": {}, "seed": 7,
     "mode": "original", "agents": ["heuristic", "random"]}
    {"seat": 0, "action": 12}
    {"seat": 1, "action": 40, "values": {"38": -0.21, "40": 0.35}}
    ...
    {"over": true, "scores": [31, 24], "winners": [0]}

The header says how to deal again (``game.new(num_players, seed, **rules)``) and who sat where;
each action line is one decision (with, for a searching agent's decisions, the mean reward it measured
for each legal action, ``values``, as ``ismcts``'s ``last_means``); the final line is how the game stood
at the end of the file
(a game saved in the middle has ``"over": false``). Chance lives in the state's own seeded
generator, so the same deal and actions give the same game: reading a replay plays it again
and refuses, naming the line, anything that does not fit (bad JSON, another format, an
action out of turn or illegal, final scores that differ, a file cut short). It reads a line
at a time within limits far above any real game (line length, line count, nesting, number
length), so a file from anyone costs at most a line of memory before it is refused.

    sobek-env replay FILE [--seat K | --full] [--step N] [--print]

steps through a game in the terminal (``n``/Enter next, ``p`` previous, a number to jump,
``q`` quit), drawing the table in colour (rich) as seat K sees it (default: as the player to
move sees it; ``--full``: every seat's view). ``--print`` prints every step, or only step N,
as plain text without asking; ``--gif OUT`` draws them into an animated GIF (Pillow) of the
game's pictures (``--full``: one picture with every hand open; ``--every K``: every K-th step),
and ``--png OUT`` the picture of step N (default: the last). In a tournament packed in one file
(:mod:`sobek_env.archive`), ``sobek-env replay records/RUN.tar.xz --game N`` picks its game N.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import re
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from . import archive
from .errors import IllegalActionError
from .game import Game, State
from .picture import MAX_FRAME_SECONDS
from .registry import GAMES, load_game

FORMAT = "sobek-replay/1"
# Limits of the reader, far above any real file and far below what would hurt to read. The longest line is
# a header (21.7 KB with every Kleopatra rules option spelled out and five 4,096-byte model paths) or an
# action with its values (343 bytes, the longest of 5-player Kleopatra games with search values).
MAX_LINE_BYTES = 64 * 1024
MAX_DEPTH = 8  # nesting levels; the deepest line, a header giving Kleopatra's tiles, has 5
MAX_NUMBER_CHARS = 4300  # as Python's int() of a text: every integer the commands take (a --seed) reads back
# The most lines are derived from the header: a header, an action per step of the longest game the header's
# game, players and rules allow (``max_game_length``), and a final line.


class ReplayError(ValueError):
    """A replay file that cannot be played again; the message names the file's line."""


@dataclass
class Replay:
    """A game as its deal (game, players, rules options, seed), who sat where, and its actions in order."""

    game: str
    num_players: int
    seed: int
    rules: dict[str, Any] = field(default_factory=dict)
    mode: str = "original"
    agents: list[str] = field(default_factory=list)
    actions: list[tuple[int, int]] = field(default_factory=list)  # (seat, action id)
    values: dict[int, dict[int, float]] = field(default_factory=dict)  # by action index: each legal action's value

    @property
    def game_object(self) -> Game:
        return load_game(self.game)

    def new_state(self) -> State:
        """The deal, before any action."""
        return self.game_object.new(self.num_players, self.seed, **self.rules)

    def states(self) -> Iterator[State]:
        """The state before the first action, then after each (independent copies)."""
        state = self.new_state()
        yield state.clone()
        for _, action in self.actions:
            state.apply(action)
            yield state.clone()

    def final_state(self) -> State:
        """The state after every action."""
        state = self.new_state()
        for _, action in self.actions:
            state.apply(action)
        return state

    def header(self) -> dict[str, Any]:
        return {"format": FORMAT, "game": self.game, "num_players": self.num_players, "rules": dict(self.rules),
                "seed": self.seed, "mode": self.mode, "agents": list(self.agents)}

    def dumps(self, final: State | None = None) -> str:
        """The file's text; ``final`` (the state after every action, replayed if not given) gives the last line."""
        final = self.final_state() if final is None else final
        lines = [_line(self.header())]
        for index, (seat, action) in enumerate(self.actions):
            doc: dict[str, Any] = {"seat": seat, "action": action}
            if index in self.values:
                doc["values"] = {str(a): value for a, value in sorted(self.values[index].items())}
            lines.append(_line(doc))
        lines.append(_line({"over": bool(final.is_over), "scores": list(final.scores), "winners": list(final.winners)}))
        return "".join(lines)

    def save(self, path: str | os.PathLike, final: State | None = None) -> None:
        """Write the file (aside, then renamed, so a reader never sees half of it). OSError naming ``path``
        if it cannot be written; nothing is left aside."""
        path = Path(path)
        aside = path.with_name(f".{path.name}.tmp")
        try:
            aside.write_text(self.dumps(final))
            os.replace(aside, path)
        except BaseException as exc:  # a full disk, or Ctrl-C while writing: nothing may stay aside
            with contextlib.suppress(OSError):  # e.g. no directory there: then there is nothing aside either
                aside.unlink(missing_ok=True)
            if isinstance(exc, OSError):  # named by the file asked for, not the one aside
                raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from None
            raise

    @classmethod
    def loads(cls, text: str | bytes, name: str = "replay") -> Replay:
        """Read and check a replay's text by playing it again; ReplayError naming ``name`` and the line."""
        data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else bytes(text)
        return _read(io.BytesIO(data), name)

    @classmethod
    def read(cls, file: BinaryIO, name: str = "replay") -> Replay:
        """Read and check a replay from an open binary file (see :meth:`loads`) a line at a time."""
        return _read(file, name)

    @classmethod
    def load(cls, path: str | os.PathLike) -> Replay:
        """Read and check a replay file (see :meth:`loads`) a line at a time, within the reader's limits;
        OSError if it cannot be read."""
        with open(path, "rb") as file:
            return _read(file, str(path))


def packed_replays(path: str | os.PathLike) -> Iterator[tuple[str, Replay]]:
    """Each replay of a packed tournament (:mod:`sobek_env.archive`), in the archive's order, as its member's
    name and the replay; ReplayError (a replay) or ArchiveError (the archive) naming the archive and the member,
    OSError if the file cannot be read."""
    for name, stream in archive.members(path, archive.is_replay):
        yield name, _read(stream, f"{os.fspath(path)}: {name}")


def packed_replay(path: str | os.PathLike, game: int) -> Replay:
    """The replay of game ``game`` (``replays/game-NNNN.jsonl``) in a packed tournament; ArchiveError naming
    the games it holds if it holds none of that game, or several (a sweep's: unpack it and give the file)."""
    where, wanted = os.fspath(path), f"game-{game:04d}.jsonl"
    numbers: list[int] = []
    matches: list[str] = []
    replay = None
    for name, stream in archive.members(path, archive.is_replay):
        number = re.search(r"game-(\d+)\.jsonl$", name)
        if number:
            numbers.append(int(number.group(1)))
        if name.rpartition("/")[2].endswith(wanted):
            matches.append(name)
            if replay is None:  # read now: a member's stream lasts only until the next one
                replay = _read(stream, f"{where}: {name}")
    if replay is None:
        held = f"games {min(numbers)} to {max(numbers)}" if numbers else "no replay"
        raise archive.ArchiveError(f"{where} holds no replay of game {game} (it holds {held})")
    if len(matches) > 1:
        raise archive.ArchiveError(f"{where} holds {len(matches)} replays of game {game} ({', '.join(matches)}): "
                                   f"unpack it (tar xJf) and give the file")
    return replay


def _line(doc: Mapping[str, Any]) -> str:
    return json.dumps(doc, separators=(",", ":")) + "\n"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class _Refused(ValueError):
    """A value a replay line may not hold, found while parsing it (the caller names the line)."""


def _number(parse: Callable[[str], Any]) -> Callable[[str], Any]:
    def checked(text: str) -> Any:
        if len(text) > MAX_NUMBER_CHARS:
            raise _Refused(f"a number of {len(text):,} characters, more than the {MAX_NUMBER_CHARS:,} allowed")
        return parse(text)
    return checked


def _no_constant(name: str) -> Any:
    raise _Refused(f"{name} is not a number JSON allows")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        twice = next(key for i, (key, _) in enumerate(pairs) if key in dict(pairs[:i]))
        raise _Refused(f"the key {twice!r:.60} appears twice in one object")
    return out


def _nesting(value: Any) -> int:
    """How deeply lists and objects nest in ``value`` (a scalar is 0), walked without recursion."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, level + 1)
            stack.extend((child, level + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def json_line(line: bytes, where: str) -> Any:
    """The JSON value of one line of a replay (or of another JSON-lines file, as a tournament's games), checked
    as it is parsed: UTF-8, no number longer than :data:`MAX_NUMBER_CHARS`, no NaN or infinity, no key twice in
    an object, at most :data:`MAX_DEPTH` levels deep. ReplayError starting with ``where`` (the file and the
    line) for anything else."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ReplayError(f"{where}: not UTF-8 text (byte {exc.start + 1} is {line[exc.start]:#04x})") from None
    try:
        value = json.loads(text, parse_int=_number(int), parse_float=_number(float), parse_constant=_no_constant,
                           object_pairs_hook=_unique_keys)
    except RecursionError:
        raise ReplayError(f"{where}: nested more than {MAX_DEPTH} levels deep") from None
    except _Refused as exc:
        raise ReplayError(f"{where}: {exc}") from None
    except ValueError as exc:
        raise ReplayError(f"{where}: not JSON ({exc})") from None
    if _nesting(value) > MAX_DEPTH:
        raise ReplayError(f"{where}: nested more than {MAX_DEPTH} levels deep")
    return value


def json_lines(file: BinaryIO, name: str) -> Iterator[tuple[int, Any]]:
    """Each line of ``file`` as its number and its JSON value (:func:`json_line`), read one at a time: a line
    over :data:`MAX_LINE_BYTES` or cut off at the end of the file is a ReplayError naming ``name`` and the
    line, found before anything after it is read."""
    for number, line in enumerate(iter(lambda: file.readline(MAX_LINE_BYTES + 1), b""), 1):
        where = f"{name} line {number}"
        if not line.endswith(b"\n"):
            if len(line) > MAX_LINE_BYTES:
                raise ReplayError(f"{where}: longer than the {MAX_LINE_BYTES:,} bytes of any replay line")
            raise ReplayError(f"{where}: the file is truncated (its last line is cut off)")
        yield number, json_line(line, where)


def _object(doc: Any, where: str) -> dict:
    if not isinstance(doc, dict):
        raise ReplayError(f"{where}: must be a JSON object")
    return doc


def _read(file: BinaryIO, name: str) -> Replay:
    lines = json_lines(file, name)
    first = next(lines, None)
    if first is None:
        raise ReplayError(f"{name} line 1: the file is empty; a replay starts with a {FORMAT} header")
    replay = _header(_object(first[1], f"{name} line 1"), f"{name} line 1")
    most = replay.game_object.max_game_length(replay.num_players, **replay.rules) + 2
    state = replay.new_state()
    number = 1
    for number, doc in lines:
        where = f"{name} line {number}"
        if number > most:
            raise ReplayError(f"{where}: a {replay.num_players}-player game has at most {most - 2:,} actions, "
                              f"so its replay at most {most:,} lines")
        doc = _object(doc, where)
        if "action" not in doc:
            if next(lines, None) is not None:
                raise ReplayError(f"{where}: an action line {{\"seat\": s, \"action\": id}} is expected here")
            _check_end(doc, state, where)
            return replay
        if set(doc) - {"values"} != {"seat", "action"} or not _is_int(doc["seat"]) or not _is_int(doc["action"]):
            raise ReplayError(f"{where}: an action line is {{\"seat\": s, \"action\": id}} with integers "
                              f"(and values), got {doc}"[:300])
        seat, action = doc["seat"], doc["action"]
        if state.is_over:
            raise ReplayError(f"{where}: the game is already over")
        if seat != state.current_player:
            raise ReplayError(f"{where}: player_{seat} acts, but it is player_{state.current_player}'s turn"[:300])
        if "values" in doc:
            replay.values[len(replay.actions)] = _values(doc["values"], state, where)
        try:
            state.apply(action)
        except IllegalActionError:
            names = replay.game_object.action_names
            shown = names[action] if 0 <= action < len(names) else str(action)[:40]
            legal = ", ".join(names[a] for a in state.legal_actions())
            raise ReplayError(f"{where}: action {shown} is illegal for player_{seat} here; legal: {legal}") from None
        replay.actions.append((seat, action))
    raise ReplayError(f"{name} line {number}: the file is truncated (no final line with the scores)")


def _values(doc: Any, state: State, where: str) -> dict[int, float]:
    """An action line's ``values``: an object from legal action ids (as strings) to finite numbers."""
    legal = set(state.legal_actions())
    if not isinstance(doc, dict) or not doc:
        raise ReplayError(f"{where}: values must be an object from legal action ids to numbers, got {doc!r:.80}")
    out = {}
    for key, value in doc.items():
        if not (key.isascii() and key.isdigit()) or int(key) not in legal:
            raise ReplayError(f"{where}: values name {key!r:.40}, which is not a legal action id here")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ReplayError(f"{where}: the value of action {key!r:.40} must be a finite number, got {value!r:.40}")
        out[int(key)] = float(value)
    return out


def _header(doc: dict, where: str) -> Replay:
    if doc.get("format") != FORMAT:
        raise ReplayError(f"{where}: not a {FORMAT} header (format {doc.get('format')!r:.80}); "
                          "this file is another format or version")
    keys = {"format", "game", "num_players", "rules", "seed", "mode", "agents"}
    if set(doc) != keys:
        raise ReplayError(f"{where}: the header has the fields {', '.join(sorted(keys))}")
    if doc["game"] not in GAMES:
        raise ReplayError(f"{where}: unknown game {doc['game']!r:.80}; the games are {', '.join(GAMES)}")
    game = load_game(doc["game"])
    agents = doc["agents"]
    if not isinstance(doc["rules"], dict) or not _is_int(doc["seed"]) or not isinstance(agents, list) \
            or not all(isinstance(a, str) for a in agents):
        raise ReplayError(f"{where}: rules must be an object, seed an integer and agents a list of specs")
    try:
        game.check_table(doc["num_players"], doc["mode"])
        replay = Replay(doc["game"], doc["num_players"], doc["seed"], doc["rules"], doc["mode"], agents)
        replay.new_state()
    except (ValueError, TypeError) as exc:
        raise ReplayError(f"{where}: {exc}") from None
    if agents and len(agents) != replay.num_players:
        raise ReplayError(f"{where}: {len(agents)} agents for {replay.num_players} players")
    return replay


def _check_end(doc: dict, state: State, where: str) -> None:
    if set(doc) != {"over", "scores", "winners"}:
        raise ReplayError(f"{where}: the final line is {{\"over\": ..., \"scores\": [...], \"winners\": [...]}}")
    replayed = {"over": bool(state.is_over), "scores": list(state.scores), "winners": list(state.winners)}
    for key, value in replayed.items():
        if doc[key] != value:
            raise ReplayError(f"{where}: {key} {doc[key]!s:.80} recorded, but the game replays to {value}")


# ---------------------------------------------------------------- the viewer


def seconds(most: float, zero: bool = False) -> Callable[[str], float]:
    """argparse type: a finite number of seconds up to ``most``, above 0 (from 0 if ``zero``)."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a number of seconds, got {text!r}") from None
        if not ((value >= 0 if zero else value > 0) and value <= most):  # NaN fails both comparisons
            low = "from 0" if zero else "more than 0 and at most"
            raise argparse.ArgumentTypeError(f"must be {low} {'to ' if zero else ''}{most:g} seconds, got {text}")
        return value
    return parse


def heading(replay: Replay, step: int) -> str:
    """What step ``step`` is: the deal, or who played what."""
    if step == 0:
        what = "the deal"
    else:
        who, action = replay.actions[step - 1]
        agent = f" ({replay.agents[who]})" if replay.agents else ""
        what = f"player_{who}{agent} played {replay.game_object.action_names[action]}"
    return f"--- step {step}/{len(replay.actions)}: {what}"


def picture(replay: Replay, states: Sequence[State], step: int, seat: int | None = None, full: bool = False) -> str:
    """The table at ``step`` (0 = the deal) as ``seat`` sees it (default: the player to move), or every seat's
    view, as plain text (``--print``)."""
    game, state = replay.game_object, states[step]
    lines = [heading(replay, step)]
    if full:
        for s in range(replay.num_players):
            lines += [f"=== as player_{s} sees it", game.render_text(state, s, replay.mode)]
    else:
        lines.append(game.render_text(state, seat, replay.mode))
    return "\n".join(lines)


def table(replay: Replay, states: Sequence[State], step: int, seat: int | None = None, full: bool = False) -> list:
    """The table at ``step`` drawn for the terminal (rich): its heading, then the view of ``seat`` (default: the
    player to move), or every seat's view one after the other."""
    game, state = replay.game_object, states[step]
    seats = range(replay.num_players) if full else [seat]
    return [heading(replay, step), *(game.render_rich(state, s, replay.mode) for s in seats)]


def frames(replay: Replay, steps: Sequence[int], seat: int | None = None, full: bool = False) -> list:
    """The drawn pictures of ``steps`` (as ``seat`` sees them, default the player to move; ``full``: every
    hand open), each with its heading in a strip above it."""
    from .picture import captioned

    game = replay.game_object
    wanted, out = set(steps), {}
    for step, state in enumerate(replay.states()):
        if step in wanted:
            out[step] = captioned(game.render_rgb(state, seat, replay.mode, full), heading(replay, step)[4:])
    return [out[step] for step in steps]


def browse(replay: Replay, seat: int | None, full: bool, step: int, read=input, write=None) -> None:
    """Step through ``replay`` interactively from ``step``: n or Enter next, p previous, a number jumps, q quits.
    ``write`` takes strings and rich renderables (default: a rich console)."""
    from .console import printer

    write = write or printer()
    states = list(replay.states())
    last = len(states) - 1
    step = min(step, last)
    while True:
        for part in table(replay, states, step, seat, full):
            write(part)
        try:
            answer = read(f"[step {step}/{last}] n/Enter next, p previous, NUMBER jump, q quit: ").strip().lower()
        except EOFError:
            return
        if answer == "q":
            return
        if answer in ("", "n"):
            if step == last:
                write("(this is the last step; p goes back, q quits)")
            step = min(step + 1, last)
        elif answer == "p":
            step = max(step - 1, 0)
        elif answer.isdigit():
            step = min(int(answer), last)
        else:
            write(f"unknown key {answer!r}: n or Enter next, p previous, a number jumps, q quits")


def main(argv: list[str] | None = None) -> None:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(prog="sobek-env replay", description=__doc__.split("\n\n")[0])
    parser.add_argument("file", type=Path, help="a replay file (evaluate --save-replays, play --save), or a "
                                                "packed tournament (.tar.xz) with --game")
    parser.add_argument("--game", type=int, metavar="N", help="in a packed tournament: the replay of its game N")
    view = parser.add_mutually_exclusive_group()
    view.add_argument("--seat", type=int, help="draw the table as this seat sees it (default: the player to move)")
    view.add_argument("--full", action="store_true",
                      help="draw every seat's view (in a picture: one table with every hand open)")
    parser.add_argument("--step", type=int, default=None, help="start at (or with --print, print only) this step")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--print", action="store_true", help="print the steps and exit instead of asking")
    output.add_argument("--gif", type=Path, metavar="OUT", help="write the steps as an animated GIF (needs Pillow)")
    parser.add_argument("--seconds", type=seconds(MAX_FRAME_SECONDS), default=1.0,
                        help=f"with --gif: seconds per step, at most {MAX_FRAME_SECONDS:g} (default 1)")
    parser.add_argument("--every", type=int, default=1, metavar="K",
                        help="with --gif: draw every K-th step (and the last), for a shorter animation")
    output.add_argument("--png", type=Path, metavar="OUT",
                        help="write the picture of --step (default: the last step) as a PNG (needs Pillow)")
    args = parser.parse_args(argv)
    if archive.is_archive(args.file) and args.game is None:
        parser.error(f"{str(args.file)!r} is a packed tournament: choose one of its replays with --game N")
    if args.game is not None and not archive.is_archive(args.file):
        parser.error(f"argument --game: picks a replay in a packed tournament ({archive.SUFFIX}), and "
                     f"{str(args.file)!r} is a replay itself: drop --game")
    try:
        replay = Replay.load(args.file) if args.game is None else packed_replay(args.file, args.game)
    except (ValueError, OSError) as exc:  # a ReplayError, or an ArchiveError of the packed tournament
        parser.exit(1, f"{parser.prog}: error: {exc}\n")
    if args.seat is not None and not 0 <= args.seat < replay.num_players:
        parser.error(f"--seat must be 0 to {replay.num_players - 1} for this {replay.num_players}-player game")
    if args.step is not None and not 0 <= args.step <= len(replay.actions):
        parser.error(f"--step must be 0 to {len(replay.actions)} for this game of {len(replay.actions)} actions")
    if args.every < 1:
        parser.error(f"argument --every: must be 1 or more, got {args.every}")
    picture_file = args.gif or args.png
    if picture_file is not None and not picture_file.parent.is_dir():
        parser.error(f"argument --{'gif' if args.gif else 'png'}: cannot write {str(picture_file)!r} "
                     f"(no directory {str(picture_file.parent)!r})")
    try:
        if args.png:
            from .picture import save_png

            step = len(replay.actions) if args.step is None else args.step
            state = list(replay.states())[step]
            save_png(replay.game_object.render_rgb(state, args.seat, replay.mode, args.full), args.png)
            print(f"wrote {args.png} (step {step})")
        elif args.gif:
            from .picture import save_gif

            last = len(replay.actions)
            steps = [args.step] if args.step is not None else sorted({*range(0, last + 1, args.every), last})
            size = save_gif(frames(replay, steps, args.seat, args.full), args.gif, args.seconds)
            print(f"wrote {args.gif} ({len(steps)} frames, {size / 1024:.0f} KB)")
        elif args.print:
            states = list(replay.states())
            steps = [args.step] if args.step is not None else range(len(states))
            for step in steps:
                print(picture(replay, states, step, args.seat, args.full))
        else:
            browse(replay, args.seat, args.full, args.step or 0)
    except ImportError as exc:  # no Pillow
        parser.exit(1, f"{parser.prog}: error: {exc}\n")
    except BrokenPipeError:  # | head: stop quietly, and keep Python from complaining about stdout at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
    except OSError as exc:  # a picture that cannot be written there, or an output on a full disk
        what = f"cannot write {str(picture_file)!r} " if picture_file else "cannot write the output "
        parser.exit(1, f"{parser.prog}: error: {what}({exc.strerror or exc})\n")
    except KeyboardInterrupt:
        print()
        sys.exit(130)


if __name__ == "__main__":
    main()
