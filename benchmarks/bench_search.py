"""CPU seconds per decision of the search agent at its own defaults (``ismcts:settings=none``), seat 0 against
random legal play, for each game: how the speed table of the search results was measured.

    sobek-env bench search            # 2 deals a game, at most 60 Kleopatra decisions
    sobek-env bench search --quick    # a few decisions, to check that it runs
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import sobek_env
from agents import make

TABLES = (("sobek", 2), ("kleopatra", 3))


def measure(name: str, num_players: int, deals: int, max_decisions: int | None) -> tuple[list[float], int]:
    """Each searched decision's CPU seconds and the simulations they ran, over ``deals`` games."""
    game = sobek_env.load_game(name)
    agent = make("ismcts:settings=none", game=name, num_players=num_players, seed=1)
    times: list[float] = []
    simulations = 0
    for deal in range(deals):
        state, rng = game.new(num_players, seed=deal), random.Random(deal)
        while not state.is_over:
            if state.current_player == 0:
                start = time.process_time()
                action = agent.act(None, state=state)
                elapsed = time.process_time() - start
                if agent.last_simulations:  # a decision with a choice
                    times.append(elapsed)
                    simulations += agent.last_simulations
                state.apply(action)
            else:
                state.apply(rng.choice(state.legal_actions()))
            if max_decisions is not None and len(times) >= max_decisions:
                break  # this deal ends here; the next still plays to its first searched decision
    return times, simulations


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="three decisions a game, to check that it runs")
    args = parser.parse_args(argv)
    print("game players decisions mean_s median_s max_s simulations_per_s")
    for name, num_players in TABLES:
        limit = 3 if args.quick else (60 if name == "kleopatra" else None)
        times, simulations = measure(name, num_players, 1 if args.quick else 2, limit)
        print(name, num_players, len(times), f"{statistics.fmean(times):.3f}", f"{statistics.median(times):.3f}",
              f"{max(times):.3f}", f"{simulations / sum(times):.0f}")


if __name__ == "__main__":
    main()
