"""Speed of every registered game's engine and environments, beside peers measured in the same run.

Usage::

    sobek-env bench            # full mode, a few minutes
    sobek-env bench --quick    # a few seconds per game, searches at 40 simulations (the smoke test runs this)
    sobek-env bench --game sobek --json figures.json
    sobek-env bench --breakdown   # also: where an AEC agent-step goes

Every loop is random legal play from a fixed seed, resetting at the end of each game,
for each game at its smallest and largest table:

- engine: the state's ``legal_actions`` + ``apply``, on the Python engine and (where it was built) the
  native one;
- vector: ``sobek_env.vector_env`` with 64 games and ``random`` opponents (the native batch where it was
  built), the learner taking its first legal action: steps are learner steps, observations and masks included;
- AEC: ``env.last()`` (observation and action mask) + ``env.step`` on ``sobek_env.env(game=...)``;
- single: ``SingleAgentEnv.step`` for the learner, random opponents playing inside it;
- heuristic (at each game's default table only): the ``heuristic`` baseline deciding for every seat from
  that seat's observation (encoded, decoded, decided), what the search settings' rollouts spend their
  time on, in the search's Python rollout loop on the Python engine; its steps are decisions and its games
  playouts, not compared with the peers; beside it, the same loop with the Python heuristic (the reference,
  what the search ran before the native baselines) and the same playouts natively in one call each
  (:mod:`agents.search.playouts`), which must make 30x the Python heuristic's decisions a second;
- search (at each game's default table only): the ``ismcts`` tree search (``SEARCH_SPECS``) and the game's
  own settings, each deciding one position every :data:`SEARCH_EVERY` steps of random play, on the Python
  engine and on the native one (whose rollouts are native playouts), the same decisions; there a step is one
  simulation (steps/s: simulations per second) and a game is one decision (ms/game: CPU milliseconds per
  decision), so these rows are not compared with the peers;
- OpenSpiel bridge (``pip install -e .[openspiel]``, at each game's default table): the same random play
  through ``sobek_env.openspiel``'s pyspiel states (``legal_actions`` + ``apply_action`` from Python, each
  call crossing into C++ and back into the wrapped engine), beside the engine row: what the bridge costs;
- peers (``pip install -e .[bench]``): PettingZoo's ``leduc_holdem_v4`` and ``texas_holdem_v4``
  through the same AEC loop, and OpenSpiel's ``gin_rummy`` through ``pyspiel``
  (``legal_actions`` + ``apply_action``, chance nodes sampled by their probabilities, with or
  without ``observation_tensor`` at each decision).

The loops that single-step a state from Python (engine, OpenSpiel's ``gin_rummy``, the bridge) draw
each action with one call of the generator, ``legal[int(draw() * len(legal))]``: ``random.choice``, two
Python calls deep, cost about as much as a native engine's step, and a harness that costs as much as what
it measures hides the difference between the engines. The other loops keep ``random.choice``.

A step is one decision of a player (chance nodes are not counted). Times are CPU seconds of
this process, so other load on the machine disturbs them less than wall time would; the rows
are measured in interleaved rounds and each keeps its best round. Ratios are ours over the peer.

After the table, the batched environment's scaling (where the native engines were built): the same
``vector_env`` loop on 1 and on 2 threads (``num_threads``), timed in wall seconds since CPU seconds
add up the threads, and the memory one game of the batch takes.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from pettingzoo import AECEnv

import sobek_env
from sobek_env import GAMES, SingleAgentEnv, load_game
from sobek_env.env import OrderEnforcing
from sobek_env.game import Game

SEED = 20240
CLOCK = time.process_time
MISSING = "not installed (pip install -e .[bench])"
PEERS = ("leduc", "texas", "gin", "gin_obs")
SEARCH_EVERY = 10  # random steps between two positions the search row decides
QUICK_SIMULATIONS = 40  # --quick: simulations a search decision, so that one decision fits its round
PEER_TITLES = {"leduc": "x leduc", "texas": "x texas", "gin": "x gin", "gin_obs": "x gin+obs"}


@dataclass
class Figure:
    """What one timed round of a loop did."""

    steps: int
    games: int
    seconds: float

    @property
    def steps_per_s(self) -> float:
        return self.steps / self.seconds

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds

    @property
    def ms_per_game(self) -> float:
        return 1000.0 * self.seconds / self.games


# A loop plays whole games until ``budget`` CPU seconds have passed, then reports.
Loop = Callable[[float], Figure]


# What each game must reach, in the same run: (what, our row's loop, players, peer, times the peer's steps/s).
BARS: dict[str, list[tuple[str, str, int, str, float]]] = {
    "sobek": [("engine", "engine", 4, "gin", 2.0), ("AEC, original", "aec_original", 4, "leduc", 3.0),
              ("AEC, memory", "aec_memory", 4, "leduc", 3.0), ("native engine", "native_engine", 4, "gin", 10.0),
              ("native engine", "native_engine", 4, "engine", 10.0),
              ("native heuristic playouts", "native_playouts", 2, "python_heuristic", 30.0)],
    "kleopatra": [("engine", "engine", 3, "gin", 2.0), ("AEC, original", "aec_original", 3, "leduc", 3.0),
                  ("AEC, memory", "aec_memory", 3, "leduc", 3.0), ("native engine", "native_engine", 3, "gin", 10.0),
                  ("native engine", "native_engine", 3, "engine", 10.0),
                  ("native heuristic playouts", "native_playouts", 3, "python_heuristic", 30.0)],
}
"""Each game's bars: (what, its loop, players, the peer or the game's own loop it is set against, the factor).
A peer is a key of :data:`PEERS`; any other name is the game's own loop at the same table (``engine``: its
Python engine; ``python_heuristic``: the Python heuristic in every seat, in the search's Python loop, against
which the native playouts' heuristic decisions are set)."""
OWN_LOOP_TITLES = {"engine": "its Python engine", "python_heuristic": "the Python heuristic's, Python engine"}


