"""Training: a tiny run end to end with --resume, loading and refusing models, the opponent pool, bad configurations."""

from __future__ import annotations

import json
import os
import shutil
import zipfile
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import torch
from hostile import legacy_model
from shipped import recorded_play

import sobek_env
from agents import make
from agents.common.arguments import Bounds, layer_sizes, positive_int
from agents.common.files import DirectoryLock
from agents.games import tables
from agents.players.modelfile import MAX_LAYERS, MAX_PARAMETERS, MAX_WIDTH, POLICY_MEMBER
from agents.players.ppo import META_MEMBER, PPOAgent, load_ppo, read_meta, read_model, save_ppo
from agents.training import sb3 as train
from agents.training.pool import OpponentPool, parse_entry

ROOT = Path(__file__).resolve().parent.parent

TINY = ["--players", "2", "--envs", "2", "--n-steps", "256", "--batch-size", "256", "--epochs", "2", "--net", "32,32",
        "--checkpoint-every", "1024", "--snapshot-every", "1024", "--eval-every", "2048", "--eval-games", "4",
        "--seed", "3", "--pool", "random", "heuristic@2"]


def run_train(*args: str) -> None:
    """train.py with these arguments, in this process."""
    train.main(list(args))


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished tiny run of 3,072 steps: checkpoints at 2,048 and 3,072, snapshots every 1,024."""
    out = tmp_path_factory.mktemp("train") / "run"
    run_train(*TINY, "--timesteps", "3072", "--out", str(out))
    return out


def play_game(agent: PPOAgent, num_players: int = 2, seed: int = 0, game: str = "sobek") -> list[int]:
    env = sobek_env.SingleAgentEnv(make("random", game=game, num_players=num_players), num_players=num_players,
                                   game=game)
    observation, _ = env.reset(seed=seed)
    actions, over = [], False
    while not over:
        action = agent.act({"observation": observation, "action_mask": env.action_masks()})
        actions.append(action)
        observation, _, over, _, _ = env.step(action)  # raises on an illegal action
    return actions


def copy_model(source: Path, target: Path, replace: dict[str, bytes] | None = None, **meta: object) -> Path:
    """A copy of the model ``source`` with members replaced and sobek.json fields changed."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for name in old.namelist():
            data = (replace or {}).get(name, old.read(name))
            if name == META_MEMBER:
                data = json.dumps({**json.loads(data), **meta}).encode()
            new.writestr(name, data)
    return target


# ---------------------------------------------------------------- the run


def test_run_directory_holds_config_logs_checkpoints_and_model(run_dir: Path) -> None:
    config = json.loads((run_dir / "config.json").read_text())
    assert (config["players"], config["timesteps"], config["seed"]) == (2, 3072, 3)
    assert config["pool"] == [["random", 1.0], ["heuristic", 2.0]]
    assert config["starts"][0]["timesteps"] == 0 and config["starts"][0]["seed"] == 3
    assert config["lr"] == train.DEFAULTS["lr"] and "torch" in config["versions"]
    assert sorted(p.name for p in (run_dir / "checkpoints").iterdir()) == ["step_0000002048", "step_0000003072"]
    state = json.loads((run_dir / "checkpoints" / "step_0000003072" / "state.json").read_text())
    assert state["timesteps"] == 3072
    assert state["snapshots"] == [f"step_{s:010d}.zip" for s in (0, 1024, 2048)]  # in snapshots/: the run may move
    rows = (run_dir / "eval.csv").read_text().splitlines()
    assert rows[0].startswith("timesteps,random_win_rate,random_low,random_high")
    assert [row.split(",")[0] for row in rows[1:]] == ["2048", "3072"]
    assert list((run_dir / "tb").glob("events.out.tfevents.*"))
    assert read_meta(run_dir / "model.zip")["timesteps"] == 3072


