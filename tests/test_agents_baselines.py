"""The greedy and heuristic baselines: legal over whole games, seeded, tunable, and stronger than chance."""

from __future__ import annotations

import pytest

import sobek_env
from agents.players.random_agent import RandomAgent
from agents.sobek.greedy import GreedyAgent
from agents.sobek.heuristic import BEST, HeuristicAgent
from sobek_env.game import python_state
from sobek_env.sobek import GAME

TWO = GAME.table(2)


def play(agents: list, seed: int, mode: str = "original") -> tuple[sobek_env.GameState, list[int]]:
    """One game through the AEC environment; every action is checked against the mask."""
    env = sobek_env.env(num_players=len(agents), observation_mode=mode)
    env.reset(seed=seed)
    for i, agent in enumerate(agents):
        agent.seed(seed * 10 + i)
    actions = []
    for name in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        action = agents[env.unwrapped.agent_name_mapping[name]].act(obs)
        assert obs["action_mask"][action] == 1, f"{name} chose illegal {sobek_env.ACTION_NAMES[action]}"
        actions.append(action)
        env.step(action)
    return env.unwrapped.game, actions


@pytest.mark.parametrize("mode", ["original", "memory"])
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_legal_over_whole_games(num_players: int, mode: str) -> None:
    for seed in range(2):
        table = GAME.table(num_players, mode)
        agents = [HeuristicAgent(table), GreedyAgent(table), HeuristicAgent(table, tolerance=1.0),
                  GreedyAgent(table)][:num_players]
        game, _ = play(agents[seed:] + agents[:seed], seed, mode)
        assert game.is_over


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan"), "0.5", True, None])
def test_tolerance_is_validated(bad: object) -> None:
    with pytest.raises(ValueError, match="tolerance"):
        HeuristicAgent(TWO, tolerance=bad)


def test_tolerance_default_and_names() -> None:
    assert 0.0 <= BEST <= 1.0
    assert HeuristicAgent(TWO).tolerance == BEST
    assert HeuristicAgent(TWO, tolerance=0).tolerance == 0.0
    assert (HeuristicAgent.name, GreedyAgent.name) == ("heuristic", "greedy")


def mean_corruption(tolerance: float, games: int = 12) -> float:
    """Average corruption per round of a heuristic agent against another heuristic at the default."""
    total = rounds = 0
    for seed in range(games):
        seat = seed % 2
        agents = [HeuristicAgent(TWO), HeuristicAgent(TWO)]
        agents[seat] = HeuristicAgent(TWO, tolerance=tolerance)
        game, _ = play(agents, 100 + seed)
        for log in python_state(game).round_log:
            total += log["corruption"][seat]
            rounds += 1
    return total / rounds


def test_tolerance_changes_corruption() -> None:
    assert mean_corruption(1.0) > mean_corruption(0.0) + 1.0


@pytest.mark.parametrize("make", [GreedyAgent, HeuristicAgent])
def test_same_seed_same_game(make) -> None:
    first = play([make(TWO), RandomAgent()], 7)
    second = play([make(TWO), RandomAgent()], 7)
    assert first[1] == second[1]
    assert first[0].scores == second[0].scores


def wins(make, games: int = 40) -> float:
    """Games (shared wins as fractions) an agent wins against random, seats alternated."""
    won = 0.0
    for seed in range(games):
        seat = seed % 2
        agents = [RandomAgent(), RandomAgent()]
        agents[seat] = make(TWO)
        game, _ = play(agents, 500 + seed)
        if seat in game.winners:
            won += 1.0 / len(game.winners)
    return won


def test_heuristic_beats_random() -> None:
    assert wins(HeuristicAgent) >= 36


def test_greedy_beats_random() -> None:
    assert wins(GreedyAgent) >= 32


def test_horizontal_layouts_declare_the_amulets_only_set_even_when_every_free_goods_is_chosen() -> None:
    """Regression: with five goods laid and the sixth chosen, the spare amulets had no goods left to be
    declared with, and the planner raised StopIteration (a training worker died of it)."""
    from agents.sobek.sets import horizontal_layouts
    from sobek_env.sobek.catalogue import KIND_INDEX, make_rules

    hand = [0] * 28
    hand[KIND_INDEX["wheat-plain"]], hand[KIND_INDEX["amulet"]] = 3, 4
    layouts = horizontal_layouts(hand, make_rules(2), laid={0, 1, 2, 3, 4})
    loose = [layout for layout in layouts if layout and sum(layout[0][1]) == layout[0][1][KIND_INDEX["amulet"]]]
    assert loose and all(layout[0][0] == 5 for layout in loose)  # declared wheat, laid before the wheat set
    hand[KIND_INDEX["amulet"]] = 3
    hand[KIND_INDEX["wheat-plain"]] = 0
    assert horizontal_layouts(hand, make_rules(2), laid={0, 1, 2, 3, 4, 5}) == [[]]
