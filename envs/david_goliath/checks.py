"""David & Goliath states checked from outside: snapshot parsing, the invariants and the position helper.

``parse_state`` checks the types and ranges of a state's JSON data (``SnapshotError`` naming the first
problem); ``invariants`` lists what breaks the rules in a state (docs/david_goliath_rules.md); ``position``
builds a state's data from a fresh deal and a few keywords (``env.set_position``).

Per-seat card data (``hands``, ``taken``, ``voids``) has one row per table seat (``game.seats``: in the
two-player dummy variant, DG-5, the dummy's row is the third); scores (``totals``, ``round_colour_scores``)
have one per player.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.game import SnapshotError
from ..core.options import is_int
from .cards import (
    CARD_COLOUR, COLOUR_LETTERS, COLOURS, MAX_VALUE, NUM_CARDS, NUM_COLOURS, card_name, colour_scores,
    parse_card,
)

#: The keys of ``DavidGoliathState.to_json``.
STATE_KEYS = ("hands", "taken", "voids", "trick", "totals", "round_colour_scores", "round", "tricks_played",
              "dealer", "leader", "current_player", "is_terminal")
#: The keywords of ``DavidGoliathGame.position`` (``env.set_position``).
POSITION_KEYS = ("hands", "leader", "dealer", "trick", "taken", "voids", "round", "totals", "round_colour_scores")


# ---------------------------------------------------------------------- snapshot data: types and ranges
def parse_state(game: Any, data: Any) -> dict[str, Any]:
    """The fields of a state's JSON data, checked for types and ranges (not for the rules: see
    :func:`invariants`); :class:`SnapshotError` naming the first problem otherwise."""
    where = f"{game.name}: state"
    n, players = game.seats, game.num_players
    if not isinstance(data, dict):
        raise SnapshotError(f"{where} must be a dict, got {type(data).__name__}")
    missing = [key for key in STATE_KEYS if key not in data]
    if missing:
        raise SnapshotError(f"{where} lacks key(s) {missing}")
    unknown = sorted(map(str, set(data) - set(STATE_KEYS)))
    if unknown:
        raise SnapshotError(f"{where} has unknown key(s) {unknown}; keys: {list(STATE_KEYS)}")
    max_colour_score = 2 * game.max_value - 1
    rounds = _list(where, "round_colour_scores", data["round_colour_scores"])
    if len(rounds) > game.rounds:
        raise SnapshotError(f"{where} round_colour_scores has {len(rounds)} rounds; the game has {game.rounds}")
    return {
        "hands": _seat_cards(where, "hands", data["hands"], n),
        "taken": _seat_cards(where, "taken", data["taken"], n),
        "voids": _grid(where, "voids", data["voids"], n, NUM_COLOURS, 0, 1),
        "trick": _cards(where, "trick", data["trick"]),
        "totals": [_int(where, f"totals[{seat}]", total, 0, game.rounds * NUM_COLOURS * max_colour_score)
                   for seat, total in enumerate(_list(where, "totals", data["totals"], players))],
        "round_colour_scores": [_grid(where, f"round_colour_scores[{r}]", scores, players, NUM_COLOURS, 0,
                                      max_colour_score)
                                for r, scores in enumerate(rounds)],
        "round": _int(where, "round", data["round"], 0, game.rounds),
        "tricks_played": _int(where, "tricks_played", data["tricks_played"], 0, game.hand_size),
        "dealer": _int(where, "dealer", data["dealer"], 0, players - 1),  # DG-5: never the dummy
        "leader": _int(where, "leader", data["leader"], 0, n - 1),
        "current_player": _int(where, "current_player", data["current_player"], -1, players - 1),
        "is_terminal": _bool(where, "is_terminal", data["is_terminal"]),
    }


def _list(where: str, name: str, value: Any, length: int | None = None) -> list:
    if not isinstance(value, list):
        raise SnapshotError(f"{where} {name} must be a list, got {type(value).__name__}")
    if length is not None and len(value) != length:
        raise SnapshotError(f"{where} {name} has {len(value)} entries, not {length} (one per seat)")
    return value


def _int(where: str, name: str, value: Any, low: int | None, high: int | None) -> int:
    if not is_int(value):
        raise SnapshotError(f"{where} {name}={value!r} is not an int")
    if (low is not None and value < low) or (high is not None and value > high):
        allowed = f"{low}..{high}" if high is not None else f">= {low}"
        raise SnapshotError(f"{where} {name}={value!r} is out of range; allowed: {allowed}")
    return int(value)


def _bool(where: str, name: str, value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise SnapshotError(f"{where} {name}={value!r} is not a bool")
    return bool(value)


def _cards(where: str, name: str, value: Any) -> list[int]:
    """Distinct card ids; linear in the list (a duplicate is named as soon as it is met)."""
    cards, seen = [], bytearray(NUM_CARDS)
    for card in _list(where, name, value):
        if not is_int(card) or not 0 <= card < NUM_CARDS:
            raise SnapshotError(f"{where} {name} holds card {card!r}, not a card id 0..{NUM_CARDS - 1}")
        if seen[card]:
            raise SnapshotError(f"{where} {name} lists card {_names([card])} more than once")
        seen[card] = 1
        cards.append(int(card))
    return cards


def _seat_cards(where: str, name: str, value: Any, n: int) -> list[list[int]]:
    return [_cards(where, f"{name}[{seat}]", cards) for seat, cards in enumerate(_list(where, name, value, n))]


def _grid(where: str, name: str, value: Any, rows: int, cols: int, low: int, high: int) -> list[list[int]]:
    return [[_int(where, f"{name}[{r}][{c}]", item, low, high)
             for c, item in enumerate(_list(where, f"{name}[{r}]", row, cols))]
            for r, row in enumerate(_list(where, name, value, rows))]


def _names(cards, most: int = 8) -> str:
    cards = [int(card) for card in cards]
    listed = ", ".join(f"{card_name(card)} ({card})" for card in cards[:most])
    return listed + (f", ... ({len(cards)} in all)" if len(cards) > most else "")


def _cards_count(count: int) -> str:
    return f"{count} card{'' if count == 1 else 's'}"


# ---------------------------------------------------------------------- the rules a state keeps
def invariants(game: Any, state: Any) -> list[str]:
    """Everything that breaks the rules or the engine's bookkeeping in ``state`` (empty when nothing does)."""
    problems = _turn_problems(game, state)
    hands, taken = state.hands, state.taken
    if ((hands != 0) & (hands != 1)).any() or ((taken != 0) & (taken != 1)).any():
        return problems + ["hands and taken must be 0/1 per card"]
    problems += _card_problems(game, state) + _hand_size_problems(game, state) + _void_problems(game, state)
    return problems + _score_problems(game, state)


