"""Old against new outputs: two revisions play the same seeded games and must agree on everything.

Both revisions are imported side by side (:mod:`.revisions`) and step the same random legal actions.
At every step they must agree on whose turn it is, ``last()`` (observation, mask, reward, termination,
truncation, infos) and the observations and masks of the seats observed: every seat in even-numbered
games; in odd ones a random subset in random order, so that observers that cache per seat are read
out of turn and behind. At random steps they must also agree on ``snapshot()``, the table's render
and each seat's private render, every seat's re-dealt copy (``determinize``: its observations and
snapshot, then two steps of play), and a ``restore`` of an earlier snapshot (play goes on from
there); snapshots are compared with the base's states in the head's form, as the head's ``restore``
reads them (``upgraded_states``: a state field the head dropped is no difference). Cases: each game's player counts times option sets: the defaults, the registry's option sets,
and every option the game declares as a choice or a flag set to each other value in turn.

Run ``python -m hiddenhand.benchmarks.compare --base main`` (or ``make compare BASE=main``); it prints
one line per case and the first difference, if any, and exits with status 1 when something differs.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from dataclasses import dataclass

import numpy as np

from .revisions import WORKTREE, describe, load, source_tree

#: Chance per step of each extra check.
SNAPSHOT_RATE, REDEAL_RATE, RESTORE_RATE = 0.1, 0.02, 0.02
#: Restores per game at most (each replays part of the game).
MAX_RESTORES = 2


class Difference(Exception):
    """The two revisions disagree; the message says where and how."""


@dataclass
class Case:
    game: str
    module: str  # the env module's name in envs/
    num_players: int
    options: dict

    def __str__(self) -> str:
        return f"{self.game} {self.num_players}p {json.dumps(self.options, sort_keys=True)}"


def option_sets(game_class, registered: tuple[dict, ...]) -> list[dict]:
    """The defaults, the registry's option sets, then each declared flag or choice at each other value."""
    from_kinds = []
    for name, spec in game_class.options.specs.items():
        kind = type(spec.kind).__name__
        values = [not spec.default] if kind == "Bool" else list(spec.kind.choices) if kind == "Choice" else []
        from_kinds += [{name: value} for value in values if value != spec.default]
    return [{}] + [dict(options) for options in registered] + from_kinds


def cases(package, games: list[str], players: list[int] | None) -> list[Case]:
    registry = importlib.import_module(f"{package.__name__}.envs.registry").REGISTRY
    out = []
    for game in games or list(registry):
        entry = registry[game]
        module = f"{game}_v{entry.version}"
        game_class = importlib.import_module(f"{package.__name__}.envs.{module}").raw_env.game_class
        for options in option_sets(game_class, entry.option_sets):
            out += [Case(game, module, n, options) for n in entry.player_counts if not players or n in players]
    return out


