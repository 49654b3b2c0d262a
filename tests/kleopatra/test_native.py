"""The native engine (``sobek_env/kleopatra/_native.pyx`` over ``native/engine.hpp``) against the Python engine,
the reference: random games over every player count and random rules options, both engines stepped side by side
with the same actions, must agree after every action on the legal actions, the document (the generator's state
included), every seat's observation in both modes, the state vector, the scores, the winners and the event log;
documents hop between the engines mid-game; resample gives the same state and advances the caller's generator
alike; bad input gets the Python engine's errors and changes nothing, and no input crashes the interpreter.
``SOBEK_LONG=1`` plays many more (and only full-length) games."""

from __future__ import annotations

import contextlib
import json
import os
import random
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sobek_env
from sobek_env.compiled import extension
from sobek_env.kleopatra import GameState, IllegalActionError, StateFormatError
from sobek_env.kleopatra.catalogue import KINDS
from sobek_env.kleopatra.jsonstate import to_document
from sobek_env.kleopatra.observation import Observer, observation_size, state_vector
from sobek_env.kleopatra.stress import PROFILES, VARIED_OPTIONS, Policy

from .test_fuzz import json_values, mutate, played

LONG = os.environ.get("SOBEK_LONG") == "1"
PURE = os.environ.get("SOBEK_PURE_PYTHON", "") not in ("", "0")
N = extension("._native", "sobek_env.kleopatra")
pytestmark = pytest.mark.skipif(N is None and PURE, reason="SOBEK_PURE_PYTHON=1 turns the native engine off")

MODES = ("original", "memory")
# more option sets than the stress run's, so every option meets the native engine often
OPTIONS = (
    *VARIED_OPTIONS,
    {"mosaic_reflections": True, "priest_faces": 2, "sanctuary_max_squares": 12},
    {"card_counts": {"artisan": 3, "stone": 2, "marble": 2, "wood": 1, "lapis": 1, "vizier": 4, "envoy": 5},
     "hand_limit": 3},
    {"garden": {"size": 6, "palms": [0, 5, 13, 18, 27, 42], "wall_slots": [[0], [8], [16], [40, 41], [42], [43],
                                                                         [45], [37], [29]]}},
    {"tiles": {"I": [[0, 0], [1, 0], [2, 0]], "X": [[0, 0], [0, 1]]}, "priest_faces": 6},
    {"crocodile_margin": 1, "tainted_amulets": 0, "ceremony_table": [0, 0, 0, 0, 0]},
)


def test_the_native_engine_is_built() -> None:
    """Every install with a compiler builds it (setup.py); only SOBEK_PURE_PYTHON=1 turns it off."""
    assert N is not None, "sobek_env.kleopatra._native is not built: run `python setup.py build_ext --inplace`"


def draw_options(rng: random.Random, short: bool) -> dict[str, Any]:
    options: dict[str, Any] = {} if rng.random() < 0.35 else dict(rng.choice(OPTIONS))
    if short and "max_turns" not in options:
        options["max_turns"] = rng.randint(6, 30)  # short games, so the default run plays hundreds
    return options


def differences(native: Any, python: GameState) -> str:
    a, b = native.document(), to_document(python)
    return "; ".join(f"{k}: native {str(a[k])[:200]} python {str(b.get(k))[:200]}" for k in a if a[k] != b.get(k))


def assert_same(native: Any, python: GameState, observers: dict[str, Observer], buffer: np.ndarray,
                where: str) -> None:
    """Everything a caller can read of the two states is equal."""
    assert native.legal_actions() == python.legal_actions(), where
    if native.document() != to_document(python):
        raise AssertionError(f"{where}: {differences(native, python)}")
    assert native.scores == python.scores and native.winners == python.winners, where
    assert native.is_over == python.is_over and native.current_player == python.current_player, where
    assert native.eliminated == python.eliminated and native.phase is python.phase, where
    for mode, observer in observers.items():
        for seat in range(python.num_players):
            native.encode(buffer, seat, mode == "memory")
            want = observer.encode(python, seat)
            if not np.array_equal(buffer, want):
                at = np.nonzero(buffer != want)[0][:8].tolist()
                raise AssertionError(f"{where}: seat {seat} {mode}: entries {at} differ")


