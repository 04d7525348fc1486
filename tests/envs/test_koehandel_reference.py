"""The Koehandel observer and masks against their readable specification (envs/koehandel/reference.py;
docs/koehandel_rules.md §12.1-§12.5; issue 23): every seat's observation and the mover's mask, at every
step of seeded random games under the options of Appendix A, after restore and set_position, and in
re-dealt copies (exact and approximate, Appendix C)."""

import numpy as np
import pytest

from hiddenhand.envs import koehandel_v0
from hiddenhand.envs.koehandel import reference, sampler
from hiddenhand.envs.koehandel.observation import KoehandelObserver
from playing import advance

CASES = [  # (players, options): every option of Appendix A that changes observations or masks
    (2, {}), (4, {}), (6, {"super_koehandel": True}),
    (3, {"overbid_mode": "reveal_and_restart", "pass_is_final": True}),
    (5, {"auto_payment": True, "payment_rule": "strict", "auto_resolve_forced": True}),
    (4, {"allow_empty_offer": True, "retrade_allows_accept": False, "public_auction_payments": True}),
    (3, {"rat_pot_attribution": False, "reveal_pedigree_ties": False, "observation_mode": "full_record"}),
    (2, {"super_koehandel": True, "two_player_start_zeros": False}),
]


def assert_matches_reference(env):
    raw = env.unwrapped
    state = raw.state_
    for seat, agent in enumerate(raw.possible_agents):
        np.testing.assert_array_equal(raw.observe(agent)["observation"], reference.observation(state, seat),
                                      err_msg=agent)
    np.testing.assert_array_equal(state.legal_mask(), reference.legal_mask(state))


@pytest.mark.parametrize("players, options", CASES)
def test_every_step_matches_the_reference(players, options):
    env = koehandel_v0.env(num_players=players, max_turns=80, **options)
    env.reset(seed=players)
    raw, rng = env.unwrapped, np.random.default_rng(players)
    while raw.legal_actions():
        assert_matches_reference(env)
        env.step(int(rng.choice(raw.legal_actions())))
    assert_matches_reference(env)


@pytest.mark.parametrize("players", [2, 4, 6])
def test_restored_set_up_and_redealt_positions_match_the_reference(players, monkeypatch):
    env = koehandel_v0.env(num_players=players)
    env.reset(seed=1)
    advance(env, 250, 1)
    other = koehandel_v0.env(num_players=players)
    other.reset(seed=2)
    other.unwrapped.restore(env.unwrapped.snapshot())
    assert_matches_reference(other)
    other.unwrapped.set_position(seed=3, hands=[[0, 10, 10, 20]] * players)
    assert_matches_reference(other)
    for seat, agent in enumerate(env.unwrapped.possible_agents):
        assert_matches_reference(env.unwrapped.determinize(agent, seed=seat))
    monkeypatch.setattr(sampler, "WORK_BUDGET", 0)  # approximate copies
    for seat, agent in enumerate(env.unwrapped.possible_agents):
        assert_matches_reference(env.unwrapped.determinize(agent, seed=seat))


@pytest.mark.parametrize("seed", range(3))
def test_an_observer_follows_a_state_redealt_in_place(seed):
    """Issue 23: the observer's caches keyed on the state's hand-bumped ``version``, which
    ``resample_hidden`` did not bump, and on the memory's ``epoch``, which the rebuilt memory counted up to
    the same number: an observer reading a state re-dealt in place (a search that owns its state may do
    so) gave the other seats their old hands and records (§12.5). The incremental protocol's ``version``
    and the record's own values (events settled, donkeys paid, the memory itself) key them now."""
    env = koehandel_v0.env(num_players=4)
    env.reset(seed=seed)
    advance(env, 200, seed)
    state = env.unwrapped.state_.clone()
    observer = KoehandelObserver(state.game)
    for seat in range(4):
        observer.encode(state, seat)
    state.resample_hidden(0, np.random.default_rng(seed))
    for seat in range(4):
        np.testing.assert_array_equal(observer.encode(state, seat), reference.observation(state, seat), err_msg=seat)
