"""Expert iteration (``--backend expert``): the network learns the search's visit shares and values, the
next iteration searches with it, runs resume exactly, presets and configs are checked, and the agent file
plays alone or inside PUCT."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from hiddenhand.agents import load, load_policy
from hiddenhand.cli import main
from hiddenhand.envs import make
from hiddenhand.envs.core.options import ConfigError
from hiddenhand.training.backends import BACKENDS
from hiddenhand.training.config import set_dotted
from hiddenhand.training.expert.config import config_from_dict, load_config, presets
from hiddenhand.training.expert.trainer import FIELDS, NetworkPlays, play_games, train
from hiddenhand.training.runs import Checkpoints

TINY = {
    "game": "david_goliath", "env": {"num_players": 3, "rounds": 1}, "iterations": 2,
    "search": "puct:iterations=6:leaf=rollout:horizon=3:value=estimate", "guided_search": "puct:iterations=6",
    "self_play": {"games": 2, "workers": 1, "baseline_prob": 0.5},
    "network": {"net_arch": [16], "value_arch": [4]}, "fit": {"epochs": 2, "batch_size": 16},
    "eval": {"every": 1, "games": 2, "opponents": ["heuristic"]},
}


def tiny(**changes):
    """TINY with changes (``fit__epochs=3`` sets ``fit.epochs``)."""
    overrides = {key.replace("__", "."): value for key, value in changes.items()}
    return config_from_dict(set_dotted(json.loads(json.dumps(TINY)), overrides))


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    run = tmp_path_factory.mktemp("expert") / "run"
    train(tiny(), run, progress=False)
    return run


def test_games_record_the_searchers_decisions_with_targets():
    config = tiny()
    data = play_games(config, None, 1, [0, 1])
    size = len(data["masks"])
    assert size > 0 and all(len(data[key]) == size for key in FIELDS)
    assert np.allclose(data["policies"].sum(axis=1), 1.0)
    assert not (data["policies"] * ~data["masks"]).any()  # visit shares only on legal actions
    assert set(np.unique(data["outcomes"])) <= {-1.0, 0.0, 1.0}  # win/loss rewards (3 players: ties 2/k-1)
    assert np.all(np.abs(data["search_values"]) <= 1)
    again = play_games(config, None, 1, [0, 1])
    assert all(np.array_equal(data[key], again[key]) for key in FIELDS)  # a game depends on (seed, iteration, index)
    # the baseline seats' decisions are not learned: fewer than every decision of the 2 games of 15 tricks
    assert size < 2 * 15 * 3


def test_a_run_learns_and_exports_a_policy_value_agent(finished):
    agent = load_policy(finished / "agent.npz")
    assert agent.value_weights is not None and agent.metadata["backend"] == "expert"
    assert agent.metadata["timesteps"] == 2 and [row["iteration"] for row in agent.metadata["history"]] == [1, 2]
    assert "heuristic" in agent.metadata["evaluation_during_training"]
    game = make("david_goliath", num_players=3, rounds=1).unwrapped.game
    load(str(finished / "agent.npz"), game)
    puct = load("puct:iterations=4", game, network=str(finished / "agent.npz"))
    assert puct.network.value_weights is not None
    card = (finished / "agent.md").read_text()
    assert "Expert iteration" in card and "| iterations | 2 (2 games each) |" in card


def test_with_plays_network_the_network_moves_and_the_search_labels(finished):
    """DAgger: every move is the network's, every label the search's, and labelling leaves the game as it was."""
    network = str(finished / "agent.npz")
    env = make("david_goliath", num_players=3, rounds=1)
    game = env.unwrapped.game
    search, policy = load("puct:iterations=6", game, network=network), load_policy(network)
    player = NetworkPlays(load("puct:iterations=6", game, network=network), load_policy(network))
    env.reset(seed=3)
    player.bind(env, "player_0")
    search.bind(env, "player_0")
    labelled = 0
    for agent_id in env.agent_iter():
        observation, _, done, truncated, _ = env.last()
        if done or truncated:
            env.step(None)
            continue
        obs, mask = observation["observation"], observation["action_mask"]
        if agent_id != "player_0":
            env.step(int(np.flatnonzero(mask)[0]))
            continue
        before = env.unwrapped.snapshot()
        action = player.act(obs, mask)
        assert env.unwrapped.snapshot() == before
        assert action == policy.act(obs, mask)
        if player.last_policy is not None:
            search.reset(seed=labelled)
            player.search.reset(seed=labelled)
            player.act(obs, mask)
            search.act(obs, mask)
            assert np.array_equal(player.last_policy, search.last_policy) and player.last_value == search.last_value
            labelled += 1
        env.step(action)
    assert labelled >= 5
    config = tiny(self_play__plays="network")
    data = play_games(config, network, 2, [0, 1])
    assert len(data["masks"]) > 0 and np.allclose(data["policies"].sum(axis=1), 1.0)
    assert not np.array_equal(data["masks"], play_games(tiny(), network, 2, [0, 1])["masks"])  # others moved


@pytest.mark.parametrize("changes", [{}, {"network": {"kind": "per_action", "net_arch": [3], "value_arch": [4]}},
                                     {"self_play__plays": "network"}])
def test_a_resumed_run_equals_an_uninterrupted_one(finished, tmp_path, changes):
    """Iteration 2 resumed from the checkpoint of iteration 1 plays the same games and learns the same
    network as the run that never stopped."""
    if changes:
        finished = tmp_path / "straight"
        train(tiny(**changes), finished, progress=False)
    run = tmp_path / "run"
    train(tiny(iterations=1, **changes), run, progress=False)
    train(tiny(**changes), run, resume=True, progress=False)
    a, b = load_policy(run / "agent.npz"), load_policy(finished / "agent.npz")
    for (wa, ba), (wb, bb) in zip(a.weights + a.value_weights, b.weights + b.value_weights):
        assert np.array_equal(wa, wb) and np.array_equal(ba, bb)


def test_init_from_starts_the_network_and_the_first_search_from_an_agent(finished, tmp_path):
    """With ``init_from`` the network starts as that agent's policy and iteration 1 already searches with it."""
    start = str(finished / "agent.npz")
    with pytest.raises(ConfigError, match="'init_from' = .* has layers \\[16, 90\\] with tanh.*relu"):
        tiny(init_from=start, network={"net_arch": [16], "value_arch": [4], "activation": "relu"})
    config = tiny(init_from=start, iterations=1, fit__learning_rate=1e-9)
    assert config.teacher(config.first_network()) == ("puct:iterations=6", {"network": start})
    run = tmp_path / "run"
    train(config, run, progress=False)
    agent, origin = load_policy(run / "agent.npz"), load_policy(start)
    for (weight, bias), (weight0, bias0) in zip(agent.weights, origin.weights, strict=True):
        assert np.allclose(weight, weight0, atol=1e-5) and np.allclose(bias, bias0, atol=1e-5)
    with np.load(Checkpoints(run, ()).candidates()[0] / "positions.npz") as data:
        played = data["policies_0"]
    assert np.array_equal(played, play_games(config, start, 1, range(2))["policies"])
    assert not np.array_equal(played, play_games(tiny(), None, 1, range(2))["policies"])
    assert f"| warm start | the policy of {start} |" in (run / "agent.md").read_text()


