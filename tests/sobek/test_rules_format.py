"""Illegal actions leave the state unchanged; ``from_json`` rejects malformed documents (INTERFACE.md)."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from sobek_env import NUM_ACTIONS, GameState, IllegalActionError, StateFormatError, action_id

from .scenario import act, build, complete, load

pytestmark = pytest.mark.usefixtures("engine")  # each test on both engines (conftest.py)


def _turn_start() -> GameState:
    return load("take_row")


def _building_a_set() -> GameState:
    return act(load("set_hand"), "set:fish", "card:fish-plain")


def _choosing_a_token() -> GameState:
    return act(load("guild_3p"), "set:ebony", "card:ebony-plain", "card:ebony-scarab", "card:ebony-scarab", "done")


def _scribe_discard() -> GameState:
    return act(load("scribe_4p"), "character:scribe-wheat")


def _first_player_choice() -> GameState:
    return act(build({"num_players": 3, "scores": [3, 1, 2], "nile": ["fish-plain"]}), "take:0")


def _game_over() -> GameState:
    return act(load("round_end_2p"), "take:0")


def _family_characters() -> GameState:
    return act(build({"players": [{"hand": ["high-priest"], "corruption": ["thief", "cattle-plain"]}],
                      "nile": ["fish-plain"]}), "character:high-priest", "goods:cattle")


def _horizontal_choice() -> GameState:
    return act(build({"players": [{"hand": ["fish-plain", "fish-plain", "amulet", "ivory-scarab", "ivory-plain"]}],
                      "nile": ["wheat-plain"]}), "take:0")


def _horizontal_set() -> GameState:
    return act(_horizontal_choice(), "set:fish", "card:amulet")


STATES = [_turn_start, _building_a_set, _choosing_a_token, _scribe_discard, _first_player_choice,
          _family_characters, _horizontal_choice, _horizontal_set, _game_over]


@pytest.mark.parametrize("make", STATES, ids=lambda f: f.__name__.strip("_"))
def test_every_illegal_action_raises_and_changes_nothing(make) -> None:
    s = make()
    before = s.to_json()
    legal = s.legal_actions()
    illegal_ids = [a for a in range(NUM_ACTIONS) if a not in legal]
    assert len(illegal_ids) + len(legal) == NUM_ACTIONS == 76
    others = [-1, NUM_ACTIONS, 2.0, None, True, False, "3", str(legal[0]) if legal else "0", 1.5]
    others += [np.int64(illegal_ids[0]), np.int32(-1), np.float64(0.0), np.bool_(True)]
    for a in illegal_ids + others:
        with pytest.raises(IllegalActionError):
            s.apply(a)
        assert s.to_json() == before, f"action {a!r} changed the state"


@pytest.mark.parametrize("make", STATES[:-1], ids=lambda f: f.__name__.strip("_"))
def test_a_numpy_integer_is_accepted_for_a_legal_id(make) -> None:
    s, t = make(), make()
    a = s.legal_actions()[0]
    s.apply(np.int64(a))
    t.apply(a)
    assert s.to_json() == t.to_json()


def test_scores_is_a_copy() -> None:
    s = _turn_start()
    s.scores.append(99)
    s.scores[0] = 42
    assert s.scores == [0, 0]


def test_illegal_action_error_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        _turn_start().apply(action_id("done"))


# ---------------------------------------------------------------------- from_json


def _valid() -> dict:
    return complete({"players": [{"hand": ["fish-plain"]}], "nile": ["wheat-plain"], "tokens": ["flood"]})


def test_the_valid_base_document_loads_and_round_trips() -> None:
    s = GameState.from_json(json.dumps(_valid()), engine="python")
    assert GameState.from_json(s.to_json(), engine="python") == s


def _broken(change) -> str:
    doc = copy.deepcopy(_valid())
    change(doc)
    return json.dumps(doc)


def _drop_a_card(doc: dict) -> None:
    doc["out_of_round"].remove("amulet")


def _extra_card(doc: dict) -> None:
    doc["deck"].append("amulet")


@pytest.mark.parametrize(("change", "field"), [
    (lambda d: d["players"][0]["hand"].__setitem__(0, "fish-golden"), "players[0].hand[0]"),
    (lambda d: d["nile"].__setitem__(0, "crocodile"), "nile[0]"),
    (_drop_a_card, "cards"),
    (_extra_card, "cards"),
    (lambda d: d.__setitem__("num_players", 5), "num_players"),
    (lambda d: d["scores"].__setitem__(1, -1), "scores[1]"),
    (lambda d: d["tokens"].__setitem__(0, "guild-crocodile"), "tokens[0]"),
    (lambda d: d.__setitem__("tokens", ["flood", "flood", "flood"]), "tokens"),
    (lambda d: d.__setitem__("used_tokens", ["deceit", "deceit"]), "tokens"),
    (lambda d: d.__setitem__("format", "sobek-state/2"), "format"),
    (lambda d: d.pop("format"), "format"),
])
def test_from_json_rejects_a_bad_field_and_names_it(change, field: str) -> None:
    with pytest.raises(StateFormatError) as err:
        GameState.from_json(_broken(change), engine="python")
    assert str(err.value).startswith(field), str(err.value)


@pytest.mark.parametrize("text", ["{not json", "", "[1, 2", "null"])
def test_from_json_rejects_text_that_is_not_a_state_document(text: str) -> None:
    with pytest.raises(StateFormatError):
        GameState.from_json(text, engine="python")
