"""The model file's container: a zip read so that loading it never runs code (train.py's MaskablePPO models, and the
RLlib policies of :mod:`agents.players.rllib_policy` and the networks of :mod:`agents.players.net` in the same
container with their own record). One reader serves the three kinds (:class:`FileKind`): each names the others
with the spec that plays them.

A model (``sobek-ppo/2``) is a zip of exactly these members:

- ``sobek.json``: the metadata, JSON (what it holds is checked by :mod:`agents.players.ppo`);
- ``policy.pt``: the policy network's tensors, read with ``torch.load(weights_only=True)``, which
  refuses anything but tensors and plain containers;
- ``optimizer.pt``, in training checkpoints only: the optimizer's state, read the same way.

Every read is bounded before it is made: the file's size, the number of members (counted from the
zip's end record, before the directory is parsed), each member's declared size and the bytes
actually read, the metadata's size and nesting.

Models written before (``sobek-ppo/1``) are stable-baselines3 zips whose ``data`` member is decoded
with cloudpickle, which runs whatever code the file carries, whatever is done with the model next.
They are refused, naming the command that converts a trusted one (:mod:`agents.training.convert`).
"""

from __future__ import annotations

import io
import json
import math
import struct
import warnings
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn

from agents.common.files import parse_json, write_atomic
from sobek_env.game import Game, Table
from sobek_env.registry import GAMES, load_game

MODEL_FORMAT = "sobek-ppo/2"
LEGACY_FORMATS = ("sobek-ppo/1",)
RLLIB_FORMAT = "sobek-rllib/1"  # train.py --backend rllib's policy (agents.players.rllib_policy), same container
NET_FORMAT = "sobek-net/1"  # train.py --algo exit's policy-value network (agents.players.net), same container
META_MEMBER = "sobek.json"
POLICY_MEMBER = "policy.pt"
OPTIMIZER_MEMBER = "optimizer.pt"
MEMBERS = (META_MEMBER, POLICY_MEMBER, OPTIMIZER_MEMBER)

MAX_FILE_BYTES = 1024 * 1024 * 1024
MAX_MEMBERS = 16  # more than a model has, so that a legacy sb3 zip is still recognised and named
MAX_META_BYTES = 64 * 1024
MAX_META_DEPTH = 8
MAX_TENSOR_BYTES = 256 * 1024 * 1024
# the networks a model file may describe (train.py checks its --net against these before a run starts)
MAX_LAYERS = 8
MAX_WIDTH = 4096
MAX_PARAMETERS = MAX_TENSOR_BYTES // 4  # float32: no description may build a network its file could not hold
_END_RECORD = b"PK\x05\x06"
_END_RECORD_SIZE = 22
_MAX_COMMENT = 65535


@dataclass(frozen=True)
class FileKind:
    """A kind of model file: how the messages name it (``noun``, and ``short`` in "train a model for ..."), what
    to give instead (``hint``), and, for the kinds that play, the ``format`` its record declares, the ``members``
    it may hold, the agent spec that plays it (``spec``) and the command that makes it (``made_by``)."""

    noun: str
    hint: str
    article: str = "a"
    short: str = "model"
    format: str = ""
    members: tuple[str, ...] = MEMBERS
    spec: str = ""
    made_by: str = ""

    @property
    def named(self) -> str:
        """The noun with its article: ``a MaskablePPO model``, ``an RLlib policy``."""
        return f"{self.article} {self.noun}"


PPO_FILE = FileKind("MaskablePPO model", "give a model.zip saved by train.py", format=MODEL_FORMAT, spec="ppo",
                    made_by="train.py")
RLLIB_FILE = FileKind("RLlib policy", "give the policy.zip that train.py --backend rllib saved", "an", "policy",
                      RLLIB_FORMAT, (META_MEMBER, POLICY_MEMBER), "rllib", "train.py --backend rllib")
NET_FILE = FileKind("policy-value network", "give a model.zip saved by train.py --algo exit", short="network",
                    format=NET_FORMAT, spec="net", made_by="train.py --algo exit")
# the kind of file each format declares (a legacy model is named as the MaskablePPO model it was)
FORMAT_KINDS = {kind.format: kind for kind in (PPO_FILE, RLLIB_FILE, NET_FILE)} | dict.fromkeys(LEGACY_FORMATS,
                                                                                                PPO_FILE)


