"""The native engine (sobek_env/sobek/_native.pyx, native/*.hpp) against the Python engine, the reference.

Differential: random games over every player count, random rules options and stress-run policies; after
every action both engines give the same legal actions, the same ``to_json()`` (generator included), the same
observations of every seat in both modes, the same scores and winners, and the same event log; documents
hop from one engine to the other mid-game and play on identically; ``resample`` gives the same state and
advances the caller's generator alike. ``SOBEK_LONG=1`` plays many more games.
"""

from __future__ import annotations

import importlib
import json
import os
import random
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sobek_env import GameState, IllegalActionError, StateFormatError, action_id
from sobek_env.game import python_state
from sobek_env.sobek.jsonstate import to_document
from sobek_env.sobek.observation import Observer, encode_state, observation_size, state_size
from sobek_env.sobek.stress import PROFILES, WEIGHTS, Policy, random_rules

from .scenario import act, build, spec
from .test_fuzz import action_values, mutate, states

try:
    native = importlib.import_module("sobek_env.sobek._native")
except ImportError as error:  # built by pip install: a missing build fails the module, it is not skipped
    raise ImportError(f"the native engine sobek_env.sobek._native was not built ({error}); reinstall with "
                      "`pip install -e .` on a machine with Cython and a C++ compiler") from None
NativeState = native.NativeState

LONG = os.environ.get("SOBEK_LONG") == "1"
GAMES = 3000 if LONG else 150


def _game_setup(i: int) -> tuple[int, int, dict, Policy]:
    """Game ``i``'s player count, seed, rules options (every other game) and policy."""
    rng = random.Random(1000 + i)
    n = 2 + i % 3
    options = random_rules(rng) if i % 2 else {}
    return n, rng.randrange(2**63), options, Policy(WEIGHTS[sorted(PROFILES)[i % len(PROFILES)]])


def _same_observations(py: GameState, nat: NativeState, observers: dict) -> None:
    n = py.num_players
    out = np.zeros(observation_size(n), dtype=np.float32)
    for mode, observer in observers.items():
        for seat in range(n):
            nat.encode(out, seat, mode == "memory")
            expected = observer.encode(py, seat)
            if not np.array_equal(out, expected):  # the full report only on failure: it costs at every step
                np.testing.assert_array_equal(out, expected, err_msg=f"seat {seat}, {mode}")


def _same(py: GameState, nat: NativeState) -> None:
    """The same legal actions, document (as the dict to_json dumps) and public properties."""
    assert nat.legal_actions() == py.legal_actions()
    assert to_document(nat.to_python()) == to_document(py)
    assert (nat.current_player, nat.is_over, nat.scores, nat.winners, nat.round, nat.phase) == (
        py.current_player, py.is_over, py.scores, py.winners, py.round, py.phase)


def _check_resample(py: GameState, nat: NativeState, seed: int) -> None:
    seat = seed % py.num_players
    rng_py, rng_nat = random.Random(seed), random.Random(seed)
    a, b = py.resample(seat, rng_py), nat.resample(seat, rng_nat)
    assert b.to_json() == a.to_json()
    assert rng_nat.getstate() == rng_py.getstate()
    assert b.legal_actions() == a.legal_actions()


@pytest.mark.parametrize("block", range(8))
def test_random_games_are_the_same_game_on_both_engines(block: int) -> None:
    for i in range(block, GAMES, 8):
        n, seed, options, policy = _game_setup(i)
        py, nat = GameState.new(n, seed=seed, **options, engine="python"), NativeState.new(n, seed=seed, **options)
        py.log, nat.log = [], []
        observers = {mode: Observer(n, mode) for mode in ("original", "memory")}
        rng = random.Random(seed)
        hop, resample_at, step = rng.randrange(150), rng.randrange(200), 0
        _same(py, nat)
        _same_observations(py, nat, observers)
        while not py.is_over:
            legal = py.legal_actions()
            action = rng.choices(legal, policy.weights(py, legal))[0]
            py.apply(action)
            nat.apply(action)
            step += 1
            _same(py, nat)
            _same_observations(py, nat, observers)
            if step == hop:  # rules §10 documents continue in the other engine, both ways
                py_log, nat_log = py.log, nat.log
                py, nat = GameState.from_json(nat.to_json(), engine="python"), NativeState.from_json(py.to_json())
                py.log, nat.log = py_log, nat_log
            if step == resample_at or step % 97 == 0:
                _check_resample(py, nat, seed + step)
        assert nat.log == py.log and nat.to_json() == py.to_json()
        np.testing.assert_array_equal(nat.state_vector(), encode_state(py))
        _check_resample(py, nat, seed)


