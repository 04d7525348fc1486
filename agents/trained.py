"""Trained policy agents: an MLP's weights plus JSON metadata in one ``.npz`` file.

Files are read member by member without pickle: nothing in them can run code. Everything is checked
before it is used, and sizes before anything is allocated: the file size, each array's declared
shape and dtype (the ``.npy`` header) against what the archive holds, the metadata (a JSON object with
a known format, activation and input transform), every layer's shape (2-D weights, 1-D biases that
fit them, layers that chain) and finite weights. :func:`~hiddenhand.agents.load` then checks the first
layer against the game's observation size and the last against its action count. Every problem is an
:class:`AgentFileError` naming the file and what is wrong. The forward pass is plain numpy, so playing
against a trained agent needs no torch.

A file may also hold a value head (``vw<i>``/``vb<i>``): layers on the policy's last hidden layer ending
in one output, read through ``tanh`` as the observing seat's expected win/loss reward. The agent plays
the policy alone; search (``puct``) uses both heads (:mod:`hiddenhand.agents.search.puct`).
"""

from __future__ import annotations

import json
import math
import os
import re
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from hiddenhand.envs.core.game import INPUT_TRANSFORMS

from .base import Agent

FORMAT = "hiddenhand-policy/1"
_LARGEST = float(np.finfo(np.float32).max)
ACTIVATIONS = {
    "tanh": np.tanh,
    "relu": lambda x: np.maximum(x, 0.0),
}
#: Limits checked before reading: the whole file, one array, the metadata, the number of layers.
MAX_FILE_BYTES = 1 << 30
MAX_ARRAY_BYTES = 1 << 29
MAX_METADATA_BYTES = 1 << 20
MAX_LAYERS = 32
_MEMBER = re.compile(r"(metadata|v?[wb](0|[1-9][0-9]{0,2}))\.npy")
_WEIGHT_DTYPES = {"f2", "f4", "f8"}

Weights = list[tuple[np.ndarray, np.ndarray]]


class AgentFileError(ValueError):
    """An agent file that is missing, corrupt, oversized, or made for another game."""


def check_weights(weights: Any, prefix: str = "") -> None:
    """Raise :class:`AgentFileError` unless ``weights`` is a usable layer list: 1..MAX_LAYERS pairs of
    a 2-D float weight matrix and a 1-D float bias of matching length, chaining, all finite. ``prefix``
    names the arrays in messages (``"v"`` for a value head)."""
    if not isinstance(weights, (list, tuple)) or not weights:
        raise AgentFileError(f"holds no {'value ' if prefix else ''}layers")
    if len(weights) > MAX_LAYERS:
        raise AgentFileError(f"holds {len(weights)} layers, more than {MAX_LAYERS}")
    for i, pair in enumerate(weights):
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise AgentFileError(f"layer {i} is not a (weight, bias) pair")
        weight, bias = pair
        for key, array, dims in ((f"{prefix}w{i}", weight, 2), (f"{prefix}b{i}", bias, 1)):
            if not isinstance(array, np.ndarray) or array.dtype.kind != "f":
                kind = array.dtype if isinstance(array, np.ndarray) else type(array).__name__
                raise AgentFileError(f"{key} must be a float array, got {kind}")
            if array.ndim != dims:
                raise AgentFileError(f"{key} must be {dims}-D, got shape {array.shape}")
            if 0 in array.shape:
                raise AgentFileError(f"{key} is empty (shape {array.shape})")
        if bias.shape[0] != weight.shape[0]:
            raise AgentFileError(f"{prefix}b{i} has {bias.shape[0]} entries for the {weight.shape[0]} outputs of "
                                 f"{prefix}w{i} (shape {weight.shape})")
        if i and weight.shape[1] != weights[i - 1][0].shape[0]:
            raise AgentFileError(f"layer shapes do not chain: {prefix}w{i - 1} {weights[i - 1][0].shape} "
                                 f"then {prefix}w{i} {weight.shape}")
        for key, array in ((f"{prefix}w{i}", weight), (f"{prefix}b{i}", bias)):
            if not np.isfinite(array).all():
                raise AgentFileError(f"{key} holds non-finite values (NaN or infinity)")


