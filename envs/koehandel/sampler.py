"""Information-set sampler: re-deal everything hidden from one player, consistently with what it saw.

The money history is replayed from the start (public starting hands, donkey payouts) through every
event of the research record and the event in progress. A transfer the player saw keeps its
composition; a hidden one gets a random composition that the giver could have made then: a legal
payment of the price with the observed number of cards (§4.4), any cards of the observed number
(pedigree stakes, offers, rat pots), offer pairs ordered as the trade's outcome says. Proven facts are
checked where they happened: committed bids and buy-rights (mask mode), hands revealed by a default,
exact-payment impossibility behind an observed overpayment (strict rule) (§11.2).

The replay is a sequential Monte Carlo search: a small population of worlds, random draws steered by
what each seat must still be able to do later (:class:`Need`, computed backwards from the facts),
backtracking to the latest random draw that touched the seats of a failed fact, and a few fresh
restarts. It finds a world in the vast majority of positions; when it cannot, it raises
:class:`SamplingError` rather than fall back on the true hidden state (measured: 6 of 380 positions
of random-play games with 4 players, 0 of 240 with 6). The deck is reshuffled (2 players: keeping the
visible back colour of the top card, with unseen money cards drawn from those the player has not
seen), others' sealed pedigree commitments are redrawn, private bid raises and partial card
selections reset.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy as np

from . import actions as A
from .config import DENOMINATIONS, NUM_DENOMS, NUM_SPECIES
from .money import has_exact_payment, legal_payments, value
from .rules import MONEY, PEDIGREE, KoehandelState

POPULATIONS = (16,) * 10 + (64, 64)  # worlds per replay, one replay after the other until one succeeds
MAX_FAILURES = 12  # backtracks per replay
TRADE_TRIES = 24  # challenger offers tried per hidden trade round
LOOKAHEAD = 2  # hidden payments ahead that a draw is checked against exactly


class SamplingError(RuntimeError):
    """No consistent re-deal was found within the search budget."""


class World:
    """Sampled money: every hand, the 2-player pool of money cards the player never saw, transit."""

    def __init__(self, hands: list[list[int]], pool: list[int]):
        self.hands = hands
        self.pool = pool
        self.transit: dict[str, Any] = {}

    def copy(self) -> World:
        world = World([list(h) for h in self.hands], list(self.pool))
        world.transit = copy.deepcopy(self.transit)
        return world

    def cash(self, seat: int) -> int:
        return value(self.hands[seat])

    def take(self, seat: int, counts: list[int]) -> bool:
        hand = self.hands[seat]
        if any(hand[d] < counts[d] for d in range(NUM_DENOMS)):
            return False
        for d in range(NUM_DENOMS):
            hand[d] -= counts[d]
        return True

    def give(self, seat: int, counts: list[int]) -> None:
        for d in range(NUM_DENOMS):
            self.hands[seat][d] += counts[d]


class Need:
    """What a seat's hand must hold before a step, for the facts up to its next hidden inflow.

    Coarse bounds (cards per denomination, cash, non-zero cards, n cards worth X for each hidden
    payment ahead) hold for the whole stretch; ``plan`` and ``then`` are exact up to the next hidden
    payment: after the seen moves and checks of ``plan``, some legal payment of ``then`` must leave a
    hand meeting the need after it. Necessary conditions only, used to steer random draws.
    """

    __slots__ = ("cards", "cash", "nonzero", "payments", "plan", "then")

    def __init__(self, cards=None, cash: int = 0, nonzero: int = 0, payments: tuple = (),
                 plan: tuple = (), then: tuple | None = None):
        self.cards = cards or [0] * NUM_DENOMS
        self.cash, self.nonzero, self.payments = cash, nonzero, payments
        self.plan, self.then = plan, then

    def met_by(self, hand: list[int], depth: int = LOOKAHEAD) -> bool:
        """Whether ``hand`` meets the need; ``depth`` hidden payments ahead are checked exactly."""
        if not (all(h >= c for h, c in zip(hand, self.cards)) and value(hand) >= self.cash
                and sum(hand) - hand[0] >= self.nonzero):
            return False
        if not all(_top_value(hand, size) >= price for size, price in self.payments):
            return False
        if not depth or self.then is None:
            return True
        hand = list(hand)
        for kind, data in self.plan:
            if kind == "out":
                hand = _minus(hand, data)
                if min(hand) < 0:
                    return False
            elif kind == "in":
                hand = _plus(hand, data)
            elif kind == "at_least" and value(hand) < data:
                return False
            elif kind == "reveal" and hand != list(data):
                return False
        (price, size, rule), after = self.then
        return any(after.met_by(_minus(hand, f), depth - 1)
                   for f in legal_payments(hand, price, rule) if sum(f) == size)

    def before(self, effect: tuple) -> Need:
        """The need before an effect on this seat, given the need after it."""
        kind, data = effect
        cards, cash, nonzero, payments = list(self.cards), self.cash, self.nonzero, self.payments
        plan, then = (effect,) + self.plan, self.then
        if kind == "hidden_in":  # n unseen cards worth at most ``most`` arrive
            size, most = data
            return Need([max(0, c - size) for c in cards], cash - most, nonzero - size,
                        tuple((n, price - most) for n, price in payments))
        if kind == "out":
            cards = [c + k for c, k in zip(cards, data)]
            cash, nonzero = cash + value(data), nonzero + sum(data) - data[0]
        elif kind == "in":
            cards = [max(0, c - k) for c, k in zip(cards, data)]
            cash, nonzero = cash - value(data), nonzero - (sum(data) - data[0])
            payments = tuple((size, price - value(data)) for size, price in payments)
        elif kind == "at_least":
            cash = max(cash, data)
        elif kind == "reveal":
            cards = [max(c, k) for c, k in zip(cards, data)]
            cash, nonzero = max(cash, value(data)), max(nonzero, sum(data) - data[0])
        elif kind == "pay":  # a hidden payment of price X with n cards
            price, size, _ = data
            cash, nonzero = max(price, cash + price), max(size, nonzero + size)
            payments = payments + ((size, price),)
            plan, then = (), (data, self)
        else:  # any_out: unknown cards leave; the exact part cannot look past it
            plan, then = (), None
        return Need(cards, cash, nonzero, payments, plan, then)


def _top_value(hand: list[int], size: int) -> int:
    """Value of the ``size`` most valuable cards of ``hand``."""
    total = 0
    for d in range(NUM_DENOMS - 1, 0, -1):
        take = min(size, hand[d])
        total += take * DENOMINATIONS[d]
        size -= take
        if not size:
            break
    return total


class Step:
    """One fact replayed on a world. ``run(world, rng, needs)`` returns False when the world
    contradicts it; ``needs`` are the seats' needs after the step (random steps draw to meet them).
    ``actual`` keeps what really happened in a random step, for tests of the sampler only."""

    __slots__ = ("run", "random", "seats", "effects", "actual")

    def __init__(self, run, random: bool, effects: list[tuple[int, tuple]], actual=None):
        self.run, self.random, self.effects, self.actual = run, random, effects, actual
        self.seats = frozenset(seat for seat, _ in effects)


def random_cards(counts: list[int], size: int, rng: np.random.Generator) -> list[int] | None:
    """A uniformly random sub-multiset of ``size`` cards (every card equally likely)."""
    cards = [d for d in range(NUM_DENOMS) for _ in range(counts[d])]
    if len(cards) < size:
        return None
    out = [0] * NUM_DENOMS
    for index in rng.choice(len(cards), size, replace=False) if size else ():
        out[cards[index]] += 1
    return out


def sub_multisets(counts: list[int], size: int) -> list[tuple[list[int], int]]:
    """Every sub-multiset of ``size`` cards as (count vector, number of card subsets it stands for)."""
    found: list[tuple[list[int], int]] = []
    chosen = [0] * NUM_DENOMS

    def extend(d: int, left: int, ways: int) -> None:
        if d == NUM_DENOMS:
            if left == 0:
                found.append((list(chosen), ways))
            return
        for k in range(min(left, counts[d]) + 1):
            chosen[d] = k
            extend(d + 1, left - k, ways * _binomial(counts[d], k))
        chosen[d] = 0

    extend(0, size, 1)
    return found


def _weighted(options: list[tuple[list[int], int]], rng: np.random.Generator) -> list[int]:
    """One of the (composition, weight) options, drawn in proportion to its weight."""
    weights = np.array([ways for _, ways in options], float)
    return options[int(rng.choice(len(options), p=weights / weights.sum()))][0]


def _binomial(n: int, k: int) -> int:
    out = 1
    for i in range(k):
        out = out * (n - i) // (i + 1)
    return out


class _History:
    """Builds the replay steps of one state as seen by ``viewer``."""

    def __init__(self, state: KoehandelState, viewer: int):
        self.s, self.v, self.cfg = state, viewer, state.cfg
        self.steps: list[Step] = []
        self.transit_seen: dict[str, list[int] | int] = {}  # composition if seen, else card count
        self.deliveries: dict[str, dict[str, int]] = {}  # transit key -> taker and step index
        self.needs: list[list[Need]] = []

    def fixed(self, effects: list, check: Callable) -> None:
        self.steps.append(Step(lambda world, rng, needs: check(world, rng), False, effects))

    def random(self, effects: list, draw: Callable, actual) -> None:
        self.steps.append(Step(draw, True, effects, actual))

    # ---------------------------------------------------------------- primitive facts
    def payout(self, amount: int) -> None:
        d = (0, 10, 20, 50, 100, 200, 500).index(amount)
        one = [0] * NUM_DENOMS
        one[d] = 1

        def apply(world: World, rng) -> bool:
            for seat in range(self.s.n):
                world.give(seat, one)
            return True
        self.fixed([(seat, ("in", one)) for seat in range(self.s.n)], apply)

    def at_least(self, seat: int, amount: int) -> None:
        self.fixed([(seat, ("at_least", amount))], lambda world, rng: world.cash(seat) >= amount)

    def revealed(self, seat: int, hand: list[int]) -> None:
        self.fixed([(seat, ("reveal", hand))], lambda world, rng: world.hands[seat] == list(hand))

    def transfer(self, giver: int | None, taker: int | None, counts: list[int], seen: bool,
                 key: str | None = None, price: int | None = None) -> None:
        """Cards leave ``giver`` for ``taker`` (None: into transit under ``key``, delivered later by
        :meth:`from_transit`); ``price`` marks an amount payment (§4.4)."""
        size = sum(counts)
        rule = self.cfg.payment_rule
        delivery: dict[str, int] = {"start": len(self.steps)}
        if key is not None:
            self.transit_seen[key] = counts if seen else sum(counts)
            self.deliveries[key] = delivery
        if seen:
            effects = [(giver, ("out", counts))] + ([(taker, ("in", counts))] if taker is not None else [])

            def apply(world: World, rng) -> bool:
                if price is not None and rule == "strict" and value(counts) > price \
                        and has_exact_payment(world.hands[giver], price):
                    return False  # an overpayment proves no exact payment existed (K-A11)
                if not world.take(giver, counts):
                    return False
                _deliver(world, taker, counts, key)
                return True
            self.fixed(effects, apply)
            return
        most = min(500 * size, price + 490) if price is not None else 500 * size
        effects = [(giver, ("pay", (price, size, rule)) if price is not None else ("any_out", size))]
        effects += [(taker, ("hidden_in", (size, most)))] if taker is not None else []

        def draw(world: World, rng, needs) -> bool:
            hand = world.hands[giver]
            if price is not None:
                options = [(f, 1) for f in legal_payments(hand, price, rule) if sum(f) == size]
            else:  # every card equally likely: weigh each composition by its number of card sets
                options = sub_multisets(hand, size)
            fits = [(f, ways) for f, ways in options if _fits(world, needs, giver, f, taker)
                    and ("taker" not in delivery or self.needs[delivery["index"] + 1][delivery["taker"]].met_by(
                        _plus(world.hands[delivery["taker"]], f)))]
            if not fits:
                return False
            chosen = list(_weighted(fits, rng))
            world.take(giver, chosen)
            _deliver(world, taker, chosen, key)
            return True
        self.random(effects, draw, [(giver, taker, key, counts)])

    def from_transit(self, key: str, taker: int) -> None:
        seen = self.transit_seen[key]
        delivery = self.deliveries.pop(key, None)
        if delivery is not None and not any(taker in step.seats for step in self.steps[delivery["start"] + 1:]):
            # the taker's hand does not change in between: the drawn cards must suit his needs then
            delivery.update(taker=taker, index=len(self.steps))

        def apply(world: World, rng) -> bool:
            world.give(taker, world.transit.pop(key))
            return True
        effect = ("hidden_in", (seen, 500 * seen)) if isinstance(seen, int) else ("in", seen)
        self.fixed([(taker, effect)], apply)

    # ---------------------------------------------------------------- events
    def auction(self, e: dict[str, Any]) -> None:
        if e["donkey_payout"]:
            self.payout(e["donkey_payout"])
        self.bids_and_defaults(e["max_bids"], e["defaults"])
        if e["payment"] is None:
            return
        if e["decision"] == "buy":
            self.at_least(e["auctioneer"], e["price"])
        seen = self.v in (e["payer"], e["payee"]) or self.cfg.public_auction_payments
        self.transfer(e["payer"], e["payee"], e["payment"], seen, price=e["price"])

    def bids_and_defaults(self, max_bids: list[int], defaults: list[dict[str, Any]]) -> None:
        for default in defaults:
            self.revealed(default["player"], default["hand"])
        if self.cfg.overbid_mode == "mask":
            for seat, bid in enumerate(max_bids):
                if bid:
                    self.at_least(seat, bid)

    def pedigree(self, e: dict[str, Any]) -> None:
        for default in e["defaults"]:
            self.revealed(default["player"], default["hand"])
        if e["payment"] is None:
            return
        w, a = e["winner"], e["auctioneer"]
        stake_seen = self.v == w or (self.v == a and e["decision"] == "decline")
        self.transfer(w, None, e["stake"], stake_seen, key="stake")
        if e["decision"] == "decline":
            self.from_transit("stake", a)
        else:
            self.transfer(a, w, e["payment"], self.v in (a, w))
            self.from_transit("stake", w)

    def rat(self, pot: list[list[int]], taker: int | None) -> None:
        """The pot's lays; with a taker, the pot goes to him (K-A18 decides what he saw)."""
        n = self.s.n
        laid = [[0] * NUM_DENOMS for _ in range(n)]
        for seat, d in pot:
            laid[seat][d] += 1
        took, attribution = self.v == taker, self.cfg.rat_pot_attribution
        if took and not attribution:
            self._pot_split(laid)
        else:
            for seat in range(n):
                if any(laid[seat]):
                    self.transfer(seat, None, laid[seat], seat == self.v or took, key=f"pot{seat}")
        if taker is not None:
            for seat in range(n):
                if any(laid[seat]):
                    self.from_transit(f"pot{seat}", taker)

    def _pot_split(self, laid: list[list[int]]) -> None:
        """The taker saw the pot as a whole: split it among the other layers at random."""
        n, me = self.s.n, self.v
        others = [seat for seat in range(n) if seat != me and any(laid[seat])]
        rest = [sum(laid[seat][d] for seat in others) for d in range(NUM_DENOMS)]
        if any(laid[me]):
            self.transfer(me, None, laid[me], True, key=f"pot{me}")
        for seat in others:
            self.transit_seen[f"pot{seat}"] = sum(laid[seat])

        def split(world: World, rng, needs) -> bool:
            cards = [d for d in range(NUM_DENOMS) for _ in range(rest[d])]
            rng.shuffle(cards)
            start = 0
            for seat in others:
                size = sum(laid[seat])
                share = [0] * NUM_DENOMS
                for d in cards[start:start + size]:
                    share[d] += 1
                start += size
                if not world.take(seat, share):
                    return False
                world.transit[f"pot{seat}"] = share
            return True
        self.random([(seat, ("any_out", sum(laid[seat]))) for seat in others], split,
                    [(seat, None, f"pot{seat}", laid[seat]) for seat in others])

    def trade_round(self, c: int, d: int, rnd: dict[str, Any]) -> None:
        trader = self.v in (c, d)
        offer, counter = rnd["offer"], rnd["counter"]
        if trader or counter is None:
            self.transfer(c, None, offer, trader, key="offer")
            if counter is not None:
                self.transfer(d, c, counter, True)
            self.from_transit("offer", d)
            return
        result = rnd["result"]
        given, asked = sum(offer), sum(counter)

        def draw(world: World, rng, needs) -> bool:
            mine_options = sub_multisets(world.hands[c], given)
            weights = np.array([ways for _, ways in mine_options], float)
            order = rng.choice(len(mine_options), min(TRADE_TRIES, len(mine_options)), replace=False,
                               p=weights / weights.sum())
            for index in order:
                mine = mine_options[index][0]
                worth = value(mine)
                options = [(f, ways) for f, ways in sub_multisets(world.hands[d], asked)
                           if _outcome(worth, value(f)) == result
                           and needs[c].met_by(_plus(_minus(world.hands[c], mine), f))
                           and needs[d].met_by(_plus(_minus(world.hands[d], f), mine))]
                if options:
                    break
            else:
                return False
            theirs = _weighted(options, rng)
            world.take(c, mine)
            world.take(d, theirs)
            world.give(c, theirs)
            world.give(d, mine)
            return True
        self.random([(c, ("hidden_in", (asked, 500 * asked))), (d, ("hidden_in", (given, 500 * given)))], draw,
                    [(c, None, "round", offer), (d, c, None, counter), (None, d, "round", offer)])

    def distribution(self, e: dict[str, Any]) -> None:
        p = e["distributor"]
        for card, to, seen_by in ((e["x"], e["x_to"], (p, e["x_to"])), (e["y"], e["y_to"], (e["y_to"],))):
            if card is None or card < MONEY:
                continue
            if self.v in seen_by:
                one = [0] * NUM_DENOMS
                one[card - MONEY] = 1
                self.fixed([(to, ("in", one))], _give_card(to, card - MONEY))
            else:
                self.random([(to, ("hidden_in", (1, 500)))], _draw_unseen(to), [(None, to, None, card - MONEY)])
        for payout in e["donkey_payouts"]:
            if payout:
                self.payout(payout)


