"""Both games as OpenSpiel games (sobek_env.openspiel): OpenSpiel's own checks and bots run on them.

SOBEK_LONG=1 also runs the random simulation test on Kleopatra's full rules (long games) and more games.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")  # the openspiel extra (in dev: make test runs these)

from open_spiel.python.algorithms import evaluate_bots, mcts  # noqa: E402
from open_spiel.python.observation import make_observation  # noqa: E402

import sobek_env  # noqa: E402
from sobek_env import openspiel  # noqa: E402

LONG = os.environ.get("SOBEK_LONG") == "1"
NAMES = ("python_sobek", "python_kleopatra")
# Kleopatra's games run to hundreds of turns; a short one (rules option max_turns) keeps the suite quick
SHORT = {"python_sobek": {}, "python_kleopatra": {"max_turns": "12"}}


def engine_game(name: str) -> sobek_env.Game:
    return sobek_env.load_game(name.removeprefix("python_"))


def played(game: openspiel.SpielGame, steps: int, seed: int = 0) -> openspiel.SpielState:
    """A state after ``steps`` random actions (fewer if the game ends first)."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    for _ in range(steps):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize("name", NAMES)
def test_load_game_with_parameters_describes_the_game(name: str) -> None:
    g = engine_game(name)
    rules = {"sobek": {"scarabs": {"ivory": 5}}, "kleopatra": {"hand_limit": 6}}[g.name]
    n = g.max_players
    params = {"players": n, "reward": "margin", "observation_mode": "memory", "seed": 3,
              **{k: json.dumps(v) for k, v in rules.items()}}
    game = pyspiel.load_game(name, params)
    kind, top = game.get_type(), g.max_score(n, **rules) / g.score_scale
    assert (game.num_players(), game.num_distinct_actions()) == (n, g.num_actions)
    assert game.max_game_length() == g.max_game_length(n, **rules)
    assert (game.min_utility(), game.max_utility()) == (-top, top)
    assert game.rules == rules and game.observation_mode == "memory"
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.utility == pyspiel.GameType.Utility.GENERAL_SUM
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert kind.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert pyspiel.load_game(name, {"reward": "score"}).get_type().reward_model == pyspiel.GameType.RewardModel.REWARDS
    if g.name == "sobek":  # a game string loads again, unless an option holds a number or a comma
        assert str(pyspiel.load_game(str(game))) == str(game)
    win = pyspiel.load_game(name)
    assert (win.num_players(), win.min_utility(), win.max_utility()) == (g.default_players, -1.0, 1.0)


def test_max_score_bounds_the_scores_reached() -> None:
    for name in NAMES:
        g = engine_game(name)
        state = played(pyspiel.load_game(name, {"players": 2, **SHORT[name]}), 10_000)
        assert state.is_terminal() and 0 <= max(state.engine_state.scores) <= g.max_score(2)


