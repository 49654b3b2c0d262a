"""Observations (rules §12, §15): the layout, the bounds, decoding, the compiled twin, and that nothing a
seat may not see moves its observation."""

from __future__ import annotations

import os
import random

import numpy as np
import pytest

from sobek_env.kleopatra import GAME, GameState, describe_layout, observation_layout
from sobek_env.kleopatra import observation as O
from sobek_env.kleopatra.view import View, view

from .policies import Player
from .scenario import act, build

LONG = os.environ.get("SOBEK_LONG") == "1"
MODES = ("original", "memory")


def states(n: int, seed: int, every: int = 1):
    """Every ``every``-th state of a game of mixed play, the last one included."""
    s = GameState.new(n, seed=seed, engine="python")
    player = Player(["builder", "characters", "uniform", "hoarder", "characters"], seed)
    step = 0
    while not s.is_over:
        if step % every == 0:
            yield s
        s.apply(player.pick(s))
        step += 1
    yield s


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_layout_names_sizes_and_the_game_object_agree(n: int) -> None:
    layout = observation_layout(n)
    described = describe_layout(n)
    assert [name for name, _, _ in described] == list(layout)
    assert GAME.observation_size(n) == O.observation_size(n) == layout["last_places"].stop
    assert all(meaning for _, _, meaning in described)
    assert GAME.observer(n).encode(GameState.new(n, seed=0, engine="python"), 0).shape == (O.observation_size(n),)
    assert len(GAME.state_vector(GameState.new(n, seed=0, engine="python"))) == GAME.state_size(n)


@pytest.mark.parametrize("n", [2, 3, 5])
def test_every_observation_lies_in_its_bounds_and_decodes_to_its_view(n: int) -> None:
    low, high = O.observation_bounds(n)
    for mode in MODES:
        observer = O.Observer(n, mode)
        for s in states(n, seed=n, every=7):
            for seat in range(n):
                vector = observer.encode_python(s, seat)
                assert vector.dtype == np.float32
                assert (vector >= low).all() and (vector <= high).all()
                assert O.decode_vector(vector, n, s.rules.max_turns) == view(s, seat, mode)
    table = GAME.table(n)
    decoded = GAME.decode({"observation": O.Observer(n).encode(GameState.new(n, seed=1, engine="python"), 0)}, table)
    assert isinstance(decoded, View) and decoded.num_players == n


def compiled_seats():
    """(observer, state, seat, seed, mode) over games of every table and mode, for the compiled twins' tests (which
    fail when the extension was not built, unless SOBEK_PURE_PYTHON asks for the Python paths)."""
    if not O.COMPILED:
        if os.environ.get("SOBEK_PURE_PYTHON", "") not in ("", "0"):
            pytest.skip("SOBEK_PURE_PYTHON forces the Python encoder and decoder")
        pytest.fail("the compiled encoder and decoder sobek_env.kleopatra._observe were not built; reinstall "
                    "with `pip install -e .` on a machine with Cython and a C compiler")
    for n in (2, 3, 4, 5):
        for mode in MODES:
            observer = O.Observer(n, mode)
            for seed in range(3 if LONG else 1):
                for s in states(n, seed, every=1 if LONG else 3):
                    for seat in range(n):
                        yield observer, s, seat, seed, mode


def test_the_compiled_encoder_writes_the_reference_vector() -> None:
    for observer, s, seat, seed, mode in compiled_seats():
        n = s.num_players
        want = observer.encode_python(s, seat).copy()
        got = observer.encode(s, seat).copy()
        if not np.array_equal(want, got):
            bad = {name for i in np.flatnonzero(want != got)
                   for name, sl in observation_layout(n).items() if sl.start <= i < sl.stop}
            pytest.fail(f"{n}p {mode} seed {seed} seat {seat} at {s.phase.name}: {sorted(bad)}")


def test_the_compiled_decoder_reads_the_reference_view() -> None:
    for observer, s, seat, seed, mode in compiled_seats():
        n = s.num_players
        vector = observer.encode(s, seat).copy()
        want = O.decode_python(vector, n, s.rules.max_turns)
        got = O.decode_vector(vector, n, s.rules.max_turns)
        # repr tells an int from a bool, which == does not
        if got != want or repr(got) != repr(want) or vars(got).keys() != vars(want).keys():
            bad = sorted(k for k in vars(want) if repr(vars(got).get(k)) != repr(vars(want)[k]))
            pytest.fail(f"{n}p {mode} seed {seed} seat {seat} at {s.phase.name}: {bad}")


