"""Each game's baselines return a legal action in every position of their own table.

Whole games over many seeds, for every game, player count and observation mode: the stress run's policies
and rules options (``sobek_env.<game>.stress.draw``) drive play into rare corners, and half the moves are
the baselines' own, so the positions they lead into are reached too. At every decision, ``greedy``,
``heuristic`` and ``heuristic`` at a tolerance drawn from the seed are asked, through the registry, on the
seat's observation; each must answer a legal action, and the phases they were asked in (in either mode)
must cover every phase of the game. ``SOBEK_LONG=1`` plays 40 times more games.
"""

from __future__ import annotations

import os
import random
from collections import Counter

import numpy as np
import pytest

import agents
from sobek_env.game import python_state
from sobek_env.kleopatra.phases import PHASES as KLEOPATRA_PHASES
from sobek_env.registry import GAMES, load_game
from sobek_env.sobek.phases import PHASES as SOBEK_PHASES
from sobek_env.stress import profile

LONG = os.environ.get("SOBEK_LONG") == "1"
GAMES_PER_TABLE = {"sobek": 12, "kleopatra": 4}  # per player count, the modes alternating
PHASES = {"sobek": {phase.name for phase in SOBEK_PHASES}, "kleopatra": set(KLEOPATRA_PHASES)}
TABLES = [(name, n) for name in GAMES for n in load_game(name).player_counts]


def phase_name(state: object) -> str:
    """The name of the phase the seat to move decides in (both games call the start of a turn ``turn``)."""
    pending = python_state(state).pending
    return "turn" if pending is None else pending.name


def test_the_phases_are_every_phase_of_each_game() -> None:
    """The coverage below is measured against the right lists: each game's phases, the turn among them."""
    assert set(PHASES) == set(GAMES)
    for phases in PHASES.values():
        assert "turn" in phases and len(phases) > 10


@pytest.mark.parametrize("name, num_players", TABLES)
def test_baselines_answer_a_legal_action_in_every_position_of_their_table(name: str, num_players: int) -> None:
    game = load_game(name)
    asked = {mode: Counter() for mode in game.observation_modes}  # decisions asked, by mode and phase
    for i in range(GAMES_PER_TABLE[name] * (40 if LONG else 1)):
        seed = 1000 * num_players + i
        rng = random.Random(seed)
        mode = game.observation_modes[i % len(game.observation_modes)]
        options, policies, _ = profile(game).draw(rng, num_players)
        table = game.table(num_players, mode, **options)
        specs = ("greedy", "heuristic", f"heuristic:tolerance={rng.choice([0.0, 1.0, round(rng.random(), 2)])}")
        baselines = [agents.make(spec, table=table, seed=seed) for spec in specs]
        state = game.new(num_players, seed=seed, **options)
        observer, mask = game.observer(num_players, mode), np.zeros(game.num_actions, dtype=np.int8)
        while not state.is_over:
            legal = state.legal_actions()
            mask[:] = 0
            mask[legal] = 1
            observation = {"observation": observer.encode(state, state.current_player), "action_mask": mask}
            answers = [agent.act(observation) for agent in baselines]
            wrong = [(spec, a) for spec, a in zip(specs, answers, strict=True)
                     if not isinstance(a, int | np.integer) or a not in legal]
            assert not wrong, (f"{name}, {num_players} players, {mode}, seed {seed}, rules {options}, phase "
                               f"{phase_name(state)}: {wrong} not among the legal {legal}")
            asked[mode][phase_name(state)] += 1
            if rng.random() < 0.5:
                action = rng.choice(answers)
            else:
                action = rng.choices(legal, policies[state.current_player].weights(state, legal))[0]
            state.apply(action)
    reached = set().union(*asked.values())
    assert reached == PHASES[name], f"never asked in {sorted(PHASES[name] - reached)}"
    assert all(sum(phases.values()) > 100 for phases in asked.values()), "a mode was hardly played"