@pytest.mark.parametrize(("params", "message"), [
    ({"players": 9}, "for 2 to"),
    ({"reward": "points"}, "reward must be one of win, margin, score"),
    ({"observation_mode": "full"}, "observation_mode must be one of"),
    ({"seed": -1}, "seed must be a non-negative integer"),
    ({"hand_limit": "four"}, "rules option 'hand_limit' is not JSON"),
    ({"hand_limit": "-3"}, "hand_limit"),
])
def test_bad_parameters_fail_with_one_clear_line(params: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        pyspiel.load_game("python_kleopatra", params)


def test_parameters_of_the_wrong_type_or_name_are_refused_by_openspiel() -> None:
    with pytest.raises(pyspiel.SpielError, match="hand_limit"):
        pyspiel.load_game("python_kleopatra", {"hand_limit": 4})  # rules options are JSON text
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter"):
        pyspiel.load_game("python_sobek", {"rounds": 2})


# pyspiel's serialize_game_and_state asks a sampled-chance game for its C++ generator state, which a Python
# game cannot give (test_pyspiel_serialization_is_refused_and_ours_round_trips): the simulations run without
CASES = [(name, n) for name in NAMES for n in engine_game(name).player_counts]


@pytest.mark.parametrize(("name", "n"), CASES)
def test_random_sim_test_at_every_player_count(name: str, n: int) -> None:
    rules = {} if LONG else SHORT[name]
    pyspiel.random_sim_test(pyspiel.load_game(name, {"players": n, **rules}), num_sims=2 if LONG else 1,
                            serialize=False, verbose=False)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("reward", ["margin", "score"])
def test_random_sim_test_with_margin_and_score_rewards(name: str, reward: str) -> None:
    pyspiel.random_sim_test(pyspiel.load_game(name, {"players": 2, "reward": reward, **SHORT[name]}), num_sims=1,
                            serialize=False, verbose=False)


def test_returns_follow_the_reward() -> None:
    state = played(pyspiel.load_game("python_sobek", {"players": 3, "reward": "margin"}), 10_000)
    engine, g = state.engine_state, engine_game("python_sobek")
    assert state.returns() == pytest.approx([m / g.score_scale for m in g.margins(engine)])
    state = played(pyspiel.load_game("python_sobek", {"players": 3}), 10_000)
    assert state.returns() == [1.0 if p in state.engine_state.winners else -1.0 for p in range(3)]
    score = played(pyspiel.load_game("python_sobek", {"players": 2, "reward": "score"}), 40)
    assert score.returns() == [v / g.score_scale for v in score.engine_state.scores]


@pytest.mark.parametrize("name", NAMES)
def test_pyspiel_serialization_is_refused_and_ours_round_trips(name: str) -> None:
    game = pyspiel.load_game(name, {"players": 3, "seed": 5})
    state = played(game, 60)
    with pytest.raises(pyspiel.SpielError, match="GetRNGState"):
        pyspiel.serialize_game_and_state(game, state)
    text = openspiel.serialize_game_and_state(game, state)
    game2, state2 = openspiel.deserialize_game_and_state(text)
    again = game.deserialize_state(state.serialize())
    assert str(game2) == str(game)
    assert str(state2) == str(again) == str(state) and state2.history() == state.history()
    rng = random.Random(1)
    for _ in range(30):  # the generator travels too: chance continues alike
        action = rng.choice(state.legal_actions())
        for s in (state, state2, again):
            s.apply_action(action)
    assert str(state2) == str(again) == str(state)
    with pytest.raises(ValueError, match="not a serialized game and state"):
        openspiel.deserialize_game_and_state("python_sobek()")


def test_deals_are_seeded_and_follow_each_other() -> None:
    def deals(seed: int) -> list[str]:
        game = pyspiel.load_game("python_sobek", {"players": 2, "seed": seed})
        return [str(game.new_initial_state()) for _ in range(3)]

    first = deals(0)
    assert deals(0) == first and len(set(first)) == 3 and deals(1)[0] != first[0]


def test_clone_is_an_independent_copy_with_its_history() -> None:
    state = played(pyspiel.load_game("python_kleopatra", {"players": 3}), 30)
    twin = state.clone()
    assert str(twin) == str(state) and twin.history() == state.history()
    twin.apply_action(twin.legal_actions()[0])
    assert str(twin) != str(state) and len(twin.history()) == len(state.history()) + 1


def test_actions_are_named_and_an_illegal_one_changes_nothing() -> None:
    game = pyspiel.load_game("python_sobek")
    state = game.new_initial_state()
    names = engine_game("python_sobek").action_names
    assert [state.action_to_string(state.current_player(), a) for a in state.legal_actions()] == [
        names[a] for a in state.legal_actions()]
    illegal = next(a for a in range(game.num_distinct_actions()) if a not in state.legal_actions())
    before = str(state)
    with pytest.raises(ValueError, match=r"illegal|not legal"):
        state.apply_action(illegal)
    assert str(state) == before


@pytest.mark.parametrize("name", NAMES)
def test_a_seat_sees_nothing_of_what_is_redealt(name: str) -> None:
    n = 3
    game = pyspiel.load_game(name, {"players": n})
    state = played(game, 40, seed=2)
    for p in range(n):
        moved = False
        for seed in range(4):
            other = state.resample(p, seed)
            assert other.information_state_tensor(p) == state.information_state_tensor(p)
            assert other.observation_tensor(p) == state.observation_tensor(p)
            assert other.information_state_string(p) == state.information_state_string(p)
            assert other.observation_string(p) == state.observation_string(p)
            drawn = state.resample_from_infostate(p, pyspiel.UniformProbabilitySampler(0.0, 1.0))
            assert drawn.information_state_tensor(p) == state.information_state_tensor(p)
            # the re-deal did move what another seat holds: the check above can fail
            moved |= any(other.information_state_tensor(q) != state.information_state_tensor(q)
                         for q in range(n) if q != p)
        assert moved


@pytest.mark.parametrize("name", NAMES)
def test_tensors_agree_with_openspiel_observers(name: str) -> None:
    game = pyspiel.load_game(name, {"players": 2})
    state = played(game, 25)
    info = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
    plain = make_observation(game, pyspiel.IIGObservationType(perfect_recall=False))
    g = engine_game(name)
    memory, original = g.observer(2, "memory"), g.observer(2, "original")
    for p in range(2):
        info.set_from(state, p)
        plain.set_from(state, p)
        assert np.array_equal(info.tensor, memory.encode(state.engine_state, p))
        assert np.array_equal(plain.tensor, original.encode(state.engine_state, p))
        assert info.tensor.tolist() == state.information_state_tensor(p) == pyspiel.State.information_state_tensor(
            state, p)
        assert plain.tensor.tolist() == state.observation_tensor(p) == pyspiel.State.observation_tensor(state, p)
        assert info.string_from(state, p) == g.render_text(state.engine_state, p, "memory")
    assert set(info.dict) == set(g.observation_layout(2))
    assert game.information_state_tensor_shape() == [g.observation_size(2)]
    with pytest.raises(ValueError, match="one player sees"):
        make_observation(game, pyspiel.IIGObservationType(perfect_recall=False,
                                                           private_info=pyspiel.PrivateInfoType.ALL_PLAYERS))


def test_openspiel_ismcts_plays_whole_games_against_the_project_agents() -> None:
    games = [("python_sobek", 2, ["heuristic"]), ("python_sobek", 3, ["ismcts:simulations=2,late=0.9", "greedy"]),
             ("python_kleopatra", 2, ["heuristic"])]
    for name, n, specs in games:
        game = pyspiel.load_game(name, {"players": n, **SHORT[name]})
        bots = [openspiel.ismcts_bot(game, 8, seed=1)] + [openspiel.bot(spec, game, p, seed=p)
                                                          for p, spec in enumerate(specs, start=1)]
        state = game.new_initial_state()
        returns = evaluate_bots.evaluate_bots(state, bots, np.random.RandomState(0))
        assert state.is_terminal()
        assert returns == [1.0 if p in state.engine_state.winners else -1.0 for p in range(n)]


def test_evaluate_bots_with_mcts_on_determinizations_and_every_project_agent() -> None:
    game = pyspiel.load_game("python_sobek", {"players": 4})
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(0))
    searcher = openspiel.DeterminizedBot(mcts.MCTSBot(game, 2.0, 8, evaluator,
                                                      random_state=np.random.RandomState(1)), 0, seed=2)
    bots = [searcher] + [openspiel.bot(spec, game, p, seed=p)
                         for p, spec in enumerate(["random", "heuristic", "ismcts:simulations=2,late=0.9"], start=1)]
    state = game.new_initial_state()
    returns = evaluate_bots.evaluate_bots(state, bots, np.random.RandomState(0))
    assert state.is_terminal() and sorted(set(returns)) <= [-1.0, 1.0] and 1.0 in returns


