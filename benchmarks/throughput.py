"""Environment throughput, side by side with peers measured in the same run.

Random legal play through each env's public API, the same loop for every AEC env: ``last()`` (which
builds the observation), pick a random legal action from the mask (``mask.nonzero()``: the harness's own
cost, the same for every env, kept small), ``step()``. Peers: PettingZoo's
``texas_holdem_v4`` (rlcard) and OpenSpiel's C++ ``leduc_poker`` (with the observation tensor each
step). The envs take turns in short rounds (each env's share of ``seconds`` split over ``rounds``) and
are timed in CPU seconds of this process, so a machine whose load drifts during the run slows every
env alike and the ratios to texas stay comparable; the loops are single-threaded. A second table gives what search agents pay per game (each at its default player count): rules-
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
#: CPU seconds of this process: what the single-threaded loops spend, whatever else the machine runs.
clock = time.process_time


class AECLoop:
    """Random legal play on one env, resumable: :meth:`play` runs whole games for a time budget."""

    def __init__(self, make: Callable[[], object], seed: int = 0):
        self.env = make()
        self.pick = random.Random(seed).random
        self.seed = seed
        self.steps = self.games = 0
        self.seconds = 0.0

    def play(self, seconds: float) -> None:
        """Whole games until ``seconds`` of CPU time are spent."""
        start = clock()
        while clock() - start < seconds:
            self.game()
        self.seconds += clock() - start

    def game(self) -> None:
        """One seeded game (the seeds follow each other from the loop's)."""
        env, pick = self.env, self.pick
        env.reset(seed=self.seed + self.games)
        for _ in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                action = None
            else:
                legal = observation["action_mask"].nonzero()[0]
                action = int(legal[int(pick() * len(legal))])
            env.step(action)
            self.steps += 1
        self.games += 1


def measure_aec(make: Callable[[], object], seconds: float, seed: int = 0) -> tuple[int, int, float]:
    """Play random legal games for ``seconds`` of CPU time; returns (steps, games, CPU seconds)."""
    loop = AECLoop(make, seed)
    loop.play(seconds)
    return loop.steps, loop.games, loop.seconds


def measure_openspiel(name: str, seconds: float, seed: int = 0) -> tuple[int, int, float]:
    """The same loop for an OpenSpiel game: observation tensor of the mover, random legal action."""
    import pyspiel

    game = pyspiel.load_game(name)
    pick = random.Random(seed).random
    steps = games = 0
    start = clock()
    while clock() - start < seconds:
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
    return steps, games, clock() - start


def measure_engine(game: str, options: dict, seconds: float, seed: int = 0) -> tuple[int, int, float]:
    """Random legal play on the rules engine alone: ``legal_mask`` and ``apply``, no observations."""
    env = make_env(game, **options)
    rules = env.unwrapped.game
    rng = np.random.default_rng(seed)
    pick = random.Random(seed).random
    steps = games = 0
    start = clock()
    while clock() - start < seconds:
        state = rules.new_initial_state(rng)
        while not state.is_terminal:
            legal = state.legal_mask().nonzero()[0]
            state.apply(int(legal[int(pick() * len(legal))]), rng)
            steps += 1
        games += 1
    return steps, games, clock() - start


def measure_search_costs(game: str, options: dict, positions: int = 12, seed: int = 0) -> dict:
    """Mean milliseconds of one snapshot(), restore() and determinize() over positions of random games."""
    from hiddenhand.envs.registry import entry

    timings = {"snapshot_ms": [], "restore_ms": [], "determinize_ms": []}
    rng = np.random.default_rng(seed)
    for k in range(positions):
        env = make_env(game, **options)
        env.reset(seed=seed + k)
        raw = env.unwrapped
        moves = []
        for _ in range(int(rng.integers(0, 40 * entry(game).default_players))):
            legal = raw.legal_actions()
            if not legal:
                break
            moves.append(int(rng.choice(legal)))
            env.step(moves[-1])
        if not raw.legal_actions():  # the game ended first (a short game): the position before its last move
            env.reset(seed=seed + k)
            for move in moves[:-1]:
                env.step(move)
        begin = clock()
        snapshot = raw.snapshot()
        timings["snapshot_ms"].append(clock() - begin)
        begin = clock()
        raw.restore(snapshot)
        timings["restore_ms"].append(clock() - begin)
        for agent in env.possible_agents:
            begin = clock()
            raw.determinize(agent, seed=k)
            timings["determinize_ms"].append(clock() - begin)
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


def run(seconds: float, rounds: int = 5) -> list[dict]:
    """Steps/s of texas, leduc and every hiddenhand case, ``seconds`` of CPU time each, interleaved."""
    loops, rows = {}, []

    def texas():
        from pettingzoo.classic import texas_holdem_v4

        return texas_holdem_v4.env()

    for label, make in [(REFERENCE, texas)] + [
            (label, lambda game=game, options=options: make_env(game, **options))
            for label, game, options in HIDDENHAND_CASES]:
        try:
            loops[label] = AECLoop(make)
        except ImportError as error:
            print(f"{label}: skipped ({error}; install hiddenhand[bench])")
    leduc = {"steps": 0, "games": 0, "seconds": 0.0}
    for _ in range(rounds):
        for loop in loops.values():
            loop.play(seconds / rounds)
        try:
            for key, value in zip(leduc, measure_openspiel("leduc_poker", seconds / rounds)):
                leduc[key] += value
        except ImportError as error:
            print(f"openspiel leduc_poker: skipped ({error}; install hiddenhand[bench])")
            leduc = None
            break
    for label, loop in loops.items():
        rows.append({"env": label, "steps_per_s": loop.steps / loop.seconds, "games_per_s": loop.games / loop.seconds})
    if leduc:
        rows.insert(1, {"env": "openspiel leduc_poker (C++)", "steps_per_s": leduc["steps"] / leduc["seconds"],
                        "games_per_s": leduc["games"] / leduc["seconds"]})
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


def main(seconds: float = 3.0, json_path: str | None = None, rounds: int = 5) -> int:
    rows = run(seconds, rounds)
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
    parser.add_argument("--rounds", type=int, default=5, help="turns each env takes (interleaved)")
    parser.add_argument("--json", default=None, help="also write the figures to this file")
    options = parser.parse_args()
    raise SystemExit(main(options.seconds, options.json, options.rounds))
