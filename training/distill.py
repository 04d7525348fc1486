"""Distil an agent's play into a network: fit an MLP to one agent's moves in recorded games.

    python -m hiddenhand evaluate david_goliath --players 3 --agents "ismcts:iterations=240,heuristic,heuristic" \\
        --games 2400 --out runs/dg3_ismcts
    python -m hiddenhand distill runs/dg3_ismcts/records.json --agent ismcts:iterations=240 \\
        --env card_features=true --env trick_outlook=true --out runs/dg3_distill/agent.npz

The games are the records an evaluation writes (``records.json``: env seed, line-up and actions of every
game), so they are played in parallel, by any machine, against the opponents the network will meet, and
several files can be fitted together (their teachers may differ: ``--agent`` repeats). Each game is replayed
(its seed and actions give back every observation, with the observation options the network asks for; a game
that does not replay to its recorded scores is an error) and the network learns the agent's moves where it had
a choice: masked cross-entropy, the last ``held_out`` share of the games kept aside, and the epoch that agrees
best with them kept (``keep="best"``) or the last one (``keep="last"``: with a noisy teacher, such as ISMCTS at
a small budget, agreement with held-out moves is flat and later epochs play better). The result is a numpy
agent file (``load(path)``) with a model card beside it.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from hiddenhand.agents import Agent, play_decisions, save_policy
from hiddenhand.agents.tournament import load_records
from hiddenhand.envs import make as make_env
from hiddenhand.envs.core.game import INPUT_TRANSFORMS
from hiddenhand.training.config import parse_overrides

from .runs import library_versions, write_model_card


#: Which epoch's weights :func:`fit` keeps: the best on held-out games, or the last.
KEEP = ("best", "last")


@dataclass(frozen=True)
class DistillConfig:
    agents: tuple[str, ...]
    env: dict
    hidden: tuple[int, ...] = (256, 256)
    epochs: int = 25
    learning_rate: float = 1e-3
    batch_size: int = 512
    held_out: float = 0.1
    keep: str = "best"
    seed: int = 0


class Recorded(Agent):
    """Plays a recorded game's actions in turn, for every seat (an action the game refuses raises there)."""

    def __init__(self, history: list[int], game: str):
        self._actions = iter(history)
        self._game = game

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        action = next(self._actions, None)
        if action is None:
            raise ValueError(f"{self._game}'s history ends before the game does")
        return action


def positions(paths: list[str | Path], agents: tuple[str, ...],
              env_options: dict) -> tuple[dict[str, np.ndarray], list[int]]:
    """Policy inputs, masks and moves of the seats played by any of ``agents`` (line-up names: teachers may
    differ between files, e.g. two search budgets) where they had a choice, and how many each game gave."""
    rows: dict[str, list] = {"observations": [], "masks": [], "actions": []}
    per_game: list[int] = []
    for path in paths:
        data = load_records(path)
        env = make_env(data["game"], num_players=data["num_players"], **{**data["env_options"], **env_options})
        raw = env.unwrapped
        transform = INPUT_TRANSFORMS[raw.observer.policy_input]
        for index, record in enumerate(data["records"]):
            seats = {raw.possible_agents[seat] for seat, name in enumerate(record["lineup"]) if name in agents}
            if not seats:
                raise ValueError(f"{path}: game {index} has no seat played by {' or '.join(map(repr, agents))} "
                                 f"(line-up {record['lineup']})")
            before = len(rows["actions"])
            env.reset(seed=record["seed"])
            recorded = Recorded(record["history"], f"{path}: game {index}")
            for name, observation, action in play_decisions(env, [recorded] * len(raw.possible_agents)):
                if name in seats and observation["action_mask"].sum() > 1:
                    rows["observations"].append(transform(observation["observation"]))
                    rows["masks"].append(observation["action_mask"].astype(bool))
                    rows["actions"].append(action)
            if raw.state_.scores() != record["scores"]:
                raise ValueError(f"{path}: game {index} does not replay to its recorded scores (options that "
                                 f"change the rules? {env_options})")
            per_game.append(len(rows["actions"]) - before)
    return {key: np.asarray(value) for key, value in rows.items()}, per_game


