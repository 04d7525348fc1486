"""The expert-iteration loop: search plays, the network learns the search's visit shares and values, and
the next iteration's search reads the network (its prior and its leaf values).

    python -m hiddenhand train david_goliath --backend expert --config david_goliath --run-dir runs/dg_expert

Iteration ``k`` (1-based) plays ``self_play.games`` games over ``self_play.workers`` processes: iteration
1 with ``search`` (no network yet; with ``init_from`` the network starts from that agent's policy and
iteration 1 already searches with it), the later ones with ``guided_search`` reading the network of the
previous iteration (with ``self_play.plays: network`` that network moves instead and the search only
labels its decisions: DAgger). Every decision of a searching seat with a choice is kept: the observation, the legal
mask, the search's visit shares (``last_policy``) and value (``last_value``), and the seat's final
win/loss reward. The network is then fitted to the positions of the last ``fit.window`` iterations and
checkpointed with them (``network.npz``, an agent file with a value head; ``parameters.npz``, the
torch parameters; ``positions.npz``), so an
interrupted run resumes at the iteration it was in and plays the same games (each game's seed depends on
the run's seed, the iteration and the game's index only). The run's agent (``agent.npz``) is the network:
its policy plays alone as any agent file, and ``puct:network=<file>`` searches with it.
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import torch

from hiddenhand.agents import Agent, bind_agents, load, load_policy, play_decisions, save_policy
from hiddenhand.envs import make as make_env
from hiddenhand.envs.core.game import INPUT_TRANSFORMS
from hiddenhand.envs.core.rewards import winner_rewards

from ..runs import Checkpoints, TrainResult, begin_run, evaluate_policy, export_agent, library_versions, open_run
from .config import RESUMABLE, ExpertConfig
from .network import PolicyValueNet, export, fit, load_arrays, parameters_as_arrays, start_policy_from

CHECKPOINT_FILES = ("network.npz", "parameters.npz", "positions.npz")
FIELDS = ("observations", "masks", "policies", "search_values", "outcomes")


# ------------------------------------------------------------------------------------- self-play games
class NetworkPlays(Agent):
    """The network moves; the search labels every decision (``self_play.plays: network``, DAgger)."""

    name = "network_labelled_by_search"

    def __init__(self, search: Agent, network: Agent):
        self.search, self.network = search, network

    def reset(self, seed: int | None = None) -> None:
        self.search.reset(seed)
        self.network.reset(seed)

    def bind(self, env, agent_id: str) -> None:
        self.search.bind(env, agent_id)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        self.search.act(observation, action_mask)  # sets the label: last_policy, last_value
        return self.network.act(observation, action_mask)

    @property
    def last_policy(self) -> np.ndarray | None:
        return self.search.last_policy

    @property
    def last_value(self) -> float | None:
        return self.search.last_value


def game_rng(config: ExpertConfig, iteration: int, index: int) -> np.random.Generator:
    """The generator of one game: a function of the run's seed, the iteration and the game's index."""
    return np.random.default_rng([config.seed, iteration, index])


def play_games(config: ExpertConfig, network: str | None, iteration: int, indices: Sequence[int]) -> dict[str, Any]:
    """Play the games ``indices`` of ``iteration`` and return the searching seats' decisions (``FIELDS``)
    and the CPU seconds spent (``cpu_s``). Runs in a worker process."""
    started = time.process_time()
    env = make_env(config.game, **config.env)
    raw = env.unwrapped
    game, n = raw.game, raw.game.num_players
    transform = INPUT_TRANSFORMS[raw.observer.policy_input]
    spec, options = config.teacher(network)
    searchers = [load(spec, game, **options) for _ in range(n)]
    if network is not None and config.self_play.plays == "network":
        searchers = [NetworkPlays(searcher, load_policy(network)) for searcher in searchers]
    baselines = {name: [load(name, game) for _ in range(n)] for name in config.self_play.baselines}
    rows: dict[str, list] = {key: [] for key in FIELDS}
    for index in indices:
        rng = game_rng(config, iteration, index)
        searching = [seat == index % n or rng.random() >= config.self_play.baseline_prob for seat in range(n)]
        names = [str(rng.choice(config.self_play.baselines)) for _ in range(n)]
        agents = [searchers[seat] if searching[seat] else baselines[names[seat]][seat] for seat in range(n)]
        for agent in agents:
            agent.reset(seed=int(rng.integers(2**63)))
        env.reset(seed=int(rng.integers(2**63)))
        bind_agents(env, agents)
        seats = []
        for agent_id, observation, _ in play_decisions(env, agents):
            seat = raw.possible_agents.index(agent_id)
            if searching[seat] and agents[seat].last_policy is not None:
                rows["observations"].append(transform(observation["observation"]))
                rows["masks"].append(observation["action_mask"].astype(bool))
                rows["policies"].append(agents[seat].last_policy.astype(np.float32))
                rows["search_values"].append(agents[seat].last_value)
                seats.append(seat)
        final = winner_rewards(raw.state_.winners(), n)
        rows["outcomes"] += [final[seat] for seat in seats]
    data = {key: np.asarray(rows[key], np.float32 if key != "masks" else bool) for key in FIELDS}
    if not rows["observations"]:  # keep the shapes of an empty batch
        size, actions = raw.observer.layout.size, game.num_actions
        data.update(observations=np.zeros((0, size), np.float32), masks=np.zeros((0, actions), bool),
                    policies=np.zeros((0, actions), np.float32))
    return {**data, "cpu_s": time.process_time() - started}


def self_play(pool: ProcessPoolExecutor | None, config: ExpertConfig, network: str | None,
              iteration: int) -> tuple[dict[str, np.ndarray], float]:
    """One iteration's games over the workers (in this process without a pool); (decisions, CPU seconds)."""
    games, workers = config.self_play.games, config.self_play.workers
    chunks = [range(start, games, workers) for start in range(min(workers, games))]
    if pool is None:
        parts = [play_games(config, network, iteration, chunk) for chunk in chunks]
    else:
        parts = list(pool.map(play_games, [config] * len(chunks), [network] * len(chunks),
                              [iteration] * len(chunks), chunks))
    return {key: np.concatenate([part[key] for part in parts]) for key in FIELDS}, sum(p["cpu_s"] for p in parts)