def play_both(seed: int, n: int, options: dict[str, Any]) -> int:
    """One game on both engines with the stress run's weighted policies; every check after every action; a
    hop through the document in each direction and a resample at random steps. The steps played."""
    rng = random.Random(f"native-differential:{seed}")
    python, native = GameState.new(n, seed=seed, **options, engine="python"), N.new(n, seed=seed, **options)
    python.log, native.log = [], []
    policies = [Policy(PROFILES[rng.choice(sorted(PROFILES))]) for _ in range(n)]
    observers = {mode: Observer(n, mode) for mode in MODES}
    buffer = np.zeros(observation_size(n), dtype=np.float32)
    assert native.to_json() == python.to_json()
    assert_same(native, python, observers, buffer, f"seed {seed} deal")
    steps = 0
    while not python.is_over:
        legal = python.legal_actions()
        action = rng.choices(legal, policies[python.current_player].weights(python, legal))[0]
        python.apply(action)
        native.apply(action)
        steps += 1
        where = f"seed {seed} {n} players {options} step {steps} ({action})"
        assert_same(native, python, observers, buffer, where)
        assert native.log == python.log, where
        if rng.random() < 0.03:
            assert native.to_json() == python.to_json(), where
            assert np.array_equal(native.state_vector(), state_vector(python)), where
        if rng.random() < 0.01 and not python.is_over:  # hops: each engine continues the other's document
            events = native.log
            native = N.from_json(python.to_json())
            native.log = events
        if rng.random() < 0.01 and not python.is_over:
            events = python.log
            python = GameState.from_json(native.to_json(), engine="python")
            python.log = events
        if rng.random() < 0.01:
            seat, key = rng.randrange(n), rng.randrange(2**32)
            mine, theirs = random.Random(key), random.Random(key)
            assert native.resample(seat, mine).to_json() == python.resample(seat, theirs).to_json(), where
            assert mine.getstate() == theirs.getstate(), where
    assert native.to_json() == python.to_json()
    return steps


SHORT_GAMES = 0 if LONG else 30  # per player count: over a hundred games in all with FULL_GAMES


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_short_random_games_agree_after_every_action(n: int) -> None:
    rng = random.Random(n)
    for game in range(SHORT_GAMES):
        play_both(1000 * n + game, n, draw_options(rng, short=True))


FULL_GAMES = 60 if LONG else 2


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_whole_random_games_agree_after_every_action(n: int) -> None:
    rng = random.Random(100 + n)
    for game in range(FULL_GAMES):
        steps = play_both(50_000 + 1000 * n + game, n, draw_options(rng, short=False))
        assert steps > 50


def test_the_largest_catalogue_fits() -> None:
    """Every kind at its ceiling (catalogue.MAX_CARDS_OF_A_KIND): the native piles hold all 3,400 cards."""
    counts = {kind: 200 for kind in KINDS}
    for n in (2, 5):
        play_both(7 + n, n, {"card_counts": counts, "hand_limit": 200, "max_turns": 8})


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_the_deal_is_the_python_deal(n: int) -> None:
    for seed in (0, 1, 2**63 - 1, 2**64, 2**70 + 3):
        assert N.new(n, seed=seed).to_json() == GameState.new(n, seed=seed, engine="python").to_json()
    s = N.new(n)  # seed None: drawn, recorded, and replayable
    assert isinstance(s.seed, int)
    assert N.new(n, seed=s.seed).to_json() == GameState.new(n, seed=s.seed, engine="python").to_json()
    assert N.new(n, seed=5).engine == "native"


