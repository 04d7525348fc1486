"""Koehandel Master rules against docs/koehandel_rules.md: scripted positions driven through the env.

Technique: reset an env with a seed, set up a position by assigning rules-state fields (``poke``,
``set_hand``, ``hold``, ``start_turn``), then play actions with ``env.step`` so that the core checks
their legality, and compare masks with ``env.legal_actions()``. Each test names the sections and
K-A ids it checks.
"""

import numpy as np
import pytest

from hiddenhand.envs import koehandel_v0
from hiddenhand.envs.core.options import ConfigError
from hiddenhand.envs.core.rewards import win_loss_rewards
from hiddenhand.envs.koehandel import actions as A
from hiddenhand.envs.koehandel.cards import DENOMINATIONS, MONEY, PEDIGREE
from hiddenhand.envs.koehandel.money import value

ROOSTER, GOOSE, CAT, DOG, SHEEP, GOAT, DONKEY, PIG, COW, HORSE, RAT = range(11)
START = [2, 3, 1, 1, 0, 0, 0]  # 2x0, 3x10, 1x20, 1x50
UNKNOWN = [-1] * 7


# ============================================================================= helpers
def make(num_players=4, seed=0, **options):
    env = koehandel_v0.env(num_players=num_players, **options)
    env.reset(seed=seed)
    return env


def counts(*cards):
    """Count vector over (0, 10, 20, 50, 100, 200, 500) of the listed card values."""
    out = [0] * 7
    for card in cards:
        out[DENOMINATIONS.index(card)] += 1
    return out


def plus(a, b):
    return [x + y for x, y in zip(a, b)]


def minus(a, b):
    return [x - y for x, y in zip(a, b)]


def sync(env):
    """After poking the state: the env caches the mask and the agent selection, the observer its blocks."""
    env._mask_fresh = False
    env.observer.invalidate()
    env.agent_selection = env.possible_agents[env.state_.current_player]


def poke(env, **fields):
    s = env.state_
    for name, val in fields.items():
        setattr(s, name, val)
    sync(env)
    return s


def set_hand(env, seat, *cards):
    """Give ``seat`` exactly these money cards (hand, cash and hand size kept consistent)."""
    s = env.state_
    s.hands[seat] = counts(*cards)
    s.cash[seat] = sum(cards)
    s.sizes[seat] = len(cards)
    sync(env)


def hold(env, seat, cards):
    """Set ``seat``'s holdings from {species: count}."""
    s = env.state_
    s.holdings[seat] = [cards.get(sp, 0) for sp in range(11)]
    sync(env)


def start_turn(env, seat, top=(), deck=None):
    """A fresh deck-phase (or, with ``deck=[]``, final-phase) turn of ``seat``; ``top[0]`` is drawn first."""
    s = env.state_
    s._clear_auction()
    s._clear_trade()
    if deck is not None:
        s.deck = list(deck)
    s.deck.extend(reversed(list(top)))
    s.turn_player = seat
    s._set(A.D_TURN, seat)
    sync(env)
    return s


def do(env, seat, *actions):
    """``seat`` plays ``actions`` in order (each must be legal and ``seat`` must be on turn)."""
    for action in actions:
        assert env.state_.current_player == seat, (
            f"expected seat {seat} to act, but seat {env.state_.current_player} is (decision "
            f"{env.state_.decision}) before {A.ACTION_NAMES[action]}")
        assert env.agent_selection == f"player_{seat}"
        env.step(action)


def legal(env):
    return set(env.legal_actions())


def add_steps(amount):
    """ADD actions composing a raise of ``amount`` (largest steps first)."""
    steps = []
    for j in reversed(range(len(A.RAISES))):
        while amount >= A.RAISES[j]:
            steps.append(A.ADD + j)
            amount -= A.RAISES[j]
    assert amount == 0
    return steps


def bid_to(env, seat, level):
    """``seat`` raises the high bid to ``level`` and commits it."""
    do(env, seat, *add_steps(level - env.state_.high), A.BID)


def card(v):
    return A.CARD + DENOMINATIONS.index(v)


def lay(v):
    return A.LAY + DENOMINATIONS.index(v)


def offer(env, seat, *cards):
    """A selection closed with DONE (offer, counter-offer or payment)."""
    do(env, seat, *[card(v) for v in cards], A.DONE)


def poll(env, winner, price):
    """The bidding from here on: ``winner`` bids ``price`` when polled, everyone else passes."""
    s = env.state_
    while s.decision == A.D_BID:
        p = s.current_player
        if p == winner and s.high_bidder != winner:
            bid_to(env, p, price)
        else:
            do(env, p, A.PASS)


def sale(env, winner, price, auctioneer=0, top=COW):
    """Auction ``top`` by ``auctioneer``: ``winner`` bids ``price`` when polled, everyone else passes,
    up to the auctioneer's buy-right decision (D5)."""
    s = start_turn(env, auctioneer, [top])
    do(env, auctioneer, A.AUCTION)
    poll(env, winner, price)
    assert s.decision == A.D_BUYRIGHT and s.high == price and s.high_bidder == winner
    return s


def obs(env, seat):
    return env.observe(f"player_{seat}")["observation"].copy()


def block(env, seat, name):
    return env.observer.layout.view(obs(env, seat), name)


def record(env, seat, table):
    return env.private_record(f"player_{seat}")[table]


def slot(viewer, seat, n=4):
    return (seat - viewer) % n


# ============================================================================= setup (§2, K-A2..K-A5)
@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_setup_three_to_six_players(n):
    """§2.1 (K-A2, K-A3): start hands 2x0 3x10 1x20 1x50, bank = composition minus hands, 54-card deck."""
    env = make(n, seed=3)
    s = env.state_
    assert s.hands == [START] * n
    assert s.cash == [100] * n and s.sizes == [7] * n
    assert s.bank == [12 - 2 * n, 18 - 3 * n, 6 - n, 12 - n, 6, 6, 6]
    assert [sum(h[d] for h in s.hands) + s.bank[d] for d in range(7)] == [12, 18, 6, 12, 6, 6, 6]
    assert s.bank[3] >= n  # the bank always suffices for the 50-payout
    red = [sp for sp in range(10) for _ in range(4)] + [RAT] * 4 + [PEDIGREE + sp for sp in range(10)]
    assert sorted(s.deck) == sorted(red)
    assert s.donkeys == 0
    assert s.holdings == [[0] * 11 for _ in range(n)] and s.pedigree_owner == [-1] * 10
    assert s.decision == A.D_TURN and s.current_player == s.turn_player
    assert env.legal_actions() == [A.AUCTION]  # §3: nobody owns animals yet


def test_money_composition_derivation():
    """K-A2 (§1.4): 12x0, 18x10, 6x20, 12x50, 6x100, 6x200, 6x500 = 66 cards worth 5,700."""
    cfg = make(4).game.cfg
    assert cfg.money_composition == (12, 18, 6, 12, 6, 6, 6)
    assert sum(cfg.money_composition) == 66
    assert value(cfg.money_composition) == 5700


def test_zero_cards_exist_and_are_usable_but_never_in_amount_payments():
    """K-A3: zeros are in the start hand, may be laid in a rat pot and in offers, never paid as an amount."""
    env = make(4)
    s = start_turn(env, 0, [RAT])
    do(env, 0, A.AUCTION)
    assert lay(0) in legal(env)
    do(env, 1, lay(0))
    do(env, 2, A.TAKE)
    assert env.state_.hands[2] == plus(START, counts(0))
    # an amount payment (D6) never allows the 0-card
    env = make(4)
    sale(env, winner=1, price=30)
    do(env, 0, A.DECLINE)
    assert env.state_.decision == A.D_PAY and card(0) not in legal(env)
    assert env.state_.hands[1][0] == 2


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_setup_two_players(seed):
    """§2.2 (K-A5): start hands with zeros, reserve 2x50..2x500, 8 zeros and 10 random cards removed,
    80-card deck with 26 money cards."""
    env = make(2, seed=seed)
    s = env.state_
    assert s.hands == [START, START]
    assert s.bank == [0, 0, 0, 2, 2, 2, 2]  # the donkey reserve
    assert len(s.deck) == 80
    money = [c for c in s.deck if c >= MONEY]
    assert len(money) == 26
    in_deck = [sum(1 for c in money if c == MONEY + d) for d in range(7)]
    assert in_deck[0] == 0  # no zero card is shuffled into the deck
    assert s.removed[0] == 8
    assert sum(s.removed[1:]) == 10
    assert plus(in_deck, [0] + s.removed[1:]) == [0, 12, 4, 8, 4, 4, 4]  # 36 cards before the removal
    red = [sp for sp in range(10) for _ in range(4)] + [RAT] * 4 + [PEDIGREE + sp for sp in range(10)]
    assert sorted(c for c in s.deck if c < MONEY) == sorted(red)
    assert env.legal_actions() == [A.AUCTION]


def test_setup_two_players_removed_cards_depend_on_seed():
    """§2.2 step 4: the 10 removed cards are drawn with the seeded generator."""
    removed = {tuple(make(2, seed=seed).state_.removed) for seed in range(12)}
    assert len(removed) > 1
    assert make(2, seed=5).state_.removed == make(2, seed=5).state_.removed
    assert make(2, seed=5).state_.deck == make(2, seed=5).state_.deck


def test_setup_two_players_without_start_zeros():
    """K-A5 option `two_player_start_zeros=False`: 5-card start hands, all 12 zeros removed."""
    s = make(2, two_player_start_zeros=False).state_
    assert s.hands == [[0, 3, 1, 1, 0, 0, 0]] * 2
    assert s.sizes == [5, 5] and s.cash == [100, 100]
    assert s.removed[0] == 12
    assert len(s.deck) == 80


def test_two_player_start_zeros_option_has_no_effect_with_more_players():
    """Appendix A: `two_player_start_zeros` only matters with 2 players."""
    s = make(4, two_player_start_zeros=False).state_
    assert s.hands == [START] * 4


def test_start_player_is_random_and_seeded():
    """K-A4: the start player is drawn uniformly with the seeded generator."""
    starts = [make(4, seed=seed).state_.turn_player for seed in range(40)]
    assert set(starts) == {0, 1, 2, 3}
    assert make(4, seed=11).state_.turn_player == make(4, seed=11).state_.turn_player


def test_deck_shuffle_is_seeded():
    """§0 Randomness: seed + configuration determine the deck."""
    assert make(5, seed=9).state_.deck == make(5, seed=9).state_.deck
    assert make(5, seed=9).state_.deck != make(5, seed=10).state_.deck


# ============================================================================= donkeys (§4.1, K-A27)
def test_donkey_payouts_every_player_50_100_200_500():
    """§4.1 (K-A2): the 1st..4th donkey pays every player, auctioneer included, 50/100/200/500 from the
    bank; after the fourth each player has received 950 in total."""
    env = make(4)
    s = start_turn(env, 0, [DONKEY] * 4)
    paid = 0
    for k, payout in enumerate((50, 100, 200, 500), start=1):
        bank_before = list(s.bank)
        do(env, s.turn_player, A.AUCTION)
        paid += payout
        d = DENOMINATIONS.index(payout)
        assert s.donkeys == k
        assert s.cash == [100 + paid] * 4
        assert s.bank[d] == bank_before[d] - 4
        for _ in range(3):  # nobody bids: the auctioneer takes the donkey
            do(env, s.current_player, A.PASS)
    assert sum(s.cash) == 950 * 4
    assert sum(h[DONKEY] for h in s.holdings) == 4
    assert [e["donkey_payout"] for e in env.events] == [50, 100, 200, 500]
    assert [row[4] for row in record(env, 3, "auctions")] == [50, 100, 200, 500]


