"""The stress run plays Kleopatra (``sobek-env stress --game kleopatra``): a few games of every player
count pass every check (invariants, JSON reload, resample, the environment), the report lists every event."""

from __future__ import annotations

import json
import os
from collections import Counter

from sobek_env import stress
from sobek_env.kleopatra import EVENTS, GAME

GAMES = 200 if os.environ.get("SOBEK_LONG") == "1" else 12


def test_stress_games_pass_every_check_and_report() -> None:
    summary, _ = stress.run(GAMES, seed=0, game="kleopatra", env_every=4)
    assert summary.failures == [] and summary.games == GAMES
    c = summary.counts
    # every fourth game through the environment (GAMES is a multiple of 4)
    assert c["game:json-reload"] > 0 and c["game:resample"] > 0 and c["game:via-env"] == GAMES // 4
    assert {f"game:{n}-players" for n in GAME.player_counts} <= set(c)
    assert set(c) - {k for k in c if k.startswith(("game:", "action:"))} <= set(EVENTS)
    assert all(steps <= GAME.max_game_length(n) for n, steps in summary.longest.items())
    sections = stress.sections(GAME)
    assert set(EVENTS) == {e for name, keys in sections.items() if name not in ("games", "actions") for e in keys}


def test_a_game_is_replayed_by_its_seed() -> None:
    first, again = stress.Summary(), stress.Summary()
    for summary in (first, again):
        stress.play_game(GAME, stress.game_setup(GAME, 13, GAME.player_counts, 0), summary)
    assert first.failures == [] and (first.steps, first.counts) == (again.steps, again.counts)
    other = stress.Summary()
    stress.play_game(GAME, stress.game_setup(GAME, 14, GAME.player_counts, 0), other)
    assert Counter(other.counts) != Counter(first.counts)


def test_the_command_line(tmp_path, capsys) -> None:
    out = tmp_path / "report.json"
    assert stress.main(["--game", "kleopatra", "--games", "2", "--seed", "5", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "Kleopatra and the Society of Architects stress run: 2 games" in text and "Ceremonies" in text
    assert json.loads(out.read_text())["failures"] == []
