"""Koehandel Master scoring and payments against docs/koehandel_rules.md (§4.4, §10, K-A11, K-A33..K-A37).

Scoring test cases T1-T6 of §10.3 are checked on ``scoring.player_score`` directly and through a
full rules state (``scores()`` / ``score_breakdown()``); the payment examples of §4.4 on ``money``.
"""

import numpy as np
import pytest

from hiddenhand.envs import koehandel_v0
from hiddenhand.envs.core.rewards import score_margin_rewards, win_loss_rewards, winners
from hiddenhand.envs.koehandel import money
from hiddenhand.envs.koehandel.cards import DENOMINATIONS
from hiddenhand.envs.koehandel.scoring import player_score, removed_by_rats

ROOSTER, GOOSE, CAT, DOG, SHEEP, GOAT, DONKEY, PIG, COW, HORSE, RAT = range(11)
CLASSIC = (10, 40, 90, 160, 250, 350, 500, 650, 800, 1000)


# ----------------------------------------------------------------------------- helpers
def holdings(*complete, rats=0, partial=None):
    """Cards per species 0..10: 4 of every species in ``complete``, ``rats`` rats, plus ``partial``."""
    out = [0] * 11
    for s in complete:
        out[s] = 4
    out[RAT] = rats
    for s, k in (partial or {}).items():
        out[s] = k
    return out


def score(held, pedigrees, cash=0, rule="best_for_holder", money_counts=False):
    return player_score(held, pedigrees, cash, CLASSIC, 250, rule, money_counts)


def counts(*cards):
    """Count vector over the denominations (0, 10, 20, 50, 100, 200, 500) of the listed card values."""
    out = [0] * len(DENOMINATIONS)
    for card in cards:
        out[DENOMINATIONS.index(card)] += 1
    return out


def cards(vector):
    """Sorted card values of a count vector, largest first."""
    return sorted((d for d, k in zip(DENOMINATIONS, vector) for _ in range(k)), reverse=True)


def payment_sets(hand, amount, rule):
    return sorted(tuple(cards(f)) for f in money.legal_payments(counts(*hand), amount, rule))


def state_with(num_players=4, **options):
    env = koehandel_v0.env(num_players=num_players, **options)
    env.reset(seed=0)
    return env, env.state_


def place(state, seat, held, pedigrees=(), hand=None):
    """Give ``seat`` the holdings, the pedigree cards and (optionally) a hand of card values."""
    state.holdings[seat] = list(held)
    for s in pedigrees:
        state.pedigree_owner[s] = seat
    if hand is not None:
        vector = counts(*hand)
        state.hands[seat] = vector
        state.cash[seat] = money.value(vector)
        state.sizes[seat] = sum(vector)


# ----------------------------------------------------------------------------- T1-T6 on player_score
T1_HOLDINGS = holdings(GOOSE, DOG, COW, rats=4)
T1_PEDIGREES = [DOG, HORSE]


def test_t1_rulebook_example_2670_goose_removed():
    """§10.3 T1 (K-A33): removal costs goose 80, dog 570, cow 1,600 -> goose goes; 2,670."""
    result = score(T1_HOLDINGS, T1_PEDIGREES, cash=430)
    assert result["score"] == 2670
    assert result["removed_by_rats"] == GOOSE
    assert sorted(result["quartets"]) == [DOG, COW]
    assert result["quartet_values"] == 960
    assert result["matched_pedigrees"] == [DOG]
    assert result["unmatched_pedigrees"] == [HORSE]
    assert result["multiplier"] == 2
    assert result["money"] == 0


def test_t1_with_money_counts_3100():
    """§8.3 / §10.1 step 6: 2,670 + 430 in money cards = 3,100."""
    result = score(T1_HOLDINGS, T1_PEDIGREES, cash=430, money_counts=True)
    assert result["score"] == 3100
    assert result["money"] == 430


def test_t1_lowest_value_gives_the_same():
    """§10.3 T1: `"lowest_value"` also removes the goose (K-A33)."""
    result = score(T1_HOLDINGS, T1_PEDIGREES, rule="lowest_value")
    assert result["score"] == 2670
    assert result["removed_by_rats"] == GOOSE


