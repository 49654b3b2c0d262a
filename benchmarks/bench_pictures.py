"""How long one picture of the table takes: milliseconds of CPU per ``rgb_array`` frame (a seat's view and the
full view) and per rich table, for every game and player count, over the positions of seeded random games.

    sobek-env bench pictures            # every game and player count, about a minute
    sobek-env bench pictures --quick    # a few positions each, seconds

CPU time of this process (``time.process_time``), so a busy machine slows the figures less than wall time
would; the first picture of each table is drawn before timing (fonts and the shared background are cached).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sobek_env import GAMES, load_game
from sobek_env.console import plain


def positions(game_name: str, n: int, seed: int, count: int) -> list:
    """``count`` positions spread over one seeded random game (played once to learn its length, then again)."""
    game = load_game(game_name)

    def replay(keep: set[int]) -> tuple[int, list]:
        rng, state, kept, step = random.Random(seed), game.new(n, seed), [], 0
        while not state.is_over:
            if step in keep:
                kept.append(state.clone())
            state.apply(rng.choice(state.legal_actions()))
            step += 1
        return step, kept

    length, _ = replay(set())
    return replay(set(range(0, length, max(1, length // count))[:count]))[1]


def cpu_ms(draw, states: list) -> float:
    """Milliseconds of CPU per call of ``draw`` over ``states``."""
    start = time.process_time()
    for state in states:
        draw(state)
    return 1000 * (time.process_time() - start) / len(states)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a few positions per table")
    args = parser.parse_args(argv)
    count = 8 if args.quick else 120
    print(f"{'game':<10} {'players':>7} {'frame (H x W)':>14} {'seat view ms':>13} {'full view ms':>13} "
          f"{'rich table ms':>14}")
    for name in GAMES:
        game = load_game(name)
        for n in game.player_counts:
            states = positions(name, n, seed=n, count=count)
            game.render_rgb(states[0], 0)
            seat = cpu_ms(lambda s: game.render_rgb(s, 0), states)  # noqa: B023
            full = cpu_ms(lambda s: game.render_rgb(s, 0, full=True), states)  # noqa: B023
            rich = cpu_ms(lambda s: plain(game.render_rich(s, 0)), states)  # noqa: B023
            height, width = game.frame_size(n)
            print(f"{name:<10} {n:>7} {f'{height} x {width}':>14} {seat:>13.1f} {full:>13.1f} {rich:>14.1f}")


if __name__ == "__main__":
    main()