def _minus(hand: list[int], counts: list[int]) -> list[int]:
    return [h - k for h, k in zip(hand, counts)]


def _plus(hand: list[int], counts: list[int]) -> list[int]:
    return [h + k for h, k in zip(hand, counts)]


def _fits(world: World, needs: list[Need], giver: int, counts, taker: int | None) -> bool:
    """Whether giving ``counts`` leaves the giver (and the taker) able to meet their needs."""
    if not needs[giver].met_by(_minus(world.hands[giver], counts)):
        return False
    return taker is None or needs[taker].met_by(_plus(world.hands[taker], counts))


def _outcome(offer: int, counter: int) -> str:
    return "challenger" if offer > counter else "challenged" if counter > offer else "tie"


def _deliver(world: World, taker: int | None, counts: list[int], key: str | None) -> None:
    if taker is None:
        world.transit[key] = list(counts)
    else:
        world.give(taker, counts)


def _give_card(seat: int, d: int):
    def apply(world: World, rng) -> bool:
        world.hands[seat][d] += 1
        return True
    return apply


def _draw_unseen(seat: int):
    def draw(world: World, rng, needs) -> bool:
        hand = world.hands[seat]
        cards = [d for d in range(NUM_DENOMS) for _ in range(world.pool[d])
                 if needs[seat].met_by(hand[:d] + [hand[d] + 1] + hand[d + 1:])]
        if not cards:
            return False
        d = cards[int(rng.integers(len(cards)))]
        world.pool[d] -= 1
        world.hands[seat][d] += 1
        return True
    return draw


