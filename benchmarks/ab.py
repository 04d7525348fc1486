"""CPU-time A/B of two revisions: the benchmark's env loop, interleaved in one process.

Both revisions are imported side by side (:mod:`.revisions`); each case (game, player count) runs
:class:`~.throughput.AECLoop` (random legal play through ``env()``, an observation every step) in
both, and PettingZoo's ``texas_holdem_v4`` runs alongside as the yardstick of ``make bench``. The
loops take turns in short rounds (base first in even rounds, head first in odd ones) and are timed
in CPU seconds of this process, so load that comes and goes during the run slows both revisions
alike. Reported per case: microseconds per step of each revision over the whole run and in its best
round, the change, and × texas. The load average before and after says how busy the machine was.

Run ``python -m hiddenhand.benchmarks.ab --base main --game rattus --players 4`` (or
``make ab BASE=main``).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from .revisions import WORKTREE, describe, load, source_tree
from .throughput import AECLoop


class Timed:
    """An :class:`AECLoop` that also keeps its best round (fewest microseconds per step)."""

    def __init__(self, make):
        self.loop = AECLoop(make)
        self.best = float("inf")

    def play(self, seconds: float) -> None:
        steps, elapsed = self.loop.steps, self.loop.seconds
        self.loop.play(seconds)
        self.best = min(self.best, 1e6 * (self.loop.seconds - elapsed) / max(1, self.loop.steps - steps))

    @property
    def us_per_step(self) -> float:
        return 1e6 * self.loop.seconds / max(1, self.loop.steps)


def run(base: str, head: str, games: list[str], players: list[int], seconds: float, rounds: int) -> str:
    packages = [load(source_tree(base), "hiddenhand_base"), load(source_tree(head), "hiddenhand_head")]
    registry = importlib.import_module(f"{packages[1].__name__}.envs.registry").REGISTRY
    loops: dict[tuple[str, int], list[Timed]] = {}
    for game in games or list(registry):
        entry = registry[game]
        for n in players or entry.bench_players:
            modules = [importlib.import_module(f"{package.__name__}.envs.{game}_v{entry.version}") for package in packages]
            loops[game, n] = [Timed(lambda module=module, n=n: module.env(num_players=n)) for module in modules]
    texas = Timed(_texas)
    load_before = os.getloadavg()
    for number in range(rounds):
        texas.play(seconds / rounds)
        for pair in loops.values():
            for timed in pair if number % 2 == 0 else pair[::-1]:
                timed.play(seconds / rounds)
    load_after = os.getloadavg()
    lines = [f"base: {describe(base)}", f"head: {describe(head)}",
             f"{rounds} interleaved rounds, {seconds:g} CPU s per loop; load average {load_before[0]:.2f} before, "
             f"{load_after[0]:.2f} after, on {os.cpu_count()} CPUs",
             f"texas_holdem_v4: {texas.us_per_step:.2f} us/step (best round {texas.best:.2f})",
             f"{'case':<20}{'base us/step':>14}{'head us/step':>14}{'change':>9}{'best base':>11}{'best head':>11}"
             f"{'x texas base':>14}{'x texas head':>14}"]
    for (game, n), (a, b) in loops.items():
        lines.append(f"{f'{game} {n}p':<20}{a.us_per_step:>14.2f}{b.us_per_step:>14.2f}"
                     f"{100 * (b.us_per_step / a.us_per_step - 1):>+8.1f}%{a.best:>11.2f}{b.best:>11.2f}"
                     f"{texas.us_per_step / a.us_per_step:>14.2f}{texas.us_per_step / b.us_per_step:>14.2f}")
    return "\n".join(lines)


def _texas():
    from pettingzoo.classic import texas_holdem_v4

    return texas_holdem_v4.env()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", default="HEAD", help="revision to measure against (default HEAD)")
    parser.add_argument("--head", default=WORKTREE, help=f"revision measured (default {WORKTREE!r}: the files as they are)")
    parser.add_argument("--game", action="append", default=[], help="a registered game (repeatable; default all)")
    parser.add_argument("--players", type=int, action="append", default=[],
                        help="a player count (repeatable; default the registry's bench counts)")
    parser.add_argument("--seconds", type=float, default=10.0, help="CPU seconds per loop in all")
    parser.add_argument("--rounds", type=int, default=10, help="turns each loop takes")
    args = parser.parse_args(argv)
    print(run(args.base, args.head, args.game, args.players, args.seconds, args.rounds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
