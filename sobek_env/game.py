"""What the game-agnostic layer knows of a game: the game object, its phases and its tables.

A game package (``sobek_env/sobek/``, ``sobek_env/kleopatra/``) provides one
:class:`Game` object, in the manner of OpenSpiel's ``GameInfo``: an immutable
description that computes its own sizes from its parameters (players, action
table, observation layout, maximum game length), builds states, observers and
renderings, and names what a tournament should count. The environments, the
agents that need no game knowledge, training, evaluation, the stress runner and
the benchmarks take a game object and nothing else; none of them imports a game.

A game's state follows the protocol of :class:`State`. Its pending
sub-decision is a :class:`Phase`: a type that owns its legal actions, its
transitions, its document form, its checks and its description, so that
everything else (encoders, renderers, agents) dispatches on it.
"""

from __future__ import annotations

import os
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Integral
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from .errors import IllegalActionError
from .words import action_parts

if TYPE_CHECKING:
    from types import ModuleType

ENGINES = ("native", "python")  # a game's engines, in the order the default is chosen
OBSERVATION_MODES = ("original", "memory")  # what the seat sees now, or that with perfect recall: every game's


def check_observation_mode(mode: str, modes: Sequence[str] = OBSERVATION_MODES) -> None:
    """ValueError unless ``mode`` is one of ``modes``."""
    if mode not in modes:
        raise ValueError(f"observation_mode must be one of {', '.join(modes)}, got {mode!r}")


def python_state(state: Any) -> Any:
    """``state`` on the Python engine: itself, or the equal Python state of a native one. Code that reads an
    engine's internals (renderers, invariants, statistics, views) reads them there."""
    return state.to_python() if getattr(state, "engine", "python") == "native" else state


class Phase:
    """One kind of sub-decision, and while it is pending, its data (the instance's fields).

    Subclasses set :attr:`name` (the rules' word, also the document's ``"phase"``) and
    :attr:`description`, and implement the methods below. A state's ``pending`` is an
    instance, or None at the start of a turn (where the game's turn-start phase decides).
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    __slots__ = ()

    def legal(self, s: Any) -> list[int]:
        """The sorted legal action ids of ``s.current_player``."""
        raise NotImplementedError

    def apply(self, s: Any, action: int) -> None:
        """Play ``action`` (already known to be legal)."""
        raise NotImplementedError

    def document(self) -> dict[str, Any]:
        """The pending's JSON form, without its ``"phase"`` key."""
        return {}

    @classmethod
    def read(cls, doc: Mapping[str, Any], s: Any, path: str) -> Phase:
        """Rebuild from :meth:`document` strictly: StateFormatError naming ``path``'s bad field."""
        return cls()

    def check(self, s: Any) -> None:
        """Raise InvariantError if this pending does not fit ``s``."""

    def copy(self) -> Phase:
        """An independent copy (phases with mutable fields override it)."""
        return self


