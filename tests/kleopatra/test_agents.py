"""Kleopatra's greedy and heuristic baselines: legal over whole games, seeded, tunable, stronger than
chance, and right in hand-built positions whose answer the rules' arithmetic settles.

Each agent sees only its observation (the encoder, as in play) and the action mask.
"""

from __future__ import annotations

import numpy as np
import pytest

import agents
import sobek_env
from agents.kleopatra import BEST, GreedyAgent, HeuristicAgent, common
from agents.kleopatra.prospects import Prospects
from agents.players.random_agent import RandomAgent
from sobek_env.kleopatra import ACTION_NAMES, GAME, GameState

from .scenario import act, build

THREE = GAME.table(3)
SHORT = {"max_turns": 120}  # random opponents rarely finish the palace; a bound keeps the sample quick


def play(players: list, seed: int, mode: str = "original", rules: dict | None = None) -> tuple[GameState, list[int]]:
    """One game through the AEC environment; every action is checked against the mask."""
    env = sobek_env.env(game="kleopatra", num_players=len(players), observation_mode=mode, **(rules or {}))
    env.reset(seed=seed)
    for i, player in enumerate(players):
        player.seed(seed * 10 + i)
    actions = []
    for name in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        action = players[env.unwrapped.agent_name_mapping[name]].act(obs)
        assert obs["action_mask"][action] == 1, f"{name} chose illegal {ACTION_NAMES[action]}"
        actions.append(action)
        env.step(action)
    return env.unwrapped.game, actions


@pytest.mark.parametrize("mode", ["original", "memory"])
@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_legal_over_whole_games(num_players: int, mode: str) -> None:
    table = GAME.table(num_players, mode)
    players = [HeuristicAgent(table), GreedyAgent(table), HeuristicAgent(table, tolerance=1.0),
               GreedyAgent(table), HeuristicAgent(table, tolerance=0.0)][:num_players]
    game, _ = play(players, num_players, mode)
    assert game.is_over


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan"), "0.5", True, None])
def test_tolerance_is_validated(bad: object) -> None:
    with pytest.raises(ValueError, match="tolerance"):
        HeuristicAgent(THREE, tolerance=bad)
    if isinstance(bad, float):
        with pytest.raises(ValueError, match="tolerance"):
            agents.make(f"heuristic:tolerance={bad}", game="kleopatra")


def test_made_by_the_registry_with_their_defaults() -> None:
    assert 0.0 <= BEST <= 1.0 and HeuristicAgent(THREE).tolerance == BEST
    made = agents.make("heuristic:tolerance=0.25", game="kleopatra", num_players=4)
    assert isinstance(made, HeuristicAgent) and made.tolerance == 0.25 and made.table.num_players == 4
    assert isinstance(agents.make("greedy", game="kleopatra"), GreedyAgent)
    assert (HeuristicAgent.name, GreedyAgent.name) == ("heuristic", "greedy")


@pytest.mark.parametrize("make", [GreedyAgent, HeuristicAgent])
def test_same_seed_same_game(make) -> None:
    first = play([make(THREE), RandomAgent(), make(THREE)], 7, rules=SHORT)
    second = play([make(THREE), RandomAgent(), make(THREE)], 7, rules=SHORT)
    assert first[1] == second[1] and first[0].scores == second[0].scores


class Forgetful:
    """Asks ``warm`` (whose memos of palaces and hands carry over from decision to decision) and then
    ``cold`` the same question with every memo emptied and the memoised valuations computed anew; fails
    unless they agree."""

    def __init__(self, warm: HeuristicAgent, cold: HeuristicAgent) -> None:
        self.warm, self.cold, self.decisions = warm, cold, 0

    def seed(self, seed: int) -> None:
        self.warm.seed(seed)
        self.cold.seed(seed)

    def act(self, observation: dict) -> int:
        action = self.warm.act(observation)
        common._MEMOS.clear()  # the palaces' memos, and with them their prospects and the hands they valued
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(Prospects, "hand_worth", Prospects.fresh_hand_worth)
            patch.setattr(common, "sanctuaries_after", common._sanctuaries_after)
            cold = self.cold.act(observation)
        common._MEMOS.clear()
        assert cold == action, f"decision {self.decisions}: the memos changed it"
        self.decisions += 1
        return action


