"""Bluffing statistics from the Koehandel research event log (cow trades).

The log (``env.unwrapped.events``, or the JSON Lines written by ``export_events``) is the
full-information record of every settled event; no observation ever contains it. These functions read
its cow trades and measure how agents bluff: padding offers with 0-value cards, how the challenged
player answers a given number of face-down cards, and who comes out ahead. Plain data in, plain data
out, so logs of many games can be pooled by agent name.

Agent names: an explicit ``seat_names`` (seat index -> name) wins; otherwise an event's ``"agents"``
key (a name per seat, e.g. ``export_events(path, agents=[...])``); otherwise ``player_<seat>``.

The log of an approximate re-dealt copy (``env.redeal_is_approximate``, docs/koehandel_rules.md
Appendix C) does not know the seats' cash around its events (``cash_before`` and ``cash_after`` hold
None): the cash change of such a trade is counted as unknown (``money_unknown``), never guessed; the
offers (drawn for that copy, like every hidden value of a re-deal) are counted as in any log.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from typing import Any

from .cards import DENOMINATIONS, RAT
from .config import game_data

ZERO = DENOMINATIONS.index(0)  # index of the 0-card in a money composition


def load_events(path: str | os.PathLike) -> list[dict[str, Any]]:
    """Events from a JSON Lines file (blank lines skipped); a corrupt line raises ``ValueError`` naming it."""
    events = []
    with open(path) as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                event = json.loads(line)
            except json.JSONDecodeError as error:
                raise ValueError(f"{path}, line {number}: not valid JSON ({error.msg})") from None
            if not isinstance(event, dict) or "kind" not in event:
                raise ValueError(f"{path}, line {number}: not an event (a JSON object with a 'kind' key)")
            events.append(event)
    return events


def _agent(event: dict[str, Any], seat: int, seat_names: Sequence[str] | dict[int, str] | None) -> str:
    if seat_names is not None:
        return str(seat_names[seat])
    if event.get("agents") is not None:
        return str(event["agents"][seat])
    return f"player_{seat}"


def _trades(events: Iterable[dict[str, Any]]) -> Iterable[dict[str, Any]]:
    return (event for event in events if event["kind"] == "trade")


def stake_worth(species: int, stake: int, animal_values: Sequence[int] | None = None) -> float:
    """Share of the quartet value at stake: value of species × stake / 4 (0 for rats)."""
    if species == RAT:
        return 0.0
    values = animal_values if animal_values is not None else game_data()["animal_values"]
    return values[species] * stake / 4


def trade_rows(events: Iterable[dict[str, Any]], seat_names: Sequence[str] | dict[int, str] | None = None,
               animal_values: Sequence[int] | None = None) -> list[dict[str, Any]]:
    """One record per offer laid in a cow trade (the challenger's offer and, if countered, the counter).

    Keys: ``game`` (the event's ``"game"`` key, if exported with one), ``seq``, ``turn``, ``round``
    (trade round 1 or 2), ``species``, ``stake``, ``stake_worth``, ``seat``, ``agent``, ``role``
    (challenger/challenged), ``opponent``, ``response`` (the challenged player's accept/counter in that
    round), ``cards``, ``value``, ``zero_cards``, ``padded`` (at least one 0-card), ``value_to_worth``
    (None for rats), ``outcome`` (the round from the offerer's side: won/lost/tie), ``trade_won`` and
    ``money`` (the offerer's cash change in that round). ``animal_values`` defaults to the shipped
    game data; pass ``env.unwrapped.game.cfg.animal_values`` if the games overrode it.
    """
    rows = []
    for event in _trades(events):
        c, d, species, stake = event["challenger"], event["challenged"], event["species"], event["stake"]
        worth = stake_worth(species, stake, animal_values)
        for number, trade_round in enumerate(event["rounds"], 1):
            offer_value, counter_value = trade_round["values"]
            winner = {"challenger": c, "challenged": d, "tie": None}[trade_round["result"]]
            offers = [(c, "challenger", trade_round["offer"], offer_value)]
            if trade_round["response"] == "counter":
                offers.append((d, "challenged", trade_round["counter"], counter_value))
            for seat, role, composition, value in offers:
                other = d if seat == c else c
                if trade_round["response"] == "accept":
                    money = -offer_value
                else:
                    money = (counter_value - offer_value) * (1 if seat == c else -1)
                cards = sum(composition)
                rows.append({
                    "game": event.get("game"), "seq": event["seq"], "turn": event["turn"], "round": number,
                    "species": species, "stake": stake, "stake_worth": worth,
                    "seat": seat, "agent": _agent(event, seat, seat_names), "role": role,
                    "opponent": _agent(event, other, seat_names), "response": trade_round["response"],
                    "cards": cards, "value": value, "zero_cards": composition[ZERO],
                    "padded": composition[ZERO] > 0, "value_to_worth": value / worth if worth else None,
                    "outcome": "tie" if winner is None else "won" if winner == seat else "lost",
                    "trade_won": event["winner"] == seat, "money": money,
                })
    return rows


def _rate(part: float, whole: float) -> float | None:
    return part / whole if whole else None


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def bluff_statistics(events: Iterable[dict[str, Any]], seat_names: Sequence[str] | dict[int, str] | None = None,
                     animal_values: Sequence[int] | None = None) -> dict[str, dict[str, Any]]:
    """Per agent name, over all cow trades in ``events``:

    - ``offers``, ``padding_rate`` (share of offers with a 0-card), ``mean_zero_share`` (0-cards / cards,
      non-empty offers), ``value_to_worth`` (total offered / total stake worth over the offers in
      animal trades: a ratio of means, so cheap species do not dominate it);
    - as the challenged player, over the responses that were a choice (not ``forced``): ``responses``,
      ``accept_rate``, ``counter_rate`` and ``by_cards_shown``
      (cards laid by the challenger -> ``seen``, ``accepts``, ``counters``, ``accept_rate``,
      ``counter_rate``);
    - ``challenges``, ``challenger_wins``, ``challenger_win_rate``;
    - ``trades`` (as either trader), ``trades_won``, ``money_won`` / ``money_lost`` (summed net cash
      gains / losses per trade) and ``net_money``, over the trades whose cash change the log knows;
      ``money_unknown``: the trades whose cash it does not (an approximate re-dealt copy's, None).

    A rate with nothing to count is None.
    """
    events = list(events)
    raw: dict[str, dict[str, Any]] = {}

    def entry(name: str) -> dict[str, Any]:
        return raw.setdefault(name, {"offers": 0, "padded": 0, "zero_shares": [], "offered": 0, "worth": 0.0,
                                     "shown": {}, "challenges": 0, "challenger_wins": 0, "trades": 0,
                                     "trades_won": 0, "money_won": 0, "money_lost": 0, "money_unknown": 0})

    for row in trade_rows(events, seat_names, animal_values):
        agent = entry(row["agent"])
        agent["offers"] += 1
        agent["padded"] += row["padded"]
        if row["cards"]:
            agent["zero_shares"].append(row["zero_cards"] / row["cards"])
        if row["stake_worth"]:
            agent["offered"] += row["value"]
            agent["worth"] += row["stake_worth"]
    for event in _trades(events):
        c, d = event["challenger"], event["challenged"]
        challenged = entry(_agent(event, d, seat_names))
        for trade_round in event["rounds"]:
            if trade_round.get("forced"):  # no money to counter with (or no choice): not a decision
                continue
            shown = challenged["shown"].setdefault(sum(trade_round["offer"]), {"accept": 0, "counter": 0})
            shown[trade_round["response"]] += 1
        challenger = entry(_agent(event, c, seat_names))
        challenger["challenges"] += 1
        challenger["challenger_wins"] += event["winner"] == c
        for seat in (c, d):
            agent = entry(_agent(event, seat, seat_names))
            agent["trades"] += 1
            agent["trades_won"] += event["winner"] == seat
            before, after = event["cash_before"][seat], event["cash_after"][seat]
            if before is None or after is None:
                agent["money_unknown"] += 1
                continue
            agent["money_won"] += max(after - before, 0)
            agent["money_lost"] += max(before - after, 0)

    stats = {}
    for name in sorted(raw):
        agent = raw[name]
        by_cards = {}
        for cards in sorted(agent["shown"]):
            accepts, counters = agent["shown"][cards]["accept"], agent["shown"][cards]["counter"]
            seen = accepts + counters
            by_cards[cards] = {"seen": seen, "accepts": accepts, "counters": counters,
                               "accept_rate": accepts / seen, "counter_rate": counters / seen}
        responses = sum(row["seen"] for row in by_cards.values())
        accepts = sum(row["accepts"] for row in by_cards.values())
        stats[name] = {
            "offers": agent["offers"],
            "padding_rate": _rate(agent["padded"], agent["offers"]),
            "mean_zero_share": _mean(agent["zero_shares"]),
            "value_to_worth": _rate(agent["offered"], agent["worth"]),
            "responses": responses,
            "accept_rate": _rate(accepts, responses),
            "counter_rate": _rate(responses - accepts, responses),
            "by_cards_shown": by_cards,
            "challenges": agent["challenges"],
            "challenger_wins": agent["challenger_wins"],
            "challenger_win_rate": _rate(agent["challenger_wins"], agent["challenges"]),
            "trades": agent["trades"],
            "trades_won": agent["trades_won"],
            "money_won": agent["money_won"],
            "money_lost": agent["money_lost"],
            "net_money": agent["money_won"] - agent["money_lost"],
            "money_unknown": agent["money_unknown"],
        }
    return stats


def _percent(rate: float | None) -> str:
    return "-" if rate is None else f"{rate:.0%}"


def format_table(stats: dict[str, dict[str, Any]]) -> str:
    """The statistics as a text table (a note names the trades whose cash is unknown, left out of won, lost
    and net), then the challenged players' accept rates by cards shown (one line per card count, one
    column per agent)."""
    width = max([len("agent")] + [len(name) for name in stats]) + 2
    lines = [f"{'agent':<{width}}{'offers':>7}{'padded':>8}{'0-share':>9}{'value/worth':>13}{'accept':>8}"
             f"{'C wins':>8}{'trades':>8}{'won':>8}{'lost':>8}{'net':>8}"]
    for name, row in stats.items():
        ratio = row["value_to_worth"]
        lines.append(
            f"{name:<{width}}{row['offers']:>7}{_percent(row['padding_rate']):>8}"
            f"{_percent(row['mean_zero_share']):>9}{'-' if ratio is None else f'{ratio:.2f}':>13}"
            f"{_percent(row['accept_rate']):>8}{_percent(row['challenger_win_rate']):>8}{row['trades']:>8}"
            f"{row['money_won']:>8}{row['money_lost']:>8}{row['net_money']:>8}"
        )
    unknown = {name: row["money_unknown"] for name, row in stats.items() if row["money_unknown"]}
    if unknown:
        lines.append("won, lost and net leave out the trades whose cash the log does not know (an approximate "
                     "re-deal): " + ", ".join(f"{name} {count}" for name, count in unknown.items()))
    counts = sorted({cards for row in stats.values() for cards in row["by_cards_shown"]})
    if counts:
        column = max(len(name) for name in stats) + 2
        lines += ["", "accept rate as the challenged player by cards shown (decisions)",
                  f"{'cards':>5}" + "".join(f"{name:>{max(column, 12)}}" for name in stats)]
        for cards in counts:
            cells = []
            for row in stats.values():
                shown = row["by_cards_shown"].get(cards)
                cells.append(f"{_percent(shown['accept_rate'])} ({shown['seen']})" if shown else "-")
            lines.append(f"{cards:>5}" + "".join(f"{cell:>{max(column, 12)}}" for cell in cells))
    return "\n".join(lines)


def plot_bluff_statistics(stats: dict[str, dict[str, Any]], path: str | os.PathLike | None = None):
    """A 2×2 matplotlib figure (padding rate, accept rate by cards shown, challenger win rate, net trade
    money), saved to ``path`` if given. Built without pyplot, so any backend (Agg included) works."""
    from matplotlib.figure import Figure

    names = list(stats)
    nan = float("nan")
    figure = Figure(figsize=(9, 6), layout="constrained")
    padding, accept, wins, money = figure.subplots(2, 2).flat
    padding.bar(names, [nan if stats[n]["padding_rate"] is None else stats[n]["padding_rate"] for n in names])
    padding.set(title="offers padded with 0-cards", ylabel="share of offers", ylim=(0, 1))
    for name in names:
        shown = stats[name]["by_cards_shown"]
        accept.plot(list(shown), [row["accept_rate"] for row in shown.values()], marker="o", label=name)
    accept.set(title="challenged: accept rate by cards shown", xlabel="cards laid by the challenger",
               ylabel="accept rate", ylim=(0, 1))
    if names:
        accept.legend(fontsize="small")
    rates = [stats[n]["challenger_win_rate"] for n in names]
    wins.bar(names, [nan if rate is None else rate for rate in rates])
    wins.set(title="challenger win rate", ylabel="share of own challenges won", ylim=(0, 1))
    money.bar(names, [stats[n]["net_money"] for n in names])
    money.axhline(0, color="k", linewidth=0.8)
    money.set(title="net money in cow trades", ylabel="cash")
    for axes in (padding, wins, money):
        axes.tick_params(axis="x", labelrotation=20)
    if path is not None:
        figure.savefig(path)
    return figure
