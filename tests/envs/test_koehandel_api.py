"""PettingZoo conformance of koehandel_v0 and the shared core's contract (spec koehandel.md §12,
Appendix A, K-A40): API/seed/render tests, spaces and observation sizes, snapshots, replay,
illegal actions, option validation, the research event log and the private record."""

import json
import pickle

import numpy as np
import pettingzoo
import pytest
from gymnasium import spaces
from pettingzoo.test import api_test, render_test, seed_test

import hiddenhand  # noqa: F401  (registers the envs)
from hiddenhand.envs import koehandel_v0
from hiddenhand.envs.core.rewards import score_margin_rewards, win_loss_rewards
from random_play import play_random

PLAYER_COUNTS = [2, 3, 4, 5, 6]
NUM_ACTIONS = 97
COMPACT_ROWS = 16
#: Columns of the block-3 tables (§12.5): R1 auctions, R2 rat auctions, R3 distributions, R4 trades,
#: R5 defaults.
COLUMNS = {"auctions": 24, "rat_auctions": 58, "distributions": 7, "trades": 41, "defaults": 11}


# ----------------------------------------------------------------------------- helpers
def make(players=4, **options):
    return koehandel_v0.env(num_players=players, **options)


def fast_forward(env, seed, steps):
    """``steps`` random legal actions via ``legal_actions`` (no observations; fast)."""
    rng = np.random.default_rng(seed)
    raw = env.unwrapped
    for _ in range(steps):
        legal = raw.legal_actions()
        if not legal:
            return
        env.step(int(rng.choice(legal)))


def finish_trace(env, seed):
    """Play on to the end with seeded random legal actions; every agent's view at every step."""
    rng = np.random.default_rng(seed)
    trace = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        views = tuple(env.observe(a)["observation"].tobytes() for a in env.possible_agents)
        trace.append((agent, obs["action_mask"].tobytes(), views, reward, term, trunc))
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return trace


def record_size(players, observation_mode="compact", max_turns=1000, overbid_mode="mask"):
    """Size of blocks 2 and 3 (§12.5 "Size")."""
    if players == 2:
        tables = {"distributions": 40, "trades": max_turns}
    else:
        tables = {"auctions": 50, "rat_auctions": 4, "trades": max_turns}
    if overbid_mode == "reveal_and_restart":
        tables["defaults"] = 250
    if observation_mode == "compact":
        tables = {name: min(rows, COMPACT_ROWS) for name, rows in tables.items()}
    return 85 + sum(rows * COLUMNS[name] for name, rows in tables.items())


def block1_size(env):
    return env.unwrapped.observer.layout.offset("digest")


# ----------------------------------------------------------------------------- PettingZoo test suite
@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_pettingzoo_api(players):
    api_test(make(players), num_cycles=400)


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_pettingzoo_seed(players):
    seed_test(lambda: make(players), num_cycles=300)


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_pettingzoo_render(players):
    render_test(lambda render_mode=None: make(players, render_mode=render_mode))


def test_registered_in_pettingzoo_registry():
    env = pettingzoo.make("aec", "hiddenhand/koehandel-v0", num_players=3, pass_is_final=True)
    env.reset(seed=0)
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    assert env.unwrapped.metadata["name"] == "koehandel_v0"
    assert env.unwrapped.game.cfg.pass_is_final is True


# ----------------------------------------------------------------------------- spaces and observations
@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_spaces_are_cached_and_shaped(players):
    env = make(players)
    env.reset(seed=0)
    space = env.observation_space("player_1")
    assert space is env.observation_space("player_1")
    assert env.action_space("player_0") is env.action_space("player_0")
    assert env.action_space("player_0") == spaces.Discrete(NUM_ACTIONS)
    box = space["observation"]
    assert box.dtype == np.int32 and box.low.min() == -1
    assert space["action_mask"].shape == (NUM_ACTIONS,) and space["action_mask"].dtype == np.int8
    obs = env.observe("player_0")
    assert obs["observation"].dtype == np.int32 and obs["action_mask"].dtype == np.int8
    assert obs["observation"].shape == box.shape


