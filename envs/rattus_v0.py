"""Rattus

| Import               | `from hiddenhand.envs import rattus_v0`                                          |
|----------------------|----------------------------------------------------------------------------------|
| Registered id        | `hiddenhand/rattus-v0`                                                           |
| Actions              | Discrete                                                                         |
| Parallel API         | No                                                                               |
| Manual control       | `python -m hiddenhand play rattus` (type an action name, e.g. `PLACE Gallia`)    |
| Agents               | `agents= ['player_0', ..., 'player_{N-1}']`, N = 2..4 (default 4)                |
| Action shape         | (1,)                                                                             |
| Action values        | Discrete(970)                                                                    |
| Observation shape    | (931 + T,): 978 with the shipped token tables (T = 47 token types)               |
| Observation values   | float32 counts and flags, [0, 1000]; read with `policy_input="signed_log"`       |

Rattus (Åse & Henrik Berg): the Black Death crosses Europe. Players place cubes (their people) in the
regions of a map, where face-down rat tokens wait; the number placed equals the tokens there. Each turn
the player may take one of six class cards (Peasant, Merchant, Monk, Knight, Witch, King), whose ability
helps its holder and whose symbol marks the holder for the plague; then the plague piece moves, spreads
new rats to the neighbours and reveals the rats of its region: a token whose limit the cubes reach kills
the majority (M), the holders of its class symbols and everyone (A). When the rat supply is empty or the
player on turn has placed all 20 cubes, the others get a last round of abilities, the plague strikes
every region, and the most cubes on the board (palace included) win. The map adjacency and the token
table are reconstructed defaults shipped as YAML in `configs/games/`; users replace them with
`config="file.yaml"`. Rules, with every interpretation (RA-1..RA-27, AM-1..AM-5), in
`docs/rattus_rules.md`.

### Arguments

``env(num_players=4, render_mode=None, max_cycles=None, illegal_action="raise", reward_mode="win_loss",
**options)``; every option is checked at construction (`ConfigError` naming the option, the value and
what is allowed; bad game data names the file, the entry and the problem).

* `num_players`: 2..4.
* `render_mode`: `None`, `"ansi"` (the map as a table) or `"human"` (prints it).
* `max_cycles`, `illegal_action`, `reward_mode`: as for every hiddenhand env.

Game options (defaults in brackets; spec §10.7):

* `token_table` ["calibrated"]: the shipped token table: the calibrated default (AM-1) or
  `"reconstructed"` (the spec's §1.1 table).
* `config` [None]: a mapping or the path of a YAML file with any of `regions`, `adjacency`,
  `player_counts`, `constants`, `token_types`, `token_types_by_players`, each replacing the shipped
  key (RA-1, RA-2). `token_types_by_players` maps some of 2, 3, 4 to a token table used at that count
  instead of `token_types` (the shipped default has one for 2 players, AM-1); a `config` with
  `token_types` but without it drops the shipped per-count table. A file must be a regular UTF-8 file of
  at most 1 MB, safe YAML with no key given twice; its errors start with `rattus: config='<path>'`.
* `start_player` ["random"] or a seat; `plague_start` ["random"] or a region name (RA-22).
* `starting_mark_public` [True] (RA-3); `placement_optional` [False], `peasant_bonus_optional` [True]
  (RA-4); `reveal_order` ["slot"] or "random" (RA-14); `m_majority_snapshot` [True] (RA-15).
* `witch_second_token` ["other_region"] or "any_other_token"; `witch_peek_sequential` [True] (RA-7).
* `knight_may_end_at_origin` [False] (RA-11).
* `end_check_active_player_only` [True], `palace_counts_as_on_board` [True] (RA-17).
* `final_round_direction` ["counterclockwise"] or "clockwise" (RA-19, AM-4); `final_round_abilities`
  [Merchant, Monk, Witch, King]; `final_plague_order` ["plague_region_then_index"] or "index" (RA-20).
* `tie_break` ["next_player"] or "shared" (RA-21).
* `auto_resolve_forced` [False]: decisions with one legal action are played by the env (§9.1).
* `max_regular_turns` [100], `turn_cap_mode` ["score"] or "truncate" (RA-23); `no_progress_turns` [12]
  (RA-24).
* `reward` [{win: 1, loss: -1, zero_sum: False}]: `win` and `loss` finite numbers within ±1e6, `win > loss`
  (§10.4).

### Observation Space

A dict: `observation` (float32 vector) and `action_mask` (int8). Seats are relative (column i: the seat i
places clockwise of the observer; always 4 columns, absent seats 0). Blocks
(`env.unwrapped.observer.layout.views(obs)`):

| block         | shape      | content                                                                    |
|---------------|------------|----------------------------------------------------------------------------|
| `regions`     | (12, 64)   | per region: in play, plague here, tokens, cubes per seat (4), then per slot (3 × 19): present, starting mark, known by seat (4), reached its slot by that seat's Witch swap (4, AM-2), and, only if the observer knows the face: limit, #M, #A, class symbol counts (6) |
| `palace`      | (4,)       | palace cubes per seat                                                      |
| `cube_supply` | (4,)       | cubes in supply per seat                                                   |
| `seats`       | (4,)       | seat present                                                               |
| `cards`       | (6, 5)     | per card: one-hot unheld / holder seat                                      |
| `rats`        | (4,)       | rat supply, removed unseen, starting marks in the supply and among the removed |
| `revealed`    | (T,)       | revealed tokens per token type                                             |
| `phase`       | (8,)       | OPENING, MAIN, WITCH_SECOND, WITCH_DECIDE, PLAGUE_MOVE, KNIGHT_STEP, SPREAD, FINAL_ROUND |
| `flags`       | (8,)       | card taken, placed, used (6)                                               |
| `spread`      | (2,)       | new tokens still due, pending token's starting mark                        |
| `witch`       | (2, 36)    | first / second peeked token position (3·region + slot) during a Witch use  |
| `origin`      | (12,)      | plague origin during the Knight step                                       |
| `final`       | (5,)       | final round flag, ender seat                                               |
| `start_seat`  | (4,)       | start player                                                               |
| `turns`       | (2,)       | regular turns / max_regular_turns, no-progress counter (AM-5)              |
| `actor`       | (4,)       | seat to act                                                                |

Faces of tokens the observer did not peek, supply and removed faces never appear; with
`starting_mark_public=False` every mark value is 0.

### Legal Actions Mask

`action_mask[a]` is 1 for the legal actions of the current phase (spec §9.1): in `MAIN` card takes, the
placements, the abilities of held unused cards and `END` (only once placed, or when no placement is
legal, unless `placement_optional`); the Witch's second peek and swap/keep; plague moves to neighbours
in play; the Knight's second step or `STOP`; spread destinations with room; in the final round the
abilities and `END`. Agents not on turn get an all-zero mask.

### Action Space

| ids     | action                     |
|---------|----------------------------|
| 0       | `END`                      |
| 1-6     | `TAKE <card>`              |
| 7-18    | `PLACE <region>` (also the opening) |
| 19-30   | `PEASANT <region>`         |
| 31-462  | `MERCHANT <from>><to> x<m>`: 31 + (12·from + to)·3 + m − 1 |
| 463-894 | `MONK <from>:<slot>><to>`: 463 + (3·from + slot)·12 + to |
| 895-930 | `PEEK <region>:<slot>`: 895 + 3·region + slot |
| 931-932 | `SWAP`, `KEEP`             |
| 933-944 | `KING <region>`            |
| 945-956 | `MOVE <region>`            |
| 957     | `STOP` (Knight)            |
| 958-969 | `SPREAD <region>`          |

### Rewards

Terminal only. `win_loss`: a sole winner +1, everyone else −1, k co-winners 2/k − 1 (shared wins only
with `tie_break="shared"` or after a `turn_cap` / `no_progress` ending); the `reward` option changes the
values or makes them zero-sum (§10.4). `score_margin`: (own cubes − mean of the others) / 20.
`infos` at the end hold `scores`, `winners` and `score_breakdown` (`scores`, `cubes_on_board`, `palace`,
`winner`, `tie_break_applied`, `tie_priority`, `end_reason`, `regular_turns`).

### Positions

`env.unwrapped.restore(snapshot)` loads a checked snapshot: every field's type and range, every list
bounded by the game's sizes before it is read, and the invariants that tie the fields together
(docs/rattus_rules.md §10.6); a bad one raises `SnapshotError` naming the problem and changes nothing.
`env.unwrapped.set_position(seed=0, active=1, tokens={"Gallia": ["s1_pea", "?"]}, cubes={"Gallia": [2, 1, 0]},
holders={"Witch": 1})` deals with `seed` and sets up the start of a regular turn from what it is given:
`active`, `start_seat`, `cubes`, `palace`, `plague`, `holders`, `tokens` (token type ids, `"?"` for any),
`rat_supply`, `known` (faces peeked with the Witch), `regular_turns`, `no_progress` (see
`RattusGame.position`); the tokens removed unseen are always the game's count.

### Version History

* v0: Initial release.
"""

from .rattus.env import RattusEnv as raw_env


def env(**kwargs) -> raw_env:
    """The environment. Order and legality are validated by the core itself, so no wrappers are
    stacked (they would cost several times the step)."""
    return raw_env(**kwargs)


__all__ = ["env", "raw_env"]
