"""Single-observer information-set MCTS (SO-ISMCTS; Cowling, Powley & Whitehouse 2012).

One tree for the searching seat. A node stands for the information set reached by a sequence of actions
from the root decision; its children are keyed by action. Every iteration re-deals the hidden information
(a new determinization), then descends the tree: at each node only the actions legal in that
determinization are considered, each of them has its availability count raised, and UCB1 with
availability counts picks among them (``value/visits + c * sqrt(log(availability)/visits)``); the first
legal action without a child is expanded instead (one node per iteration). Then a rollout to the horizon,
and every node on the path adds the value of the seat that chose its action.

Opponents' decisions are nodes of the same tree, as in SO-ISMCTS: each node is chosen by UCB on the value
of the seat to move there (so opponents are modelled as maximising their own value), and their actions
are keyed as if the searcher saw them. With ``opponents="policy"`` the other seats play the rollout policy
inside the tree as well (an opponent model): their nodes are still keyed by action, but no UCB choice or
expansion is spent on them, so every iteration's expansion is one of the searcher's own decisions. The
root's move is the most visited child (ties: the lower action id).
"""

from __future__ import annotations

import math
import random
from typing import ClassVar

import numpy as np

from hiddenhand.envs.core.options import Choice, Float, Int, Option, Options

from .common import COMMON_OPTIONS, REDEALS, TreeSearchAgent


class Node:
    __slots__ = ("children", "visits", "avail", "total")

    def __init__(self) -> None:
        self.children: dict[int, Node] = {}
        self.visits = 0
        self.avail = 1
        self.total = 0.0  # summed value of the seat whose action leads here


class ISMCTSAgent(TreeSearchAgent):
    """SO-ISMCTS with a budget of ``iterations`` (or ``seconds``) per move."""

    name = "ismcts"
    algorithm = "ismcts"
    OPTIONS: ClassVar[Options] = Options("ismcts", [
        Option("iterations", 200, Int(1, 10_000_000), "iterations per move (one determinization each)"),
        Option("c", 0.4, Float(0.0, above=True), "UCB exploration constant (values are score margins / score_scale)"),
        Option("opponents", "ucb", Choice("ucb", "policy"), "how the other seats choose inside the tree: 'ucb' "
                                                             "on their own values (SO-ISMCTS), or 'policy' by the "
                                                             "rollout policy (an opponent model)"),
        REDEALS,
        *COMMON_OPTIONS,
    ])

    def search(self, sampler, legal: np.ndarray, rng: np.random.Generator, fast: random.Random) -> int:
        deadline = self._deadline()
        root = Node()
        c, log, sqrt = self.c, math.log, math.sqrt
        modelled, seat = self.options["opponents"] == "policy", self._seat
        done = 0
        while True:
            state = sampler.sample()
            limit, round_ = self._stop_at(state)
            node, path, plies = root, [], 0
            while not state.is_terminal and (limit is None or plies < limit) and \
                    (round_ is None or self._round_of(state) == round_):
                mover = state.current_player
                children = node.children
                if modelled and mover != seat:
                    node = self._modelled_move(node, state, rng, fast)
                    path.append((node, mover))
                    plies += 1
                    continue
                actions = np.flatnonzero(state.legal_mask()).tolist()
                untried = [a for a in actions if a not in children]
                for a in actions:
                    child = children.get(a)
                    if child is not None:
                        child.avail += 1
                if untried:
                    action = untried[fast.randrange(len(untried))]
                    node = children[action] = Node()
                    state.apply(action, rng)
                    path.append((node, mover))
                    plies += 1
                    break
                best, best_score = -1, -math.inf
                for a in actions:
                    child = children[a]
                    score = child.total / child.visits + c * sqrt(log(child.avail) / child.visits)
                    if score > best_score:
                        best, best_score = a, score
                node = children[best]
                state.apply(best, rng)
                path.append((node, mover))
                plies += 1
            self.rollout(state, plies, limit, round_, rng, fast)
            values = self.values(state)
            self._back_up(path, values)
            done += 1
            if self._spent(done, self.iterations, deadline):
                break
        return self._root_result(root, done, legal)
