"""Ship a trained agent: evaluate it against random and heuristic opponents (1,000+ games each), then
copy it into ``agents/trained/<name>.npz`` with the results in its metadata and model card."""

from __future__ import annotations

from pathlib import Path

from hiddenhand.agents import TRAINED_DIR, load_policy, save_policy

from .evaluate import evaluate
from .train import write_model_card


def ship(agent_file: str | Path, name: str, games: int = 1000, seed: int = 0,
         out_dir: Path = TRAINED_DIR) -> Path:
    agent = load_policy(agent_file)
    meta = dict(agent.metadata)
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
    path = save_policy(Path(out_dir) / f"{name}.npz", agent.weights, meta)
    write_model_card(path.with_suffix(".md"), meta, {"table": "\n\n".join(f"```\n{t}\n```" for t in tables)})
    print("\n\n".join(tables))
    return path
