"""Rattus rules (docs/rattus_rules.md; spec ids RA-n, AM-n, sections §n) on scripted positions."""

from __future__ import annotations

import pytest

from hiddenhand.envs import rattus_v0
from hiddenhand.envs.rattus.config import KNIGHT, PEASANT, WITCH
from hiddenhand.envs.rattus.decisions import FINAL_ROUND, KNIGHT_STEP, MAIN, OVER, SPREAD, WITCH_SECOND

REC = {"token_table": "reconstructed"}


def make(n=3, seed=0, options=None, **spec):
    env = rattus_v0.env(num_players=n, **(options or {}))
    env.reset(seed=seed)
    if spec:
        env.unwrapped.set_position(seed=seed, **spec)
    return env


def act(env, *names):
    game = env.unwrapped.game
    for name in names:
        action = game.string_to_action(name)
        assert action in env.unwrapped.legal_actions(), f"{name} not legal; legal: " + ", ".join(
            game.action_to_string(a) for a in env.unwrapped.legal_actions())
        env.step(action)


def legal_names(env):
    game = env.unwrapped.game
    return {game.action_to_string(a) for a in env.unwrapped.legal_actions()}


def st(env):
    return env.unwrapped.state_


def region(env, name):
    return env.unwrapped.game.regions.index(name)


def cubes(env, name):
    return st(env).cubes[region(env, name)]


def faces(env, name):
    s = st(env)
    return [s.game.types[s.face[t]].id for t in s.slots[region(env, name)]]


WORKED = dict(active=0, holders={"Merchant": 1, "Monk": 1, "King": 0, "Peasant": 2}, plague="Hungaria",
              tokens={"Gallia": ["?", "?", "?"], "Scandia": ["?"], "Italia": ["?", "?"], "Hungaria": ["?"],
                      "Germania": ["n2m_bou_chu", "n4a_roy", "n3m"]},
              cubes={"Germania": [3, 4, 2]}, rat_supply=14)


def test_worked_plague_example():
    """§5.4 step by step: mandatory placement (RA-4), spread count fixed on arrival with the mover's choice
    among neighbours with room (RA-13, E12), ravage slot by slot (RA-14), M on the majority snapshot
    before class symbols (RA-15, RA-16), A, a token with no outbreak removed anyway, end check."""
    env = make(3, options=REC, **WORKED)
    assert "END" not in legal_names(env)  # RA-4: must place first
    act(env, "PLACE Scandia", "END", "MOVE Germania")
    s = st(env)
    assert s.phase == SPREAD and s.spread_due == 2
    spread = legal_names(env)
    assert "SPREAD Gallia" not in spread and {"SPREAD Italia", "SPREAD Polonia", "SPREAD Hungaria"} <= spread
    act(env, "SPREAD Italia")
    assert "SPREAD Italia" not in legal_names(env)
    before = list(s.supply)
    act(env, "SPREAD Polonia")
    assert len(s.slots[region(env, "Italia")]) == 3 and len(s.slots[region(env, "Polonia")]) == 1
    assert len(s.rat_supply) == 12
    assert cubes(env, "Germania") == [1, 0, 1] and s.slots[region(env, "Germania")] == []
    assert [s.supply[p] - before[p] for p in range(3)] == [2, 4, 1]
    assert [s.game.types[s.face[t]].id for t in s.revealed[-3:]] == ["n2m_bou_chu", "n4a_roy", "n3m"]
    assert s.phase == MAIN and s.current_player == 1  # Blue's turn


def test_worked_example_early_stop_variant():
    """§5.4 variant: Yellow's last cube dies, the ravage stops and the slot-1 token stays unseen (§5.2)."""
    env = make(3, options=REC, active=0, holders={"Peasant": 2}, plague="Germania",
               tokens={"Polonia": ["n1_pea_chi", "?"], "Scandia": ["?"]}, cubes={"Polonia": [0, 0, 1]})
    act(env, "PLACE Scandia", "END", "MOVE Polonia")
    act(env, *[next(iter(sorted(legal_names(env))))] * 2)  # two new tokens to Polonia's neighbours
    s = st(env)
    assert cubes(env, "Polonia") == [0, 0, 0] and len(s.slots[region(env, "Polonia")]) == 1
    assert s.game.types[s.face[s.revealed[-1]]].id == "n1_pea_chi"