def test_two_player_donkey_payouts_from_reserve_x_before_y():
    """§8.1 step 4 (K-A27): X and Y both donkeys -> 50 for X, then 100 for Y, to both players."""
    env = make(2)
    s = start_turn(env, 0, [DONKEY, DONKEY])
    do(env, 0, A.AUCTION)
    do(env, 0, A.KEEP)
    assert s.holdings[0][DONKEY] == 1 and s.holdings[1][DONKEY] == 1
    assert s.hands == [plus(START, counts(50, 100))] * 2
    assert s.bank == [0, 0, 0, 0, 0, 2, 2]  # one card of each per player
    assert env.events[-1]["donkey_payouts"] == [50, 100]
    assert s.donkeys == 2


# ============================================================================= bidding (§4.2, K-A7..K-A9)
def test_bidding_protocol_example_section_4_2():
    """§4.2 example (K-A7, K-A8): polling order 1, 2, 3, 1, 2, 3; sale at 80 to seat 1."""
    env = make(4)
    s = start_turn(env, 0, [COW])
    do(env, 0, A.AUCTION)
    assert s.decision == A.D_BID and s.auctioneer == 0
    do(env, 1, A.ADD + 0, A.BID)
    assert (s.high, s.high_bidder) == (10, 1)
    do(env, 2, A.ADD + 1, A.BID)
    assert (s.high, s.high_bidder) == (60, 2)
    do(env, 3, A.PASS)
    do(env, 1, A.ADD + 0, A.ADD + 0, A.BID)
    assert (s.high, s.high_bidder) == (80, 1)
    do(env, 2, A.PASS)
    do(env, 3, A.PASS)
    assert s.decision == A.D_BUYRIGHT and s.current_player == 0
    assert s.bids == [[1, 10], [2, 60], [1, 80]]
    do(env, 0, A.DECLINE)
    offer(env, 1, 50, 20, 10)
    assert s.holdings[1][COW] == 1
    assert s.cash[0] == 180 and s.cash[1] == 20
    # the others saw only the committed bids: R1 holds each seat's highest committed bid
    row = record(env, 2, "auctions")[-1]
    assert row[5:9] == [60, 0, 0, 80]  # slots: self (seat 2), seat 3, seat 0 (A), seat 1
    assert row[12] == slot(2, 1) and row[13] == 80 and row[14] == 1
    assert s.decision == A.D_TURN and s.current_player == 1  # left neighbour of the auctioneer


def test_pending_raise_is_private():
    """§4.6 (K-A8): nobody else's observation changes while the polled bidder builds his raise."""
    env = make(4)
    start_turn(env, 0, [COW])
    do(env, 0, A.AUCTION)
    others = {seat: obs(env, seat) for seat in (0, 2, 3)}
    own = obs(env, 1)
    do(env, 1, A.ADD + 1, A.ADD + 0)
    for seat, before in others.items():
        assert np.array_equal(obs(env, seat), before)
    assert not np.array_equal(obs(env, 1), own)
    assert block(env, 1, "auction")[5] == 60  # own pending raise
    do(env, 1, A.BID)
    assert block(env, 2, "auction")[2] == 60  # the committed bid is public
    assert block(env, 2, "auction")[5] == 0


def test_no_bid_auctioneer_takes_the_animal_free():
    """§4.2 end of bidding (every bidder passed once) and §4.3: A takes the animal for free."""
    env = make(4)
    s = start_turn(env, 2, [PIG])
    do(env, 2, A.AUCTION)
    do(env, 3, A.PASS)
    do(env, 0, A.PASS)
    do(env, 1, A.PASS)
    assert s.holdings[2][PIG] == 1
    assert s.cash == [100] * 4
    assert env.events[-1]["price"] == 0 and env.events[-1]["winner"] is None
    assert s.decision == A.D_TURN and s.current_player == 3


def test_pass_is_not_final():
    """K-A7: a player who passed is polled again after someone else bid, and may bid then."""
    env = make(4)
    s = start_turn(env, 0, [COW])
    do(env, 0, A.AUCTION)
    do(env, 1, A.PASS)
    bid_to(env, 2, 10)
    do(env, 3, A.PASS)
    assert s.current_player == 1 and A.ADD in legal(env)
    bid_to(env, 1, 20)
    do(env, 2, A.PASS)
    assert s.decision == A.D_BID  # seat 3 still to be polled: p = 1 < m - 1
    do(env, 3, A.PASS)
    assert s.decision == A.D_BUYRIGHT and (s.high, s.high_bidder) == (20, 1)


def test_pass_is_final_option_drops_the_passer():
    """K-A7 option `pass_is_final`: seat 1 passes and is never polled again; bidding ends when only
    the high bidder is left."""
    env = make(4, pass_is_final=True)
    s = start_turn(env, 0, [COW])
    do(env, 0, A.AUCTION)
    do(env, 1, A.PASS)
    bid_to(env, 2, 10)
    bid_to(env, 3, 20)
    assert s.current_player == 2  # seat 1 skipped: his pass was final
    do(env, 2, A.PASS)
    assert s.decision == A.D_BUYRIGHT and (s.high, s.high_bidder) == (20, 3)


def test_pass_is_final_all_pass_no_bid():
    """K-A7 option `pass_is_final`: E empties without a bid -> A takes the card free."""
    env = make(4, pass_is_final=True)
    s = start_turn(env, 1, [GOAT])
    do(env, 1, A.AUCTION)
    for seat in (2, 3, 0):
        do(env, seat, A.PASS)
    assert s.holdings[1][GOAT] == 1


def test_pass_is_final_single_remaining_bidder_wins_at_once():
    """K-A7 option: after seat 1 bids, seats 2 and 3 pass once each -> sale, nobody polled again."""
    env = make(4, pass_is_final=True)
    s = start_turn(env, 0, [COW])
    do(env, 0, A.AUCTION)
    bid_to(env, 1, 30)
    do(env, 2, A.PASS)
    do(env, 3, A.PASS)
    assert s.decision == A.D_BUYRIGHT and s.high_bidder == 1


def test_three_players_alternate():
    """§4.2: with N = 3 the protocol alternates and the single other bidder's pass ends the bidding."""
    env = make(3)
    s = start_turn(env, 0, [COW])
    do(env, 0, A.AUCTION)
    bid_to(env, 1, 10)
    bid_to(env, 2, 20)
    bid_to(env, 1, 30)
    do(env, 2, A.PASS)
    assert s.decision == A.D_BUYRIGHT and (s.high, s.high_bidder) == (30, 1)


def test_high_bidder_is_never_polled():
    """§4.2 polling skips w: after seat 3 bids, seats 1 and 2 are polled, never seat 3."""
    env = make(4)
    s = start_turn(env, 0, [COW])
    do(env, 0, A.AUCTION)
    do(env, 1, A.PASS)
    do(env, 2, A.PASS)
    bid_to(env, 3, 10)
    polled = []
    while s.decision == A.D_BID:
        polled.append(s.current_player)
        do(env, s.current_player, A.PASS)
    assert polled == [1, 2]
    assert s.high_bidder == 3


def test_bid_masks_follow_cash_in_mask_mode():
    """§4.2 legality, K-A8, K-A9 (mask): ADD(a) iff h + Δ + a <= cash; PASS only while Δ = 0; BID
    only once Δ >= 10."""
    env = make(4)
    s = start_turn(env, 0, [COW])
    set_hand(env, 3, 500, 200, 200, 100)
    do(env, 0, A.AUCTION)
    assert legal(env) == {A.PASS, A.ADD + 0, A.ADD + 1, A.ADD + 2}  # cash 100: no ADD(500)
    do(env, 1, A.ADD + 1)
    assert legal(env) == {A.ADD + 0, A.ADD + 1, A.BID}  # no PASS after an ADD, no undo
    do(env, 1, A.ADD + 1)
    assert legal(env) == {A.BID}  # the bid reached the cash
    do(env, 1, A.BID)
    assert s.high == 100
    assert legal(env) == {A.PASS}  # seat 2 has cash 100 = h: cannot raise
    do(env, 2, A.PASS)
    assert legal(env) == {A.PASS, A.ADD + 0, A.ADD + 1, A.ADD + 2, A.ADD + 3}
    do(env, 3, A.ADD + 0, A.ADD + 0, A.ADD + 0, A.BID)  # any multiple of 10 can be built: +30
    assert s.high == 130 and s.high_bidder == 3


def test_bid_levels_with_large_steps():
    """K-A8: ADD steps of 10, 50, 100, 500 compose any admissible level (here 670)."""
    env = make(4)
    s = start_turn(env, 0, [COW])
    set_hand(env, 1, 500, 200)
    do(env, 0, A.AUCTION)
    do(env, 1, A.ADD + 3, A.ADD + 2, A.ADD + 1, A.ADD + 0, A.ADD + 0, A.BID)
    assert s.high == 670


# ============================================================================= buy-right (§4.3, K-A10)
def test_buy_right_needs_cash_at_least_h():
    """K-A10: BUY is legal only if the auctioneer's cash >= h."""
    env = make(4)
    sale(env, winner=1, price=80)
    assert legal(env) == {A.DECLINE, A.BUY}
    env = make(4)
    s = start_turn(env, 0)
    set_hand(env, 0, 50, 20)
    sale(env, winner=1, price=80)
    assert legal(env) == {A.DECLINE}
    assert s.cash[0] == 70


def test_buy_right_auctioneer_pays_winner_and_keeps_animal():
    """§4.3 BUY: A pays h to w (D6) and keeps the animal."""
    env = make(4)
    s = sale(env, winner=2, price=80)
    do(env, 0, A.BUY)
    assert s.decision == A.D_PAY and s.current_player == 0
    offer(env, 0, 50, 20, 10)
    assert s.holdings[0][COW] == 1 and s.holdings[2][COW] == 0
    assert s.cash[0] == 20 and s.cash[2] == 180
    event = env.events[-1]
    assert event["decision"] == "buy" and event["payer"] == 0 and event["payee"] == 2


# ============================================================================= payments (§4.4, §12.3, K-A11)
def _sale_with_hand(rule, price=80, **options):
    env = make(4, payment_rule=rule, **options)
    start_turn(env, 0)
    set_hand(env, 1, 0, 0, 10, 10, 20, 50, 100)
    sale(env, winner=1, price=price)
    do(env, 0, A.DECLINE)
    return env


def test_payment_mask_step_by_step_no_change():
    """§12.3 D6 (K-A11 `"no_change"`): H = {0,0,10,10,20,50,100}, X = 80 -> {50,20,10} or {100}."""
    env = _sale_with_hand("no_change")
    s = env.state_
    assert s.decision == A.D_PAY and s.current_player == 1
    assert legal(env) == {card(10), card(20), card(50), card(100)}  # no 0, no DONE yet
    do(env, 1, card(50))
    assert legal(env) == {card(10), card(20)}  # {100, 50} would be redundant
    do(env, 1, card(20))
    assert legal(env) == {card(10)}
    do(env, 1, card(10))
    assert legal(env) == {A.DONE}
    do(env, 1, A.DONE)
    assert s.hands[1] == counts(0, 0, 10, 100)
    assert s.cash[0] == 180


