"""Rattus re-deal for search (spec §8, AM-3): every token face the observer does not know is dealt anew.

Unknown tokens are the face-down ones on the board the observer never peeked, the pending spread token,
the rat supply and the tokens removed unseen. Their faces come from the token table minus the revealed
faces minus the faces the observer knows, in canonical (type) order, so the result depends only on the
observer's information and ``rng``. Public marks are kept (RA-3): each board and pending token keeps
its starting mark, and the supply and the removed set keep their number of starting-marked tokens;
without public marks, only the tokens placed at setup must keep starting faces. Ids, slots and every
player's known-id sets stay; other players' knowledge then refers to the new faces. A deal always
exists (the true one), and it is built directly, so the sampler never gives up.
"""

from __future__ import annotations

import numpy as np


def resample_hidden(state, o: int, rng: np.random.Generator) -> None:
    known = state.known[o]
    board = sorted(t for slot in state.slots for t in slot if not known[t])
    singles = board + ([state.pending] if state.pending >= 0 else [])
    supply, removed = sorted(state.rat_supply), sorted(state.removed)
    start_faces, normal_faces = _unknown_faces(state, known, rng)
    if state.game.starting_mark_public:
        _deal_by_marks(state, singles, (supply, removed), start_faces, normal_faces, rng)
    else:
        _deal_by_setup(state, singles, supply + removed, start_faces, normal_faces, rng)


def _unknown_faces(state, known: list[bool], rng: np.random.Generator) -> tuple[list[int], list[int]]:
    """The faces ``o`` has not seen (the table's, less the revealed ones and those of the board tokens it
    knows), starting and normal ones apart, each in canonical order and then shuffled."""
    game = state.game
    pool = [tt.count for tt in game.types]
    revealed = set(state.revealed)
    seen = revealed.union(t for slot in state.slots for t in slot if known[t])
    for t in seen:
        pool[state.face[t]] -= 1
    starting = game.starting_type
    start_faces = [f for f, c in enumerate(pool) if starting[f] for _ in range(c)]
    normal_faces = [f for f, c in enumerate(pool) if not starting[f] for _ in range(c)]
    return ([start_faces[i] for i in rng.permutation(len(start_faces))],
            [normal_faces[i] for i in rng.permutation(len(normal_faces))])


def _deal_by_marks(state, singles: list[int], groups, start_faces: list[int], normal_faces: list[int],
                   rng: np.random.Generator) -> None:
    """Public marks: a marked single token gets a starting face, and each group (the supply, the removed
    set) as many starting faces as it has marked tokens, on tokens drawn at random."""
    starting = state.game.starting_type
    need = [t for t in singles if starting[state.face[t]]]
    rest = [t for t in singles if not starting[state.face[t]]]
    for group in groups:
        marked = sum(starting[state.face[t]] for t in group)
        chosen = set(rng.choice(len(group), marked, replace=False).tolist()) if marked else set()
        need += [group[i] for i in sorted(chosen)]
        rest += [group[i] for i in range(len(group)) if i not in chosen]
    for t, f in zip(need, start_faces):
        state.face[t] = f
    for t, f in zip(rest, normal_faces):
        state.face[t] = f


def _deal_by_setup(state, singles: list[int], off_board: list[int], start_faces: list[int], normal_faces: list[int],
                   rng: np.random.Generator) -> None:
    """Hidden marks: the tokens placed at setup get starting faces; every other unknown token a face drawn
    from the rest."""
    need = [t for t in singles if state.setup_token[t]]
    others = [t for t in singles + off_board if t not in need]
    for t, f in zip(need, start_faces):
        state.face[t] = f
    left = start_faces[len(need):] + normal_faces
    left = [left[i] for i in rng.permutation(len(left))]
    for t, f in zip(others, left):
        state.face[t] = f