class LegacyModelError(ValueError):
    """A model in the old format, which only the explicit conversion command may open."""


def convert_command(path: str | Path) -> str:
    """The command that converts the legacy model at ``path`` (for the messages)."""
    path = Path(path)
    converted = path.with_name(path.stem + "-v2" + path.suffix)
    return f"sobek-env convert {path} {converted} --i-trust-this-file"


def legacy_message(path: str | Path, what: str) -> str:
    """Why the legacy model at ``path`` is refused, and how to convert it if it is trusted."""
    return (f"{str(path)!r} is a model in the old format ({what}): stable-baselines3 decodes it with pickle, "
            "which runs any code the file carries, so it was not opened. If you trust whoever made it, convert it "
            f"once (this runs its code): {convert_command(path)}")


@dataclass(frozen=True)
class ModelFile:
    """What a model file holds: its metadata, its policy's tensors and, in a checkpoint, the optimizer's state."""

    meta: dict[str, Any]
    policy: dict[str, torch.Tensor]
    optimizer: dict[str, Any] | None = None


class Fields:
    """Checks a metadata document of the format ``fmt``, each refusal naming the field (``policy.net_arch.pi[1]``)."""

    def __init__(self, path: str | Path, fmt: str = MODEL_FORMAT) -> None:
        self.path = path
        self.format = fmt

    def fail(self, field: str, problem: str) -> ValueError:
        return ValueError(f"model {str(self.path)!r}: {META_MEMBER} field {field!r} {problem}")

    def keys(self, doc: Any, field: str, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> dict:
        if not isinstance(doc, dict):
            raise self.fail(field, f"must be an object, got {type(doc).__name__}")
        prefix = f"{field}." if field != "document" else ""
        for key in required:
            if key not in doc:
                raise self.fail(prefix + key, "is missing")
        for key in doc:
            if key not in required and key not in optional:
                known = ", ".join((*required, *optional))
                raise self.fail(prefix + str(key), f"is not a field of a {self.format} model (misspelt?); "
                                                   f"the fields are {known}")
        return doc

    def integer(self, doc: dict, key: str | int, low: int, high: int, field: str | None = None) -> int:
        value = doc[key]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise self.fail(field or key, f"must be an integer from {low:,} to {high:,}, got {value!r}")
        return value

    def choice(self, doc: dict, key: str, options: tuple[str, ...] | dict, field: str | None = None) -> str:
        value = doc[key]
        if not isinstance(value, str) or value not in options:
            raise self.fail(field or key, f"is {key}={value!r}, not one of {', '.join(options)}")
        return value

    def table(self, doc: dict) -> Game:
        """The game of the table a record was trained for, its fields checked: ``game``, ``num_players``,
        ``observation_mode`` and the optional ``rules`` (options the game's rules take, together)."""
        game = load_game(self.choice(doc, "game", GAMES))
        self.integer(doc, "num_players", game.min_players, game.max_players)
        self.choice(doc, "observation_mode", game.observation_modes)
        if "rules" in doc:
            rules = self.keys(doc["rules"], "rules", (), game.rules_options)
            try:
                game.new(doc["num_players"], seed=0, **rules)
            except (ValueError, TypeError) as exc:
                raise self.fail("rules", f"is not a valid set of {game.name} rules options ({exc})") from None
        return game

    def number(self, doc: dict, key: str, field: str) -> float:
        value = doc[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise self.fail(field, f"must be a finite number, got {value!r}")
        return value


def network_problem(hidden: list[int], parameters: int) -> str | None:
    """What makes a network of the hidden layer sizes ``hidden`` and ``parameters`` parameters in all one that
    a model file may not describe (None if nothing): train.py checks its --net with this before a run starts."""
    shown = ",".join(map(str, hidden))
    if not 1 <= len(hidden) <= MAX_LAYERS or not all(1 <= size <= MAX_WIDTH for size in hidden):
        return f"must be 1 to {MAX_LAYERS} layers of 1 to {MAX_WIDTH:,} units each, got {shown}"
    if parameters > MAX_PARAMETERS:
        return (f"{shown} makes a network of {parameters:,} parameters here, more than the {MAX_PARAMETERS:,} a model "
                "file may hold; give fewer or narrower layers")
    return None


def _refuse(path: Path, problem: str, kind: FileKind = PPO_FILE) -> ValueError:
    what = "a Sobek model file" if kind is PPO_FILE else f"{kind.named} file"
    return ValueError(f"{str(path)!r} is not {what} ({problem}); {kind.hint}")


def _count_members(path: Path, size: int) -> int:
    """The member count in the zip's end record, read before zipfile parses the whole directory."""
    with path.open("rb") as file:
        file.seek(max(0, size - _END_RECORD_SIZE - _MAX_COMMENT))
        tail = file.read()
    at = tail.rfind(_END_RECORD)
    if at < 0 or len(tail) - at < _END_RECORD_SIZE:
        raise zipfile.BadZipFile("File is not a zip file")
    return struct.unpack_from("<H", tail, at + 10)[0]


def open_zip(path: str | Path, kind: FileKind = PPO_FILE) -> zipfile.ZipFile:
    """The zip at ``path``, its size and member count checked; FileNotFoundError or ValueError."""
    path = Path(path)
    if not path.is_file():
        saved = "the model.zip that train.py saved" if kind is PPO_FILE else kind.hint.removeprefix("give ")
        raise FileNotFoundError(f"model file {str(path)!r} not found; give {saved}")
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise _refuse(path, f"{size:,} bytes, more than the {MAX_FILE_BYTES:,} allowed", kind)
    try:
        count = _count_members(path, size)
        if count > MAX_MEMBERS:
            raise _refuse(path, f"{count} members, more than the {MAX_MEMBERS} allowed", kind)
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, struct.error) as exc:
        raise ValueError(f"{str(path)!r} is not {kind.named} zip ({exc}); {kind.hint}") from None
    names = archive.namelist()
    if len(names) > MAX_MEMBERS or len(set(names)) != len(names):
        archive.close()
        raise _refuse(path, f"{len(names)} members, some repeated or more than the {MAX_MEMBERS} allowed", kind)
    return archive


def read_member(archive: zipfile.ZipFile, path: Path, name: str, limit: int, kind: FileKind = PPO_FILE) -> bytes:
    """The member ``name``, refused if it declares or actually holds more than ``limit`` bytes."""
    info = archive.getinfo(name)
    if info.file_size > limit:
        raise _refuse(path, f"member {name!r} declares {info.file_size:,} bytes, more than the {limit:,} allowed",
                      kind)
    try:
        with archive.open(info) as member:
            data = member.read(limit + 1)
    except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError, RuntimeError) as exc:
        raise _refuse(path, f"member {name!r} is damaged: {exc}", kind) from None
    if len(data) > limit:
        raise _refuse(path, f"member {name!r} holds more than the {limit:,} bytes allowed", kind)
    return data


