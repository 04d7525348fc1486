"""Cost of ``determinize()`` over positions at every stage of the game, per player count.

For each player count, seeded games (random play, or with ``--policy heuristic`` the game's heuristic
in every seat) are played to the end once to learn their length, then replayed and stopped at
positions spread uniformly over them; at each stop one seat (drawn at random)
gets a re-dealt copy, timed in CPU time of this process (``time.process_time``: figures that hold on a
shared, busy machine). Prints median, p99 and max milliseconds per player count, how many copies were
drawn approximately (Koehandel: past the re-deal's work budget, docs/koehandel_rules.md Appendix C),
and the slowest positions (seed, step, seat) so they can be replayed. Run:
``python -m benchmarks.determinize --game koehandel --calls 2000``. Koehandel's median, p99 and max at 4-6
players, random and heuristic play, with the re-deal's work budget and without, are in
docs/koehandel_rules.md Appendix C.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from hiddenhand.agents import load as load_agent
from hiddenhand.envs import make as make_env


def positions(game: str, players: int, count: int, seed: int, per_game: int = 20, policy: str = "random"):
    """Yield (env, label) at ``count`` positions of seeded games played by ``policy`` ("random" or an
    agent name, e.g. "heuristic", in every seat), ``per_game`` stops a game."""
    taken = 0
    game_seed = seed
    while taken < count:
        env = make_env(game, num_players=players)
        raw = env.unwrapped
        length = 0
        for move in _moves(env, game_seed, policy):
            move()
            length += 1
        want = min(per_game, count - taken, length)
        stops = set(np.random.default_rng(game_seed + 1).choice(length, size=want, replace=False).tolist())
        for step, move in enumerate(_moves(env, game_seed, policy)):
            if step in stops:
                yield env, (game_seed, step)
                taken += 1
            move()
        game_seed += 1


def _moves(env, seed: int, policy: str):
    """From a reset with ``seed``: a function playing the next move, until the game ends (same moves
    for the same seed)."""
    raw = env.unwrapped
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    agents = None
    if policy != "random":
        agents = [load_agent(policy, raw.game, seed=seed + seat) for seat in range(len(raw.possible_agents))]
    while raw.legal_actions():
        if agents is None:
            action = int(rng.choice(raw.legal_actions()))
        else:
            observation = env.observe(raw.agent_selection)
            agent = agents[raw.possible_agents.index(raw.agent_selection)]
            action = int(agent.act(observation["observation"], observation["action_mask"]))
        yield lambda action=action: env.step(action)


def measure(game: str, players: int, calls: int, seed: int = 0, policy: str = "random") -> dict:
    pick = np.random.default_rng(seed + players)
    times, where, approximate = [], [], 0
    for env, label in positions(game, players, calls, seed=seed + 1000 * players, policy=policy):
        raw = env.unwrapped
        seat = int(pick.integers(players))
        begin = time.process_time()
        copy = raw.determinize(raw.possible_agents[seat], seed=len(times))
        times.append(1000 * (time.process_time() - begin))
        where.append((*label, seat))
        approximate += bool(getattr(copy, "redeal_is_approximate", False))
    ms = np.array(times)
    slowest = [where[i] for i in np.argsort(ms)[::-1][:3]]
    return {"players": players, "calls": len(times), "median_ms": float(np.median(ms)),
            "p99_ms": float(np.percentile(ms, 99)), "max_ms": float(ms.max()), "approximate": approximate,
            "slowest": [(*w, round(float(times[where.index(w)]), 1)) for w in slowest]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--game", default="koehandel")
    parser.add_argument("--calls", type=int, default=2000, help="calls in all, split over the player counts")
    parser.add_argument("--players", type=int, nargs="*", default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--policy", default="random", help="who plays the games: random, or an agent name "
                        "such as heuristic (in every seat)")
    parser.add_argument("--json", default=None, help="also write the figures to this file")
    options = parser.parse_args()
    from hiddenhand.envs.registry import entry

    game_entry = entry(options.game)
    counts = options.players or list(game_entry.player_counts)
    rows = []
    print(f"{'players':>7}{'calls':>7}{'median':>10}{'p99':>10}{'max':>10}{'approx':>8}  slowest (game seed, step, "
          f"seat, ms)")
    for players in counts:
        row = measure(options.game, players, options.calls // len(counts), options.seed, options.policy)
        rows.append(row)
        print(f"{players:>7}{row['calls']:>7}{row['median_ms']:>8.2f}ms{row['p99_ms']:>8.1f}ms"
              f"{row['max_ms']:>8.1f}ms{row['approximate']:>8}  {row['slowest']}", flush=True)
    if options.json:
        with open(options.json, "w") as handle:
            json.dump(rows, handle, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