def test_t2_no_rats_6970():
    """§10.3 T2: (1000 + 650 + 90 + 250 + 250) x 3 + 250 = 6,970; the rooster pedigree is unmatched."""
    result = score(holdings(HORSE, PIG, CAT), [HORSE, CAT, ROOSTER])
    assert result["score"] == 6970
    assert result["removed_by_rats"] is None
    assert not result["rat_quartet"]
    assert sorted(result["matched_pedigrees"]) == [CAT, HORSE]
    assert result["unmatched_pedigrees"] == [ROOSTER]


def test_t3_best_for_holder_keeps_matched_goose_900():
    """§10.3 T3 (K-A33, K-A35): removing the cat gives 900, better than goose (750) or dog (760)."""
    result = score(holdings(GOOSE, CAT, DOG, rats=4), [GOOSE])
    assert result["score"] == 900
    assert result["removed_by_rats"] == CAT
    assert result["matched_pedigrees"] == [GOOSE]


def test_t3_lowest_value_removes_goose_750():
    """§10.3 T3 with `rat_removal="lowest_value"`: the goose goes, its pedigree becomes unmatched (K-A35)."""
    result = score(holdings(GOOSE, CAT, DOG, rats=4), [GOOSE], rule="lowest_value")
    assert result["score"] == 750
    assert result["removed_by_rats"] == GOOSE
    assert result["unmatched_pedigrees"] == [GOOSE]


@pytest.mark.parametrize("removed, expected", [(GOOSE, 750), (CAT, 900), (DOG, 760)])
def test_t3_every_removal_as_listed(removed, expected):
    """§10.3 T3: the three candidate removals score 750 / 900 / 760."""
    remaining = [s for s in (GOOSE, CAT, DOG) if s != removed]
    assert score(holdings(*remaining), [GOOSE])["score"] == expected


def test_t4_rats_without_animal_quartets_500():
    """§10.3 T4 (K-A34): the rat quartet removes nothing; 0 x 0 + 250 + 250 = 500."""
    result = score(holdings(rats=4), [SHEEP, GOAT])
    assert result["score"] == 500
    assert result["removed_by_rats"] is None
    assert result["rat_quartet"]
    assert result["multiplier"] == 0


def test_t4_single_pedigree_without_quartets_250():
    """§10.3 T4: no quartets at all and one pedigree scores 250."""
    assert score(holdings(), [SHEEP])["score"] == 250
    assert score(holdings(partial={SHEEP: 3}), [SHEEP])["score"] == 250


def test_t5_rats_eat_the_only_quartet_250():
    """§10.3 T5 (K-A35): the horse quartet is removed and its pedigree becomes unmatched."""
    result = score(holdings(HORSE, rats=4), [HORSE])
    assert result["score"] == 250
    assert result["removed_by_rats"] == HORSE
    assert result["unmatched_pedigrees"] == [HORSE]
    assert score(holdings(HORSE), [HORSE])["score"] == 1250


def test_t6_tied_winners_share_victory_rewards():
    """§10.3 T6, §10.4 (K-A36, K-A37): 2,670 / 2,670 / 900 / 500 -> rewards 0, 0, -1, -1."""
    scores = [2670, 2670, 900, 500]
    assert winners(scores) == [0, 1]
    assert win_loss_rewards(scores) == [0.0, 0.0, -1.0, -1.0]


def test_win_loss_sole_winner_and_three_way_tie():
    """§10.4 (K-A37): a sole winner +1, others -1; a 3-way tie gives each 2/3 - 1 = -1/3."""
    assert win_loss_rewards([3100, 2670, 900, 500]) == [1.0, -1.0, -1.0, -1.0]
    assert win_loss_rewards([900, 900, 900, 500]) == pytest.approx([-1 / 3, -1 / 3, -1 / 3, -1.0])
    assert sum(win_loss_rewards([250, 500])) == 0.0  # two players: zero-sum