class PhasedState:
    """What the games' Python states share: the legal actions of the pending phase (cached until the next
    action) and ``apply``, which refuses anything but a legal integer id in one line, changing nothing.

    A subclass sets :attr:`turn_start` (the phase that decides when nothing is pending), :attr:`action_names`
    and :attr:`game_name` (its game object writes, reads and resamples it), and has the slots ``rules`` (with
    ``num_players``), ``current_player``, ``pending``, ``over``, ``log`` (the event names :meth:`emit` reports,
    or None) and ``_legal``; :meth:`phase_name` names the pending phase for people.
    """

    engine = "python"  # the reference engine (a native twin may serve instead: Game.engines)
    turn_start: ClassVar[Phase]
    action_names: ClassVar[tuple[str, ...]]
    game_name: ClassVar[str]  # the game's registry name
    __slots__ = ()
    __hash__ = None  # mutable

    @classmethod
    def _game(cls) -> Game:
        """The state's game object (it picks the engine), from the registry: its module imports the state's."""
        from .registry import load_game

        return load_game(cls.game_name)

    @classmethod
    def _native_engine(cls, engine: str | None) -> ModuleType | None:
        """The compiled engine where ``engine`` picks it (None: the default, checked by the game object), else
        None: this class serves."""
        if engine == "python":
            return None
        game = cls._game()
        return game.native_engine() if game.engine_of(engine) == "native" else None

    @classmethod
    def from_json(cls, text: str | bytes, engine: str | None = None) -> State:
        """Rebuild a state from :meth:`to_json`'s document; StateFormatError names a bad field. ``engine`` as
        in ``new`` (by default the native one where it was built)."""
        native = cls._native_engine(engine)
        return cls._game().documents.load(text) if native is None else native.from_json(text)

    def clone(self) -> PhasedState:
        """An independent copy (the random generator included; not the event log)."""
        other = type(self).__new__(type(self))
        self._copy_into(other)
        other.log = None
        other._legal = None
        return other

    def _copy_into(self, other: PhasedState) -> None:
        """Copy every field but the log and the legal actions into ``other``, a bare instance."""
        raise NotImplementedError

    def to_json(self) -> str:
        """The state as its game's JSON document (INTERFACE.md)."""
        return self._game().documents.dump(self)

    def resample(self, player: int, rng: random.Random) -> State:
        """A state consistent with everything ``player`` knows in memory mode, the rest re-drawn with ``rng``
        (a determinization for search agents; INTERFACE.md, "Games")."""
        return self._game().resampler.resample(self, player, rng)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, type(self)):
            return NotImplemented
        to_document = self._game().documents.to_document
        return to_document(self) == to_document(other)

    @property
    def num_players(self) -> int:
        return self.rules.num_players

    @property
    def is_over(self) -> bool:
        return self.over

    def emit(self, event: str) -> None:
        """Report a rules path to the event log, if one is kept."""
        if self.log is not None:
            self.log.append(event)

    def phase_name(self) -> str:
        """The pending phase's name (the turn start's when nothing is pending)."""
        return (self.turn_start if self.pending is None else self.pending).name

    def legal_actions(self) -> list[int]:
        """The sorted legal action ids of ``current_player`` ([] once the game is over)."""
        return list(self._legal_ids())

    def _legal_ids(self) -> list[int]:
        legal = self._legal
        if legal is None:
            legal = [] if self.over else (self.turn_start if self.pending is None else self.pending).legal(self)
            self._legal = legal
        return legal

    def apply(self, action: int) -> None:
        """Play ``action`` for ``current_player``; IllegalActionError, changing nothing, for anything but a
        legal integer id."""
        if type(action) is not int:
            if isinstance(action, bool) or not isinstance(action, Integral):
                raise IllegalActionError(f"an action must be an integer id from 0 to {len(self.action_names) - 1}, "
                                         f"got {action!r:.40} ({type(action).__name__})")
            action = int(action)
        legal = self._legal
        if legal is None:
            legal = self._legal_ids()
        if action not in legal:
            raise IllegalActionError(self._illegal_message(action, legal))
        self._legal = None
        pending = self.pending
        (self.turn_start if pending is None else pending).apply(self, action)

    def _illegal_message(self, action: int, legal: list[int]) -> str:
        if self.over:
            return f"action {action} is not legal: the game is over"
        names = self.action_names
        if not 0 <= action < len(names):
            what = f"action {action} is out of range (ids are 0 to {len(names) - 1})"
        else:
            what = f"action {action} ({names[action]}) is not legal now"
        legal_names = ", ".join(f"{a} {names[a]}" for a in legal)
        return f"{what} for player {self.current_player} at {self.phase_name()}; legal: {legal_names}"


@runtime_checkable
class State(Protocol):
    """The protocol every game's state follows (INTERFACE.md, "Games"); ``engine`` is ``"native"`` or
    ``"python"``."""

    engine: str

    @property
    def num_players(self) -> int: ...
    @property
    def current_player(self) -> int: ...
    @property
    def is_over(self) -> bool: ...
    @property
    def scores(self) -> list[int]: ...
    @property
    def winners(self) -> list[int]: ...
    def legal_actions(self) -> list[int]: ...
    def apply(self, action: int) -> None: ...
    def clone(self) -> State: ...
    def to_json(self) -> str: ...
    def resample(self, player: int, rng: random.Random) -> State: ...


@runtime_checkable
class Observer(Protocol):
    """Writes one seat's view of a state into a preallocated float32 buffer (returned, not copied)."""

    def encode(self, state: State, seat: int) -> np.ndarray: ...


