"""Koehandel Master rules engine: pure game state and transitions (docs/koehandel_rules.md).

Cards are ints (:mod:`.cards`): 0-9 animal species, 10 rat, 11-20 the pedigree of species 0-9, and in
the 2-player deck 21-27 a money card of denomination index 0-6. The state is plain Python data (lists
and ints), so ``to_json`` is a copy. Every settled auction, rat auction, pedigree auction, cow trade and
2-player distribution is appended to ``events`` as a plain dict with full information (the research
record); :class:`~.records.Memory` turns each event into what every player may know of it.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from ..core.game import Game, SnapshotError, State
from . import actions as A
from . import sampler
from .cards import DENOMINATIONS, MONEY, NUM_ANIMALS, NUM_DENOMS, NUM_SPECIES, PEDIGREE, RAT, SPECIES_NAMES, card_name
from .config import KoehandelConfig
from .money import auto_payment, contains, extensions, guarded_denominations, legal_payments, pack, value
from .records import CASH_BOUND, DIGEST_COLUMNS, Memory
from .render import render_state
from .scoring import player_score


class KoehandelGame(Game):
    """A configured Koehandel Master game; see ``koehandel_v0`` for the options."""

    name = "koehandel"
    min_players = 2
    max_players = 6
    score_scale = 1000.0

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
        (the right seat to act, with at least one legal action); see :func:`_problems`."""
        return _problems(state)

    def new_initial_state(self, rng: np.random.Generator) -> KoehandelState:
        state = KoehandelState(self)
        state.setup(rng)
        return state

    def state_from_json(self, data: dict[str, Any]) -> KoehandelState:
        state = KoehandelState(self)
        state.load_json(data)
        return state

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
        """A turn's start set up for research and tests (``env.unwrapped.set_position(seed, **spec)``).

        ``base`` is a freshly dealt state's data; whatever ``spec`` leaves out is taken from it. Keywords:

        * ``deck``: the cards left in the deck, top card first, as codes or names (``"cow"``, ``"rat"``,
          ``"pedigree cow"``, 2 players ``"money 50"``).
        * ``top``: cards moved to the top of the deck, top card first (the rest keeps its order).
        * ``holdings``: per seat (a list of N entries, or a dict seat -> entry; None keeps the seat's
          holdings) either a dict name -> count (``{"cow": 3, "pedigree horse": 1}``) or a list of card
          names or codes. Without ``deck``, the cards given to the seats are taken out of the dealt deck
          (its order otherwise kept); with ``deck``, every animal, rat and pedigree card must be in the
          deck or in a seat's holdings.
        * ``hands`` (or its alias ``cash``): per seat (list or dict as above) the money cards, either a
          dict denomination value -> count (``{50: 2, 10: 3}``) or a list of card values
          (``[0, 10, 10, 50]``). Money moves from or to the bank (2 players: the unseen removed pile) so
          that the game's money is conserved; a ``SnapshotError`` says so when that is impossible.
        * ``turn_player``: the seat on turn (default: the dealt start player).
        * ``donkeys``: donkeys revealed so far (default: the donkeys no longer in the deck).
        * ``bank``: the bank per denomination (3-6 players; default: whatever conserves the money).

        The position starts at the turn choice of ``turn_player`` with an empty event record; the hands
        it gives are public knowledge then, as at a real deal (``start_hands``). With
        ``auto_resolve_forced`` the first turn choice is shown even when it is forced.
        """
        unknown = sorted(set(spec) - {"deck", "top", "holdings", "hands", "cash", "turn_player", "donkeys", "bank"})
        if unknown:
            raise SnapshotError(f"koehandel: position has no keyword(s) {unknown}; keywords: deck, top, holdings, "
                                f"hands (or cash), turn_player, donkeys, bank")
        if "hands" in spec and "cash" in spec:
            raise SnapshotError("koehandel: position takes hands or cash (the same keyword), not both")
        n, cfg = self.num_players, self.cfg
        data = copy.deepcopy(base)
        fresh = KoehandelState(self)
        fresh.load_json(data)  # types checked; the parts below replace the dealt ones
        holdings, pedigree_owner = fresh.holdings, fresh.pedigree_owner
        if "holdings" in spec:
            for seat, entry in _per_seat(spec["holdings"], n, "holdings"):
                holdings[seat] = [0] * NUM_SPECIES
                for species in range(NUM_ANIMALS):
                    if pedigree_owner[species] == seat:
                        pedigree_owner[species] = -1
                for card in _cards_of(entry, f"holdings[{seat}]"):
                    if card >= MONEY:
                        raise SnapshotError(f"koehandel: holdings[{seat}] names money card {card_name(card)!r}; "
                                            f"money goes in hands")
                    if card >= PEDIGREE:
                        if pedigree_owner[card - PEDIGREE] >= 0:
                            raise SnapshotError(f"koehandel: holdings give {card_name(card)!r} to two seats")
                        pedigree_owner[card - PEDIGREE] = seat
                    else:
                        holdings[seat][card] += 1
        if "deck" in spec:
            deck = spec["deck"]
            if not isinstance(deck, (list, tuple)):
                raise SnapshotError(f"koehandel: position deck must be a list of cards, top first, got {deck!r}")
            fresh.deck = _cards_of(list(deck), "deck")[::-1]
            if n > 2 and any(card >= MONEY for card in fresh.deck):
                raise SnapshotError("koehandel: position deck holds money cards, which only the 2-player deck has")
        else:  # the held cards leave the dealt deck, the rest keeps its order
            out = _red_counts(holdings, pedigree_owner)
            kept = []
            for card in reversed(fresh.deck):
                if card < MONEY and out[card] > 0:
                    out[card] -= 1
                else:
                    kept.append(card)
            fresh.deck = kept[::-1]
        if "top" in spec:
            top = spec["top"]
            if not isinstance(top, (list, tuple)):
                raise SnapshotError(f"koehandel: position top must be a list of cards, top first, got {top!r}")
            for card in _cards_of(list(top), "top")[::-1]:
                if card not in fresh.deck:
                    raise SnapshotError(f"koehandel: position top names {card_name(card)!r}, which is not in the deck")
                fresh.deck.remove(card)
                fresh.deck.append(card)
        held, total = _red_counts(holdings, pedigree_owner), [0] * MONEY
        for card in fresh.deck:
            if card < MONEY:
                total[card] += 1
        wrong = [f"{card_name(c)} x{held[c] + total[c]}" for c in range(MONEY)
                 if held[c] + total[c] != (4 if c <= RAT else 1)]
        if wrong:
            raise SnapshotError(f"koehandel: position holds the wrong number of cards (deck and holdings "
                                f"together must hold 4 of each animal and rat and 1 of each pedigree): {', '.join(wrong)}")
        if "hands" in spec or "cash" in spec:
            for seat, entry in _per_seat(spec.get("hands", spec.get("cash")), n, "hands"):
                fresh.hands[seat] = _money_of(entry, f"hands[{seat}]")
        fresh.cash = [value(hand) for hand in fresh.hands]
        fresh.sizes = [sum(hand) for hand in fresh.hands]
        money = [sum(hand[d] for hand in fresh.hands) + fresh.removed[d] for d in range(NUM_DENOMS)]
        for card in fresh.deck:
            if card >= MONEY:
                money[card - MONEY] += 1
        if "bank" in spec:
            if n == 2:
                raise SnapshotError("koehandel: the 2-player game has no bank to set (its donkey reserve is fixed)")
            fresh.bank = _money_of(spec["bank"], "bank")
        elif n > 2:
            fresh.bank = [have - used for have, used in zip(cfg.money_composition, money)]
        if n == 2:  # the unseen removed pile balances the money
            money = [m - r for m, r in zip(money, fresh.removed)]
            fresh.removed = [have - used - b for have, used, b in zip(cfg.money_composition, money, fresh.bank)]
            short = fresh.removed
        else:
            short = [have - used - b for have, used, b in zip(cfg.money_composition, money, fresh.bank)]
            if "bank" in spec and any(short):
                raise SnapshotError(f"koehandel: hands {[sum(h) for h in fresh.hands]} cards and bank {fresh.bank} do not "
                                    f"add up to the money composition {list(cfg.money_composition)}")
            short = fresh.bank
        if any(k < 0 for k in short):
            raise SnapshotError(f"koehandel: the hands need more money cards than the game has "
                                f"(composition {list(cfg.money_composition)}; short by "
                                f"{[max(-k, 0) for k in short]} per denomination)")
        donkey = cfg.donkey_species
        fresh.donkeys = spec.get("donkeys", 4 - fresh.deck.count(donkey))
        turn_player = spec.get("turn_player", fresh.turn_player)
        if not (isinstance(turn_player, int) and not isinstance(turn_player, bool) and 0 <= turn_player < n):
            raise SnapshotError(f"koehandel: position turn_player={turn_player!r} is not a seat 0..{n - 1}")
        fresh._clear_auction()
        fresh._clear_trade()
        fresh.looked = -1
        fresh.event_start = []
        fresh.events = []
        fresh.is_terminal = fresh.is_truncated = False
        fresh.turn_player = turn_player
        fresh.turns = 1
        fresh.start_hands = [list(hand) for hand in fresh.hands]
        fresh._set(A.D_TURN, turn_player)
        data = fresh.to_json()
        for viewer, rows in enumerate(data["memory"]["digest"]):  # the cash bounds, as at a deal
            for seat in range(n):
                if seat != viewer:
                    rows[(seat - viewer) % n - 1][CASH_BOUND] = fresh.cash[seat]
        return data


