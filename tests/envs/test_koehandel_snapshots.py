"""Koehandel snapshots trust nothing they load (docs/koehandel_rules.md §12.5, Appendix B; issue 22).

``restore`` walks the event record from the public starting hands against the position it led to
(``envs/koehandel/ledger.py``, ``progress.py``) and rebuilds every player's private record from it, so a
snapshot whose record, memory or in-progress event was edited is refused, and any snapshot it accepts
re-deals (``determinize``) into copies that keep the agent's observation inside the declared space.
"""

import copy
import json
from pathlib import Path

import numpy as np
import pytest

from hiddenhand.envs import koehandel_v0
from hiddenhand.envs.core.game import SnapshotError
from hiddenhand.envs.koehandel import actions as A
from playing import advance

OPTION_SETS = [{}, {"overbid_mode": "reveal_and_restart"}, {"super_koehandel": True},
               {"auto_payment": True, "payment_rule": "strict"},
               {"pass_is_final": True, "rat_pot_attribution": False, "reveal_pedigree_ties": False}]


def make(players=4, **options):
    return koehandel_v0.env(num_players=players, **options)


def played(players, seed, moves, **options):
    env = make(players, **options)
    env.reset(seed=seed)
    advance(env, moves, seed)
    return env


def restored(snapshot, players=4, **options):
    env = make(players, **options)
    env.reset(seed=99)
    env.unwrapped.restore(snapshot)
    return env


def refused(snapshot, match, players=4, **options):
    env = make(players, **options)
    env.reset(seed=99)
    before = env.unwrapped.snapshot()
    with pytest.raises(SnapshotError, match=match):
        env.unwrapped.restore(snapshot)
    assert env.unwrapped.snapshot() == before


def as_position(snapshot):
    """The snapshot's position with no history to replay, so that the state's own checks alone judge an
    edit of ``["state"]`` (format 2: the state becomes the origin, shared; format 1 replays nothing)."""
    try:
        from hiddenhand.envs.core.snapshots import as_position as position_of
    except ImportError:  # format 1
        return snapshot
    return position_of(snapshot)


def event_of(state, kind, test=lambda e: True):
    return next(e for e in reversed(state["events"]) if e["kind"] == kind and test(e))


@pytest.fixture(scope="module")
def rich():
    """A 4-player snapshot with auctions, pedigree and rat auctions, trades and a tied round."""
    for seed in range(40):
        snap = played(4, seed, 700).unwrapped.snapshot()
        events = snap["state"]["events"]
        kinds = {e["kind"] for e in events}
        tie = any(len(e["rounds"]) == 2 for e in events if e["kind"] == "trade")
        paid = any(e["payment"] for e in events if e["kind"] == "auction")
        if {"auction", "pedigree", "rat", "trade"} <= kinds and tie and paid:
            return json.loads(json.dumps(snap))
    raise AssertionError("no rich game found")


# ----------------------------------------------------------------------------- the repros
def test_an_event_without_its_seq_is_refused(rich):
    """Issue 22: a snapshot whose last event lost ``seq`` was accepted, then ``determinize`` raised."""
    bad = as_position(copy.deepcopy(rich))
    bad["state"]["events"][-1].pop("seq")
    refused(bad, r"events\[\d+\] \(\w+\) lacks \['seq'\]")


@pytest.mark.parametrize("change", [-50, +50])
def test_a_digest_value_that_the_record_does_not_give_is_refused(rich, change):
    """Issue 22: ``memory.digest`` set to -50 was accepted and observed outside the declared Box. Every
    player's record (§12.5 blocks 2 and 3) is rebuilt from the events; the snapshot's must equal it."""
    bad = as_position(copy.deepcopy(rich))
    bad["state"]["memory"]["digest"][0][0][0] += change
    refused(bad, "memory digest does not match the record")


