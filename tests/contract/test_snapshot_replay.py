"""Contract: a snapshot is its origin and the history replayed from it (format 2). ``restore`` rebuilds the
origin, replays the history and requires the snapshot's state, RNG and AEC bookkeeping to be the replay's,
so a rewritten history or a tampered field is refused; only the origin is checked field by field. Old
(format 1) snapshots still load; ``snapshot()`` shares nothing with the env."""

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from contract_cases import CASES, GAME_CASES, play_random, played, steps_before_end, trace
from playing import advance
from hiddenhand.envs import make
from hiddenhand.envs.core.game import SnapshotError
from hiddenhand.envs.core.snapshots import FORMAT_1, PLAYED_BEFORE, SNAPSHOT_FORMAT, as_position

FORMAT_1_FILE = Path(__file__).parent / "data" / "david_goliath_snapshots_v1.json"


def finished(game, options, seed=4, **env_options):
    """A game played to its end, then one dead agent's step (which removes it from ``agents``)."""
    env = make(game, **options, **env_options)
    env.reset(seed=seed)
    advance(env, 100_000, seed)
    env.step(None)
    return env


def copied(snapshot):
    return json.loads(json.dumps(snapshot))


def refused(game, options, snapshot, match=None):
    """``restore`` refuses ``snapshot`` (naming ``match``) and the target keeps its state."""
    target = played(game, options, 9, steps=3)
    before = target.unwrapped.snapshot()
    with pytest.raises(SnapshotError, match=match):
        target.unwrapped.restore(snapshot)
    assert target.unwrapped.snapshot() == before


def restores_exactly(game, options, snapshot, **env_options):
    target = make(game, **options, **env_options)
    target.unwrapped.restore(copied(snapshot))
    assert target.unwrapped.snapshot() == copied(snapshot)
    return target


# ----------------------------------------------------------------------------- the history is replayed
@pytest.mark.parametrize("game,options", GAME_CASES)
def test_a_rewritten_history_is_refused(game, options):
    """Issue 22: every game accepted a history rewritten with other actions of the right length."""
    env = make(game, **options)
    env.reset(seed=5)
    masks = []
    play_random(env, 5, steps=40, each_step=lambda e, *_: masks.append(e.unwrapped._legal_mask().copy()))
    snapshot = copied(env.unwrapped.snapshot())
    history = snapshot["history"]
    step = len(history) - 1
    legal = np.flatnonzero(masks[step]).tolist()
    others = [action for action in legal if action != history[step]]
    illegal = next(action for action in range(len(masks[step])) if not masks[step][action])
    for action in [*others[:4], illegal]:
        rewritten = copied(snapshot)
        rewritten["history"][step] = action
        refused(game, options, rewritten)
    for edit in (lambda h: h.pop(), lambda h: h.append(h[-1]), lambda h: h.reverse()):
        rewritten = copied(snapshot)
        edit(rewritten["history"])
        refused(game, options, rewritten)


@pytest.mark.parametrize("game,options", GAME_CASES)
def test_a_tampered_state_after_play_is_refused_naming_the_field(game, options):
    snapshot = copied(played(game, options, 5, steps=40).unwrapped.snapshot())
    key = sorted(snapshot["state"])[0]
    tampered = copied(snapshot)
    tampered["state"][key] = [tampered["state"][key]]
    refused(game, options, tampered, match=re.escape(f"state.{key}"))


@pytest.mark.parametrize("game,options", GAME_CASES)
def test_non_finite_rewards_are_refused(game, options):
    """Issue 22: a NaN cumulative reward was accepted. Derived by replay now; checked in an origin."""
    snapshot = copied(finished(game, options).unwrapped.snapshot())
    agent = snapshot["aec"]["agents"][0]
    for key in ("rewards", "cumulative_rewards"):
        for value in (math.nan, math.inf, -math.inf):
            tampered = copied(snapshot)
            tampered["aec"][key][agent] = value
            refused(game, options, tampered, match=f"aec.{key}")
            position = as_position(tampered)
            refused(game, options, position, match=f"origin.aec.{key}")
    running = copied(played(game, options, 5, steps=40).unwrapped.snapshot())
    running["aec"]["rewards"][agent] = math.nan
    refused(game, options, running, match="aec.rewards")