# ------------------------------------------------------------------------------------- checkpoints
def write_checkpoint(folder: Path, net: PolicyValueNet, metadata: dict[str, Any],
                     window: list[dict[str, np.ndarray]]) -> None:
    policy, value = export(net)
    save_policy(folder / "network.npz", policy, metadata, value)
    with open(folder / "parameters.npz", "wb") as handle:
        np.savez(handle, **parameters_as_arrays(net))
    arrays = {f"{key}_{i}": part[key] for i, part in enumerate(window) for key in FIELDS}
    with open(folder / "positions.npz", "wb") as handle:
        np.savez_compressed(handle, **arrays)


def load_checkpoint(path: Path, net: PolicyValueNet) -> tuple[list[dict[str, np.ndarray]], dict[str, Any]]:
    """Set ``net`` from the checkpoint's parameters; (the window of positions, the progress record)."""
    load_policy(path / "network.npz")  # the workers' file must load too
    with np.load(path / "parameters.npz", allow_pickle=False) as data:
        load_arrays(net, {key: data[key] for key in data.files})
    with np.load(path / "positions.npz", allow_pickle=False) as data:
        count = len({key.rsplit("_", 1)[1] for key in data.files})
        window = [{key: data[f"{key}_{i}"] for key in FIELDS} for i in range(count)]
    return window, Checkpoints.progress(path)


def fit_targets(window: list[dict[str, np.ndarray]], value_mix: float) -> dict[str, np.ndarray]:
    """The window's positions as training targets (value: outcome and search value mixed)."""
    data = {key: np.concatenate([part[key] for part in window]) for key in FIELDS}
    values = (1 - value_mix) * data.pop("outcomes") + value_mix * data.pop("search_values")
    return {**data, "values": values.astype(np.float32)}


# ------------------------------------------------------------------------------------- main entry
def expert_metadata(config: ExpertConfig, name: str | None) -> dict[str, Any]:
    env = make_env(config.game, **config.env).unwrapped
    players = env.game.num_players
    return {"name": name or f"{config.game}_{players}p", "game": config.game, "num_players": players,
            "env_options": dict(config.env), "activation": config.network.activation,
            "input_transform": env.observer.policy_input, "backend": "expert"}