@pytest.mark.parametrize("players, options", [
    (players, options)
    for players in PLAYER_COUNTS
    for options in ({}, {"observation_mode": "full_record"}, {"observation_mode": "full_record", "max_turns": 60},
                    {"max_turns": 7}, {"overbid_mode": "reveal_and_restart"},
                    {"overbid_mode": "reveal_and_restart", "observation_mode": "full_record"})
    if players > 2 or "overbid_mode" not in options
])
def test_observation_size_follows_the_spec(players, options):
    """Blocks 2+3: 1,357 values compact with 3-6 players; full record 85 + 1,200 + 232 + 41·max_turns
    (2 players: R3 instead of R1/R2; reveal_and_restart adds R5). Block 1 has one size for all configs."""
    env = make(players, **options)
    size = env.observation_space("player_0")["observation"].shape[0]
    expected = record_size(players, **options)
    assert size - block1_size(env) == expected
    assert block1_size(env) == block1_size(make(4))
    if players > 2 and not options:
        assert expected == 1357
    if options == {"observation_mode": "full_record"} and players == 4:
        assert expected == 42517  # §12.5: the default 4-player full record
    env.reset(seed=1)
    assert env.observe("player_0")["observation"].shape == (size,)


@pytest.mark.parametrize("players, options", [
    (2, {}), (3, {"observation_mode": "full_record", "max_turns": 200}),
    (4, {"overbid_mode": "reveal_and_restart", "auto_resolve_forced": True}), (5, {"auto_payment": True}),
    (6, {"super_koehandel": True, "money_counts": True}),
])
def test_observations_stay_in_the_space_during_a_game(players, options):
    """Every agent's observation, at every step of a game: int32, fixed size, within the Box; the mask
    is non-empty exactly for the agent on turn."""
    env = make(players, **options)
    env.reset(seed=players)
    space = env.observation_space("player_0")
    low, high = space["observation"].low, space["observation"].high

    def check(agent, obs, taken):
        if taken % 7 == 0:  # every agent, at a regular sample of the steps
            for other in env.possible_agents:
                view = env.observe(other)
                vector = view["observation"]
                assert vector.dtype == np.int32 and vector.shape == low.shape
                assert (vector >= low).all() and (vector <= high).all()
                assert view["action_mask"].dtype == np.int8
                assert view["action_mask"].any() == (other == agent)
                assert set(np.unique(view["action_mask"])) <= {0, 1}
        assert space.contains(obs)

    steps = play_random(env, players, each_step=check)
    assert steps > 100


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_mask_is_zero_for_agents_not_on_turn_and_matches_legal_actions(players):
    env = make(players)
    env.reset(seed=2)
    raw = env.unwrapped
    rng = np.random.default_rng(2)
    for _ in range(300):
        mover = env.agent_selection
        for agent in env.possible_agents:
            mask = env.observe(agent)["action_mask"]
            if agent == mover:
                assert np.flatnonzero(mask).tolist() == raw.legal_actions() != []
            else:
                assert not mask.any()
        env.step(int(rng.choice(raw.legal_actions())))


# ----------------------------------------------------------------------------- pickle, snapshots, replay
@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_pickle_round_trip(players):
    env = make(players)
    env.reset(seed=3)
    fast_forward(env, 0, 150)
    clone = pickle.loads(pickle.dumps(env))
    assert clone.unwrapped.snapshot() == env.unwrapped.snapshot()
    assert finish_trace(clone, 1) == finish_trace(env, 1)


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_snapshot_restore_is_exact_and_json(players):
    env = make(players, super_koehandel=True)
    env.reset(seed=21)
    fast_forward(env, 2, 200 + 37 * players)
    snap = json.loads(json.dumps(env.unwrapped.snapshot()))
    assert snap == env.unwrapped.snapshot()  # plain JSON data: nothing lost in the round trip
    views = [env.observe(a)["observation"] for a in env.possible_agents]
    other = make(players, super_koehandel=True)
    other.restore(snap)
    assert other.unwrapped.snapshot() == snap
    for agent, view in zip(env.possible_agents, views):
        np.testing.assert_array_equal(other.observe(agent)["observation"], view)
        np.testing.assert_array_equal(other.observe(agent)["action_mask"], env.observe(agent)["action_mask"])
    assert finish_trace(other, 7) == finish_trace(env, 7)  # same RNG, same future pedigree draws
    assert other.unwrapped.snapshot() == env.unwrapped.snapshot()
    assert other.unwrapped.events == env.unwrapped.events


