"""A Koehandel Master heuristic that values every card by what it adds to its own quartets.

Idea: a card is worth the gain in my chance to complete its quartet times what that quartet adds to
my score (its value, a matching pedigree, the multiplier it gives my other quartets), plus a share of
what it would give the opponent collecting the species. Auctions, trades, pedigree slaps, rat pots and
2-player distributions weigh that value against the money at stake, keeping a cash reserve; trade
offers are padded with 0-cards, and an opponent's offer is guessed from its card count.
"""

from __future__ import annotations

import numpy as np

from hiddenhand.envs.koehandel import actions as A
from hiddenhand.envs.koehandel.cards import DENOMINATIONS, MONEY, NUM_ANIMALS, NUM_DENOMS, PEDIGREE, RAT
from hiddenhand.envs.koehandel.money import legal_payments, value
from hiddenhand.envs.koehandel.layout import (
    AUCTION, DECK, GAME, OWN_HAND, PEDIGREE as PEDIGREE_BLOCK, PEDIGREES, RAT_POT, SEAT, SELECTION, TRADE,
)
from hiddenhand.envs.koehandel.observation import SEAT_FEATURES, KoehandelObserver
from hiddenhand.envs.koehandel.records import (
    CASH_BOUND, DIGEST_COLUMNS, ROUND_OFFER, ROUND_OFFER_CARDS, ROUND_RESPONSE, TRADE_ROUNDS, UNSEEN_IN,
)
from hiddenhand.envs.koehandel.rules import KoehandelGame

from ..base import Agent

# Chance to complete a quartet holding k cards while the other players hold o of them.
_BASE = (0.0, 0.12, 0.3, 0.55, 1.0)
_CONTENTION = (1.0, 0.85, 0.7, 0.55, 0.4)
PROGRESS = tuple(tuple(_BASE[k] * _CONTENTION[o] for o in range(5)) for k in range(5))
RAT_RISK = (0.0, 0.08, 0.2, 0.45, 1.0)  # chance that k rats end as a complete rat quartet
MONEY_PER_POINT = 0.8   # money a point of (normalised) quartet value is worth, at an average cash
RICH_EXPONENT = 1.5     # a player richer than average pays more: money is worth nothing at the end
MAX_RICH = 3.0          # ... up to this factor
RESERVE = 0.2           # share of cash kept back, except for the card that completes a quartet
BUY_FACTOR = 1.5        # the auctioneer buys when the card is worth this many times the price
SLAP_SHARE = 0.85       # share of a pedigree's worth its cheapest cards may cost in a commitment
ZERO_CARD_COST = 5      # what a 0-card is worth to keep (bluff padding, rat pots, pedigree stakes)
MEAN_CARD = 100         # guessed value of a money card nobody has seen
PRIOR_OFFER_CARDS = 3   # weight, in cards, of the cash-based guess against offers seen from a player
COUNTER_STEPS = (0.5, 0.8, 1.0, 1.3, 1.6)  # counter-offers tried, as multiples of the guessed offer
JITTER = 0.1            # relative noise on bid limits and offers
BLUFF_ZEROS = 2         # 0-cards added to a cheap trade offer (half as many to a dearer one)
REVERSIBLE = 0.5        # weight of a trade win the loser can trade back (he still holds the species)
MAX_TRADE_STREAK = 3    # own turns in a row spent trading before auctioning again (no stalled deck)


