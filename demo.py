"""`make demo`: one seeded game between random players, rendered as the player to move sees it."""

from __future__ import annotations

import argparse

import sobek_env
from agents import RandomAgent


def play_one_game(num_players: int, seed: int, show_every: int) -> None:
    env = sobek_env.env(num_players=num_players, render_mode="ansi")
    env.reset(seed=seed)
    players = {agent: RandomAgent(seed + i) for i, agent in enumerate(env.possible_agents)}
    for step, agent in enumerate(env.agent_iter()):
        observation, reward, termination, truncation, info = env.last()
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=3, choices=(2, 3, 4))
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--show-every", type=int, default=40, help="render every N steps (0: only the end)")
    args = parser.parse_args()
    play_one_game(args.players, args.seed, args.show_every)


if __name__ == "__main__":
    main()