def test_a_new_game_deals_as_the_python_engine_for_every_count_and_big_seeds() -> None:
    for n in (2, 3, 4):
        for seed in (0, 1, 2**32 - 1, 2**32, 2**63 - 1, 2**64 + 5, 10**30):
            assert NativeState.new(n, seed=seed).to_json() == GameState.new(n, seed=seed, engine="python").to_json()
    options = {"scarabs": {"fish": 4}, "green_cards": {"ivory": 0, "wheat": 3}, "families": {"queen": "fish"}}
    python = GameState.new(3, seed=5, **options, engine="python")
    assert NativeState.new(3, seed=5, **options).to_json() == python.to_json()


def test_new_refuses_what_the_python_engine_refuses() -> None:
    for args, options in (((1,), {}), ((5,), {}), ((2, -1), {}), ((2, 1.5), {}), ((2, True), {}),
                          ((2, 0), {"colour": {}}), ((2, 0), {"scarabs": {"gold": 1}})):
        with pytest.raises(ValueError) as expected:
            GameState.new(*args, **options, engine="python")
        with pytest.raises(ValueError) as got:
            NativeState.new(*args, **options)
        assert str(got.value) == str(expected.value)


def test_clone_is_independent_and_plays_on_identically() -> None:
    nat = NativeState.new(3, seed=11)
    rng = random.Random(3)
    for _ in range(40):
        nat.apply(rng.choice(nat.legal_actions()))
    before = nat.to_json()
    other = nat.clone()
    assert other.to_json() == before and other.engine == "native"
    for _ in range(30):
        other.apply(rng.choice(other.legal_actions()))
    assert nat.to_json() == before
    py = GameState.from_json(before, engine="python")
    rng_a, rng_b = random.Random(9), random.Random(9)
    for _ in range(60):
        if py.is_over:
            break
        a = rng_a.choice(py.legal_actions())
        assert a == rng_b.choice(nat.legal_actions())
        py.apply(a)
        nat.apply(a)
    assert nat.to_json() == py.to_json()


def test_to_python_and_from_python_round_trip_every_field() -> None:
    py = GameState.new(4, seed=21, engine="python")
    rng = random.Random(21)
    for _ in range(120):
        py.apply(rng.choice(py.legal_actions()))
    nat = NativeState.from_python(py)
    back = nat.to_python()
    assert back == py and back.rng.getstate() == py.rng.getstate()
    assert nat == py and nat == nat.clone()
    with pytest.raises(TypeError, match="sobek GameState"):
        NativeState.from_python("not a state")


def test_resample_takes_a_numpy_generator_or_a_seed_and_refuses_bad_seats() -> None:
    py = GameState.new(3, seed=4, engine="python")
    nat = NativeState.from_python(py)
    assert nat.resample(1, 77).to_json() == py.resample(1, 77).to_json()
    g1, g2 = np.random.default_rng(5), np.random.default_rng(5)
    assert nat.resample(2, g1).to_json() == py.resample(2, g2).to_json()
    for seat in (3, -1, True, 1.0, "0"):
        with pytest.raises(ValueError) as expected:
            py.resample(seat, 0)
        with pytest.raises(ValueError) as got:
            nat.resample(seat, 0)
        assert str(got.value) == str(expected.value)
    with pytest.raises(TypeError):
        nat.resample(0, "rng")


BAD_ACTIONS = [-1, 76, 2**70, -(2**70), True, False, 1.0, float("nan"), "0", None, [0], np.array(0),
               np.array([0]), np.float32(0), np.bool_(True), b"0", 10**400]


@pytest.mark.parametrize("value", BAD_ACTIONS, ids=repr)
def test_bad_actions_get_the_python_engines_error_and_change_nothing(value) -> None:
    py = GameState.new(2, seed=8, engine="python")
    nat = NativeState.from_python(py)
    before = nat.to_json()
    with pytest.raises(IllegalActionError) as expected:
        py.apply(value)
    with pytest.raises(IllegalActionError) as got:
        nat.apply(value)
    assert str(got.value) == str(expected.value)
    assert nat.to_json() == before


def test_numpy_integers_apply_and_illegal_ids_name_the_legal_ones() -> None:
    py, nat = GameState.new(2, seed=8, engine="python"), NativeState.new(2, seed=8)
    illegal = next(a for a in range(76) if a not in py.legal_actions())
    with pytest.raises(IllegalActionError) as expected:
        py.apply(np.int64(illegal))
    with pytest.raises(IllegalActionError) as got:
        nat.apply(np.int64(illegal))
    assert str(got.value) == str(expected.value)
    legal = py.legal_actions()[0]
    py.apply(np.int32(legal))
    nat.apply(np.uint8(legal))
    assert nat.to_json() == py.to_json()


