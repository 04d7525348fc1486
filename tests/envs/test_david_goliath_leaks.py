"""Information leaks: determinize() re-deals what an agent cannot see and nothing it can (§6)."""

import numpy as np
import pytest

from hiddenhand.envs import david_goliath_v0
from hiddenhand.envs.core.dealing import deal_constrained


def decision_points(players, seed, count):
    """Yield (env, agent) at random decision points of a random game."""
    rng = np.random.default_rng(seed)
    env = david_goliath_v0.env(num_players=players)
    env.reset(seed=seed)
    stops = set(rng.choice(env.unwrapped.game.max_game_length, size=count, replace=False).tolist())
    for step, agent in enumerate(env.agent_iter()):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        if step in stops:
            yield env, agent
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_determinize_keeps_every_observation_of_the_agent(players):
    changed = 0
    checked = 0
    for env, mover in decision_points(players, seed=players, count=25):
        raw = env.unwrapped
        for agent in raw.possible_agents:
            sampled = raw.determinize(agent, seed=checked)
            checked += 1
            np.testing.assert_array_equal(sampled.observe(agent)["observation"], raw.observe(agent)["observation"])
            np.testing.assert_array_equal(sampled.observe(agent)["action_mask"], raw.observe(agent)["action_mask"])
            seat = raw.possible_agents.index(agent)
            new, old = sampled.state_.hands, raw.state_.hands
            assert (new[seat] == old[seat]).all()
            assert (new.sum(axis=1) == old.sum(axis=1)).all()  # hand sizes kept
            assert (new.sum(axis=0) == old.sum(axis=0)).all()  # same unseen cards
            for other in range(raw.game.seats):  # publicly revealed voids respected (the dummy's too, DG-5)
                for colour in np.flatnonzero(raw.state_.voids[other]):
                    assert not new[other, colour * 18:(colour + 1) * 18].any()
            changed += not (new == old).all()
    assert changed > checked // 2  # other hands really are re-dealt (DG-5: the opponent's with the dummy's)


def test_literal_two_player_redeal_is_the_one_consistent_deal():
    """DG-5 literal variant: the unseen cards are exactly the opponent's hand, so a re-deal changes nothing."""
    env = david_goliath_v0.env(num_players=2, two_player_variant="literal")
    env.reset(seed=4)
    for _ in range(7):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    raw = env.unwrapped
    for agent in raw.possible_agents:
        assert (raw.determinize(agent, seed=1).state_.hands == raw.state_.hands).all()


def test_determinized_env_plays_on_independently():
    env = david_goliath_v0.env(num_players=4)
    env.reset(seed=3)
    for _ in range(30):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    before = env.unwrapped.snapshot()
    sampled = env.unwrapped.determinize("player_2", seed=1)
    assert sampled.history == []
    for agent in sampled.agent_iter():
        obs, _, term, trunc, _ = sampled.last()
        sampled.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    assert env.unwrapped.snapshot() == before


def test_determinize_does_not_copy_the_rng():
    """Future deals come from the sampler's seed: the original RNG would reveal them."""
    env = david_goliath_v0.env(num_players=3)
    env.reset(seed=3)
    a = env.unwrapped.determinize("player_0", seed=1).snapshot()["rng"]
    b = env.unwrapped.determinize("player_0", seed=2).snapshot()["rng"]
    assert a != b and a != env.unwrapped.snapshot()["rng"]


def test_observation_ignores_other_hands():
    """Swapping two opponents' hands (same sizes, no voids yet) leaves an agent's observation as is."""
    env = david_goliath_v0.env(num_players=4)
    env.reset(seed=0)
    raw = env.unwrapped
    before = raw.observe("player_0")["observation"]
    hands = raw.state_.hands
    hands[[1, 2]] = hands[[2, 1]]
    np.testing.assert_array_equal(raw.observe("player_0")["observation"], before)
    assert not np.array_equal(raw.observe("player_1")["observation"], before)


def test_determinize_unknown_agent():
    env = david_goliath_v0.env(num_players=4)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="unknown agent"):
        env.unwrapped.determinize("player_9")


def test_constrained_deal_respects_voids_and_sizes():
    rng = np.random.default_rng(0)
    category = [card // 18 for card in range(90)]
    cards = [card_of(c, v) for c in range(3) for v in range(1, 5)]  # 12 cards of colours 0..2
    allowed = [[True, False, False], [True, True, False], [True, True, True]]
    for _ in range(50):
        hands = deal_constrained(cards, category, [4, 4, 4], allowed, rng)
        assert sorted(sum(hands, [])) == sorted(cards)
        assert all(len(h) == 4 for h in hands)
        assert all(allowed[p][category[c]] for p, hand in enumerate(hands) for c in hand)
    with pytest.raises(ValueError, match="no deal"):
        deal_constrained(cards, category, [4, 4, 4], [[False, True, True]] * 3, rng)


def card_of(colour, value):
    return colour * 18 + value - 1


@pytest.mark.parametrize("players", [3, 4, 6])
def test_a_redeal_ignores_who_truly_holds_the_unseen_cards(players):
    """§6: two positions player_0 cannot tell apart (two opponents' hands swapped, same sizes, no voids)
    re-deal identically for the same seed: the unseen cards are listed canonically, not by true owner."""
    env = david_goliath_v0.env(num_players=players)
    env.reset(seed=players)
    twin = david_goliath_v0.env(num_players=players)
    twin.reset(seed=players)
    hands = twin.unwrapped.state_.hands
    hands[[1, 2]] = hands[[2, 1]]
    twin.unwrapped.state_.colour_counts[1:3] = twin.unwrapped.state_.colour_counts[2:0:-1]
    assert twin.unwrapped.game.invariants(twin.unwrapped.state_) == []
    for seed in range(3):
        a = env.unwrapped.determinize("player_0", seed=seed).snapshot()
        b = twin.unwrapped.determinize("player_0", seed=seed).snapshot()
        assert a == b


def test_a_redeal_under_known_voids_depends_only_on_the_information_set():
    """§6 with revealed voids (the constrained deal): a re-deal of a re-deal equals a re-deal."""
    env = david_goliath_v0.env(num_players=5)
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    raw = env.unwrapped
    while raw.state_.voids[1:].sum() < 2:
        env.step(int(rng.choice(raw.legal_actions())))
    twin = raw.determinize("player_0", seed=99)
    assert not (twin.state_.hands == raw.state_.hands).all()
    for seed in range(3):
        assert raw.determinize("player_0", seed=seed).snapshot() == twin.determinize("player_0", seed=seed).snapshot()


def test_the_observation_follows_public_data_changed_without_any_counter():
    """Issue 23: the seat rows were cached on a hand-bumped ``public_epoch``; a change that forgot to bump
    it (here a void marked directly) left every seat a stale view. The cache key is read from the state."""
    env = david_goliath_v0.env(num_players=4)
    env.reset(seed=0)
    raw = env.unwrapped
    layout = raw.observer.layout
    seats = layout.view(raw.observe("player_0")["observation"], "seats")
    assert not seats[1, 90:95].any()
    raw.state_.voids[1, 2] = 1  # §6: seat 1 revealed a void in green
    seats = layout.view(raw.observe("player_0")["observation"], "seats")
    np.testing.assert_array_equal(seats[1, 90:95], [0, 0, 1, 0, 0])