def _per_seat(entries: Any, n: int, what: str) -> list[tuple[int, Any]]:
    """(seat, entry) pairs of a per-seat keyword: a list of N entries or a dict seat -> entry."""
    if isinstance(entries, dict):
        pairs = list(entries.items())
    elif isinstance(entries, (list, tuple)) and len(entries) == n:
        pairs = list(enumerate(entries))
    else:
        raise SnapshotError(f"koehandel: position {what} must be a list of {n} entries (one per seat) or a dict "
                            f"seat -> entry, got {entries!r}")
    for seat, _ in pairs:
        if not (isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < n):
            raise SnapshotError(f"koehandel: position {what} names seat {seat!r}, not a seat 0..{n - 1}")
    return [(seat, entry) for seat, entry in pairs if entry is not None]


_CARD_CODES = {card_name(card): card for card in range(MONEY + NUM_DENOMS)}


def _card_code(card: Any, where: str) -> int:
    if isinstance(card, str) and card.strip().lower() in _CARD_CODES:
        return _CARD_CODES[card.strip().lower()]
    if isinstance(card, int) and not isinstance(card, bool) and 0 <= card < MONEY + NUM_DENOMS:
        return card
    raise SnapshotError(f"koehandel: position {where} names {card!r}, not a card (a code 0..{MONEY + NUM_DENOMS - 1} "
                        f"or a name such as 'cow', 'rat', 'pedigree cow', 'money 50')")


