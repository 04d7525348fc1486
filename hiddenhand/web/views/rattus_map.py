"""Where the page draws each Rattus region: the shipped map's regions at their places in Europe, any other
board (a user's ``config`` with its own region names) laid out from its adjacency alone by a small,
deterministic spring layout. Coordinates are in a 100 x 70 box."""

from __future__ import annotations

import math
from functools import lru_cache

WIDTH, HEIGHT = 100.0, 70.0
EUROPE = {"Anglia": (17, 20), "Scandia": (50, 8), "Russia": (83, 13), "Gallia": (22, 40), "Germania": (42, 28),
          "Polonia": (62, 27), "Tartaria": (86, 35), "Hispania": (9, 60), "Italia": (38, 57), "Hungaria": (59, 45),
          "Bulgaria": (72, 58), "Turcia": (91, 62)}
ROUNDS = 400


@lru_cache(maxsize=32)
def positions(regions: tuple[str, ...], adjacency: tuple[tuple[int, ...], ...]) -> tuple[tuple[float, float], ...]:
    """(x, y) per region index."""
    if all(name in EUROPE for name in regions):
        return tuple((float(EUROPE[name][0]), float(EUROPE[name][1])) for name in regions)
    return _spring(len(regions), adjacency)


def _spring(count: int, adjacency: tuple[tuple[int, ...], ...]) -> tuple[tuple[float, float], ...]:
    """Neighbours pull, every pair pushes (Fruchterman-Reingold on a cooling schedule), from a circle."""
    xy = [[math.cos(2 * math.pi * i / count), math.sin(2 * math.pi * i / count)] for i in range(count)]
    edges = {(a, b) for a in range(count) for b in adjacency[a] if a < b}
    ideal = 1.6 / math.sqrt(count)
    for step in range(ROUNDS):
        heat = 0.1 * (1 - step / ROUNDS) + 0.002
        push = [[0.0, 0.0] for _ in range(count)]
        for a in range(count):
            for b in range(a + 1, count):
                dx, dy = xy[a][0] - xy[b][0], xy[a][1] - xy[b][1]
                d2 = max(dx * dx + dy * dy, 1e-4)
                force = ideal * ideal / d2
                push[a][0] += dx * force
                push[a][1] += dy * force
                push[b][0] -= dx * force
                push[b][1] -= dy * force
        for a, b in edges:
            dx, dy = xy[a][0] - xy[b][0], xy[a][1] - xy[b][1]
            d = max(math.hypot(dx, dy), 1e-3)
            pull = d / ideal
            push[a][0] -= dx * pull
            push[a][1] -= dy * pull
            push[b][0] += dx * pull
            push[b][1] += dy * pull
        for a in range(count):
            length = max(math.hypot(*push[a]), 1e-9)
            move = min(length, heat)
            xy[a][0] += push[a][0] / length * move
            xy[a][1] += push[a][1] / length * move
    xs, ys = [p[0] for p in xy], [p[1] for p in xy]
    span_x, span_y = max(max(xs) - min(xs), 1e-9), max(max(ys) - min(ys), 1e-9)
    return tuple((round(8 + (x - min(xs)) / span_x * (WIDTH - 16), 1), round(8 + (y - min(ys)) / span_y * (HEIGHT - 16), 1))
                 for x, y in xy)
