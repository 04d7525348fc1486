"""The policy-value network of expert iteration (torch), its fit to search targets, and its numpy export.

A trunk of linear layers with an activation, a policy head (one logit per action) and a value head
(``value_arch`` layers, then one output through ``tanh``), both on the trunk's last layer: exactly what
an agent file with a value head holds (:mod:`hiddenhand.agents.trained`), so :func:`export` and
:func:`load_weights` convert without loss.
"""

from __future__ import annotations

import numpy as np
import torch

from hiddenhand.agents.trained import Weights

from .config import FitConfig, NetworkConfig

ACTIVATIONS = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}


class PolicyValueNet(torch.nn.Module):
    def __init__(self, inputs: int, actions: int, config: NetworkConfig):
        super().__init__()
        widths = [inputs, *config.net_arch]
        self.trunk = torch.nn.ModuleList(torch.nn.Linear(a, b) for a, b in zip(widths, widths[1:]))
        self.policy = torch.nn.Linear(widths[-1], actions)
        values = [widths[-1], *config.value_arch]
        self.value_layers = torch.nn.ModuleList(torch.nn.Linear(a, b) for a, b in zip(values, values[1:]))
        self.value = torch.nn.Linear(values[-1], 1)
        self.activation = ACTIVATIONS[config.activation]()

    def forward(self, observations: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        hidden = observations
        for layer in self.trunk:
            hidden = self.activation(layer(hidden))
        logits = self.policy(hidden)
        for layer in self.value_layers:
            hidden = self.activation(layer(hidden))
        return logits, torch.tanh(self.value(hidden)).squeeze(-1)


def _pairs(layers) -> Weights:
    return [(layer.weight.detach().cpu().numpy().copy(), layer.bias.detach().cpu().numpy().copy()) for layer in layers]


def export(net: PolicyValueNet) -> tuple[Weights, Weights]:
    """(policy layers, value head layers) as numpy (weight, bias) pairs, for an agent file."""
    return _pairs([*net.trunk, net.policy]), _pairs([*net.value_layers, net.value])


def load_weights(net: PolicyValueNet, policy: Weights, value: Weights) -> None:
    """Set ``net``'s parameters from an agent file's layers (shapes must match)."""
    layers = [*net.trunk, net.policy, *net.value_layers, net.value]
    pairs = [*policy, *value]
    if [tuple(layer.weight.shape) for layer in layers] != [w.shape for w, _ in pairs]:
        raise ValueError(f"the network file's layers {[w.shape for w, _ in pairs]} do not fit the configured network "
                         f"{[tuple(layer.weight.shape) for layer in layers]}")
    with torch.no_grad():
        for layer, (weight, bias) in zip(layers, pairs):
            layer.weight.copy_(torch.as_tensor(weight))
            layer.bias.copy_(torch.as_tensor(bias))


def fit(net: PolicyValueNet, data: dict[str, np.ndarray], config: FitConfig, seed: int) -> dict[str, float]:
    """Fit ``net`` to search targets: cross-entropy of the masked policy to ``policies`` (the search's
    visit shares) and squared error of the value to ``values``; a fresh Adam each call. Returns the last
    epoch's mean losses and how often the policy's favourite is the search's."""
    tensors = {key: torch.as_tensor(value) for key, value in data.items()}
    size = len(data["values"])
    optimizer = torch.optim.Adam(net.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay)
    generator = torch.Generator().manual_seed(seed)
    net.train()
    for _ in range(config.epochs):
        order = torch.randperm(size, generator=generator)
        sums = np.zeros(2)
        for start in range(0, size, config.batch_size):
            batch = order[start:start + config.batch_size]
            logits, values = net(tensors["observations"][batch])
            logits = logits.masked_fill(~tensors["masks"][batch], -1e9)
            policy_loss = -(tensors["policies"][batch] * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()
            value_loss = torch.nn.functional.mse_loss(values, tensors["values"][batch])
            optimizer.zero_grad()
            (policy_loss + config.value_weight * value_loss).backward()
            optimizer.step()
            sums += np.array([policy_loss.item(), value_loss.item()]) * len(batch)
    net.eval()
    with torch.no_grad():
        logits, _ = net(tensors["observations"])
        chosen = logits.masked_fill(~tensors["masks"], -1e9).argmax(dim=1)
    agreement = (chosen == tensors["policies"].argmax(dim=1)).float().mean().item()
    return {"policy_loss": sums[0] / size, "value_loss": sums[1] / size, "agreement": agreement}