def _cards_of(entry: Any, where: str) -> list[int]:
    """Card codes of a list of cards or a dict card -> count."""
    if isinstance(entry, dict):
        cards = []
        for card, count in entry.items():
            if not (isinstance(count, int) and not isinstance(count, bool) and 0 <= count <= 4):
                raise SnapshotError(f"koehandel: position {where}[{card!r}]={count!r} is not a count 0..4")
            cards += [_card_code(card, where)] * count
        return cards
    if isinstance(entry, (list, tuple)):
        return [_card_code(card, where) for card in entry]
    raise SnapshotError(f"koehandel: position {where} must be a list of cards or a dict card -> count, got {entry!r}")


def _money_of(entry: Any, where: str) -> list[int]:
    """Counts per denomination of a list of card values or a dict value -> count."""
    counts = [0] * NUM_DENOMS
    items = entry.items() if isinstance(entry, dict) else (
        [(v, 1) for v in entry] if isinstance(entry, (list, tuple)) else None)
    if items is None:
        raise SnapshotError(f"koehandel: position {where} must be a list of card values or a dict value -> count, "
                            f"got {entry!r}")
    for worth, count in items:
        if worth not in DENOMINATIONS or isinstance(worth, bool) or not (
                isinstance(count, int) and not isinstance(count, bool) and count >= 0):
            raise SnapshotError(f"koehandel: position {where} has {count!r} card(s) of {worth!r}; values are "
                                f"{list(DENOMINATIONS)}, counts ints >= 0")
        counts[DENOMINATIONS.index(worth)] += count
    return counts


def _red_counts(holdings: list[list[int]], pedigree_owner: list[int]) -> list[int]:
    """Animal and rat cards per species and pedigree cards per card code (0..20) held by the seats."""
    counts = [sum(h[s] for h in holdings) for s in range(NUM_SPECIES)]
    return counts + [int(owner >= 0) for owner in pedigree_owner]


# Fields of the state, all plain JSON data; ``to_json`` copies exactly these.
_FIELDS = (
    "hands", "cash", "sizes", "holdings", "pedigree_owner", "deck", "bank", "removed", "donkeys",
    "turns", "turn_player", "decision", "current_player", "is_terminal", "is_truncated", "version", "seq",
    "events", "start_hands",
    "card", "auctioneer", "excluded", "bidders", "high", "high_bidder", "passes", "pending", "max_bid",
    "bids", "defaults", "commits", "commit_rounds", "queue", "kstar", "tied", "winner", "stake",
    "pot", "payer", "payee", "amount", "options", "selection", "challenger", "challenged", "species",
    "trade_stake", "trade_round", "offers", "rounds", "looked", "event_start", "payout",
)


