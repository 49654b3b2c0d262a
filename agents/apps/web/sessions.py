"""The web app's games and replays held in memory: who sits where, the state, what each seat has seen.

A :class:`GameSession` is one game: its deal and actions (a :class:`~sobek_env.replay.Replay`), the state,
an agent per seat (None for a person, who acts with the token made for his seat) and, per person, the
moves of the other seats since his last move, each as he saw it (the game's ``seen_move``) with his
table after it. Every read and write of the state holds the session's lock, and agents think on a copy
outside it, in a worker thread (never on the event loop), so the table can be read while they think and
one game's search holds up no other game. A :class:`ReplaySession` is a finished game to step through.

A :class:`Store` keeps them under unguessable ids, at most ``max_games`` at once, and drops the finished
ones ``finished_ttl`` seconds after their end and the others ``idle_ttl`` seconds after their last use.
"""

from __future__ import annotations

import hmac
import random
import secrets
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sobek_env.game import Game, State
from sobek_env.registry import load_game
from sobek_env.replay import Replay

MAX_MOVES_KEPT = 200  # the others' moves kept per person, with his table after each (a round of 5 seats of
# Kleopatra is far fewer): about a megabyte
CHECKPOINT_EVERY = 64  # a replay keeps every 64th state, so a step is at most 63 actions from one


class WebError(Exception):
    """A request that cannot be served: its HTTP status and one line saying why (nothing was changed)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass
class Move:
    """Another seat's move as one person saw it: who moved, what he saw of it, his table after it."""

    step: int
    seat: int
    text: str
    table: dict[str, Any]


