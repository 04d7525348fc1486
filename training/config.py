"""Training configuration: YAML files -> validated, immutable dataclasses.

``load_config("david_goliath_quick")`` loads a preset shipped in ``hiddenhand/configs/train``;
``load_config("run.yaml")`` loads any file (read by :func:`~hiddenhand.envs.core.yaml_files.read_yaml`:
UTF-8, at most 1 MiB, each key once per mapping). Keys left out take the defaults below. Every problem is
a :class:`ConfigError` naming the file, the dotted key and what is allowed. Field types and the
``metadata`` rules (``min``/``max`` inclusive, ``gt`` exclusive, ``choices``, ``nonempty``) drive
the checks; list rules apply to each item.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
from dataclasses import MISSING, dataclass, field
from pathlib import Path
from collections.abc import Callable
from typing import Any, get_args, get_origin, get_type_hints

import yaml

import hiddenhand.configs
from hiddenhand import envs
from hiddenhand.agents import load as load_agent
from hiddenhand.agents.search import is_search_spec
from hiddenhand.envs.core.options import ConfigError
from hiddenhand.envs.core.yaml_files import read_yaml

from .potentials import POTENTIALS, available

PRESET_DIR = Path(hiddenhand.configs.__file__).parent / "train"
BASELINES = ("random", "heuristic")
MAX_STEPS = 10**12
#: Largest rollout buffer (observations and action masks of one update, float32) a config may ask for.
MAX_ROLLOUT_BYTES = 8 << 30
#: Env options that make no sense in training (they would print every step).
TRAINING_FORBIDS_ENV = ("render_mode",)


def _field(default: Any, **rules: Any) -> Any:
    """A dataclass field with a default (lists are copied per instance) and validation rules."""
    if isinstance(default, list):
        return field(default_factory=lambda: list(default), metadata=rules)
    return field(default=default, metadata=rules)


@dataclass(frozen=True)
class PPOConfig:
    """MaskablePPO hyperparameters (sb3-contrib names)."""

    learning_rate: float = _field(3e-4, gt=0, max=1)
    #: Steps per env per rollout; one update sees ``n_steps * n_envs`` steps.
    n_steps: int = _field(1024, min=1, max=1_000_000)
    #: Minibatch size: at least 2 (advantages are normalised per minibatch), at most one rollout, and
    #: never leaving a last minibatch of a single step (see :func:`config_from_dict`).
    batch_size: int = _field(256, min=2, max=1_000_000)
    n_epochs: int = _field(10, min=1, max=1000)
    gamma: float = _field(1.0, gt=0, max=1)
    gae_lambda: float = _field(0.95, min=0, max=1)
    clip_range: float = _field(0.2, gt=0, max=1)
    ent_coef: float = _field(0.01, min=0, max=1)
    vf_coef: float = _field(0.5, min=0, max=100)
    max_grad_norm: float = _field(0.5, gt=0, max=1e6)
    net_arch: list[int] = _field([256, 256], min=1, max=8192, nonempty=True, max_len=16)
    activation: str = _field("tanh", choices=("tanh", "relu"))


@dataclass(frozen=True)
class PoolConfig:
    """Opponent pool: snapshot cadence and how opponent seats are filled (probs sum to 1)."""

    snapshot_every: int = _field(20_000, min=1, max=MAX_STEPS)
    #: Snapshots kept (each lives as a policy in every env worker).
    window: int = _field(10, min=1, max=100)
    latest_prob: float = _field(0.5, min=0, max=1)
    snapshot_prob: float = _field(0.25, min=0, max=1)
    baseline_prob: float = _field(0.25, min=0, max=1)
    baselines: list[str] = _field(list(BASELINES), choices=BASELINES)


@dataclass(frozen=True)
class ImitationConfig:
    """Optional warm start: clone a teacher agent over ``games`` games before self-play (0: off)."""

    #: A baseline, or a search agent spec for expert iteration (``"ismcts"``, ``"pimc:determinizations=4"``):
    #: the policy then learns the search's moves.
    teacher: str = _field("heuristic", agent=True)
    #: The teacher's moves are held in memory for the epochs: the cap protects it.
    games: int = _field(0, min=0, max=10_000)
    epochs: int = _field(3, min=1, max=1000)
    batch_size: int = _field(512, min=1, max=1_000_000)
    learning_rate: float = _field(1e-3, gt=0, max=1)


@dataclass(frozen=True)
class EvalConfig:
    """Periodic evaluation against fixed baseline opponents."""

    every: int = _field(50_000, min=1, max=MAX_STEPS)
    games: int = _field(100, min=1, max=100_000)
    opponents: list[str] = _field(list(BASELINES), choices=BASELINES)


@dataclass(frozen=True)
class TrainConfig:
    """A self-play training run; ``env`` is passed on as ``hiddenhand.envs.make(game, **env)``."""

    game: str = field(metadata={"choices": tuple(envs.REGISTRY)})
    env: dict = field(default_factory=dict)
    #: NumPy seeds ``seed + env index`` must stay below 2**32.
    seed: int = _field(0, min=0, max=2**31 - 1)
    total_timesteps: int = _field(1_000_000, min=1, max=MAX_STEPS)
    n_envs: int = _field(2, min=1, max=64)
    vec_env: str = _field("auto", choices=("auto", "dummy", "subproc"))
    #: torch threads of the learner; 1 avoids thread contention with the env workers on small machines.
    torch_threads: int = _field(1, min=1, max=256)
    checkpoint_every: int = _field(50_000, min=1, max=MAX_STEPS)
    #: Deliver the return in pieces, as the changes of ``potential`` after each learner move (same episode
    #: return as the terminal reward; see :mod:`hiddenhand.training.potentials`).
    dense_reward: bool = _field(False)
    #: ``score_margin``, or ``evaluation`` (the game's evaluation hook: expected win/loss reward).
    potential: str = _field("score_margin", choices=POTENTIALS)
    #: A trained agent (shipped name or file) whose policy layers start the run instead of random ones, to
    #: continue it with other settings (``"none"``: a random start). Its layers must fit ``ppo.net_arch``.
    init_from: str = _field("none")
    ppo: PPOConfig = field(default_factory=PPOConfig)
    pool: PoolConfig = field(default_factory=PoolConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    imitation: ImitationConfig = field(default_factory=ImitationConfig)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-serialisable dict; ``config_from_dict`` inverts it. ``init_from`` appears only when set,
        so that runs recorded before it existed resume unchanged."""
        data = dataclasses.asdict(self)
        if data["init_from"] == "none":
            del data["init_from"]
        return data


