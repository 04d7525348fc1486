"""Rattus Cartus re-deal for search (``env.determinize``; docs/rattus_cartus_rules.md §7.2a, §7.4).

``resample_hidden(state, o, rng)`` replaces everything seat ``o`` cannot see by a world built directly
(never sampled and rejected) from what ``o`` knows, so the result depends only on ``o``'s information and
``rng``:

1. **Special cards of the other players** (jokers, Swords, Flutes, Pass, Gold in hands, unrevealed
   committed cards and cards received in hidden transfers). Per player ``q`` and type, the public
   counters of §7.2a and ``o``'s own transfers with ``q`` give a count known up to the hidden transfers
   ``q`` made with third parties: ``taken - shown - pending taken + from o - to o``, widened by the number
   of cards ``q`` received from / gave to others. Counts are drawn one (player, type) at a time, each
   value checked by a small max-flow for a completion that also fits the per-type totals (conservation)
   and every player's room (committed cards hold no Pass or Gold). Should ``o``'s records not pin the
   counts (a re-dealt copy keeps no transfer details of other seats, ``o``'s included when the copy was
   made for another seat), the bounds widen to the public counters alone, ``taken - shown - pending
   taken`` give or take the cards ``q`` received and gave, which every accepted state satisfies
   (:mod:`.records`).
2. **Slots.** Each other player's hidden cards are laid out over hand, unrevealed committed cards,
   pending cards from hidden transfers and pending drawn cards (population only), Pass and Gold never
   committed.
3. **Population cards.** The unknown multiset (all cards minus those ``o`` can locate: own cards, the
   discard pile, revealed cards, its looks at the nun row) is listed in kind order. Cards ``o`` gave a
   player who never gave hidden cards, and not shown since, stay with that player (§7.5 item 5). Unlooked nun-row
   positions are filled first, each kind capped by ``o``'s ``seen_outside`` count (at most
   ``copies - seen - looked-at`` can lie there). After a reshuffle the deck is what is left of the
   reshuffled deck, whose make-up is public (§3.6, §7.2): at most ``make-up`` cards of a kind. Each
   choice keeps the nun row and the deck fillable together; the rest is shuffled over the other players'
   slots (and the deck, before any reshuffle).
4. **Point tokens** with non-uniform values: other players' and the supply's tokens from the values ``o``
   does not hold. **Building cards**: the unseen deck and replacement pile (the cards that went to its
   bottom face up stay); with a hidden building set the unseen part of the set is drawn again per class
   from what the selection method allows and ``o`` has not seen.
5. **Other players' private records** are rebuilt from the new world or dropped: their ``seen`` counts
   become what they locate now (and at least the reshuffled deck, which everybody saw), their gift
   records and third-party transfer details are cleared.

A finished game keeps its cards and tokens (steps 1-4 but the building cards are skipped): the final
scoring (§6) shows every holding, every token's value and the nun row, so nothing the result reads is
hidden any more, and the re-dealt copy keeps the result (and so the rewards) of the game.

The world is consistent with every public record and everything ``o`` knows, but it is not drawn from
the exact posterior, and some facts that only a full history would give are left out; the rules doc
(§7.6) lists them.
"""

from __future__ import annotations

import numpy as np

from .cards import (
    BUILDING_CLASS, CASTLE, COPIES_PER_BUILDING, KIND_COPIES, NUM_CLASSES, NUM_ITEMS, NUM_KINDS, NUN_ROW_SIZE,
    WATCHTOWER,
)
from .scoring import final_result

_PASS, _GOLD = 3, 4  # special indices (joker 0, Sword 1, Flute 2, Pass 3, Gold 4)
_PG_ITEMS = (NUM_KINDS + _PASS, NUM_KINDS + _GOLD)


def resample_hidden(state, o: int, rng: np.random.Generator) -> None:
    n = state.n
    others = [q for q in range(n) if q != o]
    if not state.is_terminal:  # §6: the final scoring shows every holding, token and the nun row: they stay
        _resample_cards(state, o, others, rng)
        _resample_tokens(state, o, others, rng)
    _resample_buildings(state, rng)
    # other players' private records: rebuilt or dropped (nothing of the true hidden past survives)
    for q in others:
        for r in range(n):
            if r != o:
                state.flow[q][r] = [0] * 5
                state.slot_gift[q][r] = [0] * NUM_ITEMS
            state.gifts[q][r] = [0] * NUM_ITEMS
        state.seen[q] = [max(a, b) for a, b in zip(state.located(q), state.reshuffle_comp)]
    state.result = final_result(state) if state.is_terminal else None


