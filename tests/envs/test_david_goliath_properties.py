"""Random-play property test: 2,000+ games across player counts with the rules' invariants."""

import numpy as np
import pytest

from hiddenhand.envs.david_goliath.rules import CARD_VALUE, HAND_SIZE, DavidGoliathGame, colour_scores, resolve_trick

GAMES_PER_COUNT = 410  # x 5 player counts = 2,050 games


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_random_games_keep_invariants(players):
    """Two players: the literal variant here, where every trick is the two players' (DG-5); the dummy
    variant has its own random-play test in test_david_goliath_dummy.py."""
    game = DavidGoliathGame(players, **({"two_player_variant": "literal"} if players == 2 else {}))
    in_play = np.zeros(90, np.int64)
    in_play[game.deck] = 1
    for seed in range(GAMES_PER_COUNT):
        rng = np.random.default_rng([players, seed])
        state = game.new_initial_state(rng)
        tricks_this_round = 0
        for round_index in range(game.rounds):
            assert state.round == round_index and state.tricks_played == 0
            for _ in range(HAND_SIZE):
                assert state.trick == [] and state.current_player == state.leader
                for position in range(players):
                    mask = state.legal_mask()
                    legal = np.flatnonzero(mask)
                    assert legal.size > 0 and mask.max() == 1
                    assert (mask <= state.hands[state.current_player]).all()
                    action = int(rng.choice(legal))
                    if position == players - 1:
                        taken_before = state.taken.copy()
                        totals_before = list(state.totals)
                        last_trick, last_leader = state.trick + [action], state.leader
                    state.apply(action, rng)
                    # each card in exactly one place: a hand, the trick, or taken this round
                    if not (position == players - 1 and state.tricks_played == 0):
                        located = state.hands.sum(0) + state.taken.sum(0)
                        located[state.trick] += 1
                        assert (located == in_play).all()
                tricks_this_round += 1
            # 15 tricks a round; scores equal a recomputation from the taken cards
            assert tricks_this_round == HAND_SIZE
            tricks_this_round = 0
            highest, lowest = resolve_trick([CARD_VALUE[c] for c in last_trick])
            for position, card in enumerate(last_trick):
                taker = lowest if position == highest else highest
                taken_before[(last_leader + taker) % players, card] = 1
            assert taken_before.sum() == len(game.deck)
            gained = [sum(colour_scores(np.flatnonzero(row))) for row in taken_before]
            assert [b - a for a, b in zip(totals_before, state.totals)] == gained
            assert state.round_colour_scores[-1] == [colour_scores(np.flatnonzero(r)) for r in taken_before]
        assert state.is_terminal and state.round == game.rounds
        assert state.totals.tolist() == np.sum(state.round_colour_scores, axis=(0, 2)).tolist()