def test_m_tie_hits_every_tied_player():
    """§5.4 variant, RA-15: the majority is every tied player."""
    env = make(3, options=REC, active=0, plague="Anglia", tokens={"Gallia": ["n1m"], "Italia": ["?"]},
               cubes={"Gallia": [2, 2, 1]}, rat_supply=0)
    act(env, "PLACE Italia", "END", "MOVE Gallia")
    assert cubes(env, "Gallia") == [1, 1, 1]


@pytest.mark.parametrize("snapshot,expected", [(True, [2, 3]), (False, [2, 2])])
def test_several_m_on_one_token(snapshot, expected):
    """RA-15: the majority set is taken once at reveal (option ``m_majority_snapshot``)."""
    env = make(2, options={**REC, "m_majority_snapshot": snapshot}, active=0, plague="Anglia",
               tokens={"Gallia": ["n5mm"], "Italia": ["?"]}, cubes={"Gallia": [4, 3]}, rat_supply=0)
    act(env, "PLACE Italia", "END", "MOVE Gallia")
    assert cubes(env, "Gallia") == expected  # 7 cubes reach the limit 5; recomputed, the second M hits both


def test_knight_double_move():
    """§6 Knight example, RA-11, RA-27: second step after the first, not back to the origin, and the
    intermediate region is untouched."""
    env = make(4, options=REC, active=0, holders={"Knight": 0}, plague="Polonia",
               tokens={"Russia": ["n1m", "?"], "Tartaria": ["?"], "Anglia": ["?"]},
               cubes={"Russia": [0, 3, 0, 0], "Tartaria": [0, 0, 2, 0]})
    act(env, "PLACE Anglia", "END", "MOVE Russia")
    s = st(env)
    assert s.phase == KNIGHT_STEP
    assert legal_names(env) == {"MOVE Scandia", "MOVE Tartaria", "STOP"}
    act(env, "MOVE Tartaria")
    assert s.plague == region(env, "Tartaria") and s.used[KNIGHT]
    assert len(s.slots[region(env, "Russia")]) >= 2 and cubes(env, "Russia") == [0, 3, 0, 0]


def test_knight_may_end_at_origin_option():
    env = make(4, options={"knight_may_end_at_origin": True}, active=0, holders={"Knight": 0}, plague="Polonia",
               tokens={"Anglia": ["?"]})
    act(env, "PLACE Anglia", "END", "MOVE Russia")
    assert "MOVE Polonia" in legal_names(env)


def test_knight_stop_only_when_no_second_step():
    """§4.4: 3 players, Bulgaria -> Turcia leaves only STOP (Turcia's one neighbour is the origin)."""
    env = make(3, active=0, holders={"Knight": 0}, plague="Bulgaria", tokens={"Anglia": ["?"]})
    act(env, "PLACE Anglia", "END", "MOVE Turcia")
    assert legal_names(env) == {"STOP"}


def test_plague_must_move_to_a_neighbour():
    """RA-12, §4.4."""
    env = make(2, active=0, plague="Hispania", tokens={"Anglia": ["?"]})
    act(env, "PLACE Anglia", "END")
    assert legal_names(env) == {"MOVE Gallia", "MOVE Italia"}


def test_merchant():
    """RA-9: 1..min(3, own cubes) own cubes from one region to one neighbour in play; never palace cubes."""
    env = make(2, active=0, holders={"Merchant": 0}, plague="Anglia", tokens={"Gallia": ["?"]},
               cubes={"Italia": [2, 5]}, palace=[3, 0])
    names = legal_names(env)
    merchant = {a for a in names if a.startswith("MERCHANT")}
    assert merchant == {f"MERCHANT Italia>{t} x{m}" for t in ("Gallia", "Germania", "Hispania", "Hungaria")
                        for m in (1, 2)}
    act(env, "MERCHANT Italia>Hispania x2")
    assert cubes(env, "Hispania") == [2, 0] and cubes(env, "Italia") == [0, 5] and st(env).palace == [3, 0]
    assert not any(a.startswith("MERCHANT") for a in legal_names(env))  # once per turn (E6)


