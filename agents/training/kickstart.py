"""Kickstarting (Schmitt et al., 2018): PPO whose loss also pulls the policy toward a teacher's choices on the
states the learner itself reaches.

``sobek-env train --imitation W`` teaches a network that reads the observation alone (``--features raw``, as
from ``--init net:PATH``) with the heuristic as its teacher. The heuristic's choice is what a game's advice
feature set already computes (agents/sobek/features.py, agents/kleopatra/features.py): each of the learner's
rows carries it after the observation, one-hot over the actions (:class:`Teacher`), and the network reads the
observation only (:class:`agents.players.ppo.Log1pFeatures`' ``reads``), so that the model it gives plays
without the heuristic. :class:`ImitatingPPO`'s loss is PPO's plus W(t) times the cross-entropy between the
masked policy and the teacher's choice; W(t) falls linearly from W at the start to 0 at ``--imitation-decay``
steps (0: it stays W).

Distilling the heuristic teaches its choices on the heuristic's own games; a network that learnt nine tenths
of them then drifts, game by game, into positions those games never showed it. Here the teacher answers on the
learner's positions (DAgger's remedy) while the PPO term learns where departing from it wins.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from sb3_contrib import MaskablePPO
from stable_baselines3.common.utils import explained_variance

from agents.games import tables
from agents.players.features import Featurizer
from sobek_env.game import Game, Table


def imitating(config: dict) -> bool:
    """Whether a train.py run's loss imitates the heuristic (``--imitation`` above 0)."""
    return config.get("imitation", 0) > 0


def teacher_features(game: Game | str) -> str | None:
    """The feature set of ``game`` that carries the heuristic's choice (its ``advice_slice``), if it has one."""
    for name, (_, derive) in tables(game).feature_sets.items():
        if getattr(derive, "advice_slice", None) is not None:
            return name
    return None


class Teacher:
    """A learner's rows with the teacher's choice: the observation, then the heuristic's choice one-hot over the
    actions (all zeros where there is no decision to make), computed from the observation as the game's advice
    features compute it."""

    def __init__(self, table: Table) -> None:
        features = teacher_features(table.game)
        if features is None:
            raise ValueError(f"{table.game.name} has no feature set that carries the heuristic's choice: it cannot "
                             "teach a learner (--imitation)")
        self.featurize = Featurizer(features, table)
        self.base = self.featurize.base
        self.choice = slice(*self.featurize.advice_slice)
        self.size = self.base + table.game.num_actions

    def row(self, observation: dict) -> np.ndarray:
        """The row of one observation dict (its ``observation`` and ``action_mask``)."""
        return self.rows(self.featurize(observation)[None])[0]

    def rows(self, features: np.ndarray) -> np.ndarray:
        """The rows of vectors of the teacher's feature set (one per row of ``features``)."""
        return np.concatenate((features[:, :self.base], features[:, self.choice]), axis=1)


