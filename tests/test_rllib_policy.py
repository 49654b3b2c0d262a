"""The RLlib policy file (``rllib:PATH``): it plays like any agent, needs no Ray, and loading one follows the rules
of ``ppo:`` models: it never runs code from the file, every read is bounded, each bad record names its field."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest
import torch
from hostile import Payload, payload, rezip

import sobek_env
from agents import make
from agents.players.modelfile import META_MEMBER, POLICY_MEMBER
from agents.players.rllib_policy import MASKED, MaskedNet, RLlibAgent, load_rllib, read_meta, save_policy
from agents.tournaments.tournament import play_tournament

ROOT = Path(__file__).resolve().parent.parent
PPO_MODEL = ROOT / "models" / "ppo-2p.zip"


def meta(game: str = "sobek", players: int = 2, hidden: list[int] | None = None) -> dict:
    """A policy's record, as train.py --backend rllib writes it (less its format)."""
    info = sobek_env.load_game(game)
    return {"game": game, "num_players": players, "observation_mode": "original", "reward": "round-margin",
            "timesteps": 100, "observation_size": info.observation_size(players), "action_count": info.num_actions,
            "network": {"hidden": hidden or [32], "activation": "ReLU"},
            "training": {"algorithm": "PPO", "self_play": "shared", "iterations": 1, "ray": "2.60.0"}}


def saved_policy(path: Path, game: str = "sobek", players: int = 2, seed: int = 0) -> tuple[Path, MaskedNet]:
    """A policy file of a random network, and that network."""
    record = meta(game, players)
    torch.manual_seed(seed)
    net = MaskedNet(record["observation_size"], record["action_count"], record["network"]["hidden"])
    save_policy(path, record, net.state_dict())
    return path, net


@pytest.fixture
def policy(tmp_path: Path) -> tuple[Path, MaskedNet]:
    return saved_policy(tmp_path / "policy.zip")


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    path = tmp_path / "marker"
    yield path
    assert not path.exists(), "a policy file ran code"


# ---------------------------------------------------------------- playing


def test_a_saved_policy_plays_the_network_it_was_saved_from(policy: tuple[Path, MaskedNet]) -> None:
    path, net = policy
    agent = make(f"rllib:{path}", game="sobek", num_players=2)
    assert isinstance(agent, RLlibAgent) and agent.meta["num_players"] == 2
    env = sobek_env.env(game="sobek", num_players=2)
    env.reset(seed=3)
    observation = env.observe(env.agent_selection)
    with torch.no_grad():
        expected = net.logits(torch.as_tensor(observation["observation"]).reshape(1, -1),
                              torch.as_tensor(observation["action_mask"]).reshape(1, -1))[0].numpy()
    legal = observation["action_mask"].astype(bool)
    assert np.allclose(agent.logits(observation)[legal], expected[legal], atol=1e-5)
    assert np.isneginf(agent.logits(observation)[~legal]).all()
    assert agent.act(observation) == int(np.argmax(np.where(legal, expected, -np.inf)))


def test_an_illegal_action_is_never_chosen_however_much_the_network_prefers_it(tmp_path: Path) -> None:
    path, net = saved_policy(tmp_path / "policy.zip")
    env = sobek_env.env(game="sobek", num_players=2)
    env.reset(seed=0)
    observation = env.observe(env.agent_selection)
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    weights = net.state_dict()
    weights[f"pi.{len(net.pi) - 1}.bias"][illegal] = 1e6
    save_policy(path, meta(), weights)
    for deterministic in ("true", "false"):
        agent = make(f"rllib:{path},deterministic={deterministic}", num_players=2, seed=1)
        assert {agent.act(observation) for _ in range(20)} <= set(np.flatnonzero(observation["action_mask"]))
    logits = MaskedNet(meta()["observation_size"], 76, [32]).logits(torch.zeros(1, meta()["observation_size"]),
                                                                    torch.zeros(1, 76))
    assert torch.isfinite(logits).all() and logits.max() <= MASKED / 2  # an empty mask (a game's end) stays finite


def test_a_sampling_policy_is_seeded(policy: tuple[Path, MaskedNet]) -> None:
    path, _ = policy
    env = sobek_env.env(game="sobek", num_players=2)
    env.reset(seed=5)
    observation = env.observe(env.agent_selection)
    draws = [[make(f"rllib:{path},deterministic=false", num_players=2, seed=seed).act(observation)
              for _ in range(1)] for seed in (7, 7)]
    assert draws[0] == draws[1]
    agent = make(f"rllib:{path},deterministic=false", num_players=2, seed=7)
    assert len({agent.act(observation) for _ in range(40)}) > 1  # an untrained policy is near uniform


