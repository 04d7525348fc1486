"""The one place a game is declared: adding a game is its folder plus one :class:`GameEntry` here.

Everything that lists games reads :data:`REGISTRY`: ``hiddenhand.envs.make``, PettingZoo's registry
(``hiddenhand/<name>-v0``), ``hiddenhand.agents.load`` (the heuristic), the CLI's game choices, the
benchmark, packaging (``hiddenhand.envs.<name>`` is found by package discovery) and the contract suite
in ``tests/contract/`` (player counts, option sets, golden playthroughs). See docs/adding_a_game.md.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any


@dataclass(frozen=True)
class SearchHooks:
    """What the generic search agents may use of a game beyond the contract (all optional)."""

    #: Name of the ``State`` attribute holding the current round (enables ``horizon="round"``).
    round_attribute: str | None = None
    #: ``"module:function"`` of an evaluation ``f(state, seat)`` of a position, finished or not: every
    #: seat's expected win/loss reward in [-1, 1] as ``seat`` can judge it (enables ``value="estimate"``).
    #: Search applies it to re-dealt copies, training (``potential: evaluation``) to the true position: it
    #: must read the hidden part only as ``seat`` knows it.
    evaluation: str | None = None
    #: Per algorithm (``"ismcts"``, ``"pimc"``, ``"puct"``), option defaults that keep a move within about 200 ms
    #: on one core; anything not listed falls back to the algorithm's own defaults.
    defaults: dict[str, dict[str, Any]] = field(default_factory=dict)

    def evaluator(self) -> Callable[[Any, int], list[float]] | None:
        """The evaluation function itself (imported), or None without one."""
        if self.evaluation is None:
            return None
        module, _, name = self.evaluation.partition(":")
        return getattr(importlib.import_module(module), name)


@dataclass(frozen=True)
class GameEntry:
    """How the rest of the project finds and exercises one game.

    ``name`` is the registry key and must equal the ``Game.name`` of the game's rules engine; its env
    module is ``hiddenhand.envs.<name>_v0`` (``env()``, ``raw_env``) and its package
    ``hiddenhand.envs.<name>``.
    """

    name: str
    title: str
    #: "module:Class" of the heuristic baseline agent.
    heuristic: str
    player_counts: tuple[int, ...]
    default_players: int
    #: Player counts measured by ``python -m hiddenhand bench``.
    bench_players: tuple[int, ...]
    #: Env options the contract suite also runs (besides the defaults), one dict per set.
    option_sets: tuple[dict[str, Any], ...] = ()
    #: (env options, seed) of each golden playthrough recorded in ``tests/golden/``.
    golden: tuple[tuple[dict[str, Any], int], ...] = ()
    #: Training presets in ``configs/train/`` (the first is the default).
    train_presets: tuple[str, ...] = field(default=())
    #: Search agents' hooks and defaults (``hiddenhand.agents.search``).
    search: SearchHooks = field(default_factory=lambda: SearchHooks())
    version: int = 0

    @property
    def module_name(self) -> str:
        return f"hiddenhand.envs.{self.name}_v{self.version}"

    @property
    def env_id(self) -> str:
        """PettingZoo registry id."""
        return f"hiddenhand/{self.name}-v{self.version}"

    def module(self) -> ModuleType:
        return importlib.import_module(self.module_name)

    def heuristic_class(self) -> type:
        module, cls = self.heuristic.split(":")
        return getattr(importlib.import_module(module), cls)


REGISTRY: dict[str, GameEntry] = {entry.name: entry for entry in (
    GameEntry(
        name="david_goliath",
        title="David & Goliath",
        heuristic="hiddenhand.agents.heuristics.david_goliath:DavidGoliathHeuristic",
        player_counts=(2, 3, 4, 5, 6),
        default_players=4,
        bench_players=(2, 4, 6),
        option_sets=({"rounds": 1}, {"card_features": True, "rounds": 2}, {"trick_outlook": True, "rounds": 1}),
        golden=(({"num_players": 3, "rounds": 1}, 0),
                ({"num_players": 4, "rounds": 1, "card_features": True}, 1),
                ({"num_players": 6, "rounds": 1}, 2)),
        train_presets=("david_goliath", "david_goliath_quick", "david_goliath_2p"),
        search=SearchHooks(round_attribute="round",
                           evaluation="hiddenhand.envs.david_goliath.evaluation:evaluate",
                           defaults={"ismcts": {"iterations": 120, "horizon": "round"},
                                     "pimc": {"determinizations": 8, "horizon": "round"}}),
    ),
    GameEntry(
        name="koehandel",
        title="Koehandel Master",
        heuristic="hiddenhand.agents.heuristics.koehandel:KoehandelHeuristic",
        player_counts=(2, 3, 4, 5, 6),
        default_players=4,
        bench_players=(2, 4, 6),
        option_sets=({"overbid_mode": "reveal_and_restart", "payment_rule": "strict", "max_turns": 60},
                     {"observation_mode": "full_record", "super_koehandel": True, "money_counts": True,
                      "max_turns": 60}),
        golden=(({"num_players": 2, "max_turns": 10}, 0),
                ({"num_players": 4, "max_turns": 12}, 1),
                ({"num_players": 3, "max_turns": 8, "overbid_mode": "reveal_and_restart",
                  "observation_mode": "full_record", "super_koehandel": True}, 2),
                ({"num_players": 2}, 3),
                ({"num_players": 3}, 4)),
        train_presets=("koehandel",),
        search=SearchHooks(evaluation="hiddenhand.envs.koehandel.evaluation:evaluate",
                           defaults={"ismcts": {"iterations": 40, "horizon": 30, "redeals": 8, "value": "estimate",
                                                "rollout": "heuristic", "opponents": "policy"},
                                     "pimc": {"determinizations": 2, "horizon": 40}}),
    ),
    GameEntry(
        name="rattus_cartus",
        title="Rattus Cartus",
        heuristic="hiddenhand.agents.heuristics.rattus_cartus:RattusCartusHeuristic",
        player_counts=(2, 3, 4, 5),
        default_players=4,
        bench_players=(2, 4),
        option_sets=({"population_choice": "full", "point_token_values": list(range(1, 21)),
                      "mask_known_peeks": True},
                     {"building_selection": "random_building_per_class", "building_set_public": False,
                      "population_choice": "lowest_nun", "auto_resolve_forced": True, "rats_public": False},
                     {"building_selection": "agreed", "finite_supplies": False, "all_dead_variant": True}),
        golden=(({"num_players": 2}, 0), ({"num_players": 4}, 1),
                ({"num_players": 5, "population_choice": "full", "point_token_values": list(range(1, 21))}, 2)),
        train_presets=("rattus_cartus", "rattus_cartus_shaped"),
        search=SearchHooks(
            round_attribute="round", evaluation="hiddenhand.envs.rattus_cartus.evaluation:evaluate",
            defaults={"ismcts": {"iterations": 70, "horizon": "round", "value": "estimate", "rollout": "heuristic",
                                 "opponents": "policy"},
                      "pimc": {"determinizations": 20, "horizon": "round", "value": "estimate",
                               "rollout": "heuristic"},
                      "puct": {"iterations": 70, "c": 1.0, "leaf": "rollout", "horizon": "round", "value": "estimate",
                               "rollout": "heuristic"}}),
    ),
    GameEntry(
        name="rattus",
        title="Rattus",
        heuristic="hiddenhand.agents.heuristics.rattus:RattusHeuristic",
        player_counts=(2, 3, 4),
        default_players=4,
        bench_players=(2, 4),
        option_sets=({"placement_optional": True, "peasant_bonus_optional": False, "reveal_order": "random",
                      "witch_second_token": "any_other_token", "witch_peek_sequential": False,
                      "knight_may_end_at_origin": True, "final_round_direction": "clockwise",
                      "tie_break": "shared", "no_progress_turns": 3},
                     {"token_table": "reconstructed", "starting_mark_public": False, "auto_resolve_forced": True,
                      "m_majority_snapshot": False, "end_check_active_player_only": False,
                      "palace_counts_as_on_board": False, "final_plague_order": "index",
                      "max_regular_turns": 8, "turn_cap_mode": "truncate"}),
        golden=(({"num_players": 2}, 0), ({"num_players": 3}, 1), ({"num_players": 4}, 2)),
        train_presets=("rattus",),
        search=SearchHooks(evaluation="hiddenhand.envs.rattus.evaluation:evaluate",
                           defaults={"ismcts": {"iterations": 250, "horizon": 12, "value": "estimate",
                                                "rollout": "heuristic", "opponents": "policy"},
                                     "pimc": {"determinizations": 4, "horizon": 12, "value": "estimate",
                                              "rollout": "heuristic"}}),
    ),
    GameEntry(
        name="cow_trade",
        title="Koehandel cow trade",
        heuristic="hiddenhand.agents.heuristics.cow_trade:CowTradeHeuristic",
        player_counts=(2,),
        default_players=2,
        bench_players=(2,),
        option_sets=({"money": [4, 6, 2, 2, 1, 0, 0], "hand_sizes": [5, 4], "stake": 2, "card_value": 40},),
        golden=(({"num_players": 2}, 0), ({"num_players": 2, "money": [4, 6, 2, 2, 1, 0, 0], "hand_sizes": [5, 4],
                                          "stake": 2, "card_value": 40}, 1)),
    ),
)}


def entry(game: str) -> GameEntry:
    """The registry entry of ``game``; ``ValueError`` naming the registered games otherwise."""
    try:
        return REGISTRY[game]
    except KeyError:
        raise ValueError(f"unknown game {game!r}; registered games: {sorted(REGISTRY)}") from None
