"""Random-play property test of the Koehandel rules engine: 2,000+ seeded games over 2..6 players and
option sets of Appendix A (docs/koehandel_rules.md), with the rules' invariants.

Checked after every step (cheap): the acting player has a legal action, the total value of money is
conserved (hands + bank + cards in transit), turns never exceed ``max_turns``. Checked at every turn
boundary and at the end (full): money per denomination conserved, hands consistent with cash and
sizes, no negative counts, every animal, rat and pedigree card in exactly one place, the donkey
counter, the end condition not passed over (K-A30), the final-phase turn rules (§9). At the end: the
game ended (terminal or truncated at ``max_turns``), on termination every species is complete and the
deck empty, and the scores (provisional ones on truncation) equal an independent implementation of §10.

A second, smaller set of games checks every settled event of the research record against the rules
(bids, payments without change, pedigree counts and ties, trade rounds and results, distributions).
"""

import random
from itertools import combinations

import numpy as np
import pytest

from hiddenhand.envs.koehandel import actions as A
from hiddenhand.envs.koehandel.cards import DENOMINATIONS, MONEY, PEDIGREE
from hiddenhand.envs.koehandel.rules import KoehandelGame

RAT = 10
DONKEY = 6
AUCTION_DECISIONS = {A.D_BID, A.D_BUYRIGHT, A.D_PAY, A.D_COMMIT, A.D_STAKE, A.D_PED_BUYRIGHT,
                     A.D_PED_CARDS, A.D_RAT}
STEP_LIMIT = 200_000  # far above any random game; reaching it means the game did not end

#: Option sets of Appendix A, several options per set (every option appears in at least one set).
OPTION_SETS = {
    "default": {},
    "restart_passfinal": {"overbid_mode": "reveal_and_restart", "pass_is_final": True},
    "strict_public": {"payment_rule": "strict", "public_auction_payments": True, "reveal_pedigree_ties": False,
                      "rat_pot_attribution": False},
    "auto": {"auto_payment": True, "auto_resolve_forced": True, "rat_removal": "lowest_value"},
    "empty_offers": {"allow_empty_offer": True, "retrade_allows_accept": False, "two_player_start_zeros": False},
    "super_money": {"super_koehandel": True, "money_counts": True, "payment_rule": "strict"},
    "super_mandatory_cap": {"super_koehandel": True, "super_koehandel_mandatory": True,
                            "overbid_mode": "reveal_and_restart", "overbid_cap": 300, "auto_resolve_forced": True},
    "short": {"max_turns": 45, "pass_is_final": True, "allow_empty_offer": True},
}
#: Games per (player count, option set): 5 counts x 8 sets x 52 = 2,080 games.
GAMES = 52
#: The first games of each test run the full check after every step, the others at turn boundaries.
FULLY_CHECKED_GAMES = 6
#: Games per (player count, option set) whose event record is checked.
EVENT_GAMES = 8


# ----------------------------------------------------------------------------- reference implementations
def value(counts):
    return sum(c * d for c, d in zip(counts, DENOMINATIONS))


def expected_score(holdings, pedigrees, cash, cfg):
    """§10.1, written independently of the engine: the rat quartet removes one animal quartet (the best
    one for the holder by brute force, or the lowest-valued one), then (Σ values + 250·matched)·|Q| +
    250·unmatched (+ cash with ``money_counts``)."""
    values, ped = cfg.animal_values, cfg.pedigree_value

    def score(quartets):
        matched = sum(1 for s in pedigrees if s in quartets)
        return (sum(values[q] for q in quartets) + ped * matched) * len(quartets) + ped * (len(pedigrees) - matched)

    quartets = [s for s in range(10) if holdings[s] == 4]
    if holdings[RAT] == 4 and quartets:
        if cfg.rat_removal == "lowest_value":
            lowest = min(quartets, key=lambda s: (values[s], s))
            total = score([q for q in quartets if q != lowest])
        else:
            total = max(score(list(rest)) for rest in combinations(quartets, len(quartets) - 1))
    else:
        total = score(quartets)
    return total + (cash if cfg.money_counts else 0)


