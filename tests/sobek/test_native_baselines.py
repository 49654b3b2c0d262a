"""Sobek's native baselines (agents/sobek/native/, bound by agents/sobek/_baselines.pyx) make the Python
baselines' decision at every decision: the differential test of issue 37.

Seeded games at 2, 3 and 4 players, in both observation modes, with the default rules and with options that
move scarabs, green cards and families, are played by the baselines themselves (with some random moves, so
positions they would not seek are met too) or by random moves alone; at every decision both the greedy and
the heuristic (at several tolerances) are asked on both sides, the ``advice`` features are written on both
sides, and every phase of the game must be reached.
``SOBEK_LONG=1`` plays ten times more games. The native decision must not move when what the seat cannot see
is re-dealt, and bad input gets one clear ValueError. The extension is built by the package's install (``make
test`` installs it), so its absence is a failure here, not a skip.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest

import agents
from agents.sobek import PYTHON_BASELINES, native_agents
from agents.sobek.features import Advice, advice_size
from agents.sobek.heuristic import BEST
from sobek_env.sobek import GAME
from sobek_env.sobek.phases import PHASES

LONG = os.environ.get("SOBEK_LONG") == "1"
GAMES = 100 if LONG else 10  # per player count
TOLERANCES = (0.0, 0.2, BEST, 0.7, 1.0)
RULES = (
    {},
    {"scarabs": {"ivory": 1, "wheat": 4, "fish": 0}, "green_cards": {"ivory": 0, "fish": 3},
     "families": {"courtesan": "ivory", "queen": "fish", "thief": "wheat"}},
)
ALL_PHASES = {None} | {phase.name for phase in PHASES[1:]}


def native_module():
    try:
        from agents.sobek import _baselines
    except ImportError as error:
        pytest.fail(f"the native baselines agents.sobek._baselines were not built ({error}); "
                    "reinstall with `pip install -e .` on a machine with Cython and a C++ compiler")
    return _baselines


def observe(state, observer, mask: np.ndarray) -> dict:
    """The acting seat's observation dict, as the environment gives it (copies: agents may keep them)."""
    mask[:] = 0
    mask[state.legal_actions()] = 1
    return {"observation": observer.encode(state, state.current_player).copy(), "action_mask": mask.copy()}


class Pair:
    """One baseline in Python and natively, at one table."""

    def __init__(self, name: str, table, **options) -> None:
        self.python = PYTHON_BASELINES[name](table, **options)
        self.native = agents.make(name, table=table)
        if options:
            self.native.tolerance = options["tolerance"]
        assert type(self.native).__name__.startswith("Native"), "agents.make did not build the native agent"


def same_numbers(observation: dict, table, native_table) -> None:
    """The floats the native decoder derives are the reference View's, bit for bit (the sums of fractions a
    face-down character on the Nile brings follow numpy's order of summation)."""
    view = GAME.decode(observation, table)
    derived = native_module().derived(native_table, observation)
    for name, value in derived.items():
        assert repr(value) == repr(getattr(view, name)), (name, value, getattr(view, name))


def same_advice(observation: dict, advice: Advice) -> None:
    """The ``advice`` features written natively are the Python reference's, bit for bit."""
    expected = np.zeros(advice_size(advice.table.num_players), dtype=np.float32)
    got = np.zeros_like(expected)
    advice.python_call(observation, expected)
    advice(observation, got)
    assert np.array_equal(got.view(np.uint32), expected.view(np.uint32)), (np.flatnonzero(got != expected))