def whole_games(play: Callable[[int, random.Random], int]) -> Loop:
    """The loop that plays game after game until its budget has passed: ``play(g, rng)`` plays game ``g`` (its
    random moves drawn from ``rng``, seeded afresh for each timed round) and returns the steps it took."""

    def run(budget: float) -> Figure:
        rng = random.Random(SEED)
        steps = games = 0
        start = CLOCK()
        while True:
            steps += play(games, rng)
            games += 1
            if CLOCK() - start >= budget:
                return Figure(steps, games, CLOCK() - start)

    return run


def engine_loop(game: Game, num_players: int, engine: str = "python") -> Loop:
    """Random play through the engine alone."""

    def play(g: int, rng: random.Random) -> int:
        state = game.new(num_players, seed=SEED + g, engine=engine)
        draw = rng.random
        steps = 0
        while not state.is_over:
            legal = state.legal_actions()
            state.apply(legal[int(draw() * len(legal))])
            steps += 1
        return steps

    return whole_games(play)


def first_legal_steps(budget: float, num_envs: int, masks: Callable[[], np.ndarray],
                      step: Callable[[np.ndarray], np.ndarray]) -> Figure:
    """Step a batch of ``num_envs`` games, the learner taking its first legal action in each (``step`` returns
    which games ended), until ``budget`` CPU seconds have passed and a game has ended."""
    steps = games = 0
    start = CLOCK()
    while CLOCK() - start < budget or not games:
        games += int(step(masks().argmax(axis=1)).sum())
        steps += num_envs
    return Figure(steps, games, CLOCK() - start)


def vector_loop(game: Game, num_players: int, num_envs: int = 64) -> Loop:
    """``vector_env`` against random opponents, the learner taking its first legal action in every game."""

    def run(budget: float) -> Figure:
        venv = sobek_env.vector_env(game=game, num_envs=num_envs, num_players=num_players, seed=SEED)
        venv.reset()
        return first_legal_steps(budget, num_envs, venv.action_masks, lambda actions: venv.step(actions)[2])

    return run


