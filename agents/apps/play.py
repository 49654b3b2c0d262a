"""Play a game in the terminal against any agents, or watch agents play.

    sobek-env play --game sobek --players 3 --agents human heuristic random
    sobek-env play --game kleopatra --players 3 --agents human human heuristic --save game.jsonl
    sobek-env play --load game.jsonl

One agent spec per seat, in seat order (``human`` is a person at this terminal; several
may sit, passing the keyboard). A person sees the table drawn in colour (rich) as his seat
sees it and no more, the legal actions numbered with a few words each, and chooses by
number or by name; ``help``, ``save FILE`` and ``quit`` work at any prompt. The other
agents' moves are shown as they happen, --pause seconds apart (or, with --wait, each
waiting for Enter). The end shows the final table (with Sobek's round summaries), the
scores and the winners.

A saved game is a replay file (``sobek-replay/1``, see :mod:`sobek_env.replay`) that holds
the seats' agents and the actions so far: --load plays those actions again and continues
(with --agents, other agents take the seats). --save FILE keeps the game there after every
move, so even Ctrl-C loses nothing.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rich.text import Text

from agents import make
from agents.players.human import QuitGame
from agents.tournaments.tournament import agent_seed
from sobek_env.console import printer, seat_style
from sobek_env.env import ask
from sobek_env.env import env as make_env
from sobek_env.registry import GAMES, load_game
from sobek_env.replay import Replay, ReplayError, seconds

MAX_PAUSE = 3600  # seconds: an hour between moves is already a game by post (--wait waits for a key)


class Session:
    """One game at the terminal: the environment, an agent per seat and the replay that records it."""

    def __init__(self, replay: Replay, agents: Sequence[Any], pause: float = 0.0, autosave: Path | None = None,
                 write: Callable[[Any], Any] | None = None, read: Callable[[str], str] = input,
                 wait: bool = False) -> None:
        self.replay = replay
        self.agents = list(agents)
        self.pause = pause
        self.wait = wait
        self.autosave = autosave
        self.write = write or printer()
        self.read = read
        self.game = load_game(replay.game)
        self.env = make_env(game=self.game, num_players=replay.num_players, observation_mode=replay.mode,
                            **replay.rules)
        self.env.reset(seed=replay.seed)
        for _, action in replay.actions:  # a loaded game: its actions again, checked when it was read
            self.env.step(action)
        for agent in self.agents:
            if getattr(agent, "name", "") == "human":
                agent.saver = self
        self.humans = sum(getattr(a, "name", "") == "human" for a in self.agents)
        self.kept: int | None = None  # the actions in --save as it was last written (None: never written)
        self.unsaved = ""  # why the last save to --save failed ("" if it did not)

    @property
    def state(self) -> Any:
        return self.env.unwrapped.game

    def save(self, path: str | Path) -> str:
        """Save the game so far to ``path``; what happened, for the person who asked."""
        try:
            self.replay.save(path, self.state)
        except OSError as exc:
            return f"could not save to {str(path)!r}: {exc.strerror or exc}"
        return f"saved to {path} ({len(self.replay.actions)} actions); resume with --load {path}"

    def keep(self) -> bool:
        """Save the game so far to --save (``autosave``); whether it worked (:attr:`unsaved` says why not)."""
        try:
            self.replay.save(self.autosave, self.state)
        except OSError as exc:
            self.unsaved = exc.strerror or str(exc)
            return False
        self.kept, self.unsaved = len(self.replay.actions), ""
        return True

    def where_kept(self) -> str:
        """Where the game is kept, for the last line: true whether the last save to --save worked or not."""
        if self.autosave is None:
            return ""
        path, actions = self.autosave, len(self.replay.actions)
        if self.kept == actions:
            return f" The game is kept in {path}; resume with --load {path}."
        last = "" if self.kept is None else f"; the last save there was after {self.kept} of its {actions} actions"
        return f" The game could not be saved to {path} ({self.unsaved}){last}."

    def label(self, seat: int) -> str:
        return f"player_{seat} ({self.replay.agents[seat]})"

    def run(self) -> None:
        """Play until the game ends; :class:`~agents.players.human.QuitGame` if a person leaves."""
        last_human = None
        while not self.state.is_over:
            seat = self.state.current_player
            agent = self.agents[seat]
            observation = self.env.observe(f"player_{seat}")
            human = getattr(agent, "name", "") == "human"
            if human and self.humans > 1 and seat != last_human:
                self.write("\n" * 40 + f"Pass the keyboard to {self.label(seat)}.")
                self.read("Press Enter when ready. ")
            if human:
                last_human = seat
            action = ask(agent, observation, self.state)
            self.env.step(action)
            self.replay.actions.append((seat, int(action)))
            self.write(self.move(seat, int(action)))
            if self.autosave is not None and not self.keep():
                self.write(f"could not save to {str(self.autosave)!r} ({self.unsaved}); the game goes on unsaved")
            if not human and self.wait:
                self.read("Enter: next move ")
            elif not human and self.pause:
                time.sleep(self.pause)
        self.write(self.final_table())
        self.write(self.ending())

    def move(self, seat: int, action: int) -> Text:
        """``player_K (agent): action`` in the seat's colour, and what the action does."""
        line = Text(f"{self.label(seat)}: {self.game.action_names[action]}", style=seat_style(seat))
        line.append(f"  ({self.game.action_help(action)})", style="dim")
        return line

    def _first_person(self) -> int:
        humans = [s for s, a in enumerate(self.agents) if getattr(a, "name", "") == "human"]
        return humans[0] if humans else 0

    def final_table(self) -> Any:
        """The final table as the first person's seat sees it (or the first seat's): Sobek's shows the scored
        rounds, Kleopatra's every seat's talents and amulets and who was eaten."""
        return self.game.render_rich(self.state, self._first_person(), self.replay.mode)

    def ending(self) -> str:
        """The scores and the winners, two lines of plain text."""
        state = self.state
        scores = ", ".join(f"{self.label(s)} {v}" for s, v in enumerate(state.scores))
        winners = ", ".join(self.label(s) for s in state.winners)
        return f"Game over. Scores: {scores}\nWinner{'s' if len(state.winners) > 1 else ''}: {winners}"


