"""The one error type for bad input: it names the place in the document."""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any


class FormatError(ValueError):
    """Bad input. ``str(err)`` is one line: ``"<path>: <message>"``.

    ``path`` is a JSON path such as ``attackers[0].power`` (empty for the document itself).
    The command line prints ``str(err)`` on standard error and exits with code 2.
    """

    def __init__(self, path: str, message: str):
        self.path = one_line(path)
        self.message = one_line(message)
        super().__init__(f"{self.path}: {self.message}" if self.path else self.message)


# Characters that str.splitlines() (and terminals) treat as line breaks: an id such as "a\nb" must not turn the
# one-line error into two.
_BREAKS = {c: c.encode("unicode_escape").decode("ascii") for c in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"}
_BREAKS_TABLE = str.maketrans(_BREAKS)


def one_line(text: str) -> str:
    """``text`` with its line breaks written as escapes (``\\n``), so that it prints as one line."""
    return str(text).translate(_BREAKS_TABLE)


def join(path: str, key: str | int) -> str:
    """Extend a JSON path by an object key or a list index."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def expect_int(value: object, path: str, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """An integer (never a bool or a float), optionally bounded below and above."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise FormatError(path, f"expected an integer, got {_show(value)}")
    if minimum is not None and value < minimum:
        if minimum == 0:
            raise FormatError(path, f"must not be negative, got {_show(value)}")
        raise FormatError(path, f"must be at least {minimum}, got {_show(value)}")
    if maximum is not None and value > maximum:
        raise FormatError(path, f"must be at most {maximum}, got {_show(value)}")
    return value


def expect_number(value: object, path: str, *, bound: int | float | None = None) -> float | int:
    """A finite number (never a bool); with ``bound``, between ``-bound`` and ``bound``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise FormatError(path, f"expected a number, got {_show(value)}")
    if value != value or value in (float("inf"), float("-inf")):
        raise FormatError(path, "expected a finite number")
    if bound is not None and not -bound <= value <= bound:
        raise FormatError(path, f"must be between -{bound} and {bound}, got {_show(value)}")
    return value


def expect_str(value: object, path: str) -> str:
    """A non-empty string of Unicode text (no lone surrogate)."""
    if not isinstance(value, str):
        raise FormatError(path, f"expected a string, got {_show(value)}")
    if not value:
        raise FormatError(path, "expected a non-empty string")
    if not _is_unicode(value):  # "\ud800" decodes to half of a UTF-16 pair, which no output can encode
        raise FormatError(path, "expected Unicode text, got a lone surrogate escape (\\ud800-\\udfff)")
    return value


def _is_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def expect_bool(value: object, path: str) -> bool:
    if not isinstance(value, bool):
        raise FormatError(path, f"expected true or false, got {_show(value)}")
    return value


def expect_list(value: object, path: str) -> list[Any]:
    if not isinstance(value, list):
        raise FormatError(path, f"expected a list, got {_show(value)}")
    return value


def expect_object(value: object, path: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise FormatError(path, f"expected an object, got {_show(value)}")
    return value


def reject_unknown(obj: dict[str, Any], allowed: Collection[str], path: str) -> None:
    """An unknown field is bad input (a misspelt one would otherwise be silently ignored)."""
    for key in obj:
        if key not in allowed:
            raise FormatError(join(path, key), "unknown field")


def _show(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        shown = json.dumps(value if len(value) <= 30 else value[:27], ensure_ascii=False)
        return shown if len(value) <= 30 else f'{shown[:-1]}..."'
    if isinstance(value, (list, dict)):
        return "a list" if isinstance(value, list) else "an object"
    if isinstance(value, int) and not -(10**30) < value < 10**30:
        return f"a {len(str(abs(value)))}-digit number" if value > 0 else f"a {len(str(-value))}-digit negative number"
    return repr(value)


def brief(value: object) -> str:
    """A value as an error message shows it: its JSON text when short, else what it is ("a list", "an object";
    never a RecursionError on a value nested hundreds of levels deep)."""
    if isinstance(value, (list, dict)):
        try:
            text = json.dumps(value, ensure_ascii=False)
        except (RecursionError, ValueError, TypeError):
            return _show(value)
        return text if len(text) <= 40 else _show(value)
    if isinstance(value, str):
        return _show(value)
    try:
        return json.dumps(value)
    except (ValueError, TypeError):
        return _show(value)
