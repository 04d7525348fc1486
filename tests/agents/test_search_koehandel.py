"""The Koehandel evaluation hook for the search agents (envs/koehandel/evaluation.py): an expected
win/loss reward per seat from quartet chances (docs/koehandel_rules.md §10.1 scoring, §10.2 winner,
K-A36/K-A37 rewards), reading of the others' money only their total (K-A13)."""

from __future__ import annotations

import pytest

from hiddenhand.agents import load
from hiddenhand.envs import make
from hiddenhand.envs.core.rewards import winner_rewards
from hiddenhand.envs.koehandel.evaluation import evaluate, quartet_chances
from hiddenhand.envs.registry import entry


def _state(players: int = 4, seed: int = 5, **options):
    env = make("koehandel", num_players=players, **options)
    env.reset(seed=seed)
    return env.unwrapped.state_.clone()


def _played(steps: int, seed: int = 5):
    """A 4-player position after ``steps`` heuristic moves."""
    env = make("koehandel", num_players=4)
    env.reset(seed=seed)
    raw = env.unwrapped
    agents = {a: load("heuristic", raw.game, seed=i) for i, a in enumerate(raw.possible_agents)}
    for _, agent in zip(range(steps), env.agent_iter()):
        obs, *_ = env.last()
        env.step(agents[agent].act(obs["observation"], obs["action_mask"]))
    return raw.state_.clone()


def test_values_are_rewards_in_range_and_equal_at_the_start():
    state = _state()
    values = evaluate(state, 0)
    assert len(values) == 4 and all(-1.0 <= v <= 1.0 for v in values)
    assert max(values) - min(values) < 1e-9  # everyone alike: no animals, same money
    assert abs(sum((v + 1) / 2 for v in values) - 1.0) < 1e-9  # win chances sum to one


def test_a_seat_with_quartets_leads():
    """§10.1: complete quartets (and their multiplier) score; the seat holding the horses and cows leads."""
    state = _state()
    state.holdings[2][9] = state.holdings[2][8] = 4
    state.holdings[1][0] = 3
    values = evaluate(state, 0)
    assert values[2] == max(values) and values[2] > 0.5
    chances = quartet_chances(state.holdings, [100.0] * 4)
    assert chances[2][9] == 1.0 and chances[0][9] == 0.0
    assert chances[1][0] > chances[0][0]


def test_more_money_means_better_chances_for_cards_to_come():
    state = _state()
    rich = quartet_chances(state.holdings, [400.0, 100.0, 100.0, 100.0])
    assert rich[0][5] > rich[1][5] and abs(sum(rich[p][5] for p in range(4)) - 1.0) < 1e-9


def test_a_finished_game_is_valued_exactly():
    """§10.2, K-A36/K-A37: the winners' rewards, whatever the viewer."""
    env = make("koehandel", num_players=4)
    env.reset(seed=2)
    raw = env.unwrapped
    agents = {a: load("heuristic", raw.game, seed=i) for i, a in enumerate(raw.possible_agents)}
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else agents[agent].act(obs["observation"], obs["action_mask"]))
    state = raw.state_
    assert state.is_terminal and not state.is_truncated
    expected = winner_rewards(state.winners(), 4)
    assert evaluate(state, 0) == expected == evaluate(state, 3)


def test_truncated_game_gives_the_truncation_reward():
    """§9.3: with truncation_reward="zero" a truncated game is worth 0 to everyone."""
    state = _state(max_turns=1)
    state.is_terminal = state.is_truncated = True
    assert evaluate(state, 0) == [0.0] * 4


@pytest.mark.parametrize("steps", [0, 150, 400])
def test_other_seats_hidden_money_is_not_read(steps):
    """K-A13: the viewer knows its own money; of the others' only their total is read, so moving money
    from one other seat's hand to another's leaves the value unchanged, moving the viewer's changes it."""
    state = _state() if steps == 0 else _played(steps)
    before = evaluate(state, 0)
    moved = state.clone()
    moved.cash[1] += 50
    moved.cash[2] -= 50
    assert evaluate(moved, 0) == pytest.approx(before, abs=1e-12)
    mine = state.clone()
    mine.cash[0] += 50
    mine.cash[1] -= 50
    assert evaluate(mine, 0) != pytest.approx(before, abs=1e-12)


def test_registry_hook_and_search_agent_use_it():
    hooks = entry("koehandel").search
    assert hooks.evaluation == "hiddenhand.envs.koehandel.evaluation:evaluate"
    env = make("koehandel", num_players=4)
    env.reset(seed=1)
    raw = env.unwrapped
    agent = load("ismcts", raw.game, seed=0, iterations=4)
    agent.bind(env, raw.agent_selection)
    obs, *_ = env.last()
    assert obs["action_mask"][agent.act(obs["observation"], obs["action_mask"])]
