"""What each player may know of past events: the opponent digest and event tables of spec §12.5.

:class:`Memory` receives every settled event with full information from the rules engine and writes,
for every viewer, the row of the event as that viewer saw it (−1 for a value it does not know) and
updates its block-2 digest of each opponent's money. Seats are relative to the viewer.
"""

from __future__ import annotations

from array import array
from typing import Any

import numpy as np

from ..core.layout import ObservationLayout
from .config import DENOMINATIONS, NUM_DENOMS, KoehandelConfig

UNKNOWN = [-1] * NUM_DENOMS
ZERO = [0] * NUM_DENOMS
SLOTS = 6
DIGEST_COLUMNS = 17
SEEN_IN, SEEN_OUT, UNSEEN_IN, UNSEEN_OUT, CASH_BOUND = 0, 7, 14, 15, 16
DECISION_CODES = {None: 0, "decline": 1, "buy": 2}
RESPONSE_CODES = {"accept": 1, "counter": 2}
RESULT_CODES = {"challenger": 1, "challenged": 2, "tie": 3}
TRADE_COLUMNS = 41
#: R4 (cow trades): seq, challenger, challenged, species, stake, then per round from its column: the
#: response, the offer's and the counter-offer's card counts, the offer and counter per denomination, the
#: result (the rounds' columns are TRADE_ROUNDS; the offsets within a round are ROUND_*).
ROUND_RESPONSE, ROUND_OFFER_CARDS, ROUND_COUNTER_CARDS, ROUND_OFFER = 0, 1, 2, 3
TRADE_ROUNDS = (5, 5 + ROUND_OFFER + 2 * NUM_DENOMS + 1)
COMPACT_ROWS = 16
#: Every value of an observation stays at most this (float32 holds every integer up to 2**24 exactly):
#: the digest's running card counts stop there (a game would need tens of thousands of turns to reach it).
VALUE_CAP = 2**24 - 1