def test_bad_new_arguments_get_the_python_errors() -> None:
    for args, kwargs in (((1,), {}), ((3,), {"seed": -1}), ((3,), {"seed": 1.5}), ((3,), {"seed": True}),
                         ((3,), {"hand_limit": -2}), ((3,), {"bogus": 1}), ((3,), {"tiles": {"I": [[0, 0], [5, 5]]}})):
        with pytest.raises(ValueError) as python:
            GameState.new(*args, **kwargs, engine="python")
        with pytest.raises(ValueError) as native:
            N.new(*args, **kwargs)
        assert str(native.value) == str(python.value)


def midgame(n: int, seed: int, steps: int) -> GameState:
    s = GameState.new(n, seed=seed, engine="python")
    rng = random.Random(seed)
    for _ in range(steps):
        if s.is_over:
            break
        s.apply(rng.choice(s.legal_actions()))
    return s


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_resample_equals_the_python_resample_for_every_generator(n: int) -> None:
    for seed in range(6):
        python = midgame(n, seed, 40 + 170 * seed)
        native = N.from_json(python.to_json())
        for seat in range(n):
            mine, theirs = random.Random(seed), random.Random(seed)
            got = native.resample(seat, mine)
            assert got.to_json() == python.resample(seat, theirs).to_json()
            assert mine.getstate() == theirs.getstate() and mine.random() == theirs.random()
            assert got.engine == "native"
            assert got.legal_actions() == GameState.from_json(got.to_json(), engine="python").legal_actions()
            generator = np.random.default_rng(seed)
            assert (native.resample(seat, generator).to_json()
                    == python.resample(seat, np.random.default_rng(seed)).to_json())
            assert native.resample(seat, 12).to_json() == python.resample(seat, 12).to_json()


def test_resample_redraws_inconsistent_deals_as_python_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """Deals that break what everybody saw (an unaffordable quarry visit, a Beggar's victim with nothing to give)
    are drawn again: the native engine rejects the same deals, so it draws the same next ones."""
    from sobek_env.kleopatra import resample as reference

    deals = []
    real_deal = reference._deal
    monkeypatch.setattr(reference, "_deal", lambda *args: deals.append(1) or real_deal(*args))
    found, game = 0, 0
    while found < 6:
        rng = random.Random(game)
        python = GameState.new(2 + game % 4, seed=game, engine="python")
        while not python.is_over and found < 6:
            if python.phase.name in ("quarry", "beggar", "ceremony", "vizier", "courtesan", "scribe_die"):
                seat, key = rng.randrange(python.num_players), rng.randrange(2**32)
                deals.clear()
                want = python.resample(seat, random.Random(key)).to_json()
                if len(deals) > 1:
                    found += 1
                    mine = random.Random(key)
                    assert N.from_json(python.to_json()).resample(seat, mine).to_json() == want
                    theirs = random.Random(key)
                    python.resample(seat, theirs)
                    assert mine.getstate() == theirs.getstate()
            python.apply(rng.choice(python.legal_actions()))
        game += 1


def test_resample_refuses_what_python_refuses() -> None:
    python = midgame(3, 1, 100)
    native = N.from_json(python.to_json())
    for player, rng in ((3, 1), (-1, 1), (True, 1), ("0", 1), (0, "seed"), (0, -5), (0, 1.5)):
        with pytest.raises((ValueError, TypeError)) as want:
            python.resample(player, rng)
        with pytest.raises(want.type) as got:
            native.resample(player, rng)
        assert str(got.value) == str(want.value)


def test_a_clone_is_independent() -> None:
    native = N.from_json(midgame(4, 3, 300).to_json())
    before = native.to_json()
    twin = native.clone()
    assert twin.to_json() == before
    rng = random.Random(0)
    for _ in range(200):
        if twin.is_over:
            break
        twin.apply(rng.choice(twin.legal_actions()))
    assert native.to_json() == before and twin.to_json() != before
    native.log = []
    assert native.clone().log is None  # the log is not carried over, as in the Python engine


