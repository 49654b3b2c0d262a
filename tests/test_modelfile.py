"""The model file: loading one never runs code from it, every read is bounded, and each bad record names its field."""

from __future__ import annotations

import copy
import io
import json
import re
import zipfile
from pathlib import Path

import hostile
import pytest
import torch
from hostile import Payload, legacy_model, payload
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from agents import make
from agents.players.modelfile import (
    MAX_MEMBERS,
    META_MEMBER,
    MODEL_FORMAT,
    NET_FILE,
    OPTIMIZER_MEMBER,
    POLICY_MEMBER,
    PPO_FILE,
    RLLIB_FILE,
    FileKind,
    LegacyModelError,
    read_meta_document,
    write_model,
)
from agents.players.ppo import load_ppo, read_meta, read_model
from agents.tournaments import evaluation
from agents.tournaments.tournament import play_tournament

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "models" / "ppo-2p.zip"


def rezip(target: Path, source: Path = SHIPPED, members: dict[str, bytes | None] | None = None,
          **meta: object) -> Path:
    """:func:`hostile.rezip` of the shipped 2-player model unless told another ``source``."""
    return hostile.rezip(target, source, members, **meta)


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    path = tmp_path / "marker"
    yield path
    assert not path.exists(), "a model file ran code"


# ---------------------------------------------------------------- files that would run code


def test_a_legacy_model_is_refused_without_opening_it_naming_the_conversion(tmp_path: Path, marker: Path) -> None:
    evil = legacy_model(tmp_path / "evil.zip", marker)
    for load in (lambda: make(f"ppo:{evil}", num_players=2), lambda: load_ppo(evil), lambda: read_meta(evil)):
        with pytest.raises(LegacyModelError, match=r"old format.*sobek-env convert .*--i-trust-this-file"):
            load()


def test_a_bare_stable_baselines3_zip_is_refused_without_opening_it(tmp_path: Path, marker: Path) -> None:
    evil = rezip(tmp_path / "sb3.zip", legacy_model(tmp_path / "evil.zip", marker), {META_MEMBER: None})
    with pytest.raises(ValueError, match=f"no {META_MEMBER}.*stable-baselines3 zip"):
        make(f"ppo:{evil}")


def test_a_legacy_model_in_an_evaluation_worker_is_refused(tmp_path: Path, marker: Path) -> None:
    evil = legacy_model(tmp_path / "evil.zip", marker)
    with pytest.raises(LegacyModelError, match=r"sobek-env convert"):
        play_tournament([f"ppo:{evil}", "random"], 2, workers=2)


def test_tensors_that_are_a_pickle_with_code_are_refused(tmp_path: Path, marker: Path) -> None:
    evil = rezip(tmp_path / "evil.zip", members={POLICY_MEMBER: payload(marker)})
    with pytest.raises(ValueError, match=r"member 'policy\.pt' is not a weights file"):
        make(f"ppo:{evil}")
    saved = tmp_path / "torch-saved.zip"  # the same, written by torch.save as a real tensor file would be
    path = tmp_path / "payload.pt"
    torch.save(Payload(marker), path)
    rezip(saved, members={POLICY_MEMBER: path.read_bytes()})
    with pytest.raises(ValueError, match=r"member 'policy\.pt' is not a weights file"):
        load_ppo(saved)


def test_the_refusal_of_a_file_that_is_not_tensors_never_passes_on_torchs_unsafe_advice(
        tmp_path: Path, marker: Path) -> None:
    path = tmp_path / "payload.pt"
    torch.save(Payload(marker), path)
    for member, data in ((POLICY_MEMBER, path.read_bytes()), (POLICY_MEMBER, payload(marker)),
                         (POLICY_MEMBER, b"junk"), (OPTIMIZER_MEMBER, path.read_bytes())):
        with pytest.raises(ValueError) as refused:
            read_model(rezip(tmp_path / "model.zip", members={member: data}), with_optimizer=True)
        message = str(refused.value)
        assert f"'{tmp_path / 'model.zip'}' could not be loaded" in message and "is not a weights file" in message
        assert "weights_only" not in message and "trust" not in message and "\n" not in message


