"""An evaluation of a Koehandel position for search agents (``value="estimate"``).

``evaluate(state, viewer)`` estimates every seat's expected win/loss reward (``2 * P(win) - 1``) as
seat ``viewer`` can judge it. It reads only public state (holdings, pedigree owners, the deck's size)
and, of the money, the viewer's own cash and the *sum* of the other seats' cash, which it splits
evenly among them: two positions that differ only in how the others' hidden money is shared give the
same value (with 3+ players that sum is public apart from money in transit, K-A13; in a re-dealt copy it
is the copy's). A finished game is valued exactly (the rewards of K-A37, truncation as §9.3).

Model. Each animal species still open ends with one seat, independently of the others: seat ``p``
gets it with probability proportional to ``a_p ** GAMMA``, with ``a_p = h_p + ALPHA * d * m_p + PRIOR``
(``h_p`` its cards of the species, ``d`` the cards still to come, ``m_p`` its share of all cash: money
buys the cards to come; a money term for winning trades over cards already held fitted to zero).
A seat's final score (§10.1) is then ``(V + pedigrees matched) * Q + unmatched pedigrees`` over the
quartets it gets; its mean is exact under that independence and its spread the first-order (delta)
one. The winner is the top scorer (pairwise normal comparisons, normalised over the seats). Rats (four
of them cost a quartet) and pedigrees still in the deck are left out. The constants were fitted by
maximum likelihood to 1,200 four-player games of heuristic players (seeds 1000-1599 and 2000-2599;
every third of the snapshots taken every 15 steps, about 42,700, each from a random viewer): ALPHA,
PRIOR, GAMMA (Nelder-Mead) to the seat that ended with each quartet still open, then SPREAD (a scan of
2, 2.5, 3, 4; 2 best, 1.5 and less clearly worse) to the winners.
"""

from __future__ import annotations

from hiddenhand.envs.core.estimates import win_chances
from hiddenhand.envs.core.rewards import winner_rewards

from .cards import NUM_ANIMALS

ALPHA = 0.45
PRIOR = 0.26
GAMMA = 1.84
SPREAD = 2.0
#: Least spread of a score difference, in points (keeps the comparison finite).
MIN_SPREAD = 50.0


def cash_view(state, viewer: int) -> list[float]:
    """The viewer's cash, and for every other seat an even share of the others' total."""
    n, cash = state.n, state.cash
    others = (sum(cash) - cash[viewer]) / max(1, n - 1)
    return [float(cash[p]) if p == viewer else others for p in range(n)]


def quartet_chances(holdings, money: list[float], params=None) -> list[list[float]]:
    """``chances[p][s]``: the probability that seat ``p`` ends with the quartet of animal species ``s``."""
    alpha, prior, gamma = params or (ALPHA, PRIOR, GAMMA)
    n = len(holdings)
    total = sum(money)
    share = [m / total if total > 0 else 1.0 / n for m in money]
    chances = [[0.0] * NUM_ANIMALS for _ in range(n)]
    for s in range(NUM_ANIMALS):
        held = [holdings[p][s] for p in range(n)]
        owner = next((p for p in range(n) if held[p] == 4), -1)
        if owner >= 0:
            chances[owner][s] = 1.0
            continue
        left = 4 - sum(held)
        weights = [(h + alpha * left * share[p] + prior) ** gamma
                   for p, h in enumerate(held)]
        norm = sum(weights)
        for p in range(n):
            chances[p][s] = weights[p] / norm
    return chances


def score_moments(chances: list[float], owned_pedigrees: list[int], values, pedigree_value: int,
                  money: float) -> tuple[float, float]:
    """Mean and (delta-method) variance of one seat's final score (§10.1, rats left out) given its
    quartet chances: ``(V + matched pedigrees) * Q + unmatched pedigrees``, species independent."""
    owned = [s in owned_pedigrees for s in range(NUM_ANIMALS)]
    worth = [values[s] + (pedigree_value if owned[s] else 0) for s in range(NUM_ANIMALS)]
    quartets = sum(chances)
    base = sum(c * w for c, w in zip(chances, worth))
    mean, variance = money, 0.0
    for s, c in enumerate(chances):
        unmatched = pedigree_value if owned[s] else 0
        mean += unmatched * (1.0 - c)
        if not c:
            continue
        q_rest, b_rest = quartets - c, base - c * worth[s]
        mean += c * worth[s] * (1.0 + q_rest)  # E[V*Q]: each quartet's worth times (1 + the others held)
        gain = b_rest + worth[s] * (q_rest + 1.0) - unmatched
        variance += c * (1.0 - c) * gain * gain
    return mean, variance


def evaluate(state, viewer: int) -> list[float]:
    """Every seat's expected win/loss reward (``2 * P(win) - 1``) as ``viewer`` can judge it."""
    n = state.n
    if state.is_terminal:
        if state.is_truncated and state.game.truncation_reward == "zero":
            return [0.0] * n
        return winner_rewards(state.winners(), n)
    cfg = state.cfg
    money = cash_view(state, viewer)
    chances = quartet_chances(state.holdings, money)
    moments = [score_moments(chances[p], [s for s in range(NUM_ANIMALS) if state.pedigree_owner[s] == p],
                             cfg.animal_values, cfg.pedigree_value, money[p] if cfg.money_counts else 0.0)
               for p in range(n)]
    wins = win_chances([m for m, _ in moments], [v for _, v in moments], spread=SPREAD, min_spread=MIN_SPREAD)
    return [2.0 * w - 1.0 for w in wins]
