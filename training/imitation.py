"""Imitation warm start: clone a teacher agent into the policy before self-play (behaviour cloning).

A game like Koehandel gives PPO little signal while the policy still bids and pays at random; starting
from a policy that already plays like the heuristic lets self-play improve on it instead. The teacher
plays every seat of ``games`` games; the policy learns its moves (masked cross-entropy) and the value
head learns each seat's return-to-go under the training reward. With a search agent as the teacher
(``teacher: ismcts``) this is the first step of expert iteration: the policy learns the search's moves,
then self-play improves on it.
"""

from __future__ import annotations

import numpy as np
import torch

from hiddenhand.agents import bind_agents, load
from hiddenhand.envs import make as make_env
from hiddenhand.envs.core.game import INPUT_TRANSFORMS

from .config import TrainConfig
from .potentials import potential as potential_of


def teacher_games(config: TrainConfig) -> dict[str, np.ndarray]:
    """Observations (policy input), masks, the teacher's actions and return-to-go targets."""
    spec = config.imitation
    env = make_env(config.game, **config.env).unwrapped
    transform = INPUT_TRANSFORMS[env.observer.policy_input]
    n = env.game.num_players
    potential = potential_of(config.potential, config.game)
    teachers = [load(spec.teacher, env.game, seed=config.seed + seat) for seat in range(n)]
    observations, masks, actions, targets = [], [], [], []
    for game in range(spec.games):
        env.reset(seed=config.seed + game)
        bind_agents(env, teachers)
        margins: list[tuple[int, float]] = []  # (seat, its potential when it moved)
        final = [0.0] * n
        for agent in env.agent_iter():
            observation, reward, termination, truncation, _ = env.last()
            seat = env.possible_agents.index(agent)
            if termination or truncation:
                final[seat] = reward
                env.step(None)
                continue
            action = teachers[seat].act(observation["observation"], observation["action_mask"])
            observations.append(transform(observation["observation"]))
            masks.append(observation["action_mask"].astype(bool))
            actions.append(action)
            margins.append((seat, potential(env, seat) if config.dense_reward else 0.0))
            env.step(action)
        targets += [final[seat] - margin for seat, margin in margins]  # what the seat still gains
    return {"observations": np.stack(observations), "masks": np.stack(masks),
            "actions": np.array(actions, np.int64), "targets": np.array(targets, np.float32)}


def clone(model, data: dict[str, np.ndarray], config: TrainConfig) -> dict[str, float]:
    """Fit ``model``'s policy to the teacher's moves and its value head to the returns."""
    spec = config.imitation
    policy = model.policy
    optimizer = torch.optim.Adam(policy.parameters(), lr=spec.learning_rate)
    tensors = {key: torch.as_tensor(value) for key, value in data.items()}
    size = len(data["actions"])
    generator = torch.Generator().manual_seed(config.seed)
    report: dict[str, float] = {}
    policy.set_training_mode(True)
    for _ in range(spec.epochs):
        order = torch.randperm(size, generator=generator)
        for start in range(0, size, spec.batch_size):
            batch = order[start:start + spec.batch_size]
            values, log_prob, _ = policy.evaluate_actions(
                tensors["observations"][batch], tensors["actions"][batch],
                action_masks=tensors["masks"][batch])
            policy_loss = -log_prob.mean()
            value_loss = torch.nn.functional.mse_loss(values.flatten(), tensors["targets"][batch])
            optimizer.zero_grad()
            (policy_loss + 0.5 * value_loss).backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            optimizer.step()
        report = {"policy_loss": policy_loss.item(), "value_loss": value_loss.item()}
    policy.set_training_mode(False)
    with torch.no_grad():
        sample = slice(0, min(size, 20_000))
        distribution = policy.get_distribution(tensors["observations"][sample],
                                               action_masks=data["masks"][sample])
        chosen = distribution.distribution.probs.argmax(dim=1).numpy()
    report["agreement"] = float((chosen == data["actions"][sample]).mean())
    report["samples"] = float(size)
    return report
