"""Potentials for dense rewards (``dense_reward: true``).

A dense reward delivers an episode's return in pieces: after each of the learner's moves, the change of
a potential of the position since its previous move, and at the end whatever makes the pieces add up to
the terminal reward exactly. The return is unchanged; only where the credit arrives differs.

- ``score_margin``: own score minus the others' mean, over the game's ``score_scale``.
- ``evaluation``: the game's search evaluation hook (``SearchHooks.evaluation``): the seat's expected
  win/loss reward in [-1, 1]; pair it with ``env.reward_mode: win_loss``. It reads the hidden part of the
  position only as the seat knows it, so it can be applied to the true position.
"""

from __future__ import annotations

from collections.abc import Callable

from hiddenhand.envs.core.aec import HiddenInfoAECEnv
from hiddenhand.envs.registry import entry

POTENTIALS = ("score_margin", "evaluation")
Potential = Callable[[HiddenInfoAECEnv, int], float]


def score_margin(aec: HiddenInfoAECEnv, seat: int) -> float:
    scores = aec.state_.scores()
    others = (sum(scores) - scores[seat]) / (len(scores) - 1)
    return (scores[seat] - others) / aec.game.score_scale


def potential(name: str, game: str) -> Potential:
    """The potential called ``name`` (one of :data:`POTENTIALS`) for ``game``."""
    if name == "score_margin":
        return score_margin
    evaluate = entry(game).search.evaluator()
    if name != "evaluation" or evaluate is None:
        raise ValueError(f"no potential {name!r} for {game}; allowed: {list(available(game))}")
    return lambda aec, seat: evaluate(aec.state_, seat)[seat]


def available(game: str) -> tuple[str, ...]:
    """The potentials ``game`` supports (``evaluation`` only with an evaluation hook)."""
    return POTENTIALS if entry(game).search.evaluation else ("score_margin",)