class KoehandelState(State):
    """One position; ``apply`` mutates it. Field meanings are in the comments of ``setup``."""

    def __init__(self, game: KoehandelGame):
        self.game = game
        self.cfg = game.cfg
        self.n = game.num_players
        self.memory = Memory(self.cfg)
        self._fitting: tuple[list | None, int, list[int]] = (None, 0, [])  # see _payment_choices

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
        self.version = 0
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
        self.version += 1  # every public change ends in a new decision (observation caches key on it)

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

    def can_offer(self, seat: int) -> bool:
        return self.sizes[seat] > 0 or self.cfg.allow_empty_offer

    # ------------------------------------------------------------------ apply
    def apply(self, action: int, rng: np.random.Generator) -> None:
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
        self._move(offer, None, d)
        self.rounds.append({"response": "accept", "forced": not self.can_offer(d), "offer": offer, "counter": None, "offer_cards": sum(offer),
                            "counter_cards": 0, "values": [value(offer), None], "result": "challenger"})
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
        return data

    def load_json(self, data: dict[str, Any]) -> None:
        """Set this (new) state from ``to_json`` data; :class:`SnapshotError` naming the first field of
        the wrong type or out of range, before anything is set (the rules are :func:`_problems`)."""
        _check_data(data, self.n, self.memory)
        for name in _FIELDS:
            setattr(self, name, copy.deepcopy(data[name]))
        self.memory.load_json(data["memory"])

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

    def resample_hidden(self, player: int, rng: np.random.Generator) -> None:
        sampler.resample_hidden(self, player, rng)

    def render(self, viewer: int | None = None) -> str:
        return render_state(self, viewer)


# What ``clone`` copies: lists of ints, None or dicts never changed once added (``defaults``), and lists
# of lists of ints (the rest is immutable, shared settled events, or copied apart).
_FLAT_FIELDS = (
    "cash", "sizes", "pedigree_owner", "deck", "bank", "removed", "excluded", "bidders", "max_bid",
    "commits", "queue", "tied", "stake", "selection", "event_start", "defaults",
)
_NESTED_FIELDS = ("hands", "holdings", "start_hands", "bids", "commit_rounds", "pot", "options", "offers")

# ---------------------------------------------------------------------------- loading: types and ranges
INT32_MAX = 2**31 - 1  # observations are int32: no loaded value may exceed it


def _is_int(x: Any, low: int | None = None, high: int | None = None) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and (low is None or x >= low) and \
        x <= (INT32_MAX if high is None else high)


def _ints(x: Any, length: int | None, low: int | None = None, high: int | None = None) -> bool:
    return isinstance(x, list) and (length is None or len(x) == length) and all(_is_int(v, low, high) for v in x)


