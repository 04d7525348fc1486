"""Rattus snapshots (docs/rattus_rules.md §10.6, §8, AM-3): ``restore`` and ``set_position`` check every
field the state keeps, bound every list by the game's sizes before reading it, and a re-deal of any
accepted position shows the true observation."""

from __future__ import annotations

import copy
import json
import re

import numpy as np
import pytest

from hiddenhand.envs import rattus_v0
from hiddenhand.envs.core.game import SnapshotError
from hiddenhand.envs.core.snapshots import as_position
from hiddenhand.envs.rattus.config import KNIGHT, WITCH
from hiddenhand.envs.rattus.decisions import (
    FINAL_ROUND, KNIGHT_STEP, MAIN, OPENING, OVER, PLAGUE_MOVE, SPREAD, TURN_CAP, WITCH_DECIDE, WITCH_SECOND,
)
from hiddenhand.envs.rattus.rules import RattusGame


def phase_states(game: RattusGame, seed: int = 7, games: int = 40) -> dict[int, dict]:
    """The first state of each phase met in seeded random games, as ``to_json`` data."""
    rng = np.random.default_rng(seed)
    found: dict[int, dict] = {}
    for _ in range(games):
        state = game.new_initial_state(rng)
        while True:
            found.setdefault(state.phase, state.to_json())
            if state.is_terminal:
                break
            ids = state.legal_ids()
            state.apply(ids[int(rng.integers(len(ids)))], rng)
    return found


GAME = RattusGame(3)
STATES = phase_states(GAME)


def problems(game: RattusGame, data: dict) -> str:
    """What ``restore`` objects to in ``data``: the parse error, or the broken invariants."""
    try:
        state = game.state_from_json(data)
    except SnapshotError as error:
        return str(error)
    return "; ".join(game.invariants(state))


def test_every_phase_is_met_and_accepted():
    assert sorted(STATES) == list(range(OPENING, OVER + 1))
    for data in STATES.values():
        assert problems(GAME, data) == ""


def _to_removed(d):
    d["removed"] = sorted(d["removed"] + [d["rat_supply"].pop()])


def _from_removed(d):
    d["rat_supply"] = sorted(d["rat_supply"] + [d["removed"].pop()])


def _board_token(d):
    return next(t for slot in d["slots"] for t in slot)


def _set(key, value):
    return lambda d: d.__setitem__(key, value)


def _unknown_peek(d):
    d["known"][d["current_player"]][d["witch"][0]] = False


def _swapped_unknown(d):
    t = _board_token(d)
    d["swapped_by"][t] = 1
    d["known"][1][t] = False


def _setup_mark_in_supply(d):
    d["setup_token"][d["rat_supply"][0]] = True


def _opening_cube(d):
    p = d["current_player"]
    d["cubes"][d["plague"]][p] += 1
    d["supply"][p] -= 1


def _knight_step_away(d):
    d["plague"] = d["origin"]


def _truncated(d):
    d["is_truncated"] = True


