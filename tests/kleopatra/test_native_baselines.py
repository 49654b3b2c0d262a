"""Kleopatra's native baselines (agents/kleopatra/native/) against the Python reference (agents/kleopatra/).

At every decision of seeded games, at every player count, in both observation modes, under several rules options
and tolerances, the compiled ``greedy`` and ``heuristic`` choose what the Python ones choose, from the same
observation dict. The games are played by the baselines themselves (their usual positions) and by random seats
(the odd ones); every phase of the game is reached. The ``advice`` features written in C++ are the Python
reference's, bit for bit. ``SOBEK_LONG=1`` plays many more games.
"""

from __future__ import annotations

import operator
import os
import random
import subprocess
import sys
from collections import Counter
from functools import reduce

import numpy as np
import pytest

import agents
from agents.kleopatra import BEST, GreedyAgent, HeuristicAgent, native_agents
from agents.kleopatra.features import Advice, advice_size
from agents.kleopatra.heuristic import UNSEEN_MIX
from agents.kleopatra.prospects import LEFTOVER, MISSING, ordered_dot
from sobek_env.kleopatra import GAME, GameState
from sobek_env.kleopatra.actions import NUM_ACTIONS
from sobek_env.kleopatra.phases import PHASE_NAMES

pytestmark = pytest.mark.skipif(not native_agents.NATIVE, reason="the native baselines were not built (setup.py)")

LONG = os.environ.get("SOBEK_LONG") == "1"
TOLERANCES = (BEST, 0.0, 0.35, 0.8)
# rules options the baselines read: the hand limit, what a trompe stands for, the sanctuaries' size, the tiles'
# orientations (the geometry), the turn limit (the decoder's turn)
OPTIONS = {"mosaic_reflections": True, "trompe_stands_for": ["stone", "wood", "lapis"], "hand_limit": 8,
           "sanctuary_max_squares": 10, "max_turns": 90}
SHORT = {"max_turns": 60}  # random seats rarely finish the palace: the turn limit ends their games
# (observation mode, the seats' players in turn, rules options): baselines' games, mixed ones, random ones
GAMES = (
    ("original", ("heuristic",), {}),
    ("memory", ("heuristic", "greedy", "random"), {}),
    ("original", ("random",), SHORT),
    ("memory", ("greedy", "heuristic"), OPTIONS),
)
PLAYER_COUNTS = GAME.player_counts


def _python_agents(table) -> dict:
    return {"greedy": GreedyAgent(table), **{t: HeuristicAgent(table, tolerance=t) for t in TOLERANCES}}


def play_and_compare(num_players: int, mode: str, seats: tuple[str, ...], rules: dict, seed: int,
                     resample_every: int = 0) -> tuple[int, list, set[str]]:
    """Play one seeded game (each seat's action from its player), comparing at every decision the native greedy
    and heuristic (one tolerance per decision, in turn) with the Python ones; re-deal what the seat cannot see
    every ``resample_every`` decisions and check the native decision stays. The decisions compared, the
    differences and the phases met."""
    table = GAME.table(num_players, mode, **rules)
    python = _python_agents(table)
    native = native_agents.native_table(table)
    advice = Advice(table)
    assert advice._native is not None, "the advice features do not use the native heuristic"
    observer = GAME.observer(num_players, mode)
    state = GameState.new(num_players, seed, **rules, engine="python")
    rng = random.Random(seed)
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    compared, differences, phases = 0, [], set()
    step = 0
    while not state.is_over:
        legal = state.legal_actions()
        seat = state.current_player
        mask[:] = 0
        mask[legal] = 1
        observation = {"observation": observer.encode(state, seat).copy(), "action_mask": mask.copy()}
        phase = state.pending.name if state.pending is not None else "turn"
        phases.add(phase)
        tolerance = TOLERANCES[step % len(TOLERANCES)]
        chosen = {}
        for name, key in (("greedy", "greedy"), ("heuristic", tolerance)):
            reference = python[key].act(observation)
            decided = native_agents._baselines.decide(native, name, python[key].tolerance if name == "heuristic"
                                                      else 0.0, observation)
            compared += 1
            chosen[name] = reference
            if decided != reference:
                differences.append((seed, step, phase, name, key, reference, decided))
        if resample_every and step % resample_every == 0:
            other = state.resample(seat, random.Random(seed * 7919 + step))
            again = {"observation": observer.encode(other, seat).copy(), "action_mask": mask.copy()}
            for name in ("greedy", "heuristic"):
                tol = BEST if name == "heuristic" else 0.0
                assert native_agents._baselines.decide(native, name, tol, again) == \
                    native_agents._baselines.decide(native, name, tol, observation), (seed, step, phase, name)
        if step % 3 == 0:
            same_advice(observation, advice)
        player = seats[seat % len(seats)]
        action = rng.choice(legal) if player == "random" else chosen[player] if player == "greedy" else \
            python[BEST].act(observation)
        state.apply(action)
        step += 1
    return compared, differences, phases


