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

from .config import NUM_TOKENS


def resample_hidden(state, o: int, rng: np.random.Generator) -> None:
    game = state.game
    starting = game.starting_type
    known = state.known[o]
    board = sorted(t for slot in state.slots for t in slot if not known[t])
    singles = board + ([state.pending] if state.pending >= 0 else [])
    supply, removed = sorted(state.rat_supply), sorted(state.removed)
    pool = [0] * len(game.types)  # faces left to deal, by type
    for face in game.faces:
        pool[face] += 1
    for t in range(NUM_TOKENS):
        if t in state.revealed or (known[t] and t not in singles and t not in supply and t not in removed):
            pool[state.face[t]] -= 1
    start_faces = [f for f, c in enumerate(pool) if starting[f] for _ in range(c)]
    normal_faces = [f for f, c in enumerate(pool) if not starting[f] for _ in range(c)]
    start_faces = [start_faces[i] for i in rng.permutation(len(start_faces))]
    normal_faces = [normal_faces[i] for i in rng.permutation(len(normal_faces))]
    if game.starting_mark_public:
        need = [t for t in singles if starting[state.face[t]]]
        rest = [t for t in singles if not starting[state.face[t]]]
        for group in (supply, removed):
            marked = sum(starting[state.face[t]] for t in group)
            chosen = set(rng.choice(len(group), marked, replace=False).tolist()) if marked else set()
            need += [group[i] for i in sorted(chosen)]
            rest += [group[i] for i in range(len(group)) if i not in chosen]
        for t, f in zip(need, start_faces):
            state.face[t] = f
        for t, f in zip(rest, normal_faces):
            state.face[t] = f
        return
    need = [t for t in singles if state.setup_token[t]]
    others = [t for t in singles + supply + removed if t not in need]
    for t, f in zip(need, start_faces):
        state.face[t] = f
    left = start_faces[len(need):] + normal_faces
    left = [left[i] for i in rng.permutation(len(left))]
    for t, f in zip(others, left):
        state.face[t] = f
