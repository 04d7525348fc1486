"""Koehandel table view for the web server: what one seat may see, as JSON data (§11, §12.5).

It follows the observation encoder value by value: own money hand and cash, every seat's number of money
cards, animals and pedigrees, the auction (card, high bid and bidder, passes, the highest bid of each seat),
the own sealed pedigree commitment, rat-pot card counts, and the cow trade with only the card count of an
offer lying face down (its composition only to the challenger who laid it, and a finished tie round's to
the two traders). Settled events are listed as the seat saw them (the event tables of §12.5).
``seat=None`` is the spectator view of a finished game's replay, with every hand.
"""

from __future__ import annotations

from typing import Any

from . import actions as A
from .cards import DENOMINATIONS, MONEY, NUM_SPECIES, PEDIGREE, SPECIES_NAMES, card_name
from .rules import KoehandelState

RECENT_EVENTS = 8
SELECTIONS = (A.D_OFFER, A.D_COUNTER, A.D_PAY, A.D_STAKE, A.D_PED_CARDS)


def money(counts: list[int]) -> dict[str, int]:
    """Money cards by denomination, e.g. ``{"10": 2, "50": 1}``."""
    return {str(DENOMINATIONS[d]): k for d, k in enumerate(counts) if k}


def seat_view(state: KoehandelState, seat: int | None, memory: dict[str, Any]) -> dict[str, Any]:
    s, n = state, state.n
    everything = seat is None
    acting = not s.is_terminal and s.current_player == seat
    seats = []
    for other in range(n):
        row = {"seat": other, "name": f"player_{other}", "money_cards": s.sizes[other],
               "animals": {SPECIES_NAMES[sp]: k for sp, k in enumerate(s.holdings[other]) if k},
               "pedigrees": [SPECIES_NAMES[sp] for sp, owner in enumerate(s.pedigree_owner) if owner == other],
               "highest_bid": s.max_bid[other]}
        if everything:
            row["hand"], row["cash"] = money(s.hands[other]), s.cash[other]
        seats.append(row)
    view: dict[str, Any] = {
        "kind": "koehandel", "turn": s.turns, "max_turns": s.cfg.max_turns,
        "phase": "deck" if s.deck else "final trading", "deck_size": len(s.deck), "donkeys": s.donkeys,
        "turn_player": s.turn_player, "seats": seats,
        "decision": A.DECISION_NAMES.get(s.decision) if not s.is_terminal else None,
        "hand": None if everything else money(s.hands[seat]),
        "cash": None if everything else s.cash[seat],
        "events": [_event(e, seat, s.cfg.public_auction_payments) for e in s.events[-RECENT_EVENTS:]][::-1],
    }
    if acting:
        decision = s.decision
        view["selection"] = money(s.selection) if decision in SELECTIONS else None
        view["pending_raise"] = s.pending if decision == A.D_BID else 0
        view["target"] = s.amount if decision == A.D_PAY else s.kstar if decision in (A.D_STAKE, A.D_PED_CARDS) else None
        view["looked_card"] = card_name(s.looked) if decision == A.D_DISTRIBUTE else None
    view["auction"] = _auction(s, seat)
    view["trade"] = _trade(s, seat)
    return view


def _auction(s: KoehandelState, seat: int | None) -> dict[str, Any] | None:
    if s.auctioneer < 0 or s.card < 0:  # 2 players: the looked-at card is the distributor's alone
        return None
    out: dict[str, Any] = {"card": card_name(s.card), "auctioneer": s.auctioneer, "high": s.high,
                           "high_bidder": s.high_bidder if s.high_bidder >= 0 else None, "passes": s.passes}
    if PEDIGREE <= s.card < MONEY:
        own = None if seat is None else s.commits[seat]
        out["pedigree"] = {"own_commitment": own, "count": s.kstar or None,
                           "winner": s.winner if s.kstar else None,
                           "tied": list(s.tied) if s.cfg.reveal_pedigree_ties else []}
    if s.pot:
        laid = [0] * s.n
        for who, _ in s.pot:
            laid[who] += 1
        out["rat_pot"] = {"cards_per_seat": laid,
                          "own": None if seat is None else money(_count(d for who, d in s.pot if who == seat))}
    return out


def _trade(s: KoehandelState, seat: int | None) -> dict[str, Any] | None:
    if s.challenger < 0:
        return None
    c, d = s.challenger, s.challenged
    in_transit = s.decision in (A.D_RESPONSE, A.D_COUNTER)
    laid = sum(s.offers[0]) if in_transit else 0
    trader = seat is None or seat in (c, d)
    rounds = []
    for rnd in s.rounds:
        row = {"response": rnd.get("response")}
        if "result" in rnd:  # a finished (tied) round
            row.update(result=rnd["result"], offer_cards=rnd["offer_cards"], counter_cards=rnd["counter_cards"])
            if trader:
                row.update(offer=money(rnd["offer"]), counter=money(rnd["counter"] or [0] * len(DENOMINATIONS)))
        rounds.append(row)
    out = {"challenger": c, "challenged": d, "species": SPECIES_NAMES[s.species], "stake": s.trade_stake,
           "round": s.trade_round, "rounds": rounds,
           "offer_face_down": {"cards": laid} if in_transit else None}
    if in_transit and (seat is None or seat == c):
        out["offer_face_down"]["money"] = money(s.offers[0])
    return out