def test_an_optimizer_state_that_is_a_pickle_with_code_is_refused(tmp_path: Path, marker: Path) -> None:
    evil = rezip(tmp_path / "evil.zip", members={OPTIMIZER_MEMBER: payload(marker)})
    with pytest.raises(ValueError, match=r"member 'optimizer\.pt' is not a weights file"):
        read_model(evil, with_optimizer=True)


def altered(target: Path, change: object, member: str = POLICY_MEMBER, source: Path = SHIPPED) -> Path:
    """A copy of the model ``source`` whose member's tensors (a policy's, or an optimizer's state) went through
    ``change`` in place."""
    with zipfile.ZipFile(source) as archive:
        state = torch.load(io.BytesIO(archive.read(member)), weights_only=True)
    change(state)
    data = io.BytesIO()
    torch.save(state, data)
    return rezip(target, source, {member: data.getvalue()})


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
def test_a_model_with_non_finite_weights_is_refused_naming_the_tensor(tmp_path: Path, value: float) -> None:
    name = "mlp_extractor.policy_net.2.weight"

    def spoil(state: dict) -> None:
        state[name][3, 5] = value

    path = altered(tmp_path / "spoilt.zip", spoil)
    for load in (lambda: load_ppo(path, deterministic=False), lambda: make(f"ppo:{path}", num_players=2),
                 lambda: read_model(path)):
        with pytest.raises(ValueError, match=rf"its tensor '{re.escape(name)}' in 'policy.pt' holds NaN or infinite"):
            load()
    with pytest.raises(ValueError, match="holds NaN or infinite"):
        play_tournament([f"ppo:{path}", "random"], 2, workers=1)


@pytest.mark.filterwarnings("ignore::UserWarning")  # torch's about sparse invariants and quantized tensors
def test_a_model_whose_weights_are_sparse_or_quantized_is_refused_naming_the_tensor(tmp_path: Path) -> None:
    name = "value_net.weight"
    for form, change in (("sparse_coo", lambda t: t.to_sparse()), ("sparse_csr", lambda t: t.to_sparse_csr()),
                         ("quantized", lambda t: torch.quantize_per_tensor(t, 0.1, 0, torch.qint8))):
        def spoil(state: dict, change: object = change) -> None:
            state[name] = change(state[name])

        with pytest.raises(ValueError, match=rf"its tensor '{re.escape(name)}' in 'policy.pt' is {form}, not a dense"):
            load_ppo(altered(tmp_path / f"{form}.zip", spoil))


def test_a_checkpoint_whose_optimizer_state_is_not_finite_is_refused_naming_it(tmp_path: Path) -> None:
    checkpoint = tmp_path / "checkpoint.zip"
    policy = read_model(SHIPPED).policy
    optimizer = {"state": {0: {"step": torch.tensor(3.0), "exp_avg": torch.full((2,), float("nan"))}},
                 "param_groups": [{"lr": 3e-4, "params": [0]}]}
    meta = {**read_meta(SHIPPED), "training": {"num_timesteps": 3, "n_updates": 1}}
    write_model(checkpoint, meta, policy, optimizer)
    with pytest.raises(ValueError, match=r"its tensor 'state\.0\.exp_avg' in 'optimizer.pt' holds NaN"):
        read_model(checkpoint, with_optimizer=True)
    assert read_model(checkpoint).meta["training"]["n_updates"] == 1  # the policy alone plays


@pytest.mark.parametrize(("field", "value"), [
    ("class", "posix.system"), ("class", "builtins.exec"), ("activation", "os.system"),
    ("features_extractor", "subprocess.Popen"),
])
def test_only_the_projects_own_classes_can_be_named(tmp_path: Path, field: str, value: str) -> None:
    policy = {**read_meta(SHIPPED)["policy"], field: value}
    with pytest.raises(ValueError, match=rf"field 'policy\.{field}' is {field}='{value}', not one of"):
        load_ppo(rezip(tmp_path / "model.zip", policy=policy))


# ---------------------------------------------------------------- bounds