def same_advice(observation: dict, advice: Advice) -> None:
    """The ``advice`` features written natively are the Python reference's, bit for bit."""
    expected = np.zeros(advice_size(advice.table.num_players), dtype=np.float32)
    got = np.zeros_like(expected)
    advice.python_call(observation, expected)
    advice(observation, got)
    assert np.array_equal(got.view(np.uint32), expected.view(np.uint32)), (np.flatnonzero(got != expected),
                                                                          got, expected)


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_same_decisions_as_python(num_players: int) -> None:
    compared, differences, phases = 0, [], set()
    games = [(mode, seats, rules, 1000 * num_players + 10 * seed + g)
             for seed in range(6 if LONG else 1) for g, (mode, seats, rules) in enumerate(GAMES)]
    # then random games until every phase was met (a rare one, such as an Envoy's acceptance, may need a few)
    games += [("memory", ("random",), SHORT, 1000 * num_players + 500 + extra) for extra in range(8)]
    for mode, seats, rules, seed in games:
        if seed % 1000 >= 500 and phases == set(PHASE_NAMES):
            break
        c, d, p = play_and_compare(num_players, mode, seats, rules, seed, resample_every=25)
        compared, phases = compared + c, phases | p
        differences += d
    print(f"\n{num_players} players: {compared} decisions compared, {len(differences)} different")
    assert not differences, f"{len(differences)} of {compared} decisions differ, first: {differences[:5]} " \
                            f"(by phase: {Counter(d[2] for d in differences)})"
    assert compared >= 2000
    assert phases == set(PHASE_NAMES), f"phases never reached: {set(PHASE_NAMES) - phases}"


def test_derived_constants_equal_the_python_ones() -> None:
    from agents.kleopatra.common import UNSEEN_CORRUPT, UNSEEN_WORTH

    derived = native_agents._baselines.constants()
    assert derived["UNSEEN_WORTH"] == UNSEEN_WORTH and derived["UNSEEN_CORRUPT"] == UNSEEN_CORRUPT
    assert derived["UNSEEN_MIX"] == UNSEEN_MIX.tolist()


@pytest.mark.parametrize("width", [1, 2, 3, 4, 5])
def test_sums_as_the_reference_sums_them(width: int) -> None:
    """The prospects' products of a matrix and a vector are summed from 0 left to right, each product rounded, in
    the reference (ordered_dot) as in the C++, bit for bit, whatever numpy's BLAS does: fractional shortfalls (a
    stall's face-down cards at the catalogue's mix) make every other order or a fused multiply-add give another
    last bit somewhere among these matrices."""
    rng = np.random.default_rng(width)
    other_order = 0
    for weights in (MISSING[:width], LEFTOVER[:width], MISSING[5 - width:]):
        for rows in (1, 2, 3, 4, 5, 7, 8, 64, 211):
            for _ in range(20):
                matrix = rng.integers(0, 5, size=(rows, width)) * rng.choice([1.0, 1 / 3, 0.0275, 0.31],
                                                                             size=(rows, width))
                reference = ordered_dot(matrix, weights)
                by_hand = [reduce(operator.add, (float(a) * float(w) for a, w in zip(row, weights)), 0.0)
                           for row in matrix]
                np.testing.assert_array_equal(reference, by_hand, err_msg=f"{rows} rows of {width}")
                np.testing.assert_array_equal(native_agents._baselines.matvec(matrix, weights), reference,
                                              err_msg=f"{rows} rows of {width}")
                backwards = [reduce(operator.add, (float(a) * float(w) for a, w in zip(row[::-1], weights[::-1])),
                                    0.0) for row in matrix]
                other_order += int(np.any(np.asarray(backwards) != reference))
    assert width < 3 or other_order > 0  # the matrices are ones whose order shows


def _observation(num_players: int = 3) -> dict:
    state = GameState.new(num_players, 5, engine="python")
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[state.legal_actions()] = 1
    return {"observation": GAME.observer(num_players).encode(state, 0).copy(), "action_mask": mask}


