"""Rule tests for the Worshippers of Sobek (rules §3, §8): each character, when it may be played,
what it costs, and how its sub-phases return to the phase it interrupted."""

from __future__ import annotations

import pytest

from .scenario import act, build, doc, legal, python

pytestmark = pytest.mark.usefixtures("scenario_engine")  # each rule test on both engines

QUIET = {"priest_faces": 0}


def test_characters_are_played_at_the_start_after_the_main_action_and_never_the_smuggler_at_will() -> None:
    s = build({"players": [{"hand": ["beggar", "courtesan", "envoy", "scribe", "smuggler", "vizier"],
                            "merchants": 0}], "stalls": [[{"kind": "stone", "up": True}], [], []],
               "rest": "hand:1"})
    assert legal(s) == ["market:0", "character:beggar", "character:courtesan", "character:envoy",
                        "character:scribe", "character:vizier"]
    act(s, "market:0")
    assert [a for a in legal(s) if a.startswith("character")] == [
        "character:beggar", "character:courtesan", "character:envoy", "character:scribe", "character:vizier"]


def test_a_played_character_is_set_aside_until_the_end_of_the_turn() -> None:
    """rules §8 [decision]: so a Courtesan cannot fetch back a character played this turn."""
    s = build({"players": [{"hand": ["scribe", "courtesan"]}], "discard": ["stone"], "rest": "hand:1"})
    act(s, "character:scribe", "die:add", "character:courtesan")
    assert legal(s) == ["card:stone"]
    assert doc(s)["set_aside"] == ["courtesan", "scribe"]
    act(s, "card:stone")
    assert doc(s)["pending"] is None  # back to the start of the turn
    act(s, "market:0", "end_turn")
    assert "courtesan" in doc(s)["discard"] and doc(s)["set_aside"] == []


# ---------------------------------------------------------------------- Beggar


def test_beggar_each_opponent_in_turn_order_gives_talents_or_a_standard_card() -> None:
    s = build({"num_players": 4, "active_player": 2,
               "players": [{"hand": ["stone", "artisan2"], "talents": 7}, {"hand": ["lapis"], "talents": 1},
                           {"hand": ["beggar"]}, {"hand": ["wood2", "beggar"], "talents": 2}]})
    s.log = []
    act(s, "character:beggar")
    assert doc(s)["players"][2]["amulets"] == 2
    assert s.current_player == 3 and legal(s) == ["talents"]  # a doubled card cannot be given
    act(s, "talents")
    assert s.current_player == 0 and legal(s) == ["card:stone", "talents"]
    act(s, "card:stone")
    assert s.current_player == 1 and legal(s) == ["card:lapis"]
    act(s, "card:lapis")
    d = doc(s)
    assert d["pending"] is None and s.current_player == 2
    assert sorted(d["players"][2]["hand"]) == ["lapis", "stone"] and d["players"][2]["talents"] == 7
    assert d["players"][3]["talents"] == 0 and d["players"][0]["hand"] == ["artisan2"]
    assert s.log == ["character:beggar", "beggar:gave-talents", "beggar:gave-card", "beggar:gave-card"]


def test_beggar_victim_who_can_give_nothing_shows_his_hand() -> None:
    s = build({"players": [{"hand": ["beggar"]}, {"hand": ["vizier", "stone2"], "talents": 1},
                           {"hand": [], "talents": 0}]})
    s.log = []
    act(s, "character:beggar")
    assert s.log == ["character:beggar", "beggar:showed-hand", "beggar:showed-hand"]
    d = doc(s)
    assert d["pending"] is None and d["shown"] == [1, 2]
    assert sorted(d["memory"]["seats"][0]["hands"][1]) == ["stone2", "vizier"]
    from sobek_env.kleopatra.view import view

    v = view(python(s), 0)
    assert v.shown == [True, True] and v.shown_hands[0][16] == 1  # a Vizier
    assert view(python(s), 2).shown == [False, False]  # shown to the Beggar's player only


