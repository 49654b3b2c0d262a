"""The Kleopatra heuristic's decisions in hand-built positions whose right answer the rules' arithmetic settles.

Corruption (KLEOPATRA_RULES.md §11.4: the most corrupt architect is eaten) is read from the observation
only: in ``memory`` mode the opponents' pyramids are known, in ``original`` mode they are estimated from
the turn, so positions that test the crocodile's edge are set late enough for the estimate to matter.
Each agent sees only its observation (the encoder, as in play) and the action mask, through ``agents.make``.
"""

from __future__ import annotations

import pytest

from sobek_env.kleopatra.catalogue import KIND_INDEX

from .scenario import act, build, legal, up
from .test_agents import choose, offer, run

MODES = ["original", "memory"]


def test_discards_idle_stone_and_keeps_the_only_artisan() -> None:
    """Every element needs artisans (rules §1.3): beside six stones, the lone artisan is the card to keep."""
    hand = ["artisan", "stone", "stone", "stone", "stone", "stone", "stone", "marble", "wood", "lapis"]
    s = build({"players": [{"hand": hand}], "stalls": [[up("lapis"), up("stone"), up("marble")], [], []],
               "rules": {"priest_faces": 0}})
    act(s, "market:0", "stall:0", "stall:1", "end_turn")
    assert s.phase.name == "hand_limit"
    done = run("heuristic", s)
    assert done[0] == "limit:discard" and len(done) == 4
    assert "card:artisan" not in done and "card:lapis" not in done
    assert s.hands[0][KIND_INDEX["artisan"]] == 1


def position_with_tainted_stall(own: int, others: int) -> object:
    """Stall 0 gives more units through doubled cards (2 amulets); stall 1 the same kinds, clean."""
    stalls = [[up("stone2"), up("artisan2")], [up("stone"), up("artisan")], []]
    return build({"turn": 40, "players": [{"hand": ["wood", "marble"], "amulets": own}, {"amulets": others},
                                          {"amulets": others}], "stalls": stalls})


@pytest.mark.parametrize("mode", MODES)
def test_takes_the_clean_stall_at_the_crocodiles_edge(mode: str) -> None:
    s = position_with_tainted_stall(12, 3)
    for spec in ("heuristic", "heuristic:tolerance=0", "heuristic:tolerance=1"):
        assert choose(spec, s, mode) == "market:1"


def test_takes_the_richer_tainted_stall_when_far_from_the_edge() -> None:
    s = position_with_tainted_stall(0, 12)
    assert choose("heuristic", s, "memory") == "market:0"
    assert choose("heuristic:tolerance=1", s, "original") == "market:0"


def test_tolerance_sets_the_price_of_corruption() -> None:
    """The same position, estimated in original mode: a careful player declines what a tolerant one takes."""
    s = position_with_tainted_stall(0, 0)
    assert choose("heuristic:tolerance=0", s) == "market:1"
    assert choose("heuristic:tolerance=1", s) == "market:0"


def envoy_offer(own_amulets: int) -> object:
    s = build({"players": [{"hand": ["envoy"], "amulets": 2},
                           {"hand": ["stone", "stone", "stone", "artisan", "wood"], "amulets": own_amulets},
                           {"amulets": 3}]})
    return act(s, "character:envoy", "card:stone")


def test_offers_an_envoy_spare_cards_to_shed_amulets_when_most_corrupt() -> None:
    """Each accepted card moves one of its amulets to the Envoy's player (rules §8)."""
    s = envoy_offer(12)
    assert s.current_player == 1
    done = run("heuristic", s, "memory")
    assert done.count("yes") >= 2 and done[-1] == "no"


def test_offers_nothing_when_it_has_no_amulet_to_shed() -> None:
    assert run("heuristic", envoy_offer(0), "memory") == ["no"]


def test_gives_a_beggar_a_spare_card_rather_than_talents() -> None:
    s = build({"players": [{"hand": ["beggar"]}, {"hand": ["stone", "stone", "stone", "artisan", "wood"],
                                                   "talents": 10}, {}]})
    act(s, "character:beggar")
    assert s.current_player == 1 and "talents" in legal(s)
    assert run("heuristic", s) == ["card:stone"]


def test_turns_a_die_with_its_scribe_for_no_amulet() -> None:
    """A Scribe held to the end costs an amulet (rules §11.1); turning a die costs none (rules §8)."""
    s = build({"players": [{"hand": ["scribe", "stone"]}], "stalls": [[up("stone")], [], []]})
    done = run("heuristic", s)
    assert done[0] == "character:scribe" and done[1] in ("die:add", "die:remove")
    assert s.amulets[0] == 0


def test_bids_nothing_much_when_safely_clean() -> None:
    """Late in the game with an empty pyramid, it need not buy amulets back (rules §10)."""
    s = build({"turn": 60, "players": [{"amulets": 0, "talents": 20}, {}, {}], "altar": 5,
               "pending": {"phase": "ceremony", "offers": [0, 0, 0]}})
    assert offer("heuristic", s, "original") <= 1


def test_builds_three_elements_in_one_visit_for_the_bonus() -> None:
    """Two walls and a sphinx in one visit earn the +5 bonus (rules §5.3)."""
    hand = ["artisan", "artisan", "artisan", "stone", "stone", "stone", "wood", "wood", "marble"]
    s = build({"players": [{"hand": hand}], "stalls": [[up("lapis")], [], []], "rules": {"priest_faces": 0}})
    assert choose("heuristic", s) == "quarry"
    done = run("heuristic", s, until="after")
    assert sum(a.startswith("wall:") for a in done) == 2 and "sphinx" in done and "merchant" not in done
    assert s.talents[0] == 5 + 3 + 3 + 2 + 5

