"""Koehandel re-deals with a bound (docs/koehandel_rules.md §11.2, Appendix C; issue 22).

``determinize`` searches for a history consistent with what the agent saw within a budget of work
(``sampler.WORK_BUDGET`` units, counted deterministically); past it the copy is drawn approximately
(``fallback.py``): every public fact and the agent's observation are kept, the copy plays on under the
invariants, is flagged, depends only on the agent's information and the seed, and restores with its
flag (its walk leaves out money against the hands).
"""

import time

import numpy as np
import pytest

from hiddenhand.envs import koehandel_v0
from hiddenhand.envs.core.game import SnapshotError
from hiddenhand.envs.koehandel import actions as A
from hiddenhand.envs.koehandel import sampler
from playing import advance, play_random
from test_koehandel_snapshots import as_position


def played(players, seed, moves):
    """A position of seeded random play."""
    env = koehandel_v0.env(num_players=players)
    env.reset(seed=seed)
    advance(env, moves, seed)
    return env


def assert_public_facts_kept(raw, copy_, agent):
    """The agent's observation and complete record, every seat's hand size and holdings, the pedigrees,
    the deck's cards (not their order), the bank, the turn and the decision."""
    seat = raw.possible_agents.index(agent)
    np.testing.assert_array_equal(copy_.observe(agent)["observation"], raw.observe(agent)["observation"])
    assert copy_.private_record(agent) == raw.private_record(agent)
    s, c = raw.state_, copy_.state_
    for name in ("sizes", "holdings", "pedigree_owner", "bank", "donkeys", "turns", "turn_player", "decision",
                 "current_player", "seq"):
        assert getattr(c, name) == getattr(s, name), name
    assert c.hands[seat] == s.hands[seat]
    assert sorted(card for card in c.deck if card < 21) == sorted(card for card in s.deck if card < 21)
    assert len(c.deck) == len(s.deck) and len(c.events) == len(s.events)
    assert copy_.game.invariants(c) == []


def test_the_59_second_position_returns_within_the_bound():
    """Issue 22: 5 players, reset(seed=118), 1,622 random steps, determinize("player_4") took 59 s. Its
    search now stops at the work budget and the copy is drawn approximately, keeping the public facts."""
    env = koehandel_v0.env(num_players=5)
    env.reset(seed=118)
    raw, rng = env.unwrapped, np.random.default_rng(118)
    for _ in range(1622):
        env.step(int(rng.choice(raw.legal_actions())))
    begin = time.process_time()
    copy_ = raw.determinize("player_4", seed=0)
    assert time.process_time() - begin < 10  # about 0.5 s here; the bound is in work, not time
    assert copy_.redeal_is_approximate
    assert_public_facts_kept(raw, copy_, "player_4")
    again = raw.determinize("player_4", seed=0)
    assert again.snapshot() == copy_.snapshot()  # deterministic: the budget counts work, not time
    play_random(copy_, 1)
    assert copy_.game.invariants(copy_.state_) == []


@pytest.fixture
def no_budget(monkeypatch):
    """Every re-deal goes straight to the approximate draw."""
    monkeypatch.setattr(sampler, "WORK_BUDGET", 0)


@pytest.mark.parametrize("players, options", [
    (2, {}), (3, {"overbid_mode": "reveal_and_restart"}), (4, {}), (5, {"super_koehandel": True}),
    (6, {"rat_pot_attribution": False, "reveal_pedigree_ties": False}),
    (4, {"auto_payment": True, "payment_rule": "strict", "public_auction_payments": True}),
])
def test_approximate_copies_keep_the_public_facts_and_play_on(no_budget, players, options):
    env = koehandel_v0.env(num_players=players, max_turns=150, **options)
    env.reset(seed=players)
    raw, rng, checked, approximate = env.unwrapped, np.random.default_rng(players), 0, 0
    while raw.legal_actions():
        if rng.random() < 0.05:
            agent = raw.possible_agents[int(rng.integers(players))]
            copy_ = raw.determinize(agent, seed=checked)
            approximate += copy_.redeal_is_approximate  # (exact where nothing is hidden to draw)
            assert_public_facts_kept(raw, copy_, agent)
            space = copy_.observation_space(agent)["observation"]
            assert all(space.contains(copy_.observe(other)["observation"]) for other in raw.possible_agents)
            if checked % 4 == 0:
                play_random(copy_, checked, steps=60, each_step=lambda e, *_: _invariants_hold(e))
            checked += 1
        env.step(int(rng.choice(raw.legal_actions())))
    assert checked >= 5 and approximate >= checked - 2


def _invariants_hold(env):
    assert env.unwrapped.game.invariants(env.unwrapped.state_) == []