def seed(text: str) -> int:
    """argparse type: a seed, an integer from 0."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer, got {text!r:.40}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sobek-env play", description=__doc__.split("\n\n")[0],
                                     epilog=__doc__.split("\n\n", 2)[2],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", choices=GAMES, default=None, help="the game (default sobek)")
    parser.add_argument("--players", type=int, default=None, help="players (default: one per --agents spec)")
    parser.add_argument("--agents", nargs="+", metavar="SPEC",
                        help="one spec per seat: human, random, greedy, heuristic[:tolerance=X], ppo:PATH")
    parser.add_argument("--seed", type=seed, default=None, help="deal with this seed (default: a random one)")
    parser.add_argument("--mode", choices=("original", "memory"), default=None,
                        help="observation mode: what the seats remember (default original)")
    parser.add_argument("--pause", type=seconds(MAX_PAUSE, zero=True), default=0.3,
                        help=f"seconds after each agent's move, at most {MAX_PAUSE} (default 0.3)")
    parser.add_argument("--wait", action="store_true", help="wait for Enter after each agent's move instead")
    parser.add_argument("--save", type=Path, metavar="FILE", help="keep the game in FILE after every move")
    parser.add_argument("--load", type=Path, metavar="FILE", help="resume the game saved in FILE")
    return parser


def prepare(parser: argparse.ArgumentParser, args: argparse.Namespace) -> tuple[Replay, list[Any]]:
    """The replay to continue (new or loaded) and an agent per seat; argparse-style exit on bad arguments."""
    if args.load is not None:
        for option in ("game", "players", "seed", "mode"):
            if getattr(args, option) is not None:
                parser.error(f"--{option} comes from the saved game with --load; drop it")
        try:
            replay = Replay.load(args.load)
        except (ReplayError, OSError) as exc:
            parser.error(f"cannot resume: {exc}")
        if args.agents:
            replay.agents = list(args.agents)
        elif not replay.agents:
            parser.error(f"{args.load} does not say who sat where; give --agents")
    else:
        if not args.agents:
            parser.error("give --agents, one spec per seat (e.g. --agents human heuristic), or --load FILE")
        game = load_game(args.game or "sobek")
        players = args.players if args.players is not None else len(args.agents)
        seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
        try:
            game.check_table(players, args.mode or "original")
        except ValueError as exc:
            parser.error(str(exc))
        replay = Replay(game.name, players, seed, {}, args.mode or "original", list(args.agents))
    if len(replay.agents) != replay.num_players:
        parser.error(f"--agents takes one spec per seat: {replay.num_players} for {replay.num_players} players, "
                     f"got {len(replay.agents)}")
    agents = []
    for seat, spec in enumerate(replay.agents):
        try:
            agents.append(make(spec, game=replay.game, num_players=replay.num_players,
                               observation_mode=replay.mode, rules=replay.rules, seed=agent_seed(replay.seed, seat)))
        except (ValueError, OSError, ImportError) as exc:
            parser.error(str(exc))
    return replay, agents


def main(argv: list[str] | None = None) -> None:
    """The command line (see the module docstring)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    replay, agents = prepare(parser, args)
    session = Session(replay, agents, args.pause, args.save, wait=args.wait)
    if args.save is not None and not session.keep():
        parser.error(f"argument --save: cannot write {str(args.save)!r} ({session.unsaved}); choose another file")
    game = session.game
    print(f"{game.title}, {replay.num_players} players, seed {replay.seed}: "
          + ", ".join(session.label(s) for s in range(replay.num_players))
          + (f"; resumed after {len(replay.actions)} actions" if args.load else "")
          + ". Type help at your prompt.")
    try:
        session.run()
    except QuitGame:
        print(f"\nYou left the game.{session.where_kept()}")
    except KeyboardInterrupt:
        print(f"\nGame interrupted.{session.where_kept()}")
        sys.exit(130)


if __name__ == "__main__":
    main()
