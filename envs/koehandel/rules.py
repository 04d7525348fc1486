"""Koehandel Master rules engine: pure game state and transitions (docs/koehandel_rules.md).

Cards are ints (:mod:`.cards`): 0-9 animal species, 10 rat, 11-20 the pedigree of species 0-9, and in
the 2-player deck 21-27 a money card of denomination index 0-6. The state is plain Python data (lists
and ints), so ``to_json`` is a copy. Every settled auction, rat auction, pedigree auction, cow trade and
2-player distribution is appended to ``events`` as a plain dict with full information (the research
record); :class:`~.records.Memory` turns each event into what every player may know of it.
"""

from __future__ import annotations

import copy
from typing import Any, ClassVar

import numpy as np

from ..core.game import Game
from ..core.incremental import TrackedState
from ..core.options import Options
from . import actions as A
from . import checks, redeal
from .cards import DENOMINATIONS, MONEY, NUM_ANIMALS, NUM_DENOMS, NUM_SPECIES, PEDIGREE, RAT
from .config import KoehandelConfig, option_specs
from .money import auto_payment, contains, extensions, guarded_denominations, legal_payments, pack, value
from .position import position
from .records import Memory
from .render import render_state
from .scoring import player_score


class KoehandelGame(Game):
    """A configured Koehandel Master game; see ``koehandel_v0`` for the options."""

    name = "koehandel"
    min_players = 2
    max_players = 6
    score_scale = 1000.0
    options: ClassVar[Options] = option_specs()

    def __init__(self, num_players: int = 4, **options: Any):
        super().__init__(num_players)
        self.cfg = KoehandelConfig.from_options(num_players=num_players, **options)
        self.truncation_reward = self.cfg.truncation_reward

    @property
    def num_actions(self) -> int:
        return A.NUM_ACTIONS

    @property
    def max_game_length(self) -> int:
        # a safety net only: the game truncates itself after max_turns turns (K-A32)
        return self.cfg.max_turns * 5000

    def config(self) -> dict[str, Any]:
        options = self.cfg.options()
        options.pop("num_players")
        return options

    def invariants(self, state: KoehandelState) -> list[str]:
        """Conservation of money and cards, ranges, and a decision that the rules could have reached
        (the right seat to act, with at least one legal action); see :func:`.checks.invariants`."""
        return checks.invariants(state)

    def new_initial_state(self, rng: np.random.Generator) -> KoehandelState:
        state = KoehandelState(self)
        state.setup(rng)
        return state

    def state_from_json(self, data: dict[str, Any]) -> KoehandelState:
        """Every field checked, the event record walked against the position (:func:`.checks.parse_state`)."""
        return checks.parse_state(self, KoehandelState(self), data)

    def upgraded_state(self, data: Any) -> Any:
        """Older snapshots' change counters dropped (:func:`.checks.upgraded_state`)."""
        return checks.upgraded_state(data)

    def action_to_string(self, action: int) -> str:
        return A.ACTION_NAMES[action]

    def announce(self, state: KoehandelState, action: int) -> str | None:
        """Private build steps and sealed choices are not seen at the table (§11.1)."""
        if A.ADD <= action < A.BID or A.CARD <= action < A.DONE:
            return None
        if action == A.BID:
            return f"BID {state.high + state.pending}"
        if action == A.DONE:
            return f"DONE ({sum(state.selection)} cards, face down)"
        if A.NEVER <= action <= A.SLAP + A.MAX_SLAP:
            return "commits (sealed)"
        if A.LAY <= action < A.ACCEPT:
            return "LAY (one card, face down)"
        if action in (A.KEEP, A.GIVE):
            return A.ACTION_NAMES[action] + " (the card is revealed when placed)"
        return self.action_to_string(action)

    def string_to_action(self, text: str) -> int:
        try:
            return A.LAYOUT.parse(text)
        except ValueError as error:
            raise ValueError(f"koehandel: {error}") from None

    def position(self, base: dict[str, Any], **spec: Any) -> dict[str, Any]:
        """A turn's start set up from keywords (``env.unwrapped.set_position``; :func:`.position.position`)."""
        return position(self, base, spec)


