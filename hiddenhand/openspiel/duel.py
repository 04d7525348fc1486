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
agent is asked there. Koehandel's hands start public, the duel's do not: so the agent is asked in every
position the duel player cannot tell apart (the other's deal, C's face-down offer; :func:`worlds`) and
its answers are averaged with their probabilities, a policy of the duel player's information alone.
Offers: Koehandel lets cards be laid in any order, the duel in ascending order (CT-2), so the agent's law
over the offers it lays (:func:`~hiddenhand.envs.koehandel.probes.offer_distribution`) becomes the duel's
card-by-card choices, each the share of that law's offers continuing the cards chosen so far.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from open_spiel.python import policy as policy_lib

from ..agents.base import Agent
from ..envs.cow_trade import vocab as V
from ..envs.koehandel import actions as KA
from ..envs.koehandel.cards import DENOMINATIONS, NUM_ANIMALS, NUM_DENOMS
from ..envs.koehandel.money import value
from ..envs.koehandel.probes import ask, koehandel_trade, lay, offer_distribution
from .chance import enumerate_outcomes, position_key, run_call

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


def worlds(engine: Any, seat: int) -> list[tuple[float, Any]]:
    """Every position ``seat`` cannot tell from ``engine``'s, with its probability: the exact law of the
    game's re-deal (``resample_hidden``: the other trader's deal and C's face-down offer, given what
    ``seat`` saw), its draws enumerated as chance outcomes."""
    def redeal(rng: Any) -> Any:
        world = engine.clone()
        world.resample_hidden(seat, rng)
        return world
    return [(p, run_call(redeal, script)[0]) for p, script in enumerate_outcomes(redeal, position_key)]


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
            key = state.bridge.observe(engine, seat).tobytes()
            if key not in self._answers:
                answer: dict[int, float] = {}
                for p, world in worlds(engine, seat):
                    for action, q in ask(self.agent, self._koehandel(world), self.samples).items():
                        duel_action = V.ACCEPT if action == KA.ACCEPT else V.COUNTER
                        answer[duel_action] = answer.get(duel_action, 0.0) + p * q
                self._answers[key] = answer
            return self._answers[key]
        start = engine.clone()
        start.selection = [0] * NUM_DENOMS
        key = state.bridge.observe(start, seat).tobytes()
        if key not in self._offers:
            law: dict[tuple[int, ...], float] = {}
            for p, world in worlds(start, seat):
                for offer, q in offer_distribution(self.agent, self._koehandel(world), self.samples).items():
                    law[offer] = law.get(offer, 0.0) + p * q
            self._offers[key] = law
        return continuations(self._offers[key], engine.selection, legal)

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
            more = top if offer[top] > chosen[top] else next(d for d in range(top + 1, NUM_DENOMS) if offer[d])
            step = V.CARD + more
        steps[step] = steps.get(step, 0.0) + p / total
    return steps


def strategies(game: Any, policy: Any) -> dict[str, dict]:
    """The round-1 strategies in readable form: ``offers`` maps C's hand (card values) to the law of the
    offer it lays; ``responses`` maps (D's hand, cards shown) to D's probability of accepting (the mean
    over the information states, weighted by how often each is reached)."""
    offers: dict[tuple, dict[tuple, float]] = {}
    answers: dict[tuple, list[float]] = {}

    def cards(counts: Any) -> tuple[int, ...]:
        return tuple(v for v, k in zip(DENOMINATIONS, counts) for _ in range(k))

    def walk(state: Any, reach: float, path: float) -> None:
        """``reach``: the probability of the state; ``path``: of C's card steps in this offer so far."""
        if state.is_terminal():
            return
        if state.is_chance_node():
            for outcome, p in state.chance_outcomes():
                walk(state.child(outcome), reach * p, 1.0)
            return
        engine = state.engine_state()
        if engine.round > 1:
            return
        probabilities = policy.action_probabilities(state)
        if engine.decision == V.RESPONSE:
            row = answers.setdefault((cards(engine.hands[V.CHALLENGED]), sum(engine.offer)), [0.0, 0.0])
            row[0] += reach
            row[1] += reach * probabilities.get(V.ACCEPT, 0.0)
            return
        for action, p in probabilities.items():
            if p <= 0:
                continue
            if engine.decision == V.OFFER and action == V.DONE:
                law = offers.setdefault(cards(engine.start[V.CHALLENGER]), {})
                law[cards(engine.selection)] = law.get(cards(engine.selection), 0.0) + path * p
            if engine.decision == V.OFFER:
                walk(state.child(action), reach * p, path * p)

    walk(game.new_initial_state(), 1.0, 1.0)
    deals = {}
    for hand, law in offers.items():  # each of C's hands was reached once per deal of D: average
        total = sum(law.values())
        deals[hand] = {offer: p / total for offer, p in sorted(law.items(), key=lambda item: -item[1])}
    return {"offers": deals,
            "responses": {key: row[1] / row[0] for key, row in sorted(answers.items()) if row[0] > 0}}
