"""Rattus Cartus rules against the spec (docs/rattus_cartus_rules.md): scripted positions driven through
the env.

Technique: ``env.unwrapped.set_position(seed, **spec)`` sets up a round start (hands, nun row, row,
rats, ...), then actions are played by name with ``env.step`` so the core checks their legality; masks
are compared through ``env.unwrapped.legal_actions()``. Each test names the sections and R-A ids it
checks.
"""

from __future__ import annotations

import numpy as np
import pytest

from hiddenhand.envs import rattus_cartus_v0
from hiddenhand.envs.rattus_cartus import rules as R
from hiddenhand.envs.rattus_cartus.cards import (
    CLASS_NAMES, KIND_COPIES, KIND_NUNS, NUM_KINDS, NUM_POPULATION, PLAYER_COUNT_TABLE, SPECIAL_COPIES,
)
from hiddenhand.envs.rattus_cartus.checks import invariants
from hiddenhand.envs.rattus_cartus.scoring import gold_vp, influence_vp, majority

PEASANTRY, BOURGEOISIE, CHURCH, KNIGHTHOOD, MAGIC, ROYALTY = range(6)
JOKER_I, SWORD_I, FLUTE_I, PASS_I, GOLD_I = range(30, 35)


# ============================================================================= helpers
def make(num_players=4, seed=0, **options):
    env = rattus_cartus_v0.env(num_players=num_players, **options)
    env.reset(seed=seed)
    return env


def position(num_players=4, seed=0, options=None, **spec):
    env = rattus_cartus_v0.env(num_players=num_players, **(options or {}))
    env.unwrapped.set_position(seed=seed, **spec)
    return env


def st(env) -> R.RattusCartusState:
    return env.unwrapped.state_


def play(env, *names):
    """Play actions by name for whoever is on turn (the core checks legality)."""
    game = env.unwrapped.game
    for name in names:
        env.step(game.string_to_action(name))
        assert invariants(game, st(env)) == []


def legal_names(env) -> list[str]:
    game = env.unwrapped.game
    return [game.action_to_string(a) for a in env.unwrapped.legal_actions()]


def cls_count(holding, cls):
    return sum(holding[cls * 5:cls * 5 + 5])


def population(holding):
    return sum(holding[:NUM_KINDS])


def fillers(count, cls=PEASANTRY):
    return [CLASS_NAMES[cls]] * count


def row_of(*names):
    return list(names)


# ============================================================================= setup (§1, §2)
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_setup_follows_the_player_count_table(n):
    """§2.1, §2.2, R-A1, R-A34: hands of 5, 10 rats, nun row of 5, deck 84 - 5 - 5n, 30 buildings, k per
    round, the replacement pile, the building deck emptied exactly by the last round (R-A22)."""
    env = make(n, seed=n)
    s = st(env)
    table = PLAYER_COUNT_TABLE[n]
    assert [population(h) for h in s.hands] == [5] * n and s.rats == [10] * n
    assert len(s.nun_row) == 5 and len(s.deck) == 84 - 5 - 5 * n
    assert len(s.building_set) == 30 and len(s.repl) == table["replacement"]
    assert len(s.row) == table["k"] and len(s.bdeck) == (table["rounds"] - 1) * table["k"]
    assert s.supply == [15, 12, 12, 12, 15] and len(s.token_supply) == 20
    assert s.decision == R.D1 and s.current_player == s.start
    # R-A1: 4/2/2/2/4 cards with 4/3/2/1/0 nuns in every class, 168 nuns in all
    assert sum(KIND_COPIES) == NUM_POPULATION == 84
    assert sum(c * KIND_NUNS[k] for k, c in enumerate(KIND_COPIES)) == 168
    assert [KIND_COPIES[k] for k in range(5)] == [4, 2, 2, 2, 4]
    assert SPECIAL_COPIES == (15, 12, 12, 12, 15)  # R-A34


