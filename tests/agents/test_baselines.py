"""Baseline agents, the tournament runner and terminal play."""

import numpy as np
import pytest

from hiddenhand.agents import RandomAgent, load
from hiddenhand.agents.human import play_in_terminal
from hiddenhand.agents.tournament import run_tournament, wilson_interval
from hiddenhand.envs import david_goliath_v0
from hiddenhand.envs.david_goliath.rules import DavidGoliathGame


@pytest.mark.parametrize("name", ["random", "heuristic"])
@pytest.mark.parametrize("players", [2, 3, 6])
def test_baselines_play_only_legal_actions_to_the_end(name, players):
    """Every move legal (illegal actions raise), every game played out: N rounds (DG-4) of 15 tricks, with
    winners, none truncated."""
    env = david_goliath_v0.env(num_players=players)  # illegal actions raise
    game = env.unwrapped.game
    agents = [load(name, game, seed=i) for i in range(players)]
    for seed in range(3):
        env.reset(seed=seed)
        moves = 0
        for agent in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                assert term and not trunc and info["winners"]
                env.step(None)
                continue
            action = agents[env.unwrapped.possible_agents.index(agent)].act(obs["observation"], obs["action_mask"])
            assert obs["action_mask"][action] == 1
            env.step(action)
            moves += 1
        assert moves == game.max_game_length == players * 15 * game.rounds
        assert env.unwrapped.state_.is_terminal and game.invariants(env.unwrapped.state_) == []


def test_random_agent_is_seeded():
    mask = np.zeros(90, np.int8)
    mask[[3, 17, 40, 41]] = 1
    a, b = RandomAgent(seed=1), RandomAgent(seed=1)
    assert [a.act(None, mask) for _ in range(20)] == [b.act(None, mask) for _ in range(20)]
    with pytest.raises(ValueError, match="no legal action"):
        a.act(None, np.zeros(90, np.int8))


def test_heuristic_takes_the_goliath_when_it_plays_last():
    """Playing last with a low card under a high card of a colour it has none of: it plays David."""
    game = DavidGoliathGame(3)
    env = david_goliath_v0.env(num_players=3)
    env.reset(seed=0)
    agent = load("heuristic", game)
    layout = env.unwrapped.observer.layout
    obs = np.zeros(layout.size, np.float32)
    layout.view(obs, "trick")[0, 0 * 18 + 8] = 1  # red 9 led
    layout.view(obs, "trick")[1, 0 * 18 + 4] = 1  # red 5
    mask = np.zeros(90, np.int8)
    mask[[0 * 18 + 0, 0 * 18 + 6]] = 1  # holds red 1 and red 7
    assert agent.act(obs, mask) == 0  # red 1 is lowest: it takes red 9 (9 points)


def test_heuristic_beats_random_in_four_players():
    """Fixed seeds, so deterministic: the heuristic's win share is above the fair 25%."""
    result = run_tournament("david_goliath", ["heuristic", "random", "random", "random"], games=200, seed=0)
    standings = {row.label: row for row in result.standings()}
    assert standings["heuristic"].interval[0] > 0.25


def test_heuristic_beats_random_in_the_two_player_dummy_variant():
    """DG-5: with the dummy third hand two players have decisions that matter (the literal variant has
    none); fixed seeds, so deterministic."""
    result = run_tournament("david_goliath", ["heuristic", "random"], games=300, seed=0)
    standings = {row.label: row for row in result.standings()}
    assert standings["heuristic"].interval[0] > 0.5


def test_tournament_rotates_seats_and_is_seeded():
    a = run_tournament("david_goliath", ["heuristic", "random", "random"], games=6, seed=3)
    b = run_tournament("david_goliath", ["heuristic", "random", "random"], games=6, seed=3)
    assert [r.scores for r in a.records] == [r.scores for r in b.records]
    assert [r.lineup.index("heuristic") for r in a.records] == [0, 2, 1, 0, 2, 1]
    assert "heuristic" in a.table() and "95% CI" in a.table()
    rows = {row.label: row for row in a.standings()}
    assert rows["random"].seat_games == 12 and rows["heuristic"].seat_games == 6
    assert sum(row.wins for row in rows.values()) == pytest.approx(6)


def test_wilson_interval_known_values():
    low, high = wilson_interval(10, 10)
    assert low == pytest.approx(0.7225, abs=1e-4) and high == pytest.approx(1.0)
    low, high = wilson_interval(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-4) and high == pytest.approx(0.5962, abs=1e-4)


def test_unknown_agent_is_named():
    with pytest.raises(ValueError, match="unknown agent 'clever'"):
        load("clever", DavidGoliathGame(4))


def test_terminal_play_rejects_bad_input_and_quits_cleanly():
    inputs = iter(["Z9", "0", "q"])
    out = []
    code = play_in_terminal("david_goliath", 3, ["random"], 0, 5, read=lambda _: next(inputs), write=out.append)
    text = "\n".join(out)
    assert code == 0
    assert "not a card: 'Z9'" in text
    assert "Goodbye." in text
    assert "your hand (player_0)" in text


def test_terminal_play_full_game():
    out = []
    legal_seen = []

    def read(_prompt):
        line = [line for line in out if line.startswith("legal: ")][-1]
        legal_seen.append(line)
        return line.split()[1]

    code = play_in_terminal("david_goliath", 3, ["heuristic", "random"], 1, 2, read=read, write=out.append)
    assert code == 0 and "Final scores" in out[-2] and out[-1].startswith("Winners: ")
    assert len(legal_seen) == 15 * 3  # three rounds by default, 15 cards each


def test_play_decisions_yields_each_choice_before_it_is_applied():
    from hiddenhand.agents import play_decisions

    env = david_goliath_v0.env(num_players=3)
    env.reset(seed=4)
    agents = [RandomAgent(seed=seat) for seat in range(3)]
    seen = 0
    for agent_id, observation, action in play_decisions(env, agents):
        assert agent_id == env.agent_selection and observation["action_mask"][action] == 1
        seen += 1
    assert not env.agents and seen >= 3 * 8  # every card of every hand was played, the last move included
