"""Choosing an engine (INTERFACE.md, "Engines"): every game offers its native engine beside the Python one,
both play the same games, and the layers above take a state of either."""

from __future__ import annotations

import random
import subprocess
import sys

import numpy as np
import pytest

import sobek_env
from sobek_env.game import python_state


@pytest.mark.parametrize("game", sobek_env.GAMES)
def test_every_game_has_both_engines_here(game: str) -> None:
    g = sobek_env.load_game(game)
    assert g.engines == ("native", "python"), "the native engine was not built: pip install -e . builds it"
    assert g.new(seed=1, engine="native").engine == "native"
    assert g.new(seed=1, engine="python").engine == "python"
    assert g.new(seed=1).engine == g.default_engine()


@pytest.mark.parametrize("game", sobek_env.GAMES)
def test_the_layers_above_read_either_engine_alike(game: str) -> None:
    g = sobek_env.load_game(game)
    n = g.default_players
    states = {e: g.new(n, seed=5, engine=e) for e in g.engines}
    observers = {mode: g.observer(n, mode) for mode in g.observation_modes}
    chooser = random.Random(5)
    step = 0
    while not states["python"].is_over:
        docs = {e: s.to_json() for e, s in states.items()}
        assert docs["native"] == docs["python"]
        if step % 25 == 0:
            for observer in observers.values():
                for seat in range(n):
                    native = observer.encode(states["native"], seat).copy()
                    np.testing.assert_array_equal(native, observer.encode(states["python"], seat))
            np.testing.assert_array_equal(g.state_vector(states["native"]), g.state_vector(states["python"]))
            assert g.render_text(states["native"]) == g.render_text(states["python"])
            assert g.progress(states["native"]) == g.progress(states["python"])
            assert g.outlook(states["native"]) == g.outlook(states["python"])
            g.check_play(states["native"])
        action = chooser.choice(states["python"].legal_actions())
        for s in states.values():
            s.apply(action)
        step += 1
    assert states["native"].is_over
    assert g.statistics(states["native"]) == g.statistics(states["python"])
    assert g.margins(states["native"]) == g.margins(states["python"])
    assert python_state(states["native"]).to_json() == states["python"].to_json()


@pytest.mark.parametrize("game", sobek_env.GAMES)
def test_a_document_moves_between_engines(game: str) -> None:
    g = sobek_env.load_game(game)
    s = g.new(seed=2, engine="python")
    chooser = random.Random(2)
    for _ in range(30):
        s.apply(chooser.choice(s.legal_actions()))
    native = g.from_json(s.to_json(), engine="native")
    assert native.engine == "native" and native.to_json() == s.to_json()
    assert g.from_json(native.to_json(), engine="python").to_json() == s.to_json()


@pytest.mark.parametrize("bad", ["c++", "", 1, "Native"])
def test_an_unknown_engine_is_refused_by_name(bad: object) -> None:
    with pytest.raises(ValueError, match="engine must be one of native, python"):
        sobek_env.load_game("sobek").new(2, seed=0, engine=bad)


def test_pure_python_turns_the_native_engines_off_and_says_so() -> None:
    code = ("import sobek_env\n"
            "g = sobek_env.load_game('kleopatra')\n"
            "print(g.engines)\n"
            "try:\n    g.new(3, seed=0, engine='native')\nexcept ValueError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"SOBEK_PURE_PYTHON": "1", "PATH": ""}).stdout.splitlines()
    assert out == ["('python',)", "Kleopatra and the Society of Architects cannot be played on the native engine: "
                                  "SOBEK_PURE_PYTHON is set"]


def test_sobek_engine_chooses_the_default() -> None:
    code = "import sobek_env\nprint(sobek_env.load_game('sobek').new(2, seed=0).engine)\n"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"SOBEK_ENGINE": "native", "PATH": ""})
    assert run.stdout.strip() == "native"


def _engines_in_a_fresh_process(env: dict[str, str]) -> list[str]:
    code = ("import sobek_env\n"
            "from sobek_env import GameState\n"
            "from sobek_env.kleopatra import GameState as KleopatraState\n"
            "for g in sobek_env.GAMES:\n    print(sobek_env.load_game(g).new(seed=0).engine)\n"
            "print(GameState.new(2, seed=0).engine, GameState.from_json(GameState.new(2, seed=0).to_json()).engine)\n"
            "print(KleopatraState.new(3, seed=0).engine)\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PATH": "", **env})
    return run.stdout.splitlines()


def test_the_native_engine_is_the_default_where_it_was_built() -> None:
    assert _engines_in_a_fresh_process({}) == ["native", "native", "native native", "native"]
    python = ["python", "python", "python python", "python"]
    assert _engines_in_a_fresh_process({"SOBEK_PURE_PYTHON": "1"}) == python
    assert _engines_in_a_fresh_process({"SOBEK_ENGINE": "python"}) == python


@pytest.mark.parametrize("game", sobek_env.GAMES)
def test_game_state_new_and_from_json_take_an_engine(game: str) -> None:
    module = sobek_env.load_game(game).native_engine()
    state_class = sys.modules[f"sobek_env.{game}"].GameState
    python = state_class.new(3, seed=4, engine="python")
    assert type(python) is state_class
    native = state_class.new(3, seed=4, engine="native")
    assert type(native) is module.NativeState and native.to_json() == python.to_json()
    assert type(state_class.from_json(python.to_json(), engine="python")) is state_class
    assert state_class.from_json(python.to_json(), engine="native").to_json() == python.to_json()
    with pytest.raises(ValueError, match="engine must be one of native, python"):
        state_class.new(3, seed=4, engine="c++")


def test_a_bad_sobek_engine_variable_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOBEK_ENGINE", "fast")
    with pytest.raises(ValueError, match="SOBEK_ENGINE must be one of native, python \\(or unset\\), got 'fast'"):
        sobek_env.load_game("sobek").new(2, seed=0)