# ====================================================================== cards
class _Slots:
    """Where another player ``q`` holds cards ``o`` cannot see (step 2), and what ``o`` knows of them: its
    hand, unrevealed committed cards (no Pass or Gold), pending cards from hidden transfers (``fixed``: those
    ``o`` gave this slot, known to ``o``; the rest free) and pending drawn cards (population only). Cards
    ``o`` gave earlier and ``q`` has not shown since (``old_gifts``), while ``q`` has given none, are in
    hand or committed (Pass and Gold in hand)."""

    def __init__(self, state, o: int, q: int):
        self.hand = state.hand_size[q]
        self.committed = 0 if state.revealed[q] else sum(state.committed[q])
        self.drawn = state.pend_drawn[q]
        self.fixed = list(state.slot_gift[o][q])
        if state.gift_flag[o][q]:
            self.old_gifts = [0] * NUM_ITEMS
        else:
            self.old_gifts = [max(0, given - fixed) for given, fixed in zip(state.gifts[o][q], self.fixed)]
        #: per special type, the cards ``o`` pinned in the hidden slots
        self.pinned = [self.fixed[NUM_KINDS + s] + self.old_gifts[NUM_KINDS + s] for s in range(5)]
        self.free_hidden = state.pend_hidden[q] - sum(self.fixed)
        fixed_specials = sum(self.fixed[NUM_KINDS:])
        fixed_pg = self.fixed[NUM_KINDS + _PASS] + self.fixed[NUM_KINDS + _GOLD]
        #: the most special cards and the most Pass and Gold cards the hidden slots can hold
        self.room = self.hand + self.committed + self.free_hidden - sum(self.old_gifts[:NUM_KINDS]) + fixed_specials
        self.pg_room = self.hand + self.free_hidden + fixed_pg


def _resample_cards(state, o: int, others: list[int], rng: np.random.Generator) -> None:
    slots = {q: _Slots(state, o, q) for q in others}
    specials = _special_counts(state, o, slots, rng)
    pool = _unknown_population(state, o, slots)
    deck = _Deck(state)
    state.nun_row = _fill_nun_row(state, o, pool, deck, rng)
    if deck.cap:
        state.deck = deck.draw(pool, rng)
    rest = [k for k in range(NUM_KINDS) for _ in range(pool[k])]
    rest = [rest[i] for i in rng.permutation(len(rest))]
    cursor = 0
    for q in others:
        cursor = _lay_out(state, q, slots[q], specials[q], rest, cursor, rng)
    if not deck.cap:
        state.deck = rest[cursor:]


# ---------------------------------------------------------------------- special cards (step 1)
def _special_counts(state, o: int, slots: dict[int, _Slots], rng: np.random.Generator) -> dict[int, list[int]]:
    """Each other player's special cards per type in its hidden slots, drawn one (player, type) at a time,
    every value keeping a completion that fits the bounds, the totals and the room."""
    others = list(slots)
    lo, hi = _special_bounds(state, o, slots, own_transfers=True)
    totals = _special_totals(state, o, others)
    room = {q: slots[q].room for q in others}
    pg_room = {q: slots[q].pg_room for q in others}
    if not _feasible(others, lo, hi, totals, room, pg_room):
        lo, hi = _special_bounds(state, o, slots, own_transfers=False)
    specials = {q: [0] * 5 for q in others}
    for s in range(5):
        for q in others:
            values = list(range(lo[q][s], min(hi[q][s], totals[s]) + 1))
            while values:
                v = values.pop(int(rng.random() * len(values)))
                trial_lo = {r: list(lo[r]) for r in others}
                trial_hi = {r: list(hi[r]) for r in others}
                trial_lo[q][s] = trial_hi[q][s] = v
                if _feasible(others, trial_lo, trial_hi, totals, room, pg_room):
                    lo, hi = trial_lo, trial_hi
                    specials[q][s] = v
                    break
            else:  # cannot happen: the current bounds were feasible
                raise AssertionError("rattus_cartus sampler: no feasible special count")
    return specials


def _special_bounds(state, o: int, slots: dict[int, _Slots], own_transfers: bool) -> tuple[dict, dict]:
    """Per player and type, the counts the public counters allow, known up to the hidden transfers the
    player made: with ``own_transfers``, those with third parties only (``o`` knows its own)."""
    lo, hi = {}, {}
    for q, slot in slots.items():
        known = [state.taken[q][s] - state.shown[q][6 + s] - state.pend_taken[q][s] for s in range(5)]
        u_in, u_out = state.hidden_in[q], state.hidden_out[q]
        if own_transfers:
            u_in -= state.flow_count[o][q]
            u_out -= state.flow_count[q][o]
            known = [known[s] + state.flow[o][q][s] - state.flow[q][o][s] for s in range(5)]
        lo[q] = [max(0, known[s] - u_out, slot.pinned[s]) for s in range(5)]
        hi[q] = [max(0, known[s] + u_in) for s in range(5)]
    return lo, hi