class PolicyAgent(Agent):
    """Masked MLP policy: hidden layers with an activation, then logits over the actions.

    ``deterministic=True`` plays the most probable legal action; otherwise it samples. ``value_weights``
    (optional) is a value head on the last hidden layer, ending in one output (see the module docstring).
    """

    def __init__(self, weights: Weights, metadata: dict[str, Any], deterministic: bool = True,
                 seed: int | None = None, value_weights: Weights | None = None):
        if not isinstance(metadata, dict):
            raise AgentFileError(f"metadata must be a JSON object, got {type(metadata).__name__}")
        if metadata.get("activation") not in ACTIVATIONS:
            raise AgentFileError(f"unknown activation {metadata.get('activation')!r}; known: {sorted(ACTIVATIONS)}")
        transform = metadata.get("input_transform") or "identity"
        if transform not in INPUT_TRANSFORMS:
            raise AgentFileError(f"unknown input_transform {transform!r}; known: {sorted(INPUT_TRANSFORMS)}")
        check_weights(weights)
        self.weights = [(w.astype(np.float32), b.astype(np.float32)) for w, b in weights]
        self.value_weights = None
        if value_weights is not None:
            check_value_head(value_weights, weights)
            self.value_weights = [(w.astype(np.float32), b.astype(np.float32)) for w, b in value_weights]
        self.metadata = metadata
        name = metadata.get("name", "trained")
        self.name = name if isinstance(name, str) else "trained"
        self.deterministic = deterministic
        self._activation = ACTIVATIONS[metadata["activation"]]
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
        if hidden.shape != (self.observation_size,):
            raise ValueError(f"{self.name}: expects an observation of shape ({self.observation_size},), "
                             f"got {hidden.shape}")
        for weight, bias in self.weights[:-1]:
            hidden = self._activation(weight @ hidden + bias)
        weight, bias = self.weights[-1]
        return weight @ hidden + bias

    def evaluate(self, observations: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """Logits (rows x actions) and, with a value head, values in [-1, 1] (rows) of a batch of
        observations (rows, already through the input transform)."""
        hidden = observations.T
        for weight, bias in self.weights[:-1]:
            hidden = self._activation(weight @ hidden + bias[:, None])
        weight, bias = self.weights[-1]
        logits = (weight @ hidden + bias[:, None]).T
        if self.value_weights is None:
            return logits, None
        for weight, bias in self.value_weights[:-1]:
            hidden = self._activation(weight @ hidden + bias[:, None])
        weight, bias = self.value_weights[-1]
        return logits, np.tanh(weight @ hidden + bias[:, None])[0]

    def transform(self, observation: np.ndarray) -> np.ndarray:
        """The observation as the network reads it (the file's input transform)."""
        return self._input(observation)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        if len(action_mask) != self.num_actions:
            raise ValueError(f"{self.name}: has {self.num_actions} actions, the mask {len(action_mask)}")
        legal = action_mask.astype(bool)
        if not legal.any():
            raise ValueError(f"{self.name}: the action mask has no legal action")
        # huge (finite) weights can overflow to inf or NaN: such logits still rank, never drop, a legal action
        logits = np.where(legal, np.nan_to_num(self.logits(observation).astype(np.float64), nan=-_LARGEST, posinf=_LARGEST,
                                               neginf=-_LARGEST), -np.inf)
        if self.deterministic:
            return int(np.argmax(logits))
        probs = np.exp(logits - logits.max())
        return int(self._rng.choice(len(probs), p=probs / probs.sum()))

    def check_compatible(self, game: str, num_players: int, observation_size: int,
                         num_actions: int | None = None) -> None:
        """Raise :class:`AgentFileError` unless this agent was trained for that configuration: the same
        game and player count, a first layer that reads ``observation_size`` inputs and a last layer
        with ``num_actions`` outputs."""
        meta = self.metadata
        if meta.get("game") != game or meta.get("num_players") != num_players:
            raise AgentFileError(
                f"agent {self.name!r} was trained for {meta.get('game')} with {meta.get('num_players')} "
                f"players, not {game} with {num_players}"
            )
        if self.observation_size != observation_size:
            raise AgentFileError(
                f"agent {self.name!r} expects observations of size {self.observation_size} (w0 shape "
                f"{self.weights[0][0].shape}), the env gives {observation_size} (different env options?)"
            )
        if num_actions is not None and self.num_actions != num_actions:
            last = len(self.weights) - 1
            raise AgentFileError(
                f"agent {self.name!r} has {self.num_actions} outputs (w{last} shape "
                f"{self.weights[last][0].shape}), the game has {num_actions} actions"
            )


def check_value_head(value_weights: Any, weights: Weights) -> None:
    """Raise :class:`AgentFileError` unless ``value_weights`` is a layer list reading the policy's last
    hidden layer (``weights``) and ending in one output."""
    check_weights(value_weights, prefix="v")
    if len(weights) < 2:
        raise AgentFileError("a value head needs a policy with a hidden layer")
    width = weights[-2][0].shape[0]
    if value_weights[0][0].shape[1] != width:
        raise AgentFileError(f"vw0 {value_weights[0][0].shape} does not read the policy's last hidden layer "
                             f"({width} units)")
    if value_weights[-1][0].shape[0] != 1:
        raise AgentFileError(f"the value head ends in {value_weights[-1][0].shape[0]} outputs, not 1")


def save_policy(path: str | os.PathLike, weights: Weights, metadata: dict[str, Any],
                value_weights: Weights | None = None) -> Path:
    """Write weights (and a value head), and metadata atomically (temp file, fsync, then rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays = {"metadata": np.frombuffer(json.dumps({**metadata, "format": FORMAT}).encode(), np.uint8)}
    for prefix, layers in (("", weights), ("v", value_weights or [])):
        for i, (weight, bias) in enumerate(layers):
            arrays[f"{prefix}w{i}"], arrays[f"{prefix}b{i}"] = weight, bias
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            np.savez(handle, **arrays)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)  # mkstemp creates 0600; agent files are meant to be shared
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return path


def load_policy(path: str | os.PathLike, deterministic: bool = True, seed: int | None = None) -> PolicyAgent:
    """Read and check an agent file; :class:`AgentFileError` names the file and what is wrong."""
    path = Path(path)
    arrays = _read_arrays(path)
    try:
        metadata = _metadata(arrays.pop("metadata", None))
        values = {key[1:]: arrays.pop(key) for key in [key for key in arrays if key.startswith("v")]}
        weights = _layers(arrays)
        return PolicyAgent(weights, metadata, deterministic=deterministic, seed=seed,
                           value_weights=_layers(values, "v") if values else None)
    except AgentFileError as error:
        raise AgentFileError(f"{path}: {error}") from None


def _read_arrays(path: Path) -> dict[str, np.ndarray]:
    """The archive's arrays by name, each header checked before its data is read."""
    if not path.is_file():
        raise AgentFileError(f"agent file not found: {path}")
    size = path.stat().st_size
    if size == 0:
        raise AgentFileError(f"{path}: the file is empty (0 bytes), not an agent file")
    if size > MAX_FILE_BYTES:
        raise AgentFileError(f"{path}: {size:,} bytes, more than an agent file may hold ({MAX_FILE_BYTES:,})")
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
            if len(members) > 4 * MAX_LAYERS + 1:
                raise AgentFileError(f"holds {len(members)} entries, more than {4 * MAX_LAYERS + 1}")
            arrays: dict[str, np.ndarray] = {}
            for info in members:
                if not _MEMBER.fullmatch(info.filename):
                    raise AgentFileError(f"unexpected entry {info.filename!r}; an agent file holds metadata.npy, "
                                         f"w<i>.npy and b<i>.npy (and a value head's vw<i>.npy, vb<i>.npy)")
                key = info.filename[:-4]
                if key in arrays:
                    raise AgentFileError(f"entry {info.filename!r} appears twice")
                arrays[key] = _read_member(archive, info, key)
            return arrays
    except AgentFileError as error:
        raise AgentFileError(f"{path}: {error}") from None
    except Exception as error:  # any parse failure of untrusted bytes (zip, zlib, npy header) lands here
        raise AgentFileError(f"{path}: not a readable hiddenhand agent file "
                             f"({type(error).__name__}: {error})") from None


def _read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, key: str) -> np.ndarray:
    limit = MAX_METADATA_BYTES if key == "metadata" else MAX_ARRAY_BYTES
    if info.file_size > limit + 4096:
        raise AgentFileError(f"{info.filename} is {info.file_size:,} bytes, more than allowed ({limit:,})")
    with archive.open(info) as handle:
        version = np.lib.format.read_magic(handle)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(handle)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(handle)
        else:
            raise AgentFileError(f"{info.filename}: unsupported .npy version {version}")
        expected = "uint8" if key == "metadata" else "a float type"
        if key == "metadata":
            if dtype != np.uint8 or len(shape) != 1:
                raise AgentFileError(f"{info.filename}: metadata must be 1-D uint8 (JSON bytes), "
                                     f"got {dtype} with shape {shape}")
        elif dtype.hasobject or dtype.kind != "f" or f"f{dtype.itemsize}" not in _WEIGHT_DTYPES:
            raise AgentFileError(f"{info.filename}: dtype {dtype} is not allowed; expected {expected}")
        nbytes = math.prod(shape) * dtype.itemsize
        if nbytes > limit:
            raise AgentFileError(f"{info.filename}: header declares shape {shape} of {dtype} ({nbytes:,} bytes), "
                                 f"more than allowed ({limit:,})")
        held = info.file_size - handle.tell()
        if nbytes != held:
            raise AgentFileError(f"{info.filename}: header declares shape {shape} of {dtype} ({nbytes:,} bytes) but "
                                 f"the entry holds {held:,} bytes of data")
    with archive.open(info) as handle:  # header checked: now read it
        return np.lib.format.read_array(handle, allow_pickle=False)


