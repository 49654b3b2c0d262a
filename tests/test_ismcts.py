"""The ISMCTS search agent: legal over whole games, seeded, blind to what its seat cannot know, built from
specs, stronger than chance, and played by every driver (tournament workers, the single-agent env, the pool)."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

import sobek_env
from agents import make
from agents.games import tables
from agents.search.ismcts import DEFAULT_SIMULATIONS, ISMCTSAgent
from agents.tournaments.tournament import play_tournament, summarize
from agents.training.pool import OpponentPool

TABLES = [("sobek", 2), ("kleopatra", 3)]
TREE = "mode=tree,late=0,rollout=random,steps=0"  # the UCB1 tree alone, whatever the game's settings
PAIRED = "mode=paired,late=0,guide=heuristic,rollout=random,steps=0"


def positions(game: str, num_players: int, seed: int, count: int) -> list:
    """``count`` states reached by random play from a seeded deal, each with a real choice to make."""
    rng = random.Random(seed)
    s = sobek_env.load_game(game).new(num_players, seed=seed)
    found = []
    while len(found) < count and not s.is_over:
        if len(s.legal_actions()) > 1 and rng.random() < 0.2:
            found.append(s.clone())
        s.apply(rng.choice(s.legal_actions()))
    return found


def spread_positions(game: str, num_players: int, seed: int, count: int) -> list:
    """``count`` states with a choice, evenly spread over a seeded random game from its deal to its end."""
    rng = random.Random(seed)
    s = sobek_env.load_game(game).new(num_players, seed=seed)
    found = []
    while not s.is_over:
        if len(s.legal_actions()) > 1:
            found.append(s.clone())
        s.apply(rng.choice(s.legal_actions()))
    return found[::max(1, len(found) // count)][:count]


@pytest.mark.parametrize("mode", [TREE, PAIRED])
@pytest.mark.parametrize(("game", "num_players"), TABLES)
def test_legal_over_a_whole_game_against_random(game: str, num_players: int, mode: str) -> None:
    g = sobek_env.load_game(game)
    agent = make(f"ismcts:simulations=4,depth=20,{mode}", game=game, num_players=num_players, seed=1)
    other = random.Random(2)
    s = g.new(num_players, seed=3)
    searched = 0
    while not s.is_over:
        legal = s.legal_actions()
        if s.current_player == 0:
            before = s.to_json()
            action = agent.act(None, state=s)
            assert s.to_json() == before, "the agent changed the state it was handed"
            assert action in legal
            searched += agent.last_simulations > 0
        else:
            action = other.choice(legal)
        s.apply(action)
    assert searched > 5


@pytest.mark.parametrize(("game", "num_players"), TABLES)
def test_the_same_seed_gives_the_same_decision(game: str, num_players: int) -> None:
    for s in positions(game, num_players, seed=4, count=3):
        first, second = (make(f"ismcts:simulations=30,depth=20,{TREE},seed=5", game=game, num_players=num_players)
                         for _ in range(2))
        assert first.act(None, state=s) == second.act(None, state=s.clone())
        assert first.last_visits == second.last_visits and sum(first.last_visits.values()) == 30
        assert first.last_means == second.last_means and first.last_means.keys() <= first.last_visits.keys()


@pytest.mark.parametrize("options", [{}, {"guide": "heuristic", "depth": 10},
                                     {"mode": "paired", "guide": "heuristic", "depth": 10}],
                         ids=["plain", "guided", "paired"])
@pytest.mark.parametrize(("game", "num_players"), TABLES)
def test_the_decision_ignores_hidden_information_dealt_again(game: str, num_players: int, options: dict) -> None:
    redealt = 0
    for s in positions(game, num_players, seed=6, count=4):
        me = s.current_player
        other = s.resample(me, random.Random(99))
        redealt += other != s
        first, second = (ISMCTSAgent(sobek_env.load_game(game).table(num_players), simulations=30, seed=7,
                                     **options) for _ in range(2))
        assert first.act(None, state=s) == second.act(None, state=other)
        assert first.last_visits == second.last_visits and first.last_means == second.last_means
    assert redealt, "no position had hidden information to deal again"


@pytest.mark.parametrize(("game", "num_players"), TABLES)
def test_baseline_rollouts_and_time_budgets_play_legally(game: str, num_players: int) -> None:
    s = positions(game, num_players, seed=8, count=1)[0]
    for spec in ("ismcts:simulations=5,rollout=greedy,depth=8,mode=tree,late=0",
                 "ismcts:simulations=3,rollout=heuristic,depth=4,mode=tree,late=0",
                 "ismcts:time=0.05,depth=10,rollout=random,mode=tree,late=0",
                 "ismcts:time=0.05,depth=10,rollout=greedy,mode=paired,guide=heuristic,late=0"):
        agent = make(spec, game=game, num_players=num_players, seed=9)
        assert agent.act(None, state=s) in s.legal_actions()
        assert agent.last_simulations >= 1


def test_specs_set_the_options() -> None:
    agent = make("ismcts:simulations=400,c=0.7,rollout=random,seed=3")
    assert (agent.simulations, agent.c, agent.rollout, agent.time) == (400, 0.7, "random", 0.0)
    again = make("ismcts:seed=3,simulations=400")
    assert agent.rng.random() == again.rng.random()
    assert make("ismcts:time=0.5,depth=0,rollout=heuristic").depth == 0
    guided = make("ismcts:guide=heuristic,bias=2.5,squash=0.2", num_players=3)
    assert (guided.guide, guided.bias, guided.squash) == ("heuristic", 2.5, 0.2)


@pytest.mark.parametrize(("game", "num_players"), TABLES)
def test_make_starts_from_the_games_settings_and_the_spec_replaces_them(game: str, num_players: int) -> None:
    settings = dict(tables(game).search)
    default = make("ismcts", game=game, num_players=num_players)
    assert {key: getattr(default, key) for key in settings} == settings and default.wants_state
    assert make("ismcts:simulations=7", game=game, num_players=num_players).simulations == 7
    assert make("ismcts:guide=none,late=0", game=game, num_players=num_players).guide == "none"
    with pytest.raises(ValueError, match="give a guide, or late=0"):  # Kleopatra's settings search late only
        make("ismcts:guide=none", game="kleopatra")
    plain = ISMCTSAgent(sobek_env.load_game(game).table(num_players))  # the class knows no game
    assert (plain.simulations, plain.guide) == (DEFAULT_SIMULATIONS, "none")
    bare = make("ismcts:settings=none,simulations=9", game=game, num_players=num_players)
    assert {key: getattr(bare, key) for key in settings} == {key: getattr(plain, key) for key in settings} | (
        {"simulations": 9} if "simulations" in settings else {})
    assert bare.simulations == 9
    with pytest.raises(ValueError, match=r"settings must be game .* or none .*, got 'tree'"):
        make("ismcts:settings=tree", game=game, num_players=num_players)


@pytest.mark.parametrize(("game", "num_players"), TABLES)
def test_a_strong_guide_bias_keeps_the_guides_choice(game: str, num_players: int) -> None:
    """The guide's action is expanded first and favoured: with a bias far above any reward the search
    follows the baseline (asked from the seat's own observation), and without one it need not."""
    g = sobek_env.load_game(game)
    observer = g.observer(num_players, "original")
    differed = 0
    for s in positions(game, num_players, seed=12, count=6):
        mask = np.zeros(g.num_actions, dtype=np.int8)
        mask[s.legal_actions()] = 1
        observation = {"observation": observer.encode(s, s.current_player), "action_mask": mask}
        wanted = make("heuristic", game=game, num_players=num_players).act(observation)
        guided = make(f"ismcts:simulations=40,depth=20,{TREE},guide=heuristic,bias=100,seed=13", game=game,
                      num_players=num_players)
        assert guided.act(None, state=s) == wanted
        assert max(guided.last_visits.values()) == guided.last_visits[wanted]
        free = make(f"ismcts:simulations=40,depth=20,{TREE},guide=none,seed=13", game=game, num_players=num_players)
        differed += free.act(None, state=s) != wanted
    assert differed, "the unguided search always agreed with the heuristic: the test shows nothing"


def heuristic_choice(game: str, num_players: int, s) -> int:
    """What the heuristic would play in ``s``, from the seat's own observation."""
    g = sobek_env.load_game(game)
    mask = np.zeros(g.num_actions, dtype=np.int8)
    mask[s.legal_actions()] = 1
    observation = {"observation": g.observer(num_players, "original").encode(s, s.current_player), "action_mask": mask}
    return make("heuristic", game=game, num_players=num_players).act(observation)


@pytest.mark.parametrize(("game", "num_players"), TABLES)
def test_paired_mode_overrules_the_guide_only_on_clear_evidence(game: str, num_players: int) -> None:
    """Paired mode plays every legal action on each determinization; with an unreachable ``z`` it keeps
    the guide's choice, and with ``z=0`` the best mean wins, which somewhere is another action."""
    differed = 0
    for s in positions(game, num_players, seed=14, count=5):
        wanted = heuristic_choice(game, num_players, s)
        strict = make(f"ismcts:simulations=6,depth=15,{PAIRED},z=1e9,seed=15", game=game, num_players=num_players)
        assert strict.act(None, state=s) == wanted
        assert strict.last_visits == {a: 6 for a in s.legal_actions()} and strict.last_simulations == 6
        assert strict.last_means.keys() == set(s.legal_actions())
        assert all(-1.0 <= m <= 1.0 for m in strict.last_means.values())
        loose = make(f"ismcts:simulations=6,depth=15,{PAIRED},z=0,seed=15", game=game, num_players=num_players)
        chosen = loose.act(None, state=s)
        assert loose.last_means[chosen] == max(loose.last_means.values())  # z=0: the best mean is played
        differed += chosen != wanted
    assert differed, "z=0 always agreed with the guide: the test shows nothing"


@pytest.mark.parametrize("mode", [TREE, PAIRED])
@pytest.mark.parametrize(("game", "num_players"), TABLES)
def test_a_step_budget_stops_the_iterations_once_the_rollouts_reach_it(game: str, num_players: int,
                                                                       mode: str) -> None:
    s = positions(game, num_players, seed=19, count=1)[0]
    free = make(f"ismcts:simulations=40,depth=30,{mode},seed=20", game=game, num_players=num_players)
    free.act(None, state=s)
    per_iteration = free.last_steps / free.last_simulations
    capped = make(f"ismcts:simulations=40,depth=30,{mode.replace('steps=0', f'steps={int(per_iteration * 5)}')},"
                  "seed=20", game=game, num_players=num_players)
    capped.act(None, state=s)
    assert 2 <= capped.last_simulations < 40 and capped.last_steps >= capped.steps
    tiny = make(f"ismcts:simulations=40,depth=30,{mode.replace('steps=0', 'steps=1')},seed=20", game=game,
                num_players=num_players)
    tiny.act(None, state=s)
    assert tiny.last_simulations == 2  # at least two, whatever the budget


@pytest.mark.parametrize(("game", "num_players"), TABLES)
def test_before_the_late_game_it_plays_the_guides_choice_without_searching(game: str, num_players: int) -> None:
    g = sobek_env.load_game(game)
    early = late = 0
    for s in spread_positions(game, num_players, seed=16, count=12):
        agent = make("ismcts:simulations=3,depth=5,rollout=random,guide=heuristic,late=0.5,seed=17", game=game,
                     num_players=num_players)
        action = agent.act(None, state=s)
        if g.progress(s) < 0.5:
            early += 1
            assert action == heuristic_choice(game, num_players, s)
            assert agent.last_simulations == agent.last_steps == 0
        else:
            late += 1
            assert agent.last_simulations == 3 and agent.last_steps > 0
    assert early and late, f"positions on one side of the threshold only ({early} early, {late} late)"


@pytest.mark.parametrize(("game", "num_players"), [*TABLES, ("sobek", 4), ("kleopatra", 5)])
def test_progress_runs_from_the_deal_to_one_and_never_goes_back(game: str, num_players: int) -> None:
    g = sobek_env.load_game(game)
    s, rng = g.new(num_players, seed=18), random.Random(18)
    seen = [g.progress(s)]
    while not s.is_over:
        s.apply(rng.choice(s.legal_actions()))
        seen.append(g.progress(s))
    assert 0 <= seen[0] < 0.1 and seen[-1] == 1.0
    assert all(a <= b for a, b in itertools.pairwise(seen)), "progress went back"
    assert len({round(p, 3) for p in seen}) > 4, "progress hardly moved"


@pytest.mark.parametrize(("spec", "message"), [
    ("ismcts:simulations=0", "simulations must be a whole number from 1"),
    ("ismcts:simulations=many", "simulations must be an integer"),
    ("ismcts:time=-1", "time must be seconds from 0"),
    ("ismcts:time=inf", "time must be seconds from 0"),
    ("ismcts:c=-0.5", "c must be a number from 0"),
    ("ismcts:depth=-3", "depth must be a whole number from 0"),
    ("ismcts:rollout=ppo", "rollout must be one of random, greedy, heuristic"),
    ("ismcts:seed=x", "seed must be an integer"),
    ("ismcts:guide=ppo", "guide must be one of none, greedy, heuristic"),
    ("ismcts:bias=-1", "bias must be a number from 0"),
    ("ismcts:squash=0", "squash must be a number above 0"),
    ("ismcts:mode=fast", "mode must be one of tree, paired"),
    ("ismcts:z=-1", "z must be a number from 0"),
    ("ismcts:late=1.5,guide=heuristic", "late must be a share of the game from 0 to 1"),
    ("ismcts:late=0.5,guide=none", "give a guide, or late=0"),
    ("ismcts:steps=-5", "steps must be a whole number from 0"),
    ("ismcts:speed=3", "unknown argument 'speed'.*simulations, time, c, rollout, depth, guide, bias, squash, mode, z, "
                       "late, steps, net, top, seed, settings"),
    ("ismcts:simulations", "malformed argument"),
    ("ismcts:c=1,c=2", "given twice"),
    ("ismcts:", "ends with ':'"),
])
def test_bad_specs_raise_clear_errors(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make(spec)


def test_it_needs_the_state() -> None:
    with pytest.raises(ValueError, match="state=game_state"):
        make("ismcts").act({"observation": None, "action_mask": None})


def test_the_tree_alone_beats_random_at_sobek() -> None:
    # no baseline anywhere (no guide, random rollouts), so the wins are the search's; with one simulation a
    # decision is a random pick and wins 2 of these 8 games
    spec = f"ismcts:simulations=30,{TREE},guide=none"
    ismcts, _ = summarize(play_tournament([spec, "random"], 8, seed=10), [spec, "random"])
    assert ismcts.wins >= 7


def test_a_tournament_runs_it_in_two_workers() -> None:
    specs = ["ismcts:simulations=4,depth=20", "random"]  # the game's settings (paired), a small budget
    assert play_tournament(specs, 2, seed=11, workers=2) == play_tournament(specs, 2, seed=11, workers=1)


@pytest.mark.parametrize(("game", "num_players"), TABLES)
def test_training_opponents_hand_it_the_state(game: str, num_players: int) -> None:
    pool = OpponentPool([("ismcts:simulations=4,depth=10", 1.0)], num_players, game=game)
    env = sobek_env.SingleAgentEnv(pool, num_players=num_players, seat=0, game=game)
    rng = random.Random(12)
    env.reset(seed=13)
    for _ in range(30):
        legal = [a for a, ok in enumerate(env.action_masks()) if ok]
        _, _, over, _, _ = env.step(rng.choice(legal))
        if over:
            break