def test_a_policy_plays_a_tournament_with_the_same_results_in_worker_processes(
        policy: tuple[Path, MaskedNet]) -> None:
    path, _ = policy
    specs = [f"rllib:{path},deterministic=false", "random"]
    alone = play_tournament(specs, 6, seed=2, workers=1)
    spread = play_tournament(specs, 6, seed=2, workers=2)
    assert alone == spread and len(alone) == 6


def test_a_policy_for_another_table_is_refused_naming_both(policy: tuple[Path, MaskedNet]) -> None:
    path, _ = policy
    with pytest.raises(ValueError, match=r"trained for num_players=2 but this table has num_players=3"):
        make(f"rllib:{path}", num_players=3)
    with pytest.raises(ValueError, match=r"trained for observation_mode='original' .* observation_mode='memory'"):
        make(f"rllib:{path}", num_players=2, observation_mode="memory")
    kleopatra = saved_policy(path.with_name("k.zip"), "kleopatra", 3)[0]
    with pytest.raises(ValueError, match=r"trained for game='kleopatra' but this table has game='sobek'"):
        make(f"rllib:{kleopatra}", game="sobek", num_players=3)
    assert make(f"rllib:{kleopatra}", game="kleopatra", num_players=3).meta["game"] == "kleopatra"


# ---------------------------------------------------------------- files that would run code


def test_weights_that_are_a_pickle_with_code_are_refused(policy: tuple[Path, MaskedNet], tmp_path: Path,
                                                         marker: Path) -> None:
    path, _ = policy
    evil = rezip(tmp_path / "evil.zip", path, {POLICY_MEMBER: payload(marker)})
    with pytest.raises(ValueError, match=r"member 'policy\.pt' is not a weights file"):
        make(f"rllib:{evil}", num_players=2)
    saved = tmp_path / "payload.pt"
    torch.save(Payload(marker), saved)
    with pytest.raises(ValueError, match=r"could not be loaded as an RLlib policy .*not a weights file") as refused:
        load_rllib(rezip(tmp_path / "torch-saved.zip", path, {POLICY_MEMBER: saved.read_bytes()}))
    assert "weights_only" not in str(refused.value) and "trust" not in str(refused.value)  # torch's unsafe advice


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_a_policy_with_non_finite_weights_is_refused_naming_the_tensor(tmp_path: Path, value: float) -> None:
    record = meta()
    net = MaskedNet(record["observation_size"], record["action_count"], record["network"]["hidden"])
    weights = net.state_dict()
    weights["pi.2.bias"][7] = value
    path = tmp_path / "policy.zip"
    save_policy(path, record, weights)
    for load in (lambda: load_rllib(path, deterministic=False), lambda: make(f"rllib:{path}", num_players=2)):
        with pytest.raises(ValueError, match=r"its tensor 'pi\.2\.bias' in 'policy.pt' holds NaN or infinite"):
            load()


def test_an_rllib_checkpoint_directory_is_refused_without_opening_it(tmp_path: Path, marker: Path) -> None:
    checkpoint = tmp_path / "checkpoint_000010"
    (checkpoint / "learner_group").mkdir(parents=True)
    (checkpoint / "algorithm_state.pkl").write_bytes(payload(marker))
    (checkpoint / "rllib_checkpoint.json").write_text("{}")
    with pytest.raises(IsADirectoryError, match="an RLlib checkpoint directory: its pickles run code when loaded"):
        make(f"rllib:{checkpoint}", num_players=2)


def test_a_directory_holding_a_policy_is_named_with_the_file_to_give(policy: tuple[Path, MaskedNet]) -> None:
    path, _ = policy
    with pytest.raises(IsADirectoryError, match=rf"is a directory; give the model file in it, e.g. rllib:{path}"):
        make(f"rllib:{path.parent}", num_players=2)


def test_a_maskable_ppo_model_and_an_rllib_policy_each_name_the_spec_that_plays_them(
        policy: tuple[Path, MaskedNet]) -> None:
    path, _ = policy
    with pytest.raises(ValueError, match=rf"is a MaskablePPO model of train.py .*play it as ppo:{PPO_MODEL}"):
        make(f"rllib:{PPO_MODEL}", num_players=2)
    with pytest.raises(ValueError, match=rf"is an RLlib policy of train.py --backend rllib .*play it as rllib:{path}"):
        make(f"ppo:{path}", num_players=2)


# ---------------------------------------------------------------- records, members and bounds


