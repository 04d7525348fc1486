"""Contract (issue 23): every registered game has a readable specification of its fast path,
``hiddenhand.envs.<game>.reference`` with ``observation(state, seat)`` and ``legal_mask(state)``, and the
fast path equals it exactly: every seat's observation and the mask at every step of seeded random games,
after ``restore``, after ``set_position`` and in re-dealt copies. ``env(observer="reference")`` plays a
game on the reference (observation and mask) exactly as the fast env plays it."""

import numpy as np
import pytest

from contract_cases import CASES, GAME_CASES, play_random, played, trace
from hiddenhand.envs import make
from hiddenhand.envs.core.reference import ReferenceObserver, reference_module
from hiddenhand.envs.registry import REGISTRY


def reference_of(game: str):
    module = reference_module(REGISTRY[game].module().raw_env.observer_class)
    if module is None:
        pytest.fail(f"{game} has no reference module: write envs/{game}/reference.py with observation(state, seat) "
                    f"and legal_mask(state) (docs/adding_a_game.md, 'The reference module')")
    return module


def assert_fast_equals_reference(env, reference, where: str) -> None:
    """Every seat's observation (through ``observe``, in a shuffled seat order so that observer caches are
    exercised out of turn) and the mask of the player to move, fast == reference, bit for bit."""
    raw = env.unwrapped
    state, layout = raw.state_, raw.observer.layout
    order = np.random.default_rng(len(raw.history)).permutation(len(env.possible_agents))
    for seat in order.tolist():
        fast = env.observe(env.possible_agents[seat])["observation"]
        plain = reference.observation(state, seat)
        assert isinstance(plain, np.ndarray) and plain.dtype == fast.dtype and plain.shape == fast.shape, \
            f"{where}: the reference observation is {type(plain).__name__} {getattr(plain, 'dtype', '')}" \
            f"{getattr(plain, 'shape', '')}, the fast one {fast.dtype}{fast.shape}"
        if not np.array_equal(fast, plain):
            blocks = [name for name in layout.shapes
                      if not np.array_equal(layout.view(fast, name), layout.view(plain, name))]
            pytest.fail(f"{where}: seat {seat}'s observation differs from the reference in block(s) {blocks}")
    if not raw._game_over:
        fast, plain = state.legal_mask(), reference.legal_mask(state)
        assert plain.dtype == np.int8 and plain.shape == fast.shape, f"{where}: reference mask {plain.dtype}{plain.shape}"
        if not np.array_equal(fast, plain):
            pytest.fail(f"{where}: the mask differs from the reference at actions "
                        f"{np.flatnonzero(fast != plain).tolist()[:20]}")


def check_each_step(reference, label: str):
    return lambda env, *_: assert_fast_equals_reference(env, reference, f"{label} step {len(env.unwrapped.history)}")


@pytest.mark.parametrize("game,options", CASES)
def test_the_fast_path_equals_the_reference_at_every_step(game, options):
    reference = reference_of(game)
    env = make(game, **options)
    env.reset(seed=11)
    play_random(env, 11, each_step=check_each_step(reference, "random game"))
    assert_fast_equals_reference(env, reference, "the finished game")


@pytest.mark.parametrize("game,options", CASES)
def test_the_fast_path_equals_the_reference_after_restore_set_position_and_redeals(game, options):
    reference = reference_of(game)
    source = played(game, options, 12, steps=35)
    target = played(game, options, 13, steps=20)
    target.observe(target.agent_selection)  # warm caches the restore must drop
    target.unwrapped.restore(source.unwrapped.snapshot())
    assert_fast_equals_reference(target, reference, "after restore")
    play_random(target, 14, steps=12, each_step=check_each_step(reference, "after restore"))
    target.unwrapped.set_position(seed=15)
    assert_fast_equals_reference(target, reference, "after set_position")
    play_random(target, 15, steps=12, each_step=check_each_step(reference, "after set_position"))
    for seat, agent in enumerate(source.possible_agents):
        copy = source.unwrapped.determinize(agent, seed=seat)
        assert_fast_equals_reference(copy, reference, f"in {agent}'s re-dealt copy")
        play_random(copy, seat, steps=10, each_step=check_each_step(reference, f"in {agent}'s re-dealt copy"))


@pytest.mark.parametrize("game,options", GAME_CASES)
def test_a_game_played_on_the_reference_is_the_fast_game(game, options):
    """``observer="reference"``: observations and masks from the reference module, same spaces, same play."""
    reference_of(game)
    plain = make(game, observer="reference", **options)
    fast = make(game, **options)
    assert isinstance(plain.unwrapped.observer, ReferenceObserver)
    assert plain.observation_space("player_0") == fast.observation_space("player_0")
    plain.reset(seed=3)
    fast.reset(seed=3)
    assert trace(plain, 3) == trace(fast, 3)
    copy = plain.unwrapped.determinize("player_0", seed=1)
    assert isinstance(copy.observer, ReferenceObserver) and copy.observer is not plain.unwrapped.observer


def test_observer_reference_is_refused_for_a_game_without_a_reference_module(monkeypatch):
    from hiddenhand.envs.core import reference
    from hiddenhand.envs.core.options import ConfigError

    monkeypatch.setattr(reference, "reference_module", lambda observer_class: None)
    with pytest.raises(ConfigError, match="observer='reference' is not allowed; david_goliath has no reference"):
        make("david_goliath", observer="reference")


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_registered_game_has_a_reference_module(name):
    module = reference_of(name)
    assert module.__name__ == f"hiddenhand.envs.{name}.reference"
    assert callable(module.observation) and callable(module.legal_mask)
