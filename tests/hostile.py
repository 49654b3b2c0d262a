"""Files a stranger could send: models whose loading would run code, which every loading path must refuse.

Each carries a pickle that, once unpickled, creates ``marker``; a test passes only if the
file is refused and the marker never appears.
"""

from __future__ import annotations

import base64
import json
import pickle
import zipfile
from pathlib import Path

from agents.players.modelfile import META_MEMBER


class Payload:
    """Unpickling this object runs ``open(marker, "w")``: a stand-in for any code."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple:
        return exec, (f"open({str(self.marker)!r}, 'w').close()",)


def payload(marker: Path) -> bytes:
    """The pickle of a :class:`Payload`."""
    return pickle.dumps(Payload(marker))


def legacy_model(path: Path, marker: Path, num_players: int = 2, **meta: object) -> Path:
    """A model in the old format (``sobek-ppo/1``): a stable-baselines3 zip whose ``data`` member holds
    a cloudpickled value, as sb3 writes them; this one creates ``marker`` when sb3 decodes it."""
    data = {"policy_class": {":type:": "<class 'abc.ABCMeta'>",
                             ":serialized:": base64.b64encode(payload(marker)).decode()},
            "num_timesteps": 0}
    record = {"format": "sobek-ppo/1", "num_players": num_players, "observation_mode": "original",
              "reward_mode": "round-margin", "features": "advice", "timesteps": 0, "observation_size": 707, **meta}
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("data", json.dumps(data))
        archive.writestr("policy.pth", payload(marker))
        archive.writestr("policy.optimizer.pth", payload(marker))
        archive.writestr("pytorch_variables.pth", payload(marker))
        archive.writestr("_stable_baselines3_version", "2.9.2")
        archive.writestr("sobek.json", json.dumps(record))
    return path


def rezip(target: Path, source: Path, members: dict[str, bytes | None] | None = None, **fields: object) -> Path:
    """A copy of the model file ``source`` with members replaced (None: removed) or added, and sobek.json
    fields changed (a field set to None is removed)."""
    members = dict(members or {})
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for name in old.namelist():
            data = members.pop(name, old.read(name))
            if name == META_MEMBER and data is not None and fields:
                record = {**json.loads(data), **fields}
                data = json.dumps({k: v for k, v in record.items() if v is not None}).encode()
            if data is not None:
                new.writestr(name, data)
        for name, data in members.items():
            if data is not None:
                new.writestr(name, data)
    return target
