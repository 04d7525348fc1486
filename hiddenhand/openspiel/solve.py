"""Exact analysis of the tiny configurations with OpenSpiel's solvers.

:func:`solve` runs CFR, CFR+ or external-sampling MCCFR on OpenSpiel's cached copy of a game's tree (the
bridge's states are Python; the cache makes later iterations run in C++) and records NashConv against
iterations and CPU time. :func:`nash_conv` measures any policy (an agent's, see :mod:`.policies`) on the
same game. NashConv is the sum over players of what a best response gains against the policy; the
exploitability is NashConv divided by the number of players.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pyspiel
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import exploitability

ALGORITHMS = ("cfr", "cfr+", "mccfr")


@dataclass
class Convergence:
    """A solver run: ``points`` are (iterations, CPU seconds, NashConv) at each checkpoint."""

    game: str
    algorithm: str
    points: list[tuple[int, float, float]] = field(default_factory=list)
    policy: Any = None  # the average policy after the last iteration (a pyspiel TabularPolicy)

    @property
    def nash_conv(self) -> float:
        return self.points[-1][2]


def solve(game: pyspiel.Game, algorithm: str = "cfr", iterations: int = 100,
          checkpoints: Sequence[int] | None = None, seed: int = 0) -> Convergence:
    """Run ``algorithm`` for ``iterations`` on ``game`` (its cached tree), measuring NashConv at each of
    ``checkpoints`` (default: the last iteration). CPU time counts the solver's set-up (for CFR a walk of
    the whole tree, which fills the cache through the bridge) and its iterations, not the measurements."""
    if algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm={algorithm!r} is not one of {list(ALGORITHMS)}")
    start = time.process_time()
    tree = pyspiel.convert_to_cached_tree(game)
    if algorithm == "mccfr":
        solver = pyspiel.ExternalSamplingMCCFRSolver(tree, seed)
        step = solver.run_iteration
    else:
        solver = (pyspiel.CFRSolver if algorithm == "cfr" else pyspiel.CFRPlusSolver)(tree)
        step = solver.evaluate_and_update_policy
    marks = set(checkpoints or ()) | {iterations}
    run = Convergence(str(game), algorithm)
    cpu = time.process_time() - start
    for iteration in range(1, iterations + 1):
        start = time.process_time()
        step()
        cpu += time.process_time() - start
        if iteration in marks:
            average = solver.average_policy()
            if algorithm == "mccfr" or iteration == iterations:  # a table of its own: CFR's reads the
                average = _table(tree, average)                    # solver's; MCCFR's answers states only
            run.points.append((iteration, cpu, pyspiel.nash_conv(tree, average)))
    run.policy = average
    return run


def _table(tree: pyspiel.Game, policy: Any) -> pyspiel.TabularPolicy:
    """``policy`` written out at every information state of ``tree``."""
    return policy_lib.python_policy_to_pyspiel_policy(
        policy_lib.tabular_policy_from_callable(tree, policy.action_probabilities))


def nash_conv(game: pyspiel.Game, policy: Any) -> float:
    """NashConv of a Python policy (``action_probabilities(state)``) on ``game``, by OpenSpiel's exact best
    responses (a full walk of the tree)."""
    return float(exploitability.nash_conv(game, policy))


def uniform_nash_conv(game: pyspiel.Game) -> float:
    """NashConv of uniformly random play."""
    return float(pyspiel.nash_conv(pyspiel.convert_to_cached_tree(game), pyspiel.UniformRandomPolicy(game)))
