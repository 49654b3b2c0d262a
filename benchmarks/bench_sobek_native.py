"""Sobek's native engine against the Python engine: a quick speed figure (CPU seconds of this process).

Usage::

    python benchmarks/bench_sobek_native.py [--seconds 2]

Rows, for 2 and 4 players: full random games a second and ``legal_actions`` + ``apply`` steps a second,
single-stepped from Python (the choice is ``random.choice``, the same for both engines), the native
engine's own loop with no Python between steps (``_native.random_playouts``), and observation encodes a
second (the compiled ``Observer.encode`` of a Python state against ``NativeState.encode``).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

import numpy as np
from sobek_env.sobek._native import NativeState, random_playouts

from sobek_env.sobek import GameState
from sobek_env.sobek.observation import Observer, observation_size


def rate(run: Callable[[], int], seconds: float) -> float:
    """Units a CPU second: ``run`` (returning the units it did) repeated for about ``seconds``."""
    done, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        done += run()
    return done / (time.process_time() - start)


def games(engine: type, n: int, seconds: float) -> tuple[float, float]:
    """Random games a CPU second and legal_actions + apply steps a CPU second, on ``engine``."""
    played = steps = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        s, rng = engine.new(n, seed=played), random.Random(played)
        while not s.is_over:
            s.apply(rng.choice(s.legal_actions()))
            steps += 1
        played += 1
    spent = time.process_time() - start
    return played / spent, steps / spent


def positions(n: int, count: int = 200) -> list[GameState]:
    s, rng, out = GameState.new(n, seed=1), random.Random(1), []
    while len(out) < count:
        if s.is_over:
            s = GameState.new(n, seed=len(out))
        s.apply(rng.choice(s.legal_actions()))
        out.append(s.clone())
    return out


def encodes(n: int, seconds: float) -> tuple[float, float]:
    """Memory-mode observations of the seat to move a CPU second: Observer.encode, then NativeState.encode."""
    states = positions(n)
    natives = [NativeState.from_python(s) for s in states]
    observer = Observer(n, "memory")
    buffer = np.zeros(observation_size(n), dtype=np.float32)

    def python() -> int:
        for s in states:
            observer.encode(s, s.current_player)
        return len(states)

    def native() -> int:
        for s in natives:
            s.encode(buffer, s.current_player, True)
        return len(natives)

    return rate(python, seconds), rate(native, seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU seconds per row")
    seconds = parser.parse_args().seconds
    for n in (2, 4):
        row = {name: games(engine, n, seconds) for name, engine in (("python", GameState), ("native", NativeState))}
        start = time.process_time()
        steps = random_playouts(2000, n, 7)
        spent = time.process_time() - start
        own_games, own_steps = 2000 / spent, steps / spent
        py_encodes, nat_encodes = encodes(n, seconds)
        print(f"{n} players:")
        for name, (g, st) in row.items():
            print(f"  {name:>6}: {g:10,.0f} games/s  {st:12,.0f} legal+apply steps/s")
        print(f"  native ratio: {row['native'][0] / row['python'][0]:.1f}x games, "
              f"{row['native'][1] / row['python'][1]:.1f}x steps")
        print(f"  native loop (no Python between steps): {own_games:10,.0f} games/s  {own_steps:12,.0f} steps/s")
        print(f"  encode (memory mode): Observer.encode {py_encodes:10,.0f}/s  NativeState.encode "
              f"{nat_encodes:10,.0f}/s ({nat_encodes / py_encodes:.1f}x)")


if __name__ == "__main__":
    main()
