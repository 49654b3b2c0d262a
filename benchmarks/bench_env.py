"""Speed of the Sobek engine and environments, beside peers measured in the same run.

Usage::

    python benchmarks/bench_env.py            # full mode, about 1-2 minutes
    python benchmarks/bench_env.py --quick    # a few seconds (the smoke test runs this)
    python benchmarks/bench_env.py --json figures.json
    python benchmarks/bench_env.py --breakdown   # also: where an AEC agent-step goes

Every loop is random legal play from a fixed seed, resetting at the end of each game:

- engine: ``GameState.legal_actions`` + ``apply``;
- AEC: ``env.last()`` (observation and action mask) + ``env.step`` on ``sobek_env.env``;
- single: ``SingleAgentEnv.step`` for the learner, random opponents playing inside it;
- peers (``pip install -e .[bench]``): PettingZoo's ``leduc_holdem_v4`` and ``texas_holdem_v4``
  through the same AEC loop, and OpenSpiel's ``gin_rummy`` through ``pyspiel``
  (``legal_actions`` + ``apply_action``, chance nodes sampled by their probabilities, with or
  without ``observation_tensor`` at each decision).

A step is one decision of a player (chance nodes are not counted). Times are CPU seconds of
this process, so other load on the machine disturbs them less than wall time would; the rows
are measured in interleaved rounds and each keeps its best round. Ratios are ours over the peer.
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
from sobek_env import NUM_ACTIONS, GameState, SingleAgentEnv
from sobek_env.env import FastOrderEnforcingWrapper
from sobek_env.observation import observation_size

SEED = 20240
CLOCK = time.process_time
MISSING = "not installed (pip install -e .[bench])"
PEERS = ("leduc", "texas", "gin", "gin_obs")
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


def engine_loop(num_players: int) -> Loop:
    """Random play through the engine alone."""

    def run(budget: float) -> Figure:
        rng = random.Random(SEED)
        steps = games = 0
        start = CLOCK()
        while True:
            state = GameState.new(num_players, seed=SEED + games)
            while not state.is_over:
                state.apply(rng.choice(state.legal_actions()))
                steps += 1
            games += 1
            if CLOCK() - start >= budget:
                return Figure(steps, games, CLOCK() - start)

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


def single_loop(num_players: int) -> Loop:
    """Random learner actions through ``SingleAgentEnv``; the opponents are random agents."""
    from agents import RandomAgent

    def run(budget: float) -> Figure:
        env = SingleAgentEnv(RandomAgent(seed=SEED), num_players=num_players)
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

    def run(budget: float) -> Figure:
        rng = random.Random(SEED)
        steps = games = 0
        start = CLOCK()
        while True:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes, probabilities = zip(*state.chance_outcomes())
                    state.apply_action(rng.choices(outcomes, probabilities)[0])
                    continue
                if observe:
                    state.observation_tensor(state.current_player())
                state.apply_action(rng.choice(state.legal_actions()))
                steps += 1
            games += 1
            if CLOCK() - start >= budget:
                return Figure(steps, games, CLOCK() - start)

    return run


def pettingzoo_peer(name: str) -> Loop:
    """PettingZoo's classic ``leduc`` or ``texas`` hold'em (pure Python over rlcard) in the AEC loop."""
    from pettingzoo.classic import leduc_holdem_v4, texas_holdem_v4

    module = {"leduc": leduc_holdem_v4, "texas": texas_holdem_v4}[name]
    return aec_loop(module.env)


def unobserved_env(num_players: int) -> AECEnv:
    """``sobek_env.env`` whose observer returns its buffer without encoding: the AEC loop minus the observation."""
    env = sobek_env.env(num_players=num_players)
    observer = env.unwrapped._observer
    observer.encode = lambda state, seat: observer.buffer
    return env


class NullEnv(AECEnv):
    """An AEC environment that does nothing but what the loop reads (a copied vector, a mask, games of
    130 agent-steps among 4 agents): what the AEC loop costs by itself."""

    metadata = {"name": "null_v0"}

    def __init__(self) -> None:
        super().__init__()
        self.possible_agents = [f"player_{i}" for i in range(4)]
        self._vector = np.zeros(observation_size(4), dtype=np.float32)

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
        mask = bytearray(NUM_ACTIONS)
        mask[0] = mask[1] = 1
        return {"observation": self._vector.copy(), "action_mask": np.frombuffer(mask, dtype=np.int8)}

    def step(self, action: int) -> None:
        self._steps += 1
        self.agent_selection = self.possible_agents[self._steps % 4]
        if self._steps == 130:
            self.terminations = {a: True for a in self.agents}


@dataclass
class Row:
    """One line of the table: a key for the JSON, a label, and how to build its loop."""

    key: str
    label: str
    make: Callable[[], Loop]  # raises ImportError when a peer is not installed


def rows(breakdown: bool = False) -> list[Row]:
    """Our loops, then the peers, then (with ``breakdown``) the two diagnostic loops."""
    ours = [
        Row("engine_2p", "engine, 2 players", lambda: engine_loop(2)),
        Row("engine_4p", "engine, 4 players", lambda: engine_loop(4)),
    ]
    for n in (2, 4):
        for mode in ("original", "memory"):
            ours.append(Row(
                f"aec_{n}p_{mode}", f"AEC last+step, {n} players, {mode}",
                lambda n=n, mode=mode: aec_loop(lambda: sobek_env.env(num_players=n, observation_mode=mode)),
            ))
    ours += [
        Row("single_2p", "SingleAgentEnv.step, 2 players", lambda: single_loop(2)),
        Row("single_4p", "SingleAgentEnv.step, 4 players", lambda: single_loop(4)),
    ]
    peers = [
        Row("leduc", "peer: leduc_holdem_v4 (PettingZoo)", lambda: pettingzoo_peer("leduc")),
        Row("texas", "peer: texas_holdem_v4 (PettingZoo)", lambda: pettingzoo_peer("texas")),
        Row("gin", "peer: gin_rummy (OpenSpiel, C++)", lambda: spiel_loop("gin_rummy", observe=False)),
        Row("gin_obs", "peer: gin_rummy + observation_tensor", lambda: spiel_loop("gin_rummy", observe=True)),
    ]
    extra = [
        Row("aec_4p_unobserved", "diagnostic: AEC 4p, observation skipped",
            lambda: aec_loop(lambda: unobserved_env(4))),
        Row("aec_null", "diagnostic: AEC loop of a do-nothing env",
            lambda: aec_loop(lambda: FastOrderEnforcingWrapper(NullEnv()))),
    ]
    return ours + peers + (extra if breakdown else [])


def measure(all_rows: list[Row], rounds: int, budget: float) -> dict[str, Figure | str]:
    """Best round of each row (highest steps/s); a peer that cannot be imported maps to MISSING."""
    loops: dict[str, Loop] = {}
    best: dict[str, Figure | str] = {}
    for row in all_rows:
        try:
            loops[row.key] = row.make()
        except ImportError:
            best[row.key] = MISSING
            continue
        loops[row.key](0.0)  # warm-up: one game, outside the figures
    for _ in range(rounds):  # interleaved, so a burst of outside load hits every row alike
        for key, loop in loops.items():
            figure = loop(budget)
            if key not in best or figure.steps_per_s > best[key].steps_per_s:
                best[key] = figure
    return best


def ratios(figures: dict[str, Figure | str], key: str) -> dict[str, float | None]:
    """Steps per second of row ``key`` over each peer's (None where either is missing)."""
    mine = figures[key]
    out: dict[str, float | None] = {}
    for peer in PEERS:
        theirs = figures.get(peer)
        ok = isinstance(mine, Figure) and isinstance(theirs, Figure)
        out[peer] = mine.steps_per_s / theirs.steps_per_s if ok else None
    return out


