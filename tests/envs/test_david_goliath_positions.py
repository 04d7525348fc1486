"""David & Goliath states from outside: the invariants, checked snapshots (restore) and set_position."""

import json
import re

import numpy as np
import pytest

from hiddenhand.envs import david_goliath_v0
from hiddenhand.envs.core.game import SnapshotError
from hiddenhand.envs.core.snapshots import as_position
from hiddenhand.envs.david_goliath.cards import card_id, card_name
from hiddenhand.envs.david_goliath.rules import HAND_SIZE
from playing import play_random

RED, YELLOW, GREEN, BLUE, PURPLE = range(5)


def env_after(players=4, steps=0, seed=3, **options):
    env = david_goliath_v0.env(num_players=players, **options)
    env.reset(seed=seed)
    play_random(env, seed, steps=steps)
    return env


def mid_trick_state(players=4, seed=3, rounds=3):
    """A copy of a state in round 2, in the middle of a trick in which someone did not follow."""
    env = env_after(players, 0, seed, rounds=rounds)
    rng = np.random.default_rng(seed)
    raw = env.unwrapped
    while True:
        state = raw.state_
        trick, leader = state.trick, state.leader
        off = any(c // 18 != trick[0] // 18 for c in trick[1:]) if trick else False
        if state.round == 1 and 2 <= len(trick) < players and off:
            return raw.game, raw.game.state_from_json(state.to_json())
        env.step(int(rng.choice(raw.legal_actions())))
        assert not state.is_terminal, "no such state in this game"


def final_state(players=3):
    env = env_after(players, None, seed=1, rounds=2)
    raw = env.unwrapped
    return raw.game, raw.game.state_from_json(raw.state_.to_json())


def held_card(state, seat):
    return int(np.flatnonzero(state.hands[seat])[0])


# ---------------------------------------------------------------------------------------- invariants
def test_random_play_keeps_the_invariants_at_every_step():
    for players in (2, 3, 5):
        env = env_after(players, 0, seed=players, rounds=2)
        raw = env.unwrapped
        play_random(env, players, each_step=lambda *_: _no_problems(raw))
        assert raw.state_.is_terminal and raw.game.invariants(raw.state_) == []


def _no_problems(raw):
    assert raw.game.invariants(raw.state_) == []


def _move_card(state, source, target):
    card = held_card(state, source)
    state.hands[source, card], state.hands[target, card] = 0, 1


def _copy_card(state, source, target):
    state.hands[target, held_card(state, source)] = 1


def _negative_total(state):
    state.totals[0] = -5
    scores = state.round_colour_scores[0][0]
    scores[0] = -5 - sum(scores[1:])  # the breakdown agrees: only the sign is wrong


def _void_in_held_colour(state):
    seat = state.current_player
    state.voids[seat, held_card(state, seat) // 18] = 1


def _forget_revealed_void(state):
    led = state.trick[0] // 18
    for k, card in enumerate(state.trick[1:], start=1):
        if card // 18 != led:
            state.voids[(state.leader + k) % state.game.num_players, led] = 0
            return


TAMPERED_STATES = {
    # name: (edit of a mid-trick state, part of the expected problem)
    "card in two hands": (lambda s: _copy_card(s, (s.current_player + 1) % 4, s.current_player),
                          "lie in more than one place"),
    "card in a hand and a taken pile": (lambda s: s.taken.__setitem__((0, held_card(s, 1)), 1),
                                        "lie in more than one place"),
    "card lost": (lambda s: s.hands.__setitem__((1, held_card(s, 1)), 0), "lie nowhere"),
    "card of another deck": (lambda s: s.hands.__setitem__((2, card_id(RED, 18)), 1), "not in a 4-player deck"),
    "card moved between hands": (lambda s: _move_card(s, s.current_player, (s.current_player + 1) % 4), "hands["),
    "current player out of step": (lambda s: setattr(s, "current_player", (s.current_player + 1) % 4), "plays next"),
    "current player 7": (lambda s: setattr(s, "current_player", 7), "plays next"),
    "leader out of range": (lambda s: setattr(s, "leader", 4), "leader=4 is not a seat 0..3"),
    "dealer out of range": (lambda s: setattr(s, "dealer", -1), "dealer=-1 is not a player 0..3"),
    "round out of range": (lambda s: setattr(s, "round", 3), "round=3 is not a round in progress 0..2"),
    "tricks played out of range": (lambda s: setattr(s, "tricks_played", HAND_SIZE), "tricks_played=15"),
    "trick of N cards": (lambda s: s.trick.extend([held_card(s, p) for p in range(4)][:4 - len(s.trick)]),
                         "complete at 4"),
    "void in a held colour": (_void_in_held_colour, "is marked void in"),
    "revealed void forgotten": (_forget_revealed_void, "did not follow"),
    "hand colour counts stale": (lambda s: s.colour_counts[0].__setitem__(0, 99), "colour_counts"),
    "taken count stale": (lambda s: s.taken_count.__setitem__((0, 0), 9), "taken_count"),
    "colour points stale": (lambda s: s.colour_points.__setitem__((1, 2), 77), "colour_points"),
    "played stale": (lambda s: s.played.__setitem__(held_card(s, 0), 1), "played does not match"),
    "totals off": (lambda s: s.totals.__setitem__(0, s.totals[0] + 1), "are not the sums of round_colour_scores"),
    "negative totals": (_negative_total, "negative"),
    "a round's scores lost": (lambda s: s.round_colour_scores.pop(), "round_colour_scores holds 0 rounds"),
    "terminal mid-game": (lambda s: setattr(s, "is_terminal", True), "the game is over but round=1, not 3"),
}


@pytest.mark.parametrize("name", sorted(TAMPERED_STATES))
def test_each_invariant_catches_its_tampering(name):
    game, state = mid_trick_state()
    assert game.invariants(state) == []
    edit, expected = TAMPERED_STATES[name]
    edit(state)
    problems = game.invariants(state)
    assert any(expected in problem for problem in problems), problems


def test_terminal_state_invariants():
    """§5: the game ends after its last round: no player to move, nothing left to play."""
    game, state = final_state()
    assert state.is_terminal and game.invariants(state) == []
    for edit, expected in [(lambda s: setattr(s, "round", 1), "the game is over but round=1, not 2"),
                           (lambda s: setattr(s, "current_player", 0), "current_player=0, not -1"),
                           (lambda s: setattr(s, "tricks_played", 14), "its last round is not"),
                           (lambda s: s.round_colour_scores[-1][0].__setitem__(0, 0), "last round's scores")]:
        _, copy = final_state()
        edit(copy)
        assert any(expected in problem for problem in game.invariants(copy)), game.invariants(copy)


# ---------------------------------------------------------------------------------------- checked restore
def _tamper(snapshot, edit):
    """A position snapshot (its state the origin, checked by the state checks) with ``edit`` made to it."""
    broken = as_position(json.loads(json.dumps(snapshot)))
    edit(broken["state"], broken)
    broken["origin"] = {**broken["origin"], "state": broken["state"], "aec": broken["aec"]}
    return broken


def _give_first_card(state, source, target):
    state["hands"][target].append(state["hands"][source][0])


def _current_player_and_selection(state, snapshot):
    state["current_player"] = (state["current_player"] + 1) % 4
    snapshot["aec"]["agent_selection"] = f"player_{state['current_player']}"


SNAPSHOT_TAMPERING = {
    "card id 95": (lambda s, _: s["hands"][2].append(95), "hands[2] holds card 95, not a card id 0..89"),
    "card as a string": (lambda s, _: s["trick"].append("R1"), "trick holds card 'R1', not a card id"),
    "card as a bool": (lambda s, _: s["taken"][0].append(True), "taken[0] holds card True"),
    "card twice in one hand": (lambda s, _: s["hands"][1].append(s["hands"][1][0]), "hands[1] lists card"),
    "card in two hands": (lambda s, _: _give_first_card(s, 0, 1), "lie in more than one place"),
    "duplicated deck": (lambda s, _: s["taken"][3].extend(s["hands"][3]), "lie in more than one place"),
    "card lost": (lambda s, _: s["hands"][0].pop(), "lie nowhere"),
    "three seats": (lambda s, _: s["hands"].pop(), "hands has 3 entries, not 4 (one per seat)"),
    "voids of 3 colours": (lambda s, _: s["voids"][0].pop(), "voids[0] has 4 entries, not 5"),
    "void flag 2": (lambda s, _: s["voids"][1].__setitem__(0, 2), "voids[1][0]=2 is out of range; allowed: 0..1"),
    "negative totals": (lambda s, _: s["totals"].__setitem__(0, -5), "totals[0]=-5 is out of range; allowed: 0..460"),
    "huge totals": (lambda s, _: s["totals"].__setitem__(0, 10**30), "totals[0]=1" + "0" * 30 + " is out of range"),
    "bool round": (lambda s, _: s.update(round=True), "round=True is not an int"),
    "float leader": (lambda s, _: s.update(leader=1.0), "leader=1.0 is not an int"),
    "string dealer": (lambda s, _: s.update(dealer="0"), "dealer='0' is not an int"),
    "int terminal flag": (lambda s, _: s.update(is_terminal=0), "is_terminal=0 is not a bool"),
    "missing key": (lambda s, _: s.pop("voids"), "lacks key(s) ['voids']"),
    "unknown key": (lambda s, _: s.update(score=3), "unknown key(s) ['score']"),
    "hands not a list": (lambda s, _: s.update(hands="R1 R2"), "hands must be a list, got str"),
    "current player 7": (lambda s, _: s.update(current_player=7), "current_player=7 is out of range"),
    "tricks played 20": (lambda s, _: s.update(tricks_played=20), "tricks_played=20 is out of range"),
    "round past the end": (lambda s, _: s.update(round=9), "round=9 is out of range; allowed: 0..4"),
    "colour score 99": (lambda s, _: s["round_colour_scores"][0][0].__setitem__(0, 99),
                        "round_colour_scores[0][0][0]=99 is out of range; allowed: 0..23"),
    "turn moved with the agent selection": (_current_player_and_selection, "plays next"),
}


@pytest.mark.parametrize("name", sorted(SNAPSHOT_TAMPERING))
def test_restore_refuses_a_tampered_state_naming_it_and_changes_nothing(name):
    source = env_after(4, 70, seed=6)  # round 2: past round scores exist
    assert source.unwrapped.state_.round == 1
    target = env_after(4, 5, seed=8)
    before = target.unwrapped.snapshot()
    edit, expected = SNAPSHOT_TAMPERING[name]
    broken = _tamper(source.unwrapped.snapshot(), edit)
    with pytest.raises(SnapshotError, match=re.escape(expected)):
        target.unwrapped.restore(broken)
    assert target.unwrapped.snapshot() == before
    play_random(target, 1)  # still playable to the end
    assert target.unwrapped.state_.is_terminal


@pytest.mark.parametrize("hand", [[5, 5] + [object()] * 200_000, list(range(60)) * 3_000],
                         ids=["a duplicate then junk", "180k valid ids"])
def test_a_huge_hand_is_refused_at_its_first_duplicate(hand):
    """Issue 22: the duplicate-card check was quadratic (a 200k-entry hand took > 20 s to refuse). It now
    stops at the first card met twice: the junk after it is never read."""
    source = env_after(4, 70, seed=6)
    broken = _tamper(source.unwrapped.snapshot(), lambda s, _: None)
    broken["state"]["hands"][0] = hand
    duplicate = card_name(hand[0])
    with pytest.raises(SnapshotError, match=re.escape(f"hands[0] lists card {duplicate} ({hand[0]}) more than once")):
        env_after(4, 5, seed=8).unwrapped.restore(broken)


def test_restore_accepts_the_untampered_snapshot():
    source = env_after(4, 70, seed=6)
    target = env_after(4, 5, seed=8)
    target.unwrapped.restore(json.loads(json.dumps(source.unwrapped.snapshot())))
    assert target.unwrapped.snapshot() == source.unwrapped.snapshot()
    assert target.unwrapped.game.invariants(target.unwrapped.state_) == []


# ---------------------------------------------------------------------------------------- set_position
def test_set_position_with_hands_and_leader():
    """DG-3: given a leader at the start of a round, the dealer is the seat before it."""
    env = david_goliath_v0.env(num_players=3)
    raw = env.unwrapped
    raw.set_position(seed=4)
    dealt = raw.state_.to_json()["hands"]
    hands = [[card_name(c) for c in dealt[2]], dealt[0], [card_name(c).replace("R", "red ") for c in dealt[1]]]
    raw.set_position(seed=4, hands=hands, leader=2)
    state = raw.state_
    assert [np.flatnonzero(row).tolist() for row in state.hands] == [sorted(dealt[2]), dealt[0], dealt[1]]
    assert state.leader == state.current_player == 2 and state.dealer == 1
    assert env.agent_selection == "player_2" and raw.history == []
    assert (env.observe("player_2")["observation"][:90] == state.hands[2]).all()
    assert raw.game.invariants(state) == []
    play_random(env, 0)
    assert state.is_terminal and len(raw.history) == 3 * 15 * 3


def _three_player_endgame(raw, **extra):
    """Round 2 of 2, trick 14: player_2 led R5; two cards left in the other hands."""
    deck = [card_name(c) for c in raw.game.deck]
    hands = [["R9", "G1"], ["Y2", "B9"], ["Y5"]]
    placed = {c for hand in hands for c in hand} | {"R5"}
    rest = [c for c in deck if c not in placed]
    raw.set_position(seed=1, hands=hands, trick=["R5"], leader=2, taken=[rest[:20], rest[20:29], rest[29:]],
                     **extra)
    return raw.state_


def test_set_position_mid_round_with_a_trick_and_taken_piles():
    """The longest hand sets the tricks played; the leader and the trick set the player to move; the
    final trick is resolved and scored by the rules (§3.3, §3.4, §4)."""
    env = david_goliath_v0.env(num_players=3, rounds=2)
    raw = env.unwrapped
    state = _three_player_endgame(raw, round=1, totals=[50, 60, 70])
    assert state.tricks_played == 13 and state.round == 1 and state.trick == [card_id(RED, 5)]
    assert state.current_player == 0 and env.agent_selection == "player_0"
    assert state.totals.tolist() == np.sum(state.round_colour_scores, axis=(0, 2)).tolist() == [50, 60, 70]
    assert raw.legal_actions() == [card_id(RED, 9)]  # must follow red (§3.2)
    env.step(card_id(RED, 9))
    assert raw.legal_actions() == [card_id(YELLOW, 2), card_id(BLUE, 9)]  # void in red: any card
    before = state.colour_points.copy()
    env.step(card_id(YELLOW, 2))
    assert state.voids[1, RED] == 1  # not following reveals the void (§6)
    # R5, R9, Y2: player_0's 9 is highest and leads; player_1's 2 is lowest and takes the R9 (§3.4)
    assert state.taken[1, card_id(RED, 9)] == 1
    assert state.taken[0, card_id(RED, 5)] == state.taken[0, card_id(YELLOW, 2)] == 1
    assert state.leader == state.current_player == 0
    assert (state.colour_points != before).any()
    play_random(env, 0)
    assert state.is_terminal and state.round == 2


def test_set_position_derives_voids_from_the_trick():
    env = david_goliath_v0.env(num_players=3, rounds=1)
    raw = env.unwrapped
    deck = [card_name(c) for c in raw.game.deck]
    hands = [["R1", "G1"], ["B8"], ["G3"]]
    trick = ["R5", "Y2"]  # led by player_1; player_2 did not follow red
    placed = {c for hand in hands for c in hand} | set(trick)
    rest = [c for c in deck if c not in placed]
    raw.set_position(seed=2, hands=hands, trick=trick, leader=1, taken=[rest[:15], rest[15:30], rest[30:]],
                     voids=[["blue"], [], "P"])
    state = raw.state_
    assert state.voids[2].tolist() == [1, 0, 0, 0, 1] and state.voids[0].tolist() == [0, 0, 0, 1, 0]
    assert state.current_player == 0 and state.tricks_played == 13
    assert raw.game.invariants(state) == []


def test_set_position_exact_round_scores():
    env = david_goliath_v0.env(num_players=3, rounds=3)
    raw = env.unwrapped
    scores = [[[3, 8, 14, 5, 17], [0] * 5, [1, 1, 1, 1, 1]]]
    raw.set_position(seed=0, round_colour_scores=scores)
    state = raw.state_
    assert state.round == 1 and state.totals.tolist() == [47, 0, 5] and state.round_colour_scores == scores
    raw.set_position(seed=0, round=2)
    assert raw.state_.totals.tolist() == [0, 0, 0] and len(raw.state_.round_colour_scores) == 2


@pytest.mark.parametrize("spec, message", [
    ({"hands": [["R1"], ["R2"]]}, "hands must be a list of 3 entries"),
    ({"hands": [["X9"], [], []]}, r"hands\[0\]: not a card: 'X9'"),
    ({"hands": ["R1 R2", [], []]}, r"hands\[0\] must be a list of cards"),
    ({"colour": 3}, r"unknown keyword\(s\) \['colour'\]"),
    ({"leader": "2"}, "leader='2' is not an int"),
    ({"leader": 5}, "leader=5 is out of range; allowed: 0..2"),
    ({"dealer": True}, "dealer=True is not an int"),
    ({"totals": [5, 0, 0]}, r"totals\[0\]=5 is more than 0 completed round\(s\) can score"),
    ({"totals": [-1, 0, 0], "round": 1}, r"totals\[0\]=-1 is out of range"),
    ({"round": 3}, "round=3 is not a round in progress 0..2"),
    ({"voids": [["orange"], [], []]}, r"voids\[0\] holds 'orange', not a colour"),
    ({"round_colour_scores": [[1, 2, 3]]}, "round_colour_scores must be a list of completed rounds"),
])
def test_set_position_refuses_bad_keywords_naming_them(spec, message):
    env = david_goliath_v0.env(num_players=3, rounds=3)
    with pytest.raises(SnapshotError, match=message):
        env.unwrapped.set_position(seed=0, **spec)


def test_set_position_refuses_inconsistent_hand_sizes_via_the_invariants():
    env = david_goliath_v0.env(num_players=3, rounds=2)
    raw = env.unwrapped
    raw.set_position(seed=0)
    hands = raw.state_.to_json()["hands"]
    with pytest.raises(SnapshotError, match=r"lie nowhere.*hands\[1\] holds 14 cards, not 15"):
        raw.set_position(seed=0, hands=[hands[0], hands[1][1:], hands[2]])
    with pytest.raises(SnapshotError, match="lie in more than one place"):
        raw.set_position(seed=0, hands=[hands[0], hands[1][1:] + hands[0][:1], hands[2]])
    with pytest.raises(SnapshotError, match="not in a 3-player deck"):
        raw.set_position(seed=0, hands=[hands[0], hands[1][1:] + ["R12"], hands[2]])
    with pytest.raises(SnapshotError, match="a hand holds 16 cards"):
        raw.set_position(seed=0, hands=[hands[0] + hands[1][:1], hands[1][1:], hands[2]])
    with pytest.raises(SnapshotError, match="is marked void in red but holds"):
        raw.set_position(seed=0, voids=[[RED] if any(c < 18 for c in hands[0]) else [0, 1, 2, 3, 4], [], []])