class BufferObserver:
    """What the games' observers share: one float32 buffer of the observation layout, exposed as named
    ``views``, and :meth:`encode`, where a native state writes the buffer itself and a Python one goes to
    ``_encode`` (the compiled encoder where it was built, else :meth:`encode_python`). A subclass gives
    :meth:`encode_python` and, where it has a compiled encoder, sets ``_compiled`` and ``_encode``."""

    def __init__(self, num_players: int, mode: str, layout: Callable[[int], Layout]) -> None:
        check_observation_mode(mode)
        self.num_players = num_players
        self.mode = mode
        self.memory = mode == "memory"
        slices, shapes, size = layout(num_players)
        self.buffer = np.zeros(size, dtype=np.float32)
        self.views = {name: self.buffer[sl].reshape(shapes[name]) for name, sl in slices.items()}
        self._compiled: Any = None
        self._encode = self.encode_python

    def __reduce__(self) -> tuple:
        """Pickled as its parameters (the compiled encoder holds a memory view), rebuilt on loading."""
        return (type(self), (self.num_players, self.mode))

    def encode(self, state: State, seat: int) -> np.ndarray:
        """Fill the buffer with ``seat``'s view of ``state`` and return it (not a copy): a native state writes it
        itself, a Python one through the compiled encoder where it was built (the same vector), else in Python."""
        if state.engine == "native":
            state.encode(self.buffer, seat, self.memory)
            return self.buffer
        return self._encode(state, seat)

    def encode_python(self, state: Any, seat: int) -> np.ndarray:
        """:meth:`encode` in pure Python: the reference the compiled encoder is tested against."""
        raise NotImplementedError


def legal_mask(state: State, seat: int, num_actions: int) -> np.ndarray:
    """``seat``'s legal actions in ``state`` as an int8 mask of ``num_actions``: all 0 unless it is the seat to
    move of a game not over."""
    mask = bytearray(num_actions)  # set item by item, then viewed as int8: half numpy's cost
    if seat == state.current_player and not state.is_over:
        for action in state.legal_actions():
            mask[action] = 1
    return np.frombuffer(mask, dtype=np.int8)


def observe(observer: Observer, state: State, seat: int, num_actions: int) -> dict[str, np.ndarray]:
    """``seat``'s observation dict of ``state``, as every environment gives it: its vector (a copy: the
    observer's buffer is reused) and its :func:`legal_mask`."""
    return {"observation": observer.encode(state, seat).copy(), "action_mask": legal_mask(state, seat, num_actions)}


@dataclass(frozen=True)
class Column:
    """A statistic a tournament reports per agent: the sum of ``total`` over its games divided by the sum of
    ``per`` (None: the number of games), from the per-seat totals of :meth:`Game.statistics`; shown under
    ``label`` with ``format`` and read as ``summary.<name>``."""

    name: str
    label: str
    total: str
    per: str | None = None
    format: str = ".2f"

    def value(self, stats: Sequence[Mapping[str, float]]) -> float:
        denominator = len(stats) if self.per is None else sum(seat[self.per] for seat in stats)
        return sum(seat[self.total] for seat in stats) / denominator if denominator else 0.0


@dataclass(frozen=True)
class Table:
    """Where an agent sits down: the game, the number of players, the observation mode and the
    rules options (only those that differ from the defaults). Agents are made for a table, so
    they never guess it from a vector's length."""

    game: Game
    num_players: int
    observation_mode: str = "original"
    rules: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.game.check_table(self.num_players, self.observation_mode)


