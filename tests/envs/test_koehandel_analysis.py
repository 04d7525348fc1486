"""Koehandel bluffing analysis: known answers on hand-written trades (docs/koehandel_rules.md §7.6), consistency on the
event logs of seeded random games, JSON Lines round trip and corrupt input."""

import json

import pytest

from hiddenhand.agents import load
from hiddenhand.agents.tournament import play_game
from hiddenhand.envs import koehandel_v0
from hiddenhand.envs.koehandel import sampler
from hiddenhand.envs.koehandel.analysis import (
    bluff_statistics,
    format_table,
    load_events,
    plot_bluff_statistics,
    trade_rows,
)
from playing import advance

GOAT, COW, RAT = 5, 8, 10
VALUES = (10, 40, 90, 160, 250, 350, 500, 650, 800, 1000)


def money(**cards):
    """A money composition from counts such as ``z=2, d10=2`` (z is the 0-card)."""
    names = ("z", "d10", "d20", "d50", "d100", "d200", "d500")
    return [cards.get(name, 0) for name in names]


def trade(seq, challenger, challenged, species, stake, rounds, winner, cash_before, cash_after, **extra):
    return {"seq": seq, "kind": "trade", "turn": seq, "challenger": challenger, "challenged": challenged,
            "players": [challenger, challenged], "species": species, "stake": stake, "rounds": rounds,
            "winner": winner, "final_phase": False, "cash_before": cash_before, "cash_after": cash_after, **extra}


def countered(offer, counter, result):
    values = [10 * offer[1] + 20 * offer[2] + 50 * offer[3], 10 * counter[1] + 20 * counter[2] + 50 * counter[3]]
    return {"response": "counter", "offer": offer, "counter": counter, "offer_cards": sum(offer),
            "counter_cards": sum(counter), "values": values, "result": result}


# §7.6 example 3: C (seat 0, 3 goats) offers {0, 0, 10, 10}; D (seat 1) accepts.
ACCEPTED_BLUFF = trade(1, 0, 1, GOAT, 1, [
    {"response": "accept", "offer": money(z=2, d10=2), "counter": None, "offer_cards": 4, "counter_cards": 0,
     "values": [20, None], "result": "challenger"}], 0, [100, 100, 50, 50], [80, 120, 50, 50])
# §7.6 example 1: C {50, 10, 0} (60) against D {50, 20} (70); D wins.
COUNTERED = trade(2, 2, 3, 3, 1, [countered(money(z=1, d10=1, d50=1), money(d20=1, d50=1), "challenged")],
                  3, [50, 50, 100, 100], [50, 50, 110, 90])
# §7.6 example 2: double tie over 2 cows each; C wins both.
DOUBLE_TIE = trade(3, 1, 0, COW, 2, [countered(money(d50=1), money(d10=1, d20=2), "tie"),
                                     countered(money(d10=1, d20=2), money(d50=1), "tie")],
                   1, [90, 90, 0, 0], [90, 90, 0, 0])
# §7.7: rat trade, C {20, 10} against D {10, 10, 0}; 30 > 20, C wins.
RAT_TRADE = trade(4, 2, 1, RAT, 1, [countered(money(d10=1, d20=1), money(z=1, d10=2), "challenger")],
                  2, [0, 100, 100, 0], [0, 110, 90, 0])
AUCTION = {"seq": 5, "kind": "auction", "turn": 5, "species": 0, "players": [0, 1, 2, 3],
           "cash_before": [0, 0, 0, 0], "cash_after": [0, 0, 0, 0]}
EVENTS = [ACCEPTED_BLUFF, COUNTERED, DOUBLE_TIE, RAT_TRADE, AUCTION]


def test_accepted_bluff_row():
    (row,) = trade_rows([ACCEPTED_BLUFF], animal_values=VALUES)
    assert row == {
        "game": None, "seq": 1, "turn": 1, "round": 1, "species": GOAT, "stake": 1, "stake_worth": 87.5,
        "seat": 0, "agent": "player_0", "role": "challenger", "opponent": "player_1", "response": "accept",
        "cards": 4, "value": 20, "zero_cards": 2, "padded": True, "value_to_worth": 20 / 87.5,
        "outcome": "won", "trade_won": True, "money": -20,
    }