def _check_data(data: Any, n: int, memory: Memory) -> None:
    """:class:`SnapshotError` naming the first field of ``data`` (``to_json`` of an ``n``-player state)
    that is missing, of the wrong type or out of range."""
    if not isinstance(data, dict):
        raise SnapshotError(f"koehandel: state data must be a dict, got {type(data).__name__}")
    missing = [name for name in (*_FIELDS, "memory") if name not in data]
    if missing:
        raise SnapshotError(f"koehandel: state data lacks {missing}")
    unknown = sorted(set(data) - {*_FIELDS, "memory"})
    if unknown:
        raise SnapshotError(f"koehandel: state data has unknown field(s) {unknown}")
    seat, seat_or_none = (0, n - 1), (-1, n - 1)
    cap = 127  # money cards of one denomination (config.MAX_CARDS_PER_DENOMINATION)
    hand = lambda x: _ints(x, NUM_DENOMS, 0, cap)  # noqa: E731
    seats = lambda x: _ints(x, None, *seat) and len(set(x)) == len(x)  # noqa: E731
    commit = lambda x: x is None or _is_int(x, 0, A.MAX_SLAP)  # noqa: E731
    checks = {
        "hands": (lambda x: isinstance(x, list) and len(x) == n and all(map(hand, x)),
                  f"{n} lists of {NUM_DENOMS} card counts 0..{cap}"),
        "start_hands": (lambda x: isinstance(x, list) and len(x) == n and all(map(hand, x)),
                        f"{n} lists of {NUM_DENOMS} card counts 0..{cap}"),
        "cash": (lambda x: _ints(x, n, 0), f"{n} ints >= 0"),
        "sizes": (lambda x: _ints(x, n, 0), f"{n} ints >= 0"),
        "holdings": (lambda x: isinstance(x, list) and len(x) == n and all(_ints(h, NUM_SPECIES, 0, 4) for h in x),
                     f"{n} lists of {NUM_SPECIES} counts 0..4"),
        "pedigree_owner": (lambda x: _ints(x, NUM_ANIMALS, *seat_or_none), f"{NUM_ANIMALS} seats or -1"),
        "deck": (lambda x: _ints(x, None, 0, MONEY + NUM_DENOMS - 1 if n == 2 else MONEY - 1),
                 f"a list of card codes 0..{MONEY + NUM_DENOMS - 1 if n == 2 else MONEY - 1}"),
        "bank": (hand, f"{NUM_DENOMS} card counts 0..{cap}"),
        "removed": (hand, f"{NUM_DENOMS} card counts 0..{cap}"),
        "donkeys": (lambda x: _is_int(x, 0, 4), "an int 0..4"),
        "turns": (lambda x: _is_int(x, 0), "an int >= 0"),
        "turn_player": (lambda x: _is_int(x, *seat), f"a seat 0..{n - 1}"),
        "decision": (lambda x: _is_int(x, 0, A.D_DISTRIBUTE), f"a decision id 0..{A.D_DISTRIBUTE}"),
        "current_player": (lambda x: _is_int(x, *seat), f"a seat 0..{n - 1}"),
        "is_terminal": (lambda x: isinstance(x, bool), "a bool"),
        "is_truncated": (lambda x: isinstance(x, bool), "a bool"),
        "version": (lambda x: _is_int(x, 0), "an int >= 0"),
        "seq": (lambda x: _is_int(x, 0), "an int >= 0"),
        "events": (lambda x: isinstance(x, list) and all(isinstance(e, dict) for e in x), "a list of dicts"),
        "card": (lambda x: _is_int(x, -1, MONEY + NUM_DENOMS - 1), f"a card code or -1"),
        "auctioneer": (lambda x: _is_int(x, *seat_or_none), f"a seat or -1"),
        "excluded": (seats, "distinct seats"),
        "bidders": (seats, "distinct seats"),
        "high": (lambda x: _is_int(x, 0), "an int >= 0"),
        "high_bidder": (lambda x: _is_int(x, *seat_or_none), "a seat or -1"),
        "passes": (lambda x: _is_int(x, 0, n), f"an int 0..{n}"),
        "pending": (lambda x: _is_int(x, 0), "an int >= 0"),
        "max_bid": (lambda x: _ints(x, n, 0), f"{n} ints >= 0"),
        "bids": (lambda x: isinstance(x, list) and all(_ints(b, 2, 0) and b[0] < n for b in x), "[seat, level] pairs"),
        "defaults": (lambda x: isinstance(x, list) and all(isinstance(d, dict) for d in x), "a list of dicts"),
        "commits": (lambda x: isinstance(x, list) and len(x) == n and all(map(commit, x)),
                    f"{n} commitments (None or 0..{A.MAX_SLAP})"),
        "commit_rounds": (lambda x: isinstance(x, list) and all(
            isinstance(r, list) and len(r) == n and all(map(commit, r)) for r in x), "a list of commitment lists"),
        "queue": (seats, "distinct seats"),
        "kstar": (lambda x: _is_int(x, 0, A.MAX_SLAP), f"an int 0..{A.MAX_SLAP}"),
        "tied": (seats, "distinct seats"),
        "winner": (lambda x: _is_int(x, *seat_or_none), "a seat or -1"),
        "stake": (hand, f"{NUM_DENOMS} card counts"),
        "pot": (lambda x: isinstance(x, list) and all(_ints(p, 2, 0) and p[0] < n and p[1] < NUM_DENOMS for p in x),
                "[seat, denomination index] pairs"),
        "payer": (lambda x: _is_int(x, *seat_or_none), "a seat or -1"),
        "payee": (lambda x: _is_int(x, *seat_or_none), "a seat or -1"),
        "amount": (lambda x: _is_int(x, 0), "an int >= 0"),
        "options": (lambda x: isinstance(x, list) and all(map(hand, x)), "a list of payments (7 counts each)"),
        "selection": (hand, f"{NUM_DENOMS} card counts"),
        "challenger": (lambda x: _is_int(x, *seat_or_none), "a seat or -1"),
        "challenged": (lambda x: _is_int(x, *seat_or_none), "a seat or -1"),
        "species": (lambda x: _is_int(x, -1, RAT), f"a species 0..{RAT} or -1"),
        "trade_stake": (lambda x: _is_int(x, 0, 2), "an int 0..2"),
        "trade_round": (lambda x: _is_int(x, 0, 2), "an int 0..2"),
        "offers": (lambda x: isinstance(x, list) and len(x) == 2 and all(map(hand, x)), "2 lists of 7 card counts"),
        "rounds": (lambda x: isinstance(x, list) and len(x) <= 2 and all(isinstance(r, dict) for r in x),
                   "at most 2 dicts"),
        "looked": (lambda x: _is_int(x, -1, MONEY + NUM_DENOMS - 1), "a card code or -1"),
        "event_start": (lambda x: _ints(x, None, 0) and len(x) in (0, n), f"0 or {n} ints >= 0"),
        "payout": (lambda x: _is_int(x, 0), "an int >= 0"),
    }
    for name, (test, allowed) in checks.items():
        if not test(data[name]):
            raise SnapshotError(f"koehandel: state {name}={_short(data[name])} is not allowed; expected {allowed}")
    _check_memory(data["memory"], n, memory)