TAMPERED = {  # name: (phase, change, what the error says)
    "one token more removed unseen": (MAIN, _to_removed, r"removed must be a list of 6 ints"),
    "one token fewer removed unseen": (MAIN, _from_removed, r"removed must be a list of 6 ints"),
    "rat supply out of order": (MAIN, lambda d: d["rat_supply"].reverse(), r"rat_supply.*ascending"),
    "opening order of 20,000 seats": (MAIN, lambda d: d["opening_order"].extend([0] * 20_000),
                                      r"opening_order must be a list of 6 ints"),
    "opening order not the snake": (MAIN, lambda d: d.__setitem__("opening_order", d["opening_order"][1:] + [
        (d["opening_order"][0] + 1) % 3]), r"opening_order.*snake"),
    "rat supply of 100,000 ids": (MAIN, _set("rat_supply", [0] * 100_000), r"rat_supply holds 100000 .*more than 49"),
    "revealed of 100,000 ids": (MAIN, _set("revealed", ["x"] * 100_000), r"revealed holds 100000 .*more than 49"),
    "a region of 100,000 tokens": (MAIN, lambda d: d["slots"][0].extend([0] * 100_000), r"slots\[0\].*more than 3"),
    "final order of 1,000 seats": (FINAL_ROUND, _set("final_order", [0] * 1000), r"final_order holds 1000"),
    "final order not from the ender": (FINAL_ROUND, lambda d: d["final_order"].reverse(), r"final_order"),
    "a supply token known": (MAIN, lambda d: d["known"][0].__setitem__(d["rat_supply"][0], True), r"knows a token"),
    "a swap mark without the swapper's knowledge": (MAIN, _swapped_unknown, r"swapped.*know"),
    "a setup mark on a supply token": (MAIN, _setup_mark_in_supply, r"setup.*on the board or revealed"),
    "a Witch peek unknown to the peeker": (WITCH_SECOND, _unknown_peek, r"peeked token"),
    "the Witch user without the Witch": (WITCH_DECIDE, lambda d: d["holder"].__setitem__(WITCH, -1), r"Witch"),
    "witch_return a spread": (WITCH_SECOND, _set("witch_return", SPREAD), r"witch_return"),
    "spread tokens due in the main phase": (MAIN, _set("spread_due", 2), r"spread"),
    "plague origin not the plague": (PLAGUE_MOVE, lambda d: d.__setitem__("origin", GAME.nbrs[d["plague"]][0]),
                                     r"origin"),
    "Knight step without a first step": (KNIGHT_STEP, _knight_step_away, r"Knight"),
    "Knight step without the Knight": (KNIGHT_STEP, lambda d: d["holder"].__setitem__(KNIGHT, -1), r"Knight"),
    "an ender during a regular turn": (MAIN, _set("ender", 0), r"ender"),
    "a final round without an ender": (FINAL_ROUND, _set("ender", -1), r"ender"),
    "truncated without a turn cap": (OVER, _truncated, r"truncat"),
    "turn cap reached in a regular turn": (MAIN, _set("regular_turns", GAME.max_regular_turns), r"regular_turns"),
    "no-progress run longer than the game": (MAIN, lambda d: d.update(regular_turns=1, no_progress=2), r"no_progress"),
    "opening over but the phase opening": (OPENING, _set("opening_step", 6), r"opening"),
    "main phase before the opening is over": (MAIN, _set("opening_step", 5), r"opening"),
    "an opening cube too many": (OPENING, _opening_cube, r"opening"),
    "opening step past the opening": (MAIN, lambda d: d.__setitem__("opening_step", d["opening_step"] + 1),
                                      r"opening_step"),
    "a token known in the opening": (OPENING, lambda d: d["known"][0].__setitem__(d["slots"][d["plague"]][0], True),
                                     r"setup token, unknown"),
    "a setup mark lost in the opening": (OPENING, lambda d: d.__setitem__("setup_token", [False] * 49),
                                         r"setup token"),
    "a card taken but none held": (MAIN, lambda d: d.update(card_taken=True, holder=[-1] * 6), r"card"),
    "the Knight used in the main phase": (MAIN, lambda d: d["used"].__setitem__(KNIGHT, True), r"Knight"),
    "the Peasant used without placing": (MAIN, lambda d: d.update(placed=False, used=[True] + [False] * 5),
                                         r"Peasant"),
    "final position past the order": (OVER, _set("final_pos", 0), r"final_pos"),
}


@pytest.mark.parametrize("name", TAMPERED)
def test_tampered_fields_are_refused(name):
    """§10.6: every field is checked or tied to the others; long lists are refused by their length."""
    phase, change, match = TAMPERED[name]
    data = copy.deepcopy(STATES[phase])
    change(data)
    found = problems(GAME, data)
    assert re.search(match, found), f"{name}: {found or 'accepted'}"


def _env_at_main(n=3):
    env = rattus_v0.env(num_players=n)
    env.reset(seed=1)
    while env.unwrapped.state_.phase != MAIN:
        env.step(env.unwrapped.legal_actions()[0])
    return env


@pytest.mark.parametrize("change,match", [(_to_removed, "removed"),
                                          (lambda d: d["opening_order"].extend([0] * 20_000), "opening_order")])
