"""Ship a trained agent: evaluate it against random and heuristic opponents (1,000+ games each), then
copy it into ``agents/trained/<name>.npz`` with the results in its metadata and model card."""

from __future__ import annotations

import re
from pathlib import Path

from hiddenhand.agents import TRAINED_DIR, AgentFileError, load_policy, save_policy
from hiddenhand.envs import make as make_env
from hiddenhand.envs.registry import REGISTRY

from .evaluate import evaluate
from .runs import write_model_card

SHIP_NAME = re.compile(r"[A-Za-z0-9_]{1,64}")


def ship(agent_file: str | Path, name: str, games: int = 1000, seed: int = 0,
         out_dir: Path = TRAINED_DIR, overwrite: bool = False) -> Path:
    """Evaluate and ship; ``name`` must be a bare agent name (it becomes ``<out_dir>/<name>.npz``). An
    agent already shipped under that name is replaced only with ``overwrite`` (checked before evaluating)."""
    if not isinstance(name, str) or not SHIP_NAME.fullmatch(name):
        raise ValueError(f"ship name {name!r} is not allowed; allowed: letters, digits and '_', e.g. david_goliath_4p")
    shipped = [path for path in (Path(out_dir) / f"{name}.npz", Path(out_dir) / f"{name}.md") if path.exists()]
    if shipped and not overwrite:
        raise ValueError(f"{' and '.join(map(str, shipped))} already exist: pass --overwrite to replace the agent "
                         f"shipped as {name!r}, or choose another --name")
    agent = load_policy(agent_file)
    meta = dict(agent.metadata)
    if meta.get("game") not in REGISTRY or not isinstance(meta.get("env_options"), dict):
        raise AgentFileError(f"{agent_file}: metadata names no registered game with its env_options")
    try:
        env = make_env(meta["game"], **meta["env_options"]).unwrapped
    except (TypeError, ValueError) as error:
        raise AgentFileError(f"{agent_file}: its env_options do not build the game ({error})") from None
    try:  # the layers fit the game's observation size and action count
        agent.check_compatible(env.game.name, env.game.num_players, env.observer.layout.size, env.game.num_actions)
    except AgentFileError as error:
        raise AgentFileError(f"{agent_file}: {error}") from None
    players = meta["num_players"]
    options = {k: v for k, v in meta["env_options"].items() if k not in ("num_players", "reward_mode")}
    final = {}
    tables = []
    for opponent in ("random", "heuristic"):
        result = evaluate(meta["game"], [str(agent_file)] + [opponent] * (players - 1), games, seed=seed,
                          env_options=options)
        row = next(r for r in result.summary()["standings"] if r["agent"] == str(agent_file))
        final[opponent] = {"opponent": opponent, "games": games, "win_rate": row["win_rate"],
                           "ci95": row["ci95"], "fair_share": 1 / players, "mean_score": row["mean_score"]}
        tables.append(result.table().replace(str(agent_file), name))
    meta.update({"name": name, "final_evaluation": final})
    path = save_policy(Path(out_dir) / f"{name}.npz", agent.weights, meta, agent.value_weights)
    write_model_card(path.with_suffix(".md"), meta, {"table": "\n\n".join(f"```\n{t}\n```" for t in tables)})
    print("\n\n".join(tables))
    return path