def _special_totals(state, o: int, others: list[int]) -> list[int]:
    """Per type, the cards held in the other players' hidden slots: every card taken and not shown is held
    by someone (hidden transfers cancel out over all players), less what ``o`` holds and what lies face up
    or publicly taken in pending areas."""
    totals = []
    for s in range(5):
        item = NUM_KINDS + s
        total = sum(state.taken[p][s] - state.shown[p][6 + s] for p in range(state.n))
        total += state.committed[o][item] if state.revealed[o] else 0
        total -= state.hands[o][item] + state.pending[o][item] + state.committed[o][item]
        total -= sum(state.pend_taken[q][s] for q in others)
        totals.append(total)
    return totals


# ---------------------------------------------------------------------- population cards (step 3)
def _unknown_population(state, o: int, slots: dict[int, _Slots]) -> list[int]:
    """Per kind, the population cards ``o`` cannot locate: all cards less its own, the discard pile,
    revealed cards, the cards it gave that are still with their receiver and its looks at the nun row."""
    pool = list(KIND_COPIES)
    for where in (state.hands[o], state.pending[o], state.committed[o]):
        for k in range(NUM_KINDS):
            pool[k] -= where[k]
    for k in range(NUM_KINDS):
        pool[k] -= state.discard[k]
    for q, slot in slots.items():
        if state.revealed[q]:
            for k in range(NUM_KINDS):
                pool[k] -= state.committed[q][k]
        for k in range(NUM_KINDS):
            pool[k] -= slot.fixed[k] + slot.old_gifts[k]  # (population kinds)
    for p in range(NUN_ROW_SIZE):
        if state.peeked[o][p]:
            pool[state.nun_row[p]] -= 1
    if min(pool) < 0:
        raise AssertionError("rattus_cartus sampler: the public record and o's knowledge disagree")
    return pool


class _Deck:
    """What is public of the population deck (§3.6, §7.2): its size and, after a reshuffle, the most cards
    of each kind it can hold (``cap``: the reshuffled deck's make-up; ``None`` before any reshuffle)."""

    def __init__(self, state):
        self.size = len(state.deck)
        self.cap = list(state.reshuffle_comp) if state.reshuffles else None

    def room(self, kind: int, pool: int, nun_cap: int) -> tuple[int, int, int]:
        """What ``pool`` cards of ``kind`` (at most ``nun_cap`` of them in the nun row) can fill: of the
        nun row, of the deck, of both together."""
        nun = min(pool, max(nun_cap, 0))
        if self.cap is None:
            return nun, 0, 0
        return nun, min(pool, self.cap[kind]), min(pool, max(nun_cap, 0) + self.cap[kind])

    def fits(self, room: list[int], nun_need: int) -> bool:
        """Can ``nun_need`` nun-row positions and the deck both be filled, given the kinds' summed ``room``?
        (The supply-demand condition of the two: each alone, and both together.)"""
        nun, deck, both = room
        if self.cap is None:
            return nun >= nun_need
        return nun >= nun_need and deck >= self.size and both >= nun_need + self.size

    def draw(self, pool: list[int], rng: np.random.Generator) -> list[int]:
        """A deck of what is left of the reshuffled deck, taken out of ``pool``: one card at a time, uniformly
        among the unknown copies it may hold; in a random order."""
        left = [min(pool[k], self.cap[k]) for k in range(NUM_KINDS)]
        cards = []
        for _ in range(self.size):
            r = rng.random() * sum(left)
            kind = 0
            while r >= left[kind]:
                r -= left[kind]
                kind += 1
            left[kind] -= 1
            pool[kind] -= 1
            cards.append(kind)
        return [cards[i] for i in rng.permutation(len(cards))]