def presets(folder: Path = PRESET_DIR) -> list[str]:
    """Names of the shipped presets in ``folder`` (by default the SB3 backend's)."""
    return sorted(path.stem for path in folder.glob("*.yaml"))


def config_path(name: str) -> Path:
    """The packaged YAML file of a preset, e.g. ``"david_goliath_quick"``."""
    path = PRESET_DIR / f"{name}.yaml"
    if not path.is_file():
        raise ConfigError(f"no preset named {name!r}; available: {presets()}")
    return path


def read_config_file(path: str | os.PathLike, folder: Path = PRESET_DIR, kind: str = "") -> tuple[Any, str]:
    """The parsed YAML of the file ``path``, or of the preset of that name in ``folder`` (``kind`` names
    the backend in the error), and where it was read."""
    file = Path(path)
    if not file.is_file():
        if str(path) not in presets(folder):
            raise ConfigError(f"config file not found: {str(path)!r}; {kind}presets: {presets(folder)}")
        file = folder / f"{path}.yaml"
    return read_yaml(file, str(file), "config file"), str(file)


def load_config(path: str | os.PathLike) -> TrainConfig:
    """Load and validate a YAML file, or a preset by name."""
    data, source = read_config_file(path)
    return config_from_dict(data, source=source)


def config_from_dict(data: dict[str, Any], source: str = "<dict>") -> TrainConfig:
    """Validate a (parsed YAML) mapping into a :class:`TrainConfig`; ``source`` prefixes errors.

    Besides each key's type and range, the rules between keys that training needs: the pool
    probabilities sum to 1; ``ppo.batch_size`` fits one rollout (``ppo.n_steps * n_envs`` steps) and
    leaves no last minibatch of a single step (its normalised advantage would be NaN); the env options
    build an env that resets; one rollout's buffer stays below ``MAX_ROLLOUT_BYTES``.
    """
    config = _build(TrainConfig, data, "", source)
    pool = config.pool
    total = pool.latest_prob + pool.snapshot_prob + pool.baseline_prob
    if abs(total - 1) > 1e-6:
        raise ConfigError(
            f"{source}: 'pool.latest_prob' + 'pool.snapshot_prob' + 'pool.baseline_prob' "
            f"must sum to 1, got {total:g}"
        )
    if pool.baseline_prob > 0 and not pool.baselines:
        raise ConfigError(f"{source}: 'pool.baselines' must not be empty if pool.baseline_prob > 0")
    ppo, rollout = config.ppo, config.ppo.n_steps * config.n_envs
    if ppo.batch_size > rollout:
        raise ConfigError(f"{source}: 'ppo.batch_size' must be at most one rollout, ppo.n_steps * n_envs = "
                          f"{ppo.n_steps} * {config.n_envs} = {rollout}, got {ppo.batch_size}")
    if rollout % ppo.batch_size == 1:
        raise ConfigError(
            f"{source}: 'ppo.batch_size' = {ppo.batch_size} splits a rollout of {rollout} steps "
            f"(ppo.n_steps * n_envs) into minibatches with one step left over, and a one-step minibatch "
            f"makes PPO's normalised advantage NaN; allowed: a batch size that divides {rollout}, or leaves "
            f"at least 2 over")
    if config.potential not in available(config.game):
        raise ConfigError(f"{source}: 'potential' = {config.potential!r} needs an evaluation hook, which "
                          f"{config.game} has not; allowed: {list(available(config.game))}")
    for key in TRAINING_FORBIDS_ENV:
        if config.env.get(key) is not None:
            raise ConfigError(f"{source}: 'env.{key}' = {_short(config.env[key])} is not allowed in training; "
                              f"allowed: leave it out")
    try:
        env = envs.make(config.game, **config.env)
        env.reset(seed=config.seed)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{source}: invalid 'env' options for game {config.game!r}: {exc}") from None
    except MemoryError:
        raise ConfigError(f"{source}: 'env' options {_short(config.env)} for game {config.game!r} need more "
                          f"memory than there is; choose smaller values") from None
    try:
        load_agent(config.imitation.teacher, env.unwrapped.game)
    except (ConfigError, ValueError) as exc:
        raise ConfigError(f"{source}: 'imitation.teacher' = {_short(config.imitation.teacher)}: {exc}") from None
    if config.init_from != "none":
        _check_init(config, env.unwrapped.game, source)
    agent = env.possible_agents[0]
    width = env.observation_space(agent)["observation"].shape[0] + env.action_space(agent).n
    env.close()
    buffer = rollout * width * 4
    if buffer > MAX_ROLLOUT_BYTES:
        raise ConfigError(f"{source}: a rollout of ppo.n_steps * n_envs = {rollout} steps of {width} floats "
                          f"(observation and action mask) needs {buffer / 2**30:.1f} GiB, more than the "
                          f"{MAX_ROLLOUT_BYTES / 2**30:.0f} GiB allowed; lower 'ppo.n_steps' or 'n_envs'")
    return config