def _event(e: dict[str, Any], seat: int | None, public_payments: bool) -> dict[str, Any]:
    """One settled event as ``seat`` saw it (the rows the event tables give that seat, §12.5); auction
    payments are public with ``public_payments`` (K-A12)."""
    kind = e["kind"]
    out: dict[str, Any] = {"kind": kind, "turn": e["turn"]}
    if kind in ("auction", "pedigree"):
        payment = e["payment"]
        seen = payment is None or seat is None or seat in (e["payer"], e["payee"]) or (
            kind == "auction" and public_payments)
        out.update(card=SPECIES_NAMES[e["species"]] + (" pedigree" if kind == "pedigree" else ""),
                   auctioneer=e["auctioneer"], winner=e["winner"], owner=e["owner"], decision=e["decision"],
                   payment_cards=sum(payment) if payment else 0, payment=money(payment) if payment and seen else None)
        if kind == "auction":
            out.update(price=e["price"], highest_bids=list(e["max_bids"]))
        else:
            out.update(count=e["count"], tied=list(e["tied"]),
                       own_commitment=None if seat is None else e["commitments"][seat])
    elif kind == "rat":
        laid = [0] * len(e["players"])
        for who, _ in e["pot"]:
            laid[who] += 1
        out.update(auctioneer=e["auctioneer"], taker=e["taker"], cards_per_seat=laid)
    elif kind == "trade":
        trader = seat is None or seat in e["players"]
        rounds = []
        for rnd in e["rounds"]:
            row = {"response": rnd["response"], "result": rnd["result"], "offer_cards": rnd["offer_cards"],
                   "counter_cards": rnd["counter_cards"]}
            if trader:
                row.update(offer=money(rnd["offer"]), counter=money(rnd["counter"] or [0] * len(DENOMINATIONS)))
            rounds.append(row)
        out.update(challenger=e["challenger"], challenged=e["challenged"], species=SPECIES_NAMES[e["species"]],
                   stake=e["stake"], winner=e["winner"], rounds=rounds)
    elif kind == "distribution":
        out.update(distributor=e["distributor"], decision=e["decision"],
                   x=_placed(e["x"], seat in (None, e["distributor"], e["x_to"])), x_to=e["x_to"],
                   y=None if e["y"] is None else _placed(e["y"], seat in (None, e["y_to"])), y_to=e["y_to"])
    return out


def _placed(card: int, seen: bool) -> str:
    """A distributed card: animals are placed face up; a money card's value only to those who saw it."""
    return card_name(card) if card < MONEY or seen else "money card"


def _count(denominations) -> list[int]:
    counts = [0] * len(DENOMINATIONS)
    for d in denominations:
        counts[d] += 1
    return counts


def action_label(state: KoehandelState, action: int) -> str:
    """A readable name of a legal action of the seat to move, in the words of its decision (§12.1)."""
    s, decision = state, state.decision
    if A.TARGET <= action < A.PASS:
        offset, species = divmod(action - A.TARGET, NUM_SPECIES)
        return f"trade with player_{(s.current_player + offset + 1) % s.n} for {SPECIES_NAMES[species]}"
    if A.CARD <= action < A.DONE:
        value = DENOMINATIONS[action - A.CARD]
        return (f"pay with a {value}" if decision == A.D_PAY else f"add a {value} to the offer"
                if decision in (A.D_OFFER, A.D_COUNTER) else f"lay a {value}")
    if A.LAY <= action < A.ACCEPT:
        return f"lay a {DENOMINATIONS[action - A.LAY]} face down"
    if A.ADD <= action < A.BID:
        raise_by = A.RAISES[action - A.ADD]
        return f"raise by {raise_by} (to {s.high + s.pending + raise_by})"
    if A.SLAP < action <= A.SLAP + A.MAX_SLAP:
        return f"commit {_cards(action - A.SLAP)}"
    price = _cards(s.kstar) if decision == A.D_PED_BUYRIGHT else str(s.high)
    labels = {
        A.AUCTION: "look at the top card" if s.n == 2 else "auction the top card", A.TRADE: "cow trade",
        A.END_TURN: "end the turn", A.PASS: "pass", A.BID: f"bid {s.high + s.pending}",
        A.DECLINE: f"sell to player_{s.winner if decision == A.D_PED_BUYRIGHT else s.high_bidder}",
        A.BUY: f"buy it yourself ({price})", A.NEVER: "never", A.TAKE: "take the pot",
        A.ACCEPT: "accept the offer", A.COUNTER: "make a counter-offer", A.KEEP: "keep it", A.GIVE: "give it away",
        A.DONE: "pay these cards" if decision == A.D_PAY else f"lay it face down ({_cards(sum(s.selection))})",
    }
    return labels.get(action, s.game.action_to_string(action))


def _cards(count: int) -> str:
    return f"{count} card{'' if count == 1 else 's'}"