def bars(figures: dict[str, Figure | str]) -> list[dict]:
    """The issue's three bars, each with its measured value."""
    out = []

    def ratio_bar(name: str, ours: str, peer: str, target: float) -> None:
        value = ratios(figures, ours)[peer]
        out.append({"bar": name, "value": value, "target": target, "unit": "x",
                    "met": None if value is None else value >= target})

    ratio_bar("engine, 4 players, steps/s >= 2x OpenSpiel gin_rummy", "engine_4p", "gin", 2.0)
    ratio_bar("AEC, 4 players, original, agent-steps/s >= 3x leduc_holdem_v4", "aec_4p_original", "leduc", 3.0)
    ratio_bar("AEC, 4 players, memory, agent-steps/s >= 3x leduc_holdem_v4", "aec_4p_memory", "leduc", 3.0)
    game = figures["engine_4p"]
    ms = game.ms_per_game if isinstance(game, Figure) else None
    out.append({"bar": "a 4-player game through the engine <= 1.5 ms", "value": ms, "target": 1.5, "unit": "ms",
                "met": None if ms is None else ms <= 1.5})
    return out


def table(all_rows: list[Row], figures: dict[str, Figure | str]) -> str:
    """The printed table, then the bars."""
    head = f"{'loop':40s} {'steps/s':>10s} {'games/s':>9s} {'ms/game':>8s}" + "".join(
        f" {PEER_TITLES[p]:>10s}" for p in PEERS)
    lines = [head, "-" * len(head)]
    for row in all_rows:
        figure = figures[row.key]
        if not isinstance(figure, Figure):
            lines.append(f"{row.label:40s} {figure}")
            continue
        cells = "".join(
            f" {'':>10s}" if row.key in PEERS else f" {'n/a' if r is None else f'{r:.2f}':>10s}"
            for r in ratios(figures, row.key).values()
        )
        lines.append(f"{row.label:40s} {figure.steps_per_s:10,.0f} {figure.games_per_s:9,.1f} "
                     f"{figure.ms_per_game:8.2f}{cells}")
    lines.append("")
    lines.append("Bars (same run):")
    for bar in bars(figures):
        if bar["value"] is None:
            lines.append(f"  {bar['bar']}: peer {MISSING}")
            continue
        verdict = "met" if bar["met"] else "NOT met"
        lines.append(f"  {bar['bar']}: {bar['value']:.2f} {bar['unit']} -> {verdict}")
    return "\n".join(lines)