def test_payment_mask_small_card_first_no_change():
    """§12.3: after CARD(10) only completions of {50,20,10} remain; {100,10} is redundant."""
    env = _sale_with_hand("no_change")
    do(env, 1, card(10))
    assert legal(env) == {card(20), card(50)}


def test_payment_overpay_payee_keeps_surplus():
    """§4.4 (K-A11 default): {100} is legal although 80 can be paid exactly; no change is given."""
    env = _sale_with_hand("no_change")
    s = env.state_
    do(env, 1, card(100))
    assert legal(env) == {A.DONE}
    do(env, 1, A.DONE)
    assert s.cash[0] == 200 and s.cash[1] == 90
    assert s.holdings[1][COW] == 1


def test_payment_mask_step_by_step_strict():
    """K-A11 `"strict"`: an exact payment exists, so {100} is masked and only {50,20,10} can be built."""
    env = _sale_with_hand("strict")
    assert legal(env) == {card(10), card(20), card(50)}
    do(env, 1, card(20))
    assert legal(env) == {card(10), card(50)}
    do(env, 1, card(50), card(10))
    assert legal(env) == {A.DONE}
    do(env, 1, A.DONE)
    assert env.state_.cash[0] == 180


def test_payment_strict_without_exact_payment():
    """§4.4 example 2 in the env: H = {0,50,50,100}, X = 80 -> {100} or {50,50} under `"strict"` too."""
    env = make(4, payment_rule="strict")
    start_turn(env, 0)
    set_hand(env, 1, 0, 50, 50, 100)
    sale(env, winner=1, price=80)
    do(env, 0, A.DECLINE)
    assert legal(env) == {card(50), card(100)}
    do(env, 1, card(50))
    assert legal(env) == {card(50)}
    do(env, 1, card(50), A.DONE)
    assert env.state_.cash[0] == 200


def test_auto_payment_option():
    """§12.3 `auto_payment`: the env pays {50,20,10} itself (lowest value); no D6 step."""
    env = make(4, auto_payment=True)
    s = start_turn(env, 0)
    set_hand(env, 1, 0, 0, 10, 10, 20, 50, 100)
    sale(env, winner=1, price=80)
    do(env, 0, A.DECLINE)
    assert s.hands[1] == counts(0, 0, 10, 100)
    assert s.cash[0] == 180
    assert s.decision == A.D_TURN and s.current_player == 1


def test_auto_payment_for_buy_right():
    """§12.3 `auto_payment` also pays for the auctioneer after BUY: H = {0,50,50,100}, X = 80 -> {100}."""
    env = make(4, auto_payment=True)
    s = start_turn(env, 0)
    set_hand(env, 0, 0, 50, 50, 100)
    sale(env, winner=3, price=80)
    do(env, 0, A.BUY)
    assert s.hands[0] == counts(0, 50, 50)
    assert s.cash[3] == 200
    assert s.holdings[0][COW] == 1


def test_payment_composition_private_by_default():
    """K-A12 default: payer and payee see the paid cards; the others see only their number."""
    env = make(4)
    sale(env, winner=1, price=80)
    do(env, 0, A.DECLINE)
    offer(env, 1, 50, 20, 10)
    paid = counts(50, 20, 10)
    for seat in (0, 1):
        assert record(env, seat, "auctions")[-1][16:23] == paid
    for seat in (2, 3):
        row = record(env, seat, "auctions")[-1]
        assert row[16:23] == UNKNOWN
        assert row[15] == 3 and row[13] == 80
    assert env.observer.layout.view(obs(env, 2), "record_auctions")[0][16:23].tolist() == UNKNOWN


def test_payment_selection_hidden_while_building():
    """K-A12, §12.5: the cards a payer has selected so far are visible to the payer only."""
    views = []
    for first in (50, 100):
        env = _sale_with_hand("no_change")
        do(env, 1, card(first))
        views.append({seat: obs(env, seat) for seat in range(4)})
    for seat in (0, 2, 3):
        assert np.array_equal(views[0][seat], views[1][seat])
    assert not np.array_equal(views[0][1], views[1][1])


def test_payment_composition_public_option():
    """K-A12 option `public_auction_payments=True`: everybody sees the paid cards."""
    env = make(4, public_auction_payments=True)
    sale(env, winner=1, price=80)
    do(env, 0, A.DECLINE)
    offer(env, 1, 50, 20, 10)
    for seat in range(4):
        assert record(env, seat, "auctions")[-1][16:23] == counts(50, 20, 10)


def digest(env, viewer, seat):
    """Block-2 row of ``viewer`` about ``seat`` (17 columns, §12.5)."""
    return block(env, viewer, "digest")[slot(viewer, seat) - 1].tolist()


def test_digest_after_hidden_auction_payment():
    """§12.5 block 2 with K-A12: payer and payee see the cards move; a bystander sees 3 unseen cards
    leave the payer (L drops by min(500 n, X + 490)) and enter the payee (L unchanged)."""
    env = make(4)
    sale(env, winner=1, price=80)
    do(env, 0, A.DECLINE)
    offer(env, 1, 50, 20, 10)
    paid = counts(50, 20, 10)
    assert digest(env, 0, 1)[7:14] == paid and digest(env, 0, 1)[16] == 20
    assert digest(env, 1, 0)[0:7] == paid and digest(env, 1, 0)[16] == 180
    bystander_on_payer = digest(env, 2, 1)
    assert bystander_on_payer[7:14] == [0] * 7 and bystander_on_payer[15] == 3
    assert bystander_on_payer[16] == max(0, 100 - min(500 * 3, 80 + 490))
    bystander_on_payee = digest(env, 2, 0)
    assert bystander_on_payee[14] == 3 and bystander_on_payee[16] == 100


def _bid_300_then_buy(**options):
    """Seat 2 (hand {500}) bids 300; A (hand {500}) buys and pays {500} to seat 2."""
    env = make(4, **options)
    start_turn(env, 0, [COW])
    set_hand(env, 0, 500)
    set_hand(env, 2, 500)
    do(env, 0, A.AUCTION)
    poll(env, winner=2, price=300)
    do(env, 0, A.BUY)
    offer(env, 0, 500)
    return env


def test_committed_bid_proves_cash_in_mask_mode():
    """K-A9 (mask), §11.2: a committed bid is a public lower bound on the bidder's cash."""
    env = _bid_300_then_buy()
    assert digest(env, 1, 2)[16] == 300 and digest(env, 3, 2)[16] == 300


def test_committed_bid_proves_nothing_in_reveal_and_restart():
    """K-A9: with `reveal_and_restart` a bid may exceed the cash, so it is no proof."""
    env = _bid_300_then_buy(overbid_mode="reveal_and_restart")
    assert digest(env, 1, 2)[16] == 100


# ============================================================================= reveal_and_restart (§4.5, K-A9)
def test_reveal_and_restart_bids_up_to_the_public_cap():
    """K-A9 `reveal_and_restart`: ADD is legal up to `overbid_cap` (default: all money in hands, 400)."""
    env = make(4, overbid_mode="reveal_and_restart")
    s = start_turn(env, 0, [COW])
    do(env, 0, A.AUCTION)
    assert A.ADD + 2 in legal(env) and A.ADD + 3 not in legal(env)
    do(env, 1, A.ADD + 2, A.ADD + 2, A.ADD + 2, A.ADD + 2)
    assert legal(env) == {A.BID}
    do(env, 1, A.BID)
    assert s.high == 400 > s.cash[1]
    env = make(4, overbid_mode="reveal_and_restart", overbid_cap=1000)
    start_turn(env, 0, [COW])
    do(env, 0, A.AUCTION)
    assert A.ADD + 3 in legal(env)


def test_animal_default_reveals_hand_excludes_and_restarts():
    """§4.5 (K-A9): w cannot pay after DECLINE -> hand revealed to all, w excluded, restart at h = 0 with
    the same auctioneer; the donkey payout is not repeated."""
    env = make(4, overbid_mode="reveal_and_restart")
    s = sale(env, winner=1, price=200, top=DONKEY)
    assert s.cash == [150] * 4
    assert legal(env) == {A.DECLINE}  # A's cash 150 < 200 (K-A10)
    do(env, 0, A.DECLINE)
    assert s.excluded == [1]
    assert s.decision == A.D_BID and s.current_player == 2 and s.high == 0
    assert s.cash == [150] * 4 and s.donkeys == 1  # no second payout
    for viewer in range(4):
        rows = record(env, viewer, "defaults")
        assert len(rows) == 1
        assert rows[0][1:4] == [1, DONKEY, slot(viewer, 1)]
        assert rows[0][4:] == plus(START, counts(50))
        if viewer != 1:
            assert digest(env, viewer, 1)[16] == 150  # the revealed cash
    do(env, 2, A.PASS)
    do(env, 3, A.PASS)  # seat 1 is never polled again
    assert s.holdings[0][DONKEY] == 1
    assert record(env, 2, "auctions")[-1][23] == 1  # number of defaults on this card
    assert s.decision == A.D_TURN and s.current_player == 1


def test_animal_restart_sale_to_another_bidder():
    """§4.5: after the default the remaining bidders bid again; the new winner pays normally."""
    env = make(4, overbid_mode="reveal_and_restart")
    s = sale(env, winner=1, price=300)
    do(env, 0, A.DECLINE)
    poll(env, winner=2, price=20)
    assert s.decision == A.D_BUYRIGHT and s.high_bidder == 2
    do(env, 0, A.DECLINE)
    offer(env, 2, 20)
    assert s.holdings[2][COW] == 1 and s.cash[0] == 120


def test_animal_buy_against_insolvent_winner_stands():
    """§4.5 / K-A39 contrast: in the animal auction the solvency check comes only after DECLINE, so A may
    buy (paying w) even if w could not have paid."""
    env = make(4, overbid_mode="reveal_and_restart")
    s = start_turn(env, 0)
    set_hand(env, 1, 10)
    sale(env, winner=1, price=50)
    assert legal(env) == {A.DECLINE, A.BUY}
    do(env, 0, A.BUY)
    offer(env, 0, 50)
    assert s.holdings[0][COW] == 1 and s.cash[1] == 60 and s.excluded == []
    assert record(env, 1, "defaults") == []


def test_animal_all_bidders_excluded_auctioneer_takes_free():
    """§4.5: if every bidder ends up excluded, A takes the card for free (3 players)."""
    env = make(3, overbid_mode="reveal_and_restart")
    s = sale(env, winner=1, price=200)
    do(env, 0, A.DECLINE)
    assert s.current_player == 2 and s.decision == A.D_BID
    bid_to(env, 2, 250)  # the only bidder left: his bid ends the bidding at once
    assert s.decision == A.D_BUYRIGHT
    do(env, 0, A.DECLINE)
    assert s.holdings[0][COW] == 1
    assert s.cash == [100] * 3
    assert len(record(env, 0, "defaults")) == 2


# ============================================================================= pedigree (§5, K-A14..K-A16)
def test_pedigree_commitment_order_and_mask():
    """§5.2 step 1 (K-A15): commitments clockwise from A's left; SLAP(k) legal iff k <= hand size."""
    env = make(4)
    s = start_turn(env, 1, [PEDIGREE + HORSE])
    set_hand(env, 3, 0, 10)
    set_hand(env, 0, *([10] * 12))
    do(env, 1, A.AUCTION)
    assert s.decision == A.D_COMMIT and s.current_player == 2
    assert legal(env) == {A.NEVER} | {A.SLAP + k for k in range(1, 8)}
    do(env, 2, A.NEVER)
    assert s.current_player == 3 and legal(env) == {A.NEVER, A.SLAP + 1, A.SLAP + 2}
    do(env, 3, A.NEVER)
    assert s.current_player == 0
    assert legal(env) == {A.NEVER} | {A.SLAP + k for k in range(1, 11)}  # 12 cards: capped at 10


