"""Exact analysis through the bridge: CFR converges on the tiny configurations, agents become policies
whose NashConv OpenSpiel measures, and the duel's bluffing statistics are exact expectations."""

from __future__ import annotations

import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python import policy as policy_lib  # noqa: E402

from hiddenhand.agents import env_options_for, load  # noqa: E402
from hiddenhand.envs import koehandel_v0  # noqa: E402
from hiddenhand.envs.cow_trade import vocab as V  # noqa: E402
from hiddenhand.envs.koehandel import actions as KA  # noqa: E402
from hiddenhand.envs.koehandel.probes import ask  # noqa: E402
from hiddenhand.openspiel import load_tiny  # noqa: E402
from hiddenhand.openspiel.duel import KoehandelTradePolicy, continuations, trade_statistics  # noqa: E402
from hiddenhand.openspiel.policies import agents_policy  # noqa: E402
from hiddenhand.openspiel.solve import nash_conv, solve, uniform_nash_conv  # noqa: E402


@pytest.mark.parametrize("name", ["david_goliath", "cow_trade"])
def test_cfr_exploitability_falls_below_uniform_random(name):
    game = load_tiny(name)
    run = solve(game, "cfr", iterations=30, checkpoints=[5])
    random = uniform_nash_conv(game)
    assert run.points[0][0] == 5 and run.points[-1][0] == 30
    assert run.nash_conv < run.points[0][2] < random
    assert run.nash_conv < 0.2 * random


def test_mccfr_and_cfr_plus_converge_too():
    game = load_tiny("david_goliath")
    random = uniform_nash_conv(game)
    assert solve(game, "cfr+", iterations=20).nash_conv < 0.1 * random
    assert solve(game, "mccfr", iterations=2000, seed=1).nash_conv < 0.5 * random
    with pytest.raises(ValueError, match="algorithm='dqn'"):
        solve(game, "dqn")


def test_the_python_and_cpp_measures_agree():
    game = load_tiny("cow_trade")
    assert nash_conv(game, policy_lib.UniformRandomPolicy(game)) == pytest.approx(uniform_nash_conv(game))


def test_agents_are_measured_on_the_tiny_game():
    """The shipped 2-player agent (argmax) and a search agent answer at every information state; a
    deterministic policy is exploitable."""
    game = load_tiny("david_goliath")
    for name in ("david_goliath_2p", "pimc"):
        policy = agents_policy(game, lambda engine: load(name, engine, seed=0))
        value = nash_conv(game, policy)
        assert 0 < value <= 2.0
        assert all(sum(p.values()) == pytest.approx(1.0) for p in policy._cache.values())


def test_equilibrium_statistics_of_the_duel_are_probabilities():
    game = load_tiny("cow_trade")
    stats = trade_statistics(game, solve(game, "cfr", iterations=20).policy)
    challenger, challenged = stats["challenger"], stats["challenged"]
    assert challenger["offers"] >= 1.0  # one offer per game, two after a tie
    assert 0 <= challenger["padding_rate"] <= 1 and 0 <= challenged["accept_rate"] <= 1
    assert sum(row["probability"] for row in challenged["by_cards_shown"].values()) == pytest.approx(1.0)
    assert sum(stats["scores"]) == pytest.approx(game.bridge.engine.worth)  # CT-3: constant-sum


def test_uniform_play_of_the_duel_accepts_half_the_offers():
    """Under uniform random play the challenged player accepts with probability 1/2 at every offer."""
    game = load_tiny("cow_trade")
    stats = trade_statistics(game, policy_lib.UniformRandomPolicy(game))
    assert stats["challenged"]["accept_rate"] == pytest.approx(0.5)


def test_offers_become_ascending_card_steps():
    """CT-2: an agent's law over offers (counts per denomination 0, 10, ...) becomes card-by-card steps."""
    law = {(1, 0, 0, 1, 0, 0, 0): 0.5, (0, 1, 0, 0, 0, 0, 0): 0.25, (1, 0, 0, 0, 0, 0, 0): 0.25}
    card = lambda d: d  # noqa: E731  (CARD(d) is action d in the duel)
    assert continuations(law, [0] * 7, [0, 1, 3]) == {card(0): 0.75, card(1): 0.25}
    assert continuations(law, [1, 0, 0, 0, 0, 0, 0], [3, 7]) == {card(3): 2 / 3, 7: 1 / 3}
    assert continuations(law, [0, 0, 0, 1, 0, 0, 0], [3, 7]) == {3: 0.5, 7: 0.5}  # never reached: uniform


def test_a_koehandel_agent_plays_the_duel_through_koehandel_positions():
    game = load_tiny("cow_trade")
    env = koehandel_v0.env(num_players=4, **env_options_for(["heuristic"]))
    env.reset(seed=0)
    policy = KoehandelTradePolicy(game, load("heuristic", env.unwrapped.game, seed=0), env, samples=1)
    assert policy.species == 3  # the dog: 160 / 4 = 40, the duel's card worth
    value = nash_conv(game, policy)
    assert 0 < value < 2 * game.bridge.engine.worth
    assert policy._offers and policy._answers


def test_a_koehandel_agent_answers_alike_in_states_the_duel_player_cannot_tell_apart():
    """Koehandel's hands start public (set_position), the duel's do not (CT-4): asked in one Koehandel
    position, the heuristic's answer may depend on the other trader's hand; the duel policy averages over
    the positions the duel player cannot tell apart, so all states of an information state get one answer
    (each asked of a fresh policy: no cache decides it)."""
    game = load_tiny("cow_trade")
    env = koehandel_v0.env(num_players=4, **env_options_for(["heuristic"]))
    env.reset(seed=0)
    heuristic = load("heuristic", env.unwrapped.game, seed=0)
    probe = KoehandelTradePolicy(game, heuristic, env, samples=1)
    groups: dict[str, list] = {}

    def walk(state):
        if state.is_terminal():
            return
        if state.is_chance_node():
            for outcome, _ in state.chance_outcomes():
                walk(state.child(outcome))
            return
        if state.engine_state().decision == V.RESPONSE:
            groups.setdefault(state.information_state_string(), []).append(state)
        for action in state.legal_actions():
            walk(state.child(action))

    walk(game.new_initial_state())
    checked = 0
    for states in groups.values():
        alone = {ask(heuristic, probe._koehandel(s.engine_state()), 1).get(KA.ACCEPT) for s in states}
        if len(alone) > 1 and checked < 3:
            checked += 1
            answers = [KoehandelTradePolicy(game, heuristic, env, samples=1).action_probabilities(s) for s in states]
            assert all(answer == answers[0] for answer in answers)
    assert checked  # single Koehandel positions do tell the other's hand