def _turn_problems(game: Any, state: Any) -> list[str]:
    """Whose turn, which trick, which round."""
    n, players, problems = game.seats, game.num_players, []
    add = problems.append
    if not 0 <= state.dealer < players:
        add(f"dealer={state.dealer} is not a player 0..{players - 1}" + (" (DG-5: the dummy never deals)"
                                                                        if game.dummy is not None else ""))
    if not 0 <= state.leader < n:
        add(f"leader={state.leader} is not a seat 0..{n - 1}")
    trick, leader = state.trick, state.leader
    if state.is_terminal:
        if state.round != game.rounds:
            add(f"the game is over but round={state.round}, not {game.rounds} (§5)")
        if state.current_player != -1:
            add(f"the game is over but current_player={state.current_player}, not -1")
        if state.tricks_played != game.hand_size or trick:
            add(f"the game is over but its last round is not ({state.tricks_played} tricks played, "
                f"{len(trick)} card(s) on the table)")
        return problems
    if not 0 <= state.round < game.rounds:
        add(f"round={state.round} is not a round in progress 0..{game.rounds - 1}")
    if not 0 <= state.tricks_played < game.hand_size:
        add(f"tricks_played={state.tricks_played} is not 0..{game.hand_size - 1} in a round in progress (§1)")
    if len(trick) >= n:
        add(f"the trick holds {len(trick)} cards; with {n} seats it is complete at {n} and resolved (§3.3)")
    expected = (leader + len(trick)) % n
    if expected == game.dummy:
        add(f"the dummy (seat {game.dummy}) plays next, but it plays at once when its turn comes (DG-5)")
    elif state.current_player != expected:
        add(f"current_player={state.current_player}, but seat {expected} plays next "
            f"(leader {leader} + {len(trick)} card(s) in the trick)")
    return problems


