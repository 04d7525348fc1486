"""The exploitability tables and plot of docs/openspiel.md, recomputed:

    python -m hiddenhand.openspiel.report [--iterations 1000] [--plot docs/img/openspiel_exploitability.png]

For each tiny configuration: CFR's and MCCFR's NashConv against iterations and CPU time, and the NashConv
of uniform random play and of each agent that can be asked at every information state (heuristics, the
search agents, shipped trained agents; in the cow trade also the Koehandel agents, through Koehandel
positions). CPU seconds: the solver's iterations, or the time to ask an agent at every information state
and measure its NashConv.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from typing import Any

from ..agents import env_options_for, load
from ..envs import koehandel_v0
from . import load_tiny
from .duel import KoehandelTradePolicy
from .policies import agents_policy
from .solve import Convergence, nash_conv, solve, uniform_nash_conv

#: A bigger duel for the sampling solver: 10 money cards (0 0 0 10 10 10 10 20 50 50), 4 to each trader.
BIGGER_DUEL = {"money": [3, 4, 1, 2, 0, 0, 0], "hand_sizes": [4, 4]}
#: Agents measured on each tiny game.
DG_AGENTS = ("heuristic", "pimc", "ismcts", "david_goliath_2p")
DUEL_AGENTS = ("heuristic",)
KOEHANDEL_AGENTS = (("heuristic", 4), ("koehandel_2p", 2), ("koehandel_4p", 4))


def measure(label: str, build: Callable[[], Any], game: Any) -> dict[str, Any]:
    """A row: an agent's policy built and measured on ``game`` (NashConv, CPU seconds)."""
    start = time.process_time()
    value = nash_conv(game, build())
    return {"policy": label, "nash_conv": value, "cpu": time.process_time() - start}


def koehandel_policy(game: Any, name: str, players: int, samples: int = 4) -> KoehandelTradePolicy:
    """A Koehandel agent (its training options, ``players`` seats) playing the duel ``game``."""
    env = koehandel_v0.env(num_players=players, **env_options_for([name]))
    env.reset(seed=0)
    return KoehandelTradePolicy(game, load(name, env.unwrapped.game, seed=0), env, samples)


def agent_rows(name: str, game: Any) -> list[dict[str, Any]]:
    """Uniform random play and every agent of ``name``'s tiny game, measured."""
    rows = [{"policy": "uniform random", "nash_conv": uniform_nash_conv(game), "cpu": 0.0}]
    agents = DG_AGENTS if name == "david_goliath" else DUEL_AGENTS
    for agent in agents:
        label = f"{agent} ({name})" if name == "cow_trade" else agent
        rows.append(measure(label, lambda agent=agent: agents_policy(game, lambda e: load(agent, e, seed=0)), game))
    if name == "cow_trade":
        for agent, players in KOEHANDEL_AGENTS:
            rows.append(measure(f"{agent} (Koehandel, {players}p)",
                                lambda a=agent, p=players: koehandel_policy(game, a, p), game))
    return rows


def table(rows: Sequence[dict[str, Any]], runs: Sequence[Convergence], players: int = 2) -> str:
    """A markdown table: solvers (at each checkpoint) and agents, NashConv, exploitability, CPU seconds."""
    lines = ["| policy | iterations | NashConv | exploitability | CPU s |", "|---|---:|---:|---:|---:|"]
    for run in runs:
        for iterations, cpu, value in run.points:
            lines.append(f"| {run.algorithm.upper()} | {iterations:,} | {value:.4g} | {value / players:.4g} "
                         f"| {cpu:.1f} |")
    for row in rows:
        value = row["nash_conv"]
        lines.append(f"| {row['policy']} | | {value:.4g} | {value / players:.4g} | {row['cpu']:.1f} |")
    return "\n".join(lines)


def plot(panels: Sequence[tuple[str, Sequence[Convergence], Sequence[dict[str, Any]]]], path: Any = None):
    """NashConv against iterations (log-log), one panel per game: the solvers' curves, each agent a
    horizontal line. Saved to ``path`` if given; built without pyplot."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(5 * len(panels), 4), layout="constrained")
    for axes, (title, runs, rows) in zip(figure.subplots(1, len(panels), squeeze=False)[0], panels):
        for run in runs:
            axes.plot([p[0] for p in run.points], [p[2] for p in run.points], marker="o", label=run.algorithm.upper())
        for k, row in enumerate(rows):
            axes.axhline(row["nash_conv"], linestyle="--", color=f"C{k + len(runs)}", label=row["policy"])
        axes.set(title=title, xscale="log", yscale="log", xlabel="iterations", ylabel="NashConv")
        axes.legend(fontsize="x-small")
    if path is not None:
        figure.savefig(path, dpi=110)
    return figure


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=1000, help="CFR iterations (MCCFR: 20 times as many)")
    parser.add_argument("--plot", default=None, help="write the figure here")
    args = parser.parse_args(argv)
    marks = [m for m in (1, 3, 10, 30, 100, 300, 1000, 3000, 10_000) if m < args.iterations]
    panels = []
    for name in ("david_goliath", "cow_trade"):
        game = load_tiny(name)
        runs = [solve(game, "cfr", args.iterations, marks),
                solve(game, "mccfr", 20 * args.iterations, [20 * m for m in marks], seed=0)]
        rows = agent_rows(name, game)
        print(f"\n{game}\n\n{table(rows, runs)}")
        panels.append((name, runs, rows))
    bigger = load_tiny("cow_trade", **BIGGER_DUEL)
    few = [m for m in marks if m <= args.iterations // 10]
    runs = [solve(bigger, "cfr", args.iterations // 10, few),
            solve(bigger, "mccfr", 20 * args.iterations, [20 * m for m in marks], seed=0)]
    rows = [{"policy": "uniform random", "nash_conv": uniform_nash_conv(bigger), "cpu": 0.0}]
    print(f"\n{bigger}\n\n{table(rows, runs)}")
    panels.append(("cow_trade, 10-card pool, 4 + 4 cards", runs, rows))
    if args.plot:
        plot(panels, args.plot)


if __name__ == "__main__":
    main()


def markdown_table(rows: dict[str, dict[str, Any]], digits: int = 2, index: str = "") -> str:
    """``rows`` (row name -> column -> value) as a markdown table; numbers rounded to ``digits``, missing
    cells and None as "-"."""
    columns = list(dict.fromkeys(column for row in rows.values() for column in row))

    def cell(value: Any) -> str:
        if value is None:
            return "-"
        return f"{value:.{digits}f}" if isinstance(value, float) else str(value)

    lines = [f"| {index} | " + " | ".join(columns) + " |", "|---" * (len(columns) + 1) + "|"]
    lines += [f"| {name} | " + " | ".join(cell(row.get(column)) for column in columns) + " |"
              for name, row in rows.items()]
    return "\n".join(lines)
