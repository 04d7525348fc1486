"""Rattus Cartus as text: the public table, plus one seat's private view with ``viewer``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .cards import CLASS_NAMES, NUM_ITEMS, building_card_name, item_name, kind_name
from .decisions import DECISION_NAMES, PHASE_NAMES

if TYPE_CHECKING:
    from .rules import RattusCartusState


def _holding(counts: list[int]) -> str:
    parts = [f"{counts[i]}x{item_name(i)}" if counts[i] > 1 else item_name(i) for i in range(NUM_ITEMS) if counts[i]]
    return " ".join(parts) or "-"


def render(state: RattusCartusState, viewer: int | None = None) -> str:
    lines = _table(state) + [_seat_line(state, p, viewer) for p in range(state.n)]
    if state.is_terminal and state.result is not None:
        lines += _result_lines(state)
    if viewer is not None:
        lines += _private_lines(state, viewer)
    return "\n".join(lines)


def _table(state: RattusCartusState) -> list[str]:
    """The round and decision, the row, the piles and supplies, the influence tracks."""
    game, n = state.game, state.n
    rnd = min(state.round + 1, game.rounds)
    lines = [f"round {rnd}/{game.rounds}{' (last)' if rnd == game.rounds and not state.is_terminal else ''}  "
             f"phase {PHASE_NAMES[state.phase]}  start player_{state.start}  "
             f"decision {DECISION_NAMES[state.decision]}"
             + (f" by player_{state.current_player}" if state.current_player >= 0 else "")]
    row = "  ".join(f"[{s}] {building_card_name(c)} (draw {d}, rats -{r}, look {q}) entrants "
                    + (",".join(f"p{p}" for p in state.entrants[s]) or "-")
                    for s, c in enumerate(state.row)
                    for d, r, q in [game.supply_action[c]])
    lines.append(f"row: {row or '-'}")
    lines.append(f"building deck {len(state.bdeck)}  replacement pile {len(state.repl)}  population deck "
                 f"{len(state.deck)}  discard {sum(state.discard)}  supply joker/sword/flute/pass/gold "
                 f"{'/'.join(map(str, state.supply)) if game.finite else 'unlimited'}  point tokens "
                 f"{len(state.token_supply) if game.finite else 'unlimited'}")
    lines.append("influence: " + "  ".join(
        f"{CLASS_NAMES[c]} " + ",".join(f"p{p}={state.level[p][c]}" for p in range(n) if state.level[p][c])
        for c in range(6) if any(state.level[p][c] for p in range(n))))
    return lines


def _seat_line(state: RattusCartusState, p: int, viewer: int | None) -> str:
    """Seat ``p``'s public line (rats only if public or the viewer's, R-A30)."""
    rats = state.rats[p] if state.game.rats_public or p == viewer else "?"
    entered = state.entered[p]
    committed = sum(state.committed[p])
    status = (f"in slot {entered} pos {state.entry_pos[p] + 1}, {committed} cards"
              + (" revealed: " + _holding(state.committed[p]) if state.revealed[p] and committed else "")
              if entered >= 0 else "not entered")
    return (f"player_{p}: rats {rats}  hand {state.hand_size[p]}  pending {sum(state.pending[p])}  "
            f"tokens {len(state.tokens[p])}  passes {state.passes[p]}  {status}  looks "
            + ",".join(str(c) for c in state.peek_count[p]))


def _result_lines(state: RattusCartusState) -> list[str]:
    """The nun row and every seat's outcome (§6.7, §6.8)."""
    result = state.result
    lines = [f"nun row: {' '.join(kind_name(k) for k in state.nun_row)} = {result['nuns_in_row']} nuns"]
    for p in range(state.n):
        lines.append(f"player_{p}: {result['vp'][p]} VP, {result['rats'][p]} rats, "
                     f"{'survived' if result['survived'][p] else 'died of the plague'}: {result['outcome'][p]}")
    return lines


def _private_lines(state: RattusCartusState, viewer: int) -> list[str]:
    """What only ``viewer`` sees (§7.1): its cards, its looks, its point-token values."""
    lines = [f"your hand (player_{viewer}): {_holding(state.hands[viewer])}"]
    if any(state.pending[viewer]):
        lines.append(f"your pending cards: {_holding(state.pending[viewer])}")
    if any(state.committed[viewer]):
        lines.append(f"your committed cards: {_holding(state.committed[viewer])}")
    looks = [f"{q}={kind_name(state.nun_row[q])}" for q in range(5) if state.peeked[viewer][q]]
    lines.append("nun row you looked at: " + (" ".join(looks) or "-"))
    if not state.game.uniform_tokens:
        lines.append(f"your point tokens: {state.tokens[viewer]}")
    return lines