# ----------------------------------------------------------------------------- every field of the record
def _round_of(state, test):
    trade = event_of(state, "trade", lambda e: any(test(r) for r in e["rounds"]))
    return next(r for r in trade["rounds"] if test(r))


def _bump_middle_bid(state):
    auction = event_of(state, "auction", lambda e: len(e["bids"]) >= 3)
    auction["bids"][1][1] = auction["bids"][-1][1] - 10 if auction["bids"][0][1] < auction["bids"][-1][1] - 10 else 740


TAMPERS = {  # what is changed -> a piece of the refusal's message
    "an event's seq": (lambda s: event_of(s, "rat").update(seq=event_of(s, "rat")["seq"] + 1), "seq"),
    "an event's turn": (lambda s: event_of(s, "trade").update(turn=event_of(s, "trade")["turn"] + 1), "turn"),
    "an event's players": (lambda s: event_of(s, "auction")["players"].reverse(), "players"),
    "a cash_before": (lambda s: event_of(s, "trade")["cash_before"].__setitem__(0, 5), "cash_before"),
    "a cash_after": (lambda s: event_of(s, "auction")["cash_after"].__setitem__(1, 7), "cash_after"),
    "a payment with a 0-card added": (lambda s: event_of(s, "auction", lambda e: e["payment"])["payment"]
                                      .__setitem__(0, 1), "payment"),
    "a bid of the auction's run": (_bump_middle_bid, "bid"),
    "a highest bid": (lambda s: event_of(s, "auction")["max_bids"].__setitem__(
        event_of(s, "auction")["auctioneer"], 10), "max_bids"),
    "a price": (lambda s: event_of(s, "auction", lambda e: e["payment"]).update(price=10), "high bid"),
    "an owner": (lambda s: event_of(s, "auction").update(owner=(event_of(s, "auction")["owner"] + 1) % 4),
                "owner|more cards than it holds"),
    "a trade round's values": (lambda s: _round_of(s, lambda r: r["counter"])["values"].__setitem__(1, 5), "values"),
    "a trade round's result": (lambda s: _round_of(s, lambda r: r["result"] == "tie").update(result="challenger"),
                               "result|ends the trade"),
    "a trade round's forced flag": (lambda s: _round_of(s, lambda r: True).update(
        forced=not _round_of(s, lambda r: True)["forced"]), "forced"),
    "a trade's final_phase": (lambda s: event_of(s, "trade").update(final_phase=True), "final_phase"),
    "a trade's winner": (lambda s: event_of(s, "trade").update(
        winner=event_of(s, "trade")["challenged"] if event_of(s, "trade")["winner"] == event_of(s, "trade")[
            "challenger"] else event_of(s, "trade")["challenger"]), "winner|more cards than it holds"),
    "a rat pot's layer": (lambda s: event_of(s, "rat", lambda e: e["pot"])["pot"][0].__setitem__(
        0, (event_of(s, "rat", lambda e: e["pot"])["pot"][0][0] + 1) % 4), "pot lay"),
    "a rat's taker": (lambda s: event_of(s, "rat").update(taker=(event_of(s, "rat")["taker"] + 1) % 4),
                      "taker|more cards than it holds"),
    "a pedigree count": (lambda s: event_of(s, "pedigree").update(count=event_of(s, "pedigree")["count"] + 1), "count"),
    "an event's kind": (lambda s: event_of(s, "rat").update(kind="party"), "kind"),
    "an unknown event key": (lambda s: event_of(s, "trade").update(note=1), "unknown key"),
    "the starting hands": (lambda s: s["start_hands"][2].__setitem__(1, s["start_hands"][2][1] + 1), "bank|hands"),
    "event_start": (lambda s: s["event_start"].__setitem__(0, s["event_start"][0] + 10), "event_start"),
    "a record table cell": (lambda s: s["memory"]["tables"]["trades"][1][0].__setitem__(0, 3), "memory tables"),
    "an event removed": (lambda s: s["events"].pop(len(s["events"]) // 2), "seq|turn|cash|hands|record"),
}


@pytest.mark.parametrize("case", sorted(TAMPERS))
def test_an_edited_record_is_refused(rich, case):
    """Every value of an event is checked against the game as the record goes, or recomputed."""
    tamper, message = TAMPERS[case]
    bad = as_position(copy.deepcopy(rich))
    tamper(bad["state"])
    assert bad != rich
    refused(bad, message)


def test_a_position_whose_bank_cannot_pay_the_donkeys_to_come_is_refused():
    """§4.1: every seat receives each donkey payout; a set-up bank must still hold them (Appendix B)."""
    env = make(4)
    env.reset(seed=0)
    with pytest.raises(SnapshotError, match="cannot pay the donkey money"):
        env.unwrapped.set_position(seed=1, hands=[{0: 2, 10: 3, 20: 1, 50: 3}] * 4, bank={0: 4, 10: 6, 20: 2, 50: 0,
                                                                                       100: 6, 200: 6, 500: 6})


# ----------------------------------------------------------------------------- what is accepted
@pytest.mark.parametrize("players", [2, 3, 5, 6])
@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: ",".join(o) or "defaults")
def test_every_position_of_random_games_restores(players, options):
    """The walk accepts every state the engine reaches (snapshots along seeded random games)."""
    env = make(players, max_turns=120, **options)
    env.reset(seed=players)
    target = make(players, max_turns=120, **options)
    target.reset(seed=0)
    rng, raw, checked = np.random.default_rng(players), env.unwrapped, 0
    while raw.legal_actions():
        if rng.random() < 0.08:
            target.unwrapped.restore(raw.snapshot())
            checked += 1
        env.step(int(rng.choice(raw.legal_actions())))
    target.unwrapped.restore(raw.snapshot())
    assert target.unwrapped.snapshot() == raw.snapshot() and checked > 5


@pytest.mark.parametrize("players", [2, 4, 6])
def test_redealt_copies_restore(players):
    """A re-dealt copy's record was rebuilt for its world: it walks like a real one."""
    env = played(players, 5, 300)
    for seat, agent in enumerate(env.unwrapped.possible_agents):
        copy_ = env.unwrapped.determinize(agent, seed=seat)
        restored(copy_.snapshot(), players)


def test_a_rat_taker_lays_from_its_own_hand_in_a_redealt_copy():
    """§6.1, Appendix C: the re-deal drew each lay of a settled rat pot in seat order, every lay going
    straight to the taker, so the taker's own lay could be a card it received from the same pot. Here
    seat 3 laid first and took the pot; the copy for seat 0 had it lay a 10 it never held, and the
    copy's own record was refused (``a laid card ... is not in seat 3's hand``)."""
    env = played(4, 40, 160)
    rat = next(event for event in env.unwrapped.events if event["kind"] == "rat")
    assert rat["taker"] == rat["pot"][0][0] == 3
    copy_ = env.unwrapped.determinize("player_0", seed=40)
    assert not copy_.redeal_is_approximate
    restored(copy_.snapshot())


def test_a_redealt_copy_of_a_set_up_position_keeps_the_observation():
    """Appendix B positions begin with their own hands: the opponents' cash bounds in the digest start
    there, in the position and in every re-dealt copy of it."""
    env = make(4)
    env.reset(seed=0)
    raw = env.unwrapped
    raw.set_position(seed=3, hands=[{50: 4}, {10: 2}, {100: 1, 0: 2}, {200: 2}])
    advance(env, 30, 0)
    for seat, agent in enumerate(raw.possible_agents):
        copy_ = raw.determinize(agent, seed=1)
        np.testing.assert_array_equal(copy_.observe(agent)["observation"], raw.observe(agent)["observation"])


def test_an_accept_without_money_to_counter_is_recorded_as_forced():
    """§7.4, K-A21: the challenged player without money can only accept; the round records it as forced
    (``forced`` was read after the offer had reached him)."""
    env = make(3)
    env.reset(seed=0)
    raw = env.unwrapped
    raw.set_position(seed=2, holdings=[{"cow": 1}, {"cow": 1}, None], hands=[[10, 10], [], None], turn_player=0)
    env.step(A.TRADE)
    env.step(A.target_action(1, 8))
    env.step(A.CARD + 1)
    env.step(A.DONE)
    assert raw.legal_actions() == [A.ACCEPT]
    env.step(A.ACCEPT)
    assert raw.events[-1]["rounds"][0]["forced"] is True
    restored(raw.snapshot(), 3)


# ----------------------------------------------------------------------------- one edit anywhere
def _leaves(data, path=()):
    if isinstance(data, dict):
        for key in data:
            yield from _leaves(data[key], path + (key,))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from _leaves(value, path + (i,))
    else:
        yield path


def _edit(state, rng):
    """One leaf of ``state`` changed (an int moved, a bool flipped, None or a string replaced)."""
    path = list(_leaves(state))[int(rng.integers(len(list(_leaves(state)))))]
    parent = state
    for key in path[:-1]:
        parent = parent[key]
    old = parent[path[-1]]
    if isinstance(old, bool):
        parent[path[-1]] = not old
    elif isinstance(old, int):
        parent[path[-1]] = old + int(rng.choice([-50, -1, 1, 10]))
    else:
        parent[path[-1]] = 1 if old is None else None
    return path


def test_a_single_edit_is_refused_or_changes_nothing_observable():
    """The issue's measure: single edits of snapshots of random play (history dropped, as for positions
    and re-dealt copies). Whatever is accepted differs only in an auction's intermediate bid (any
    alternation of bidders is a possible history when passes are not final; nothing reads those bids but
    the research log), and re-deals of it keep each agent's observation inside the declared space."""
    rng = np.random.default_rng(2024)
    accepted = []
    for trial in range(60):
        players = int(rng.integers(2, 7))
        env = played(players, trial, int(rng.integers(20, 500)))
        snapshot = as_position(json.loads(json.dumps(env.unwrapped.snapshot())))
        snapshot["history"] = []
        bad = as_position(copy.deepcopy(snapshot))
        path = _edit(bad["state"], rng)
        target = make(players)
        target.reset(seed=0)
        try:
            target.unwrapped.restore(bad)
        except SnapshotError:
            continue
        accepted.append(path)
        raw = target.unwrapped
        assert {k for k in snapshot["state"] if raw.snapshot()["state"][k] != snapshot["state"][k]} <= {"events"}
        space = raw.observation_space(raw.possible_agents[0])["observation"]
        for agent in raw.possible_agents:
            view = raw.determinize(agent, seed=trial).observe(agent)["observation"]
            np.testing.assert_array_equal(view, raw.observe(agent)["observation"])
            assert space.contains(view)
    assert all(path[0] == "events" and path[2] == "bids" for path in accepted), accepted


def test_a_bid_by_a_seat_that_passed_is_refused_with_pass_is_final():
    """K-A7 with ``pass_is_final``: the bidders polled before a bid passed and are out of the auction.
    An auction whose bids were rewritten so that seat 1 bids after seat 3 (seats 1 and 2 were polled
    before seat 3: they passed) is refused, although each seat's highest bid and the price still fit."""
    env = make(4, pass_is_final=True)
    env.reset(seed=0)
    raw = env.unwrapped
    raw.set_position(seed=0, top=["cow"], turn_player=0)
    script = [A.AUCTION, A.ADD, A.BID, A.ADD, A.BID, A.ADD, A.BID, A.PASS, A.PASS, A.DECLINE]
    for action in script:  # seat 1 bids 10, seat 2 20, seat 3 30; seats 1 and 2 pass; seat 0 sells
        env.step(action)
    while raw.state_.decision == A.D_PAY:
        legal = raw.legal_actions()
        env.step(A.DONE if A.DONE in legal else legal[0])
    snapshot = as_position(json.loads(json.dumps(raw.snapshot())))
    assert snapshot["state"]["events"][-1]["bids"] == [[1, 10], [2, 20], [3, 30]]
    restored(snapshot, 4, pass_is_final=True)
    event = snapshot["state"]["events"][-1]
    event["bids"], event["max_bids"] = [[3, 10], [1, 20], [3, 30]], [0, 20, 0, 30]
    refused(snapshot, "bid after passing", 4, pass_is_final=True)


def test_a_bid_above_the_bidders_cash_is_refused_in_mask_mode():
    """K-A9 (mask): bids are capped by cash, and the buy-right counts on it (a winner who cannot pay has
    no default table to go to in this mode); under reveal_and_restart such a bid is legal."""
    env = make(4)
    env.reset(seed=0)
    raw = env.unwrapped
    raw.set_position(seed=0, top=["cow"], turn_player=0)
    for action in (A.AUCTION, A.ADD, A.BID):  # seat 1 bids 10 of its 100
        env.step(action)
    snapshot = as_position(json.loads(json.dumps(raw.snapshot())))
    state = snapshot["state"]
    assert state["cash"][1] == 100 and state["max_bid"] == [0, 10, 0, 0]
    state["max_bid"][1] = state["high"] = 110
    state["bids"] = [[1, 110]]
    refused(snapshot, r"seat 1 bid 110, more than its cash 100 \(overbid_mode mask, K-A9\)")

# ----------------------------------------------------------------------------- snapshots saved before
SAVED_WITH_COUNTERS = Path(__file__).parent / "data" / "koehandel_snapshots_with_counters.json"


def without_counters(state):
    """A state's data as saved before issue 23's cleanup, less its observer-cache counters."""
    memory = {key: value for key, value in state["memory"].items() if key != "epoch"}
    return {**{key: value for key, value in state.items() if key != "version"}, "memory": memory}


@pytest.mark.parametrize("snapshot_format", ["hiddenhand-snapshot/1", "hiddenhand-snapshot/2"])
def test_snapshots_saved_with_the_change_counters_load(snapshot_format):
    """Issue 23: the state's ``version`` and the memory's ``epoch``, counters that the observer's caches
    keyed on, left the state's data. Snapshots saved with them (format 1 by c6a20b5, format 2 by main at
    180b952: a game in progress, a set-up position played on, a re-dealt copy played on, a finished game)
    still load, unchanged; saved again they lack the counters, restore exactly and play on."""
    for name, case in json.loads(SAVED_WITH_COUNTERS.read_text())[snapshot_format].items():
        old, options = case["snapshot"], dict(case["options"])
        players = options.pop("num_players")
        assert old["format"] == snapshot_format and "version" in old["state"] and "epoch" in old["state"]["memory"]
        given = copy.deepcopy(old)
        env = restored(given, players, **options)
        assert given == old, name
        new = env.unwrapped.snapshot()
        assert new["state"] == without_counters(old["state"]), name
        assert restored(new, players, **options).unwrapped.snapshot() == new, name
        advance(env, 5, 0)


@pytest.mark.parametrize("where, tamper", [
    ("version", lambda s: s.update(version="7")), ("version", lambda s: s.update(version=-1)),
    ("memory epoch", lambda s: s["memory"].update(epoch=True)),
])
def test_a_saved_change_counter_must_be_a_count(where, tamper):
    """The dropped counters are checked before they are ignored: a damaged one is refused, named."""
    case = json.loads(SAVED_WITH_COUNTERS.read_text())["hiddenhand-snapshot/2"]["running"]
    tamper(case["snapshot"]["state"])
    refused(case["snapshot"], f"state {where} ", 4)
