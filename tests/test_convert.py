"""The conversion command: only with --i-trust-this-file, and the converted model plays exactly as the old one."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
import torch
from hostile import Payload, rezip

from agents import make
from agents.players.modelfile import LegacyModelError
from agents.players.ppo import load_ppo, read_meta, read_model
from agents.training import sb3 as train
from agents.training.convert import main

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def legacy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A model of the old format, trained a little and saved as train.py saved models before (a trusted file)."""
    config = {**train.DEFAULTS, "players": 2, "envs": 1, "seed": 0, "pool": [["random", 1.0]],
              "self_play_weight": 0.0, "net": [32, 32], "n_steps": 128, "batch_size": 64, "epochs": 1}
    env = train.make_vec_env(config, [])
    try:
        model = train.new_model(config, env, seed=0)
        model.learn(128)
    finally:
        env.close()
    path = tmp_path_factory.mktemp("legacy") / "model.zip"
    model.save(path)
    record = {"format": "sobek-ppo/1", **train.model_meta(config, model.num_timesteps),
              "observation_size": int(model.observation_space.shape[0])}
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr("sobek.json", json.dumps(record))
    return path


def test_a_legacy_model_is_refused_by_make_naming_the_command(legacy: Path) -> None:
    with pytest.raises(LegacyModelError, match=f"sobek-env convert {legacy} .* --i-trust-this-file"):
        make(f"ppo:{legacy}", num_players=2)


def test_conversion_needs_the_explicit_opt_in(legacy: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main([str(legacy), str(tmp_path / "new.zip")])
    assert exit_info.value.code == 2
    assert "runs any code it carries" in capsys.readouterr().err and not (tmp_path / "new.zip").exists()


def test_a_converted_checkpoint_plays_as_the_old_one_and_keeps_its_optimizer(
        legacy: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    new = tmp_path / "new.zip"
    main([str(legacy), str(new), "--i-trust-this-file", "--check-games", "4"])
    out = capsys.readouterr().out
    assert "this runs the file's code" in out and "checked: the same action at all" in out
    assert read_meta(new)["policy"]["class"] == "AdvisedPolicy"
    converted = read_model(new, with_optimizer=True)
    assert converted.optimizer["state"] and converted.meta["training"]["num_timesteps"] == 128
    assert make(f"ppo:{new}", num_players=2).act is not None


def test_conversion_in_place_and_of_a_current_model(legacy: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture) -> None:
    model = tmp_path / "model.zip"
    model.write_bytes(legacy.read_bytes())
    main([str(model), str(model), "--i-trust-this-file", "--check-games", "1"])
    assert load_ppo(model).meta["format"] == "sobek-ppo/2"
    with pytest.raises(SystemExit) as exit_info:
        main([str(model), str(tmp_path / "again.zip"), "--i-trust-this-file"])
    assert exit_info.value.code == 2
    assert "already in the current format" in capsys.readouterr().err


def test_a_legacy_model_whose_weights_are_not_tensors_is_refused_without_torchs_unsafe_advice(
        legacy: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    code = tmp_path / "payload.pt"
    torch.save(Payload(tmp_path / "marker"), code)
    bad = rezip(tmp_path / "bad.zip", legacy, {"policy.pth": code.read_bytes()})
    with pytest.raises(SystemExit) as exit_info:
        main([str(bad), str(tmp_path / "new.zip"), "--i-trust-this-file"])
    assert exit_info.value.code == 1
    err = capsys.readouterr().err
    assert f"{str(bad)!r} could not be opened as a stable-baselines3 model" in err and "not a weights file" in err
    assert "weights_only" not in err and err.count("\n") == 1
    assert not (tmp_path / "new.zip").exists() and not (tmp_path / "marker").exists()


def test_a_legacy_model_with_non_finite_weights_is_not_converted(legacy: Path, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture) -> None:
    with zipfile.ZipFile(legacy) as archive:
        weights = torch.load(io.BytesIO(archive.read("policy.pth")), weights_only=True)
    weights["value_net.bias"][0] = float("nan")
    data = io.BytesIO()
    torch.save(weights, data)
    spoilt = rezip(tmp_path / "spoilt.zip", legacy, {"policy.pth": data.getvalue()})
    with pytest.raises(SystemExit) as exit_info:
        main([str(spoilt), str(tmp_path / "new.zip"), "--i-trust-this-file"])
    assert exit_info.value.code == 1
    err = capsys.readouterr().err
    assert "its tensor 'value_net.bias' in 'policy.pth' holds NaN or infinite values" in err and "nothing" in err
    assert not (tmp_path / "new.zip").exists()
