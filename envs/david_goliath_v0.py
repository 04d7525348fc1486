"""David & Goliath

| Import               | `from hiddenhand.envs import david_goliath_v0`              |
|----------------------|-------------------------------------------------------------|
| Registered id        | `hiddenhand/david_goliath-v0`                               |
| Actions              | Discrete                                                    |
| Parallel API         | No                                                          |
| Manual control       | `python -m hiddenhand play david_goliath`                   |
| Agents               | `agents= ['player_0', ..., 'player_{N-1}']`, N = 2..6 (default 4) |
| Action shape         | (1,)                                                        |
| Action values        | Discrete(90)                                                |
| Observation shape    | (198·S + 201,), S table seats (N; 3 for two players, DG-5): 993 at N = 4 |
| Observation values   | [0, max(1.75, rounds·1.75)]; only tallies and scores exceed 1 |

Rules: docs/david_goliath_rules.md (the §s and DG- ids the code cites).

A trick-taking game (Reinhard Staupe): the lowest card of a trick ("David") takes the highest card
("Goliath"), and the highest card takes all the others. A colour scores face value only while a
player took one or two cards of it, one point per card from the third on. 5 colours x values 1..3N,
15 cards each, 15 tricks a round, N rounds by default.

Two players (DG-5) play the **dummy variant** by default: the 3-player deck (values 1..9), 15 cards to
each player and 15 to a dummy third seat (seat order player_0, player_1, dummy). The dummy plays a
uniformly random legal card from the env's RNG whenever its turn comes, inside `step`; it is not an agent
(not in `agents`, no observation or reward), its taken cards score for nobody, it leads at once after
taking a trick, the dealer alternates between the two players and rounds default to 2. Its hand is
hidden from both players and `determinize` re-deals it with the opponent's. The literal two-player game
(`two_player_variant="literal"`) has no decisions that matter (each player always takes the other's
card) and is kept for tests.

### Arguments

``env(num_players=4, rounds=None, card_features=False, trick_outlook=False, two_player_variant=None, colours=5,
max_value=None, hand_size=15, render_mode=None, max_cycles=None, illegal_action="raise", reward_mode="win_loss",
observer="fast")``

* `num_players`: 2..6.
* `two_player_variant`: two players only: `"dummy"` (the default for two) or `"literal"` (DG-5); `None`
  means the default and is the only value allowed for three or more players.
* `rounds`: rounds in a game, an int 1..100; `None` (default) means `num_players` (DG-4).
* `card_features`: `True` adds the `card_features` block (below), per-card channels that spell out what
  the rest of the observation implies; it helps learning and costs some env speed.
* `trick_outlook`: `True` adds the `trick_outlook` block (below): for each legal card, what the current
  trick would likely do to every seat's round score, estimated the way the heuristic plays (12 completions
  of the trick from the cards the observer has not seen, drawn from a generator seeded by public counters,
  so the same position always gives the same block); about 0.2 ms a step.
* `colours`, `max_value`, `hand_size`: a smaller deck, for exact analysis (`hiddenhand.openspiel`'s tiny
  configuration, docs/openspiel.md): the first `colours` colours × values 1..`max_value` (None: 3 per
  table seat), every card dealt, `hand_size` to each table seat (so as many tricks a round); their
  product must match. The observation keeps its shape.

A bad or unknown option raises `ConfigError` (a `ValueError`) naming the option, the value and what is
allowed.
* `max_cycles`: truncate after this many cycles (one action per player); default twice the game length.
* `illegal_action`: `"raise"` (a `ValueError` naming the action, the agent and the legal actions; the
  state is untouched) or `"terminate"` (the mover gets −1, the others 0, the game ends).
* `reward_mode`: `"win_loss"` or `"score_margin"` (see Rewards).
* `observer`: `"fast"`, or `"reference"` to play on `envs/david_goliath/reference.py`, the plain
  specification of the observation and the mask (slow; identical results).

### Observation Space

A dict: `observation` (float32 vector) and `action_mask` (int8, 90). Blocks, in order; the `N` in the
shapes is the number of table seats (the players, plus the dummy in the two-player dummy variant), and
seats are relative: seat 0 is the observer, seat k the seat k places clockwise of it. Use
`env.unwrapped.observer.layout.views(obs)` to get them by name.

| block            | shape     | content                                                          |
|------------------|-----------|------------------------------------------------------------------|
| `hand`           | (90,)     | own cards (card id = colour·18 + value − 1; colours R,Y,G,B,P)    |
| `trick`          | (N, 90)   | current trick, one-hot card per play-order position              |
| `trick_leader`   | (N,)      | relative seat that led the trick; position k was played by leader+k |
| `led_colour`     | (5,)      | colour of the first card of the trick                            |
| `dealer`         | (N,)      | relative seat of this round's dealer                             |
| `trick_number`   | (15,)     | tricks already played this round (one-hot)                       |
| `round_progress` | (1,)      | rounds completed / rounds                                        |
| `seats`          | (N, 106)  | per relative seat: cards taken this round (90), revealed voids (5), cards taken per colour / 15 (5), current score of each colour / 35 (5), total score / 100 (1; 0 for the dummy) |
| `unseen`         | (90,)     | cards in play the observer has not seen: the union of the other hands |
| `card_features`  | (4, 90)   | only with `card_features=True`: per card, in hand and ≥ the trick's highest value so far; in hand and ≤ its lowest; points taking it would add to the observer's round score / 35; points it would remove / 35 |
| `trick_outlook`  | (2N+2, 90) | only with `trick_outlook=True`, and zeros unless the observer is to move: per legal card, for each relative seat k the expected gain (row 2k) and loss (row 2k+1) of its round score / 70 if the observer plays it (exact when it plays last), then the chances that the card is the trick's highest and its lowest (§3.3, §4) |

Other players' hands never appear; everything else a player could note at the table does.

### Legal Actions Mask

`action_mask[card]` is 1 for the cards the agent on turn may play: any card in hand when leading;
when following, the cards of the led colour if it holds any, otherwise any card. Agents not on turn
get an all-zero mask.

### Action Space

Card ids 0..89 (`colour·18 + value − 1`); with N players only values 1..3N exist.

### Rewards

Terminal only. `win_loss`: a sole winner +1, every player not among the top −1, k players sharing the
top 2/k − 1 each. `score_margin`: (own score − mean of the others' scores) / 100. `infos` at the end
hold `scores`, `score_breakdown` (per round, seat and colour) and `winners`.

### Positions

`env.unwrapped.restore(snapshot)` loads a checked snapshot: it replays the snapshot's history from its
origin and requires the recorded state, RNG and bookkeeping; an explicit origin (a position) is checked
for types, ranges and the game's invariants. Anything wrong is a `SnapshotError` naming the problem,
nothing changed.
`env.unwrapped.set_position(seed=0, hands=[["R12", "G3", ...], ...], leader=2)` deals with `seed` and
sets up what it is given: `hands`, `leader`, `dealer`, `trick`, `taken`, `voids`, `round`, `totals` or
`round_colour_scores` (see `DavidGoliathGame.position` and docs/david_goliath_rules.md §10).

### Version History

* v0: Initial release. Two players now default to the dummy variant (DG-5 revised; the literal one is
  `two_player_variant="literal"`, and agents trained on it say so in their env options).
"""

from .david_goliath.env import DavidGoliathEnv as raw_env


def env(**kwargs) -> raw_env:
    """The environment. Order and legality are validated by the core itself, so no wrappers are
    stacked (they would cost several times the step)."""
    return raw_env(**kwargs)


__all__ = ["env", "raw_env"]
