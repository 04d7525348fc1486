"""Information-set sampler: re-deal everything hidden from one player, consistently with what it saw.

``resample_hidden(state, viewer, rng)`` rewrites ``state`` in place into a world that ``viewer``
cannot tell from the true one, built only from what ``viewer`` knows and from ``rng``:

1. :class:`_History` turns the public record, as ``viewer`` saw it, into a list of steps on the players'
   money (the public starting hands, donkey payouts, transfers whose composition ``viewer`` saw, and
   *hidden* transfers of which it knows only the number of cards, the price of a payment, a trade's
   outcome; proven facts: bids covered by cash in ``mask`` mode, hands shown by a default, no exact
   payment behind a strict overpayment; docs/koehandel_rules.md §4-§8). It reads no hidden value.
2. :func:`_search` replays the steps forward and draws each hidden transfer from the compositions that
   the giver could have made then (a legal payment of the price with that many cards, or any cards of
   that number weighted by how many card sets they stand for, offer pairs ordered as the trade's
   outcome says). Draws are steered by what each seat must still be able to do later (:class:`Need`,
   necessary conditions computed backwards, and :class:`_Ahead`, which checks a seat's next hidden
   payment against the receiving seat's hand and the summed hands of two seats that exchange money
   unseen against their pair need, :func:`_pair_needs`), and the search is a depth-first search: a
   draw that leads to a contradiction is undone and the next candidate tried, jumping back to the
   latest draw that touched the seats involved (conflict-directed backjumping); the contents of those
   seats from which a step has no completion are remembered (nogoods), and a search that has tried a
   few candidates per draw starts over with fresh draws (restarts, with a doubling allowance). The
   true history is one solution, so a world would always be found; mostly the first draws succeed (a
   few milliseconds), but late random-play positions at 5-6 players can need many retries, so the
   search stops at a budget of work (:data:`WORK_BUDGET`; ``python -m benchmarks.determinize``;
   docs/koehandel_rules.md Appendix C).

The distribution is that of the forward draws restricted to histories consistent with what ``viewer``
saw, approximately: a failed draw is replaced by the next candidate in random order rather than by
re-drawing the whole history, and a trade's offer pair is drawn given the public result without
weighting by that result's likelihood (Appendix C).
3. :mod:`.redeal` rebuilds the state from the sampled world. The search has a budget of work
   (:data:`WORK_BUDGET` units, counted deterministically); past it, :mod:`.fallback` draws the copy
   approximately (Appendix C).

Everything is computed from the viewer's information set and ``rng``: candidate lists are enumerated
in canonical order and the deck is sorted before it is shuffled, so two positions that ``viewer``
cannot tell apart give identical copies for one seed.
"""

from __future__ import annotations

from contextvars import ContextVar
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from . import actions as A
from .cards import DENOMINATIONS, MONEY, NUM_ANIMALS, NUM_DENOMS, RAT
from .money import auto_payment, has_exact_payment, legal_payments

if TYPE_CHECKING:  # no runtime import: rules imports this module
    from .rules import KoehandelState

LOOKAHEAD = 2  # hidden payments ahead that a candidate is checked against exactly (Need.met_by)
MAX_SLAP = 10
WILD_CARDS = 2  # unseen cards arriving that the exact part of a need branches over (Need.before)
RESTART_TRIES = 4  # candidates per random step the search may try before it starts over (_search)
QUICK_DRAWS = 8  # quick random draws of a hidden set of cards before listing every composition
QUICK_TRADES = 16  # quick random draws of a hidden trade's two offers before listing them all
#: Work the search may do before the copy is drawn approximately (:mod:`.fallback`): one unit per
#: candidate listed, per look ahead, per need checked afresh, per nogood and step visited (about 1-5 us
#: each; docs/koehandel_rules.md Appendix C gives the measured worst case).
WORK_BUDGET = 100_000


class OutOfWork(Exception):
    """The search used up its work budget, or found no world (a record that does not replay)."""


#: The units left to the search running in this context (None: no search, nothing counted).
_WORK: ContextVar[list[int] | None] = ContextVar("koehandel_redeal_work", default=None)


def spend(units: int) -> None:
    """Charge ``units`` of work to the running search; :class:`OutOfWork` once its budget is used up."""
    left = _WORK.get()
    if left is not None:
        left[0] -= units
        if left[0] < 0:
            raise OutOfWork(f"the re-deal's search used up its budget of {WORK_BUDGET} units")


_, _D1, _D2, _D3, _D4, _D5, _D6 = DENOMINATIONS  # the first is the 0-card


def value(counts) -> int:
    """Total value of a count vector (money.value spelled out: the sampler calls it very often)."""
    return (counts[1] * _D1 + counts[2] * _D2 + counts[3] * _D3 + counts[4] * _D4 + counts[5] * _D5
            + counts[6] * _D6)