def money_total(state):
    """Per-denomination count of every money card in the game, wherever it is (§1.4, §2)."""
    total = list(state.bank)
    for hand in state.hands:
        total = [a + b for a, b in zip(total, hand)]
    total = [a + b for a, b in zip(total, in_transit(state))]
    if state.n == 2:
        total = [a + b for a, b in zip(total, state.removed)]
        for card in state.deck:
            if card >= MONEY:
                total[card - MONEY] += 1
        if state.decision == A.D_DISTRIBUTE and state.looked >= MONEY:
            total[state.looked - MONEY] += 1
    return total


def in_transit(state):
    """Money laid face down and not yet in anyone's hand: the pedigree stake while the auctioneer
    decides, the challenger's offer while the challenged responds or counters, the rat pot."""
    decision = state.decision
    counts = [0] * 7
    if decision in (A.D_PED_BUYRIGHT, A.D_PED_CARDS):
        counts = list(state.stake)
    elif decision in (A.D_RESPONSE, A.D_COUNTER):
        counts = list(state.offers[0])
    elif decision == A.D_RAT:
        for _, d in state.pot:
            counts[d] += 1
    return counts


def money_value_total(state):
    """The cheap per-step check: total value of hands + bank + transit (3-6 players)."""
    return sum(state.cash) + value(state.bank) + value(in_transit(state))


def card_in_transit(state):
    """The red card taken from the deck and not yet placed: the card being auctioned, or (2 players)
    the card X being distributed."""
    if state.decision in AUCTION_DECISIONS:
        return state.card
    if state.decision == A.D_DISTRIBUTE:
        return state.looked
    return None


# ----------------------------------------------------------------------------- invariants
def check_full(state, composition):
    n, cfg = state.n, state.cfg
    assert money_total(state) == composition, "money per denomination not conserved"
    for seat in range(n):
        hand = state.hands[seat]
        assert min(hand) >= 0, f"negative money count for seat {seat}: {hand}"
        assert state.cash[seat] == value(hand) and state.sizes[seat] == sum(hand)
        assert all(0 <= k <= 4 for k in state.holdings[seat])
    assert min(state.bank) >= 0 and min(state.removed) >= 0
    # every red card in exactly one place
    located = [0] * 21
    for seat in range(n):
        for s in range(11):
            located[s] += state.holdings[seat][s]
    for s, owner in enumerate(state.pedigree_owner):
        if owner >= 0:
            assert 0 <= owner < n
            located[PEDIGREE + s] += 1
    for card in state.deck:
        if card < MONEY:
            located[card] += 1
    moving = card_in_transit(state)
    if moving is not None and moving < MONEY:
        located[moving] += 1
    assert located == [4] * 11 + [1] * 10, f"red cards not conserved: {located}"
    assert state.donkeys == 4 - state.deck.count(DONKEY) - (moving == DONKEY and n == 2)
    assert 0 <= state.turns <= cfg.max_turns


def check_turn_start(state):
    """After a new turn began: the game did not run past its end (K-A30); in the final phase the player
    on turn has a legal trade and must trade (§9, K-A31). (With ``auto_resolve_forced`` the forced
    ``TRADE`` is applied at once, so D1 is then never seen in the final phase.)"""
    if card_in_transit(state) is None:  # (with auto_resolve_forced the last card may be on auction)
        assert state.deck or not state.all_complete(), "game continued although every quartet is complete"
    if state.decision == A.D_TURN:
        assert state.current_player == state.turn_player
        if not state.deck:
            assert not state.cfg.auto_resolve_forced, "forced TRADE left to the agent"
            assert state.has_trade(state.turn_player)
            assert state.legal_actions() == [A.TRADE]
    elif state.decision == A.D_TARGET:
        assert state.current_player == state.turn_player and state.has_trade(state.turn_player)


def check_end(state, composition):
    cfg = state.cfg
    check_full(state, composition)
    assert state.legal_actions() == []
    if state.is_truncated:
        assert state.turns == cfg.max_turns
    else:
        assert not state.deck, "terminated with cards in the deck"
        for s in range(11):
            assert sorted(h[s] for h in state.holdings) == [0] * (state.n - 1) + [4], f"species {s} incomplete"
        assert all(owner >= 0 for owner in state.pedigree_owner)
    expected = [expected_score(state.holdings[p], [s for s in range(10) if state.pedigree_owner[s] == p],
                               state.cash[p], cfg) for p in range(state.n)]
    assert state.scores() == [float(x) for x in expected]