def _fill_nun_row(state, o: int, pool: list[int], deck: _Deck, rng: np.random.Generator) -> list[int]:
    """The nun row with ``o``'s looks kept and every other position drawn from ``pool`` (taken out of it),
    each kind capped by ``o``'s ``seen_outside`` count: at most ``copies - seen - looked-at`` lie there;
    every choice leaves the other positions and the deck fillable."""
    looked = [p for p in range(NUN_ROW_SIZE) if state.peeked[o][p]]
    seen = state.seen_now(o)
    cap = [KIND_COPIES[k] - seen[k] - sum(1 for p in looked if state.nun_row[p] == k) for k in range(NUM_KINDS)]
    unlooked = [p for p in range(NUN_ROW_SIZE) if p not in looked]
    nun_row = list(state.nun_row)
    for index, p in enumerate(unlooked):
        need = len(unlooked) - index - 1
        rooms = [deck.room(k, pool[k], cap[k]) for k in range(NUM_KINDS)]
        total_room = [sum(column) for column in zip(*rooms)]
        choices = [k for k in range(NUM_KINDS) if pool[k] and cap[k] > 0]
        weights = []
        for k in choices:  # the room left once a card of kind k lies here
            after = deck.room(k, pool[k] - 1, cap[k] - 1)
            ok = deck.fits([t - r + a for t, r, a in zip(total_room, rooms[k], after)], need)
            weights.append(pool[k] if ok else 0)
        total = sum(weights)
        if total <= 0:
            raise AssertionError("rattus_cartus sampler: the nun row cannot be filled")
        r = rng.random() * total
        for k, w in zip(choices, weights):
            r -= w
            if r < 0:
                break
        pool[k] -= 1
        cap[k] -= 1
        nun_row[p] = k
    return nun_row


# ---------------------------------------------------------------------- one player's cards (step 2)
def _lay_out(state, q: int, slot: _Slots, specials: list[int], rest: list[int], cursor: int,
             rng: np.random.Generator) -> int:
    """Player ``q``'s hand, unrevealed committed cards and pending cards: what ``o`` pinned and the special
    cards (:func:`_place_specials`), population cards from ``rest`` (from ``cursor``) in the remaining spots
    and as the drawn pending cards. Returns the new cursor."""
    new_hand, new_committed, new_pending = [0] * NUM_ITEMS, [0] * NUM_ITEMS, [0] * NUM_ITEMS
    for item in range(NUM_ITEMS):
        new_pending[item] += slot.fixed[item]
    for s in range(5):
        new_pending[NUM_KINDS + s] += state.pend_taken[q][s]
    content, free_spots = _place_specials(slot, specials, rng)
    filler = len(free_spots) + slot.drawn
    pops = rest[cursor:cursor + filler]
    for item, spot in zip(pops, free_spots):
        content[spot] = item
    for item in pops[len(free_spots):]:  # the drawn pending cards
        new_pending[item] += 1
    for (where, _), item in content.items():
        (new_hand if where == "h" else new_committed if where == "c" else new_pending)[item] += 1
    state.hands[q] = new_hand
    if not state.revealed[q]:
        state.committed[q] = new_committed
    state.pending[q] = new_pending
    return cursor + filler


def _place_specials(slot: _Slots, specials: list[int], rng: np.random.Generator) -> tuple[dict, list]:
    """The hidden spots (``("h", i)`` hand, ``("c", i)`` committed, ``("b", i)`` free hidden pending) of the
    special cards and old gifts: old Pass and Gold gifts in hand, then the other Pass and Gold in hand or free
    hidden pending, old gifts in hand or committed, jokers, Swords and Flutes anywhere. Returns the spots'
    contents and the spots left, in a random order."""
    units = [s for s in range(5) for _ in range(specials[s] - slot.pinned[s])]
    pg = [NUM_KINDS + s for s in units if s in (_PASS, _GOLD)]
    jsf = [NUM_KINDS + s for s in units if s not in (_PASS, _GOLD)]
    old_pg = [item for item in _PG_ITEMS for _ in range(slot.old_gifts[item])]
    gifts = [item for item in range(NUM_ITEMS) if item not in _PG_ITEMS for _ in range(slot.old_gifts[item])]
    h, c, b = slot.hand - len(old_pg), slot.committed, slot.free_hidden
    in_hand_low, in_hand_high = max(0, len(pg) - b), min(len(pg), h, h + c - len(gifts))
    pg_in_hand = in_hand_low + int(rng.random() * (in_hand_high - in_hand_low + 1))
    hand_spots = [("h", i) for i in rng.permutation(slot.hand).tolist()]
    hidden_spots = [("b", i) for i in rng.permutation(b).tolist()]
    in_hand = len(old_pg) + pg_in_hand
    content = dict(zip(hand_spots[:in_hand] + hidden_spots[:len(pg) - pg_in_hand], old_pg + pg))
    hand_spots, hidden_spots = hand_spots[in_hand:], hidden_spots[len(pg) - pg_in_hand:]
    hc = hand_spots + [("c", i) for i in range(c)]
    hc = [hc[i] for i in rng.permutation(len(hc))]
    content.update(zip(hc, gifts))
    rest_spots = hc[len(gifts):] + hidden_spots
    rest_spots = [rest_spots[i] for i in rng.permutation(len(rest_spots))]
    content.update(zip(rest_spots, jsf))
    return content, rest_spots[len(jsf):]