def test_countered_and_tied_rows():
    rows = trade_rows([COUNTERED, DOUBLE_TIE, RAT_TRADE, AUCTION], animal_values=VALUES)
    assert [(r["seq"], r["round"], r["seat"], r["role"]) for r in rows] == [
        (2, 1, 2, "challenger"), (2, 1, 3, "challenged"),
        (3, 1, 1, "challenger"), (3, 1, 0, "challenged"), (3, 2, 1, "challenger"), (3, 2, 0, "challenged"),
        (4, 1, 2, "challenger"), (4, 1, 1, "challenged")]
    offer, counter = rows[0], rows[1]
    assert (offer["cards"], offer["value"], offer["zero_cards"], offer["padded"]) == (3, 60, 1, True)
    assert (counter["cards"], counter["value"], counter["padded"]) == (2, 70, False)
    assert (offer["outcome"], offer["money"], counter["outcome"], counter["money"]) == ("lost", 10, "won", -10)
    assert offer["stake_worth"] == VALUES[3] / 4
    tie = rows[2:6]
    assert all(r["outcome"] == "tie" and r["stake_worth"] == 400 for r in tie)
    assert [r["trade_won"] for r in tie] == [True, False, True, False]
    assert [r["money"] for r in tie] == [0, 0, 0, 0]
    rat_offer, rat_counter = rows[6:]
    assert rat_offer["stake_worth"] == 0 and rat_offer["value_to_worth"] is None
    assert (rat_offer["outcome"], rat_counter["padded"], rat_counter["zero_cards"]) == ("won", True, 1)


def test_statistics_known_answers():
    stats = bluff_statistics(EVENTS, animal_values=VALUES)
    assert list(stats) == ["player_0", "player_1", "player_2", "player_3"]
    p0, p1, p2, p3 = stats.values()
    # player_0: the accepted bluff (C), then the counters in the double tie (D)
    assert (p0["offers"], p0["padding_rate"], p0["challenges"], p0["challenger_win_rate"]) == (3, 1 / 3, 1, 1.0)
    assert p0["mean_zero_share"] == pytest.approx(0.5 / 3)
    assert p0["value_to_worth"] == pytest.approx((20 + 50 + 50) / (87.5 + 400 + 400))
    assert p0["by_cards_shown"] == {1: {"seen": 1, "accepts": 0, "counters": 1, "accept_rate": 0.0,
                                        "counter_rate": 1.0},
                                    3: {"seen": 1, "accepts": 0, "counters": 1, "accept_rate": 0.0,
                                        "counter_rate": 1.0}}
    assert (p0["trades"], p0["trades_won"], p0["money_won"], p0["money_lost"], p0["net_money"]) == (2, 1, 0, 20, -20)
    # player_1 accepted the 4-card bluff, won the double tie as C, and lost the rat trade as D
    assert p1["by_cards_shown"] == {4: {"seen": 1, "accepts": 1, "counters": 0, "accept_rate": 1.0,
                                        "counter_rate": 0.0},
                                    2: {"seen": 1, "accepts": 0, "counters": 1, "accept_rate": 0.0,
                                        "counter_rate": 1.0}}
    assert (p1["responses"], p1["accept_rate"], p1["counter_rate"]) == (2, 0.5, 0.5)
    assert (p1["trades"], p1["trades_won"], p1["money_won"], p1["money_lost"], p1["net_money"]) == (3, 1, 30, 0, 30)
    assert p1["value_to_worth"] == pytest.approx(100 / 800)  # the rat counter has no stake worth
    assert (p2["challenges"], p2["challenger_wins"], p2["challenger_win_rate"], p2["net_money"]) == (2, 1, 0.5, 0)
    assert (p2["responses"], p2["accept_rate"]) == (0, None)
    assert (p3["challenges"], p3["challenger_win_rate"], p3["padding_rate"], p3["net_money"]) == (0, None, 0.0, -10)
    assert sum(row["net_money"] for row in stats.values()) == 0


