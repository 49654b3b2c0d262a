"""Fuzzing the document reader: random JSON, and real documents mutated field by field, must load (and
then keep every invariant while play goes on) or fail with a StateFormatError whose message starts with
the offending field. ``SOBEK_LONG=1`` runs each fuzzer on many more examples."""

from __future__ import annotations

import copy
import json
import os
import random
import re
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from sobek_env.kleopatra import GAME, GameState, StateFormatError
from sobek_env.kleopatra.catalogue import KINDS, TILE_NAMES, Rules
from sobek_env.kleopatra.phases import PHASE_NAMES

from .policies import PROFILES, Player

LONG = os.environ.get("SOBEK_LONG") == "1"
FIELD = re.compile(r"^[A-Za-z_][\w.\[\]]*: \S")


def examples(short: int) -> settings:
    # the default run draws the same examples every time (CI stays reproducible); the long run explores
    return settings(max_examples=short * 40 if LONG else short, deadline=None, derandomize=not LONG,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])


def played(n: int, seed: int, steps: int, profile: str) -> GameState:
    s = GameState.new(n, seed=seed)
    player = Player([profile], seed)
    for _ in range(steps):
        if s.is_over:
            break
        s.apply(player.pick(s))
    return s


states = st.builds(played, st.integers(2, 5), st.integers(0, 2**32), st.integers(0, 1500),
                   st.sampled_from(sorted(PROFILES)))
WORDS = [*KINDS, *TILE_NAMES, *PHASE_NAMES, "left", "right", "kleopatra-state/1", "up", "kind", "resume"]
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.integers(-3, 12) | st.floats(allow_nan=False) | st.text(max_size=6)
    | st.sampled_from(WORDS),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6) | st.sampled_from(WORDS), inner,
                                                                max_size=4),
    max_leaves=10,
)


def paths(value: Any, prefix: tuple = ()) -> list[tuple]:
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


def mutate(doc: dict, data: st.DataObject) -> None:
    """One random change: a value replaced, a key dropped, an entry repeated, a card or a tile moved, a
    number nudged, or the pending phase replaced."""
    how = data.draw(st.sampled_from(["replace", "delete", "duplicate", "card", "tile", "number", "pending"]))
    every = [p for p in paths(doc) if p[0] != "rng"]
    if how == "card":
        zones = [p for p in every if isinstance(at(doc, p), list) and at(doc, p)
                 and all(isinstance(x, str) and x in KINDS for x in at(doc, p))]
        targets = [p for p in every if isinstance(at(doc, p), list) and p[-1] in ("hand", "discard", "set_aside")]
        if zones and targets:
            source = at(doc, data.draw(st.sampled_from(zones)))
            card = source.pop(data.draw(st.integers(0, len(source) - 1)))
            at(doc, data.draw(st.sampled_from(targets))).append(card)
            return
    if how == "tile" and isinstance(doc.get("mosaic_stack"), list) and doc["mosaic_stack"] \
            and isinstance(doc.get("removed_tiles", []), list):  # an earlier change may have replaced either
        tile = doc["mosaic_stack"].pop(data.draw(st.integers(0, len(doc["mosaic_stack"]) - 1)))
        doc.setdefault("removed_tiles", []).append(tile)
        return
    if how == "number":
        numbers = [p for p in every if type(at(doc, p)) is int]
        if numbers:
            path = data.draw(st.sampled_from(numbers))
            at(doc, path[:-1])[path[-1]] = at(doc, path) + data.draw(st.sampled_from([-1, 1, 2, -100, 10**9]))
            return
    if how == "pending":
        doc["pending"] = data.draw(st.fixed_dictionaries(
            {"phase": st.sampled_from(PHASE_NAMES)},
            optional={"resume": st.none() | st.fixed_dictionaries({"phase": st.sampled_from(PHASE_NAMES)}),
                      "offers": st.lists(st.integers(-1, 5), max_size=5), "queue": st.lists(st.integers(-1, 5)),
                      "drawn": st.lists(st.sampled_from(KINDS), max_size=5), "tile": st.sampled_from(TILE_NAMES),
                      "orient": st.integers(-1, 8), "target": st.integers(-1, 5), "kept": st.integers(-1, 6),
                      "resource": st.sampled_from(KINDS), "sanctuaries": st.lists(st.integers(-1, 4), max_size=3),
                      "built": st.lists(st.sampled_from(["wall:1", "sphinx", "mosaic", "gate:left"]), max_size=3),
                      "pool": st.dictionaries(st.sampled_from(["artisan", "stone", "trompe", "merchant"]),
                                              st.integers(-1, 9), max_size=3)}))
        return
    if not every:
        return
    path = data.draw(st.sampled_from(every))
    parent = at(doc, path[:-1])
    if how == "delete":
        del parent[path[-1]]
    elif how == "duplicate" and isinstance(parent, list):
        parent.insert(path[-1], copy.deepcopy(parent[path[-1]]))
    else:
        parent[path[-1]] = data.draw(json_values)