def test_monk_moves_the_chosen_token_with_its_knowledge():
    """RA-8: the chosen slot's token goes to the destination's last slot; knowledge follows the id (§8)."""
    env = make(2, options=REC, active=0, holders={"Monk": 0}, plague="Anglia",
               tokens={"Gallia": ["n1m", "n3a"], "Italia": ["n5a"], "Hispania": ["?", "?", "?"]},
               known={1: [["Gallia", 1]]})
    names = legal_names(env)
    assert "MONK Gallia:1>Italia" in names and "MONK Gallia:1>Hispania" not in names  # Hispania full (E16)
    act(env, "MONK Gallia:1>Italia")
    assert faces(env, "Italia") == ["n5a", "n3a"] and faces(env, "Gallia") == ["n1m"]
    s = st(env)
    assert s.known[1][s.slots[region(env, "Italia")][1]]
    # the Monk moved a token into Gallia's neighbour; placing there now counts it (RA-5, §4.3)
    act(env, "PLACE Italia")
    assert cubes(env, "Italia") == [2, 0]


def _slot_view(env, seat, name, slot):
    obs = env.observe(f"player_{seat}")["observation"]
    regions = env.unwrapped.observer.layout.view(obs, "regions")
    return regions[region(env, name), 7 + 19 * slot: 7 + 19 * (slot + 1)]


def test_witch_peek_swap_and_knowledge_that_moves():
    """RA-7, §8, AM-2: two peeks in different regions, private faces, public peek and swap, swapped_by,
    knowledge following the token after a later Monk move."""
    env = make(2, options=REC, active=0, holders={"Witch": 0, "Monk": 1}, plague="Anglia",
               tokens={"Gallia": ["n1m", "n3a"], "Italia": ["n5a"], "Hungaria": ["?"]})
    act(env, "PEEK Gallia:1")
    s = st(env)
    assert s.phase == WITCH_SECOND
    assert not any(a.startswith("PEEK Gallia") for a in legal_names(env))  # another region
    view = _slot_view(env, 0, "Gallia", 1)
    assert view[10] == 3 and view[12] == 1  # limit 3, one A: the face shown at once
    assert _slot_view(env, 1, "Gallia", 1)[10:].sum() == 0  # never to the others
    act(env, "PEEK Italia:0", "SWAP")
    assert faces(env, "Italia") == ["n3a"] and faces(env, "Gallia") == ["n1m", "n5a"]
    for seat in (0, 1):
        view = _slot_view(env, seat, "Italia", 0)
        assert view[2 + (0 - seat) % 2] == 1 and view[6 + (0 - seat) % 2] == 1  # known by and swapped by seat 0 (AM-2)
    assert _slot_view(env, 0, "Italia", 0)[10] == 3 and _slot_view(env, 1, "Italia", 0)[10] == 0
    assert s.used[WITCH] and s.phase == MAIN
    act(env, "PLACE Hungaria", "END", "MOVE Scandia")
    # next turn: seat 1 moves the known token with the Monk; seat 0 still sees its face there
    assert s.current_player == 1
    act(env, "MONK Italia:0>Hungaria")
    view = _slot_view(env, 0, "Hungaria", 1)
    assert view[10] == 3 and view[2] == 1 and view[6:10].sum() == 0  # still known; swapped_by cleared


def test_witch_needs_two_regions_and_any_other_token_option():
    """RA-7: unusable unless two regions hold tokens; ``any_other_token`` allows one region."""
    spec = dict(active=0, holders={"Witch": 0}, plague="Anglia", tokens={"Gallia": ["?", "?"]})
    env = make(2, **spec)
    assert not any(a.startswith("PEEK") for a in legal_names(env))
    env = make(2, options={"witch_second_token": "any_other_token", "witch_peek_sequential": False}, **spec)
    act(env, "PEEK Gallia:0")
    assert legal_names(env) == {"PEEK Gallia:1"}
    assert not st(env).known[0][st(env).slots[region(env, "Gallia")][0]]  # not sequential: shown later
    act(env, "PEEK Gallia:1")
    assert all(st(env).known[0][t] for t in st(env).slots[region(env, "Gallia")])
    act(env, "SWAP")


