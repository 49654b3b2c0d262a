"""The game object, the registry, statistics, rendering and the event log."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from sobek_env.game import Game, Observer, State
from sobek_env.kleopatra import EVENTS, GAME, GameState
from sobek_env.kleopatra.render import render_text
from sobek_env.registry import load_game

from .policies import Player
from .scenario import act, build

PACKAGE = Path(__file__).parents[2] / "sobek_env" / "kleopatra"


def test_the_game_object() -> None:
    assert load_game("kleopatra") is GAME and isinstance(GAME, Game)
    assert (GAME.name, GAME.version, GAME.min_players, GAME.max_players, GAME.default_players) == (
        "kleopatra", 1, 2, 5, 3)
    assert GAME.num_actions == 144 and GAME.action_id("bid:10") == 143
    s = GAME.new()
    assert isinstance(s, State) and s.num_players == 3
    assert isinstance(GAME.observer(4, "memory"), Observer)
    assert GAME.from_json(s.to_json()) == s
    assert GAME.max_game_length(5) > GAME.max_game_length(5, max_turns=10) > 0
    GAME.check(s)
    GAME.check_play(s)
    with pytest.raises(ValueError):
        GAME.observer(6)
    assert "Kleopatra" in repr(GAME)


def test_render_shows_the_table_and_only_what_the_seat_may_see() -> None:
    s = build({"players": [{"hand": ["vizier", "lapis2"], "talents": 8, "amulets": 3},
                           {"hand": ["courtesan"], "talents": 14, "amulets": 7}],
               "stalls": [[{"kind": "stone", "up": True}, {"kind": "envoy", "up": False}], [], []],
               "palace": {"walls": [1, 2], "mosaics": [{"tile": "I", "orient": 1, "square": 1, "by": 1}],
                          "sphinxes": 3}})
    text = render_text(s, 0)
    for part in ("Market", "stone, 1 face down", "Palace and garden", "y=7", "Sphinx alley: S1 S2 S3", "W1#",
                 "vizier", "talents 8, amulets 3", "Legal:", "market:0", "Cleopatra"):
        assert part in text, part
    assert "I I I I I" in text
    assert "courtesan" not in text and "talents 14" not in text and "envoy" not in text
    other = render_text(s, 1)
    assert "courtesan" in other and "vizier" not in other and "Legal:" not in other
    assert "talents 14" in render_text(s, 2, "memory")
    assert GAME.render_text(s) == render_text(s)


def test_statistics_and_margins_of_random_games() -> None:
    for n in (2, 3, 4, 5):
        s = GameState.new(n, seed=n, engine="python")
        player = Player(["builder", "uniform"], n)
        while not s.is_over:
            s.apply(player.pick(s))
        stats = GAME.statistics(s)
        assert sum(x["elements_built"] for x in stats) == sum(s.built_by) > 0
        margins = GAME.margins(s)
        best = max(range(n), key=lambda p: (margins[p], -s.amulets[p]))
        assert margins[best] >= 0 and (best in s.winners or margins[best] == 0)
        assert all(margins[p] <= 0 for p in s.eliminated)


def test_the_event_log_is_off_by_default_and_lists_only_known_events() -> None:
    s = GameState.new(3, seed=1, engine="python")
    assert s.log is None
    seen: Counter = Counter()
    for seed in range(8):
        s = GameState.new(2 + seed % 4, seed=seed, engine="python")
        s.log = []
        player = Player(["builder", "characters", "hoarder", "uniform", "characters"], seed)
        while not s.is_over:
            s.apply(player.pick(s))
        seen.update(s.log)
    assert set(seen) <= set(EVENTS)
    assert {"market", "quarry", "ceremony", "reshuffle", "sanctuary:formed"} <= set(seen)


def test_every_event_the_source_writes_is_listed() -> None:
    source = "\n".join(p.read_text() for p in PACKAGE.glob("*.py"))
    written = set(re.findall(r'log\.append\("([a-z:\-0-9]+)"\)', source))
    written |= set(re.findall(r'log \+= \[(.*?)\]', source))
    literal = {w for w in written if not w.startswith('"')}
    assert literal <= set(EVENTS), literal - set(EVENTS)
    for name in ("end:cleopatra", "end:max-turns"):
        assert name in EVENTS and f'"{name}"' in source
    assert len(EVENTS) == len(set(EVENTS))


def test_a_clone_does_not_share_the_log() -> None:
    s = build({"players": [{"hand": ["beggar"]}]})
    s.log = []
    c = s.clone()
    act(s, "character:beggar")
    assert c.log is None and s.log


def test_a_tournament_reports_the_games_own_columns() -> None:
    from agents.tournaments.tournament import format_table, play_tournament, summarize

    specs = ["random", "random", "random"]
    records = play_tournament(specs, 6, game="kleopatra", seed=3)
    summaries = summarize(records, specs, game="kleopatra")
    for agent, summary in enumerate(summaries):
        seats = [record.seat_of(agent) for record in records]
        eaten = sum(record.stats[seat]["eliminated"] for record, seat in zip(records, seats))
        assert summary.stats["eliminated_rate"] == eaten / len(records)
        assert summary.stats["amulets"] == sum(r.stats[s]["amulets"] for r, s in zip(records, seats)) / 6
    header = format_table(summaries, game="kleopatra").splitlines()[0]
    assert all(label in header for label in ("talents", "amulets", "eaten", "sanctuaries", "ceremonies won"))


def test_max_score_bounds_every_score_and_follows_the_rules() -> None:
    import random

    rng = random.Random(0)
    for seed in range(6):
        n = 2 + seed % 4
        s = GAME.new(n, seed=seed, max_turns=60)
        while not s.is_over:
            s.apply(rng.choice(s.legal_actions()))
        assert min(s.scores) >= 0 and max(s.scores) <= GAME.max_score(n, max_turns=60)
    assert GAME.max_score(3) > 0
    with pytest.raises(ValueError, match="hand_limit"):
        GAME.max_score(3, hand_limit=-1)


def test_the_quarry_visit_is_found_beneath_the_phases_that_interrupt_it() -> None:
    from sobek_env.kleopatra.phases import TURN, Anubis, MosaicTile, Quarry, pending_chain, quarry_visit

    visit = Quarry([0] * 4, [0] * 12, [])
    tile = MosaicTile(visit)
    statue = Anubis(tile, [])
    assert list(pending_chain(statue)) == [statue, tile, visit] and list(pending_chain(None)) == []
    assert quarry_visit(statue) is visit and quarry_visit(visit) is visit
    assert quarry_visit(MosaicTile(None)) is None and quarry_visit(TURN) is None and quarry_visit(None) is None


def test_the_event_log_is_written_through_the_shared_emit() -> None:
    """Kleopatra reports its rules paths as Sobek does (PhasedState.emit), and only where a log is kept."""
    from sobek_env.game import PhasedState
    from sobek_env.sobek import GameState as SobekState

    assert GameState.emit is PhasedState.emit is SobekState.emit
    s = GAME.new(3, seed=2, engine="python")
    s.log = []
    for _ in range(40):
        s.apply(s.legal_actions()[-1])
    assert s.log and set(s.log) <= set(EVENTS)
    quiet = GAME.new(3, seed=2, engine="python")
    for _ in range(40):
        quiet.apply(quiet.legal_actions()[-1])
    assert quiet.log is None and quiet == s