def test_a_deeply_nested_or_huge_record_is_refused_clearly(tmp_path: Path) -> None:
    deep = rezip(tmp_path / "deep.zip", members={META_MEMBER: b"[" * 30_000 + b"]" * 30_000})
    with pytest.raises(ValueError, match=r"sobek\.json nests deeper than"):
        make(f"ppo:{deep}")
    nested = rezip(tmp_path / "nested.zip", timesteps=json.loads("[" * 20 + "]" * 20))
    with pytest.raises(ValueError, match="nests deeper than"):
        load_ppo(nested)
    huge = rezip(tmp_path / "huge.zip", comment="x" * 100_000)
    with pytest.raises(ValueError, match=f"member '{META_MEMBER}' declares 100,.* bytes, more than the 65,536"):
        load_ppo(huge)


def declare_size(path: Path, member: str, size: int) -> None:
    """Make the zip at ``path`` declare ``size`` bytes for ``member``, in its local header and its directory."""
    data, name = bytearray(path.read_bytes()), member.encode()
    local = zipfile.ZipFile(path).getinfo(member).header_offset
    central = data.find(b"PK\x01\x02")
    while data[central + 46:central + 46 + len(name)] != name:
        central = data.find(b"PK\x01\x02", central + 4)
    for at in (local + 22, central + 24):
        data[at:at + 4] = size.to_bytes(4, "little")
    path.write_bytes(bytes(data))


def test_a_member_is_read_no_further_than_it_declares(tmp_path: Path) -> None:
    lying = rezip(tmp_path / "lying.zip", pad=" " * 200_000)  # 200 KB of metadata, declared as 100 bytes
    declare_size(lying, META_MEMBER, 100)
    with pytest.raises(ValueError, match=f"member '{META_MEMBER}' is damaged"):
        load_ppo(lying)


def test_too_many_members_are_refused_before_the_directory_is_read(tmp_path: Path) -> None:
    crowded = rezip(tmp_path / "crowded.zip", members={f"m{i}": b"" for i in range(MAX_MEMBERS - 1)})
    with pytest.raises(ValueError, match=f"{MAX_MEMBERS + 1} members, more than the {MAX_MEMBERS} allowed"):
        load_ppo(crowded)


def test_tensors_larger_than_allowed_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("agents.players.modelfile.MAX_TENSOR_BYTES", 1000)
    with pytest.raises(ValueError, match=f"member '{POLICY_MEMBER}' declares .* bytes, more than the 1,000 allowed"):
        load_ppo(SHIPPED)


def test_a_network_too_large_to_build_is_refused_before_it_is_built(tmp_path: Path) -> None:
    wide = {**read_meta(SHIPPED)["policy"], "net_arch": {"pi": [4096] * 8, "vf": [4096] * 8}}
    with pytest.raises(ValueError, match=r"field 'policy\.net_arch' describes .* parameters, more than"):
        load_ppo(rezip(tmp_path / "wide.zip", policy=wide))
    wider = {**wide, "net_arch": {"pi": [10**9], "vf": [64]}}
    with pytest.raises(ValueError, match=r"field 'policy\.net_arch\.pi\[0\]' must be an integer from 1 to 4,096"):
        load_ppo(rezip(tmp_path / "wider.zip", policy=wider))


# ---------------------------------------------------------------- records and members


