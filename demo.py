"""`make demo`: what the project does, in a few minutes.

1. One seeded game of Sobek between random players, rendered as the player to move sees it, then the end of
   a seeded game of Kleopatra and the Society of Architects.
2. A short tournament of the baselines (heuristic, greedy, random) in each game, as ``evaluate.py`` reports
   it (Kleopatra's with its own columns: talents, amulets, who the crocodile ate, ...).
3. The shipped learned agents (Sobek's ``models/ppo-2p.zip``, ``models/ppo-4p.zip``, Kleopatra's
   ``models/kleopatra-ppo-3p.zip``) against the baselines.
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
from agents.tournaments.tournament import format_table, play_tournament, summarize

BASELINES = ["heuristic", "greedy", "random"]
ROOT = Path(__file__).resolve().parent
SHIPPED_MODELS = [("sobek", 2, ROOT / "models" / "ppo-2p.zip"), ("sobek", 4, ROOT / "models" / "ppo-4p.zip"),
                  ("kleopatra", 3, ROOT / "models" / "kleopatra-ppo-3p.zip")]
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


def baseline_table(games: int, seed: int, game: str = "sobek") -> None:
    """Play ``games`` seeded 3-player games of ``game`` between the baselines (seats rotating); print the table."""
    records = play_tournament(BASELINES, games, seed=seed, workers=os.cpu_count() or 1, game=game)
    option = "" if game == "sobek" else f" --game {game}"
    print(f"\n{sobek_env.load_game(game).title}: the baselines over {games} games (seeds {seed}..{seed + games - 1}; "
          f"sobek-env evaluate{option} --players 3 --agents heuristic greedy random for more):\n")
    print(format_table(summarize(records, BASELINES, game=game), game=game))


def learned_agent_tables(games: int, seed: int) -> None:
    """Each shipped model against the baselines it was measured against, seats rotating."""
    for game, num_players, path in SHIPPED_MODELS:
        if not path.exists():
            print(f"\n(no shipped model at {path.relative_to(ROOT)}; train one with train.py --game {game})")
            continue
        learned = f"ppo:{path.relative_to(ROOT)}"
        for opponent in ("random", "heuristic"):
            specs = [learned] + [opponent] * (num_players - 1)
            played = games - games % num_players
            records = play_tournament(specs, played, seed=seed, workers=os.cpu_count() or 1, game=game)
            print(f"\n{sobek_env.load_game(game).title}: the shipped {num_players}-player agent against {opponent}, "
                  f"{played} games (a small sample: docs/results/learned-agents.md has 2,000-game figures "
                  "and their commands):\n")
            print(format_table(summarize(records, specs, game=game), game=game))


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
    parser.add_argument("--games", type=int, default=60, help="games of the Sobek baselines (a multiple of 3)")
    parser.add_argument("--kleopatra-games", type=int, default=30,
                        help="games of the Kleopatra baselines (a multiple of 3)")
    parser.add_argument("--learned-games", type=int, default=40, help="games of the learned agent per opponent")
    parser.add_argument("--train-steps", type=int, default=100_000, help="steps of the short training (0: skip)")
    args = parser.parse_args()
    play_one_game(args.players, args.seed, args.show_every)
    print("\n=== Kleopatra and the Society of Architects: the end of a game between random architects ===\n")
    play_one_game(3, args.seed, 0, game="kleopatra")
    baseline_table(args.games, args.seed)
    baseline_table(args.kleopatra_games, args.seed, game="kleopatra")
    learned_agent_tables(args.learned_games, args.seed)
    if args.train_steps:
        short_training(args.train_steps, args.seed)


if __name__ == "__main__":
    main()
