"""The David & Goliath evaluation hook (docs/david_goliath_rules.md §4 scoring, §5 winners, §6 what is
public) and its use by search (``value="estimate"``) and training (``potential: evaluation``)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from hiddenhand.agents import load
from hiddenhand.envs import make
from hiddenhand.envs.david_goliath.cards import colour_score
from hiddenhand.envs.david_goliath.evaluation import ROUND_SD, SPREAD, colour_moments, evaluate, score_moments
from hiddenhand.envs.registry import entry
from hiddenhand.training.config import config_from_dict
from hiddenhand.training.fit_evaluation import log_loss, positions


def _env(players: int = 4, seed: int = 3, moves: int = 0, **options):
    env = make("david_goliath", num_players=players, **options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        env.step(int(rng.choice(env.unwrapped.legal_actions())))
    return env


def _chances(values: list[float]) -> list[float]:
    return [(v + 1) / 2 for v in values]


@pytest.mark.parametrize("count, points, values", [
    (0, 0, [3, 7, 9, 12]), (1, 11, [2, 5, 8]), (2, 17, [1, 4, 6, 10]), (2, 3, [12]), (3, 3, [5, 6]),
    (1, 4, []), (0, 0, [8]),
])
def test_colour_moments_are_exact_for_the_model(count, points, values):
    """§4: one or two cards score their values, three or more one point each. Every subset of the cards
    out that the seat may take, weighted by the binomial model, against the closed form."""
    share = 0.25
    held = [points] if count == 1 else [points - 1, 1] if count == 2 else [1] * count
    first = second = 0.0
    for size in range(len(values) + 1):
        for taken in itertools.combinations(values, size):
            weight = share ** size * (1 - share) ** (len(values) - size)
            score = colour_score(held + list(taken)) if held + list(taken) else 0
            first += weight * score
            second += weight * score * score
    mean = sum(values) / len(values) if values else 0.0
    var = sum(v * v for v in values) / len(values) - mean * mean if values else 0.0
    got = colour_moments(count, points, len(values), share, mean, var)
    assert got == pytest.approx((first, second))


def test_evaluation_is_an_expected_reward_and_the_start_is_even():
    state = _env().unwrapped.state_
    values = evaluate(state, 0)
    assert len(values) == 4 and sum(_chances(values)) == pytest.approx(1.0)
    assert max(values) - min(values) < 1e-12  # a fresh deal: nobody ahead


def test_evaluation_favours_the_leader_more_as_the_game_ends():
    """§5: the highest total wins; the same lead is worth more with fewer rounds to play."""
    state = _env().unwrapped.state_.clone()
    state.totals[:] = [60, 40, 40, 40]
    early = _chances(evaluate(state, 0))
    assert early[0] > 0.25 > early[1] and early[1] == pytest.approx(early[2])
    state.round = state.game.rounds - 1
    late = _chances(evaluate(state, 0))
    assert late[0] > early[0]


def test_evaluation_sees_the_risk_of_a_third_card():
    """§4: two high cards of a colour are worth their values only while no third card of it is taken:
    with cards of the colour still out a 2-card holder of 23 points expects less than 23 from it, and
    exactly 23 once the colour has run out. A seat that took no card has an uncertain round ahead."""
    assert colour_moments(2, 23, 10, 0.25, 6.0, 10.0)[0] < 23
    assert colour_moments(2, 23, 0, 0.25, 0.0, 0.0) == (23, 23 * 23)
    means, variances = score_moments(_env().unwrapped.state_)
    assert max(means) - min(means) < 1e-9 and min(variances) > 0


def test_a_finished_game_is_valued_exactly():
    env = _env(players=3, rounds=1)
    rng = np.random.default_rng(0)
    while not env.unwrapped.state_.is_terminal:
        env.step(int(rng.choice(env.unwrapped.legal_actions())))
    state = env.unwrapped.state_
    won = state.winners()
    assert evaluate(state, 1) == pytest.approx([(2 / len(won) - 1) if p in won else -1.0 for p in range(3)])


@pytest.mark.parametrize("players, moves", [(4, 37), (2, 20), (6, 50)])
def test_evaluation_reads_nothing_hidden(players, moves):
    """§6: only the table's public data counts, so every viewer and every re-deal of the hidden hands
    (``determinize``) gets the same value. DG-5: the dummy's taken cards score for nobody."""
    env = _env(players=players, moves=moves)
    raw = env.unwrapped
    state = raw.state_
    values = evaluate(state, 0)
    assert len(values) == players and all(math.isfinite(v) for v in values)
    assert all(evaluate(state, viewer) == values for viewer in range(players))
    differed = False
    for seed in range(3):
        twin = raw.determinize(raw.agent_selection, seed).state_
        differed |= not np.array_equal(twin.hands, state.hands)
        assert evaluate(twin, 0) == values
    assert differed


def test_the_hook_serves_search_and_training():
    assert entry("david_goliath").search.evaluation == "hiddenhand.envs.david_goliath.evaluation:evaluate"
    env = _env(moves=9)
    agent = load("ismcts:value=estimate:iterations=5:horizon=4", env.unwrapped.game, seed=1)
    agent.bind(env, env.unwrapped.agent_selection)
    assert agent.values(env.unwrapped.state_) == evaluate(env.unwrapped.state_, agent._seat)
    obs = env.unwrapped.observe(env.unwrapped.agent_selection)
    assert obs["action_mask"][agent.act(obs["observation"], obs["action_mask"])]
    # training's dense potential (its returns adding up: tests/training/test_selfplay.py)
    assert config_from_dict({"game": "david_goliath", "potential": "evaluation"}).potential == "evaluation"



def test_the_fit_scores_the_shipped_constants_better_than_a_guess():
    """The fitting script's criterion: on heuristic games the fitted constants predict the winners better
    than a uniform guess and better than a spread far off the fit."""
    data = positions(players=4, games=3, every=12)
    fitted = log_loss(data, SPREAD, ROUND_SD)
    assert fitted < math.log(4) and fitted < log_loss(data, 0.3, ROUND_SD)