def training_loop(game: Game, num_players: int, native: bool) -> Loop:
    """The games ``train.py`` steps, heuristics in the other seats and the advice features written: natively
    (64 games in one call) or the Python environments one by one (8 games); the learner takes its first legal
    action."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    from agents.training.batched import NativeTrainingEnv
    from agents.training.sb3 import DEFAULTS, MasksFromInfo, env_factory

    config = {**DEFAULTS, "game": game.name, "players": num_players, "pool": [["heuristic", 1.0]],
              "self_play_weight": 0.0}

    def run(budget: float) -> Figure:
        if native:
            venv = NativeTrainingEnv(config, 64, seed=SEED)
        else:
            venv = MasksFromInfo(DummyVecEnv([env_factory(config, ()) for _ in range(8)]))
            venv.seed(SEED)
        venv.reset()
        masks = venv.action_masks if native else lambda: np.array(venv.masks)
        figure = first_legal_steps(budget, venv.num_envs, masks, lambda actions: venv.step(actions)[2])
        venv.close()
        return figure

    return run


def aec_loop(make_env: Callable[[], AECEnv]) -> Loop:
    """Random play through a PettingZoo AEC environment: ``last()`` then ``step`` with a masked action."""

    def run(budget: float) -> Figure:
        env = make_env()
        env.reset(seed=SEED)
        rng = random.Random(SEED)
        steps = games = 0
        start = CLOCK()
        while True:
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                games += 1
                if CLOCK() - start >= budget:
                    return Figure(steps, games, CLOCK() - start)
                env.reset()
                continue
            env.step(rng.choice(np.flatnonzero(observation["action_mask"]).tolist()))
            steps += 1

    return run


def single_loop(game: Game, num_players: int) -> Loop:
    """Random learner actions through ``SingleAgentEnv``; the opponents are random agents."""
    from agents import RandomAgent

    def run(budget: float) -> Figure:
        env = SingleAgentEnv(RandomAgent(seed=SEED), game=game, num_players=num_players)
        env.reset(seed=SEED)
        rng = random.Random(SEED)
        steps = games = 0
        start = CLOCK()
        while True:
            _, _, terminated, truncated, _ = env.step(rng.choice(np.flatnonzero(env.action_masks()).tolist()))
            steps += 1
            if terminated or truncated:
                games += 1
                if CLOCK() - start >= budget:
                    return Figure(steps, games, CLOCK() - start)
                env.reset()

    return run


def spiel_loop(game_name: str, observe: bool) -> Loop:
    """Random play through OpenSpiel's C++ core driven from Python, as the engine loop is."""
    import pyspiel

    game = pyspiel.load_game(game_name)

    def play(g: int, rng: random.Random) -> int:
        state = game.new_initial_state()
        draw = rng.random
        steps = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probabilities = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, probabilities)[0])
                continue
            if observe:
                state.observation_tensor(state.current_player())
            legal = state.legal_actions()
            state.apply_action(legal[int(draw() * len(legal))])
            steps += 1
        return steps

    return whole_games(play)


def bridge_loop(game: Game, num_players: int) -> Loop:
    """Random play through ``sobek_env.openspiel``'s pyspiel states, dealt as the engine loop deals."""
    import pyspiel

    from sobek_env import openspiel

    spiel_game = pyspiel.load_game(openspiel.spiel_name(game.name), {"players": num_players})

    def play(g: int, rng: random.Random) -> int:
        state = spiel_game.state_from_engine(game.new(num_players, seed=SEED + g))
        draw = rng.random
        steps = 0
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[int(draw() * len(legal))])
            steps += 1
        return steps

    return whole_games(play)


# The tree search measured per game. Both games' own settings search the late game only, with heuristic
# rollouts to the end (paired mode), so the rows measure their former settings, trees (docs/search.md):
# Sobek's 1600 simulations of random rollouts, Kleopatra's guided tree
SEARCH_SPECS = {"sobek": "ismcts:mode=tree,late=0,steps=0,rollout=random,guide=none,depth=200,simulations=1600",
                "kleopatra": "ismcts:mode=tree,late=0,steps=0,rollout=random,simulations=100,depth=20,squash=0.3,"
                             "guide=heuristic,bias=30"}


def search_loop(game: Game, num_players: int, spec: str, engine: str = "python") -> Loop:
    """The ``ismcts`` agent of ``spec`` deciding positions along random games on ``engine``: steps are its
    simulations, games its decisions (positions with one legal action are skipped)."""
    from agents import make

    def run(budget: float) -> Figure:
        agent = make(spec, game=game.name, num_players=num_players, seed=SEED)
        rng = random.Random(SEED)
        state, deals, played = game.new(num_players, seed=SEED, engine=engine), 0, 0
        simulations = decisions = 0
        start = CLOCK()
        while True:
            if state.is_over:
                deals += 1
                state = game.new(num_players, seed=SEED + deals, engine=engine)
            legal = state.legal_actions()
            played += 1
            if played % SEARCH_EVERY or len(legal) == 1:
                state.apply(rng.choice(legal))
                continue
            state.apply(agent.act(None, state=state))
            simulations += agent.last_simulations
            decisions += 1
            if CLOCK() - start >= budget:
                return Figure(simulations, decisions, CLOCK() - start)

    return run


