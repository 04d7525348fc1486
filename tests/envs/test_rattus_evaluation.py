"""The Rattus evaluation for search (envs/rattus/evaluation.py; docs/rattus_rules.md §5.3 outbreaks,
§7.3 final plague, §7.4 scoring, §8 hidden information) and its registry defaults."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hiddenhand.agents import load
from hiddenhand.envs import make
from hiddenhand.envs.core.rewards import winner_rewards
from hiddenhand.envs.registry import entry
from hiddenhand.envs.rattus.evaluation import (
    SPREAD, SPREAD_PER_RAT, SUPPLY_VALUE, evaluate, expected_scores, threat_table, unseen_faces,
)
from hiddenhand.training.fit_evaluation import heuristic_play, log_loss, positions

pytestmark = pytest.mark.filterwarnings("ignore:.*single neighbour")

#: Token types of the calibrated table (§1.1): limit, M and A symbols, classes in the id.
N1MM_MAG_ROY, N4MM, N4A, N1M = "n1mm_mag_roy", "n4mm", "n4a", "n1m"


def _env(players: int = 4, **options):
    env = make("rattus", num_players=players, **options)
    env.reset(seed=7)
    return env


def _position(**spec):
    """A regular-turn position from ``set_position`` keywords (seat 0 on turn)."""
    env = _env()
    env.unwrapped.set_position(**spec)
    return env.unwrapped.state_


def test_a_finished_game_is_valued_by_its_winners():
    """§7.4, RA-21: at the end the value is the win/loss reward of the true winners, for every viewer."""
    for raw, name in heuristic_play("rattus", 4, 3):
        if name is None:
            state = raw.state_
            assert state.is_terminal
            for viewer in range(4):
                assert evaluate(state, viewer) == winner_rewards(state.winners(), 4)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_values_are_expected_rewards(players):
    """Every seat's ``2 P(win) - 1``: within [-1, 1], the win chances adding up to one."""
    checked = 0
    for raw, name in heuristic_play("rattus", players, 3):
        if name is None or raw.state_.regular_turns % 3:
            continue
        values = evaluate(raw.state_, raw.possible_agents.index(name))
        assert len(values) == players and all(-1.0 <= v <= 1.0 for v in values)
        assert sum((v + 1) / 2 for v in values) == pytest.approx(1.0)
        checked += 1
    assert checked > 5


def test_evaluation_reads_nothing_hidden_from_the_viewer():
    """§8, AM-3: the faces of face-down tokens the viewer did not peek are hidden; every re-deal of them
    (``determinize``) gets the viewer the same value, while the re-dealt faces do differ."""
    differed = checked = 0
    for raw, name in heuristic_play("rattus", 4, 11):
        if name is None or raw.state_.regular_turns % 4:
            continue
        seat = raw.possible_agents.index(name)
        values = evaluate(raw.state_, seat)
        for seed in range(2):
            twin = raw.determinize(name, seed).state_
            differed += twin.face != raw.state_.face
            assert evaluate(twin, seat) == values
            checked += 1
    assert checked > 10 and differed == checked


@pytest.mark.parametrize("marks_public", [True, False])
def test_unpeeked_faces_are_interchangeable(marks_public):
    """§8, RA-3: exchanging the faces of two face-down tokens the viewer did not peek changes nothing it
    can see, unless it exchanges their public starting marks (then the marked one may be either)."""
    env = _env(starting_mark_public=marks_public)
    env.unwrapped.set_position(cubes={"Gallia": [2, 1, 0, 0], "Italia": [0, 1, 3, 0]},
                               tokens={"Gallia": ["s2m_pea"], "Italia": ["n1a_roy", N4MM]})
    state = env.unwrapped.state_
    (marked,), (normal, other) = state.slots[2], state.slots[6]
    values = evaluate(state, 0)
    twin = state.clone()
    twin.face[normal], twin.face[other] = state.face[other], state.face[normal]
    assert evaluate(twin, 0) == values
    twin.face[marked], twin.face[normal] = state.face[normal], state.face[marked]
    assert (evaluate(twin, 0) == values) != marks_public


