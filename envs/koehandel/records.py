"""What each player may know of past events: the opponent digest and event tables of spec §12.5.

:class:`Memory` receives every settled event with full information from the rules engine and writes,
for every viewer, the row of the event as that viewer saw it (−1 for a value it does not know) and
updates its block-2 digest of each opponent's money. Seats are relative to the viewer.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .config import DENOMINATIONS, NUM_DENOMS, KoehandelConfig

UNKNOWN = [-1] * NUM_DENOMS
ZERO = [0] * NUM_DENOMS
SLOTS = 6
DIGEST_COLUMNS = 17
SEEN_IN, SEEN_OUT, UNSEEN_IN, UNSEEN_OUT, CASH_BOUND = 0, 7, 14, 15, 16
DECISION_CODES = {None: 0, "decline": 1, "buy": 2}
RESPONSE_CODES = {"accept": 1, "counter": 2}
RESULT_CODES = {"challenger": 1, "challenged": 2, "tie": 3}


def table_shapes(cfg: KoehandelConfig) -> dict[str, tuple[int, int]]:
    """Rows and columns of each event table that can occur under ``cfg`` (§12.5, block 3)."""
    if cfg.num_players == 2:
        deck = 54 + sum(cfg.two_player_deck_money()) - cfg.two_player_removed
        shapes = {"distributions": (-(-deck // 2), 7)}
    else:
        shapes = {"auctions": (50, 24), "rat_auctions": (4, 58)}
    shapes["trades"] = (cfg.max_turns, 41)
    if cfg.overbid_mode == "reveal_and_restart" and cfg.num_players > 2:  # 2 players hold no auctions
        shapes["defaults"] = (250, 11)
    return shapes


def money_code(card: int) -> tuple[int, int | None]:
    """R3 card code (21 for any money card) and the money card's denomination index."""
    return (21, card - 21) if card >= 21 else (card, None)


