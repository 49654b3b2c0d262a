"""`make demo`: what the project does, in a few minutes.

1. One seeded game of Sobek between random players, rendered as the player to move sees it, then the end of
   a seeded game of Kleopatra and the Society of Architects, and a few random Kleopatra games' statistics.
2. A short tournament of the baselines (heuristic, greedy, random) as ``evaluate.py`` reports it.
3. The shipped learned agents (``models/ppo-2p.zip``, ``models/ppo-4p.zip``) against the baselines.
4. A short training run of ``train.py``, to show the loop works end to end.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

import sobek_env
from agents import RandomAgent
from agents.tournament import format_table, play_tournament, summarize

BASELINES = ["heuristic", "greedy", "random"]
ROOT = Path(__file__).resolve().parent
SHIPPED_MODELS = {n: ROOT / "models" / f"ppo-{n}p.zip" for n in (2, 4)}
DEMO_RUN = ROOT / "runs" / "demo"


def play_one_game(num_players: int, seed: int, show_every: int, game: str = "sobek") -> None:
    env = sobek_env.env(game=game, num_players=num_players, render_mode="ansi")
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
    state = env.unwrapped.game
    print(env.unwrapped.render())
    print("\nFinal scores: " + ", ".join(f"player_{p} {v}" for p, v in enumerate(state.scores)))
    print("Winner(s): " + ", ".join(f"player_{p}" for p in state.winners))


def kleopatra_table(games: int, seed: int) -> None:
    """Random players at Kleopatra, with the game's own columns (talents, amulets, the crocodile)."""
    specs = ["random"] * 3
    records = play_tournament(specs, games, seed=seed, workers=os.cpu_count() or 1, game="kleopatra")
    print(f"\nKleopatra: three random architects over {games} games (seeds {seed}..{seed + games - 1}; "
          "python evaluate.py --game kleopatra --players 3 --agents random random random for more):\n")
    print(format_table(summarize(records, specs, game="kleopatra"), game="kleopatra"))


def baseline_table(games: int, seed: int) -> None:
    """Play ``games`` seeded 3-player games between the baselines (seats rotating) and print the table."""
    records = play_tournament(BASELINES, games, seed=seed, workers=os.cpu_count() or 1)
    print(f"\nThe baselines over {games} games (seeds {seed}..{seed + games - 1}; "
          "python evaluate.py --players 3 --agents heuristic greedy random for more):\n")
    print(format_table(summarize(records, BASELINES)))


def learned_agent_tables(games: int, seed: int) -> None:
    """Each shipped model against the baselines it was measured against, seats rotating."""
    for num_players, path in SHIPPED_MODELS.items():
        if not path.exists():
            print(f"\n(no shipped model at {path.relative_to(ROOT)}; train one with train.py)")
            continue
        learned = f"ppo:{path.relative_to(ROOT)}"
        for opponent in ("random", "heuristic"):
            specs = [learned] + [opponent] * (num_players - 1)
            records = play_tournament(specs, games, seed=seed, workers=os.cpu_count() or 1)
            print(f"\nThe shipped {num_players}-player agent against {opponent}, {games} games "
                  "(a small sample: the README gives 2,000-game figures and their commands):\n")
            print(format_table(summarize(records, specs)))


def short_training(timesteps: int, seed: int) -> None:
    """A few minutes of train.py from scratch, printing its progress and evaluations."""
    shutil.rmtree(DEMO_RUN, ignore_errors=True)  # the demo's own scratch run
    command = [sys.executable, "train.py", "--players", "2", "--timesteps", str(timesteps), "--out", str(DEMO_RUN),
               "--seed", str(seed), "--eval-every", str(timesteps // 2), "--eval-games", "40",
               "--checkpoint-every", str(timesteps // 2), "--snapshot-every", str(timesteps // 2)]
    print(f"\nA short training run ({timesteps:,} steps):\n  {' '.join(command[1:])}\n", flush=True)
    subprocess.run(command, cwd=ROOT, check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=3, choices=(2, 3, 4))
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--show-every", type=int, default=40, help="render every N steps (0: only the end)")
    parser.add_argument("--games", type=int, default=60, help="games of the baseline tournament (a multiple of 3)")
    parser.add_argument("--kleopatra-games", type=int, default=12, help="random Kleopatra games (a multiple of 3)")
    parser.add_argument("--learned-games", type=int, default=40, help="games of the learned agent per opponent")
    parser.add_argument("--train-steps", type=int, default=100_000, help="steps of the short training (0: skip)")
    args = parser.parse_args()
    play_one_game(args.players, args.seed, args.show_every)
    print("\n=== Kleopatra and the Society of Architects: the end of a game between random architects ===\n")
    play_one_game(3, args.seed, 0, game="kleopatra")
    kleopatra_table(args.kleopatra_games, args.seed)
    baseline_table(args.games, args.seed)
    learned_agent_tables(args.learned_games, args.seed)
    if args.train_steps:
        short_training(args.train_steps, args.seed)


if __name__ == "__main__":
    main()