def breakdown(figures: dict[str, Figure | str]) -> str:
    """CPU microseconds per agent-step of the 4-player AEC loop, by part, beside what 3x leduc allows."""
    us = {key: 1e6 / f.steps_per_s for key, f in figures.items() if isinstance(f, Figure)}
    parts = [
        ("the loop itself (wrapper, last, step, random choice)", us["aec_null"]),
        ("the engine (legal actions + apply, new games)", us["engine_4p"]),
        ("the environment around it (mask, rewards, agents)",
         us["aec_4p_unobserved"] - us["engine_4p"] - us["aec_null"]),
        ("the observation (original mode)", us["aec_4p_original"] - us["aec_4p_unobserved"]),
    ]
    lines = ["", "Where an agent-step of the 4-player AEC loop goes (CPU us):"]
    lines += [f"  {name:55s} {value:6.2f}" for name, value in parts]
    lines.append(f"  {'total':55s} {us['aec_4p_original']:6.2f}")
    if "leduc" in us:
        lines.append(f"  {'allowed by the bar (leduc_holdem_v4 / 3)':55s} {us['leduc'] / 3:6.2f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few seconds: one short round per loop")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the figures to PATH as JSON")
    parser.add_argument("--breakdown", action="store_true", help="also split an AEC agent-step into its parts")
    args = parser.parse_args(argv)
    rounds, budget = (1, 0.15) if args.quick else (3, 2.5)
    all_rows = rows(args.breakdown)
    figures = measure(all_rows, rounds, budget)
    print(f"Sobek environment speed ({'quick' if args.quick else 'full'} mode: best of {rounds} interleaved "
          f"round(s) of {budget} CPU s per loop, seed {SEED})")
    print(f"Python {platform.python_version()}, {platform.system()} {platform.machine()}\n")
    print(table(all_rows, figures))
    if args.breakdown:
        print(breakdown(figures))
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
                 "ratios": {} if row.key in PEERS else ratios(figures, row.key)}
                for row in all_rows
            ],
            "bars": bars(figures),
        }
        args.json.write_text(json.dumps(doc, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