def table_shapes(cfg: KoehandelConfig) -> dict[str, tuple[int, int]]:
    """Rows and columns of each event table that can occur under ``cfg`` (§12.5, block 3)."""
    if cfg.num_players == 2:
        deck = 54 + sum(cfg.two_player_deck_money()) - cfg.two_player_removed
        shapes = {"distributions": (-(-deck // 2), 7)}
    else:
        shapes = {"auctions": (50, 24), "rat_auctions": (4, 58)}
    shapes["trades"] = (cfg.max_turns, TRADE_COLUMNS)
    if cfg.overbid_mode == "reveal_and_restart" and cfg.num_players > 2:  # 2 players hold no auctions
        shapes["defaults"] = (250, 11)
    return shapes


def record_blocks(cfg: KoehandelConfig) -> list[tuple[str, tuple[int, int]]]:
    """Blocks 2 and 3 of the observation (§12.5): the opponent digest, then a window on each event
    table, all of its rows (``full_record``) or the newest ``COMPACT_ROWS``, newest first (``compact``)."""
    full = cfg.observation_mode == "full_record"
    blocks = [("digest", (SLOTS - 1, DIGEST_COLUMNS))]
    for name, (rows, columns) in table_shapes(cfg).items():
        blocks.append((f"record_{name}", (rows if full else min(rows, COMPACT_ROWS), columns)))
    return blocks


def money_code(card: int) -> tuple[int, int | None]:
    """R3 card code (21 for any money card) and the money card's denomination index."""
    return (21, card - 21) if card >= 21 else (card, None)


class Memory:
    """Per-viewer event tables (block 3) and opponent digests (block 2).

    ``block[viewer]`` is exactly that viewer's observation blocks 2 and 3 (:func:`record_blocks`), kept
    up to date as events settle, so that an observer copies it in one go. ``tables`` hold every row
    (the windows themselves with ``full_record``). ``digest[viewer]`` is the digest part of
    ``block[viewer]`` as a flat memoryview, ``DIGEST_COLUMNS`` per opponent slot 1..5: it changes a few
    values at a time, and a memoryview does that at the speed of a list.
    """

    def __init__(self, cfg: KoehandelConfig, start_cash: list[int] | None = None):
        self.cfg = cfg
        self.n = n = cfg.num_players
        self.shapes = table_shapes(cfg)
        self.layout = ObservationLayout(record_blocks(cfg))
        self._share(array("i", bytes(4 * n * self.layout.size)))
        full = cfg.observation_mode == "full_record"
        self.tables = self.windows if full else {
            name: np.zeros((n, rows, cols), np.int32) for name, (rows, cols) in self.shapes.items()}
        self.counts = dict.fromkeys(self.shapes, 0)
        # where the digest row of each seat begins in digest[viewer] (own seat: unused)
        self._starts = [[((seat - v) % n - 1) * DIGEST_COLUMNS for seat in range(n)] for v in range(n)]
        if start_cash is None:  # everybody starts with the game's starting hand
            start_cash = [_value(cfg.start_hand())] * n
        for viewer, row in enumerate(self.digest):
            for slot in range(1, n):
                row[slot * DIGEST_COLUMNS - 1] = start_cash[(viewer + slot) % n]  # each opponent's cash bound

    def _share(self, store: array) -> None:
        """Lay ``block``, the digests and the windows over one buffer."""
        n, size, layout = self.n, self.layout.size, self.layout
        digest_size = layout.slices["digest"].stop
        self._store = store
        self.block = np.frombuffer(store, np.intc).reshape(n, size)
        self.digest = [memoryview(store)[v * size: v * size + digest_size] for v in range(n)]
        self.windows = {name[len("record_"):]: self.block[:, where].reshape(n, *layout.shapes[name])
                        for name, where in layout.slices.items() if name != "digest"}

    def __getstate__(self) -> dict[str, Any]:
        state = {key: value for key, value in self.__dict__.items() if key not in ("block", "digest", "windows")}
        if self.cfg.observation_mode == "full_record":
            state["tables"] = None  # the windows
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._share(self._store)
        if self.tables is None:
            self.tables = self.windows

    def clone(self) -> Memory:
        """An independent copy (the buffer and the full tables copied, the configuration shared)."""
        new = object.__new__(Memory)
        new.__dict__.update(self.__dict__)
        new._share(array("i", self._store))
        new.tables = new.windows if self.tables is self.windows else {
            name: table.copy() for name, table in self.tables.items()}
        new.counts = dict(self.counts)
        return new

    # ------------------------------------------------------------------ digest updates
    def _slot(self, viewer: int, seat: int) -> int:
        return (seat - viewer) % self.n

    def _enter(self, viewer: int, seat: int, counts: list[int] | None, cards: int, worth: int = 0) -> None:
        """An inflow of ``cards`` cards; seen, their ``counts`` and total ``worth`` (None: unseen)."""
        if seat == viewer:
            return
        row, b = self.digest[viewer], self._starts[viewer][seat]
        if counts is None:
            row[b + UNSEEN_IN] = min(row[b + UNSEEN_IN] + cards, VALUE_CAP)
        else:
            for d, count in enumerate(counts, b + SEEN_IN):
                if count:
                    row[d] = min(row[d] + count, VALUE_CAP)
            row[b + CASH_BOUND] = min(row[b + CASH_BOUND] + worth, VALUE_CAP)

    def _leave(self, viewer: int, seat: int, counts: list[int] | None, cards: int, worth: int, most: int) -> None:
        """An outflow; unseen, it lowers the cash bound by the most it can be worth (``most``)."""
        if seat == viewer:
            return
        row, b = self.digest[viewer], self._starts[viewer][seat]
        if counts is None:
            row[b + UNSEEN_OUT] = min(row[b + UNSEEN_OUT] + cards, VALUE_CAP)
            row[b + CASH_BOUND] = max(row[b + CASH_BOUND] - most, 0)
        else:
            for d, count in enumerate(counts, b + SEEN_OUT):
                if count:
                    row[d] = min(row[d] + count, VALUE_CAP)
            row[b + CASH_BOUND] = max(row[b + CASH_BOUND] - worth, 0)

    def _prove(self, viewer: int, seat: int, amount: int) -> None:
        """``seat`` showed it holds at least ``amount``."""
        if seat != viewer:
            row, b = self.digest[viewer], self._starts[viewer][seat] + CASH_BOUND
            if row[b] < amount:
                row[b] = amount

    def _transfer(self, viewer: int, giver: int, taker: int, flow: tuple[list[int], int, int], seen: bool,
                  most: int) -> None:
        """``flow`` = (counts, cards, worth) moved from ``giver`` to ``taker``."""
        counts, cards, worth = flow
        if cards:
            self._leave(viewer, giver, counts if seen else None, cards, worth, most)
            self._enter(viewer, taker, counts if seen else None, cards, worth)

    def _append(self, name: str, rows: list[list[int]]) -> None:
        """Append one row per viewer (as that viewer saw the event) to table ``name``."""
        index = self.counts[name]
        self.counts[name] = index + 1
        table, window = self.tables[name], self.windows[name]
        table[:, index] = rows
        if window is not table:  # compact: newest row first
            window[:, 1:] = window[:, :-1]
            window[:, 0] = table[:, index]

    def _per_slot(self, viewer: int, values: list) -> list:
        """``values`` indexed by seat, reordered by ``viewer``'s slots and padded to SLOTS."""
        n = self.n
        return [values[(viewer + slot) % n] for slot in range(n)] + [0] * (SLOTS - n)

    # ------------------------------------------------------------------ events
    def payout(self, d: int) -> None:
        """Every player received one card of denomination ``d`` (public)."""
        one = [0] * NUM_DENOMS
        one[d] = 1
        for viewer in range(self.n):
            for seat in range(self.n):
                self._enter(viewer, seat, one, 1, DENOMINATIONS[d])

    def default(self, seq: int, kind: int, species: int, seat: int, hand: list[int]) -> None:
        """A defaulting bidder's hand is revealed to all (reveal_and_restart, R5)."""
        rows = [None] * self.n
        for viewer in range(self.n):
            rows[viewer] = [seq, kind, species, self._slot(viewer, seat), *hand]
            if seat != viewer:
                self.digest[viewer][self._starts[viewer][seat] + CASH_BOUND] = _value(hand)
        self._append("defaults", rows)

    def settle(self, event: dict[str, Any]) -> None:
        getattr(self, f"_{event['kind']}")(event)

    def _auction(self, e: dict[str, Any]) -> None:
        n, payment, price, max_bids = self.n, e["payment"], e["price"], e["max_bids"]
        payer, payee, auctioneer, winner = e["payer"], e["payee"], e["auctioneer"], e["winner"]
        shown, pad = payment or ZERO, [0] * (SLOTS - n)
        known = [price, DECISION_CODES[e["decision"]], sum(shown)]
        public = payment is None or self.cfg.public_auction_payments
        if payment is not None:
            flow = _flow(payment)
            most = min(500 * flow[1], price + 490)
        rows = []
        for v in range(n):
            seen = public or v == payer or v == payee
            rows.append([e["seq"], 1, e["species"], (auctioneer - v) % n, e["donkey_payout"], *max_bids[v:],
                         *max_bids[:v], *pad, -1, -1 if winner is None else (winner - v) % n, *known,
                         *(shown if seen else UNKNOWN), len(e["defaults"])])
            if self.cfg.overbid_mode == "mask":  # every bid was covered by cash
                row, starts = self.digest[v], self._starts[v]
                for seat in range(n):
                    b = starts[seat] + CASH_BOUND
                    if seat != v and row[b] < max_bids[seat]:
                        row[b] = max_bids[seat]
            if payment is not None:
                self._prove(v, payer, price)
                self._transfer(v, payer, payee, flow, seen, most)
        self._append("auctions", rows)

    def _pedigree(self, e: dict[str, Any]) -> None:
        rows, n = [None] * self.n, self.n
        payment = e["payment"]
        tail = [e["count"], DECISION_CODES[e["decision"]], sum(payment or ZERO)]
        flow = _flow(payment or ZERO)
        for v in range(n):
            seen = payment is None or v in (e["payer"], e["payee"])
            tied = [0] * SLOTS
            for seat in e["tied"]:
                tied[self._slot(v, seat)] = 1
            own = e["commitments"][v]
            winner = -1 if e["winner"] is None else self._slot(v, e["winner"])
            rows[v] = [e["seq"], 2, e["species"], self._slot(v, e["auctioneer"]), 0] + tied \
                + [-1 if own is None else own, winner] + tail + ((payment or ZERO) if seen else UNKNOWN) \
                + [len(e["defaults"])]
            if payment is not None:
                self._transfer(v, e["payer"], e["payee"], flow, seen, 500 * flow[1])
        self._append("auctions", rows)

    def _rat(self, e: dict[str, Any]) -> None:
        rows, n = [None] * self.n, self.n
        laid = [[0] * NUM_DENOMS for _ in range(n)]
        for seat, d in e["pot"]:
            laid[seat][d] += 1
        pot = [sum(laid[seat][d] for seat in range(n)) for d in range(NUM_DENOMS)]
        sizes = [sum(counts) for counts in laid]
        worths = [_value(counts) for counts in laid]
        taker = e["taker"]
        for v in range(n):
            took = v == taker
            row = [e["seq"], self._slot(v, e["auctioneer"]), self._slot(v, taker)]
            row += self._per_slot(v, sizes) + (pot if took else UNKNOWN)
            for slot in range(n):
                seat = (v + slot) % n
                attributed = seat == v or (took and self.cfg.rat_pot_attribution)
                row += laid[seat] if attributed else UNKNOWN
                if seat != taker:
                    self._leave(v, seat, laid[seat] if attributed else None, sizes[seat], worths[seat],
                                500 * sizes[seat])
            rows[v] = row + ZERO * (SLOTS - n)
            if taker != v:  # the viewer's own lays are seen entering the taker's hand
                self._enter(v, taker, laid[v], sizes[v], worths[v])
                self._enter(v, taker, None, sum(pot) - sizes[taker] - sizes[v])
        self._append("rat_auctions", rows)

    def _trade(self, e: dict[str, Any]) -> None:
        rows, n = [None] * self.n, self.n
        c, d = e["challenger"], e["challenged"]
        flows = [(_flow(rnd["offer"]), rnd["counter"] and _flow(rnd["counter"])) for rnd in e["rounds"]]
        for v in range(n):
            trader = v == c or v == d
            row = [e["seq"], (c - v) % n, (d - v) % n, e["species"], e["stake"]]
            for rnd, (offered, countered) in zip(e["rounds"], flows):
                offer, counter = rnd["offer"], rnd["counter"]
                row += [RESPONSE_CODES[rnd["response"]], rnd["offer_cards"], rnd["counter_cards"]]
                row += offer if trader else UNKNOWN
                row += ZERO if counter is None else (counter if trader else UNKNOWN)
                row.append(RESULT_CODES[rnd["result"]])
                self._transfer(v, c, d, offered, trader, 500 * offered[1])
                if counter is not None:
                    self._transfer(v, d, c, countered, trader, 500 * countered[1])
            rows[v] = row + [0] * (TRADE_COLUMNS - len(row))
        self._append("trades", rows)

    def _distribution(self, e: dict[str, Any]) -> None:
        rows = [None] * self.n
        p = e["distributor"]
        for v in range(self.n):
            x_code, x_money = money_code(e["x"])
            y_code, y_money = money_code(e["y"]) if e["y"] is not None else (-1, None)
            x_seen = x_money is not None and v in (p, e["x_to"])
            y_seen = y_money is not None and v == e["y_to"]
            rows[v] = (e["seq"], self._slot(v, p), 1 if e["decision"] == "keep" else 2,
                       x_code, x_money if x_seen else -1, y_code, y_money if y_seen else -1)
            for money, seen, to in ((x_money, x_seen, e["x_to"]), (y_money, y_seen, e["y_to"])):
                if money is not None:
                    counts = [0] * NUM_DENOMS
                    counts[money] = 1
                    self._enter(v, to, counts if seen else None, 1, DENOMINATIONS[money])
        self._append("distributions", rows)

    # ------------------------------------------------------------------ access
    def record(self, viewer: int) -> dict[str, list[list[int]]]:
        """The viewer's complete event record (block 3 rows as plain lists)."""
        return {name: table[viewer, : self.counts[name]].tolist() for name, table in self.tables.items()}

    def to_json(self) -> dict[str, Any]:
        digest = [[row[k:k + DIGEST_COLUMNS].tolist() for k in range(0, len(row), DIGEST_COLUMNS)]
                  for row in self.digest]
        return {"counts": dict(self.counts), "digest": digest,
                "tables": {name: table[:, : self.counts[name]].tolist() for name, table in self.tables.items()}}


def _flow(counts: list[int]) -> tuple[list[int], int, int]:
    return counts, sum(counts), _value(counts)


def _value(counts) -> int:
    return sum(c * d for c, d in zip(counts, DENOMINATIONS))