# ---------------------------------------------------------------------------------- needs
class Need:
    """What a seat's hand must hold before a step, for the facts up to its next hidden inflow.

    Coarse bounds (cards per denomination, cash, non-zero cards, n cards worth X for each hidden
    payment ahead) hold for the whole stretch; ``plan`` and ``then`` are exact up to the next hidden
    payment: after the seen moves and checks of ``plan``, some legal payment of ``then`` must leave a
    hand meeting the need after it. Necessary conditions only: they prune candidates, never a
    solution.
    """

    __slots__ = ("cards", "cash", "nonzero", "count", "payments", "plan", "then", "demands", "trivial", "memo")

    def __init__(self, cards=None, cash: int = 0, nonzero: int = 0, payments: tuple = (),
                 plan: tuple = (), then: tuple | None = None, demands: tuple = (), count: int = 0):
        self.cards = cards or [0] * NUM_DENOMS
        self.cash, self.nonzero, self.payments = cash, nonzero, payments
        self.count = count  # cards of any kind, 0-cards included (stakes and offers may be 0-cards)
        self.plan, self.then = plan, then
        # (shapes, offset, budget): later the hand must contain one of the shapes (card count vectors)
        # plus ``offset`` (seen outflows minus seen inflows until then), with at most ``budget`` cards
        # of any kind arriving unseen in between to make up for what it lacks
        self.demands = demands
        self.trivial = (then is None and cash <= 0 and nonzero <= 0 and count <= 0 and not payments
                        and not demands and not any(c > 0 for c in self.cards))
        self.memo: dict = {}  # (hand..., depth) -> met_by: search revisits hands

    def met_by(self, hand: list[int], depth: int = LOOKAHEAD) -> bool:
        """Whether ``hand`` meets the need; ``depth`` hidden payments ahead are checked exactly."""
        if self.trivial:
            return True
        key = (*hand, depth)
        known = self.memo.get(key)
        if known is None:
            self.memo[key] = known = self._met_by(hand, depth)
        return known

    def _met_by(self, hand: list[int], depth: int) -> bool:
        left = _WORK.get()  # one unit per check made afresh (spend inlined: the search calls it often)
        if left is not None:
            left[0] -= 1
            if left[0] < 0:
                raise OutOfWork(f"the re-deal's search used up its budget of {WORK_BUDGET} units")
        for h, c in zip(hand, self.cards):
            if h < c:
                return False
        if value(hand) < self.cash or sum(hand) - hand[0] < self.nonzero or sum(hand) < self.count:
            return False
        for size, price in self.payments:
            if _top_value(hand, size) < price:
                return False
        for shapes, offset, budget in self.demands:
            if not _any_within(shapes, offset, hand, budget):
                return False
        if not depth or self.then is None:
            return True
        return self._exact(list(hand), 0, depth)

    def _exact(self, hand: list[int], i: int, depth: int) -> bool:
        """The exact part from ``plan[i]`` on: the moves and checks, then the hidden payment."""
        plan = self.plan
        while i < len(plan):
            kind, data = plan[i]
            i += 1
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
            elif kind == "wild":  # a few unseen cards arrive: some choice of them must do
                return any(self._exact(_plus(hand, f), i, depth) for f in _any_cards(data))
        (price, size, rule, auto), after = self.then
        options = _payments(tuple(hand), price, rule, size, auto)
        spend(len(options))
        return any(after.met_by(_minus(hand, f), depth - 1) for f in options)

    def coarse(self) -> Need:
        """This need without its exact part (for the sum of two hands, which no payment is made from) and
        without the payments any hand can make."""
        payments = tuple(p for p in self.payments if p[1] > 0)
        if self.then is None and len(payments) == len(self.payments):
            return self
        return Need(self.cards, self.cash, self.nonzero, payments, (), None, self.demands, self.count)

    def joined(self, other: Need) -> Need:
        """A need on the sum of two hands: both seats' needs added up (each one's demands and payments
        hold for the sum too)."""
        return Need([a + b for a, b in zip(self.cards, other.cards)], max(self.cash, 0) + max(other.cash, 0),
                    max(self.nonzero, 0) + max(other.nonzero, 0), *_union(self, other),
                    self.floor() + other.floor())

    def merged(self, other: Need) -> Need:
        """Both coarse needs at once (the exact parts dropped)."""
        return Need([max(a, b) for a, b in zip(self.cards, other.cards)], max(self.cash, other.cash),
                    max(self.nonzero, other.nonzero), *_union(self, other), max(self.count, other.count))

    def floor(self) -> int:
        """Cards the hand holds at least (0-cards included)."""
        return max(self.count, sum(self.cards), self.nonzero + self.cards[0], 0)

    def before(self, effect: tuple) -> Need:
        """The need before an effect on this seat, given the need after it."""
        kind, data = effect
        cards, cash, nonzero, payments = list(self.cards), self.cash, self.nonzero, self.payments
        plan, then = (effect,) + self.plan, self.then
        demands = _demands_before(self.demands, kind, data)
        count = self.floor()
        if kind == "hidden_in":  # n unseen cards worth at most ``most`` arrive
            size, most = data
            exact = ((("wild", size),) + self.plan, then) if then is not None and size <= WILD_CARDS else ((), None)
            return Need([max(0, c - size) for c in cards], cash - most, nonzero - size,
                        tuple((n, price - most) for n, price in payments), *exact, demands=demands,
                        count=count - size)
        if kind == "out":
            cards = [c + k for c, k in zip(cards, data)]
            cash, nonzero, count = cash + value(data), nonzero + sum(data) - data[0], count + sum(data)
        elif kind == "in":
            cards = [max(0, c - k) for c, k in zip(cards, data)]
            cash, nonzero, count = cash - value(data), nonzero - (sum(data) - data[0]), count - sum(data)
            payments = tuple((size, price - value(data)) for size, price in payments)
        elif kind == "at_least":
            cash = max(cash, data)
        elif kind == "reveal":
            cards = [max(c, k) for c, k in zip(cards, data)]
            cash, nonzero = max(cash, value(data)), max(nonzero, sum(data) - data[0])
            count = max(count, sum(data))
        elif kind == "pay":  # a hidden payment of price X with n cards
            price, size, _, _ = data
            cash, nonzero, count = max(price, cash + price), max(size, nonzero + size), count + size
            payments = payments + ((size, price),)
            plan, then = (), (data, self)
        else:  # any_out: n unknown cards (0-cards too) leave; the exact part cannot look past it
            count += data
            plan, then = (), None
        return Need(cards, cash, nonzero, payments, plan, then, demands, count)


MAX_DEMANDS = 6
NO_OFFSET = (0,) * NUM_DENOMS


def _union(a: Need, b: Need) -> tuple:
    """(payments, plan, then, demands) of a coarse need holding both: payments that still bind, at most
    ``MAX_DEMANDS`` demands of each, no repeats."""
    payments = tuple(dict.fromkeys(p for p in a.payments + b.payments if p[1] > 0))
    demands = tuple(dict.fromkeys(a.demands[:MAX_DEMANDS] + b.demands[:MAX_DEMANDS]))
    return payments, (), None, demands


def _demands_before(demands: tuple, kind: str, data) -> tuple:
    """The demands of a need (see :class:`Need`) before an effect, the nearest first."""
    if kind == "hidden_in":
        size = data[0]
        out = []
        for shapes, offset, budget in demands:
            budget += size
            if budget < len_bound(shapes, offset):
                out.append((shapes, offset, budget))
        return tuple(out)
    if kind == "in":
        return tuple((shapes, tuple(o - k for o, k in zip(offset, data)), budget)
                     for shapes, offset, budget in demands)
    if kind == "out":
        moved = tuple((shapes, tuple(o + k for o, k in zip(offset, data)), budget)
                      for shapes, offset, budget in demands)
        return (((tuple(data),), NO_OFFSET, 0),) + moved[:MAX_DEMANDS - 1]
    if kind == "reveal":
        return (((tuple(data),), NO_OFFSET, 0),) + demands[:MAX_DEMANDS - 1]
    if kind == "pay":
        price, size, _, _ = data
        return ((payment_shapes(price, size), NO_OFFSET, 0),) + demands[:MAX_DEMANDS - 1]
    return demands


def len_bound(shapes: tuple, offset: tuple) -> int:
    """Cards that may be missing at most, for any hand: beyond that a demand always holds."""
    return min(sum(shape) for shape in shapes) + sum(o for o in offset if o > 0) if shapes else 0


_SHAPES: dict = {}