@pytest.mark.parametrize("game,options", GAME_CASES)
def test_a_finished_positions_bookkeeping_is_derived_from_its_state(game, options):
    """A finished game given as a position (no history to replay): its rewards, scores, winners and who is
    still in must be those of one of its state's endings; any other report is refused."""
    snapshot = copied(finished(game, options).unwrapped.snapshot())
    restores_exactly(game, options, as_position(snapshot))
    agent = snapshot["aec"]["agents"][0]
    for edit in (lambda aec: aec["infos"][agent]["scores"].update({agent: 10**6}),
                 lambda aec: aec["infos"][agent].update(winners=sorted(aec["infos"][agent]["scores"])),  # all win
                 lambda aec: aec["infos"][agent].update(note="x"),
                 lambda aec: aec["cumulative_rewards"].update({agent: 0.5}),
                 lambda aec: aec["agents"].append("player_9")):
        tampered = copied(snapshot)
        edit(tampered["aec"])
        refused(game, options, as_position(tampered), match="origin.aec")


RNG_DAMAGE = {
    "an unknown key": lambda rng: rng.update(extra=1),
    "an unknown nested key": lambda rng: rng["state"].update(extra=1),
    "a missing key": lambda rng: rng.pop("uinteger"),
    "an even increment": lambda rng: rng["state"].update(inc=rng["state"]["inc"] + 1),
    "a bool state": lambda rng: rng["state"].update(state=True),
    "a state beyond 128 bits": lambda rng: rng["state"].update(state=2**128),
    "a negative uinteger": lambda rng: rng.update(uinteger=-1),
    "has_uint32 of 5": lambda rng: rng.update(has_uint32=5),
    "a float": lambda rng: rng.update(uinteger=1.0),
    "another bit generator": lambda rng: rng.update(bit_generator="MT19937"),
    "a list": lambda rng: rng.update(state=[1, 2]),
}


@pytest.mark.parametrize("damage", sorted(RNG_DAMAGE))
@pytest.mark.parametrize("where", ["rng", "origin.rng", "position origin.rng"])
def test_a_malformed_rng_is_refused_naming_it(damage, where):
    """Issue 22: a malformed RNG field (also nested) was accepted. The RNG is core data: one game."""
    snapshot = copied(played("david_goliath", {"num_players": 3}, 5, steps=40).unwrapped.snapshot())
    if where.startswith("position"):
        snapshot = copied(as_position(snapshot))
    tampered = copied(snapshot)
    rng = tampered["origin"]["rng"] if "origin" in where else tampered["rng"]
    RNG_DAMAGE[damage](rng)
    refused("david_goliath", {"num_players": 3}, tampered, match=where.removeprefix("position ").replace(".", r"\."))


@pytest.mark.parametrize("game,options", GAME_CASES)
@pytest.mark.parametrize("where", ["", "aec", "origin", "position origin", "position origin.aec"])
def test_unknown_keys_are_refused_naming_them(game, options, where):
    """Issue 22: unknown top-level keys were accepted."""
    snapshot = copied(played(game, options, 5, steps=40).unwrapped.snapshot())
    if where.startswith("position"):
        snapshot = copied(as_position(snapshot))
    tampered = copied(snapshot)
    target = tampered
    for key in where.removeprefix("position ").split("."):
        target = target[key] if key else target
    target["comment"] = "x"
    refused(game, options, tampered, match="unknown key.*comment")


# ----------------------------------------------------------------------------- what restores exactly
@pytest.mark.parametrize("game,options", CASES)
def test_positions_and_redealt_copies_restore_exactly(game, options):
    env = make(game, **options)
    env.unwrapped.set_position(seed=3)
    assert env.unwrapped.snapshot()["origin"].keys() == {"state", "rng", "aec"}
    play_random(env, 3, steps=10)
    restores_exactly(game, options, env.unwrapped.snapshot())
    source = played(game, options, 5, steps=25)
    for seat, agent in enumerate(source.possible_agents):
        copy = source.unwrapped.determinize(agent, seed=seat)
        assert copy.history == []
        restores_exactly(game, options, copy.snapshot())
        play_random(copy, seat, steps=8)
        restored = restores_exactly(game, options, copy.snapshot())
        assert trace(restored, 1) == trace(copy, 1)


