"""PUCT over information sets: SO-ISMCTS (:mod:`.ismcts`) with AlphaZero's selection rule and a
policy-value network (Silver et al. 2017; Cowling, Powley & Whitehouse 2012 for the information sets).

One tree for the searching seat, a fresh determinization per iteration, nodes keyed by the actions from
the root as in SO-ISMCTS; every seat's decisions are nodes. At a node the mover's legal actions in this
determinization are scored ``Q(a) + c * P(a) * sqrt(N) / (1 + n(a))``: ``Q`` the mean value of the
mover's seat after ``a`` (unvisited actions: the mean of the visited ones, else 0), ``P`` the network's
policy for the mover's observation in this determinization (renormalised over the legal actions; at the
other seats' nodes only with ``opponent_prior="network"``, which costs a network reading per visit there,
else a uniform prior; with ``opponents="policy"`` the other seats play the rollout policy instead),
``n(a)`` the action's visits and ``N`` their sum over the legal actions plus one. Each iteration adds one
node and values its position: with ``leaf="network"`` every seat's value head reading of its own
observation there (a finished game: the win/loss rewards), with ``leaf="rollout"`` a rollout to the
horizon valued by ``value`` (as ISMCTS). Without a network the prior is uniform (and leaves need
rollouts: ``puct`` alone is ISMCTS with PUCT's selection). The move is the most visited root action; ``last_policy`` (the root's visit shares) and
``last_value`` (the seat's mean value over the iterations) are what expert iteration learns from.

The network is an agent file with a value head (``network=<name or path>``; trained by
``hiddenhand train <game> --backend expert``): it must fit the game, like any agent file.
"""

from __future__ import annotations

import math
import random
from typing import ClassVar

import numpy as np

from hiddenhand.envs.core.options import Choice, ConfigError, Float, Int, Option, Optional, Options
from hiddenhand.envs.core.rewards import winner_rewards

from .common import COMMON_OPTIONS, REDEALS, Text, TreeSearchAgent


class Node:
    __slots__ = ("children", "visits", "total", "prior")

    def __init__(self) -> None:
        self.children: dict[int, Node] = {}
        self.visits = 0
        self.total = 0.0  # summed value of the seat whose action leads here
        self.prior: dict[int, float] | None = None  # the searcher's own nodes keep their prior