def test_king_banks_a_cube_from_a_token_free_region():
    """RA-10: one cube per use, source without tokens; palace cubes score (RA-21)."""
    env = make(2, active=0, holders={"King": 0}, plague="Anglia", tokens={"Gallia": ["?"]},
               cubes={"Italia": [2, 0], "Gallia": [3, 0]})
    assert {a for a in legal_names(env) if a.startswith("KING")} == {"KING Italia"}
    act(env, "KING Italia")
    s = st(env)
    assert s.palace == [1, 0] and cubes(env, "Italia") == [1, 0] and s.scores()[0] == 5.0


def test_taking_cards():
    """RA-6, RA-25, E4, E5: one take per turn, from the pool or an opponent, never one's own; a new
    Peasant is usable at once."""
    env = make(2, active=0, holders={"Peasant": 1, "King": 0}, plague="Anglia", tokens={"Gallia": ["?"]})
    names = legal_names(env)
    assert "TAKE King" not in names and "TAKE Peasant" in names
    act(env, "TAKE Peasant")
    assert st(env).holder[PEASANT] == 0 and not any(a.startswith("TAKE") for a in legal_names(env))
    act(env, "PEASANT Italia")
    assert cubes(env, "Italia") == [1, 0] and st(env).used[PEASANT]


def test_placement_rules():
    """§4.3, RA-4, RA-26: mandatory by default, min(tokens (+1), supply) cubes; options."""
    env = make(2, active=0, plague="Anglia", tokens={"Gallia": ["?", "?", "?"]}, cubes={"Italia": [18, 0]})
    assert "END" not in legal_names(env) and "PLACE Italia" not in legal_names(env)
    act(env, "PLACE Gallia")
    assert cubes(env, "Gallia") == [2, 0] and st(env).supply[0] == 0  # RA-26: only 2 left
    assert "END" in legal_names(env)
    env = make(2, options={"placement_optional": True}, active=0, plague="Anglia", tokens={"Gallia": ["?"]})
    assert "END" in legal_names(env)
    env = make(2, options={"peasant_bonus_optional": False}, active=0, holders={"Peasant": 0}, plague="Anglia",
               tokens={"Gallia": ["?"]})
    names = legal_names(env)
    assert "PLACE Gallia" not in names and "PEASANT Gallia" in names and "PEASANT Italia" in names


def test_opening_snake_order():
    """§3.8, RA-18: s, s+1, s+2, s+2, s+1, s; 2 cubes anywhere in play."""
    env = rattus_v0.env(num_players=3, start_player=1)
    env.reset(seed=3)
    seats = []
    for _ in range(6):
        seats.append(env.unwrapped.state_.current_player)
        act(env, "PLACE Anglia")
    assert seats == [1, 2, 0, 0, 2, 1]
    s = st(env)
    assert s.phase == MAIN and s.current_player == 1 and cubes(env, "Anglia") == [4, 4, 4]


def test_setup_and_randomness():
    """§3, RA-22, RA-3: one starting token per region in play, supply sizes, removed counts public,
    random plague start and start seat."""
    plagues, starts = set(), set()
    for seed in range(30):
        env = make(2, seed=seed)
        s = st(env)
        assert all(len(s.slots[r]) == 1 and s.game.starting_type[s.face[s.slots[r][0]]] for r in s.game.in_play)
        assert len(s.rat_supply) == 29 and len(s.removed) == 12
        plagues.add(s.plague)
        starts.add(s.start_seat)
        rats = env.unwrapped.observer.layout.view(env.observe("player_0")["observation"], "rats")
        assert rats[0] == 29 and rats[1] == 12 and rats[2] + rats[3] == 4  # 12 starting - 8 placed
    assert len(plagues) > 4 and starts == {0, 1}
    env = make(2, options={"starting_mark_public": False})
    rats = env.unwrapped.observer.layout.view(env.observe("player_0")["observation"], "rats")
    assert rats[2] == rats[3] == 0


