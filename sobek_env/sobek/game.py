"""Sobek's game object: what the game-agnostic layer knows of Sobek, in one place.

Game-length bound
-----------------
Every turn is a take, a character or a set (rules §3), and within a round:

* takes and Merchant picks each remove at least one card of the round's deck
  from the Nile, so there are at most ``D`` (54 cards, 45 with 2 players);
* a played character lies on the discard until the round ends: at most 9 plays,
  with at most 10 further steps (Vizier 2, Thief 2, each High Priest(ess) a goods
  and a ``done``, Courtesan goods + ``done``), besides the Merchant's pick and the
  Courtesan's cards; a family character leaves a pile for the discard at most once,
  so the High Priest(ess)'s character discards are at most 9 steps;
* a card laid on the table (a set, a horizontal set or the Courtesan's) never
  returns to a hand, and only ``C = D + 2n`` cards (the deck and the green hands)
  can ever be in a hand, so there are at most ``C`` such card steps and
  ``S = C // 3`` sets, vertical or horizontal, each with a ``set:`` and a ``done``;
* the 5 tokens give at most 10 steps (the choice and one target each);
* each of the 2 Scribes makes opponents discard at most ``C - 6`` cards;
* at the round's end each player closes his decision with ``done`` at most once;
* rounds 2 and 3 open with the first-player choice.

Embalming, the Vizier and the Scribe move cards between hands and piles, but no
such move is a turn of its own, so they cannot make a cycle. A round therefore
takes at most ``D + 9 + 10 + 9 + 2(C - 6) + 2S + C + 10 + n + 1`` steps, and a
game, with at most 3 rounds and no choice before round 1, at most 3 times that
minus 1: **758 steps with 2 players, 911 with 3, 932 with 4**
(:meth:`SobekGame.max_game_length`). The bound is loose; the longest games
measured are far shorter (the stress report).

Score bound
-----------
A marker only moves forward by a round's points (rules §8.1), a guild token
(to the next space of its hieroglyph) and Deceit (one space per card in the
pile); it never goes below 0. In a round, with ``K`` cards in the game, ``s``
scarabs printed on all of them and ``P`` Prosperity tokens: a set is worth at
most (its scarabs + 2 per Prosperity) x ``K`` (a horizontal set, its scarabs),
and the sets hold disjoint cards, so the round's points are at most
``(s + 2P) K``; each guild token moves at most the longest stretch of the
track between two spaces of its hieroglyph, and Deceit at most ``K`` spaces.
Three times that bounds a score (:meth:`SobekGame.max_score`); it is loose.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import ModuleType
from typing import Any

import numpy as np

from ..compiled import extension
from ..game import Column, Game, State, Table, python_state
from . import invariants, jsonstate, resample, stress, words
from .actions import ACTION_NAMES
from .catalogue import (
    CHARACTERS,
    DECEIT,
    DEFAULT_GREEN_CARDS,
    GREEN,
    GUILDS,
    KIND_BACK,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_KINDS,
    PROSPERITY,
    PROSPERITY_SCARABS,
    ROUNDS,
    SCORE_SCALE,
    SCRIBE_HAND_LIMIT,
    SET_MIN_CARDS,
    START_HAND,
    TOKEN_COUNTS,
    TOKENS_PER_ROUND,
    TRACK_CYCLE,
    TWO_PLAYER_SET_ASIDE,
    make_rules,
    next_space,
)
from .decode import View
from .observation import HIGH, Observer, describe_layout, encode_state, state_size
from .phases import PHASES
from .picture import frame_size, picture
from .render import render_text
from .state import GameState
from .view import document as view_document

CHARACTER_PLAY_STEPS = 10  # Vizier 2, Thief 2, each High Priest(ess) 2, Courtesan goods + done
SCRIBES = sum(1 for c in CHARACTERS if c.startswith("scribe"))


class SobekGame(Game):
    """Sobek (Bruno Cathala, GameWorks 2010) for 2 to 4 players; the rules are ``SOBEK_RULES.md``."""

    name = "sobek"
    title = "Sobek"
    version = 1
    min_players, max_players, default_players = MIN_PLAYERS, MAX_PLAYERS, 2
    action_names = ACTION_NAMES
    phase_names = tuple(phase.name for phase in PHASES)
    state_class = GameState
    documents, resampler, words = jsonstate, resample, words
    score_scale = SCORE_SCALE
    observation_high = HIGH
    rules_options = ("scarabs", "green_cards", "families")
    columns = (
        Column("points_per_round", "points/round", "points", "rounds"),          # rules §8.1 round points
        Column("corruption_per_round", "corruption/round", "corruption", "rounds"),  # rules §8.2: cards + 2 x curses
        Column("most_corrupt_rate", "most corrupt", "most_corrupt", "rounds", ".1%"),
        Column("penalty_per_game", "penalty/game", "penalty"),                  # points lost to the penalty
    )

    def stress_profile(self) -> ModuleType:
        return stress

    def native_engine(self) -> ModuleType | None:
        return extension("._native", __package__)

    def max_game_length(self, num_players: int, **rules: Any) -> int:
        """The most steps a game can take (derived in the module docstring; the rules options change
        no number it counts: the deck and the green cards keep their sizes)."""
        self.check_table(num_players)
        greens = sum(DEFAULT_GREEN_CARDS.values())
        deck = sum(make_rules(num_players).catalogue) - greens - (TWO_PLAYER_SET_ASIDE if num_players == 2 else 0)
        cards = deck + START_HAND * num_players
        per_round = (
            deck + len(CHARACTERS) + CHARACTER_PLAY_STEPS + len(CHARACTERS) + SCRIBES * (cards - SCRIBE_HAND_LIMIT)
            + 2 * (cards // SET_MIN_CARDS) + cards + 2 * TOKENS_PER_ROUND + num_players + 1
        )
        return ROUNDS * per_round - 1

    def max_score(self, num_players: int, **rules: Any) -> int:
        """The most points a seat can reach (derived in the module docstring)."""
        r = make_rules(num_players, **rules)
        cards = sum(r.catalogue)
        scarabs = sum(r.catalogue[k] * v for k, v in r.scarab_kinds)
        guild_moves = sum(TOKEN_COUNTS[g] * max(next_space(p, g) - p for p in range(len(TRACK_CYCLE)))
                          for g in GUILDS)
        per_round = ((scarabs + PROSPERITY_SCARABS * TOKEN_COUNTS[PROSPERITY]) * cards + guild_moves
                     + TOKEN_COUNTS[DECEIT] * cards)
        return ROUNDS * per_round

    def describe_layout(self, num_players: int) -> list[tuple[str, tuple[int, ...], str]]:
        return describe_layout(num_players)

    def observer(self, num_players: int, observation_mode: str = "original") -> Observer:
        self.check_table(num_players, observation_mode)
        return Observer(num_players, observation_mode)

    def state_vector(self, state: State) -> np.ndarray:
        if state.engine == "native":
            return state.state_vector()
        return encode_state(state)

    def state_size(self, num_players: int) -> int:
        return state_size(num_players)

    def decode(self, observation: Mapping[str, Any], table: Table) -> View:
        return View(observation, table.num_players, table.rules)

    def seat_document(self, state: State, seat: int, observation_mode: str = "original") -> dict[str, Any]:
        self.check_table(state.num_players, observation_mode)
        return view_document(python_state(state), seat, observation_mode == "memory")

    def render_text(self, state: State, seat: int | None = None, observation_mode: str = "original") -> str:
        return render_text(python_state(state), seat, observation_mode == "memory")

    def render_rgb(self, state: GameState, seat: int | None = None, observation_mode: str = "original",
                   full: bool = False) -> np.ndarray:
        self.check_table(state.num_players, observation_mode)
        return picture(python_state(state), seat, observation_mode == "memory", full)

    def frame_size(self, num_players: int) -> tuple[int, int]:
        self.check_table(num_players)
        return frame_size(num_players)

    def render_rich(self, state: GameState, seat: int | None = None, observation_mode: str = "original") -> Any:
        from .console import render_rich  # rich loads only when a terminal asks for it

        self.check_table(state.num_players, observation_mode)
        return render_rich(python_state(state), seat, observation_mode == "memory")

    def progress(self, state: GameState) -> float:
        """The rounds played (rules §9) and the share of this round's deck already delivered (rules §5)."""
        if state.is_over:
            return 1.0
        catalogue = state.rules.catalogue
        dealt = sum(catalogue[k] for k in range(NUM_KINDS) if KIND_BACK[k] != GREEN)
        if state.num_players == 2:
            dealt -= TWO_PLAYER_SET_ASIDE
        deck = state.deck_size if state.engine == "native" else len(state.deck)
        delivered = 1.0 - deck / dealt if dealt else 1.0
        return min(1.0, (state.round - 1 + delivered) / ROUNDS)

    def statistics(self, state: GameState) -> list[dict[str, float]]:
        """Per seat, totals over the scored rounds (rules §8): round points, corruption (cards and 2 per
        Curse), rounds most corrupt, points lost to the penalty, and the number of rounds."""
        log = python_state(state).round_log
        return [{
            "rounds": len(log),
            "points": sum(entry["points"][p] for entry in log),
            "corruption": sum(entry["corruption"][p] for entry in log),
            "most_corrupt": sum(p in entry["most_corrupt"] for entry in log),
            "penalty": sum(entry["penalty"][p] for entry in log),
        } for p in range(state.num_players)]

    def check(self, state: State) -> None:
        invariants.check(python_state(state))

    def check_play(self, state: State) -> None:
        invariants.check_play(python_state(state))


GAME = SobekGame()

__all__ = ["GAME", "SobekGame"]
