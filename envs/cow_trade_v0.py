"""Cow trade

| Import               | `from hiddenhand.envs import cow_trade_v0`                  |
|----------------------|-------------------------------------------------------------|
| Registered id        | `hiddenhand/cow_trade-v0`                                   |
| Actions              | Discrete                                                    |
| Parallel API         | No                                                          |
| Manual control       | `python -m hiddenhand play cow_trade`                       |
| Agents               | `agents= ['player_0', 'player_1']` (the challenger C, the challenged D) |
| Action shape         | (1,)                                                        |
| Action values        | Discrete(10)                                                |
| Observation shape    | (82,)                                                       |
| Observation values   | [0, 1000]: card counts, one-hots, the stake card's worth / 10 |

Rules: docs/cow_trade_rules.md (the §s and CT- ids the code cites; Koehandel's §7 and K-A ids for what it
shares with Koehandel Master).

Koehandel Master's cow trade on its own, small enough to solve (`hiddenhand.openspiel`): a stake of one
or two animal cards; both traders' money hands dealt from a pool of Koehandel's money cards; the
challenger lays a chosen set face down (its number of cards public), the challenged player accepts it
unseen or counters with his own face-down set; the offers are swapped and the higher total wins the
stake; a tie repeats the trade once and a second tie goes to the challenger. Offers padded with 0-cards
are bluffs. A player's score is the change in its value: the stake's worth if it wins it, plus the money
received minus the money given (the scores sum to the stake's worth).

### Arguments

``env(money=(2, 3, 1, 1, 0, 0, 0), hand_sizes=(3, 3), stake=1, card_value=40, render_mode=None,
max_cycles=None, illegal_action="raise", reward_mode="win_loss")``

* `money`: the pool both hands are dealt from, as counts of the money cards 0, 10, 20, 50, 100, 200, 500
  (at most Koehandel's 12, 18, 6, 12, 6, 6, 6); the default is one Koehandel starting hand.
* `hand_sizes`: cards dealt to C and to D (together at most the pool).
* `stake`: animal cards at stake, 1 or 2 (§1); `card_value`: the worth of one of them to
  either trader, in money (a quarter of a species' quartet value is a natural choice: 40 for the dog).
* `max_cycles`, `illegal_action`, `reward_mode`: as for every game. A bad or unknown option raises
  `ConfigError` naming the option, the value and what is allowed.

### Observation Space

A dict: `observation` (float32, 82) and `action_mask` (int8, 10). Blocks (`env.unwrapped.observer.
layout.views(obs)`): `role` (2), `decision` (4: offer, response, counter, over), `to_move` (1), `stake`
(2: cards, worth of one / 10), `hand` (7: own cards per denomination), `selection` (7: the offer being
built), `hand_sizes` (2: own, other's), `offer_on_table` (1: cards of C's face-down offer), `own_offer`
(7: C's own face-down offer), `dealt` (7: own hand as dealt), `rounds` (2 x 21: per round the offer's and
the counter's card counts, accepted, countered, C won, D won, tie, and both offers' cards once the
exchange or the accept shows them to both traders). The other's money and C's offer before the exchange
never appear.

### Legal Actions Mask

Building an offer (C) or a counter-offer (D): `CARD(d)` for a card still in hand whose denomination is
not below the last card chosen (cards are laid in ascending order, CT-2), `DONE` once a card is chosen.
Answering an offer (D): `ACCEPT`, and `COUNTER` when D holds a money card. Agents not on turn get an
all-zero mask.

### Action Space

0-6 `CARD(0)` .. `CARD(500)`, 7 `DONE`, 8 `ACCEPT`, 9 `COUNTER`.

### Rewards

Terminal only. `win_loss`: +1 to the trader whose value grew more, −1 to the other, 0 each on a draw;
`score_margin`: (own score − the other's) / 100. `infos` at the end hold `scores` (the value changes),
`score_breakdown` (winner, the stake's worth, each trader's money change, the rounds) and `winners`.
OpenSpiel's bridge plays the scores themselves (`reward="score"`; constant-sum).

### Positions

`env.unwrapped.set_position(seed=0, hands=[[0, 10, 50], [10, 10, 20]], offer=[0, 10])` sets both hands
as dealt and, with `offer`, C's cards on the table (D to respond).

### Version History

* v0: Initial release.
"""

from __future__ import annotations

from .cow_trade.env import CowTradeEnv as raw_env


def env(**kwargs) -> raw_env:
    """A new cow trade environment; see the module docstring for the options."""
    return raw_env(**kwargs)


__all__ = ["env", "raw_env"]