def test_an_approximate_copy_depends_only_on_the_agents_information(no_budget):
    """The twin contract holds past the budget too: a copy of a copy (a position the agent cannot tell
    from the true one) gives the same copy for the same seed."""
    env = played(4, 3, 400)
    raw = env.unwrapped
    for seat, agent in enumerate(raw.possible_agents):
        first = raw.determinize(agent, seed=7)
        twin = first.determinize(agent, seed=7)
        assert twin.snapshot()["state"] == first.snapshot()["state"]


def test_an_approximate_copy_restores_exactly_and_its_flag_is_checked(no_budget):
    """Its walk keeps every check but money against the hands (Appendix B); the flag is part of the
    state: dropped, the record's cash is refused."""
    env = played(4, 1, 200)
    copy_ = env.unwrapped.determinize("player_2", seed=0)
    play_random(copy_, 0, steps=40)
    snapshot = as_position(copy_.snapshot())
    target = koehandel_v0.env(num_players=4)
    target.reset(seed=0)
    target.unwrapped.restore(snapshot)
    assert target.unwrapped.snapshot() == snapshot and target.unwrapped.redeal_is_approximate
    snapshot["state"].pop("approximate")
    with pytest.raises(SnapshotError, match="cash_before|out of range"):
        target.unwrapped.restore(snapshot)
    snapshot["state"]["approximate"] = False
    with pytest.raises(SnapshotError, match="approximate=False"):
        target.unwrapped.restore(snapshot)


def test_an_exact_copy_is_not_flagged():
    env = played(4, 1, 200)
    copy_ = env.unwrapped.determinize("player_2", seed=0)
    assert not copy_.redeal_is_approximate and not env.unwrapped.redeal_is_approximate


def test_the_budget_counts_work_deterministically(monkeypatch):
    """A budget between what a position needs and nothing: the same seed gives the same copy every time,
    exact or approximate."""
    env = played(5, 2, 900)
    raw = env.unwrapped
    for budget in (0, 50, 500, 5000):
        monkeypatch.setattr(sampler, "WORK_BUDGET", budget)
        copies = [raw.determinize("player_1", seed=3).snapshot() for _ in range(2)]
        assert copies[0] == copies[1]


def test_approximate_copies_cover_every_bid_in_mask_mode(no_budget):
    """K-A9 (mask): a bid never exceeds its bidder's cash, and the buy-right counts on it (a winner who
    cannot pay only exists under reveal_and_restart). An approximate copy used to meet the bids only if a
    random deal happened to, and a search whose copy then had the auctioneer decline crashed in the rules
    (the default table of reveal_and_restart does not exist in mask mode). Every copy at every bid of
    heuristic play now covers them, and the auctioneer's decline plays on."""
    from hiddenhand.agents import load

    env = koehandel_v0.env(num_players=4, auto_resolve_forced=True)
    env.reset(seed=1)
    raw = env.unwrapped
    agents = [load("heuristic", raw.game, seed=seat) for seat in range(4)]
    checked = declined = 0
    for agent_id in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation or checked >= 150:
            break
        state = raw.state_
        if any(state.max_bid):
            viewer = raw.possible_agents[checked % 4]
            copy_ = raw.determinize(viewer, seed=checked)
            c = copy_.state_
            assert all(c.cash[seat] >= bid for seat, bid in enumerate(c.max_bid)), (c.cash, c.max_bid)
            assert copy_.game.invariants(c) == []
            if c.decision == A.D_BUYRIGHT and c.high_bidder != raw.possible_agents.index(viewer):
                copy_.step(A.DECLINE)  # the copy's high bidder pays
                assert copy_.game.invariants(copy_.state_) == []
                declined += 1
            checked += 1
        seat = raw.possible_agents.index(agent_id)
        env.step(int(agents[seat].act(observation["observation"], observation["action_mask"])))
    assert checked >= 150 and declined >= 3


def test_the_last_resort_deal_meets_several_bids_together():
    """When random deals all miss the hard bounds, the bound hands take the most valuable cards, each to
    the hand lacking the most per place left: seat 1 (one card, needs 100) gets the 100, seat 0 (two
    cards, needs 100) the two 50s; handing the best card to the first hand would leave seat 1 short."""
    from hiddenhand.envs.koehandel import fallback
    from hiddenhand.envs.koehandel.cards import DENOMINATIONS

    fifty, hundred = DENOMINATIONS.index(50), DENOMINATIONS.index(100)
    dealt = fallback._cover([hundred, fifty, fifty], [(("hand", 0), 2), (("hand", 1), 1)], {0: 100, 1: 100})
    assert dealt[("hand", 1)][hundred] == 1 and dealt[("hand", 0)][fifty] == 2