def test_pedigree_commitment_cap_in_reveal_and_restart():
    """§5.4 (K-A15): in `reveal_and_restart` any k <= 10 may be committed."""
    env = make(4, overbid_mode="reveal_and_restart")
    start_turn(env, 0, [PEDIGREE + HORSE])
    do(env, 0, A.AUCTION)
    assert legal(env) == {A.NEVER} | {A.SLAP + k for k in range(1, 11)}


def test_pedigree_no_slap_auctioneer_takes_it_free():
    """§5.2 step 2: every commitment NEVER -> A takes the pedigree free."""
    env = make(4)
    s = start_turn(env, 1, [PEDIGREE + COW])
    do(env, 1, A.AUCTION)
    for seat in (2, 3, 0):
        do(env, seat, A.NEVER)
    assert s.pedigree_owner[COW] == 1
    assert s.hands == [START] * 4
    assert s.decision == A.D_TURN and s.current_player == 2


def test_pedigree_commitments_are_sealed():
    """§5.2 step 1 (K-A14): no other player's observation depends on a commitment."""
    views = []
    for action in (A.NEVER, A.SLAP + 5):
        env = make(4)
        start_turn(env, 0, [PEDIGREE + PIG])
        do(env, 0, A.AUCTION)
        do(env, 1, action)
        views.append({seat: obs(env, seat) for seat in range(4)})
    for seat in (0, 2, 3):
        assert np.array_equal(views[0][seat], views[1][seat])
    assert not np.array_equal(views[0][1], views[1][1])


def _pedigree_won_by_seat_1(**options):
    """A = 0; seat 1 SLAP(2), seat 2 SLAP(1), seat 3 NEVER -> w = 1, k* = 2; seat 1 lays {50, 0}."""
    env = make(4, **options)
    s = start_turn(env, 0, [PEDIGREE + DOG])
    do(env, 0, A.AUCTION)
    do(env, 1, A.SLAP + 2)
    do(env, 2, A.SLAP + 1)
    do(env, 3, A.NEVER)
    assert s.decision == A.D_STAKE and s.current_player == 1 and s.kstar == 2 and s.winner == 1
    assert legal(env) == {card(0), card(10), card(20), card(50)}  # zeros allowed
    do(env, 1, card(50))
    assert s.decision == A.D_STAKE
    do(env, 1, card(0))  # the selection closes automatically after k* cards
    assert s.decision == A.D_PED_BUYRIGHT and s.current_player == 0
    assert s.sizes[1] == 5  # the stake lies face down, out of his hand
    return env


def test_pedigree_decline_auctioneer_takes_the_stake():
    """§5.2 steps 4-5 DECLINE (K-A16): A receives w's k* cards, w receives the pedigree; only A and w
    learn the stake; lower commitments are never revealed."""
    env = _pedigree_won_by_seat_1()
    s = env.state_
    assert legal(env) == {A.DECLINE, A.BUY}
    do(env, 0, A.DECLINE)
    assert s.pedigree_owner[DOG] == 1
    assert s.hands[0] == plus(START, counts(50, 0))
    assert s.hands[1] == minus(START, counts(50, 0))
    stake = counts(50, 0)
    for seat in (0, 1):
        assert record(env, seat, "auctions")[-1][16:23] == stake
    for seat in (2, 3):
        assert record(env, seat, "auctions")[-1][16:23] == UNKNOWN
    rows = {seat: record(env, seat, "auctions")[-1] for seat in range(4)}
    assert [rows[seat][11] for seat in range(4)] == [-1, 2, 1, 0]  # own commitment only
    for seat in range(4):
        assert rows[seat][1] == 2 and rows[seat][13] == 2 and rows[seat][14] == 1
        assert rows[seat][12] == slot(seat, 1)
        assert rows[seat][5:11] == [0] * 6  # no tie announced
        assert rows[seat][15] == 2


def test_pedigree_buy_auctioneer_pays_count_and_never_sees_stake():
    """§5.2 step 5 BUY (K-A16): A hands k* own cards to w, w takes his stake back, A keeps the pedigree;
    A never learns the stake."""
    env = _pedigree_won_by_seat_1()
    s = env.state_
    do(env, 0, A.BUY)
    assert s.decision == A.D_PED_CARDS and s.current_player == 0
    do(env, 0, card(10))
    do(env, 0, card(10))
    assert s.pedigree_owner[DOG] == 0
    assert s.hands[0] == minus(START, counts(10, 10))
    assert s.hands[1] == plus(START, counts(10, 10))
    for seat in (0, 1):
        assert record(env, seat, "auctions")[-1][16:23] == counts(10, 10)
        assert record(env, seat, "auctions")[-1][14] == 2
    assert record(env, 2, "auctions")[-1][16:23] == UNKNOWN
    assert env.events[-1]["stake"] == counts(50, 0)  # full-information log only


def test_pedigree_buy_needs_hand_size_at_least_k():
    """K-A10: the pedigree BUY is legal only if A's hand size >= k*."""
    env = make(4)
    s = start_turn(env, 0, [PEDIGREE + DOG])
    set_hand(env, 0, 500)
    do(env, 0, A.AUCTION)
    do(env, 1, A.SLAP + 2)
    do(env, 2, A.NEVER)
    do(env, 3, A.NEVER)
    do(env, 1, card(0), card(0))
    assert legal(env) == {A.DECLINE}
    do(env, 0, A.DECLINE)
    assert s.hands[0] == counts(500, 0, 0)


def test_pedigree_stake_hidden_while_auctioneer_decides():
    """K-A16, §5.3: at D9 nobody but w can tell {50, 0} from {10, 10} as the stake."""
    views = []
    for stake in ((50, 0), (10, 10)):
        env = make(4)
        start_turn(env, 0, [PEDIGREE + DOG])
        do(env, 0, A.AUCTION)
        do(env, 1, A.SLAP + 2)
        do(env, 2, A.NEVER)
        do(env, 3, A.NEVER)
        do(env, 1, *[card(v) for v in stake])
        assert env.state_.decision == A.D_PED_BUYRIGHT
        views.append({seat: obs(env, seat) for seat in range(4)})
    for seat in (0, 2, 3):
        assert np.array_equal(views[0][seat], views[1][seat])
    assert not np.array_equal(views[0][1], views[1][1])


def _pedigree_tie(seed, **options):
    env = make(4, seed=seed, **options)
    s = start_turn(env, 0, [PEDIGREE + SHEEP])
    do(env, 0, A.AUCTION)
    do(env, 1, A.SLAP + 3)
    do(env, 2, A.SLAP + 1)
    do(env, 3, A.SLAP + 3)
    return env, s


def test_pedigree_tie_announced_then_seeded_draw():
    """§5.2 step 3 (K-A14): tied players announced to everyone (`reveal_pedigree_ties`), winner drawn
    with the seeded generator."""
    env, s = _pedigree_tie(seed=0)
    assert sorted(s.tied) == [1, 3] and s.winner in (1, 3) and s.kstar == 3
    for viewer in range(4):
        flags = block(env, viewer, "pedigree")[3:]
        assert [flags[slot(viewer, seat)] for seat in range(4)] == [0, 1, 0, 1]
    w = s.winner
    do(env, w, card(0), card(0), card(10))
    do(env, 0, A.DECLINE)
    assert s.pedigree_owner[SHEEP] == w
    for viewer in range(4):
        row = record(env, viewer, "auctions")[-1]
        assert [row[5 + slot(viewer, seat)] for seat in range(4)] == [0, 1, 0, 1]
        assert row[12] == slot(viewer, w)


def test_pedigree_tie_draw_is_seeded_and_uniform_over_tied():
    """K-A14: the same seed gives the same winner; over seeds both tied players win."""
    winners = [_pedigree_tie(seed)[1].winner for seed in range(24)]
    assert set(winners) == {1, 3}
    assert [_pedigree_tie(seed)[1].winner for seed in range(6)] == winners[:6]


def test_pedigree_tie_hidden_without_reveal_pedigree_ties():
    """K-A14 option `reveal_pedigree_ties=False`: only w and k* are announced."""
    env, s = _pedigree_tie(seed=0, reveal_pedigree_ties=False)
    for viewer in range(4):
        assert list(block(env, viewer, "pedigree")[3:]) == [0] * 6
    do(env, s.winner, card(0), card(0), card(10))
    do(env, 0, A.DECLINE)
    for viewer in range(4):
        assert record(env, viewer, "auctions")[-1][5:11] == [0] * 6


def test_pedigree_insolvent_winner_caught_before_stake_and_buy_right():
    """§5.4 (K-A39, K-A9): w's hand size < k* -> hand revealed, w excluded, no stake and no BUY; the
    remaining bidders commit again."""
    env = make(4, overbid_mode="reveal_and_restart")
    s = start_turn(env, 0, [PEDIGREE + CAT])
    do(env, 0, A.AUCTION)
    do(env, 1, A.SLAP + 8)  # hand size 7
    do(env, 2, A.SLAP + 3)
    do(env, 3, A.NEVER)
    assert s.excluded == [1]
    assert s.decision == A.D_COMMIT and s.current_player == 2  # restart, seat 1 left out
    for viewer in range(4):
        row = record(env, viewer, "defaults")[0]
        assert row[1:4] == [2, CAT, slot(viewer, 1)] and row[4:] == START
    do(env, 2, A.SLAP + 3)
    do(env, 3, A.NEVER)
    assert s.decision == A.D_STAKE and s.winner == 2
    do(env, 2, card(0), card(0), card(10))
    do(env, 0, A.DECLINE)
    assert s.pedigree_owner[CAT] == 2
    assert record(env, 3, "auctions")[-1][23] == 1


def test_pedigree_restart_all_never_auctioneer_free():
    """§5.4 (K-A39): after the default, if every remaining bidder commits NEVER, A takes it free."""
    env = make(4, overbid_mode="reveal_and_restart")
    s = start_turn(env, 0, [PEDIGREE + CAT])
    do(env, 0, A.AUCTION)
    do(env, 1, A.NEVER)
    do(env, 2, A.NEVER)
    do(env, 3, A.SLAP + 10)
    assert s.excluded == [3] and s.current_player == 1
    do(env, 1, A.NEVER)
    do(env, 2, A.NEVER)
    assert s.pedigree_owner[CAT] == 0
    assert s.hands == [START] * 4


def test_pedigree_all_bidders_excluded_auctioneer_free():
    """§5.4 (K-A39): no bidder left to commit -> A takes the pedigree free (3 players)."""
    env = make(3, overbid_mode="reveal_and_restart")
    s = start_turn(env, 0, [PEDIGREE + CAT])
    do(env, 0, A.AUCTION)
    do(env, 1, A.SLAP + 8)
    do(env, 2, A.NEVER)
    assert s.current_player == 2 and s.decision == A.D_COMMIT
    do(env, 2, A.SLAP + 9)
    assert s.pedigree_owner[CAT] == 0
    assert s.hands == [START] * 3
    assert [d["player"] for d in env.events[-1]["defaults"]] == [1, 2]
    assert len(record(env, 0, "defaults")) == 2
    assert s.decision == A.D_TURN and s.current_player == 1