@pytest.mark.parametrize(("change", "message"), [
    ({"num_player": 2}, r"field 'num_player' is not a field of a sobek-rllib/1 model \(misspelt\?\)"),
    ({"observation_size": None}, r"field 'observation_size' is missing"),
    ({"game": "chess"}, r"field 'game' is game='chess', not one of sobek, kleopatra"),
    ({"num_players": True}, r"field 'num_players' must be an integer from 2 to 4, got True"),
    ({"observation_size": 700}, r"reads vectors of shape \(700,\) but Sobek now gives \(692,\)"),
    ({"action_count": 77}, r"field 'action_count' must be an integer from 76 to 76"),
    ({"network": {"hidden": [32], "activation": "os.system"}}, r"field 'network.activation' is activation='os"),
    ({"network": {"hidden": [32], "activation": "ReLU", "class": "x"}}, r"field 'network.class' is not a field"),
    ({"network": {"hidden": [], "activation": "ReLU"}}, r"field 'network.hidden' must be a list of 1 to 8"),
    ({"network": {"hidden": [10**9], "activation": "ReLU"}}, r"field 'network.hidden\[0\]' must be an integer"),
    ({"network": {"hidden": [4096] * 8, "activation": "ReLU"}}, r"field 'network.hidden' describes .* parameters"),
    ({"training": {"iterations": -1}}, r"field 'training.iterations' must be an integer from 0"),
    ({"rules": {"tokens": 3}}, r"field 'rules.tokens' is not a field"),
    ({"reward": ""}, r"field 'reward' must be a name of 1 to 64 characters"),
    ({"format": "sobek-rllib/9"}, r"unknown model format in sobek.json \('sobek-rllib/9'\)"),
])
def test_a_bad_or_misspelt_record_is_refused_naming_the_field(policy: tuple[Path, MaskedNet], tmp_path: Path,
                                                              change: dict, message: str) -> None:
    path, _ = policy
    with pytest.raises(ValueError, match=message):
        load_rllib(rezip(tmp_path / "bad.zip", path, **change))


def test_members_other_than_the_two_and_tensors_that_do_not_fit_are_refused(policy: tuple[Path, MaskedNet],
                                                                             tmp_path: Path) -> None:
    path, _ = policy
    with pytest.raises(ValueError, match=r"unknown member 'extra.py'; a sobek-rllib/1 policy holds sobek.json, policy"):
        load_rllib(rezip(tmp_path / "extra.zip", path, {"extra.py": b"print(1)"}))
    with pytest.raises(ValueError, match=rf"no {POLICY_MEMBER}"):
        load_rllib(rezip(tmp_path / "empty.zip", path, {POLICY_MEMBER: None}))
    with pytest.raises(ValueError, match=r"its tensors do not fit the network its sobek.json describes"):
        load_rllib(rezip(tmp_path / "narrow.zip", path, network={"hidden": [16], "activation": "ReLU"}))
    not_tensors = tmp_path / "list.pt"
    torch.save([1, 2], not_tensors)
    with pytest.raises(ValueError, match=rf"member '{POLICY_MEMBER}' is not a dict of named tensors"):
        load_rllib(rezip(tmp_path / "list.zip", path, {POLICY_MEMBER: not_tensors.read_bytes()}))


def test_bounds_are_kept_before_reading(policy: tuple[Path, MaskedNet], tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    path, _ = policy
    with pytest.raises(ValueError, match=r"sobek\.json nests deeper than"):
        load_rllib(rezip(tmp_path / "deep.zip", path, {META_MEMBER: b"[" * 30_000 + b"]" * 30_000}))
    with pytest.raises(ValueError, match=f"member '{META_MEMBER}' declares 100,.* bytes, more than the 65,536"):
        load_rllib(rezip(tmp_path / "huge.zip", path, comment="x" * 100_000))
    monkeypatch.setattr("agents.players.modelfile.MAX_TENSOR_BYTES", 1000)
    with pytest.raises(ValueError, match=f"member '{POLICY_MEMBER}' declares .* bytes, more than the 1,000 allowed"):
        load_rllib(path)


def test_saving_refuses_weights_that_do_not_fit_and_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "policy.zip"
    with pytest.raises(ValueError, match="do not fit the network"):
        save_policy(path, meta(), MaskedNet(meta()["observation_size"], 76, [16]).state_dict())
    assert not path.exists()
    assert read_meta(saved_policy(path)[0])["format"] == "sobek-rllib/1"


def test_a_file_that_is_not_a_zip_is_refused_clearly(tmp_path: Path) -> None:
    path = tmp_path / "policy.zip"
    path.write_bytes(pickle.dumps({"weights": 1}))
    with pytest.raises(ValueError, match=r"is not an RLlib policy zip .*give the policy.zip that train.py --backend"):
        make(f"rllib:{path}", num_players=2)
    with pytest.raises(FileNotFoundError, match=r"not found; give the policy.zip that train.py --backend rllib saved"):
        make(f"rllib:{tmp_path / 'nowhere.zip'}", num_players=2)
