"""Koehandel positions from keywords (``env.unwrapped.set_position(seed, **spec)``; docs/koehandel_rules.md
Appendix B). The result is state data, checked like any snapshot by ``restore``."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from ..core.game import SnapshotError
from ..core.options import is_int
from . import actions as A
from .cards import DENOMINATIONS, MONEY, NUM_ANIMALS, NUM_DENOMS, NUM_SPECIES, PEDIGREE, RAT, card_name
from .checks import red_counts
from .money import value
from .records import Memory

if TYPE_CHECKING:
    from .rules import KoehandelGame, KoehandelState

KEYWORDS = ("deck", "top", "holdings", "hands", "cash", "turn_player", "donkeys", "bank")


def position(game: KoehandelGame, base: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    """A turn's start set up for research and tests.

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
    * ``bank``: the bank per denomination (3-6 players; default: whatever conserves the money). It must
      still cover the donkey money to come.

    The position starts at the turn choice of ``turn_player`` with an empty event record; the hands
    it gives are public knowledge then, as at a real deal (``start_hands``). With
    ``auto_resolve_forced`` the first turn choice is shown even when it is forced.
    """
    unknown = sorted(set(spec) - set(KEYWORDS))
    if unknown:
        raise SnapshotError(f"koehandel: position has no keyword(s) {unknown}; keywords: deck, top, holdings, "
                            f"hands (or cash), turn_player, donkeys, bank")
    if "hands" in spec and "cash" in spec:
        raise SnapshotError("koehandel: position takes hands or cash (the same keyword), not both")
    fresh = game.state_from_json(copy.deepcopy(base))  # the dealt game; the parts below replace its own
    if "holdings" in spec:
        _set_holdings(fresh, spec["holdings"])
    _set_deck(fresh, spec)
    if "hands" in spec or "cash" in spec:
        for seat, entry in _per_seat(spec.get("hands", spec.get("cash")), fresh.n, "hands"):
            fresh.hands[seat] = _money_of(entry, f"hands[{seat}]")
    fresh.cash = [value(hand) for hand in fresh.hands]
    fresh.sizes = [sum(hand) for hand in fresh.hands]
    _balance_money(fresh, spec)
    _start_turn(fresh, spec)
    return fresh.to_json()


def _set_holdings(fresh: KoehandelState, entries: Any) -> None:
    holdings, owner = fresh.holdings, fresh.pedigree_owner
    for seat, entry in _per_seat(entries, fresh.n, "holdings"):
        holdings[seat] = [0] * NUM_SPECIES
        for species in range(NUM_ANIMALS):
            if owner[species] == seat:
                owner[species] = -1
        for card in _cards_of(entry, f"holdings[{seat}]"):
            if card >= MONEY:
                raise SnapshotError(f"koehandel: holdings[{seat}] names money card {card_name(card)!r}; "
                                    f"money goes in hands")
            if card < PEDIGREE:
                holdings[seat][card] += 1
            elif owner[card - PEDIGREE] >= 0:
                raise SnapshotError(f"koehandel: holdings give {card_name(card)!r} to two seats")
            else:
                owner[card - PEDIGREE] = seat


def _set_deck(fresh: KoehandelState, spec: dict[str, Any]) -> None:
    """The deck given, or the dealt deck less the held cards; then ``top``; 4 of each animal and rat
    and 1 of each pedigree in all."""
    if "deck" in spec:
        fresh.deck = _card_list(spec["deck"], "deck")[::-1]
        if fresh.n > 2 and any(card >= MONEY for card in fresh.deck):
            raise SnapshotError("koehandel: position deck holds money cards, which only the 2-player deck has")
    else:  # the held cards leave the dealt deck, the rest keeps its order
        out, kept = red_counts(fresh.holdings, fresh.pedigree_owner), []
        for card in reversed(fresh.deck):
            if card < MONEY and out[card] > 0:
                out[card] -= 1
            else:
                kept.append(card)
        fresh.deck = kept[::-1]
    if "top" in spec:
        for card in _card_list(spec["top"], "top")[::-1]:
            if card not in fresh.deck:
                raise SnapshotError(f"koehandel: position top names {card_name(card)!r}, which is not in the deck")
            fresh.deck.remove(card)
            fresh.deck.append(card)
    counts = red_counts(fresh.holdings, fresh.pedigree_owner)
    for card in fresh.deck:
        if card < MONEY:
            counts[card] += 1
    wrong = [f"{card_name(c)} x{counts[c]}" for c in range(MONEY) if counts[c] != (4 if c <= RAT else 1)]
    if wrong:
        raise SnapshotError(f"koehandel: position holds the wrong number of cards (deck and holdings together "
                            f"must hold 4 of each animal and rat and 1 of each pedigree): {', '.join(wrong)}")


def _balance_money(fresh: KoehandelState, spec: dict[str, Any]) -> None:
    """Money to or from the bank (2 players: the removed pile), so that the composition is conserved."""
    cfg, n = fresh.cfg, fresh.n
    money = [sum(hand[d] for hand in fresh.hands) for d in range(NUM_DENOMS)]
    for card in fresh.deck:
        if card >= MONEY:
            money[card - MONEY] += 1
    if "bank" in spec and n == 2:
        raise SnapshotError("koehandel: the 2-player game has no bank to set (its donkey reserve is fixed)")
    if n == 2:
        fresh.removed = [have - used - b for have, used, b in zip(cfg.money_composition, money, fresh.bank)]
        short = fresh.removed
    elif "bank" in spec:
        fresh.bank = _money_of(spec["bank"], "bank")
        if [used + b for used, b in zip(money, fresh.bank)] != list(cfg.money_composition):
            raise SnapshotError(f"koehandel: hands {[sum(h) for h in fresh.hands]} cards and bank {fresh.bank} do "
                                f"not add up to the money composition {list(cfg.money_composition)}")
        short = fresh.bank
    else:
        fresh.bank = short = [have - used for have, used in zip(cfg.money_composition, money)]
    if any(k < 0 for k in short):
        raise SnapshotError(f"koehandel: the hands need more money cards than the game has (composition "
                            f"{list(cfg.money_composition)}; short by {[max(-k, 0) for k in short]} per denomination)")


def _start_turn(fresh: KoehandelState, spec: dict[str, Any]) -> None:
    """The turn choice of ``turn_player``, nothing going on, an empty record, the hands public."""
    n = fresh.n
    turn_player = spec.get("turn_player", fresh.turn_player)
    if not (is_int(turn_player) and 0 <= turn_player < n):
        raise SnapshotError(f"koehandel: position turn_player={turn_player!r} is not a seat 0..{n - 1}")
    fresh.donkeys = spec.get("donkeys", 4 - fresh.deck.count(fresh.cfg.donkey_species))
    fresh._clear_auction()
    fresh._clear_trade()
    fresh.looked = -1
    fresh.event_start, fresh.events, fresh.seq = [], [], 0
    fresh.is_terminal = fresh.is_truncated = False
    fresh.turn_player, fresh.turns = turn_player, 1
    fresh.start_hands = [list(hand) for hand in fresh.hands]
    fresh.memory = Memory(fresh.cfg, list(fresh.cash))  # the cash bounds, as at a deal
    fresh._set(A.D_TURN, turn_player)


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
        if not (is_int(seat) and 0 <= seat < n):
            raise SnapshotError(f"koehandel: position {what} names seat {seat!r}, not a seat 0..{n - 1}")
    return [(seat, entry) for seat, entry in pairs if entry is not None]


_CARD_CODES = {card_name(card): card for card in range(MONEY + NUM_DENOMS)}


def _card_code(card: Any, where: str) -> int:
    if isinstance(card, str) and card.strip().lower() in _CARD_CODES:
        return _CARD_CODES[card.strip().lower()]
    if is_int(card) and 0 <= card < MONEY + NUM_DENOMS:
        return card
    raise SnapshotError(f"koehandel: position {where} names {card!r}, not a card (a code 0..{MONEY + NUM_DENOMS - 1} "
                        f"or a name such as 'cow', 'rat', 'pedigree cow', 'money 50')")


def _card_list(cards: Any, where: str) -> list[int]:
    if not isinstance(cards, (list, tuple)):
        raise SnapshotError(f"koehandel: position {where} must be a list of cards, top first, got {cards!r}")
    return _cards_of(list(cards), where)


def _cards_of(entry: Any, where: str) -> list[int]:
    """Card codes of a list of cards or a dict card -> count."""
    if isinstance(entry, dict):
        cards = []
        for card, count in entry.items():
            if not (is_int(count) and 0 <= count <= 4):
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
        if worth not in DENOMINATIONS or isinstance(worth, bool) or not (is_int(count) and count >= 0):
            raise SnapshotError(f"koehandel: position {where} has {count!r} card(s) of {worth!r}; values are "
                                f"{list(DENOMINATIONS)}, counts ints >= 0")
        counts[DENOMINATIONS.index(worth)] += count
    return counts