def _check_memory(data: Any, n: int, memory: Memory) -> None:
    def fail(problem: str) -> SnapshotError:
        return SnapshotError(f"koehandel: state memory {problem}")

    if not isinstance(data, dict) or sorted(data) != ["counts", "digest", "epoch", "tables"]:
        raise fail("must be a dict of counts, digest, epoch and tables")
    counts, tables = data["counts"], data["tables"]
    if not isinstance(counts, dict) or sorted(counts) != sorted(memory.shapes):
        raise fail(f"counts must name the tables {sorted(memory.shapes)}")
    if not isinstance(tables, dict) or sorted(tables) != sorted(memory.shapes):
        raise fail(f"tables must name the tables {sorted(memory.shapes)}")
    for name, (rows, columns) in memory.shapes.items():
        count = counts[name]
        if not _is_int(count, 0, rows):
            raise fail(f"counts[{name!r}]={count!r} is not an int 0..{rows}")
        table = tables[name]
        if not (isinstance(table, list) and len(table) == n and all(
                isinstance(seat, list) and len(seat) == count and all(_ints(row, columns) for row in seat)
                for seat in table)):
            raise fail(f"tables[{name!r}] must hold {n} lists of {count} rows of {columns} ints")
    digest = data["digest"]
    if not (isinstance(digest, list) and len(digest) == n and all(
            isinstance(rows, list) and len(rows) == len(memory.digest[0]) // DIGEST_COLUMNS
            and all(_ints(row, DIGEST_COLUMNS) for row in rows) for rows in digest)):
        raise fail(f"digest must hold {n} lists of {len(memory.digest[0]) // DIGEST_COLUMNS} rows of "
                   f"{DIGEST_COLUMNS} ints")
    if not _is_int(data["epoch"], 0):
        raise fail(f"epoch={data['epoch']!r} is not an int >= 0")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


# ---------------------------------------------------------------------------- invariants
#: The kind of card each auction decision needs on the block.
_ANIMAL_DECISIONS = (A.D_BID, A.D_BUYRIGHT, A.D_PAY)
_PEDIGREE_DECISIONS = (A.D_COMMIT, A.D_STAKE, A.D_PED_BUYRIGHT, A.D_PED_CARDS)
_TRADE_DECISIONS = (A.D_OFFER, A.D_RESPONSE, A.D_COUNTER)
_SELECTIONS = (A.D_PAY, A.D_STAKE, A.D_PED_CARDS, A.D_OFFER, A.D_COUNTER)


def _problems(s: KoehandelState) -> list[str]:
    """What is wrong with ``s``: conservation of money and cards, holdings, ranges, and the pending
    decision (the right seat, consistent with the auction or trade in progress, some legal action).
    Checks that build on others stop at the first group that fails."""
    n, cfg = s.n, s.cfg
    seats = range(n)
    problems = []
    # ranges the rest relies on (a state from to_json data already has them)
    if not (0 <= s.current_player < n and 0 <= s.turn_player < n and 0 <= s.decision <= A.D_DISTRIBUTE):
        return [f"current_player {s.current_player}, turn_player {s.turn_player} or decision {s.decision} "
                f"out of range"]
    # money: every hand matches its cash and size; all money cards are somewhere
    for p in seats:
        if any(k < 0 for k in s.hands[p]):
            problems.append(f"hands[{p}] has a negative count {s.hands[p]}")
        if s.cash[p] != value(s.hands[p]) or s.sizes[p] != sum(s.hands[p]):
            problems.append(f"cash[{p}]={s.cash[p]} and sizes[{p}]={s.sizes[p]} do not match hands[{p}]={s.hands[p]}")
    money = [sum(s.hands[p][d] for p in seats) + s.bank[d] + s.removed[d] + s.stake[d] + s.offers[0][d]
             + s.offers[1][d] for d in range(NUM_DENOMS)]
    for _, d in s.pot:
        money[d] += 1
    for card in s.deck + ([s.looked] if s.looked >= 0 else []):
        if card >= MONEY:
            money[card - MONEY] += 1
    if money != list(cfg.money_composition):
        problems.append(f"money cards per denomination {money} (hands, bank, removed, deck, pot, stake and "
                        f"offers) are not the composition {list(cfg.money_composition)}")
    # red cards: 4 of each animal and rat, 1 of each pedigree, each in one place
    held = _red_counts(s.holdings, s.pedigree_owner)
    deck = [0] * MONEY
    for card in s.deck:
        if card < MONEY:
            deck[card] += 1
    block = s.card if 0 <= s.card < MONEY else -1
    for card in range(MONEY):
        have = held[card] + deck[card] + (block == card)
        if have != (4 if card <= RAT else 1):
            problems.append(f"{card_name(card)}: {have} cards (held {held[card]}, in the deck {deck[card]}, "
                            f"on the block {int(block == card)}); the game has {4 if card <= RAT else 1}")
    if n > 2 and any(card >= MONEY for card in s.deck):
        problems.append("the deck holds money cards (only the 2-player deck has them)")
    if s.donkeys != 4 - s.deck.count(cfg.donkey_species) - (s.n == 2 and s.looked == cfg.donkey_species):
        problems.append(f"donkeys={s.donkeys} but {s.deck.count(cfg.donkey_species)} donkeys are in the deck")
    if not 0 <= s.turns <= cfg.max_turns:
        problems.append(f"turns={s.turns} is outside 0..max_turns={cfg.max_turns}")
    if problems:
        return problems
    return _decision_problems(s)