def payment_shapes(price: int, size: int) -> tuple:
    """Every count vector of ``size`` non-zero cards that pays ``price`` without a redundant card
    (§4.4), whatever the hand (a payment under any rule is one of these)."""
    key = (price, size)
    found = _SHAPES.get(key)
    if found is not None:
        return found
    out: list[tuple] = []
    chosen = [0] * NUM_DENOMS
    for low in range(1, NUM_DENOMS):  # the smallest denomination in the payment
        top = price + DENOMINATIONS[low] - 1

        def extend(d: int, left: int, worth: int) -> None:
            if d == low:
                chosen[d] = left
                if left >= 1 and price <= worth + left * DENOMINATIONS[d] <= top:
                    out.append(tuple(chosen))
                chosen[d] = 0
                return
            for k in range(left):  # leave at least one card for ``low``
                total = worth + k * DENOMINATIONS[d]
                if total + (left - k) * DENOMINATIONS[low] > top:
                    break
                if total + (left - k) * DENOMINATIONS[d - 1] < price and d - 1 == low:
                    continue
                chosen[d] = k
                extend(d - 1, left - k, total)
            chosen[d] = 0

        if size >= 1:
            extend(NUM_DENOMS - 1, size, 0)
    _SHAPES[key] = found = Shapes(out)
    return found


@lru_cache(maxsize=1 << 16)
def _payments(hand: tuple, price: int, rule: str, size: int, auto: bool) -> tuple:
    """The legal payments of ``price`` from ``hand`` with ``size`` cards (the automatic one only, with
    ``auto``), as lists; cached, since the search asks about the same hands again and again."""
    if auto:
        every = legal_payments(hand, price, rule)
        chosen = list(auto_payment(every)) if every else None
        return (chosen,) if chosen is not None and sum(chosen) == size else ()
    options = _sized_payments(hand, price, size)
    if rule == "strict" and options and has_exact_payment(hand, price):
        options = [f for f in options if value(f) == price]
    return tuple(options)


def _sized_payments(hand: tuple, price: int, size: int) -> list[list[int]]:
    """The legal payments of ``price`` from ``hand`` (no redundant card, §4.4) with exactly ``size``
    cards: money.legal_payments's enumeration, largest denomination first, cut at ``size`` cards."""
    found: list[list[int]] = []
    chosen = [0] * NUM_DENOMS
    # best[d][k]: the value of the k most valuable non-zero cards of index <= d (-1: fewer than k)
    best = [[0] + [-1] * size]
    for d in range(1, NUM_DENOMS):
        row, below = [0] * (size + 1), best[-1]
        for k in range(1, size + 1):
            take = min(k, hand[d])
            rest = below[k - take]
            row[k] = -1 if rest < 0 else rest + take * DENOMINATIONS[d]
        best.append(row)

    def extend(d: int, total: int, used: int) -> None:
        if d == 0 or best[d][size - used] < 0 or total + best[d][size - used] < price:
            return
        for take in range(min(hand[d], size - used) + 1):
            chosen[d] = take
            reached = total + take * DENOMINATIONS[d]
            if reached >= price:  # any further card would be redundant
                if used + take == size:
                    found.append(list(chosen))
                break
            if used + take < size:
                extend(d - 1, reached, used + take)
        chosen[d] = 0

    extend(NUM_DENOMS - 1, 0, 0)
    return found


class Shapes(tuple):
    """A tuple of card count vectors that also keeps them as an array, for the long lists."""

    @property
    def array(self) -> np.ndarray:
        found = self.__dict__.get("_array")
        if found is None:
            found = self.__dict__["_array"] = np.array(self, dtype=np.int64).reshape(len(self), NUM_DENOMS)
        return found


LONG_SHAPES = 12  # from this many shapes on, _any_within works on the array
ARRAY_WORK = 6  # work units of one look through the array (numpy's calls cost several list steps)