def test_a_finished_game_refuses_every_action() -> None:
    nat = NativeState.new(2, seed=3)
    rng = random.Random(3)
    while not nat.is_over:
        nat.apply(rng.choice(nat.legal_actions()))
    py = GameState.from_json(nat.to_json(), engine="python")
    assert nat.legal_actions() == [] and nat.winners == py.winners
    with pytest.raises(IllegalActionError, match="the game is over"):
        nat.apply(0)


@pytest.mark.parametrize("text", ["", "{}", "[]", "null", '{"format": "sobek-state/1"}', b"\xff", "nan"])
def test_from_json_of_junk_is_a_state_format_error(text) -> None:
    with pytest.raises(StateFormatError):
        NativeState.from_json(text)


def test_encode_checks_its_buffer_and_seat() -> None:
    nat = NativeState.new(3, seed=1)
    good = np.zeros(observation_size(3), dtype=np.float32)
    for buffer in (np.zeros(observation_size(3) - 1, dtype=np.float32), np.zeros(observation_size(2),
                                                                                 dtype=np.float32)):
        with pytest.raises(ValueError, match="entries"):
            nat.encode(buffer, 0, False)
    with pytest.raises((ValueError, TypeError)):
        nat.encode(np.zeros(observation_size(3), dtype=np.float64), 0, False)
    for seat in (3, -1, True, 0.5, None):
        with pytest.raises(ValueError, match="seat"):
            nat.encode(good, seat, False)
    with pytest.raises(ValueError, match="entries"):
        nat.encode_state(np.zeros(state_size(3) + 1, dtype=np.float32))
    assert not good.any()


def test_event_log_is_the_python_engines_and_off_by_default() -> None:
    nat = NativeState.new(2, seed=2)
    assert nat.log is None
    with pytest.raises(TypeError, match="log"):
        nat.log = "events"
    nat.log = []
    rng = random.Random(2)
    while not nat.is_over:
        nat.apply(rng.choice(nat.legal_actions()))
    assert nat.log and "round:scored" in nat.log
    assert nat.clone().log is None


def test_pickles_through_its_document() -> None:
    import pickle

    nat = NativeState.new(4, seed=6)
    nat.apply(nat.legal_actions()[-1])
    again = pickle.loads(pickle.dumps(nat))
    assert again.to_json() == nat.to_json() and json.loads(again.to_json())["num_players"] == 4


def test_the_package_exposes_it_and_sobek_pure_python_turns_it_off() -> None:
    import sobek_env.sobek

    if os.environ.get("SOBEK_PURE_PYTHON", "") in ("", "0"):
        assert sobek_env.sobek.NativeState is NativeState
    code = "import sobek_env.sobek as s; print(s.NativeState is None)"
    done = subprocess.run([sys.executable, "-c", code], env={**os.environ, "SOBEK_PURE_PYTHON": "1"},
                          cwd=Path(__file__).parents[2], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "True"


def _same_resamples(py: GameState, seeds: Iterable[int]) -> None:
    nat = NativeState.from_python(py)
    for seed in seeds:
        for seat in range(py.num_players):
            _check_resample(py, nat, seed * py.num_players + seat)


def test_resample_matches_inside_every_sub_decision_of_played_games() -> None:
    phases = set()
    for i in range(24 if not LONG else 400):
        n, seed, options, policy = _game_setup(i)
        py = GameState.new(n, seed=seed, **options, engine="python")
        rng = random.Random(seed)
        while not py.is_over:
            legal = py.legal_actions()
            py.apply(rng.choices(legal, policy.weights(py, legal))[0])
            if py.phase is not None and rng.random() < 0.2:
                phases.add(py.phase)
                _same_resamples(py, [rng.randrange(10**6)])
    assert {"set", "token", "horizontal", "horizontal_set", "scribe", "vizier_card"} <= phases


def test_resample_matches_on_the_resample_tests_positions() -> None:
    """Remembered cards, the searched pile, the tokens a seat looked through, an opponent building a set."""
    memory = {"players": [{"hand": ["wheat-plain"]},
                          {"hand": ["ivory-scarab", "ebony-plain", "queen", "cattle-start"],
                           "corruption": ["fish-plain", "marble-plain"]}],
              "nile": ["wheat-scarab", "thief", "amulet"], "deck": ["fish-scarab", "courtesan", "ebony-scarab"],
              "tokens": ["flood", "deceit"]}
    s = build(memory)
    doc = json.loads(s.to_json())
    doc["memory"] = [{"hands": [[], ["ivory-scarab", "fish-plain"]], "piles": [[], ["fish-plain"]]}, {}]
    _same_resamples(GameState.from_json(json.dumps(doc), engine="python"), range(40))
    s = build({"players": [{"hand": ["vizier"]}, {"corruption": ["ivory-scarab", "queen", "fish-start"]}],
               "nile": ["wheat-scarab"], "tokens": ["flood", "curse", "deceit"]})
    _same_resamples(act(s, "character:vizier", "player:1"), range(20))
    s = build({"players": [{"hand": ["ivory-scarab", "ivory-plain", "amulet", "fish-plain"]}, {}],
               "nile": ["wheat-scarab"], "tokens": ["flood", "curse", "deceit"]})
    _same_resamples(act(s, "set:ivory", "card:ivory-scarab", "card:ivory-plain", "card:amulet", "done"), range(20))
    _same_resamples(act(s, "token:flood"), range(20))
    s = build({"players": [{}, {"hand": ["ivory-scarab", "ivory-plain", "amulet", "fish-plain", "cattle-scarab"]}],
               "current_player": 1, "nile": ["wheat-scarab"]})
    _same_resamples(act(s, "set:ivory", "card:ivory-scarab"), range(40))


# ---------------------------------------------------------------------- junk through the bindings (hypothesis)

JUNK = settings(max_examples=4000 if LONG else 100, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])


