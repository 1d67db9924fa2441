"""The one error type for bad input: it names the place in the document."""

from __future__ import annotations


class FormatError(ValueError):
    """Bad input. ``str(err)`` is one line: ``"<path>: <message>"``.

    ``path`` is a JSON path such as ``attackers[0].power`` (empty for the document itself).
    The command line prints ``str(err)`` on standard error and exits with code 2.
    """

    def __init__(self, path: str, message: str):
        self.path = path
        self.message = message
        super().__init__(f"{path}: {message}" if path else message)


def join(path: str, key: str | int) -> str:
    """Extend a JSON path by an object key or a list index."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def expect_int(value, path: str, *, minimum: int | None = None) -> int:
    """An integer (never a bool or a float), optionally bounded below."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise FormatError(path, f"expected an integer, got {_show(value)}")
    if minimum is not None and value < minimum:
        if minimum == 0:
            raise FormatError(path, f"must not be negative, got {value}")
        raise FormatError(path, f"must be at least {minimum}, got {value}")
    return value


def expect_number(value, path: str) -> float | int:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise FormatError(path, f"expected a number, got {_show(value)}")
    if value != value or value in (float("inf"), float("-inf")):
        raise FormatError(path, "expected a finite number")
    return value


def expect_str(value, path: str) -> str:
    if not isinstance(value, str):
        raise FormatError(path, f"expected a string, got {_show(value)}")
    if not value:
        raise FormatError(path, "expected a non-empty string")
    return value


def expect_bool(value, path: str) -> bool:
    if not isinstance(value, bool):
        raise FormatError(path, f"expected true or false, got {_show(value)}")
    return value


def expect_list(value, path: str) -> list:
    if not isinstance(value, list):
        raise FormatError(path, f"expected a list, got {_show(value)}")
    return value


def expect_object(value, path: str) -> dict:
    if not isinstance(value, dict):
        raise FormatError(path, f"expected an object, got {_show(value)}")
    return value


def reject_unknown(obj: dict, allowed, path: str) -> None:
    for key in obj:
        if key not in allowed:
            raise FormatError(join(path, key), "unknown field")


def _show(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"' if len(value) <= 30 else f'"{value[:27]}..."'
    if isinstance(value, (list, dict)):
        return "a list" if isinstance(value, list) else "an object"
    return repr(value)