def _decision_problems(s: KoehandelState) -> list[str]:
    """The pending decision against the auction or trade in progress (conservation already holds)."""
    n, cfg, p, decision = s.n, s.cfg, s.current_player, s.decision
    name = A.DECISION_NAMES.get(decision, "none")
    if s.is_terminal:
        if decision:
            return [f"a finished game has decision {decision} ({name}) pending"]
        if s.is_truncated:
            return [] if s.turns >= cfg.max_turns else [f"truncated after {s.turns} of max_turns={cfg.max_turns} turns"]
        return [] if not s.deck and s.all_complete() else ["the game ended with cards in the deck or incomplete species"]
    if s.is_truncated:
        return ["is_truncated without is_terminal"]
    if not decision:
        return ["a running game has no decision pending"]
    if s.turns < 1:
        return ["a running game is in turn 0"]

    def bad(problem: str) -> list[str]:
        return [f"decision {decision} ({name}) by seat {p}: {problem}"]

    auction = decision in _ANIMAL_DECISIONS or decision in _PEDIGREE_DECISIONS or decision == A.D_RAT
    if auction != (s.auctioneer >= 0):
        return bad(f"auctioneer={s.auctioneer} does not fit the decision")
    if auction and s.auctioneer != s.turn_player:
        return bad(f"the auctioneer {s.auctioneer} is not the player on turn {s.turn_player}")
    if (decision in _TRADE_DECISIONS) != (s.challenger >= 0):
        return bad(f"challenger={s.challenger} does not fit the decision")
    if decision not in _SELECTIONS and any(s.selection):
        return bad(f"a selection {s.selection} is under way outside a card selection")
    if decision != A.D_BID and s.pending:
        return bad(f"a raise of {s.pending} is being built outside a bid")
    if decision != A.D_RAT and s.pot:
        return bad("a rat pot lies on the table outside a rat auction")
    if decision not in (A.D_PED_BUYRIGHT, A.D_PED_CARDS) and any(s.stake):
        return bad("a pedigree stake lies on the table outside the pedigree buy-right")
    if decision not in (A.D_RESPONSE, A.D_COUNTER) and any(s.offers[0]) or any(s.offers[1]):
        return bad("an offer lies on the table outside the answer to it")
    if (decision == A.D_DISTRIBUTE) != (s.looked >= 0):
        return bad(f"looked={s.looked} does not fit the decision")
    card = s.card
    if decision in _ANIMAL_DECISIONS and not 0 <= card < NUM_ANIMALS \
            or decision in _PEDIGREE_DECISIONS and not PEDIGREE <= card < MONEY \
            or decision == A.D_RAT and card != RAT \
            or decision == A.D_DISTRIBUTE and card != s.looked \
            or not auction and decision != A.D_DISTRIBUTE and card != -1:
        return bad(f"card {card} does not fit the decision")
    if any(k > h for k, h in zip(s.selection, s.hands[p])):
        return bad(f"the selection {s.selection} is not in the hand {s.hands[p]}")
    problem = _who_acts(s, decision, p)
    if problem:
        return bad(problem)
    if not s._legal():
        return bad("no legal action")
    return []


