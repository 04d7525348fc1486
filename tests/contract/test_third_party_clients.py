"""Contract (issue 22): a third party's generic PettingZoo client drives every game as it comes. TorchRL's
``PettingZooWrapper`` wraps the AEC env (one group of all agents, masks on) and a plain float32 torch
network (no cast anywhere) picks masked actions until the episode is done; every observation it was fed
lies in the declared space and every action was legal (the env raises on an illegal one)."""

import numpy as np
import pytest
import torch
from torch import nn

from hiddenhand.envs import make
from hiddenhand.envs.registry import REGISTRY

#: Cycles before truncation: the episode ends (truncated) within a few seconds of TorchRL's per-step cost.
CYCLES = 8


class MaskedPolicy(nn.Module):
    """A float32 MLP over the observation; illegal actions masked out, the best legal one taken."""

    def __init__(self, inputs: int, actions: int):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(inputs, 32), nn.Tanh(), nn.Linear(32, actions))

    def forward(self, observation: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.net(observation).masked_fill(~mask, -torch.inf).argmax(-1)


@pytest.mark.parametrize("game", sorted(REGISTRY))
def test_torchrl_drives_every_game_with_a_float32_network(game):
    from tensordict.nn import TensorDictModule  # imported here: TorchRL takes seconds to import
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper
    from torchrl.envs.utils import MarlGroupMapType

    env = make(game, max_cycles=CYCLES)
    space = env.observation_space("player_0")["observation"]
    wrapped = PettingZooWrapper(env, use_mask=True, group_map=MarlGroupMapType.ALL_IN_ONE_GROUP, seed=0)
    torch.manual_seed(0)
    policy = TensorDictModule(MaskedPolicy(space.shape[0], env.action_space("player_0").n),
                              in_keys=[("agents", "observation", "observation"), ("agents", "action_mask")],
                              out_keys=[("agents", "action")])
    rollout = wrapped.rollout(max_steps=10 * CYCLES * len(env.possible_agents), policy=policy)
    assert rollout["next", "done"][-1].all() and env.unwrapped._game_over
    assert len(rollout) == len(env.unwrapped.history) == env.unwrapped._steps
    observations = rollout["agents", "observation", "observation"]
    assert observations.dtype == torch.float32
    assert all(space.contains(row) for row in observations.reshape(-1, space.shape[0]).numpy())
    acting = rollout["agents", "mask"]
    actions = rollout["agents", "action"][acting]
    assert actions.tolist() == env.unwrapped.history
    assert np.all(rollout["agents", "action_mask"][acting].gather(-1, actions[:, None]).numpy())