@given(state=states, value=action_values)
@JUNK
def test_junk_actions_get_the_python_engines_answer(state: Any, value) -> None:
    state = python_state(state)  # the fuzz suite's states are dealt on the default engine
    nat = NativeState.from_python(state)
    before = nat.to_json()
    try:
        state.apply(value)
    except IllegalActionError as exc:
        with pytest.raises(IllegalActionError) as got:
            nat.apply(value)
        assert str(got.value) == str(exc)
        assert nat.to_json() == before
        return
    nat.apply(value)
    assert nat.to_json() == state.to_json()


@given(state=states, data=st.data(), mutations=st.integers(1, 4))
@JUNK
def test_mutated_documents_load_alike_or_fail_alike(state: GameState, data: st.DataObject, mutations: int) -> None:
    doc = json.loads(state.to_json())
    for _ in range(mutations):
        mutate(doc, data)
    text = json.dumps(doc)
    try:
        py = GameState.from_json(text, engine="python")
    except StateFormatError as exc:
        with pytest.raises(StateFormatError) as got:
            NativeState.from_json(text)
        assert str(got.value) == str(exc)
        return
    nat = NativeState.from_json(text)
    rng = random.Random(len(text))
    for _ in range(30):
        _same(py, nat)
        if py.is_over:
            break
        action = rng.choice(py.legal_actions())
        py.apply(action)
        nat.apply(action)
    out = np.zeros(observation_size(py.num_players), dtype=np.float32)
    for seat in range(py.num_players):
        nat.encode(out, seat, True)
        np.testing.assert_array_equal(out, Observer(py.num_players, "memory").encode(py, seat))
    _check_resample(py, nat, len(text))


@given(state=states, seat=st.one_of(st.integers(), st.floats(), st.none(), st.booleans(), st.text(max_size=2)),
       size=st.integers(-1, 2000), dtype=st.sampled_from([np.float32, np.float64, np.int32]))
@JUNK
def test_encode_and_resample_refuse_junk_without_crashing(state: Any, seat, size: int, dtype) -> None:
    nat = NativeState.from_python(python_state(state))  # the fuzz suite's states are dealt on the default engine
    n = nat.num_players
    fits = isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < n
    buffer = np.full(max(size, 0), 7, dtype=dtype)
    if fits and size == observation_size(n) and dtype is np.float32:
        nat.encode(buffer, seat, False)
        np.testing.assert_array_equal(buffer, Observer(n, "original").encode(state, seat))
    else:
        with pytest.raises((ValueError, TypeError)):
            nat.encode(buffer, seat, False)
        assert (buffer == 7).all()
    if fits:
        assert nat.resample(seat, 5).to_json() == state.resample(seat, 5).to_json()
    else:
        with pytest.raises(ValueError, match="player must be a seat"):
            nat.resample(seat, 5)


def test_from_python_refuses_a_broken_state_before_it_reaches_the_engine() -> None:
    py = GameState.new(2, seed=1, engine="python")
    py.hands[0][0] = 200  # more cards than exist
    with pytest.raises(ValueError, match="not sound"):
        NativeState.from_python(py)
    py = GameState.new(2, seed=1, engine="python")
    py.nile = [99]
    with pytest.raises(ValueError, match="not sound"):
        NativeState.from_python(py)