@pytest.mark.parametrize(("change", "message"), [
    ({"num_player": 2}, r"field 'num_player' is not a field of a sobek-ppo/2 model \(misspelt\?\)"),
    ({"observation_size": None}, r"field 'observation_size' is missing"),
    ({"game": "chess"}, r"field 'game' is game='chess', not one of sobek, kleopatra"),
    ({"num_players": True}, r"field 'num_players' must be an integer from 2 to 4, got True"),
    ({"observation_mode": "omniscient"}, r"field 'observation_mode' is observation_mode='omniscient'"),
    ({"action_count": 77}, r"field 'action_count' must be an integer from 76 to 76"),
    ({"training": {"num_timesteps": 3}}, r"field 'training.n_updates' is missing"),
    ({"format": "sobek-ppo/9"}, r"unknown model format in sobek.json \('sobek-ppo/9'\)"),
])
def test_a_bad_or_misspelt_record_is_refused_naming_the_field(tmp_path: Path, change: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        load_ppo(rezip(tmp_path / "model.zip", **change))


@pytest.mark.parametrize(("change", "message"), [
    ({"advice_prior": "3"}, r"field 'policy.advice_prior' must be a finite number"),
    ({"advice_start": 900}, r"field 'policy.advice_start' must be an integer from 0 to 774"),
    ({"features_extractor_kwargs": {"squashed": 692, "code": 1}},
     r"field 'policy.features_extractor_kwargs.code' is not a field"),
    ({"net_arch": {"pi": [256, 256]}}, r"field 'policy.net_arch.vf' is missing"),
    ({"dropout": 0.1}, r"field 'policy.dropout' is not a field"),
])
def test_a_bad_network_description_is_refused_naming_the_field(tmp_path: Path, change: dict, message: str) -> None:
    policy = {**read_meta(SHIPPED)["policy"], **change}
    with pytest.raises(ValueError, match=message):
        load_ppo(rezip(tmp_path / "model.zip", policy=policy))


def test_tensors_that_do_not_fit_the_described_network_are_refused(tmp_path: Path) -> None:
    narrow = {**read_meta(SHIPPED)["policy"], "net_arch": {"pi": [128, 128], "vf": [256, 256]}}
    with pytest.raises(ValueError, match=r"could not be loaded as a MaskablePPO model .*do not fit the network"):
        load_ppo(rezip(tmp_path / "narrow.zip", policy=narrow))


def test_an_unknown_member_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=f"unknown member 'extra.pkl'; a {MODEL_FORMAT} model holds"):
        load_ppo(rezip(tmp_path / "extra.zip", members={"extra.pkl": b""}))


@pytest.mark.parametrize("kind", [PPO_FILE, RLLIB_FILE, NET_FILE], ids=lambda kind: kind.spec)
@pytest.mark.parametrize("other", [PPO_FILE, RLLIB_FILE, NET_FILE], ids=lambda kind: kind.spec)
def test_each_reader_names_the_spec_that_plays_a_model_of_another_kind(tmp_path: Path, kind: FileKind,
                                                                       other: FileKind) -> None:
    path = tmp_path / "model.zip"
    write_model(path, {"format": other.format}, {"w": torch.zeros(1)})
    if kind is other:
        assert read_meta_document(path, kind) == {"format": kind.format}
    else:
        with pytest.raises(ValueError, match=rf"is {other.named} of .*, not {kind.named}; play it as {other.spec}:"):
            read_meta_document(path, kind)


def test_a_legacy_model_given_to_evaluate_is_refused(tmp_path: Path, marker: Path,
                                                     capsys: pytest.CaptureFixture) -> None:
    evil = legacy_model(tmp_path / "evil.zip", marker)
    with pytest.raises(SystemExit) as exit_info:
        evaluation.main(["--players", "2", "--games", "2", "--agents", f"ppo:{evil}", "random",
                         "--out", str(tmp_path / "out")])
    assert exit_info.value.code == 2
    assert "old format" in capsys.readouterr().err


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8)
    | st.sampled_from(["AdvisedPolicy", "ReLU", "Log1pFeatures", "advice", "raw", "memory", "sobek", MODEL_FORMAT]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)


def json_paths(value: object, prefix: tuple = ()) -> list[tuple]:
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    found = []
    for key, child in children:
        found += [(*prefix, key), *json_paths(child, (*prefix, key))]
    return found


@given(data=st.data())
@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
def test_a_mutated_record_loads_or_is_refused_with_a_value_error(tmp_path: Path, data: st.DataObject) -> None:
    meta = copy.deepcopy(read_meta(SHIPPED))
    path = data.draw(st.sampled_from(json_paths(meta)))
    parent = meta
    for key in path[:-1]:
        parent = parent[key]
    how = data.draw(st.sampled_from(["replace", "delete", "add"]))
    if how == "delete":
        del parent[path[-1]]
    elif how == "add" and isinstance(parent, dict):
        parent[data.draw(st.text(max_size=8))] = data.draw(json_values)
    else:
        parent[path[-1]] = data.draw(json_values)
    model = rezip(tmp_path / "mutated.zip", members={META_MEMBER: json.dumps(meta).encode()})
    try:
        load_ppo(model)
    except ValueError as exc:
        event(str(exc).split(META_MEMBER)[-1][:40])