def fit(data: dict[str, np.ndarray], per_game: list[int], config: DistillConfig) -> tuple[list, dict[str, Any]]:
    """An MLP (tanh) fitted to the moves; returns its layers as (weight, bias) arrays and a report."""
    import torch

    if config.keep not in KEEP:
        raise ValueError(f"keep={config.keep!r}: expected one of {', '.join(KEEP)}")
    torch.manual_seed(config.seed)
    split = sum(per_game[:len(per_game) - max(1, round(config.held_out * len(per_game)))])
    if not 0 < split < len(data["actions"]):
        raise ValueError(f"too few games to hold {config.held_out:.0%} out: {len(per_game)} games")
    inputs, masks = torch.as_tensor(data["observations"]), torch.as_tensor(data["masks"])
    actions = torch.as_tensor(data["actions"], dtype=torch.int64)
    sizes = [inputs.shape[1], *config.hidden, masks.shape[1]]
    layers: list[torch.nn.Module] = []
    for i in range(len(sizes) - 1):
        layers += [torch.nn.Linear(sizes[i], sizes[i + 1]), torch.nn.Tanh()]
    model = torch.nn.Sequential(*layers[:-1])
    optimizer = torch.optim.Adam(model.parameters(), lr=config.learning_rate)

    def agreement(rows: slice) -> float:
        with torch.no_grad():
            chosen = model(inputs[rows]).masked_fill(~masks[rows], -torch.inf).argmax(1)
        return (chosen == actions[rows]).float().mean().item()

    best: tuple[float, int, list] = (-1.0, 0, [])
    generator = torch.Generator().manual_seed(config.seed)
    for epoch in range(1, config.epochs + 1):
        order = torch.randperm(split, generator=generator)
        for start in range(0, split, config.batch_size):
            batch = order[start:start + config.batch_size]
            logits = model(inputs[batch]).masked_fill(~masks[batch], -torch.inf)
            loss = torch.nn.functional.cross_entropy(logits, actions[batch])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        held = agreement(slice(split, None))
        print(f"epoch {epoch}: agrees on {agreement(slice(0, min(split, 5000))):.1%} of training moves, "
              f"{held:.1%} held out", flush=True)
        if held > best[0] or config.keep == "last":
            best = (held, epoch, [p.detach().numpy().copy() for p in model.parameters()])
    weights = [(best[2][i], best[2][i + 1]) for i in range(0, len(best[2]), 2)]
    return weights, {"held_out_agreement": best[0], "epoch": best[1], "moves": len(actions),
                     "training_moves": split, "games": len(per_game)}


def distill(paths: list[str | Path], out: str | Path, config: DistillConfig, name: str | None = None) -> Path:
    """Fit, then write the agent file and its model card; returns the agent file's path."""
    started, cpu = time.time(), time.process_time()
    data, per_game = positions(paths, config.agents, config.env)
    weights, report = fit(data, per_game, config)
    game = load_records(paths[0])
    env = make_env(game["game"], num_players=game["num_players"], **{**game["env_options"], **config.env}).unwrapped
    env_options = {**game["env_options"], **config.env, **env.game.config()}  # defaults too (2p variant)
    metadata = {"name": name or f"{game['game']}_{env.game.num_players}p", "game": game["game"],
                "num_players": env.game.num_players, "env_options": env_options, "activation": "tanh",
                "input_transform": env.observer.policy_input, "backend": "distill", "distill": report,
                "wall_time_s": time.time() - started, "cpu_time_s": time.process_time() - cpu,
                "libraries": library_versions(("torch",)),
                "training_config": {**asdict(config), "records": [str(path) for path in paths]}}
    path = save_policy(out, weights, metadata)
    write_model_card(path.with_suffix(".md"), metadata)
    print(f"{report['moves']:,} moves of {' and '.join(config.agents)} in {report['games']:,} games; "
          f"held-out agreement {report['held_out_agreement']:.1%} (epoch {report['epoch']}); agent: {path}")
    return path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("records", nargs="+", help="records.json files written by `evaluate --out`")
    parser.add_argument("--agent", action="append", required=True,
                        help="the line-up name whose moves to learn, e.g. ismcts (repeatable: any of them)")
    parser.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                        help="an observation option for the network, e.g. trick_outlook=true (repeatable)")
    parser.add_argument("--out", required=True, help="the agent file to write (a model card goes beside it)")
    parser.add_argument("--name", default=None, help="agent name in its metadata (default <game>_<N>p)")
    parser.add_argument("--hidden", default="256,256", help="hidden layer sizes (default 256,256)")
    parser.add_argument("--epochs", type=int, default=25)
    parser.add_argument("--keep", choices=KEEP, default="best",
                        help="the epoch kept: best held-out agreement (default) or the last")
    parser.add_argument("--seed", type=int, default=0)


def run(args: argparse.Namespace) -> int:
    try:
        for item in args.env:
            if "=" not in item:
                raise ValueError(f"--env {item!r}: expected KEY=VALUE, e.g. trick_outlook=true")
        hidden = tuple(int(size) for size in args.hidden.split(",") if size.strip().isdigit() and int(size) > 0)
        if not hidden or len(hidden) != len(args.hidden.split(",")):
            raise ValueError(f"--hidden {args.hidden!r}: expected positive layer sizes, e.g. 256,256")
        config = DistillConfig(agents=tuple(args.agent), env=parse_overrides(args.env), hidden=hidden,
                               epochs=args.epochs, keep=args.keep, seed=args.seed)
        distill(args.records, args.out, config, args.name)
    except (OSError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    sys.exit(run(parser.parse_args()))
