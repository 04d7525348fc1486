"""Counterfactual probes of agents' cow-trade decisions in Koehandel Master (§7).

A probe takes a position, holds fixed everything one trader sees, varies one thing, and asks the agent
what it would do (its action distribution, :mod:`hiddenhand.agents.distribution`):

* :func:`response_curve`: the challenged player's answer against the number of cards offered. From a
  position where the challenger is about to lay his offer (§7.4 step 2), copies re-dealt for the
  challenged player (``determinize``: the challenger's hand as the challenged player may believe it) each
  lay k cards drawn at random from that hand; the challenged agent's probability of ``ACCEPT`` is averaged
  over the copies, for every k the challenger could lay.
* :func:`offer_curve`: the challenger's offer against the stake's worth and his own cash: the same
  position with the traded species changed (every species both traders hold one of, the stake set to one
  card each) and with his hand scaled down, the offer the agent lays each time (its law over compositions,
  :func:`offer_distribution`) summarised by its mean value, cards and 0-cards.
* :func:`collect_offers`: such positions from real games played by given agents (each challenger's first
  offer decision, nothing chosen yet), as snapshots.

The agents act as they would in play: an agent is asked at the very position, with its own observation
and mask; nothing it could not see enters. Needs the agent's game options (``env_options_for``).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import numpy as np

from hiddenhand.agents.base import Agent, bind_agents, play_decisions
from hiddenhand.agents.distribution import action_distribution, is_search

from . import actions as A
from .cards import DENOMINATIONS, MONEY, NUM_ANIMALS, NUM_DENOMS, NUM_SPECIES, SPECIES_NAMES
from .money import value

Offer = tuple[int, ...]


def ask(agent: Agent, env: Any, samples: int = 8) -> dict[int, float]:
    """``agent``'s action distribution for the seat to move in ``env``."""
    seat = env.agent_selection
    observed = env.observe(seat)
    return action_distribution(agent, observed["observation"], observed["action_mask"],
                               env if is_search(agent) else None, seat, samples)


def lay(env: Any, counts: Sequence[int]) -> None:
    """The seat building an offer or counter-offer lays ``counts`` card by card, lowest first. With
    ``auto_resolve_forced`` the env plays forced steps itself (a first card of the only denomination held,
    a last card, DONE): the cards it chose already count, and laying stops where it laid the rest."""
    seat = env.agent_selection

    def building() -> bool:
        state = env.unwrapped.state_
        return env.agent_selection == seat and state.decision in (A.D_OFFER, A.D_COUNTER) and not state.is_terminal

    if building():
        chosen = env.unwrapped.state_.selection
        if any(c > k for c, k in zip(chosen, counts)):
            raise ValueError(f"the cards already chosen {chosen} are not part of the offer {list(counts)}")
        for d in range(NUM_DENOMS):
            for _ in range(counts[d] - chosen[d]):
                if building():
                    env.step(A.CARD + d)
    if building():
        env.step(A.DONE)


def offer_distribution(agent: Agent, env: Any, samples: int = 8, floor: float = 1e-3) -> dict[Offer, float]:
    """The law of the offer (or counter-offer) ``agent`` lays from ``env``, where the seat to move is
    about to choose its first card (or its first free one, after cards the env played as forced): a
    trained agent's card steps are followed through every branch of probability at least ``floor`` (the
    branches' total renormalised); any other agent plays the steps ``samples`` times from
    ``reset(seed)`` (search agents once) and the laid offers' frequencies are its law."""
    seat, decision = env.agent_selection, env.unwrapped.state_.decision
    law: dict[Offer, float] = {}

    def building(copy_env: Any) -> bool:
        return copy_env.agent_selection == seat and copy_env.unwrapped.state_.decision == decision \
            and not copy_env.unwrapped._game_over

    def follow(copy_env: Any, chosen: list[int], probability: float) -> None:
        for action, p in ask(agent, copy_env).items():
            if probability * p < floor:
                continue
            if action == A.DONE:
                law[tuple(chosen)] = law.get(tuple(chosen), 0.0) + probability * p
                continue
            child, more = copy.deepcopy(copy_env), list(chosen)
            child.step(action)
            more[action - A.CARD] += 1
            if building(child):
                follow(child, more, probability * p)
            else:  # DONE was forced and played by the env
                law[tuple(more)] = law.get(tuple(more), 0.0) + probability * p

    start = list(env.unwrapped.state_.selection)  # forced cards the env chose already
    if hasattr(agent, "logits"):
        follow(env, start, 1.0)
    else:
        runs = 1 if is_search(agent) else samples
        for seed in range(runs):
            play, chosen = copy.deepcopy(env), list(start)
            agent.reset(seed)
            while building(play):
                if is_search(agent):
                    bind_agents(play, {seat: agent})
                observed = play.observe(seat)
                action = int(agent.act(observed["observation"], observed["action_mask"]))
                if action == A.DONE:
                    break
                play.step(action)
                chosen[action - A.CARD] += 1
            law[tuple(chosen)] = law.get(tuple(chosen), 0.0) + 1.0 / runs
    total = sum(law.values())
    return {offer: p / total for offer, p in law.items()}


