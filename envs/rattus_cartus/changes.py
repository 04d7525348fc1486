"""What one ``apply`` changed, as codes the observer replays (a leaf module).

``state.changes`` lists ``(code, seat, index)`` entries for the holdings an observer would otherwise have
to find by comparing long lists, and for everything that changes the cards a seat has located outside the
nun row (``seen_now``: only HAND, PENDING and LOCATED entries do; a reshuffle does not, its maxima are
recorded before the discard pile goes, nor does step c). Everything else the observer compares itself.
An entry names a place, never a delta: the observer reads the current values there, so repeats and
reordering are harmless.
"""

from __future__ import annotations

#: ``hands[seat][index]`` (and ``hand_size[seat]``) changed.
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
