"""The search on the native engine: whole playouts in one call (:mod:`agents.search.playouts`) and ``ismcts``
running on them. Both are held to the Python reference draw for draw: a playout returns the margins, the
number of actions and the generator the Python loop on the Python engine gives, and the search makes the same
decisions, with the same means and rollout lengths, on seeded positions (each game's settings, and the tree
with random, greedy and heuristic rollouts). ``SOBEK_LONG=1`` searches many more positions."""

from __future__ import annotations

import os
import pickle
import random

import pytest

import agents
import sobek_env
from agents import make
from agents.games import tables as game_tables
from agents.search.ismcts import RolloutPolicy
from agents.search.playouts import native_playouts, seat_policies

LONG = os.environ.get("SOBEK_LONG") == "1"
TABLES = [("sobek", 2), ("sobek", 4), ("kleopatra", 3), ("kleopatra", 2)]


def native_game(name: str) -> sobek_env.game.Game:
    game = sobek_env.load_game(name)
    if "native" not in game.engines or native_playouts(game.table(game.default_players), "random") is None:
        pytest.skip(f"{name}'s native engine or playouts were not built")
    return game


def positions(game: sobek_env.game.Game, num_players: int, seed: int, count: int, late: float = 0.0) -> list:
    """``count`` native states with a choice, spread over a seeded random game from ``late`` (Game.progress)
    to its end."""
    rng = random.Random(seed)
    s = game.new(num_players, seed=seed, engine="native")
    found = []
    while not s.is_over:
        if len(s.legal_actions()) > 1 and game.progress(s) >= late:
            found.append(s.clone())
        s.apply(rng.choice(s.legal_actions()))
    return found[::max(1, len(found) // count)][:count]


def rollout_policy(table: sobek_env.game.Table, spec: str) -> RolloutPolicy:
    """The search's Python rollout policy playing the baseline of ``spec``, its options included."""
    policy = RolloutPolicy(table, spec.partition(":")[0])
    policy.agent = agents.make(spec, table=table)
    return policy


def python_playout(table: sobek_env.game.Table, specs: list[str], s: object, rng: random.Random,
                   steps: int) -> tuple[list[float], int]:
    """The reference: ISMCTSAgent._rollout's loop, one policy per seat, on the state it is given."""
    policies = [None if spec == "random" else rollout_policy(table, spec) for spec in specs]
    played = 0
    while (steps == 0 or played < steps) and not s.is_over:
        policy = policies[s.current_player]
        if policy is None:
            legal = s.legal_actions()
            action = legal[int(rng.random() * len(legal))]
        else:
            action = policy.act(s)
        s.apply(action)
        played += 1
    return table.game.outlook(s), played


SEATS = {2: [["heuristic", "heuristic"], ["random", "greedy"], ["heuristic:tolerance=0.3", "random"]],
         3: [["heuristic"] * 3, ["greedy", "random", "heuristic:tolerance=0.2"]],
         4: [["heuristic"] * 4, ["random", "heuristic", "greedy", "heuristic:tolerance=0.1"]]}


@pytest.mark.parametrize(("name", "num_players"), TABLES)
def test_a_playout_is_the_python_loop_on_the_python_engine(name: str, num_players: int) -> None:
    game = native_game(name)
    table = game.table(num_players)
    checked = 0
    for seed in range(6 if LONG else 2):
        for s in positions(game, num_players, seed, 6):
            for specs in SEATS[num_players]:
                runs = native_playouts(table, specs)
                for steps in (0, 7):
                    mine, theirs = random.Random(seed), random.Random(seed)
                    before = s.to_json()
                    margins, played = runs.run(s, mine, steps)
                    assert s.to_json() == before, "a playout changed the state it started from"
                    expected = python_playout(table, specs, s.to_python(), theirs, steps)
                    assert (margins, played) == expected, (seed, specs, steps)
                    assert mine.getstate() == theirs.getstate(), "the generator advanced differently"
                    assert runs.run(s, seed, steps) == python_playout(table, specs, s.to_python(),
                                                                      random.Random(seed), steps)
                    checked += 1
    assert checked >= 40


@pytest.mark.parametrize(("name", "num_players"), TABLES)
def test_outlook_and_choice_are_the_reference_ones(name: str, num_players: int) -> None:
    game = native_game(name)
    table = game.table(num_players)
    runs = native_playouts(table, "heuristic")
    guide = RolloutPolicy(table, "heuristic")
    for s in positions(game, num_players, 5, 30):
        assert runs.outlook(s) == game.outlook(s.to_python())
        assert runs.choose(s) == guide.act(s.to_python())
    finished = positions(game, num_players, 5, 1)[0]
    runs.run(finished, 0)
    while not finished.is_over:
        finished.apply(finished.legal_actions()[0])
    assert runs.outlook(finished) == game.outlook(finished.to_python())


@pytest.mark.parametrize(("name", "num_players"), [("sobek", 2), ("kleopatra", 3)])
def test_a_playout_from_a_logging_state_logs_nothing_and_leaves_it_as_it_was(name: str, num_players: int) -> None:
    game = native_game(name)
    runs = native_playouts(game.table(num_players), "random")
    for s in positions(game, num_players, 3, 6):
        twin = s.clone()
        s.log, twin.log = [], []
        before = s.to_json()
        runs.run(s, random.Random(4))
        assert s.to_json() == before
        for _ in range(3):  # a playout's stray events would surface at the state's next apply
            if not s.is_over:
                action = s.legal_actions()[0]
                s.apply(action)
                twin.apply(action)
        assert s.log == twin.log


def test_the_memory_mode_reads_memory_observations() -> None:
    game = native_game("kleopatra")
    table = game.table(3, "memory")
    runs = native_playouts(table, "heuristic")
    for s in positions(game, 3, 2, 8):
        assert runs.run(s, 1, 40) == python_playout(table, ["heuristic"] * 3, s.to_python(), random.Random(1), 40)


@pytest.mark.parametrize(("name", "num_players"), [("sobek", 2), ("kleopatra", 3)])
def test_bad_input_is_refused_in_one_line(name: str, num_players: int) -> None:
    game = native_game(name)
    table = game.table(num_players)
    s = game.new(num_players, seed=1, engine="native")
    runs = native_playouts(table, "heuristic")
    cases = [
        (lambda: native_playouts(table, "ppo:model.zip"), "no native playout policy 'ppo'"),
        (lambda: native_playouts(table, "mcts"), "unknown agent 'mcts'"),
        (lambda: native_playouts(table, ["random"] * (num_players + 1)), "give one spec for every seat"),
        (lambda: native_playouts(table, "heuristic:tolerance=2"), "tolerance"),
        (lambda: type(runs)(runs_table(name, table), [("bogus", 0.0)] * num_players), "unknown playout policy"),
        (lambda: runs.run(s, 1, -1), "steps must be a whole number from 0"),
        (lambda: runs.run(s, 1, 2.5), "steps must be a whole number from 0"),
        (lambda: runs.run(s, -3), "seed must be from 0"),
        (lambda: runs.run(s, "seed"), "rng must be a random.Random or a seed"),
        (lambda: runs.run(s.to_python(), 1), "starts from a native"),
        (lambda: runs.run(game.new(num_players + 1, seed=1, engine="native"), 1), f"made for {num_players} players"),
        (lambda: native_playouts(table, "random").choose(s), "give rng"),
    ]
    for call, words in cases:
        before = s.to_json()
        with pytest.raises(ValueError, match=words) as caught:
            call()
        assert "\n" not in str(caught.value)
        assert s.to_json() == before
    while not s.is_over:
        s.apply(s.legal_actions()[0])
    with pytest.raises(ValueError, match="the game is over: there is nothing to play out"):
        runs.run(s, 1)


def runs_table(name: str, table: sobek_env.game.Table) -> object:
    """The baselines' compiled table, as the games' ``playouts`` builders make it."""
    if name == "sobek":
        from agents.sobek.native_agents import _baselines

        return _baselines.NativeTable(table.num_players, table.rules)
    from agents.kleopatra.native_agents import native_table

    return native_table(table)


def test_seat_policies_read_the_options_as_the_registry_does() -> None:
    table = sobek_env.load_game("sobek").table(2)
    assert seat_policies(table, "heuristic:tolerance=0.25") == [("heuristic", 0.25)] * 2
    assert seat_policies(table, ["random", "greedy"]) == [("random", 0.0), ("greedy", 0.0)]


# ---------------------------------------------------------------------- the search, native and Python

SPECS = {
    "settings": "ismcts",
    "tree, random": "ismcts:mode=tree,late=0,steps=0,rollout=random,guide=none,simulations=60,depth=0",
    "tree, greedy": "ismcts:mode=tree,late=0,steps=0,rollout=greedy,guide=heuristic,simulations=16,depth=25",
    "tree, heuristic": "ismcts:mode=tree,late=0,steps=0,rollout=heuristic,guide=greedy,simulations=8,depth=0",
}


@pytest.mark.parametrize("setting", list(SPECS))
@pytest.mark.parametrize(("name", "num_players"), [("sobek", 2), ("kleopatra", 3)])
def test_the_search_decides_the_same_on_both_paths(name: str, num_players: int, setting: str) -> None:
    game = native_game(name)
    late = game_tables(name).search["late"] if setting == "settings" else 0.0
    count = 0
    for seed in range(8 if LONG else 1):
        for s in positions(game, num_players, 100 + seed, 12 if LONG else 3, late):
            fast = make(SPECS[setting], game=name, num_players=num_players, seed=seed)
            slow = make(SPECS[setting], game=name, num_players=num_players, seed=seed)
            decision = fast.act(None, state=s)
            assert fast._fast, "the native path did not run"
            reference = slow.act(None, state=s.to_python())
            assert not slow._fast
            assert (decision, fast.last_means, fast.last_steps, fast.last_simulations) == \
                (reference, slow.last_means, slow.last_steps, slow.last_simulations), (seed, s)
            assert fast.rng.getstate() == slow.rng.getstate()
            count += 1
    assert count >= 3


@pytest.mark.parametrize(("name", "num_players"), [("sobek", 2), ("kleopatra", 3)])
def test_a_search_that_ran_natively_still_travels_to_workers(name: str, num_players: int) -> None:
    game = native_game(name)
    agent = make("ismcts", game=name, num_players=num_players, seed=4)
    s = positions(game, num_players, 4, 1, game_tables(name).search["late"])[0]
    agent.act(None, state=s)
    assert agent._fast
    twin = pickle.loads(pickle.dumps(agent))
    assert (twin.act(None, state=s), twin.last_means) == (agent.act(None, state=s), agent.last_means)
    assert twin._fast
    runs = native_playouts(game.table(num_players), ["heuristic:tolerance=0.2"] + ["random"] * (num_players - 1))
    copy = pickle.loads(pickle.dumps(runs))
    assert copy.policies == runs.policies and copy.run(s, 3) == runs.run(s, 3)


@pytest.mark.parametrize(("name", "num_players"), [("sobek", 2), ("kleopatra", 3)])
def test_seeded_games_against_the_heuristic_are_the_same_on_both_paths(name: str, num_players: int) -> None:
    """Whole games with the game's settings in seat 0: each decision searched on the native state and on its
    Python twin (the Python engine and loop), the games going on with the native one's action."""
    game = native_game(name)
    table = game.table(num_players)
    others = RolloutPolicy(table, "heuristic")
    searched = 0
    # the short run's determinizations as few as before the budget ladder (the Python twin plays every one)
    spec = "ismcts" if LONG else "ismcts:simulations=8"
    for seed in range(4 if LONG else 1):
        fast = make(spec, game=name, num_players=num_players, seed=seed)
        slow = make(spec, game=name, num_players=num_players, seed=seed)
        s = game.new(num_players, seed=seed, engine="native")
        while not s.is_over:
            if s.current_player == 0:
                action = fast.act(None, state=s)
                assert (action, fast.last_means, fast.last_steps) == \
                    (slow.act(None, state=s.to_python()), slow.last_means, slow.last_steps)
                searched += fast.last_simulations > 0
            else:
                action = others.act(s)
            s.apply(action)
    assert searched >= 10, "too few searched decisions to compare"