def test_beggar_card_kind_is_known_only_to_the_two_players() -> None:
    s = build({"players": [{"hand": ["beggar"]}, {"hand": ["marble"], "talents": 0}, {"talents": 4}],
               "memory": {"public": {"hands": [[], ["marble"], []]},
                          "seats": [{"hands": [[], ["marble"], []]}, {}, {"hands": [[], ["marble"], []]}]}})
    act(s, "character:beggar", "card:marble", "talents")
    mem = doc(s)["memory"]
    assert mem["seats"][0]["hands"][1] == []          # he saw the marble leave
    assert mem["seats"][1]["hands"][0] == ["marble"]  # the giver knows where it went
    assert mem["seats"][2]["hands"][0] == []          # the third player saw only "a card"
    assert mem["public"]["hands"][0] == []


# ---------------------------------------------------------------------- Courtesan


def test_courtesan_takes_any_card_of_the_discard_pile() -> None:
    s = build({"players": [{"hand": ["courtesan"]}], "discard": ["vizier", "lapis"], "rest": "hand:1"})
    act(s, "character:courtesan")
    assert legal(s) == ["card:lapis", "card:vizier"] and doc(s)["players"][0]["amulets"] == 1
    act(s, "card:vizier")
    d = doc(s)
    assert d["players"][0]["hand"] == ["vizier"] and d["discard"] == ["lapis"] and d["pending"] is None
    assert d["memory"]["seats"][0]["discard"] == ["lapis"]  # he searched the pile


def test_courtesan_on_an_empty_discard_has_no_effect_but_its_amulet() -> None:
    s = build({"players": [{"hand": ["courtesan"]}], "rest": "hand:1"})
    act(s, "character:courtesan")
    assert doc(s)["pending"] is None and doc(s)["players"][0]["amulets"] == 1


# ---------------------------------------------------------------------- Envoy


def test_envoy_offers_then_acceptance_with_amulets_moving() -> None:
    s = build({"num_players": 4,
               "players": [{"hand": ["envoy"]}, {"hand": ["wood", "wood", "wood2"], "amulets": 1},
                           {"hand": ["stone"]}, {"hand": ["wood"], "amulets": 0}]})
    s.log = []
    act(s, "character:envoy")
    assert legal(s) == ["card:artisan", "card:stone", "card:marble", "card:wood", "card:lapis"]
    act(s, "card:wood")
    assert s.current_player == 1 and legal(s) == ["yes", "no"]
    act(s, "yes", "yes")
    assert legal(s) == ["no"]  # [decision] no doubled card, and he still answers
    act(s, "no")
    assert s.current_player == 2 and legal(s) == ["no"]
    act(s, "no", "yes", "no")
    assert doc(s)["pending"]["phase"] == "envoy_accept" and doc(s)["pending"]["target"] == 1
    assert s.current_player == 0
    act(s, "yes", "no")  # one of seat 1's two, then seat 3's
    assert doc(s)["pending"]["target"] == 3
    act(s, "yes")  # all of seat 3's offer accepted: the power ends by itself
    d = doc(s)
    assert d["pending"] is None
    assert sorted(d["players"][0]["hand"]) == ["wood", "wood"]
    assert d["players"][0]["amulets"] == 2 and d["players"][1]["amulets"] == 0 and d["players"][3]["amulets"] == 0
    assert "envoy:amulet-from-supply" in s.log  # seat 3 had none: from the supply (rules §8 [decision])
    assert sorted(d["players"][1]["hand"]) == ["wood", "wood2"]


def test_envoy_with_no_offer_ends() -> None:
    s = build({"players": [{"hand": ["envoy"]}]})
    act(s, "character:envoy", "card:lapis", "no", "no")
    assert doc(s)["pending"] is None and doc(s)["players"][0]["amulets"] == 0