def test_score_margin_rewards():
    """§10.4 `reward_mode="score_margin"`: (own - mean of the others) / 1000."""
    rewards = score_margin_rewards([2670, 2670, 900, 500], 1000.0)
    assert rewards[0] == pytest.approx((2670 - (2670 + 900 + 500) / 3) / 1000)
    assert rewards[3] == pytest.approx((500 - (2670 + 2670 + 900) / 3) / 1000)


# ----------------------------------------------------------------------------- removal rule details
@pytest.mark.parametrize("quartets", [[GOOSE], [GOOSE, COW], [ROOSTER, HORSE], [CAT, DOG]])
def test_best_removal_is_lowest_value_for_at_most_two_quartets(quartets):
    """§10.1 closed form (K-A33): with n <= 2 quartets the best removal is always the cheapest one,
    even if it carries a matching pedigree."""
    cheapest = min(quartets, key=lambda s: CLASSIC[s])
    for peds in ([], [cheapest], list(quartets)):
        assert removed_by_rats(quartets, peds, CLASSIC, 250, "best_for_holder") == cheapest


def test_best_removal_tie_removes_lowest_species_index():
    """§10.1: if several removals give the same score, the lowest species index is removed."""
    values = (100,) * 10
    assert removed_by_rats([CAT, DOG, COW], [], values, 250, "best_for_holder") == CAT
    assert removed_by_rats([CAT, DOG, COW], [], values, 250, "lowest_value") == CAT


def test_best_removal_matches_brute_force():
    """K-A33: `best_for_holder` is the maximum over all removals, for many quartet/pedigree sets."""
    import itertools

    for quartets in itertools.combinations(range(10), 3):
        for peds in ([], [quartets[0]], [quartets[0], quartets[1]]):
            best = max(score(holdings(*[q for q in quartets if q != r]), peds)["score"] for r in quartets)
            assert score(holdings(*quartets, rats=4), peds)["score"] == best


def test_incomplete_species_and_three_rats_score_nothing():
    """§9.3 provisional scores: incomplete species score nothing; only a complete rat quartet removes."""
    result = score(holdings(HORSE, rats=3, partial={COW: 3, PIG: 2}), [HORSE])
    assert result["score"] == (1000 + 250) * 1
    assert result["removed_by_rats"] is None


def test_custom_animal_values_are_used():
    """K-A1: the quartet values come from `animal_values`."""
    values = tuple(range(100, 1100, 100))
    assert player_score(holdings(ROOSTER, HORSE), [], 0, values, 250, "best_for_holder", False)["score"] \
        == (100 + 1000) * 2


# ----------------------------------------------------------------------------- through a full state
def test_state_scores_four_positions():
    """§10 through ``scores()`` / ``score_breakdown()`` of a 4-player state: T1 on seat 0 (2,670),
    three quartets with a matched pedigree, two unmatched pedigrees, a single quartet."""
    env, s = state_with()
    s.pedigree_owner = [-1] * 10
    # seat 0: T1 (money does not count); seat 1: T2-like without rats; seat 2: T4; seat 3 holds the
    # horse quartet whose pedigree is seat 0's unmatched one.
    place(s, 0, holdings(GOOSE, DOG, COW, rats=4), [DOG, HORSE], hand=[200, 200, 20, 10])
    place(s, 1, holdings(ROOSTER, CAT, PIG), [ROOSTER], hand=[])
    place(s, 2, holdings(), [SHEEP, GOAT], hand=[0])
    place(s, 3, holdings(HORSE), [], hand=[500])
    assert s.scores() == [2670.0, (10 + 90 + 650 + 250) * 3, 500.0, 1000.0]
    breakdown = s.score_breakdown()
    assert set(breakdown) == {"player_0", "player_1", "player_2", "player_3"}
    assert breakdown["player_0"]["removed_by_rats"] == GOOSE
    assert breakdown["player_0"]["unmatched_pedigrees"] == [HORSE]
    assert breakdown["player_2"]["unmatched_pedigrees"] == [SHEEP, GOAT]