def rollout_loop(game: Game, num_players: int, python: bool = False) -> Loop:
    """The ``heuristic`` playing every seat from that seat's observation (encoded, decoded, decided), as in
    the rollouts of both games' search settings, which spend nearly all their time there: the search's
    Python rollout loop, which runs on the Python engine (on a native state the search plays native
    playouts, :func:`native_playout_loop`). The heuristic is the one ``agents.make`` builds (native where
    built), or with ``python`` the Python baseline, the reference its native twin decides as."""
    from agents.players.native import NativeBaseline
    from agents.search.ismcts import RolloutPolicy

    table = game.table(num_players)
    policy = RolloutPolicy(table, "heuristic")  # seeded at each game: one serves every round
    if python and isinstance(policy.agent, NativeBaseline):
        policy.agent = policy.agent.reference(table)

    def play(g: int, rng: random.Random) -> int:
        state = game.new(num_players, seed=SEED + g, engine="python")
        policy.seed(SEED + g)
        steps = 0
        while not state.is_over:
            state.apply(policy.act(state))
            steps += 1
        return steps

    return whole_games(play)


def native_playout_loop(game: Game, num_players: int) -> Loop:
    """The same playouts as :func:`rollout_loop` (the ``heuristic`` in every seat, from the deal to the end),
    each one call of the native playouts: steps are actions, games playouts."""
    from agents.search.playouts import native_playouts

    runs = native_playouts(game.table(num_players), "heuristic")
    if runs is None:
        raise ImportError(f"{game.name}'s native playouts were not built")

    def play(g: int, rng: random.Random) -> int:
        return runs.run(game.new(num_players, seed=SEED + g, engine="native"), SEED + g)[1]

    return whole_games(play)


def pettingzoo_peer(name: str) -> Loop:
    """PettingZoo's classic ``leduc`` or ``texas`` hold'em (pure Python over rlcard) in the AEC loop."""
    from pettingzoo.classic import leduc_holdem_v4, texas_holdem_v4

    module = {"leduc": leduc_holdem_v4, "texas": texas_holdem_v4}[name]
    return aec_loop(module.env)


def unobserved_env(game: Game, num_players: int) -> AECEnv:
    """``sobek_env.env`` whose observer returns its buffer without encoding: the AEC loop minus the observation."""
    env = sobek_env.env(game=game, num_players=num_players)
    observer = env.unwrapped._observer
    buffer = np.zeros(game.observation_size(num_players), dtype=np.float32)
    observer.encode = lambda state, seat: buffer
    return env


class NullEnv(AECEnv):
    """An AEC environment that does nothing but what the loop reads (a copied vector of the game's size, a
    mask, games of 130 agent-steps among its agents): what the AEC loop costs by itself."""

    metadata = {"name": "null_v0"}

    def __init__(self, game: Game, num_players: int) -> None:
        super().__init__()
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self._vector = np.zeros(game.observation_size(num_players), dtype=np.float32)
        self._actions = game.num_actions

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]
        self._steps = 0

    def observe(self, agent: str) -> dict:
        mask = bytearray(self._actions)
        mask[0] = mask[1] = 1
        return {"observation": self._vector.copy(), "action_mask": np.frombuffer(mask, dtype=np.int8)}

    def step(self, action: int) -> None:
        self._steps += 1
        self.agent_selection = self.possible_agents[self._steps % len(self.possible_agents)]
        if self._steps == 130:
            self.terminations = {a: True for a in self.agents}


@dataclass
class Row:
    """One line of the table: a key for the JSON, a label, and how to build its loop."""

    key: str
    label: str
    make: Callable[[], Loop]  # raises ImportError when a peer is not installed
    compare: bool = True      # whether its steps are comparable with the peers' (ratios shown)


def vector_wall_loop(game: Game, num_players: int, num_threads: int, num_envs: int = 64) -> Loop:
    """:func:`vector_loop` on ``num_threads`` threads, timed in wall seconds."""

    def run(budget: float) -> Figure:
        venv = sobek_env.vector_env(game=game, num_envs=num_envs, num_players=num_players, seed=SEED,
                                    num_threads=num_threads)
        venv.reset()
        steps = games = 0
        start = time.perf_counter()
        while time.perf_counter() - start < budget or not games:
            _, _, terminated, _, _ = venv.step(venv.action_masks().argmax(axis=1))
            steps += num_envs
            games += int(terminated.sum())
        return Figure(steps, games, time.perf_counter() - start)

    return run


