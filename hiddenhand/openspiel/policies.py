"""Agents as OpenSpiel policies on a bridge game, for exact exploitability.

:class:`AgentPolicy` asks an agent for its action distribution at each information state it meets, once
(answers are cached by information-state string; :mod:`hiddenhand.agents.distribution` says how each kind
of agent answers). A search agent is bound to an environment set up at the position (:func:`env_at`); it
reaches the game only through ``determinize``, which depends on the acting seat's information alone, so
any state of the information set gives the same answer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from open_spiel.python import policy as policy_lib

from ..agents.base import Agent
from ..agents.distribution import action_distribution, is_search
from ..envs import make
from .game import BridgeState


def env_at(state: BridgeState, seed: int = 0) -> Any:
    """An environment of the bridge's game set up at ``state``'s engine position (validated by
    ``restore``), with the player to move selected and an empty history."""
    name, num_players, options = state.bridge.settings[:3]
    env = make(name, num_players=num_players, **options)
    env.reset(seed=seed)
    snapshot = env.unwrapped.snapshot()
    snapshot["state"] = state.engine_state().to_json()
    snapshot["aec"]["agent_selection"] = env.possible_agents[state.current_player()]
    if "origin" in snapshot:  # a snapshot format with an origin replays from it: the position is the origin
        snapshot["origin"] = {"state": snapshot["state"], "rng": snapshot["rng"], "aec": snapshot["aec"]}
        snapshot["history"] = []
    env.unwrapped.restore(snapshot)
    return env


class AgentPolicy(policy_lib.Policy):
    """One agent per seat (``agents[seat]``, an Agent or None for OpenSpiel's uniform random play) as an
    OpenSpiel policy on a bridge game."""

    def __init__(self, game: Any, agents: list[Agent | None], samples: int = 1):
        super().__init__(game, list(range(game.num_players())))
        self.agents = agents
        self.samples = samples
        self._cache: dict[tuple[int, str], dict[int, float]] = {}

    def action_probabilities(self, state: BridgeState, player_id: int | None = None) -> dict[int, float]:
        seat = state.current_player() if player_id is None else player_id
        key = (seat, state.information_state_string(seat))
        if key not in self._cache:
            self._cache[key] = self._ask(state, seat)
        return self._cache[key]

    def _ask(self, state: BridgeState, seat: int) -> dict[int, float]:
        agent = self.agents[seat]
        legal = state.legal_actions()
        if agent is None:
            return {a: 1.0 / len(legal) for a in legal}
        engine = state.engine_state()
        observation = state.bridge.observe(engine, seat)
        mask = np.asarray(engine.legal_mask(), np.int8)
        env = env_at(state) if is_search(agent) else None
        return action_distribution(agent, observation, mask, env, f"player_{seat}", self.samples)


def agents_policy(game: Any, make_agent: Callable[[Any], Agent | None], samples: int = 1) -> AgentPolicy:
    """The same kind of agent in every seat: ``make_agent(engine_game)`` (None: uniform random)."""
    engine = game.bridge.engine
    return AgentPolicy(game, [make_agent(engine) for _ in range(game.num_players())], samples)
