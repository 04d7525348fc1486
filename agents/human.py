"""A person playing in the terminal against agents."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from hiddenhand.envs import make as make_env

from . import bind_agents, make

QUIT_WORDS = {"q", "quit", "exit"}


def play_in_terminal(
    game: str,
    players: int,
    opponents: Sequence[str] | None,
    seat: int,
    seed: int | None,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
) -> int:
    """Play one game as ``player_{seat}``; returns a process exit code (0 also when the player quits)."""
    if not 0 <= seat < players:
        write(f"--seat must be in 0..{players - 1}")
        return 2
    opponents = list(opponents or ["heuristic"])
    if len(opponents) == 1:
        opponents *= players - 1
    if len(opponents) != players - 1:
        write(f"--agents needs {players - 1} opponents (or one name for all), got {len(opponents)}")
        return 2
    env = make_env(game, num_players=players, illegal_action="raise")
    raw = env.unwrapped
    env.reset(seed=seed)
    me = raw.possible_agents[seat]
    bots = iter(opponents)
    agents = {name: None if name == me else make(next(bots), raw.game, seed) for name in raw.possible_agents}
    bind_agents(env, agents)
    write(f"You are {me}. Type a move (e.g. {raw.game.action_to_string(raw.legal_actions()[0])}) or q to quit.")
    for name in env.agent_iter():
        observation, _, termination, truncation, info = env.last()
        if termination or truncation:
            env.step(None)
            continue
        if agents[name] is not None:
            action = agents[name].act(observation["observation"], observation["action_mask"])
            seen = raw.game.announce(raw.state_, action)  # only what the table sees
            if seen is not None:
                write(f"{name} plays {seen}")
            env.step(action)
            continue
        write("\n" + raw.state_.render(viewer=seat))
        legal = raw.legal_actions()
        write("legal: " + " ".join(raw.game.action_to_string(a) for a in legal))
        while True:
            try:
                text = read("your move> ").strip()
            except (EOFError, KeyboardInterrupt):
                text = "q"
            if text.lower() in QUIT_WORDS:
                write("Goodbye.")
                return 0
            try:
                action = raw.game.string_to_action(text)
            except ValueError as error:
                write(str(error))
                continue
            if action not in legal:
                write(f"{raw.game.action_to_string(action)} is not legal now; legal: "
                      + " ".join(raw.game.action_to_string(a) for a in legal))
                continue
            break
        env.step(action)
    write("\n" + raw.state_.render())
    scores = info.get("scores", {})
    write("Final scores: " + ", ".join(f"{agent} {score}" for agent, score in scores.items()))
    write("Winners: " + ", ".join(info.get("winners", [])))
    return 0