# ============================================================================= rat auction (§6, K-A17..K-A19)
def _rat_round(**options):
    """A = 0 reveals a rat (then a cow): seats 1, 2, 3, 0 lay 10, 0, 50, 20; seat 1 takes."""
    env = make(4, **options)
    s = start_turn(env, 0, [RAT, COW])
    do(env, 0, A.AUCTION)
    assert s.decision == A.D_RAT and s.current_player == 1
    do(env, 1, lay(10))
    do(env, 2, lay(0))
    do(env, 3, lay(50))
    do(env, 0, lay(20))  # the auctioneer takes part in the rotation
    assert s.current_player == 1
    do(env, 1, A.TAKE)
    return env, s


def test_rat_auction_rotation_and_take():
    """§6.1: the pot rotates from A's left around the table, A included; TAKE gets rat and pot."""
    env, s = _rat_round()
    assert s.holdings[1][RAT] == 1
    assert s.hands[1] == plus(START, counts(0, 50, 20))  # laid 10, took 10, 0, 50, 20
    assert s.cash == [80, 170, 100, 50]
    assert s.sizes == [6, 10, 6, 6]


def test_rat_auction_lay_mask():
    """§6.1: LAY(d) iff the player holds a card of d; TAKE always."""
    env = make(4)
    start_turn(env, 0, [RAT])
    set_hand(env, 1, 0, 500, 500)
    do(env, 0, A.AUCTION)
    assert legal(env) == {A.TAKE, lay(0), lay(500)}


def test_rat_auction_empty_hand_must_take():
    """K-A17: a player without money cards has only TAKE."""
    env = make(4)
    s = start_turn(env, 0, [RAT, COW])
    set_hand(env, 2)
    do(env, 0, A.AUCTION)
    do(env, 1, lay(0))
    assert legal(env) == {A.TAKE}
    do(env, 2, A.TAKE)
    assert s.holdings[2][RAT] == 1 and s.hands[2] == counts(0)


def test_rat_pot_values_hidden_during_the_auction():
    """§6.3: while the rat auction runs, only the layer knows the value of his card."""
    views = []
    for first in (0, 50):
        env = make(4)
        start_turn(env, 0, [RAT])
        do(env, 0, A.AUCTION)
        do(env, 1, lay(first))
        views.append({seat: obs(env, seat) for seat in range(4)})
    for seat in (0, 2, 3):
        assert np.array_equal(views[0][seat], views[1][seat])
    assert not np.array_equal(views[0][1], views[1][1])
    assert block(env, 2, "rat_pot")[slot(2, 1)] == 1  # the count is public


def test_rat_pot_attribution_default():
    """K-A18 / §6.3: the taker learns every pot card and who laid it; the others only counts and their
    own cards."""
    env, s = _rat_round()
    laid = {1: counts(10), 2: counts(0), 3: counts(50), 0: counts(20)}
    taker = record(env, 1, "rat_auctions")[0]
    assert taker[1:3] == [slot(1, 0), 0]
    assert taker[9:16] == counts(10, 0, 50, 20)
    for seat, cards in laid.items():
        o = slot(1, seat)
        assert taker[3 + o] == 1
        assert taker[16 + 7 * o: 23 + 7 * o] == cards
    for viewer in (0, 2, 3):
        row = record(env, viewer, "rat_auctions")[0]
        assert row[9:16] == UNKNOWN
        for seat, cards in laid.items():
            o = slot(viewer, seat)
            assert row[3 + o] == 1  # public: how many each seat laid
            assert row[16 + 7 * o: 23 + 7 * o] == (cards if seat == viewer else UNKNOWN)


def test_rat_pot_without_attribution():
    """K-A18 option `rat_pot_attribution=False`: the taker learns only the pot's composition."""
    env, s = _rat_round(rat_pot_attribution=False)
    taker = record(env, 1, "rat_auctions")[0]
    assert taker[9:16] == counts(10, 0, 50, 20)
    assert taker[16:23] == counts(10)  # his own
    for seat in (0, 2, 3):
        o = slot(1, seat)
        assert taker[16 + 7 * o: 23 + 7 * o] == UNKNOWN


def test_rat_same_auctioneer_continues_with_next_card():
    """§6.2 (K-A19): after the rat is taken and the deck is not empty, A reveals the next card."""
    env, s = _rat_round()
    assert s.decision == A.D_BID and s.auctioneer == 0 and s.card == COW
    assert s.turn_player == 0 and s.current_player == 1
    turns = s.turns
    for seat in (1, 2, 3):
        do(env, seat, A.PASS)
    assert s.holdings[0][COW] == 1
    assert s.turns == turns + 1 and s.current_player == 1


def test_rat_as_last_card_ends_the_turn():
    """K-A19: a rat as the last card ends the auctioneer's turn; the final phase starts."""
    env = make(4)
    hold(env, 2, {COW: 1})
    hold(env, 3, {COW: 3, RAT: 3})
    s = start_turn(env, 0, [RAT], deck=[])
    do(env, 0, A.AUCTION)
    do(env, 1, A.TAKE)
    assert s.deck == [] and s.holdings[1][RAT] == 1
    assert s.decision == A.D_TURN and s.current_player == 1
    assert legal(env) == {A.TRADE}


def test_rat_chain_of_two_rats():
    """§6.2: a second rat is auctioned in the same turn too."""
    env = make(4)
    s = start_turn(env, 2, [RAT, RAT, HORSE])
    do(env, 2, A.AUCTION)
    do(env, 3, A.TAKE)
    assert s.decision == A.D_RAT and s.current_player == 3 and s.auctioneer == 2
    do(env, 3, lay(0))
    do(env, 0, A.TAKE)
    assert s.holdings[3][RAT] == 1 and s.holdings[0][RAT] == 1
    assert s.decision == A.D_BID and s.card == HORSE and s.auctioneer == 2


# ============================================================================= cow trade availability (§7.1, K-A20, K-A21)
def test_trade_availability_and_targets():
    """§3, §7.1 (K-A20): TRADE needs a species held by both; any such opponent; rats count; complete
    quartets cannot be traded."""
    env = make(4)
    hold(env, 0, {COW: 1, RAT: 1, GOAT: 4})
    hold(env, 1, {PIG: 2})
    hold(env, 2, {COW: 2})
    hold(env, 3, {RAT: 1, COW: 1})
    start_turn(env, 0, [HORSE])
    assert legal(env) == {A.AUCTION, A.TRADE}
    do(env, 0, A.TRADE)
    assert legal(env) == {A.target_action(2, COW), A.target_action(3, COW), A.target_action(3, RAT)}


def test_no_trade_without_shared_species():
    """§3 (K-A20): no shared species -> auction only."""
    env = make(4)
    hold(env, 0, {COW: 2})
    hold(env, 1, {PIG: 2})
    start_turn(env, 0, [HORSE])
    assert legal(env) == {A.AUCTION}


def test_no_trade_without_money_in_deck_phase():
    """K-A21: in the deck phase a challenger without money cards cannot start a cow trade."""
    env = make(4)
    hold(env, 0, {COW: 2})
    hold(env, 1, {COW: 2})
    set_hand(env, 0)
    start_turn(env, 0, [HORSE])
    assert legal(env) == {A.AUCTION}


def test_allow_empty_offer_lifts_the_money_condition():
    """K-A21 option `allow_empty_offer`: TRADE without money; an empty offer may be closed."""
    env = make(4, allow_empty_offer=True)
    hold(env, 0, {COW: 2})
    hold(env, 1, {COW: 2})
    set_hand(env, 0)
    start_turn(env, 0, [HORSE])
    assert legal(env) == {A.AUCTION, A.TRADE}
    do(env, 0, A.TRADE, A.target_action(1, COW))
    assert legal(env) == {A.DONE}
    do(env, 0, A.DONE)
    assert env.state_.decision == A.D_RESPONSE


def test_offer_needs_at_least_one_card():
    """§7.3, §12.3 (K-A21): DONE is masked until a card is selected; zeros allowed."""
    env = make(4)
    hold(env, 0, {COW: 2})
    hold(env, 1, {COW: 2})
    start_turn(env, 0, [HORSE])
    do(env, 0, A.TRADE, A.target_action(1, COW))
    assert legal(env) == {card(0), card(10), card(20), card(50)}
    do(env, 0, card(0))
    assert A.DONE in legal(env)
    do(env, 0, card(0))
    assert card(0) not in legal(env)  # both zeros selected
    do(env, 0, A.DONE)
    assert env.state_.decision == A.D_RESPONSE


def test_challenged_without_money_can_only_accept():
    """K-A21: a challenged player without money cards cannot counter."""
    env = make(4)
    s = start_turn(env, 0, [HORSE])
    hold(env, 0, {COW: 1})
    hold(env, 1, {COW: 3})
    set_hand(env, 1)
    do(env, 0, A.TRADE, A.target_action(1, COW))
    offer(env, 0, 10)
    assert legal(env) == {A.ACCEPT}
    do(env, 1, A.ACCEPT)
    assert s.holdings[0][COW] == 2 and s.holdings[1][COW] == 2
    assert s.hands[1] == counts(10)


def test_challenged_without_money_may_counter_empty_with_allow_empty_offer():
    """K-A21 option: COUNTER without money, with the empty counter-offer (value 0)."""
    env = make(4, allow_empty_offer=True)
    s = start_turn(env, 0, [HORSE])
    hold(env, 0, {COW: 1})
    hold(env, 1, {COW: 3})
    set_hand(env, 1)
    do(env, 0, A.TRADE, A.target_action(1, COW))
    offer(env, 0, 0)
    assert legal(env) == {A.ACCEPT, A.COUNTER}
    do(env, 1, A.COUNTER)
    assert legal(env) == {A.DONE}
    do(env, 1, A.DONE)
    # 0 vs 0: tie -> round 2 (K-A23)
    assert s.trade_round == 2 and s.decision == A.D_OFFER and s.current_player == 0


def test_offer_sizes_public_values_private():
    """§7.3, §7.5 (K-A22): the card count of an offer is public as soon as it is laid, its values stay
    with the traders."""
    env = make(4)
    hold(env, 0, {DOG: 1})
    hold(env, 2, {DOG: 2})
    start_turn(env, 0, [HORSE])
    do(env, 0, A.TRADE, A.target_action(2, DOG))
    offer(env, 0, 50, 10, 0)
    for viewer in range(4):
        trade = block(env, viewer, "trade")
        assert trade[8] == 3  # number of cards of C's offer
        assert list(trade[25:32]) == (counts(50, 10, 0) if viewer == 0 else UNKNOWN)
    do(env, 2, A.COUNTER)
    offer(env, 2, 50, 20)
    rows = {viewer: record(env, viewer, "trades")[-1] for viewer in range(4)}
    for viewer, row in rows.items():
        assert row[3:5] == [DOG, 1]
        assert row[5:8] == [2, 3, 2]
        assert row[22] == 2  # D won
        traders = viewer in (0, 2)
        assert row[8:15] == (counts(50, 10, 0) if traders else UNKNOWN)
        assert row[15:22] == (counts(50, 20) if traders else UNKNOWN)