@pytest.mark.parametrize("agent", ["greedy", "heuristic"])
def test_bad_input_is_refused_clearly(agent: str) -> None:
    native = native_agents.native_table(GAME.table(3))
    good = _observation()
    decide = native_agents._baselines.decide
    assert 0 <= decide(native, agent, 0.5, good) < NUM_ACTIONS
    vector, mask = good["observation"], good["action_mask"]
    nan = vector.copy()
    nan[7] = np.nan
    negative = vector.copy()
    negative[3] = -1.0
    cases = {
        "has 10 entries": {"observation": vector[:10], "action_mask": mask},
        "float32": {"observation": vector.astype(np.float64), "action_mask": mask},
        "not contiguous": {"observation": np.repeat(vector, 2)[::2], "action_mask": mask},
        "entry 7 is nan": {"observation": nan, "action_mask": mask},
        "entry 3 is -1.0": {"observation": negative, "action_mask": mask},
        "no legal action": {"observation": vector, "action_mask": np.zeros_like(mask)},
        "144 entries": {"observation": vector, "action_mask": mask[:50]},
        "'observation' and 'action_mask'": {"observation": vector},
    }
    for message, bad in cases.items():
        with pytest.raises(ValueError, match=message):
            decide(native, agent, 0.5, bad)
    with pytest.raises(ValueError, match="unknown native baseline"):
        decide(native, "random", 0.5, good)
    with pytest.raises(ValueError, match="tolerance"):
        decide(native, agent, 1.5, good)
    with pytest.raises(ValueError, match="observation_mode"):
        native_agents._baselines.NativeTable(3, "full")
    with pytest.raises(ValueError, match="hand_limit"):
        native_agents._baselines.NativeTable(3, "original", {"hand_limit": -1})


def test_the_registry_makes_the_native_agents_and_pure_python_the_reference() -> None:
    made = agents.make("heuristic:tolerance=0.25", game="kleopatra", num_players=4)
    assert isinstance(made, native_agents.NativeHeuristicAgent) and isinstance(made, HeuristicAgent)
    assert made.name == "heuristic" and made.tolerance == 0.25
    greedy = agents.make("greedy", game="kleopatra")
    assert isinstance(greedy, native_agents.NativeGreedyAgent) and greedy.name == "greedy"
    observation = _observation()
    assert greedy.act(observation) == GreedyAgent(GAME.table(3)).act(observation)
    code = ("import agents; from agents.kleopatra import GreedyAgent, HeuristicAgent; "
            "h = agents.make('heuristic', game='kleopatra'); g = agents.make('greedy', game='kleopatra'); "
            "print(type(h) is HeuristicAgent, type(g) is GreedyAgent)")
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "SOBEK_PURE_PYTHON": "1"},
                         capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "True"]


def test_a_batch_decides_as_one_by_one_and_tables_never_share_their_memos() -> None:
    """decide_many (for batched callers) gives decide's answers; two tables with other rules, decided in turn on
    the same observations, each keep to their own Python reference (the palace memos are per table)."""
    plain = GAME.table(3)
    other = GAME.table(3, trompe_stands_for=["marble"], hand_limit=6)
    tables = [(plain, native_agents.native_table(plain)), (other, native_agents.native_table(other))]
    python = {id(t): HeuristicAgent(t, tolerance=0.35) for t, _ in tables}
    observer = GAME.observer(3)
    state = GameState.new(3, 21, engine="python")
    rows, masks = [], []
    rng = random.Random(4)
    for _ in range(150):
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        mask[state.legal_actions()] = 1
        observation = {"observation": observer.encode(state, state.current_player).copy(), "action_mask": mask}
        rows.append(observation["observation"])
        masks.append(mask)
        for table, native in tables:
            assert native_agents._baselines.decide(native, "heuristic", 0.35, observation) == \
                python[id(table)].act(observation)
        state.apply(rng.choice(state.legal_actions()))
    native = tables[0][1]
    batch = native_agents._baselines.decide_many(native, "heuristic", 0.35, np.stack(rows), np.stack(masks))
    one_by_one = [native_agents._baselines.decide(native, "heuristic", 0.35, {"observation": r, "action_mask": m})
                  for r, m in zip(rows, masks)]
    assert batch.tolist() == one_by_one
    with pytest.raises(ValueError, match="masks must have shape"):
        native_agents._baselines.decide_many(native, "greedy", 0.0, np.stack(rows), np.stack(masks)[:3])
    with pytest.raises(ValueError, match="row 1 refused"):
        masks[1] = np.zeros(NUM_ACTIONS, dtype=np.int8)
        native_agents._baselines.decide_many(native, "greedy", 0.0, np.stack(rows), np.stack(masks))


@pytest.mark.parametrize("agent", ["greedy", "heuristic"])
def test_nonsense_within_the_entries_range_still_gives_a_legal_action(agent: str) -> None:
    """Vectors no game writes (random counts everywhere, a phase of each kind) are read without a crash: the
    answer is one of the mask's legal actions."""
    rng = np.random.default_rng(3)
    for num_players in PLAYER_COUNTS:
        native = native_agents.native_table(GAME.table(num_players, "memory"))
        size = native.size
        for trial in range(80):
            vector = (rng.integers(0, (2, 4, 12, 300)[trial % 4], size=size)
                      * (rng.random(size) < 0.4)).astype(np.float32)
            mask = (rng.random(NUM_ACTIONS) < 0.1).astype(np.int8)
            mask[rng.integers(NUM_ACTIONS)] = 1
            action = native_agents._baselines.decide(native, agent, float(rng.random()),
                                                     {"observation": vector, "action_mask": mask})
            assert mask[action], (num_players, trial, action)