def _who_acts(s: KoehandelState, decision: int, p: int) -> str | None:
    """Why seat ``p`` may not take ``decision`` here (None if it may)."""
    n, cfg = s.n, s.cfg
    if decision in (A.D_TURN, A.D_TARGET, A.D_FOLLOWUP, A.D_DISTRIBUTE) and p != s.turn_player:
        return f"the player on turn is {s.turn_player}"
    if decision == A.D_TURN and not s.deck and not s.has_trade(p):
        return "the deck is empty and the player has no trade (he would have been skipped)"
    if decision == A.D_TARGET and not s.has_trade(p):
        return "the player has no trade"
    if decision == A.D_FOLLOWUP and not (cfg.super_koehandel and s.deck):
        return "a follow-up auction needs super_koehandel and cards in the deck"
    if decision == A.D_DISTRIBUTE and n != 2:
        return "only the 2-player game distributes"
    if decision in (A.D_BID, A.D_BUYRIGHT, A.D_PAY, A.D_COMMIT, A.D_STAKE, A.D_PED_BUYRIGHT, A.D_PED_CARDS,
                    A.D_RAT) and n == 2:
        return "the 2-player game holds no auctions"
    a = s.auctioneer
    if decision == A.D_BID:
        if p == a or p in s.excluded or p not in s.bidders or p == s.high_bidder:
            return f"the seat is not a bidder to ask (bidders {s.bidders}, high bidder {s.high_bidder})"
        if a in s.bidders or any(q in s.excluded for q in s.bidders):
            return f"bidders {s.bidders} include the auctioneer or an excluded seat"
        if s.high_bidder >= 0 and (s.high_bidder == a or s.high_bidder in s.excluded):
            return f"high bidder {s.high_bidder} may not bid"
        if s.high % 10 or s.pending % 10 or s.high + s.pending > max(s.bid_limit(p), s.high):
            return f"bid {s.high} + raise {s.pending} is not a reachable bid"
        w = s.high_bidder
        after = a if w < 0 else w
        order = sorted((q for q in s.bidders if q != w), key=lambda q: (q - after) % n)
        asked = 0 if cfg.pass_is_final else s.passes
        if asked >= len(order) or order[asked] != p:
            return f"after {s.passes} passes since the last bid the seat to ask is not {p} (bidders {s.bidders})"
    elif decision == A.D_BUYRIGHT:
        if p != a or s.high_bidder < 0 or s.high_bidder == a or s.high <= 0:
            return f"the buy-right is the auctioneer's after a bid (high {s.high} by {s.high_bidder})"
    elif decision == A.D_PAY:
        if {s.payer, s.payee} != {a, s.high_bidder} or p != s.payer or s.amount != s.high:
            return f"payer {s.payer} pays {s.amount} to {s.payee}, not the sale of {s.high} between {a} and {s.high_bidder}"
        payments = [list(f) for f in legal_payments(s.hands[p], s.amount, cfg.payment_rule)]
        if s.options != payments or not payments:
            return "the payment options are not the legal payments of the payer's hand"
        if not any(all(k <= f for k, f in zip(s.selection, option)) for option in payments):
            return f"the selection {s.selection} is part of no legal payment"
    elif decision == A.D_RAT:
        if p != (s.left(s.pot[-1][0]) if s.pot else s.left(a)):
            return "the seat to the left of the last to lay (or of the auctioneer) answers the rat pot"
    elif decision == A.D_RAT:
        if p != (s.left(s.pot[-1][0]) if s.pot else s.left(a)):
            return "the seat to the left of the last to lay (or of the auctioneer) answers the rat pot"
    elif decision == A.D_COMMIT:
        if p not in s.queue or p == a or s.commits[p] is not None or any(
                s.commits[q] is None for q in s.queue[:s.queue.index(p)]) or a in s.queue:
            return f"the seat is not the next to commit (queue {s.queue}, commitments {s.commits})"
    elif decision in (A.D_STAKE, A.D_PED_BUYRIGHT, A.D_PED_CARDS):
        w, k = s.winner, s.kstar
        if w < 0 or w == a or k < 1 or (decision == A.D_STAKE) != (p == w) or (decision != A.D_STAKE) != (p == a):
            return f"winner {w} at k*={k} with auctioneer {a} do not fit"
        if decision == A.D_STAKE and not sum(s.selection) < k <= s.sizes[w]:
            return f"the winner holds {s.sizes[w]} cards, has chosen {sum(s.selection)}, for k*={k}"
        if decision != A.D_STAKE and sum(s.stake) != k:
            return f"the stake {s.stake} is not k*={k} cards"
        if decision == A.D_PED_CARDS and not sum(s.selection) < k <= s.sizes[a]:
            return f"the auctioneer holds {s.sizes[a]} cards, has chosen {sum(s.selection)}, for k*={k}"
    elif decision in _TRADE_DECISIONS:
        c, d, sp = s.challenger, s.challenged, s.species
        if c != s.turn_player or not 0 <= d < n or d == c or not 0 <= sp <= RAT:
            return f"the trade of {sp} between {c} and {d} is not the turn player's"
        if not (0 < s.holdings[c][sp] < 4 and 0 < s.holdings[d][sp] < 4):
            return f"the traders hold {s.holdings[c][sp]} and {s.holdings[d][sp]} of species {sp}"
        both_two = s.holdings[c][sp] == 2 and s.holdings[d][sp] == 2
        if s.trade_stake != (2 if both_two else 1) or s.trade_round not in (1, 2):
            return f"stake {s.trade_stake} or round {s.trade_round} does not fit"
        if p != (c if decision == A.D_OFFER else d):
            return f"the {'challenger' if decision == A.D_OFFER else 'challenged player'} acts here"
    return None
