"""Second training backend: self-play on Ray RLlib (``pip install "hiddenhand[rllib]"``).

    python -m hiddenhand train david_goliath --backend rllib --config david_goliath_quick
    python -m hiddenhand train david_goliath --backend rllib --config david_goliath_quick --address HEAD:6379

Modules: :mod:`.config` (presets in ``configs/train/rllib/``), :mod:`.env` (the registry's PettingZoo env
as an RLlib multi-agent env), :mod:`.module` (action-masking PPO module, export), :mod:`.league`
(line-ups, policy mapping, snapshots), :mod:`.cluster` (local Ray or a cluster), :mod:`.trainer`. The
run directory, metadata and model card are every backend's (:mod:`hiddenhand.training.runs`); nothing
here imports SB3. The command line reaches it through :mod:`hiddenhand.training.backends`.
"""