SCALING_ENVS = (64, 256)  # games a call: train.py's default, and a batch large enough for its work to dominate


def scaling(games: tuple[str, ...], rounds: int, budget: float, threads: tuple[int, ...] = (1, 2)) -> list[dict]:
    """Per game with a native engine, at its default table: ``vector_env`` learner steps per wall second with
    each of :data:`SCALING_ENVS` games a call on each number of ``threads`` (interleaved rounds, the best of
    each), and the bytes one game takes."""
    out = []
    for name in games:
        game = load_game(name)
        if "native" not in game.engines:
            continue
        n = game.default_players
        loops = {(envs, k): vector_wall_loop(game, n, k, envs) for envs in SCALING_ENVS for k in threads}
        best: dict[tuple[int, int], float] = {}
        for _ in range(rounds):
            for key, loop in loops.items():
                best[key] = max(best.get(key, 0.0), loop(budget).steps_per_s)
        batch = sobek_env.vector_env(game=game, num_envs=1, num_players=n)._batch
        out.append({"game": name, "players": n,
                    "steps_per_wall_s": {str(envs): {str(k): best[envs, k] for k in threads} for envs in SCALING_ENVS},
                    "bytes_per_game": batch.bytes_per_game, "state_bytes": batch.state_bytes})
    return out


def scaling_text(figures: list[dict]) -> str:
    lines = ["", "vector_env (native batch), learner steps per wall second by threads and games a call; "
                 "memory per game"]
    for f in figures:
        parts = []
        for envs, speeds in f["steps_per_wall_s"].items():
            cells = ", ".join(f"{k} thread(s) {v:,.0f}" for k, v in speeds.items())
            gain = speeds[max(speeds, key=int)] / speeds[min(speeds, key=int)]
            parts.append(f"x{envs}: {cells} ({gain:.2f}x)")
        lines.append(f"  {f['game']}, {f['players']}p: {'; '.join(parts)}; {f['bytes_per_game']:,} bytes a game "
                     f"({f['state_bytes']:,} of them its engine state)")
    return "\n".join(lines)


def native_possible_for(name: str, num_players: int) -> bool:
    """Whether ``train.py`` steps this game's training games natively here."""
    from agents.training.batched import native_possible
    from agents.training.sb3 import DEFAULTS

    return native_possible({**DEFAULTS, "game": name, "players": num_players})


