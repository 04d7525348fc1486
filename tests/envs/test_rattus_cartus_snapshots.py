"""Rattus Cartus snapshots and re-deals (docs/rattus_cartus_rules.md §7; issue 22): ``restore`` accepts only
positions whose every record is tied to the cards and the public counts, and a re-dealt copy of any accepted
position keeps the player's observation, the public facts (a reshuffled deck's make-up §3.6, the face-up
bottom of the replacement pile R-A6) and what the player knows (§7.5).

Technique: positions from seeded random play or ``set_position``; tampered snapshots are made positions
(``as_position``: the state as the origin, no history to replay), so that nothing but the state's own checks
can refuse them (as for ``set_position`` and re-dealt
copies, which have no history either)."""

from __future__ import annotations

import copy
import time

import numpy as np
import pytest

from hiddenhand.envs import rattus_cartus_v0
from hiddenhand.envs.core.game import SnapshotError
from hiddenhand.envs.core.snapshots import as_position
from hiddenhand.envs.rattus_cartus.cards import KIND_CLASS, NUM_KINDS

CHURCH = 2
GOLD_ITEM = 34


def walk(num_players: int, seed: int, steps: int, **options):
    """An env after ``steps`` seeded random legal actions."""
    env = rattus_cartus_v0.env(num_players=num_players, **options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if env.unwrapped._game_over:
            break
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    return env


def play(env, *names):
    game = env.unwrapped.game
    for name in names:
        env.step(game.string_to_action(name))


def without_history(snapshot):
    """The snapshot's position as its origin, with no history: edits of ``["state"]`` edit the origin too."""
    return as_position(copy.deepcopy(snapshot))


# ============================================================================= refused records
def test_a_gift_record_that_contradicts_the_transfers_is_refused():
    """§7.5 item 5 (issue 22: 3 players, seed 18, 60 steps, ``gifts[1][0][14] += 1`` was accepted and broke
    the invariants 8 steps later): seat 1 never gave seat 0 a card, so it cannot remember giving one."""
    env = walk(3, 18, 60)
    snapshot = without_history(env.unwrapped.snapshot())
    assert snapshot["state"]["flow_count"][1][0] == 0
    snapshot["state"]["gifts"][1][0][14] += 1
    with pytest.raises(SnapshotError, match="records of cards given"):
        env.unwrapped.restore(snapshot)


@pytest.mark.parametrize("field,path,value,match", [
    ("reshuffles", (), 1, "reshuffles"),  # a reshuffle always makes a deck (§3.6)
    ("gift_flag", (0, 0), True, "flags of seat 0"),  # §7.5: a giver is flagged exactly when it gave
    ("left", (), 2, "due"),  # D1 counts nothing (§8.1)
    ("passes", (1,), 1, "Pass cards"),  # a Pass played was shown (§3.3.2)
    ("clock", (), 10**6, "clock"),  # counts stay far below the observation's high (1e6)
])
def test_records_that_cannot_be_are_refused(field, path, value, match):
    env = walk(3, 3, 0)
    snapshot = without_history(env.unwrapped.snapshot())
    if path:
        target = snapshot["state"][field]
        for index in path[:-1]:
            target = target[index]
        target[path[-1]] = value
    else:
        snapshot["state"][field] = value
    with pytest.raises(SnapshotError, match=match):
        env.unwrapped.restore(snapshot)


# ============================================================================= re-deals keep public facts
def reshuffle_position():
    """§3.6, §7.2 (issue 22): a 2-card deck; seat 0 commits three Church cards to the Monastery, seat 1's
    Farm draw (the normal action: seat 0 has the round's special one, R-A20) takes the last two, so the new
    deck is exactly those three Church cards."""
    hands = [["church"] * 14 + ["peasantry"] * 14 + ["bourgeoisie"] * 11,
             ["bourgeoisie"] * 3 + ["knighthood:0"] * 4 + ["knighthood:1", "knighthood:3"] * 2 + ["knighthood:4"] * 4
             + ["magic"] * 14 + ["royalty"] * 9]
    env = rattus_cartus_v0.env(num_players=2)
    env.unwrapped.set_position(seed=5, hands=hands, nun_row=["royalty:4"] * 4 + ["royalty:0"],
                               deck_top=["knighthood:2", "knighthood:2"], start_player=0,
                               row=["monastery:3", "farm:3"])  # copy 3: two rats, no draw (R-A40)
    play(env, "SLOT 0", "SLOT 0", "SLOT 0", "CARD CHURCH", "CARD CHURCH", "CARD CHURCH", "STOP", "SLOT 1", "STOP")
    return env


def test_a_redeal_keeps_the_make_up_of_a_reshuffled_deck():
    """§3.6, §7.2: the reshuffled deck's make-up is public; with no card drawn since, the deck is exactly
    those cards, and they are in nobody's hand (issue 22: re-deals dealt e.g. [knighthood:2, knighthood:2,
    royalty:0] and moved the Church cards into seat 1's hand)."""
    env = reshuffle_position()
    state = env.unwrapped.state_
    assert state.reshuffles == 1 and len(state.deck) == 3 and state.round == 1
    assert all(KIND_CLASS[kind] == CHURCH for kind in state.deck)
    for seed in range(8):
        redealt = env.unwrapped.determinize("player_0", seed=seed).state_
        assert sorted(redealt.deck) == sorted(state.deck)
        assert redealt.hands[1][CHURCH * 5:CHURCH * 5 + 5] == [0] * 5


def test_a_redeal_draws_the_deck_from_what_is_left_of_the_reshuffle():
    """§3.6: after draws from a reshuffled deck, the deck holds no kind beyond the make-up, in every re-deal
    of every seat."""
    env = walk(4, 21, 189)
    state = env.unwrapped.state_
    assert state.reshuffles and 0 < len(state.deck) < sum(state.reshuffle_comp)
    for agent in env.possible_agents:
        for seed in range(3):
            redealt = env.unwrapped.determinize(agent, seed=seed).state_
            assert len(redealt.deck) == len(state.deck)
            assert all(redealt.deck.count(kind) <= state.reshuffle_comp[kind] for kind in range(NUM_KINDS))


@pytest.mark.parametrize("public", [True, False])
def test_a_redeal_keeps_the_face_up_bottom_of_the_replacement_pile(public):
    """§3.1, R-A6: the cards that went face up to the bottom of the replacement pile stay there, in order,
    with a public or a hidden building set (R-A32)."""
    env = walk(2, 4, 0, building_selection="random_building_per_class", building_set_public=public)
    state = env.unwrapped.state_
    assert state.repl_known == 1
    for seed in range(5):
        redealt = env.unwrapped.determinize("player_1", seed=seed).state_
        assert redealt.repl_known == 1 and redealt.repl[:1] == state.repl[:1]


def test_a_redeal_keeps_a_special_card_given_to_a_player_that_gave_none():
    """§7.5 item 5: seat 1 gave seat 4 a Gold card in a hidden transfer; seat 4 has given no hidden card and
    shown no Gold since, so it still holds it (in hand: Gold is never committed) in every re-deal for
    seat 1."""
    env = walk(5, 7510, 212, population_choice="full", mask_known_peeks=True)
    state = env.unwrapped.state_
    assert state.gifts[1][4][GOLD_ITEM] == 1 and state.hidden_out[4] == 0
    for seed in range(8):
        redealt = env.unwrapped.determinize("player_1", seed=seed)
        assert redealt.state_.hands[4][GOLD_ITEM] >= 1
        assert redealt.game.invariants(redealt.state_) == []


# ============================================================================= any accepted position is sound
SWEEP = [(3, {}, 18, 60), (2, {}, 4, 150), (4, {"finite_supplies": False}, 5, 120),
         (5, {"population_choice": "full", "point_token_values": list(range(1, 21))}, 6, 200),
         (3, {"building_selection": "random_building_per_class", "building_set_public": False,
              "rats_public": False}, 7, 90)]


def int_leaves(data, path=()):
    """Paths to every int and bool of a JSON tree."""
    if isinstance(data, list):
        for index, value in enumerate(data):
            yield from int_leaves(value, (*path, index))
    elif isinstance(data, dict):
        for key, value in data.items():
            yield from int_leaves(value, (*path, key))
    else:
        yield path


def nudged(snapshot, path, delta):
    snapshot = without_history(snapshot)
    parent = snapshot["state"]
    for key in path[:-1]:
        parent = parent[key]
    old = parent[path[-1]]
    parent[path[-1]] = (not old) if isinstance(old, bool) else old + delta
    return snapshot


def assert_sound(env):
    """Every seat's re-deal keeps its observation, stays in the observation space and under the invariants;
    the position plays on under the invariants."""
    raw = env.unwrapped
    space = env.observation_space(env.possible_agents[0])["observation"]
    for seat, agent in enumerate(env.possible_agents):
        observation = env.observe(agent)["observation"]
        redealt = raw.determinize(agent, seed=seat)
        assert redealt.game.invariants(redealt.state_) == []
        assert (redealt.observe(agent)["observation"] == observation).all()
        assert space.contains(observation)
    rng = np.random.default_rng(0)
    for _ in range(6):
        if raw._game_over:
            return
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
        assert raw.game.invariants(raw.state_) == []


@pytest.mark.parametrize("num_players,options,seed,steps", SWEEP)
def test_every_accepted_nudge_of_a_snapshot_is_sound(num_players, options, seed, steps):
    """A snapshot with one count nudged by +-1 (or a flag flipped) is refused, or gives a sound position."""
    env = walk(num_players, seed, steps, **options)
    snapshot = env.unwrapped.snapshot()
    paths = list(int_leaves(snapshot["state"]))
    accepted = 0
    for number, path in enumerate(paths[::7]):
        tampered = nudged(snapshot, path, 1 if number % 2 else -1)
        try:
            env.unwrapped.restore(tampered)
        except SnapshotError:
            continue
        accepted += 1
        assert_sound(env)
    assert accepted, "no nudge was accepted: the sweep checks nothing"


def test_a_row_of_another_size_is_a_snapshot_error():
    """§3.1: a row of fewer than k building cards is refused as a SnapshotError; the round flow, which reads
    the row (here the looks of the D2 supply choice, §3.2), raised an IndexError before."""
    env = rattus_cartus_v0.env(num_players=3)
    env.unwrapped.set_position(seed=1, start_player=0, row=["farm:1", "monastery:4"])  # copy 4: a look
    play(env, "SLOT 1")
    snapshot = without_history(env.unwrapped.snapshot())
    assert snapshot["state"]["decision"] == 2
    snapshot["state"]["row"].pop()
    with pytest.raises(SnapshotError, match="row 1"):
        env.unwrapped.restore(snapshot)


def test_validation_is_linear_in_the_snapshot():
    """Issue 22: a snapshot with 32,000 Sword candidates and entrants in one slot (D5, §3.4.3) is refused
    at once; the checks compared every candidate with every entrant and recomputed the fewest Swords per
    entrant (~45 s here before)."""
    env = walk(4, 1, 103)
    snapshot = without_history(env.unwrapped.snapshot())
    state = snapshot["state"]
    assert state["decision"] == 5 and len(state["cands"]) == 2
    state["cands"] *= 16000
    state["entrants"][state["slot"]] = [state["cands"][0]] * 32000
    start = time.process_time()
    with pytest.raises(SnapshotError, match="entrants disagree"):
        env.unwrapped.restore(snapshot)
    assert time.process_time() - start < 5