def test_state_scores_t3_both_removal_rules():
    """T3 on a state: 900 by default, 750 with `rat_removal="lowest_value"` (K-A33)."""
    for rule, expected in (("best_for_holder", 900.0), ("lowest_value", 750.0)):
        env, s = state_with(rat_removal=rule)
        s.pedigree_owner = [-1] * 10
        place(s, 1, holdings(GOOSE, CAT, DOG, rats=4), [GOOSE])
        assert s.scores()[1] == expected


def test_state_scores_t5_rats_eat_horse():
    """T5 on a state (K-A35): 250, and 1,250 once the rats are elsewhere."""
    env, s = state_with()
    s.pedigree_owner = [-1] * 10
    place(s, 2, holdings(HORSE, rats=4), [HORSE])
    assert s.scores()[2] == 250.0
    place(s, 2, holdings(HORSE), [HORSE])
    place(s, 3, holdings(rats=4))
    assert s.scores()[2] == 1250.0
    assert s.scores()[3] == 0.0  # K-A34: rats alone score nothing


def test_state_money_counts_uses_cash():
    """§8.3: with `money_counts` the state adds each player's cash (T1: 3,100)."""
    env, s = state_with(money_counts=True)
    s.pedigree_owner = [-1] * 10
    place(s, 0, holdings(GOOSE, DOG, COW, rats=4), [DOG, HORSE], hand=[200, 200, 20, 10])
    place(s, 1, holdings(), [], hand=[0, 0, 10, 10, 10, 20, 50])
    assert s.scores()[:2] == [3100.0, 100.0]
    assert s.score_breakdown()["player_0"]["money"] == 430


def test_state_t6_style_tie_rewards_through_win_loss():
    """T6 on a state (K-A36, K-A37): seats 0 and 1 tie on top (sheep quartet 250 vs one unmatched
    pedigree 250), seats 2 and 3 lower -> rewards 0, 0, -1, -1."""
    env, s = state_with()
    s.pedigree_owner = [-1] * 10
    place(s, 0, holdings(SHEEP), [], hand=[500])
    place(s, 1, holdings(partial={COW: 3}), [HORSE], hand=[])
    place(s, 2, holdings(ROOSTER), [], hand=[])
    place(s, 3, holdings(rats=4), [], hand=[])
    scores = s.scores()
    assert scores == [250.0, 250.0, 10.0, 0.0]
    assert win_loss_rewards(scores) == [0.0, 0.0, -1.0, -1.0]


# ----------------------------------------------------------------------------- payments §4.4
def test_payment_example_1_no_change():
    """§4.4 example 1, `"no_change"` (K-A11): {50, 20, 10} and {100}; never zeros or redundant cards."""
    hand = [0, 0, 10, 10, 20, 50, 100]
    assert payment_sets(hand, 80, "no_change") == [(50, 20, 10), (100,)]


def test_payment_example_1_strict():
    """§4.4 example 1, `"strict"` (K-A11): 50 + 20 + 10 is exact, so it is the only legal payment."""
    hand = [0, 0, 10, 10, 20, 50, 100]
    assert payment_sets(hand, 80, "strict") == [(50, 20, 10)]
    assert money.has_exact_payment(counts(*hand), 80)


@pytest.mark.parametrize("rule", ["no_change", "strict"])
def test_payment_example_2_no_exact_payment(rule):
    """§4.4 example 2: H = {0, 50, 50, 100}, X = 80 -> {100} and {50, 50} under both rules."""
    hand = [0, 50, 50, 100]
    assert not money.has_exact_payment(counts(*hand), 80)
    assert payment_sets(hand, 80, rule) == [(50, 50), (100,)]


@pytest.mark.parametrize("rule", ["no_change", "strict"])
def test_payment_example_3_overpay_either_way(rule):
    """§4.4 example 3: H = {20, 20, 50}, X = 30 -> {20, 20} and {50} under both rules."""
    assert payment_sets([20, 20, 50], 30, rule) == [(20, 20), (50,)]


def test_no_change_allows_overpaying_when_exact_is_possible():
    """K-A11 default: an overpayment is legal even when an exact payment exists; strict forbids it."""
    hand = [10, 10, 50]
    assert (50,) in payment_sets(hand, 20, "no_change")
    assert payment_sets(hand, 20, "strict") == [(10, 10)]


