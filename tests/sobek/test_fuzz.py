"""Fuzzing every input a user or a file can give the engine and the environments.

State documents (random text, random JSON, and real documents mutated field by field)
must load or fail with a StateFormatError naming the field, and an accepted state must
pass the invariants and stay sound in play. Action values of every type must apply if
legal or fail with an IllegalActionError naming the value, changing nothing.
``SOBEK_LONG=1`` runs each fuzzer on many more examples.
"""

from __future__ import annotations

import copy
import json
import os
import random
import re
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import sobek_env
from sobek_env import GameState, IllegalActionError, SingleAgentEnv, StateFormatError, action_id
from sobek_env.sobek import GAME
from sobek_env.sobek.catalogue import GOODS, HIEROGLYPHS, KINDS, TOKENS
from sobek_env.sobek.invariants import InvariantError
from sobek_env.sobek.phases import PHASE_BY_NAME
from sobek_env.sobek.stress import PROFILES, WEIGHTS, Policy

from .scenario import complete

LONG = os.environ.get("SOBEK_LONG") == "1"
FIELD_MESSAGE = re.compile(r"^[A-Za-z_][\w.\[\]]*: \S")  # "players[1].hand[0]: unknown card kind ..."


def examples(short: int) -> settings:
    """Hypothesis settings: ``short`` examples, or 40 times more with SOBEK_LONG=1."""
    return settings(
        max_examples=short * 40 if LONG else short, deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    )


def played(n: int, seed: int, steps: int, profile: str) -> GameState:
    """A state ``steps`` actions into a game, played with a stress-run policy."""
    s = GameState.new(n, seed=seed)
    rng, policy = random.Random(seed), Policy(WEIGHTS[profile])
    for _ in range(steps):
        if s.is_over:
            break
        legal = s.legal_actions()
        s.apply(rng.choices(legal, policy.weights(s, legal))[0])
    return s


states = st.builds(
    played, st.integers(2, 4), st.integers(0, 2**32), st.integers(0, 260), st.sampled_from(sorted(PROFILES))
)
WORDS = [*KINDS, *TOKENS, *GOODS, "amulet", *HIEROGLYPHS, *PHASE_BY_NAME, "sobek-state/1", "over", "pending", "rng"]
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.integers(-3, 12) | st.floats() | st.text(max_size=6)
    | st.sampled_from(WORDS),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6) | st.sampled_from(WORDS), inner,
                                                                max_size=4),
    max_leaves=10,
)
pendings = st.fixed_dictionaries(
    {"phase": st.sampled_from(sorted(PHASE_BY_NAME))},
    optional={
        "goods": st.sampled_from([*GOODS, "amulet"]), "cards": st.lists(st.sampled_from(KINDS), max_size=3),
        "hieroglyph": st.sampled_from(HIEROGLYPHS), "target": st.integers(-1, 4), "actor": st.integers(-1, 4),
        "queue": st.lists(st.integers(-1, 4), max_size=3),
    },
)


def paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path (keys and indices) inside a JSON value, the root excluded."""
    out = []
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in children:
        out.append((*prefix, key))
        out += paths(child, (*prefix, key))
    return out


def at(doc: Any, path: tuple) -> Any:
    for key in path:
        doc = doc[key]
    return doc


CARD_ZONES = {"hand", "corruption", "cards", "nile", "deck", "discard", "out_of_round"}


def card_lists(doc: dict) -> list[list]:
    """The zones of the 63 cards in a document (hands, piles, sets, the Nile, the deck, ...)."""
    zones = [at(doc, path) for path in paths(doc) if path[-1] in CARD_ZONES]
    return [v for v in zones if isinstance(v, list) and all(isinstance(x, str) and x in KINDS for x in v)]


def mutate(doc: dict, data: st.DataObject) -> None:
    """Apply one random mutation: a value replaced, a key dropped, a card or token moved, ..."""
    how = data.draw(st.sampled_from(["replace", "delete", "duplicate", "card", "token", "pending", "number"]))
    every = paths(doc)
    lists, numbers = card_lists(doc), [p for p in every if type(at(doc, p)) is int]
    full = [cards for cards in lists if cards]
    if how == "card" and full:  # keeps the 63 cards, so the document often stays acceptable
        source, target = data.draw(st.sampled_from(full)), data.draw(st.sampled_from(lists))
        card = source.pop(data.draw(st.integers(0, len(source) - 1)))
        target.insert(data.draw(st.integers(0, len(target))), card)
    elif how == "token" and all(isinstance(doc.get(key), list) for key in ("tokens", "used_tokens")):
        source, target = data.draw(st.permutations(["tokens", "used_tokens"]))
        if doc[source]:
            doc[target].append(doc[source].pop(data.draw(st.integers(0, len(doc[source]) - 1))))
        else:
            doc[target].append(data.draw(st.sampled_from(TOKENS)))
    elif how == "pending":
        doc["pending"] = data.draw(pendings | json_values)
    elif how == "number" and numbers:
        path = data.draw(st.sampled_from(numbers))
        at(doc, path[:-1])[path[-1]] += data.draw(st.integers(-3, 3))
    elif every:
        in_lists = [p for p in every if isinstance(at(doc, p[:-1]), list)]
        path = data.draw(st.sampled_from(in_lists if how == "duplicate" and in_lists else every))
        parent, key = at(doc, path[:-1]), path[-1]
        if how == "delete":
            del parent[key]
        elif how == "duplicate" and isinstance(parent, list):
            parent.insert(key, copy.deepcopy(parent[key]))
        else:
            parent[key] = data.draw(json_values)


def load_or_name_the_field(text: str | bytes) -> GameState | None:
    """``from_json``: a state, or None after a StateFormatError whose message starts with a field."""
    try:
        return GameState.from_json(text)
    except StateFormatError as exc:
        assert FIELD_MESSAGE.match(str(exc)), f"the error does not name a field: {exc}"
        return None


def assert_sound_in_play(s: GameState, seed: int) -> None:
    """An accepted state passes the invariants, survives a JSON round trip and stays sound in play."""
    GAME.check(s)
    assert GameState.from_json(s.to_json()) == s
    rng = random.Random(seed)
    for _ in range(40):
        if s.is_over:
            break
        s.apply(rng.choice(s.legal_actions()))
        GAME.check(s)


# ---------------------------------------------------------------------- state documents


@given(state=states, data=st.data(), mutations=st.integers(1, 4))
@examples(150)
def test_mutated_documents_load_soundly_or_name_the_bad_field(state: GameState, data: st.DataObject,
                                                              mutations: int) -> None:
    doc = json.loads(state.to_json())
    for _ in range(mutations):
        mutate(doc, data)
    s = load_or_name_the_field(json.dumps(doc))
    event("accepted" if s is not None else "refused")
    if s is not None:
        assert_sound_in_play(s, mutations)


def mutate_round(doc: dict, data: st.DataObject) -> None:
    """One change to what says how far the game is: the round, over, the round log and its entries, or a
    first-player choice pending."""
    how = data.draw(st.sampled_from(["round", "over", "drop", "duplicate", "swap", "entry", "first_player"]))
    log = doc.setdefault("round_log", [])
    if how == "round":
        doc["round"] = data.draw(st.integers(1, 3))
    elif how == "over":
        doc["over"] = not doc.get("over", False)
    elif how == "first_player":
        doc["pending"] = {"phase": "first_player"}
    elif log and how == "drop":
        del log[data.draw(st.integers(0, len(log) - 1))]
    elif log and how == "duplicate":
        log.insert(len(log), copy.deepcopy(log[data.draw(st.integers(0, len(log) - 1))]))
    elif len(log) > 1 and how == "swap":
        log[0], log[-1] = log[-1], log[0]
    elif log:
        entry = log[data.draw(st.integers(0, len(log) - 1))]
        key = data.draw(st.sampled_from(["round", "corruption", "curses"]))
        if key == "round":
            entry["round"] = data.draw(st.integers(1, 3))
        else:
            row = entry.setdefault(key, [0] * doc["num_players"])
            row[data.draw(st.integers(0, len(row) - 1))] += data.draw(st.integers(-3, 3))


def assert_observations_in_bounds(s: GameState) -> None:
    """Every seat's observation lies within the observation space (a log entry's corruption left it)."""
    game = sobek_env.load_game("sobek")
    low, high = game.observation_bounds(s.num_players, **s.rules.overrides())
    observer = game.observer(s.num_players, "memory")
    for seat in range(s.num_players):
        vector = observer.encode(s, seat)
        assert (vector >= low).all() and (vector <= high).all(), f"seat {seat}'s observation leaves its bounds"


def assert_plays_to_the_end(s: GameState, seed: int) -> None:
    """An accepted state plays on to the end: the invariants hold at every step, the observations stay in
    their bounds, and the state reloads whenever a round starts and at the end."""
    GAME.check(s)
    assert_observations_in_bounds(s)
    rng, round_ = random.Random(seed), s.round
    while not s.is_over:
        s.apply(rng.choice(s.legal_actions()))
        GAME.check(s)
        if s.round != round_ or s.is_over:
            round_ = s.round
            assert GameState.from_json(s.to_json()) == s


def played_into(n: int, seed: int, round_: int, steps: int, profile: str) -> GameState:
    """A state ``steps`` actions into round ``round_`` of a game played with a stress-run policy (or over)."""
    s = GameState.new(n, seed=seed)
    rng, policy = random.Random(seed), Policy(WEIGHTS[profile])
    while not s.is_over and (s.round < round_ or steps > 0):
        steps -= s.round >= round_
        legal = s.legal_actions()
        s.apply(rng.choices(legal, policy.weights(s, legal))[0])
    return s


games_in_any_round = st.builds(played_into, st.integers(2, 4), st.integers(0, 2**32), st.integers(1, 3),
                               st.integers(0, 60) | st.just(10_000), st.sampled_from(sorted(PROFILES)))


@given(state=games_in_any_round, data=st.data(), mutations=st.integers(1, 3))
@examples(100)
def test_documents_with_a_mutated_round_or_log_load_and_play_to_the_end_or_name_the_field(
        state: GameState, data: st.DataObject, mutations: int) -> None:
    """A document whose round and round log disagree was accepted and failed a check a round later."""
    doc = json.loads(state.to_json())
    for _ in range(mutations):
        mutate_round(doc, data)
    s = load_or_name_the_field(json.dumps(doc))
    event("accepted" if s is not None else "refused")
    if s is not None:
        assert_plays_to_the_end(s, mutations)


@given(value=json_values)
@examples(100)
def test_random_json_is_refused_with_a_named_field(value: Any) -> None:
    assert load_or_name_the_field(json.dumps(value)) is None


@given(text=st.text() | st.binary())
@examples(100)
def test_random_text_and_bytes_are_refused_with_a_named_field(text: str | bytes) -> None:
    assert load_or_name_the_field(text) is None


@pytest.mark.parametrize("value", [None, 3, 2.5, ["{}"], {"format": "sobek-state/1"}, "[" * 100_000, b"\xff\xfe{"])
def test_documents_of_the_wrong_type_or_shape_are_refused(value: Any) -> None:
    with pytest.raises(StateFormatError, match=r"^document: "):
        GameState.from_json(value)


def test_regression_unhashable_pending_phase_is_a_format_error() -> None:
    """from_json raised TypeError ("unhashable type") for a list or object as pending.phase."""
    for phase in (["set"], {"phase": "set"}):
        doc = complete({"nile": ["fish-plain"], "pending": {"phase": phase}})
        with pytest.raises(StateFormatError, match=r"^pending\.phase: unknown phase"):
            GameState.from_json(json.dumps(doc))


def test_a_position_may_list_fewer_than_five_tokens_but_never_more() -> None:
    """A hand-built position may hold only the tokens it needs; more than a round's 5 is refused."""
    doc = complete({"nile": ["fish-plain"], "tokens": ["flood"], "used_tokens": ["deceit", "curse"]})
    state = GameState.from_json(json.dumps(doc))
    GAME.check(state)
    with pytest.raises(InvariantError, match="3 tokens, not 5"):
        GAME.check_play(state)
    doc["used_tokens"] += ["guild-ankh", "guild-eye", "guild-lotus"]
    with pytest.raises(StateFormatError, match=r"^tokens: 6 tokens in play; a round uses 5"):
        GameState.from_json(json.dumps(doc))


