"""The state reader refuses what it cannot trust, fast and naming the field: unknown and duplicate keys,
NaN, lists longer than the game allows, deep nesting, and documents that would break an invariant later."""

from __future__ import annotations

import copy
import json

import pytest

from sobek_env import GameState, StateFormatError
from sobek_env.sobek.invariants import check

from .scenario import act, build, complete


def _valid(**player_1) -> dict:
    return complete({"num_players": 3, "players": [{"hand": ["fish-plain"]}, player_1], "nile": ["wheat-plain"],
                     "tokens": ["flood"]})


def _refused(doc: dict | str) -> str:
    text = doc if isinstance(doc, str) else json.dumps(doc)
    with pytest.raises(StateFormatError) as err:
        GameState.from_json(text)
    return str(err.value)


@pytest.mark.parametrize(("change", "field"), [
    (lambda d: d.__setitem__("pendng", None), "document: unknown key 'pendng'"),
    (lambda d: d["players"][0].__setitem__("hnd", []), "players[0]: unknown key 'hnd'"),
    (lambda d: d.__setitem__("rules", {"scarab": {}}), "rules: unknown key 'scarab'"),
    (lambda d: d.__setitem__("pending", {"phase": "token", "goods": "fish"}), "pending: unknown key 'goods'"),
    (lambda d: d.__setitem__("round_log", [{"round": 1, "points": [0, 0, 0], "corruption": [0, 0, 0],
                                            "most_corrupt": [], "penalty": [0, 0, 0], "bonus": 1}]),
     "round_log[0]: unknown key 'bonus'"),
])
def test_unknown_and_misspelled_keys_are_refused(change, field: str) -> None:
    doc = copy.deepcopy(_valid())
    change(doc)
    assert _refused(doc).startswith(field)


def test_duplicate_keys_are_refused() -> None:
    text = json.dumps(_valid())
    assert _refused(text.replace('"round": 1', '"round": 1, "round": 2')).startswith("document: the key 'round'")


def test_nan_is_refused_and_never_written() -> None:
    doc = json.dumps(_valid())[:-1] + ', "rng": [3, [1, 2], NaN]}'
    assert _refused(doc).startswith("document: NaN")
    s = GameState.new(2, seed=3)
    assert "NaN" not in s.to_json()


@pytest.mark.parametrize(("change", "field"), [
    (lambda d: d.__setitem__("round_log", [{"round": 1}] * 200_000), "round_log: has 200000 entries"),
    (lambda d: d["players"][0].__setitem__("horizontal_sets", [{"goods": "fish", "cards": []}] * 100_000),
     "players[0].horizontal_sets: has 100000 entries"),
    (lambda d: d["players"][0].__setitem__("hand", ["fish-plain"] * 200_000), "players[0].hand: has 200000"),
    (lambda d: d.__setitem__("deck", ["fish-plain"] * 64), "deck: has 64 entries"),
    (lambda d: d.__setitem__("memory", [{}] * 4), "memory: must have 3 entries"),
    (lambda d: d.__setitem__("deck", ["fish-plain"] * 1_000_000), "document: 14,001,"),
])
def test_overlong_lists_and_texts_are_refused_naming_the_field(change, field: str) -> None:
    doc = copy.deepcopy(_valid())
    change(doc)
    assert _refused(json.dumps(doc)).startswith(field)


def test_a_most_corrupt_list_longer_than_the_table_is_refused() -> None:
    doc = _valid()
    doc["round"] = 2
    doc["round_log"] = [{"round": 1, "points": [0, 0, 0], "corruption": [0, 0, 0], "most_corrupt": [0, 1, 2, 0],
                         "penalty": [0, 0, 0]}]
    assert _refused(doc).startswith("round_log[0].most_corrupt")


def test_deep_nesting_is_refused_without_a_recursion_error() -> None:
    assert _refused("[" * 100_000 + "]" * 100_000).startswith("document: nested")
    assert _refused('{"a": ' * 50 + "1" + "}" * 50).startswith("document: nested")


def test_an_empty_set_is_refused() -> None:
    doc = _valid(sets=[{"goods": "fish", "cards": []}])
    assert _refused(doc).startswith("players[1].sets[0].cards")


def test_a_memory_list_beyond_the_catalogue_is_refused() -> None:
    doc = _valid()
    doc["memory"] = [{"hands": [[], ["ivory-scarab"] * 4, []]}, {}, {}]
    assert _refused(doc).startswith("memory[0].hands[1]")


def test_memory_lists_that_each_fit_are_accepted_and_play_on() -> None:
    """Per viewer, knowledge is an upper bound: lists that each fit the catalogue are sound, and play keeps
    them within it (the engine never counts a card of a kind beyond the cards that exist)."""
    doc = _valid()
    doc["memory"] = [{"hands": [[], ["wheat-plain"] * 3, []], "piles": [[], [], ["wheat-plain"] * 3]}, {}, {}]
    s = GameState.from_json(json.dumps(doc))
    check(s)
    act(s, "take:0")
    check(s)


def test_two_amulets_only_sets_are_refused() -> None:
    doc = _valid(sets=[{"goods": "fish", "cards": ["amulet"] * 2}, {"goods": "amulet", "cards": ["amulet"]}])
    assert _refused(doc).startswith("players[1].sets[1].goods")


def test_a_set_named_amulet_must_hold_only_amulets() -> None:
    doc = _valid(sets=[{"goods": "amulet", "cards": ["amulet", "fish-scarab"]}])
    assert _refused(doc).startswith("players[1].sets[0].goods")


def test_a_goods_named_for_an_amulets_only_set_is_forgotten() -> None:
    doc = _valid(sets=[{"goods": "ivory", "cards": ["amulet"] * 3, "prosperity": 1}])
    s = GameState.from_json(json.dumps(doc))
    assert json.loads(s.to_json())["players"][1]["sets"] == [
        {"goods": "amulet", "cards": ["amulet"] * 3, "prosperity": 1}]


@pytest.mark.parametrize(("pending", "field"), [
    ({"phase": "horizontal", "queue": []}, "pending"),  # the round is not over: the Nile holds a card
    ({"phase": "priest_characters", "goods": "cattle"}, "pending.goods"),  # no cattle character in the pile
    ({"phase": "horizontal_set", "goods": "fish", "cards": ["fish-plain"], "queue": [1]}, "pending"),
])
def test_round_end_and_priest_phases_that_cannot_be_are_refused(pending: dict, field: str) -> None:
    doc = _valid()
    doc["pending"] = pending
    assert _refused(doc).startswith(field)


def test_a_priest_characters_decision_round_trips_and_continues_identically() -> None:
    s = act(build({"players": [{"hand": ["high-priest"], "corruption": ["thief", "cattle-plain"]}],
                   "nile": ["fish-plain", "ebony-plain"]}), "character:high-priest", "goods:cattle")
    copy_ = GameState.from_json(s.to_json())
    assert copy_ == s and copy_.legal_actions() == s.legal_actions()
    assert json.loads(s.to_json())["pending"] == {"phase": "priest_characters", "goods": "cattle"}
    for state in (s, copy_):
        act(state, "card:thief", "take:0")
    assert copy_ == s