def test_a_damaged_checkpoint_falls_back_to_the_one_before(finished, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(finished, run)
    newest = Checkpoints(run, ()).candidates()[0]
    (newest / "positions.npz").write_bytes(b"broken")
    (run / "agent.npz").unlink()
    result = train(tiny(), run, resume=True, progress=False)
    assert result.metadata["timesteps"] == 2
    assert (run / "checkpoints" / "skipped" / newest.name).is_dir()


@pytest.mark.parametrize("changes, match", [
    ({"guided_search": "ismcts"}, "'guided_search' must be a puct spec"),
    ({"guided_search": "puct:network=david_goliath_4p"}, "'guided_search' must be a puct spec without 'network'"),
    ({"search": "heuristic"}, "'search' must be a search agent spec"),
    ({"search": "puct:leaf=network"}, "'search' = 'puct:leaf=network': .*leaf='network' needs a network"),
    ({"search": "ismcts:depth=3"}, "unknown option"),
    ({"self_play__baselines": ["nobody"]}, "'self_play.baselines\\[0\\]' must be one of"),
    ({"self_play__plays": "teacher"}, "'self_play.plays' must be one of"),
    ({"fit__value_mix": 1.5}, "'fit.value_mix' must be in \\[0, 1\\]"),
    ({"env": {"num_players": 9}}, "invalid 'env' options"),
    ({"init_from": "david_goliath_3p"}, "'init_from' = 'david_goliath_3p': .*observation"),
    ({"init_from": "heuristic"}, "'init_from' = 'heuristic' is not a trained agent"),
])
def test_bad_configs_name_the_key(changes, match):
    with pytest.raises(ConfigError, match=match):
        tiny(**changes)


def test_presets_load_and_the_backend_is_offered(tmp_path, capsys):
    assert "expert" in BACKENDS
    for name in presets():
        assert load_config(name).game
    path = tmp_path / "tiny.yaml"
    path.write_text(json.dumps({**TINY, "iterations": 1}))
    run = tmp_path / "run"
    assert main(["train", "david_goliath", "--backend", "expert", "--config", str(path), "--run-dir", str(run),
                 "--no-progress"]) == 0
    assert (run / "agent.npz").is_file()
    assert main(["train", "david_goliath", "--backend", "expert", "--config", str(path), "--run-dir", str(run)]) == 2
    assert "already holds an earlier run" in capsys.readouterr().err
    resume = ["train", "david_goliath", "--backend", "expert", "--resume", "--run-dir", str(run), "--no-progress"]
    assert main([*resume, "--set", "iterations=2"]) == 0  # the recorded config, one iteration more
    assert "resuming from" in capsys.readouterr().out and load_policy(run / "agent.npz").metadata["timesteps"] == 2
    exported = (run / "agent.npz").read_bytes()
    assert main([*resume, "--set", "iterations=2"]) == 0
    assert "nothing to train" in capsys.readouterr().out and (run / "agent.npz").read_bytes() == exported
    assert main([*resume, "--set", "self_play.games=3"]) == 2  # another config: refused without --force
    assert "self_play.games: 2 -> 3" in capsys.readouterr().err


@pytest.mark.parametrize("kind, arch", [("mlp", [12, 8]), ("per_action", [6])])
def test_the_numpy_export_computes_what_the_network_computes(kind, arch):
    """Both kinds export to plain dense layers (the agent file format) without loss: the same logits and
    values for the same observations."""
    import torch

    from hiddenhand.agents import PolicyAgent
    from hiddenhand.training.expert.network import PolicyValueNet, export

    config = tiny(network={"kind": kind, "net_arch": arch, "value_arch": [5]})
    env = make("david_goliath", num_players=3, rounds=1)
    env.reset(seed=0)
    layout = env.unwrapped.observer.layout
    torch.manual_seed(0)
    net = PolicyValueNet(layout, 90, config.network)
    with torch.no_grad():
        for parameter in net.parameters():
            parameter.normal_(0, 0.3)
    observations = np.stack([env.unwrapped.observe(agent)["observation"] for agent in env.possible_agents])
    with torch.no_grad():
        logits, values = net(torch.as_tensor(observations))
    policy, value = export(net)
    agent = PolicyAgent(policy, {"activation": "tanh"}, value_weights=value)
    got_logits, got_values = agent.evaluate(observations)
    assert np.allclose(got_logits, logits.numpy(), atol=1e-4) and np.allclose(got_values, values.numpy(), atol=1e-5)
    if kind == "per_action":
        assert policy[0][0].shape == (90 * 6, layout.size)


def test_per_action_needs_blocks_laid_out_per_action():
    with pytest.raises(ConfigError, match="'network.kind' = 'per_action' needs observation blocks"):
        config_from_dict({**TINY, "game": "koehandel", "env": {"num_players": 3},
                          "search": "pimc:determinizations=1:horizon=4", "guided_search": "none",
                          "network": {"kind": "per_action", "net_arch": [4]}})
    with pytest.raises(ConfigError, match="must be one width with kind per_action"):
        tiny(network={"kind": "per_action", "net_arch": [4, 4]})
