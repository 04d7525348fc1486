"""Trained policy agents: an MLP's weights plus JSON metadata in one ``.npz`` file.

Files load with ``numpy.load(allow_pickle=False)``: nothing in them can run code. The forward pass is
plain numpy, so playing against a trained agent needs no torch.
"""

from __future__ import annotations

import json
import os
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from hiddenhand.envs.core.game import INPUT_TRANSFORMS

from .base import Agent

FORMAT = "hiddenhand-policy/1"
ACTIVATIONS = {
    "tanh": np.tanh,
    "relu": lambda x: np.maximum(x, 0.0),
}


class AgentFileError(ValueError):
    """An agent file that is missing, corrupt, or made for another game."""


class PolicyAgent(Agent):
    """Masked MLP policy: hidden layers with an activation, then logits over the actions.

    ``deterministic=True`` plays the most probable legal action; otherwise it samples.
    """

    def __init__(self, weights: list[tuple[np.ndarray, np.ndarray]], metadata: dict[str, Any],
                 deterministic: bool = True, seed: int | None = None):
        if metadata.get("activation") not in ACTIVATIONS:
            raise AgentFileError(f"unknown activation {metadata.get('activation')!r}; known: {sorted(ACTIVATIONS)}")
        for (w_in, _), (w_out, _) in zip(weights, weights[1:]):
            if w_in.shape[0] != w_out.shape[1]:
                raise AgentFileError(f"layer shapes do not chain: {w_in.shape} then {w_out.shape}")
        self.weights = [(w.astype(np.float32), b.astype(np.float32)) for w, b in weights]
        self.metadata = metadata
        self.name = metadata.get("name", "trained")
        self.deterministic = deterministic
        self._activation = ACTIVATIONS[metadata["activation"]]
        transform = metadata.get("input_transform", "identity")
        if transform not in INPUT_TRANSFORMS:
            raise AgentFileError(f"unknown input_transform {transform!r}; known: {sorted(INPUT_TRANSFORMS)}")
        self._input = INPUT_TRANSFORMS[transform]
        self._rng = np.random.default_rng(seed)

    @property
    def observation_size(self) -> int:
        return self.weights[0][0].shape[1]

    @property
    def num_actions(self) -> int:
        return self.weights[-1][0].shape[0]

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def logits(self, observation: np.ndarray) -> np.ndarray:
        hidden = self._input(observation)
        for weight, bias in self.weights[:-1]:
            hidden = self._activation(weight @ hidden + bias)
        weight, bias = self.weights[-1]
        return weight @ hidden + bias

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        logits = np.where(action_mask.astype(bool), self.logits(observation), -np.inf)
        if not np.isfinite(logits).any():
            raise ValueError(f"{self.name}: the action mask has no legal action")
        if self.deterministic:
            return int(np.argmax(logits))
        probs = np.exp(logits - logits.max())
        return int(self._rng.choice(len(probs), p=probs / probs.sum()))

    def check_compatible(self, game: str, num_players: int, observation_size: int) -> None:
        """Raise :class:`AgentFileError` unless this agent was trained for that configuration."""
        meta = self.metadata
        if meta.get("game") != game or meta.get("num_players") != num_players:
            raise AgentFileError(
                f"agent {self.name!r} was trained for {meta.get('game')} with {meta.get('num_players')} "
                f"players, not {game} with {num_players}"
            )
        if self.observation_size != observation_size:
            raise AgentFileError(
                f"agent {self.name!r} expects observations of size {self.observation_size}, "
                f"the env gives {observation_size} (different env options?)"
            )


def save_policy(path: str | os.PathLike, weights: list[tuple[np.ndarray, np.ndarray]],
                metadata: dict[str, Any]) -> Path:
    """Write weights and metadata atomically (temp file, then rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays = {"metadata": np.frombuffer(json.dumps({**metadata, "format": FORMAT}).encode(), np.uint8)}
    for i, (weight, bias) in enumerate(weights):
        arrays[f"w{i}"], arrays[f"b{i}"] = weight, bias
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            np.savez(handle, **arrays)
        os.chmod(tmp, 0o644)  # mkstemp creates 0600; agent files are meant to be shared
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return path


def load_policy(path: str | os.PathLike, deterministic: bool = True, seed: int | None = None) -> PolicyAgent:
    """Read an agent file; :class:`AgentFileError` names what is wrong with a bad one."""
    path = Path(path)
    if not path.is_file():
        raise AgentFileError(f"agent file not found: {path}")
    try:
        with np.load(path, allow_pickle=False) as data:
            metadata = json.loads(bytes(data["metadata"]).decode())
            layers = len([key for key in data.files if key.startswith("w")])
            weights = [(data[f"w{i}"], data[f"b{i}"]) for i in range(layers)]
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, json.JSONDecodeError, UnicodeDecodeError) as error:
        raise AgentFileError(f"{path}: not a readable hiddenhand agent file ({error})") from error
    if metadata.get("format") != FORMAT:
        raise AgentFileError(f"{path}: format {metadata.get('format')!r}, expected {FORMAT!r}")
    if not weights:
        raise AgentFileError(f"{path}: holds no layers")
    try:
        return PolicyAgent(weights, metadata, deterministic=deterministic, seed=seed)
    except AgentFileError as error:
        raise AgentFileError(f"{path}: {error}") from error
