"""Rattus scripted agents: the heuristic baseline, the spec's ``placer`` and ``peasant-rush`` (§10.8,
RA-2), AM-1's card specialists and the ``contest`` bot. All read only their observation (``layout.views``)
and the public game data (map, action decoding), so they play any seat and player count.

* ``placer``: takes no card, places in a region with the most tokens, moves the plague and new rats
  towards opposing cubes and away from its own (ties towards more opposing cubes).
* ``peasant-rush``: a placer that takes the Peasant whenever it lacks it and places with the bonus.
* ``merchant``, ``monk``, ``knight``, ``king``: a placer that takes and keeps that card and uses it
  greedily (Merchant: cubes out of the most threatened region; Monk: a token from where it leads to where
  others lead; Knight: the best of the two-step targets; King: bank a cube every turn it can, from a
  token-free region chosen at random, as its danger measure scores them all 0).
* ``contest``: a placer that takes a card an opponent took since its own last turn (abilities used are
  not in the observation; a card changing hands is the visible sign of an opponent relying on it).

Heuristic idea: a cube is worth keeping only if the plague will not eat it. The agent values a
placement by the cubes it gains less the cubes it expects to lose there, a risk that grows with the
region's tokens and with the plague's reach (the plague region and its neighbours, two steps with a
Knight). It moves the plague, and puts new rats, where opponents have more cubes than it has; it takes
the King while it has cubes in token-free regions to bank, otherwise the card whose class symbol threatens
its own cubes most (holding a class card makes you its target, so it takes cards opponents would use
against it only when they help), uses the King and the Merchant to pull cubes out of danger, and the
Monk to push a token from its own stronghold towards an opponent's.
"""

from __future__ import annotations

import numpy as np

from hiddenhand.envs.rattus import actions as A
from hiddenhand.envs.rattus.config import KING, KNIGHT, MERCHANT, MONK, PEASANT
from hiddenhand.envs.rattus.decisions import (
    KNIGHT_STEP, MAIN, OPENING, PLAGUE_MOVE, SPREAD, WITCH_DECIDE, WITCH_SECOND,
)
from hiddenhand.envs.rattus.observation import RattusObserver

from ..base import Agent

CARD_OF = {"peasant-rush": PEASANT, "merchant": MERCHANT, "monk": MONK, "knight": KNIGHT, "king": KING}
STYLES = ("heuristic", "placer", "contest", *CARD_OF)