def game_rows(game: Game, breakdown: bool = False, quick: bool = False) -> list[Row]:
    """One game's loops at its default and largest table, and at every table its bars name (and, with
    ``breakdown``, the diagnostic loops)."""
    out = []
    sizes = sorted({game.default_players, game.max_players, *(bar[2] for bar in BARS.get(game.name, []))})
    for n in sizes:
        out.append(Row(f"{game.name}_engine_{n}p", f"{game.name}: engine, {n} players",
                       lambda n=n: engine_loop(game, n)))
        if "native" in game.engines:
            out.append(Row(f"{game.name}_native_engine_{n}p", f"{game.name}: native engine, {n} players",
                           lambda n=n: engine_loop(game, n, "native")))
    for n in sizes:
        path = "native batch" if "native" in game.engines else "Python"
        out.append(Row(f"{game.name}_vector_{n}p", f"{game.name}: vector_env x64 ({path}), {n}p",
                       lambda n=n: vector_loop(game, n)))
    for n in sizes:
        for mode in game.observation_modes:
            out.append(Row(f"{game.name}_aec_{mode}_{n}p", f"{game.name}: AEC last+step, {n}p, {mode}",
                           lambda n=n, mode=mode: aec_loop(
                               lambda: sobek_env.env(game=game, num_players=n, observation_mode=mode))))
    for n in sizes:
        out.append(Row(f"{game.name}_single_{n}p", f"{game.name}: SingleAgentEnv.step, {n}p",
                       lambda n=n: single_loop(game, n)))
    n = game.default_players
    out.append(Row(f"{game.name}_openspiel_{n}p", f"{game.name}: OpenSpiel bridge (pyspiel states), {n}p",
                   lambda: bridge_loop(game, n)))
    out.append(Row(f"{game.name}_training_{n}p", f"{game.name}: train.py's games, Python envs x8, {n}p",
                   lambda: training_loop(game, n, native=False), compare=False))
    if "native" in game.engines and native_possible_for(game.name, n):
        out.append(Row(f"{game.name}_native_training_{n}p", f"{game.name}: train.py's games, native x64, {n}p",
                       lambda: training_loop(game, n, native=True), compare=False))
    out.append(Row(f"{game.name}_heuristic_{n}p", f"{game.name}: heuristic in every seat, {n}p",
                   lambda: rollout_loop(game, n), compare=False))
    out.append(Row(f"{game.name}_python_heuristic_{n}p", f"{game.name}: same, the Python heuristic, {n}p",
                   lambda: rollout_loop(game, n, python=True), compare=False))
    native = "native" in game.engines
    if native:
        out.append(Row(f"{game.name}_native_playouts_{n}p", f"{game.name}: same, native playouts, {n}p",
                       lambda: native_playout_loop(game, n), compare=False))
    searches = [("ismcts", SEARCH_SPECS.get(game.name, "ismcts"), "ismcts tree"),
                ("ismcts_settings", "ismcts", "ismcts settings")]
    if quick:
        from agents.players.registry import with_option

        searches = [(key, with_option(spec, "simulations", str(QUICK_SIMULATIONS)), f"{title} at {QUICK_SIMULATIONS} "
                     "simulations") for key, spec, title in searches]
    for key, spec, title in searches:
        out.append(Row(f"{game.name}_{key}_{n}p", f"{game.name}: {title} (games: decisions), {n}p",
                       lambda spec=spec: search_loop(game, n, spec), compare=False))
        if native:
            out.append(Row(f"{game.name}_native_{key}_{n}p", f"{game.name}: {title}, native, {n}p",
                           lambda spec=spec: search_loop(game, n, spec, "native"), compare=False))
    if breakdown:
        n = game.max_players
        out += [
            Row(f"{game.name}_aec_unobserved_{n}p", f"{game.name}: diagnostic: AEC {n}p, no observation",
                lambda: aec_loop(lambda: unobserved_env(game, n))),
            Row(f"{game.name}_aec_null_{n}p", f"{game.name}: diagnostic: AEC loop of a do-nothing env",
                lambda: aec_loop(lambda: OrderEnforcing(NullEnv(game, n)))),
        ]
    return out


def rows(games: tuple[str, ...] = GAMES, breakdown: bool = False, quick: bool = False) -> list[Row]:
    """Each game's loops, then the peers."""
    peers = [
        Row("leduc", "peer: leduc_holdem_v4 (PettingZoo)", lambda: pettingzoo_peer("leduc")),
        Row("texas", "peer: texas_holdem_v4 (PettingZoo)", lambda: pettingzoo_peer("texas")),
        Row("gin", "peer: gin_rummy (OpenSpiel, C++)", lambda: spiel_loop("gin_rummy", observe=False)),
        Row("gin_obs", "peer: gin_rummy + observation_tensor", lambda: spiel_loop("gin_rummy", observe=True)),
    ]
    return [row for name in games for row in game_rows(load_game(name), breakdown, quick)] + peers


def measure(all_rows: list[Row], rounds: int, budget: float, warm_up: bool = True) -> dict[str, Figure | str]:
    """Best round of each row (highest steps/s); a peer that cannot be imported maps to MISSING. Without
    ``warm_up`` (--quick) the first game's imports and caches count in its figures."""
    loops: dict[str, Loop] = {}
    best: dict[str, Figure | str] = {}
    for row in all_rows:
        try:
            loops[row.key] = row.make()
        except ImportError:
            best[row.key] = MISSING
            continue
        if warm_up:
            loops[row.key](0.0)  # one game, outside the figures
    for _ in range(rounds):  # interleaved, so a burst of outside load hits every row alike
        for key, loop in loops.items():
            figure = loop(budget)
            if key not in best or figure.steps_per_s > best[key].steps_per_s:
                best[key] = figure
    return best


def ratio(figures: dict[str, Figure | str], key: str, other: str) -> float | None:
    """Steps per second of row ``key`` over row ``other``'s (None where either is missing)."""
    mine, theirs = figures.get(key), figures.get(other)
    ok = isinstance(mine, Figure) and isinstance(theirs, Figure)
    return mine.steps_per_s / theirs.steps_per_s if ok else None


