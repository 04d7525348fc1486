"""The cow trade's rules (docs/cow_trade_rules.md: §s, CT- ids; Koehandel's §7 and K-A ids)."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

from hiddenhand.envs import cow_trade_v0
from hiddenhand.envs.core.game import SnapshotError
from hiddenhand.envs.core.options import ConfigError
from hiddenhand.envs.cow_trade import reference
from hiddenhand.envs.cow_trade.hidden import draw_hand
from hiddenhand.envs.cow_trade.vocab import ACCEPT, CARD, COUNTER, DONE
from hiddenhand.envs.koehandel.cards import DENOMINATIONS
from hiddenhand.openspiel.chance import enumerate_outcomes, run_call
from playing import play_random

D0, D10, D20, D50 = (CARD + DENOMINATIONS.index(v) for v in (0, 10, 20, 50))


def position(hands, offer=None, **options):
    """A trade set up with ``hands`` (card values), from a pool large enough for them."""
    env = cow_trade_v0.env(money=[4, 6, 4, 4, 0, 0, 0], hand_sizes=[len(h) for h in hands], **options)
    env.reset(seed=0)
    env.unwrapped.set_position(seed=0, hands=hands, offer=offer)
    return env


def play(env, *actions):
    for action in actions:
        env.step(action)
    return env.unwrapped.state_


def exact_law(call) -> dict:
    """The exact law of a function of a numpy generator (every outcome of its draws, merged)."""
    law: Counter = Counter()
    for probability, script in enumerate_outcomes(call, key=repr):
        law[repr(run_call(call, script)[0])] += probability
    return law


def card_level_law(pool: list[int], size: int, least=None) -> dict:
    """The law of the denominations of ``size`` distinct cards drawn uniformly from ``pool`` (counts),
    given that the hand holds at least ``least``, by brute force over the card sets."""
    cards = [d for d, count in enumerate(pool) for _ in range(count)]
    hands = []
    for chosen in itertools.combinations(range(len(cards)), size):
        hand = [0] * len(pool)
        for i in chosen:
            hand[cards[i]] += 1
        if least is None or all(h >= m for h, m in zip(hand, least)):
            hands.append(repr(hand))
    return {hand: count / len(hands) for hand, count in Counter(hands).items()}


def test_ct1_hands_are_uniformly_random_hands_of_the_pool():
    """CT-1: C's hand, then D's, drawn without replacement from the pool: the multiset of a uniformly random
    set of cards (numpy's multivariate hypergeometric draw, enumerated exactly by the bridge's chance)."""
    game = cow_trade_v0.env(money=[2, 3, 1, 1, 0, 0, 0], hand_sizes=[3, 2]).unwrapped.game
    law = exact_law(lambda rng: game.new_initial_state(rng).start)
    brute: Counter = Counter()
    cards = [d for d, count in enumerate(game.money) for _ in range(count)]
    for order in itertools.permutations(range(len(cards)), 5):
        hands = [[0] * 7, [0] * 7]
        for k, i in enumerate(order):
            hands[k >= 3][cards[i]] += 1
        brute[repr(hands)] += 1
    total = sum(brute.values())
    assert law == pytest.approx({hands: count / total for hands, count in brute.items()})


def test_ct2_offers_are_built_in_ascending_denominations_and_need_a_card():
    """CT-2: a card below the last one chosen is masked; K-A21: DONE only once a card is chosen."""
    env = position([[0, 10, 50], [10, 20, 50]])
    mask = env.unwrapped.legal_actions()
    assert DONE not in mask and {D0, D10, D50} <= set(mask)
    play(env, D10)
    assert set(env.unwrapped.legal_actions()) == {D50, DONE}


def test_accepting_hands_the_offer_to_d_and_the_stake_to_c():
    """§4: D takes the offer unseen, C wins; CT-3: C's score is the stake's worth minus the
    offer, D's the offer."""
    env = position([[0, 10, 50], [10, 20, 50]], stake=2, card_value=40)
    state = play(env, D0, D10, DONE, ACCEPT)
    assert state.is_terminal and state.winner == 0
    assert state.hands == [[0, 0, 0, 1, 0, 0, 0], [1, 2, 1, 1, 0, 0, 0]]
    assert state.scores() == [80 - 10, 10]
    assert sum(state.scores()) == 80  # CT-3: the scores sum to the stake's worth


def test_after_a_counter_the_offers_are_swapped_and_the_higher_total_wins():
    """§4: the exchange; D wins with 70 against 60 and each keeps the money received."""
    env = position([[0, 10, 50], [10, 20, 50]], card_value=30)
    state = play(env, D0, D10, D50, DONE, COUNTER, D20, D50, DONE)
    assert state.is_terminal and state.winner == 1
    assert state.hands == [[0, 0, 1, 1, 0, 0, 0], [1, 2, 0, 1, 0, 0, 0]]
    assert state.scores() == [70 - 60, 30 + 60 - 70]