def loads_or_names_a_field(text: str) -> GameState | None:
    try:
        s = GameState.from_json(text)
    except StateFormatError as exc:
        assert FIELD.match(str(exc)) or str(exc).startswith("document:"), f"message names no field: {exc}"
        event("refused")
        return None
    event("accepted")
    GAME.check(s)
    rng = random.Random(len(text))
    for _ in range(40):  # an accepted document plays on soundly
        if s.is_over:
            break
        s.apply(rng.choice(s.legal_actions()))
        GAME.check(s)
    return s


@given(json_values)
@examples(100)
def test_random_json_is_refused_with_a_field(value: Any) -> None:
    assert loads_or_names_a_field(json.dumps(value)) is None


@given(states, st.data())
@examples(120)
def test_mutated_documents_load_soundly_or_name_the_field(s: GameState, data: st.DataObject) -> None:
    doc = json.loads(s.to_json())
    for _ in range(data.draw(st.integers(1, 3))):
        mutate(doc, data)
    loads_or_names_a_field(json.dumps(doc))


def mutate_counter(doc: dict, rules: Rules, data: st.DataObject) -> None:
    """One counter set to a value at or past what the game or the table allows: the turn, the elements a
    player built, the ceremonies he won, or the last ceremony."""
    key = data.draw(st.sampled_from(["turn", "built", "ceremonies_won", "last_ceremony"]))
    n = doc["num_players"]
    if key == "last_ceremony":
        offers = data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
        doc[key] = {"offers": offers, "places": [1 + sum(q > o for q in offers) for o in offers]}
    elif key == "turn":
        doc[key] = data.draw(st.sampled_from([1, doc.get("turn", 1) - 1, rules.max_turns, rules.max_turns + 1]))
    else:
        player = doc["players"][data.draw(st.integers(0, n - 1))]
        player[key] = max(0, player.get(key, 0) + data.draw(st.integers(-2, 2)))


@given(states, st.data())
@examples(15)
def test_documents_with_a_mutated_counter_load_and_play_to_the_end_or_name_the_field(s: GameState,
                                                                                    data: st.DataObject) -> None:
    """An accepted document plays to the end keeping every invariant, and reloads at the end."""
    doc = json.loads(s.to_json())
    for _ in range(data.draw(st.integers(1, 3))):
        mutate_counter(doc, s.rules, data)
    s = loads_or_names_a_field(json.dumps(doc))
    rng = random.Random(0)
    while s is not None and not s.is_over:
        s.apply(rng.choice(s.legal_actions()))
        GAME.check(s)
    if s is not None:
        assert GameState.from_json(s.to_json()) == s


@given(st.binary(max_size=200) | st.text(max_size=200))
@examples(60)
def test_garbage_text_is_refused(text: bytes | str) -> None:
    try:
        GameState.from_json(text)
    except StateFormatError as exc:
        assert str(exc).startswith(("document", "format")) or FIELD.match(str(exc))