class RattusBot(Agent):
    """One scripted player; ``style`` is one of :data:`STYLES`."""

    def __init__(self, game, seed: int | None = None, style: str = "heuristic"):
        if style not in STYLES:
            raise ValueError(f"rattus bot: unknown style {style!r}; styles: {list(STYLES)}")
        self.game, self.style, self.name = game, style, style
        self.layout = RattusObserver.build_layout(game)
        self.kinds, self.args = game.kinds, game.args
        self._rng = np.random.default_rng(seed)
        self._holders: np.ndarray | None = None

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self._holders = None

    # ------------------------------------------------------------------ reading the view
    def _read(self, observation: np.ndarray):
        v = self.layout.views(observation)
        reg = v["regions"]
        self.tokens = reg[:, 2]
        self.mine = reg[:, 3]
        self.theirs = reg[:, 4:7].sum(axis=1)
        self.plague = int(np.argmax(reg[:, 1]))
        self.hold = np.argmax(v["cards"], axis=1) - 1  # -1 unheld, else relative seat
        return v

    def danger(self, r: int) -> float:
        """Rough chance-weighted tokens the plague will reveal in ``r`` soon."""
        reach = 1.0 if r == self.plague else 0.6 if r in self.game.nbrs[self.plague] else 0.25
        return self.tokens[r] * reach

    def pressure(self, r: int) -> float:
        """How much a plague (or a rat) in ``r`` hurts the others more than this player: the cube
        difference, ties broken towards more opposing cubes, damped where no token waits."""
        return (self.theirs[r] * 1.25 - self.mine[r]) * (1.0 if self.tokens[r] else 0.3)

    # ------------------------------------------------------------------ acting
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        if len(legal) == 1:
            return int(legal[0])
        v = self._read(observation)
        phase = int(np.argmax(v["phase"]))
        by_kind: dict[int, list[int]] = {}
        for a in legal.tolist():
            by_kind.setdefault(self.kinds[a], []).append(a)
        if phase == OPENING:
            return self._best(by_kind[A.PLACE], lambda a: -self.danger(self.args[a][0]) - 0.3 * self.mine[self.args[a][0]])
        if phase in (PLAGUE_MOVE, KNIGHT_STEP, SPREAD):
            return self._move(phase, by_kind)
        if phase == WITCH_SECOND:
            return int(by_kind[A.PEEK][0])
        if phase == WITCH_DECIDE:
            return int(by_kind[A.KEEP][0])
        return self._main(v, phase, by_kind)

    def _best(self, actions: list[int], value) -> int:
        values = [value(a) for a in actions]
        top = max(values)
        best = [a for a, x in zip(actions, values) if x >= top - 1e-9]
        return int(best[self._rng.integers(len(best))])

    def _move(self, phase: int, by_kind) -> int:
        if phase == SPREAD:
            return self._best(by_kind[A.SPREAD], lambda a: self.pressure(self.args[a][0]))
        options = by_kind.get(A.MOVE, [])
        if phase == KNIGHT_STEP:
            stay = self.pressure(self.plague)
            best = self._best(options, lambda a: self.pressure(self.args[a][0])) if options else None
            if best is None or self.pressure(self.args[best][0]) <= stay:
                return int(by_kind[A.STOP][0])
            return best
        knight = self.hold[KNIGHT] == 0
        return self._best(options, lambda a: self._reach_value(self.args[a][0], knight))

    def _reach_value(self, r: int, knight: bool) -> float:
        value = self.pressure(r)
        if knight:
            value = max([value] + [self.pressure(t) for t in self.game.nbrs[r] if t != self.plague])
        return value

    def _main(self, v, phase: int, by_kind) -> int:
        flags = v["flags"]
        style = self.style
        if phase == MAIN and not flags[0] and A.TAKE in by_kind:
            card = self._card_wanted(v)
            if card is not None and self.game.a_take + card in by_kind[A.TAKE]:
                self._holders = None
                return self.game.a_take + card
        if phase == MAIN:
            self._holders = self.hold.copy()
        for kind in (A.KING, A.MERCHANT, A.MONK):
            if kind in by_kind and (style == "heuristic" or CARD_OF.get(style) == _CARD_OF_KIND[kind]):
                action = self._ability(kind, by_kind[kind])
                if action is not None:
                    return action
        places = by_kind.get(A.PLACE, []) + by_kind.get(A.PEASANT_PLACE, [])
        if places:
            return self._place(places)
        return int(by_kind[A.END][0])

    def _card_wanted(self, v) -> int | None:
        style, hold = self.style, self.hold
        if style in CARD_OF:
            card = CARD_OF[style]
            return card if hold[card] != 0 else None
        if style == "contest":
            previous = self._holders
            if previous is None:
                return None
            for card in range(6):
                if hold[card] > 0 and previous[card] != hold[card]:
                    return card
            return None
        if style == "heuristic":
            if hold[KING] != 0 and any(self.mine[r] and not self.tokens[r] for r in self.game.in_play):
                return KING
            if hold[PEASANT] != 0:
                return PEASANT
        return None

    def _ability(self, kind: int, actions: list[int]) -> int | None:
        args = self.args
        if kind == A.KING:
            return self._best(actions, lambda a: self.danger(args[a][0]))
        if kind == A.MERCHANT:
            best = self._best(actions, lambda a: (self.danger(args[a][0]) - self.danger(args[a][1])) * args[a][2])
            f, t, m = args[best]
            return best if self.danger(f) - self.danger(t) > 0.5 else None
        if kind == A.MONK:
            best = self._best(actions, lambda a: self.pressure(args[a][2]) - self.pressure(args[a][0]))
            f, _, t = args[best]
            return best if self.pressure(t) - self.pressure(f) > 0 else None
        return None

    def _place(self, places: list[int]) -> int:
        args, kinds = self.args, self.kinds
        bonus = self.game.peasant_bonus
        if self.style != "heuristic":
            rush = self.style == "peasant-rush"
            return self._best(places, lambda a: self.tokens[args[a][0]] + (bonus if kinds[a] == A.PEASANT_PLACE else 0)
                              + (100 if rush and kinds[a] == A.PEASANT_PLACE else 0))

        def value(a: int) -> float:
            r = args[a][0]
            gain = self.tokens[r] + (bonus if kinds[a] == A.PEASANT_PLACE else 0)
            share = (self.mine[r] + gain) / max(1.0, self.mine[r] + gain + self.theirs[r])
            return gain - 0.5 * self.danger(r) * (1 + share) * (self.mine[r] + gain) / 3.0
        return self._best(places, value)


