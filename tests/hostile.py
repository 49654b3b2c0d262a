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