@pytest.mark.parametrize("num_players", [3, 5])
def test_what_the_heuristic_remembers_never_changes_its_decisions(num_players: int) -> None:
    table = GAME.table(num_players)
    players = [Forgetful(HeuristicAgent(table, tolerance=t), HeuristicAgent(table, tolerance=t))
               for t in (1.0, 0.0, 0.5, 1.0, 0.3)[:num_players]]
    game, actions = play(players, 11 + num_players)
    assert game.is_over and sum(p.decisions for p in players) == len(actions) > 200


def wins(specs: list[str], games: int, rules: dict | None = None) -> int:
    """Games won by the first spec over ``games`` seeds, its seat rotating."""
    won = 0
    for seed in range(games):
        seat = seed % len(specs)
        order = specs[-seat:] + specs[:-seat] if seat else list(specs)
        players = [agents.make(s, game="kleopatra", num_players=len(specs), rules=rules) for s in order]
        game, _ = play(players, 1000 + seed, rules=rules)
        won += seat in game.winners
    return won


def test_heuristic_beats_random() -> None:
    assert wins(["heuristic", "random", "random"], 30, SHORT) >= 24


def test_heuristic_beats_greedy_at_least_its_share() -> None:
    assert wins(["heuristic", "greedy", "greedy"], 15) >= 6


# ---------------------------------------------------------------------- hand-built positions


def observe(state: GameState, mode: str = "original") -> dict:
    """The acting seat's observation and action mask, as the environment gives them."""
    mask = np.zeros(GAME.num_actions, dtype=np.int8)
    mask[state.legal_actions()] = 1
    vector = GAME.observer(state.num_players, mode).encode(state, state.current_player)
    return {"observation": vector, "action_mask": mask}


def choose(spec: str, state: GameState, mode: str = "original") -> str:
    agent = agents.make(spec, game="kleopatra", num_players=state.num_players, observation_mode=mode)
    return ACTION_NAMES[agent.act(observe(state, mode))]


def run(spec: str, state: GameState, mode: str = "original", until: str = "") -> list[str]:
    """The agent's actions while it stays the acting seat (and the phase is not ``until``)."""
    agent = agents.make(spec, game="kleopatra", num_players=state.num_players, observation_mode=mode)
    seat, done = state.current_player, []
    while not state.is_over and state.current_player == seat and state.phase.name != until and len(done) < 40:
        name = ACTION_NAMES[agent.act(observe(state, mode))]
        act(state, name)
        done.append(name)
    return done


@pytest.mark.parametrize("spec", ["greedy", "heuristic"])
def test_builds_a_pedestal_it_can_afford(spec: str) -> None:
    s = build({"players": [{"hand": ["artisan", "artisan", "artisan", "marble", "marble", "lapis", "lapis"]}],
               "stalls": [[{"kind": "stone", "up": True}], [{"kind": "wood", "up": True}], []],
               "rules": {"priest_faces": 0}})
    assert choose(spec, s) == "quarry"
    done = run(spec, s, until="after")
    assert "pedestal" in done and "merchant" not in done
    assert done[-1] == "done" and s.talents[0] == 5 + 12


def test_heuristic_does_not_take_corruption_needlessly_when_most_corrupt() -> None:
    stalls = [[{"kind": "stone2", "up": True}, {"kind": "lapis2", "up": True}],
              [{"kind": "stone", "up": True}, {"kind": "lapis", "up": True}], []]
    corrupt = build({"players": [{"hand": ["artisan"], "amulets": 9}, {"amulets": 2}, {"amulets": 3}],
                     "stalls": stalls})
    assert choose("heuristic", corrupt, "memory") == "market:1"
    assert choose("heuristic", corrupt) == "market:1"


def ceremony(own: int, others: int, talents: int = 20) -> GameState:
    return build({"players": [{"amulets": own, "talents": talents}, {"amulets": others}, {"amulets": others}],
                  "altar": 5, "pending": {"phase": "ceremony", "offers": [0, 0, 0]}})


def offer(spec: str, state: GameState, mode: str) -> int:
    bids = run(spec, state, mode)
    assert bids[-1] == "done"
    return sum(int(b.split(":")[1]) for b in bids[:-1])


@pytest.mark.parametrize("mode", ["original", "memory"])
def test_heuristic_bids_high_when_most_corrupt_and_little_when_clean(mode: str) -> None:
    high = offer("heuristic", ceremony(12, 2), mode)
    assert high >= 4
    if mode == "memory":
        assert offer("heuristic", ceremony(0, 12), mode) < high