def test_regression_an_empty_nile_inside_a_sub_decision_is_refused() -> None:
    """from_json accepted an empty Nile during a token choice; after it the next player had no action."""
    doc = complete({"nile": [], "deck": ["fish-plain"], "tokens": ["flood", "deceit"], "pending": {"phase": "token"}})
    with pytest.raises(StateFormatError, match=r"^nile: empty while the round runs"):
        GameState.from_json(json.dumps(doc))
    doc["nile"], doc["deck"] = doc["deck"], []
    s = GameState.from_json(json.dumps(doc))
    s.apply(action_id("token:deceit"))
    GAME.check(s)


@pytest.mark.parametrize("seed", [2**63, 2**64, 2**80])
def test_regression_a_game_with_any_seed_new_accepts_reloads(seed: int) -> None:
    """from_json refused seeds from 2**64 on, so such a game could not be saved and reloaded."""
    s = GameState.new(2, seed=seed)
    assert GameState.from_json(s.to_json()) == s
    doc = json.loads(s.to_json())
    doc["seed"] = -1
    with pytest.raises(StateFormatError, match=r"^seed: must be 0 or more, got -1"):
        GameState.from_json(json.dumps(doc))


# ---------------------------------------------------------------------- action values

NUMPY_INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
action_values = st.one_of(
    st.integers(-5, 80),
    st.integers(),
    st.sampled_from(NUMPY_INTS).flatmap(lambda t: st.integers(np.iinfo(t).min, np.iinfo(t).max).map(t)),
    st.floats(),
    st.text(max_size=4),
    st.sampled_from([
        None, True, False, np.bool_(True), np.float32(3), np.float64(0.0), Decimal(3), Fraction(3), complex(3),
        "3", b"3", [3], (3,), {3}, np.array(3), np.array([3]), np.array([3, 4]), np.array([3.0]),
    ]),
)