def read_meta_document(path: str | Path, kind: FileKind = PPO_FILE) -> dict[str, Any]:
    """The metadata of the model at ``path``, as JSON (unchecked but bounded), after checking that the file is a
    ``kind`` of model in its current format holding only its members: LegacyModelError for an old MaskablePPO
    model, ValueError for anything else (a model of another kind named with the spec that plays it)."""
    path = Path(path)
    with open_zip(path, kind) as archive:
        names = set(archive.namelist())
        if META_MEMBER not in names:
            pickled = (": a stable-baselines3 zip, which is decoded with pickle and is never opened here"
                       if "data" in names else "")
            raise ValueError(f"{str(path)!r} is a zip but not {kind.named} (no {META_MEMBER}){pickled}; {kind.hint}")
        meta = parse_json(read_member(archive, path, META_MEMBER, MAX_META_BYTES, kind),
                          f"{str(path)!r}: {META_MEMBER}", MAX_META_BYTES, MAX_META_DEPTH)
        declared = meta.get("format") if isinstance(meta, dict) else None
        if kind is PPO_FILE and (declared in LEGACY_FORMATS or (declared != MODEL_FORMAT and "data" in names)):
            raise LegacyModelError(legacy_message(path, f"{declared!r}" if declared else "a stable-baselines3 zip"))
        other = FORMAT_KINDS.get(declared) if isinstance(declared, str) else None
        if other is not None and other is not kind:
            raise ValueError(f"{str(path)!r} is {other.named} of {other.made_by} ({declared!r}), not {kind.named}; "
                             f"play it as {other.spec}:{path}")
        if declared != kind.format:
            raise ValueError(f"{str(path)!r} records an unknown model format in {META_MEMBER} ({declared!r}); "
                             f"expected {kind.format!r}")
        unknown = sorted(names - set(kind.members))
        if unknown or POLICY_MEMBER not in names:
            problem = f"unknown member {unknown[0]!r}" if unknown else f"no {POLICY_MEMBER}"
            raise _refuse(path, f"{problem}; a {kind.format} {kind.short} holds {', '.join(kind.members)}", kind)
    return meta


