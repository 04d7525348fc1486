"""Validated options: one mechanism, one error type, for env options, game data and training configs.

A game declares its options once as :class:`Option` specs; :meth:`Options.resolve` fills in defaults,
rejects unknown names and checks every value, raising :class:`ConfigError` that names the option, the
value given and what is allowed. Integers may be numpy integers (converted to ``int``); booleans are
never accepted as integers.

>>> OPTIONS = Options("demo", [Option("rounds", 3, Int(1, 100), "rounds per game")])
>>> OPTIONS.resolve({})
{'rounds': 3}
>>> OPTIONS.resolve({"rounds": 0})
Traceback (most recent call last):
...
hiddenhand.envs.core.options.ConfigError: demo: rounds=0 is not allowed; allowed: an int in 1..100
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


class ConfigError(ValueError):
    """An invalid option, configuration file or game-data file; the message names what and why."""


class Kind:
    """What values an option allows: ``convert`` returns the canonical value or raises ``ValueError``."""

    allowed: str = "any value"

    def convert(self, value: Any) -> Any:
        return value


def is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


class Int(Kind):
    def __init__(self, low: int | None = None, high: int | None = None, multiple_of: int | None = None):
        self.low, self.high, self.multiple_of = low, high, multiple_of
        bounds = (f" in {low}..{high}" if low is not None and high is not None
                  else f" >= {low}" if low is not None else f" <= {high}" if high is not None else "")
        self.allowed = f"an int{bounds}" + (f", a multiple of {multiple_of}" if multiple_of else "")

    def convert(self, value: Any) -> int:
        if not is_int(value):
            raise ValueError
        value = int(value)
        if (self.low is not None and value < self.low) or (self.high is not None and value > self.high) \
                or (self.multiple_of and value % self.multiple_of):
            raise ValueError
        return value


class Float(Kind):
    """A finite number (ints accepted, booleans never; NaN and infinities refused) within the bounds; ``low`` is
    exclusive when ``above`` is true (``Float(0.0, above=True)``: a positive number)."""

    def __init__(self, low: float | None = None, high: float | None = None, above: bool = False):
        self.low, self.high, self.above = low, high, above
        parts = ([f"> {low}" if above else f">= {low}"] if low is not None else []) + \
            ([f"<= {high}"] if high is not None else [])
        self.allowed = "a finite number" + (f" {' and '.join(parts)}" if parts else "")

    def convert(self, value: Any) -> float:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise ValueError
        value = float(value)
        if not math.isfinite(value) or (self.high is not None and value > self.high) or (
                self.low is not None and (value <= self.low if self.above else value < self.low)):
            raise ValueError
        return value


class Bool(Kind):
    allowed = "True or False"

    def convert(self, value: Any) -> bool:
        if not isinstance(value, (bool, np.bool_)):
            raise ValueError
        return bool(value)


class Choice(Kind):
    def __init__(self, *choices: Any):
        self.choices = choices
        self.allowed = f"one of {list(choices)}"

    def convert(self, value: Any) -> Any:
        if isinstance(value, (bool, np.bool_)) or value not in self.choices:
            raise ValueError
        return value


class IntList(Kind):
    """A fixed-length list of ints (returned as a tuple)."""

    def __init__(self, length: int, low: int = 0, high: int | None = None):
        self.length, self.item = length, Int(low, high)
        self.allowed = f"a list of {length} ints, each {self.item.allowed.removeprefix('an int ')}"

    def convert(self, value: Any) -> tuple[int, ...]:
        if not isinstance(value, (list, tuple)) or len(value) != self.length:
            raise ValueError
        return tuple(self.item.convert(v) for v in value)


class Optional(Kind):
    """``None`` or a value of ``kind``."""

    def __init__(self, kind: Kind):
        self.kind = kind
        self.allowed = f"None or {kind.allowed}"

    def convert(self, value: Any) -> Any:
        return None if value is None else self.kind.convert(value)


@dataclass(frozen=True)
class Option:
    name: str
    default: Any
    kind: Kind
    doc: str = ""


class Options:
    """A game's option specs, in declaration order."""

    def __init__(self, owner: str, specs: Sequence[Option]):
        self.owner = owner
        self.specs = {spec.name: spec for spec in specs}

    def resolve(self, given: Mapping[str, Any], where: str | None = None) -> dict[str, Any]:
        """Defaults plus ``given``, every value checked; ``where`` (a file, say) prefixes errors."""
        where = where or self.owner
        unknown = sorted(set(given) - set(self.specs))
        if unknown:
            raise ConfigError(f"{where}: unknown option(s) {unknown}; options: {sorted(self.specs)}")
        return {name: check(where, name, given.get(name, spec.default), spec.kind)
                for name, spec in self.specs.items()}


def check(where: str, name: str, value: Any, kind: Kind) -> Any:
    """``kind.convert(value)``, or a :class:`ConfigError` naming ``name``, ``value`` and what is allowed."""
    try:
        return kind.convert(value)
    except (ValueError, TypeError):
        raise ConfigError(f"{where}: {name}={value!r} is not allowed; allowed: {kind.allowed}") from None


def check_with(where: str, name: str, value: Any, test: Callable[[Any], bool], allowed: str) -> None:
    """A cross-option or data rule: ``ConfigError`` unless ``test(value)``."""
    if not test(value):
        raise ConfigError(f"{where}: {name}={value!r} is not allowed; allowed: {allowed}")
