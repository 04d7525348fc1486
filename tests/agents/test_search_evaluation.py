"""The search agents' evaluation hook (``value="estimate"``) and the Rattus Cartus evaluation it uses
(docs/rattus_cartus_rules.md §6.7 plague, §6.8 winner)."""

from __future__ import annotations

import numpy as np
import pytest

from hiddenhand.agents import load
from hiddenhand.envs import make
from hiddenhand.envs.core.options import ConfigError
from hiddenhand.envs.registry import REGISTRY, entry
from hiddenhand.envs.rattus_cartus.cards import KIND_NUNS
from hiddenhand.envs.rattus_cartus.evaluation import evaluate, row_nuns, survival


def _state(seed: int = 3, players: int = 4, looked: bool = True, **options):
    """A start position; with ``looked`` seat 0 has looked at the whole nun row."""
    env = make("rattus_cartus", num_players=players, **options)
    env.reset(seed=seed)
    state = env.unwrapped.state_.clone()
    if looked:
        state.peeked[0] = [True] * 5
    return state


def test_evaluation_is_an_expected_reward_per_seat():
    state = _state(looked=False)
    values = evaluate(state, 0)
    assert len(values) == 4 and all(-1.0 <= v <= 1.0 for v in values)
    assert sum((v + 1) / 2 for v in values) <= 1.0 + 1e-9  # win probabilities
    assert max(values) - min(values) < 1e-9  # the start: nobody ahead (equal rats, no VP)


def test_evaluation_counts_the_plague_near_the_end():
    """§6.7 / R-A28: more rats than nuns dies; equal survives. A rich player far over the line is worth
    less than a poor one under it in the last round, while early on the rats can still be shed."""
    state = _state()
    nuns = sum(KIND_NUNS[k] for k in state.nun_row)
    state.rats = [nuns + 4, nuns, nuns - 1, nuns - 1]
    state.tokens[0] = [1] * 8  # seat 0 leads on VP
    state.round = state.game.rounds - 1
    late = evaluate(state, 0)
    assert late[0] < late[1] < late[2] == late[3]
    state.round = 0
    early = evaluate(state, 0)
    assert early[0] > late[0]
    assert survival(0, 0) == 1.0 and survival(-1, 0) == 0.0  # at the end: rats <= nuns survive
    assert survival(-3, 1) < survival(0, 1) < survival(3, 1)


def test_evaluation_leader_and_all_dead_variant():
    """§6.8: the most VP among survivors wins; R-A29 with the variant the fewest rats win if all die."""
    state = _state()
    nuns = sum(KIND_NUNS[k] for k in state.nun_row)
    state.round = state.game.rounds - 1
    state.tokens[2] = [1] * 10
    state.rats = [nuns - 3] * 4
    values = evaluate(state, 0)
    assert values[2] == max(values) and values[2] > 0
    state.rats = [nuns + 9, nuns + 8, nuns + 9, nuns + 9]
    assert max(evaluate(state, 0)) == pytest.approx(-1.0, abs=1e-3)  # nobody survives: all lose
    variant = _state(all_dead_variant=True)
    variant.round, variant.rats = state.round, [nuns + 9, nuns + 8, nuns + 9, nuns + 9]
    variant.nun_row = list(state.nun_row)
    assert evaluate(variant, 0)[1] == pytest.approx(1.0, abs=1e-3)


def test_evaluation_reads_the_row_only_as_the_viewer_knows_it():
    """The nun row's unlooked positions do not matter; looked-at ones do (§6.7, R-A8 private looks)."""
    state = _state(looked=False)
    state.peeked[0] = [True, True, False, False, False]
    twin = state.clone()
    twin.nun_row[2:] = [k - k % 5 for k in twin.nun_row[2:]]  # the unseen cards swapped for 0-nun cards
    assert twin.nun_row != state.nun_row and evaluate(twin, 0) == evaluate(state, 0)
    twin.nun_row[0] -= twin.nun_row[0] % 5
    assert state.nun_row[0] % 5 == 0 or evaluate(twin, 0) != evaluate(state, 0)
    dist = row_nuns(state, 0)
    assert sum(dist.values()) == pytest.approx(1.0, abs=1e-3) and min(dist) >= sum(k % 5 for k in state.nun_row[:2])
    full = row_nuns(_state(), 0)
    assert list(full) == [sum(k % 5 for k in _state().nun_row)]


def test_estimate_value_needs_a_hook():
    assert entry("rattus_cartus").search.evaluation == "hiddenhand.envs.rattus_cartus.evaluation:evaluate"
    agent = load("ismcts:value=estimate:iterations=3", make("rattus_cartus", num_players=4).unwrapped.game)
    assert agent.value_mode == "estimate"
    without = next(name for name, game in REGISTRY.items() if game.search.evaluation is None)
    with pytest.raises(ConfigError, match="evaluation hook"):
        load("ismcts:value=estimate", make(without).unwrapped.game)


def test_estimate_value_uses_the_hook_and_values_a_finished_game_exactly():
    game = make("rattus_cartus", num_players=4).unwrapped.game
    agent = load("pimc:value=estimate:determinizations=1", game)
    agent.bind(make("rattus_cartus", num_players=4), "player_0")
    state = _state()
    assert agent.values(state) == evaluate(state, 0)
    rng = np.random.default_rng(0)
    while not state.is_terminal:
        state.apply(int(state.legal_mask().nonzero()[0][0]), rng)
    state.peeked[0] = [True] * 5  # nothing hidden from seat 0 any more: the env's rewards
    won = state.winners()
    assert agent.values(state) == pytest.approx([(2 / len(won) - 1) if p in won else -1.0 for p in range(4)])
