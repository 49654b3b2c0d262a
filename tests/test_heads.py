"""Structured policy heads (agents/players/heads.py): what each scores, from which slices, and their file record."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import torch
from test_net import tiny_net, with_record

import agents
import sobek_env
from agents.players.heads import KleopatraBoard, KleopatraHands
from agents.players.net import load_net, read_net
from sobek_env.kleopatra import actions as A
from sobek_env.kleopatra.catalogue import NUM_KINDS, ORIENTATIONS, SQUARES
from sobek_env.kleopatra.observation import observation_layout

PLAYERS = 3
LATENT = 8


def kleopatra_observations(count: int, seed: int = 0, placing: bool = False) -> np.ndarray:
    """Observations of random Kleopatra games (3 players); with ``placing``, only those that place a tile."""
    env = sobek_env.env(game="kleopatra", num_players=PLAYERS)
    rng = np.random.default_rng(seed)
    tile = observation_layout(PLAYERS)["tile"]
    rows: list[np.ndarray] = []
    game = 0
    while len(rows) < count:
        env.reset(seed=seed * 1000 + game)
        game += 1
        for _ in env.agent_iter():
            observation, _, over, cut, _ = env.last()
            if over or cut:
                env.step(None)
                continue
            if not placing or observation["observation"][tile].any():
                rows.append(observation["observation"].copy())
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    return np.stack(rows[:count])


def head_extra(head: torch.nn.Module, observations: np.ndarray, latent: torch.Tensor) -> np.ndarray:
    """What ``head`` adds to all-zero logits."""
    with torch.no_grad():
        x = torch.as_tensor(observations, dtype=torch.float32)
        return head(x, latent, torch.zeros(len(x), A.NUM_ACTIONS)).numpy()


def test_the_hands_head_scores_each_stall_alike_and_only_its_actions() -> None:
    torch.manual_seed(0)
    head = KleopatraHands(PLAYERS, LATENT)
    observations = kleopatra_observations(40, seed=1)
    latent = torch.randn(len(observations), LATENT)
    extra = head_extra(head, observations, latent)
    scored = [*range(A.MARKET, A.MARKET + 3), A.QUARRY, *range(A.CARD, A.CARD + NUM_KINDS)]
    others = np.setdiff1d(np.arange(A.NUM_ACTIONS), scored)
    assert not extra[:, others].any() and extra[:, scored].any()
    stalls = observation_layout(PLAYERS)["stalls"]
    swapped = observations.copy()
    columns = NUM_KINDS + 1
    first = slice(stalls.start, stalls.start + columns)
    second = slice(stalls.start + columns, stalls.start + 2 * columns)
    swapped[:, first], swapped[:, second] = observations[:, second], observations[:, first]
    moved = head_extra(head, swapped, latent)
    assert np.allclose(moved[:, A.MARKET], extra[:, A.MARKET + 1], atol=1e-5)
    assert np.allclose(moved[:, A.MARKET + 1], extra[:, A.MARKET], atol=1e-5)
    assert np.allclose(moved[:, A.MARKET + 2], extra[:, A.MARKET + 2], atol=1e-5)
    differ = ~np.isclose(extra[:, A.MARKET], extra[:, A.MARKET + 1], atol=1e-5)
    assert differ.any()  # the swap was not between equal stalls only


def test_the_board_head_scores_squares_and_orientations_only_where_a_tile_is_placed() -> None:
    torch.manual_seed(1)
    head = KleopatraBoard(PLAYERS, LATENT)
    placing = kleopatra_observations(6, seed=2, placing=True)
    others = kleopatra_observations(30, seed=3)
    tile = observation_layout(PLAYERS)["tile"]
    others = others[~others[:, tile].any(axis=1)]
    mixed = np.concatenate([others[:5], placing, others[5:]])
    latent = torch.randn(len(mixed), LATENT)
    extra = head_extra(head, mixed, latent)
    where = slice(5, 5 + len(placing))
    assert not np.delete(extra, np.arange(5, 5 + len(placing)), axis=0).any()
    scored = [*range(A.SQUARE, A.SQUARE + SQUARES), *range(A.ORIENT, A.ORIENT + ORIENTATIONS)]
    assert extra[where][:, scored].any()
    assert not np.delete(extra[where], scored, axis=1).any()
    alone = head_extra(head, placing, latent[where])  # the rows placed among others score as alone
    assert np.allclose(alone, extra[where], atol=1e-5)


def test_the_board_head_reads_the_garden() -> None:
    torch.manual_seed(2)
    head = KleopatraBoard(PLAYERS, LATENT)
    placing = kleopatra_observations(4, seed=4, placing=True)
    covered = observation_layout(PLAYERS)["covered"]
    moved = placing.copy()
    moved[:, covered.start + 27] = 1.0 - moved[:, covered.start + 27]
    latent = torch.randn(len(placing), LATENT)
    before, after = head_extra(head, placing, latent), head_extra(head, moved, latent)
    changed = np.flatnonzero(np.abs(before - after).max(axis=0) > 1e-6)
    near = {A.SQUARE + 8 * y + x for y in range(0, 7) for x in range(0, 7)}  # within three squares of (3, 3)
    squares = {int(a) for a in changed if A.SQUARE <= a < A.SQUARE + SQUARES}
    assert 27 + A.SQUARE in squares and squares <= near


def test_a_network_with_heads_records_them_and_plays(tmp_path: Path) -> None:
    path = tiny_net(tmp_path / "net.zip", "kleopatra", PLAYERS, heads=["hands", "board"])
    meta, tensors, _ = read_net(path)
    assert meta["heads"] == ["hands", "board"] and meta["features"] == "raw"
    assert any(name.startswith("heads.hands.") for name in tensors)
    agent = agents.make(f"net:{path}", game="kleopatra", num_players=PLAYERS)
    observations = kleopatra_observations(1, seed=5)
    mask = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
    mask[[A.MARKET, A.MARKET + 1, A.QUARRY]] = 1
    action = agent.act({"observation": observations[0], "action_mask": mask})
    assert action in (A.MARKET, A.MARKET + 1, A.QUARRY)


@pytest.mark.parametrize(("game", "players", "heads", "message"), [
    ("kleopatra", 3, ["hands", "wheels"], "field 'heads' has 'wheels', which is not a head of kleopatra's networks"),
    ("kleopatra", 3, ["board", "board"], "field 'heads' names a head twice"),
    ("kleopatra", 3, "hands", "field 'heads' must be a list of head names"),
    ("sobek", 2, ["hands"], "field 'heads' has 'hands', which is not a head of sobek's networks (none: it has no"),
])
def test_a_record_with_bad_heads_is_refused_naming_them(tmp_path: Path, game: str, players: int, heads: object,
                                                        message: str) -> None:
    path = tiny_net(tmp_path / "net.zip", game, players)
    bad = with_record(path, tmp_path / "bad.zip", lambda meta: meta.update(heads=heads))
    with pytest.raises(ValueError, match=re.escape(message)):
        load_net(bad)


def test_heads_a_record_leaves_out_are_weights_the_file_cannot_fit(tmp_path: Path) -> None:
    path = tiny_net(tmp_path / "net.zip", "kleopatra", PLAYERS, heads=["hands"])
    bad = with_record(path, tmp_path / "bad.zip", lambda meta: meta.pop("heads"))
    with pytest.raises(ValueError, match="its tensors do not fit the network"):
        load_net(bad)

