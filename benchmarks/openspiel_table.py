"""OpenSpiel's ISMCTS at a few budgets against the project's agents, through ``sobek_env.openspiel``.

Usage::

    sobek-env bench openspiel-table --game sobek --players 2 --budgets 10 40 160 \\
        --opponents heuristic ismcts --games 40 --out results/openspiel-sobek-2p.jsonl
    sobek-env bench openspiel-table --out results/openspiel-sobek-2p.jsonl --table   # the table only

Each row is one budget (simulations per decision of OpenSpiel's ``ISMCTSBot``, random rollouts, UCT
c = 2) against one project agent in every other seat; its seat turns with the game's index. Every game
is seeded (the deal: ``--seed`` plus the game's index; each bot: from the same) and written to ``--out``
as one JSON line when it ends, so a run stopped midway resumes where it was (games already in the file
are not played again). The table gives the win rate of OpenSpiel's bot (a shared victory counts as a
share) with its 95% Wilson interval, its mean margin in points, and the CPU milliseconds per decision
of each side (positions with one legal action are not counted: no bot thinks there).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import pyspiel

from sobek_env import GAMES, load_game
from sobek_env.openspiel import bot, ismcts_bot

CLOCK = time.process_time
Z95 = 1.959964


def wilson(wins: float, games: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a win rate of ``wins`` in ``games``."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return max(0.0, centre - half), min(1.0, centre + half)


def play(game_name: str, players: int, budget: int, opponent: str, index: int, seed: int) -> dict:
    """One game: OpenSpiel's ISMCTS (``budget`` simulations) in seat ``index % players``, ``opponent``
    elsewhere; what the table needs of it."""
    game = pyspiel.load_game(f"python_{game_name}", {"players": players, "seed": seed + index})
    seat = index % players
    bots = [ismcts_bot(game, budget, seed=seed + index) if p == seat else bot(opponent, game, p, seed=seed + index + p)
            for p in range(players)]
    state = game.new_initial_state()
    cpu = [0.0] * players
    decisions = [0] * players
    for b in bots:
        b.restart_at(state)
    while not state.is_terminal():
        p = state.current_player()
        thinking = len(state.legal_actions()) > 1
        start = CLOCK()
        action = bots[p].step(state)
        if thinking:
            cpu[p] += CLOCK() - start
            decisions[p] += 1
        state.apply_action(action)
    engine = state.engine_state
    winners = engine.winners
    margins = load_game(game_name).margins(engine)
    others = [p for p in range(players) if p != seat]
    return {"game": game_name, "players": players, "budget": budget, "opponent": opponent, "index": index,
            "seed": seed, "seat": seat, "win": 1.0 / len(winners) if seat in winners else 0.0,
            "margin": margins[seat], "scores": engine.scores,
            "cpu_ms_per_decision": 1000 * cpu[seat] / max(1, decisions[seat]),
            "opponent_cpu_ms_per_decision": 1000 * sum(cpu[p] for p in others) / max(1, sum(decisions[p]
                                                                                          for p in others))}


def table(records: list[dict]) -> str:
    """The markdown table of the records, one row per (game, players, budget, opponent)."""
    rows: dict[tuple, list[dict]] = {}
    for r in records:
        rows.setdefault((r["game"], r["players"], r["opponent"], r["budget"]), []).append(r)
    lines = ["| game | OpenSpiel ISMCTS | against | games | win rate | 95% interval | margin | "
             "CPU ms/decision (ISMCTS) | CPU ms/decision (against) |",
             "|---|---:|---|---:|---:|---|---:|---:|---:|"]
    for (game, players, opponent, budget), rs in sorted(rows.items()):
        n = len(rs)
        wins = sum(r["win"] for r in rs)
        low, high = wilson(wins, n)
        margin, mine, theirs = (sum(r[key] for r in rs) / n for key in (
            "margin", "cpu_ms_per_decision", "opponent_cpu_ms_per_decision"))
        lines.append(f"| {game}, {players}p | {budget} simulations | {opponent} | {n} | {wins / n:.1%} | "
                     f"{low:.1%} to {high:.1%} | {margin:+.1f} | {mine:.1f} | {theirs:.1f} |")
    return "\n".join(lines)


def read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=GAMES, default="sobek")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--budgets", type=int, nargs="+", default=[10, 40, 160], help="ISMCTS simulations")
    parser.add_argument("--opponents", nargs="+", default=["heuristic", "ismcts"], help="project agent specs")
    parser.add_argument("--games", type=int, default=40, help="games per row")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, required=True, help="JSON lines, one per game (resumed if present)")
    parser.add_argument("--table", action="store_true", help="only print the table of --out")
    args = parser.parse_args(argv)
    load_game(args.game).check_table(args.players)
    if args.games < 1 or any(b < 1 for b in args.budgets):
        parser.error("--games and --budgets must be whole numbers from 1")
    if not args.table:
        done = {(r["game"], r["players"], r["budget"], r["opponent"], r["index"], r["seed"]) for r in read(args.out)}
        args.out.parent.mkdir(parents=True, exist_ok=True)
        for opponent in args.opponents:
            for budget in args.budgets:
                for index in range(args.games):
                    if (args.game, args.players, budget, opponent, index, args.seed) in done:
                        continue
                    record = play(args.game, args.players, budget, opponent, index, args.seed)
                    with args.out.open("a") as f:
                        f.write(json.dumps(record) + "\n")
                    print(f"{opponent} {budget} #{index}: win {record['win']:g} margin {record['margin']:+g} "
                          f"{record['cpu_ms_per_decision']:.0f} ms/decision", flush=True)
    print(table(read(args.out)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