@pytest.mark.parametrize("game,options", GAME_CASES)
def test_ended_games_restore_exactly(game, options):
    """By the rules after some dead steps, by truncation, by an illegal action (terminate mode, NaN
    recorded as text); a re-dealt copy of a finished game too. A legal action recorded as the one that
    ended the game is refused."""
    restores_exactly(game, options, finished(game, options).unwrapped.snapshot())
    players = len(make(game, **options).possible_agents)
    cycles = max(1, min(3, steps_before_end(game, options, 2, 100) // players))  # truncated before the end
    truncated = make(game, **options, max_cycles=cycles)
    truncated.reset(seed=2)
    advance(truncated, 100, 2)
    assert all(truncated.truncations.values())
    restores_exactly(game, options, truncated.unwrapped.snapshot(), max_cycles=cycles)
    refused(game, options, copied(truncated.unwrapped.snapshot()))  # another max_cycles: another replay
    ended = played(game, options, 5, steps=steps_before_end(game, options, 5, 7), illegal_action="terminate")
    legal = ended.unwrapped.legal_actions()
    ended.step(math.nan)
    snapshot = copied(ended.unwrapped.snapshot())
    assert snapshot["aec"]["illegal_action"] == "nan"
    restores_exactly(game, options, snapshot)
    tampered = copied(snapshot)
    tampered["aec"]["illegal_action"] = legal[0]
    refused(game, options, tampered, match="illegal_action")
    over = finished(game, options).unwrapped.determinize("player_0", seed=1)
    restores_exactly(game, options, over.snapshot())


@pytest.mark.parametrize("game,options", CASES)
def test_snapshot_shares_nothing_with_the_env(game, options):
    """Issue 22: Rattus Cartus's snapshot()["config"]["supply_table"] was the live game's dict."""
    env = played(game, options, 5, steps=30)
    reference = copied(env.unwrapped.snapshot())
    _scribble(env.unwrapped.snapshot())
    assert env.unwrapped.snapshot() == reference
    copy = env.unwrapped.determinize(env.possible_agents[0], seed=0)
    reference = copied(copy.snapshot())
    _scribble(copy.snapshot())
    assert copy.snapshot() == reference


def _scribble(data):
    """Change every list and dict inside ``data``."""
    if isinstance(data, dict):
        for value in list(data.values()):
            _scribble(value)
        data["scribbled"] = True
    elif isinstance(data, list):
        for value in data:
            _scribble(value)
        data.append("scribbled")


# ----------------------------------------------------------------------------- format 1
def format_1(snapshot):
    """What a format-1 snapshot of the same env held: no origin, no aec.illegal_action."""
    old = {key: value for key, value in copied(snapshot).items() if key != "origin"}
    old["format"] = FORMAT_1
    del old["aec"]["illegal_action"]
    return old


@pytest.mark.parametrize("game,options", GAME_CASES)
def test_format_1_snapshots_still_load(game, options):
    """A format-1 snapshot loads as a position (its state the origin, checked by the game's state checks);
    its history is kept as the origin's ``played_before``, and the env plays on as the snapshot's did."""
    env = played(game, options, 5, steps=steps_before_end(game, options, 5, 30))
    old = format_1(env.unwrapped.snapshot())
    target = make(game, **options)
    target.unwrapped.restore(copied(old))
    new = target.unwrapped.snapshot()
    assert new["format"] == SNAPSHOT_FORMAT and new["history"] == []
    assert new["origin"][PLAYED_BEFORE] == old["history"]
    assert (new["state"], new["rng"]) == (old["state"], old["rng"])
    restores_exactly(game, options, new)
    assert trace(target, 2) == trace(env, 2)
    tampered = copied(old)
    tampered["aec"]["rewards"][tampered["aec"]["agents"][0]] = math.nan
    refused(game, options, tampered, match="origin.aec.rewards")


def test_saved_format_1_david_goliath_snapshots_load():
    """Snapshots saved by the format-1 code (a game in progress, a finished one after a dead step, a
    position, a game ended by an illegal action) load, restore exactly once saved again, and play on."""
    saved = json.loads(FORMAT_1_FILE.read_text())
    options = {"running": {"num_players": 4, "rounds": 2}, "finished": {"num_players": 3, "rounds": 1},
               "position": {"num_players": 2}, "illegal": {"num_players": 3, "rounds": 1}}
    for name, old in saved.items():
        assert old["format"] == FORMAT_1
        env = make("david_goliath", **options[name])
        env.unwrapped.restore(copied(old))
        assert env.unwrapped.snapshot()["state"] == old["state"]
        assert env.unwrapped.snapshot()["origin"][PLAYED_BEFORE] == old["history"]
        restores_exactly("david_goliath", options[name], env.unwrapped.snapshot())
        assert env.unwrapped._game_over == old["aec"]["game_over"]
        play_random(env, 1)
        assert not env.agents
