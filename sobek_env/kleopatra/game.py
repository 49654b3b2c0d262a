"""The game object of Kleopatra for the game-agnostic layer (``sobek_env.game.Game``)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from types import ModuleType
from typing import Any, ClassVar

import numpy as np

from ..compiled import extension
from ..game import Column, Game, State, Table, python_state
from . import bounds, invariants, jsonstate, observation, resample, stress, words
from .actions import ACTION_NAMES
from .catalogue import (
    CATEGORIES,
    CLEOPATRA_END,
    DEFAULT_PLAYERS,
    KINDS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    RULES_OPTIONS,
    TILE_NAMES,
    UNITS,
    make_rules,
)
from .phases import PHASE_NAMES, PHASES
from .picture import frame_size, picture, tile_squares
from .render import render_text, wall_sides
from .state import GameState, crocodile, final_amulets
from .view import View, view


class KleopatraGame(Game):
    """Kleopatra and the Society of Architects (Cathala & Maublanc, 2006), rules in KLEOPATRA_RULES.md."""

    name: ClassVar[str] = "kleopatra"
    title: ClassVar[str] = "Kleopatra and the Society of Architects"
    version: ClassVar[int] = 1
    min_players: ClassVar[int] = MIN_PLAYERS
    max_players: ClassVar[int] = MAX_PLAYERS
    default_players: ClassVar[int] = DEFAULT_PLAYERS
    action_names: ClassVar[tuple[str, ...]] = ACTION_NAMES
    phase_names: ClassVar[tuple[str, ...]] = PHASE_NAMES
    state_class: ClassVar[type[GameState]] = GameState
    documents: ClassVar[ModuleType] = jsonstate
    resampler: ClassVar[ModuleType] = resample
    words: ClassVar[ModuleType] = words
    score_scale: ClassVar[float] = observation.SCORE_SCALE
    rules_options: ClassVar[tuple[str, ...]] = RULES_OPTIONS
    categories: ClassVar[tuple[str, ...]] = CATEGORIES
    columns: ClassVar[tuple[Column, ...]] = (            # from statistics(), per game
        Column("talents", "talents", "talents", format=".1f"),
        Column("amulets", "amulets", "amulets", format=".1f"),            # corruption (rules §11.4)
        Column("eliminated_rate", "eaten", "eliminated", format=".1%"),   # fed to the crocodile
        Column("sanctuaries", "sanctuaries", "sanctuaries"),
        Column("ceremonies_won", "ceremonies won", "ceremonies_won"),
        Column("elements_built", "built", "elements_built", format=".1f"),
    )

    def stress_profile(self) -> ModuleType:
        return stress

    def native_engine(self) -> ModuleType | None:
        return extension("._native", __package__)

    def max_game_length(self, num_players: int, **rules: Any) -> int:
        """The most steps of a game under ``rules`` (derived in ``bounds.py``, from ``max_turns``)."""
        return bounds.max_game_length(make_rules(num_players, **rules))

    def max_score(self, num_players: int, **rules: Any) -> int:
        """Every talent a game can mint plus the start merchants' value (``bounds.max_score``)."""
        return bounds.max_score(make_rules(num_players, **rules))

    def describe_layout(self, num_players: int) -> list[tuple[str, tuple[int, ...], str]]:
        return observation.describe_layout(num_players)

    def observation_bounds(self, num_players: int, **rules: Any) -> tuple[np.ndarray, np.ndarray]:
        """(low, high) of every observation entry, for a Box space."""
        return observation.observation_bounds(num_players, **rules)

    def observer(self, num_players: int, observation_mode: str = "original") -> observation.Observer:
        self.check_table(num_players, observation_mode)
        return observation.Observer(num_players, observation_mode)

    def state_vector(self, state: State) -> np.ndarray:
        if state.engine == "native":
            return state.state_vector()
        return observation.state_vector(state)

    def state_size(self, num_players: int) -> int:
        return observation.state_size(num_players)

    def decode(self, observation_dict: Mapping[str, Any] | np.ndarray, table: Table) -> View:
        max_turns = make_rules(table.num_players, **dict(table.rules)).max_turns
        return observation.decode(observation_dict, table.num_players, max_turns)

    def visible_scores(self, state: State, seat: int, observation_mode: str = "original") -> list[int | None]:
        """His own score; the others' only in memory mode (rules §12: talents are hidden, their changes public)."""
        scores = state.scores
        return [v if p == seat or observation_mode == "memory" else None for p, v in enumerate(scores)]

    def seat_document(self, state: State, seat: int, observation_mode: str = "original") -> dict[str, Any]:
        """:func:`~.view.view` as JSON-able values (per-seat lists relative: 0 is ``seat``), with the phase's
        description and the kind and tile names that its numbers index."""
        self.check_table(state.num_players, observation_mode)
        s = python_state(state)
        v = view(s, seat, observation_mode)
        doc = dataclasses.asdict(v)
        doc["doing"] = PHASES[doc["phase"]].description
        doc["revealed"] = observation_mode == "memory" or v.over  # the others' talents and amulets (rules §12)
        rules = s.rules  # the fixed geometry, public: the garden, its wall slots, where each placed tile lies
        doc["garden_size"] = rules.garden_size
        doc["wall_slots"] = [{"side": side, "squares": list(squares)}
                             for side, squares in zip(wall_sides(rules), rules.wall_slots)]
        doc["mosaics"] = [{"tile": TILE_NAMES[t], "squares": tile_squares(rules, t, v.tile_orient[t], anchor)}
                          for t, anchor in enumerate(v.tile_anchor) if anchor is not None]
        doc["kinds"], doc["tiles"], doc["units"] = list(KINDS), list(TILE_NAMES), list(UNITS)
        return doc

    def render_text(self, state: GameState, seat: int | None = None, mode: str = "original") -> str:
        return render_text(python_state(state), seat, mode)

    def render_rgb(self, state: GameState, seat: int | None = None, mode: str = "original",
                   full: bool = False) -> np.ndarray:
        return picture(python_state(state), seat, mode, full)

    def frame_size(self, num_players: int) -> tuple[int, int]:
        self.check_table(num_players)
        return frame_size(num_players)

    def render_rich(self, state: GameState, seat: int | None = None, mode: str = "original") -> Any:
        from .console import render_rich  # rich loads only when a terminal asks for it

        return render_rich(python_state(state), seat, mode)

    def margins(self, state: GameState) -> list[float]:
        """rules §11.5: a survivor's score minus the best other survivor's; an eaten player's is minus the
        best survivor's score (as if he had scored 0)."""
        return _margins(state.scores, state.eliminated)

    def progress(self, state: GameState) -> float:
        """Cleopatra's steps (rules §11: her fifth ends the game), or the turns towards ``max_turns`` if
        those have gone further."""
        if state.over:
            return 1.0
        return min(1.0, max(state.cleopatra / CLEOPATRA_END, (state.turn - 1) / state.rules.max_turns))

    def outlook(self, state: GameState) -> list[float]:
        """rules §11 applied to the state as it stands: the margins were the game to end now, the seats that
        would then hold the most amulets (corrupt cards in hand counted, sanctuaries deducted) fed to the
        crocodile. A finished game's margins."""
        if state.over:
            return self.margins(state)
        return _margins(state.scores, crocodile(final_amulets(state), state.rules.crocodile_margin))

    def statistics(self, state: GameState) -> list[dict[str, float]]:
        scores, eaten = state.scores, state.eliminated
        out = []
        for p in range(state.num_players):
            owned = [mask for mask, owner in state.sanctuaries if owner == p]
            out.append({
                "score": float(scores[p]),
                "talents": float(state.talents[p]),
                "amulets": float(state.amulets[p]),
                "eliminated": float(p in eaten),
                "sanctuaries": float(len(owned)),
                "sanctuary_squares": float(sum(m.bit_count() for m in owned)),
                "ceremonies_won": float(state.ceremonies_won[p]),
                "merchants": float(state.merchants[p]),
                "elements_built": float(state.built_by[p]),
            })
        return out

    def check(self, state: State) -> None:
        invariants.check(python_state(state))

    def check_play(self, state: State) -> None:
        invariants.check_play(python_state(state))


GAME = KleopatraGame()


def _margins(scores: list[int], eaten: list[int]) -> list[float]:
    """Each seat's score minus the best other, the eaten counted as 0."""
    effective = [0 if p in eaten else v for p, v in enumerate(scores)]
    return [float(v - max(w for q, w in enumerate(effective) if q != p)) for p, v in enumerate(effective)]
