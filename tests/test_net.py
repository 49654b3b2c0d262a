"""The net: agent (agents/players/net.py): its weights-only file, its table, and play without the baselines."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import torch
from shipped import recorded_play

import agents
import sobek_env
from agents.players.net import NetAgent, load_net, net_meta, new_net, read_net, save_net
from sobek_env.registry import load_game

ROOT = Path(__file__).resolve().parent.parent
TABLES = [("sobek", 2), ("kleopatra", 3)]
SHIPPED_NETS = sorted((ROOT / "models").glob("*-net-*p.zip"))
# (decisions, sha256 of the actions) of each shipped network in 3 seeded games against heuristic players, recorded
# when it was measured: a change in the engine, the observation or the heuristic moves them
SHIPPED_PLAY = {"sobek-net-2p.zip": (333, "1b130b2bb47758a9"), "sobek-net-3p.zip": (283, "54cc7a5d8493c186"),
                "sobek-net-4p.zip": (193, "8f07f37ce4c7ed82"), "kleopatra-net-3p.zip": (447, "22d505cccbe7dea5"),
                "kleopatra-net-4p.zip": (285, "818be4101534409c"), "kleopatra-net-5p.zip": (262, "8aa051051d04e00c")}


def tiny_net(path: Path, game: str, players: int, seed: int = 0, heads: list[str] | None = None) -> Path:
    """A small untrained network for the table (with structured ``heads``), saved to ``path``."""
    torch.manual_seed(seed)
    meta = net_meta(load_game(game).table(players), [16, 8], {"note": "a test"}, heads)
    save_net(new_net(meta), path, meta)
    return path


@pytest.mark.parametrize(("game", "players"), TABLES)
def test_a_saved_network_plays_its_argmax_among_the_legal_actions(tmp_path: Path, game: str, players: int) -> None:
    path = tiny_net(tmp_path / "net.zip", game, players)
    agent = agents.make(f"net:{path}", game=game, num_players=players)
    assert isinstance(agent, NetAgent)
    env = sobek_env.env(game=game, num_players=players)
    env.reset(seed=5)
    for _ in range(20):
        observation, *_ = env.last()
        with torch.no_grad():
            logits, value = agent.net(torch.as_tensor(observation["observation"]).reshape(1, -1))
        legal = np.flatnonzero(observation["action_mask"])
        action = agent.act(observation)
        assert action == legal[np.argmax(logits[0].numpy()[legal])]
        assert -1 <= float(value) <= 1
        env.step(action)


def test_the_file_records_its_table_layers_and_raw_features(tmp_path: Path) -> None:
    path = tiny_net(tmp_path / "net.zip", "kleopatra", 3)
    meta, tensors, optimizer = read_net(path)
    assert (meta["format"], meta["game"], meta["num_players"], meta["features"], meta["hidden"]) == (
        "sobek-net/1", "kleopatra", 3, "raw", [16, 8])
    assert meta["training"] == {"note": "a test"}
    assert optimizer is None and all(isinstance(t, torch.Tensor) for t in tensors.values())


def test_a_network_is_refused_at_another_table(tmp_path: Path) -> None:
    path = tiny_net(tmp_path / "net.zip", "sobek", 2)
    with pytest.raises(ValueError, match="trained for num_players=2 but this table has num_players=3"):
        agents.make(f"net:{path}", game="sobek", num_players=3)
    with pytest.raises(ValueError, match="trained for game='sobek' but this table has game='kleopatra'"):
        agents.make(f"net:{path}", game="kleopatra", num_players=2)


def test_a_network_file_given_as_ppo_names_the_net_spec(tmp_path: Path) -> None:
    path = tiny_net(tmp_path / "net.zip", "sobek", 2)
    with pytest.raises(ValueError, match=f"play it as net:{path}"):
        agents.make(f"ppo:{path}", game="sobek", num_players=2)


def with_record(path: Path, out: Path, change: Callable[[dict], None]) -> Path:
    """A copy of the network file at ``path``, written to ``out``, whose record ``change`` has edited in place."""
    with zipfile.ZipFile(path) as archive:
        meta, weights = json.loads(archive.read("sobek.json")), archive.read("policy.pt")
    change(meta)
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("sobek.json", json.dumps(meta))
        archive.writestr("policy.pt", weights)
    return out


def test_a_record_with_a_bad_field_is_refused_naming_it(tmp_path: Path) -> None:
    path = tiny_net(tmp_path / "net.zip", "sobek", 2)
    bad = with_record(path, tmp_path / "bad.zip", lambda meta: meta.update(hidden=[16, 0]))
    with pytest.raises(ValueError, match="field 'hidden' must be 1 to 8 layers"):
        load_net(bad)


# a trunk just under the file's limit of parameters, which Kleopatra's heads over its 4,096 units take past it
NEAR_THE_LIMIT = [4096, 4096, 4096, 3496, 4096]


def test_the_heads_count_toward_the_parameters_a_file_may_hold(tmp_path: Path) -> None:
    from agents.players.heads import heads_parameters
    from agents.players.modelfile import MAX_PARAMETERS
    from agents.players.net import check_meta, net_problem, parameter_count
    table = load_game("kleopatra").table(3)
    size, actions = table.game.observation_size(3), table.game.num_actions
    heads = heads_parameters("kleopatra", ["hands", "board"], 3, NEAR_THE_LIMIT)
    assert parameter_count(size, actions, NEAR_THE_LIMIT) <= MAX_PARAMETERS < parameter_count(
        size, actions, NEAR_THE_LIMIT) + heads
    assert net_problem(NEAR_THE_LIMIT, size, actions) is None
    # what cannot be built counts nothing here: its own check refuses it, with a message
    for table_players, hidden in ((9, NEAR_THE_LIMIT), (3, []), (3, [16, 10**9]), (3, "16")):
        assert heads_parameters("kleopatra", ["hands", "board"], table_players, hidden) == 0
    assert "more than the" in net_problem(NEAR_THE_LIMIT, size, actions, heads)
    check_meta(net_meta(table, NEAR_THE_LIMIT), "plain.zip")
    with pytest.raises(ValueError, match=r"field 'hidden' makes .* parameters, more than the"):
        check_meta(net_meta(table, NEAR_THE_LIMIT, heads=["hands", "board"]), "heads.zip")


def test_weights_that_do_not_fit_the_record_are_refused(tmp_path: Path) -> None:
    path = tiny_net(tmp_path / "net.zip", "sobek", 2)
    meta = read_net(path)[0]
    meta["hidden"] = [16, 9]
    with zipfile.ZipFile(tmp_path / "other.zip", "w") as archive:
        archive.writestr("sobek.json", json.dumps(meta))
        with zipfile.ZipFile(path) as source:
            archive.writestr("policy.pt", source.read("policy.pt"))
    with pytest.raises(ValueError, match=r"policy-value network \(its tensors do not fit the network its sobek\.json"):
        load_net(tmp_path / "other.zip")


PLAY_ALONE = """
import sys
sys.modules["agents.sobek"] = None
sys.modules["agents.kleopatra"] = None
import agents, sobek_env
for game, players, path in {cases!r}:
    net = agents.make("net:" + path, game=game, num_players=players)
    others = [agents.make("random", game=game, num_players=players, seed=s) for s in range(players - 1)]
    env = sobek_env.env(game=game, num_players=players)
    env.reset(seed=1)
    decisions = 0
    for name in env.agent_iter():
        observation, _, over, cut, _ = env.last()
        if over or cut:
            env.step(None)
            continue
        seat = int(name.rsplit("_", 1)[1])
        if seat == 0:
            decisions += 1
        env.step(net.act(observation) if seat == 0 else others[seat - 1].act(observation))
    print(game, decisions)