@pytest.mark.parametrize("mode", ["compact", "full_record"])
def test_restore_rebuilds_the_record_windows(mode):
    """The memory keeps each viewer's record windows (compact: newest 16 rows first); a restored env
    rebuilds them from the tables, so every viewer's observation is the same after many events."""
    env = make(4, observation_mode=mode, max_turns=300)
    env.reset(seed=8)
    fast_forward(env, 8, 2500)
    raw = env.unwrapped
    assert raw.state_.memory.counts["trades"] > 16 or raw.state_.memory.counts["auctions"] > 16
    other = make(4, observation_mode=mode, max_turns=300)
    other.restore(json.loads(json.dumps(raw.snapshot())))
    for agent in env.possible_agents:
        np.testing.assert_array_equal(other.observe(agent)["observation"], env.observe(agent)["observation"])


def test_action_masks_are_fresh_arrays():
    """Masks are shared read-only arrays inside the engine; an observation hands out a writable copy."""
    env = make(4)
    env.reset(seed=1)
    mask = env.observe(env.agent_selection)["action_mask"]
    mask[:] = 0
    assert env.observe(env.agent_selection)["action_mask"].any()


def test_restore_into_a_used_env_replaces_everything():
    """Restoring over an env in another game (and another point in it) leaves no trace of that game."""
    env = make(4)
    env.reset(seed=5)
    fast_forward(env, 5, 120)
    snap = env.unwrapped.snapshot()
    used = make(4)
    used.reset(seed=99)
    fast_forward(used, 9, 700)
    used.observe("player_1")  # fill the observation cache of the old game
    used.restore(snap)
    assert used.unwrapped.snapshot() == snap
    for agent in env.possible_agents:
        np.testing.assert_array_equal(used.observe(agent)["observation"], env.observe(agent)["observation"])


def test_snapshot_restore_after_the_game_ends():
    env = make(3)
    env.reset(seed=4)
    play_random(env, 0)
    env2 = make(3)
    env2.reset(seed=99)
    env2.restore(json.loads(json.dumps(env.unwrapped.snapshot())))
    assert env2.unwrapped.snapshot() == env.unwrapped.snapshot()
    assert env2.unwrapped.legal_actions() == []


@pytest.mark.parametrize("mine, theirs", [
    ({"num_players": 4}, {"num_players": 5}),
    ({"num_players": 4}, {"num_players": 4, "pass_is_final": True}),
    ({"num_players": 3}, {"num_players": 3, "observation_mode": "full_record"}),
])
def test_restore_refuses_a_snapshot_of_another_configuration(mine, theirs):
    env = koehandel_v0.env(**mine)
    env.reset(seed=0)
    other = koehandel_v0.env(**theirs)
    with pytest.raises(ValueError, match="num_players|config"):
        other.restore(env.unwrapped.snapshot())


@pytest.mark.parametrize("players, options", [
    (2, {}), (3, {}), (4, {"auto_resolve_forced": True}), (5, {"overbid_mode": "reveal_and_restart"}),
    (6, {"super_koehandel": True}), (4, {"reveal_pedigree_ties": False, "pass_is_final": True}),
])
def test_history_replay_reproduces_the_state_and_events(players, options):
    env = make(players, **options)
    env.reset(seed=8)
    fast_forward(env, 3, 600)  # auctions (pedigree tie draws use the RNG) and trades
    assert env.unwrapped.events
    replay = make(players, **options)
    replay.reset(seed=8)
    for action in env.unwrapped.history:
        replay.step(action)
    assert replay.unwrapped.state_.to_json() == env.unwrapped.state_.to_json()
    assert replay.unwrapped.events == env.unwrapped.events
    assert replay.unwrapped.history == env.unwrapped.history


def test_reset_without_seed_continues_the_rng_and_seed_reproduces():
    env = make(4)
    env.reset(seed=5)
    first = env.unwrapped.state_.to_json()
    env.reset()
    assert env.unwrapped.state_.to_json() != first
    env.reset(seed=5)
    assert env.unwrapped.state_.to_json() == first


# ----------------------------------------------------------------------------- illegal actions
@pytest.mark.parametrize("steps", [0, 1, 5, 40, 333])
def test_illegal_action_raises_and_leaves_state_untouched(steps):
    env = make(4)
    env.reset(seed=1)
    fast_forward(env, 4, steps)
    agent = env.agent_selection
    before = env.unwrapped.snapshot()
    views = [env.observe(a)["observation"] for a in env.possible_agents]
    mask = env.observe(agent)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    for bad in (illegal, -1, NUM_ACTIONS, None, "AUCTION", 1.5):
        with pytest.raises(ValueError, match=rf"illegal action {bad!r} for {agent}; legal actions: \["):
            env.step(bad)
        assert env.unwrapped.snapshot() == before
    for a, view in zip(env.possible_agents, views):
        np.testing.assert_array_equal(env.observe(a)["observation"], view)
    env.step(int(np.flatnonzero(mask)[0]))  # still playable


