"""Golden playthroughs, in the manner of OpenSpiel's: seeded random games recorded as text.

Each file holds one game: the options, then every step's mover, legal actions, chosen action and, per
player, a short hash of each observation block that changed since that player's previous line; the
rewards, scores and winners at the end. Any behaviour change shows up as a readable diff.

Regenerate after an intended change (and review the diff)::

    python tests/golden/playthrough.py            # every registered game
    python tests/golden/playthrough.py koehandel  # one game
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def _digest(values: np.ndarray) -> str:
    return hashlib.blake2b(np.ascontiguousarray(values).tobytes(), digest_size=4).hexdigest()


def record(game: str, options: dict, seed: int) -> str:
    """The text of one seeded random game of ``game`` with env ``options``."""
    from hiddenhand.envs import make

    env = make(game, render_mode="ansi", **options)
    env.reset(seed=seed)
    raw = env.unwrapped
    layout = raw.observer.layout
    rng = np.random.default_rng(seed)
    seen: dict[str, dict[str, str]] = {agent: {} for agent in env.possible_agents}
    lines = [f"game: {game}", f"options: {sorted(options.items())}", f"seed: {seed}", "", env.render(), ""]
    step, ends = 0, {}
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            ends[agent] = (reward, truncation, info)
            env.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        action = int(rng.choice(legal))
        lines.append(f"step {step} {agent} legal {' '.join(map(str, legal))} -> {action} "
                     f"{raw.game.action_to_string(action)}")
        for viewer in env.possible_agents:
            blocks = layout.views(env.observe(viewer)["observation"])
            digests = {name: _digest(block) for name, block in blocks.items()}
            changed = [f"{name}={d}" for name, d in digests.items() if seen[viewer].get(name) != d]
            seen[viewer] = digests
            if changed:
                lines.append(f"  {viewer}: {' '.join(changed)}")
        env.step(action)
        step += 1
    final = ends[env.possible_agents[0]][2]
    lines += ["", env.render(), "",
              f"rewards: {[ends[a][0] for a in env.possible_agents]}",
              f"truncated: {[ends[a][1] for a in env.possible_agents]}",
              f"scores: {[final['scores'][a] for a in env.possible_agents]}",
              f"winners: {final['winners']}", ""]
    return "\n".join(lines)


def path_of(game: str, index: int) -> Path:
    return HERE / f"{game}_{index}.txt"


def cases(games: list[str] | None = None) -> list[tuple[str, int, dict, int]]:
    """(game, index, options, seed) of every recorded playthrough."""
    from hiddenhand.envs.registry import REGISTRY

    return [(name, index, dict(options), seed)
            for name, entry in REGISTRY.items() if not games or name in games
            for index, (options, seed) in enumerate(entry.golden)]


def main(argv: list[str]) -> int:
    for game, index, options, seed in cases(argv):
        path = path_of(game, index)
        path.write_text(record(game, options, seed))
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
