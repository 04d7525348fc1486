"""koehandel_v0 beyond the generic contract suite (tests/contract/): observation sizes (docs/koehandel_rules.md
§12.5, K-A40), option validation (Appendix A), the research event log and the private record, invariants
and checked restores of tampered snapshots, the position helper and action names (§12.2)."""

import copy
import json
import re

import numpy as np
import pytest

from hiddenhand.envs import koehandel_v0
from hiddenhand.envs.core.game import SnapshotError
from hiddenhand.envs.core.snapshots import as_position
from hiddenhand.envs.core.rewards import score_margin_rewards, win_loss_rewards
from hiddenhand.envs.koehandel import actions as A
from playing import advance, play_random, trace

PLAYER_COUNTS = [2, 3, 4, 5, 6]
NUM_ACTIONS = 97
COMPACT_ROWS = 16
#: Columns of the block-3 tables (§12.5): R1 auctions, R2 rat auctions, R3 distributions, R4 trades,
#: R5 defaults.
COLUMNS = {"auctions": 24, "rat_auctions": 58, "distributions": 7, "trades": 41, "defaults": 11}


# ----------------------------------------------------------------------------- helpers
def make(players=4, **options):
    return koehandel_v0.env(num_players=players, **options)


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


# ----------------------------------------------------------------------------- spaces and observations
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
    """Every agent's observation, at every step of a game: float32 integers, fixed size, within the Box
    (every value below 2**24, so exact); the mask is non-empty exactly for the agent on turn."""
    env = make(players, **options)
    env.reset(seed=players)
    space = env.observation_space("player_0")
    low, high = space["observation"].low, space["observation"].high

    def check(env, obs, taken):
        agent = env.agent_selection
        if taken % 7 == 0:  # every agent, at a regular sample of the steps
            for other in env.possible_agents:
                view = env.observe(other)
                vector = view["observation"]
                assert vector.dtype == np.float32 and vector.shape == low.shape
                assert (vector >= low).all() and (vector <= high).all() and high.max() < 2**24
                assert (vector == np.round(vector)).all()
                assert view["action_mask"].dtype == np.int8
                assert view["action_mask"].any() == (other == agent)
                assert set(np.unique(view["action_mask"])) <= {0, 1}
        assert space.contains(obs)

    steps = play_random(env, players, each_step=check)
    assert steps > 100


# ----------------------------------------------------------------------------- record windows after restore
@pytest.mark.parametrize("mode", ["compact", "full_record"])
def test_restore_rebuilds_the_record_windows(mode):
    """The memory keeps each viewer's record windows (compact: newest 16 rows first); a restored env
    rebuilds them from the tables, so every viewer's observation is the same after many events."""
    env = make(4, observation_mode=mode, max_turns=300)
    env.reset(seed=8)
    advance(env, 2500, 8)
    raw = env.unwrapped
    assert raw.state_.memory.counts["trades"] > 16 or raw.state_.memory.counts["auctions"] > 16
    other = make(4, observation_mode=mode, max_turns=300)
    other.restore(json.loads(json.dumps(raw.snapshot())))
    for agent in env.possible_agents:
        np.testing.assert_array_equal(other.observe(agent)["observation"], env.observe(agent)["observation"])


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
    advance(env, 200, 0)


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
    advance(env, 100_000, 0)  # stops when the game is over, before the agents are removed
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


# ----------------------------------------------------------------------------- invariants
def _state_data(players=4, seed=3, steps=120, **options):
    env = make(players, **options)
    env.reset(seed=seed)
    advance(env, steps, seed)
    return env, env.unwrapped.state_.to_json()


def _problems(env, data):
    """The invariants' problems, or the parse's (a record that does not fit the position is refused there)."""
    game = env.unwrapped.game
    try:
        return game.invariants(game.state_from_json(data))
    except SnapshotError as error:
        return [str(error)]