def train(config: ExpertConfig, run_dir: str | Path, resume: bool = False, progress: bool = True,
          name: str | None = None, overwrite: bool = False, force: bool = False) -> TrainResult:
    """Run (or resume) expert iteration; writes ``agent.npz`` (policy and value head) and ``agent.md``."""
    run_dir = Path(run_dir)
    checkpoints, done = begin_run(run_dir, CHECKPOINT_FILES, config.to_dict(), config.iterations, resume=resume,
                                  overwrite=overwrite, force=force, resumable=RESUMABLE)
    if done:
        return done
    torch.manual_seed(config.seed)
    torch.set_num_threads(config.torch_threads)
    metadata = expert_metadata(config, name)
    env = make_env(config.game, **config.env).unwrapped
    net = PolicyValueNet(env.observer.layout, env.game.num_actions, config.network)
    if config.first_network() is not None:
        start_policy_from(net, load(config.first_network(), env.game).weights)
    loaded = open_run(run_dir, checkpoints, config.to_dict(), resume=resume, overwrite=overwrite,
                      load=lambda path: load_checkpoint(path, net))
    window, record = loaded if loaded is not None else ([], {"num_timesteps": 0, "wall_time_s": 0.0})
    iteration = record["num_timesteps"]
    wall, cpu = float(record["wall_time_s"]), float(record.get("cpu_time_s", 0.0))
    history: list[dict[str, Any]] = list(record.get("history", []))
    latest = checkpoints.latest() if iteration else None
    workers = config.self_play.workers
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) if workers > 1 else None
    try:
        while iteration < config.iterations:
            started, cpu_started = time.perf_counter(), time.process_time()
            network = str(latest / "network.npz") if latest is not None else config.first_network()
            data, worker_cpu = self_play(pool, config, network, iteration + 1)
            iteration += 1
            window = (window + [data])[-config.fit.window:]
            report = fit(net, fit_targets(window, config.fit.value_mix), config.fit, seed=config.seed + iteration)
            cpu += time.process_time() - cpu_started + (worker_cpu if pool is not None else 0.0)
            wall += time.perf_counter() - started
            row = {"iteration": iteration, "positions": int(len(data["masks"])), "cpu_time_s": round(cpu, 1),
                   **{key: round(value, 4) for key, value in report.items()}}
            if config.eval.every and iteration % config.eval.every == 0 or iteration == config.iterations:
                row["evaluation"] = evaluate_policy(export(net)[0], metadata, config)
            history.append(row)
            if progress:
                print(_describe(row), flush=True)
            latest = checkpoints.save(iteration, lambda folder: write_checkpoint(folder, net, metadata, window),
                                      {"wall_time_s": wall, "cpu_time_s": cpu, "history": history})
    finally:
        if pool is not None:
            pool.shutdown()
    policy, value = export(net)
    metadata.update({
        "timesteps": iteration, "wall_time_s": round(wall, 1), "cpu_time_s": round(cpu, 1),
        "positions": int(sum(row["positions"] for row in history)), "training_config": config.to_dict(),
        "libraries": library_versions(("torch",)), "history": history,
        "evaluation_during_training": history[-1].get("evaluation", {}) if history else {},
    })
    result = export_agent(run_dir, policy, metadata, value)
    print(f"expert iteration: {iteration} iterations in {wall:.0f}s ({cpu / 60:.1f} CPU-minutes); "
          f"agent: {result.agent_path}")
    return result


def _describe(row: dict[str, Any]) -> str:
    text = (f"iteration {row['iteration']}: {row['positions']} positions, policy loss {row['policy_loss']:.3f}, "
            f"value loss {row['value_loss']:.3f}, agrees with the search on {row['agreement']:.1%}; "
            f"{row['cpu_time_s'] / 60:.1f} CPU-minutes so far")
    for opponent, result in row.get("evaluation", {}).items():
        low, high = result["ci95"]
        text += f"; vs {opponent} {result['win_rate']:.1%} [{low:.1%}, {high:.1%}]"
    return text