def cover(hand: list[int], amount: int) -> list[int] | None:
    """Non-zero cards of ``hand`` worth at least ``amount`` with little surplus and none redundant."""
    chosen = [0] * NUM_DENOMS
    total = 0
    for d in range(NUM_DENOMS - 1, 0, -1):
        take = min(hand[d], (amount - total) // DENOMINATIONS[d])
        if take > 0:
            chosen[d] = take
            total += take * DENOMINATIONS[d]
    while total < amount:
        short = amount - total
        spare = [d for d in range(1, NUM_DENOMS) if hand[d] > chosen[d]]
        if not spare:
            return None
        d = next((d for d in spare if DENOMINATIONS[d] >= short), spare[-1])
        chosen[d] += 1
        total += DENOMINATIONS[d]
    for d in range(1, NUM_DENOMS):
        while chosen[d] and total - DENOMINATIONS[d] >= amount:
            chosen[d] -= 1
            total -= DENOMINATIONS[d]
    return chosen


def best_counter(hand: list[int], targets, guess: float, worth: float) -> int | None:
    """The counter-offer amount among the covers of ``targets`` (tried in their order) with the best
    expected gain, or None (accepting is better): the offer is taken as uniform between 0.4 and 1.6 times
    ``guess`` (+ 10), and a counter gains ``worth`` times its chance to beat it, less what it costs."""
    low, high = 0.4 * guess, 1.6 * guess + 10
    best, best_gain = None, 0.0
    for target in targets:
        plan = cover(hand, target + -target % 10)
        if plan is None:
            continue
        amount = value(plan)
        gain = min(1.0, max(0.0, (amount - low) / (high - low))) * worth - amount
        if gain > best_gain:
            best, best_gain = amount, gain
    return best


def cheapest_cost(hand: list[int], count: int) -> int:
    """What the ``count`` cheapest cards of ``hand`` are worth to keep."""
    cost = 0
    for d in range(NUM_DENOMS):
        take = min(hand[d], count)
        cost += take * (DENOMINATIONS[d] or ZERO_CARD_COST)
        count -= take
        if not count:
            break
    return cost


class KoehandelHeuristic(Agent):
    """Deterministic for a seed: its only randomness is a small jitter on bid limits and offers."""

    name = "heuristic"

    def __init__(self, game: KoehandelGame, seed: int | None = None):
        layout = KoehandelObserver.build_layout(game)
        cfg = game.cfg
        self.n = game.num_players
        self.values = cfg.animal_values
        self.pedigree_value = cfg.pedigree_value
        self.mean_value = sum(self.values) / NUM_ANIMALS
        self.start_cash = value(cfg.start_hand())
        self.payouts = cfg.donkey_payouts
        self.cash_limited = cfg.overbid_mode != "mask"  # the mask no longer keeps bids within my cash
        self.payment_rule = cfg.payment_rule
        self.denial = 1.0 / (self.n - 1)  # weight of an opponent's gain against mine
        self.prior_quartets = 8.0 / self.n  # quartets a player can still expect from a full deck
        self.deck_cards = 54 + (sum(cfg.two_player_deck_money()) - cfg.two_player_removed if self.n == 2 else 0)
        slot = layout.offset
        self.HAND, self.SEATS, self.LOOKED, self.DIGEST = slot("own_hand"), slot("seats"), slot("looked_card"), slot("digest")

        def cell(block: str, fields, name: str) -> int:  # where a named value of block 1 lies
            return slot(block) + fields.at(name)

        self.FINAL_PHASE, self.DONKEYS = cell("game", GAME, "final_phase"), cell("game", GAME, "donkeys")
        self.DECK_CARDS, self.CASH = cell("game", GAME, "deck_cards"), cell("own_hand", OWN_HAND, "cash")
        self.SPECIES_LEFT, self.TOP_BACK = cell("deck", DECK, "rooster_left"), cell("deck", DECK, "top_card_back")
        self.PEDIGREES_LEFT = cell("deck", DECK, f"{PEDIGREES[0]}_left")
        self.CARD_SPECIES, self.HIGH_BID = cell("auction", AUCTION, "species"), cell("auction", AUCTION, "high_bid")
        self.OWN_RAISE = cell("auction", AUCTION, "own_raise")
        self.PEDIGREE_WINNER = cell("pedigree", PEDIGREE_BLOCK, "winner_slot")
        self.PEDIGREE_COUNT = cell("pedigree", PEDIGREE_BLOCK, "count")
        self.LAID, self.OWN_LAID = cell("rat_pot", RAT_POT, "cards_laid_slot_0"), cell("rat_pot", RAT_POT, "own_laid_0")
        self.SELECTED, self.TARGET = cell("selection", SELECTION, "selected_0"), cell("selection", SELECTION, "target")
        self.TRADE_CHALLENGER, self.TRADE_CHALLENGED = (cell("trade", TRADE, "challenger_slot"),
                                                         cell("trade", TRADE, "challenged_slot"))
        self.TRADE_SPECIES, self.TRADE_STAKE = cell("trade", TRADE, "species"), cell("trade", TRADE, "stake")
        self.TRADE_ROUND = cell("trade", TRADE, "round")
        self.OFFER_CARDS = (cell("trade", TRADE, "round1_offer_cards"), cell("trade", TRADE, "round2_offer_cards"))
        self.HELD, self.OWNED = SEAT.at("rooster"), SEAT.at(PEDIGREES[0])  # columns of a seat's row
        self.end = layout.slices["digest"].stop
        self.trade_rows, self.trade_shape = layout.slices["record_trades"], layout.shapes["record_trades"]
        self.handlers = {
            A.D_TURN: self._turn, A.D_TARGET: self._target, A.D_FOLLOWUP: self._follow_up, A.D_BID: self._bid,
            A.D_BUYRIGHT: self._buy_right, A.D_PAY: self._pay, A.D_COMMIT: self._commit,
            A.D_STAKE: self._cheapest_card, A.D_PED_BUYRIGHT: self._pedigree_buy_right,
            A.D_PED_CARDS: self._cheapest_card, A.D_RAT: self._rat, A.D_OFFER: self._offer,
            A.D_RESPONSE: self._respond, A.D_COUNTER: self._counter, A.D_DISTRIBUTE: self._distribute,
        }
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)
        self._bid_limit = 0
        self._trade_plan: tuple[int, int] | None = None  # (TARGET action, offer value) chosen at D1
        self._counter_value = 0
        self._trade_streak = 0
        self._plan: list[int] | None = None  # cards of the selection being built
        self._payments: tuple[tuple, list[int]] | None = None
        self._prospect_cache: dict[int, tuple] = {}
        self._cash_cache: list[int] | None = None
        self._rate: float | None = None

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        observation = observation.astype(np.int64)  # every value is an integer (float32 in the env)
        obs = observation[: self.end].tolist()
        self._observation, self._obs = observation, obs
        self._prospect_cache = {}
        self._cash_cache = None
        self._rate = None
        legal = action_mask.tolist()
        decision = obs.index(1, 0, 16) if 1 in obs[:16] else 0
        action = self.handlers[decision](obs, legal) if decision else -1
        if not 0 <= action < A.NUM_ACTIONS or not legal[action]:
            action = legal.index(1)  # unreachable by design; keeps the agent legal under odd options
        return action

    # ------------------------------------------------------------------ reading the observation
    def _seat(self, obs: list[int], slot: int) -> int:
        return self.SEATS + SEAT_FEATURES * slot

    def _hand(self, obs: list[int]) -> list[int]:
        return obs[self.HAND: self.HAND + NUM_DENOMS]

    def _deck_size(self, obs: list[int]) -> int:
        return obs[self.DECK_CARDS]

    def _estimated_cash(self, obs: list[int], slot: int) -> int:
        """A guess of an opponent's cash: its proven lower bound plus, by hand size, its share of the money
        no bound accounts for (2 players: a mean value per money card received unseen)."""
        if self._cash_cache is None:
            rows = [self.DIGEST + DIGEST_COLUMNS * j for j in range(self.n - 1)]
            bounds = [obs[row + CASH_BOUND] for row in rows]
            if self.n == 2:
                self._cash_cache = [0, bounds[0] + MEAN_CARD * obs[rows[0] + UNSEEN_IN]]
            else:
                donkeys = min(obs[self.DONKEYS], len(self.payouts))
                total = self.n * (self.start_cash + sum(self.payouts[:donkeys]))
                sizes = [obs[self._seat(obs, j)] for j in range(1, self.n)]
                free = max(0, total - obs[self.CASH] - sum(bounds))
                self._cash_cache = [0] + [b + free * z // max(1, sum(sizes)) for b, z in zip(bounds, sizes)]
        return self._cash_cache[slot]

    def _offered_card_worth(self, obs: list[int], slot: int, size: int) -> float:
        """Mean value of a card in an offer of ``slot``: the offers of his I have seen (my recent trades),
        blended with his mean card value."""
        worth, cards = PRIOR_OFFER_CARDS * self._estimated_cash(obs, slot) / max(1, size), PRIOR_OFFER_CARDS
        rows = self._observation[self.trade_rows].reshape(self.trade_shape)
        for row in rows[(rows[:, 0] > 0) & (rows[:, 1] == slot)].tolist():
            for b in TRADE_ROUNDS:  # R4 (docs/koehandel_rules.md §12.5): the rounds whose offer I saw
                offer = row[b + ROUND_OFFER: b + ROUND_OFFER + NUM_DENOMS]
                if row[b + ROUND_RESPONSE] and offer[0] >= 0:
                    worth += sum(c * v for c, v in zip(offer, DENOMINATIONS))
                    cards += row[b + ROUND_OFFER_CARDS]
        return worth / cards

    def _money_rate(self) -> float:
        """Money per point of value: higher when I hold more than the average player."""
        if self._rate is not None:
            return self._rate
        obs = self._obs
        cash = obs[self.CASH]
        if self.n == 2:
            average = (cash + self._estimated_cash(obs, 1)) / 2
        else:
            average = self.start_cash + sum(self.payouts[:min(obs[self.DONKEYS], len(self.payouts))])
        self._rate = MONEY_PER_POINT * min(MAX_RICH, max(1.0, cash / max(1.0, average)) ** RICH_EXPONENT)
        return self._rate

    def _card_worth(self, obs: list[int], slot: int) -> float:
        """Mean value of one money card of an opponent."""
        size = obs[self._seat(obs, slot)]
        return self._estimated_cash(obs, slot) / size if size else 0.0

    # ------------------------------------------------------------------ valuation
    def _prospects(self, obs: list[int], slot: int) -> tuple[list[float], float, float, list[float]]:
        """For the player in ``slot``: completion chance per animal species, expected quartets (with the
        ones the deck may still bring), their summed values, and the pedigree weight per species."""
        cached = self._prospect_cache.get(slot)
        if cached is not None:
            return cached
        seat = self._seat(obs, slot)
        held = obs[seat + self.HELD: seat + self.HELD + NUM_ANIMALS]
        owned = obs[seat + self.OWNED: seat + self.OWNED + NUM_ANIMALS]
        deck = obs[self.SPECIES_LEFT: self.SPECIES_LEFT + NUM_ANIMALS]
        pedigrees_left = obs[self.PEDIGREES_LEFT: self.PEDIGREES_LEFT + NUM_ANIMALS]
        prior = self.prior_quartets * self._deck_size(obs) / self.deck_cards
        chances, weights = [], []
        quartets, worth = prior, prior * self.mean_value
        for s in range(NUM_ANIMALS):
            k = held[s]
            p = PROGRESS[k][max(0, 4 - k - deck[s])] if k else 0.0
            chances.append(p)
            quartets += p
            worth += p * self.values[s]
            weights.append(1.0 if owned[s] else 0.3 if pedigrees_left[s] else 0.0)
        self._prospect_cache[slot] = result = (chances, quartets, worth, weights)
        return result

    def _quartet_worth(self, prospects, s: int) -> float:
        """Money value of completing species ``s``: its value, its pedigree, and the multiplier it adds
        to the other expected quartets (normalised per quartet)."""
        chances, quartets, worth, weights = prospects
        others = quartets - chances[s]
        mean = (worth - chances[s] * self.values[s]) / others if others > 0.05 else self.mean_value
        own = self.values[s] + self.pedigree_value * weights[s]
        return self._money_rate() * (own + mean * others / (others + 1))

    def _rat_cost(self, prospects) -> float:
        """Money value of losing a quartet to a complete rat quartet."""
        _, quartets, worth, _ = prospects
        mean = worth / quartets if quartets > 0.05 else self.mean_value
        return self._money_rate() * 1.3 * mean * min(1.0, quartets)

    def _holding(self, obs: list[int], slot: int, s: int) -> tuple[int, int]:
        """Cards of species ``s`` held by ``slot`` and by all other players."""
        seat = self._seat(obs, slot)
        k = obs[seat + self.HELD + s]
        total = sum(obs[self._seat(obs, j) + self.HELD + s] for j in range(self.n))
        return k, total - k

    def _gain(self, obs: list[int], slot: int, s: int) -> float:
        """Value to ``slot`` of receiving one card of species ``s`` (animal or rat) instead of someone else
        receiving it."""
        prospects = self._prospects(obs, slot)
        k, others = self._holding(obs, slot, s)
        if s == RAT:
            return -self._rat_cost(prospects) * (RAT_RISK[min(k + 1, 4)] - RAT_RISK[k])
        if k >= 4 or others >= 4:
            return 0.0
        swing = PROGRESS[k + 1][others] - (PROGRESS[k][others + 1] if k else 0.0)
        return self._quartet_worth(prospects, s) * swing

    def _card_value(self, obs: list[int], s: int) -> float:
        """Value to me of a card of species ``s`` on the table: my gain plus a share of the gain of the
        opponent who would profit most from it (denial)."""
        mine = self._gain(obs, 0, s)
        if s == RAT:
            return mine
        threat = max((self._gain(obs, j, s) for j in range(1, self.n) if obs[self._seat(obs, j) + self.HELD + s]),
                     default=0.0)
        return mine + self.denial * threat

    def _pedigree_worth(self, obs: list[int], slot: int, s: int) -> float:
        """Money value of owning the pedigree of ``s``: matched it counts per quartet, else once."""
        prospects = self._prospects(obs, slot)
        chances, quartets = prospects[0], prospects[1]
        matched = self.pedigree_value
        unmatched = self.pedigree_value / (quartets + 1)
        return self._money_rate() * (chances[s] * matched + (1 - chances[s]) * unmatched)

    def _spendable(self, obs: list[int], completes: bool) -> int:
        cash = obs[self.CASH]
        return cash if completes or obs[self.FINAL_PHASE] else int(cash * (1 - RESERVE))

    def _jitter(self) -> float:
        return 1.0 + JITTER * (2 * self._rng.random() - 1)

    # ------------------------------------------------------------------ turn and trade choice
    def _turn(self, obs: list[int], legal: list[int]) -> int:
        if not legal[A.TRADE]:
            return A.AUCTION
        target, offer, score = self._best_trade(obs)
        if not legal[A.AUCTION] or (score > self._auction_worth(obs) and self._trade_streak < MAX_TRADE_STREAK):
            self._trade_plan = (target, offer)
            self._trade_streak += 1
            return A.TRADE
        self._trade_streak = 0
        return A.AUCTION

    def _auction_worth(self, obs: list[int]) -> float:
        """What auctioning (or distributing) the next card is worth to the player on turn."""
        if self.n == 2:
            return 20.0
        cash = [self._estimated_cash(obs, j) for j in range(1, self.n)]
        return 20.0 + 0.1 * sum(cash) / len(cash)

    def _target(self, obs: list[int], legal: list[int]) -> int:
        if self._trade_plan is None or not legal[self._trade_plan[0]]:
            target, offer, _ = self._best_trade(obs)
            self._trade_plan = (target, offer)
        return self._trade_plan[0]

    def _follow_up(self, obs: list[int], legal: list[int]) -> int:
        return A.AUCTION

    def _trade_swing(self, obs: list[int], slot: int, s: int, stake: int) -> tuple[float, float]:
        """(value to me of winning rather than losing the trade of ``stake`` cards of ``s`` with ``slot``,
        that of winning rather than keeping things as they are); a win that can be traded back counts less."""
        me = self._prospects(obs, 0)
        k, others = self._holding(obs, 0, s)
        j, j_others = self._holding(obs, slot, s)
        if s == RAT:
            risk = self._rat_cost(me)
            win, keep, lose = (-risk * RAT_RISK[max(k - stake, 0)], -risk * RAT_RISK[k],
                               -risk * RAT_RISK[min(k + stake, 4)])
            opp = self._rat_cost(self._prospects(obs, slot))
            theirs = opp * (RAT_RISK[min(j + stake, 4)] - RAT_RISK[max(j - stake, 0)])
        else:
            worth = self._quartet_worth(me, s)
            win = worth * PROGRESS[min(k + stake, 4)][others - stake]
            keep = worth * PROGRESS[k][others]
            lose = worth * PROGRESS[max(k - stake, 0)][min(others + stake, 4)] if k > stake else 0.0
            opp = self._quartet_worth(self._prospects(obs, slot), s)
            theirs = opp * (PROGRESS[min(j + stake, 4)][j_others - stake]
                            - (PROGRESS[j - stake][j_others + stake] if j > stake else 0.0))
        weight = REVERSIBLE if (k if s == RAT else j) > stake else 1.0
        extra = self.denial * theirs
        return weight * (win - lose + extra), weight * (win - keep + extra)

    def _best_trade(self, obs: list[int]) -> tuple[int, int, float]:
        """The best legal (TARGET action, offer value, expected gain) for a trade I start."""
        mine = obs[self._seat(obs, 0) + self.HELD: self._seat(obs, 0) + self.HELD + RAT + 1]
        best = (-1, 0, -1e9)
        for slot in range(1, self.n):
            seat = self._seat(obs, slot)
            theirs = obs[seat + self.HELD: seat + self.HELD + RAT + 1]
            for s in range(RAT + 1):
                if 0 < mine[s] < 4 and theirs[s]:
                    offer, score = self._plan_offer(obs, slot, s, 2 if mine[s] == theirs[s] == 2 else 1)
                    if score > best[2]:
                        best = (A.target_action(slot, s), offer, score)
        return best

    def _plan_offer(self, obs: list[int], slot: int, s: int, stake: int) -> tuple[int, float]:
        """(offer value, expected gain) of the best of a few offers in a trade with ``slot``, whose
        chance to win grows with the offer against the opponent's estimated cash."""
        hand = self._hand(obs)
        floor = next((v for c, v in zip(hand, DENOMINATIONS) if c), 0)  # the cheapest possible offer
        swing, gain = self._trade_swing(obs, slot, s, stake)
        loss = swing - gain
        their_cash = self._estimated_cash(obs, slot)
        spend = self._spendable(obs, s != RAT and obs[self._seat(obs, 0) + self.HELD + s] + stake == 4)
        best = (floor, -1e9)
        for target in {0, int(0.6 * swing), their_cash + 20}:
            offer = max(floor, min(spend, target) // 10 * 10)
            p = min(0.9, 0.15 + 0.75 * offer / (their_cash + 20))
            score = p * (gain - 0.8 * offer) - (1 - p) * (loss - 0.2 * offer)
            if score > best[1]:
                best = (offer, score)
        return best

    # ------------------------------------------------------------------ animal auction
    def _bid(self, obs: list[int], legal: list[int]) -> int:
        high, pending = obs[self.HIGH_BID], obs[self.OWN_RAISE]
        if not pending:
            s = obs[self.CARD_SPECIES]
            k = obs[self._seat(obs, 0) + self.HELD + s]
            limit = self._card_value(obs, s) * self._jitter()
            limit = min(limit, self._spendable(obs, k == 3))
            if self.cash_limited:
                limit = min(limit, obs[self.CASH])
            if limit < high + 10:
                return A.PASS
            self._bid_limit = high + 10
        room = self._bid_limit - high - pending
        for j in range(len(A.RAISES) - 1, -1, -1):
            if A.RAISES[j] <= room and legal[A.ADD + j]:
                return A.ADD + j
        return A.BID if legal[A.BID] else A.PASS

    def _buy_right(self, obs: list[int], legal: list[int]) -> int:
        if not legal[A.BUY]:
            return A.DECLINE
        high, s = obs[self.HIGH_BID], obs[self.CARD_SPECIES]
        k = obs[self._seat(obs, 0) + self.HELD + s]
        worth = self._card_value(obs, s)
        affordable = high <= self._spendable(obs, k == 3)
        return A.BUY if affordable and worth >= BUY_FACTOR * high else A.DECLINE

    def _pay(self, obs: list[int], legal: list[int]) -> int:
        """Pay the cheapest legal payment (fewest cards on a tie), largest cards first."""
        hand, amount = self._hand(obs), obs[self.TARGET]
        key = (tuple(hand), amount)
        if self._payments is None or self._payments[0] != key:
            options = legal_payments(hand, amount, self.payment_rule)
            best = min(options, key=lambda f: (value(f), sum(f), [-c for c in reversed(f)])) if options else None
            self._payments = (key, list(best) if best else [0] * NUM_DENOMS)
        return self._next_card(obs, legal, self._payments[1])

    def _next_card(self, obs: list[int], legal: list[int], plan: list[int]) -> int:
        """The largest card of ``plan`` not yet selected, else DONE; the mask has the last word."""
        selected = obs[self.SELECTED: self.SELECTED + NUM_DENOMS]
        for d in range(NUM_DENOMS - 1, -1, -1):
            if plan[d] > selected[d] and legal[A.CARD + d]:
                return A.CARD + d
        if legal[A.DONE]:
            return A.DONE
        return next(A.CARD + d for d in range(NUM_DENOMS - 1, -1, -1) if legal[A.CARD + d])

    # ------------------------------------------------------------------ pedigree auction
    def _commit(self, obs: list[int], legal: list[int]) -> int:
        s = obs[self.CARD_SPECIES]
        worth = self._pedigree_worth(obs, 0, s) * self._jitter()
        hand = self._hand(obs)
        best = 0
        for k in range(1, A.MAX_SLAP + 1):
            if not legal[A.SLAP + k] or cheapest_cost(hand, k) > SLAP_SHARE * worth:
                break
            best = k
        return A.SLAP + best if best else A.NEVER

    def _pedigree_buy_right(self, obs: list[int], legal: list[int]) -> int:
        if not legal[A.BUY]:
            return A.DECLINE
        s, kstar = obs[self.CARD_SPECIES], obs[self.PEDIGREE_COUNT]
        winner = obs[self.PEDIGREE_WINNER]
        stake = kstar * 0.6 * self._card_worth(obs, winner) if winner > 0 else 0.0
        cost = cheapest_cost(self._hand(obs), kstar) + stake
        return A.BUY if self._pedigree_worth(obs, 0, s) >= 1.3 * cost else A.DECLINE

    def _cheapest_card(self, obs: list[int], legal: list[int]) -> int:
        return next(A.CARD + d for d in range(NUM_DENOMS) if legal[A.CARD + d])

    # ------------------------------------------------------------------ rat auction
    def _rat(self, obs: list[int], legal: list[int]) -> int:
        lay = next((d for d in range(NUM_DENOMS) if legal[A.LAY + d]), None)
        if lay is None:
            return A.TAKE
        own = obs[self.OWN_LAID: self.OWN_LAID + NUM_DENOMS]
        pot = sum(c * v for c, v in zip(own, DENOMINATIONS))
        for slot in range(1, self.n):
            laid = obs[self.LAID + slot]
            if laid:
                pot += laid * min(50.0, 0.5 * self._card_worth(obs, slot))
        take = pot + self._gain(obs, 0, RAT)
        return A.TAKE if take >= (10 if lay == 0 else -0.8 * DENOMINATIONS[lay]) else A.LAY + lay

    # ------------------------------------------------------------------ cow trade
    def _offer(self, obs: list[int], legal: list[int]) -> int:
        selected = obs[self.SELECTED: self.SELECTED + NUM_DENOMS]
        if not any(selected) or self._plan is None:
            hand = self._hand(obs)
            if self._trade_plan is not None and obs[self.TRADE_ROUND] == 1:
                amount = self._trade_plan[1]
            else:  # round 2 after a tie, or a trade forced on me without a D1 choice
                amount, _ = self._plan_offer(obs, obs[self.TRADE_CHALLENGED], obs[self.TRADE_SPECIES],
                                             obs[self.TRADE_STAKE])
            amount = int(max(0, amount) * self._jitter())
            amount -= amount % 10
            plan = cover(hand, amount) or list(hand)
            plan[0] = min(hand[0], BLUFF_ZEROS if value(plan) <= 100 else BLUFF_ZEROS // 2)  # look bigger
            if not any(plan):
                plan = cover(hand, 10) or list(hand)
            self._plan = plan
            self._trade_plan = None
        return self._next_card(obs, legal, self._plan)

    def _respond(self, obs: list[int], legal: list[int]) -> int:
        if not legal[A.COUNTER]:
            return A.ACCEPT
        amount = self._counter_amount(obs)
        if amount is None:
            return A.ACCEPT
        self._counter_value = amount
        return A.COUNTER

    def _counter_amount(self, obs: list[int]) -> int | None:
        """The counter-offer with the best expected gain against the challenger's offer, guessed from its
        card count, or None to accept."""
        challenger, s, stake = obs[self.TRADE_CHALLENGER], obs[self.TRADE_SPECIES], obs[self.TRADE_STAKE]
        cards = obs[self.OFFER_CARDS[obs[self.TRADE_ROUND] - 1]]
        size = obs[self._seat(obs, challenger)] + cards
        guess = cards * self._offered_card_worth(obs, challenger, size) * self._jitter()
        swing, _ = self._trade_swing(obs, challenger, s, stake)
        targets = {int(guess * f) + 10 for f in COUNTER_STEPS} | {obs[self.CASH]}
        return best_counter(self._hand(obs), targets, guess, swing)

    def _counter(self, obs: list[int], legal: list[int]) -> int:
        selected = obs[self.SELECTED: self.SELECTED + NUM_DENOMS]
        if not any(selected) or self._plan is None:
            hand = self._hand(obs)
            amount = self._counter_value or self._counter_amount(obs) or 10
            self._plan = cover(hand, amount) or list(hand)
            self._counter_value = 0
        return self._next_card(obs, legal, self._plan)

    # ------------------------------------------------------------------ 2 players
    def _distribute(self, obs: list[int], legal: list[int]) -> int:
        """KEEP when the card I looked at swings more (my gain plus the opponent's) than the next card."""
        looked = obs[self.LOOKED]
        if self._deck_size(obs) == 0:
            return A.KEEP if self._swing(obs, looked) >= 0 else A.GIVE
        if obs[self.TOP_BACK] == 1:  # the next card is money
            expected = 2.0 * MEAN_CARD
        else:
            deck = obs[self.SPECIES_LEFT: self.PEDIGREES_LEFT + NUM_ANIMALS]  # indexed by card code
            total = sum(deck)
            expected = sum(c * self._swing(obs, card) for card, c in enumerate(deck) if c) / total if total else 0.0
        return A.KEEP if self._swing(obs, looked) >= expected else A.GIVE

    def _swing(self, obs: list[int], card: int) -> float:
        """My gain plus the opponent's from a card (code of observation block ``looked_card``)."""
        if card >= MONEY:
            return 2.0 * DENOMINATIONS[card - MONEY]
        if card >= PEDIGREE:
            s = card - PEDIGREE
            return self._pedigree_worth(obs, 0, s) + self._pedigree_worth(obs, 1, s)
        return self._gain(obs, 0, card) + self._gain(obs, 1, card)
