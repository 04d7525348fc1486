"""Chance events of an engine call, one outcome at a time, without touching the engine.

A rules engine draws its randomness from the numpy ``Generator`` it is handed
(``Game.new_initial_state(rng)``, ``State.apply(action, rng)``). :class:`ScriptedDraws` stands in for that
generator: it answers every draw from a *script*, a list of outcome ids chosen so far, and when the script
runs out it raises :class:`NeedDraw` with the next draw's outcomes and their probabilities. Re-running the
call from the position before it with a longer script therefore walks the call's chance events one at a
time, each an explicit chance node, and the same script always gives the same position.

Each draw is decomposed into single choices among equally likely (or weighted) outcomes:

* ``integers(n)`` / ``integers(low, high)``: one choice among the values;
* ``permutation(x)``, ``shuffle(x)``: the items one at a time, an outcome being the index of the item placed
  next (the last item is forced and makes no chance node);
* ``choice(a, size, replace, p)``: one choice per item drawn (without replacement: never the same twice);
* ``multivariate_hypergeometric(colors, n)``: one choice per color, its count given the colors before
  (weighted by the card sets each count stands for);
* ``random()``: only as the engines use it, ``random() * n`` with a whole ``n``: a choice among ``n`` equal
  cells, returning the cell's middle ``k + 0.5``, which floors and compares with whole numbers exactly as
  any ``u * n`` of that cell would. Any other use raises ``TypeError``.

A draw with a single possible outcome is no chance node. :func:`enumerate_outcomes` walks every script of a
call and merges those that end in the same position (``State.to_json``), so that a deal dealt as a
permutation becomes one chance node over the distinct deals.
"""

from __future__ import annotations

import json
from math import comb
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

#: The most outcomes any single draw may have (the chance action ids of ``chance="draws"``).
MAX_DRAW_OUTCOMES = 256
#: The most scripts :func:`enumerate_outcomes` walks for one engine call (``chance="outcomes"``).
MAX_SCRIPTS = 20_000


class NeedDraw(Exception):
    """The script ran out: ``outcomes`` lists the next draw's (outcome id, probability) pairs."""

    def __init__(self, outcomes: list[tuple[int, float]]):
        super().__init__(f"a chance draw among {len(outcomes)} outcomes")
        self.outcomes = outcomes


class ChanceError(RuntimeError):
    """An engine call that the bridge cannot turn into explicit chance nodes; the message says why."""


