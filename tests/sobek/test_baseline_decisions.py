"""The baselines' new decisions in hand-built positions whose right answer the rules' arithmetic settles.

The decisions (SOBEK_RULES.md): horizontal sets at the round's end (§5; a most-corrupt player may
decline points, §8.3), the High Priest(ess)'s family characters (§4), the amulets-only set (§6) and
Prosperity on it (§7). Each agent sees only its observation (the compiled encoder, as in play) and
the action mask, through ``agents.make``.

Positions are made "realistic" before they are observed: :func:`tests.sobek.scenario.complete`
puts every card a spec does not place out of the round, but in ``original`` mode an observer
infers the opponents' piles from the round's cards it cannot account for (``decode.View``), so a
bare spec would show the opponent a pile of some 37 cards. :func:`position` leaves out of the round
only what a real round leaves out (rules §2: the unused green cards, the 2-player set-aside) and
puts the rest face up in the discard, so the opponent's pile is seen at its real size.
"""

from __future__ import annotations

import json
from functools import cache

import numpy as np
import pytest

import agents
import sobek_env
from sobek_env import ACTION_NAMES, GameState
from sobek_env.sobek.catalogue import GREEN, KIND_BACK, KIND_INDEX, START_HAND, TWO_PLAYER_SET_ASIDE, make_rules
from sobek_env.sobek.invariants import check

from .scenario import act, complete, legal, spec, view

MODES = ["original", "memory"]


def position(sp: dict) -> GameState:
    """The state of the partial spec ``sp`` with the round's unplaced cards in the discard (module docstring)."""
    doc = complete(sp)
    n = doc["num_players"]
    catalogue = make_rules(n).catalogue
    greens_out = sum(c for k, c in enumerate(catalogue) if KIND_BACK[k] == GREEN) - START_HAND * n
    others_out = TWO_PLAYER_SET_ASIDE if n == 2 else 0
    out = []
    for card in doc["out_of_round"]:
        if KIND_BACK[KIND_INDEX[card]] == GREEN and greens_out:
            out.append(card)
            greens_out -= 1
        elif KIND_BACK[KIND_INDEX[card]] != GREEN and others_out:
            out.append(card)
            others_out -= 1
        else:
            doc["discard"].append(card)
    doc["out_of_round"] = out
    state = GameState.from_json(json.dumps(doc), engine="python")
    check(state)
    return state


def observe(state: GameState, mode: str) -> dict:
    """The acting seat's observation and action mask, as the environment gives them."""
    seat = state.current_player
    observation = sobek_env.load_game("sobek").observer(state.num_players, mode).encode(state, seat).copy()
    mask = np.zeros(len(ACTION_NAMES), dtype=np.int8)
    mask[state.legal_actions()] = 1
    return {"observation": observation, "action_mask": mask}


def make_agent(name: str, num_players: int, mode: str):
    return agents.make(name, num_players=num_players, observation_mode=mode)


def decide(name: str, state: GameState, mode: str = "original") -> list[str]:
    """The actions agent ``name`` takes while the seat now to move keeps the move; ``state`` is played on."""
    agent = make_agent(name, state.num_players, mode)
    seat, names = state.current_player, []
    while not state.is_over and state.current_player == seat:
        assert len(names) < 40, names
        names.append(ACTION_NAMES[agent.act(observe(state, mode))])
        act(state, names[-1])
    return names


def best_score(state: GameState) -> int:
    """Seat 0's best final score over every way to play its decision to the game's end (an exhaustive search;
    the positions end the game with seat 0's round-end decision)."""

    @cache
    def search(text: str) -> int:
        s = GameState.from_json(text, engine="python")
        if s.is_over:
            return s.scores[0]
        assert s.current_player == 0
        outcomes = []
        for a in s.legal_actions():
            t = GameState.from_json(text, engine="python")
            t.apply(a)
            outcomes.append(search(t.to_json()))
        return max(outcomes)

    return search(state.to_json())


def horizontals(state: GameState, player: int = 0) -> list[tuple[str, list[str]]]:
    return [(h["goods"], sorted(h["cards"])) for h in view(state)["players"][player]["horizontal_sets"]]


def tables(state: GameState, player: int = 0) -> dict[str, tuple[list[str], int]]:
    return {t["goods"]: (sorted(t["cards"]), t["prosperity"]) for t in view(state)["players"][player]["sets"]}


# ---------------------------------------------------------------------- rules §5, §8.3: horizontal sets


def round_end(p0: dict, p1: dict | None = None, scores: list[int] | None = None) -> GameState:
    """Round 3's last card: player 1 takes it (an ebony-plain he keeps in hand, so it ends in his pile), and
    player 0, holding ``p0``'s cards, decides his horizontal sets; the game ends after it."""
    sp = {**spec("round_end_2p"), "players": [p0, p1 or {}]}
    if scores is not None:
        sp["scores"] = scores
    state = act(position(sp), "take:0")
    assert state.phase == "horizontal" and state.current_player == 0
    return state