def test_offer_values_hidden_from_challenged_before_response():
    """§7.5 (K-A22): D decides knowing only the number of cards: {50, 20} and {0, 0} look the same to
    everyone but C."""
    views = []
    for cards in ((50, 20), (0, 0)):
        env = make(4)
        hold(env, 0, {DOG: 1})
        hold(env, 2, {DOG: 2})
        start_turn(env, 0, [HORSE])
        do(env, 0, A.TRADE, A.target_action(2, DOG))
        offer(env, 0, *cards)
        assert env.state_.decision == A.D_RESPONSE
        views.append({seat: obs(env, seat) for seat in range(4)})
    for seat in (1, 2, 3):
        assert np.array_equal(views[0][seat], views[1][seat])
    assert not np.array_equal(views[0][0], views[1][0])


# ============================================================================= worked trades (§7.2, §7.6, K-A23)
def _trade(env, challenger, challenged, species, top=HORSE):
    s = start_turn(env, challenger, [top] if top is not None else ())
    offset = (challenged - challenger) % env.state_.n
    do(env, challenger, A.TRADE, A.target_action(offset, species))
    return s


def _tied_first_round(env, species, c_cards, d_cards):
    """Seat 0 challenges seat 1 (holding ``c_cards`` / ``d_cards`` of ``species``); {10} v {10} ties."""
    hold(env, 0, {species: c_cards})
    hold(env, 1, {species: d_cards})
    s = _trade(env, 0, 1, species)
    offer(env, 0, 10)
    do(env, 1, A.COUNTER)
    offer(env, 1, 10)
    assert s.trade_round == 2
    return s


def test_worked_trade_1_countered_d_wins():
    """§7.6 example 1: C 1 dog, D 2 dogs; {50,10,0} vs {50,20}: D wins the dog; C +10 cash, 1 card fewer."""
    env = make(4)
    hold(env, 0, {DOG: 1})
    hold(env, 2, {DOG: 2})
    s = _trade(env, 0, 2, DOG)
    assert s.trade_stake == 1
    offer(env, 0, 50, 10, 0)
    do(env, 2, A.COUNTER)
    offer(env, 2, 50, 20)
    assert s.holdings[0][DOG] == 0 and s.holdings[2][DOG] == 3
    assert s.hands[0] == plus(minus(START, counts(50, 10, 0)), counts(50, 20))
    assert s.hands[2] == plus(minus(START, counts(50, 20)), counts(50, 10, 0))
    assert (s.cash[0], s.sizes[0]) == (110, 6)
    assert (s.cash[2], s.sizes[2]) == (90, 8)
    assert s.decision == A.D_TURN and s.current_player == 1


def test_worked_trade_2_double_tie_challenger_wins():
    """§7.6 example 2 (K-A23): 2 cows each, stake 2; {50} vs {20,20,10} twice -> C wins both cows,
    net money zero."""
    env = make(4)
    hold(env, 0, {COW: 2})
    hold(env, 1, {COW: 2})
    set_hand(env, 1, 0, 0, 10, 10, 10, 20, 20, 50)
    hand0, hand1 = list(env.state_.hands[0]), list(env.state_.hands[1])
    s = _trade(env, 0, 1, COW)
    assert s.trade_stake == 2
    offer(env, 0, 50)
    do(env, 1, A.COUNTER)
    offer(env, 1, 20, 20, 10)
    assert s.trade_round == 2 and s.decision == A.D_OFFER and s.current_player == 0
    assert s.hands[0] == plus(minus(hand0, counts(50)), counts(20, 20, 10))  # money stays where it went
    assert s.hands[1] == plus(minus(hand1, counts(20, 20, 10)), counts(50))
    assert s.holdings[0][COW] == 2
    offer(env, 0, 20, 20, 10)
    assert legal(env) == {A.ACCEPT, A.COUNTER}
    do(env, 1, A.COUNTER)
    offer(env, 1, 50)
    assert s.holdings[0][COW] == 4 and s.holdings[1][COW] == 0
    assert s.hands[0] == hand0 and s.hands[1] == hand1
    rounds = env.events[-1]["rounds"]
    assert [r["result"] for r in rounds] == ["tie", "tie"]
    assert env.events[-1]["winner"] == 0
    row = record(env, 2, "trades")[-1]
    assert row[22] == 3 and row[23] == 2 and row[40] == 3  # both rounds recorded as ties; C won the trade


def test_worked_trade_3_accepted_bluff():
    """§7.6 example 3: C 3 goats, D 1; C offers {0,0,10,10}, D accepts -> C completes the goats."""
    env = make(4)
    hold(env, 0, {GOAT: 3})
    hold(env, 3, {GOAT: 1})
    s = _trade(env, 0, 3, GOAT)
    offer(env, 0, 0, 0, 10, 10)
    assert block(env, 3, "trade")[8] == 4  # D sees "4 cards"
    do(env, 3, A.ACCEPT)
    assert s.holdings[0][GOAT] == 4 and s.holdings[3][GOAT] == 0
    assert s.hands[3] == plus(START, counts(0, 0, 10, 10))
    assert s.hands[0] == counts(10, 20, 50)
    assert record(env, 3, "trades")[-1][8:15] == counts(0, 0, 10, 10)  # D learns it on accepting
    assert record(env, 1, "trades")[-1][8:15] == UNKNOWN


def test_trade_never_moves_pedigree_cards():
    """§7.1: trading animals of species s leaves the pedigree of s where it is."""
    env = make(4)
    hold(env, 0, {COW: 3})
    hold(env, 1, {COW: 1})
    pedigrees = [-1] * 10
    pedigrees[COW] = 1
    s = poke(env, pedigree_owner=pedigrees)
    _trade(env, 0, 1, COW)
    offer(env, 0, 50)
    do(env, 1, A.ACCEPT)
    assert s.holdings[0][COW] == 4 and s.pedigree_owner[COW] == 1


@pytest.mark.parametrize("c, d, c_wins, after", [
    (1, 1, True, (2, 0)), (1, 1, False, (0, 2)),
    (1, 2, True, (2, 1)), (1, 2, False, (0, 3)),
    (2, 1, True, (3, 0)), (2, 1, False, (1, 2)),
    (1, 3, True, (2, 2)), (1, 3, False, (0, 4)),
    (3, 1, True, (4, 0)), (3, 1, False, (2, 2)),
    (2, 2, True, (4, 0)), (2, 2, False, (0, 4)),
])
def test_trade_stake_table(c, d, c_wins, after):
    """§7.2: stake 2 only for 2 v 2; the loser gives k cards to the winner."""
    env = make(4)
    hold(env, 0, {PIG: c})
    hold(env, 1, {PIG: d})
    s = _trade(env, 0, 1, PIG)
    assert s.trade_stake == (2 if (c, d) == (2, 2) else 1)
    offer(env, 0, 20 if c_wins else 10)
    do(env, 1, A.COUNTER)
    offer(env, 1, 10 if c_wins else 20)
    assert (s.holdings[0][PIG], s.holdings[1][PIG]) == after


def test_retrade_allows_accept_by_default():
    """K-A23 (default): after a tie the challenged may accept the new offer; C wins."""
    env = make(4)
    s = _tied_first_round(env, SHEEP, 1, 1)
    offer(env, 0, 0)
    assert legal(env) == {A.ACCEPT, A.COUNTER}
    do(env, 1, A.ACCEPT)
    assert s.holdings[0][SHEEP] == 2 and s.holdings[1][SHEEP] == 0
    assert s.hands[1] == plus(START, counts(0))
    assert record(env, 3, "trades")[-1][23] == 1  # round-2 response ACCEPT, public


def test_retrade_without_accept_forces_counter():
    """K-A23 option `retrade_allows_accept=False`: in round 2 the challenged must counter."""
    env = make(4, retrade_allows_accept=False)
    hold(env, 0, {SHEEP: 1})
    hold(env, 1, {SHEEP: 1})
    s = _trade(env, 0, 1, SHEEP)
    offer(env, 0, 10)
    assert legal(env) == {A.ACCEPT, A.COUNTER}  # round 1 unchanged
    do(env, 1, A.COUNTER)
    offer(env, 1, 10)
    offer(env, 0, 0)
    assert s.decision == A.D_COUNTER and s.current_player == 1  # no D13 in round 2
    offer(env, 1, 20)
    assert s.holdings[0][SHEEP] == 0 and s.holdings[1][SHEEP] == 2
    assert record(env, 2, "trades")[-1][23] == 2  # round-2 response recorded as COUNTER


def test_retrade_without_accept_empty_hand_only_accepts():
    """K-A23 option, §7.4 step 6: a challenged player with an empty hand in round 2 gets D13 with
    ACCEPT only (final phase: a moneyless challenger makes the empty offer)."""
    env = make(4, retrade_allows_accept=False)
    hold(env, 0, {SHEEP: 1})
    hold(env, 1, {SHEEP: 3})
    set_hand(env, 0)
    set_hand(env, 1, 0)
    s = start_turn(env, 0, deck=[])
    do(env, 0, A.TRADE, A.target_action(1, SHEEP))
    assert legal(env) == {A.DONE}  # the empty offer
    do(env, 0, A.DONE)
    do(env, 1, A.COUNTER)
    offer(env, 1, 0)  # 0 vs 0: tie
    assert s.trade_round == 2 and s.hands[1] == [0] * 7
    offer(env, 0, 0)
    assert s.decision == A.D_RESPONSE and legal(env) == {A.ACCEPT}
    do(env, 1, A.ACCEPT)
    assert s.holdings[0][SHEEP] == 2 and s.holdings[1][SHEEP] == 2


# ============================================================================= rat trades (§7.7, K-A24..K-A26)
def test_rat_trade_example():
    """§7.7 example: C 1 rat, D 2; {20,10} vs {10,10,0}: C wins and gives his rat (C 0, D 3)."""
    env = make(4)
    hold(env, 0, {RAT: 1})
    hold(env, 1, {RAT: 2})
    s = _trade(env, 0, 1, RAT)
    assert s.trade_stake == 1
    offer(env, 0, 20, 10)
    do(env, 1, A.COUNTER)
    offer(env, 1, 10, 10, 0)
    assert s.holdings[0][RAT] == 0 and s.holdings[1][RAT] == 3
    assert s.hands[0] == plus(minus(START, counts(20, 10)), counts(10, 10, 0))  # C received 20
    assert s.hands[1] == plus(minus(START, counts(10, 10, 0)), counts(20, 10))  # D received 30
    assert env.events[-1]["winner"] == 0


@pytest.mark.parametrize("c_rats, d_rats, stake, after_c_wins, after_d_wins", [
    (1, 1, 1, (0, 2), (2, 0)), (1, 2, 1, (0, 3), (2, 1)), (2, 1, 1, (1, 2), (3, 0)),
    (1, 3, 1, (0, 4), (2, 2)), (3, 1, 1, (2, 2), (4, 0)), (2, 2, 2, (0, 4), (4, 0)),
])
@pytest.mark.parametrize("c_wins", [True, False])
def test_rat_trade_table(c_rats, d_rats, stake, after_c_wins, after_d_wins, c_wins):
    """§7.7 table, K-A24: stake 2 only if both hold exactly two rats (not "all his rats"); the winner
    gives k of his own rats to the loser."""
    env = make(4)
    hold(env, 0, {RAT: c_rats})
    hold(env, 1, {RAT: d_rats})
    s = _trade(env, 0, 1, RAT)
    assert s.trade_stake == stake
    offer(env, 0, 50 if c_wins else 10)
    do(env, 1, A.COUNTER)
    offer(env, 1, 10 if c_wins else 50)
    assert (s.holdings[0][RAT], s.holdings[1][RAT]) == (after_c_wins if c_wins else after_d_wins)