# ---------------------------------------------------------------------------------- assembly
def _history(state: KoehandelState, viewer: int) -> _History:
    """Replay steps of every settled event and of the event in progress."""
    h = _History(state, viewer)
    for e in state.events:
        kind = e["kind"]
        if kind == "auction":
            h.auction(e)
        elif kind == "pedigree":
            h.pedigree(e)
        elif kind == "rat":
            h.rat(e["pot"], e["taker"])
        elif kind == "trade":
            for rnd in e["rounds"]:
                h.trade_round(e["challenger"], e["challenged"], rnd)
        else:
            h.distribution(e)
    s = state
    if s.n > 2 and s.auctioneer >= 0 and s.card >= 0:  # an auction in progress
        if s.payout:
            h.payout(s.payout)
        h.bids_and_defaults(s.max_bid if s.card < NUM_SPECIES - 1 else [0] * s.n, s.defaults)
        if s.decision == A.D_PAY:
            h.at_least(s.payer, s.amount)
        if s.decision in (A.D_PED_BUYRIGHT, A.D_PED_CARDS):
            h.transfer(s.winner, None, s.stake, viewer == s.winner, key="stake")
        if s.card == NUM_SPECIES - 1:
            h.rat(s.pot, None)
    if s.challenger >= 0:  # a trade in progress
        for rnd in s.rounds:
            if "result" in rnd:
                h.trade_round(s.challenger, s.challenged, rnd)
        if s.decision in (A.D_RESPONSE, A.D_COUNTER):
            h.transfer(s.challenger, None, s.offers[0], viewer == s.challenger, key="offer")
    return h