try:
    agents.make("heuristic", game="sobek", num_players=2)
except ValueError as exc:  # the registry's word for a game whose baselines cannot be imported
    print("baselines unimportable" if "no baseline agents" in str(exc) else exc)
"""


def test_the_network_plays_whole_games_with_the_baselines_unimportable(tmp_path: Path) -> None:
    cases = [(game, players, str(tiny_net(tmp_path / f"{game}.zip", game, players))) for game, players in TABLES]
    cases.append(("kleopatra", 3, str(tiny_net(tmp_path / "heads.zip", "kleopatra", 3, heads=["hands", "board"]))))
    cases += [(*shipped_table(path), str(path)) for path in SHIPPED_NETS]
    run = subprocess.run([sys.executable, "-c", PLAY_ALONE.format(cases=cases)], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.split("\n")
    assert lines[-2] == "baselines unimportable"  # the check can fail: the baselines really were out of reach
    for (game, _, _), line in zip(cases, lines):
        name, decisions = line.split()
        assert name == game and int(decisions) > 10
    assert len(lines) == len(cases) + 2


def test_the_search_guided_by_a_network_keeps_its_choice_before_the_late_game(tmp_path: Path) -> None:
    path = tiny_net(tmp_path / "net.zip", "sobek", 2, seed=4)
    net = agents.make(f"net:{path}", game="sobek", num_players=2)
    search = agents.make(f"ismcts:net={path},late=1", game="sobek", num_players=2, seed=0)
    env = sobek_env.env(game="sobek", num_players=2)
    env.reset(seed=2)
    state = env.unwrapped.game
    for _ in range(30):
        observation, *_ = env.last()
        action = search.act(observation, state=state)
        assert action == net.act(observation)
        env.step(action)


def test_the_search_refuses_a_network_of_another_table(tmp_path: Path) -> None:
    path = tiny_net(tmp_path / "net.zip", "sobek", 3)
    with pytest.raises(ValueError, match="trained for num_players=3 but this table has num_players=2"):
        agents.make(f"ismcts:net={path}", game="sobek", num_players=2)


@pytest.mark.parametrize("top", [1, 2])
def test_top_searches_only_the_network_s_most_probable_actions(tmp_path: Path, top: int) -> None:
    path = tiny_net(tmp_path / "net.zip", "sobek", 2, seed=6)
    net = agents.make(f"net:{path}", game="sobek", num_players=2)
    search = agents.make(f"ismcts:net={path},mode=paired,late=0,simulations=3,rollout=random,depth=4,top={top}",
                         game="sobek", num_players=2, seed=0)
    env = sobek_env.env(game="sobek", num_players=2)
    env.reset(seed=3)
    state = env.unwrapped.game
    wide = 0
    for _ in range(40):
        observation, *_ = env.last()
        action = search.act(observation, state=state)
        legal = np.flatnonzero(observation["action_mask"])
        if len(legal) > top:
            logits = net.logits(observation)
            best = sorted(legal.tolist(), key=lambda a: (-logits[a], a))[:top]
            assert sorted(search.last_means) == sorted(best) and action in best
            wide += 1
        env.step(action)
    assert wide >= 5


@pytest.mark.parametrize(("options", "message"), [
    ("top=2", "top=2 searches the network's most probable actions in paired mode"),
    ("top=-1", "top must be a whole number from 0"),
])
def test_top_needs_a_network_in_paired_mode(options: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        agents.make(f"ismcts:mode=paired,{options}", game="sobek", num_players=2)



def shipped_table(path: Path) -> tuple[str, int]:
    meta = read_net(path)[0]
    return meta["game"], meta["num_players"]


def test_every_shipped_network_has_its_recorded_play() -> None:
    assert sorted(path.name for path in SHIPPED_NETS) == sorted(SHIPPED_PLAY)


@pytest.mark.parametrize("name", sorted(SHIPPED_PLAY))
def test_each_shipped_network_plays_as_when_it_was_measured(name: str) -> None:
    game, num_players = shipped_table(ROOT / "models" / name)
    agent = agents.make(f"net:{ROOT / 'models' / name}", game=game, num_players=num_players)
    assert agent.meta["features"] == "raw"
    assert recorded_play(agent, game, num_players) == SHIPPED_PLAY[name]