def test_random_playouts_play_the_games_python_plays_with_the_same_choices() -> None:
    for n in (2, 3, 4):
        choices, steps = random.Random(40), 0
        for i in range(3):
            s = GameState.new(n, seed=40 + i, engine="python")
            while not s.is_over:
                s.apply(choices.choice(s.legal_actions()))  # choice draws randbelow(len), as the native loop
                steps += 1
        assert native.random_playouts(3, n, 40) == steps
    for args in ((1, 5, 0), (1, 1, 0), (-1, 2, 0)):
        with pytest.raises(ValueError):
            native.random_playouts(*args)


SCRIPTED = [  # (position, actions): the rare paths random play seldom reaches, with the event each logs
    ({"players": [{"hand": ["courtesan", "wheat-scarab", "wheat-plain", "ivory-plain"],
                   "sets": [{"goods": "amulet", "cards": ["amulet"] * 3},
                            {"goods": "ivory", "cards": ["ivory-scarab"] * 3}]}], "nile": ["fish-plain"]},
     ["character:courtesan", "goods:amulet", "card:wheat-scarab", "card:wheat-plain"],
     "power:courtesan:gave-goods"),
    ({**spec("round_end_2p"), "players": [{"hand": ["amulet"] * 3 + ["fish-scarab"] * 3}, {}]},
     ["take:0", "set:fish", "card:amulet", "card:amulet", "card:amulet", "done", "set:fish",
      *["card:fish-scarab"] * 3, "done"],
     "round:horizontal-amulets-only"),
    ({"round": 3, "players": [{"hand": ["fish-plain", "fish-plain"],
                               "sets": [{"goods": "ivory", "cards": ["ivory-scarab"] * 3}]},
                              {"sets": [{"goods": "marble", "cards": ["marble-scarab"] * 3}]}],
      "nile": ["fish-scarab"]},
     ["take:0", "set:fish", "card:fish-plain", "card:fish-plain", "card:fish-scarab", "done"],
     "round:nobody-corrupt"),
]


@pytest.mark.parametrize(("position", "actions", "event"), SCRIPTED, ids=[e for _, _, e in SCRIPTED])
def test_rare_paths_log_the_same_events_and_states(position: dict, actions: list[str], event: str) -> None:
    py = build(position)
    nat = NativeState.from_python(py)
    py.log, nat.log = [], []
    for name in actions:
        py.apply(action_id(name))
        nat.apply(action_id(name))
        _same(py, nat)
    assert event in py.log and nat.log == py.log
    assert nat.to_json() == py.to_json()


def test_encode_writes_whichever_buffer_it_is_given_each_time() -> None:
    nat = NativeState.new(3, seed=12)
    for _ in range(30):
        nat.apply(nat.legal_actions()[-1])
    first, second = (np.zeros(observation_size(3), dtype=np.float32) for _ in range(2))
    for seat, buffer in ((0, first), (1, second), (2, first), (1, first.copy()), (0, second[:])):
        nat.encode(buffer, seat, True)
        np.testing.assert_array_equal(buffer, nat.observation(seat, True))
    rows = np.zeros((3, observation_size(3)), dtype=np.float32)
    for seat in range(3):  # rows of one array, as a batched environment holds them
        nat.encode(rows[seat], seat, False)
    np.testing.assert_array_equal(rows, [Observer(3, "original").encode(nat.to_python(), seat) for seat in range(3)])


def test_a_native_state_is_not_made_empty() -> None:
    with pytest.raises(TypeError, match=r"NativeState\.new"):
        NativeState()


def test_a_documents_generator_is_kept_whole_gauss_included_and_a_missing_one_comes_from_the_seed() -> None:
    doc = json.loads(GameState.new(2, seed=30, engine="python").to_json())
    doc["rng"][2] = 0.25  # random.Random's spare normal draw: never used by the game, kept as given
    text = json.dumps(doc)
    python = GameState.from_json(text, engine="python")
    assert NativeState.from_json(text).to_json() == python.to_json() == text.replace(" ", "")
    del doc["rng"]
    text = json.dumps(doc)
    py, nat = GameState.from_json(text, engine="python"), NativeState.from_json(text)
    assert nat.to_json() == py.to_json()
    for _ in range(50):
        action = random.Random(len(py.to_json())).choice(py.legal_actions())
        py.apply(action)
        nat.apply(action)
    assert nat.to_json() == py.to_json()