@pytest.mark.parametrize("odd", [float("nan"), float("inf"), 3e9, -3e9])
def test_a_vector_the_compiled_decoder_cannot_hold_is_read_as_the_reference_reads_it(odd: float) -> None:
    vector = O.Observer(3).encode(GameState.new(3, seed=0, engine="python"), 0).copy()
    vector[observation_layout(3)["hand"].start] = odd
    try:
        want = O.decode_python(vector, 3, 400)
    except (ValueError, OverflowError) as error:
        with pytest.raises(type(error)):
            O.decode_vector(vector, 3, 400)
    else:
        assert repr(O.decode_vector(vector, 3, 400)) == repr(want)
    with pytest.raises(ValueError, match="has 949 entries"):
        O.decode_vector(vector[:-1], 3, 400)


def test_a_reloaded_state_with_a_different_garden_is_not_drawn_from_the_cache() -> None:
    observer = O.Observer(3)
    s = GameState.new(3, seed=0, engine="python")
    for t in states(3, 0):
        if t.mosaics:
            break
    first = observer.encode(s, 0).copy()
    observer.encode(t, 0)
    again = observer.encode(GameState.from_json(s.to_json(), engine="python"), 0)
    assert np.array_equal(first, again)


def test_resampling_what_a_seat_cannot_see_leaves_its_observation_and_mask_unchanged() -> None:
    rng = random.Random(5)
    for n in (2, 3, 4, 5):
        observers = {mode: O.Observer(n, mode) for mode in MODES}
        for s in states(n, seed=10 + n, every=11):
            seat = rng.randrange(n)
            other = s.resample(seat, random.Random(rng.random()))
            for mode, observer in observers.items():
                assert np.array_equal(observer.encode_python(s, seat), observer.encode_python(other, seat)), mode
            if seat == s.current_player:
                assert other.legal_actions() == s.legal_actions()


def test_original_mode_hides_opponents_talents_and_amulets_memory_mode_shows_them() -> None:
    s = build({"players": [{"talents": 9, "amulets": 4}, {"talents": 17, "amulets": 6}, {}]})
    assert view(s, 0).talents == [9, 0, 0] and view(s, 0).amulets == [4, 0, 0]
    assert view(s, 0, "memory").talents == [9, 17, 5] and view(s, 0, "memory").amulets == [4, 6, 0]
    assert view(s, 1).talents == [17, 0, 0]


def test_private_sub_decisions_show_only_to_the_acting_player() -> None:
    deck = [{"kind": "beggar", "up": False}, {"kind": "stone", "up": False}]
    s = act(build({"players": [{"hand": ["vizier"]}], "deck": deck, "rest": "hand:1"}), "character:vizier")
    assert sum(view(s, 0).vizier_drawn) == 2 and sum(view(s, 1).vizier_drawn) == 0
    assert view(s, 1).vizier_kept == 0
    s = act(build({"players": [{"hand": ["courtesan"]}], "discard": ["stone"], "rest": "hand:1"}),
            "character:courtesan")
    assert view(s, 0).courtesan_discard[1] == 1 and not any(view(s, 1).courtesan_discard)


def test_the_stack_order_is_seen_only_with_a_scribe() -> None:
    hand = ["artisan", "artisan", "stone", "marble", "lapis", "scribe"]
    s = act(build({"rules": {"priest_faces": 0}, "players": [{"hand": hand}]}),
            "quarry", *[f"card:{k}" for k in hand[:5]], "mosaic", "tile:Z")
    assert sorted(view(s, 0).stack_order) == list(range(12)) and view(s, 1).stack_order.count(0) == 11
    act(s, "orient:0", "square:27", "done")
    assert sorted(view(s, 0, "memory").stack_order) == list(range(12))
    assert view(s, 0).stack_order.count(0) == 11  # original mode: only what is on view now


def test_a_finished_game_reveals_every_pyramid() -> None:
    *_, s = states(3, seed=4)
    assert s.is_over
    v = view(s, 1)
    assert v.amulets == [s.amulets[(1 + i) % 3] for i in range(3)] and any(v.winners)