def test_to_python_is_the_equal_python_state() -> None:
    python = midgame(5, 8, 700)
    native = N.from_python(python)
    assert native.to_python() == python and native == python
    assert native.to_python().rng.getstate() == python.rng.getstate()


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_the_observation_layout_is_the_python_one(n: int) -> None:
    native = N.new(n, seed=3)
    assert native.observe(0).shape == (observation_size(n),)
    with pytest.raises(ValueError, match="entries"):
        native.encode(np.zeros(observation_size(n) + 1, dtype=np.float32), 0, False)
    for seat in (-1, n, True, 1.0, "0", None):
        with pytest.raises(ValueError, match="seat"):
            native.encode(np.zeros(observation_size(n), dtype=np.float32), seat, False)
    size = observation_size(n)
    for buffer in (np.zeros(size, dtype=np.float64), np.float32(0), None, "x" * size,
                   np.zeros(size, dtype=np.float32)[::-1], np.zeros((2, size), dtype=np.float32)):
        with pytest.raises(ValueError, match="encode needs a writable, contiguous float32 vector"):
            native.encode(buffer, 0, False)


# ---------------------------------------------------------------------- bad input


BAD_ACTIONS = [True, False, 1.0, 2.5, float("nan"), float("inf"), "3", "quarry", None, b"\x00", [3], (3,), {3: 3},
               np.array([3]), np.array(3), np.float32(3), np.bool_(True), 2**70, -(2**70), -1, 144, 10**30,
               np.int64(2**62), np.uint64(2**64 - 1), object()]


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_bad_actions_get_the_python_error_and_change_nothing(n: int) -> None:
    python = midgame(n, n, 250)
    native = N.from_json(python.to_json())
    legal = python.legal_actions()
    illegal = [a for a in range(144) if a not in legal]
    for action in [*BAD_ACTIONS, *illegal, np.int8(illegal[0]), np.uint16(illegal[-1])]:
        with pytest.raises(IllegalActionError) as want:
            python.apply(action)
        before = native.to_json()
        with pytest.raises(IllegalActionError) as got:
            native.apply(action)
        assert str(got.value) == str(want.value)
        assert native.to_json() == before
    native.apply(np.int64(legal[0]))  # numpy integers are integers
    python.apply(legal[0])
    assert native.to_json() == python.to_json()


def test_a_finished_game_refuses_every_action() -> None:
    python = midgame(3, 4, 100_000)
    native = N.from_json(python.to_json())
    assert native.is_over and native.legal_actions() == []
    for action in (0, 3, 132, 200):
        with pytest.raises(IllegalActionError) as want:
            python.apply(action)
        with pytest.raises(IllegalActionError) as got:
            native.apply(action)
        assert str(got.value) == str(want.value)


def test_from_python_refuses_an_unsound_state() -> None:
    python = midgame(3, 2, 60)
    python.hands[0][0] = -5
    with pytest.raises(ValueError, match="not a sound Kleopatra state"):
        N.from_python(python)
    with pytest.raises(TypeError, match="GameState"):
        N.from_python({"format": "kleopatra-state/1"})


def examples(short: int) -> settings:
    return settings(max_examples=short * 40 if LONG else short, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])


states = st.builds(played, st.integers(2, 5), st.integers(0, 2**32), st.integers(0, 700),
                   st.sampled_from(sorted(PROFILES)))
junk = (st.integers() | st.integers(-(2**80), 2**80) | st.floats() | st.text(max_size=5) | st.none() | st.booleans()
        | st.binary(max_size=4) | st.lists(st.integers(0, 143), max_size=3)
        | st.builds(np.array, st.lists(st.integers(0, 143), max_size=3))
        | st.builds(np.int64, st.integers(-(2**63), 2**63 - 1)) | st.builds(np.float64, st.floats()))