_CARD_OF_KIND = {A.KING: KING, A.MERCHANT: MERCHANT, A.MONK: MONK}


class RattusHeuristic(RattusBot):
    """The registered heuristic baseline (see the module docstring)."""

    name = "heuristic"

    def __init__(self, game, seed: int | None = None):
        super().__init__(game, seed, "heuristic")


# ---------------------------------------------------------------------- calibration (AM-1)
SPECIALISTS = ("peasant-rush", "merchant", "monk", "knight", "king", "contest")
CARD_SPECIALISTS = ("merchant", "monk", "knight", "king")


def play_bots(game, styles: list[str], seed: int) -> tuple[list[int], int, list[float]]:
    """One game of scripted bots (``styles`` by seat) on the rules engine: winners, end reason, scores."""
    from hiddenhand.envs.rattus.observation import RattusObserver

    rng = np.random.default_rng(seed)
    observer = RattusObserver(game)
    bots = [RattusBot(game, seed * 10 + p, style) for p, style in enumerate(styles)]
    state = game.new_initial_state(rng)
    while not state.is_terminal:
        p = state.current_player
        state.apply(bots[p].act(observer.encode(state, p), state.legal_mask()), rng)
    return state.winners(), state.end_reason, state.scores()


def calibrate(games: int = 1000, players=(2, 3, 4), **options) -> dict:
    """AM-1's gates G1-G3 with ``games`` games per measurement (seats rotated) and the ending frequencies
    of ``placer`` self-play; returns the figures and prints them."""
    from hiddenhand.envs.rattus.decisions import END_REASONS
    from hiddenhand.envs.rattus.rules import RattusGame

    report: dict = {}
    for n in players:
        game = RattusGame(n, **options)
        endings = [0] * len(END_REASONS)
        total = 0.0
        for i in range(games):
            _, reason, scores = play_bots(game, ["placer"] * n, i)
            endings[reason] += 1
            total += sum(scores) / n
        row = {"endings": {END_REASONS[k]: endings[k] / games for k in range(len(END_REASONS))},
               "mean_placer_score": total / games}
        row["G1"] = row["endings"]["all_cubes_placed"] <= (0.5 if n == 2 else 0.25)
        row["G2"] = row["mean_placer_score"] <= 13
        for field in ("peasant-rush", "placer"):
            rates = {}
            for style in SPECIALISTS:
                if style == field:
                    continue
                won = 0.0
                for i in range(games):
                    seat = i % n
                    styles = [field] * n
                    styles[seat] = style
                    winners, _, _ = play_bots(game, styles, 100_000 + i)
                    won += (seat in winners) / len(winners)
                rates[style] = won / games
            row[f"vs_{field}"] = rates
        fair = 1 / n  # G3: two of AM-1's four card specialists reach 1/n (the contest bot is no specialist)
        row["G3"] = (sum(row["vs_peasant-rush"][s] >= fair for s in CARD_SPECIALISTS) >= 2
                     and all(r <= 1.5 * fair for r in row["vs_placer"].values()))
        report[n] = row
        print(format_row(n, row), flush=True)
    return report


def format_row(n: int, row: dict) -> str:
    """One player count's figures as text."""
    endings = ", ".join(f"{name} {share:.0%}" for name, share in row["endings"].items())
    lines = [f"{n} players: placer self-play endings: {endings}; mean placer score "
             f"{row['mean_placer_score']:.1f}; G1 {'pass' if row['G1'] else 'fail'}, "
             f"G2 {'pass' if row['G2'] else 'fail'}, G3 {'pass' if row['G3'] else 'fail'}"]
    for field in ("peasant-rush", "placer"):
        rates = ", ".join(f"{style} {rate:.2f}" for style, rate in row[f"vs_{field}"].items())
        lines.append(f"  one specialist vs {n - 1} {field} (fair {1 / n:.2f}): {rates}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    """``python -m hiddenhand.agents.heuristics.rattus [--games N] [--token-table NAME] [--players 2 3 4]``:
    rerun AM-1's calibration gates and print how often each ending occurs."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--token-table", default="calibrated")
    parser.add_argument("--config", default=None, help="a YAML file of game data (e.g. a token table)")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    args = parser.parse_args(argv)
    calibrate(args.games, tuple(args.players), token_table=args.token_table, config=args.config)


if __name__ == "__main__":
    main()
