"""Second training backend: self-play on Ray RLlib (``pip install "hiddenhand[rllib]"``).

    python -m hiddenhand train david_goliath --backend rllib --config david_goliath_quick
    python -m hiddenhand train david_goliath --backend rllib --config david_goliath_quick --address HEAD:6379

Modules: :mod:`.config` (presets in ``configs/train/rllib/``), :mod:`.env` (the registry's PettingZoo env
as an RLlib multi-agent env), :mod:`.module` (action-masking PPO module, export), :mod:`.league`
(line-ups, policy mapping, snapshots), :mod:`.cluster` (local Ray or a cluster), :mod:`.trainer`.
Only this file imports without Ray; :func:`train_main` is the CLI's entry point.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def train_main(args: argparse.Namespace) -> int:
    """``hiddenhand train --backend rllib``: the SB3 command's arguments plus ``address``; an exit code."""
    from hiddenhand.envs.core.options import ConfigError
    from hiddenhand.training.config import command_config
    from hiddenhand.training.train import RunDirError

    try:
        from .cluster import ClusterError
        from .config import load_rllib_config, with_overrides
        from .trainer import recorded_config, train
    except ImportError as error:
        print(f"error: the rllib backend needs Ray RLlib ({error}); install it with "
              f"pip install \"hiddenhand[rllib]\"", file=sys.stderr)
        return 2
    try:
        config = command_config(args, load_rllib_config, recorded_config, with_overrides)
    except (ConfigError, RunDirError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if config.train.game != args.game:
        print(f"error: config {args.config!r} is for game {config.train.game!r}, not {args.game!r}", file=sys.stderr)
        return 2
    run_dir = args.run_dir or f"runs/{Path(args.config).stem}_rllib"
    address = getattr(args, "address", None) or os.environ.get("RAY_ADDRESS") or None
    try:
        train(config, run_dir, resume=args.resume, progress=not args.no_progress, name=args.name,
              overwrite=args.overwrite, force=args.force, address=address)
    except (RunDirError, ConfigError, ClusterError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0