@pytest.mark.parametrize("name", NAMES)
def test_a_determinized_decision_does_not_move_when_hidden_cards_are_redealt(name: str) -> None:
    game = pyspiel.load_game(name, {"players": 3, **SHORT[name]})
    state = played(game, 30, seed=4)
    while len(state.legal_actions()) < 3:  # a position with a real choice
        state.apply_action(state.legal_actions()[0])
    me = state.current_player()

    def decide(s: openspiel.SpielState) -> int:
        evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(5))
        inner = mcts.MCTSBot(game, 2.0, 12, evaluator, random_state=np.random.RandomState(6))
        return openspiel.DeterminizedBot(inner, me, seed=7).step(s)

    redeals = [state.resample(me, seed) for seed in range(3)]
    assert len({str(s) for s in [state, *redeals]}) == 4  # the hidden cards did change
    assert {decide(s) for s in redeals} == {decide(state)}


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("spec", ["random", "greedy", "heuristic", "ismcts:simulations=4"])
def test_project_agents_as_pyspiel_bots(name: str, spec: str) -> None:
    game = pyspiel.load_game(name, {"players": 2, **SHORT[name]})
    state = played(game, 20, seed=3)
    while state.is_terminal() or len(state.legal_actions()) < 2:
        state = played(game, 20, seed=3 + len(state.history()))
    player = state.current_player()
    b = openspiel.bot(spec, game, player, seed=1)
    assert isinstance(b, pyspiel.Bot) and not b.provides_policy()
    before = str(state)
    assert b.step(state) in state.legal_actions() and str(state) == before
    with pytest.raises(ValueError, match="asked to act for player"):
        openspiel.bot(spec, game, 1 - player).step(state)
    assert openspiel.bot(spec, game, seed=1).step(state) in state.legal_actions()  # for the seat to move


