"""What one ``apply`` changed, as the codes of the entries the engine lists in ``state.changes`` and the
observer replays (the incremental protocol, :mod:`..core.incremental`; a leaf module).

An entry ``(code, seat, index)`` names a record the observation shows, never a delta: the observer reads
the current values there, so repeats and reordering are harmless. The engine lists every change of the
per-seat records except the start player, the special-action player and the phase, and everything that
changes the cards a seat has located outside the nun row (``seen_now``: only HAND, PENDING and LOCATED
entries do; a reshuffle does not, its maxima are recorded before the discard pile goes, nor does step c).
The observer compares the rest itself: the decision and its context at every step; the phase (a new
phase, and with it a new round: every seat's turn records and reveals) and, when an entry says it may
have changed, the game block (round, decks, discard pile, supplies, clock, players entered): GAME, or
LOCATED, INFLUENCE, TOKENS, TAKEN and HOLDINGS, which imply it; ENTER and DECK name the one value of it
they change.
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
#: ``revealed[seat]`` and ``last_reveal[seat]`` changed (a reveal in step a).
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
#: ``seat`` chose its supply slot.
SUPPLY_SLOT = 14
#: ``seat`` entered a slot: entered slot, entry position and order, and the players entered.
ENTER = 15
#: ``seat`` announced its committed count.
ANNOUNCE = 16
#: ``seat`` played a Pass card.
PASSES = 17
#: A value of the game block may have changed within a phase: a reshuffle, a special card back to its
#: supply.
GAME = 18
#: Cards were drawn from the population deck without a reshuffle: the deck's size changed.
DECK = 19
