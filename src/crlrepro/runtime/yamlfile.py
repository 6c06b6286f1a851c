"""The one reader of the project's YAML files (configs, the schema, the papers' values, profiles).

Every YAML file the project owns is read by :func:`read_yaml`: plain data only (no tag that builds an object, so a
crafted file runs nothing), no key written twice in one mapping (plain YAML silently keeps the last), no anchors or
aliases, UTF-8 text; each refusal is one :class:`ConfigError` naming the file and line.
"""

from __future__ import annotations

import copy
import io
import os
import re
from pathlib import Path

import yaml

__all__ = ["ConfigError", "read_yaml"]


class ConfigError(ValueError):
    """A config value (or a file the project reads) that the pipeline cannot run with; the message names the key, or
    the file and line."""


_LOADER_BASE = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's parser where PyYAML has it (~7x faster)


# The deepest nesting a config may have: the project's deepest is 5; Python's own composer failed near a few hundred.
_MAX_DEPTH = 100


def _refuse_alias(event) -> None:
    raise ConfigError(
        f"{event.start_mark.name}, line {event.start_mark.line + 1}: the alias *{event.anchor} "
        "refers to another part of the file; config files may not use YAML anchors and aliases "
        "(write the value out)"
    )


class _UniqueKeyLoader(_LOADER_BASE):
    """A YAML loader that refuses a key written twice in one mapping (plain YAML keeps the last). Aliases (``*name``)
    are refused before it runs (:func:`_read_yaml` scans the events): a config needs none, and they are how a small
    file expands to billions of items or refers to itself (an alias bomb, a recursive alias), which would hang or
    overflow every reader after this one."""

    def construct_mapping(self, node, deep=False):
        seen = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise ConfigError(
                    f"{node.start_mark.name}, line {key_node.start_mark.line + 1}: the key {key!r} is "
                    f"written twice in one mapping (first on line {seen[key] + 1}); YAML would keep only the last"
                )
            seen[key] = key_node.start_mark.line
        return super().construct_mapping(node, deep=deep)


# Files already read by this process, by (path, device, inode, size, modification time in ns): a process that loads
# the workflow many times (an API user, the tests' key sweep) reads each config and schema once. A file whose size,
# inode or modification time changed is read again.
_READ: dict[tuple, object] = {}


def read_yaml(path: str | Path):
    """A YAML file as plain data, refusing duplicate keys, syntax errors and tags that are not plain data (such as
    ``!!python/object``: :class:`ConfigError` naming file and line; nothing in the file is ever run). Each call returns
    data of its own (a copy of what this process read before, while the file is unchanged)."""
    try:
        status = os.stat(path)
    except OSError as error:
        raise ConfigError(f"{path}: cannot be read ({error.strerror})") from None
    key = (str(path), status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns)
    if key not in _READ:
        _READ[key] = _read_yaml(path)
    return copy.deepcopy(_READ[key])


def _read_yaml(path: str | Path):
    try:
        data = Path(path).read_bytes()
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise ConfigError(
            f"{path}, line {line}: not UTF-8 text (byte {data[error.start]:#04x} at offset {error.start}); save the file as UTF-8"
        ) from None
    except OSError as error:
        raise ConfigError(f"{path}: cannot be read ({error.strerror})") from None

    def stream():
        named = io.StringIO(text)
        named.name = str(path)  # the name every YAML error mark carries
        return named

    try:
        depth = 0
        for event in yaml.parse(stream(), Loader=_LOADER_BASE):  # before anything is composed: no alias, no deep nesting
            if isinstance(event, yaml.AliasEvent):
                _refuse_alias(event)
            if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                depth += 1
                if depth > _MAX_DEPTH:  # libyaml composes in C, past Python's recursion limit (and can crash)
                    raise ConfigError(
                        f"{path}, line {event.start_mark.line + 1}: nested too deeply to be a config (over {_MAX_DEPTH} levels)"
                    )
            elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                depth -= 1
        return yaml.load(stream(), Loader=_UniqueKeyLoader)
    except RecursionError:
        raise ConfigError(f"{path}: nested too deeply to be a config") from None
    except ValueError as error:  # Python's int() refuses over 4300 digits (sys.get_int_max_str_digits), as a traceback
        if "integer string conversion" not in str(error):
            raise
        long = re.search(r"\d{1000,}", text)
        line = f", line {text.count(chr(10), 0, long.start()) + 1}" if long else ""
        raise ConfigError(
            f"{path}{line}: an integer of {len(long.group()) if long else 'over 4300'} digits; no config value is that "
            "large (integers past 2^53 are refused)"
        ) from None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        if "nesting depth" in " ".join(filter(None, [error.context, error.problem])):
            # libyaml's own limit (PyYAML >= 6.0.4 stops at 1000 levels while scanning, before our count): one message
            line = f", line {mark.line + 1}" if mark else ""
            raise ConfigError(f"{path}{line}: nested too deeply to be a config (over {_MAX_DEPTH} levels)") from None
        where = f"{path}, line {mark.line + 1}, column {mark.column + 1}" if mark else str(path)
        what = " ".join(filter(None, [error.context, error.problem]))
        raise ConfigError(f"{where}: not valid YAML ({what})") from None
    except yaml.YAMLError as error:
        raise ConfigError(f"{path}: not valid YAML ({error})") from None