def _metadata(raw: np.ndarray | None) -> dict[str, Any]:
    if raw is None:
        raise AgentFileError("holds no metadata")
    try:
        metadata = json.loads(raw.tobytes().decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise AgentFileError(f"metadata is not UTF-8 JSON ({error})") from None
    if not isinstance(metadata, dict):
        raise AgentFileError(f"metadata is a JSON {_json_kind(metadata)}, expected a JSON object")
    if metadata.get("format") != FORMAT:
        raise AgentFileError(f"format {metadata.get('format')!r}, expected {FORMAT!r}")
    for key, kinds, what in (("name", (str,), "a string"), ("game", (str,), "a string"),
                             ("num_players", (int,), "an int"), ("env_options", (dict,), "a JSON object")):
        value = metadata.get(key)
        if key in metadata and (not isinstance(value, kinds) or isinstance(value, bool)):
            raise AgentFileError(f"metadata {key}={value!r} is not {what}")
    return metadata


def _layers(arrays: dict[str, np.ndarray], prefix: str = "") -> Weights:
    count = sum(key.startswith("w") for key in arrays)
    expected = {f"{kind}{i}" for i in range(count) for kind in "wb"}
    if set(arrays) != expected:
        missing, extra = (sorted(prefix + key for key in keys) for keys in (expected - set(arrays),
                                                                             set(arrays) - expected))
        raise AgentFileError(f"layers are not {prefix}w0, {prefix}b0, ..., {prefix}w{count - 1}, "
                             f"{prefix}b{count - 1}: "
                             + "; ".join([f"missing {missing}"] * bool(missing) + [f"unexpected {extra}"] * bool(extra)))
    return [(arrays[f"w{i}"], arrays[f"b{i}"]) for i in range(count)]


def _json_kind(value: Any) -> str:
    return {list: "list", str: "string", int: "number", float: "number", bool: "boolean",
            type(None): "null"}.get(type(value), type(value).__name__)
