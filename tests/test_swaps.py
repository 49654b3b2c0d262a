"""agents.analysis.swaps: the baseline plays, an agent takes over some phases' decisions, on the same deals."""

from __future__ import annotations

import json
import math

import pytest

from agents.analysis.swaps import ALL, NONE, Group, format_swaps, main, swaps


def by_name(rows: list) -> dict:
    return {row.name: row for row in rows}


def test_an_agent_swapped_for_itself_changes_no_game() -> None:
    rows = by_name(swaps("kleopatra", 3, "heuristic", "heuristic", ["turn", "quarry+ceremony"], games=12))
    assert list(rows) == [NONE, ALL, "turn", "quarry+ceremony"]
    for name in (ALL, "turn", "quarry+ceremony"):
        assert rows[name].share == rows[NONE].share and rows[name].difference == 0.0
        assert rows[name].decisions > 0 and rows[name].differ == 0.0
    assert rows["turn"].decisions + rows["quarry+ceremony"].decisions < rows[ALL].decisions


def test_random_choices_in_a_phase_differ_from_the_baseline_and_cost_games() -> None:
    rows = by_name(swaps("sobek", 2, "random", "heuristic", ["turn"], games=40, seed=3))
    assert 0 < rows["turn"].differ <= 1 and rows["turn"].decisions > 1
    assert rows[ALL].share < rows[NONE].share  # random alone loses to the heuristic
    assert rows[ALL].difference == pytest.approx(rows[ALL].share - rows[NONE].share)
    assert rows[ALL].margin > 0 and math.isnan(rows[NONE].margin)


def test_the_figures_do_not_depend_on_the_workers() -> None:
    one = swaps("sobek", 2, "random", "heuristic", ["turn"], games=30, seed=9)
    two = swaps("sobek", 2, "random", "heuristic", ["turn"], games=30, seed=9, workers=2)
    assert one == two


def test_the_command_prints_the_table_and_its_json(capsys: pytest.CaptureFixture) -> None:
    args = ["--game", "sobek", "--players", "2", "--agent", "random", "--groups", "turn", "set+token",
            "--games", "6"]
    main(args)
    printed = capsys.readouterr().out
    assert "none: the baseline alone" in printed and "all: the agent alone" in printed
    assert "set+token" in printed and "6 games each, the same deals" in printed
    main([*args, "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert [group["name"] for group in doc["groups"]] == [NONE, ALL, "turn", "set+token"]
    assert doc["groups"][0]["margin"] is None and doc["groups"][1]["margin"] > 0  # the baseline alone has none


def test_a_long_group_name_widens_the_first_column() -> None:
    long = "priest+priest_characters+horizontal+horizontal_set"
    rows = [Group(NONE, 6, 0.5, 0.2, 0.8, 0.0, math.nan, 0.0, math.nan),
            Group(long, 6, 0.25, 0.05, 0.6, -0.25, 0.3, 3.5, 0.5)]
    lines = format_swaps(rows, "random", "heuristic").splitlines()[2:]
    assert lines[2].startswith(long + " ")
    starts = {line.index("%") for line in lines[1:]}  # the wins column ends at one place on every row
    assert len(starts) == 1 and lines[0].index("wins") + len("wins") == starts.pop() + 1


@pytest.mark.parametrize(("args", "message"), [
    (["--groups", "mosaic_square"], "Sobek has no phase 'mosaic_square'; its phases are turn, set,"),
    (["--agent", "ismcts"], "'ismcts' searches the game's state; swaps need agents that read the observation"),
    (["--players", "5"], "Sobek is for 2 to 4 players"),
    (["--agent", "net:missing.zip"], "missing.zip"),
    (["--games", "0"], "--games"),
])
def test_bad_input_stops_with_one_line(capsys: pytest.CaptureFixture, args: list[str], message: str) -> None:
    base = {"--players": "2", "--agent": "random", "--games": "2"}
    for i in range(0, len(args), 2):
        base[args[i]] = args[i + 1]
    with pytest.raises(SystemExit) as stop:
        main([part for pair in base.items() for part in pair] + ["--game", "sobek"])
    assert stop.value.code == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and message in error
