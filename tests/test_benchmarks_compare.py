"""The comparator of benchmarks/compare.py: same code agrees; one wrong observation cell is found and named;
the option sets cover each declared flag and choice."""

from types import SimpleNamespace

import numpy as np
import pytest

from hiddenhand.benchmarks import compare
from hiddenhand.envs import koehandel_v0, rattus_v0
from hiddenhand.envs.rattus.observation import RattusObserver
from hiddenhand.envs.rattus.rules import RattusGame


class _OffByOne(RattusObserver):
    """Shows one more rat in the supply once it is down to 20."""

    def encode(self, state, player):
        out = super().encode(state, player)
        rats = self.layout.offset("rats")
        if out[rats] == 20:
            out[rats] += 1
        return out


def _wrong_env(**options):
    env = rattus_v0.env(**options)
    raw = env.unwrapped
    raw.observer = _OffByOne(raw.game)
    return env


def test_the_same_code_agrees_everywhere():
    case = compare.Case("rattus", "rattus_v0", 3, {"witch_peek_sequential": False})
    assert compare.play_case([rattus_v0, rattus_v0], case, games=2) > 100


def test_a_wrong_cell_is_named_with_its_block_and_step():
    case = compare.Case("rattus", "rattus_v0", 2, {})
    with pytest.raises(compare.Difference, match=r"step \d+: observation .* differs in block rats\[0\]: "
                                                 r"base 20.0, head 21.0"):
        compare.play_case([rattus_v0, SimpleNamespace(env=_wrong_env)], case, games=1)


def test_option_sets_flip_each_flag_and_try_each_choice():
    sets = compare.option_sets(RattusGame, ({"tie_break": "shared", "no_progress_turns": 3},))
    assert sets[:2] == [{}, {"tie_break": "shared", "no_progress_turns": 3}]
    assert {"starting_mark_public": False} in sets and {"reveal_order": "random"} in sets
    assert {"tie_break": "next_player"} not in sets  # the default is not repeated
    assert not any("max_regular_turns" in options for options in sets[2:])  # ints are left at their default


def test_every_game_declares_the_options_the_comparator_varies():
    """``make compare --game koehandel`` failed: Koehandel's options were not on its game class."""
    for module in (koehandel_v0, rattus_v0):
        sets = compare.option_sets(module.raw_env.game_class, ())
        assert sets[0] == {} and len(sets) > 5


def test_a_state_field_the_head_dropped_is_no_difference(monkeypatch):
    """Snapshots compare with the base's states as the head's ``restore`` reads them (issue 23: Koehandel's
    change counters left its state's data), and each revision restores its own snapshot."""
    base, head = (koehandel_v0.env(num_players=3) for _ in range(2))
    for env in (base, head):
        env.reset(seed=0)
    pair = compare.Pair(base, head, "koehandel")
    snapshot = base.unwrapped.snapshot

    def with_counters():
        data = snapshot()
        data["state"]["version"], data["state"]["memory"]["epoch"] = 12, 3
        return data
    monkeypatch.setattr(base.unwrapped, "snapshot", with_counters)
    old, new = pair.check_snapshot()
    assert "version" in old["state"] and "version" not in new["state"]
    monkeypatch.setattr(base.unwrapped, "snapshot", lambda: {**with_counters(), "history": [0]})
    with pytest.raises(compare.Difference, match="snapshot"):
        pair.check_snapshot()


def test_same_compares_arrays_by_dtype_and_containers_item_by_item():
    assert compare.same({"a": [np.zeros(3, np.float32)]}, {"a": [np.zeros(3, np.float32)]})
    assert not compare.same(np.zeros(3, np.float32), np.zeros(3, np.float64))
    assert not compare.same((1, 2), [1, 2]) and not compare.same(1, 1.0)


def test_a_tree_loads_under_an_alias_beside_the_installed_package():
    """benchmarks/revisions.py: the working tree imported as another package plays like the installed one."""
    import importlib

    from hiddenhand.benchmarks import revisions

    tree = revisions.source_tree(revisions.WORKTREE)
    assert revisions.package_folders(tree)["hiddenhand.envs"] == "envs"
    package = revisions.load(tree, "hiddenhand_alias_test")
    module = importlib.import_module(f"{package.__name__}.envs.rattus_v0")
    assert module.__name__ == "hiddenhand_alias_test.envs.rattus_v0" and module is not rattus_v0
    case = compare.Case("rattus", "rattus_v0", 2, {})
    assert compare.play_case([rattus_v0, module], case, games=1) > 50
    with pytest.raises(ValueError, match="already imported"):
        revisions.load(tree, "hiddenhand_alias_test")
