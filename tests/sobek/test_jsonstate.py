"""The state reader refuses what it cannot trust, fast and naming the field: unknown and duplicate keys,
NaN, lists longer than the game allows, deep nesting, and documents that would break an invariant later."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from sobek_env import GameState, StateFormatError
from sobek_env.errors import InvariantError
from sobek_env.sobek.invariants import check

from .scenario import act, build, complete


def _valid(**player_1) -> dict:
    return complete({"num_players": 3, "players": [{"hand": ["fish-plain"]}, player_1], "nile": ["wheat-plain"],
                     "tokens": ["flood"]})


def _refused(doc: dict | str) -> str:
    text = doc if isinstance(doc, str) else json.dumps(doc)
    with pytest.raises(StateFormatError) as err:
        GameState.from_json(text, engine="python")
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
    s = GameState.new(2, seed=3, engine="python")
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
    s = GameState.from_json(json.dumps(doc), engine="python")
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
    s = GameState.from_json(json.dumps(doc), engine="python")
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
    copy_ = GameState.from_json(s.to_json(), engine="python")
    assert copy_ == s and copy_.legal_actions() == s.legal_actions()
    assert json.loads(s.to_json())["pending"] == {"phase": "priest_characters", "goods": "cattle"}
    for state in (s, copy_):
        act(state, "card:thief", "take:0")
    assert copy_ == s


# ---------------------------------------------------------------------- the round log against the round


def _played_to(round_: int, n: int = 3, seed: int = 0) -> GameState:
    """A game played with random legal actions until ``round_`` starts."""
    s, rng = GameState.new(n, seed=seed, engine="python"), random.Random(seed)
    while s.round < round_ and not s.is_over:
        s.apply(rng.choice(s.legal_actions()))
    assert s.round == round_ and not s.is_over
    return s


def _log_entry(round_: int, n: int = 3, **changes: Any) -> dict:
    return {"round": round_, "points": [0] * n, "corruption": [0] * n, "curses": [0] * n, "most_corrupt": [],
            "penalty": [0] * n, "horizontal": [[]] * n, **changes}


@pytest.mark.parametrize("seed", range(4))
def test_regression_the_round_in_progress_cannot_be_logged(seed: int) -> None:
    """A game in round 3 with its round set back to 2 was accepted: its log held round 2, which round 2's
    scoring logged again, and a check failed a round later ("4 rounds logged in round 3")."""
    doc = json.loads(_played_to(3, seed=seed).to_json())
    doc["round"] = 2
    assert _refused(doc).startswith("round_log: lists 2 round(s), but 1 had been scored in round 2")


@pytest.mark.parametrize(("round_", "over", "logged", "field"), [
    (1, False, [1], "round_log: lists 1"),            # nothing is scored in round 1
    (2, False, [1, 2], "round_log: lists 2"),         # the round in progress
    (3, False, [1], "round_log[0].round: must be 2"),  # the last round scored is missing
    (3, False, [2, 1], "round_log[0].round: must be 1"),
    (3, False, [1, 1], "round_log[1].round: must be 2"),
    (3, True, [1, 2], "round_log[0].round: must be 2"),  # a finished game has scored its last round
])
def test_a_log_that_disagrees_with_the_round_is_refused(round_: int, over: bool, logged: list[int],
                                                        field: str) -> None:
    doc = _valid()
    doc.update(round=round_, over=over, round_log=[_log_entry(r) for r in logged])
    if over:
        doc.update(pending=None, nile=[], out_of_round=doc["out_of_round"] + doc["nile"])
    assert _refused(doc).startswith(field)


@pytest.mark.parametrize(("round_", "over", "logged"), [
    (1, False, []), (3, False, []), (3, False, [2]), (3, False, [1, 2]), (2, True, [1, 2]), (3, True, [3]),
])
def test_a_log_of_the_last_rounds_scored_is_accepted_and_plays_on(round_: int, over: bool,
                                                                  logged: list[int]) -> None:
    doc = _valid()
    doc.update(round=round_, over=over, round_log=[_log_entry(r) for r in logged])
    if over:
        doc.update(pending=None, nile=[], out_of_round=doc["out_of_round"] + doc["nile"])
    if over and round_ == 2:  # the early end: a score over 100 after round 2 (rules §9)
        doc["scores"][0] = 101
    s = GameState.from_json(json.dumps(doc), engine="python")
    check(s)
    if not over:
        act(s, "take:0")  # the last card: the round is scored and logged after the others
        check(s)
        assert [entry["round"] for entry in s.round_log] == [*logged, round_]
        assert GameState.from_json(s.to_json(), engine="python") == s


@pytest.mark.parametrize(("round_", "best", "logged"), [(1, 120, []), (2, 100, [1, 2])])
def test_a_game_over_before_its_end_is_refused(round_: int, best: int, logged: list[int]) -> None:
    """Over in round 1, or after round 2 with no score over 100: the game would have gone on (rules §9)."""
    doc = _valid()
    doc.update(round=round_, over=True, round_log=[_log_entry(r) for r in logged], pending=None, nile=[],
               out_of_round=doc["out_of_round"] + doc["nile"])
    doc["scores"][0] = best
    assert _refused(doc).startswith(f"over: cannot be true in round {round_} with the best score {best}")


@pytest.mark.parametrize(("entry", "field"), [
    ({"corruption": [0, 1, 0], "curses": [0, 1, 0]}, "round_log[0].corruption[1]: 1 is not"),  # below 2 a Curse
    ({"corruption": [64, 0, 0]}, "round_log[0].corruption[0]: 64 is not"),                      # beyond the cards
    ({"horizontal": [["ivory-scarab"] * 2, ["ivory-scarab"] * 2, []]}, "round_log[0].horizontal: lists 4"),
])
def test_a_log_entry_the_observation_cannot_hold_is_refused(entry: dict, field: str) -> None:
    """The observation reads the last entry: a negative or huge corruption left the observation space (and
    made the Python encoder raise "byte must be in range(0, 256)")."""
    doc = _valid()
    doc.update(round=2, round_log=[_log_entry(1, **entry)])
    assert _refused(doc).startswith(field)


def test_the_first_player_choice_is_refused_in_round_1() -> None:
    doc = _valid()
    doc["pending"] = {"phase": "first_player"}
    assert _refused(doc).startswith("pending: round 1's first player is drawn")
    doc["round"] = 2
    GameState.from_json(json.dumps(doc), engine="python")


def test_the_invariants_catch_a_log_that_disagrees_with_the_round() -> None:
    s = _played_to(3)
    check(s)
    s.round = 2
    with pytest.raises(InvariantError, match=r"rounds \[1, 2\] logged in round 2"):
        check(s)
    s.round, s.round_log[-1]["corruption"][0] = 3, 200
    with pytest.raises(InvariantError, match=r"round 2's log: corruption\[0\]"):
        check(s)