def _unseen_money_pool(state: KoehandelState, viewer: int) -> list[int]:
    """2 players: money cards of the deck the viewer never saw, by denomination."""
    if state.n != 2:
        return [0] * NUM_DENOMS
    pool = state.cfg.two_player_deck_money()
    for e in state.events:
        if e["kind"] != "distribution":
            continue
        for card, seen in ((e["x"], viewer in (e["distributor"], e["x_to"])), (e["y"], viewer == e["y_to"])):
            if card is not None and card >= MONEY and seen:
                pool[card - MONEY] -= 1
    if state.decision == A.D_DISTRIBUTE and state.current_player == viewer and state.looked >= MONEY:
        pool[state.looked - MONEY] -= 1
    return pool


def _needs(steps: list[Step], n: int) -> list[list[Need]]:
    """needs[k][seat]: what ``seat`` must hold after step k−1 (before step k), computed backwards."""
    needs = [[Need() for _ in range(n)]]
    for step in reversed(steps):
        after = needs[-1]
        before = list(after)
        for seat, effect in reversed(step.effects):
            before[seat] = before[seat].before(effect)
        needs.append(before)
    return needs[::-1]


def _search(history: _History, world: World, rng: np.random.Generator) -> World:
    """Replay the history on sampled worlds, starting afresh a few times if a replay gets stuck."""
    history.needs = _needs(history.steps, len(world.hands))
    for population in POPULATIONS:
        found = _replay(history, world, rng, population)
        if found is not None:
            return found
    raise SamplingError("koehandel: no consistent re-deal found (every sampled history contradicted "
                        "an observed fact)")


