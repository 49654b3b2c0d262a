"""What each seat sees (rules §10): private glimpses are remembered by the one who had them, and the
last round's scoring is public. Checked through the observation vectors that agents receive."""

from __future__ import annotations

import numpy as np

from sobek_env.sobek.catalogue import KIND_INDEX, TOKEN_INDEX
from sobek_env.sobek.observation import Observer, observation_layout
from sobek_env.sobek.view import seat_view

from .scenario import act, build


def _part(s, seat: int, mode: str, name: str) -> list[float]:
    n = s.rules.num_players
    return Observer(n, mode).encode(s, seat)[observation_layout(n)[name]].tolist()


def _vizier_search() -> object:
    """Player 0 searches player 2's pile with the Vizier and takes the ivory-scarab."""
    s = build({"num_players": 3,
               "players": [{"hand": ["vizier"]}, {}, {"corruption": ["ivory-scarab", "amulet", "fish-plain"]}],
               "nile": ["fish-scarab", "wheat-scarab", "cattle-plain", "ebony-plain"]})
    return act(s, "character:vizier", "player:2", "card:ivory-scarab")


def test_the_vizier_searcher_remembers_the_pile_he_searched() -> None:
    s = _vizier_search()
    row = _part(s, 0, "memory", "known_piles")[28:]  # player 2 is the second opponent of seat 0
    assert row[KIND_INDEX["amulet"]] == 1 and row[KIND_INDEX["fish-plain"]] == 1 and sum(row) == 2
    assert sum(_part(s, 1, "memory", "known_piles")) == 0  # player 1 saw nothing of it
    assert sum(_part(s, 0, "original", "known_piles")) == 0  # memory mode only


def test_the_glimpse_is_updated_by_what_the_searcher_sees_later() -> None:
    s = _vizier_search()
    act(s, "take:0")  # player 1 takes the fish-scarab
    act(s, "take:1")  # player 2 skips the wheat-scarab (face up) into his pile
    row = _part(s, 0, "memory", "known_piles")[28:]
    assert row[KIND_INDEX["wheat-scarab"]] == 1 and sum(row) == 3
    assert sum(_part(s, 1, "memory", "known_piles")[:28]) == 1  # for player 1, player 2 comes first


def test_a_token_chooser_knows_which_tokens_remain() -> None:
    s = build({"num_players": 3, "players": [{"hand": ["fish-plain"] * 3}, {"hand": ["wheat-plain"] * 3}, {}],
               "nile": ["ebony-plain", "ebony-plain"], "tokens": ["flood", "deceit", "embalming"]})
    act(s, "set:fish", "card:fish-plain", "card:fish-plain", "card:fish-plain", "done")
    assert _part(s, 0, "original", "token_choice")[TOKEN_INDEX["flood"]] == 1  # while choosing, both modes
    act(s, "token:deceit")
    known = _part(s, 0, "memory", "tokens_known")
    assert known[TOKEN_INDEX["flood"]] == known[TOKEN_INDEX["embalming"]] == 1 and sum(known) == 2
    assert sum(_part(s, 1, "memory", "tokens_known")) == 0  # he never looked
    assert sum(_part(s, 0, "original", "tokens_known")) == 0
    act(s, "set:wheat", "card:wheat-plain", "card:wheat-plain", "card:wheat-plain", "done", "token:flood")
    known = _part(s, 0, "memory", "tokens_known")  # the Flood was revealed as player 1 chose it
    assert known[TOKEN_INDEX["embalming"]] == 1 and sum(known) == 1


def test_the_thief_sees_which_card_he_drew() -> None:
    s = build({"num_players": 3, "current_player": 1, "players": [{"hand": ["thief"]}, {}, {}],
               "nile": ["ebony-plain", "fish-scarab", "wheat-plain", "cattle-plain"]})
    act(s, "take:0", "take:0")  # player 1 takes the ebony-plain, player 2 the fish-scarab, in view of all
    assert _part(s, 0, "memory", "known_hands")[KIND_INDEX["ebony-plain"]] == 1
    act(s, "character:thief", "player:1", "back:beige")  # his only beige card
    assert sum(_part(s, 0, "memory", "known_hands")[:28]) == 0  # the thief saw it leave
    assert _part(s, 2, "memory", "known_hands")[28 + KIND_INDEX["ebony-plain"]] == 1  # player 2 did not


