"""PUCT search with a policy-value network (``agents/search/puct.py``) and agent files with a value head:
the prior and the leaf values come from the network, the search stays blind to hidden information, and a
value head is checked like every layer of an agent file."""

from __future__ import annotations

import numpy as np
import pytest
from playing import to_a_choice

from hiddenhand.agents import AgentFileError, PolicyAgent, load, load_policy, save_policy
from hiddenhand.agents.search import PUCTAgent
from hiddenhand.envs import make
from hiddenhand.envs.core.options import ConfigError
from hiddenhand.envs.registry import REGISTRY

GAMES = sorted(REGISTRY)


def network_file(tmp_path, game: str, players: int, hidden: int = 16, seed: int = 0, **env_options):
    """A random policy-value network for the game, as an agent file with a value head."""
    env = make(game, num_players=players, **env_options)
    raw = env.unwrapped
    size, actions = raw.observer.layout.size, raw.game.num_actions
    rng = np.random.default_rng(seed)

    def layer(rows, cols):
        return rng.normal(0, 0.3, (rows, cols)).astype(np.float32), rng.normal(0, 0.1, rows).astype(np.float32)

    metadata = {"name": "pv", "game": game, "num_players": players, "activation": "tanh",
                "env_options": {"num_players": players, **env_options}, "input_transform": raw.observer.policy_input}
    path = tmp_path / f"{game}_{players}_pv.npz"
    save_policy(path, [layer(hidden, size), layer(actions, hidden)], metadata, [layer(4, hidden), layer(1, 4)])
    return str(path)


def test_value_head_round_trip_and_forward(tmp_path):
    path = network_file(tmp_path, "david_goliath", 3)
    agent = load_policy(path)
    assert agent.value_weights is not None and len(agent.value_weights) == 2
    rows = np.random.default_rng(1).random((3, agent.observation_size)).astype(np.float32)
    logits, values = agent.evaluate(rows)
    hidden = np.tanh(rows @ agent.weights[0][0].T + agent.weights[0][1])
    expected = np.tanh(np.tanh(hidden @ agent.value_weights[0][0].T + agent.value_weights[0][1])
                       @ agent.value_weights[1][0].T + agent.value_weights[1][1])[:, 0]
    assert np.allclose(values, expected, atol=1e-5) and np.all(np.abs(values) <= 1)
    assert np.allclose(logits[1], agent.logits(rows[1]), atol=1e-5)
    game = make("david_goliath", num_players=3).unwrapped.game
    assert isinstance(load(path, game), PolicyAgent)  # plays the policy like any agent file


@pytest.mark.parametrize("value, match", [
    ([(np.zeros((1, 5), np.float32), np.zeros(1, np.float32))], "vw0 .* does not read the policy's last hidden"),
    ([(np.zeros((2, 16), np.float32), np.zeros(2, np.float32))], "ends in 2 outputs, not 1"),
    ([(np.full((1, 16), np.nan, np.float32), np.zeros(1, np.float32))], "vw0 holds non-finite values"),
    ([(np.zeros((1, 16), np.float32), np.zeros(3, np.float32))], "vb0 has 3 entries"),
])
def test_a_bad_value_head_is_refused_naming_it(tmp_path, value, match):
    good = load_policy(network_file(tmp_path, "david_goliath", 3))
    with pytest.raises(AgentFileError, match=match):
        PolicyAgent(good.weights, good.metadata, value_weights=value)
    path = tmp_path / "bad.npz"
    save_policy(path, good.weights, good.metadata, value)
    with pytest.raises(AgentFileError, match=f"{path}: .*{match}"):
        load_policy(path)