def _replay(history: _History, world: World, rng: np.random.Generator, population: int) -> World | None:
    """Sequential Monte Carlo with conflict-directed backtracking.

    A population of worlds replays the steps; random steps draw what also meets the seats' needs
    further on (:class:`Need`); a world that contradicts a fact dies and a survivor is cloned in its
    place. When all die at a step, the replay resumes from the population saved before the latest
    random step that touched the seats involved; if that fails again, from the one before it.
    """
    steps, needs = history.steps, history.needs
    saved = {0: [world.copy() for _ in range(population)]}
    k = frontier = failures = 0
    culprit, conflict = len(steps), set()
    while k < len(steps):
        step = steps[k]
        alive = [w for w in (w.copy() for w in saved[k]) if step.run(w, rng, needs[k + 1])]
        if alive:
            while len(alive) < population:
                alive.append(alive[int(rng.integers(len(alive)))].copy())
            k += 1
            saved[k] = alive
            if k > frontier:
                frontier, culprit, conflict = k, len(steps), set()
            continue
        failures += 1
        if failures > MAX_FAILURES:
            return None
        conflict |= step.seats
        culprit = _culprit(steps, culprit - 1 if k >= culprit else k, conflict)
        if culprit >= 0:
            conflict |= steps[culprit].seats
        k = max(culprit, 0)
    return saved[k][int(rng.integers(population))]