def test_k_a23_a_tie_repeats_the_trade_and_a_second_tie_goes_to_c():
    env = position([[50, 0], [10, 20, 20]])
    state = play(env, D50, DONE, COUNTER, D10, D20, D20, DONE)
    assert not state.is_terminal and state.round == 2 and state.current_player == 0
    assert state.hands[0] == [1, 1, 2, 0, 0, 0, 0]  # C now holds D's cards
    state = play(env, D10, D20, D20, DONE, COUNTER, D50, DONE)
    assert state.is_terminal and state.winner == 0
    assert state.scores() == [40, 0]  # money went back and forth: C has the stake


def test_ct4_d_sees_the_number_of_cards_offered_never_their_values():
    """CT-4, K-A22: two offers of two cards look the same to D until the exchange or the accept."""
    rich, poor = position([[0, 10, 50, 50], [10, 20, 50]]), position([[0, 10, 50, 50], [10, 20, 50]])
    play(rich, D50, D50, DONE)
    play(poor, D0, D10, DONE)
    seen = [env.observe("player_1")["observation"] for env in (rich, poor)]
    assert np.array_equal(*seen)
    for env in (rich, poor):
        env.step(ACCEPT)
    assert not np.array_equal(rich.observe("player_1")["observation"], poor.observe("player_1")["observation"])


def test_the_re_deal_keeps_what_the_trader_saw_and_draws_the_other_deal_by_card_sets():
    """resample_hidden: the player's observation is unchanged; the other's deal holds every card it was
    seen to give, and is drawn with the law of a uniformly random hand given that."""
    env = position([[50, 0], [10, 20, 20]])
    play(env, D50, DONE, COUNTER, D10, D20, D20, DONE)  # a tie: D gave 10, 20, 20
    for seed in range(5):
        copy = env.unwrapped.determinize("player_0", seed)
        assert np.array_equal(copy.observe("player_0")["observation"], env.observe("player_0")["observation"])
        assert copy.state_.start[1][1] >= 1 and copy.state_.start[1][2] >= 2
        assert copy.game.invariants(copy.state_) == []
    pool, least = [2, 3, 2, 1, 0, 0, 0], [0, 1, 2, 0, 0, 0, 0]
    law = exact_law(lambda rng: draw_hand(pool, least, 4, rng))
    assert law == pytest.approx(card_level_law(pool, 4, least))


def test_the_reference_observation_and_mask_are_the_fast_ones():
    """The observer and legal_mask against envs/cow_trade/reference.py at every step of random games."""
    for seed in range(30):
        env = cow_trade_v0.env(money=[4, 6, 2, 2, 1, 0, 0], hand_sizes=[5, 4])
        env.reset(seed=seed)

        def check(env, observation, taken):
            state = env.unwrapped.state_
            assert np.array_equal(state.legal_mask(), reference.legal_mask(state))
            for seat, agent in enumerate(env.possible_agents):
                assert np.array_equal(env.observe(agent)["observation"], reference.observation(state, seat))

        play_random(env, seed, each_step=check)


def test_invariants_refuse_a_record_that_does_not_replay_to_the_hands():
    env = position([[0, 10, 50], [10, 20, 50]])
    game = env.unwrapped.game
    data = play(env, D0, D10, DONE, COUNTER, D50, DONE).to_json()
    assert game.invariants(game.state_from_json(data)) == []
    data["hands"][0][1] += 1  # a 10 moved from D to C: money is conserved, the record is not
    data["hands"][1][1] -= 1
    assert any("played through the record" in problem for problem in game.invariants(game.state_from_json(data)))


def test_bad_options_and_positions_are_named():
    with pytest.raises(ConfigError, match="money=.* at most Koehandel's money cards"):
        cow_trade_v0.env(money=[13, 0, 0, 0, 0, 0, 0])
    with pytest.raises(ConfigError, match="hand_sizes=.* at most the 7 cards"):
        cow_trade_v0.env(hand_sizes=[4, 4])
    with pytest.raises(ConfigError, match="stake=3"):
        cow_trade_v0.env(stake=3)
    env = cow_trade_v0.env()
    env.reset(seed=0)
    with pytest.raises(SnapshotError, match="hands\\[0\\] holds 30, not a money card"):
        env.unwrapped.set_position(hands=[[30], [10]])
    with pytest.raises(SnapshotError, match="exceed the money pool"):
        env.unwrapped.set_position(hands=[[50, 50, 10], [10, 10, 10]])