def test_bot_refuses_bad_arguments() -> None:
    game = pyspiel.load_game("python_sobek")
    with pytest.raises(ValueError, match="unknown agent"):
        openspiel.bot("alphazero", game, 0)
    with pytest.raises(ValueError, match="player must be a seat from 0 to 1 or None"):
        openspiel.bot("random", game, 2)
    with pytest.raises(TypeError, match=r"bot needs a game of sobek_env\.openspiel"):
        openspiel.bot("random", pyspiel.load_game("kuhn_poker"), 0)
    with pytest.raises(ValueError, match="simulations must be a whole number"):
        openspiel.ismcts_bot(game, 0)


def test_the_bridge_imports_no_agents_and_the_package_no_pyspiel() -> None:
    code = ("import sys, sobek_env; assert 'pyspiel' not in sys.modules; import sobek_env.openspiel, pyspiel; "
            "assert not any(m == 'agents' or m.startswith('agents.') for m in sys.modules); "
            "print(pyspiel.load_game('python_kleopatra', {'players': 4}).num_players())")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert run.returncode == 0, run.stderr  # also: no abort at the interpreter's end
    assert run.stdout.strip() == "4"


def test_the_table_script_plays_seeded_games_and_resumes(tmp_path, capsys) -> None:
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "benchmarks" / "openspiel_table.py"
    spec = importlib.util.spec_from_file_location("openspiel_table", path)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    out = tmp_path / "games.jsonl"
    args = ["--budgets", "2", "--opponents", "random", "--games", "2", "--out", str(out)]
    assert script.main(args) == 0
    first = out.read_text().splitlines()
    assert len(first) == 2 and [json.loads(line)["seat"] for line in first] == [0, 1]
    assert script.main(args) == 0 and out.read_text().splitlines() == first  # resumed: nothing replayed
    again = tmp_path / "again.jsonl"
    script.main(["--budgets", "2", "--opponents", "random", "--games", "1", "--out", str(again)])
    record, replay = json.loads(first[0]), json.loads(again.read_text())
    assert (replay["scores"], replay["win"]) == (record["scores"], record["win"])  # seeded: the same game
    assert "| sobek, 2p | 2 simulations | random | 2 |" in capsys.readouterr().out
    low, high = script.wilson(0, 40)
    assert low == 0 and 0.08 < high < 0.09