class ScriptedDraws:
    """A stand-in for ``numpy.random.Generator`` that takes each draw's outcome from ``script``."""

    def __init__(self, script: Sequence[int]):
        self.script = script
        self.used = 0

    # ------------------------------------------------------------------ one choice
    def _uniform(self, candidates: Sequence[int]) -> int:
        """One of ``candidates`` (outcome ids), all equally likely."""
        if len(candidates) == 1:
            return candidates[0]
        if self.used == len(self.script):
            p = 1.0 / len(candidates)
            raise NeedDraw([(c, p) for c in candidates])
        return self._take(candidates)

    def _weighted(self, weights: Sequence[float]) -> int:
        """An index drawn with probability ``weights[i]`` (zero weights never)."""
        candidates = [i for i, w in enumerate(weights) if w > 0]
        if len(candidates) == 1:
            return candidates[0]
        if self.used == len(self.script):
            total = float(sum(weights[i] for i in candidates))
            raise NeedDraw([(i, float(weights[i]) / total) for i in candidates])
        return self._take(candidates)

    def _take(self, candidates: Sequence[int]) -> int:
        if len(candidates) > MAX_DRAW_OUTCOMES:
            raise ChanceError(f"a draw among {len(candidates)} outcomes; the bridge allows {MAX_DRAW_OUTCOMES}")
        outcome = self.script[self.used]
        if outcome not in candidates:
            raise ChanceError(f"chance outcome {outcome} is not one of the draw's outcomes {list(candidates)}")
        self.used += 1
        return outcome

    def _order(self, n: int) -> list[int]:
        """A uniformly random order of ``range(n)``, placed one item at a time."""
        left = list(range(n))
        order = []
        while left:
            item = self._uniform(left)
            left.remove(item)
            order.append(item)
        return order

    # ------------------------------------------------------------------ numpy's Generator API
    def integers(self, low: int, high: int | None = None, size: Any = None, dtype: Any = np.int64,
                 endpoint: bool = False) -> np.integer:
        if size is not None:
            raise ChanceError("rng.integers(size=...) is not supported by the bridge; draw one value at a time")
        if high is None:
            low, high = 0, low
        low, high = int(low), int(high) + bool(endpoint)
        if high <= low:
            raise ValueError(f"integers: high={high} <= low={low}")
        return np.dtype(dtype).type(low + self._uniform(range(high - low)))

    def permutation(self, x: Any) -> np.ndarray:
        if isinstance(x, (int, np.integer)):
            return np.array(self._order(int(x)), np.int64)
        items = np.asarray(x)
        return items[self._order(len(items))]

    def shuffle(self, x: Any) -> None:
        order = self._order(len(x))
        x[:] = [x[i] for i in order] if isinstance(x, list) else np.asarray(x)[order]

    def choice(self, a: Any, size: Any = None, replace: bool = True, p: Any = None) -> Any:
        items = np.arange(a) if isinstance(a, (int, np.integer)) else np.asarray(a)
        count = 1 if size is None else int(size)
        weights = [1.0] * len(items) if p is None else [float(w) for w in p]
        picked: list[int] = []
        for _ in range(count):
            if replace:
                picked.append(self._weighted(weights))
            else:
                picked.append(self._weighted([0.0 if i in picked else w for i, w in enumerate(weights)]))
        return items[picked[0]] if size is None else items[picked]

    def multivariate_hypergeometric(self, colors: Any, nsample: int, size: Any = None,
                                    method: str = "marginals") -> np.ndarray:
        if size is not None:
            raise ChanceError("rng.multivariate_hypergeometric(size=...) is not supported by the bridge")
        colors, left, drawn = [int(c) for c in colors], int(nsample), []
        for d, count in enumerate(colors):  # each color's count given the ones before: hypergeometric
            rest = sum(colors[d + 1:])
            counts = range(max(0, left - rest), min(count, left) + 1)
            take = counts[self._weighted([comb(count, k) * comb(rest, left - k) for k in counts])]
            drawn.append(take)
            left -= take
        return np.array(drawn, np.int64)

    def random(self, size: Any = None) -> _ScaledUniform:
        if size is not None:
            raise ChanceError("rng.random(size=...) is not supported by the bridge")
        return _ScaledUniform(self)

    def __getattr__(self, name: str) -> Any:
        raise ChanceError(f"the engine called rng.{name}, which the OpenSpiel bridge cannot turn into chance "
                          f"outcomes (supported: integers, permutation, shuffle, choice, multivariate_hypergeometric, "
                          f"random() * n)")


class _ScaledUniform:
    """``rng.random()`` awaiting its scale: ``u * n`` (``n`` whole) draws one of ``n`` equal cells."""

    def __init__(self, draws: ScriptedDraws):
        self._draws = draws

    def __mul__(self, n: Any) -> float:
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 1:
            return NotImplemented
        return self._draws._uniform(range(int(n))) + 0.5

    __rmul__ = __mul__


def run_call(call: Callable[[ScriptedDraws], Any], script: Sequence[int]) -> tuple[Any, int]:
    """``call(draws)`` answered from ``script``: its result and how many outcomes it used (``NeedDraw``
    propagates when the script runs out)."""
    draws = ScriptedDraws(script)
    result = call(draws)
    if draws.used != len(script):
        raise ChanceError(f"the call used {draws.used} chance outcomes of the {len(script)} given")
    return result, draws.used


def enumerate_outcomes(call: Callable[[ScriptedDraws], Any], key: Callable[[Any], str],
                       limit: int = MAX_SCRIPTS) -> list[tuple[float, tuple[int, ...]]]:
    """Every distinct result of ``call`` as (probability, the first script giving it), in the order of
    first appearance when scripts are walked depth first; results with equal ``key`` are one outcome.
    ``ChanceError`` if the call has more than ``limit`` scripts."""
    merged: dict[str, list] = {}
    pending: list[tuple[tuple[int, ...], float]] = [((), 1.0)]
    walked = 0
    while pending:
        script, probability = pending.pop()
        try:
            result, _ = run_call(call, script)
        except NeedDraw as need:
            pending.extend((script + (outcome,), probability * p) for outcome, p in reversed(need.outcomes))
            continue
        walked += 1
        if walked > limit:
            raise ChanceError(f"this engine call has more than {limit} chance scripts; "
                              f"use chance='draws' (one chance node per draw)")
        entry = merged.setdefault(key(result), [0.0, script])
        entry[0] += probability
    return [(probability, script) for probability, script in merged.values()]


def position_key(state: Any) -> str:
    """Positions are the same outcome when their complete data are equal."""
    return json.dumps(state.to_json(), sort_keys=True, separators=(",", ":"))
