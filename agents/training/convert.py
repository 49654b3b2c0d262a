"""Convert a model of the old format to the safe one. THIS RUNS THE OLD FILE'S CODE.

    sobek-env convert OLD.zip NEW.zip --i-trust-this-file

A model of the old format (``sobek-ppo/1``, written before models were made safe to exchange)
is a stable-baselines3 zip whose ``data`` member is decoded with pickle: opening it runs
whatever code its maker put there, with your rights. The project no longer opens such files,
except here, and only with --i-trust-this-file: convert a model only if you trust whoever made
it (you trained it, or it came with this project).

The new file (``sobek-ppo/2``) holds the network's tensors and a JSON description of the
network, and loading it runs no code from it. A training checkpoint keeps its optimizer's
state. NEW.zip may be OLD.zip itself, to convert in place.

Once written, the conversion is checked: the old and the new policy play --check-games seeded
games against heuristic players, and must give the same logits, hence the same action, at
every decision.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from agents.common.files import parse_json
from agents.players.modelfile import (
    LEGACY_FORMATS,
    MAX_META_BYTES,
    MAX_META_DEPTH,
    META_MEMBER,
    MODEL_FORMAT,
    FileKind,
    check_weights,
    open_zip,
    read_member,
    write_model,
)
from agents.players.ppo import PPOAgent, check_meta, describe_policy, load_ppo
from agents.players.registry import make
from sobek_env import SingleAgentEnv

LEGACY_GAME = "sobek"  # every model of the old format is a Sobek model (there was no other game)

TRUST_FLAG = "--i-trust-this-file"
LEGACY_FILE = FileKind("old-format model", "it cannot play, so there is nothing to convert", "an")


class ConvertParser(argparse.ArgumentParser):
    """Errors in one line: ``agents.training.convert: error: ...`` and exit status 2."""

    def error(self, message: str) -> None:
        self.exit(2, f"{self.prog}: error: {message}\n")


def legacy_meta(path: Path) -> dict:
    """The ``sobek.json`` of an old-format model (read as JSON only); ValueError if it is not one."""
    with open_zip(path) as archive:
        if META_MEMBER not in archive.namelist():
            raise ValueError(f"{str(path)!r} is not a Sobek model (no {META_MEMBER})")
        meta = parse_json(read_member(archive, path, META_MEMBER, MAX_META_BYTES), f"{str(path)!r}: {META_MEMBER}",
                          MAX_META_BYTES, MAX_META_DEPTH)
        found = meta.get("format") if isinstance(meta, dict) else None
        if found == MODEL_FORMAT:
            raise ValueError(f"{str(path)!r} is already in the current format ({MODEL_FORMAT}); it loads as it is")
        if found not in LEGACY_FORMATS or "data" not in archive.namelist():
            raise ValueError(f"{str(path)!r} is not a Sobek model of the old format ({', '.join(LEGACY_FORMATS)} "
                             f"with a data member); its {META_MEMBER} records the format {found!r}")
    return meta


def _check_weight_members(path: Path) -> None:
    """Every ``.pth`` member of ``path`` must load as tensors alone (torch's weights-only reader), before
    stable-baselines3 opens the file: whether sb3 reads them weights-only depends on its version, so a member
    that is not a weights file is refused here, without running it. ValueError naming the member."""
    import io

    import torch

    with open_zip(path) as archive:
        for name in archive.namelist():
            if not name.endswith(".pth"):
                continue
            try:
                torch.load(io.BytesIO(archive.read(name)), map_location="cpu", weights_only=True)
            except Exception:  # not torch's message: it advises loading with weights_only=False
                raise ValueError(f"{str(path)!r} could not be opened as a stable-baselines3 model: its member "
                                 f"{name!r} is not a weights file") from None


def convert(old: Path, new: Path) -> PPOAgent:
    """Write the old-format model ``old`` as ``new`` in the current format (running ``old``'s code);
    the old policy, as an agent."""
    from sb3_contrib import MaskablePPO

    meta = legacy_meta(old)
    _check_weight_members(old)
    try:
        model = MaskablePPO.load(old, device="cpu")  # the one place that unpickles a model file: see the docstring
    except Exception as exc:  # whatever the file's members make sb3 or torch raise
        # not torch's message: for a member that is not tensors it advises loading with weights_only=False
        raise ValueError(f"{str(old)!r} could not be opened as a stable-baselines3 model ({type(exc).__name__}): "
                         "its members are damaged, or one is not a weights file") from None
    check_weights(model.policy.state_dict(), old, "policy.pth", LEGACY_FILE)
    record = {"format": MODEL_FORMAT, "game": LEGACY_GAME, "num_players": meta.get("num_players"),
              "observation_mode": meta.get("observation_mode"), "reward_mode": meta.get("reward_mode"),
              "features": meta.get("features", "raw"),  # models before feature sets read the observation alone
              "timesteps": meta.get("timesteps"), "observation_size": int(model.observation_space.shape[0]),
              "action_count": int(model.action_space.n), "policy": describe_policy(model.policy)}
    optimizer = model.policy.optimizer.state_dict()
    if optimizer["state"]:  # a training checkpoint: keep what resuming needs
        record["training"] = {"num_timesteps": int(model.num_timesteps), "n_updates": int(model._n_updates)}
    else:
        optimizer = None
    write_model(new, check_meta(record, new), model.policy.state_dict(), optimizer)
    model.policy.set_training_mode(False)
    return PPOAgent(model.policy, record)


def compare(old: PPOAgent, new: PPOAgent, games: int) -> tuple[int, float]:
    """Play ``games`` seeded games (seats rotating, heuristic opponents) with ``old``'s choices, comparing
    both policies at each decision: (decisions, largest logit difference). ValueError on a different action."""
    n = old.meta["num_players"]
    mode = old.meta["observation_mode"]
    decisions, largest = 0, 0.0
    for game in range(games):
        opponents = [make("heuristic", num_players=n, observation_mode=mode) for _ in range(n - 1)]
        env = SingleAgentEnv(opponents, num_players=n, seat=game % n, observation_mode=mode)
        observation, _ = env.reset(seed=game)
        over = False
        while not over:
            step = {"observation": observation, "action_mask": env.action_masks()}
            before, after = old.logits(step), new.logits(step)
            legal = np.isfinite(before)
            largest = max(largest, float(np.max(np.abs(before[legal] - after[legal]))))
            if int(np.argmax(before)) != int(np.argmax(after)):
                raise ValueError(f"the converted policy chooses another action at decision {decisions} of game {game}")
            decisions += 1
            observation, _, over, _, _ = env.step(old.act(step))
    return decisions, largest


def build_parser() -> ConvertParser:
    parser = ConvertParser(prog="sobek-env convert", description=__doc__.split("\n\n")[0],
                           epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("old", type=Path, metavar="OLD.zip", help=f"a model of the old format ({LEGACY_FORMATS[0]})")
    parser.add_argument("new", type=Path, metavar="NEW.zip", help=f"where to write it in the format {MODEL_FORMAT}")
    parser.add_argument(TRUST_FLAG, dest="trusted", action="store_true",
                        help="required: you trust OLD.zip's maker, since opening it runs any code it carries")
    parser.add_argument("--check-games", type=int, default=8, metavar="N",
                        help="seeded games in which the two policies must agree (default 8; 0: no check)")
    return parser


def main(argv: Sequence[str] | None = None) -> None:
    """The command line (see the module docstring)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.trusted:
        parser.error(f"opening {str(args.old)!r} runs any code it carries (it is decoded with pickle); if you trust "
                     f"whoever made it, say so with {TRUST_FLAG}")
    if args.check_games < 0:
        parser.error(f"--check-games must be 0 or more, got {args.check_games}")
    try:
        legacy_meta(args.old)
    except (ValueError, OSError) as exc:
        parser.error(str(exc))
    if not args.new.parent.is_dir():
        parser.error(f"no directory {str(args.new.parent)!r} to write {str(args.new)!r} in")
    print(f"opening {args.old} with stable-baselines3 (pickle: this runs the file's code)", flush=True)
    staging = args.new.with_name(f".{args.new.name}.converting")  # NEW.zip appears only once checked
    try:
        old = convert(args.old, staging)
        new = load_ppo(staging)
        if args.check_games:
            decisions, largest = compare(old, new, args.check_games)
        staging.replace(args.new)
    except ValueError as exc:
        print(f"{parser.prog}: error: {exc}; nothing was written", file=sys.stderr)
        sys.exit(1)
    finally:
        staging.unlink(missing_ok=True)
    print(f"wrote {args.new}: {MODEL_FORMAT}, {new.meta['policy']['class']} for {new.meta['num_players']} players"
          + (", with its optimizer state (a checkpoint)" if "training" in new.meta else ""))
    if args.check_games:
        print(f"checked: the same action at all {decisions} decisions of {args.check_games} seeded games against "
              f"heuristic players (largest logit difference {largest:.3g})")

if __name__ == "__main__":
    main()