def test_rat_trade_accept_makes_challenger_winner():
    """K-A25: D accepts the money together with C's rat."""
    env = make(4)
    hold(env, 0, {RAT: 1})
    hold(env, 1, {RAT: 3})
    s = _trade(env, 0, 1, RAT)
    offer(env, 0, 0)
    do(env, 1, A.ACCEPT)
    assert s.holdings[0][RAT] == 0 and s.holdings[1][RAT] == 4
    assert s.hands[1] == plus(START, counts(0))


def test_rat_trade_double_tie_challenger_gives_rats():
    """K-A26 (and K-A23 for rat trades): a second tie makes C the winner; C gives k rats automatically."""
    env = make(4)
    s = _tied_first_round(env, RAT, 2, 1)
    offer(env, 0, 10)
    assert legal(env) == {A.ACCEPT, A.COUNTER}  # the rat trade is repeated in full, accept included
    do(env, 1, A.COUNTER)
    offer(env, 1, 10)
    assert s.holdings[0][RAT] == 1 and s.holdings[1][RAT] == 2
    assert s.hands[0] == START and s.hands[1] == START


# ============================================================================= two players (§8.1, K-A6, K-A28)
def test_two_player_distribution_keep():
    """§8.1 KEEP: X to P, Y to Q unseen by P; red cards public, a money Y known only to Q; back colour of
    the next card visible during the decision (K-A6)."""
    env = make(2)
    s = start_turn(env, 0, [PEDIGREE + HORSE, MONEY + 6, COW])
    do(env, 0, A.AUCTION)
    assert s.decision == A.D_DISTRIBUTE and s.current_player == 0
    assert legal(env) == {A.KEEP, A.GIVE}
    assert block(env, 0, "looked_card")[0] == PEDIGREE + HORSE
    assert block(env, 1, "looked_card")[0] == -1
    for viewer in (0, 1):
        assert block(env, viewer, "deck")[-1] == 1  # the card under X is money (green back)
    do(env, 0, A.KEEP)
    assert s.pedigree_owner[HORSE] == 0
    assert s.hands[1] == plus(START, counts(500))
    assert s.hands[0] == START
    for viewer in (0, 1):
        assert block(env, viewer, "deck")[-1] == 0  # now a cow: red back
    rows = {viewer: record(env, viewer, "distributions")[-1] for viewer in (0, 1)}
    assert rows[0][1:6] == [0, 1, PEDIGREE + HORSE, -1, MONEY]
    assert rows[0][6] == -1 and rows[1][6] == 6
    assert s.decision == A.D_TURN and s.current_player == 1


@pytest.mark.parametrize("pair", [(COW, PIG), (PEDIGREE + COW, PEDIGREE + PIG)])
def test_two_player_looked_card_face_hidden_from_opponent(pair):
    """§8.1 ("the face of X is private to P until it is placed"), §11.1, §12.5: while P decides, Q's
    observation must not depend on which red card X is. Q knows only that the red cards not yet placed
    are the deck plus X."""
    views = []
    for x in pair:
        env = make(2)
        deck = list(env.state_.deck)
        deck.remove(x)
        start_turn(env, 0, [x], deck=deck)
        do(env, 0, A.AUCTION)
        assert env.state_.decision == A.D_DISTRIBUTE
        views.append(obs(env, 1))
    layout = env.observer.layout
    differing = [name for name in layout.shapes
                 if not np.array_equal(layout.view(views[0], name), layout.view(views[1], name))]
    assert differing == []


def test_two_player_distribution_give():
    """§8.1 GIVE: X to Q, Y to P; a money X is known to P and Q."""
    env = make(2)
    s = start_turn(env, 1, [MONEY + 4, COW])
    do(env, 1, A.AUCTION)
    assert block(env, 1, "looked_card")[0] == MONEY + 4
    do(env, 1, A.GIVE)
    assert s.hands[0] == plus(START, counts(100))
    assert s.holdings[1][COW] == 1
    for viewer in (0, 1):
        row = record(env, viewer, "distributions")[-1]
        assert row[2:6] == [2, MONEY, 4, COW] and row[6] == -1


def test_two_player_kept_money_card_known_only_to_distributor():
    """§8.1 step 3: a kept money X is known to P only; a red Y is public."""
    env = make(2)
    s = start_turn(env, 0, [MONEY + 5, GOOSE])
    do(env, 0, A.AUCTION, A.KEEP)
    assert s.hands[0] == plus(START, counts(200)) and s.holdings[1][GOOSE] == 1
    assert record(env, 0, "distributions")[-1][3:7] == [MONEY, 5, GOOSE, -1]
    assert record(env, 1, "distributions")[-1][3:7] == [MONEY, -1, GOOSE, -1]


def test_two_player_last_single_card():
    """K-A28: with one card left the distributor keeps or gives it and nothing else happens."""
    env = make(2)
    hold(env, 0, {COW: 1})
    hold(env, 1, {COW: 2})
    s = start_turn(env, 0, [COW], deck=[])
    do(env, 0, A.AUCTION, A.KEEP)
    assert s.holdings[0][COW] == 2 and s.holdings[1][COW] == 2
    assert env.events[-1]["y"] is None
    assert s.deck == [] and s.decision == A.D_TURN and s.current_player == 1
    assert legal(env) == {A.TRADE}  # final phase


def test_two_player_trade_targets_the_opponent():
    """§8.1: cow trades as in §7 with D always the opponent."""
    env = make(2)
    hold(env, 0, {COW: 1})
    hold(env, 1, {COW: 1})
    s = start_turn(env, 0, [PIG])
    assert legal(env) == {A.AUCTION, A.TRADE}
    do(env, 0, A.TRADE)
    assert legal(env) == {A.target_action(1, COW)}
    do(env, 0, A.target_action(1, COW))
    offer(env, 0, 10)
    do(env, 1, A.ACCEPT)
    assert s.holdings[0][COW] == 2


# ============================================================================= Super-Koehandel (§8.2, K-A29)
def _traded(env, top=HORSE, deck=None):
    hold(env, 0, {COW: 1})
    hold(env, 1, {COW: 1})
    s = start_turn(env, 0, [top] if top is not None else (), deck=deck)
    do(env, 0, A.TRADE, A.target_action(1, COW))
    offer(env, 0, 10)
    do(env, 1, A.ACCEPT)
    return s


def test_no_followup_auction_without_variant():
    """§3: without Super-Koehandel the turn ends after the trade."""
    env = make(4)
    s = _traded(env)
    assert s.decision == A.D_TURN and s.current_player == 1


def test_super_koehandel_followup_is_optional():
    """K-A29: after the trade the challenger may auction (D3) or end his turn."""
    env = make(4, super_koehandel=True)
    s = _traded(env)
    assert s.decision == A.D_FOLLOWUP and s.current_player == 0
    assert legal(env) == {A.AUCTION, A.END_TURN}
    turns = s.turns
    do(env, 0, A.AUCTION)
    assert s.decision == A.D_BID and s.auctioneer == 0 and s.card == HORSE
    for seat in (1, 2, 3):
        do(env, seat, A.PASS)
    assert s.holdings[0][HORSE] == 1
    assert s.turns == turns + 1 and s.current_player == 1  # trade + auction were one turn
    env = make(4, super_koehandel=True)
    s = _traded(env)
    do(env, 0, A.END_TURN)
    assert s.decision == A.D_TURN and s.current_player == 1


def test_super_koehandel_mandatory():
    """K-A29 option `super_koehandel_mandatory`: END_TURN is masked."""
    env = make(4, super_koehandel=True, super_koehandel_mandatory=True)
    _traded(env)
    assert legal(env) == {A.AUCTION}


def test_super_koehandel_never_in_final_phase():
    """K-A29: no follow-up auction once the deck is empty."""
    env = make(4, super_koehandel=True)
    hold(env, 2, {COW: 2})
    s = _traded(env, top=None, deck=[])
    assert s.decision == A.D_TURN and s.current_player == 2  # seat 1 (no cows left) is skipped


def test_super_koehandel_two_players_distributes():
    """§8.2: with 2 players the follow-up is a distribution."""
    env = make(2, super_koehandel=True)
    s = _traded(env, top=PIG)
    do(env, 0, A.AUCTION)
    assert s.decision == A.D_DISTRIBUTE and s.looked == PIG


# ============================================================================= end of game (§9, K-A30..K-A32)
def test_final_phase_trade_compulsory_even_without_money():
    """§9.1 (K-A21): with the deck empty the player must trade; without money he makes the empty offer."""
    env = make(4)
    hold(env, 0, {COW: 1})
    hold(env, 1, {COW: 3})
    set_hand(env, 0)
    s = start_turn(env, 0, deck=[])
    assert legal(env) == {A.TRADE}
    do(env, 0, A.TRADE, A.target_action(1, COW))
    assert legal(env) == {A.DONE}
    do(env, 0, A.DONE)
    assert block(env, 1, "trade")[8] == 0  # "0 cards"
    do(env, 1, A.ACCEPT)
    assert s.holdings[0][COW] == 2 and s.holdings[1][COW] == 2
    assert env.events[-1]["final_phase"] is True


def test_final_phase_skips_players_without_trade():
    """K-A31: players with only complete quartets or no cards are skipped; skipped turns don't count."""
    env = make(4)
    hold(env, 0, {COW: 3, PIG: 1})
    hold(env, 1, {HORSE: 4})
    hold(env, 2, {})
    hold(env, 3, {COW: 1, PIG: 3})
    s = start_turn(env, 0, deck=[])
    turns = s.turns
    do(env, 0, A.TRADE, A.target_action(3, COW))
    offer(env, 0, 10)
    do(env, 3, A.ACCEPT)
    assert s.holdings[0][COW] == 4
    assert s.decision == A.D_TURN and s.current_player == 3 and s.turn_player == 3
    assert s.turns == turns + 1


def test_game_ends_when_deck_empty_and_all_quartets_complete():
    """§9.2 (K-A30), §10 (K-A36, K-A37): the last trade completes everything; tied winners share."""
    env = make(4)
    s = env.state_
    hold(env, 0, {HORSE: 3})
    hold(env, 1, {HORSE: 1})
    hold(env, 2, {RAT: 4})
    hold(env, 3, {DONKEY: 4})
    s.pedigree_owner = [-1] * 10
    s.pedigree_owner[DONKEY] = 3
    s.pedigree_owner[ROOSTER] = 3
    start_turn(env, 0, deck=[])
    do(env, 0, A.TRADE, A.target_action(1, HORSE))
    offer(env, 0, 50)
    do(env, 1, A.ACCEPT)
    assert s.is_terminal and not s.is_truncated
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert s.scores() == [1000.0, 0.0, 0.0, 1000.0]  # seat 3: (500 + 250) x 1 + 250
    rewards = [env.rewards[f"player_{i}"] for i in range(4)]
    assert rewards == [0.0, -1.0, -1.0, 0.0] == win_loss_rewards(s.scores())
    info = env.infos["player_2"]
    assert info["winners"] == ["player_0", "player_3"]
    assert info["scores"]["player_3"] == 1000.0
    assert info["score_breakdown"]["player_2"]["rat_quartet"] is True
    assert env.legal_actions() == []


