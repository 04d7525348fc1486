"""Search agents that work on every registered game through the game contract.

* ``pimc``: perfect-information Monte Carlo. ``determinizations`` re-deals per move; each legal action is
  scored by ``rollouts`` rollouts in each; the best mean value for this seat is played.
* ``ismcts``: single-observer information-set MCTS (Cowling, Powley & Whitehouse 2012), one tree over the
  searcher's information sets, a new determinization per iteration, UCB with availability counts; the
  opponents' decisions are tree nodes as in SO-ISMCTS (see :mod:`.ismcts`).
* ``puct``: the same tree with AlphaZero's PUCT selection, a policy-value network's prior and its value
  head at the leaves (``network=<agent file>``; see :mod:`.puct`), trained by expert iteration
  (``hiddenhand train <game> --backend expert``).

All take a budget (``iterations`` / ``determinizations``, or ``seconds`` per move, which makes moves
depend on the machine), a rollout policy (``random``, ``heuristic`` or a trained agent's name), a
``horizon`` (plies from the root, ``"round"`` where the game has rounds, or ``None`` for the end of the
game) after which a position is valued by ``value`` (``"margin"``: every seat's score margin from
``state.scores()`` over the game's ``score_scale``; ``"win"``: the win/loss reward at the end of a game;
``"estimate"``: the game's evaluation hook (its registry entry's ``search.evaluation``), every seat's expected reward in a
re-dealt position as the searching seat can judge it), and a ``seed``: with an iteration budget the moves
are a function of the seed and of what the seat saw. ISMCTS's ``opponents="policy"`` lets the other
seats play the rollout policy inside the tree too (an opponent model) instead of UCB on their values.

Load them like any agent: ``hiddenhand.agents.load("ismcts", game, iterations=400)`` or a spec string,
``load("ismcts:iterations=400:rollout=heuristic", game)`` (``,`` also separates options outside the CLI).
Every game loop calls ``agent.bind(env, agent_id)`` before a game; through it a search agent only ever
calls ``env.determinize(agent_id, seed)``, so it sees what its seat may know and nothing else.

Per-game hooks and defaults (kept within about 200 ms per move on one core) are declared in the game's
registry entry (``GameEntry.search``, :class:`hiddenhand.envs.registry.SearchHooks`).
"""

from __future__ import annotations

from typing import Any

from hiddenhand.envs.core.game import Game
from hiddenhand.envs.core.options import ConfigError

from .common import SearchAgent, parse_spec
from .ismcts import ISMCTSAgent
from .pimc import PIMCAgent
from .puct import PUCTAgent

ALGORITHMS: dict[str, type[SearchAgent]] = {"ismcts": ISMCTSAgent, "pimc": PIMCAgent, "puct": PUCTAgent}


def is_search_spec(name: Any) -> bool:
    """Whether ``name`` names a search agent (``"ismcts"``, ``"pimc:determinizations=4"``, ...)."""
    return isinstance(name, str) and name.partition(":")[0].strip() in ALGORITHMS


def make_search_agent(spec: str, game: Game, seed: int | None = None, **options: Any) -> SearchAgent:
    """A search agent from a name or spec string plus keyword options (keywords win)."""
    name, parsed = parse_spec(spec)
    if name not in ALGORITHMS:
        raise ConfigError(f"unknown search agent {name!r}; known: {sorted(ALGORITHMS)}")
    return ALGORITHMS[name](game, seed, **{**parsed, **options})


def load_agent(name: str, game: Game, seed: int | None) -> Any:
    """A rollout policy: a heuristic or trained agent loaded like any agent."""
    from hiddenhand.agents import load

    return load(name, game, seed)


__all__ = ["ALGORITHMS", "ISMCTSAgent", "PIMCAgent", "PUCTAgent", "SearchAgent", "is_search_spec",
           "make_search_agent"]