# ----------------------------------------------------------------------------- the games
def play_game(game, seed, check_every_step=False):
    """One seeded random game with the invariants; ``check_every_step`` runs the full check after every
    step instead of at turn boundaries only."""
    rng = np.random.default_rng(seed)
    choose = random.Random(seed).choice
    state = game.new_initial_state(rng)
    composition = list(game.cfg.money_composition)
    cheap_total = money_value_total(state)
    check_full(state, composition)
    max_turns = game.cfg.max_turns
    turns = state.turns
    for _ in range(STEP_LIMIT):
        if state.is_terminal:
            break
        legal = state.legal_actions()
        assert legal, f"empty mask at decision {state.decision} for seat {state.current_player}"
        assert 0 <= legal[0] and legal[-1] < A.NUM_ACTIONS
        state.apply(choose(legal), rng)
        if state.n > 2:
            assert money_value_total(state) == cheap_total, "money value not conserved"
        assert state.turns <= max_turns
        if check_every_step:
            check_full(state, composition)
        if state.turns != turns and not state.is_terminal:  # a new turn began
            turns = state.turns
            check_full(state, composition)
            check_turn_start(state)
    else:
        pytest.fail(f"game {seed} did not end within {STEP_LIMIT} steps")
    check_end(state, composition)
    return state


def check_events(state, max_bids=True):
    """Every settled event of the research record against the rules (§4-§8) and, with ``max_bids``, the
    R1 definition (§12.5: columns 5-10 hold the highest bid each seat committed on the card)."""
    cfg, n = state.cfg, state.n
    for e in state.events:
        kind = e["kind"]
        moved = sum(e["cash_after"]) - sum(e["cash_before"])
        if kind == "auction":
            bids = e["bids"]
            assert all(b > 0 and b % 10 == 0 for _, b in bids)
            highest = [max([b for q, b in bids if q == p], default=0) for p in range(n)]
            if max_bids:
                assert e["max_bids"] == highest, f"R1 bids {e['max_bids']} != highest committed {highest}: {bids}"
            if cfg.overbid_mode == "mask":
                assert e["defaults"] == []
                assert all(b2 > b1 for (_, b1), (_, b2) in zip(bids, bids[1:])), "bids must rise (§4.2)"
            assert moved == n * e["donkey_payout"]
            payment = e["payment"]
            if payment is None:
                assert e["price"] == 0 and e["owner"] == e["auctioneer"]
                continue
            price = e["price"]
            assert bids[-1] == [e["winner"], price]
            assert payment[0] == 0 and value(payment) >= price, "insufficient payment (§4.4 a)"
            smallest = min(DENOMINATIONS[d] for d in range(1, 7) if payment[d])
            assert value(payment) - smallest < price, "redundant payment (§4.4 b)"
            if e["decision"] == "buy":
                assert e["payer"] == e["owner"] == e["auctioneer"] and e["payee"] == e["winner"]
            else:
                assert e["decision"] == "decline" and e["payer"] == e["owner"] == e["winner"]
                assert e["payee"] == e["auctioneer"]
        elif kind == "pedigree":
            assert moved == 0
            if cfg.overbid_mode == "mask":
                assert e["defaults"] == []
            if e["payment"] is None:
                assert e["owner"] == e["auctioneer"] and e["count"] == 0
                continue
            last = e["commit_rounds"][-1]
            count = e["count"]
            assert count == max(c or 0 for c in last) and last[e["winner"]] == count
            tied = [p for p in range(n) if last[p] == count]
            assert sorted(e["ties"]) == (tied if len(tied) > 1 else [])
            assert sum(e["payment"]) == sum(e["stake"]) == count
            if e["decision"] == "decline":
                assert e["payment"] == e["stake"] and e["owner"] == e["winner"]
            else:
                assert e["decision"] == "buy" and e["owner"] == e["auctioneer"] == e["payer"]
        elif kind == "rat":
            assert moved == 0 and 0 <= e["taker"] < n
        elif kind == "trade":
            assert moved == 0 and e["stake"] in (1, 2) and e["species"] in range(11)
            rounds = e["rounds"]
            assert len(rounds) in (1, 2) and (len(rounds) == 1 or rounds[0]["result"] == "tie")
            for rnd in rounds:
                offer, counter = rnd["offer"], rnd["counter"]
                assert rnd["offer_cards"] == sum(offer)
                if not cfg.allow_empty_offer and not e["final_phase"]:
                    assert sum(offer) >= 1, "empty offer in the deck phase (K-A21)"
                if rnd["response"] == "accept":
                    assert counter is None and rnd["result"] == "challenger"
                    continue
                assert rnd["counter_cards"] == sum(counter)
                if not cfg.allow_empty_offer:
                    assert sum(counter) >= 1, "empty counter-offer (K-A21)"
                vc, vd = value(offer), value(counter)
                assert rnd["values"] == [vc, vd]
                assert rnd["result"] == ("challenger" if vc > vd else "challenged" if vd > vc else "tie")
            last = rounds[-1]["result"]
            assert e["winner"] == (e["challenged"] if last == "challenged" else e["challenger"])
        else:
            assert kind == "distribution" and n == 2
            keep = e["decision"] == "keep"
            assert e["x_to"] == (e["distributor"] if keep else 1 - e["distributor"])
            assert e["y"] is None or e["y_to"] == 1 - e["x_to"]


