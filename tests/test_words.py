"""The games' words for actions (``describe_action``, ``seen_move``) and a seat's document say nothing that the
seat may not see: unchanged when what it cannot see is dealt again, and two moves that leave a seat the same
view read the same to it. ``SOBEK_LONG=1`` looks at the positions of more games."""

from __future__ import annotations

import json
import os
import random

import pytest

from sobek_env.game import python_state
from sobek_env.registry import load_game

LONG = os.environ.get("SOBEK_LONG") == "1"
EVERY = {"sobek": 5, "kleopatra": 29 if LONG else 53}  # positions of a game the redeal check looks at: every Nth
TABLES = [("sobek", 2), ("sobek", 4), ("kleopatra", 3), ("kleopatra", 5)]
# Choices made in the open that may leave no trace on the table, so two of them can look alike afterwards
# though each was seen: an opponent chosen for a power with nothing to take (Sobek rules §4), and where
# two face-down refill cards went (Kleopatra rules §12: "the visible sides of refill cards and where they go").
PUBLIC_CHOICES = {"sobek": ("player:",), "kleopatra": ("stall:",)}


def positions(game_name: str, players: int, seed: int, every: int):
    """Every ``every``-th state of a random game (the state before the move)."""
    game = load_game(game_name)
    state = game.new(players, seed)
    rng = random.Random(seed)
    step = 0
    while not state.is_over:
        if step % every == 0:
            yield state
        state.apply(rng.choice(state.legal_actions()))
        step += 1


@pytest.mark.parametrize(("game_name", "players"), TABLES)
def test_words_and_documents_survive_a_redeal_of_what_the_seat_cannot_see(game_name: str, players: int) -> None:
    game = load_game(game_name)
    checked = 0
    for seed in range(2):
        for state in positions(game_name, players, seed, EVERY[game_name]):
            actor, legal = state.current_player, state.legal_actions()
            for seat in range(players):
                other = state.resample(seat, random.Random(seed * 7 + seat))
                for mode in ("original", "memory"):
                    assert game.seat_document(state, seat, mode) == game.seat_document(other, seat, mode)
                if seat == actor:
                    assert [game.describe_action(state, a) for a in legal] == \
                        [game.describe_action(other, a) for a in legal]
                else:
                    assert [game.seen_move(state, a, seat) for a in legal] == \
                        [game.seen_move(other, a, seat) for a in legal]
                checked += 1
    assert checked > 100


@pytest.mark.parametrize(("game_name", "players"), TABLES)
def test_moves_that_leave_a_seat_the_same_view_read_the_same_to_it(game_name: str, players: int) -> None:
    game = load_game(game_name)
    groups_seen = 0
    for seed in range(4 if LONG else 1):
        for state in positions(game_name, players, seed, 3 if game_name == "sobek" else 11):
            actor = state.current_player
            for seat in range(players):
                if seat == actor:
                    continue
                said: dict[str, set] = {}
                for action in state.legal_actions():
                    if game.action_names[action].startswith(PUBLIC_CHOICES[game_name]):
                        continue
                    after = state.clone()
                    after.apply(action)
                    seen = json.dumps(game.seat_document(after, seat), sort_keys=True)
                    said.setdefault(seen, set()).add(game.seen_move(state, action, seat))
                for texts in said.values():
                    assert len(texts) == 1, texts
                groups_seen += sum(len(texts) for texts in said.values()) < len(state.legal_actions())
    assert groups_seen > 0  # some moves did look alike to a seat, so the check had something to hold


def test_sobek_says_which_card_a_take_takes_and_which_go_to_the_pile() -> None:
    game = load_game("sobek")
    state = game.new(2, 1)
    nile = python_state(state).nile
    said = game.describe_action(state, game.action_id("take:2"))
    from sobek_env.sobek.words import nile_card

    assert said == (f"take {nile_card(nile[2])} from Nile position 2; {nile_card(nile[0])}, {nile_card(nile[1])} go "
                    "to your corruption pile")
    other = game.seen_move(state, game.action_id("take:2"), 1)
    assert other.startswith(f"takes {nile_card(nile[2])} from Nile position 2")


def test_a_ceremony_offer_is_seen_by_nobody_but_its_closing_by_all() -> None:
    game = load_game("kleopatra")
    from sobek_env.kleopatra.phases import Ceremony

    state = next(s for seed in range(40) for s in positions("kleopatra", 3, seed, 1)
                 if isinstance(python_state(s).pending, Ceremony))
    seat = (state.current_player + 1) % 3
    for action in state.legal_actions():
        name = game.action_names[action]
        assert game.seen_move(state, action, seat) == ("closes the offer" if name == "done" else None)
    assert all("offer" in game.describe_action(state, a) for a in state.legal_actions())


def test_the_shared_words_split_names_pick_a_phase_and_say_the_mover_in_the_third_person() -> None:
    from sobek_env.words import action_parts, phase_words, third_person

    class Laying:
        goods = "wood"

    class LayingTwo(Laying):
        pass

    assert action_parts(("done", "card:wood"), 1) == ("card:wood", "card", "wood")
    assert action_parts(("done", "card:wood"), 0) == ("done", "done", "")
    said = {int: "a number", Laying: lambda laying: f"lay {laying.goods}"}
    assert phase_words(LayingTwo(), said, "else") == "lay wood"  # a subclass takes its base's words
    assert phase_words(3, said, "else") == "a number" and phase_words(None, said, "else") == "else"
    assert phase_words(True, {(str, bool): "first", int: "second"}, "else") == "first"  # the first that fits
    pronouns, verbs = (("your ", "his "), ("yourself", "himself")), {"take": "takes"}
    assert third_person("take your card for yourself", pronouns, verbs) == "takes his card for himself"
    assert third_person("pass your turn", pronouns, verbs) == "pass his turn"  # no third person known: as it is


@pytest.mark.parametrize("game_name", ["sobek", "kleopatra"])
def test_each_game_says_its_actions_through_its_words_module(game_name: str) -> None:
    """Game.action_help, describe_action and seen_move are written once: a game gives its words module."""
    game = load_game(game_name)
    assert not {"describe_action", "seen_move", "action_help"} & set(vars(type(game)))
    assert [game.action_help(a) for a in range(game.num_actions)] == \
        [game.words.HELP[name.partition(":")[0]] for name in game.action_names]
    state = game.new(game.min_players, 4, engine="python")
    action, watcher = state.legal_actions()[-1], (state.current_player + 1) % state.num_players
    assert game.describe_action(state, action) == game.words.describe(state, action)
    assert game.seen_move(state, action, watcher) == game.words.seen(state, action, watcher)