def load_tensors(data: bytes, path: Path, name: str, kind: FileKind = PPO_FILE) -> Any:
    """``torch.load`` of a member with ``weights_only=True``: tensors and plain containers, never code."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch warns about foreign pickle protocols before refusing them
            return torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception:  # weights_only raises UnpicklingError for code, RuntimeError for a damaged file
        # torch's own message is not passed on: it advises loading the file with weights_only=False,
        # which would run any code the file carries
        raise ValueError(f"{str(path)!r} could not be loaded as {kind.named} (its member {name!r} is not a weights "
                         f"file: it holds something other than tensors, or is damaged); {kind.hint}") from None


def tensors_in(state: Any, prefix: str = "") -> Iterator[tuple[str, torch.Tensor]]:
    """Every tensor in a loaded member (tensors in dicts and lists, as torch saves a state), with its name:
    ``mlp_extractor.policy_net.0.weight``, or ``state.3.exp_avg`` in an optimizer's state."""
    if isinstance(state, torch.Tensor):
        yield prefix, state
    elif isinstance(state, dict):
        for key, value in state.items():
            yield from tensors_in(value, f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(state, (list, tuple)):
        for i, value in enumerate(state):
            yield from tensors_in(value, f"{prefix}[{i}]")


def check_weights(state: Any, path: str | Path, name: str, kind: FileKind = PPO_FILE) -> None:
    """ValueError naming the first tensor of ``state`` (member ``name`` of ``path``) that is not a dense array
    of finite numbers. A NaN or an infinity gives NaN logits, so the network would sample actions out of range
    or always take the first legal one; a network's weights are never sparse or quantized."""
    for tensor_name, tensor in tensors_in(state):
        if tensor.layout != torch.strided or tensor.is_quantized or tensor.is_nested:
            form = ("quantized" if tensor.is_quantized else "nested" if tensor.is_nested
                    else str(tensor.layout).removeprefix("torch."))
            raise ValueError(f"{str(path)!r} could not be loaded as {kind.named}: its tensor {tensor_name!r} in "
                             f"{name!r} is {form}, not a dense array of numbers as a network's weights are; "
                             f"{kind.hint}")
    bad = non_finite(state)
    if bad is not None:
        raise ValueError(f"{str(path)!r} could not be loaded as {kind.named}: its tensor {bad!r} in {name!r} holds NaN "
                         "or infinite values, which no usable network has (its training diverged, or the file was "
                         f"altered); {kind.hint}")


def non_finite(state: Any) -> str | None:
    """The name of the first tensor of ``state`` (dense ones) that holds a NaN or an infinity, or None."""
    for name, tensor in tensors_in(state):
        if (tensor.is_floating_point() or tensor.is_complex()) and not bool(torch.isfinite(tensor).all()):
            return name
    return None


def read_tensors(path: str | Path, with_optimizer: bool = False,
                 kind: FileKind = PPO_FILE) -> tuple[dict[str, torch.Tensor], Any]:
    """The policy's tensors (a dict of names to tensors) and, if asked and present, the optimizer's state."""
    path = Path(path)
    with open_zip(path, kind) as archive:
        policy = load_tensors(read_member(archive, path, POLICY_MEMBER, MAX_TENSOR_BYTES, kind), path, POLICY_MEMBER,
                              kind)
        optimizer = None
        if with_optimizer and OPTIMIZER_MEMBER in archive.namelist():
            optimizer = load_tensors(read_member(archive, path, OPTIMIZER_MEMBER, MAX_TENSOR_BYTES, kind), path,
                                     OPTIMIZER_MEMBER, kind)
    if not isinstance(policy, dict) or not all(isinstance(k, str) and isinstance(v, torch.Tensor)
                                               for k, v in policy.items()):
        raise _refuse(path, f"member {POLICY_MEMBER!r} is not a dict of named tensors", kind)
    if optimizer is not None and not (isinstance(optimizer, dict) and set(optimizer) == {"state", "param_groups"}):
        raise _refuse(path, f"member {OPTIMIZER_MEMBER!r} is not an optimizer's state", kind)
    check_weights(policy, path, POLICY_MEMBER, kind)
    if optimizer is not None:  # a checkpoint's: resuming from it would train the weights into NaN at once
        check_weights(optimizer, path, OPTIMIZER_MEMBER, kind)
    return policy, optimizer


def load_state(module: nn.Module, state: dict[str, Any], path: str | Path, kind: FileKind = PPO_FILE,
               what: str | None = None) -> None:
    """Load tensors (the ``what`` ones: ``policy``, ``optimizer``, ...) into ``module``, refusing missing, extra
    or misshapen ones with a ValueError."""
    try:
        module.load_state_dict(state)
    except (RuntimeError, ValueError, KeyError, TypeError, IndexError) as exc:
        first = str(exc).strip().splitlines()[0]
        tensors = f"{what} tensors" if what else "tensors"
        raise ValueError(f"{str(path)!r} could not be loaded as {kind.named} (its {tensors} do not fit the network "
                         f"its {META_MEMBER} describes: {first}); {kind.hint}") from None


def record_table(meta: dict[str, Any]) -> Table:
    """The table a model (its checked record) was trained for."""
    return load_game(meta["game"]).table(meta["num_players"], meta["observation_mode"], **meta.get("rules", {}))


def check_trained_for(meta: dict[str, Any], path: str | Path, kind: FileKind, table: Table | None = None,
                      **wanted: Any) -> None:
    """ValueError naming both values if the model ``meta`` records was trained for another ``table`` (game,
    players, observation mode, rules options), or for other ``wanted`` values than those given (None: any)."""
    if table is not None:
        wanted = {"game": table.game.name, "num_players": table.num_players,
                  "observation_mode": table.observation_mode, "rules": dict(table.rules)}
    for key, value in wanted.items():
        if value is not None and meta.get(key, {} if key == "rules" else None) != value:
            raise ValueError(f"{kind.short} {str(path)!r} was trained for {key}={meta.get(key)!r} but this table has "
                             f"{key}={value!r}; train a {kind.short} for {key}={value!r} or change the table")


def load_network(path: str | Path, kind: FileKind, check: Callable[[Any, Path], dict[str, Any]],
                 build: Callable[[dict[str, Any]], nn.Module], table: Table | None = None, what: str | None = None,
                 **wanted: Any) -> tuple[dict[str, Any], nn.Module]:
    """The record of the ``kind`` of model at ``path``, checked by ``check``, and the network ``build`` makes of it
    with the file's tensors loaded, in evaluation mode; without running anything from the file. A model made for
    another ``table`` (or other ``wanted`` values) is refused with a ValueError naming both. Torch is set to one
    thread: on one observation at a time, more threads only contend (10x slower)."""
    path = Path(path)
    meta = check(read_meta_document(path, kind), path)
    check_trained_for(meta, path, kind, table, **wanted)
    tensors, _ = read_tensors(path, kind=kind)
    torch.set_num_threads(1)
    network = build(meta)
    load_state(network, tensors, path, kind, what)
    network.eval()
    return meta, network


def write_model(path: str | Path, meta: dict[str, Any], policy: dict[str, torch.Tensor],
                optimizer: dict[str, Any] | None = None) -> None:
    """Write a model file (written aside, then renamed over ``path``)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(META_MEMBER, json.dumps(meta, indent=1))
        for name, value in ((POLICY_MEMBER, policy), (OPTIMIZER_MEMBER, optimizer)):
            if value is not None:
                tensors = io.BytesIO()
                torch.save(value, tensors)
                archive.writestr(name, tensors.getvalue())
    write_atomic(path, buffer.getvalue())
