"""Rattus random play (spec §10.6) and the re-deal (AM-3), on the rules engine directly (fast)."""

from __future__ import annotations

import numpy as np
import pytest

from hiddenhand.envs.rattus.config import NUM_TOKENS
from hiddenhand.envs.rattus.decisions import SPREAD
from hiddenhand.envs.rattus.rules import RattusGame

GAMES = 2000  # §10.6: at least 2,000 games over all player counts (marked slow; 300 in the default suite)


def _check_step(state) -> None:
    """§10.6: cubes and tokens conserved, at most 3 tokens a region, the mask never empty (AM-5: under
    every option)."""
    game = state.game
    for p in range(state.n):
        assert state.supply[p] + sum(row[p] for row in state.cubes) + state.palace[p] == game.cubes_per_player
    board = sum(len(slot) for slot in state.slots)
    pending = int(state.pending >= 0)
    assert pending == (state.phase == SPREAD)
    assert board + len(state.rat_supply) + len(state.removed) + len(state.revealed) + pending == NUM_TOKENS
    assert all(len(slot) <= 3 for slot in state.slots)
    assert game.play_flag[state.plague]
    if not state.is_terminal:
        assert state.legal_ids()


OPTIONAL = {"placement_optional": True, "reveal_order": "random", "witch_second_token": "any_other_token",
            "token_table": "reconstructed"}


@pytest.mark.parametrize("options,games", [({}, 300), (OPTIONAL, 150),
                                           pytest.param({}, GAMES, marks=pytest.mark.slow)])
def test_random_play_keeps_the_invariants(options, games):
    """RA-4, RA-23, RA-24: every game ends; with mandatory placement every regular turn places a cube."""
    rng = np.random.default_rng(games)
    by_count = {n: RattusGame(n, **options) for n in (2, 3, 4)}
    reasons = set()
    for i in range(games):
        game = by_count[2 + i % 3]
        state = game.new_initial_state(rng)
        _check_step(state)
        while not state.is_terminal:
            ids = state.legal_ids()
            state.apply(ids[int(rng.integers(len(ids)))], rng)
            _check_step(state)
        assert game.invariants(state) == []
        assert state.regular_turns <= game.max_regular_turns
        if not options:
            assert state.no_progress == 0
        reasons.add(state.end_reason)
    assert {0, 1} <= reasons


def test_redeal_keeps_public_marks_and_known_faces():
    """AM-3: faces the observer knows and revealed faces stay; marks of board tokens and the mark counts
    of the supply and the removed set stay; the face multiset is the table's; unknown faces change."""
    rng = np.random.default_rng(5)
    changed = 0
    for i in range(60):
        game = RattusGame(2 + i % 3, token_table="reconstructed")
        state = game.new_initial_state(rng)
        for _ in range(int(rng.integers(5, 120))):
            if state.is_terminal:
                break
            ids = state.legal_ids()
            state.apply(ids[int(rng.integers(len(ids)))], rng)
        for o in range(state.n):
            copy = game.state_from_json(state.to_json())
            copy.resample_hidden(o, np.random.default_rng(i))
            assert game.invariants(copy) == []
            start = game.starting_type
            for t in range(NUM_TOKENS):
                if t in state.revealed or state.known[o][t]:
                    assert copy.face[t] == state.face[t]
            for slot in state.slots:
                assert [start[copy.face[t]] for t in slot] == [start[state.face[t]] for t in slot]
            for group in ("rat_supply", "removed"):
                assert sum(start[copy.face[t]] for t in getattr(copy, group)) == \
                       sum(start[state.face[t]] for t in getattr(state, group))
            changed += copy.face != state.face
    assert changed


def test_memoised_observations_equal_fresh_ones():
    """The observer's per-seat region memo writes exactly what a fresh observer writes (§10.3)."""
    from hiddenhand.envs.rattus.observation import RattusObserver

    rng = np.random.default_rng(2)
    for n in (2, 3, 4):
        game = RattusGame(n, witch_peek_sequential=False)
        observer = RattusObserver(game)
        for _ in range(2):
            state = game.new_initial_state(rng)
            while not state.is_terminal:
                for seat in range(n):
                    assert np.array_equal(observer.encode(state, seat), RattusObserver(game).encode(state, seat))
                ids = state.legal_ids()
                state.apply(ids[int(rng.integers(len(ids)))], rng)