@given(states, st.lists(junk, min_size=1, max_size=8))
@examples(60)
def test_junk_actions_never_crash_and_match_python(s: GameState, actions: list[Any]) -> None:
    native = N.from_json(s.to_json())
    for action in actions:
        try:
            s.apply(action)
        except IllegalActionError as want:
            before = native.to_json()
            with pytest.raises(IllegalActionError) as got:
                native.apply(action)
            assert str(got.value) == str(want) and native.to_json() == before
        else:
            native.apply(action)
        assert native.to_json() == s.to_json()


@given(states, junk, junk, junk)
@examples(60)
def test_junk_arguments_to_the_other_methods_raise_and_change_nothing(s: GameState, seat: Any, flag: Any,
                                                                      rng: Any) -> None:
    native = N.from_json(s.to_json())
    before = native.to_json()
    buffer = np.zeros(observation_size(s.num_players), dtype=np.float32)
    for call in (lambda: native.encode(buffer, seat, flag), lambda: native.encode(seat, 0, False),
                 lambda: native.observe(seat), lambda: native.resample(seat, rng), lambda: native.resample(0, rng),
                 lambda: setattr(native, "log", seat)):
        with contextlib.suppress(TypeError, ValueError):  # refused with an error: fine, and nothing changed
            call()
    assert native.to_json() == before


def load_both(text: str) -> tuple[Any, Any]:
    """Both engines' reading of a document: the two states, or the two errors."""
    try:
        python = GameState.from_json(text, engine="python")
    except StateFormatError as exc:
        python = exc
    try:
        native = N.from_json(text)
    except StateFormatError as exc:
        native = exc
    return python, native


@given(states, st.data())
@examples(80)
def test_mutated_documents_load_alike_and_play_alike(s: GameState, data: st.DataObject) -> None:
    doc = json.loads(s.to_json())
    for _ in range(data.draw(st.integers(1, 3))):
        mutate(doc, data)
    python, native = load_both(json.dumps(doc))
    if isinstance(python, StateFormatError):
        assert isinstance(native, StateFormatError) and str(native) == str(python)
        return
    rng = random.Random(len(doc))
    observer = Observer(python.num_players, "memory")
    for _ in range(60):  # an accepted document plays on alike
        assert native.to_json() == python.to_json() and native.legal_actions() == python.legal_actions()
        if python.is_over:
            break
        action = rng.choice(python.legal_actions())
        python.apply(action)
        native.apply(action)
        for seat in range(python.num_players):
            assert np.array_equal(native.observe(seat, True), observer.encode(python, seat))


@given(json_values | st.text(max_size=60) | st.binary(max_size=60))
@examples(60)
def test_junk_documents_get_the_python_error(value: Any) -> None:
    text = value if isinstance(value, (str, bytes)) else json.dumps(value)
    python, native = load_both(text)
    assert isinstance(python, StateFormatError) and isinstance(native, StateFormatError)
    assert str(native) == str(python)


def test_states_pickle_and_share_one_copy_of_their_rules() -> None:
    """An unpickled Python state carries a new Rules object with the same parameters: the native engine keeps one
    C++ copy of them (a copy per object would grow without bound in workers that receive pickled states)."""
    import pickle

    python = midgame(3, 5, 200)
    first = N.from_python(python)
    kept = len(N._RULES)
    for _ in range(4):
        again = N.from_python(pickle.loads(pickle.dumps(python)))
        assert again == first
    assert len(N._RULES) == kept
    native = N.new(3, seed=9, priest_faces=2)
    assert pickle.loads(pickle.dumps(native)).to_json() == native.to_json()


def test_encode_into_nothing_is_refused_before_any_buffer_was_given() -> None:
    """A fresh state holds no buffer yet: None must not pass for the last one (it crashed on a missing view)."""
    s = sobek_env.load_game("kleopatra").new(3, seed=0, engine="native")
    with pytest.raises(ValueError, match="float32 vector"):
        s.encode(None, 0, False)