ISSUE_HAND = ["ivory-scarab", "fish-plain", "fish-plain", "wheat-plain", "wheat-plain", "amulet", "amulet"]


@pytest.mark.parametrize("mode", MODES)
def test_the_issues_position_lays_ivory_with_two_amulets(mode: str) -> None:
    """The ivory-scarab with both amulets scores 3; the most cards (fish and wheat, an amulet each) score 0.
    Either way player 0 is the most corrupt (4 or 1 pile card against 1, the tie broken by his ivory's
    scarabs), but fewer than 10 round points cost nothing (rules §8.3)."""
    state = round_end({"hand": ISSUE_HAND})
    assert best_score(state) == 3
    most_cards = act(round_end({"hand": ISSUE_HAND}), "set:fish", "card:fish-plain", "card:fish-plain",
                     "card:amulet", "done", "set:wheat", "card:wheat-plain", "card:wheat-plain", "card:amulet", "done")
    assert most_cards.scores[0] == 0
    decide("heuristic", state, mode)
    assert horizontals(state) == [("ivory", ["amulet", "amulet", "ivory-scarab"])]
    assert state.scores[0] == 3


def test_greedy_lays_the_layout_with_the_most_cards_as_its_docstring_says() -> None:
    """greedy is the weaker baseline by design: it places the most cards (fewest left to corrupt it), here
    fish and wheat for 0 points where the heuristic finds 3."""
    state = round_end({"hand": ISSUE_HAND})
    decide("greedy", state)
    assert sorted(goods for goods, _ in horizontals(state)) == ["fish", "wheat"] and state.scores[0] == 0


# From 3 points, the ebony set's 18 round points reach 21 (ankh): 1 lot, back to 19. Laying the marble-scarab
# with both amulets makes 20 round points on 23 (feather): 2 lots, back to 11 (rules §8.3; the rule test
# test_a_most_corrupt_player_may_decline_points_that_cost_him_a_lot plays both).
MARBLE = {"hand": ["marble-scarab", "amulet", "amulet"], "corruption": ["wheat-plain"] * 3 + ["fish-plain"] * 2,
          "sets": [{"goods": "ebony", "cards": ["ebony-scarab"] * 3}]}
CLEAN = {"corruption": ["cattle-plain"] * 2 + ["cattle-scarab"] * 5 + ["marble-plain"] * 3}  # 10 + 1 cards


@pytest.mark.parametrize("mode", MODES)
def test_the_most_corrupt_player_declines_a_set_that_costs_him_a_lot(mode: str) -> None:
    state = round_end(MARBLE, scores=[3, 0])
    assert best_score(state) == 19
    assert decide("heuristic", state, mode) == ["done"]
    assert state.scores[0] == 19 and state.round_log[-1]["most_corrupt"] == [0]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", ["heuristic", "greedy"])
def test_a_player_who_is_not_most_corrupt_lays_the_same_set(name: str, mode: str) -> None:
    """Player 1's 11 corruption cards outdo player 0's 5 to 8: the set's 2 points are simply won."""
    state = round_end(MARBLE, CLEAN, scores=[3, 0])
    assert best_score(state) == 23
    assert decide(name, state, mode)[0] == "set:marble"
    assert horizontals(state) == [("marble", ["amulet", "amulet", "marble-scarab"])]
    assert state.scores[0] == 23 and state.round_log[-1]["most_corrupt"] == [1]


def test_greedy_ignores_the_penalty_at_the_rounds_end() -> None:
    """greedy does not weigh the penalty (its docstring): it lays the marble set and ends on 11, not 19."""
    state = round_end(MARBLE, scores=[3, 0])
    assert decide("greedy", state)[0] == "set:marble" and state.scores[0] == 11


# ---------------------------------------------------------------------- rules §4: High Priest(ess)

NILE = ["cattle-plain", "ebony-plain", "wheat-plain", "marble-plain", "fish-plain", "cattle-plain", "wheat-plain",
        "marble-plain", "ebony-plain"]
DECK = ["wheat-scarab"] * 5 + ["cattle-scarab"] * 5 + ["fish-scarab"] * 2 + ["marble-scarab"] * 2 + \
       ["ebony-scarab"] * 4 + ["courtesan"]
OPPONENT = {"hand": ["ivory-scarab"], "corruption": ["ivory-plain"] * 2 + ["fish-plain"] * 2 + ["wheat-plain",
                                                                                                  "marble-plain"]}


def mid_round(p0: dict, tokens: list[str], used: list[str], **fields) -> GameState:
    """Round 1 with a full Nile and 19 cards in the deck; player 1's pile (6 cards) outweighs player 0's."""
    return position({"num_players": 2, "nile": fields.pop("nile", NILE), "deck": fields.pop("deck", DECK),
                     "tokens": tokens, "used_tokens": used, "players": [p0, OPPONENT], **fields})


def priest(tokens: list[str], used: list[str]) -> GameState:
    """Player 0 played the High Priest on fish: the High Priestess and the fish Scribe lie in his pile."""
    p0 = {"hand": ["ivory-start", "marble-scarab"], "corruption": ["high-priestess", "scribe-fish", "ivory-scarab"]}
    state = mid_round(p0, tokens, used, pending={"phase": "priest_characters", "goods": "fish"})
    assert legal(state) == ["card:high-priestess", "card:scribe-fish", "done"]
    return state


