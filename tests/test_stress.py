"""The stress run (``sobek-env stress``) on a small number of games.

Its counters must agree with each other (every power played resolves one way or another,
every set started is finished, ...), the run must not depend on the number of workers,
and a failing check must be reported with the seed that replays it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import sobek_env
from sobek_env import stress
from sobek_env.game import python_state
from sobek_env.sobek import GAME, SobekGame
from sobek_env.sobek import game as sobek_game
from sobek_env.sobek.actions import ACTION_NAMES
from sobek_env.sobek.catalogue import CHARACTERS, ROUNDS, TOKENS
from sobek_env.sobek.invariants import InvariantError

GAMES = 2000 if os.environ.get("SOBEK_LONG") == "1" else 90
NATIVE = pytest.mark.skipif(GAME.engines == ("python",), reason="the native engines were not built (or are off)")
COUNTERS = frozenset(key for keys in stress.sections(GAME).values() for key in keys)


@pytest.fixture(scope="module")
def summary() -> stress.Summary:
    result, _ = stress.run(GAMES, workers=1, seed=1000)
    return result


def test_the_run_is_the_same_for_any_number_of_workers(summary: stress.Summary) -> None:
    other, _ = stress.run(GAMES, workers=2, seed=1000)
    assert other.counts == summary.counts
    assert (other.steps, other.longest, other.failures) == (summary.steps, summary.longest, summary.failures)
    shifted, _ = stress.run(10, workers=1, seed=1001)
    summary_head, _ = stress.run(10, workers=1, seed=1000)
    assert shifted.counts != summary_head.counts


def test_no_game_failed_and_every_game_ended_within_the_bound(summary: stress.Summary) -> None:
    assert summary.failures == []
    assert summary.games == GAMES
    assert all(steps <= GAME.max_game_length(n) for n, steps in summary.longest.items())


def test_the_counters_agree_with_each_other(summary: stress.Summary) -> None:
    c = summary.counts

    def act(name: str) -> int:
        return c[f"action:{name}"]

    def total(*keys: str) -> int:
        return sum(c[k] for k in keys)

    assert set(c) <= COUNTERS
    assert sum(act(name) for name in ACTION_NAMES) == summary.steps
    games = total(*(f"game:{n}-players" for n in (2, 3, 4)))
    assert games == summary.games == total("end:normal", "end:early") == total("end:shared-victory", "end:sole-winner")
    assert c["round:scored"] == ROUNDS * c["end:normal"] + 2 * c["end:early"]
    assert total("round:first-player-self", "round:first-player-other") == c["round:scored"] - games
    assert c["game:json-reload"] <= games and c["game:via-env"] == len(range(1000, 1000 + GAMES, 10))
    # every character played resolves its power one way or another
    for character, outcomes in {
        "queen": ("drew-cards", "deck-empty"), "vizier": ("took-card", "empty-pile"),
        "merchant": ("in-window", "beyond-window"), "courtesan": ("no-set", "1-card", "2-cards"),
        "thief": ("stole-green", "stole-beige", "stole-orange", "empty-hand"),
    }.items():
        assert act(f"character:{character}") == total(*(f"power:{character}:{o}" for o in outcomes)), character
    priests = act("character:high-priest") + act("character:high-priestess")
    assert priests == total("priest:discarded", "priest:nothing")
    # a family character left in the pile is discarded or kept; every kept one closed the power with done
    assert act("done") >= c["priest:kept-character"]
    scribes = total(*(f"power:scribe:{o}" for o in ("0-opponents", "1-opponent", "2-opponents", "3-opponents")))
    assert act("character:scribe-fish") + act("character:scribe-wheat") == scribes
    forced = c["power:scribe:1-opponent"] + 2 * c["power:scribe:2-opponents"] + 3 * c["power:scribe:3-opponents"]
    assert c["power:scribe:discard"] >= forced  # each opponent over 6 discards at least one card
    # every token chosen resolves, and is chosen after a set while tokens remain
    guilds = sum(act(f"token:{t}") for t in TOKENS if t.startswith("guild"))
    assert guilds == total("token:guild:pushed-back", "token:guild:several-targets", "token:guild:no-target")
    assert act("token:flood") == total("token:flood:extra-turn", "token:flood:chain")
    assert c["token:flood:extra-turn"] >= c["token:flood:chain"]
    assert act("token:curse") == total("token:curse:placed", "token:curse:both-on-one-player")
    assert act("token:prosperity") == total("token:prosperity:placed", "token:prosperity:both-on-one-set",
                                            "token:prosperity:no-set")
    assert act("token:embalming") == total("token:embalming:cards", "token:embalming:empty-pile")
    assert act("token:deceit") == total("token:deceit:points", "token:deceit:zero")
    sets = total("set:new", "set:extension", "set:amulets-only", "set:amulets-only-extended")
    horizontal = total("round:horizontal-set", "round:horizontal-amulets-only")
    assert sum(act(f"set:{g}") for g in ("ivory", "ebony", "marble", "cattle", "fish", "wheat")) == sets + horizontal
    assert act("done") == (sets + horizontal + c["power:courtesan:1-card"] + c["priest:kept-character"]
                           + c["round:horizontal-declined"])
    assert sum(act(f"token:{t}") for t in TOKENS) == sets - c["token:none-left"]
    # the sub-decisions that name a player, a goods or a back colour
    assert sum(act(f"player:{o}") for o in range(4)) == (
        act("character:vizier") + act("character:thief")
        + total("token:guild:pushed-back", "token:guild:several-targets")
        + total("token:curse:placed", "token:curse:both-on-one-player")
        + total("round:first-player-self", "round:first-player-other"))
    assert sum(act(f"goods:{g}") for g in ("ivory", "ebony", "marble", "cattle", "fish", "wheat", "amulet")) == (
        priests + total("token:prosperity:placed", "token:prosperity:both-on-one-set")
        + total("power:courtesan:1-card", "power:courtesan:2-cards"))
    assert c["priest:discarded-character"] <= sum(act(f"card:{k}") for k in CHARACTERS)
    assert sum(act(f"back:{b}") for b in ("green", "beige", "orange")) == total(
        "power:thief:stole-green", "power:thief:stole-beige", "power:thief:stole-orange")
    # a Queen who drew makes exactly one short delivery that round (54 and 45 are multiples of 9)
    assert c["delivery:short"] == c["power:queen:drew-cards"]


def test_the_small_run_already_reaches_the_main_paths(summary: stress.Summary) -> None:
    c = summary.counts
    for name in CHARACTERS:
        assert c[f"action:character:{name}"], name
    for token in TOKENS:
        assert c[f"action:token:{token}"], token
    for key in ("end:normal", "end:shared-victory", "delivery:short", "power:scribe:2-opponents",
                "game:collectors", "game:rules-varied", "round:horizontal-set", "set:extension",
                "round:horizontal-declined", "set:amulets-only", "priest:discarded-character"):
        assert c[key], key


def test_the_bound_is_the_one_stated_in_the_docstring() -> None:
    bounds = {n: GAME.max_game_length(n) for n in (2, 3, 4)}
    assert bounds == {2: 758, 3: 911, 4: 932}
    assert "758 steps with 2 players, 911 with 3, 932 with 4" in " ".join(sobek_game.__doc__.split())


def test_main_prints_the_report_and_writes_json(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "report.json"
    assert stress.main(["--games", "7", "--seed", "5", "--players", "3", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    for heading in ("games/s", "Game length", "Rare paths", "Powers", "Tokens", "Actions", "Never reached"):
        assert heading in text
    data = json.loads(out.read_text())
    assert data["games"] == 7 and data["failures"] == []
    assert set(data["counts"]) == COUNTERS
    assert data["counts"]["game:3-players"] == 7
    assert list(data["length"]) == ["3"] and data["length"]["3"]["bound"] == 911


@pytest.mark.parametrize(("argv", "message"), [
    (["--games", "0"], "--games: must be at least 1, got 0"),
    (["--games", "ten"], "--games: must be an integer, got 'ten'"),
    (["--workers", "0"], "--workers: must be at least 1"),
    (["--seed", "-1"], "--seed: must be 0 or more, got -1"),
    (["--players", "5"], "--players: Sobek is for 2 to 4 players, got 5"),
    (["--players", "1"], "--players: Sobek is for 2 to 4 players, got 1"),
    (["--players", "0"], "--players: must be at least 1"),
    (["--game", "chess"], "--game: invalid choice: 'chess'"),
    (["--players", "2", "2"], "--players: each count once"),
    (["--env-every", "-2"], "--env-every: must be 0 or more"),
    (["--json", "/no/such/dir/report.json"], "--json: directory '/no/such/dir' does not exist"),
    (["--gmaes", "3"], "unrecognized arguments: --gmaes"),
])
def test_bad_arguments_stop_with_an_error_naming_them(argv: list[str], message: str,
                                                       capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as stop:
        stress.main(argv)
    assert stop.value.code == 2
    assert message in capsys.readouterr().err


def test_a_failing_check_is_reported_with_the_seed_that_replays_it(monkeypatch: pytest.MonkeyPatch,
                                                                     capsys: pytest.CaptureFixture) -> None:
    real = SobekGame.check_play

    def broken_in_round_2(game, s) -> None:
        real(game, s)
        if s.round == 2:
            raise InvariantError("planted failure")

    monkeypatch.setattr(SobekGame, "check_play", broken_in_round_2)
    summary, _ = stress.run(3, workers=1, seed=40)
    assert [seed for seed, _ in summary.failures] == [40, 41, 42]
    assert all("InvariantError: planted failure" in error for _, error in summary.failures)
    assert stress.main(["--games", "2", "--seed", "40", "--env-every", "0"]) == 1
    assert "seed 41: step" in capsys.readouterr().out


def test_the_module_runs_from_the_command_line() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "sobek_env.stress", "--games", "2", "--players", "4"],
        capture_output=True, text=True, timeout=300, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Sobek stress run: 2 games" in done.stdout


@NATIVE
@pytest.mark.parametrize("name", ["sobek", "kleopatra"])
def test_both_engines_play_the_same_run_and_native_checks_sampled_steps(name: str) -> None:
    games = 12 if name == "sobek" else 3
    native, _ = stress.run(games, seed=77, game=name, engine="native", env_every=3)
    python, _ = stress.run(games, seed=77, game=name, engine="python", env_every=3)
    assert native.failures == python.failures == []
    assert (native.counts, native.steps, native.longest) == (python.counts, python.steps, python.longest)
    assert python.checked == python.steps
    every = stress.check_every_default(sobek_env.load_game(name), "native")
    assert every > 1 and games <= native.checked <= python.steps // every + games


@NATIVE
def test_a_native_state_that_parts_from_the_python_engine_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    def drifted(s):  # the Python twin draws once more from its generator: its document differs
        twin = python_state(s)
        twin.rng.random()
        return twin

    monkeypatch.setattr(stress, "_twin", drifted)
    summary, _ = stress.run(2, seed=3, engine="native", env_every=0)
    assert [seed for seed, _ in summary.failures] == [3, 4]
    assert all("step 10: StressFailure: the native and the Python engine's states differ" in error
               for _, error in summary.failures)


@NATIVE
def test_the_engine_and_the_checks_are_chosen_on_the_command_line(capsys: pytest.CaptureFixture) -> None:
    assert stress.main(["--games", "2", "--engine", "python", "--check-every", "5", "--env-every", "0"]) == 0
    text = capsys.readouterr().out
    assert "1 worker(s), python engine" in text and "(every 5th of a game and its last)" in text
    assert stress.main(["--games", "2", "--engine", "native", "--env-every", "0"]) == 0
    assert "each such step also played by the Python engine" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        stress.main(["--check-every", "0"])
    assert "--check-every: must be at least 1, got 0" in capsys.readouterr().err
