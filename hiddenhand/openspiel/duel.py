"""The cow-trade duel solved: bluffing statistics of a policy, and Koehandel agents playing the duel.

:func:`trade_statistics` walks a ``cow_trade`` bridge game under a policy (an equilibrium from
:func:`~.solve.solve`, or an agent's) and returns the statistics ``hiddenhand.envs.koehandel.analysis``
measures on real Koehandel trades, now as exact expectations: how often offers are padded with 0-cards,
the money offered against the stake's worth, the challenged player's accept rate by cards shown, the
challenger's win rate and each side's expected score.

:class:`KoehandelTradePolicy` makes a Koehandel agent (heuristic, trained, search) play the duel: at each
information state the duel's position is set up in a Koehandel game (the agent's player count and
options; both traders hold the stake's cards of the species whose quartet value / 4 is nearest the duel's
card worth; the earlier rounds replayed; :func:`hiddenhand.envs.koehandel.probes.koehandel_trade`) and the
agent is asked there. Offers: Koehandel lets cards be laid in any order, the duel in ascending order
(CT-2), so the agent's law over the offers it lays (:func:`~hiddenhand.envs.koehandel.probes.
offer_distribution`) becomes the duel's card-by-card choices, each the share of that law's offers
continuing the cards chosen so far.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from open_spiel.python import policy as policy_lib

from ..agents.base import Agent
from ..envs.cow_trade import vocab as V
from ..envs.koehandel import actions as KA
from ..envs.koehandel.cards import NUM_ANIMALS, NUM_DENOMS
from ..envs.koehandel.money import value
from ..envs.koehandel.probes import ask, koehandel_trade, lay, offer_distribution

ROLES = ("challenger", "challenged")


def trade_statistics(game: Any, policy: Any) -> dict[str, Any]:
    """Exact expectations under ``policy`` (both seats) in the duel ``game``: per role the ``offers`` laid
    (expected number per game), ``padding_rate`` (share with a 0-card), ``mean_zero_share``,
    ``mean_cards``, ``value_to_worth`` (mean money offered / the stake's worth); for the challenged player
    ``accept_rate`` and ``by_cards_shown`` (cards -> probability of being shown that many, accept rate);
    ``challenger_win_rate`` and ``scores`` (each seat's expected score)."""
    worth = game.bridge.engine.worth
    sums = {role: {"offers": 0.0, "padded": 0.0, "zero_share": 0.0, "cards": 0.0, "value": 0.0} for role in ROLES}
    shown: dict[int, list[float]] = {}
    ends = {"c_wins": 0.0, "scores": np.zeros(2)}

    def walk(state: Any, reach: float) -> None:
        if state.is_terminal():
            engine = state.engine_state()
            ends["c_wins"] += reach * (engine.winner == V.CHALLENGER)
            ends["scores"] += reach * np.asarray(state.returns())
            return
        if state.is_chance_node():
            for outcome, p in state.chance_outcomes():
                walk(state.child(outcome), reach * p)
            return
        engine = state.engine_state()
        probabilities = policy.action_probabilities(state)
        if engine.decision == V.RESPONSE:
            row = shown.setdefault(sum(engine.offer), [0.0, 0.0])
            row[0] += reach
            row[1] += reach * probabilities.get(V.ACCEPT, 0.0)
        for action, p in probabilities.items():
            if p <= 0:
                continue
            if action == V.DONE:  # an offer (C) or a counter-offer (D) is laid
                laid = engine.selection
                role = sums[ROLES[engine.current_player]]
                weight = reach * p
                role["offers"] += weight
                role["padded"] += weight * (laid[0] > 0)
                role["zero_share"] += weight * laid[0] / sum(laid)
                role["cards"] += weight * sum(laid)
                role["value"] += weight * value(laid)
            walk(state.child(action), reach * p)

    walk(game.new_initial_state(), 1.0)
    stats: dict[str, Any] = {}
    for role, s in sums.items():
        offers = s["offers"]
        stats[role] = {"offers": offers, "padding_rate": s["padded"] / offers if offers else None,
                       "mean_zero_share": s["zero_share"] / offers if offers else None,
                       "mean_cards": s["cards"] / offers if offers else None,
                       "value_to_worth": s["value"] / offers / worth if offers and worth else None}
    seen = sum(row[0] for row in shown.values())
    stats["challenged"]["accept_rate"] = sum(row[1] for row in shown.values()) / seen if seen else None
    stats["challenged"]["by_cards_shown"] = {cards: {"probability": row[0] / seen, "accept_rate": row[1] / row[0]}
                                             for cards, row in sorted(shown.items())}
    stats["challenger_win_rate"] = ends["c_wins"]
    stats["scores"] = ends["scores"].tolist()
    return stats


def nearest_species(card_value: float, animal_values: Any) -> int:
    """The species whose quartet value / 4 is nearest ``card_value`` (the lower one on a tie)."""
    return min(range(NUM_ANIMALS), key=lambda s: (abs(animal_values[s] / 4 - card_value), s))


class KoehandelTradePolicy(policy_lib.Policy):
    """A Koehandel agent playing the duel ``game`` (module docstring). ``env`` is a Koehandel env with the
    agent's options (``env_options_for``); ``agent`` is bound to its game; ``samples``: runs per decision
    of an agent with its own randomness (heuristics)."""

    def __init__(self, game: Any, agent: Agent, env: Any, samples: int = 4, species: int | None = None):
        super().__init__(game, [0, 1])
        self.agent, self.env, self.samples = agent, env, samples
        engine = game.bridge.engine
        values = env.unwrapped.game.cfg.animal_values
        self.species = nearest_species(engine.card_value, values) if species is None else species
        self._offers: dict[bytes, dict[tuple[int, ...], float]] = {}
        self._answers: dict[bytes, dict[int, float]] = {}

    def action_probabilities(self, state: Any, player_id: int | None = None) -> dict[int, float]:
        legal = state.legal_actions()
        if len(legal) == 1:  # forced: Koehandel plays it by itself (auto_resolve_forced)
            return {legal[0]: 1.0}
        engine = state.engine_state()
        seat = engine.current_player
        if engine.decision == V.RESPONSE:
            key = state.observation_tensor(seat)
            key = np.asarray(key, np.float32).tobytes()
            if key not in self._answers:
                answer = ask(self.agent, self._koehandel(engine), self.samples)
                self._answers[key] = {V.ACCEPT: answer.get(KA.ACCEPT, 0.0), V.COUNTER: answer.get(KA.COUNTER, 0.0)}
            return self._answers[key]
        law = self._law(state, engine, seat)
        return continuations(law, engine.selection, legal)

    def _law(self, state: Any, engine: Any, seat: int) -> dict[tuple[int, ...], float]:
        """The law of the offer the agent lays from this decision's start (nothing chosen)."""
        start = engine.clone()
        start.selection = [0] * NUM_DENOMS
        key = state.bridge.observe(start, seat).tobytes()
        if key not in self._offers:
            self._offers[key] = offer_distribution(self.agent, self._koehandel(start), self.samples)
        return self._offers[key]

    def _koehandel(self, engine: Any) -> Any:
        """The Koehandel position of the duel's ``engine`` state (nothing chosen in an offer being built)."""
        duel = engine.game
        hands = {seat: engine.start[seat] for seat in (V.CHALLENGER, V.CHALLENGED)}
        env = koehandel_trade(self.env, V.CHALLENGER, V.CHALLENGED, self.species, duel.stake, hands)
        for row in engine.record:
            if row[V.RESULT] == V.UNDECIDED:
                break
            lay(env, row[V.ROW_OFFER:V.ROW_COUNTER])
            if row[V.RESPONSE_CELL] == V.ACCEPTED:
                env.step(KA.ACCEPT)
            else:
                env.step(KA.COUNTER)
                lay(env, row[V.ROW_COUNTER:])
        if engine.decision in (V.RESPONSE, V.COUNTER_OFFER):
            lay(env, engine.offer)
        if engine.decision == V.COUNTER_OFFER:
            env.step(KA.COUNTER)
        return env


def continuations(law: dict[tuple[int, ...], float], chosen: list[int], legal: list[int]) -> dict[int, float]:
    """The next step of building an offer in ascending order when the whole offer has law ``law``: DONE
    with the share of offers equal to ``chosen``, CARD(d) with the share continuing with d; uniform over
    ``legal`` if no offer of the law continues ``chosen`` (a decision the agent never reaches)."""
    top = max((d for d in range(NUM_DENOMS) if chosen[d]), default=0)

    def continues(offer: tuple[int, ...]) -> bool:
        return all(offer[d] == chosen[d] for d in range(top)) and offer[top] >= chosen[top]

    reach = {offer: p for offer, p in law.items() if continues(offer)}
    total = sum(reach.values())
    if total <= 0:
        return {a: 1.0 / len(legal) for a in legal}
    steps: dict[int, float] = {}
    for offer, p in reach.items():
        if list(offer) == list(chosen):
            step = V.DONE
        else:
            step = V.CARD + (top if offer[top] > chosen[top] else next(d for d in range(top + 1, NUM_DENOMS) if offer[d]))
        steps[step] = steps.get(step, 0.0) + p / total
    return steps