def test_every_legal_payment_is_sufficient_and_non_redundant():
    """§4.4 (a) and (b) hold for every enumerated payment; no 0-card is ever part of one."""
    hand = counts(0, 0, 10, 10, 10, 20, 50, 50, 100, 200, 500)
    for amount in range(10, 1000, 10):
        for f in money.legal_payments(hand, amount):
            total = money.value(f)
            smallest = min(d for d, k in zip(DENOMINATIONS, f) if k)
            assert total >= amount and total - smallest < amount
            assert f[0] == 0
            assert all(k <= h for k, h in zip(f, hand))


def test_payments_enumeration_is_complete():
    """§12.3: the enumeration finds every sufficient, non-redundant sub-multiset (brute force)."""
    import itertools

    hand = counts(0, 10, 10, 20, 50, 50, 100, 200)
    for amount in (10, 30, 60, 80, 130, 250, 400):
        brute = set()
        for f in itertools.product(*(range(k + 1) for k in hand)):
            chosen = [d for d, k in zip(DENOMINATIONS, f) for _ in range(k)]
            if chosen and sum(chosen) >= amount and sum(chosen) - min(chosen) < amount:
                brute.add(tuple(f))
        assert set(money.legal_payments(hand, amount)) == brute


def test_payment_masks_follow_the_options_card_by_card():
    """§12.3 selection masks from packed options: CARD(d) iff some legal payment holds the selection plus
    a card of d, DONE iff the selection is a legal payment (checked against the plain definition)."""
    rng = np.random.default_rng(5)
    for _ in range(300):
        hand = [int(k) for k in rng.integers(0, 4, size=7)]
        amount = int(rng.integers(1, 60)) * 10
        options = money.legal_payments(hand, amount, str(rng.choice(["no_change", "strict"])))
        fitting = [money.pack(f) for f in options]
        selection = [0] * 7
        while options:
            grow, complete, fitting = money.extensions(fitting, money.pack(selection))
            expected = [d for d in range(7)
                        if any(f[d] > selection[d] and all(a >= b for a, b in zip(f, selection)) for f in options)]
            assert list(money.guarded_denominations(grow)) == expected
            assert complete == (tuple(selection) in options)
            if not expected:
                break
            selection[int(rng.choice(expected))] += 1


def test_has_exact_payment():
    """§12.3 / K-A11: subset sum over the hand decides whether `"strict"` forces an exact payment."""
    hand = counts(0, 10, 20, 50, 100)
    assert money.has_exact_payment(hand, 180)
    assert money.has_exact_payment(hand, 70)
    assert not money.has_exact_payment(hand, 40)
    assert not money.has_exact_payment(hand, 190)
    assert not money.has_exact_payment(counts(50, 50), 80)


def test_auto_payment_choice():
    """§12.3 `auto_payment`: lowest value, then fewest cards, then the largest vector from the top."""
    pick = lambda hand, amount, rule="no_change": tuple(cards(money.auto_payment(  # noqa: E731
        money.legal_payments(counts(*hand), amount, rule))))
    assert pick([0, 0, 10, 10, 20, 50, 100], 80) == (50, 20, 10)
    assert pick([0, 50, 50, 100], 80) == (100,)          # both worth 100: fewer cards
    assert pick([20, 20, 50], 30) == (20, 20)            # 40 < 50
    assert pick([10, 10, 20, 20], 20) == (20,)           # 20 vs 10+10: fewer cards
    assert pick([50, 20, 20, 10, 10, 10], 60) == (50, 10)  # exact 60s: {50,10} has fewest cards


def test_auto_payment_tie_break_largest_vector_from_top():
    """§12.3: equal value and card count -> prefer more cards of the highest denomination."""
    options = [tuple(counts(50, 10)), tuple(counts(20, 20, 20))]
    assert money.auto_payment(options) == tuple(counts(50, 10))
    options = [tuple(counts(100, 10, 10)), tuple(counts(50, 50, 20))]
    assert money.auto_payment(options) == tuple(counts(100, 10, 10))
