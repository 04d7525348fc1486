"""Koehandel Master

| Import               | `from hiddenhand.envs import koehandel_v0`                                       |
|----------------------|----------------------------------------------------------------------------------|
| Registered id        | `hiddenhand/koehandel-v0`                                                        |
| Actions              | Discrete                                                                         |
| Parallel API         | No                                                                               |
| Manual control       | `python -m hiddenhand play koehandel` (type an action name, e.g. `ADD(50)`)      |
| Agents               | `agents= ['player_0', ..., 'player_{N-1}']`, N = 2..6 (default 4)                |
| Action shape         | (1,)                                                                             |
| Action values        | Discrete(97)                                                                     |
| Observation shape    | (1659,) with 3-6 players, (1155,) with 2 (compact default; see below)            |
| Observation values   | float32 integers, [-1, 2**24 - 1] (exact); -1 = unknown to the observer           |

Koehandel Master (Kuhhandel Master, You're Bluffing! Master; Rüdiger Koltze, Ravensburger): players
collect quartets of farm animals. On his turn a player either auctions the top card of the deck (open
bidding, with the auctioneer's right to buy the card himself at the winning price) or starts a cow trade:
he names an opponent who holds the same species, and both lay money cards face down, only the number of
cards being public; the challenged player may accept the offer unseen or counter, and the higher total
takes the animals at stake (in a rat trade the winner passes his rats on). Money is paid without change.
Pedigree cards are auctioned as a count-down (a sealed bid in number of cards), rats by a pot that grows
until someone takes it, and donkeys pay everyone money when revealed. With 2 players cards are distributed
(keep one, the next goes to the other player) instead of auctioned. When the deck is empty, trading is
compulsory until every species lies complete with one player. Score: (sum of own complete quartets + 250
per matching pedigree) x number of quartets, + 250 per other pedigree; a complete rat quartet removes one
animal quartet. A summary of the rules as implemented, with the interpretation choices (tagged K-A1, K-A2,
...), is in `docs/koehandel_rules.md`.

### Arguments

``env(num_players=4, render_mode=None, max_cycles=None, illegal_action="raise", reward_mode="win_loss",
**options)``; every option is checked at construction, and an unknown name or a bad value is a
`ValueError` (the core `ConfigError`) naming the option, the value and what is allowed.

* `num_players`: 2..6. Two players distribute instead of auctioning (no auctions of any kind).
* `render_mode`: `None`, `"ansi"` (`render()` returns the table as text) or `"human"` (prints it).
* `max_cycles`: a safety cap on agent steps (this many times N); the default, 2·⌈5000·max_turns / N⌉,
  never binds: the game truncates itself after `max_turns` turns.
* `illegal_action`: `"raise"` (a `ValueError` naming the action, the agent and the legal actions; the
  state is untouched) or `"terminate"` (the mover gets −1, the others 0, the game ends).
* `reward_mode`: `"win_loss"` or `"score_margin"` (see Rewards).

Game options (defaults in brackets):

* `animal_values` [10, 40, 90, 160, 250, 350, 500, 650, 800, 1000]: quartet values of rooster, goose,
  cat, dog, sheep, goat, donkey, pig, cow, horse (K-A1).
* `money_composition` [12, 18, 6, 12, 6, 6, 6]: money cards of 0, 10, 20, 50, 100, 200, 500 (66 cards,
  5,700; K-A2); it must cover the starting hands and the donkey payouts (2 players: the donkey reserve).
* `pass_is_final` [False]: a pass drops the bidder from the auction of this card (else he may bid again
  after someone else has bid; K-A7).
* `overbid_mode` ["mask"]: `"mask"` masks bids above the bidder's cash and pedigree counts above his hand
  size, so every committed bid proves cash; `"reveal_and_restart"` allows them up to `overbid_cap`, and a
  winner who cannot pay shows his hand, is excluded and the card is auctioned again (K-A9, K-A39). Use
  `"reveal_and_restart"` for experiments on over-bid bluffs.
* `overbid_cap` [None]: highest bid in `"reveal_and_restart"` mode; None = the money in all hands now.
* `payment_rule` ["no_change"]: `"no_change"`: any payment worth at least the price from which no card
  could be left out (overpaying allowed); `"strict"`: exact payment compulsory when possible (K-A11).
* `auto_payment` [False]: the environment picks auction payments (cheapest, then fewest cards), so D6
  takes no agent steps.
* `public_auction_payments` [False]: the cards paid in an animal auction are shown to everybody (else to
  payer and payee only; K-A12).
* `reveal_pedigree_ties` [True]: the players tied at the winning pedigree count are announced before
  the random draw among them (K-A14).
* `rat_pot_attribution` [True]: whoever takes a rat learns who laid each pot card (else only the pot's
  composition; K-A18).
* `allow_empty_offer` [False]: cow-trade offers may have no cards; `TRADE` and `COUNTER` then need no
  money card (K-A21).
* `retrade_allows_accept` [True]: after a tied first round the challenged player may accept again (else
  he must counter; K-A23).
* `two_player_start_zeros` [True]: with 2 players each keeps the two 0-cards of the starting hand (K-A5).
* `super_koehandel` [False]: variant: after a cow trade in the deck phase the challenger may also
  auction (2 players: distribute); `super_koehandel_mandatory` [False] makes that compulsory (K-A29).
* `money_counts` [False]: variant: money in hand is added to the final score.
* `rat_removal` ["best_for_holder"]: which quartet a complete rat quartet removes: the one whose loss
  costs its holder least, or `"lowest_value"` (K-A33).
* `max_turns` [1000]: turns (skipped final-phase turns not counted) before the game is truncated (K-A32).
* `truncation_reward` ["zero"]: reward on truncation: 0 for everyone, or `"provisional"`: the reward of
  `reward_mode` on the provisional scores.
* `auto_resolve_forced` [False]: the environment applies any decision with a single legal action itself
  (outcomes and information unchanged, fewer agent steps; K-A38).
* `observation_mode` ["compact"]: `"compact"` keeps the newest 16 rows of each event table;
  `"full_record"` keeps every row (lossless, large; K-A40).

### Observation Space

A dict: `observation` (float32 vector) and `action_mask` (int8, 97). Everything is an integer (counts, money
amounts, codes) below 2**24, so float32 holds it exactly and a plain float32 network reads it without a
cast (`policy_input="signed_log"` compresses the large amounts); −1 marks a value this observer does not
know (or "none"). Seats are relative: slot 0
is the observer, slot o the player o seats to its left (clockwise), padded to 6 slots (unused slots 0),
so the size depends only on N = 2 or N ≥ 3 and the options. Denominations are always in the order
0, 10, 20, 50, 100, 200, 500. Use `env.unwrapped.observer.layout.views(obs["observation"])` to get the
blocks by name (`layout.describe()` prints their offsets). Blocks, in order:

| block                  | shape    | content                                                               |
|------------------------|----------|-----------------------------------------------------------------------|
| `decision`             | (16,)    | one-hot decision id D1..D15 (index 0 unused); all 0 when not on turn  |
| `game`                 | (6,)     | phase (1 final trading), N, turn, donkeys, deck size, seat on turn    |
| `own_hand`             | (8,)     | own money cards per denomination, own cash                            |
| `deck`                 | (23,)    | red cards left per species (11), pedigrees left (10), money, top back |
| `seats`                | (6, 30)  | per slot: hand size, species counts, pedigrees, roles, bid, present   |
| `auction`              | (6,)     | card kind, species, high bid, high bidder, passes, own pending raise  |
| `pedigree`             | (9,)     | own commitment, winner, winning count k*, tied flag per slot          |
| `rat_pot`              | (13,)    | cards laid per slot, own laid cards per denomination                  |
| `trade`                | (32,)    | the cow trade in progress (below)                                     |
| `selection`            | (8,)     | cards chosen so far per denomination, and the selection's target      |
| `looked_card`          | (1,)     | 2 players: the card the distributor looks at (his eyes only)          |
| `digest`               | (5, 17)  | per opponent: money seen entering / leaving, unseen flows, cash bound |
| `record_auctions`      | (16, 24) | 3-6 players: one row per animal or pedigree card auctioned            |
| `record_rat_auctions`  | (4, 58)  | 3-6 players: one row per rat auction                                  |
| `record_distributions` | (16, 7)  | 2 players: one row per distribution                                   |
| `record_trades`        | (16, 41) | one row per cow trade                                                 |
| `record_defaults`      | (16, 11) | only with `overbid_mode="reveal_and_restart"`: one row per default    |

Details (a "slot" is a relative seat; "seen" means this observer saw the cards, else −1 each):

* `game`: phase 0 deck / 1 final trading; number of players; turn number; donkeys revealed so far;
  cards left in the deck; slot of the player on turn.
* `deck`: red cards left per species 0-10 (10 = rats); 1 per pedigree (species 0-9) still in the deck;
  money cards left (2 players); back of the top card: 1 money, 0 red, −1 empty deck.
* `seats` (30 per slot): hand size; cards held per species 0-10; pedigrees owned (10 flags); roles
  (on turn, auctioneer, high bidder, challenger, challenged, pedigree winner); the highest bid the
  seat has committed on the current card; 1 if the seat exists (0 in padding slots).
* `auction`: card kind (0 none, 1 animal, 2 pedigree, 3 rat); species (−1 none); high bid h; slot of
  the high bidder (−1 none); passes since the last bid; own pending raise while building a bid.
* `pedigree`: own commitment (0 `NEVER`, k for `SLAP(k)`, −1 none); slot of the winner; k*; per slot
  1 if announced as tied at k*.
* `trade`: slots of challenger and challenged; species; stake; round (1, 2); round-1 response
  (1 accept, 2 counter) and result (3 tie); round-2 response; card counts of the challenger's round-1
  offer, the challenged player's round-1 offer and the challenger's round-2 offer; both round-1 offer
  compositions (traders only, after the tie; 2 x 7); the challenger's own offer awaiting the answer
  (challenger only; 7).
* `selection`: cards chosen so far in the current card-by-card selection (D6, D8, D10, D12, D14), and
  its target: the price for a payment, k* for a pedigree stake or buy-back, 0 for an offer.
* `looked_card`: card code 0-9 animal, 10 rat, 11-20 pedigree of species 0-9, 21-27 money of
  denomination index 0-6; −1 for everybody else and at other times.
* `digest` (offsets 1-5): cards per denomination seen entering his hand (7) and leaving it (7); number
  of cards that entered unseen and that left unseen; a proven lower bound on his cash.
* `record_auctions` (24): seq; kind (1 animal, 2 pedigree); species; auctioneer; donkey payout; per slot
  the highest bid committed (animal) or 1 if tied at k* (pedigree) (6); own pedigree commitment (−1 for
  animals or non-bidders); winner (−1: taken for free); price (h or k*); auctioneer's decision (0 none,
  1 decline, 2 buy); number of cards paid; their composition if seen (7); number of defaults.
* `record_rat_auctions` (58): seq; auctioneer; taker; cards laid per slot (6); the pot's composition
  (taker only) (7); the composition laid by each slot (6 x 7: own slot always, others only for the
  taker with `rat_pot_attribution`).
* `record_distributions` (7): seq; distributor; 1 keep / 2 give; card X (code as `looked_card`, 21 for
  any money card); X's denomination index if money and seen; card Y (−1 none); Y's denomination if seen.
* `record_trades` (41): seq; challenger; challenged; species; stake; then round 1 at column 5 and round 2
  at column 23 (18 each, all 0 if not played): response (1 accept, 2 counter); cards of the challenger's
  offer; cards of the counter-offer; the two compositions if seen (2 x 7); result (1 challenger won,
  2 challenged won, 3 tie).
* `record_defaults` (11): seq; kind; species; the defaulting player; his revealed hand (7).

Block sizes: 302 values of current state (`decision` .. `looked_card`), the 85-value `digest`, then the
record. `seq` numbers every settled event across all tables, so their order is kept. In `"compact"` mode
each record table holds its newest 16 rows, newest first, zero rows after the oldest. In `"full_record"`
mode every table has all its rows in order of play: 50 auction rows, 4 rat rows, 40 distribution rows,
`max_turns` trade rows, 250 default rows, i.e. 1819 + 41·max_turns values with 3-6 players (42,819 at the
default 1000 turns) and 667 + 41·max_turns with 2 (41,667); `"reveal_and_restart"` adds 176 values
(compact) or 2,750 (full). `env.unwrapped.private_record(agent)` returns the complete record in either
mode.

What is hidden: other players' hand compositions (sizes are public), the cards of others' offers and
payments (only the two traders, or payer and payee, see them), bid raises still being built, sealed
pedigree commitments below the winning count, pedigree stakes, the pot's values (except to the taker),
the deck order, and with 2 players the face of a card being looked at, unseen money cards and the 10
money cards removed at setup. Holdings, hand sizes, committed bids, passes, buy-right decisions, card
counts of offers and every trade's winner are public.

### Legal Actions Mask

`action_mask[a]` is 1 for the actions the agent on turn may take at its current decision; agents not on
turn get an all-zero mask. The agent on turn always has at least one legal action. Amount payments are
masked so that only sufficient, non-redundant payments can be completed; with `overbid_mode="mask"` bids
above the bidder's cash and pedigree counts above his hand size are masked.

### Action Space

One Discrete(97) space for every decision; the decision id (D1..D15) is in the `decision` block.

| index   | action                                                                                               |
|---------|------------------------------------------------------------------------------------------------------|
| 0       | `AUCTION` (2 players: distribute; also the follow-up auction of Super-Koehandel)                     |
| 1       | `TRADE`                                                                                              |
| 2       | `END_TURN` (decline the Super-Koehandel follow-up auction)                                           |
| 3-57    | `TARGET(o, s)` = 3 + 11·(o−1) + s: challenge the player o = 1..5 seats to the left for s (10 = rats) |
| 58      | `PASS`                                                                                               |
| 59, 60  | `DECLINE`, `BUY` (auctioneer's buy-right)                                                            |
| 61-67   | `CARD(d)` = 61 + denomination index: choose one card of 0, 10, 20, 50, 100, 200, 500                 |
| 68      | `DONE` (close an offer or payment)                                                                   |
| 69      | `NEVER` (pedigree: do not slap)                                                                      |
| 70-79   | `SLAP(k)` = 69 + k, k = 1..10 (pedigree: commit to k cards)                                          |
| 80      | `TAKE` (take the rat and its pot)                                                                    |
| 81-87   | `LAY(d)` = 81 + denomination index (lay a card into the rat pot)                                     |
| 88, 89  | `ACCEPT`, `COUNTER`                                                                                  |
| 90, 91  | `KEEP`, `GIVE` (2-player distribution)                                                               |
| 92-95   | `ADD(a)` = 92 + j for a = 10, 50, 100, 500 (add to the bid being built)                              |
| 96      | `BID` (commit the bid built)                                                                         |

Decision points and their actions:

* D1 turn choice (player on turn): `AUCTION` while the deck is not empty; `TRADE` if he shares a species
  with another player and holds a money card (or `allow_empty_offer`). When the deck is empty: `TRADE`
  only, with or without money (a player with nothing to trade is skipped).
* D2 trade target (challenger): `TARGET(o, s)` for each player o and species s both hold (complete
  quartets never).
* D3 Super-Koehandel follow-up (challenger after his trade): `AUCTION`, `END_TURN`.
* D4 bid (polled bidder): a bid is built privately with `ADD` steps, then committed with `BID`: `PASS`
  only before any `ADD`, `BID` only after one. Other players see only the committed level.
* D5 buy-right (auctioneer): `DECLINE`, or `BUY` if his cash covers the bid.
* D6 payment (buyer, or the auctioneer after `BUY`): `CARD(d)` one card at a time, then `DONE`.
* D7 pedigree commitment (each bidder, sealed): `NEVER` or `SLAP(k)`.
* D8 pedigree stake (winner): `CARD(d)` until k* cards are chosen (closes itself; 0-cards allowed).
* D9 pedigree buy-right (auctioneer): `DECLINE`, or `BUY` if he holds k* cards.
* D10 pedigree buy-back cards (auctioneer after `BUY`): `CARD(d)` until k* cards are chosen.
* D11 rat auction (players in turn from the auctioneer's left): `TAKE` or `LAY(d)`.
* D12 offer (challenger, each round): `CARD(d)` one card at a time, then `DONE` (at least one card,
  unless his hand is empty or `allow_empty_offer`).
* D13 response (challenged, knowing only the offer's card count): `ACCEPT`, or `COUNTER` if he holds a
  money card (or `allow_empty_offer`).
* D14 counter-offer (challenged): `CARD(d)` one card at a time, then `DONE`.
* D15 distribution (2 players, player on turn, looking at the top card): `KEEP` or `GIVE`.

A turn is therefore a sequence of steps by different agents: e.g. an auction is D1, then D4 for the
bidders in turn (several steps each), D5 and D6; a trade is D1, D2, D12, D13 and possibly D14 (twice
each after a tie).

### Rewards

Terminal only. `win_loss`: a sole winner +1, every player not among the top −1, k players sharing the
top score 2/k − 1 each. `score_margin`: (own score − mean of the others' scores) / 1000. After
`max_turns` turns the game is truncated (`truncations` all True) with reward 0 for everyone
(`truncation_reward="zero"`) or the `reward_mode` reward on the provisional scores (`"provisional"`).
`infos` at the end hold `scores`, `score_breakdown` (per player: rat quartet, the quartet it removed,
quartets, matched and unmatched pedigrees, multiplier, money) and `winners` (empty on truncation).

### Research record

Beyond the observation (which never contains it), `env.unwrapped` keeps a full-information log:

* `events`: a list of dicts, one per settled event, in order. Every event has `seq`, `kind`, `turn`
  (the turn number), `players`, `cash_before` and `cash_after` (every seat's cash; an auction's
  `cash_before` is taken before a donkey payout). By `kind`:
  - `"auction"`: `species`, `auctioneer`, `donkey_payout`, `bids` ([seat, level] in order), `max_bids`,
    `winner` (None: nobody bid), `price`, `decision` (None, "decline", "buy"), `payer`, `payee`,
    `payment` (count vector per denomination), `owner`, `defaults` ([{seq, player, hand}]).
  - `"pedigree"`: `species`, `auctioneer`, `commitments` (per seat; None for the auctioneer),
    `commit_rounds`, `tied` (as announced), `ties` (actual), `winner`, `count`, `decision`, `stake`,
    `payer`, `payee`, `payment`, `owner`, `defaults`.
  - `"rat"`: `auctioneer`, `pot` ([seat, denomination index] in laying order), `taker`.
  - `"trade"`: `challenger`, `challenged`, `species` (10 = rats), `stake`, `winner`, `final_phase`,
    `rounds` (1 or 2 dicts: `response` "accept"/"counter", `forced` (no choice), `offer`, `counter`
    (None after accept), `offer_cards`, `counter_cards`, `values`, `result`
    "challenger"/"challenged"/"tie").
  - `"distribution"` (2 players): `distributor`, `decision` ("keep"/"give"), `x`, `x_to`, `y`, `y_to`
    (card codes as in `looked_card`), `donkey_payouts`.
* `export_events(path, append=False, **extra)`: writes `events` as JSON Lines, adding `extra` keys to
  every line (e.g. `game=g, agents=[...]`); returns the number of lines.
  `hiddenhand.envs.koehandel.analysis` reads such files (`load_events`) and computes bluff statistics
  of cow trades (`trade_rows`, `bluff_statistics`, `format_table`, `plot_bluff_statistics`).
* `private_record(agent)`: that agent's complete event record (the rows of every record table, seats
  relative to it, −1 for unknown values), in both observation modes.
* `determinize(agent, seed)`: a new env in which everything hidden from `agent` (other hands, hidden
  payments, offers and pot contents, deck order, sealed commitments) is re-dealt consistently with what
  it has seen; its observation and private record are unchanged and play continues. For ISMCTS/PIMC
  search agents. Its search has a budget of work; past it (a few percent of late random-play positions
  at 5-6 players) the copy is drawn approximately and flagged `redeal_is_approximate`: every public fact
  and the agent's view kept, the other seats' hidden past drawn from the public record alone
  (docs/koehandel_rules.md Appendix C); the flag is kept in its snapshot.
* `set_position(seed, **spec)`: deal with `seed`, then set up the start of a turn from a few keywords
  (`deck` or `top`, `holdings`, `hands`, `turn_player`, `donkeys`, `bank`; see
  `KoehandelGame.position` and docs/koehandel_rules.md Appendix B). `restore(snapshot)` is checked the
  same way: a snapshot or position that breaks the rules raises `SnapshotError` and changes nothing;
  the event record is walked against the position and every player's record rebuilt from it (Appendix B).

### Version History

* v0: Initial release. Observations float32 (were int32; same values, the digest's running card counts
  capped at 2**24 − 1); `restore` walks the event record against the position.
"""

from .koehandel.env import KoehandelEnv as raw_env


def env(**kwargs) -> raw_env:
    """The environment. Order and legality are validated by the core itself, so no wrappers are
    stacked (they would cost several times the step)."""
    return raw_env(**kwargs)


__all__ = ["env", "raw_env"]
