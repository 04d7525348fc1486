"""The policy-value network of expert iteration (torch), its fit to search targets, and its numpy export.

Two kinds, both exported without loss to an agent file with a value head (:mod:`hiddenhand.agents.trained`:
dense layers, the policy's logits last, the value head on the last hidden layer), so that the agent plays
with plain numpy:

* ``mlp``: a trunk of linear layers with an activation, a policy head (one logit per action) and a value
  head (``value_arch`` layers, then one output through ``tanh``) on the trunk's last layer.
* ``per_action``: one scorer shared by all actions. Action ``a`` has ``h`` units
  ``act(U x_a + G o + e_a + b)``: ``x_a`` its entries of the observation blocks laid out per action
  (in David & Goliath: the card in hand, in the trick, unseen, what taking it would add), ``o`` the whole
  observation, ``e_a`` a learned embedding; its logit is ``v . units_a + c``. Learning one scorer for
  every card needs far fewer positions than a dense layer per card. Exported, the units of all actions
  form one dense hidden layer (``actions * h`` wide) and the policy head is block-diagonal; the value head
  reads all the units.
"""

from __future__ import annotations

import numpy as np
import torch

from hiddenhand.agents.trained import Weights

from .config import FitConfig, NetworkConfig, action_blocks

ACTIVATIONS = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}


def _linears(widths: list[int]) -> torch.nn.ModuleList:
    return torch.nn.ModuleList(torch.nn.Linear(a, b) for a, b in zip(widths, widths[1:]))


class PolicyValueNet(torch.nn.Module):
    """Either kind (``config.kind``) over a game's observation ``layout`` and ``actions`` actions."""

    def __init__(self, layout, actions: int, config: NetworkConfig):
        super().__init__()
        self.kind, self.actions, self.inputs = config.kind, actions, layout.size
        self.activation = ACTIVATIONS[config.activation]()
        if config.kind == "mlp":
            self.trunk = _linears([layout.size, *config.net_arch])
            self.policy = torch.nn.Linear(config.net_arch[-1], actions)
            width = config.net_arch[-1]
        else:
            # observation positions of each action's entries: (features, actions)
            index = np.concatenate([np.arange(layout.size)[layout.slices[name]].reshape(-1, actions)
                                    for name in action_blocks(layout, actions)])
            self.register_buffer("index", torch.as_tensor(index))
            units = self.units = config.net_arch[0]
            self.own = torch.nn.Linear(len(index), units)          # U and b
            self.whole = torch.nn.Linear(layout.size, units, bias=False)  # G
            self.embedding = torch.nn.Parameter(torch.zeros(actions, units))  # e_a
            self.score = torch.nn.Linear(units, 1)                  # v and c
            width = actions * units
        self.value_layers = _linears([width, *config.value_arch])
        self.value = torch.nn.Linear(([width, *config.value_arch])[-1], 1)

    def hidden_and_logits(self, observations: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        if self.kind == "mlp":
            hidden = observations
            for layer in self.trunk:
                hidden = self.activation(layer(hidden))
            return hidden, self.policy(hidden)
        own = observations[:, self.index].transpose(1, 2)  # (batch, actions, features)
        units = self.activation(self.own(own) + self.whole(observations)[:, None, :] + self.embedding)
        return units.flatten(1), self.score(units).squeeze(-1)

    def forward(self, observations: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        hidden, logits = self.hidden_and_logits(observations)
        for layer in self.value_layers:
            hidden = self.activation(layer(hidden))
        return logits, torch.tanh(self.value(hidden)).squeeze(-1)

    def policy_layers(self) -> Weights:
        """The policy as dense (weight, bias) pairs."""
        if self.kind == "mlp":
            return _pairs([*self.trunk, self.policy])
        a, h = self.actions, self.units
        own, whole = _array(self.own.weight), _array(self.whole.weight)
        first = np.tile(whole, (a, 1))  # (a * h, inputs): every action's units read the whole observation
        index = self.index.numpy()
        for action in range(a):
            np.add.at(first[action * h:(action + 1) * h].T, index[:, action], own.T)
        bias = (_array(self.own.bias) + _array(self.embedding)).reshape(-1)
        head = np.zeros((a, a * h), np.float32)
        for action in range(a):
            head[action, action * h:(action + 1) * h] = _array(self.score.weight)[0]
        return [(first, bias), (head, np.full(a, _array(self.score.bias)[0], np.float32))]


def start_policy_from(net: PolicyValueNet, weights: Weights) -> None:
    """Set an ``mlp`` net's trunk and policy head from an agent file's dense layers (shapes checked by the
    config); the value head keeps its fresh start."""
    with torch.no_grad():
        for layer, (weight, bias) in zip([*net.trunk, net.policy], weights, strict=True):
            layer.weight.copy_(torch.as_tensor(weight))
            layer.bias.copy_(torch.as_tensor(bias))


def _array(tensor: torch.Tensor) -> np.ndarray:
    return tensor.detach().cpu().numpy().astype(np.float32)


def _pairs(layers) -> Weights:
    return [(_array(layer.weight), _array(layer.bias)) for layer in layers]


def export(net: PolicyValueNet) -> tuple[Weights, Weights]:
    """(policy layers, value head layers) as numpy (weight, bias) pairs, for an agent file."""
    return net.policy_layers(), _pairs([*net.value_layers, net.value])


def parameters_as_arrays(net: PolicyValueNet) -> dict[str, np.ndarray]:
    """Every parameter by name (a checkpoint's ``parameters.npz``; a per-action net's own parameters are
    not recoverable from its dense export)."""
    return {name: _array(value) for name, value in net.state_dict().items() if name != "index"}


def load_arrays(net: PolicyValueNet, arrays: dict[str, np.ndarray]) -> None:
    """Set ``net``'s parameters from :func:`parameters_as_arrays` (names and shapes must match)."""
    state = net.state_dict()
    expected = {name: tuple(value.shape) for name, value in state.items() if name != "index"}
    found = {name: tuple(value.shape) for name, value in arrays.items()}
    if found != expected:
        raise ValueError(f"the parameters {found} do not fit the configured network {expected}")
    with torch.no_grad():
        for name, value in arrays.items():
            state[name].copy_(torch.as_tensor(value))


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