@pytest.mark.parametrize("tamper, message", [
    (lambda d: d["bank"].__setitem__(1, d["bank"][1] + 1), "not the composition"),
    (lambda d: d["cash"].__setitem__(0, d["cash"][0] + 10), r"cash\[0\]=.* do not match hands\[0\]"),
    (lambda d: d["sizes"].__setitem__(2, d["sizes"][2] + 1), r"sizes\[2\]=.* do not match"),
    (lambda d: d["deck"].append(d["deck"][0]), "cards .*the game has"),  # a duplicated deck card
    (lambda d: d["deck"].pop(), "cards .*the game has"),  # a card lost
    (lambda d: d["holdings"][1].__setitem__(10, d["holdings"][1][10] + 1), "rat: 5 cards"),
    (lambda d: d["pedigree_owner"].__setitem__(next(c for c in d["deck"] if c >= 11) - 11, 2),
     "pedigree .*: 2 cards"),  # a pedigree both in the deck and owned
    (lambda d: d.update(donkeys=(d["donkeys"] + 1) % 5), "donkeys="),
    (lambda d: d.update(turns=1001), "turns is 1001"),
    (lambda d: d.update(is_truncated=True), "is_truncated without is_terminal"),
    (lambda d: d.update(is_terminal=True), "finished game has decision"),
    (lambda d: d.update(decision=0), "no decision pending"),
    (lambda d: d.update(current_player=(d["current_player"] + 1) % 4), r"decision \d+ \(.*\) by seat"),
    (lambda d: d.update(pending=30), "a raise of 30|decision"),
    (lambda d: d["selection"].__setitem__(0, 1), "selection|decision"),
])
def test_invariants_catch_a_tampered_state(tamper, message):
    env, data = _state_data()
    assert _problems(env, data) == []
    tamper(data)
    problems = _problems(env, data)
    assert problems and any(re.search(message, p) for p in problems), problems


def test_invariants_hold_in_random_play_under_options():
    for players, options in ((2, {"super_koehandel": True}), (3, {"overbid_mode": "reveal_and_restart",
                             "pass_is_final": True}), (5, {"auto_resolve_forced": True, "auto_payment": True})):
        env = make(players, max_turns=80, **options)
        env.reset(seed=players)
        raw, rng = env.unwrapped, np.random.default_rng(players)
        while raw.legal_actions():
            assert raw.game.invariants(raw.state_) == []
            env.step(int(rng.choice(raw.legal_actions())))
        assert raw.game.invariants(raw.state_) == []


def test_invariants_check_the_decision_of_every_auction_and_trade_phase():
    """A live decision moved to the wrong seat is caught in every phase a random game passes through."""
    env = make(4, max_turns=60)
    env.reset(seed=8)
    raw, rng, seen = env.unwrapped, np.random.default_rng(8), set()
    while raw.legal_actions():
        data = raw.state_.to_json()
        if data["decision"] not in seen:
            seen.add(data["decision"])
            data["current_player"] = (data["current_player"] + 1) % 4  # the next seat is always wrong
            assert _problems(env, data), A.DECISION_NAMES[data["decision"]]
        env.step(int(rng.choice(raw.legal_actions())))
    assert len(seen) >= 10


# ----------------------------------------------------------------------------- tampered restores
def _tampered(snapshot, tamper):
    """The snapshot as a position (its state the origin, checked by the state checks, not by replay; the
    origin shares the state's and aec's data) with ``tamper`` applied."""
    bad = as_position(copy.deepcopy(snapshot))
    tamper(bad)
    return bad


def _a_cow_in_two_hands(snap):
    state = snap["state"]
    holder = next(seat for seat, held in enumerate(state["holdings"]) if any(held[:10]))
    species = next(s for s in range(10) if state["holdings"][holder][s])
    state["holdings"][(holder + 1) % 4][species] += 1  # the same card lies before a second seat


TAMPERED = {
    "a card in two hands": (_a_cow_in_two_hands, "cards"),
    "a negative count": (lambda s: s["state"]["hands"][1].__setitem__(2, -1), r"hands \[1\] \[2\] is -1, not an int in 0..127"),
    "a current player of 7": (lambda s: s["state"].update(current_player=7), "current_player is 7"),
    "holdings of 9 animals": (lambda s: s["state"]["holdings"][0].__setitem__(3, 9), r"holdings \[0\] \[3\] is 9, not an int in 0..4"),
    "agent_selection out of step": (lambda s: s["aec"].update(
        agent_selection=f"player_{(int(s['aec']['agent_selection'][-1]) + 1) % 4}"), "agent_selection"),
    "a duplicated deck": (lambda s: s["state"]["deck"].extend(s["state"]["deck"]), "cards"),
    "a missing key": (lambda s: s["state"].pop("pot"), r"lacks \['pot'\]"),
    "a missing memory": (lambda s: s["state"].pop("memory"), r"lacks \['memory'\]"),
    "an unknown field": (lambda s: s["state"].update(colour=1), "unknown field"),
    "a bool for an int": (lambda s: s["state"].update(high=True), "high is True"),
    "a corrupt memory table": (lambda s: s["state"]["memory"]["counts"].update(trades=99), "memory counts does not match"),
    "a final phase nobody can play": (lambda s: s["state"].update(deck=[]), "cards"),  # would loop in _begin_turn
}


