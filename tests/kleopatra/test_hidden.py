"""Hidden information through the environment (rules §12, §14.3): nothing a seat may not see moves what the
environment gives that seat, and a ceremony's secret bids move no other seat's observation."""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest

import sobek_env
from sobek_env.kleopatra import ACTION_NAMES, GameState
from sobek_env.kleopatra import observation as O

from .policies import Player

MODES = ("original", "memory")


def test_a_ceremony_bid_moves_no_other_seats_observation() -> None:
    bids = 0
    for n in (3, 4, 5):
        observers = {mode: O.Observer(n, mode) for mode in MODES}
        for seed in range(4):
            s = GameState.new(n, seed=100 + seed, engine="python")
            player = Player(["builder", "characters", "uniform", "hoarder", "characters"], seed)
            while not s.is_over:
                a = player.pick(s)
                if s.phase.name == "ceremony" and ACTION_NAMES[a].startswith("bid:"):
                    bidder = s.current_player
                    before = {(m, q): o.encode_python(s, q) for m, o in observers.items() for q in range(n)}
                    s.apply(a)
                    bids += 1
                    for (mode, q), vector in before.items():
                        if q != bidder:
                            assert np.array_equal(vector, observers[mode].encode_python(s, q)), (mode, q)
                else:
                    s.apply(a)
    assert bids > 50  # the check ran on many bids (a count, not a result)


@pytest.mark.parametrize("mode", MODES)
def test_re_dealing_what_a_seat_cannot_see_moves_nothing_the_environment_gives_it(mode: str) -> None:
    rng = random.Random(3)
    for n in (3, 5):
        env = sobek_env.env(game="kleopatra", num_players=n, observation_mode=mode, reward_mode="score")
        env.reset(seed=40 + n)
        checked = 0
        for step, agent in enumerate(env.agent_iter()):
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            if step % 37 == 5:
                for seat, watcher in enumerate(env.possible_agents):
                    twin = copy.deepcopy(env)
                    twin.unwrapped.game = env.unwrapped.game.resample(seat, random.Random(rng.random()))
                    mine, theirs = env.observe(watcher), twin.observe(watcher)
                    assert np.array_equal(mine["observation"], theirs["observation"])
                    assert np.array_equal(mine["action_mask"], theirs["action_mask"])
                    assert env.infos[watcher] == twin.infos[watcher]
                    assert env.rewards[watcher] == twin.rewards[watcher]
                    if watcher == agent:  # the seat acts: the same move pays it the same on either deal
                        action = int(np.flatnonzero(mine["action_mask"])[0])
                        env_after, twin_after = copy.deepcopy(env), twin
                        env_after.step(action)
                        twin_after.step(action)
                        assert env_after.rewards[watcher] == twin_after.rewards[watcher]
                        assert env_after.infos[watcher] == twin_after.infos[watcher]
                    checked += 1
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        assert checked >= 10 * n