def init_agent(name: str, game: Any, source: str) -> Any:
    """The trained agent an ``init_from`` names, loaded for ``game``; a ``ConfigError`` naming it if it
    does not load or is not a network (a heuristic, a search)."""
    try:
        agent = load_agent(name, game)
    except ValueError as exc:
        raise ConfigError(f"{source}: 'init_from' = {_short(name)}: {exc}") from None
    if getattr(agent, "weights", None) is None:
        raise ConfigError(f"{source}: 'init_from' = {_short(name)} is not a trained agent (an agent file or a "
                          f"shipped network's name)")
    return agent


def _check_init(config: TrainConfig, game: Any, source: str) -> None:
    """``init_from`` loads for the game and its layers are the actor's (``ppo.net_arch``, the actions)."""
    agent = init_agent(config.init_from, game, source)
    shapes = [w.shape[0] for w, _ in agent.weights]
    expected = [*config.ppo.net_arch, game.num_actions]
    if shapes != expected or agent.metadata.get("activation") != config.ppo.activation:
        raise ConfigError(f"{source}: 'init_from' = {_short(config.init_from)} has layers {shapes} with "
                          f"{agent.metadata.get('activation')}; the run's actor has {expected} with "
                          f"{config.ppo.activation} (set ppo.net_arch and ppo.activation to match)")