def _feasible(others, lo, hi, totals, room, pg_room) -> bool:
    """Is there an allocation x[q][s] in [lo, hi] with sum over q = totals[s], at most room[q] cards per
    player and at most pg_room[q] Pass and Gold? (max-flow after taking the lower bounds out)."""
    totals = list(totals)
    room = dict(room)
    pg_room = dict(pg_room)
    for q in others:
        for s in range(5):
            if lo[q][s] > hi[q][s]:
                return False
            totals[s] -= lo[q][s]
        room[q] -= sum(lo[q])
        pg_room[q] -= lo[q][_PASS] + lo[q][_GOLD]
        if room[q] < 0 or pg_room[q] < 0:
            return False
    if min(totals) < 0:
        return False
    need = sum(totals)
    if need == 0:
        return True
    # nodes: 0 source, 1..5 types, then per player (all, pg), sink last
    index = {}
    for q in others:
        index[q] = (6 + 2 * len(index), 7 + 2 * len(index))
    sink = 6 + 2 * len(others)
    size = sink + 1
    capacity = [[0] * size for _ in range(size)]
    for s in range(5):
        capacity[0][1 + s] = totals[s]
        for q in others:
            node_all, node_pg = index[q]
            capacity[1 + s][node_pg if s in (_PASS, _GOLD) else node_all] = hi[q][s] - lo[q][s]
    for q in others:
        node_all, node_pg = index[q]
        capacity[node_pg][node_all] = pg_room[q]
        capacity[node_all][sink] = room[q]
    flow = 0
    while True:
        parent = [-1] * size
        parent[0] = 0
        queue = [0]
        for u in queue:
            for v in range(size):
                if parent[v] < 0 and capacity[u][v] > 0:
                    parent[v] = u
                    queue.append(v)
        if parent[sink] < 0:
            break
        push, v = need, sink
        while v:
            push = min(push, capacity[parent[v]][v])
            v = parent[v]
        v = sink
        while v:
            capacity[parent[v]][v] -= push
            capacity[v][parent[v]] += push
            v = parent[v]
        flow += push
    return flow == need


# ====================================================================== tokens and buildings
def _resample_tokens(state, o: int, others: list[int], rng: np.random.Generator) -> None:
    game = state.game
    if game.uniform_tokens or not game.finite:
        return
    pool = sorted(game.point_token_values)
    for v in state.tokens[o]:
        pool.remove(v)
    pool = [pool[i] for i in rng.permutation(len(pool))]
    cursor = 0
    for q in others:
        count = len(state.tokens[q])
        state.tokens[q] = sorted(pool[cursor:cursor + count])
        cursor += count
    state.token_supply = sorted(pool[cursor:])


def _resample_buildings(state, rng: np.random.Generator) -> None:
    game = state.game
    known = state.repl[:state.repl_known]
    unseen_count = len(state.bdeck) + len(state.repl) - state.repl_known
    if game.building_set_public:
        unseen = sorted(state.bdeck + state.repl[state.repl_known:])
    else:
        seen = set(state.used + state.row + known)
        unseen = []
        for cls in range(NUM_CLASSES):
            options = [2 * cls, 2 * cls + 1]
            if game.num_players == 2 and game.exclude_watchtower_2p and WATCHTOWER in options:
                options = [CASTLE]
            seen_here = [card for card in seen if BUILDING_CLASS[card // 5] == cls]
            missing = 5 - len(seen_here)
            if game.building_selection == "random_building_per_class":
                if seen_here:
                    building = seen_here[0] // 5
                else:
                    building = options[int(rng.random() * len(options))]
                candidates = [building * 5 + c for c in range(COPIES_PER_BUILDING)]
            else:
                candidates = [b * 5 + c for b in options for c in range(COPIES_PER_BUILDING)]
            candidates = [card for card in candidates if card not in seen]
            chosen = sorted(candidates[i] for i in rng.permutation(len(candidates))[:missing])
            unseen += chosen
        state.building_set = sorted(list(seen) + unseen)
    assert len(unseen) == unseen_count
    order = [unseen[i] for i in rng.permutation(len(unseen))]
    state.bdeck = order[:len(state.bdeck)]
    state.repl = known + order[len(state.bdeck):]
