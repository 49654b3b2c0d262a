"""The agent protocol: a name and ``act(observation) -> action id``; agents are made for a table.

Every agent of the project derives from :class:`BaseAgent`, which checks each decision's input against
the agent's table before the agent reads it: an observation (or, for a search, a state) from another
table is refused with a :class:`TableMismatchError` instead of being read with the wrong layout.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import numpy as np

from sobek_env.game import Game, Table
from sobek_env.registry import GAMES, load_game


@runtime_checkable
class Agent(Protocol):
    """Anything with a ``name`` and an ``act`` that maps the environment's observation dict
    (``"observation"``, ``"action_mask"``) to a legal action id."""

    name: str

    def act(self, observation: dict) -> int: ...


class TableMismatchError(ValueError):
    """What an agent was given comes from another table than the one it was made for."""


class BaseAgent:
    """Base of the project's agents: the :class:`~sobek_env.game.Table` an agent is made for (None: any
    table, for an agent that reads only the mask) and the check that what it is handed fits that table.

    Every subclass's ``act`` is wrapped, once, when the class is defined, so that before each decision
    the lengths of the observation and of its mask are compared with the table's (a search, whose
    ``reads_observation`` is False, once it is handed a state: that state's player count, and the
    observation unless it is None); a mismatch raises :class:`TableMismatchError` in one line naming both
    tables and how to make the agent for the other.
    """

    name = "agent"
    reads_observation = True  # False: a search that reads only the state it is handed
    spec: str | None = None  # the registry's spec it was made from, for the advice in a mismatch
    _table: Table | None = None
    _sizes: tuple[int, int] | None = None  # (observation length, mask length) of the table, checked each decision

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "act" in cls.__dict__:
            cls.act = _checked(cls.__dict__["act"])

    @property
    def table(self) -> Table | None:
        return self._table

    @table.setter
    def table(self, table: Table | None) -> None:
        self._table = table
        self._sizes = None if table is None else (table.game.observation_size(table.num_players),
                                                  table.game.num_actions)

    def act(self, observation: dict) -> int:
        raise NotImplementedError

    def mismatch(self, observation: Any, state: Any = None) -> str:
        """The one-line refusal of ``observation`` (or of ``state``, for a search) by this agent's table."""
        table, (size, actions) = self._table, self._sizes
        mine = (f"{self.name} agent made for {table.game.name}, {table.num_players} players, "
                f"{table.observation_mode} observations ({size} entries, {actions} actions)")
        if state is not None:
            return (f"{mine} was given the state of a {state.num_players}-player game; "
                    f"{self.advice([(table.game, state.num_players)])}")
        try:
            given = len(observation["observation"]), len(observation["action_mask"])
        except (KeyError, TypeError, IndexError):
            return (f"{mine} was given {_short(observation)}, not the environment's observation dict "
                    "(an 'observation' array and an 'action_mask' array)")
        matches = tables_of_size(*given)
        seen = f"{mine} was given an observation of {given[0]} entries with {given[1]} actions"
        if not matches:
            return f"{seen}, which is no table's layout; give it the observations of its own table"
        layouts = " or ".join(f"{game.name}, {n} players" for game, n in matches)
        return f"{seen}, the layout of {layouts} (either observation mode); {self.advice(matches)}"

    def advice(self, tables: list[tuple[Game, int]]) -> str:
        """How to make this agent for one of ``tables`` ((game, player count) pairs)."""
        return "make the agent for that table: " + " or ".join(self.remake(game, n) for game, n in tables)

    def remake(self, game: Game, num_players: int, spec: str | None = None) -> str:
        """The call that makes this agent (or ``spec``) for ``game`` at ``num_players``, in this agent's mode
        and rules."""
        table = self._table
        spec = spec or self.spec or self.name
        mode = f", observation_mode={table.observation_mode!r}" if table.observation_mode != "original" else ""
        rules = f", rules={dict(table.rules)!r}" if table.rules and game is table.game else ""
        return f"agents.make({spec!r}, game={game.name!r}, num_players={num_players}{mode}{rules})"


def _checked(act: Callable[..., int]) -> Callable[..., int]:
    """``act`` preceded by the check of its input against the agent's table (two lengths compared)."""

    @functools.wraps(act)
    def checked(self: BaseAgent, observation: Any, *args: Any, **kwargs: Any) -> int:
        sizes = self._sizes
        if sizes is not None:
            # a search reads the state: it is checked once a state is given (without one, the search says so)
            state = None if self.reads_observation else kwargs.get("state", args[0] if args else None)
            if self.reads_observation or (state is not None and observation is not None):
                try:
                    fits = len(observation["observation"]) == sizes[0] and len(observation["action_mask"]) == sizes[1]
                except (KeyError, TypeError, IndexError):
                    fits = False
                if not fits:
                    raise TableMismatchError(self.mismatch(observation))
            if state is not None and state.num_players != self._table.num_players:
                raise TableMismatchError(self.mismatch(observation, state))
        return act(self, observation, *args, **kwargs)

    return checked


def tables_of_size(observation: int, mask: int) -> list[tuple[Game, int]]:
    """The (game, player count) pairs of the registered games whose observations and masks have these lengths."""
    found = []
    for name in GAMES:
        game = load_game(name)
        if game.num_actions == mask:
            found += [(game, n) for n in game.player_counts if game.observation_size(n) == observation]
    return found


def _short(value: Any) -> str:
    """``value``'s type and repr, on one line and cut short."""
    text = " ".join(repr(value).split())
    text = text if len(text) <= 60 else text[:57] + "..."
    return text if value is None else f"{type(value).__name__} {text}"


class SeededAgent(BaseAgent):
    """Base for agents that use chance: one seeded generator, reset by :meth:`seed`."""

    def __init__(self, seed: int | None = None, table: Table | None = None) -> None:
        self.rng = random.Random(seed)
        self.table = table

    def seed(self, seed: int | None) -> None:
        """Restart the agent's generator (environments call this on a seeded reset)."""
        self.rng = random.Random(seed)


class PolicyAgent(SeededAgent):
    """Base for learned agents: a subclass gives :meth:`logits`; the agent plays the most probable legal
    action (``deterministic=True``) or one drawn from the masked distribution with its own generator."""

    def __init__(self, deterministic: bool = True, seed: int | None = None, table: Table | None = None) -> None:
        super().__init__(seed, table)
        self.deterministic = deterministic

    def logits(self, observation: dict) -> np.ndarray:
        """The policy's logit of each action, -inf for the illegal ones."""
        raise NotImplementedError

    def act(self, observation: dict) -> int:
        logits = self.logits(observation)
        if self.deterministic:
            return int(np.argmax(logits))
        weights = np.exp(logits - logits.max())
        cumulative = np.cumsum(weights)
        return int(np.searchsorted(cumulative, self.rng.random() * cumulative[-1], side="right"))

    def advice(self, tables: list[tuple[Game, int]]) -> str:
        return ("a model plays only the table it was trained for: load one trained for that table, "
                + " or ".join(self.remake(game, n, f"{self.name}:PATH") for game, n in tables))


class TableAgent(SeededAgent):
    """Base for agents that read the observation through their game's decoder: they are made for a
    :class:`~sobek_env.game.Table` (game, players, observation mode, rules options), never guess it."""

    def __init__(self, table: Table, seed: int | None = None) -> None:
        super().__init__(seed, table)


def legal_ids(observation: dict) -> list[int]:
    """The legal action ids of an observation dict, from its mask."""
    return np.flatnonzero(observation["action_mask"]).tolist()
