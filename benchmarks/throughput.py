"""Environment throughput, side by side with peers measured in the same run.

Random legal play through each env's public API, the same loop for every AEC env: ``last()`` (which
builds the observation), pick a random legal action from the mask, ``step()``. Peers: PettingZoo's
``texas_holdem_v4`` (rlcard) and OpenSpiel's C++ ``leduc_poker`` (with the observation tensor each
step). A second table gives what search agents pay per game (each at its default player count): rules-
engine steps per second without observations (``State.legal_mask`` + ``State.apply``), one
``snapshot()``, one ``restore()`` and one ``determinize()``, averaged over positions spread over
random games. Run: ``python -m hiddenhand bench`` (needs the ``bench`` extra for the peers).
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable

import numpy as np

from hiddenhand.envs import make as make_env
from hiddenhand.envs.registry import REGISTRY

#: (label, game, env options) of the hiddenhand envs measured: each registry entry's bench line-up.
HIDDENHAND_CASES = [(f"{name} {n}p", name, {"num_players": n})
                    for name, entry in REGISTRY.items() for n in entry.bench_players]
REFERENCE = "pettingzoo texas_holdem_v4"


def measure_aec(make: Callable[[], object], seconds: float, seed: int = 0) -> tuple[int, int, float]:
    """Play random legal games until ``seconds`` pass; returns (steps, games, elapsed seconds)."""
    env = make()
    pick = random.Random(seed).random
    steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(seed=seed + games)
        for _ in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                action = None
            else:
                legal = np.flatnonzero(observation["action_mask"])
                action = int(legal[int(pick() * len(legal))])
            env.step(action)
            steps += 1
        games += 1
    return steps, games, time.perf_counter() - start


def measure_openspiel(name: str, seconds: float, seed: int = 0) -> tuple[int, int, float]:
    """The same loop for an OpenSpiel game: observation tensor of the mover, random legal action."""
    import pyspiel

    game = pyspiel.load_game(name)
    pick = random.Random(seed).random
    steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(pick() * len(outcomes))][0])
            else:
                state.observation_tensor(state.current_player())
                legal = state.legal_actions()
                state.apply_action(legal[int(pick() * len(legal))])
            steps += 1
        games += 1
    return steps, games, time.perf_counter() - start


def measure_engine(game: str, options: dict, seconds: float, seed: int = 0) -> tuple[int, int, float]:
    """Random legal play on the rules engine alone: ``legal_mask`` and ``apply``, no observations."""
    env = make_env(game, **options)
    rules = env.unwrapped.game
    rng = np.random.default_rng(seed)
    pick = random.Random(seed).random
    steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = rules.new_initial_state(rng)
        while not state.is_terminal:
            legal = np.flatnonzero(state.legal_mask())
            state.apply(int(legal[int(pick() * len(legal))]), rng)
            steps += 1
        games += 1
    return steps, games, time.perf_counter() - start


def measure_search_costs(game: str, options: dict, positions: int = 12, seed: int = 0) -> dict:
    """Mean milliseconds of one snapshot(), restore() and determinize() over positions of random games."""
    from hiddenhand.envs.registry import entry

    timings = {"snapshot_ms": [], "restore_ms": [], "determinize_ms": []}
    rng = np.random.default_rng(seed)
    for k in range(positions):
        env = make_env(game, **options)
        env.reset(seed=seed + k)
        raw = env.unwrapped
        for _ in range(int(rng.integers(0, 40 * entry(game).default_players))):
            legal = raw.legal_actions()
            if not legal:
                break
            env.step(int(rng.choice(legal)))
        if not raw.legal_actions():
            continue
        begin = time.perf_counter()
        snapshot = raw.snapshot()
        timings["snapshot_ms"].append(time.perf_counter() - begin)
        begin = time.perf_counter()
        raw.restore(snapshot)
        timings["restore_ms"].append(time.perf_counter() - begin)
        for agent in env.possible_agents:
            begin = time.perf_counter()
            raw.determinize(agent, seed=k)
            timings["determinize_ms"].append(time.perf_counter() - begin)
    return {key: 1000 * sum(values) / len(values) for key, values in timings.items()}


def run_search_costs(seconds: float) -> list[dict]:
    from hiddenhand.envs.registry import REGISTRY

    rows = []
    for name, entry in REGISTRY.items():
        options = {"num_players": entry.default_players}
        steps, games, elapsed = measure_engine(name, options, seconds)
        rows.append({"env": f"{name} {entry.default_players}p", "engine_steps_per_s": steps / elapsed,
                     **measure_search_costs(name, options)})
    return rows


def format_search_table(rows: list[dict]) -> str:
    lines = [f"{'rules engine (no observations)':<32}{'steps/s':>12}{'snapshot':>10}{'restore':>10}{'determinize':>13}"]
    for row in rows:
        lines.append(f"{row['env']:<32}{row['engine_steps_per_s']:>12,.0f}{row['snapshot_ms']:>8.3f}ms"
                     f"{row['restore_ms']:>8.3f}ms{row['determinize_ms']:>11.3f}ms")
    return "\n".join(lines)


def run(seconds: float) -> list[dict]:
    rows = []

    def record(label: str, measure: Callable[[], tuple[int, int, float]]) -> None:
        try:
            steps, games, elapsed = measure()
        except ImportError as error:
            print(f"{label}: skipped ({error}; install hiddenhand[bench])")
            return
        rows.append({"env": label, "steps_per_s": steps / elapsed, "games_per_s": games / elapsed})

    def texas():
        from pettingzoo.classic import texas_holdem_v4

        return measure_aec(texas_holdem_v4.env, seconds)

    record(REFERENCE, texas)
    record("openspiel leduc_poker (C++)", lambda: measure_openspiel("leduc_poker", seconds))
    for label, game, options in HIDDENHAND_CASES:
        record(label, lambda game=game, options=options: measure_aec(lambda: make_env(game, **options), seconds))
    reference = next((row["steps_per_s"] for row in rows if row["env"] == REFERENCE), None)
    for row in rows:
        row["x_texas"] = row["steps_per_s"] / reference if reference else None
    return rows


def format_table(rows: list[dict]) -> str:
    lines = [f"{'env':<32}{'steps/s':>12}{'games/s':>10}{'x texas':>9}"]
    for row in rows:
        ratio = f"{row['x_texas']:.1f}" if row["x_texas"] is not None else "-"
        lines.append(f"{row['env']:<32}{row['steps_per_s']:>12,.0f}{row['games_per_s']:>10,.1f}{ratio:>9}")
    return "\n".join(lines)


def main(seconds: float = 3.0, json_path: str | None = None) -> int:
    rows = run(seconds)
    print(format_table(rows))
    search = run_search_costs(seconds)
    print()
    print(format_search_table(search))
    if json_path:
        with open(json_path, "w") as handle:
            json.dump({"throughput": rows, "search_costs": search}, handle, indent=2)
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--json", default=None, help="also write the figures to this file")
    options = parser.parse_args()
    raise SystemExit(main(options.seconds, options.json))
