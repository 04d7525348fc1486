"""Counterfactual probes of cow-trade decisions in Koehandel (hiddenhand.envs.koehandel.probes, §7)."""

from __future__ import annotations

import numpy as np
import pytest

from hiddenhand.agents import env_options_for, load
from hiddenhand.envs import koehandel_v0
from hiddenhand.envs.koehandel import actions as A
from hiddenhand.envs.koehandel.probes import (
    collect_offers, koehandel_trade, lay, offer_curve, offer_distribution, response_curve,
)

LINEUP = ["heuristic"] * 4


@pytest.fixture(scope="module")
def positions():
    env = koehandel_v0.env(num_players=4, **env_options_for(LINEUP))
    agents = [load(name, env.unwrapped.game, seed) for seed, name in enumerate(LINEUP)]
    return collect_offers(agents, env, games=1, seed=3)


def at(snapshot):
    env = koehandel_v0.env(num_players=4, **env_options_for(LINEUP))
    env.reset(seed=0)
    env.unwrapped.restore(snapshot)
    return env


def test_positions_are_challengers_first_offer_decisions(positions):
    assert positions
    for found in positions:
        state = at(found["snapshot"]).unwrapped.state_
        assert state.decision == A.D_OFFER and state.trade_round == 1 and not any(state.selection)
        assert found["names"] == LINEUP


def test_the_responder_sees_only_the_number_of_cards_offered(positions):
    """§7.5 (K-A22): two offers of as many cards leave the challenged player's observation the same, so
    a probe varies only what he cannot see and the count."""
    env = at(positions[0]["snapshot"])
    state = env.unwrapped.state_
    hand = state.hands[state.challenger]
    cards = [d for d in range(7) for _ in range(hand[d])]
    if len(set(cards)) < 2:
        pytest.skip("the challenger holds one denomination only")
    views = []
    for card in sorted(set(cards))[:2]:
        copy = at(positions[0]["snapshot"])
        offer = [0] * 7
        offer[card] = 1
        lay(copy, offer)
        views.append(copy.observe(copy.agent_selection)["observation"])
    assert np.array_equal(*views)


def test_response_curves_give_a_probability_per_card_count(positions):
    env = at(positions[0]["snapshot"])
    agent = load("heuristic", env.unwrapped.game, seed=0)
    rows = response_curve(agent, env, copies=2, samples=1)
    state = env.unwrapped.state_
    assert [row["cards"] for row in rows] == list(range(1, sum(state.hands[state.challenger]) + 1))
    assert all(0 <= row["accept"] <= 1 for row in rows)
    assert env.unwrapped.state_.decision == A.D_OFFER  # the position itself is left as it was


def test_offer_laws_and_curves(positions):
    env = at(positions[0]["snapshot"])
    heuristic = load("heuristic", env.unwrapped.game, seed=0)
    law = offer_distribution(heuristic, env, samples=3)
    assert sum(law.values()) == pytest.approx(1.0)
    state = env.unwrapped.state_
    assert all(all(o <= h for o, h in zip(offer, state.hands[state.challenger])) for offer in law)
    rows = offer_curve(heuristic, env, scales=(1.0,), samples=1)
    assert rows and all(row["mean_value"] <= row["cash"] for row in rows)


def test_a_trade_set_up_from_hands_lets_forced_cards_be_played_by_the_env():
    """With auto_resolve_forced a challenger holding one denomination has his first card played for him
    (K-A38); laying the offer counts it."""
    env = koehandel_v0.env(num_players=4, auto_resolve_forced=True)
    env.reset(seed=0)
    probe = koehandel_trade(env, 0, 1, species=3, stake=1, hands={0: [0, 3, 0, 0, 0, 0, 0], 1: [1, 0, 1, 1, 0, 0, 0]})
    assert probe.unwrapped.state_.decision == A.D_OFFER and probe.unwrapped.state_.selection[1] == 1
    lay(probe, [0, 2, 0, 0, 0, 0, 0])
    assert probe.unwrapped.state_.decision == A.D_RESPONSE and sum(probe.unwrapped.state_.offers[0]) == 2
    with pytest.raises(ValueError, match="not part of the offer"):
        lay(koehandel_trade(env, 0, 1, 3, 1, {0: [0, 3, 0, 0, 0, 0, 0], 1: [1, 0, 0, 0, 0, 0, 0]}),
            [1, 0, 0, 0, 0, 0, 0])