def ratios(figures: dict[str, Figure | str], key: str) -> dict[str, float | None]:
    """Steps per second of row ``key`` over each peer's (None where either is missing)."""
    return {peer: ratio(figures, key, peer) for peer in PEERS}


def bars(figures: dict[str, Figure | str], games: tuple[str, ...] = GAMES) -> list[dict]:
    """Each game's bars (:data:`BARS`), each with its measured value."""
    out = []
    for name in games:
        for what, loop, n, peer, target in BARS.get(name, []):
            other = peer if peer in PEERS else f"{name}_{peer}_{n}p"  # a peer, or the game's own loop
            value = ratio(figures, f"{name}_{loop}_{n}p", other)
            against = peer if peer in PEERS else OWN_LOOP_TITLES.get(peer, peer)
            out.append({"bar": f"{name}: {what}, {n} players, steps/s >= {target:g}x {against}", "value": value,
                        "target": target, "unit": "x", "met": None if value is None else value >= target})
    return out


def table(all_rows: list[Row], figures: dict[str, Figure | str], games: tuple[str, ...] = GAMES) -> str:
    """The printed table, then the bars."""
    head = f"{'loop':50s} {'steps/s':>10s} {'games/s':>9s} {'ms/game':>8s}" + "".join(
        f" {PEER_TITLES[p]:>10s}" for p in PEERS)
    lines = [head, "-" * len(head)]
    for row in all_rows:
        figure = figures[row.key]
        if not isinstance(figure, Figure):
            lines.append(f"{row.label:50s} {figure}")
            continue
        cells = "".join(
            f" {'':>10s}" if row.key in PEERS or not row.compare else f" {'n/a' if r is None else f'{r:.2f}':>10s}"
            for r in ratios(figures, row.key).values()
        )
        lines.append(f"{row.label:50s} {figure.steps_per_s:10,.0f} {figure.games_per_s:9,.1f} "
                     f"{figure.ms_per_game:8.2f}{cells}")
    lines.append("")
    lines.append("Bars (same run):")
    for bar in bars(figures, games):
        if bar["value"] is None:
            peer = bar["bar"].rsplit(" ", 1)[-1]
            missing = figures.get(peer) == MISSING
            lines.append(f"  {bar['bar']}: " + (f"peer {MISSING}" if missing else "not measured in this run"))
            continue
        verdict = "met" if bar["met"] else "NOT met"
        lines.append(f"  {bar['bar']}: {bar['value']:.2f} {bar['unit']} -> {verdict}")
    return "\n".join(lines)


def bridge_overhead(figures: dict[str, Figure | str], games: tuple[str, ...] = GAMES) -> str:
    """CPU microseconds per step of each game's random play through the engine and through the OpenSpiel
    bridge, side by side, and the difference: what the bridge adds to a step. The bridge wraps states of the
    game's default engine, so that engine's row is the one beside it."""
    lines = ["", "OpenSpiel bridge: random play, CPU us per step (engine alone | through pyspiel states | added)"]
    for name in games:
        game = load_game(name)
        n = game.default_players
        row = f"{name}_native_engine_{n}p" if game.default_engine() == "native" else f"{name}_engine_{n}p"
        engine, bridge = figures.get(row), figures.get(f"{name}_openspiel_{n}p")
        if not isinstance(bridge, Figure) or not isinstance(engine, Figure):
            lines.append(f"  {name}, {n}p: {bridge if isinstance(bridge, str) else 'not measured in this run'}")
            continue
        mine, theirs = 1e6 / engine.steps_per_s, 1e6 / bridge.steps_per_s
        lines.append(f"  {name}, {n}p: {mine:6.2f} | {theirs:6.2f} | {theirs - mine:+6.2f} ({theirs / mine:.2f}x)")
    return "\n".join(lines)