def test_pending_token_mark_is_public():
    """RA-3, RA-13: a drawn spread token's starting mark is in every observation before it is placed."""
    env = make(2, active=0, plague="Anglia", tokens={"Gallia": ["?"], "Italia": ["?"]}, rat_supply=3)
    act(env, "PLACE Italia", "END", "MOVE Gallia")
    s = st(env)
    assert s.phase == SPREAD and s.pending >= 0
    mark = float(s.game.starting_type[s.face[s.pending]])
    for seat in (0, 1):
        obs = env.observe(f"player_{seat}")["observation"]
        assert env.unwrapped.observer.layout.view(obs, "spread")[1] == mark


def test_no_room_means_no_spread():
    """E10: every neighbour full, the due tokens are not placed."""
    env = make(2, active=0, plague="Gallia", tokens={"Hispania": ["?", "?", "?"], "Italia": ["?", "?", "?"],
                                                       "Gallia": ["?", "?", "?"]})
    act(env, "PLACE Italia", "END", "MOVE Hispania")
    assert st(env).phase == MAIN and len(st(env).slots[region(env, "Hispania")]) == 3


def _play_to_end(env, pick=min):
    while not st(env).is_terminal:
        env.step(pick(env.unwrapped.legal_actions()))


def test_rat_supply_empty_ends_and_final_round_runs_counterclockwise():
    """§4.6, §7.2, AM-4, RA-19: supply empty after the turn -> final round e-1, e-2, ...; RA-20: every
    region's tokens are revealed; only Merchant, Monk, Witch, King act; players with nothing are skipped."""
    spec = dict(active=1, plague="Anglia", holders={"King": 0, "Merchant": 2, "Monk": 3},
                tokens={"Gallia": ["?"], "Italia": ["?"], "Polonia": ["?"]}, rat_supply=1,
                cubes={"Italia": [1, 0, 1, 0], "Polonia": [0, 0, 0, 1]})
    env = make(4, **spec)
    act(env, "PLACE Gallia", "END", "MOVE Gallia")
    act(env, next(iter(legal_names(env))))  # the last rat spreads
    s = st(env)
    assert s.ender == 1 and s.final_order == [0, 3, 2] and s.phase == FINAL_ROUND
    seen = []
    while s.phase != OVER:
        seen.append(s.current_player)
        assert not any(a.startswith(("TAKE", "PLACE", "PEASANT", "MOVE")) for a in legal_names(env))
        act(env, "END")
    assert seen == [3, 2]  # seat 0 (King, no token-free region with cubes) is skipped
    assert all(not s.slots[r] for r in range(12)) and s.end_reason == 0
    env = make(4, options={"final_round_direction": "clockwise"}, **spec)
    act(env, "PLACE Gallia", "END", "MOVE Gallia")
    act(env, next(iter(legal_names(env))))
    assert st(env).final_order == [2, 3, 0]


def test_all_cubes_placed_ends_the_game():
    """§4.6, RA-17: the active player's supply is 0 after the turn (palace counts)."""
    env = make(2, active=0, plague="Anglia", tokens={"Gallia": ["?", "?"]}, cubes={"Italia": [16, 0]},
               palace=[2, 0])
    act(env, "PLACE Gallia", "END", "MOVE Scandia")
    s = st(env)
    assert s.end_reason == 1 and s.ender == 0


def test_end_precedence_and_caps():
    """RA-17 precedence, RA-23 turn cap (score / truncate), RA-24 no-progress, RA-21 shared ties."""
    env = make(2, options={"max_regular_turns": 1}, active=0, plague="Anglia", tokens={"Gallia": ["?"]},
               rat_supply=0)
    act(env, "PLACE Gallia", "END", "MOVE Scandia")
    assert st(env).end_reason == 0  # rat_supply_empty beats turn_cap
    env = make(2, options={"max_regular_turns": 1, "turn_cap_mode": "truncate"}, active=0, plague="Anglia",
               tokens={"Gallia": ["?"]})
    act(env, "PLACE Gallia", "END", "MOVE Scandia")
    assert st(env).is_truncated and env.truncations["player_0"] and env.rewards["player_0"] == 0.0
    env = make(2, options={"placement_optional": True, "no_progress_turns": 2}, active=0, plague="Hispania",
               tokens={"Anglia": ["?"]}, cubes={"Anglia": [1, 1]})
    act(env, "END", "MOVE Italia", "END", "MOVE Hispania")
    s = st(env)
    assert s.end_reason == 2 and s.is_terminal and s.winners() == [0, 1]
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}
    obs = env.unwrapped.observer.layout.view(env.observe("player_0")["observation"], "turns")
    assert obs[1] == 2  # AM-5



