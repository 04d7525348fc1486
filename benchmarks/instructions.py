"""Instructions per env step of two revisions, counted by valgrind's callgrind: a figure that load
does not move, for changes too small for the CPU-time A/B to see on a busy machine.

Each revision plays the benchmark's loop (:class:`~.throughput.AECLoop`: random legal play through
``env()``, an observation every step) in a child process under ``valgrind --tool=callgrind``, once with
``--games`` seeded games after ``--warmup`` games and once with the warm-up alone; the difference of
the two instruction counts over the steps of the measured games is the figure (imports, start-up and
the warm-up cancel out; the tree is compiled first, string hashes are fixed, addresses not randomized
and BLAS runs no thread pool, so repeated runs agree closely; ``--repeat`` runs each revision again,
alternating, and compares the medians). Instruction counts and CPU time
disagree where C loops and Python calls trade places (a numpy gather is many cheap instructions), so
confirm a change with :mod:`.ab`.

Run ``python -m hiddenhand.benchmarks.instructions --base main --game rattus --players 4`` (needs
valgrind; a few minutes per revision and case).
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import statistics
import subprocess
import sys

from .revisions import WORKTREE, describe, load, package_folders, source_tree
from .throughput import AECLoop


#: The child's environment: the same string hashes in every run, and BLAS without a thread pool (its idle
#: threads spin a varying number of instructions).
_QUIET = {**os.environ, "PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
          "MKL_NUM_THREADS": "1"}


def play(revision: str, game: str, players: int, warmup: int, games: int) -> int:
    """In the child: ``warmup`` then ``games`` seeded games of ``game``; the steps of the latter."""
    package = load(source_tree(revision), "hiddenhand_measured")
    registry = importlib.import_module(f"{package.__name__}.envs.registry").REGISTRY
    module = importlib.import_module(f"{package.__name__}.envs.{game}_v{registry[game].version}")
    loop = AECLoop(lambda: module.env(num_players=players))
    for _ in range(warmup):
        loop.game()
    before = loop.steps
    for _ in range(games):
        loop.game()
    return loop.steps - before


def count(revision: str, game: str, players: int, warmup: int, games: int) -> tuple[int, int]:
    """(instructions, steps) of ``games`` games after the warm-up, in ``revision``."""
    tree = source_tree(revision)  # compiled first: a module's first import would count its compile
    folders = [str(tree / folder) for folder in package_folders(tree).values()]
    subprocess.run([sys.executable, "-m", "compileall", "-q", *folders], check=True, capture_output=True)
    totals, steps = [], 0
    for measured in (games, 0):
        command = ["setarch", "-R", "valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-m",
                   __spec__.name, "--child", revision, "--game", game, "--players", str(players),
                   "--warmup", str(warmup), "--games", str(measured)]
        done = subprocess.run(command, capture_output=True, text=True, check=True, env=_QUIET)
        totals.append(int(re.search(r"Collected : (\d+)", done.stderr).group(1)))
        steps = steps or int(done.stdout.split()[-1])
    return totals[0] - totals[1], steps


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", default="HEAD", help="revision to count against (default HEAD)")
    parser.add_argument("--head", default=WORKTREE, help=f"revision counted (default {WORKTREE!r}: the files as they are)")
    parser.add_argument("--game", required=True)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--warmup", type=int, default=5, help="games before measuring (caches fill)")
    parser.add_argument("--games", type=int, default=30, help="games measured")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each revision (the median counts)")
    parser.add_argument("--child", metavar="REVISION", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(play(args.child, args.game, args.players, args.warmup, args.games))
        return 0
    runs: dict[str, list[float]] = {"base": [], "head": []}
    for _ in range(args.repeat):  # alternating: repeated runs of one revision differ by up to about 1%
        for role, revision in (("base", args.base), ("head", args.head)):
            instructions, steps = count(revision, args.game, args.players, args.warmup, args.games)
            runs[role].append(instructions / steps)
    for role, revision in (("base", args.base), ("head", args.head)):
        figures = sorted(runs[role])
        print(f"{role}: {describe(revision)}: median {statistics.median(figures) / 1000:.2f}k instructions per "
              f"step ({', '.join(f'{f / 1000:.2f}k' for f in figures)}; {args.games} games)")
    change = statistics.median(runs["head"]) / statistics.median(runs["base"]) - 1
    print(f"change: {100 * change:+.2f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