def _any_within(shapes, offset, hand, budget: int) -> bool:
    """Whether ``hand`` lacks at most ``budget`` cards to give one of ``shapes`` on top of ``offset``."""
    if len(shapes) >= LONG_SHAPES and isinstance(shapes, Shapes):
        spend(ARRAY_WORK)
        lack = shapes.array + np.subtract(offset, hand)
        return bool((np.maximum(lack, 0).sum(axis=1) <= budget).any())
    spend(1 + len(shapes) // 4)
    for shape in shapes:
        short = 0
        for f, o, h in zip(shape, offset, hand):
            if f + o > h:
                short += f + o - h
        if short <= budget:
            return True
    return False


@lru_cache(maxsize=None)
def _any_cards(size: int) -> tuple:
    """Every count vector of ``size`` cards (any denominations)."""
    return tuple(list(f) for f, _ in _sub_multisets((size,) * NUM_DENOMS, size))


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


def _minus(hand: list[int], counts: list[int]) -> list[int]:
    return [h - k for h, k in zip(hand, counts)]


def _plus(hand: list[int], counts: list[int]) -> list[int]:
    return [h + k for h, k in zip(hand, counts)]


def _binomial(n: int, k: int) -> int:
    out = 1
    for i in range(k):
        out = out * (n - i) // (i + 1)
    return out


def sub_multisets(counts: list[int], size: int) -> list[tuple[list[int], int]]:
    """Every sub-multiset of ``size`` cards as (count vector, number of card subsets it stands for)."""
    return [(list(f), w) for f, w in _sub_multisets(tuple(counts), size)]


@lru_cache(maxsize=1 << 14)
def _sub_multisets(counts: tuple, size: int) -> tuple:
    found: list[tuple[tuple[int, ...], int]] = []
    chosen = [0] * NUM_DENOMS
    room = [0] * (NUM_DENOMS + 1)  # cards of denominations >= d
    for d in range(NUM_DENOMS - 1, -1, -1):
        room[d] = room[d + 1] + counts[d]

    def extend(d: int, left: int, ways: int) -> None:
        if d == NUM_DENOMS:
            if left == 0:
                found.append((tuple(chosen), ways))
            return
        for k in range(max(0, left - room[d + 1]), min(left, counts[d]) + 1):
            chosen[d] = k
            extend(d + 1, left - k, ways * _binomial(counts[d], k))
        chosen[d] = 0

    extend(0, size, 1)
    return tuple(found)


def _random_cards(hand: list[int], size: int, rng: np.random.Generator | None, uniforms=None) -> list[int]:
    """``size`` cards of ``hand``, every card equally likely, drawn one by one with ``uniforms`` (``size``
    numbers in [0, 1); drawn from ``rng`` if not given)."""
    if uniforms is None:
        uniforms = rng.random(size).tolist()
    left, total = list(hand), sum(hand)
    if total < size:
        raise ValueError(f"koehandel sampler: {size} cards drawn from a hand of {total}")
    out = [0] * NUM_DENOMS
    for u in uniforms:
        r, d = int(u * total), 0
        while r >= left[d]:
            r -= left[d]
            d += 1
        left[d] -= 1
        out[d] += 1
        total -= 1
    return out


def _outcome(offer: int, counter: int) -> str:
    return "challenger" if offer > counter else "challenged" if counter > offer else "tie"


# ---------------------------------------------------------------------------------- world and steps
class _World:
    """Sampled money: every hand, cards in transit (by key), the 2-player pool of unseen money cards."""

    __slots__ = ("hands", "transit", "pool")

    def __init__(self, hands: list[list[int]], transit: dict, pool: list[int]):
        self.hands, self.transit, self.pool = hands, transit, pool

    def copy(self) -> _World:
        return _World([list(h) for h in self.hands], {k: list(v) for k, v in self.transit.items()}, list(self.pool))

    def part(self, parts: tuple) -> tuple:
        """The contents of some seats (ints), transit keys and ``"pool"``, as a key."""
        out = []
        for p in parts:
            if isinstance(p, int):
                out.append(tuple(self.hands[p]))
            elif p == "pool":
                out.append(tuple(self.pool))
            else:
                got = self.transit.get(p)
                out.append(None if got is None else tuple(got))
        return tuple(out)

    def take(self, seat: int, counts: list[int]) -> bool:
        hand = self.hands[seat]
        for d in range(NUM_DENOMS):
            if hand[d] < counts[d]:
                return False
        for d in range(NUM_DENOMS):
            hand[d] -= counts[d]
        return True

    def give(self, seat: int, counts: list[int]) -> None:
        hand = self.hands[seat]
        for d in range(NUM_DENOMS):
            hand[d] += counts[d]


class _Step:
    """One fact of the history. A fixed step has ``run(world) -> bool`` (False: the world contradicts
    it) and ``move(world)``, its money movement alone. A random step has ``candidates(world,
    needs_after, rng)``, an iterator over the choices it may make, in random order, ``apply(world,
    choice)``, and ``draw``, what it chooses as the public record states it (for :mod:`.fallback`):
    ``("cards", n)``, ``("payment", price, n)``, ``("share", key, n, last)``, ``("pair", n_offer,
    n_counter, result)`` or ``("pool",)``. ``tag`` names where the composition the step moved (seen or
    drawn) goes when the state is rebuilt; ``effects`` feed the needs."""

    __slots__ = ("run", "move", "candidates", "apply", "draw", "effects", "tag", "known", "touch", "pay")

    def __init__(self, effects, tag=None, run=None, candidates=None, apply=None, known=None, touch=(),
                 move=None, draw=None):
        self.effects, self.tag, self.run, self.move = effects, tag, run, move or run
        self.candidates, self.apply, self.known, self.draw = candidates, apply, known, draw
        # the seats (and transit keys, "pool") whose contents the step reads or changes
        self.touch = frozenset(seat for seat, _ in effects) | frozenset(touch)
        self.pay = None  # a hidden payment from one seat to another: (giver, taker, price, size)


def _weighted_order(options: list, weights: list[float], rng: np.random.Generator) -> list:
    """``options`` in random order, each next one drawn in proportion to its weight among those left:
    sorting by ``u ** (1 / w)`` (u uniform) gives exactly that order (Efraimidis & Spirakis, 2006)."""
    spend(len(options))
    if len(options) <= 1:
        return list(options)
    keys = np.log(rng.random(len(options))) / np.asarray(weights, dtype=float)
    return [options[i] for i in np.argsort(-keys, kind="stable")]


class _History:
    """The steps of one state as ``viewer`` saw them. Reads only what ``viewer`` may know."""

    def __init__(self, state: KoehandelState, viewer: int):
        self.s, self.v, self.cfg, self.n = state, viewer, state.cfg, state.n
        self.steps: list[_Step] = []
        self.bank = None  # the public bank, replayed for donkey payouts (3-6 players)

    # ---------------------------------------------------------------- primitive facts
    def fixed(self, effects: list, run, tag=None, known=None, touch=(), move=None) -> None:
        self.steps.append(_Step(effects, tag, run=run, known=known, touch=touch, move=move))

    def mark(self, tag) -> None:
        """Record the hands here (``cash_before``/``cash_after`` of an event)."""
        self.steps.append(_Step([], tag, run=_always, known="hands"))

    def payout(self, amount: int) -> None:
        d = DENOMINATIONS.index(amount)
        one = [0] * NUM_DENOMS
        one[d] = 1
        seats = []
        for seat in range(self.n):
            if self.bank[d]:
                self.bank[d] -= 1
                seats.append(seat)

        def run(world: _World) -> bool:
            for seat in seats:
                world.hands[seat][d] += 1
            return True
        self.fixed([(seat, ("in", one)) for seat in seats], run)

    def at_least(self, seat: int, amount: int) -> None:
        def run(world: _World) -> bool:
            return value(world.hands[seat]) >= amount
        self.fixed([(seat, ("at_least", amount))], run, move=_always)

    def revealed(self, seat: int, hand: list[int]) -> None:
        hand = list(hand)

        def run(world: _World) -> bool:
            return world.hands[seat] == hand
        self.fixed([(seat, ("reveal", hand))], run, move=_always)

    def seen(self, giver: int, taker: int | None, counts: list[int], tag=None, price: int | None = None,
             key: str | None = None) -> None:
        """``counts`` (seen by the viewer) move from ``giver`` to ``taker`` (None: into transit ``key``)."""
        counts = list(counts)
        strict = price is not None and self.cfg.payment_rule == "strict" and value(counts) > price
        auto = price is not None and self.cfg.auto_payment

        def move(world: _World) -> bool:
            if not world.take(giver, counts):
                return False
            if taker is None:
                world.transit[key] = list(counts)
            else:
                world.give(taker, counts)
            return True

        def run(world: _World) -> bool:
            hand = world.hands[giver]
            if strict and has_exact_payment(hand, price):
                return False  # an overpayment proves that no exact payment existed (K-A11)
            if auto and list(auto_payment(legal_payments(hand, price, self.cfg.payment_rule))) != counts:
                return False
            return move(world)
        effects = [(giver, ("out", counts))] + ([(taker, ("in", counts))] if taker is not None else [])
        self.fixed(effects, run, tag, known=counts, touch=(key,) if taker is None else (), move=move)

    def hidden(self, giver: int, taker: int | None, size: int, tag=None, price: int | None = None,
               key: str | None = None) -> None:
        """``size`` cards the viewer did not see move from ``giver`` to ``taker`` (None: into transit
        ``key``); with a ``price``, they are a legal payment of it (§4.4)."""
        rule, auto = self.cfg.payment_rule, self.cfg.auto_payment
        most = min(500 * size, price + 490) if price is not None else 500 * size
        effects = [(giver, ("pay", (price, size, rule, auto)) if price is not None else ("any_out", size))]
        if taker is not None:
            effects.append((taker, ("hidden_in", (size, most))))

        def candidates(world: _World, needs: list[Need], rng):
            hand = world.hands[giver]
            if price is not None:
                options = _payments(tuple(hand), price, rule, size, auto)
                weights = [1.0] * len(options)
            need_g = needs[giver]
            need_t = needs[taker] if taker is not None else None

            def fits(f: list[int]) -> bool:
                if taker == giver:  # a lay into a pot that its layer takes: the hand ends as it was
                    return need_g.met_by(hand)
                if not need_g.met_by(_minus(hand, f)):
                    return False
                return need_t is None or need_t.met_by(_plus(world.hands[taker], f))

            if price is None:  # every card equally likely: quick draws, then all compositions
                spend(QUICK_DRAWS)
                tried = []
                for uniforms in rng.random((QUICK_DRAWS, size)).tolist():
                    first = _random_cards(hand, size, None, uniforms)
                    if first not in tried:
                        tried.append(first)
                        if fits(first):
                            yield first
                            break
                pairs = [(f, w) for f, w in sub_multisets(hand, size) if f not in tried]
                options, weights = [f for f, _ in pairs], [float(w) for _, w in pairs]
            for f in _weighted_order(options, weights, rng):
                if fits(f):
                    yield f

        def apply(world: _World, f: list[int]) -> None:
            world.take(giver, f)
            if taker is None:
                world.transit[key] = list(f)
            else:
                world.give(taker, f)
        draw = ("cards", size) if price is None else ("payment", price, size)
        self.steps.append(_Step(effects, tag, candidates=candidates, apply=apply,
                                touch=(key,) if taker is None else (), draw=draw))
        if price is not None and taker is not None and taker != giver:
            self.steps[-1].pay = (giver, taker, price, size)

    def deliver(self, key: str, taker: int, known: list[int] | None, size: int) -> None:
        """Cards in transit under ``key`` go to ``taker``."""
        effect = ("in", known) if known is not None else ("hidden_in", (size, 500 * size))

        def run(world: _World) -> bool:
            world.give(taker, world.transit.pop(key))
            return True
        self.fixed([(taker, effect)], run, touch=(key,))

    # ---------------------------------------------------------------- events
    def auction(self, e: dict[str, Any], i) -> None:
        self.mark(("begin", i))
        if e["donkey_payout"]:
            self.payout(e["donkey_payout"])
        self.bids_and_defaults(e["max_bids"], e["defaults"])
        if e["payment"] is not None:
            if e["decision"] == "buy":
                self.at_least(e["auctioneer"], e["price"])
            payer, payee = e["payer"], e["payee"]
            if self.v in (payer, payee) or self.cfg.public_auction_payments:
                self.seen(payer, payee, e["payment"], ("payment", i), price=e["price"])
            else:
                self.hidden(payer, payee, sum(e["payment"]), ("payment", i), price=e["price"])
        self.mark(("end", i))

    def bids_and_defaults(self, max_bids: list[int], defaults: list[dict[str, Any]]) -> None:
        for default in defaults:
            self.revealed(default["player"], default["hand"])
        if self.cfg.overbid_mode == "mask":
            for seat, bid in enumerate(max_bids):
                if bid:
                    self.at_least(seat, bid)

    def pedigree(self, e: dict[str, Any], i) -> None:
        self.mark(("begin", i))
        for default in e["defaults"]:
            self.revealed(default["player"], default["hand"])
        if e["payment"] is not None:
            w, a, k = e["winner"], e["auctioneer"], e["count"]
            if e["decision"] == "decline":  # the stake goes to the auctioneer
                if self.v in (w, a):
                    self.seen(w, a, e["stake"], ("stake", i))
                else:
                    self.hidden(w, a, k, ("stake", i))
            else:  # the auctioneer pays k cards; the winner's stake goes out and back
                if self.v == w:
                    self.seen(w, w, e["stake"], ("stake", i))
                else:  # it changes nobody's money: drawn once the world is found
                    self.mark(("stake_hands", i))
                if self.v in (w, a):
                    self.seen(a, w, e["payment"], ("payment", i))
                else:
                    self.hidden(a, w, k, ("payment", i))
        self.mark(("end", i))

    def rat(self, pot: list[list[int]], taker: int | None, i) -> None:
        """The pot's lays, seat by seat (nothing else moves meanwhile); with a taker, the pot goes to him."""
        if i != "now":
            self.mark(("begin", i))
        n, v = self.n, self.v
        laid_by = [0] * n
        own = [0] * NUM_DENOMS
        for seat, d in pot:
            laid_by[seat] += 1
            if seat == v:
                own[d] += 1
        # the taker's own lays first: they come from its hand before the pot (each other lay goes
        # straight to the taker here) reaches it
        layers = sorted((seat for seat in range(n) if laid_by[seat]), key=lambda seat: seat != taker)
        if taker == v and not self.cfg.rat_pot_attribution:  # the viewer saw the pot as a whole
            rest = [0] * NUM_DENOMS
            for seat, d in pot:
                if seat != v:
                    rest[d] += 1
            others = [seat for seat in layers if seat != v]
            if v in layers:
                self.seen(v, v, own, ("pot", i, v))
            self.split(others, [laid_by[seat] for seat in others], rest, i)
        else:
            sees_all = taker == v and self.cfg.rat_pot_attribution
            for seat in layers:
                target = taker if taker is not None else None
                key = f"pot{seat}"
                if seat == v or sees_all:
                    counts = [0] * NUM_DENOMS
                    for s2, d in pot:
                        if s2 == seat:
                            counts[d] += 1
                    self.seen(seat, target, counts, ("pot", i, seat), key=key)
                else:
                    self.hidden(seat, target, laid_by[seat], ("pot", i, seat), key=key)
        if i != "now":
            self.mark(("end", i))

    def split(self, others: list[int], sizes: list[int], rest: list[int], i) -> None:
        """The viewer took a pot of known composition ``rest`` (apart from its own lays) without knowing
        who laid which card: the layers' shares are drawn one after the other from what is left."""
        key = "split"

        def start(world: _World) -> bool:
            world.transit[key] = list(rest)
            return True
        self.fixed([], start, touch=(key,))
        for index, (seat, size) in enumerate(zip(others, sizes)):
            self.pot_share(seat, size, ("pot", i, seat), key, last=index == len(others) - 1)

        def end(world: _World) -> bool:
            world.transit.pop(key, None)
            world.give(self.v, rest)
            return True
        self.fixed([(self.v, ("in", rest))], end, touch=(key,))

    def pot_share(self, seat: int, size: int, tag, key: str, last: bool) -> None:
        def candidates(world: _World, needs: list[Need], rng):
            left, hand = world.transit[key], world.hands[seat]
            if last:
                options, weights = [list(left)], [1.0]
            else:
                pairs = sub_multisets(left, size)
                options, weights = [f for f, _ in pairs], [float(w) for _, w in pairs]
            for f in _weighted_order(options, weights, rng):
                if all(hand[d] >= f[d] for d in range(NUM_DENOMS)) and needs[seat].met_by(_minus(hand, f)):
                    yield f

        def apply(world: _World, f: list[int]) -> None:
            world.take(seat, f)
            world.transit[key] = _minus(world.transit[key], f)
        self.steps.append(_Step([(seat, ("any_out", size))], tag, candidates=candidates, apply=apply, touch=(key,),
                                draw=("share", key, size, last)))

    def trade_round(self, c: int, d: int, rnd: dict[str, Any], tag) -> None:
        offer_cards = rnd["offer_cards"]
        if self.v in (c, d):
            self.seen(c, None, rnd["offer"], (*tag, "offer"), key="offer")
            if rnd["counter"] is not None:
                self.seen(d, c, rnd["counter"], (*tag, "counter"))
            self.deliver("offer", d, rnd["offer"], offer_cards)
            return
        if rnd["counter"] is None:  # accepted: the offer went to the challenged player
            self.hidden(c, d, offer_cards, (*tag, "offer"))
            return
        self.trade(c, d, offer_cards, rnd["counter_cards"], rnd["result"], tag)

    def trade(self, c: int, d: int, given: int, asked: int, result: str, tag) -> None:
        """A countered round neither of whose offers the viewer saw: both drawn together, their totals
        ordered as the public result says."""

        def candidates(world: _World, needs: list[Need], rng):
            hc, hd = world.hands[c], world.hands[d]
            need_c, need_d = needs[c], needs[d]
            tried = set()
            spend(QUICK_TRADES)
            for uniforms in rng.random((QUICK_TRADES, given + asked)).tolist():  # quick draws of both offers
                f, g = _random_cards(hc, given, None, uniforms[:given]), _random_cards(hd, asked, None, uniforms[given:])
                if (tuple(f), tuple(g)) in tried:
                    continue
                tried.add((tuple(f), tuple(g)))
                if _outcome(value(f), value(g)) == result and need_c.met_by(_plus(_minus(hc, f), g)) \
                        and need_d.met_by(_plus(_minus(hd, g), f)):
                    yield (f, g)
                    break
            mine = sub_multisets(hc, given)
            theirs = [(g, w, value(g)) for g, w in sub_multisets(hd, asked)]
            worth = {}
            for _, w, x in theirs:
                worth[x] = worth.get(x, 0) + w
            options, weights = [], []
            spend(len(mine) * len(worth))
            for f, w in mine:
                x = value(f)
                if result == "tie":
                    match = worth.get(x, 0)
                elif result == "challenger":
                    match = sum(m for y, m in worth.items() if y < x)
                else:
                    match = sum(m for y, m in worth.items() if y > x)
                if match:
                    options.append(f)
                    weights.append(float(w * match))
            rest_d = {tuple(g): _minus(hd, g) for g, _, _ in theirs}
            for f in _weighted_order(options, weights, rng):
                x, rest_c = value(f), _minus(hc, f)
                spend(len(theirs))
                fits = [(g, w) for g, w, y in theirs if _outcome(x, y) == result]
                for g in _weighted_order([g for g, _ in fits], [w for _, w in fits], rng):
                    if (tuple(f), tuple(g)) in tried:
                        continue
                    if need_c.met_by(_plus(rest_c, g)) and need_d.met_by(_plus(rest_d[tuple(g)], f)):
                        yield (f, g)

        def apply(world: _World, pair) -> None:
            f, g = pair
            world.take(c, f)
            world.take(d, g)
            world.give(c, g)
            world.give(d, f)
        effects = [(c, ("any_out", given)), (d, ("any_out", asked)),
                   (c, ("hidden_in", (asked, 500 * asked))), (d, ("hidden_in", (given, 500 * given)))]
        self.steps.append(_Step(effects, tag, candidates=candidates, apply=apply, draw=("pair", given, asked, result)))

    def distribution(self, e: dict[str, Any], i) -> None:
        self.mark(("begin", i))
        p = e["distributor"]
        for name, card, to, seen_by in (("x", e["x"], e["x_to"], (p, e["x_to"])),
                                        ("y", e["y"], e["y_to"], (e["y_to"],))):
            if card is not None and card >= MONEY:
                if self.v in seen_by:
                    one = [0] * NUM_DENOMS
                    one[card - MONEY] = 1
                    self.fixed([(to, ("in", one))], _from_pool(to, card - MONEY), (name, i), known=one,
                               touch=("pool",), move=_pool_move(to, card - MONEY))
                else:
                    self.unseen(to, (name, i))
        for payout in e["donkey_payouts"]:
            if payout:
                self.payout(payout)
        self.mark(("end", i))

    def unseen(self, seat: int, tag) -> None:
        """2 players: a money card the viewer did not see reaches ``seat`` from the unseen pool."""
        def candidates(world: _World, needs: list[Need], rng):
            hand, pool = world.hands[seat], world.pool
            options = [d for d in range(NUM_DENOMS) if pool[d]]
            for d in _weighted_order(options, [float(pool[d]) for d in options], rng):
                if needs[seat].met_by(hand[:d] + [hand[d] + 1] + hand[d + 1:]):
                    yield d

        def apply(world: _World, d: int) -> None:
            world.pool[d] -= 1
            world.hands[seat][d] += 1
        self.steps.append(_Step([(seat, ("hidden_in", (1, 500)))], tag, candidates=candidates, apply=apply,
                                touch=("pool",), draw=("pool",)))


def _always(world: _World) -> bool:
    return True


def _from_pool(seat: int, d: int):
    def run(world: _World) -> bool:
        if not world.pool[d]:
            return False
        world.pool[d] -= 1
        world.hands[seat][d] += 1
        return True
    return run


def _pool_move(seat: int, d: int):
    def move(world: _World) -> bool:
        world.pool[d] -= 1
        world.hands[seat][d] += 1
        return True
    return move


# ---------------------------------------------------------------------------------- assembly
def _history(s: KoehandelState, viewer: int) -> _History:
    """Steps of every settled event and of the event in progress, as ``viewer`` saw them."""
    h = _History(s, viewer)
    h.bank = [10 ** 6] * NUM_DENOMS  # every seat receives each payout (the bank never runs short)
    for i, e in enumerate(s.events):
        kind = e["kind"]
        if kind == "auction":
            h.auction(e, i)
        elif kind == "pedigree":
            h.pedigree(e, i)
        elif kind == "rat":
            h.rat(e["pot"], e["taker"], i)
        elif kind == "trade":
            h.mark(("begin", i))
            for r, rnd in enumerate(e["rounds"]):
                h.trade_round(e["challenger"], e["challenged"], rnd, ("round", i, r))
            h.mark(("end", i))
        else:
            h.distribution(e, i)
    if s.n > 2 and s.auctioneer >= 0 and s.card >= 0:  # an auction in progress
        h.mark(("begin", "now"))
        if s.payout:
            h.payout(s.payout)
        if s.card < NUM_ANIMALS:
            h.bids_and_defaults(s.max_bid, s.defaults)
            if s.decision == A.D_PAY:
                h.at_least(s.payer, s.amount)
        elif s.card == RAT:
            h.rat(s.pot, None, "now")
        else:
            h.bids_and_defaults([0] * s.n, s.defaults)
            if s.decision in (A.D_PED_BUYRIGHT, A.D_PED_CARDS):
                if viewer == s.winner:
                    h.seen(s.winner, None, s.stake, ("stake", "now"), key="stake")
                else:
                    h.hidden(s.winner, None, s.kstar, ("stake", "now"), key="stake")
    if s.challenger >= 0:  # a trade in progress
        h.mark(("begin", "now"))
        for r, rnd in enumerate(s.rounds):
            if "result" in rnd:
                h.trade_round(s.challenger, s.challenged, rnd, ("round", "now", r))
        if s.decision in (A.D_RESPONSE, A.D_COUNTER):
            if viewer == s.challenger:
                h.seen(s.challenger, None, s.offers[0], ("offer", "now"), key="offer")
            else:
                h.hidden(s.challenger, None, sum(s.offers[0]), ("offer", "now"), key="offer")
    h.revealed(viewer, s.hands[viewer])  # implied by what the viewer saw; a last safety check
    return h


def _start_hands(s: KoehandelState) -> list[list[int]]:
    start = getattr(s, "start_hands", None)
    if start:
        return [list(hand) for hand in start]
    return [list(s.cfg.start_hand()) for _ in range(s.n)]


def _unseen_pool(s: KoehandelState, viewer: int, start: list[list[int]]) -> list[int]:
    """2 players: the money cards whose place the viewer does not know (deck, removed pile, cards the
    opponent received unseen), by denomination, from public counts only."""
    if s.n != 2:
        return [0] * NUM_DENOMS
    pool = list(s.cfg.money_composition)
    paid = [0] * NUM_DENOMS
    for e in s.events:
        if e["kind"] == "distribution":
            for amount in e["donkey_payouts"]:
                if amount:
                    paid[DENOMINATIONS.index(amount)] += 2
    for d in range(NUM_DENOMS):
        pool[d] -= s.bank[d] + paid[d] + sum(hand[d] for hand in start)
    pool[0] = max(0, pool[0] - s.removed[0])  # removed zeros are public (the deck holds none)
    if s.decision == A.D_DISTRIBUTE and s.current_player == viewer and s.looked >= MONEY:
        pool[s.looked - MONEY] -= 1
    return pool


def _needs(steps: list[_Step], n: int) -> list[list[Need]]:
    """needs[k][seat]: what ``seat`` must hold before step k, computed backwards; only for the seats
    that some random step touches (the others' needs are never asked: they stay trivial)."""
    active = {seat for step in steps if step.candidates is not None for seat in step.touch if isinstance(seat, int)}
    needs = [[Need() for _ in range(n)]]
    for step in reversed(steps):
        after = needs[-1]
        if step.effects:
            before = list(after)
            for seat, effect in reversed(step.effects):
                if seat in active:
                    before[seat] = before[seat].before(effect)
            needs.append(before)
        else:
            needs.append(after)
    return needs[::-1]


def _balanced(step: _Step) -> bool:
    """Whether ``step`` moves money between seats only, as many cards out as in (a transfer or trade)."""
    if any(not isinstance(part, int) for part in step.touch):
        return False
    out = inflow = 0
    for _, (kind, data) in step.effects:
        if kind in ("out", "in"):
            size = sum(data)
        elif kind in ("pay", "hidden_in"):
            size = data[1] if kind == "pay" else data[0]
        elif kind == "any_out":
            size = data
        else:
            return False
        if kind in ("in", "hidden_in"):
            inflow += size
        else:
            out += size
    return out > 0 and out == inflow


def _pair_needs(steps: list[_Step], needs: list[list[Need]]) -> dict[tuple[int, int], list[Need]]:
    """pairs[(x, y)][k]: what the sum of the hands of x and y must hold before step k, for the pairs
    between whom money moves unseen. A seat's own need forgets what unseen cards may bring; the pair's
    sum keeps it, as money moving between them leaves the sum as it was. Computed backwards from the
    pair's last unseen exchange; at each, both seats' needs are added up. Coarse, necessary conditions.
    (Groups of three seats were tried: they cost more than they save.)"""
    pairs = {tuple(sorted(seat for seat in step.touch if isinstance(seat, int))) for step in steps
             if step.candidates is not None and sum(isinstance(seat, int) for seat in step.touch) == 2}
    seats = [frozenset(seat for seat, _ in step.effects) for step in steps]
    balanced = [bool(step.effects) and _balanced(step) for step in steps]
    out = {}
    for x, y in pairs:
        trivial = need = Need()
        chain = [need]
        for k in range(len(steps) - 1, -1, -1):
            step, moved = steps[k], seats[k]
            if x not in moved and y not in moved:
                pass
            elif balanced[k] and moved <= {x, y}:  # money moves between x and y only: the sum stays
                if step.candidates is not None and x in step.touch and y in step.touch:
                    joint = needs[k + 1][x].joined(needs[k + 1][y])
                    need = joint if need is trivial else need.merged(joint)
            elif need is not trivial:
                for seat, effect in reversed(step.effects):
                    if seat == x or seat == y:
                        need = need.before(effect).coarse()
                if need.trivial:  # nothing binds any more: nothing to carry further back
                    need = trivial
            chain.append(need)
        out[(x, y)] = chain[::-1]
    return out


class _Ahead:
    """A look at each seat's next hidden payment to another seat, with both sides' hands then.

    After a random step, for every seat X it touched: if X's next hidden payment (price, n cards) goes
    to Y at step j, and Y's hand at j is already determined (no random step touches Y before j), some
    payment shape of that price and size must suit Y's need after j, and X's hand must be able to hold
    one of those shapes by then (counting X's seen flows until j, with the cards X receives unseen
    meanwhile as wildcards). And for every pair of X with a seat it exchanges money with unseen, the
    sum of their hands must meet the pair's need (:func:`_pair_needs`). Necessary conditions: a
    candidate failing them cannot be completed."""

    def __init__(self, steps: list[_Step], needs: list[list[Need]], n: int):
        self.steps, self.needs, self.n = steps, needs, n
        self.pairs: list[list[tuple[int, list[Need]]]] = [[] for _ in range(n)]  # seat -> (other, chain)
        for (x, y), chain in _pair_needs(steps, needs).items():
            self.pairs[x].append((y, chain))
            self.pairs[y].append((x, chain))
        total = len(steps)
        zero = (0,) * NUM_DENOMS
        # prefix sums per seat: seen outflows minus seen inflows, cards received unseen
        self.offset = [[zero] for _ in range(n)]
        self.budget = [[0] for _ in range(n)]
        for step in steps:
            for seat in range(n):
                self.offset[seat].append(self.offset[seat][-1])
                self.budget[seat].append(self.budget[seat][-1])
            for seat, (kind, data) in step.effects:
                if kind == "in":
                    self.offset[seat][-1] = tuple(o - c for o, c in zip(self.offset[seat][-1], data))
                elif kind == "out":
                    self.offset[seat][-1] = tuple(o + c for o, c in zip(self.offset[seat][-1], data))
                elif kind == "hidden_in":
                    self.budget[seat][-1] += data[0]
        # next_random[seat][k]: the first random step at or after k touching seat; next_pay: paying
        self.next_random = [[total] * (total + 1) for _ in range(n)]
        self.next_pay = [[total] * (total + 1) for _ in range(n)]
        for k in range(total - 1, -1, -1):
            step = steps[k]
            for seat in range(n):
                self.next_random[seat][k] = self.next_random[seat][k + 1]
                self.next_pay[seat][k] = self.next_pay[seat][k + 1]
            if step.candidates is not None:
                for seat in step.touch:
                    if isinstance(seat, int):
                        self.next_random[seat][k] = k
                if step.pay is not None:
                    self.next_pay[step.pay[0]][k] = k
        self.good: dict = {}

    def check(self, k: int, world: _World):
        """None if the world after random step ``k`` passes, else a seat of the failed check."""
        hands = world.hands
        for x in self.steps[k].touch:
            if not isinstance(x, int):
                continue
            for y, chain in self.pairs[x]:
                need = chain[k + 1]
                if not need.trivial and not need.met_by(_plus(hands[x], hands[y]), 0):
                    return (y,)
            j = self.next_pay[x][k + 1]
            if j >= len(self.steps):
                continue
            _, y, price, size = self.steps[j].pay
            if self.next_random[y][k + 1] != j or self.budget[y][j] != self.budget[y][k + 1]:
                continue  # Y's hand at j is not determined yet
            oy = self.offset[y]
            hand_y = tuple(h - (a - b) for h, a, b in zip(world.hands[y], oy[j], oy[k + 1]))
            key = (j, hand_y)
            good = self.good.get(key)
            if good is None:
                spend(len(payment_shapes(price, size)))
                need = self.needs[j + 1][y]
                good = Shapes(f for f in payment_shapes(price, size) if need.met_by(_plus(hand_y, f), 1))
                self.good[key] = good
            ox = self.offset[x]
            offset = [a - b for a, b in zip(ox[j], ox[k + 1])]
            budget = self.budget[x][j] - self.budget[x][k + 1]
            if not _any_within(good, offset, world.hands[x], budget):
                return (y,)
        return None


def _search(steps: list[_Step], world: _World, rng: np.random.Generator) -> list:
    """Depth-first search over the random steps, candidates in random order; returns the choice made
    at each step (None at fixed steps). It ends only with a world that meets every step; the true
    history is one, so it would always find one, but it stops with :class:`OutOfWork` once it has
    spent its work budget (:func:`spend`), or if no world exists (a record that does not replay).

    On a contradiction it jumps back to the latest random step that touched the seats involved (the
    steps in between cannot change those seats' hands), and a random step out of candidates passes its
    conflict, with its own seats, further back (conflict-directed backjumping). That conflict names
    every part of the world (seats, transit keys, the pool) the failures below depended on, so the
    step's contents of those parts are a nogood: met again, with any other parts, they fail at once.

    Search times are heavy-tailed (an early draw can doom a long stretch of history), so after
    ``RESTART_TRIES`` candidates per random step the search starts over with fresh draws, the allowance
    doubling at each restart (the nogoods are kept)."""
    needs = _needs(steps, len(world.hands))
    ahead = _Ahead(steps, needs, len(world.hands))
    chosen: list = [None] * len(steps)
    frames: list[list] = []  # [step index, world before it, candidate iterator, conflict seats]
    # nogoods: dead[k][parts] holds contents of those parts (seats, transit keys, the pool) from which
    # step k has no completion, whatever the rest of the world holds
    dead: dict[int, dict[tuple, set]] = {}
    k, total = 0, len(steps)
    start, tries = world.copy(), 0
    allowance = RESTART_TRIES * (1 + sum(step.candidates is not None for step in steps))
    while k < total:
        step = steps[k]
        if step.candidates is None:
            if step.run(world):
                k += 1
                continue
            conflict = step.touch
        elif k in dead and (conflict := _dead_parts(dead[k], world)):
            pass
        else:
            frames.append([k, world, step.candidates(world, needs[k + 1], rng), set()])
            conflict = frozenset()  # nothing failed yet: try its first candidate
        while True:
            if conflict and tries > allowance:  # start over
                spend(k)
                world, frames, k, tries, allowance = start.copy(), [], 0, 0, 2 * allowance
                break
            if conflict:  # back to the latest random step that touched a seat of the conflict
                while frames and not (steps[frames[-1][0]].touch & conflict):
                    frames.pop()
                if not frames:
                    raise OutOfWork("the recorded history has no consistent re-deal")
                frames[-1][3] |= conflict
            fk, before, candidates, seen = frames[-1]
            choice = next(candidates, None)
            while choice is not None:
                tries += 1
                spend(1)
                world = before.copy()
                steps[fk].apply(world, choice)
                partner = ahead.check(fk, world)
                if partner is None:
                    break
                seen.update(partner)  # the candidate leaves a coming step impossible
                choice = next(candidates, None)
            if choice is not None:
                chosen[fk] = choice
                k = fk + 1
                break
            frames.pop()
            conflict = frozenset(seen) | steps[fk].touch
            parts = tuple(sorted(conflict, key=str))
            dead.setdefault(fk, {}).setdefault(parts, set()).add(before.part(parts))
    return chosen


def _dead_parts(nogoods: dict[tuple, set], world: _World) -> frozenset:
    """The parts of a nogood that ``world`` matches (empty if none)."""
    spend(len(nogoods))
    for parts, contents in nogoods.items():
        if world.part(parts) in contents:
            return frozenset(parts)
    return frozenset()


def _replay(steps: list[_Step], world: _World, choose, free: bool = False) -> dict:
    """Replay the history, ``choose(k, step, world)`` giving random step k's choice; the composition (or
    the hands, at marks) at every tagged step. ``free``: fixed steps only move money (no checks)."""
    results: dict = {}
    for k, step in enumerate(steps):
        if step.candidates is None:
            if step.known == "hands":
                results[step.tag] = [list(h) for h in world.hands]
            elif step.tag is not None:
                results[step.tag] = list(step.known)
            (step.move if free else step.run)(world)
        else:
            choice = choose(k, step, world)
            step.apply(world, choice)
            results[step.tag] = choice
    results["world"] = world
    return results