def _culprit(steps: list[Step], k: int, conflict: set) -> int:
    """The latest random step at or before ``k`` touching a seat in ``conflict`` (−1 if none)."""
    while k >= 0 and not (steps[k].random and steps[k].seats & conflict):
        k -= 1
    return k


def resample_hidden(state: KoehandelState, viewer: int, rng: np.random.Generator) -> None:
    """Re-deal, in place, everything about ``state`` that ``viewer`` cannot know (§11.2)."""
    s, cfg = state, state.cfg
    start = cfg.start_hand()
    world = World([list(start) for _ in range(s.n)], _unseen_money_pool(s, viewer))
    world = _search(_history(s, viewer), world, rng)
    if world.hands[viewer] != s.hands[viewer]:
        raise SamplingError("koehandel: re-deal disagrees with the viewer's own hand")
    for seat in range(s.n):
        s.hands[seat] = world.hands[seat]
        s.cash[seat] = value(world.hands[seat])
    if "stake" in world.transit:
        s.stake = world.transit["stake"]
    if "offer" in world.transit:
        s.offers[0] = world.transit["offer"]
    _relabel_pot(s, world)
    _reset_private_choices(s, viewer, rng)
    _reshuffle_deck(s, viewer, world.pool, rng)
    s.version += 1


def _relabel_pot(s: KoehandelState, world: World) -> None:
    """Give the pot's lays the sampled denominations, seat by seat in laying order."""
    for seat in range(s.n):
        share = world.transit.get(f"pot{seat}")
        if share is None:
            continue
        cards = [d for d in range(NUM_DENOMS) for _ in range(share[d])]
        for lay in s.pot:
            if lay[0] == seat:
                lay[1] = cards.pop()