def test_resume_continues_an_interrupted_run_to_its_total(run_dir: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "run"
    shutil.copytree(run_dir, out)
    (out / "model.zip").unlink()  # as if stopped after the checkpoint at 2,048
    shutil.rmtree(out / "checkpoints" / "step_0000003072")
    threads: list[int] = []  # what the trainer set torch's threads to, in order
    monkeypatch.setattr(torch, "set_num_threads", threads.append)
    run_train("--out", str(out), "--resume", "--envs", "1", "--update-threads", "2")
    stdout = capsys.readouterr().out
    assert "resuming from" in stdout and "2,048 steps" in stdout
    config = json.loads((out / "config.json").read_text())
    assert [start["timesteps"] for start in config["starts"]] == [0, 2048] and config["envs"] == 1
    assert config["update_threads"] == 2
    updates = [i for i, n in enumerate(threads) if n == 2]
    assert len(updates) >= 2 and threads[-1] == 1  # each update on two threads, the rollouts and the end on one
    assert all(threads[i + 1] == 1 for i in updates)
    assert config["starts"][1]["seed"] != config["seed"]
    assert read_meta(out / "model.zip")["timesteps"] == 3072
    assert (out / "checkpoints" / "step_0000003072" / "state.json").is_file()
    rows = (out / "eval.csv").read_text().splitlines()
    assert [row.split(",")[0] for row in rows[1:]] == ["2048", "3072"]  # the evaluation at 3,072 once
    run_train("--out", str(out), "--resume")
    assert "is complete" in capsys.readouterr().out


def test_the_same_seed_trains_the_same_weights(run_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "again"
    run_train(*TINY, "--timesteps", "2048", "--out", str(out))
    again = read_model(out / "model.zip").policy
    checkpoint = run_dir / "checkpoints" / "step_0000002048" / "model.zip"  # the first run at the same step
    first = read_model(checkpoint).policy
    assert again.keys() == first.keys()
    assert all(torch.equal(again[name], first[name]) for name in first)

    def evaluation(run: Path) -> str:
        return (run / "eval.csv").read_text().splitlines()[1].rsplit(",", 2)[0]  # less the seconds and CPU hours

    assert evaluation(out) == evaluation(run_dir)


def test_resume_refuses_to_change_the_configuration(run_dir: Path, capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as exit_info:
        train.main(["--out", str(run_dir), "--resume", "--lr", "0.1"])
    assert exit_info.value.code == 2
    assert "drop --lr" in capsys.readouterr().err


# ---------------------------------------------------------------- loading models


def test_trained_model_plays_legal_moves_through_the_registry(run_dir: Path) -> None:
    agent = make(f"ppo:{run_dir / 'model.zip'}", num_players=2, observation_mode="original")
    assert isinstance(agent, PPOAgent) and agent.name == "ppo" and agent.deterministic
    assert play_game(agent) == play_game(agent)
    sampled = load_ppo(run_dir / "model.zip", deterministic=False)
    sampled.seed(5)
    first = play_game(sampled)
    sampled.seed(5)
    assert play_game(sampled) == first


def test_saved_model_is_small(run_dir: Path) -> None:
    full = run_dir / "checkpoints" / "step_0000003072" / "model.zip"
    assert (run_dir / "model.zip").stat().st_size < full.stat().st_size


@pytest.mark.parametrize(("key", "trained", "wanted"), [
    ("num_players", 2, 3),
    ("observation_mode", "memory", "original"),
])
def test_a_model_for_another_table_is_refused(run_dir: Path, tmp_path: Path, key: str, trained: object,
                                              wanted: object) -> None:
    path = copy_model(run_dir / "model.zip", tmp_path / "model.zip", **{key: trained})
    with pytest.raises(ValueError, match=rf"{key}={trained!r}.*{key}={wanted!r}"):
        load_ppo(path, **{key: wanted})
    with pytest.raises(ValueError, match=rf"{key}={trained!r}"):
        make(f"ppo:{path}", **{key: wanted})


def test_missing_corrupt_and_foreign_files_are_refused_clearly(run_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="not found"):
        load_ppo(tmp_path / "absent.zip")
    garbage = tmp_path / "garbage.zip"
    garbage.write_bytes(b"not a zip at all")
    with pytest.raises(ValueError, match="not a MaskablePPO model zip"):
        load_ppo(garbage)
    truncated = tmp_path / "truncated.zip"
    truncated.write_bytes((run_dir / "model.zip").read_bytes()[:5000])
    with pytest.raises(ValueError, match="not a MaskablePPO model zip"):
        load_ppo(truncated)
    foreign = tmp_path / "foreign.zip"
    with zipfile.ZipFile(foreign, "w") as archive:
        archive.writestr("data", "{}")
    with pytest.raises(ValueError, match=f"no {META_MEMBER}"):
        load_ppo(foreign)
    broken = copy_model(run_dir / "model.zip", tmp_path / "broken.zip", replace={POLICY_MEMBER: b"junk"})
    with pytest.raises(ValueError, match="could not be loaded as a MaskablePPO model"):
        load_ppo(broken)


def fresh_model(tmp_path: Path, features: str, game: str = "sobek", players: int = 2) -> Path:
    """An untrained model of ``game`` with ``features``, saved as train.py saves its models."""
    config = {**train.DEFAULTS, "game": game, "players": players, "envs": 1, "seed": 0, "pool": [["random", 1.0]],
              "self_play_weight": 0.0, "net": [32, 32], "features": features}
    env = train.make_vec_env(config, [])
    try:
        model = train.new_model(config, env, seed=0)
    finally:
        env.close()
    path = tmp_path / f"{game}-{features}.zip"
    save_ppo(model, path, train.model_meta(config, 0), with_optimizer=False)
    return path


@pytest.mark.parametrize(("game", "players", "least"), [("sobek", 2, 20), ("kleopatra", 3, 50)])
def test_an_untrained_advised_policy_already_plays_as_the_heuristic(tmp_path: Path, game: str, players: int,
                                                                     least: int) -> None:
    agent = load_ppo(fresh_model(tmp_path, "advice", game=game, players=players))
    assert (agent.meta["game"], agent.meta["features"]) == (game, "advice")
    heuristic = make("heuristic", game=game, num_players=players)
    opponents = [make("random", seed=1, game=game, num_players=players) for _ in range(players - 1)]
    env = sobek_env.SingleAgentEnv(opponents, game=game, num_players=players)
    observation, _ = env.reset(seed=4)
    over, moves = False, 0
    while not over:
        step = {"observation": observation, "action_mask": env.action_masks()}
        action = agent.act(step)
        assert action == heuristic.act(step)
        observation, _, over, _, _ = env.step(action)
        moves += 1
    assert moves > least


def test_a_model_on_the_raw_observation_loads_and_plays(tmp_path: Path) -> None:
    agent = load_ppo(fresh_model(tmp_path, "raw"), num_players=2)
    assert agent.meta["features"] == "raw"
    assert play_game(agent) == play_game(agent)


def test_a_model_with_unknown_or_mismatched_features_is_refused(run_dir: Path, tmp_path: Path) -> None:
    assert read_meta(run_dir / "model.zip")["features"] == "advice"
    bogus = copy_model(run_dir / "model.zip", tmp_path / "bogus.zip", features="bogus")
    with pytest.raises(ValueError, match="features='bogus'"):
        load_ppo(bogus)
    mismatched = copy_model(run_dir / "model.zip", tmp_path / "raw.zip", features="raw")
    with pytest.raises(ValueError, match="features 'raw' now give"):
        load_ppo(mismatched)


def shipped_table(path: Path) -> tuple[str, int]:
    """(game, players) of a shipped model by its name: ppo-3p.zip is Sobek's, kleopatra-ppo-3p.zip Kleopatra's."""
    game, _, players = path.stem.rpartition("ppo-")
    return (game.removesuffix("-") or "sobek"), int(players.removesuffix("p"))


SHIPPED_MODELS = sorted((ROOT / "models").glob("*ppo-*p.zip"))


@pytest.mark.parametrize("path", SHIPPED_MODELS, ids=lambda p: p.name)
def test_each_shipped_model_loads_for_its_table_and_plays(path: Path) -> None:
    game, num_players = shipped_table(path)
    agent = make(f"ppo:{path}", game=game, num_players=num_players, observation_mode="original")
    assert (agent.meta["game"], agent.meta["num_players"]) == (game, num_players)
    assert path.stat().st_size < 4_000_000
    once, again = (play_game(agent, num_players=num_players, seed=1, game=game) for _ in range(2))
    assert once == again
    with pytest.raises(ValueError, match="players"):  # refused at another table (3 and 4 suit both games)
        make(f"ppo:{path}", game=game, num_players=4 if num_players == 3 else 3)


# recorded from the shipped models when they were measured for the README (Sobek's: sobek-ppo/2, trained for
# the revised rules): (decisions, sha256 of the actions) of the deterministic policy in 3 seeded games against
# heuristic players. A change in the engine, the observation, the features or the heuristic moves them.
SHIPPED_PLAY = {
    "ppo-2p.zip": (392, "e39819226241a981"), "ppo-3p.zip": (316, "5ee6ad89171b0d09"),
    "ppo-4p.zip": (192, "7d22446e8965e9a7"), "kleopatra-ppo-3p.zip": (414, "7d5de6bec28c4d0b"),
    "kleopatra-ppo-4p.zip": (299, "c8af7927dd3477fd"), "kleopatra-ppo-5p.zip": (292, "afbe7f297b5db8ff"),
}


def test_every_shipped_model_has_its_recorded_play() -> None:
    assert sorted(path.name for path in SHIPPED_MODELS) == sorted(SHIPPED_PLAY)


@pytest.mark.parametrize("name", sorted(SHIPPED_PLAY))
def test_each_shipped_model_plays_as_when_it_was_measured(name: str) -> None:
    game, num_players = shipped_table(ROOT / "models" / name)
    agent = make(f"ppo:{ROOT / 'models' / name}", game=game, num_players=num_players)
    assert recorded_play(agent, game, num_players) == SHIPPED_PLAY[name]


# ---------------------------------------------------------------- the pool


def test_parse_entry_reads_spec_and_weight() -> None:
    assert parse_entry("heuristic:tolerance=0.2@2.5") == ("heuristic:tolerance=0.2", 2.5)
    assert parse_entry("random") == ("random", 1.0)
    for bad in ("random@", "random@x", "random@-1", "@2", "random@0"):
        with pytest.raises(ValueError, match="opponent"):
            parse_entry(bad)


def test_pool_sampling_follows_the_weights() -> None:
    pool = OpponentPool([("random", 1.0), ("greedy", 3.0)], num_players=2)
    rng = np.random.default_rng(0)
    names = Counter(pool.sample(rng, 1)[0].name for _ in range(4000))
    assert names["greedy"] / 4000 == pytest.approx(0.75, abs=0.03)


def test_pool_gives_each_seat_its_own_agent() -> None:
    pool = OpponentPool([("heuristic", 1.0)], num_players=4)
    agents = pool.sample(np.random.default_rng(0), 3)
    assert len({id(agent) for agent in agents}) == 3


def test_pool_keeps_the_latest_snapshots_with_the_self_play_weight(run_dir: Path) -> None:
    snapshots = sorted((run_dir / "snapshots").glob("*.zip"))
    pool = OpponentPool([("random", 1.0)], num_players=2, self_play_weight=2.0, max_snapshots=2)
    assert pool.probabilities() == [("random", 1.0)]  # no snapshot yet: the fixed opponents fill every seat
    for path in snapshots[:3]:
        pool.add_snapshot(path)
    assert pool.snapshots == [str(p) for p in snapshots[1:3]]
    options, shares = zip(*pool.probabilities())
    assert options == ("random", str(snapshots[1]), str(snapshots[2])) and shares == pytest.approx([1 / 3] * 3)
    rng = np.random.default_rng(1)
    kinds = Counter(pool.sample(rng, 1)[0].name for _ in range(600))
    assert kinds["ppo"] / 600 == pytest.approx(2 / 3, abs=0.06)


def test_pool_rejects_bad_settings() -> None:
    with pytest.raises(ValueError, match="empty"):
        OpponentPool([], num_players=2)
    with pytest.raises(ValueError, match="positive"):
        OpponentPool([("random", 0.0)], num_players=2)
    with pytest.raises(ValueError, match="unknown agent"):
        OpponentPool([("bogus", 1.0)], num_players=2)
    with pytest.raises(RuntimeError, match="no snapshot"):
        OpponentPool([], num_players=2, self_play_weight=1.0).sample(np.random.default_rng(0), 1)


# ---------------------------------------------------------------- bad configurations


@pytest.mark.parametrize(("args", "message"), [
    (["--players", "2", "--pool", "bogus"], "unknown agent 'bogus'"),
    (["--players", "2", "--pool", "heuristic:tolerance=7"], "tolerance must be from 0 to 1"),
    (["--players", "2", "--pool", "random@-2"], "positive weight"),
    (["--players", "2", "--timesteps", "-5"], "argument --timesteps: must be an integer from 1 to 1,000,000,000,000"),
    (["--players", "2", "--pool", "--self-play-weight", "0"], "the pool is empty"),
    (["--players", "5"], "Sobek is for 2 to 4 players, got 5"),
    (["--game", "chess", "--players", "2"], "invalid choice: 'chess'"),
    (["--players", "2", "--features", "advise"], "--features 'advise': sobek models read one of raw, advice"),
    (["--players", "2", "--advice-prior", "-1"], "argument --advice-prior: must be a number from 0 to 100, got -1"),
    (["--players", "2", "--reward", "paired-margin", "--features", "raw"],
     "--reward paired-margin compares the learner with the advice its features carry: use --features advice"),
    ([], "--players is required"),
    (["--resume"], "no run to resume"),
])
def test_a_bad_configuration_stops_at_once_with_one_line(args: list[str], message: str, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as exit_info:
        train.main([*args, "--out", str(tmp_path / "run")])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not (tmp_path / "run").exists()


# every option's range, checked before anything is written: each of these once crashed a run after it had
# written its config.json (so the same command was refused afterwards), or trained into NaN
OUT_OF_RANGE = [
    (["--net", f"{MAX_WIDTH + 1}"], f"argument --net: must be 1 to {MAX_LAYERS} layers of 1 to {MAX_WIDTH:,} units "
                                    f"each, got {MAX_WIDTH + 1}"),
    (["--net", ",".join(["8"] * (MAX_LAYERS + 1))], "argument --net: must be 1 to"),
    (["--net", "4096,4096,4096"], f"more than the {MAX_PARAMETERS:,} a model file may hold"),
    (["--gamma", "5"], "argument --gamma: must be a number above 0 and at most 1, got 5"),
    (["--gamma", "0"], "argument --gamma: must be a number above 0"),
    (["--seed", "4294967296"], "argument --seed: must be an integer from 0 to 4,294,967,295, got 4294967296"),
    (["--seed", "-1"], "argument --seed: must be an integer from 0"),
    (["--lr", "2"], "argument --lr: must be a number above 0 and at most 1, got 2"),
    (["--gae-lambda", "1.5"], "argument --gae-lambda: must be a number from 0 to 1, got 1.5"),
    (["--clip", "0"], "argument --clip: must be a number above 0 and at most 1, got 0"),
    (["--ent-coef", "5"], "argument --ent-coef: must be a number from 0 to 1, got 5"),
    (["--ent-coef", "inf"], "argument --ent-coef: must be finite, got inf"),
    (["--batch-size", "1", "--n-steps", "1", "--envs", "1"], "argument --batch-size: must be an integer from 2"),
    (["--n-steps", "1048576", "--envs", "2"], "the rollout --n-steps x --envs = 2,097,152 steps is more than"),
    (["--epochs", "0"], "argument --epochs: must be an integer from 1 to 1,000, got 0"),
    (["--envs", "100000"], "argument --envs: must be an integer from 1 to 256, got 100000"),
    (["--advice-prior", "1e300"], "argument --advice-prior: must be a number from 0 to 100, got 1e300"),
    (["--self-play-weight", "1e308"], "argument --self-play-weight: must be a number from 0 to 1,000,000"),
    (["--pool", "random@1e308", "greedy@1e308"], "a positive weight of at most 1,000,000"),
    (["--snapshots", "1000"], "argument --snapshots: must be an integer from 1 to 100, got 1000"),
    (["--snapshot-every", "0"], "argument --snapshot-every: must be an integer from 1"),
    (["--eval-every", "0"], "argument --eval-every: must be an integer from 1"),
    (["--eval-games", "0"], "argument --eval-games: must be an integer from 1 to 1,000,000, got 0"),
    (["--checkpoint-every", "0"], "argument --checkpoint-every: must be an integer from 1"),
    (["--critic-warmup", "-1"], "argument --critic-warmup: must be an integer from 0"),
    (["--timesteps", str(10**13)], "argument --timesteps: must be an integer from 1 to 1,000,000,000,000"),
]


@pytest.mark.parametrize(("args", "message"), OUT_OF_RANGE)
def test_an_option_out_of_its_range_is_refused_before_anything_is_written(
        args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as exit_info:
        train.main(["--players", "4", *args, "--out", str(tmp_path / "run")])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("sobek-env train: error: ") and message in err and err.count("\n") == 1
    assert not (tmp_path / "run").exists()


def test_the_network_limits_are_the_model_files_own(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture) -> None:
    monkeypatch.setattr("agents.players.modelfile.MAX_WIDTH", 16)  # one number: the option follows what files may hold
    with pytest.raises(SystemExit):
        train.main(["--players", "2", "--net", "32", "--out", str(tmp_path / "run")])
    assert "layers of 1 to 16 units each, got 32" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_every_option_of_both_backends_has_a_range_or_a_list_of_choices() -> None:
    from agents.training import rllib_train as rllib_training

    for parser in (train.build_parser(), rllib_training.build_parser()):
        for action in parser._actions:
            if action.nargs == 0 or action.dest in ("help", "out", "address", "init", "features", "pool"):
                continue  # flags, paths and names, each checked by what it names
            ranged = isinstance(action.type, Bounds) or action.type in (layer_sizes, positive_int)
            assert ranged or action.choices, f"{parser.prog} {action.option_strings[0]} has no range"
            if action.type is positive_int:
                assert action.dest == "players"  # checked against the game's player counts


def test_a_new_run_that_cannot_start_leaves_nothing_that_refuses_the_same_command(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("no model today")

    out = tmp_path / "run"
    monkeypatch.setattr(train, "new_model", broken)
    with pytest.raises(RuntimeError, match="no model today"):
        run_train(*TINY, "--envs", "1", "--timesteps", "256", "--out", str(out))
    assert not (out / "config.json").exists()
    with pytest.raises(RuntimeError, match="no model today"):  # the same command is not refused: it starts again
        run_train(*TINY, "--envs", "1", "--timesteps", "256", "--out", str(out))


def test_a_run_stopped_before_it_started_says_that_the_same_command_starts_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    out = tmp_path / "run"
    monkeypatch.setattr(train, "new_model", interrupted)
    with pytest.raises(SystemExit) as exit_info:
        run_train(*TINY, "--envs", "1", "--timesteps", "256", "--out", str(out))
    assert exit_info.value.code == 130
    assert capsys.readouterr().err.strip().endswith("the run had not started (nothing was written); "
                                                   "the same command starts it")
    assert not (out / "config.json").exists()


def test_a_training_that_diverges_stops_with_one_line_before_its_weights_play_or_are_saved(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    from sb3_contrib import MaskablePPO

    update = MaskablePPO.train

    def into_nan(self: MaskablePPO) -> None:  # as a too large --lr does, on some seeds
        update(self)
        with torch.no_grad():
            self.policy.value_net.weight[0, 0] = float("nan")

    monkeypatch.setattr(MaskablePPO, "train", into_nan)
    out = tmp_path / "run"
    with pytest.raises(SystemExit) as exit_info:
        run_train(*TINY, "--envs", "1", "--timesteps", "2048", "--checkpoint-every", "256", "--out", str(out))
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("sobek-env train: error: the training diverged: after the update at 256 steps the policy's "
                          "tensor 'value_net.weight' holds NaN or infinite values") and "smaller --lr" in err
    assert not (out / "checkpoints").exists()  # none with those weights
    assert [p.name for p in (out / "snapshots").iterdir()] == ["step_0000000000.zip"]


def written_run(out: Path, **changes: object) -> Path:
    """A run directory whose config.json is a valid new run's (as train.py writes it), with ``changes``."""
    config = {**train.DEFAULTS, "players": 2, "timesteps": 2048, "seed": 3, "features": "advice",
              "pool": [["random", 1.0]], "envs": 1, "starts": [], **changes}
    out.mkdir()
    (out / "config.json").write_text(json.dumps(config))
    return out


@pytest.mark.parametrize(("changes", "message"), [
    ({"gamma": "0.99"}, "field 'gamma' must be a number above 0 and at most 1, got '0.99'"),
    ({"gamma": 5}, "field 'gamma' must be a number above 0 and at most 1, got 5"),
    ({"timesteps": "2048"}, "field 'timesteps' must be an integer from 1"),
    ({"lr": True}, "field 'lr' must be a number above 0 and at most 1, got True"),
    ({"seed": 2**40}, "field 'seed' must be an integer from 0 to 4,294,967,295"),
    ({"players": "2"}, "field 'players' must be a player count of Sobek, 2 to 4, got '2'"),
    ({"game": ["sobek"]}, "field 'game' must be one of"),
    ({"mode": None}, "field 'mode' must be one of original, memory, got None"),
    ({"features": 3}, "field 'features' must be one of raw, advice, got 3"),
    ({"pool": "random"}, "field 'pool' must be a list of [spec, weight] pairs, got 'random'"),
    ({"pool": [["random", "1"]]}, "field 'pool' gives 'random' a weight that must be a number from 0"),
    ({"pool": [["random", 0]]}, "field 'pool' gives 'random' a weight that must be above 0"),
    ({"pool": [["bogus", 1.0]]}, "unknown agent 'bogus'"),
    ({"net": "256,256"}, "field 'net' must be a list of layer sizes, got '256,256'"),
    ({"net": [5000]}, "field 'net' must be 1 to 8 layers of 1 to 4,096 units each, got 5000"),
    ({"init": 7}, "field 'init' must be a model's path or null, got 7"),
    ({"starts": {}}, "field 'starts' must be a list, got {}"),
    ({"batch_size": 4096, "n_steps": 8}, "--batch-size 4096 exceeds the rollout size"),
])
def test_resume_names_the_field_of_a_hand_edited_config_that_is_wrong(
        changes: dict, message: str, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = written_run(tmp_path / "run", **changes)
    before = (out / "config.json").read_text()
    with pytest.raises(SystemExit) as exit_info:
        train.main(["--out", str(out), "--resume"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert f"{str(out / 'config.json')!r} cannot be resumed: " in err and message in err and err.count("\n") == 1
    assert (out / "config.json").read_text() == before


@pytest.mark.parametrize(("args", "message"), [
    (["--resume"], "--resume: the RLlib backend cannot resume a run"),
    (["--players", "2", "--resume"], "--resume: the RLlib backend cannot resume a run"),
    ([], "--players is required (2 to 4 for Sobek)"),
    (["--players", "2", "--net", "5000"], "argument --net: must be 1 to 8 layers of 1 to 4,096 units each, got 5000"),
    (["--players", "4", "--net", "4096,4096,4096,4096"], f"more than the {MAX_PARAMETERS:,} a model file may hold"),
    (["--players", "2", "--gamma", "5"], "argument --gamma: must be a number above 0 and at most 1, got 5"),
    (["--players", "2", "--seed", "4294967296"], "argument --seed: must be an integer from 0 to 4,294,967,295"),
    (["--players", "2", "--lr", "3"], "argument --lr: must be a number above 0 and at most 1, got 3"),
    (["--players", "2", "--minibatch-size", "1"], "argument --minibatch-size: must be an integer from 2"),
    (["--players", "2", "--batch-size", "2000000"], "argument --batch-size: must be an integer from 2 to 1,048,576"),
    (["--players", "2", "--epochs", "0"], "argument --epochs: must be an integer from 1 to 1,000"),
    (["--players", "2", "--env-runners", "99999"], "argument --env-runners: must be an integer from 0 to 4,096"),
    (["--players", "2", "--envs", "0"], "argument --envs: must be an integer from 1 to 256"),
    (["--players", "2", "--cpus", "0"], "argument --cpus: must be an integer from 1 to 4,096"),
    (["--players", "2", "--eval-games", "0"], "argument --eval-games: must be an integer from 1"),
    (["--players", "2", "--timesteps", "0"], "argument --timesteps: must be an integer from 1"),
    (["--players", "2", "--self-play", "league", "--snapshots", "1000"], "argument --snapshots: must be an integer"),
])
def test_the_rllib_backend_checks_its_options_before_it_needs_ray(args: list[str], message: str, tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture) -> None:
    from agents.training import rllib_train as rllib_training

    with pytest.raises(SystemExit) as exit_info:
        rllib_training.main([*args, "--out", str(tmp_path / "run")])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("sobek-env train --backend rllib: error: ") and message in err and err.count("\n") == 1
    assert not (tmp_path / "run").exists()


def test_a_second_run_on_the_same_out_is_refused_at_once(run_dir: Path, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture) -> None:
    resumed = tmp_path / "resumed"
    shutil.copytree(run_dir, resumed)
    for out, args in ((tmp_path / "new", ["--players", "2"]), (resumed, ["--resume"])):
        with DirectoryLock(out), pytest.raises(SystemExit) as exit_info:  # another run holds --out
            train.main([*args, "--out", str(out)])
        assert exit_info.value.code == 2
        assert f"--out {str(out)!r} is in use by another run (process {os.getpid()})" in capsys.readouterr().err
    assert not (tmp_path / "new" / "config.json").exists()
    assert (resumed / "config.json").read_text() == (run_dir / "config.json").read_text()


def test_a_new_run_does_not_overwrite_an_old_one(run_dir: Path, capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as exit_info:
        train.main(["--players", "2", "--out", str(run_dir)])
    assert exit_info.value.code == 2
    assert "--resume" in capsys.readouterr().err


# ---------------------------------------------------------------- files that would run code, and damaged ones


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    path = tmp_path / "marker"
    yield path
    assert not path.exists(), "a model file ran code"


def test_a_legacy_model_in_the_pool_is_refused(tmp_path: Path, marker: Path, capsys: pytest.CaptureFixture) -> None:
    evil = legacy_model(tmp_path / "evil.zip", marker)
    with pytest.raises(SystemExit) as exit_info:
        train.main(["--players", "2", "--pool", f"ppo:{evil}", "--out", str(tmp_path / "run")])
    assert exit_info.value.code == 2
    assert "old format" in capsys.readouterr().err and not (tmp_path / "run").exists()


def test_resume_refuses_a_legacy_snapshot(run_dir: Path, tmp_path: Path, marker: Path,
                                          capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "run"
    shutil.copytree(run_dir, out)
    legacy_model(out / "snapshots" / "step_0000001024.zip", marker)  # in play at both checkpoints
    with pytest.raises(SystemExit) as exit_info:
        run_train("--out", str(out), "--resume")
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "sobek-env train: error: no usable checkpoint" in err
    assert "step_0000001024.zip' is a model in the old format" in err


def test_resume_falls_back_from_a_legacy_checkpoint_and_refuses_when_none_is_left(
        run_dir: Path, tmp_path: Path, marker: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "run"
    shutil.copytree(run_dir, out)
    (out / "model.zip").unlink()
    legacy_model(out / "checkpoints" / "step_0000003072" / "model.zip", marker)
    run_train("--out", str(out), "--resume")
    captured = capsys.readouterr()
    assert "step_0000003072' cannot be used" in captured.err and "old format" in captured.err
    assert "resuming from" in captured.out and "2,048 steps" in captured.out
    for step in ("0000002048", "0000003072"):
        legacy_model(out / "checkpoints" / f"step_{step}" / "model.zip", marker)
    with pytest.raises(SystemExit) as exit_info:
        run_train("--out", str(out), "--resume", "--timesteps", "4096")
    assert exit_info.value.code == 2
    assert "no usable checkpoint" in capsys.readouterr().err


def test_resume_falls_back_from_a_damaged_checkpoint_and_keeps_one_row_per_evaluation(
        run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "run"
    shutil.copytree(run_dir, out)
    newest = out / "checkpoints" / "step_0000003072" / "model.zip"
    newest.write_bytes(newest.read_bytes()[:1000])  # cut off, as by a full disk
    run_train("--out", str(out), "--resume", "--timesteps", "4096")
    captured = capsys.readouterr()
    assert f"the checkpoint {str(newest.parent)!r} cannot be used" in captured.err
    assert "resuming from" in captured.out and "2,048 steps" in captured.out
    rows = (out / "eval.csv").read_text().splitlines()
    assert [row.split(",")[0] for row in rows[1:]] == ["2048", "4096"]  # none left from the lost continuation
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == ["step_0000003072", "step_0000004096"]
    assert read_meta(out / "model.zip")["timesteps"] == 4096


def test_a_deeply_nested_config_is_refused_clearly(run_dir: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "run"
    shutil.copytree(run_dir, out)
    (out / "config.json").write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(SystemExit) as exit_info:
        run_train("--out", str(out), "--resume")
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "nests deeper than" in err and err.count("\n") == 1


# ---------------------------------------------------------------- the lead rewards


def play_rewards(game: str, players: int, reward: str, seed: int) -> tuple[list[float], float]:
    """The learner's rewards in one game of random play at seat 0, and its final margin / score scale."""
    pool = OpponentPool([("random", 1.0)], num_players=players, game=game)
    env = train.TrainingEnv(pool, reward, seat=0)
    env.reset(seed=seed)
    rng, rewards, over = np.random.default_rng(seed), [], False
    while not over:
        _, reward_now, over, _, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        rewards.append(reward_now)
    info = sobek_env.load_game(game)
    return rewards, info.margins(env.game)[0] / info.score_scale


@pytest.mark.parametrize(("game", "players"), [("sobek", 2), ("kleopatra", 3)])
def test_the_lead_rewards_pay_the_margin_as_it_accrues_and_capped_margin_squashes_it_at_the_end(
        game: str, players: int) -> None:
    plain, margin = play_rewards(game, players, "round-margin", seed=5)
    capped, same_margin = play_rewards(game, players, "capped-margin", seed=5)
    assert same_margin == margin and len(capped) == len(plain)
    assert sum(plain) == pytest.approx(margin)
    assert sum(capped) == pytest.approx(train.MARGIN_CAP * np.tanh(margin / train.MARGIN_CAP))
    assert capped[:-1] == plain[:-1] and sum(1 for r in plain if r) > 2  # paid along the way, not only at the end
    assert abs(sum(capped)) < train.MARGIN_CAP


def first_outlook(seed: int) -> float:
    """Seat 0's outlook / score scale at its first decision of :func:`play_rewards`' Kleopatra game (3 players)."""
    env = train.TrainingEnv(OpponentPool([("random", 1.0)], num_players=3, game="kleopatra"), "outlook-margin", seat=0)
    env.reset(seed=seed)
    game = sobek_env.load_game("kleopatra")
    return game.outlook(env.game)[0] / game.score_scale


def test_outlook_margin_pays_the_crocodile_as_it_looms_and_sums_to_the_margin() -> None:
    plain, margin = play_rewards("kleopatra", 3, "round-margin", seed=5)
    outlook, same_margin = play_rewards("kleopatra", 3, "outlook-margin", seed=5)
    assert same_margin == margin and len(outlook) == len(plain)
    start = first_outlook(seed=5)
    assert start != 0  # this deal starts with someone to be eaten: the rewards sum to the margin less it
    assert sum(outlook) == pytest.approx(margin - start)
    # the seat that would be eaten were the game to end now changes along the way: the rewards differ from the
    # margin's, by about a best score (the crocodile's swing), before the end
    swings = [abs(a - b) for a, b in zip(outlook[:-1], plain[:-1], strict=True)]
    assert max(swings) > 0.2


def test_outlook_margin_is_the_margin_in_sobek() -> None:
    plain, margin = play_rewards("sobek", 2, "round-margin", seed=5)
    assert play_rewards("sobek", 2, "outlook-margin", seed=5) == (plain, margin)


def test_capped_outlook_pays_the_squashed_outlook_as_it_moves_and_sums_to_the_capped_margin() -> None:
    outlook, margin = play_rewards("kleopatra", 3, "outlook-margin", seed=5)
    capped, same_margin = play_rewards("kleopatra", 3, "capped-outlook", seed=5)
    assert same_margin == margin and len(capped) == len(outlook)

    def squash(lead: float) -> float:
        return train.MARGIN_CAP * float(np.tanh(lead / train.MARGIN_CAP))

    start = first_outlook(seed=5)
    assert sum(capped) == pytest.approx(squash(margin) - squash(start))
    # every step pays the change of the squashed outlook: rebuild it from the plain outlook's steps
    lead, expected = start, []
    for step in outlook:
        expected.append(squash(lead + step) - squash(lead))
        lead += step
    assert capped == pytest.approx(expected, abs=1e-9)
    assert max(abs(r) for r in capped) < 2 * train.MARGIN_CAP < max(abs(r) for r in outlook)


# ---------------------------------------------------------------- the paired reward


def paired_env(game: str, players: int, seed: int) -> tuple[train.TrainingEnv, np.ndarray]:
    """A paired-margin environment at seat 0 against a random and heuristic pool, reset with ``seed``."""
    pool = OpponentPool([("random", 1.0), ("heuristic", 1.0)], num_players=players, game=game)
    env = train.TrainingEnv(pool, "paired-margin", "advice", seat=0)
    return env, env.reset(seed=seed)[0]


def paired_game(game: str, players: int, seed: int,
                depart_at: int | None) -> tuple[list[float], float, train.TrainingEnv]:
    """A game of :func:`paired_env`, the learner playing the advice but at its ``depart_at``-th decision, where it
    plays another legal action: its rewards and final capped margin."""
    env, vector = paired_env(game, players, seed)
    rewards, over, decision = [], False, 0
    while not over:
        action = env.advised(vector)
        if decision == depart_at:
            action = next(int(a) for a in np.flatnonzero(env.action_masks()) if a != action)
        vector, reward, over, _, _ = env.step(action)
        rewards.append(reward)
        decision += 1
    info = sobek_env.load_game(game)
    return rewards, train.paid_lead("capped-margin", info.margins(env.game)[0] / info.score_scale, True), env


def departure_point(game: str, players: int, seed: int) -> int:
    """The first decision of the learner after its fifth with a choice."""
    env, vector = paired_env(game, players, seed)
    for decision in range(10_000):
        if decision >= 5 and env.action_masks().sum() > 1:
            return decision
        vector, *_ = env.step(env.advised(vector))
    raise AssertionError("no decision with a choice")


@pytest.mark.parametrize(("game", "players"), [("sobek", 2), ("kleopatra", 3)])
def test_the_paired_reward_pays_what_a_departure_changed_against_the_advice_on_the_same_deal(
        game: str, players: int) -> None:
    followed, advice_margin, env = paired_game(game, players, seed=7, depart_at=None)
    assert env.twin is None and set(followed) == {0.0}  # never departed: nothing to compare, nothing paid
    at = departure_point(game, players, seed=7)
    departed, margin, env = paired_game(game, players, seed=7, depart_at=at)
    assert env.twin == advice_margin  # the copy played on with the advice ends as the game that followed it
    assert set(departed[:-1]) == {0.0} and departed[-1] == pytest.approx(margin - advice_margin)


def test_the_copy_played_with_the_advice_leaves_the_game_and_its_opponents_as_they_were() -> None:
    pool = OpponentPool([("random", 1.0)], num_players=3, game="kleopatra")
    env = train.TrainingEnv(pool, "paired-margin", "advice", seat=0)
    vector, _ = env.reset(seed=2)
    before = (env.game.to_json(), [o.rng.getstate() for o in env.opponents])
    first = env.twin_lead(env.advised(vector))
    assert (env.game.to_json(), [o.rng.getstate() for o in env.opponents]) == before
    assert env.twin_lead(env.advised(vector)) == first


def test_an_illegal_action_under_the_paired_reward_is_refused_and_changes_nothing() -> None:
    pool = OpponentPool([("heuristic", 1.0)], num_players=2, game="sobek")
    env = train.TrainingEnv(pool, "paired-margin", "advice", seat=0)
    env.reset(seed=1)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    state = env.game.to_json()
    with pytest.raises(sobek_env.IllegalActionError):
        env.step(illegal)
    assert env.twin is None and env.game.to_json() == state


def test_the_paired_reward_needs_features_with_advice() -> None:
    pool = OpponentPool([("random", 1.0)], num_players=2, game="sobek")
    with pytest.raises(ValueError, match="features that carry one"):
        train.TrainingEnv(pool, "paired-margin", "raw", seat=0)


def test_an_evaluation_game_plays_the_same_whichever_process_plays_it_and_after_what(run_dir: Path) -> None:
    config = json.loads((run_dir / "config.json").read_text())
    learner = load_ppo(run_dir / "model.zip")
    games = list(range(6))
    whole = train.play_evaluation_games(learner, config, "random", games)
    odd = train.play_evaluation_games(learner, config, "random", games[1::2])
    even = train.play_evaluation_games(learner, config, "random", games[0::2])
    assert whole == [result for pair in zip(even, odd) for result in pair]
    assert len(set(whole)) > 1  # the games differ: dealt with their own seeds, the learner in turn at each seat


def test_a_game_brings_its_own_defaults_and_given_options_still_win(tmp_path: Path) -> None:
    config, _, _, lock = train.configure_run(["--game", "kleopatra", "--players", "3", "--out", str(tmp_path / "k")])
    lock.release()
    own = train.game_defaults("kleopatra")
    assert {key: config[key] for key in own} == {**own, "pool": [list(parse_entry(e)) for e in own["pool"]]}
    assert config["timesteps"] == tables("kleopatra").timesteps[3] and config["lr"] == train.DEFAULTS["lr"]
    config, _, _, lock = train.configure_run(["--game", "kleopatra", "--players", "3", "--out", str(tmp_path / "g"),
                                              "--reward", "win", "--pool", "random"])
    lock.release()
    assert (config["reward"], config["pool"], config["self_play_weight"]) == ("win", [["random", 1.0]], 0.0)
    config, _, _, lock = train.configure_run(["--players", "2", "--out", str(tmp_path / "s")])
    lock.release()
    assert (config["reward"], config["advice_prior"]) == (train.DEFAULTS["reward"], train.DEFAULTS["advice_prior"])
    assert config["pool"] == [list(parse_entry(e)) for e in train.DEFAULTS["pool"]]


def test_during_the_critic_warmup_only_the_value_function_learns(tmp_path: Path) -> None:
    out = tmp_path / "warm"
    run_train(*TINY, "--timesteps", "3072", "--critic-warmup", "2048", "--out", str(out))
    start = read_model(out / "snapshots" / "step_0000000000.zip").policy
    warm = read_model(out / "checkpoints" / "step_0000002048" / "model.zip").policy
    end = read_model(out / "model.zip").policy
    value = [name for name in start if name.startswith(("value_net.", "mlp_extractor.value_net."))]
    assert value and len(value) < len(start)
    for name in start:
        assert torch.equal(warm[name], start[name]) != (name in value), name
    assert not all(torch.equal(end[name], warm[name]) for name in start if name not in value)
    assert json.loads((out / "config.json").read_text())["critic_warmup"] == 2048