def native_search(figures: dict[str, Figure | str], games: tuple[str, ...] = GAMES) -> str:
    """Each game's search rows and heuristic playouts on the Python engine beside the native ones: CPU ms a
    decision (playouts a second), and how many times cheaper the native path is."""
    lines = ["", "Search on the native engine: Python | native | times cheaper"]
    for name in games:
        n = load_game(name).default_players
        for key, what in (("ismcts", "ismcts tree, CPU ms a decision"),
                          ("ismcts_settings", "ismcts settings, CPU ms a decision"),
                          ("heuristic", "heuristic playouts a second")):
            python, native = figures.get(f"{name}_{key}_{n}p"), figures.get(f"{name}_native_{key}_{n}p")
            if key == "heuristic":
                native = figures.get(f"{name}_native_playouts_{n}p")
            if not isinstance(python, Figure) or not isinstance(native, Figure):
                lines.append(f"  {name}, {n}p, {what}: not measured in this run")
                continue
            if key == "heuristic":
                mine, theirs, ratio = python.games_per_s, native.games_per_s, native.games_per_s / python.games_per_s
            else:
                mine, theirs, ratio = python.ms_per_game, native.ms_per_game, python.ms_per_game / native.ms_per_game
            lines.append(f"  {name}, {n}p, {what}: {mine:9.2f} | {theirs:9.2f} | {ratio:6.1f}x")
    return "\n".join(lines)


def breakdown(figures: dict[str, Figure | str], games: tuple[str, ...] = GAMES) -> str:
    """CPU microseconds per agent-step of each game's largest AEC loop, by part, beside what 3x leduc allows."""
    us = {key: 1e6 / f.steps_per_s for key, f in figures.items() if isinstance(f, Figure)}
    lines = []
    for name in games:
        n = load_game(name).max_players
        total = us[f"{name}_aec_original_{n}p"]
        null, engine, unobserved = us[f"{name}_aec_null_{n}p"], us[f"{name}_engine_{n}p"], us[
            f"{name}_aec_unobserved_{n}p"]
        parts = [
            ("the loop itself (wrapper, last, step, random choice)", null),
            ("the engine (legal actions + apply, new games)", engine),
            ("the environment around it (mask, rewards, agents)", unobserved - engine - null),
            ("the observation (original mode)", total - unobserved),
        ]
        lines += ["", f"Where an agent-step of the {n}-player {name} AEC loop goes (CPU us):"]
        lines += [f"  {part:55s} {value:6.2f}" for part, value in parts]
        lines.append(f"  {'total':55s} {total:6.2f}")
        if "leduc" in us:
            lines.append(f"  {'allowed by the bar (leduc_holdem_v4 / 3)':55s} {us['leduc'] / 3:6.2f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few seconds: one short round per loop, the searches "
                        f"at {QUICK_SIMULATIONS} simulations a decision")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the figures to PATH as JSON")
    parser.add_argument("--breakdown", action="store_true", help="also split an AEC agent-step into its parts")
    parser.add_argument("--game", choices=GAMES, action="append", help="only this game (repeatable; default: all)")
    args = parser.parse_args(argv)
    games = tuple(args.game or GAMES)
    rounds, budget = (1, 0.15) if args.quick else (3, 2.5)
    all_rows = rows(games, args.breakdown, args.quick)
    figures = measure(all_rows, rounds, budget, warm_up=not args.quick)
    print(f"Environment speed of {', '.join(games)} ({'quick' if args.quick else 'full'} mode: best of {rounds} "
          f"interleaved round(s) of {budget} CPU s per loop, seed {SEED})")
    print(f"Python {platform.python_version()}, {platform.system()} {platform.machine()}\n")
    print(table(all_rows, figures, games))
    print(bridge_overhead(figures, games))
    print(native_search(figures, games))
    threads = scaling(games, rounds, budget)
    print(scaling_text(threads))
    if args.breakdown:
        print(breakdown(figures, games))
    if args.json:
        doc = {
            "mode": "quick" if args.quick else "full", "rounds": rounds, "budget_cpu_s": budget, "seed": SEED,
            "python": platform.python_version(), "platform": platform.platform(),
            "rows": [
                {"key": row.key, "label": row.label, "missing": figures[row.key]}
                if not isinstance(figures[row.key], Figure) else
                {"key": row.key, "label": row.label, "steps": figures[row.key].steps,
                 "games": figures[row.key].games, "cpu_s": figures[row.key].seconds,
                 "steps_per_s": figures[row.key].steps_per_s, "games_per_s": figures[row.key].games_per_s,
                 "ms_per_game": figures[row.key].ms_per_game,
                 "ratios": {} if row.key in PEERS or not row.compare else ratios(figures, row.key)}
                for row in all_rows
            ],
            "bars": bars(figures, games),
            "vector_scaling": threads,
        }
        args.json.write_text(json.dumps(doc, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