@pytest.mark.parametrize("option_set", sorted(OPTION_SETS))
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_settled_events_follow_the_rules(players, option_set):
    game = KoehandelGame(players, **OPTION_SETS[option_set])
    base = 500_000 + 10_000 * players + 1_000 * sorted(OPTION_SETS).index(option_set)
    for seed in range(base, base + EVENT_GAMES):
        state = play_game(game, seed)
        check_events(state, max_bids=game.cfg.overbid_mode == "mask")  # restarts: see the next test


@pytest.mark.parametrize("players", [3, 5])
def test_recorded_bids_are_the_highest_per_seat_across_restarts(players):
    """§12.5 R1 columns 5-10 (and block 1): "the highest bid that seat committed on this card". After a
    default in ``reveal_and_restart`` mode the auction of the same card restarts from h = 0 (§4.5); a
    seat's lower bids in the restarted auction must not replace its higher bid before the default."""
    game = KoehandelGame(players, overbid_mode="reveal_and_restart")
    restarts = 0
    for seed in range(20):
        state = play_game(game, 700_000 + seed)
        for e in state.events:
            if e["kind"] == "auction" and e["defaults"]:
                restarts += 1
                highest = [max([b for q, b in e["bids"] if q == p], default=0) for p in range(players)]
                assert e["max_bids"] == highest, f"seq {e['seq']}: recorded {e['max_bids']}, bids {e['bids']}"
    assert restarts > 0


@pytest.mark.parametrize("option_set", sorted(OPTION_SETS))
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_random_games_keep_invariants(players, option_set):
    game = KoehandelGame(players, **OPTION_SETS[option_set])
    outcomes = {"terminal": 0, "truncated": 0}
    base = 10_000 * players + 1_000 * sorted(OPTION_SETS).index(option_set)
    for seed in range(base, base + GAMES):
        state = play_game(game, seed, check_every_step=seed < base + FULLY_CHECKED_GAMES)
        outcomes["truncated" if state.is_truncated else "terminal"] += 1
    if option_set == "short":
        assert outcomes["truncated"] > 0  # the cap is really reached
    else:
        assert outcomes["terminal"] > 0


def test_reference_scorer_agrees_with_the_spec_examples():
    """The test's own §10 scorer against §10.3 (T1-T5), so that the comparison above means something."""
    cfg = KoehandelGame(4).cfg
    goose, cat, dog, pig, cow, horse, sheep, goat, rooster = 1, 2, 3, 7, 8, 9, 4, 5, 0

    def held(*complete, rats=0):
        out = [0] * 11
        for s in complete:
            out[s] = 4
        out[RAT] = rats
        return out

    assert expected_score(held(goose, dog, cow, rats=4), [dog, horse], 0, cfg) == 2670
    assert expected_score(held(horse, pig, cat), [horse, cat, rooster], 0, cfg) == 6970
    assert expected_score(held(goose, cat, dog, rats=4), [goose], 0, cfg) == 900
    assert expected_score(held(rats=4), [sheep, goat], 0, cfg) == 500
    assert expected_score(held(horse, rats=4), [horse], 0, cfg) == 250
    lowest = KoehandelGame(4, rat_removal="lowest_value", money_counts=True).cfg
    assert expected_score(held(goose, cat, dog, rats=4), [goose], 0, lowest) == 750
    assert expected_score(held(goose, dog, cow, rats=4), [dog, horse], 430, lowest) == 3100
