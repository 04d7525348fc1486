"""The incremental protocol (envs/core/incremental.py): when an observer replays, rebuilds or only views,
and that no state class can bypass the tracking."""

import copy

import numpy as np
import pytest

from hiddenhand.envs.core.incremental import IncrementalObserver, TrackedState
from hiddenhand.envs.core.layout import ObservationLayout


class Counter(TrackedState):
    """A toy state: one number that actions add to, reported as a change."""

    def __init__(self):
        super().__init__()
        self.value = 0

    def play(self, action, rng):
        self.value += action
        self.changes.append(action)

    def redeal(self, player, rng):
        self.value = int(rng.integers(100))

    legal_mask = scores = score_breakdown = to_json = render = lambda self, *args: None


class Recorder(IncrementalObserver):
    """Records what ``encode`` did; its table is the value it last heard of."""

    def __init__(self):
        super().__init__(game=None)
        self.calls = []

    @staticmethod
    def build_layout(game):
        return ObservationLayout([("value", (1,))])

    def rebuild(self, state):
        self.calls.append("rebuild")
        self.value = state.value

    def replay(self, state, changes):
        self.calls.append(("replay", list(changes)))
        self.value += sum(changes)

    def view(self, seat):
        return np.array([self.value], np.float32)


def test_one_apply_is_replayed_anything_else_is_rebuilt():
    state, observer, rng = Counter(), Recorder(), np.random.default_rng(0)
    observer.encode(state, 0)
    state.apply(3, rng)
    assert observer.encode(state, 0)[0] == 3
    observer.encode(state, 1)  # nothing changed: only a view
    state.apply(2, rng)
    state.apply(4, rng)  # two applies behind
    assert observer.encode(state, 0)[0] == 9
    state.resample_hidden(0, rng)  # a re-deal is not listed
    assert observer.encode(state, 0)[0] == state.value
    state.apply(1, rng)
    observer.invalidate()  # what the core does after restore and set_position
    observer.encode(state, 0)
    assert observer.calls == ["rebuild", ("replay", [3]), "rebuild", "rebuild", "rebuild"]


def test_a_redeal_right_after_the_observed_apply_is_not_replayed():
    """One version further on, but by a re-deal: the previous apply's changes must not be replayed."""
    state, observer, rng = Counter(), Recorder(), np.random.default_rng(1)
    state.apply(5, rng)
    observer.encode(state, 0)
    state.resample_hidden(0, rng)
    assert state.changes is None
    assert observer.encode(state, 0)[0] == state.value
    assert observer.calls == ["rebuild", "rebuild"]


def test_a_copy_of_the_observed_state_is_rebuilt():
    state, observer, rng = Counter(), Recorder(), np.random.default_rng(2)
    observer.encode(state, 0)
    twin = copy.deepcopy(state)
    twin.apply(7, rng)
    assert observer.encode(twin, 0)[0] == 7
    assert observer.calls == ["rebuild", "rebuild"]


@pytest.mark.parametrize("method", ["apply", "resample_hidden"])
def test_a_state_class_cannot_bypass_the_tracking(method):
    with pytest.raises(TypeError, match=f"overrides {method}"):
        type("Sneaky", (Counter,), {method: lambda self, *args: None})