def test_illegal_action_error_names_the_legal_actions():
    env = make(4)
    env.reset(seed=1)
    legal = env.unwrapped.legal_actions()
    assert legal == [0]  # first turn: nobody owns animals, only AUCTION (§3)
    with pytest.raises(ValueError, match=r"legal actions: \[0\] \(AUCTION\)"):
        env.step(1)


def test_illegal_action_terminate_mode_follows_pettingzoo():
    env = make(4, illegal_action="terminate")
    env.reset(seed=1)
    fast_forward(env, 1, 25)
    mover = env.agent_selection
    mask = env.observe(mover)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    env.step(illegal)
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.rewards == {a: (-1.0 if a == mover else 0.0) for a in env.agents}
    assert env.infos[mover]["illegal_action"] == illegal
    for agent in env.agent_iter():
        _, reward, term, _, _ = env.last()
        assert term and reward == (-1.0 if agent == mover else 0.0)
        env.step(None)
    assert env.agents == []


def test_step_before_reset_is_a_clear_error():
    with pytest.raises(RuntimeError, match="reset"):
        make(4).step(0)


# ----------------------------------------------------------------------------- options
@pytest.mark.parametrize("kwargs, message", [
    ({"num_players": 7}, "num_players"),
    ({"num_players": 1}, "num_players"),
    ({"num_players": "4"}, "num_players"),
    ({"colours": 4}, "colours"),
    ({"overbid_mode": "bluff"}, "overbid_mode"),
    ({"payment_rule": "exact"}, "payment_rule"),
    ({"rat_removal": "highest"}, "rat_removal"),
    ({"observation_mode": "full"}, "observation_mode"),
    ({"truncation_reward": "one"}, "truncation_reward"),
    ({"max_turns": 0}, "max_turns"),
    ({"max_turns": 2.5}, "max_turns"),
    ({"pass_is_final": "yes"}, "pass_is_final"),
    ({"overbid_cap": 15}, "overbid_cap"),
    ({"animal_values": [10] * 9}, "animal_values"),
    ({"money_composition": [12, 18, 6, 12, 6, 6, 5], "num_players": 6}, "money_composition"),
    ({"money_composition": [12, 18, 6, 12, 6, 6]}, "money_composition"),
    ({"illegal_action": "ignore"}, "illegal_action"),
    ({"reward_mode": "dense"}, "reward_mode"),
    ({"render_mode": "rgb_array"}, "render_mode"),
])
def test_bad_options_are_rejected_with_a_clear_error(kwargs, message):
    """Appendix A (K-A1): a bad argument or option is rejected at construction, naming it."""
    with pytest.raises((ValueError, TypeError), match=message):
        koehandel_v0.env(**kwargs)


def test_unknown_option_error_lists_the_options():
    with pytest.raises(ValueError, match=r"unknown option.*'overbid_mode'"):
        koehandel_v0.env(overbid_moed="mask")


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_every_appendix_a_option_is_accepted(players):
    options = dict(pass_is_final=True, payment_rule="strict", auto_payment=True, public_auction_payments=True,
                   reveal_pedigree_ties=False, rat_pot_attribution=False, allow_empty_offer=True,
                   retrade_allows_accept=False, two_player_start_zeros=False, super_koehandel=True,
                   super_koehandel_mandatory=True, money_counts=True, rat_removal="lowest_value",
                   reward_mode="score_margin", max_turns=300, truncation_reward="provisional",
                   auto_resolve_forced=True, observation_mode="full_record",
                   animal_values=[10, 40, 90, 160, 250, 350, 500, 650, 800, 1000],
                   money_composition=[12, 18, 6, 12, 6, 6, 6])
    env = make(players, **options)
    env.reset(seed=0)
    play_random(env, 0)
    assert all(env.terminations.values()) or all(env.truncations.values())
    env = make(players, overbid_mode="reveal_and_restart", overbid_cap=500)
    env.reset(seed=0)
    fast_forward(env, 0, 200)