class Memory:
    """Per-viewer event tables (block 3) and opponent digests (block 2)."""

    def __init__(self, cfg: KoehandelConfig):
        self.cfg = cfg
        self.n = n = cfg.num_players
        self.shapes = table_shapes(cfg)
        self.tables = {name: np.zeros((n, rows, cols), np.int32) for name, (rows, cols) in self.shapes.items()}
        self.counts = dict.fromkeys(self.shapes, 0)
        self.digest = np.zeros((n, SLOTS - 1, DIGEST_COLUMNS), np.int32)
        start = sum(c * d for c, d in zip(cfg.start_hand(), DENOMINATIONS))
        self.digest[:, : n - 1, CASH_BOUND] = start
        self.epoch = 0  # bumped on every change, for observation caches

    # ------------------------------------------------------------------ digest updates
    def _slot(self, viewer: int, seat: int) -> int:
        return (seat - viewer) % self.n

    def _enter(self, viewer: int, seat: int, counts: list[int] | None, cards: int) -> None:
        if seat == viewer:
            return
        row = self.digest[viewer, self._slot(viewer, seat) - 1]
        if counts is None:
            row[UNSEEN_IN] += cards
        else:
            row[SEEN_IN:SEEN_IN + NUM_DENOMS] += counts
            row[CASH_BOUND] += _value(counts)

    def _leave(self, viewer: int, seat: int, counts: list[int] | None, cards: int, most: int) -> None:
        """An outflow; unseen, it lowers the cash bound by the most it can be worth (``most``)."""
        if seat == viewer:
            return
        row = self.digest[viewer, self._slot(viewer, seat) - 1]
        if counts is None:
            row[UNSEEN_OUT] += cards
            row[CASH_BOUND] -= most
        else:
            row[SEEN_OUT:SEEN_OUT + NUM_DENOMS] += counts
            row[CASH_BOUND] -= _value(counts)
        row[CASH_BOUND] = max(row[CASH_BOUND], 0)

    def _prove(self, viewer: int, seat: int, amount: int) -> None:
        if seat != viewer:
            row = self.digest[viewer, self._slot(viewer, seat) - 1]
            row[CASH_BOUND] = max(row[CASH_BOUND], amount)

    def _transfer(self, viewer: int, giver: int, taker: int, counts: list[int], seen: bool, most: int) -> None:
        cards = sum(counts)
        if cards:
            self._leave(viewer, giver, counts if seen else None, cards, most)
            self._enter(viewer, taker, counts if seen else None, cards)

    def _row(self, table: str) -> np.ndarray:
        """The next row of ``table`` for all viewers, shape (n, columns)."""
        index = self.counts[table]
        self.counts[table] = index + 1
        return self.tables[table][:, index]

    # ------------------------------------------------------------------ events
    def payout(self, d: int) -> None:
        """Every player received one card of denomination ``d`` (public)."""
        one = [0] * NUM_DENOMS
        one[d] = 1
        for viewer in range(self.n):
            for seat in range(self.n):
                self._enter(viewer, seat, one, 1)
        self.epoch += 1

    def default(self, seq: int, kind: int, species: int, seat: int, hand: list[int]) -> None:
        """A defaulting bidder's hand is revealed to all (reveal_and_restart, R5)."""
        rows = self._row("defaults")
        for viewer in range(self.n):
            rows[viewer, :4] = (seq, kind, species, self._slot(viewer, seat))
            rows[viewer, 4:] = hand
            if seat != viewer:
                self.digest[viewer, self._slot(viewer, seat) - 1, CASH_BOUND] = _value(hand)
        self.epoch += 1

    def settle(self, event: dict[str, Any]) -> None:
        getattr(self, f"_{event['kind']}")(event)
        self.epoch += 1

    def _auction(self, e: dict[str, Any]) -> None:
        rows, n = self._row("auctions"), self.n
        payment, price = e["payment"], e["price"]
        for v in range(n):
            seen = payment is None or v in (e["payer"], e["payee"]) or self.cfg.public_auction_payments
            row = rows[v]
            row[:5] = (e["seq"], 1, e["species"], self._slot(v, e["auctioneer"]), e["donkey_payout"])
            for seat in range(n):
                row[5 + self._slot(v, seat)] = e["max_bids"][seat]
            row[11] = -1
            row[12] = -1 if e["winner"] is None else self._slot(v, e["winner"])
            row[13:16] = (price, DECISION_CODES[e["decision"]], sum(payment or ZERO))
            row[16:23] = (payment or ZERO) if seen else UNKNOWN
            row[23] = len(e["defaults"])
            if self.cfg.overbid_mode == "mask":
                for seat in range(n):
                    self._prove(v, seat, e["max_bids"][seat])
            if payment is not None:
                self._prove(v, e["payer"], price)
                self._transfer(v, e["payer"], e["payee"], payment, seen, min(500 * sum(payment), price + 490))

    def _pedigree(self, e: dict[str, Any]) -> None:
        rows, n = self._row("auctions"), self.n
        payment = e["payment"]
        for v in range(n):
            seen = payment is None or v in (e["payer"], e["payee"])
            row = rows[v]
            row[:11] = 0
            row[:5] = (e["seq"], 2, e["species"], self._slot(v, e["auctioneer"]), 0)
            for seat in e["tied"]:
                row[5 + self._slot(v, seat)] = 1
            own = e["commitments"][v]
            row[11] = -1 if own is None else own
            row[12] = -1 if e["winner"] is None else self._slot(v, e["winner"])
            row[13:16] = (e["count"], DECISION_CODES[e["decision"]], sum(payment or ZERO))
            row[16:23] = (payment or ZERO) if seen else UNKNOWN
            row[23] = len(e["defaults"])
            if payment is not None:
                self._transfer(v, e["payer"], e["payee"], payment, seen, 500 * sum(payment))

    def _rat(self, e: dict[str, Any]) -> None:
        rows, n = self._row("rat_auctions"), self.n
        laid = [[0] * NUM_DENOMS for _ in range(n)]
        for seat, d in e["pot"]:
            laid[seat][d] += 1
        pot = [sum(laid[seat][d] for seat in range(n)) for d in range(NUM_DENOMS)]
        taker = e["taker"]
        for v in range(n):
            row = rows[v]
            row[:3] = (e["seq"], self._slot(v, e["auctioneer"]), self._slot(v, taker))
            took = v == taker
            row[9:16] = pot if took else UNKNOWN
            for seat in range(n):
                slot = self._slot(v, seat)
                row[3 + slot] = sum(laid[seat])
                attributed = seat == v or (took and self.cfg.rat_pot_attribution)
                row[16 + 7 * slot: 23 + 7 * slot] = laid[seat] if attributed else UNKNOWN
                if seat != taker:
                    self._leave(v, seat, laid[seat] if attributed else None, sum(laid[seat]), 500 * sum(laid[seat]))
            if taker != v:  # the viewer's own lays are seen entering the taker's hand
                self._enter(v, taker, laid[v], sum(laid[v]))
                self._enter(v, taker, None, sum(pot) - sum(laid[taker]) - sum(laid[v]))

    def _trade(self, e: dict[str, Any]) -> None:
        rows = self._row("trades")
        c, d = e["challenger"], e["challenged"]
        for v in range(self.n):
            trader = v in (c, d)
            row = rows[v]
            row[:5] = (e["seq"], self._slot(v, c), self._slot(v, d), e["species"], e["stake"])
            row[5:] = 0
            for r, rnd in enumerate(e["rounds"]):
                b = 5 + 18 * r
                offer, counter = rnd["offer"], rnd["counter"]
                row[b:b + 3] = (RESPONSE_CODES[rnd["response"]], rnd["offer_cards"], rnd["counter_cards"])
                row[b + 3:b + 10] = offer if trader else UNKNOWN
                row[b + 10:b + 17] = ZERO if counter is None else (counter if trader else UNKNOWN)
                row[b + 17] = RESULT_CODES[rnd["result"]]
                self._transfer(v, c, d, offer, trader, 500 * sum(offer))
                if counter is not None:
                    self._transfer(v, d, c, counter, trader, 500 * sum(counter))

    def _distribution(self, e: dict[str, Any]) -> None:
        rows = self._row("distributions")
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
                    self._enter(v, to, counts if seen else None, 1)

    # ------------------------------------------------------------------ access
    def record(self, viewer: int) -> dict[str, list[list[int]]]:
        """The viewer's complete event record (block 3 rows as plain lists)."""
        return {name: table[viewer, : self.counts[name]].tolist() for name, table in self.tables.items()}

    def to_json(self) -> dict[str, Any]:
        return {"counts": dict(self.counts), "digest": self.digest.tolist(), "epoch": self.epoch,
                "tables": {name: table[:, : self.counts[name]].tolist() for name, table in self.tables.items()}}

    def load_json(self, data: dict[str, Any]) -> None:
        self.counts = dict(data["counts"])
        self.digest[:] = data["digest"]
        self.epoch = data["epoch"]
        for name, table in self.tables.items():
            table[:] = 0
            if self.counts[name]:
                table[:, : self.counts[name]] = data["tables"][name]


def _value(counts) -> int:
    return int(sum(int(c) * d for c, d in zip(counts, DENOMINATIONS)))