def test_the_last_round_summary_is_public() -> None:
    p0 = {"hand": ["fish-scarab"] * 3, "corruption": ["amulet"] * 4, "curses": 1,
          "sets": [{"goods": "ivory", "cards": ["ivory-scarab"] * 3}]}
    s = build({"round": 1, "players": [p0, {"corruption": ["ebony-plain"]}], "nile": ["ebony-plain"],
               "current_player": 1})
    act(s, "take:0", "set:fish", *["card:fish-scarab"] * 3, "done")
    assert s.round == 2
    for seat in (0, 1):
        me, other = (0, 1) if seat == 0 else (1, 0)
        points = _part(s, seat, "original", "last_points")
        assert np.isclose(points[me], 0.30) and points[other] == 0
        assert _part(s, seat, "original", "last_corruption")[me] == 4
        assert _part(s, seat, "original", "last_curses")[me] == 1
        assert _part(s, seat, "original", "last_most_corrupt") == [1.0 if i == me else 0.0 for i in range(2)]
        assert np.isclose(_part(s, seat, "original", "last_penalty")[me], 0.15)
        laid = _part(s, seat, "original", "last_horizontal")[me * 28:(me + 1) * 28]
        assert laid[KIND_INDEX["fish-scarab"]] == 3 and sum(laid) == 3


def test_the_searched_pile_is_shown_to_the_searcher_only_while_he_searches() -> None:
    s = build({"num_players": 3,
               "players": [{"hand": ["vizier"]}, {}, {"corruption": ["ivory-scarab", "amulet"]}],
               "nile": ["fish-scarab", "wheat-scarab"]})
    act(s, "character:vizier", "player:2")
    assert seat_view(s, 0, memory=False).vizier_pile == s.piles[2]
    assert seat_view(s, 1, memory=True).vizier_pile is None and seat_view(s, 2, memory=True).vizier_pile is None
    assert sum(_part(s, 1, "memory", "vizier_pile")) == 0
    act(s, "card:amulet")
    assert seat_view(s, 0, memory=True).vizier_pile is None


def _remembering() -> object:
    """A 3-player table where seat 0 remembers a different card in each seat's hand and pile (his own row holds
    what he saw of himself, which readers must not take for an opponent's)."""
    s = build({"num_players": 3, "players": [{}, {}, {}], "nile": ["fish-scarab", "wheat-scarab", "cattle-plain"]})
    for seat, (hand, pile) in enumerate((("ivory-plain", "ivory-scarab"), ("fish-plain", "ebony-plain"),
                                         ("wheat-plain", "marble-plain"))):
        s.known_hands[0][seat][KIND_INDEX[hand]] = 1
        s.known_piles[0][seat][KIND_INDEX[pile]] = 1
    return s


def test_the_terminal_and_the_picture_show_each_opponents_remembered_cards() -> None:
    from sobek_env.console import plain
    from sobek_env.sobek import picture
    from sobek_env.sobek.console import render_rich

    s = _remembering()
    text = plain(render_rich(s, 0, memory=True), 200)
    table = text[text.index("│ player_1"):]
    player_1, player_2 = table.split("├")[0], table.split("├")[1]  # each seat's row of the players' table
    assert "remembered:  fish" in player_1 and "remembered:  ebony" in player_1 and "ivory" not in player_1
    assert "remembered:  wheat" in player_2 and "remembered:  marble" in player_2
    drawn = []
    real = picture.kinds_row

    def spy(c, x, y, counts, rules, right, size=picture.MINI):
        drawn.append([k for k, n in enumerate(counts) if n])
        return real(c, x, y, counts, rules, right, size)

    picture.kinds_row = spy
    try:
        picture.picture(s, 0, memory=True)
    finally:
        picture.kinds_row = real
    remembered = [kinds for kinds in drawn if len(kinds) == 1]
    assert [KIND_INDEX["fish-plain"]] in remembered and [KIND_INDEX["marble-plain"]] in remembered
    assert [KIND_INDEX["ivory-plain"]] not in remembered  # seat 0's own row