# ----------------------------------------------------------------------------- rewards and truncation
@pytest.mark.parametrize("players, reward_mode", [(2, "win_loss"), (4, "win_loss"), (5, "score_margin")])
def test_terminal_rewards_follow_the_scores(players, reward_mode):
    env = make(players, reward_mode=reward_mode)
    env.reset(seed=6)
    rewards = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            assert term and not trunc
            rewards[agent], final = reward, info
            env.step(None)
            continue
        assert reward == 0
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    scores = [final["scores"][a] for a in env.possible_agents]
    expected = win_loss_rewards(scores) if reward_mode == "win_loss" else score_margin_rewards(scores, 1000.0)
    assert [rewards[a] for a in env.possible_agents] == pytest.approx(expected)
    top = max(scores)
    assert final["winners"] == [a for a, s in zip(env.possible_agents, scores) if s == top]
    assert [final["score_breakdown"][a]["score"] for a in env.possible_agents] == scores


@pytest.mark.parametrize("truncation_reward", ["zero", "provisional"])
def test_max_turns_truncates_with_provisional_scores(truncation_reward):
    env = make(4, max_turns=12, truncation_reward=truncation_reward)
    env.reset(seed=0)
    fast_forward(env, 0, 100_000)  # stops when the game is over, before the agents are removed
    raw = env.unwrapped
    assert raw.state_.turns == 12
    assert all(raw.truncations.values()) and not any(raw.terminations.values())
    final = raw.infos["player_0"]
    scores = [final["scores"][a] for a in env.possible_agents]
    assert scores == raw.state_.scores()
    if truncation_reward == "zero":
        assert set(raw.rewards.values()) == {0.0}
    else:
        assert [raw.rewards[a] for a in env.possible_agents] == win_loss_rewards(scores)


# ----------------------------------------------------------------------------- events and records
@pytest.mark.parametrize("players", [2, 4])
def test_events_are_plain_json_and_export_as_json_lines(players, tmp_path):
    env = make(players)
    env.reset(seed=9)
    play_random(env, 9)
    events = env.unwrapped.events
    kinds = {e["kind"] for e in events}
    assert kinds >= ({"distribution", "trade"} if players == 2 else {"auction", "pedigree", "rat", "trade"})
    for event in events:
        assert type(event) is dict
        assert json.loads(json.dumps(event)) == event  # only dicts, lists, str, int, float, bool, None
    assert [e["seq"] for e in events] == sorted(e["seq"] for e in events)
    path = tmp_path / "events.jsonl"
    assert env.unwrapped.export_events(path, game_id="g9") == len(events)
    lines = path.read_text().splitlines()
    assert [json.loads(line) for line in lines] == [{"game_id": "g9", **e} for e in events]
    assert env.unwrapped.export_events(path, append=True) == len(events)
    assert len(path.read_text().splitlines()) == 2 * len(events)


def _expected_record_block(raw, agent, full):
    """Blocks 2+3 of ``agent``'s observation rebuilt from ``private_record`` (§12.5, K-A40): digest, then
    per table all rows (full record) or the last 16, newest first (compact), zero-padded."""
    record = raw.private_record(agent)
    layout = raw.observer.layout
    parts = []
    for name, rows in record.items():
        rows_in_obs, columns = layout.shapes[f"record_{name}"]
        assert columns == COLUMNS[name]
        table = np.zeros((rows_in_obs, columns), np.int32)
        kept = rows if full else rows[-COMPACT_ROWS:][::-1]
        if kept:
            table[: len(kept)] = kept
        parts.append(table)
    return parts


def _check_record_matches_observation(raw, full):
    layout = raw.observer.layout
    for agent in raw.possible_agents:
        obs = raw.observe(agent)["observation"]
        record = raw.private_record(agent)
        names = [name[len("record_"):] for name in layout.shapes if name.startswith("record_")]
        assert list(record) == names
        for name, table in zip(names, _expected_record_block(raw, agent, full)):
            np.testing.assert_array_equal(layout.view(obs, f"record_{name}"), table, err_msg=f"{agent} {name}")