def test_offered_cards_are_public_knowledge() -> None:
    s = build({"players": [{"hand": ["envoy"]}, {"hand": ["marble", "marble"]}]})
    act(s, "character:envoy", "card:marble", "yes")
    assert doc(s)["memory"]["seats"][2]["hands"][1] == ["marble"]
    assert doc(s)["memory"]["public"]["hands"][1] == ["marble"]


# ---------------------------------------------------------------------- Scribe


@pytest.mark.parametrize(("altar", "choices"), [(0, ["die:add"]), (2, ["die:add", "die:remove"]),
                                                (4, ["die:add", "die:remove"])])
def test_scribe_turns_a_die(altar: int, choices: list[str]) -> None:
    s = build({"altar": altar, "players": [{"hand": ["scribe"]}]})
    act(s, "character:scribe")
    assert legal(s) == choices and doc(s)["players"][0]["amulets"] == 0
    act(s, choices[-1])
    assert s.altar == altar + (1 if choices[-1] == "die:add" else -1)


def test_scribe_fifth_die_starts_a_ceremony_that_returns_to_the_interrupted_phase() -> None:
    s = build({"altar": 4, "players": [{"hand": ["scribe", "artisan", "stone", "wood"]}], "rules": QUIET})
    act(s, "quarry", "card:artisan", "character:scribe", "die:add")
    pending = doc(s)["pending"]
    assert pending["phase"] == "ceremony" and pending["resume"]["phase"] == "quarry"
    act(s, "done", "done", "done")
    assert doc(s)["pending"]["phase"] == "quarry" and s.altar == 0 and s.current_player == 0


# ---------------------------------------------------------------------- Vizier


def test_vizier_draws_five_keeps_some_discards_the_rest() -> None:
    deck = [{"kind": k, "up": u} for k, u in (("stone", True), ("beggar", False), ("lapis", False),
                                              ("stone", False), ("wood", True), ("marble", True))]
    s = build({"players": [{"hand": ["vizier"]}], "deck": deck, "rest": "hand:1"})
    act(s, "character:vizier")
    assert legal(s) == ["card:stone", "card:wood", "card:lapis", "card:beggar", "done"]
    act(s, "card:beggar", "card:stone")
    assert doc(s)["players"][0]["amulets"] == 2
    s.log = []
    act(s, "done")
    d = doc(s)
    assert sorted(d["players"][0]["hand"]) == ["beggar", "stone"]
    assert sorted(d["discard"]) == ["lapis", "stone", "wood"] and d["deck"] == [{"kind": "marble", "up": True}]
    assert s.log == ["vizier:kept-2"]
    assert d["memory"]["public"]["discard"] == []  # face down (rules §8)
    assert sorted(d["memory"]["seats"][0]["discard"]) == ["lapis", "stone", "wood"]


def test_vizier_with_nothing_to_draw() -> None:
    s = build({"players": [{"hand": ["vizier"]}], "rest": "hand:1"})
    act(s, "character:vizier")
    assert doc(s)["pending"] is None


def test_vizier_keeping_everything_ends_by_itself() -> None:
    s = build({"players": [{"hand": ["vizier"]}], "deck": [{"kind": "stone", "up": False}], "rest": "hand:1"})
    act(s, "character:vizier", "card:stone")
    assert doc(s)["pending"] is None and doc(s)["players"][0]["amulets"] == 1


# ---------------------------------------------------------------------- Smuggler (rules §9)


def test_smuggler_keeps_every_card_for_one_amulet() -> None:
    hand = ["artisan"] * 11 + ["smuggler"]
    s = build({"players": [{"hand": hand}], "stalls": [[{"kind": "stone", "up": True}], [], []], "rest": "hand:1"})
    act(s, "market:0", "end_turn")
    assert legal(s) == ["character:smuggler", "limit:keep", "limit:discard"]
    act(s, "character:smuggler")
    d = doc(s)
    assert d["players"][0]["amulets"] == 1 and len(d["players"][0]["hand"]) == 12 and s.active_player == 1
    assert d["discard"] == ["smuggler"]