def same(a, b) -> bool:
    """Equality of observations, infos and snapshots (arrays by value and dtype, containers item by item)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype == b.dtype
                and a.shape == b.shape and np.array_equal(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(same, a, b))
    return type(a) is type(b) and a == b


class Pair:
    """The same env in both revisions, stepped together and compared."""

    def __init__(self, base_env, head_env, where: str):
        self.envs = (base_env, head_env)
        self.where = where  # case, game and step, for messages

    def check(self, what: str, read) -> None:
        """``read(env)`` must agree in both revisions."""
        a, b = (read(env) for env in self.envs)
        if not same(a, b):
            raise Difference(f"{self.where}: {what} differs{self._detail(a, b)}")

    def check_snapshot(self) -> tuple[dict, dict]:
        """``snapshot()``, the base's states brought to the head's form; both snapshots, for restores."""
        a, b = (env.unwrapped.snapshot() for env in self.envs)
        head = self.envs[1].unwrapped
        snapshots = importlib.import_module(f"{type(head).__module__.split('.')[0]}.envs.core.snapshots")
        upgraded = getattr(snapshots, "upgraded_states", None)  # None: a head older than the hook
        if not same(a if upgraded is None else upgraded(head.game, a), b):
            raise Difference(f"{self.where}: snapshot() differs{self._detail(a, b)}")
        return a, b

    def check_observation(self, agent: str) -> None:
        self._check_arrays(f"of {agent}", *(env.observe(agent) for env in self.envs))

    def check_last(self) -> None:
        """``last()``: the observation and mask, then reward, termination, truncation and infos."""
        a, b = (env.last() for env in self.envs)
        self._check_arrays("in last()", a[0], b[0])
        if not same(a[1:], b[1:]):
            raise Difference(f"{self.where}: last()'s reward, termination, truncation or infos differ"
                             f"{self._detail(a[1:], b[1:])}")

    def _check_arrays(self, whose: str, a: dict, b: dict) -> None:
        for key in ("observation", "action_mask"):
            if not same(a[key], b[key]):
                raise Difference(f"{self.where}: {key} {whose} differs{self._detail(a[key], b[key])}")

    def _detail(self, a, b) -> str:
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape):
            text_a, text_b = repr(a), repr(b)
            return f"\n  base: {text_a[:400]}\n  head: {text_b[:400]}"
        cell = int(np.flatnonzero(a != b)[0])
        layout = self.envs[1].unwrapped.observer.layout
        block = next((name for name, s in layout.slices.items() if s.start <= cell < s.stop), None)
        if block is None or a.size != layout.size:
            return f" at index {cell}: base {a[cell]}, head {b[cell]}"
        index = np.unravel_index(cell - layout.offset(block), layout.shapes[block])
        return f" in block {block}{list(map(int, index))}: base {a[cell]}, head {b[cell]}"

    def step(self, action) -> None:
        for env in self.envs:
            env.step(action)


def play_case(modules, case: Case, games: int) -> int:
    """Play ``games`` seeded games of ``case`` in both revisions; the steps compared."""
    steps = 0
    for number in range(games):
        envs = [module.env(num_players=case.num_players, render_mode="ansi", **case.options) for module in modules]
        for env in envs:
            env.reset(seed=number)
        steps += _play_game(Pair(*envs, f"{case}, game {number}"), np.random.default_rng(number), number % 2 == 0)
    return steps


def _play_game(pair: Pair, rng: np.random.Generator, every_seat: bool) -> int:
    base, head = pair.envs
    agents, snapshots, restores, step = head.possible_agents, [], 0, 0
    prefix = pair.where
    while head.agents:
        pair.where = f"{prefix}, step {step}"
        pair.check("the agent to act", lambda env: env.agent_selection)
        pair.check_last()
        seats = agents if every_seat else [a for a in rng.permutation(agents) if rng.random() < 0.5]
        for agent in [head.agent_selection] + list(seats):
            pair.check_observation(agent)
        if rng.random() < SNAPSHOT_RATE:
            snapshots.append(pair.check_snapshot())
            pair.check("render()", lambda env: env.render())
            for seat in range(len(agents)):
                pair.check(f"the render for seat {seat}", lambda env: env.unwrapped.state_.render(seat))
        if rng.random() < REDEAL_RATE:
            _check_redeals(pair, rng)
        if snapshots and restores < MAX_RESTORES and rng.random() < RESTORE_RATE:
            restores += 1
            for env, snapshot in zip(pair.envs, snapshots[int(rng.integers(len(snapshots)))]):
                env.unwrapped.restore(snapshot)
            for agent in rng.permutation(agents):
                pair.check_observation(str(agent))
            continue
        observation, _, termination, truncation, _ = head.last()
        action = None if termination or truncation else int(rng.choice(observation["action_mask"].nonzero()[0]))
        pair.step(action)
        step += 1
    pair.where = f"{prefix}, the end"
    for what in ("rewards", "_cumulative_rewards", "terminations", "truncations", "infos"):
        pair.check(what, lambda env: getattr(env.unwrapped, what))
    return step


def _check_redeals(pair: Pair, rng: np.random.Generator) -> None:
    """Every seat's re-dealt copy: observations, snapshot, then two steps of play."""
    where = pair.where
    for agent in pair.envs[1].agents:
        seed = int(rng.integers(1 << 30))
        copies = Pair(*(env.unwrapped.determinize(agent, seed=seed) for env in pair.envs), f"{where}, {agent}'s re-deal")
        copies.check_snapshot()
        for _ in range(3):
            for seat in copies.envs[1].agents:
                copies.check_observation(seat)
            observation, _, termination, truncation, _ = copies.envs[1].last()
            if termination or truncation or not copies.envs[1].agents:
                break
            copies.step(int(rng.choice(observation["action_mask"].nonzero()[0])))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", default="HEAD", help="revision to compare against (default HEAD)")
    parser.add_argument("--head", default=WORKTREE, help=f"revision compared (default {WORKTREE!r}: the files as they are)")
    parser.add_argument("--game", action="append", default=[], help="a registered game (repeatable; default all)")
    parser.add_argument("--players", type=int, action="append", default=[], help="a player count (repeatable)")
    parser.add_argument("--games", type=int, default=2, help="seeded games per case")
    args = parser.parse_args(argv)
    print(f"base: {describe(args.base)}\nhead: {describe(args.head)}")
    packages = [load(source_tree(args.base), "hiddenhand_base"), load(source_tree(args.head), "hiddenhand_head")]
    failures, total, begin = 0, 0, time.perf_counter()
    for case in cases(packages[1], args.game, args.players):
        modules = [importlib.import_module(f"{package.__name__}.envs.{case.module}") for package in packages]
        try:
            steps = play_case(modules, case, args.games)
        except Difference as difference:
            failures += 1
            print(f"DIFFERENT {difference}", flush=True)
            continue
        total += steps
        print(f"same      {case}: {args.games} games, {steps} steps", flush=True)
    print(f"{total} steps compared in {time.perf_counter() - begin:.0f} s; "
          + (f"{failures} case(s) differ" if failures else "no difference"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
