"""Perfect-information Monte Carlo (PIMC): re-deal the hidden information K times and score every legal
action by rollouts in each re-dealt world; play the action with the best mean value for this seat."""

from __future__ import annotations

import random
from typing import ClassVar

import numpy as np

from hiddenhand.envs.core.options import Int, Option, Options

from .common import COMMON_OPTIONS, SearchAgent


class PIMCAgent(SearchAgent):
    """``determinizations`` re-deals (or as many as ``seconds`` allow, at least one), ``rollouts`` rollouts
    per legal action in each; ties go to the lower action id."""

    name = "pimc"
    algorithm = "pimc"
    OPTIONS: ClassVar[Options] = Options("pimc", [
        Option("determinizations", 8, Int(1, 100_000), "re-deals per move"),
        Option("rollouts", 1, Int(1, 10_000), "rollouts per legal action in each re-deal"),
        *COMMON_OPTIONS,
    ])

    def __init__(self, game, seed=None, **options):
        super().__init__(game, seed, **options)
        self.determinizations: int = self.options["determinizations"]
        self.rollouts: int = self.options["rollouts"]

    def search(self, sampler, legal: np.ndarray, rng: np.random.Generator, fast: random.Random) -> int:
        deadline = self._deadline()
        totals = np.zeros(len(legal))
        seat = self._seat
        done = 0
        while True:
            world = sampler.sample()
            limit, round_ = self._stop_at(world)
            for k, action in enumerate(legal):
                for _ in range(self.rollouts):
                    state = sampler.copy(world)
                    state.apply(int(action), rng)
                    self.rollout(state, 1, limit, round_, rng, fast)
                    totals[k] += self.values(state)[seat]
            done += 1
            if self._spent(done, self.determinizations, deadline):
                break
        self.last_iterations = done
        best = totals == totals.max()
        self.last_policy = np.zeros(self.game.num_actions)
        self.last_policy[legal[best]] = 1.0 / best.sum()
        self.last_value = float(totals.max()) / (done * self.rollouts)
        return int(legal[int(np.argmax(totals))])