def test_revealed_faces_show_with_an_empty_board():
    """§8: every revealed face is public, also in a position whose board holds no cubes and no tokens (the
    observer's rebuild then rewrites no region)."""
    env = make(2, tokens={}, rat_supply=5)
    shown = env.unwrapped.observer.layout.view(env.observe("player_0")["observation"], "revealed")
    assert len(st(env).revealed) == 49 - 5 - 12 and shown.sum() == len(st(env).revealed)

def test_no_progress_counter_resets_on_a_productive_turn():
    """RA-24, §10.5: placing or a spread draw makes a turn productive."""
    env = make(2, options={"placement_optional": True}, active=0, plague="Hispania", tokens={"Anglia": ["?"]})
    act(env, "END", "MOVE Italia")
    assert st(env).no_progress == 1
    act(env, "PLACE Anglia", "END", "MOVE Hispania")
    assert st(env).no_progress == 0


def test_tie_break_next_player():
    """RA-21, §7.4: ties go to the player after the ender; the ender loses every tie."""
    env = make(4, active=1, plague="Anglia", tokens={"Gallia": ["?"]}, rat_supply=0,
               cubes={"Italia": [3, 2, 3, 0], "Hispania": [0, 0, 0, 3]})
    act(env, "PLACE Gallia", "END", "MOVE Scandia")
    _play_to_end(env, pick=lambda ids: 0 if 0 in ids else ids[0])
    s = st(env)
    info = s.score_breakdown()
    assert info["tie_priority"] == [2, 3, 0, 1] and info["scores"] == [3, 3, 3, 3]
    assert s.winners() == [2] and info["tie_break_applied"]
    assert env.rewards["player_2"] == 1.0 and env.rewards["player_1"] == -1.0
    env = make(4, options={"tie_break": "shared"}, active=1, plague="Anglia", tokens={"Gallia": ["?"]},
               rat_supply=0, cubes={"Italia": [3, 2, 3, 0], "Hispania": [0, 0, 0, 3]})
    act(env, "PLACE Gallia", "END", "MOVE Scandia")
    _play_to_end(env, pick=lambda ids: 0 if 0 in ids else ids[0])
    assert st(env).winners() == [0, 1, 2, 3]


def test_reward_option():
    """§10.4: zero-sum rewards."""
    env = make(2, options={"reward": {"zero_sum": True}}, active=0, plague="Anglia", tokens={"Gallia": ["?"]},
               rat_supply=0, cubes={"Italia": [3, 0]})
    act(env, "PLACE Gallia", "END", "MOVE Scandia")
    _play_to_end(env)
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}


def test_random_reveal_order_option():
    """RA-14: ``reveal_order="random"`` reveals in a random slot order."""
    firsts = set()
    for seed in range(12):
        env = make(2, seed=seed, options={**REC, "reveal_order": "random"}, active=0, plague="Anglia",
                   tokens={"Gallia": ["n5a", "n3a", "n1m"], "Italia": ["?"]}, cubes={"Gallia": [1, 0]}, rat_supply=0)
        act(env, "PLACE Italia", "END", "MOVE Gallia")
        s = st(env)
        firsts.add(s.game.types[s.face[s.revealed[-1 if len(s.slots[region(env, 'Gallia')]) == 2 else 0]]].id)
    assert len(firsts) >= 2


def test_auto_resolve_forced():
    """§9.1: single-choice decisions are played by the engine."""
    env = make(2, options={"auto_resolve_forced": True}, active=0, plague="Hispania", tokens={"Anglia": ["?"]})
    act(env, "PLACE Anglia")
    act(env, "END")  # Hispania has two neighbours: still a choice
    assert st(env).phase != MAIN or st(env).current_player == 1