def _card_problems(game: Any, state: Any) -> list[str]:
    """Every card of the deck in exactly one place: a hand, the trick or a taken pile (§1, §3.5)."""
    n, problems = game.seats, []
    add = problems.append
    hands, taken, trick, in_play = state.hands, state.taken, state.trick, game.in_play
    for name, rows in (("hands", hands), ("taken", taken)):
        for seat, row in enumerate(rows):
            foreign = np.flatnonzero(row & ~in_play)
            if foreign.size:
                add(f"{name}[{seat}] holds {_names(foreign)}, not in a {n}-player deck (values 1..{game.max_value})")
    foreign = [card for card in trick if not in_play[card]]
    if foreign:
        add(f"the trick holds {_names(foreign)}, not in a {n}-player deck (values 1..{game.max_value})")
    place = hands.sum(axis=0, dtype=np.int64) + taken.sum(axis=0, dtype=np.int64)
    for card in trick:
        place[card] += 1
    twice = np.flatnonzero(place > 1)
    if twice.size:
        add(f"card(s) {_names(twice)} lie in more than one place (hands, trick, taken piles)")
    nowhere = np.flatnonzero(in_play & (place == 0))
    if nowhere.size:
        add(f"card(s) {_names(nowhere)} of the deck lie nowhere (in no hand, trick or taken pile)")
    return problems


def _hand_size_problems(game: Any, state: Any) -> list[str]:
    """Hand sizes: 15 - tricks played, one fewer for those who played to the current trick (§1)."""
    n, leader, problems = game.seats, state.leader, []
    played_now = {(leader + k) % n for k in range(len(state.trick))}
    sizes = state.hands.sum(axis=1)
    for seat in range(n):
        expected = game.hand_size - state.tricks_played - (seat in played_now)
        if sizes[seat] != expected:
            problems.append(f"hands[{seat}] holds {_cards_count(sizes[seat])}, not {expected} ({state.tricks_played} "
                            "tricks played" + (", and it played to the current trick)" if seat in played_now else ")"))
    return problems


def _void_problems(game: Any, state: Any) -> list[str]:
    """Voids (§6): revealed by not following, so a void seat holds none of that colour."""
    n, problems = game.seats, []
    add = problems.append
    voids, trick = state.voids, state.trick
    if ((voids != 0) & (voids != 1)).any():
        add("voids must be 0/1 per seat and colour")
    by_colour = state.hands.reshape(n, NUM_COLOURS, MAX_VALUE).sum(axis=2)
    for seat, colour in zip(*np.nonzero(voids)):
        if by_colour[seat, colour]:
            add(f"seat {seat} is marked void in {COLOURS[colour]} but holds {by_colour[seat, colour]} such card(s)")
    if trick:
        led = CARD_COLOUR[trick[0]]
        for k, card in enumerate(trick[1:], start=1):
            seat = (state.leader + k) % n
            if CARD_COLOUR[card] != led and not voids[seat % n, led]:
                add(f"seat {seat} did not follow {COLOURS[led]} in the trick but is not marked void in it (§3.2)")
    if by_colour.tolist() != [list(row) for row in state.colour_counts]:
        add("colour_counts do not match the hands")
    return problems


