"""The one reader of YAML that users write: training configs and game-data files (and the shipped ones).

A file is read only if it is a regular file of at most ``MAX_BYTES`` of UTF-8 text; its text must be
safe YAML (no tags that build objects) with no key given twice in one mapping (plain YAML keeps the
last value silently; a merge key ``<<`` may be overridden). Every problem is a :class:`ConfigError`
that starts with the caller's ``source`` (the file, or how the user named it) and says what is wrong.
"""

from __future__ import annotations

import os
import stat
from importlib import resources
from typing import Any

import yaml

from .options import ConfigError

#: The most bytes a YAML file may hold (the shipped ones are a few kB).
MAX_BYTES = 1 << 20


def read_yaml(path: str | os.PathLike, source: str, what: str) -> Any:
    """The data of the YAML file at ``path``; ``what`` names the kind of file in errors (``"config file"``)."""
    return parse_yaml(read_text(path, source, what), source)


def shipped_yaml(file: str) -> Any:
    """The data of a YAML file shipped in ``hiddenhand.configs`` (``file`` relative to it, and its errors' source)."""
    return parse_yaml(resources.files("hiddenhand.configs").joinpath(file).read_text(encoding="utf-8"), file)


def read_text(path: str | os.PathLike, source: str, what: str) -> str:
    """The text of a regular file of at most ``MAX_BYTES``, UTF-8 (read once, never past the bound)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise ConfigError(f"{source}: not a regular file")
        with open(path, "rb") as file:
            raw = file.read(MAX_BYTES + 1)
    except OSError as error:
        raise ConfigError(f"{source}: cannot be read ({error.strerror or error})") from None
    if len(raw) > MAX_BYTES:
        raise ConfigError(f"{source}: {MAX_BYTES + 1:,} bytes or more, more than a {what} may hold ({MAX_BYTES:,})")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        raise ConfigError(f"{source}: not UTF-8 text: byte {raw[error.start]:#04x} on line {line} (offset "
                          f"{error.start}, {error.reason}); save the file as UTF-8") from None


def parse_yaml(text: str, source: str) -> Any:
    """The data of YAML ``text``: safe, each key once per mapping."""
    try:
        return yaml.load(text, Loader=_StrictLoader)  # noqa: S506 - a SafeLoader subclass
    except _KeyGivenTwice as error:
        raise ConfigError(f"{source}: {error}; each key may be given once per mapping") from None
    except yaml.YAMLError as error:
        raise ConfigError(f"{source}: not valid YAML ({_described(error)})") from None
    except RecursionError:
        raise ConfigError(f"{source}: not valid YAML (nested too deeply)") from None


def _described(error: yaml.YAMLError) -> str:
    """A parser's or constructor's error in one line, with where it is."""
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    if mark is None:
        return f"invalid YAML: {' '.join(str(error).split())}"
    problem = ", ".join(part for part in (getattr(error, "context", None), getattr(error, "problem", None)) if part)
    return f"invalid YAML at line {mark.line + 1}, column {mark.column + 1}: {problem}"


class _KeyGivenTwice(yaml.YAMLError):
    pass


class _StrictLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing a key given twice in a mapping. Its parser is Python's (not the C
    one): too deep a nesting ends in a RecursionError while parsing, before it reaches the data."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen: dict[Any, int] = {}
        if isinstance(node, yaml.MappingNode):
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    first = seen.get(key)
                except TypeError:  # unhashable: the safe constructor names it below
                    continue
                line = key_node.start_mark.line + 1
                if first is not None:
                    raise _KeyGivenTwice(f"key {key!r:.80} is given twice (lines {first} and {line})")
                seen[key] = line
        return super().construct_mapping(node, deep=deep)

