"""`make demo`: one seeded game between random players, rendered as the player to move sees it,
then a short tournament of the baselines (heuristic, greedy, random) as ``evaluate.py`` reports it."""

from __future__ import annotations

import argparse
import os

import sobek_env
from agents import RandomAgent
from agents.tournament import format_table, play_tournament, summarize

BASELINES = ["heuristic", "greedy", "random"]


def play_one_game(num_players: int, seed: int, show_every: int) -> None:
    env = sobek_env.env(num_players=num_players, render_mode="ansi")
    env.reset(seed=seed)
    players = {agent: RandomAgent(seed + i) for i, agent in enumerate(env.possible_agents)}
    for step, agent in enumerate(env.agent_iter()):
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        if show_every and step % show_every == 0:
            print(f"--- step {step}\n{env.render()}\n")
        env.step(players[agent].act(observation))
    game = env.unwrapped.game
    print(env.unwrapped.render())
    print(f"\nFinal scores after {game.round} rounds: "
          + ", ".join(f"player_{p} {v}" for p, v in enumerate(game.scores)))
    print("Winner(s): " + ", ".join(f"player_{p}" for p in game.winners))


def baseline_table(games: int, seed: int) -> None:
    """Play ``games`` seeded 3-player games between the baselines (seats rotating) and print the table."""
    records = play_tournament(BASELINES, games, seed=seed, workers=os.cpu_count() or 1)
    print(f"\nThe baselines over {games} games (seeds {seed}..{seed + games - 1}; "
          "python evaluate.py --players 3 --agents heuristic greedy random for more):\n")
    print(format_table(summarize(records, BASELINES)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=3, choices=(2, 3, 4))
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--show-every", type=int, default=40, help="render every N steps (0: only the end)")
    parser.add_argument("--games", type=int, default=60, help="games of the baseline tournament (a multiple of 3)")
    args = parser.parse_args()
    play_one_game(args.players, args.seed, args.show_every)
    baseline_table(args.games, args.seed)


if __name__ == "__main__":
    main()