def _score_problems(game: Any, state: Any) -> list[str]:
    """What was taken this round and its score (§4); totals are the sums of the past rounds' scores."""
    n, players, problems = game.seats, game.num_players, []
    add = problems.append
    taken = state.taken
    if (state.played != taken.any(axis=0)).any():
        add("played does not match the taken piles")
    counts = taken.reshape(n, NUM_COLOURS, MAX_VALUE).sum(axis=2)
    if (np.asarray(state.taken_count) != counts).any():
        add("taken_count does not match the taken piles")
    points = [colour_scores(np.flatnonzero(row)) for row in taken]
    if np.asarray(state.colour_points).tolist() != points:
        add(f"colour_points {np.asarray(state.colour_points).tolist()} are not the score of the taken piles {points}")
    points = points[:players]  # DG-5: the dummy's taken cards score for nobody
    past = state.round_colour_scores
    if len(past) != state.round:
        add(f"round_colour_scores holds {len(past)} rounds, but round={state.round} have been completed")
    totals = np.asarray(state.totals).tolist()
    if len(totals) != players or any(len(rnd) != players for rnd in past):
        return problems + [f"totals and round_colour_scores must hold one entry per player ({players})"]
    sums = [sum(sum(rnd[seat]) for rnd in past) for seat in range(players)]
    if totals != sums:
        add(f"totals {totals} are not the sums of round_colour_scores {sums}")
    if any(total < 0 for total in totals):
        add(f"totals {totals} hold a negative score")
    if state.is_terminal and past and past[-1] != points:
        add("the last round's scores are not those of the taken piles")
    return problems