def test_restore_refuses_the_issue_repros_and_changes_nothing(change, match):
    """Issue 22: a changed removed-token count and an opening order of 20,000 entries were accepted."""
    env = _env_at_main()
    before = env.unwrapped.snapshot()
    snap = as_position(json.loads(json.dumps(before)))  # no history to replay: the state checks alone refuse it
    change(snap["state"])
    with pytest.raises(SnapshotError, match=match):
        env.unwrapped.restore(snap)
    assert env.unwrapped.snapshot() == before


def test_truncated_game_over_is_accepted():
    game = RattusGame(2, max_regular_turns=2, turn_cap_mode="truncate", placement_optional=True)
    data = phase_states(game, games=3)[OVER]
    assert data["is_truncated"] and data["end_reason"] == TURN_CAP and problems(game, data) == ""
    data["is_truncated"] = False
    assert "truncat" in problems(game, data)


def test_position_keywords_cannot_change_the_removed_count():
    """The tokens removed unseen are the game's count (§3.4): the position helper has no keyword for it."""
    env = _env_at_main()
    with pytest.raises(SnapshotError, match="unknown position keyword"):
        env.unwrapped.set_position(seed=0, removed_unseen=0)
    env.unwrapped.set_position(seed=0, tokens={"Gallia": ["?"]}, rat_supply=3)
    state = env.unwrapped.state_
    assert len(state.removed) == state.game.removed_count and len(state.rat_supply) == 3


POSITIONS = [  # (players, options, position keywords)
    (2, {}, dict(active=0, holders={"Witch": 0}, plague="Anglia", tokens={"Gallia": ["?"], "Italia": ["?", "?"]},
                 known={0: [["Gallia", 0]], 1: [["Italia", 1]]}, rat_supply=0)),
    (3, {"starting_mark_public": False}, dict(active=1, tokens={"Gallia": ["s1_pea", "?"], "Scandia": ["?"]},
                                              known={2: [["Gallia", 1]]}, cubes={"Gallia": [1, 2, 3]})),
    (4, {}, dict(active=3, holders={"Peasant": 3, "King": 1}, palace=[1, 0, 2, 0], cubes={"Russia": [0, 1, 0, 2]})),
]


@pytest.mark.parametrize("n,options,spec", POSITIONS)
def test_redealt_copies_of_positions_show_the_true_observation(n, options, spec):
    """AM-3: a position set up without history relies on the checks alone; its re-deals for every seat keep
    that seat's observation, stay inside the observation space and keep the invariants."""
    env = rattus_v0.env(num_players=n, **options)
    env.reset(seed=3)
    env.unwrapped.set_position(seed=3, **spec)
    for seat, agent in enumerate(env.possible_agents):
        true = env.observe(agent)["observation"]
        for seed in range(3):
            copy_env = env.unwrapped.determinize(agent, seed)
            obs = copy_env.observe(agent)["observation"]
            assert np.array_equal(obs, true)
            assert env.observation_space(agent)["observation"].contains(obs)
            assert copy_env.game.invariants(copy_env.state_) == []


@pytest.mark.parametrize("spec,match", [
    ({"tokens": {"Gallia": 5}}, r"tokens\.Gallia: 5 is not a list"), ({"holders": 5}, r"holders=5 is not a mapping"),
    ({"known": {0: 5}}, r"known\.0: 5 is not a list"), ({"cubes": [1]}, r"cubes=\[1\] is not a mapping"),
    ({"cubes": {"Gallia": [1]}}, r"cubes\.Gallia: \[1\] is not a list of 2 cube counts"),
    ({"palace": "x"}, r"palace: 'x'"), ({"known": {0: [["Gallia"]]}}, r"not a \[region, slot\] pair"),
    ({"tokens": {"Gallia": [["?"]]}}, r"is not a token type id"), ({"start_seat": 9}, r"start_seat: 9 is not a seat"),
])
def test_position_keywords_of_a_wrong_type_are_named(spec, match):
    """A keyword of the wrong type is a SnapshotError naming it, never a TypeError from inside."""
    env = _env_at_main(2)
    before = env.unwrapped.snapshot()
    with pytest.raises(SnapshotError, match=match):
        env.unwrapped.set_position(seed=0, **spec)
    assert env.unwrapped.snapshot() == before