def test_names_from_seat_names_and_agents_key():
    first = {**ACCEPTED_BLUFF, "agents": ["bluffer", "caller", "x", "y"]}
    second = {**ACCEPTED_BLUFF, "seq": 9, "agents": ["caller", "bluffer", "x", "y"]}  # seats swapped
    stats = bluff_statistics([first, second], animal_values=VALUES)
    assert list(stats) == ["bluffer", "caller"]
    assert stats["bluffer"]["offers"] == 1 and stats["bluffer"]["challenges"] == 1
    assert stats["bluffer"]["by_cards_shown"][4]["accepts"] == 1 and stats["caller"]["offers"] == 1
    assert stats["bluffer"]["net_money"] == stats["caller"]["net_money"] == 0
    named = bluff_statistics([first], seat_names={0: "alice", 1: "bob"}, animal_values=VALUES)
    assert list(named) == ["alice", "bob"]
    rows = trade_rows([first], seat_names=["p", "q", "r", "s"], animal_values=VALUES)
    assert (rows[0]["agent"], rows[0]["opponent"]) == ("p", "q")


def test_table_and_plot(tmp_path):
    stats = bluff_statistics(EVENTS, animal_values=VALUES)
    table = format_table(stats)
    assert all(name in table for name in stats)
    by_cards = table.split("by cards shown")[1].splitlines()
    assert by_cards[2].split() == ["1", "0%", "(1)", "-", "-", "-"]
    assert by_cards[4].split() == ["3", "0%", "(1)", "-", "-", "0%", "(1)"]
    assert by_cards[5].split() == ["4", "-", "100%", "(1)", "-", "-"]
    pytest.importorskip("matplotlib")
    figure = plot_bluff_statistics(stats, tmp_path / "bluff.png")
    assert len(figure.axes) == 4 and (tmp_path / "bluff.png").stat().st_size > 0


def test_unknown_cash_is_left_out_of_the_money_and_counted():
    """Appendix C: an approximate re-dealt copy's log holds None for every seat's cash around its events.
    Its trades count everywhere but in money won, lost and net, which count them as ``money_unknown``."""
    unknown = {**COUNTERED, "cash_before": [None] * 4, "cash_after": [None] * 4}
    stats = bluff_statistics([ACCEPTED_BLUFF, unknown], animal_values=VALUES)
    p2, p3 = stats["player_2"], stats["player_3"]
    assert (p2["trades"], p2["challenges"], p2["offers"], p2["padding_rate"]) == (1, 1, 1, 1.0)
    assert (p3["trades"], p3["trades_won"], p3["responses"]) == (1, 1, 1)
    for row in (p2, p3):
        assert (row["money_won"], row["money_lost"], row["net_money"], row["money_unknown"]) == (0, 0, 0, 1)
    assert stats["player_0"]["money_unknown"] == 0 and stats["player_0"]["net_money"] == -20
    assert "leave out the trades whose cash the log does not know" in format_table(stats)
    assert "does not know" not in format_table(bluff_statistics(EVENTS, animal_values=VALUES))


def test_an_approximate_copys_log_is_analysed(monkeypatch):
    """``env.redeal_is_approximate`` (Appendix C): the analysis of such a copy's log failed on its unknown
    cash; every trade's cash change is now counted as unknown, the rest as in any log."""
    env = koehandel_v0.env(num_players=4)
    env.reset(seed=1)
    advance(env, 600, 1)
    monkeypatch.setattr(sampler, "WORK_BUDGET", 0)
    copy = env.unwrapped.determinize("player_0", seed=0)
    assert copy.redeal_is_approximate
    trades = [event for event in copy.events if event["kind"] == "trade"]
    stats = bluff_statistics(copy.events)
    assert trades and sum(row["money_unknown"] for row in stats.values()) == 2 * len(trades)
    assert sum(row["trades"] for row in stats.values()) == 2 * len(trades)
    assert all(row["money_won"] == row["money_lost"] == 0 for row in stats.values())
    assert len(trade_rows(copy.events)) == len(trade_rows(env.unwrapped.events))