def test_building_selection_methods():
    """§2.3, R-A4: random cards per class (default), one building per class, the agreed beginner set;
    with 2 players the random methods leave the Watchtower out (exclude_watchtower_2p)."""
    for seed in range(20):
        s = st(make(4, seed=seed))
        per_class = [sum(1 for c in s.building_set if c // 10 == k) for k in range(6)]
        assert per_class == [5] * 6
    seen = set()
    for seed in range(40):
        seen |= {c // 5 for c in st(make(4, seed=seed)).building_set}
    assert seen == set(range(12))  # every building occurs under the default
    for seed in range(10):
        s = st(make(4, seed=seed, building_selection="random_building_per_class"))
        assert all(len({c // 5 for c in s.building_set if c // 10 == k}) == 1 for k in range(6))
        s2 = st(make(2, seed=seed))
        assert all(c // 5 != R.WATCHTOWER for c in s2.building_set)
        assert sum(1 for c in s2.building_set if c // 5 == R.CASTLE) == 5
    s = st(make(4, seed=3, building_selection="agreed"))
    assert sorted({c // 5 for c in s.building_set}) == [R.FARM, R.MARKETPLACE, R.MONASTERY, R.CASTLE, R.TENT, R.PALACE]
    s = st(make(3, seed=3, building_selection="agreed",
                agreed_set={"farm": 3, "brewery": 2, "office": 5, "hospital": 5, "watchtower": 5, "rat_catchers_hut": 5,
                            "treasury": 5}))
    assert sum(1 for c in s.building_set if c // 5 == R.FARM) == 3  # R-A4: a random subset of the copies
    assert all(c // 5 != R.WATCHTOWER for c in st(make(2, seed=1, building_selection="random_building_per_class"))
               .building_set)
    s = st(make(2, seed=1, exclude_watchtower_2p=False, building_selection="agreed",
                agreed_set={"farm": 5, "office": 5, "hospital": 5, "watchtower": 5, "rat_catchers_hut": 5,
                            "treasury": 5}))
    assert sum(1 for c in s.building_set if c // 5 == R.WATCHTOWER) == 5  # no effect on agreed


def test_start_player_is_random_or_configured():
    """R-A5."""
    starts = {st(make(4, seed=seed)).start for seed in range(30)}
    assert starts == {0, 1, 2, 3}
    assert st(make(4, seed=5, start_player=2)).current_player == 2


def test_identical_row_fix_replaces_the_last_card():
    """§3.1, R-A6: all k cards of one building: the last goes face up to the bottom of the replacement
    pile and the pile's top card replaces it, until the row differs; partial matches stay."""
    env = make(4, seed=1, building_selection="agreed",
               agreed_set={"farm": 5, "marketplace": 5, "monastery": 5, "castle": 5, "fortune_tellers_tent": 5,
                           "palace": 5})
    s = st(env)
    monasteries = [c for c in s.bdeck + s.repl + s.row if c // 5 == R.MONASTERY]
    others = [c for c in s.bdeck + s.repl + s.row if c // 5 != R.MONASTERY]
    # the replacement pile's top two cards are Monasteries too: the fix has to cycle
    s.repl = others[:4] + monasteries[3:5]
    s.bdeck = others[4:4 + 18] + monasteries[:3]
    s.used, s.row = others[22:], []
    s._begin_round()
    assert [c // 5 for c in s.row[:2]] == [R.MONASTERY, R.MONASTERY] and s.row[2] // 5 != R.MONASTERY
    assert s.row[2] == others[3]  # the first non-Monastery card from the top of the pile
    assert [c // 5 for c in s.repl[:3]] == [R.MONASTERY] * 3 and s.repl_known == 3
    assert len(s.repl) == 6 and len(s.bdeck) == 18
    # a partial match is not fixed
    s.bdeck[-3:] = [others[5], s.row[0], s.row[1]]
    s.row = []
    s._begin_round()
    assert [c // 5 for c in s.row] == [R.MONASTERY, R.MONASTERY, others[5] // 5] and s.repl_known == 3


# ============================================================================= the worked example (§3.8)
def example_env():
    """§3.8 starting state: round 2 of 8, seat 0 starts; Tent copy 1, Monastery copies 0 and 3."""
    hands = [
        ["church", "royalty", "magic", "magic", "peasantry"],
        ["magic", "magic", "church", "peasantry", "peasantry"],
        ["bourgeoisie"] * 5,
        ["sword", "knighthood", "knighthood", "knighthood", "knighthood", "royalty"],
    ]
    return position(4, seed=11, hands=hands, round=1, start_player=0,
                    row=["fortune_tellers_tent:1", "monastery:0", "monastery:3"])


def test_worked_example_of_the_rulebook():
    """§3.8 test vector (default supply table, R-A40): phases B-E of one round, every figure of the
    expected end state. Also R-A7 (supply symbols in order), R-A8 (looks public by position), R-A11,
    R-A12 (Sword cards pending until step c), R-A13, R-A14, R-A24 (stamps), R-A35, R-A37, R-A38."""
    env = example_env()
    s = st(env)
    assert len(s.bdeck) == 18 and len(s.deck) >= 7
    deck_before, discard_before = len(s.deck), sum(s.discard)
    assert legal_names(env) == ["SLOT 0", "SLOT 1", "SLOT 2"]
    play(env, "SLOT 1")  # seat 0: draw 4
    play(env, "SLOT 0")  # seat 1: draw 2, then one look
    assert s.decision == R.D2 and s.current_player == 1
    play(env, "POS 2")
    assert s.peek_count[1] == [0, 0, 1, 0, 0] and s.peeked[1][2]
    play(env, "SLOT 2", "SLOT 2")  # seats 2 and 3: discard 2 rats
    assert [s.hand_size[p] for p in range(4)] == [9, 7, 5, 6] and s.rats == [10, 10, 8, 8]
    assert s.phase == R.PHASE_C and s.current_player == 0
    play(env, "SLOT 1", "CARD CHURCH", "CARD ROYALTY", "CARD MAGIC", "CARD MAGIC", "STOP")
    play(env, "SLOT 0", "CARD MAGIC", "CARD MAGIC", "CARD CHURCH", "STOP")
    play(env, "SLOT 2", "STOP")
    play(env, "SLOT 2", "CARD SWORD", "STOP")
    assert s.announced == [4, 3, 0, 1] and s.hand_size == [5, 4, 5, 5]
    # slot 0: seat 1 alone at the Tent: Magic 3 (stamp 1), one rat, special action: two different looks
    assert s.level[1][MAGIC] == 3 and s.stamp[1][MAGIC] == 1 and s.rats[1] == 11
    assert s.decision == R.D8 and s.current_player == 1
    play(env, "POS 2")
    assert "POS 2" not in legal_names(env)  # the second look of the special action differs from the first
    play(env, "POS 0")
    # slot 1 resolved automatically; slot 2: Sword, seat 3 wins, seat 2 (fewest) pays floor(5/2) = 2
    assert s.level[0][CHURCH] == 4 and s.stamp[0][CHURCH] == 2 and s.rats[0] == 11
    assert s.decision == R.D6 and s.current_player == 2 and s.left == 2
    play(env, "CARD BOURGEOISIE")
    assert sum(s.pending[3]) == 1 and s.hand_size[3] == 5  # pending until step c (R-A12)
    play(env, "CARD BOURGEOISIE")
    # end state (after phase E the next round's phase A has already revealed 3 more buildings)
    assert s.rats == [11, 11, 6, 7]
    assert s.hand_size == [5, 4, 3, 7]
    assert s.level[0] == [0, 0, 4, 0, 0, 0] and s.level[1] == [0, 0, 0, 0, 3, 0]
    assert s.level[2] == [0] * 6 and s.level[3] == [0] * 6 and s.clock == 2
    assert s.peek_count[1] == [1, 0, 2, 0, 0]
    assert sum(s.discard) == discard_before + 7 and len(s.deck) == deck_before - 6
    assert s.supply[1] == 12 - 0  # the Sword went back (seat 3's hand held the only one out)
    assert s.start == 1 and s.round == 2 and len(s.used) == 6 and len(s.bdeck) == 15
    assert sum(s.hand_size) == 19 and sum(s.rats) == 35
    assert s.hidden_out[2] == 2 and s.hidden_in[3] == 2 and s.flow_count[2][3] == 2


def test_worked_example_hides_the_right_things():
    """§7.1-§7.5: only giver and receiver know the Sword payment; the look's value is private, the
    position public; committed cards are hidden until revealed but their number is public."""
    env = example_env()
    raw = env.unwrapped
    layout = raw.observer.layout
    play(env, "SLOT 1", "SLOT 0", "POS 2", "SLOT 2", "SLOT 2", "SLOT 1", "CARD CHURCH", "CARD ROYALTY")
    s = st(env)
    for seat in range(4):
        view = layout.views(env.observe(f"player_{seat}")["observation"])
        assert view["own_hand"].tolist() == s.hands[seat]
        assert view["own_committed"].tolist() == (s.committed[0] if seat == 0 else [0] * 35)
        rel = (0 - seat) % 4
        assert view["seats"][rel][3] == 2  # the running count of seat 0's committed cards is public
        known = view["nun_row"][2][30]
        assert known == (1.0 if seat == 1 else 0.0)  # only seat 1 looked at position 2
        assert view["looks"][(1 - seat) % 4][2] == 1  # everybody sees that seat 1 looked there


# ============================================================================= phase C: Pass (§3.3.2)
def test_pass_chain_and_its_legality():
    """§3.3.2, R-A10: a Pass defers to the next player who has not entered; the passer comes round again;
    Pass is illegal when everybody else has entered; a played Pass returns to the supply at once."""
    hands = [["pass", "pass"] + fillers(3), ["pass"] + fillers(4), fillers(5)]
    env = position(3, seed=2, hands=hands, start_player=0)
    s = st(env)
    play(env, "SLOT 0", "SLOT 0", "SLOT 0")
    assert s.phase == R.PHASE_C and s.current_player == 0 and "PASS" in legal_names(env)
    supply = s.supply[3]
    play(env, "PASS")
    assert s.supply[3] == supply + 1 and s.current_player == 1 and s.passes[0] == 1
    play(env, "PASS")
    assert s.current_player == 2 and "PASS" not in legal_names(env)  # seat 2 holds none
    play(env, "SLOT 1", "STOP")
    assert s.current_player == 0 and "PASS" in legal_names(env)
    play(env, "PASS")  # passes again: seat 1 still has not entered
    assert s.current_player == 1 and "PASS" not in legal_names(env)  # no Pass left
    play(env, "SLOT 0", "STOP")
    assert s.current_player == 0 and "PASS" not in legal_names(env)  # the lone remaining player must enter
    assert s.entry_order == [-1, 1, 0]
    assert s.current_player == 0 and s.decision == R.D3
    play(env, "SLOT 0")
    assert s.entry_pos[0] == 1 and s.entry_order[0] == 2 and s.passes == [2, 1, 0]


def test_pass_and_gold_cannot_be_committed():
    """R-A9 / §3.3.1 D4: only population cards, jokers, Swords and Flutes are playable."""
    env = position(3, seed=2, hands=[["pass", "gold", "sword", "flute", "joker", "church"], fillers(5), fillers(5)],
                   start_player=0, row=["monastery:3", "castle:3"],
                   options={"building_selection": "agreed", "agreed_set": {
                       "farm": 5, "office": 5, "monastery": 5, "castle": 5, "rat_catchers_hut": 5, "treasury": 5}})
    play(env, "SLOT 0", "SLOT 0", "SLOT 0", "SLOT 0")
    assert legal_names(env) == ["CARD CHURCH", "CARD JOKER", "CARD SWORD", "CARD FLUTE", "STOP"]


# ============================================================================= phase D: Sword and Flute
def sword_env(n=4, **extra):
    hands = extra.pop("hands", [["sword", "sword"] + fillers(4)] + [fillers(6, c) for c in (1, 2, 3)][:n - 1])
    return position(n, seed=4, hands=hands, start_player=0, row=["farm:3", "marketplace:3", "monastery:3"], **extra)


def test_sword_tied_losers_let_the_winner_choose():
    """§3.4.3, R-A11, R-A36: the most Swords wins (ties: lowest entry position), the winner chooses among
    the players tied for fewest; exactly one pays floor(h/2) of his hand (R-A14)."""
    env = sword_env()
    s = st(env)
    play(env, *["SLOT 2"] * 4)  # everybody discards 2 rats
    play(env, "SLOT 0", "CARD SWORD", "STOP", "SLOT 0", "STOP", "SLOT 0", "STOP", "SLOT 1", "STOP")
    assert s.decision == R.D5 and s.current_player == 0 and sorted(s.cands) == [1, 2]
    assert legal_names(env) == ["TARGET +1", "TARGET +2"]
    play(env, "TARGET +2")
    assert s.decision == R.D6 and s.current_player == 2 and s.left == 3  # floor(6 / 2)
    play(env, "CARD CHURCH", "CARD CHURCH", "CARD CHURCH")
    assert s.hidden_in[0] == 3 and s.hand_size[2] == 3 + 2 and s.hand_size[1] == 6 + 2  # + the Farm normal action


def test_sword_with_an_empty_hand_gives_nothing_and_flute_needs_a_rat():
    """R-A14: h <= 1 gives nothing; R-A15: a Flute winner without rats moves nothing; §3.4.4: otherwise
    exactly one rat goes to the (chosen) receiver; R-A13: Sword first, then Flute."""
    hands = [["sword", "flute"], ["peasantry"], fillers(2)]
    env = position(3, seed=4, hands=hands, start_player=0, rats=[0, 5, 5], row=["farm:3", "monastery:0"])
    s = st(env)
    play(env, "SLOT 0", "SLOT 0", "SLOT 0")
    play(env, "SLOT 0", "CARD SWORD", "CARD FLUTE", "STOP", "SLOT 0", "CARD PEASANTRY", "STOP", "SLOT 1", "STOP")
    # slot 0: seat 1 (hand 0) pays nothing; seat 0 has no rat: no Flute transfer, no decision
    assert s.rats[0] == 0 and s.rats[1] == 3 and s.hidden_out[1] == 0
    hands = [["flute", "flute"] + fillers(2), fillers(3), fillers(3)]
    env = position(3, seed=4, hands=hands, start_player=0, rats=[5, 5, 5], row=["farm:3", "monastery:0"])
    s = st(env)
    play(env, "SLOT 0", "SLOT 0", "SLOT 0")
    play(env, "SLOT 0", "CARD FLUTE", "STOP", "SLOT 0", "STOP", "SLOT 0", "STOP")
    assert s.decision == R.D7 and s.current_player == 0
    play(env, "TARGET +2")
    assert s.rats == [2, 3, 4]  # 5 - 2 (supply), then one rat from seat 0 to seat 2


# ============================================================================= special action (§3.4.5, §3.4.6)
def test_special_action_goes_to_the_most_cards_then_the_first_entrant():
    """§3.4.5, R-A11, R-A38: highest M (population cards + jokers; Swords do not count) gets the special
    action, ties to the lowest entry position; an entrant with nothing committed still gets the normal
    action."""
    hands = [["sword", "sword", "sword"] + fillers(2), fillers(5, PEASANTRY), fillers(5, PEASANTRY)]
    env = position(3, seed=4, hands=hands, start_player=0, row=["farm:0", "monastery:0"])
    s = st(env)
    play(env, "SLOT 1", "SLOT 1", "SLOT 1")  # draw 4 each
    deck = len(s.deck)
    play(env, "SLOT 0", "CARD SWORD", "CARD SWORD", "CARD SWORD", "STOP",
         "SLOT 0", "CARD PEASANTRY", "STOP", "SLOT 0", "CARD PEASANTRY", "STOP")
    # Sword: seat 0 wins and chooses between seats 1 and 2
    play(env, "TARGET +1")
    while s.decision == R.D6:
        play(env, legal_names(env)[0])
    # seat 1 (M 1, first of the tied) draws 4, the others 2 each: 8 from the deck
    assert len(s.deck) == deck - 8


def test_two_players_get_one_special_action_per_round():
    """§3.4.6, R-A20: the larger M over both slots takes the special action, the other the normal action
    even when alone; a tie goes to the lower entry order (with Pass not the start player)."""
    hands = [["pass"] + fillers(4, CHURCH), fillers(5, CHURCH)]
    env = position(2, seed=5, hands=hands, start_player=0, row=["monastery:3", "farm:3"], rats=[10, 10])
    s = st(env)
    play(env, "SLOT 0", "SLOT 0")  # both discard 2 rats: 8, 8
    play(env, "PASS")  # seat 1 enters first
    play(env, "SLOT 0", "CARD CHURCH", "STOP")  # seat 1: Monastery, M 1
    play(env, "SLOT 1", "CARD CHURCH", "STOP")  # seat 0: Farm, M 1 (tie: seat 1 entered first)
    # seat 1 special at the Monastery (2 rats), seat 0 normal at the Farm (draws 2, alone there)
    assert s.rats == [8 + 1, 8 - 2]
    assert s.hand_size[0] == 3 + 2 and s.hand_size[1] == 4


# ============================================================================= buildings (§4)
def test_watchtower_takes_from_unprotected_players_with_enough_cards():
    """§4 Watchtower, R-A19, R-A12: t = the owner's hand (pending excluded); every player in no
    Watchtower with at least t cards gives min(3, h), chosen by himself, clockwise from the owner's
    left; entrants of any Watchtower are protected; received cards are pending."""
    options = {"building_selection": "agreed", "agreed_set": {
        "farm": 5, "office": 5, "monastery": 5, "watchtower": 5, "rat_catchers_hut": 5, "treasury": 5}}
    hands = [fillers(3, KNIGHTHOOD), fillers(4, KNIGHTHOOD), fillers(2), fillers(8)]
    env = position(4, seed=6, options=options, hands=hands, start_player=0,
                   row=["watchtower:3", "monastery:3", "farm:3"])
    s = st(env)
    play(env, *["SLOT 1"] * 4)
    # seat 0 special (M 2 > 1), seat 1 normal: protected; seat 2 (2 cards < t) and seat 3 in other buildings
    play(env, "SLOT 0", "CARD KNIGHTHOOD", "CARD KNIGHTHOOD", "STOP",  # hand 1 left: t = 1
         "SLOT 0", "CARD KNIGHTHOOD", "STOP",
         "SLOT 1", "STOP", "SLOT 2", "STOP")
    assert s.decision == R.D10 and s.wt_t == 1 and s.wt_victims == [2, 3] and s.current_player == 2
    play(env, "CARD PEASANTRY", "CARD PEASANTRY")  # seat 2 gives min(3, 2) = 2
    assert s.current_player == 3 and s.left == 3
    play(env, "CARD PEASANTRY", "CARD PEASANTRY", "CARD PEASANTRY")
    assert sum(s.pending[0]) == 0 and s.hand_size[0] == 1 + 5  # joined at step c
    assert s.hand_size[1] == 3 and s.hand_size[2] == 0 and s.hand_size[3] == 5 + 4  # + its Farm special action


def test_hospital_limits_and_zero_rats():
    """§4 Hospital, R-A17, §8.3: the special action first loses a rat, then discards up to min(3, hand,
    rats) cards, one rat each, shown; at zero rats no decision is asked."""
    options = {"building_selection": "agreed", "agreed_set": {
        "farm": 5, "office": 5, "hospital": 5, "castle": 5, "rat_catchers_hut": 5, "treasury": 5}}
    env = position(3, seed=7, options=options, hands=[fillers(5, CHURCH), fillers(5), ["sword"] * 2 + fillers(3)],
                   start_player=0, rats=[2, 0, 5], row=["hospital:3", "farm:3"])
    s = st(env)
    play(env, "SLOT 1", "SLOT 1", "SLOT 1")  # rats: 0, 0, 3
    assert s.rats == [0, 0, 3]
    play(env, "SLOT 0", "CARD CHURCH", "STOP", "SLOT 0", "STOP", "SLOT 0", "STOP")
    # seat 0 special at 0 rats, seat 1 normal at 0 rats: skipped; seat 2 normal: up to 2 (rats 3, hand 5)
    assert s.decision == R.D9 and s.current_player == 2
    shown = s.shown[2][7]
    play(env, "CARD SWORD")
    assert s.rats[2] == 2 and s.shown[2][7] == shown + 1 and s.supply[1] == 12 - 1
    assert "STOP" in legal_names(env)
    play(env, "CARD SWORD")  # the limit of 2 is reached: the action ends
    assert s.rats[2] == 1 and s.phase != R.PHASE_D or s.slot != 0


def test_brewery_draws_by_influence_and_supplies_run_short():
    """§4 Brewery (R-A18): the special draws M, the normal floor(M/2); R-A3: finite supplies give what is
    left, in resolution order."""
    options = {"building_selection": "agreed", "agreed_set": {
        "brewery": 5, "marketplace": 5, "monastery": 5, "castle": 5, "rat_catchers_hut": 5, "palace": 5}}
    env = position(3, seed=8, options=options, hands=[fillers(5), fillers(3), fillers(5)], start_player=0,
                   row=["brewery:3", "marketplace:3"])
    s = st(env)
    play(env, "SLOT 0", "SLOT 0", "SLOT 0")
    s.supply[0] = 2  # two jokers left: keep conservation by parking the rest with seat 2
    s.hands[2][JOKER_I] += 13
    s.hand_size[2] += 13
    s.taken[2][0] += 13
    deck = len(s.deck)
    play(env, "SLOT 0", "CARD PEASANTRY", "CARD PEASANTRY", "CARD PEASANTRY", "CARD PEASANTRY", "CARD PEASANTRY",
         "STOP", "SLOT 0", "CARD PEASANTRY", "CARD PEASANTRY", "CARD PEASANTRY", "STOP",
         "SLOT 1", "STOP")
    assert len(s.deck) == deck - 5 - 1 or s.reshuffles  # 5 for the special, floor(3/2) for the normal
    assert s.hand_size[0] == 5 and s.hand_size[1] == 1
    # Marketplace: seat 2 alone takes 2 jokers, the last two
    assert s.supply[0] == 0 and s.hands[2][JOKER_I] == 15


def test_last_round_gives_one_influence_instead_of_actions():
    """§3.4.8, R-A21, R-A22, R-A38: in the last round no building acts; the would-be special player gains
    +1 influence with a new stamp (also with nothing committed); Sword and Flute still resolve; the game
    then ends and is scored."""
    env = position(3, seed=9, hands=[fillers(4, PEASANTRY), ["sword"] + fillers(3), fillers(5)], round=8,
                   start_player=0, row=["farm:0", "monastery:0"])
    s = st(env)
    assert s.round == 8 and len(s.bdeck) == 0  # R-A22: the building deck is empty in the last round
    play(env, "SLOT 1", "SLOT 1", "SLOT 1")
    deck = len(s.deck)
    play(env, "SLOT 0", "CARD PEASANTRY", "STOP", "SLOT 0", "CARD SWORD", "STOP", "SLOT 1", "STOP")
    # slot 0: Sword: seat 1 wins, seat 0 pays floor(7/2) = 3
    assert s.decision == R.D6 and s.current_player == 0 and s.left == 3
    while s.decision == R.D6:
        play(env, legal_names(env)[0])
    assert s.is_terminal
    assert len(s.deck) == deck  # no Farm draw
    assert s.level[0][PEASANTRY] == 2  # 1 card + the bonus
    assert s.level[2][CHURCH] == 1  # alone with nothing committed: the bonus still (R-A38)
    assert s.result["final"] and len(s.result["vp"]) == 3
    assert env.unwrapped._game_over


# ============================================================================= population deck (§3.6)
def test_reshuffle_when_the_last_card_is_drawn():
    """§3.6, R-A23: drawing the last card shuffles the discard pile into a new deck at once (composition
    public); with an empty discard pile the remaining draws are lost."""
    env = position(3, seed=10, start_player=0, row=["farm:0", "monastery:0"])
    s = st(env)
    s.discard = [0] * 30
    extra = s.deck[:-2]
    s.deck = s.deck[-2:]
    for kind in extra:
        s.discard[kind] += 1
    play(env, "SLOT 0")  # draw 4: the second draw empties the deck, the discard pile becomes the deck
    assert s.reshuffles == 1 and sum(s.discard) == 0 and len(s.deck) == len(extra) - 2
    assert sum(s.reshuffle_comp) == len(extra)
    s.discard = [0] * 30
    lost = list(s.deck)
    s.deck = lost[:1]
    s.discard = [0] * 30
    for kind in lost[1:]:
        s.nun_row.append(kind)  # park them out of play for the check below (nothing to reshuffle)
    before = s.hand_size[1]
    s._rng = np.random.default_rng(0)
    s._draw(1, 4, s.hands[1])
    assert s.hand_size[1] == before and s.deck == []


# ============================================================================= scoring (§6)
def test_influence_ranks_and_the_example_of_6_1():
    """§6.1, R-A24: A 4 (stamp 7), B 4 (stamp 12), C 2, D 0 -> 10, 5, 2, 0; 2 players: 10 / 5 only."""
    level = [[0, 0, 4, 0, 0, 0], [0, 0, 4, 0, 0, 0], [0, 0, 2, 0, 0, 0], [0] * 6]
    stamp = [[0, 0, 7, 0, 0, 0], [0, 0, 12, 0, 0, 0], [0, 0, 3, 0, 0, 0], [0] * 6]
    out = influence_vp(level, stamp, (10, 5, 2))
    assert [row[2] for row in out] == [10, 5, 2, 0]
    assert [row[2] for row in influence_vp(level[:2], stamp[:2], (10, 5))] == [10, 5]
    assert [row[2] for row in influence_vp([[0, 0, 1, 0, 0, 0], [0] * 6], stamp[:2], (10, 5))] == [10, 0]


def test_gold_examples_of_6_5():
    """§6.5, R-A25, R-A27: the spec's five-player examples; two players: no second place, a tie 4 each."""
    assert gold_vp([3, 3, 1, 0, 0], 6, 3) == [4, 4, 0, 0, 0]
    assert gold_vp([4, 2, 2, 2, 0], 6, 3) == [6, 1, 1, 1, 0]
    assert gold_vp([4, 2, 2, 2, 2], 6, 3) == [6, 0, 0, 0, 0]
    assert gold_vp([2, 1, 0, 0, 0], 6, 3) == [6, 3, 0, 0, 0]
    assert gold_vp([0, 0, 0], 6, 3) == [0, 0, 0]
    assert gold_vp([3, 1], 6, 0) == [6, 0] and gold_vp([2, 2], 6, 0) == [4, 4]


def test_hand_and_special_majorities():
    """§6.3, §6.4, R-A26: sole most 2, tied most 1 each, nothing when nobody holds any."""
    assert majority([3, 1, 3]) == [1, 0, 1] and majority([0, 4, 1]) == [0, 2, 0] and majority([0, 0]) == [0, 0]


def scored(n, rats, nun_row, hands=None, options=None, influence=None, tokens=None):
    """A finished game from a last-round position where everybody enters slot 0 with nothing."""
    spec = dict(round=PLAYER_COUNT_TABLE[n]["rounds"] - 1, start_player=0, rats=rats, nun_row=nun_row,
                row=["monastery:0", "castle:0"] if n < 4 else ["monastery:0", "castle:0", "palace:0"])
    if hands is not None:
        spec["hands"] = hands
    if influence is not None:
        spec["influence"] = influence
    if tokens is not None:
        spec["point_tokens"] = tokens
    env = position(n, seed=12, options=options, **spec)
    play(env, *["SLOT 1"] * n)  # draw 4 each (Monastery copy 0)
    for _ in range(n):
        play(env, "SLOT 1", "STOP")
    assert st(env).is_terminal
    return env


def test_plague_check_and_winner_ties():
    """§6.7, §6.8, R-A28: rats > nuns dies (rats == nuns survives); the survivors' highest VP wins, ties by
    fewest rats, then shared."""
    row = ["church:4", "church:4", "magic:1", "royalty:0", "royalty:0"]  # 9 nuns
    influence = [[10, 0, 0, 0, 0, 0], [0, 10, 0, 0, 0, 0], [0] * 6]
    env = scored(3, [10, 9, 9], row, influence=influence)
    result = st(env).result
    assert result["nuns_in_row"] == 9 and result["survived"] == [False, True, True]
    assert result["winners"] == [1]
    env = scored(3, [3, 3, 2], row, influence=[[10, 0, 0, 0, 0, 0], [0, 10, 0, 0, 0, 0], [0, 0, 0, 0, 0, 10]])
    result = st(env).result
    vp = result["vp"]
    top = max(vp)
    tied = [p for p in range(3) if vp[p] == top]
    expected = [p for p in tied if result["rats"][p] == min(result["rats"][q] for q in tied)]
    assert result["winners"] == expected
    rewards = {a: r for a, r in env.rewards.items()}
    assert all((rewards[f"player_{p}"] > 0) == (p in expected and len(expected) == 1) for p in range(3))


def test_nobody_survives_and_the_variant():
    """§6.8, R-A29: nobody alive loses together; with all_dead_variant the fewest rats win, ties by VP."""
    row = ["church:0"] * 4 + ["magic:0"]
    env = scored(3, [5, 4, 4], row, influence=[[1, 0, 0, 0, 0, 0], [0] * 6, [0] * 6])
    assert st(env).result["winners"] == [] and set(st(env).result["outcome"]) == {"loss"}
    assert env.infos["player_0"]["winners"] == [] and set(env.rewards.values()) == {-1.0}  # all lose
    env = scored(3, [5, 4, 4], row, influence=[[0] * 6, [1, 0, 0, 0, 0, 0], [0] * 6],
                 options={"all_dead_variant": True})
    assert st(env).result["winners"] == [1] and env.infos["player_0"]["winners"] == ["player_1"]


def test_gold_scores_only_with_a_treasury_and_point_tokens_add_their_values():
    """§6.5, R-A27 (Gold scoring iff a Treasury is in the set); §6.2, R-A2 (point tokens)."""
    options = {"building_selection": "agreed", "agreed_set": {
        "farm": 5, "marketplace": 5, "monastery": 5, "castle": 5, "fortune_tellers_tent": 5, "treasury": 5}}
    row = ["church:4"] * 4 + ["magic:4"]
    env = scored(3, [1, 1, 1], row, hands=[["gold", "gold"], ["gold"], []], options=options, tokens=[2, 0, 1])
    result = st(env).result
    assert result["gold_scoring"] and result["gold"] == [6, 3, 0] and result["point_tokens"] == [2, 0, 1]
    env = scored(3, [1, 1, 1], row, hands=[["gold", "gold"], ["gold"], []],
                 options={"building_selection": "agreed"})
    assert not st(env).result["gold_scoring"] and st(env).result["gold"] == [0, 0, 0]


# ============================================================================= options
def test_population_choice_lowest_nun_and_full():
    """R-A31: ``lowest_nun`` moves the lowest-nun card of the class; ``full`` names class and nuns."""
    hands = [["church:4", "church:0", "church:2"], fillers(5), fillers(5)]
    env = position(3, seed=3, hands=hands, start_player=0, row=["monastery:3", "farm:3"],
                   options={"population_choice": "lowest_nun"})
    play(env, "SLOT 0", "SLOT 0", "SLOT 0", "SLOT 0", "CARD CHURCH")
    assert st(env).committed[0][CHURCH * 5 + 0] == 1
    env = position(3, seed=3, hands=hands, start_player=0, row=["monastery:3", "farm:3"],
                   options={"population_choice": "full"})
    play(env, "SLOT 0", "SLOT 0", "SLOT 0", "SLOT 0")
    assert "CARD CHURCH:2" in legal_names(env) and "CARD CHURCH:1" not in legal_names(env)
    play(env, "CARD CHURCH:2")
    assert st(env).committed[0][CHURCH * 5 + 2] == 1


def test_rat_discards_never_go_below_zero():
    """R-A7, R-A39: a supply rat discard at 0 rats does nothing."""
    env = position(3, seed=3, start_player=0, rats=[1, 0, 5], row=["monastery:3", "farm:3"])
    play(env, "SLOT 0", "SLOT 0", "SLOT 0")
    assert st(env).rats == [0, 0, 3]


def test_phase_b_draws_are_playable_and_pending_cards_are_not():
    """R-A37: cards drawn in phase B go straight into the hand; R-A12: cards gained while a slot resolves
    join the hand only at its step c (a Watchtower's t excludes them)."""
    env = position(3, seed=3, hands=[[], fillers(2), fillers(2)], start_player=0, row=["farm:0", "monastery:3"])
    play(env, "SLOT 0", "SLOT 1", "SLOT 1")
    assert st(env).hand_size[0] == 4
    play(env, "SLOT 0")
    assert len(legal_names(env)) > 1  # the drawn cards can be committed


def test_mask_known_peeks():
    """§8 D2/D8 with mask_known_peeks: positions already known are masked while an unknown one exists."""
    env = position(3, seed=3, start_player=0, row=["farm:1", "monastery:3"], options={"mask_known_peeks": True})
    play(env, "SLOT 0", "POS 3")
    s = st(env)
    s.peeked[1] = [True, True, True, False, True]
    s.peek_count[1] = [1, 1, 1, 0, 1]
    play(env, "SLOT 0")
    assert legal_names(env) == ["POS 3"]


def test_empty_slot_is_skipped():
    """R-A35: a revealed building nobody entered has no effect."""
    env = position(3, seed=3, start_player=0, row=["farm:3", "monastery:3"])
    play(env, "SLOT 0", "SLOT 0", "SLOT 0")
    deck = len(st(env).deck)
    play(env, "SLOT 1", "STOP", "SLOT 1", "STOP", "SLOT 1", "STOP")
    assert len(st(env).deck) == deck and st(env).round == 1


def test_auto_resolve_forced_skips_single_option_decisions():
    """§8.3: with auto_resolve_forced a decision with one legal option is applied by the env."""
    env = position(3, seed=4, hands=[[], [], []], start_player=0, row=["monastery:3", "castle:3"],
                   options={"auto_resolve_forced": True})
    play(env, "SLOT 0", "SLOT 0", "SLOT 0")
    # D3 has two slots; after entering, an empty hand leaves only STOP: applied automatically
    play(env, "SLOT 0")
    assert st(env).current_player == 1 and st(env).announced[0] == 0


def test_hidden_rats_and_hidden_building_set_stay_out_of_the_observation():
    """R-A30: rats_public=False shows only one's own rats; R-A32: a hidden building set exposes nothing
    derived from it (set, unseen cards, Gold scoring)."""
    env = make(4, seed=3, rats_public=False, building_set_public=False)
    layout = env.unwrapped.observer.layout
    view = layout.views(env.observe("player_0")["observation"])
    assert view["seats"][0][0] == 10 and all(view["seats"][r][0] == 0 for r in range(1, 4))
    assert not view["buildings"][0].any() and not view["buildings"][1].any()
    assert view["game"][14] == 0


def test_determinize_keeps_the_players_looks_and_gifts():
    """§7.5, determinize: a re-deal keeps the nun-row cards the player looked at and the cards it gave
    in a hidden transfer (while the receiver gave none), and the copy is consistent."""
    env = example_env()
    play(env, "SLOT 1", "SLOT 0", "POS 2", "SLOT 2", "SLOT 2", "SLOT 1", "CARD CHURCH", "CARD ROYALTY",
         "CARD MAGIC", "CARD MAGIC", "STOP", "SLOT 0", "CARD MAGIC", "CARD MAGIC", "CARD CHURCH", "STOP",
         "SLOT 2", "STOP", "SLOT 2", "CARD SWORD", "STOP", "POS 2", "POS 0", "CARD BOURGEOISIE")
    s = st(env)
    given = list(s.gifts[2][3])
    for seed in range(5):
        copy = env.unwrapped.determinize("player_1", seed=seed)
        assert copy.state_.nun_row[0] == s.nun_row[0] and copy.state_.nun_row[2] == s.nun_row[2]
        assert invariants(copy.game, copy.state_) == []
        copy2 = env.unwrapped.determinize("player_2", seed=seed)
        assert all(copy2.state_.pending[3][i] >= given[i] for i in range(30))
        assert copy2.state_.hands[2] == s.hands[2]


def test_building_actions_are_automatic_and_nothing_is_capped():
    """R-A16: actions are performed without asking (a Farm's draw is no decision); R-A33: no hand limit
    and no cap on influence levels."""
    hands = [fillers(14, CHURCH), fillers(5), fillers(5, MAGIC)]
    env = position(3, seed=13, hands=hands, start_player=0, row=["farm:3", "monastery:0"],
                   influence=[[0, 0, 30, 0, 0, 0], [0] * 6, [0] * 6])
    s = st(env)
    play(env, "SLOT 1", "SLOT 1", "SLOT 1")
    assert s.hand_size[0] == 18  # no hand limit
    play(env, "SLOT 1", *["CARD CHURCH"] * 14, "STOP", "SLOT 0", "STOP", "SLOT 0", "STOP")
    assert s.level[0][CHURCH] == 44 and s.decision in (R.D1, R.D3)  # Farm drew for seats 1 and 2 unasked
    assert s.hand_size[1] == 9 + 4 and s.hand_size[2] == 9 + 2
