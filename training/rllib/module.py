"""The action-masking PPO module and the export of its actor as the project's agent-file layers.

The module is RLlib's default PPO torch module (MLP encoder with separate actor and critic nets, a
linear policy head) reading ``obs["observations"]``; illegal actions get a logit of ``FLOAT_MIN``, so
they are never sampled, in exploration and in inference alike. The actor (encoder layers + policy
head) is exactly :class:`hiddenhand.agents.PolicyAgent`'s MLP, so :func:`actor_weights` exports it.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import torch
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.utils.torch_utils import FLOAT_MIN

from hiddenhand.agents.trained import Weights


class MaskedPPOModule(DefaultPPOTorchRLModule):
    """PPO module over ``Dict(observations=Box, action_mask=Box)`` observations."""

    def __init__(self, *, observation_space: gym.spaces.Dict, **kwargs: Any):
        self.masked_space = observation_space
        super().__init__(observation_space=observation_space["observations"], **kwargs)

    def setup(self) -> None:
        super().setup()
        self.observation_space = self.masked_space

    def _forward(self, batch: dict, **kwargs: Any) -> dict:
        inner, mask = _split(batch)
        return _masked(super()._forward(inner, **kwargs), mask)

    def _forward_train(self, batch: dict, **kwargs: Any) -> dict:
        inner, mask = _split(batch)
        return _masked(super()._forward_train(inner, **kwargs), mask)

    def compute_values(self, batch: dict, embeddings: Any = None) -> torch.Tensor:
        return super().compute_values(_split(batch)[0], embeddings)


def _split(batch: dict) -> tuple[dict, torch.Tensor]:
    """A shallow copy of ``batch`` whose observations are the plain tensor, and the action mask."""
    obs = batch[Columns.OBS]
    return {**batch, Columns.OBS: obs["observations"]}, obs["action_mask"]


def _masked(out: dict, mask: torch.Tensor) -> dict:
    out[Columns.ACTION_DIST_INPUTS] = out[Columns.ACTION_DIST_INPUTS] + torch.clamp(torch.log(mask), min=FLOAT_MIN)
    return out


def actor_weights(module: MaskedPPOModule) -> Weights:
    """The actor's linear layers (encoder, then policy head) as numpy (weight, bias) pairs."""
    layers = [m for m in module.encoder.actor_encoder.modules() if isinstance(m, torch.nn.Linear)]
    layers += [m for m in module.pi.modules() if isinstance(m, torch.nn.Linear)]
    return [(m.weight.detach().cpu().numpy().copy(), m.bias.detach().cpu().numpy().copy()) for m in layers]