# ---------------------------------------------------------------------- the position helper
def position(game: Any, base: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    """A state's data set up from ``base`` (a freshly dealt state's data) and the keywords of ``spec``; see
    :meth:`DavidGoliathGame.position`. Checks here only what it needs to compute; the result is
    validated like any snapshot."""
    where = f"{game.name}: position"
    n, players = game.seats, game.num_players
    unknown = sorted(map(str, set(spec) - set(POSITION_KEYS)))
    if unknown:
        raise SnapshotError(f"{where}: unknown keyword(s) {unknown}; keywords: {list(POSITION_KEYS)}")
    data = {key: (list(map(list, value)) if key in ("hands", "taken", "voids") else value)
            for key, value in base.items()}
    data["round_colour_scores"] = [list(map(list, rnd)) for rnd in base["round_colour_scores"]]
    for key in ("hands", "taken"):
        if key in spec:
            data[key] = [_spec_cards(where, f"{key}[{seat}]", cards)
                         for seat, cards in enumerate(_spec_list(where, key, spec[key], n))]
    if "trick" in spec:
        data["trick"] = _spec_cards(where, "trick", spec["trick"])
    longest = max(len(cards) for cards in data["hands"])
    if longest > game.hand_size:
        raise SnapshotError(f"{where}: a hand holds {longest} cards; a hand holds at most {game.hand_size}")
    if longest == 0:
        raise SnapshotError(f"{where}: every hand is empty; a round in progress has cards to play")
    data["tricks_played"] = game.hand_size - longest  # someone has not played to the trick yet
    for key in ("leader", "dealer", "round"):
        if key in spec:
            data[key] = _int(where, key, spec[key], None, None)
    if "dealer" not in spec and "leader" in spec and data["tricks_played"] == 0 and not data["trick"]:
        data["dealer"] = (data["leader"] - 1) % players  # DG-3 (DG-5: the non-dealer) leads a round's first trick
    _spec_voids(where, n, spec, data)
    _spec_scores(where, game, spec, data)
    trick, leader = data["trick"], data["leader"]
    if is_int(leader):
        data["current_player"] = (leader + len(trick)) % n
        if data["current_player"] == game.dummy:
            raise SnapshotError(f"{where}: the dummy (seat {game.dummy}) would play next, but it plays at once when "
                                f"its turn comes (DG-5); give a leader and trick with a player on turn")
    data["is_terminal"] = False
    return data


def _spec_voids(where: str, n: int, spec: dict[str, Any], data: dict[str, Any]) -> None:
    """The voids given, and those the trick reveals: not following a colour shows a void in it (§6)."""
    if "voids" in spec:
        data["voids"] = [_spec_colours(where, f"voids[{seat}]", colours)
                         for seat, colours in enumerate(_spec_list(where, "voids", spec["voids"], n))]
    trick, leader = data["trick"], data["leader"]
    if trick and is_int(leader):
        led = CARD_COLOUR[trick[0]] if is_int(trick[0]) else None
        for k, card in enumerate(trick[1:], start=1):
            if led is not None and is_int(card) and CARD_COLOUR[card] != led:
                data["voids"][(leader + k) % n][led] = 1


def _spec_scores(where: str, game: Any, spec: dict[str, Any], data: dict[str, Any]) -> None:
    """The completed rounds' scores and the totals, from whichever of them (and the round) ``spec`` gives."""
    players = game.num_players
    if "round_colour_scores" in spec:
        past = data["round_colour_scores"] = spec["round_colour_scores"]
        if "round" not in spec:
            data["round"] = len(past) if isinstance(past, (list, tuple)) else 0
        try:
            data["totals"] = (spec["totals"] if "totals" in spec
                              else [sum(sum(rnd[seat]) for rnd in past) for seat in range(players)])
        except (TypeError, IndexError):
            raise SnapshotError(f"{where}: round_colour_scores must be a list of completed rounds, each a list of "
                                f"{players} players' {NUM_COLOURS} colour scores, got {past!r}") from None
    elif "totals" in spec:
        data["totals"] = spec["totals"]
        data["round_colour_scores"] = _spread(where, game, spec["totals"], data["round"])
    elif "round" in spec:
        data["round_colour_scores"] = [[[0] * NUM_COLOURS for _ in range(players)] for _ in range(data["round"])]
        data["totals"] = [0] * players


def _spec_list(where: str, name: str, value: Any, length: int) -> list:
    if not isinstance(value, (list, tuple)) or len(value) != length:
        raise SnapshotError(f"{where}: {name} must be a list of {length} entries (one per seat), got {value!r}")
    return list(value)


def _spec_cards(where: str, name: str, value: Any) -> list[int]:
    if isinstance(value, str) or not isinstance(value, (list, tuple)):
        raise SnapshotError(f"{where}: {name} must be a list of cards (e.g. ['R12', 'G3'] or ids), got {value!r}")
    cards = []
    for item in value:
        if is_int(item) and 0 <= item < NUM_CARDS:
            cards.append(int(item))
        elif isinstance(item, str):
            try:
                cards.append(parse_card(item))
            except ValueError as error:
                raise SnapshotError(f"{where}: {name}: {error}") from None
        else:
            raise SnapshotError(f"{where}: {name} holds {item!r}, not a card (e.g. 'R12' or an id 0..{NUM_CARDS - 1})")
    return cards


def _spec_colours(where: str, name: str, value: Any) -> list[int]:
    """A seat's voids: colours given as letters, names or indices (e.g. ``"RG"``, ``["red", 2]``)."""
    row = [0] * NUM_COLOURS
    items = list(value) if isinstance(value, (str, list, tuple)) else [value]
    for item in items:
        if is_int(item) and 0 <= item < NUM_COLOURS:
            row[int(item)] = 1
        elif isinstance(item, str) and item.strip().upper() in COLOUR_LETTERS and len(item.strip()) == 1:
            row[COLOUR_LETTERS.index(item.strip().upper())] = 1
        elif isinstance(item, str) and item.strip().lower() in COLOURS:
            row[COLOURS.index(item.strip().lower())] = 1
        else:
            raise SnapshotError(f"{where}: {name} holds {item!r}, not a colour ({COLOUR_LETTERS}, a name or 0..4)")
    return row


def _spread(where: str, game: Any, totals: Any, rounds: Any) -> list[list[list[int]]]:
    """A breakdown of past rounds that sums to ``totals``: each seat's points fill its colours in order,
    each up to the most one colour can score in a round."""
    n = game.num_players
    totals = [_int(where, f"totals[{seat}]", total, 0, None)
              for seat, total in enumerate(_spec_list(where, "totals", totals, n))]
    rounds = _int(where, "round", rounds, 0, game.rounds - 1)
    cap = 2 * game.max_value - 1
    most = rounds * NUM_COLOURS * cap
    breakdown = [[[0] * NUM_COLOURS for _ in range(n)] for _ in range(rounds)]
    for seat, total in enumerate(totals):
        if total > most:
            raise SnapshotError(f"{where}: totals[{seat}]={total} is more than {rounds} completed round(s) can "
                                f"score (at most {most}); give round= the rounds completed")
        for cell in range(rounds * NUM_COLOURS):
            breakdown[cell // NUM_COLOURS][seat][cell % NUM_COLOURS] = points = min(total, cap)
            total -= points
    return breakdown
