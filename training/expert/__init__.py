"""Expert iteration (``hiddenhand train <game> --backend expert``): search plays, a policy-value network
learns its visit shares and values, and the next search reads the network (:mod:`.trainer`); presets in
``configs/train/expert/`` (:mod:`.config`)."""