class PUCTAgent(TreeSearchAgent):
    """PUCT with a policy-value network over ``iterations`` (or ``seconds``) per move."""

    name = "puct"
    algorithm = "puct"
    OPTIONS: ClassVar[Options] = Options("puct", [
        Option("iterations", 64, Int(1, 10_000_000), "iterations per move (one determinization and one new "
                                                     "node each)"),
        Option("c", 1.5, Float(0.0), "PUCT exploration constant (values are win/loss rewards in [-1, 1])"),
        Option("network", None, Optional(Text()), "a policy-value agent file (shipped name or path): prior and "
                                                  "leaf values; None: a uniform prior"),
        Option("leaf", None, Optional(Choice("network", "rollout")),
               "a new leaf's value: 'network' (its value head), 'rollout' (a rollout to the horizon valued by "
               "'value'); None: 'network' when the network has a value head, else 'rollout'"),
        Option("opponent_prior", "uniform", Choice("uniform", "network"),
               "the prior at the other seats' nodes: uniform, or the network's policy for their observation in "
               "each determinization (a network reading per visit)"),
        Option("opponents", "tree", Choice("tree", "policy"),
               "how the other seats choose inside the tree: 'tree' by PUCT on their own values, or 'policy' by "
               "the rollout policy (an opponent model, as ISMCTS's opponents='policy'; no prior read there)"),
        REDEALS,
        *COMMON_OPTIONS,
    ])

    def __init__(self, game, seed=None, **options):
        super().__init__(game, seed, **options)
        self._opponent_prior = self.options["opponent_prior"] == "network"
        self.network = self._load_network(self.options["network"])
        valued = self.network is not None and self.network.value_weights is not None
        self.leaf: str = self.options["leaf"] or ("network" if valued else "rollout")
        if self.leaf == "network" and not valued:
            raise ConfigError("puct agent: leaf='network' needs a network with a value head (network=<agent file>); "
                              "without one use leaf='rollout'")
        if self._observer is None and self.network is not None:
            from hiddenhand.envs import load_module

            self._observer = load_module(game.name).raw_env.observer_class(game)

    def _load_network(self, name: str | None):
        if name is None:
            return None
        from . import load_agent

        network = load_agent(name, self.game, self._seed)
        if not hasattr(network, "evaluate"):
            raise ConfigError(f"puct agent: network={name!r} is not a policy network agent file")
        return network

    # ------------------------------------------------------------------ network readings
    def _observation(self, state, seat: int) -> np.ndarray:
        return self.network.transform(self._observer.encode(state, seat))

    def _prior(self, state, actions: list[int]) -> dict[int, float]:
        """The network's policy over ``actions`` for the mover of ``state`` (uniform without a network, and at
        the other seats' nodes unless ``opponent_prior="network"``)."""
        if self.network is None or (state.current_player != self._seat and not self._opponent_prior):
            return dict.fromkeys(actions, 1.0 / len(actions))
        logits, _ = self.network.evaluate(self._observation(state, state.current_player)[None, :])
        chosen = logits[0, actions]
        weights = np.exp(chosen - chosen.max())
        return dict(zip(actions, (weights / weights.sum()).tolist()))

    def _leaf_values(self, state, plies: int, limit, round_, rng, fast) -> list[float]:
        if self.leaf == "rollout":
            self.rollout(state, plies, limit, round_, rng, fast)
            return self.values(state)
        if state.is_terminal:
            return winner_rewards(state.winners(), self.game.num_players)
        rows = np.stack([self._observation(state, seat) for seat in range(self.game.num_players)])
        return self.network.evaluate(rows)[1].tolist()

    # ------------------------------------------------------------------ the search
    def search(self, sampler, legal: np.ndarray, rng: np.random.Generator, fast: random.Random) -> int:
        deadline = self._deadline()
        root = Node()
        seat, c, sqrt = self._seat, self.c, math.sqrt
        modelled = self.options["opponents"] == "policy"
        done = 0
        while True:
            state = sampler.sample()
            limit, round_ = self._stop_at(state)
            node, path, plies = root, [], 0
            while True:
                stop = state.is_terminal or (limit is not None and plies >= limit) or \
                    (round_ is not None and self._round_of(state) != round_)
                if stop:
                    values = self._leaf_values(state, plies, limit, round_, rng, fast)
                    break
                mover = state.current_player
                if modelled and mover != seat:
                    node = self._modelled_move(node, state, rng, fast)
                    path.append((node, mover))
                    plies += 1
                    continue
                actions = state.legal_mask().nonzero()[0].tolist()
                prior = node.prior if mover == seat else None
                if prior is None or any(a not in prior for a in actions):
                    prior = self._prior(state, actions)
                    if mover == seat:
                        node.prior = prior
                children = node.children
                visited = [children[a] for a in actions if a in children and children[a].visits]
                count = sum(child.visits for child in visited)
                fpu = sum(child.total / child.visits for child in visited) / len(visited) if visited else 0.0
                scale = c * sqrt(count + 1)
                best, best_score = -1, -math.inf
                for a in actions:
                    child = children.get(a)
                    n = child.visits if child is not None else 0
                    q = child.total / n if n else fpu
                    score = q + scale * prior.get(a, 0.0) / (1 + n)
                    if score > best_score:
                        best, best_score = a, score
                child = children.get(best)
                state.apply(best, rng)
                plies += 1
                if child is None:  # expand: one new node per iteration, valued where it stands
                    child = children[best] = Node()
                    path.append((child, mover))
                    values = self._leaf_values(state, plies, limit, round_, rng, fast)
                    break
                path.append((child, mover))
                node = child
            self._back_up(path, values)
            done += 1
            if self._spent(done, self.iterations, deadline):
                break
        return self._root_result(root, done, legal)