def test_empty_log():
    assert trade_rows([]) == [] and bluff_statistics([AUCTION]) == {}
    assert format_table({}).splitlines()[0].startswith("agent")


def test_load_events_round_trip_and_corrupt_lines(tmp_path):
    path = tmp_path / "events.jsonl"
    path.write_text("".join(json.dumps(event) + "\n" for event in EVENTS) + "\n")
    assert load_events(path) == EVENTS
    path.write_text(json.dumps(AUCTION) + "\n" + '{"seq": 2, "kind": "tra\n')
    with pytest.raises(ValueError, match=r"line 2: not valid JSON"):
        load_events(path)
    path.write_text("[1, 2]\n")
    with pytest.raises(ValueError, match=r"line 1: not an event"):
        load_events(path)


@pytest.fixture(scope="module")
def random_logs(tmp_path_factory):
    """Event logs of a few seeded random games (4 and 2 players), exported and loaded back."""
    path = tmp_path_factory.mktemp("logs") / "random.jsonl"
    lines = 0
    for game, players in enumerate([4, 4, 4, 2, 2]):
        env = koehandel_v0.env(num_players=players)
        agents = [load("random", env.unwrapped.game, seed) for seed in range(players)]
        play_game(env, agents, seed=game)
        names = [f"random_{seat % 2}" for seat in range(players)]
        lines += env.unwrapped.export_events(path, append=game > 0, game=game, agents=names)
    events = load_events(path)
    assert len(events) == lines
    return events


def test_random_games_rows_are_consistent(random_logs):
    trades = [event for event in random_logs if event["kind"] == "trade"]
    assert len(trades) > 20
    rows = trade_rows(random_logs)
    for event in trades:
        c, d = event["challenger"], event["challenged"]
        mine = [row for row in rows if (row["game"], row["seq"]) == (event["game"], event["seq"])]
        assert len(mine) == sum(1 + (r["response"] == "counter") for r in event["rounds"])
        change = [after - before for before, after in zip(event["cash_before"], event["cash_after"])]
        assert change[c] + change[d] == 0
        assert all(change[seat] == 0 for seat in range(len(change)) if seat not in (c, d))
        assert sum(row["money"] for row in mine if row["seat"] == c) == change[c]
        for row in mine:
            assert 0 <= row["zero_cards"] <= row["cards"] and row["padded"] == (row["zero_cards"] > 0)
            assert row["trade_won"] == (event["winner"] == row["seat"])


def test_random_games_statistics_add_up(random_logs):
    trades = [event for event in random_logs if event["kind"] == "trade"]
    rows = trade_rows(random_logs)
    stats = bluff_statistics(random_logs)
    assert set(stats) == {"random_0", "random_1"}
    assert sum(s["offers"] for s in stats.values()) == len(rows)
    assert sum(s["challenges"] for s in stats.values()) == len(trades)
    assert sum(s["trades"] for s in stats.values()) == 2 * len(trades)
    assert sum(s["responses"] for s in stats.values()) == sum(
        not rnd["forced"] for event in trades for rnd in event["rounds"])
    assert sum(s["net_money"] for s in stats.values()) == 0
    for s in stats.values():
        for key in ("padding_rate", "mean_zero_share", "accept_rate", "counter_rate", "challenger_win_rate"):
            assert s[key] is None or 0 <= s[key] <= 1
        assert s["responses"] == sum(shown["seen"] for shown in s["by_cards_shown"].values())
        for shown in s["by_cards_shown"].values():
            assert shown["seen"] == shown["accepts"] + shown["counters"] > 0
            assert shown["accept_rate"] + shown["counter_rate"] == pytest.approx(1)
        assert s["net_money"] == s["money_won"] - s["money_lost"]
        assert s["challenger_wins"] <= s["challenges"] and s["trades_won"] <= s["trades"]