def response_curve(agent: Agent, env: Any, copies: int = 4, seed: int = 0, samples: int = 8) -> list[dict]:
    """Per card count k the challenger could lay (``env`` at his offer decision, nothing chosen): the
    challenged agent's mean probability of ACCEPT over ``copies`` re-deals, each laying k cards drawn from
    the challenger's hand there. Rows: ``cards``, ``accept``, ``mean_value`` (of the offers laid)."""
    state = env.unwrapped.state_
    challenged = env.possible_agents[state.challenged]
    rng = np.random.default_rng(seed)
    rows = []
    for k in range(1, sum(state.hands[state.challenger]) + 1):
        accepts, values = [], []
        for j in range(copies):
            world = env.unwrapped.determinize(challenged, seed=seed + 1000 * k + j)
            hand = world.state_.hands[state.challenger]
            cards = [d for d in range(NUM_DENOMS) for _ in range(hand[d])]
            offer = [0] * NUM_DENOMS
            for i in rng.choice(len(cards), k, replace=False):
                offer[cards[i]] += 1
            lay(world, offer)
            if world.agent_selection != challenged or world.state_.decision != A.D_RESPONSE:
                continue  # the answer was forced (no money to counter with): not a decision
            accepts.append(ask(agent, world, samples).get(A.ACCEPT, 0.0))
            values.append(value(offer))
        if accepts:
            rows.append({"cards": k, "accept": float(np.mean(accepts)), "mean_value": float(np.mean(values))})
    return rows


def offer_curve(agent: Agent, env: Any, scales: Sequence[float] = (1.0, 0.5), samples: int = 8) -> list[dict]:
    """The challenger's offer (``env`` at his offer decision, nothing chosen) with the stake on each
    species that two more cards fit (one card each at stake) and his hand scaled by each of ``scales``.
    Rows: ``species``, ``worth`` (quartet value / 4), ``cash``, ``mean_value``, ``mean_cards``,
    ``mean_zeros`` (the means of the law of his offer, :func:`offer_distribution`)."""
    state = env.unwrapped.state_
    c, d = state.challenger, state.challenged
    values = env.unwrapped.game.cfg.animal_values
    rows = []
    for species in range(NUM_ANIMALS):
        if sum(held[species] for seat, held in enumerate(state.holdings) if seat not in (c, d)) > 2:
            continue
        for scale in scales:
            probe = trade_position(env, species, _scaled(state.hands[c], scale))
            law = offer_distribution(agent, probe, samples)
            rows.append({
                "species": SPECIES_NAMES[species], "worth": values[species] / 4,
                "cash": value(probe.unwrapped.state_.hands[c]),
                "mean_value": sum(p * value(o) for o, p in law.items()),
                "mean_cards": sum(p * sum(o) for o, p in law.items()),
                "mean_zeros": sum(p * o[0] for o, p in law.items()),
            })
    return rows


def _scaled(hand: Sequence[int], scale: float) -> list[int]:
    """The cheapest cards of ``hand`` worth about ``scale`` of it (at least one card)."""
    keep, budget, left = [0] * NUM_DENOMS, scale * value(hand), list(hand)
    for d in range(NUM_DENOMS):
        while left[d] and (value(keep) + DENOMINATIONS[d] <= budget or not any(keep)):
            keep[d] += 1
            left[d] -= 1
    return keep