def _check_record_counts(raw):
    """Each table holds one row per settled event of its kind, in order (seq column), for every agent."""
    events = raw.events
    by_table = {
        "auctions": [e["seq"] for e in events if e["kind"] in ("auction", "pedigree")],
        "rat_auctions": [e["seq"] for e in events if e["kind"] == "rat"],
        "distributions": [e["seq"] for e in events if e["kind"] == "distribution"],
        "trades": [e["seq"] for e in events if e["kind"] == "trade"],
    }
    for agent in raw.possible_agents:
        for name, rows in raw.private_record(agent).items():
            if name in by_table:
                assert [row[0] for row in rows] == by_table[name], (agent, name)
            assert all(len(row) == COLUMNS[name] for row in rows)


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_private_record_matches_the_compact_observation(players):
    env = make(players)
    env.reset(seed=10 + players)
    raw = env.unwrapped
    rng = np.random.default_rng(players)
    checkpoints = 0
    while raw.legal_actions():
        if rng.random() < 0.02:
            _check_record_matches_observation(raw, full=False)
            checkpoints += 1
        env.step(int(rng.choice(raw.legal_actions())))
    _check_record_matches_observation(raw, full=False)
    _check_record_counts(raw)
    trades = sum(e["kind"] == "trade" for e in raw.events)
    assert checkpoints > 5
    # the record keeps what the compact window dropped
    assert trades > COMPACT_ROWS
    assert len(raw.private_record("player_0")["trades"]) == trades
    window = raw.observer.layout.view(raw.observe("player_0")["observation"], "record_trades")
    assert (window != 0).any(axis=1).sum() == COMPACT_ROWS


@pytest.mark.parametrize("players", [2, 3, 6])
def test_private_record_is_the_whole_record_in_full_record_mode(players):
    env = make(players, observation_mode="full_record", max_turns=400)
    env.reset(seed=20 + players)
    raw = env.unwrapped
    rng = np.random.default_rng(players)
    steps = 0
    while raw.legal_actions():
        if steps % 97 == 0:
            _check_record_matches_observation(raw, full=True)
        env.step(int(rng.choice(raw.legal_actions())))
        steps += 1
    _check_record_matches_observation(raw, full=True)
    _check_record_counts(raw)


def test_private_record_uses_relative_seats_and_unknown_marks():
    """Row content sanity in a 4-player game: seat slots relative to the viewer, the payment composition
    of an animal auction known to payer and payee only (-1 for the others, K-A12)."""
    env = make(4)
    env.reset(seed=3)
    raw = env.unwrapped
    rng = np.random.default_rng(3)
    while not any(e["kind"] == "auction" and e["payment"] for e in raw.events):
        env.step(int(rng.choice(raw.legal_actions())))
    index = sum(e["kind"] in ("auction", "pedigree") for e in raw.events) - 1
    event = raw.events[-1]
    for viewer, agent in enumerate(raw.possible_agents):
        row = raw.private_record(agent)["auctions"][index]
        assert row[0] == event["seq"] and row[1] == 1 and row[2] == event["species"]
        assert row[3] == (event["auctioneer"] - viewer) % 4
        assert row[12] == (event["winner"] - viewer) % 4
        assert row[13] == event["price"] and row[15] == sum(event["payment"])
        if viewer in (event["payer"], event["payee"]):
            assert row[16:23] == event["payment"]
        else:
            assert row[16:23] == [-1] * 7


def test_private_record_unknown_agent():
    env = make(4)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="unknown agent"):
        env.unwrapped.private_record("player_9")


def test_ansi_render_shows_no_hand():
    env = make(4, render_mode="ansi")
    env.reset(seed=0)
    fast_forward(env, 0, 30)
    text = env.render()
    assert "to move: player_" in text and "money cards" in text
    assert "{" not in text  # no hand composition in the spectator view


@pytest.mark.parametrize("players, options", [(2, {}), (4, {}), (5, {"overbid_mode": "reveal_and_restart"}),
                                              (3, {"observation_mode": "full_record", "max_turns": 200})])
def test_cached_observations_equal_fresh_encodings(players, options):
    """The observer caches blocks between decisions; every observation must equal a fresh encoding."""
    from hiddenhand.envs.koehandel.observation import KoehandelObserver

    env = make(players, **options)
    env.reset(seed=players)
    raw = env.unwrapped
    rng = np.random.default_rng(players)
    for step in range(1500):
        if not raw.legal_actions():
            break
        fresh = KoehandelObserver(raw.game)
        for agent in raw.possible_agents[: 2 if step % 3 else players]:
            seat = raw.possible_agents.index(agent)
            np.testing.assert_array_equal(raw.observe(agent)["observation"], fresh.encode(raw.state_, seat))
        env.step(int(rng.choice(raw.legal_actions())))