def _reset_private_choices(s: KoehandelState, viewer: int, rng: np.random.Generator) -> None:
    """Others' private raise and partial selections restart; their sealed commitments are redrawn."""
    mover = s.current_player
    if mover != viewer and s.decision in (A.D_PAY, A.D_OFFER, A.D_COUNTER, A.D_STAKE, A.D_PED_CARDS):
        s.selection = [0] * NUM_DENOMS
        if s.decision == A.D_PAY:
            s.options = [list(f) for f in legal_payments(s.hands[mover], s.amount, s.cfg.payment_rule)]
    if mover != viewer and s.decision == A.D_BID:
        s.pending = 0
    if s.auctioneer < 0 or not (PEDIGREE <= s.card < MONEY):
        return
    top = A.MAX_SLAP
    for seat, commit in enumerate(s.commits):
        if seat == viewer or commit is None:
            continue
        if s.kstar and (seat == s.winner or seat in s.tied):
            continue
        limit = top if s.cfg.overbid_mode != "mask" else min(top, s.sizes[seat])
        if s.kstar:  # the result is public: the others committed less (or, ties unannounced, as much)
            limit = min(limit, s.kstar if not s.cfg.reveal_pedigree_ties else s.kstar - 1)
        s.commits[seat] = int(rng.integers(limit + 1))


def _reshuffle_deck(s: KoehandelState, viewer: int, pool: list[int], rng: np.random.Generator) -> None:
    """3-6 players: shuffle the deck. 2 players: re-deal the unseen money between the deck and the
    removed cards, keeping the public back colours of the top card and of a card being looked at."""
    if s.n > 2:
        rng.shuffle(s.deck)
        return
    hidden_look = s.decision == A.D_DISTRIBUTE and s.current_player != viewer
    cards = list(s.deck) + ([s.looked] if hidden_look else [])
    money = [d for d in range(NUM_DENOMS) for _ in range(pool[d])]
    rng.shuffle(money)
    zeros = s.removed[0]  # the 2-player deck holds no zeros, so removed zeros are public
    randomly_removed = sum(s.removed) - zeros
    s.removed = [zeros] + [0] * (NUM_DENOMS - 1)
    for d in money[:randomly_removed]:
        s.removed[d] += 1
    fresh = iter(money[randomly_removed:])
    cards = [MONEY + next(fresh) if c >= MONEY else c for c in cards]
    rng.shuffle(cards)
    wanted = ([s.looked >= MONEY] if hidden_look else []) + ([s.deck[-1] >= MONEY] if s.deck else [])
    chosen = []
    for is_money in wanted:
        index = next(i for i, c in enumerate(cards) if (c >= MONEY) == is_money)
        chosen.append(cards.pop(index))
    if hidden_look:
        s.looked = s.card = chosen.pop(0)
    s.deck = cards + chosen  # the top card (if any) last