def test_puct_reads_the_network_and_reports_targets(tmp_path):
    env = make("david_goliath", num_players=4)
    env.reset(seed=2)
    to_a_choice(env, 2, skip=5)
    raw = env.unwrapped
    me = raw.agent_selection
    agent = load("puct:iterations=40", raw.game, seed=1, network=network_file(tmp_path, "david_goliath", 4))
    assert isinstance(agent, PUCTAgent) and agent.leaf == "network"
    agent.bind(env, me)
    obs = raw.observe(me)
    action = agent.act(obs["observation"], obs["action_mask"])
    assert obs["action_mask"][action] and agent.last_iterations == 40
    assert agent.last_policy.sum() == pytest.approx(1.0) and np.all(agent.last_policy[obs["action_mask"] == 0] == 0)
    assert action == int(np.argmax(agent.last_policy)) and -1 <= agent.last_value <= 1
    # the root's prior is the network's policy for this very observation
    prior = agent._prior(raw.state_, np.flatnonzero(obs["action_mask"]).tolist())
    logits = agent.network.logits(obs["observation"])[np.flatnonzero(obs["action_mask"])]
    expected = np.exp(logits - logits.max()) / np.exp(logits - logits.max()).sum()
    assert np.allclose(list(prior.values()), expected, atol=1e-5)
    # the other seats' nodes: uniform unless opponent_prior="network"
    rng = np.random.default_rng(0)
    state = raw.state_.clone()
    state.apply(action, rng)
    while state.current_player == agent._seat or len(state.legal_mask().nonzero()[0]) < 2:
        state.apply(int(state.legal_mask().nonzero()[0][0]), rng)
    legal = state.legal_mask().nonzero()[0].tolist()
    assert set(agent._prior(state, legal).values()) == {1 / len(legal)}
    modelled = load("puct:opponent_prior=network", raw.game, seed=1, network=agent.options["network"])
    modelled.bind(env, me)
    assert len(set(modelled._prior(state, legal).values())) > 1
    # with opponents="policy" the other seats play the rollout policy: no prior is read at their nodes
    movers = []
    policy = load("puct:iterations=40:opponents=policy:opponent_prior=network", raw.game, seed=1,
                  network=agent.options["network"])
    read = policy._prior
    policy._prior = lambda state, actions: movers.append(state.current_player) or read(state, actions)
    policy.bind(env, me)
    assert obs["action_mask"][policy.act(obs["observation"], obs["action_mask"])]
    assert movers and set(movers) == {agent._seat}


def test_puct_needs_a_value_head_for_network_leaves(tmp_path):
    game = make("david_goliath", num_players=4).unwrapped.game
    with pytest.raises(ConfigError, match="leaf='network' needs a network with a value head"):
        load("puct:leaf=network", game)
    assert load("puct", game).leaf == "rollout"  # a uniform prior and rollouts
    with pytest.raises(ConfigError, match="not a policy network"):
        load("puct:network=heuristic:leaf=rollout", game)
    with pytest.raises(AgentFileError, match="3 players, not david_goliath with 4"):
        load("puct", game, network=network_file(tmp_path, "david_goliath", 3))


@pytest.mark.parametrize("game", GAMES)
def test_puct_with_a_network_never_reads_hidden_state(tmp_path, game):
    """The move on the true env equals the move on a twin re-dealt from the mover's point of view: the
    network reads every seat's observation of determinized copies only."""
    players = REGISTRY[game].default_players
    env = make(game, num_players=players)
    env.reset(seed=8)
    to_a_choice(env, 8, skip=5)
    raw = env.unwrapped
    me = raw.agent_selection
    network = network_file(tmp_path, game, players)
    differed = False
    for s in range(2):
        twin = raw.determinize(me, 100 + s)
        differed |= twin.state_.to_json() != raw.state_.to_json()
        moves = []
        for target in (raw, twin):
            agent = load("puct:iterations=12:horizon=10:opponent_prior=network", raw.game, seed=21, network=network)
            agent.bind(target, me)
            obs = target.observe(me)
            moves.append((agent.act(obs["observation"], obs["action_mask"]), agent.last_value))
        assert moves[0] == moves[1]
    assert differed


def test_rattus_cartus_puct_defaults_search_with_the_shipped_prior():
    """Rattus Cartus's registry defaults for ``puct``: the budget and rollouts measured with the shipped PPO
    agent as prior (docs/agents.md, "A network prior in Rattus Cartus"); a network with a value head still
    gets rollout leaves there unless ``leaf=network`` is asked for."""
    env = make("rattus_cartus", num_players=4)
    env.reset(seed=4)
    to_a_choice(env, 4)
    raw = env.unwrapped
    defaults = REGISTRY["rattus_cartus"].search.defaults["puct"]
    agent = load("puct:network=rattus_cartus_4p", raw.game, seed=1)
    assert {key: agent.options[key] for key in defaults} == defaults and agent.leaf == "rollout"
    agent.bind(env, raw.agent_selection)
    obs = raw.observe(raw.agent_selection)
    assert obs["action_mask"][agent.act(obs["observation"], obs["action_mask"])] and agent.last_iterations == 70
