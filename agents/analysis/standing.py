"""The table of a tournament so far: the games an ``evaluate.py`` run has played, finished or not.

    sobek-env standing records/bar-kleopatra-ismcts.tar.xz

A long tournament (the search bars take many sittings) keeps its games in ``games.jsonl`` as they end;
this prints the table ``evaluate.py`` prints at the end (win rates with Wilson intervals, scores, the
game's own columns, ratings, CPU time per decision) over the games played so far, while the run goes on
or after it stopped, and writes nothing. ``--json`` prints the same rows as one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from agents.analysis.paired import read_tournament
from agents.common.arguments import TrainingParser, add_json_option, one_line_errors
from agents.tournaments.tournament import format_table, summarize
from sobek_env.registry import load_game


def build_parser() -> argparse.ArgumentParser:
    parser = TrainingParser(prog="sobek-env standing",
                            description="The table of an evaluate.py tournament over the games played so far.")
    parser.add_argument("tournament", type=Path, help="the tournament (an evaluate.py --out directory)")
    add_json_option(parser, "the table")
    return parser


def main(argv: list[str] | None = None) -> None:
    parser = build_parser()
    args = parser.parse_args(argv)
    with one_line_errors(parser, "argument tournament"):
        arguments, records = read_tournament(args.tournament)
    if not records:
        parser.error(f"argument tournament: {str(args.tournament)!r} has played no game yet")
    played = [records[index] for index in sorted(records)]
    game = load_game(arguments.get("game", "sobek"))
    summaries = summarize(played, arguments["agents"], game)
    if args.json:
        print(json.dumps({"played": len(played), "games": arguments["games"],
                          "summary": [s.row() for s in summaries]}))
        return
    print(f"{game.title}: {len(played):,} of {arguments['games']:,} games played, {arguments['players']} players, "
          f"{arguments.get('mode', 'original')} observations\n")
    print(format_table(summaries, game))


if __name__ == "__main__":
    main(sys.argv[1:])