def test_position_errors_name_the_problem():
    env = make(2)
    with pytest.raises(ValueError, match="Atlantis"):
        env.unwrapped.set_position(seed=0, plague="Atlantis")
    with pytest.raises(ValueError, match="unknown position keyword"):
        env.unwrapped.set_position(seed=0, board={})


def test_observation_never_shows_unknown_faces():
    """§8: only faces the observer peeked; others see the "known by" bits only."""
    env = make(2, active=0, holders={"Witch": 0}, plague="Anglia", tokens={"Gallia": ["?"], "Italia": ["?"]})
    for seat in (0, 1):
        regions = env.unwrapped.observer.layout.view(env.observe(f"player_{seat}")["observation"], "regions")
        assert regions[:, 7:].reshape(12, 3, 19)[:, :, 10:].sum() == 0
    act(env, "PEEK Gallia:0", "PEEK Italia:0", "KEEP")
    for seat, expect in ((0, True), (1, False)):
        view = _slot_view(env, seat, "Gallia", 0)
        assert (view[10:].sum() > 0) == expect and view[2 + (0 - seat) % 2] == 1


@pytest.mark.parametrize("option,ends", [(True, False), (False, True)])
def test_end_check_of_every_player_option(option, ends):
    """RA-17: ``end_check_active_player_only=False`` also ends on another player's empty supply."""
    env = make(2, options={"end_check_active_player_only": option}, active=0, plague="Anglia",
               tokens={"Gallia": ["?"]}, cubes={"Italia": [0, 20]})
    act(env, "PLACE Gallia", "END", "MOVE Scandia")
    assert (st(env).end_reason == 1) == ends


@pytest.mark.parametrize("option,ends", [(True, True), (False, False)])
def test_palace_counts_as_on_board_option(option, ends):
    """RA-17: with ``palace_counts_as_on_board=False`` palace cubes keep the trigger from firing."""
    env = make(2, options={"palace_counts_as_on_board": option}, active=0, plague="Anglia",
               tokens={"Gallia": ["?"]}, cubes={"Italia": [17, 0]}, palace=[2, 0])
    act(env, "PLACE Gallia", "END", "MOVE Scandia")
    assert (st(env).end_reason == 1) == ends


def test_a_second_swap_overwrites_swapped_by():
    """AM-2: a later swap by another seat replaces the mark."""
    env = make(2, active=0, holders={"Witch": 0}, plague="Anglia",
               tokens={"Gallia": ["?"], "Italia": ["?"], "Hungaria": ["?"]})
    act(env, "PEEK Gallia:0", "PEEK Italia:0", "SWAP", "PLACE Hungaria", "END", "MOVE Scandia")
    s = st(env)
    italia = s.slots[region(env, "Italia")][0]
    assert s.swapped_by[italia] == 0
    act(env, "TAKE Witch", "PEEK Italia:0", "PEEK Hungaria:0", "SWAP")
    assert s.swapped_by[italia] == 1 and s.slots[region(env, "Hungaria")][0] == italia


def test_position_seats_are_checked():
    env = make(2)
    for spec in ({"active": 5}, {"holders": {"King": 2}}, {"known": {"0": []}}):
        with pytest.raises(ValueError, match="is not a seat"):
            env.unwrapped.set_position(seed=0, **spec)


def test_region_token_limit_and_kept_counts_are_checked():
    """§10.6: at most 3 tokens a region (a snapshot beyond it is refused), and the token counts and holder
    codes the engine keeps beside the slots and holders must match them."""
    env = make(2)
    with pytest.raises(ValueError, match="more than 3"):
        env.unwrapped.set_position(seed=0, tokens={"Gallia": ["?"] * 4})
    s = st(env)
    assert s.game.invariants(s) == []
    s.counts[s.game.in_play[0]] += 1
    assert any("token counts" in problem for problem in s.game.invariants(s))
    s.counts[s.game.in_play[0]] -= 1
    s.holder_code[WITCH] = 2
    assert any("holder codes" in problem for problem in s.game.invariants(s))
