"""What each seat sees (rules §10): private glimpses are remembered by the one who had them, and the
last round's scoring is public. Checked through the observation vectors that agents receive, which hold
exactly a seat's :class:`~sobek_env.sobek.view.View`: the encoders write it, the decoders read it back."""

from __future__ import annotations

import numpy as np
import pytest

from sobek_env.sobek import observation as O
from sobek_env.sobek.catalogue import KIND_INDEX, TOKEN_INDEX
from sobek_env.sobek.observation import Observer, observation_layout
from sobek_env.sobek.view import View, view

from .scenario import act, build
from .test_observation_compiled import _busy_table, _pendings, random_game

GAMES = 4  # random games per player count and mode, every seat at every step


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
    assert view(s, 0).vizier_pile == s.piles[2] and any(s.piles[2])
    assert not any(view(s, 1, "memory").vizier_pile) and not any(view(s, 2, "memory").vizier_pile)
    assert sum(_part(s, 1, "memory", "vizier_pile")) == 0
    act(s, "card:amulet")
    assert not any(view(s, 0, "memory").vizier_pile)


def _remembering() -> object:
    """A 3-player table where seat 0 remembers a different card in each seat's hand and pile (his own row holds
    what he saw of himself, which readers must not take for an opponent's)."""
    s = build({"num_players": 3, "players": [{}, {}, {}], "nile": ["fish-scarab", "wheat-scarab", "cattle-plain"]})
    for seat, (hand, pile) in enumerate((("ivory-plain", "ivory-scarab"), ("fish-plain", "ebony-plain"),
                                         ("wheat-plain", "marble-plain"))):
        s.known_hands[0][seat][KIND_INDEX[hand]] = 1
        s.known_piles[0][seat][KIND_INDEX[pile]] = 1
    return s


@pytest.mark.parametrize("curses", [0, 2])  # regression: the panel's loop over Curses took another seat's memory
def test_the_terminal_and_the_picture_show_each_opponents_remembered_cards(curses: int) -> None:
    from sobek_env.console import plain
    from sobek_env.sobek import picture
    from sobek_env.sobek.console import render_rich

    s = _remembering()
    s.curses[1] = s.curses[2] = curses
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


def _round_trip(s, seat: int, mode: str, observer: O.Observer, where: str) -> None:
    """The seat's view, written by the Python encoder, is the compiled encoder's vector and reads back as itself
    through both decoders."""
    n = s.rules.num_players
    v = view(s, seat, mode)
    vector = observer.encode_python(s, seat).copy()
    assert np.array_equal(observer.encode(s, seat), vector), where
    assert np.array_equal(O.encode_view(v, np.zeros_like(vector)), vector), where
    assert O.decode_python(vector, n) == v, where
    assert O.decode({"observation": vector}, n) == v, where
    if O.COMPILED:  # the compiled decoder itself, not the reference it may fall back on
        compiled = View.__new__(View)
        assert O.decoder(n).read(compiled, vector) and compiled == v, where


@pytest.mark.parametrize("mode", O.MODES)
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_every_seat_reads_its_view_back_from_its_observation(num_players: int, mode: str) -> None:
    observer, phases, glimpses = Observer(num_players, mode), set(), 0
    for game in range(GAMES):
        options = {"scarabs": {"ivory": 5, "cattle": 0}} if game == GAMES - 1 else {}
        for step, s in enumerate(random_game(num_players, 3000 * num_players + game, **options)):
            for seat in range(num_players):
                _round_trip(s, seat, mode, observer, f"game {game}, step {step}, seat {seat}")
                glimpses += view(s, seat, mode).tokens_known is not None
            phases.add(s.phase)
    assert len(phases) > 5 and (glimpses > 0) == (mode == "memory")


@pytest.mark.parametrize("mode", O.MODES)
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_every_sub_decision_reads_back_as_its_view(num_players: int, mode: str) -> None:
    s, observer = _busy_table(num_players, seed=num_players), Observer(num_players, mode)
    for pending in _pendings(num_players):
        for mover in range(num_players):
            s.pending, s.current_player = pending, mover
            for seat in range(num_players):
                _round_trip(s, seat, mode, observer, f"pending {pending}, player {mover} to move, seat {seat}")


def test_a_view_holds_only_what_its_seat_may_see() -> None:
    s = _busy_table(3, seed=3)
    original, memory = view(s, 0), view(s, 0, "memory")
    assert original.pile_backs[1:] == [[0, 0, 0]] * 2 and original.known_hands == [[0] * 28] * 2
    assert memory.pile_backs[1] != [0, 0, 0] and memory.known_hands[0] == s.known_hands[0][1]
    assert memory.known_piles[1] == s.known_piles[0][2]  # rows per opponent, from the seat after him
    assert view(s, 1).hand == s.hands[1] and view(s, 1).scores[0] == s.markers[1]
    with pytest.raises(ValueError, match="observation_mode"):
        view(s, 0, "full")