@dataclass
class GameSession:
    """One game in play (see the module docstring)."""

    id: str
    replay: Replay
    agents: list[Any]  # None for a person's seat
    tokens: dict[int, str]
    state: State
    game: Game
    lock: threading.Lock = field(default_factory=threading.Lock)
    moves: dict[int, list[Move]] = field(default_factory=dict)  # per person: the others' moves since his last
    thinking: bool = False  # agents are moving
    closed: bool = False  # dropped by the store: agents stop
    touched: float = field(default_factory=time.monotonic)
    finished: float | None = None
    error: str = ""  # why the agents stopped, if one failed
    clock: Callable[[], float] = time.monotonic  # the store's

    @property
    def num_players(self) -> int:
        return self.replay.num_players

    @property
    def mode(self) -> str:
        return self.replay.mode

    def humans(self) -> list[int]:
        return sorted(self.tokens)

    def check_token(self, seat: int, token: str | None) -> None:
        """WebError 403 unless ``token`` is the one made for ``seat`` (compared in constant time)."""
        expected = self.tokens.get(seat)
        if expected is None:
            raise WebError(403, f"seat {seat} is played by the server ({self.replay.agents[seat]}), not by a token")
        if not token or not hmac.compare_digest(token.encode("utf-8", "replace"), expected.encode()):
            raise WebError(403, f"missing or wrong token for seat {seat}: send the token given for it at creation "
                                "(Authorization: Bearer TOKEN)")

    def check_seat(self, seat: Any) -> int:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.num_players:
            raise WebError(400, f"seat must be an integer from 0 to {self.num_players - 1}, got {seat!r:.40}")
        return seat

    # ------------------------------------------------------------------ playing

    def play(self, seat: int, action: Any) -> None:
        """A person's move: WebError 400 (not an action id, illegal) or 409 (not his turn); nothing changes then."""
        if isinstance(action, bool) or not isinstance(action, int):
            raise WebError(400, f"action must be an integer action id, got {action!r:.40}")
        with self.lock:
            state = self.state
            if state.is_over:
                raise WebError(409, "the game is over")
            if state.current_player != seat:
                raise WebError(409, f"it is not seat {seat}'s turn: player_{state.current_player} "
                                    f"({self.replay.agents[state.current_player]}) must act")
            legal = state.legal_actions()
            if action not in legal:
                names = self.game.action_names
                what = f"{names[action]!r} ({action})" if 0 <= action < len(names) else str(action)
                raise WebError(400, f"action {what} is not legal now; the legal ids are {legal}")
            self._apply(action)

    def _apply(self, action: int) -> None:
        """Play ``action`` for the seat that must act (the lock held): each person sees it as the game says."""
        state, seat = self.state, self.state.current_player
        step = len(self.replay.actions)
        texts = {p: self.game.seen_move(state, action, p) for p in self.tokens if p != seat}
        state.apply(action)
        self.replay.actions.append((seat, action))
        if seat in self.moves:
            self.moves[seat] = []  # his own move: what he had not seen yet is behind him
        for p, text in texts.items():
            if text is not None:
                kept = self.moves.setdefault(p, [])
                kept.append(Move(step, seat, text, self.game.seat_document(state, p, self.mode)))
                del kept[:-MAX_MOVES_KEPT]
        if state.is_over and self.finished is None:
            self.finished = self.clock()

    def run_agents(self) -> None:
        """Let the agents move until a person must act or the game ends (in a worker thread: see the module
        docstring). Each agent thinks on a copy of the state, outside the lock."""
        observer = self.game.observer(self.num_players, self.mode)
        with self.lock:
            if self.thinking:
                return
            self.thinking = True
        try:
            while True:
                with self.lock:
                    state = self.state
                    if self.closed or state.is_over or self.agents[state.current_player] is None:
                        return
                    seat = state.current_player
                    copy = state.clone()
                    legal = state.legal_actions()
                mask = np.zeros(self.game.num_actions, np.int8)
                mask[legal] = 1
                observation = {"observation": observer.encode(copy, seat).copy(), "action_mask": mask}
                agent, spec = self.agents[seat], self.replay.agents[seat]
                try:
                    action = int(agent.act(observation, state=copy) if getattr(agent, "wants_state", False)
                                 else agent.act(observation))
                except Exception as exc:  # the game stops and says why, rather than a request failing with a 500
                    with self.lock:
                        self.error = f"player_{seat} ({spec}) failed: {type(exc).__name__}: {exc}"
                    return
                with self.lock:
                    if action not in self.state.legal_actions():
                        self.error = f"player_{seat} ({spec}) chose an illegal action {action}"
                        return
                    self._apply(action)
        finally:
            with self.lock:
                self.thinking = False

    # ------------------------------------------------------------------ reading

    def settled_for(self, seat: int) -> bool:
        """Whether ``seat`` must act now or the game is over (nothing more will happen until he acts)."""
        with self.lock:
            return self.state.is_over or (self.state.current_player == seat and not self.thinking)

    def view(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may see, as the API's document (INTERFACE.md, "Web")."""
        with self.lock:
            state, game = self.state, self.game
            over = state.is_over
            acting = not over and state.current_player == seat
            legal = state.legal_actions() if acting else []
            doc = {
                "game": game.name, "num_players": self.num_players, "seat": seat,
                "current_player": state.current_player, "over": over,
                "scores": visible_scores(game, state, seat, self.mode), "winners": list(state.winners) if over else [],
                "legal": [{"id": a, "name": game.action_names[a], "text": game.describe_action(state, a)}
                          for a in legal],
                "id": self.id, "title": game.title, "mode": self.mode, "agents": list(self.replay.agents),
                "humans": self.humans(), "step": len(self.replay.actions), "thinking": self.thinking,
                "error": self.error,
                "moves": [{"step": m.step, "seat": m.seat, "text": m.text} for m in self.moves.get(seat, [])],
                "table": game.seat_document(state, seat, self.mode),
            }
        return doc

    def moved_table(self, seat: int, index: int) -> dict[str, Any]:
        """``seat``'s table after the ``index``-th move he has not answered yet; WebError 404 if there is none."""
        with self.lock:
            kept = self.moves.get(seat, [])
            if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(kept):
                raise WebError(404, f"seat {seat} has {len(kept)} moves to look back on; move {index!r:.20} is not one")
            return kept[index].table

    def replay_text(self) -> str:
        with self.lock:
            if not self.state.is_over:
                raise WebError(409, "the game is not over yet: its replay is given once it ends")
            return self.replay.dumps(self.state)


def visible_scores(game: Game, state: State, seat: int, mode: str) -> list[int | None]:
    """The scores ``seat`` may see (None where hidden; every score once the game is over)."""
    if state.is_over:
        return list(state.scores)
    return game.visible_scores(state, seat, mode)


class ReplaySession:
    """A finished (or saved) game to step through: its replay and a state every :data:`CHECKPOINT_EVERY` steps."""

    def __init__(self, id: str, replay: Replay) -> None:
        self.id = id
        self.replay = replay
        self.game = load_game(replay.game)
        self.lock = threading.Lock()
        self.touched = time.monotonic()
        self.finished: float | None = None
        self.closed = False
        self.clock: Callable[[], float] = time.monotonic
        self.checkpoints: list[State] = []
        state = replay.new_state()
        for step, (_, action) in enumerate(replay.actions):
            if step % CHECKPOINT_EVERY == 0:
                self.checkpoints.append(state.clone())
            state.apply(action)
        self.final = state

    def named(self, id: str) -> ReplaySession:
        """This replay under the id the store gives it."""
        self.id = id
        return self

    @property
    def steps(self) -> int:
        return len(self.replay.actions)

    def state_at(self, step: int) -> State:
        """The state after ``step`` actions (0: the deal)."""
        if step == self.steps:
            return self.final
        state = self.checkpoints[step // CHECKPOINT_EVERY].clone()
        for _, action in self.replay.actions[step - step % CHECKPOINT_EVERY:step]:
            state.apply(action)
        return state

    def view(self, step: Any, seat: Any) -> dict[str, Any]:
        """Step ``step`` from ``seat``'s view (``"full"``: every seat's view); WebError 400 for a bad step or seat."""
        n = self.replay.num_players
        if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step <= self.steps:
            raise WebError(400, f"step must be an integer from 0 to {self.steps}, got {step!r:.40}")
        if seat != "full" and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n):
            raise WebError(400, f"seat must be an integer from 0 to {n - 1} or 'full', got {seat!r:.40}")
        with self.lock:
            state = self.state_at(step)
            before = self.state_at(step - 1) if step else None
        game, mode = self.game, self.replay.mode
        seats = range(n) if seat == "full" else [seat]
        move = None
        if before is not None:
            mover, action = self.replay.actions[step - 1]
            text = (game.describe_action(before, action) if seat == "full" or seat == mover
                    else game.seen_move(before, action, seat))
            move = {"seat": mover, "name": game.action_names[action] if seat in ("full", mover) else None,
                    "text": text}
        over = state.is_over
        return {
            "game": game.name, "title": game.title, "num_players": n, "mode": mode, "id": self.id,
            "agents": list(self.replay.agents), "seed": self.replay.seed, "step": step, "steps": self.steps,
            "seat": seat, "current_player": state.current_player, "over": over, "move": move,
            "scores": list(state.scores) if over or seat == "full" else visible_scores(game, state, seat, mode),
            "winners": list(state.winners) if over else [],
            "tables": [game.seat_document(state, p, mode) for p in seats],
        }


Session = GameSession | ReplaySession


class Store:
    """The live games and replays, by id (see the module docstring)."""

    def __init__(self, max_games: int = 32, finished_ttl: float = 1800.0, idle_ttl: float = 3600.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.max_games = max_games
        self.finished_ttl = finished_ttl
        self.idle_ttl = idle_ttl
        self.clock = clock
        self.sessions: dict[str, Session] = {}
        self.lock = threading.Lock()

    def sweep(self) -> None:
        """Drop the finished games past ``finished_ttl`` and the idle ones past ``idle_ttl``."""
        now = self.clock()
        with self.lock:
            for key, session in list(self.sessions.items()):
                done = session.finished is not None and now - session.finished > self.finished_ttl
                if done or now - session.touched > self.idle_ttl:
                    session.closed = True
                    del self.sessions[key]

    def add(self, make: Callable[[str], Session]) -> Session:
        """A new session under a new id; WebError 503 when ``max_games`` are live."""
        self.sweep()
        with self.lock:
            if len(self.sessions) >= self.max_games:
                raise WebError(503, f"the server holds as many games as it may ({self.max_games}); finish or "
                                    "leave one (they expire), or start the server with a larger --max-games")
            key = secrets.token_urlsafe(16)
            session = make(key)
            session.touched = self.clock()
            session.clock = self.clock
            self.sessions[key] = session
            return session

    def get(self, key: str, kind: type) -> Any:
        """The session ``key`` of ``kind``; WebError 404 if there is none (never made, or expired)."""
        self.sweep()
        with self.lock:
            session = self.sessions.get(key)
            if not isinstance(session, kind):
                what = "game" if kind is GameSession else "replay"
                raise WebError(404, f"no {what} {key[:40]!r} here: it never existed or it expired")
            session.touched = self.clock()
            return session


def new_game(key: str, game: Game, num_players: int, specs: Sequence[str], seed: int, mode: str,
             agents: Sequence[Any]) -> GameSession:
    """A game dealt with ``seed``; a token for each person's seat (``agents[seat]`` None)."""
    replay = Replay(game.name, num_players, seed, {}, mode, list(specs))
    tokens = {seat: secrets.token_urlsafe(24) for seat, agent in enumerate(agents) if agent is None}
    state = game.new(num_players, seed)
    return GameSession(key, replay, list(agents), tokens, state, game)


def random_seed() -> int:
    return random.SystemRandom().randrange(2**31)
