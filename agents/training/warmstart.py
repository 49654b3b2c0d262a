"""The heuristic's decisions in bulk, for an expert-iteration network's first lessons (``--warm-start N``).

The search labels a few hundred thousand decisions an hour; the native training batch plays the heuristic
about a hundred times as many. So a run may first teach its network the heuristic's play, then let the search
correct it: :func:`heuristic_examples` steps the batch with the heuristic in every other seat and the learner's
seat following the advice the batch writes for it (the heuristic's choice, the same as
:class:`agents.players.features.Featurizer` writes), and keeps each of the learner's decisions with a choice:
its raw observation (the network never reads the advice), its mask, the heuristic's action as the policy
target and the game's outcome for that seat (its margin, :meth:`sobek_env.game.Game.margins`) as the value
target, squashed as the search squashes its rewards.

With a ``player`` (DAgger, Ross, Gordon and Bagnell 2011), the learner's seat plays the player's choice
instead (a network's, see :func:`net_player`) and the heuristic only labels: the examples are then the states
the learner itself reaches, where a network taught on the heuristic's own games errs most (one wrong habit
leads it where the heuristic never goes, and nothing taught it what to do there). With a ``share`` below 1
the player makes only that share of the learner's decisions, drawn decision by decision from the seed, and the
heuristic the rest: the games then stray from the heuristic's by a step at a time, and the examples show both
where its own play goes and how the heuristic would come back.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import torch

from agents.players.features import Featurizer
from agents.players.net import masked_argmax
from agents.search.ismcts import REWARD_POINTS_SHARE
from agents.training.batched import NativeTrainingEnv, native_possible
from sobek_env.registry import load_game

ADVICE = "advice"
NUM_GAMES = 256  # games stepped together


Player = Callable[[np.ndarray, np.ndarray], np.ndarray]  # (raw observations, masks) -> actions


def net_player(net: torch.nn.Module) -> Player:
    """The most probable legal action of a policy-value network (:class:`agents.players.net.PolicyValueNet`)
    for each row of a batch of raw observations."""
    def play(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            logits, _ = net(torch.as_tensor(observations, dtype=torch.float32))
        return masked_argmax(logits, torch.as_tensor(masks)).numpy()
    return play


def heuristic_examples(game: str, players: int, mode: str, decisions: int, seed: int,
                       player: Player | None = None, share: float = 1.0) -> dict[str, np.ndarray]:
    """At least ``decisions`` of the heuristic's decisions with a choice, whole games only, as the fields of
    :class:`agents.training.exit.Examples`; with ``player``, the heuristic's choices in the states reached by
    ``player`` playing the learner's seat (``share`` of its decisions with a choice, the heuristic the others).
    ValueError where the native training batch was not built."""
    config = {"game": game, "players": players, "mode": mode, "reward": "win", "features": ADVICE,
              "pool": [("heuristic", 1.0)]}
    if not native_possible(config):
        raise ValueError("--warm-start plays the heuristic in the native training batch, which was not built "
                         "(or SOBEK_PURE_PYTHON asks for Python)")
    table = load_game(game).table(players, mode)
    featurize = Featurizer(ADVICE, table)
    base, (low, high) = featurize.base, featurize.advice_slice
    env = NativeTrainingEnv(config, NUM_GAMES, seed=seed)
    mixing = np.random.default_rng([seed, 1])  # which of the learner's decisions the player makes
    rows = env.reset()
    game_of = np.arange(NUM_GAMES)  # the game each slot plays, numbered as dealt
    dealt = NUM_GAMES
    outcomes: dict[int, float] = {}  # the learner's outcome of each game ended
    chunks: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
    kept = 0  # decisions of the games ended
    per_game = np.zeros(NUM_GAMES, dtype=np.int64)  # decisions so far of each slot's game
    try:
        while kept < decisions:
            masks = env.action_masks()
            advice = rows[:, low:high]
            actions = np.where(advice.any(axis=1), advice.argmax(axis=1), masks.argmax(axis=1))
            choice = masks.sum(axis=1) > 1
            played = actions
            if player is not None:
                theirs = choice & (mixing.random(NUM_GAMES) < share)
                if theirs.any():  # the player is asked about its own rows only: a network's forward pass
                    played = actions.copy()
                    played[theirs] = player(rows[theirs, :base], masks[theirs])
            chunks.append((rows[choice, :base].astype(np.float16), masks[choice], actions[choice].astype(np.int16),
                           game_of[choice].astype(np.int32)))
            per_game += choice
            rows, _, dones, infos = env.step(played)
            for i in np.flatnonzero(dones).tolist():  # the game's own margin (Kleopatra's eaten seats count 0)
                outcomes[int(game_of[i])] = math.tanh(infos[i]["lead"] / REWARD_POINTS_SHARE)
                kept += int(per_game[i])
                per_game[i] = 0
                game_of[i] = dealt
                dealt += 1
    finally:
        env.close()
    observations, masks, actions, games = _finished(chunks, np.fromiter(outcomes, dtype=np.int32,
                                                                       count=len(outcomes)))
    count = len(games)
    targets = np.zeros((count, table.game.num_actions), dtype=np.float16)
    targets[np.arange(count), actions] = 1.0
    return {"observations": observations, "masks": masks.astype(bool), "targets": targets,
            "weights": np.ones(count, dtype=np.uint8),
            "outcomes": np.array([outcomes[g] for g in games.tolist()], dtype=np.float32),
            "searched": np.full(count, math.nan, dtype=np.float32), "games": games}


def _finished(chunks: list[tuple[np.ndarray, ...] | None], ended: np.ndarray) -> tuple[np.ndarray, ...]:
    """The chunks' rows of the games that ended, as one array a field, each chunk freed once copied: the
    observations of millions of decisions take gigabytes, and joining them all, then dropping the unfinished
    games, would hold three copies at once."""
    keeps = [np.isin(chunk[3], ended) for chunk in chunks]
    count = sum(int(keep.sum()) for keep in keeps)
    fields = [np.empty((count, *part.shape[1:]), dtype=part.dtype) for part in chunks[0]]  # filled, page by page
    start = 0
    for i, keep in enumerate(keeps):
        chunk, chunks[i] = chunks[i], None  # freed once copied
        end = start + int(keep.sum())
        for field, part in zip(fields, chunk):
            field[start:end] = part[keep]
        start = end
    return tuple(fields)
