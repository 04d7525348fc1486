"""What one ``apply`` changed, as codes the observer replays (a leaf module).

``state.changes`` lists ``(code, seat, index)`` entries for every change of the per-seat records the
observation shows, except the start player, the special-action player and the phase, and for everything
that changes the cards a seat has located outside the nun row (``seen_now``: only HAND, PENDING and LOCATED
entries do; a reshuffle does not, its maxima are recorded before the discard pile goes, nor does step c).
The decision and its context the observer compares itself; the game block (round, phase, start player,
decks, discard pile, supplies, clock, players entered) only when an entry says it may have changed: GAME,
or LOCATED, INFLUENCE, TOKENS, TAKEN and HOLDINGS, which imply it; ENTER and DECK name the one value of it
they change. An entry names a place, never a
delta: the observer reads the current values there, so repeats and reordering are harmless.
"""

from __future__ import annotations

#: ``hands[seat][index]`` changed (and ``hand_size[seat]``: every hand change is listed).
HAND = 0
#: ``pending[seat][index]`` changed.
PENDING = 1
#: A D4 commit moved one card of item ``index`` from ``hands[seat]`` to ``committed[seat]`` (hand size too).
COMMIT = 2
#: Step c (§3.4.9) for ``seat``: its pending cards joined its hand, its committed cards (revealed) went to
#: the discard pile; this changes nothing anybody locates outside the nun row (§7.5 item 4).
HOLDINGS = 3
#: ``gifts[seat][index]`` (the giver's record of cards given to seat ``index``) changed.
GIFTS = 4
#: ``gift_flag[other][seat]`` may have been set for every other seat (``seat`` gave hidden cards).
GIFT_FLAGS = 5
#: Cards of kind ``index`` became located by every seat: discarded, or revealed by ``seat``.
LOCATED = 6
#: ``tokens[seat]`` may have changed.
TOKENS = 7
#: ``revealed[seat]`` or ``last_reveal[seat]`` changed.
REVEAL = 8
#: ``taken[seat][index]`` changed.
TAKEN = 9
#: ``shown[seat][index]`` changed.
SHOWN = 10
#: ``level[seat][index]`` and ``stamp[seat][index]`` changed (and the clock).
INFLUENCE = 11
#: ``seat`` looked at nun-row position ``index`` (``peeked``, ``peek_count``).
PEEK = 12
#: ``rats[seat]`` changed.
RATS = 13
#: ``seat``'s supply slot, entered slot, entry position or order, Pass cards played or announcement changed.
TURN = 14
#: ``seat`` chose its supply slot (the one part of TURN that changed).
SUPPLY_SLOT = 15
#: ``seat`` entered a slot: entered slot, entry position and order, and the players entered.
ENTER = 16
#: ``seat`` announced its committed count.
ANNOUNCE = 17
#: ``seat`` played a Pass card.
PASSES = 18
#: A value of the game block may have changed: a draw (deck, reshuffle), a special card back to its supply,
#: a new phase or round.
GAME = 19
#: Cards were drawn from the population deck without a reshuffle: the deck's size changed.
DECK = 20
