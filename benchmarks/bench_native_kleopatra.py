"""Kleopatra's native engine against its Python engine, single-stepped from Python.

Usage::

    python benchmarks/bench_native_kleopatra.py               # 3 players, about a minute
    python benchmarks/bench_native_kleopatra.py --players 5 --seconds 2

Rows (each the best of three interleaved rounds, in CPU seconds of this process):

- games: whole random games (``new`` + ``legal_actions`` + a uniform choice + ``apply`` to the end);
- steps: the legal + apply steps of those games;
- encode: one seat's observation into a preallocated buffer (the Python side is ``Observer.encode``, the
  compiled ``_observe`` encoder where it was built), on mid-game states, in each mode;
- clone and resample: per call, on the same mid-game states.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout, whatever is installed

from sobek_env.compiled import extension
from sobek_env.kleopatra import GameState
from sobek_env.kleopatra.observation import Observer

NATIVE = extension("._native", "sobek_env.kleopatra")


def rate(work: Callable[[], int], seconds: float) -> float:
    """Units of ``work`` per CPU second over about ``seconds``."""
    done, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        done += work()
    return done / (time.process_time() - start)


def games(new: Callable[..., object], n: int) -> tuple[Callable[[], int], Callable[[], int]]:
    """A game's worth of work counted in games, and in steps."""
    rng = random.Random(0)
    counter = [0, 0]

    def one_game() -> int:
        s = new(n, seed=counter[0])
        counter[0] += 1
        rand = rng.random
        steps = 0
        while not s.is_over:
            legal = s.legal_actions()
            s.apply(legal[int(rand() * len(legal))])
            steps += 1
        counter[1] += steps
        return steps

    return (lambda: one_game() and 1), one_game


def midgame_states(n: int, count: int) -> list[GameState]:
    rng = random.Random(1)
    out = []
    for seed in range(count):
        s = GameState.new(n, seed=seed)
        for _ in range(rng.randrange(1200)):
            if s.is_over:
                break
            s.apply(rng.choice(s.legal_actions()))
        out.append(s)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU seconds per row and round")
    args = parser.parse_args()
    if NATIVE is None:
        raise SystemExit("the native engine is not built (or SOBEK_PURE_PYTHON is set): "
                         "run `python setup.py build_ext --inplace`")
    n, sec = args.players, args.seconds
    python_states = midgame_states(n, 20)
    native_states = [NATIVE.from_python(s) for s in python_states]
    buffer = np.zeros(Observer(n).buffer.shape, dtype=np.float32)

    def per_state(states: list, call: Callable[[object, int], object]) -> Callable[[], int]:
        def work() -> int:
            for i, s in enumerate(states):
                call(s, i)
            return len(states)
        return work

    rows: dict[str, tuple[Callable[[], int], Callable[[], int]]] = {}
    python_games, python_steps = games(GameState.new, n)
    native_games, native_steps = games(NATIVE.new, n)
    rows["random games"] = (python_games, native_games)
    rows["legal + apply steps"] = (python_steps, native_steps)
    for mode in ("original", "memory"):
        observer = Observer(n, mode)
        memory = mode == "memory"
        rows[f"encode ({mode})"] = (
            per_state(python_states, lambda s, i, o=observer: o.encode(s, i % n)),
            per_state(native_states, lambda s, i, m=memory: s.encode(buffer, i % n, m)),
        )
    rows["clone"] = (per_state(python_states, lambda s, i: s.clone()), per_state(native_states, lambda s, i: s.clone()))
    rows["resample"] = (per_state(python_states, lambda s, i: s.resample(i % n, random.Random(i))),
                        per_state(native_states, lambda s, i: s.resample(i % n, random.Random(i))))
    best = {name: [0.0, 0.0] for name in rows}
    for _ in range(3):
        for name, pair in rows.items():
            for engine, work in enumerate(pair):
                best[name][engine] = max(best[name][engine], rate(work, sec))
    print(f"Kleopatra, {n} players: per CPU second, best of 3 rounds")
    print(f"{'':22}{'python':>14}{'native':>14}{'ratio':>8}")
    for name, (python, native) in best.items():
        print(f"{name:22}{python:14,.0f}{native:14,.0f}{native / python:7.1f}x")


if __name__ == "__main__":
    main()
