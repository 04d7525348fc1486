"""Rattus Cartus

| Import               | `from hiddenhand.envs import rattus_cartus_v0`                                   |
|----------------------|----------------------------------------------------------------------------------|
| Registered id        | `hiddenhand/rattus_cartus-v0`                                                    |
| Actions              | Discrete                                                                         |
| Parallel API         | No                                                                               |
| Manual control       | `python -m hiddenhand play rattus_cartus` (type an action name, e.g. `CARD SWORD`) |
| Agents               | `agents= ['player_0', ..., 'player_{N-1}']`, N = 2..5 (default 4)                |
| Action shape         | (1,)                                                                             |
| Action values        | Discrete(25); Discrete(49) with `population_choice="full"`                       |
| Observation shape    | (132·N + 700,): 1228 at N = 4                                                    |
| Observation values   | float32 counts and flags, [0, 1e6]; read with `policy_input="signed_log"`        |

Rattus Cartus (Åse & Henrik Berg): Europe in 1347, and the princes compete for the support of six
classes while the plague spreads. Each round 2 (2-3 players) or 3 (4-5 players) building cards are
revealed. Every player takes the supply action of one of them (draw population cards, discard rats,
look at a face-down nun-row card), then enters one building and commits cards face down; only the
number is announced. Cards committed raise influence in the building's class, cards of other classes
bring rats. Swords take half a hand from the weakest visitor, Flutes pass a rat, and each building gives
its strongest visitor a special action and the others a normal one (Farm, Brewery, Marketplace, Office,
Monastery, Hospital, Castle, Watchtower, Fortune-teller's Tent, Rat-catcher's Hut, Palace, Treasury).
After 10 / 9 / 8 / 8 rounds influence majorities (10/5/2), point tokens, hand and special-card
majorities and Gold score; then the five nun-row cards are shown and every player with more rats than
nuns dies of the plague. The rules as implemented, with every interpretation (R-A1..R-A40), are in
`docs/rattus_cartus_rules.md`.

### Arguments

``env(num_players=4, render_mode=None, max_cycles=None, illegal_action="raise", reward_mode="win_loss",
**options)``; every option is checked at construction, and an unknown name or a bad value is a
`ConfigError` (a `ValueError`) naming the option and what is allowed.

* `num_players`: 2..5.
* `render_mode`: `None`, `"ansi"` (`render()` returns the public table as text) or `"human"` (prints it).
* `max_cycles`: a safety cap on agent steps (this many times N); the default, twice a generous bound on
  a game's length, never binds (the game ends after its fixed number of rounds).
* `illegal_action`: `"raise"` (a `ValueError` naming the action, the agent and the legal actions; the
  state is untouched) or `"terminate"` (the mover gets −1, the others 0, the game ends).
* `reward_mode`: `"win_loss"` or `"score_margin"` (see Rewards).

Game options (defaults in brackets; §2.4 of the rules):

* `building_selection` ["random_cards_per_class"]: the 30 building cards: 5 of each class's 10 cards at
  random, so every building and the Pass, Flute and Gold cards occur across games (R-A4);
  `"random_building_per_class"`: one building per class, all 5 copies; `"agreed"`: `agreed_set`.
* `agreed_set` ["beginner"]: a preset from `configs/games/rattus_cartus.yaml` (`beginner`: Farm,
  Marketplace, Monastery, Castle, Tent, Palace) or a mapping building → copies, 5 per class.
* `building_set_public` [True]: random methods: the chosen cards are public; False hides them (R-A32).
* `exclude_watchtower_2p` [True]: 2 players, random methods: Castle only for Knighthood.
* `start_player` ["random"]: or a seat index (R-A5).
* `supply_table` [None: the shipped table]: the supply action of each building copy (§5, R-A40): a
  mapping in the YAML file's format or the path of a YAML file; errors name the file, entry and problem.
* `point_token_values` [20 × 1]: the value of each point token; unequal values are drawn at random and
  stay private until scoring, and need `finite_supplies` (R-A2).
* `finite_supplies` [True]: jokers, special cards and point tokens run out (R-A3).
* `rats_public` [True]: every player's rats are in every observation (R-A30).
* `population_choice` ["random"]: which card a `CARD <class>` action moves: random among the class,
  `"lowest_nun"`, or `"full"` (actions name class and nuns) (R-A31).
* `all_dead_variant` [False]: if nobody survives, the fewest rats win (§6.8, R-A29).
* `auto_resolve_forced` [False]: decisions with one legal action are played by the env (§8.3).
* `mask_known_peeks` [False]: looks at nun-row positions already known are masked while an unknown one
  remains (§8).

### Observation Space

A dict: `observation` (float32 vector) and `action_mask` (int8). Seats are relative: row 0 is the
observer, row r the player r seats to its left (clockwise). Use
`env.unwrapped.observer.layout.views(obs["observation"])` to get the blocks by name
(`layout.describe()` prints their offsets). Blocks, in order:

| block             | shape     | content                                                                  |
|-------------------|-----------|--------------------------------------------------------------------------|
| `decision`        | (11,)     | one-hot decision D1..D10 (index 0: none; §8.1)                           |
| `actor`           | (N,)      | relative seat to decide                                                  |
| `start_player`    | (N,)      | relative seat of this round's start player                               |
| `context`         | (11,)     | slot resolving (3), cards / looks / discards still due, D8 first look (5), special action flag, Watchtower t + 1 |
| `context_seats`   | (5, N)    | per seat: D5/D7 candidate, Sword winner, Sword loser, Flute winner, Watchtower victim still to give |
| `own_hand`        | (35,)     | own cards: 30 class × nuns (index class·5 + nuns), joker, Sword, Flute, Pass, Gold |
| `own_pending`     | (35,)     | own pending cards (received while a building resolves, R-A12)            |
| `own_committed`   | (35,)     | own committed cards of this round                                        |
| `own_tokens`      | (2,)      | own point tokens: number, total value                                    |
| `nun_row`         | (5, 31)   | per nun-row position: the kind seen (one-hot), known flag                |
| `seen_outside`    | (30,)     | most cards of each kind the observer could locate outside the nun row at one moment (§7.5) |
| `gifts`           | (N, 36)   | cards the observer gave each seat in hidden transfers and not shown since; flag: that seat has given hidden cards itself |
| `seats`           | (N, 49)   | per seat (public): rats, hand size, pending, committed (running count), announced, point tokens, supply slot (3), entered slot (3), entry position, entry order, passes, specials taken (5), cards shown by type (11), hidden cards in / out, committed not yet revealed, revealed, influence (6), influence ranks (6), start player, 2-player special-action player |
| `looks`           | (N, 5)    | how often each seat looked at each nun-row position                      |
| `reveals`         | (N, 35)   | cards each seat revealed this round                                      |
| `game`            | (16,)     | round, rounds, last round, phase (4), k, building deck, replacement pile, population deck, discard pile, arrival clock, reshuffles, Gold scoring, players entered |
| `row`             | (3, 21)   | per slot: building (12), copy (5), supply draw / rats / looks, present   |
| `supply`          | (7,)      | jokers, Swords, Flutes, Pass, Gold, point tokens left; unlimited flag    |
| `discard`         | (30,)     | discard pile by class × nuns                                             |
| `reshuffled_deck` | (30,)     | make-up of the newest deck formed by a reshuffle                         |
| `buildings`       | (4, 60)   | building cards (building·5 + copy): in the game, not yet revealed (both only with a public set), used, replacement-pile bottom (position + 1) |

Other players' hands and pending cards, committed cards before their building resolves, nun-row cards
the observer has not looked at, others' point-token values when unequal, others' rats with
`rats_public=False` and anything derived from a hidden building set never appear; what the observer
learned (its looks, the cards it gave or received) stays.

### Legal Actions Mask

`action_mask[a]` is 1 for the actions legal in the current decision: D1 and D3 any slot (`PASS` in D3
while holding a Pass card and somebody else has not entered, R-A10); D2 and D8 any position (the
second look of the Tent's special action differs from the first; see `mask_known_peeks`); D4 the
playable types in hand (population classes, joker, Sword, Flute) and `STOP`; D6 and D10 every type in
hand; D9 every type in hand and `STOP`; D5 and D7 the tied candidates. Agents not on turn get an
all-zero mask.

### Action Space

| ids   | action                | used by                                                    |
|-------|-----------------------|------------------------------------------------------------|
| 0-2   | `SLOT s`              | D1 supply choice, D3 enter slot s                          |
| 3-7   | `POS p`               | D2 and D8 look at nun-row position p                       |
| 8     | `PASS`                | D3                                                         |
| 9-19  | `CARD <type>`         | D4 commit, D6 / D10 give, D9 discard one card of that type (class, joker, Sword, Flute, Pass, Gold) |
| 20    | `STOP`                | end D4 or D9                                               |
| 21-24 | `TARGET +o`           | D5 / D7: the player o seats clockwise                      |

With `population_choice="full"` ids 9-38 are `CARD <class>:<nuns>` and 39-43 `CARD JOKER` .. `CARD
GOLD`, then `STOP` (44) and `TARGET` (45-48).

### Rewards

Terminal only. The final scores rank the players as §6.8 decides the winner: a survivor scores its VP
minus rats / 1000 (fewer rats break ties), a player who died of the plague −1 − rats / 1000; with
`all_dead_variant` and nobody alive, −rats + VP / 100000; with nobody alive and no variant everyone 0.
`win_loss`: a sole winner +1, everyone else −1, k players sharing the top 2/k − 1 each (so a game nobody
survives without the variant gives everyone 2/N − 1). `score_margin`: (own score − mean of the others)
/ 20. `infos` at the end hold `scores`, `winners` and `score_breakdown`: VP per item (influence per
class, point tokens, hand and special majorities, Gold), rats, the nuns in the row, survival and each
player's outcome (`win`, `shared_win`, `loss`).

### Version History

* v0: Initial release.
"""

from .rattus_cartus.env import RattusCartusEnv as raw_env


def env(**kwargs) -> raw_env:
    """The environment. Order and legality are validated by the core itself, so no wrappers are
    stacked (they would cost several times the step)."""
    return raw_env(**kwargs)


__all__ = ["env", "raw_env"]
