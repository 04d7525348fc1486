"""Rattus text rendering: the map as a table (spec §2, §8). Without ``viewer`` only public information;
with ``viewer``, plus the faces that seat knows. Reads the state duck-typed."""

from __future__ import annotations

from .config import CARDS, CLASSES
from .decisions import END_REASONS, OVER, PHASE_NAMES
from .scoring import final_scores


def _face(tt) -> str:
    symbols = ["M"] * tt.m + [CLASSES[c][:3].title() for c, k in enumerate(tt.classes) for _ in range(k)] + ["A"] * tt.a
    return f"{tt.limit}:{'+'.join(symbols)}"


def _token(state, tid: int, viewer: int | None) -> str:
    """One face-down token: its mark, its face if ``viewer`` knows it, who knows it (k) and who swapped it (w)."""
    game = state.game
    mark = "S" if game.starting_mark_public and game.starting_type[state.face[tid]] else ""
    face = _face(game.types[state.face[tid]]) if viewer is not None and state.known[viewer][tid] else "?"
    who = "".join(str(q) for q in range(state.n) if state.known[q][tid])
    swapper = state.swapped_by[tid]
    return f"[{mark}{face}{' k' + who if who else ''}{' w' + str(swapper) if swapper >= 0 else ''}]"


def _status(state) -> str:
    """The result once over, else the phase, the player on turn and a pending spread token."""
    game = state.game
    if state.phase == OVER:
        reason = END_REASONS[state.end_reason] if state.end_reason >= 0 else "?"
        return f"game over ({reason}); scores {final_scores(state)}; winners {state.winners()}"
    extra = ""
    if state.pending >= 0:
        mark = "S" if game.starting_mark_public and game.starting_type[state.face[state.pending]] else ""
        extra = f", pending token {mark}? ({state.spread_due} due)"
    return f"phase {PHASE_NAMES[state.phase]}, player P{state.current_player}{extra}"


def render(state, viewer: int | None = None) -> str:
    game, n = state.game, state.n
    width = max(len(name) for name in game.regions) + 1
    lines = [f"{'region':<{width}} {'tokens (S = starting mark, ? = unknown face)':<44} "
             + " ".join(f"P{p:<3}" for p in range(n))]
    for r in game.in_play:
        tokens = " ".join(_token(state, tid, viewer) for tid in state.slots[r])
        plague = "*" if state.plague == r else " "
        lines.append(f"{plague}{game.regions[r]:<{width - 1}} {tokens:<44} "
                     + " ".join(f"{state.cubes[r][p]:<4}" for p in range(n)))
    lines.append(f"{'palace':<{width}} {'':<44} " + " ".join(f"{v:<4}" for v in state.palace))
    lines.append(f"{'supply':<{width}} {'':<44} " + " ".join(f"{v:<4}" for v in state.supply))
    cards = ", ".join(f"{CARDS[k]}: {'pool' if h < 0 else 'P' + str(h)}" for k, h in enumerate(state.holder))
    lines.append(f"cards: {cards}")
    marks = game.starting_mark_public
    start_supply = sum(game.starting_type[state.face[t]] for t in state.rat_supply) if marks else "?"
    lines.append(f"rat supply {len(state.rat_supply)} (starting {start_supply}), removed unseen "
                 f"{len(state.removed)}, revealed {len(state.revealed)}; regular turns {state.regular_turns}, "
                 f"no progress {state.no_progress}")
    lines.append(_status(state))
    if viewer is not None:
        lines.append(f"you are P{viewer}")
    return "\n".join(lines)