def play(num_players: int, game: int, phases: Counter) -> int:
    """Play one seeded game, comparing every baseline at every decision; return the decisions compared."""
    mode = ("original", "memory")[game % 2]
    rules = RULES[(game // 2) % 2]
    table = GAME.table(num_players, mode, **rules)
    rng = random.Random(1000 * num_players + game)
    pairs = [Pair("greedy", table)] + [Pair("heuristic", table, tolerance=t) for t in TOLERANCES]
    # who plays the game: a baseline with some random moves, or (one game in seven) random moves alone
    drivers = [pair.python for pair in pairs] + [None]
    driver = drivers[game % len(drivers)]
    state = GAME.new(num_players, seed=game, **rules)
    observer = GAME.observer(num_players, mode)
    mask = np.zeros(GAME.num_actions, dtype=np.int8)
    native_table = native_module().NativeTable(num_players, rules)
    advice = Advice(table)
    assert advice._native is not None, "the advice features do not use the native heuristic"
    compared = 0
    while not state.is_over:
        observation = observe(state, observer, mask)
        phases[GAME.decode(observation, table).phase] += 1
        same_numbers(observation, table, native_table)
        same_advice(observation, advice)
        for pair in pairs:
            expected = pair.python.act(observation)
            got = pair.native.act(observation)
            assert got == expected, (f"{pair.python.name} (tolerance {getattr(pair.python, 'tolerance', '-')}) "
                                     f"chose {got} natively, {expected} in Python; {num_players} players, game "
                                     f"{game}, {mode}, rules {rules}, state {state.to_json()}")
            assert type(got) is int
            compared += 1
        legal = state.legal_actions()
        state.apply(driver.act(observation) if driver and rng.random() < 0.8 else rng.choice(legal))
    return compared


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_native_decisions_equal_the_python_baselines(num_players: int) -> None:
    native_module()
    phases: Counter = Counter()
    compared = sum(play(num_players, game, phases) for game in range(GAMES))
    assert compared > 3000
    missing = ALL_PHASES - set(phases)
    assert not missing, f"phases never reached at {num_players} players: {sorted(map(str, missing))}"


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_native_decisions_ignore_what_the_seat_cannot_see(num_players: int) -> None:
    """Re-deal what the acting seat cannot see (``resample``): its observation, and so the decision, stay."""
    rng = random.Random(num_players)
    for game, mode in enumerate(("original", "memory")):
        table = GAME.table(num_players, mode)
        greedy, heuristic = agents.make("greedy", table=table), agents.make("heuristic", table=table)
        state = GAME.new(num_players, seed=50 + game)
        observer = GAME.observer(num_players, mode)
        mask = np.zeros(GAME.num_actions, dtype=np.int8)
        checked = moved = 0
        while not state.is_over:
            observation = observe(state, observer, mask)
            if rng.random() < 0.3:
                redealt = state.resample(state.current_player, random.Random(rng.random()))
                again = observe(redealt, observer, mask)
                for agent in (greedy, heuristic):
                    assert agent.act(again) == agent.act(observation)
                checked += 1
                moved += redealt.to_json() != state.to_json()  # something hidden did move
            state.apply(heuristic.act(observation))
        assert checked > 20 and moved > checked // 2


@pytest.fixture
def decision():
    """A heuristic and an observation dict of a 3-player game in progress."""
    table = GAME.table(3)
    state = GAME.new(3, seed=7)
    for _ in range(10):
        state.apply(state.legal_actions()[0])
    mask = np.zeros(GAME.num_actions, dtype=np.int8)
    return agents.make("heuristic", table=table), observe(state, GAME.observer(3), mask)


@pytest.mark.parametrize("bend", ["short", "float64", "strided", "nan", "negative", "no legal action", "list",
                                  "no mask"])
def test_bad_input_gets_a_clear_value_error(decision, bend: str) -> None:
    agent, observation = decision
    vector, mask = observation["observation"], observation["action_mask"]
    bent = dict(observation)
    if bend == "short":
        bent["observation"] = vector[:-1]
    elif bend == "float64":
        bent["observation"] = vector.astype(np.float64)
    elif bend == "strided":
        bent["observation"] = np.repeat(vector, 2)[::2]
    elif bend == "nan":
        bent["observation"] = vector.copy()
        bent["observation"][5] = np.nan
    elif bend == "negative":
        bent["observation"] = vector.copy()
        bent["observation"][0] = -1.0
    elif bend == "no legal action":
        bent["action_mask"] = np.zeros_like(mask)
    elif bend == "list":
        bent["observation"] = vector.tolist()
    else:
        del bent["action_mask"]
    before = vector.copy()
    with pytest.raises(ValueError) as caught:
        agent.act(bent)
    assert "\n" not in str(caught.value) and len(str(caught.value)) < 300  # one line
    assert np.array_equal(vector, before)
    assert agent.act(observation) in np.flatnonzero(mask)  # the agent still works


@pytest.mark.parametrize("bend", ["no mask", "not a dict", "short", "short mask", "no legal action"])
def test_the_advice_refuses_bad_input_as_decide_does(decision, bend: str) -> None:
    agent, observation = decision
    advise = native_agents._baselines.advise
    out = np.zeros(2 * GAME.num_actions + 3 + 4, dtype=np.float32)
    bent = dict(observation)
    if bend == "no mask":
        del bent["action_mask"]
    elif bend == "not a dict":
        bent = observation["observation"]
    elif bend == "short":
        bent["observation"] = observation["observation"][:-1]
    elif bend == "short mask":
        bent["action_mask"] = observation["action_mask"][:-1]
    else:
        bent["action_mask"] = np.zeros_like(observation["action_mask"])
    with pytest.raises(ValueError) as caught:
        advise(agent._native, 0.2, bent, out)
    assert "\n" not in str(caught.value) and len(str(caught.value)) < 300  # one line
    assert not out.any()
    assert advise(agent._native, 0.2, observation, out) in np.flatnonzero(observation["action_mask"])


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_any_vector_of_valid_entries_gets_a_legal_action(num_players: int) -> None:
    """Vectors no game makes (random counts, random phases, random masks) get a legal action, never a crash."""
    rng = np.random.default_rng(num_players)
    table = GAME.table(num_players)
    greedy, heuristic = agents.make("greedy", table=table), agents.make("heuristic", table=table)
    size = GAME.observer(num_players).buffer.size
    for trial in range(600):
        high = (2, 4, 101)[trial % 3]
        vector = (rng.integers(0, high, size) * (rng.random(size) < 0.3)).astype(np.float32)
        mask = (rng.random(GAME.num_actions) < 0.2).astype(np.int8)
        mask[rng.integers(GAME.num_actions)] = 1
        for agent in (greedy, heuristic):
            assert mask[agent.act({"observation": vector, "action_mask": mask})]


def test_the_mask_may_be_any_array_of_flags(decision) -> None:
    agent, observation = decision
    expected = agent.act(observation)
    for mask in (observation["action_mask"].astype(bool), observation["action_mask"].astype(np.int64),
                 observation["action_mask"].tolist()):
        assert agent.act({"observation": observation["observation"], "action_mask": mask}) == expected


def test_sobek_pure_python_gives_the_python_baselines() -> None:
    code = ("import agents; print(type(agents.make('heuristic')).__name__, type(agents.make('greedy')).__name__); "
            "from agents.sobek import native_agents; print(native_agents.NATIVE)")
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "SOBEK_PURE_PYTHON": "1"},
                         capture_output=True, text=True, check=True).stdout.split()
    assert out == ["HeuristicAgent", "GreedyAgent", "False"]
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "SOBEK_PURE_PYTHON": "0"},
                         capture_output=True, text=True, check=True).stdout.split()
    assert out == ["NativeHeuristicAgent", "NativeGreedyAgent", "True"]


def test_the_native_agents_keep_the_python_interface() -> None:
    heuristic = agents.make("heuristic:tolerance=0.2", num_players=4, observation_mode="memory", seed=3)
    assert heuristic.name == "heuristic" and heuristic.tolerance == 0.2
    assert isinstance(heuristic, PYTHON_BASELINES["heuristic"])
    assert isinstance(agents.make("greedy"), PYTHON_BASELINES["greedy"])
    with pytest.raises(ValueError, match="tolerance"):
        agents.make("heuristic:tolerance=2")
