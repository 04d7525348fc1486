"""Distilling an agent's recorded moves into a network (issue 24 item 3): evaluate writes the games, distill
replays them with the network's observation options, fits and writes an agent file that loads and plays."""

import json
import re
from dataclasses import replace

import numpy as np
import pytest

from hiddenhand.agents import load
from hiddenhand.cli import main
from hiddenhand.envs import make
from hiddenhand.training.distill import DistillConfig, distill, fit, positions
from hiddenhand.training.evaluate import evaluate

pytest.importorskip("torch")

OPTIONS = {"rounds": 1}


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    out = tmp_path_factory.mktemp("records")
    result = evaluate("david_goliath", ["heuristic", "random", "random"], 12, seed=3, env_options=OPTIONS,
                      workers=1, progress=False)
    return result.write(out)["records"]


def choices_of(records_file, name: str) -> int:
    """The moves with a choice that ``name`` made, counted by replaying the records independently."""
    data = json.loads(records_file.read_text())
    env = make("david_goliath", num_players=3, **OPTIONS)
    raw = env.unwrapped
    count = 0
    for record in data["records"]:
        env.reset(seed=record["seed"])
        for action in record["history"]:  # no seat leaves a David & Goliath game before the end
            seat = raw.possible_agents.index(env.agent_selection)
            count += record["lineup"][seat] == name and len(raw.legal_actions()) > 1
            env.step(action)
    return count


def test_positions_are_the_agents_choices_with_the_networks_observation(records):
    data, per_game = positions([records], ("heuristic",), {"trick_outlook": True})
    assert len(data["actions"]) == sum(per_game) == choices_of(records, "heuristic") > 50
    assert len(per_game) == 12
    assert data["masks"][np.arange(len(data["actions"])), data["actions"]].all()  # every move legal
    size = make("david_goliath", num_players=3, trick_outlook=True, **OPTIONS).unwrapped.observer.layout.size
    assert data["observations"].shape == (len(data["actions"]), size)


def test_several_teachers_give_the_moves_of_each(records):
    """Files made with different search budgets are fitted together: ``--agent`` names each teacher."""
    data, per_game = positions([records], ("heuristic", "random"), {})
    assert len(data["actions"]) == choices_of(records, "heuristic") + choices_of(records, "random")
    alone, _ = positions([records], ("heuristic",), {})
    assert 0 < len(alone["actions"]) < len(data["actions"])


def test_the_agent_file_records_the_games_full_options_defaults_included(tmp_path):
    """Two-player games default to the dummy variant; an evaluation given no options records none, and the
    agent file must still name the variant it learned (else a later default change would mislead it)."""
    result = evaluate("david_goliath", ["heuristic", "random"], 4, seed=1, env_options=OPTIONS, workers=1,
                      progress=False)
    path = distill([result.write(tmp_path / "records")["records"]], tmp_path / "agent.npz",
                   DistillConfig(agents=("heuristic",), env={}, hidden=(8,), epochs=1))
    options = load(str(path), make("david_goliath", num_players=2, **OPTIONS).unwrapped.game).metadata["env_options"]
    assert options == {"num_players": 2, "rounds": 1, "card_features": False, "two_player_variant": "dummy"}


def test_a_distilled_agent_file_loads_plays_and_has_its_card(records, tmp_path):
    config = DistillConfig(agents=("heuristic",), env={"card_features": True, "trick_outlook": True}, hidden=(32,),
                           epochs=2)
    path = distill([records], tmp_path / "agent.npz", config, name="dg_distilled")
    agent = load(str(path), make("david_goliath", num_players=3, card_features=True, trick_outlook=True,
                                 **OPTIONS).unwrapped.game)
    assert agent.metadata["env_options"] == {"num_players": 3, "rounds": 1, "card_features": True,
                                             "trick_outlook": True}
    report = agent.metadata["distill"]
    assert report["games"] == 12 and report["moves"] == choices_of(records, "heuristic")
    assert 0 < report["held_out_agreement"] <= 1
    card = path.with_suffix(".md").read_text()
    assert "Distilled" in card and "`heuristic`" in card and "held-out agreement" in card
    result = evaluate("david_goliath", [str(path), "heuristic", "random"], 3, env_options=None, workers=1,
                      progress=False)  # the agent's own options apply
    assert len(result.tournament.records) == 3