NO_EMBALMING = [  # (tokens face down, tokens used): no Embalming and no Deceit can still come
    ([], ["embalming", "deceit", "flood", "curse", "prosperity"]),
    (["flood", "curse", "prosperity"], ["embalming", "deceit"]),
]
EMBALMING = [  # an Embalming may still come
    (["embalming", "deceit", "flood"], ["curse", "prosperity"]),
    (["embalming", "flood"], ["deceit", "curse", "prosperity"]),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("tokens, used", NO_EMBALMING)
def test_the_family_characters_leave_the_pile_when_nothing_can_bring_them_back(tokens, used, mode: str) -> None:
    """Kept, they are only corruption (rules §8.2): no Embalming can return them to hand, no Deceit pay for them."""
    for name in ("heuristic", "greedy"):
        state = priest(tokens, used)
        assert decide(name, state, mode) == ["card:high-priestess", "card:scribe-fish"], name
        assert sorted(view(state)["players"][0]["corruption"]) == ["ivory-scarab"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("tokens, used", EMBALMING)
def test_the_heuristic_keeps_them_while_an_embalming_may_come(tokens, used, mode: str) -> None:
    """Its documented rule (heuristic.py): kept when an Embalming or a Deceit may still make them pay, here
    where a corruption card more barely matters (player 1's pile is bigger); greedy discards every one."""
    state = priest(tokens, used)
    assert decide("heuristic", state, mode) == ["done"]
    assert sorted(view(state)["players"][0]["corruption"]) == ["high-priestess", "ivory-scarab", "scribe-fish"]
    state = priest(tokens, used)
    assert decide("greedy", state, mode) == ["card:high-priestess", "card:scribe-fish"]


# ---------------------------------------------------------------------- rules §6, §7: the amulets-only set


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", ["heuristic", "greedy"])
def test_three_amulets_are_laid_for_the_event_and_take_prosperity(name: str, mode: str) -> None:
    """The round's last two cards are plain and player 0 holds only three amulets: whatever he does he has no
    scarab, so his round scores 0 unless a set brings an event. Laid as an amulets-only set, the amulets draw
    one of the two tokens left; Prosperity on that set is worth (0 + 2) x 3 = 6 at scoring, the Guild
    1 (from 0 to the ankh on 1; player 1 cannot go back from 0)."""
    state = mid_round({"hand": ["amulet"] * 3}, ["prosperity", "guild-ankh"], [], nile=["cattle-plain", "ebony-plain"],
                      deck=[])
    names = decide(name, state, mode)
    assert names[0].startswith("set:") and names[1:5] == ["card:amulet"] * 3 + ["done"]
    assert names[5:] == ["token:prosperity", "goods:amulet"]
    assert tables(state) == {"amulet": (["amulet"] * 3, 1)}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", ["heuristic", "greedy"])
def test_a_goods_extends_the_amulets_only_set(name: str, mode: str) -> None:
    """Two plain cards are left, so player 0 has this turn to lay his three fish-scarabs: on the amulets-only
    set they make a fish set of 6 cards, 1 x 6 = 6 points (rules §6), and draw a token; kept, they end as a
    horizontal set of 3 points (rules §5), the amulets-only set scoring 0."""
    sets = [{"goods": "amulet", "cards": ["amulet"] * 3}]
    state = mid_round({"hand": ["fish-scarab"] * 3, "sets": sets}, ["flood", "curse", "guild-eye"], [],
                      nile=["cattle-plain", "ebony-plain"], deck=[])
    names = decide(name, state, mode)
    assert names[:5] == ["set:fish"] + ["card:fish-scarab"] * 3 + ["done"]
    assert tables(state) == {"fish": (sorted(["amulet"] * 3 + ["fish-scarab"] * 3), 0)}


PROSPERITY_CASES = [  # (sets on the table, the right choice): Prosperity adds 2 x the set's cards at scoring
    ([{"goods": "amulet", "cards": ["amulet"] * 4}, {"goods": "fish", "cards": ["fish-scarab"] * 3}], "goods:amulet"),
    ([{"goods": "amulet", "cards": ["amulet"] * 3}, {"goods": "fish", "cards": ["fish-scarab"] * 4}], "goods:fish"),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", ["heuristic", "greedy"])
@pytest.mark.parametrize("sets, right", PROSPERITY_CASES)
def test_prosperity_goes_on_the_set_with_the_most_cards_at_the_rounds_end(sets, right: str, name: str,
                                                                          mode: str) -> None:
    """The deck is empty and player 0's hand too: no set will grow, so the bigger set gains the most."""
    state = mid_round({"sets": sets}, ["flood"], [], nile=["cattle-plain", "ebony-plain"], deck=[],
                      pending={"phase": "prosperity"})
    assert legal(state) == ["goods:fish", "goods:amulet"]
    assert decide(name, state, mode) == [right]