class Game(ABC):
    """The immutable description of one game (see the module docstring).

    Subclasses set the class attributes and implement the abstract methods; one instance
    per game is registered in :mod:`sobek_env.registry`.
    """

    name: ClassVar[str]                  # registry name: "sobek", "kleopatra"
    title: ClassVar[str]                 # for people: "Sobek", "Kleopatra and the Society of Architects"
    version: ClassVar[int]               # the environment module is f"{name}_v{version}"
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    default_players: ClassVar[int]
    action_names: ClassVar[tuple[str, ...]]
    phase_names: ClassVar[tuple[str, ...]]  # the pending phases, in the order of the observation's "phase" one-hot
    observation_modes: ClassVar[tuple[str, ...]] = OBSERVATION_MODES
    score_scale: ClassVar[float] = 100.0  # scores are divided by this in observations and rewards
    observation_high: ClassVar[float] = 100.0  # every entry of an observation lies in [0, observation_high]
    rules_options: ClassVar[tuple[str, ...]] = ()  # the keyword arguments of new() besides players and seed
    columns: ClassVar[tuple[Column, ...]] = ()     # what a tournament reports beside wins, scores and ratings
    state_class: ClassVar[type[PhasedState]]      # the Python engine's state: new() and from_json() build it
    documents: ClassVar[ModuleType]               # what writes and reads its document: dump, load, to_document
    resampler: ClassVar[ModuleType]               # what re-draws the hidden part of it: resample(state, seat, rng)
    words: ClassVar[ModuleType | None] = None     # says its actions: HELP, describe(s, action), seen(s, action, seat)

    # ------------------------------------------------------------------ actions and tables

    @property
    def num_actions(self) -> int:
        return len(self.action_names)

    def action_id(self, name: str) -> int:
        """The id of an action name; ValueError naming the game for an unknown one."""
        ids = _action_ids(self)
        try:
            return ids[name]
        except (KeyError, TypeError):
            raise ValueError(f"unknown {self.name} action name {name!r}; "
                             f"names look like {self.action_names[0]!r}") from None

    @property
    def player_counts(self) -> tuple[int, ...]:
        return tuple(range(self.min_players, self.max_players + 1))

    def check_table(self, num_players: int, observation_mode: str = "original") -> None:
        """ValueError unless the game is played by ``num_players`` in ``observation_mode``."""
        if isinstance(num_players, bool) or not isinstance(num_players, int) or num_players not in self.player_counts:
            raise ValueError(f"{self.title} is for {self.min_players} to {self.max_players} players, "
                             f"got num_players={num_players!r}")
        check_observation_mode(observation_mode, self.observation_modes)

    def table(self, num_players: int | None = None, observation_mode: str = "original", **rules: Any) -> Table:
        """A :class:`Table` of this game (default player count if none is given)."""
        return Table(self, self.default_players if num_players is None else num_players, observation_mode, rules)

    # ------------------------------------------------------------------ states and engines

    def new(self, num_players: int | None = None, seed: int | None = None, engine: str | None = None,
            **rules: Any) -> State:
        """Deal a new game on ``engine`` (default: :meth:`default_engine`); ``rules`` are the game's rules options."""
        n = self.default_players if num_players is None else num_players
        if self.engine_of(engine) == "native":
            return self.native_engine().new(n, seed, **rules)
        return self.state_class.new(n, seed, engine="python", **rules)

    def from_json(self, text: str | bytes, engine: str | None = None) -> State:
        """Rebuild a state from its document on ``engine``; StateFormatError names a bad field."""
        if self.engine_of(engine) == "native":
            return self.native_engine().from_json(text)
        return self.state_class.from_json(text, engine="python")

    def native_engine(self) -> ModuleType | None:
        """The game's compiled engine (a module with ``new``, ``from_json`` and ``from_python``), or None where
        it was not built, is turned off (``SOBEK_PURE_PYTHON=1``) or the game has none."""
        return None

    @property
    def engines(self) -> tuple[str, ...]:
        """The engines this game can be played on here: ``("native", "python")`` or ``("python",)``."""
        return ENGINES if self.native_engine() is not None else ("python",)

    def default_engine(self) -> str:
        """The engine :meth:`new` and :meth:`from_json` use unless told: the native one where it was built and
        ``SOBEK_PURE_PYTHON`` is not set, else Python. The environment variable ``SOBEK_ENGINE`` (``native`` or
        ``python``) overrides it, e.g. to run a program on the reference engine with the other compiled parts on."""
        chosen = os.environ.get("SOBEK_ENGINE", "")
        if not chosen:
            return self.engines[0]
        if chosen not in ENGINES:
            raise ValueError(f"SOBEK_ENGINE must be one of {', '.join(ENGINES)} (or unset), got {chosen!r}")
        return self.engine_of(chosen)

    def engine_of(self, engine: str | None) -> str:
        """``engine`` checked (None: the default); ValueError naming the engines this game has here."""
        if engine is None:
            return self.default_engine()
        if engine not in ENGINES:
            raise ValueError(f"engine must be one of {', '.join(ENGINES)} (or None for the default), got {engine!r}")
        if engine not in self.engines:
            why = "SOBEK_PURE_PYTHON is set" if os.environ.get("SOBEK_PURE_PYTHON", "") not in ("", "0") else \
                "its native engine was not built here (no C++ compiler at install?)"
            raise ValueError(f"{self.title} cannot be played on the {engine} engine: {why}")
        return engine

    def stress_profile(self) -> ModuleType:
        """The game's stress profile for :mod:`sobek_env.stress` (a module: ``draw(rng, num_players)``,
        ``RELOAD_WITHIN``, ``GAME_TAGS``, its report's sections and ``RARE_PATHS``; docs/adding-a-game.md)."""
        raise NotImplementedError(f"{self.title} has no stress profile (Game.stress_profile)")

    @abstractmethod
    def max_game_length(self, num_players: int, **rules: Any) -> int:
        """The most steps (actions, sub-decisions included) a game under ``rules`` can take: derived, not measured."""

    def max_score(self, num_players: int, **rules: Any) -> int:
        """The highest score a seat can reach under ``rules`` (scores are never below 0): derived, not
        measured; it bounds the ``margin`` and ``score`` rewards (OpenSpiel's utility range)."""
        raise NotImplementedError(f"{self.title} does not bound its scores (Game.max_score)")

    # ------------------------------------------------------------------ observations

    @abstractmethod
    def describe_layout(self, num_players: int) -> list[tuple[str, tuple[int, ...], str]]:
        """(name, shape, meaning) of every slice of the observation vector, in order."""

    def observation_layout(self, num_players: int) -> dict[str, slice]:
        """The named slices of the observation vector."""
        return dict(_layout(self, num_players)[0])

    def observation_shapes(self, num_players: int) -> dict[str, tuple[int, ...]]:
        """The shape of each named slice."""
        return dict(_layout(self, num_players)[1])

    def observation_size(self, num_players: int) -> int:
        return _layout(self, num_players)[2]

    def observation_phases(self, observations: Any, num_players: int) -> np.ndarray:
        """The index in :attr:`phase_names` of each observation's pending phase (rows of a 2-d array of
        observation vectors: the entry set in its ``"phase"`` one-hot)."""
        rows = np.asarray(observations)
        return np.argmax(rows[:, self.observation_layout(num_players)["phase"]], axis=1)

    def observation_bounds(self, num_players: int, **rules: Any) -> tuple[Any, Any]:
        """The bounds of the observation vector's entries (a Box's low and high: numbers or arrays)."""
        return 0.0, self.observation_high

    @abstractmethod
    def observer(self, num_players: int, observation_mode: str = "original") -> Observer:
        """An :class:`Observer` writing vectors of :meth:`observation_size`."""

    @abstractmethod
    def state_vector(self, state: State) -> np.ndarray:
        """The full-information vector (for centralised critics)."""

    @abstractmethod
    def state_size(self, num_players: int) -> int:
        """The length of :meth:`state_vector`."""

    @abstractmethod
    def decode(self, observation: Mapping[str, Any], table: Table) -> Any:
        """An observation dict read back into named Python values (what agents reason with)."""

    # ------------------------------------------------------------------ people and statistics

    @abstractmethod
    def render_text(self, state: State, seat: int | None = None, observation_mode: str = "original") -> str:
        """A text picture of the table as ``seat`` sees it (default: the player to move), in that mode."""

    @abstractmethod
    def render_rgb(self, state: State, seat: int | None = None, observation_mode: str = "original",
                   full: bool = False) -> np.ndarray:
        """A drawn picture (H, W, 3 uint8) of the table as ``seat`` sees it (default: the player to move), or with
        ``full`` every seat's private part as its owner sees it; of :meth:`frame_size` (needs Pillow)."""

    @abstractmethod
    def frame_size(self, num_players: int) -> tuple[int, int]:
        """(height, width) of every :meth:`render_rgb` picture of a ``num_players`` game."""

    @abstractmethod
    def render_rich(self, state: State, seat: int | None = None, observation_mode: str = "original") -> Any:
        """The table for a terminal (a rich renderable: colours, panels, tables) as ``seat`` sees it."""

    def action_help(self, action: int) -> str:
        """A short explanation of action ``action`` for people choosing it, whatever the position: its kind's
        entry in the :attr:`words` module's ``HELP`` (by the part of its name before the colon), or ""."""
        if self.words is None:
            return ""
        return self.words.HELP[action_parts(self.action_names, action)[1]]

    def describe_action(self, state: State, action: int) -> str:
        """What legal action ``action`` does in ``state``, in the game's words, for the seat that must act
        (the play command's menu, the web page's buttons); it says nothing that seat may not see. The game's
        :attr:`words` say it (:meth:`action_help` where it has none)."""
        if self.words is None:
            return self.action_help(action)
        return self.words.describe(python_state(state), action)

    def seen_move(self, state: State, action: int, seat: int) -> str | None:
        """Move ``action`` of the seat that must act in ``state`` (before it is played), as ``seat`` sees it:
        only what ``seat`` may know of it, so two moves that leave ``seat`` the same view read the same;
        None where ``seat`` sees nothing of it. The game's :attr:`words` say it (nothing where it has none)."""
        return None if self.words is None else self.words.seen(python_state(state), action, seat)

    def visible_scores(self, state: State, seat: int, observation_mode: str = "original") -> list[int | None]:
        """The scores ``seat`` may see in a game still in play, None where hidden. The default: all (public)."""
        return list(state.scores)

    def seat_document(self, state: State, seat: int, observation_mode: str = "original") -> dict[str, Any]:
        """What ``seat`` sees of ``state`` in ``observation_mode``, as JSON-able values (the web app's table)."""
        raise NotImplementedError(f"{self.title} does not describe a seat's view as a document")

    def margins(self, state: State) -> list[float]:
        """Each seat's margin in points for the ``margin`` reward: own score minus the best other."""
        scores = state.scores
        return [float(v - max(w for q, w in enumerate(scores) if q != p)) for p, v in enumerate(scores)]

    def outlook(self, state: State) -> list[float]:
        """Each seat's margin in points were the game to end now: what a search values a rollout it cuts
        short by. :meth:`margins` unless the game scores something more at its end."""
        return self.margins(state)

    def progress(self, state: State) -> float:
        """How far the game has gone by its own public clock, from 0 at the deal to 1 at its end: a search
        can save its effort for the late game, where it tells most (``ismcts:late=...``)."""
        raise NotImplementedError(f"{self.title} does not say how far a game has gone (Game.progress)")

    @abstractmethod
    def statistics(self, state: State) -> list[dict[str, float]]:
        """Per seat, what a tournament averages over games (a finished state)."""

    @abstractmethod
    def check(self, state: State) -> None:
        """Raise InvariantError if ``state`` breaks an invariant (holds for every accepted document)."""

    @abstractmethod
    def check_play(self, state: State) -> None:
        """:meth:`check`, plus what holds only for states reached by play from :meth:`new`."""

    def __repr__(self) -> str:
        return f"<{self.title}: {self.min_players}-{self.max_players} players, {self.num_actions} actions>"

    def __reduce__(self) -> tuple:
        """Pickled as its registry name, so environments and agents holding it pickle cheaply."""
        from .registry import load_game

        return (load_game, (self.name,))


_ACTION_IDS: dict[str, dict[str, int]] = {}
_LAYOUTS: dict[tuple[str, int], tuple[dict[str, slice], dict[str, tuple[int, ...]], int]] = {}


def _action_ids(game: Game) -> dict[str, int]:
    ids = _ACTION_IDS.get(game.name)
    if ids is None:
        ids = _ACTION_IDS[game.name] = {name: i for i, name in enumerate(game.action_names)}
    return ids


def _layout(game: Game, n: int) -> tuple[dict[str, slice], dict[str, tuple[int, ...]], int]:
    key = (game.name, n)
    if key not in _LAYOUTS:
        game.check_table(n)
        _LAYOUTS[key] = layout_of(game.describe_layout(n))
    return _LAYOUTS[key]


Layout = tuple[dict[str, slice], dict[str, tuple[int, ...]], int]


def layout_of(described: list[tuple[str, tuple[int, ...], str]]) -> Layout:
    """The slices, shapes and total size of a vector described as (name, shape, meaning) in order."""
    slices, shapes, start = {}, {}, 0
    for name, shape, _ in described:
        size = 1
        for d in shape:
            size *= d
        slices[name] = slice(start, start + size)
        shapes[name] = shape
        start += size
    return slices, shapes, start