def test_the_kept_epoch_is_the_best_on_held_out_games_or_the_last(records, capsys):
    data, per_game = positions([records], ("heuristic",), {})
    config = DistillConfig(agents=("heuristic",), env={}, hidden=(16,), epochs=5)
    capsys.readouterr()
    best_weights, best = fit(data, per_game, config)
    held = [float(share) for share in re.findall(r"([0-9.]+)% held out", capsys.readouterr().out)]
    assert len(held) == 5
    assert best["epoch"] == 1 + held.index(max(held)) and abs(100 * best["held_out_agreement"] - max(held)) < 0.06
    _, last = fit(data, per_game, replace(config, keep="last"))
    assert last["epoch"] == 5 and abs(100 * last["held_out_agreement"] - held[-1]) < 0.06
    stopped_there, _ = fit(data, per_game, replace(config, epochs=best["epoch"], keep="last"))
    for (weight, bias), (weight_best, bias_best) in zip(stopped_there, best_weights):
        assert np.array_equal(weight, weight_best) and np.array_equal(bias, bias_best)
    with pytest.raises(ValueError, match="keep='first'"):
        fit(data, per_game, replace(config, keep="first"))


def test_bad_input_is_named(records, tmp_path):
    with pytest.raises(ValueError, match="no seat played by 'ismcts'"):
        positions([records], ("ismcts",), {})
    with pytest.raises(ValueError, match="no seat played by 'ismcts' or 'pimc'"):
        positions([records], ("ismcts", "pimc"), {})
    data = json.loads(records.read_text())
    data["records"][4]["history"][3] = data["records"][4]["history"][0]  # a card already played
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="illegal|replay"):
        positions([tampered], ("heuristic",), {})
    data = json.loads(records.read_text())
    del data["records"][2]["history"][-1]
    tampered.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="game 2's history ends before the game does"):
        positions([tampered], ("heuristic",), {})
    with pytest.raises(ValueError, match="trick_outlok"):
        positions([records], ("heuristic",), {"trick_outlok": True})


def test_the_command_writes_the_agent_or_names_the_problem(records, tmp_path, capsys):
    out = tmp_path / "cli" / "agent.npz"
    assert main(["distill", str(records), "--agent", "heuristic", "--env", "trick_outlook=true", "--out", str(out),
                 "--hidden", "16", "--epochs", "2", "--keep", "last"]) == 0
    assert out.exists() and out.with_suffix(".md").exists()
    game = make("david_goliath", num_players=3, trick_outlook=True, **OPTIONS).unwrapped.game
    metadata = load(str(out), game).metadata
    assert metadata["distill"]["epoch"] == 2 and metadata["training_config"]["keep"] == "last"
    two = tmp_path / "two" / "agent.npz"
    assert main(["distill", str(records), "--agent", "heuristic", "--agent", "random", "--out", str(two),
                 "--hidden", "16", "--epochs", "1"]) == 0
    assert "| teacher | `heuristic` and `random`, " in two.with_suffix(".md").read_text()
    assert main(["distill", str(records), "--agent", "pimc", "--out", str(tmp_path / "x.npz")]) == 2
    assert "no seat played by 'pimc'" in capsys.readouterr().err
    assert main(["distill", str(tmp_path / "missing.json"), "--agent", "heuristic", "--out", str(out)]) == 2
    assert main(["distill", str(records), "--agent", "heuristic", "--env", "trick_outlook", "--out", str(out)]) == 2
    assert "--env 'trick_outlook': expected KEY=VALUE" in capsys.readouterr().err
    assert main(["distill", str(records), "--agent", "heuristic", "--hidden", "64,x", "--out", str(out)]) == 2
    assert "--hidden '64,x': expected positive layer sizes" in capsys.readouterr().err