def with_overrides(config: TrainConfig, overrides: dict[str, Any]) -> TrainConfig:
    """A re-validated copy with dotted keys set: ``{"ppo.n_steps": 512, "env.num_players": 3}``.

    A mapping value replaces the whole section it names.
    """
    return config_from_dict(set_dotted(config.to_dict(), overrides), source="<overrides>")


def set_dotted(data: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """``data`` (a config as a dict) with each dotted key of ``overrides`` set, sections created as needed."""
    for dotted, value in overrides.items():
        *sections, leaf = dotted.split(".")
        node = data
        for section in sections:
            node = node.setdefault(section, {})
            if not isinstance(node, dict):
                raise ConfigError(f"<overrides>: cannot set {dotted!r}: {section!r} is no section")
        node[leaf] = value
    return data


def command_config(args: Any, load: Callable[[str], Any], recorded: Callable[[Path], Any],
                   override: Callable[[Any, dict[str, Any]], Any]) -> Any:
    """The config a ``train`` command names (either backend): ``--config`` loaded with ``load``, or with
    ``--resume --run-dir`` and no ``--config`` the run's ``recorded`` one (``None`` if it has none); then
    the ``--set`` items applied with ``override``. A :class:`ConfigError` says what is missing."""
    if args.force and not args.resume:
        raise ConfigError("--force only applies with --resume")
    if args.config is None:
        if not (args.resume and args.run_dir):
            raise ConfigError("--config is required (only --resume with --run-dir reads the run's recorded config)")
        config = recorded(Path(args.run_dir))
        if config is None:
            raise ConfigError(f"{args.run_dir} records no config: pass --config")
    else:
        config = load(args.config)
    overrides = parse_overrides(args.set)
    return override(config, overrides) if overrides else config


def parse_overrides(items: list[str]) -> dict[str, Any]:
    """The command line's ``--set KEY=VALUE`` items as ``{dotted key: YAML value}``."""
    overrides = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ConfigError(f"--set {item!r}: expected KEY=VALUE")
        try:
            overrides[key] = yaml.safe_load(value)
        except yaml.YAMLError as error:
            raise ConfigError(f"--set {item!r}: the value is not YAML ({error})") from None
    return overrides


def _build(cls: type, data: Any, key: str, source: str) -> Any:
    """Instantiate dataclass ``cls`` from mapping ``data`` found at dotted ``key``."""
    if not isinstance(data, dict):
        where = f"'{key}'" if key else "the top level"
        raise ConfigError(f"{source}: {where} must be a mapping, got {_describe(data)}")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    prefix = f"{key}." if key else ""
    for name in data:
        if name not in fields:
            raise ConfigError(f"{source}: unknown key '{prefix}{name}'; allowed: {list(fields)}")
    hints = get_type_hints(cls)
    values = {}
    for name, f in fields.items():
        if name in data:
            values[name] = _convert(data[name], hints[name], prefix + name, f.metadata, source)
        elif f.default is MISSING and f.default_factory is MISSING:
            raise ConfigError(f"{source}: missing required key '{prefix}{name}'")
    return cls(**values)


def _convert(value: Any, tp: Any, key: str, rules: Any, source: str) -> Any:
    """Check ``value`` against type ``tp`` and ``rules``; return it normalised (int -> float)."""
    if dataclasses.is_dataclass(tp):
        return _build(tp, value, key, source)
    kind = get_origin(tp) or tp
    if kind is list:
        if not isinstance(value, (list, tuple)):
            raise _type_error(value, "list", key, source)
        if rules.get("nonempty") and not value:
            raise ConfigError(f"{source}: '{key}' must not be empty")
        if len(value) > rules.get("max_len", len(value)):
            raise ConfigError(f"{source}: '{key}' may hold at most {rules['max_len']} items, got {len(value)}")
        (item,) = get_args(tp)
        return [_convert(v, item, f"{key}[{i}]", rules, source) for i, v in enumerate(value)]
    if kind is dict:
        if not isinstance(value, dict):
            raise _type_error(value, "a mapping", key, source)
        return dict(value)
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        try:
            value = float(value)
        except OverflowError:
            raise ConfigError(f"{source}: '{key}' must be {_range_text(rules) or 'a finite float'}, "
                              f"got {_short(value)}") from None
    if isinstance(value, bool) != (kind is bool) or not isinstance(value, kind):
        raise _type_error(value, kind.__name__, key, source)
    if kind is float and not math.isfinite(value):
        raise ConfigError(f"{source}: '{key}' must be finite, got {value!r}")
    if kind is str and (not value or len(value) > 200):
        raise ConfigError(f"{source}: '{key}' must be a short non-empty string, got {_short(value)}")
    _check_rules(value, key, rules, source)
    return value


def _check_rules(value: Any, key: str, rules: Any, source: str) -> None:
    if rules.get("agent") and value not in BASELINES and not is_search_spec(value):
        raise ConfigError(f"{source}: '{key}' must be one of {list(BASELINES)} or a search agent spec such as "
                          f"'ismcts:iterations=200', got {_short(value)}")
    choices = rules.get("choices")
    if choices is not None and value not in choices:
        raise ConfigError(f"{source}: '{key}' must be one of {list(choices)}, got {_short(value)}")
    low, high, above = rules.get("min"), rules.get("max"), rules.get("gt")
    if (
        (low is not None and value < low)
        or (above is not None and value <= above)
        or (high is not None and value > high)
    ):
        raise ConfigError(f"{source}: '{key}' must be {_range_text(rules)}, got {value!r}")


def _range_text(rules: Any) -> str:
    """``rules`` bounds in words: ``>= 1``, ``> 0``, ``in [1, 64]``, ``in (0, 1]``."""
    if "gt" not in rules and "min" not in rules:
        return ""
    bracket, low = ("(", rules["gt"]) if "gt" in rules else ("[", rules["min"])
    if "max" in rules:
        return f"in {bracket}{_number(low)}, {_number(rules['max'])}]"
    return f"{'>' if bracket == '(' else '>='} {_number(low)}"


def _number(value: Any) -> str:
    return f"{value:_}" if isinstance(value, int) and abs(value) >= 10_000 else f"{value}"


def _type_error(value: Any, expected: str, key: str, source: str) -> ConfigError:
    message = f"{source}: '{key}' must be {expected}, got {_describe(value)}"
    if expected == "float" and isinstance(value, str) and re.fullmatch(r"[-+\d.]+e[-+]?\d+", value):
        message += " (YAML reads exponents without a '.' such as 3e-4 as strings; write 3.0e-4)"
    return ConfigError(message)


def _describe(value: Any) -> str:
    return f"{type(value).__name__} {_short(value)}"


def _short(value: Any, limit: int = 80) -> str:
    """``repr(value)``, cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."
