"""agents.players.native: every game's native baselines are its Python baselines with NativeBaseline in front,
keeping their options (the registry reads the reference's signature), travelling by pickle, and refusing a table
the compiled twin cannot seat when they are made."""

from __future__ import annotations

import inspect
import pickle

import pytest

import agents
import sobek_env
from agents.games import tables as game_tables

GAMES = ["sobek", "kleopatra"]


def native_classes(name: str) -> dict[str, tuple[type, type]]:
    tables = game_tables(name)
    if tables.baselines == tables.reference_baselines:
        pytest.skip(f"{name}'s native baselines were not built")
    return {agent: (tables.baselines[agent], tables.reference_baselines[agent]) for agent in ("greedy", "heuristic")}


@pytest.mark.parametrize("name", GAMES)
def test_a_native_baseline_takes_the_references_options_and_travels(name: str) -> None:
    table = sobek_env.load_game(name).table()
    for agent, (native, reference) in native_classes(name).items():
        assert inspect.signature(native) == inspect.signature(reference)
        assert issubclass(native, reference) and native.__module__ == f"agents.{name}.native_agents"
        made = agents.make(f"{agent}:tolerance=0.2" if agent == "heuristic" else agent, table=table)
        again = pickle.loads(pickle.dumps(made))
        assert type(again) is native and getattr(again, "tolerance", None) == getattr(made, "tolerance", None)


@pytest.mark.parametrize("name", GAMES)
def test_a_table_the_twin_cannot_seat_is_refused_when_the_agent_is_made(name: str, monkeypatch) -> None:
    native, _ = native_classes(name)["greedy"]
    table = sobek_env.load_game(name).table()

    def refuse(baselines: object, seen: object) -> object:
        raise ValueError("the native baselines cannot seat this table")

    monkeypatch.setattr(native.compiled, "_table_of", refuse)
    with pytest.raises(ValueError, match="cannot seat"):
        native(table)