def is_integer(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def env_integer(value: Any) -> int | None:
    """The id an environment's step reads from ``value``: an integer, or a one-element integer array (as
    policies return them, INTERFACE.md); None for anything else."""
    if is_integer(value):
        return int(value)
    if isinstance(value, np.ndarray) and value.size == 1 and np.issubdtype(value.dtype, np.integer):
        return int(value.reshape(()))
    return None


def assert_refused(exc: IllegalActionError, value: Any) -> None:
    """The message names the value: its id if an integer, else that an integer id is needed."""
    assert (str(int(value)) if is_integer(value) else "integer") in str(exc)


@given(state=states, value=action_values)
@examples(200)
def test_apply_takes_legal_integer_ids_and_refuses_anything_else_unchanged(state: GameState, value: Any) -> None:
    before = state.to_json()
    if is_integer(value) and int(value) in state.legal_actions():
        other = state.clone()
        state.apply(value)
        other.apply(int(value))
        assert state == other
        GAME.check(state)
        return
    with pytest.raises(IllegalActionError) as caught:
        state.apply(value)
    assert_refused(caught.value, value)
    assert state.to_json() == before


@given(n=st.integers(2, 4), seed=st.integers(0, 2**32), steps=st.integers(0, 200), value=action_values)
@examples(60)
def test_env_step_refuses_bad_values_naming_the_agent_and_changes_nothing(n: int, seed: int, steps: int,
                                                                         value: Any) -> None:
    env = sobek_env.env(num_players=n)
    env.reset(seed=seed)
    game, rng = env.unwrapped.game, random.Random(seed)
    for _ in range(steps):
        if game.is_over:
            break
        env.step(rng.choice(game.legal_actions()))
    if game.is_over:
        return  # PettingZoo's dead-agent steps take over
    action = env_integer(value)
    if action is not None and action in game.legal_actions():
        env.step(value)
        GAME.check(game)
        return
    agent, before = env.agent_selection, game.to_json()
    with pytest.raises(IllegalActionError, match=f"^{agent}: ") as caught:
        env.step(value)
    assert (str(action) if action is not None else "integer") in str(caught.value)
    assert game.to_json() == before and env.agent_selection == agent
    env.step(game.legal_actions()[0])  # the environment plays on


@given(n=st.integers(2, 4), seed=st.integers(0, 2**32), value=action_values)
@examples(40)
def test_env_terminate_mode_ends_the_game_and_penalises_only_the_offender(n: int, seed: int, value: Any) -> None:
    env = sobek_env.env(num_players=n, illegal_action="terminate")
    env.reset(seed=seed)
    game = env.unwrapped.game
    if env_integer(value) in game.legal_actions():
        return
    offender = env.agent_selection
    env.step(value)
    raw = env.unwrapped
    assert all(raw.terminations.values())
    assert raw.rewards == {a: (-1.0 if a == offender else 0.0) for a in raw.possible_agents}
    assert raw.infos[offender]["illegal"] is True  # infos keep one shape: a flag, not the offending value
    assert not any(raw.infos[a]["illegal"] for a in raw.possible_agents if a != offender)


class FirstLegal:
    name = "first-legal"

    def act(self, observation: dict) -> int:
        return int(np.flatnonzero(observation["action_mask"])[0])


@given(seed=st.integers(0, 2**32), value=action_values)
@examples(40)
def test_single_agent_env_refuses_bad_values_and_changes_nothing(seed: int, value: Any) -> None:
    env = SingleAgentEnv(FirstLegal(), num_players=3)
    env.reset(seed=seed)
    legal = np.flatnonzero(env.action_masks()).tolist()
    if env_integer(value) in legal:
        env.step(value)
        return
    before = env.game.to_json()
    with pytest.raises(IllegalActionError):
        env.step(value)
    assert env.game.to_json() == before


# ---------------------------------------------------------------------- constructors


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"num_players": 1}, "num_players"), ({"num_players": 5}, "num_players"), ({"num_players": "3"}, "num_players"),
    ({"num_players": 3.0}, "num_players"), ({"num_players": None}, "num_players"),
    ({"num_players": True}, "num_players"), ({"seed": -1}, "seed"), ({"seed": 1.5}, "seed"),
    ({"seed": "7"}, "seed"), ({"seed": True}, "seed"), ({"colours": {}}, "unknown rules option"),
    ({"scarabs": {"fish": 10}}, "scarabs"), ({"scarabs": {"gold": 1}}, "scarabs"), ({"scarabs": "x"}, "scarabs"),
    ({"green_cards": {"fish": 3}}, "green_cards"),
    ({"green_cards": {"ivory": 4}}, "green_cards"), ({"families": {"queen": "gold"}}, "families"),
    ({"families": {"king": "ivory"}}, "families"),
])
def test_new_game_refuses_bad_arguments_naming_them(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        GameState.new(**{"num_players": 2, "seed": 0, **kwargs})


@pytest.mark.parametrize("name", [None, 3, "", "take:9", "take", "card:gold", "player:4", "DONE"])
def test_action_id_refuses_unknown_names_naming_them(name: Any) -> None:
    with pytest.raises(ValueError, match=re.escape(repr(name))):
        action_id(name)