def test_a_peeked_face_counts_and_an_unpeeked_one_does_not():
    """RA-7: a face the viewer peeked with the Witch is its knowledge for good and is valued exactly;
    the same face unpeeked is averaged over the faces the viewer has not seen (§8)."""
    spec = {"cubes": {"Gallia": [3, 1, 0, 0]}, "tokens": {"Gallia": [N4MM]}}
    peeked = _position(**spec, known={0: [["Gallia", 0]]})
    # §5.3: 4 cubes reach the limit 4; both M hit the majority (seat 0, 3 cubes); no class, no A
    assert expected_scores(peeked, 0, supply_value=0.0) == [1.0, 1.0, 0.0, 0.0]
    blind = expected_scores(peeked, 1, supply_value=0.0)
    assert 1.0 < blind[0] < 3.0 and blind[1] <= 1.0
    other = _position(cubes={"Gallia": [3, 1, 0, 0]}, tokens={"Gallia": [N4A]})
    assert expected_scores(other, 1, supply_value=0.0) == blind  # seat 1 cannot tell the faces apart
    assert evaluate(peeked, 0)[0] < evaluate(peeked, 1)[0]


def test_expected_scores_follow_the_outbreak_rules():
    """§5.3: a token below its limit hits nobody; M hits the majority, ties all included (RA-15); class
    symbols hit the card's holder; A hits everybody present. E14: palace cubes always score; E8: a region
    without tokens is safe. §7.3: every token on the board counts, as the final plague reveals them."""
    known = {0: [["Gallia", 0], ["Italia", 0], ["Hispania", 0]]}
    state = _position(cubes={"Gallia": [2, 2, 1, 0], "Italia": [0, 0, 0, 3], "Hispania": [1, 1, 1, 0],
                             "Anglia": [0, 0, 0, 4]},
                      tokens={"Gallia": [N1MM_MAG_ROY], "Italia": [N4MM], "Hispania": [N4A]},
                      holders={"Witch": 2}, palace=[1, 0, 0, 0], known=known)
    # Gallia: M x2 on seats 0 and 1 (tied), Magic on the Witch's holder (seat 2); Italia: 3 < 4, no
    # outbreak; Hispania: 3 < 4; Anglia: no token
    assert expected_scores(state, 0, supply_value=0.0) == [1.0 + 0 + 1, 0 + 1, 0 + 1, 3 + 4]
    state.supply = [5, 0, 0, 0]
    assert expected_scores(state, 0, supply_value=0.5)[0] == pytest.approx(2.0 + 2.5)


def test_unseen_faces_and_threats_are_the_redeal_pool():
    """§8, AM-3: the pool is the table less the revealed faces and the peeked board faces; the threat of
    an unknown token grows with the cubes present (only faces whose limit is reached hit, §5.3)."""
    state = _position(cubes={"Gallia": [1, 0, 0, 0]}, tokens={"Gallia": [N1M, N4MM]},
                      known={0: [["Gallia", 1]]})
    pool = unseen_faces(state, 0)
    table = [tt.count for tt in state.game.types]
    n4mm = [tt.id for tt in state.game.types].index(N4MM)
    assert sum(table) - sum(pool) == len(state.revealed) + 1 and pool[n4mm] == table[n4mm] - 1
    assert unseen_faces(state, 1)[n4mm] == table[n4mm]
    threats = threat_table(state, pool, starting=False)
    assert threats[0] == [0.0] * 8  # no cubes: no face's limit is reached
    assert all(later[k] >= earlier[k] for earlier, later in zip(threats, threats[1:]) for k in range(8))
    assert threats[-1][0] > 0 and threats[-1][1] > 0


def test_the_registry_defaults_load_and_play():
    """The Rattus search hooks: the evaluation and per-algorithm defaults, loaded by name."""
    hooks = entry("rattus").search
    assert hooks.evaluation == "hiddenhand.envs.rattus.evaluation:evaluate" and hooks.evaluator() is evaluate
    env = _env()
    raw = env.unwrapped
    for algorithm in ("ismcts", "pimc"):
        agent = load(algorithm, raw.game, seed=1)
        assert {key: agent.options[key] for key in hooks.defaults[algorithm]} == hooks.defaults[algorithm]
        agent.bind(env, raw.agent_selection)
        obs = raw.observe(raw.agent_selection)
        assert obs["action_mask"][agent.act(obs["observation"], obs["action_mask"])]
    assert load("ismcts", raw.game).value_mode == "estimate"


def test_the_fit_scores_the_shipped_constants_better_than_a_guess():
    """The fitting script on Rattus: the shipped constants predict heuristic games' winners better than
    a uniform guess."""
    data = positions(players=4, games=3, every=10, game="rattus")
    fitted = log_loss(data, SPREAD, SPREAD_PER_RAT, SUPPLY_VALUE, game="rattus")
    assert fitted < math.log(4)
    assert np.isfinite(fitted)