# Fields of the state, all plain JSON data; ``to_json`` copies exactly these.
_FIELDS = (
    "hands", "cash", "sizes", "holdings", "pedigree_owner", "deck", "bank", "removed", "donkeys",
    "turns", "turn_player", "decision", "current_player", "is_terminal", "is_truncated", "seq",
    "events", "start_hands",
    "card", "auctioneer", "excluded", "bidders", "high", "high_bidder", "passes", "pending", "max_bid",
    "bids", "defaults", "commits", "commit_rounds", "queue", "kstar", "tied", "winner", "stake",
    "pot", "payer", "payee", "amount", "options", "selection", "challenger", "challenged", "species",
    "trade_stake", "trade_round", "offers", "rounds", "looked", "event_start", "payout",
)


class KoehandelState(TrackedState):
    """One position; ``apply`` mutates it. Field meanings are in the comments of ``setup``.

    On the core's incremental protocol (:mod:`~hiddenhand.envs.core.incremental`): ``apply`` counts the
    ``version`` and lists in ``changes`` each decision it reached (its ``D_*`` code). Every change that an
    observation shows ends in a new decision, so an apply that lists none changed only the mover's own
    raise or selection (§12.5), which the observer rewrites alone.
    """

    def __init__(self, game: KoehandelGame):
        super().__init__()
        self.game = game
        self.cfg = game.cfg
        self.n = game.num_players
        self.memory = Memory(self.cfg)
        self._fitting: tuple[list | None, int, list[int]] = (None, 0, [])  # see _payment_choices
        self.approximate = False  # a re-dealt copy drawn past the work budget (fallback.py)

    # ------------------------------------------------------------------ setup (§2)
    def setup(self, rng: np.random.Generator) -> None:
        cfg, n = self.cfg, self.n
        start = cfg.start_hand()
        self.hands = [list(start) for _ in range(n)]        # money per denomination (0-cards exist, K-A3)
        self.cash = [value(start)] * n
        self.sizes = [sum(start)] * n
        self.start_hands = [list(start) for _ in range(n)]    # public: the hands the game began with
        self.holdings = [[0] * NUM_SPECIES for _ in range(n)]  # cards per species 0..10
        self.pedigree_owner = [-1] * NUM_ANIMALS
        left = [have - n * c for have, c in zip(cfg.money_composition, start)]
        red = [s for s in range(NUM_ANIMALS) for _ in range(4)] + [RAT] * 4 \
            + [PEDIGREE + s for s in range(NUM_ANIMALS)]
        self.removed = [0] * NUM_DENOMS                       # 2 players: money out of the game
        if n == 2:
            self.bank = list(cfg.two_player_reserve)          # the donkey reserve
            money = cfg.two_player_deck_money()
            self.removed[0] = left[0]
            pool = [d for d in range(NUM_DENOMS) for _ in range(money[d])]
            rng.shuffle(pool)
            for d in pool[:cfg.two_player_removed]:
                self.removed[d] += 1
            red += [MONEY + d for d in pool[cfg.two_player_removed:]]
        else:
            self.bank = left
        rng.shuffle(red)
        self.deck = [int(c) for c in red]                     # top card is deck[-1]
        self.donkeys = 0
        self.turns = 0
        self.turn_player = int(rng.integers(n))               # K-A4
        self.is_terminal = False
        self.is_truncated = False
        self.seq = 0
        self.events: list[dict[str, Any]] = []
        self._clear_auction()
        self._clear_trade()
        self.looked = -1
        self.event_start: list[int] = []
        self._begin_turn()
        self._resolve_forced(rng)

    def _clear_auction(self) -> None:
        self.card = -1            # card being auctioned or distributed
        self.auctioneer = -1
        self.excluded: list[int] = []   # defaulted bidders (reveal_and_restart)
        self.bidders: list[int] = []    # E, clockwise from the auctioneer's left
        self.high = 0
        self.high_bidder = -1
        self.passes = 0
        self.pending = 0          # the polled bidder's private raise Δ
        self.max_bid = [0] * self.n
        self.bids: list[list[int]] = []
        self.defaults: list[dict[str, Any]] = []
        self.commits: list[int | None] = [None] * self.n  # pedigree: 0 NEVER, k SLAP(k)
        self.commit_rounds: list[list[int | None]] = []
        self.queue: list[int] = []
        self.kstar = 0
        self.tied: list[int] = []
        self.winner = -1
        self.stake = [0] * NUM_DENOMS  # pedigree stake laid face down by the winner
        self.pot: list[list[int]] = []  # rat pot: [seat, denomination] in laying order
        self.payer = self.payee = -1
        self.amount = 0
        self.options: list[list[int]] = []  # legal payments L (§12.3)
        self.selection = [0] * NUM_DENOMS
        self.payout = 0

    def _clear_trade(self) -> None:
        self.challenger = self.challenged = self.species = -1
        self.trade_stake = 0
        self.trade_round = 0
        self.offers = [[0] * NUM_DENOMS, [0] * NUM_DENOMS]  # in transit: challenger's, challenged's
        self.rounds: list[dict[str, Any]] = []

    # ------------------------------------------------------------------ small queries
    def left(self, seat: int) -> int:
        return (seat + 1) % self.n

    def trade_targets(self, seat: int) -> list[tuple[int, int]]:
        """(offset, species) pairs of the legal trades of ``seat`` (§7.1, K-A20)."""
        own, n, holdings = self.holdings[seat], self.n, self.holdings
        targets = []
        for s in range(NUM_SPECIES):
            if 0 < own[s] < 4:
                for o in range(1, n):
                    if holdings[(seat + o) % n][s]:
                        targets.append((o, s))
        return targets

    def has_trade(self, seat: int) -> bool:
        own = self.holdings[seat]
        others = self.holdings[seat + 1:] + self.holdings[:seat]
        for s in range(NUM_SPECIES):
            if 0 < own[s] < 4:
                for holding in others:
                    if holding[s]:
                        return True
        return False

    def all_complete(self) -> bool:
        return all(h[s] in (0, 4) for h in self.holdings for s in range(NUM_SPECIES))

    def _add_money(self, seat: int, d: int, k: int = 1) -> None:
        self.hands[seat][d] += k
        self.cash[seat] += k * DENOMINATIONS[d]
        self.sizes[seat] += k

    def _move(self, counts: list[int], giver: int | None, taker: int | None) -> None:
        for d, k in enumerate(counts):
            if k:
                if giver is not None:
                    self._add_money(giver, d, -k)
                if taker is not None:
                    self._add_money(taker, d, k)

    def _begin_event(self) -> None:
        self.event_start = list(self.cash)

    def _record(self, event: dict[str, Any]) -> None:
        self.seq += 1
        event = {"seq": self.seq, "kind": event.pop("kind"), "turn": self.turns, **event,
                 "cash_before": self.event_start, "cash_after": list(self.cash)}
        self.events.append(event)
        self.memory.settle(event)

    # ------------------------------------------------------------------ turns (§3, §9)
    def _begin_turn(self) -> None:
        player = self.turn_player
        if not self.deck:
            while not self.has_trade(player):  # skipped (K-A31); someone can trade, or the game ended
                player = self.left(player)
            self.turn_player = player
        self.turns += 1
        self._set(A.D_TURN, player)

    def _end_turn(self) -> None:
        self._clear_auction()
        self._clear_trade()
        if not self.deck and self.all_complete():  # K-A30
            self.is_terminal = True
            self._set(0, self.current_player)
        elif self.turns >= self.cfg.max_turns:    # K-A32
            self.is_terminal = self.is_truncated = True
            self._set(0, self.current_player)
        else:
            self.turn_player = self.left(self.turn_player)
            self._begin_turn()

    def _set(self, decision: int, player: int) -> None:
        self.decision = decision
        self.current_player = player
        self.changes.append(decision)

    # ------------------------------------------------------------------ masks (§12)
    def legal_mask(self) -> np.ndarray:
        return A.action_mask(self._legal())

    def legal_actions(self) -> list[int]:
        """Legal action ids of ``current_player`` (empty once the game is over)."""
        return list(self._legal())

    def _legal(self) -> tuple[int, ...]:
        decision, p, cfg = self.decision, self.current_player, self.cfg
        if decision == A.D_BID:
            room = self.bid_limit(p) - self.high - self.pending
            return A.bid_choices(self.pending > 0, room)
        hand = self.hands[p] if decision else None
        if decision == A.D_PAY:
            return self._payment_choices()
        if decision in (A.D_OFFER, A.D_COUNTER):
            selection = self.selection
            done = sum(selection) or cfg.allow_empty_offer or (decision == A.D_OFFER and not self.sizes[p])
            return A.card_choices(tuple([d for d in range(NUM_DENOMS) if hand[d] > selection[d]]), bool(done))
        if decision in (A.D_STAKE, A.D_PED_CARDS):
            return A.card_choices(tuple([d for d in range(NUM_DENOMS) if hand[d] > self.selection[d]]), False)
        if decision == A.D_TURN:
            if not self.deck:
                return (A.TRADE,)
            can_trade = (self.sizes[p] > 0 or cfg.allow_empty_offer) and self.has_trade(p)
            return (A.AUCTION, A.TRADE) if can_trade else (A.AUCTION,)
        if decision == A.D_RAT:
            return (A.TAKE, *[A.LAY + d for d in range(NUM_DENOMS) if hand[d]])  # empty hand: TAKE (K-A17)
        if decision == A.D_RESPONSE:
            return (A.ACCEPT, A.COUNTER) if self.can_offer(p) else (A.ACCEPT,)
        if decision == A.D_BUYRIGHT:
            return (A.DECLINE, A.BUY) if self.cash[p] >= self.high else (A.DECLINE,)  # K-A10
        if decision == A.D_PED_BUYRIGHT:
            return (A.DECLINE, A.BUY) if self.sizes[p] >= self.kstar else (A.DECLINE,)  # K-A10
        if decision == A.D_COMMIT:
            top = A.MAX_SLAP if cfg.overbid_mode != "mask" else min(A.MAX_SLAP, self.sizes[p])  # K-A15
            return (A.NEVER, *[A.SLAP + k for k in range(1, top + 1)])
        if decision == A.D_TARGET:
            return tuple(A.target_action(o, s) for o, s in self.trade_targets(p))
        if decision == A.D_FOLLOWUP:
            return (A.AUCTION,) if cfg.super_koehandel_mandatory else (A.AUCTION, A.END_TURN)
        if decision == A.D_DISTRIBUTE:
            return (A.KEEP, A.GIVE)
        return ()

    def _payment_choices(self) -> tuple[int, ...]:
        """D6 masks (§12.3). The options that contain the selection are kept between calls: while the
        selection only grows, the next call filters those instead of all options."""
        options, selected = self.options, pack(self.selection)
        cached_options, cached_selection, fitting = self._fitting
        if cached_options is not options or not contains(selected, cached_selection):
            fitting = [pack(f) for f in options]
        grow, complete, fitting = extensions(fitting, selected)
        self._fitting = (options, selected, fitting)
        return A.card_choices(guarded_denominations(grow), complete)

    def bid_limit(self, seat: int) -> int:
        """Highest bid ``seat`` may build: its cash (mask mode) or the public cap (K-A9)."""
        if self.cfg.overbid_mode == "mask":
            return self.cash[seat]
        if self.cfg.overbid_cap is not None:
            return self.cfg.overbid_cap
        return sum(self.cash)

    def covered_bids(self) -> list[int]:
        """Per seat, money its hand holds for sure: in ``mask`` mode its highest bid in the auction under
        way (bids are capped by cash, K-A9; the buy-right and payment count on it), else 0."""
        if self.cfg.overbid_mode != "mask":
            return [0] * self.n
        return list(self.max_bid)

    def can_offer(self, seat: int) -> bool:
        return self.sizes[seat] > 0 or self.cfg.allow_empty_offer

    # ------------------------------------------------------------------ apply
    def play(self, action: int, rng: np.random.Generator) -> None:
        self._act(action, rng)
        self._resolve_forced(rng)

    def _resolve_forced(self, rng: np.random.Generator) -> None:
        """Apply single legal actions (``auto_resolve_forced``, K-A38) and payments (``auto_payment``)."""
        if not self.cfg.auto_resolve_forced:
            return
        while not self.is_terminal:
            legal = self._legal()
            if len(legal) != 1:
                return
            self._act(legal[0], rng)

    def _act(self, action: int, rng: np.random.Generator) -> None:
        decision, p = self.decision, self.current_player
        if decision == A.D_BID:
            self._bid_step(action)
        elif decision in (A.D_OFFER, A.D_COUNTER, A.D_PAY, A.D_STAKE, A.D_PED_CARDS):
            self._select_step(action)
        elif decision == A.D_RAT:
            self._rat_step(action, rng)
        elif decision == A.D_TURN:
            if action == A.TRADE:
                self._set(A.D_TARGET, p)
            else:
                self._auction_or_distribute(rng)
        elif decision == A.D_TARGET:
            offset, species = divmod(action - A.TARGET, NUM_SPECIES)
            self._start_trade(p, (p + offset + 1) % self.n, species)
        elif decision == A.D_RESPONSE:
            self._respond(action)
        elif decision == A.D_BUYRIGHT:
            self._animal_buyright(action == A.BUY)
        elif decision == A.D_COMMIT:
            self._commit(action, rng)
        elif decision == A.D_PED_BUYRIGHT:
            self._pedigree_buyright(action == A.BUY)
        elif decision == A.D_FOLLOWUP:
            if action == A.AUCTION:
                self._auction_or_distribute(rng)
            else:
                self._end_turn()
        elif decision == A.D_DISTRIBUTE:
            self._distribute(action == A.KEEP)
        else:
            raise RuntimeError(f"koehandel: no decision pending (decision={decision})")

    def _select_step(self, action: int) -> None:
        """One card of a selection (D6, D8, D10, D12, D14), or DONE."""
        if action != A.DONE:
            self.selection[action - A.CARD] += 1
            if self.decision in (A.D_STAKE, A.D_PED_CARDS) and sum(self.selection) == self.kstar:
                self._selection_done()
            return
        self._selection_done()

    def _selection_done(self) -> None:
        decision, chosen = self.decision, self.selection
        self.selection = [0] * NUM_DENOMS
        if decision == A.D_PAY:
            self._pay(chosen)
        elif decision == A.D_STAKE:
            self._lay_stake(chosen)
        elif decision == A.D_PED_CARDS:
            self._pedigree_bought(chosen)
        elif decision == A.D_OFFER:
            self._offer_laid(chosen)
        else:
            self._counter_laid(chosen)

    # ------------------------------------------------------------------ auctions (§4-§6)
    def _auction_or_distribute(self, rng: np.random.Generator) -> None:
        if self.n == 2:
            self.card = self.looked = self.deck.pop()
            self._set(A.D_DISTRIBUTE, self.turn_player)
        else:
            self._reveal(rng)

    def _reveal(self, rng: np.random.Generator) -> None:
        """The auctioneer turns the top card (§4.1); donkeys pay out, then the card is auctioned."""
        self._clear_auction()
        self.auctioneer = self.turn_player
        self.card = card = self.deck.pop()
        self._begin_event()
        if card == self.cfg.donkey_species:
            self.payout = self._donkey_payout()
        if card < NUM_ANIMALS:
            self._start_bidding()
        elif card == RAT:
            self._set(A.D_RAT, self.left(self.auctioneer))
        else:
            self._start_commitments(rng)

    def _donkey_payout(self) -> int:
        self.donkeys += 1
        payout = self.cfg.donkey_payouts[min(self.donkeys, 4) - 1]
        d = DENOMINATIONS.index(payout)
        for seat in range(self.n):
            if self.bank[d]:
                self.bank[d] -= 1
                self._add_money(seat, d)
        self.memory.payout(d)
        return payout

    def _others(self, seat: int) -> list[int]:
        return [(seat + o) % self.n for o in range(1, self.n) if (seat + o) % self.n not in self.excluded]

    def _start_bidding(self) -> None:
        self.bidders = self._others(self.auctioneer)
        self.high, self.high_bidder, self.passes, self.pending = 0, -1, 0, 0
        if not self.bidders:
            self._settle_animal(None, None)
        else:
            self._set(A.D_BID, self.bidders[0])

    def _bid_step(self, action: int) -> None:
        """D4: ADD builds the private raise; PASS or BID is public and moves the polling on (K-A7, K-A8)."""
        p = self.current_player
        if action != A.PASS and action != A.BID:
            self.pending += A.RAISES[action - A.ADD]
            return
        if action == A.BID:
            self.high += self.pending
            self.high_bidder, self.passes, self.pending = p, 0, 0
            self.max_bid[p] = max(self.max_bid[p], self.high)  # over restarts too (R1 columns 5-10)
            self.bids.append([p, self.high])
        else:
            self.passes += 1
            if self.cfg.pass_is_final:
                self.bidders.remove(p)
        bidders, w = self.bidders, self.high_bidder
        if self.cfg.pass_is_final:
            over = not bidders or (w >= 0 and bidders == [w])
        else:
            over = self.passes == len(bidders) - (w >= 0)
        if over:
            if w < 0:
                self._settle_animal(None, None)
            else:
                self._set(A.D_BUYRIGHT, self.auctioneer)
            return
        for o in range(1, self.n + 1):
            q = (p + o) % self.n
            if q != w and q in bidders:
                self._set(A.D_BID, q)
                return

    def _animal_buyright(self, buy: bool) -> None:
        """D5 (§4.3); a defaulting winner is revealed and excluded in reveal_and_restart (§4.5)."""
        a, w, h = self.auctioneer, self.high_bidder, self.high
        if buy:
            self._start_payment(a, w, h)
        elif self.cash[w] < h:
            self._default(w)
            self._start_bidding()
        else:
            self._start_payment(w, a, h)

    def _default(self, seat: int) -> None:
        self.seq += 1
        self.defaults.append({"seq": self.seq, "player": seat, "hand": list(self.hands[seat])})
        self.memory.default(self.seq, 1 if self.card < NUM_ANIMALS else 2, self.card % PEDIGREE, seat,
                            self.hands[seat])
        self.excluded.append(seat)

    def _start_payment(self, payer: int, payee: int, amount: int) -> None:
        self.payer, self.payee, self.amount = payer, payee, amount
        self.options = [list(f) for f in legal_payments(self.hands[payer], amount, self.cfg.payment_rule)]
        if self.cfg.auto_payment:
            self._pay(list(auto_payment(self.options)))
        else:
            self.selection = [0] * NUM_DENOMS
            self._set(A.D_PAY, payer)

    def _pay(self, chosen: list[int]) -> None:
        self._move(chosen, self.payer, self.payee)
        self._settle_animal(self.payer, chosen)  # whoever pays gets the card

    def _settle_animal(self, buyer: int | None, payment: list[int] | None) -> None:
        a = self.auctioneer
        owner = a if buyer is None else buyer
        self.holdings[owner][self.card] += 1
        sold = payment is not None
        self._record({
            "kind": "auction", "species": self.card, "auctioneer": a, "players": list(range(self.n)),
            "donkey_payout": self.payout, "bids": self.bids, "max_bids": self.max_bid,
            "winner": self.high_bidder if sold else None, "price": self.high if sold else 0,
            "decision": ("buy" if buyer == a else "decline") if sold else None,
            "payer": self.payer if sold else None, "payee": self.payee if sold else None,
            "payment": payment if sold else None, "owner": owner, "defaults": self.defaults,
        })
        self._end_turn()

    # pedigree (§5)
    def _start_commitments(self, rng: np.random.Generator) -> None:
        self.queue = self._others(self.auctioneer)
        self.commits = [None] * self.n
        if not self.queue:
            self._settle_pedigree(self.auctioneer, None)
        else:
            self._set(A.D_COMMIT, self.queue[0])

    def _commit(self, action: int, rng: np.random.Generator) -> None:
        p = self.current_player
        self.commits[p] = 0 if action == A.NEVER else action - A.SLAP
        position = self.queue.index(p) + 1
        if position < len(self.queue):
            self._set(A.D_COMMIT, self.queue[position])
            return
        self.commit_rounds.append(list(self.commits))
        kstar = max(self.commits[j] for j in self.queue)
        if kstar == 0:
            self._settle_pedigree(self.auctioneer, None)
            return
        tied = [j for j in self.queue if self.commits[j] == kstar]
        self.kstar = kstar
        self.tied = tied if len(tied) > 1 else []
        self.winner = w = tied[int(rng.integers(len(tied)))] if len(tied) > 1 else tied[0]
        if self.sizes[w] < kstar:  # reveal_and_restart only (§5.4, K-A39)
            self._default(w)
            self.tied, self.winner, self.kstar = [], -1, 0
            self._start_commitments(rng)
            return
        self.selection = [0] * NUM_DENOMS
        self._set(A.D_STAKE, w)

    def _lay_stake(self, chosen: list[int]) -> None:
        """The winner's k* cards lie face down before the auctioneer decides (K-A16)."""
        self.stake = chosen
        self._move(chosen, self.winner, None)
        self._set(A.D_PED_BUYRIGHT, self.auctioneer)

    def _pedigree_buyright(self, buy: bool) -> None:
        a, w = self.auctioneer, self.winner
        if buy:
            self.selection = [0] * NUM_DENOMS
            self._set(A.D_PED_CARDS, a)
            return
        self.payer, self.payee = w, a
        self._move(self.stake, None, a)
        self._settle_pedigree(w, self.stake, "decline")

    def _pedigree_bought(self, chosen: list[int]) -> None:
        a, w = self.auctioneer, self.winner
        self.payer, self.payee = a, w
        self._move(self.stake, None, w)
        self._move(chosen, a, w)
        self._settle_pedigree(a, chosen, "buy")

    def _settle_pedigree(self, owner: int, payment: list[int] | None, decision: str | None = None) -> None:
        species = self.card - PEDIGREE
        self.pedigree_owner[species] = owner
        sold = payment is not None
        self._record({
            "kind": "pedigree", "species": species, "auctioneer": self.auctioneer,
            "players": list(range(self.n)), "commitments": self.commits, "commit_rounds": self.commit_rounds,
            "tied": self.tied if self.cfg.reveal_pedigree_ties else [], "ties": self.tied,
            "winner": self.winner if sold else None, "count": self.kstar if sold else 0,
            "decision": decision, "stake": self.stake if sold else None,
            "payer": self.payer if sold else None, "payee": self.payee if sold else None,
            "payment": payment, "owner": owner, "defaults": self.defaults,
        })
        self._end_turn()

    # rat (§6)
    def _rat_step(self, action: int, rng: np.random.Generator) -> None:
        p = self.current_player
        if action != A.TAKE:
            d = action - A.LAY
            self._add_money(p, d, -1)
            self.pot.append([p, d])
            self._set(A.D_RAT, self.left(p))
            return
        self.holdings[p][RAT] += 1
        for _, d in self.pot:
            self._add_money(p, d)
        self._record({"kind": "rat", "auctioneer": self.auctioneer, "players": list(range(self.n)),
                      "pot": self.pot, "taker": p})
        if self.deck:  # the same auctioneer continues (§6.2, K-A19)
            self._reveal(rng)
        else:
            self._end_turn()

    # ------------------------------------------------------------------ cow trade (§7)
    def _start_trade(self, challenger: int, challenged: int, species: int) -> None:
        self._begin_event()
        self.challenger, self.challenged, self.species = challenger, challenged, species
        both_two = self.holdings[challenger][species] == 2 and self.holdings[challenged][species] == 2
        self.trade_stake = 2 if both_two else 1  # §7.2, K-A24
        self.trade_round = 1
        self.selection = [0] * NUM_DENOMS
        self._set(A.D_OFFER, challenger)

    def _offer_laid(self, chosen: list[int]) -> None:
        """The offer lies face down; its number of cards is public from now on (K-A22)."""
        self.offers[0] = chosen
        self._move(chosen, self.challenger, None)
        d = self.challenged
        if self.trade_round == 1 or self.cfg.retrade_allows_accept or not self.can_offer(d):
            self._set(A.D_RESPONSE, d)
        else:  # K-A23 option: round 2 without the choice to accept
            self.rounds.append({"response": "counter", "forced": True})
            self._set(A.D_COUNTER, d)

    def _respond(self, action: int) -> None:
        c, d = self.challenger, self.challenged
        if action == A.COUNTER:
            self.rounds.append({"response": "counter", "forced": False})
            self.selection = [0] * NUM_DENOMS
            self._set(A.D_COUNTER, d)
            return
        offer = self.offers[0]  # accepting makes C the winner, in a rat trade too (K-A25)
        forced = not self.can_offer(d)  # D had no counter-offer to make (before the offer reaches him)
        self._move(offer, None, d)
        self.rounds.append({"response": "accept", "forced": forced, "offer": offer, "counter": None,
                            "offer_cards": sum(offer), "counter_cards": 0, "values": [value(offer), None],
                            "result": "challenger"})
        self._finish_trade(c)

    def _counter_laid(self, chosen: list[int]) -> None:
        c, d = self.challenger, self.challenged
        offer = self.offers[0]
        self._move(chosen, d, c)
        self._move(offer, None, d)
        vc, vd = value(offer), value(chosen)
        result = "challenger" if vc > vd else "challenged" if vd > vc else "tie"
        self.rounds[-1].update(offer=offer, counter=chosen, offer_cards=sum(offer), counter_cards=sum(chosen),
                               values=[vc, vd], result=result)
        if result == "tie" and self.trade_round == 1:  # K-A23: the whole trade again
            self.trade_round = 2
            self.offers = [[0] * NUM_DENOMS, [0] * NUM_DENOMS]
            self._set(A.D_OFFER, c)
            return
        self._finish_trade(d if result == "challenged" else c)  # a second tie goes to C (K-A23, K-A26)

    def _finish_trade(self, winner: int) -> None:
        c, d, s, k = self.challenger, self.challenged, self.species, self.trade_stake
        loser = d if winner == c else c
        if s == RAT:  # §7.7: the winner gets rid of his rats
            self.holdings[winner][RAT] -= k
            self.holdings[loser][RAT] += k
        else:
            self.holdings[loser][s] -= k
            self.holdings[winner][s] += k
        self._record({"kind": "trade", "challenger": c, "challenged": d, "players": [c, d], "species": s,
                      "stake": k, "rounds": self.rounds, "winner": winner, "final_phase": not self.deck})
        if self.cfg.super_koehandel and self.deck:  # §8.2, K-A29
            self._clear_trade()
            self._set(A.D_FOLLOWUP, c)
        else:
            self._end_turn()

    # ------------------------------------------------------------------ two players (§8.1)
    def _distribute(self, keep: bool) -> None:
        p = self.turn_player
        q = 1 - p
        self._begin_event()
        x, x_to = self.looked, p if keep else q
        y = self.deck.pop() if self.deck else None  # K-A28
        payouts = [self._place(x, x_to)]
        if y is not None:
            payouts.append(self._place(y, q if keep else p))
        self._record({"kind": "distribution", "distributor": p, "players": [0, 1],
                      "decision": "keep" if keep else "give", "x": x, "x_to": x_to, "y": y,
                      "y_to": None if y is None else (q if keep else p), "donkey_payouts": payouts})
        self.looked = -1
        self._end_turn()

    def _place(self, card: int, seat: int) -> int:
        """Place a distributed card; a donkey pays both players from the reserve (K-A27)."""
        if card >= MONEY:
            self._add_money(seat, card - MONEY)
            return 0
        if card >= PEDIGREE:
            self.pedigree_owner[card - PEDIGREE] = seat
            return 0
        self.holdings[seat][card] += 1
        return self._donkey_payout() if card == self.cfg.donkey_species else 0

    # ------------------------------------------------------------------ scoring (§10)
    def score_details(self) -> list[dict[str, Any]]:
        cfg = self.cfg
        return [player_score(self.holdings[p], [s for s in range(NUM_ANIMALS) if self.pedigree_owner[s] == p],
                             self.cash[p], cfg.animal_values, cfg.pedigree_value, cfg.rat_removal,
                             cfg.money_counts) for p in range(self.n)]

    def scores(self) -> list[float]:
        """Every seat's score; all top scorers share the win (K-A36, rewards K-A37 in the core)."""
        return [float(detail["score"]) for detail in self.score_details()]

    def score_breakdown(self) -> dict[str, Any]:
        return {f"player_{p}": detail for p, detail in enumerate(self.score_details())}

    # ------------------------------------------------------------------ serialization
    def to_json(self) -> dict[str, Any]:
        data = {name: copy.deepcopy(getattr(self, name)) for name in _FIELDS}
        data["memory"] = self.memory.to_json()
        if self.approximate:  # its walk leaves out money against the hands (checks.parse_state)
            data["approximate"] = True
        return data

    def clone(self) -> KoehandelState:
        """An independent copy, several times cheaper than ``copy.deepcopy``: the fields the rules change
        in place are copied, settled events are shared (neither the rules nor the sampler change an event
        once recorded: the sampler writes its re-dealt events as new dicts), the game is shared."""
        new = object.__new__(KoehandelState)
        data = self.__dict__.copy()
        for name in _FLAT_FIELDS:
            data[name] = list(data[name])
        for name in _NESTED_FIELDS:
            data[name] = [list(row) for row in data[name]]
        data["rounds"] = [dict(rnd) for rnd in self.rounds]
        data["events"] = list(self.events)
        data["memory"] = self.memory.clone()
        data["_fitting"] = (None, 0, [])
        new.__dict__.update(data)
        return new

    def redeal(self, player: int, rng: np.random.Generator) -> None:
        redeal.resample_hidden(self, player, rng)

    def render(self, viewer: int | None = None) -> str:
        return render_state(self, viewer)


# What ``clone`` copies: lists of ints, None or dicts never changed once added (``defaults``), and lists
# of lists of ints (the rest is immutable, shared settled events, or copied apart).
_FLAT_FIELDS = (
    "cash", "sizes", "pedigree_owner", "deck", "bank", "removed", "excluded", "bidders", "max_bid",
    "commits", "queue", "tied", "stake", "selection", "event_start", "defaults",
)
_NESTED_FIELDS = ("hands", "holdings", "start_hands", "bids", "commit_rounds", "pot", "options", "offers")