@pytest.mark.parametrize("case", sorted(TAMPERED))
def test_restore_refuses_a_tampered_snapshot_and_changes_nothing(case):
    tamper, message = TAMPERED[case]
    env = make(4)
    env.reset(seed=2)
    advance(env, 150, 2)
    good = env.unwrapped.snapshot()
    target = make(4)
    target.reset(seed=9)
    advance(target, 40, 9)
    before = target.unwrapped.snapshot()
    view = target.observe(target.agent_selection)["observation"]
    with pytest.raises(SnapshotError, match=message):
        target.unwrapped.restore(_tampered(good, tamper))
    assert target.unwrapped.snapshot() == before
    np.testing.assert_array_equal(target.observe(target.agent_selection)["observation"], view)
    target.unwrapped.restore(good)  # the untampered snapshot still loads
    assert target.unwrapped.snapshot() == good


def test_a_state_that_would_loop_in_begin_turn_is_refused():
    """Deck empty, nobody able to trade, species incomplete: ending the turn would search forever for a
    player with a trade. The card count catches it before any step."""
    env = make(3)
    env.reset(seed=0)
    snap = as_position(env.unwrapped.snapshot())
    state = snap["state"]
    state["deck"] = []
    state["holdings"] = [[3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [0] * 11, [0] * 11]
    with pytest.raises(SnapshotError, match="rooster: 3 cards"):
        env.unwrapped.restore(snap)


# ----------------------------------------------------------------------------- position helper
def test_position_sets_deck_holdings_hands_and_turn():
    env = make(4)
    env.unwrapped.set_position(seed=1, top=["cow", "pedigree horse", "rat"],
                               holdings=[{"cow": 2}, None, {"cow": 1, "pedigree cow": 1}, ["horse"] * 3],
                               hands={0: [500, 10, 0], 2: {50: 2}}, turn_player=2)
    raw = env.unwrapped
    s = raw.state_
    assert env.agent_selection == "player_2" and s.turn_player == 2 and s.decision == A.D_TURN
    assert s.deck[::-1][:3] == [8, 20, 10] and len(s.deck) == 54 - 7
    assert s.holdings[0][8] == 2 and s.holdings[2][8] == 1 and s.holdings[3][9] == 3
    assert s.pedigree_owner[8] == 2
    assert s.hands[0] == [1, 1, 0, 0, 0, 0, 1] and s.cash[0] == 510 and s.sizes[0] == 3
    assert s.hands[2] == [0, 0, 0, 2, 0, 0, 0] and s.hands[1] == [2, 3, 1, 1, 0, 0, 0]
    assert raw.game.invariants(s) == [] and raw.history == [] and raw.events == []
    assert set(raw.legal_actions()) == {A.AUCTION, A.TRADE}
    env.step(A.AUCTION)
    assert s.card == 8 and s.auctioneer == 2
    # the position is public: every opponent's cash bound is its real cash
    digest = raw.observer.layout.view(raw.observe("player_1")["observation"], "digest")
    assert digest[2][16] == 510  # player_1's digest row of slot 3 (seat 0): column 16, the cash bound


def test_position_keeps_unspecified_parts_and_conserves_money():
    env = make(3)
    env.reset(seed=4)
    dealt = env.unwrapped.state_.to_json()
    env.unwrapped.set_position(seed=4, hands=[[500, 500]] + [None] * 2)
    s = env.unwrapped.state_
    assert s.deck == dealt["deck"] and s.turn_player == dealt["turn_player"]
    assert s.bank[6] == dealt["bank"][6] - 2 and s.bank[0] == dealt["bank"][0] + 2
    with pytest.raises(SnapshotError, match="more money cards than the game has"):
        env.unwrapped.set_position(seed=4, hands=[[500] * 7] + [None] * 2)
    with pytest.raises(SnapshotError, match="cannot pay the donkey money"):  # 5 seats, 4 cards of 500 left
        make(5).unwrapped.set_position(seed=4, hands=[[500, 500]] + [None] * 4)


def test_position_final_phase_needs_every_card_placed():
    env = make(3)
    full = [{"rooster": 4, "goose": 4, "cat": 4, "dog": 2}, {"sheep": 4, "goat": 4, "donkey": 4, "dog": 2},
            {"pig": 4, "cow": 4, "horse": 4, "rat": 4}]
    peds = [f"pedigree {name}" for name in ("rooster", "goose", "cat", "dog", "sheep", "goat", "donkey", "pig",
                                           "cow", "horse")]
    full[2].update({name: 1 for name in peds})
    env.unwrapped.set_position(seed=0, deck=[], holdings=full, turn_player=1)
    s = env.unwrapped.state_
    assert env.unwrapped.legal_actions() == [A.TRADE]  # compulsory final trade (K-A31)
    env.step(A.TRADE)
    assert env.unwrapped.legal_actions() == [A.target_action(2, 3)]  # seat 0 is 2 to the left of seat 1
    with pytest.raises(SnapshotError, match="wrong number of cards"):
        env.unwrapped.set_position(seed=0, deck=[], holdings=[{"cow": 4}, None, None])
    with pytest.raises(SnapshotError, match="has no trade"):  # seat 2 holds only complete species
        env.unwrapped.set_position(seed=0, deck=[], holdings=full, turn_player=2)
    assert s.turn_player == 1  # a refused position changes nothing


@pytest.mark.parametrize("spec, message", [
    ({"colour": 1}, r"no keyword\(s\) \['colour'\]"),
    ({"deck": ["unicorn"]}, "names 'unicorn', not a card"),
    ({"deck": "cow"}, "deck must be a list"),
    ({"holdings": [{"cow": 1}]}, "a list of 4 entries"),
    ({"holdings": {7: {"cow": 1}}}, "names seat 7"),
    ({"holdings": {0: {"cow": 5}}}, "not a count 0..4"),
    ({"holdings": {0: ["pedigree cow"], 1: ["pedigree cow"]}}, "to two seats"),
    ({"holdings": {0: ["money 50"]}}, "money goes in hands"),
    ({"hands": {0: [30]}}, "card\\(s\\) of 30"),
    ({"hands": {0: [10]}, "cash": {0: [10]}}, "not both"),
    ({"turn_player": 4}, "turn_player=4"),
    ({"bank": [0] * 7}, "do not add up"),
    ({"donkeys": 3}, "donkeys=3"),
])
def test_position_errors_name_the_problem(spec, message):
    env = make(4)
    env.reset(seed=0)
    before = env.unwrapped.snapshot()
    with pytest.raises(SnapshotError, match=message):
        env.unwrapped.set_position(seed=0, **spec)
    after = env.unwrapped.snapshot()
    assert after["state"] == before["state"]


def test_two_player_position_with_money_in_the_deck():
    """The removed pile balances the money: here the deck keeps one money card, a 500."""
    env = make(2)
    env.reset(seed=3)
    red = [card for card in reversed(env.unwrapped.state_.deck) if card < 21]  # top first
    env.unwrapped.set_position(seed=3, deck=["money 500", *red], turn_player=0)
    s = env.unwrapped.state_
    assert s.deck[-1] == 21 + 6 and len(s.deck) == 55 and env.unwrapped.game.invariants(s) == []
    assert sum(s.removed) == 66 - 14 - 8 - 1
    env.step(A.AUCTION)  # distribute: seat 0 looks at the 500
    assert s.decision == A.D_DISTRIBUTE and s.looked == 27
    env.step(A.KEEP)
    assert s.hands[0][6] == 1


# ----------------------------------------------------------------------------- action names
def test_action_names_and_parsing():
    game = make(4).unwrapped.game
    assert game.action_to_string(A.target_action(1, 0)) == "TARGET(+1,rooster)"
    assert game.action_to_string(A.CARD + 3) == "CARD(50)" and game.action_to_string(A.ADD) == "ADD(10)"
    assert game.action_to_string(A.NEVER) == "NEVER" and game.action_to_string(A.SLAP + 10) == "SLAP(10)"
    assert game.string_to_action(" target(+5, rat) ") == A.target_action(5, 10) == 57
    assert game.string_to_action("add(500)") == 95 and game.string_to_action("96") == A.BID
    with pytest.raises(ValueError, match="koehandel: no action named 'ADD\\(20\\)'"):
        game.string_to_action("ADD(20)")