def trade_position(env: Any, species: int, hand: Sequence[int] | None = None, stake: int = 1) -> Any:
    """A copy of ``env`` set up at the challenger's first offer decision in a trade on ``species`` with
    ``stake`` cards each (both traders hold ``stake`` of it), every other holding, hand and pedigree as in
    ``env``, the deck in its order (cards taken out or added at the bottom to match), and the challenger
    holding ``hand`` (default: his own). The event record starts empty (``set_position``)."""
    state = env.unwrapped.state_
    c, d, n = state.challenger, state.challenged, state.n
    hands = {seat: list(hand) if seat == c and hand is not None else state.hands[seat] for seat in range(n)}
    owners = {s: seat for s, seat in enumerate(state.pedigree_owner) if seat >= 0}
    return koehandel_trade(env, c, d, species, stake, hands, [list(h) for h in state.holdings], owners,
                           list(reversed(state.deck)))


def koehandel_trade(env: Any, challenger: int, challenged: int, species: int, stake: int,
                    hands: dict[int, Sequence[int]], holdings: list[list[int]] | None = None,
                    pedigrees: dict[int, int] | None = None, deck: Sequence[int] = ()) -> Any:
    """A copy of ``env`` set up (``set_position``, seed 0) with ``hands`` (money counts per seat),
    ``holdings`` (cards per species and seat; default none), ``pedigrees`` (species -> owner), both traders
    holding ``stake`` cards of ``species``, and ``deck`` (top first; cards missing are added at the
    bottom, surplus ones taken from it), then the challenger's trade with the challenged player begun:
    his first offer decision is next."""
    n = env.unwrapped.game.num_players
    holdings = [list(row) for row in holdings] if holdings else [[0] * NUM_SPECIES for _ in range(n)]
    holdings[challenger][species] = holdings[challenged][species] = stake
    pedigrees = pedigrees or {}
    spec = {seat: {SPECIES_NAMES[s]: k for s, k in enumerate(row) if k} for seat, row in enumerate(holdings)}
    for s, seat in pedigrees.items():
        spec[seat][f"pedigree {SPECIES_NAMES[s]}"] = 1
    wanted = [4 - sum(row[c] for row in holdings) for c in range(NUM_SPECIES)] + \
        [0 if s in pedigrees else 1 for s in range(NUM_ANIMALS)]
    kept = []
    for card in deck:
        if card >= MONEY or wanted[card] > 0:
            kept.append(card)
            if card < MONEY:
                wanted[card] -= 1
    kept += [card for card, k in enumerate(wanted) for _ in range(k)]
    probe = copy.deepcopy(env)
    probe.unwrapped.set_position(seed=0, holdings=spec, hands={seat: _values(h) for seat, h in hands.items()},
                                 turn_player=challenger, deck=kept)
    if probe.unwrapped.state_.decision == A.D_TURN:
        probe.step(A.TRADE)
    if probe.unwrapped.state_.decision == A.D_TARGET:
        probe.step(A.target_action((challenged - challenger) % n, species))
    return probe


def _values(counts: Sequence[int]) -> list[int]:
    return [v for v, k in zip(DENOMINATIONS, counts) for _ in range(k)]


def collect_offers(agents: Sequence[Agent], env: Any, games: int = 10, seed: int = 0) -> list[dict[str, Any]]:
    """Snapshots of every challenger's first offer decision (round 1, nothing chosen) in ``games`` games of
    ``env`` played by ``agents`` (one per seat, the lineup rotated each game), with the agents' names by
    seat (``names``)."""
    found = []
    for g in range(games):
        lineup = [agents[(seat + g) % len(agents)] for seat in range(len(agents))]
        env.reset(seed=seed + g)
        for position, agent in enumerate(lineup):
            agent.reset(seed + g * 100 + position)
        bind_agents(env, lineup)
        for _ in play_decisions(env, lineup):
            state = env.unwrapped.state_
            if state.decision == A.D_OFFER and state.trade_round == 1 and not any(state.selection):
                found.append({"snapshot": env.unwrapped.snapshot(), "names": [a.name for a in lineup]})
    return found