class ImitatingPPO(MaskablePPO):
    """MaskablePPO (clipped surrogate, value loss, entropy bonus, advantages normalised per minibatch, gradients
    clipped at ``max_grad_norm``) plus ``imitation_weight(steps)`` times the cross-entropy between the masked
    policy and the teacher's choice, which each row carries after its first ``reads`` entries. Rows without a
    choice (all zeros) add nothing. While no layer of the policy may learn (the critic's warm-up), the term is left
    out. TensorBoard gets ``train/imitation_loss``, ``train/imitation_weight`` and ``train/teacher_agreement``
    (the share of the rollout's decisions whose most probable action is the teacher's) besides PPO's own."""

    def __init__(self, *args: Any, imitation: float, imitation_decay: int, reads: int, **kwargs: Any) -> None:
        self.imitation, self.imitation_decay, self.reads = float(imitation), int(imitation_decay), int(reads)
        super().__init__(*args, **kwargs)
        if self.clip_range_vf is not None or self.target_kl is not None or not self.normalize_advantage:
            raise ValueError("ImitatingPPO updates as train.py configures PPO: no clip_range_vf, no target_kl, "
                             "advantages normalised")

    def imitation_weight(self, steps: int) -> float:
        """The weight of the imitation term after ``steps`` learner steps."""
        if not self.imitation_decay:
            return self.imitation
        return self.imitation * max(0.0, 1.0 - steps / self.imitation_decay)

    def train(self) -> None:
        policy = self.policy
        policy.set_training_mode(True)
        self._update_learning_rate(policy.optimizer)
        clip = float(self.clip_range(self._current_progress_remaining))
        acting = any(p.requires_grad for p in policy.action_net.parameters())  # not during the critic's warm-up
        weight = self.imitation_weight(self.num_timesteps) if acting else 0.0
        logs: dict[str, list[float]] = defaultdict(list)
        for _ in range(self.n_epochs):
            for batch in self.rollout_buffer.get(self.batch_size):
                loss = self._loss(batch, clip, weight, logs)
                policy.optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(policy.parameters(), self.max_grad_norm)
                policy.optimizer.step()
            self._n_updates += 1
        buffer = self.rollout_buffer
        self.logger.record("train/entropy_loss", np.mean(logs["entropy_loss"]))
        self.logger.record("train/policy_gradient_loss", np.mean(logs["policy_loss"]))
        self.logger.record("train/value_loss", np.mean(logs["value_loss"]))
        self.logger.record("train/approx_kl", np.mean(logs["approx_kl"]))
        self.logger.record("train/clip_fraction", np.mean(logs["clip_fraction"]))
        self.logger.record("train/loss", logs["loss"][-1])
        self.logger.record("train/explained_variance",
                           explained_variance(buffer.values.flatten(), buffer.returns.flatten()))
        self.logger.record("train/n_updates", self._n_updates, exclude="tensorboard")
        self.logger.record("train/clip_range", clip)
        self.logger.record("train/imitation_loss", np.mean(logs["imitation_loss"]))
        self.logger.record("train/imitation_weight", weight)
        self.logger.record("train/teacher_agreement", np.mean(logs["teacher_agreement"]))

    def _loss(self, batch: Any, clip: float, weight: float, logs: dict[str, list[float]]) -> torch.Tensor:
        """One minibatch's loss, its parts appended to ``logs``."""
        policy = self.policy
        features = policy.extract_features(batch.observations)
        latent_pi, latent_vf = policy.mlp_extractor(features)
        distribution = policy._get_action_dist_from_latent(latent_pi)
        distribution.apply_masking(batch.action_masks)
        values = policy.value_net(latent_vf).flatten()
        log_prob = distribution.log_prob(batch.actions.long().flatten())
        advantages = batch.advantages
        if len(advantages) > 1:
            advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
        ratio = torch.exp(log_prob - batch.old_log_prob)
        policy_loss = -torch.min(advantages * ratio, advantages * torch.clamp(ratio, 1 - clip, 1 + clip)).mean()
        value_loss = F.mse_loss(batch.returns, values)
        entropy_loss = -distribution.entropy().mean()
        loss = policy_loss + self.ent_coef * entropy_loss + self.vf_coef * value_loss
        imitation, agreement = self._imitation(batch.observations[:, self.reads:],
                                               distribution.distribution.logits)
        if weight > 0:
            loss = loss + weight * imitation
        with torch.no_grad():
            log_ratio = log_prob - batch.old_log_prob
            logs["approx_kl"].append(float(((torch.exp(log_ratio) - 1) - log_ratio).mean()))
            logs["clip_fraction"].append(float(((ratio - 1).abs() > clip).float().mean()))
        for key, value in (("policy_loss", policy_loss), ("value_loss", value_loss), ("entropy_loss", entropy_loss),
                           ("imitation_loss", imitation), ("teacher_agreement", agreement), ("loss", loss)):
            logs[key].append(float(value.detach()))
        return loss

    @staticmethod
    def _imitation(choices: torch.Tensor, log_probs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The mean cross-entropy between the (masked, normalised) ``log_probs`` and the teacher's one-hot
        ``choices``, and the share of rows whose most probable action is the teacher's, over the rows that have
        a choice."""
        taught = choices.sum(dim=1) > 0
        count = taught.sum().clamp(min=1)
        chosen = choices.argmax(dim=1, keepdim=True)
        imitation = -(log_probs.gather(1, chosen).squeeze(1) * taught).sum() / count
        agreement = ((log_probs.argmax(dim=1, keepdim=True) == chosen).squeeze(1) & taught).sum() / count
        return imitation, agreement


__all__ = ["ImitatingPPO", "Teacher", "imitating", "teacher_features"]