def test_game_ends_right_after_the_last_auction():
    """§9.2 (K-A30): the end test may succeed right after the last card of the deck was auctioned."""
    env = make(4)
    hold(env, 1, {HORSE: 3})
    hold(env, 2, {RAT: 4, COW: 4})
    s = start_turn(env, 1, [HORSE], deck=[])
    do(env, 1, A.AUCTION)
    for seat in (2, 3, 0):
        do(env, seat, A.PASS)
    assert s.holdings[1][HORSE] == 4
    assert s.is_terminal and all(env.terminations.values())
    assert s.scores()[1] == 1000.0 and s.scores()[2] == 0.0  # the rats remove seat 2's cows
    assert env.rewards["player_1"] == 1.0


def test_game_end_score_margin_reward_mode():
    """K-A37 `reward_mode="score_margin"`: (own - mean of the others) / 1000."""
    env = make(4, reward_mode="score_margin")
    hold(env, 0, {HORSE: 3})
    hold(env, 1, {HORSE: 1})
    env.state_.pedigree_owner = [-1] * 10
    start_turn(env, 0, deck=[])
    do(env, 0, A.TRADE, A.target_action(1, HORSE))
    offer(env, 0, 50)
    do(env, 1, A.ACCEPT)
    assert env.rewards["player_0"] == pytest.approx(1.0)
    assert env.rewards["player_1"] == pytest.approx(-1000 / 3 / 1000)


def test_game_continues_while_deck_not_empty():
    """K-A30: all quartets complete but cards left in the deck -> the game goes on."""
    env = make(4)
    hold(env, 0, {HORSE: 3})
    hold(env, 1, {HORSE: 1})
    s = start_turn(env, 0, [PEDIGREE + PIG], deck=[])
    do(env, 0, A.TRADE, A.target_action(1, HORSE))
    offer(env, 0, 50)
    do(env, 1, A.ACCEPT)
    assert s.all_complete() and not s.is_terminal
    assert s.decision == A.D_TURN and s.current_player == 1 and legal(env) == {A.AUCTION}


def test_game_continues_while_rat_quartet_incomplete():
    """K-A30: the rat quartet counts among the 11 species."""
    env = make(4)
    hold(env, 0, {HORSE: 3})
    hold(env, 1, {HORSE: 1, RAT: 1})
    hold(env, 2, {RAT: 3})
    s = start_turn(env, 0, deck=[])
    do(env, 0, A.TRADE, A.target_action(1, HORSE))
    offer(env, 0, 50)
    do(env, 1, A.ACCEPT)
    assert not s.is_terminal
    assert s.decision == A.D_TURN and s.current_player == 1 and legal(env) == {A.TRADE}


def _two_free_auctions(env):
    s = env.state_
    for top in (COW, PIG):
        seat = s.current_player
        start_turn(env, seat, [top])
        do(env, seat, A.AUCTION)
        while s.decision == A.D_BID:
            do(env, s.current_player, A.PASS)
    return s


def test_turn_cap_truncates_with_zero_reward():
    """K-A32: after `max_turns` counted turns the game truncates; reward 0, provisional scores in info."""
    env = make(4, max_turns=2)
    hold(env, 2, {HORSE: 4})
    s = _two_free_auctions(env)
    assert s.is_truncated and s.turns == 2
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert set(env.rewards.values()) == {0.0}
    info = env.infos["player_0"]
    assert info["scores"]["player_2"] == 1000.0
    assert info["winners"] == []


def test_turn_cap_provisional_reward():
    """K-A32 option `truncation_reward="provisional"`: the §10.4 rewards on provisional scores."""
    env = make(4, max_turns=2, truncation_reward="provisional")
    hold(env, 2, {HORSE: 4})
    _two_free_auctions(env)
    assert [env.rewards[f"player_{i}"] for i in range(4)] == [-1.0, -1.0, 1.0, -1.0]
    assert all(env.truncations.values())


def test_turn_cap_does_not_count_skipped_turns():
    """K-A32 / K-A31: a skipped player's turn is not counted."""
    env = make(4, max_turns=3)
    hold(env, 0, {COW: 3, PIG: 1})
    hold(env, 1, {HORSE: 4})
    hold(env, 3, {COW: 1, PIG: 3})
    s = start_turn(env, 0, deck=[])
    s.turns = 1
    do(env, 0, A.TRADE, A.target_action(3, PIG))
    offer(env, 0, 10)
    do(env, 3, A.COUNTER)
    offer(env, 3, 20)  # seat 3 wins the pig: seat 0 gets 0 pigs, seat 3 4
    assert s.turns == 2 and s.current_player == 3  # seats 1 and 2 skipped, not counted
    do(env, 3, A.TRADE, A.target_action(1, COW))
    offer(env, 3, 10)
    do(env, 0, A.COUNTER)
    offer(env, 0, 20)  # seat 0 wins: 4 cows, all complete -> terminal before the cap
    assert s.is_terminal and not s.is_truncated


# ============================================================================= forced decisions (K-A38)
def _forced_script(env, auto):
    """Seat 2 has no money (forced PASS), seat 1's payment {50} is unique (forced CARD, DONE), seat 1's
    next turn has only AUCTION."""
    s = start_turn(env, 0, [COW, PIG])
    set_hand(env, 1, 0, 50)
    set_hand(env, 2)
    do(env, 0, A.AUCTION)
    bid_to(env, 1, 40)
    if not auto:
        do(env, 2, A.PASS)
    do(env, 3, A.PASS)
    do(env, 0, A.DECLINE)
    if not auto:
        do(env, 1, card(50), A.DONE)
        do(env, 1, A.AUCTION)
        do(env, 2, A.PASS)
    assert s.decision == A.D_BID and s.current_player == 3 and s.auctioneer == 1
    return s


def test_auto_resolve_forced_changes_only_the_step_count():
    """K-A38: `auto_resolve_forced` applies single legal actions; outcomes and records are identical."""
    plain, auto = make(4), make(4, auto_resolve_forced=True)
    assert auto.state_.decision == A.D_BID  # at reset the forced AUCTION was already applied
    auto.state_.deck = list(plain.state_.deck)  # same deck for the scripted comparison
    a = _forced_script(plain, auto=False)
    b = _forced_script(auto, auto=True)
    assert a.holdings == b.holdings and a.hands == b.hands and a.cash == b.cash
    for seat in range(4):
        assert plain.private_record(f"player_{seat}") == auto.private_record(f"player_{seat}")
        assert np.array_equal(obs(plain, seat), obs(auto, seat))
    assert len(auto.history) < len(plain.history)


# ============================================================================= public information (K-A13, K-A22)
def test_hand_sizes_are_public():
    """K-A13: every observation shows every seat's hand size."""
    env = make(4)
    set_hand(env, 2, 0, 500, 500)
    for viewer in range(4):
        seats = block(env, viewer, "seats")
        sizes = [seats[slot(viewer, seat)][0] for seat in range(4)]
        assert sizes == [7, 7, 3, 7]


def test_own_hand_only_in_own_observation():
    """§11.1: own hand composition is private; it is in the owner's observation only."""
    env = make(4)
    set_hand(env, 2, 0, 500, 500)
    assert list(block(env, 2, "own_hand")) == counts(0, 500, 500) + [1000]
    assert list(block(env, 0, "own_hand")) == START + [100]


# ============================================================================= observation size (K-A40)
@pytest.mark.parametrize("n, options, record_size", [
    (4, {}, 85 + 16 * 24 + 4 * 58 + 16 * 41),
    (4, {"observation_mode": "full_record"}, 85 + 1200 + 232 + 41 * 1000),
    (6, {"observation_mode": "full_record"}, 42517),
    (3, {"overbid_mode": "reveal_and_restart"}, 1357 + 16 * 11),
    (4, {"overbid_mode": "reveal_and_restart", "observation_mode": "full_record"}, 42517 + 2750),
    (4, {"observation_mode": "full_record", "max_turns": 100}, 85 + 1200 + 232 + 4100),
    (2, {}, 85 + 16 * 7 + 16 * 41),
    (2, {"observation_mode": "full_record"}, 85 + 280 + 41 * 1000),
])
def test_observation_size_compact_and_full_record(n, options, record_size):
    """§12.5 Size (K-A40): blocks 2 and 3 hold 1,357 values compact, 42,517 full_record (defaults)."""
    env = make(n, **options)
    layout = env.observer.layout
    assert layout.size - layout.offset("digest") == record_size
    assert env.observe("player_0")["observation"].shape == (layout.size,)
    assert env.observe("player_0")["action_mask"].shape == (97,)


def test_compact_window_keeps_last_16_rows_private_record_keeps_all():
    """K-A40: the compact window holds the 16 newest auctions, `private_record` all of them."""
    env = make(4)
    s = env.state_
    tops = [sp for sp in (ROOSTER, GOOSE, CAT, DOG, SHEEP, GOAT, PIG, COW, HORSE) for _ in range(2)][:17]
    for top in tops:
        seat = s.current_player
        start_turn(env, seat, [top])
        do(env, seat, A.AUCTION)
        while s.decision == A.D_BID:
            do(env, s.current_player, A.PASS)
    full = record(env, 1, "auctions")
    assert len(full) == 17
    window = block(env, 1, "record_auctions")
    assert window.shape == (16, 24)
    assert window[0].tolist() == full[-1]  # newest first
    assert window[15].tolist() == full[1]  # the oldest row dropped out
    assert [row[2] for row in full] == tops


# ============================================================================= options (Appendix A, K-A1)
def test_custom_animal_values_used_in_scores():
    """K-A1: `animal_values` is configurable and used by the scores."""
    values = [10 * (i + 1) for i in range(10)]
    env = make(4, animal_values=values)
    hold(env, 1, {ROOSTER: 4, HORSE: 4})
    assert env.state_.scores()[1] == (10 + 100) * 2
    assert make(4).game.cfg.animal_values == (10, 40, 90, 160, 250, 350, 500, 650, 800, 1000)


def test_money_composition_too_small_for_player_count():
    """Appendix A: 11 fifties cannot supply start capital + first payout for 6 players (12 needed),
    but suffice for 5."""
    small = [12, 18, 6, 11, 6, 6, 6]
    with pytest.raises(ConfigError, match="money_composition"):
        koehandel_v0.env(num_players=6, money_composition=small)
    env = make(5, money_composition=small)
    assert env.state_.bank[3] == 11 - 5


def test_money_composition_too_small_for_two_players():
    """§2.2: the 2-player deck needs at least 10 money cards to remove."""
    with pytest.raises(ConfigError, match="money_composition"):
        koehandel_v0.env(num_players=2, money_composition=[12, 6, 2, 4, 2, 2, 2])


@pytest.mark.parametrize("n", [1, 7])
def test_player_count_out_of_range(n):
    """Appendix A / §0: 2-6 players only."""
    with pytest.raises(ValueError, match="num_players"):
        koehandel_v0.env(num_players=n)


def test_invalid_reward_mode():
    """Appendix A / K-A37: `reward_mode` is `"win_loss"` or `"score_margin"`."""
    with pytest.raises(ValueError, match="reward_mode"):
        koehandel_v0.env(num_players=4, reward_mode="elo")


def test_illegal_action_is_refused():
    """§12: the core refuses masked actions (here BUY outside a buy-right)."""
    env = make(4)
    start_turn(env, 0, [COW])
    with pytest.raises(ValueError, match="illegal action"):
        env.step(A.BUY)
