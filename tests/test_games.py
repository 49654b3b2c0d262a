"""Each game gives its own tables: sobek_env finds its game packages, each agents package registers its tables."""

from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np
import pytest

import agents
from agents.analysis.departures import phase_name
from agents.games import NONE, GameAgents, baseline, register, tables
from agents.players.features import default_features, feature_sets
from sobek_env.registry import GAMES, discover, load_game

ROOT = Path(__file__).resolve().parents[1]


def test_games_are_the_packages_with_a_versioned_module_beside_them(tmp_path: Path) -> None:
    for folder in ("chess", "go", "util"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "__init__.py").write_text("")
    for module in ("chess_v1.py", "chess_v2.py", "go_v1.py", "orphan_v1.py", "helpers.py", "go_v0.py"):
        (tmp_path / module).write_text("")
    assert discover(tmp_path, "pkg") == {"chess": ("pkg.chess", 2), "go": ("pkg.go", 1)}
    assert set(GAMES) == {"sobek", "kleopatra"} and all(load_game(name).name == name for name in GAMES)


@pytest.mark.parametrize("game", GAMES)
def test_every_game_registers_its_agents_tables(game: str) -> None:
    own = tables(game)
    info = load_game(game)
    assert own.game == game and set(own.baselines) == set(agents.players.registry.BASELINES)
    assert baseline(info, "heuristic") is own.baselines["heuristic"]
    assert own.search["mode"] == "paired" and own.timesteps and set(own.timesteps) <= set(info.player_counts)
    assert default_features(game) == own.default_features and set(feature_sets(game)) == {"raw", *own.feature_sets}
    columns = {column.total for column in info.columns} | {column.name for column in info.columns}
    assert {own.corruption_axes[1], own.penalty_rate[0]} <= columns
    with pytest.raises(TypeError):
        own.search["mode"] = "tree"  # the registered tables are read-only


@pytest.mark.parametrize("game", GAMES)
def test_every_game_gives_its_stress_profile(game: str) -> None:
    profile = load_game(game).stress_profile()
    assert profile.RELOAD_WITHIN > 0 and callable(profile.draw) and profile.RARE_PATHS
    assert isinstance(profile.SECTIONS, dict) and isinstance(profile.GAME_TAGS, tuple)


def test_a_game_without_an_agents_package_has_no_baselines(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("agents.games._REGISTERED", {})
    monkeypatch.setattr("agents.games._discover", lambda: None)
    assert tables("sobek") is NONE and feature_sets("sobek") == ("raw",) and default_features("sobek") == "raw"
    with pytest.raises(ValueError, match="Sobek has no baseline agents yet; use random or ppo:PATH"):
        agents.make("heuristic")


def test_registration_refuses_bad_tables() -> None:
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        register(GameAgents(game="chess", baselines={}))
    with pytest.raises(ValueError, match="default_features 'advise' is not one of its feature_sets"):
        GameAgents(game="sobek", baselines={}, default_features="advise")
    with pytest.raises(ValueError, match="registered twice"):
        register(GameAgents(game="sobek", baselines={}))
    with pytest.raises(ValueError, match="Sobek has no baseline 'expert'; its baselines are greedy, heuristic"):
        baseline("sobek", "expert")


def test_no_module_finds_a_game_by_formatting_its_name() -> None:
    """A game's parts are reached through its game object or its registration, never by a module name built
    from the game's name (setup.py, which lists the compiled extensions, aside)."""
    pattern = re.compile(r"""f["'](?:agents|sobek_env)\.\{|import_module\(f["']""")
    sources = [p for package in ("agents", "sobek_env") for p in (ROOT / package).rglob("*.py")]
    found = [f"{p.relative_to(ROOT)}:{n}" for p in sources for n, line in enumerate(p.read_text().splitlines(), 1)
             if pattern.search(line)]
    assert not found, f"module names built from a game's name: {', '.join(found)}"


def test_the_games_are_listed_in_the_order_they_joined(tmp_path) -> None:
    """GAMES follows each versioned module's JOINED (read without importing it), by name where one has none."""
    assert GAMES == ("sobek", "kleopatra")
    for name, joined in (("zeta", "JOINED = 1\n"), ("alpha", "JOINED = 2\n"), ("beta", "")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text("")
        (tmp_path / f"{name}_v1.py").write_text("raise ImportError('never imported')\n" + joined)
    assert list(discover(tmp_path, "fake")) == ["zeta", "alpha", "beta"]


@pytest.mark.parametrize("game", GAMES)
def test_a_python_state_is_written_read_and_resampled_through_its_game(game: str) -> None:
    """The engine choice and the document and resampling plumbing are written once (Game, PhasedState): a game
    names its state class and its modules; a state finds its game object by its registry name."""
    info = load_game(game)
    state_class = info.state_class
    assert not {"to_json", "from_json", "resample", "__eq__", "clone", "emit"} & set(vars(state_class))
    assert not {"new", "from_json"} & set(vars(type(info)))
    assert state_class._game() is info
    s = info.new(info.min_players, seed=11, engine="python")
    back = state_class.from_json(s.to_json(), engine="python")
    assert type(back) is state_class and back == s and back is not s
    assert back.to_json() == info.documents.dump(s)
    s.log = []
    copy = s.clone()
    assert type(copy) is state_class and copy == s and copy.log is None
    copy.apply(copy.legal_actions()[0])
    assert copy != s and s == back and s.log == []  # the copy is independent, its log not carried over
    assert s.resample(s.current_player, random.Random(5)) == info.resampler.resample(s, s.current_player,
                                                                                    random.Random(5))


@pytest.mark.parametrize("game", GAMES)
def test_each_observer_is_a_buffer_observer_that_pickles_as_its_parameters(game: str) -> None:
    """The buffer, its views, the engine dispatch and the pickling are BufferObserver's, written once."""
    import pickle

    from sobek_env.game import BufferObserver

    info = load_game(game)
    observer = info.observer(info.min_players, "memory")
    assert isinstance(observer, BufferObserver)
    assert not {"encode", "__reduce__"} & set(vars(type(observer)))
    again = pickle.loads(pickle.dumps(observer))
    assert type(again) is type(observer) and (again.num_players, again.mode) == (info.min_players, "memory")
    s = info.new(info.min_players, seed=8, engine="python")
    assert (again.encode(s, 1) == observer.encode_python(s, 1)).all()
    assert observer.views and all(view.base is observer.buffer for view in observer.views.values())
    with pytest.raises(ValueError, match="observation_mode must be one of original, memory, got 'full'"):
        type(observer)(info.min_players, "full")


@pytest.mark.parametrize("game", GAMES)
def test_an_observations_phase_names_its_states_pending_phase(game: str) -> None:
    info = load_game(game)
    rng = random.Random(5)
    seen: set[str] = set()
    for players in info.player_counts:
        state = info.new(players, seed=players)
        observer = info.observer(players)
        rows, names = [], []
        while not state.is_over:
            rows.append(observer.encode(state, state.current_player).copy())
            names.append(phase_name(state))
            state.apply(rng.choice(state.legal_actions()))
        phases = info.observation_phases(np.array(rows), players)
        assert [info.phase_names[i] for i in phases] == names
        seen.update(names)
    assert len(seen) > len(info.phase_names) // 2  # random games reach most of the phases
