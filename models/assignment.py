"""An assignment of combat damage: ``{source id: {recipient id: amount}}`` (docs/format.md), immutable."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import NoReturn

from .errors import FormatError, expect_int, expect_object, join
from .scenario import Scenario, parse_json_text


class Assignment(Mapping[str, Mapping[str, int]]):
    """Immutable, hashable ``{source: {recipient: amount}}``.

    Amounts are positive integers; zero entries are dropped, so two assignments are equal exactly when
    their docs/format.md JSON objects are equal. A source that assigns nothing maps to an empty mapping.

    Really immutable: ``a[source]`` is a read-only view (``a["s"]["x"] = 7`` raises ``TypeError``) and attributes
    cannot be set, so equality and the hash, computed once, stay those of the contents.
    """

    __slots__ = ("_data", "_key", "_legal_on")
    _data: dict[str, dict[str, int]]
    _key: frozenset[tuple[str, str | None, int]]
    #: set by ``trample.rules.mark_legal`` on a solver's answer: the board, side and rule lists it is legal on (not
    #: part of the value: equality, hashing and pickling ignore it)
    _legal_on: tuple[object, ...]

    def __init__(self, data: Mapping[str, Mapping[str, int]] | tuple[()] = ()):
        self._set_data(data)
        self._set_key()

    def _set_data(self, data: Mapping[str, Mapping[str, int]] | tuple[()]) -> None:
        """The mapping, cleaned: amounts as ints, no 0 entry."""
        clean: dict[str, dict[str, int]] = {}
        for source, split in dict(data).items():
            clean[source] = {r: int(n) for r, n in dict(split).items() if n}
        object.__setattr__(self, "_data", clean)

    def _set_key(self) -> None:
        """The value that equality and hashing read, from the mapping (:meth:`_set_data`)."""
        clean = self._data
        object.__setattr__(
            self,
            "_key",
            frozenset((s, r, n) for s, split in clean.items() for r, n in split.items())
            | frozenset((s, None, 0) for s in clean),
        )

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError("Assignment is immutable")

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError("Assignment is immutable")

    def __reduce__(
        self,
    ) -> tuple[
        type[Assignment], tuple[dict[str, dict[str, int]]]
    ]:  # pickling (worker processes) and copy rebuild it rather than set its attributes
        return (Assignment, (self._data,))

    # Mapping protocol
    def __getitem__(self, source: str) -> Mapping[str, int]:
        return MappingProxyType(self._data[source])  # a read-only view: the inner dicts are never handed out

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Assignment):
            return self._key == other._key
        if isinstance(other, Mapping):
            try:
                return self == Assignment(other)
            except (TypeError, ValueError):
                return False
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._key)

    def __repr__(self) -> str:
        return f"Assignment({self._data!r})"

    # Queries
    def amount(self, source: str, recipient: str) -> int:
        """The damage ``source`` assigns to ``recipient`` (0 when none)."""
        return self._data.get(source, {}).get(recipient, 0)

    def total_from(self, source: str) -> int:
        """Everything ``source`` assigns."""
        return sum(self._data.get(source, {}).values())

    def total_to(self, recipient: str) -> int:
        """Everything assigned to ``recipient``, from every source."""
        return sum(split.get(recipient, 0) for split in self._data.values())

    def to_json(self) -> dict[str, dict[str, int]]:
        """The docs/format.md JSON object (a fresh copy)."""
        return {s: dict(split) for s, split in self._data.items()}

    def dumps(self) -> str:
        return json.dumps(self._data, separators=(",", ":"))


def load_assignment(data: object, scenario: Scenario | None = None, path: str = "assignment") -> Assignment:
    """Validate the JSON shape of an assignment; with a scenario, every id must name one of its objects.

    Which sources and recipients are *legal* is the checker's business, not this loader's.
    """
    if isinstance(data, (str, bytes)):
        data = parse_json_text(data if isinstance(data, str) else data.decode("utf-8"), path)
    obj = expect_object(data, path)
    out: dict[str, dict[str, int]] = {}
    for source, split in obj.items():
        where = join(path, source)
        if scenario is not None and source not in scenario:
            raise FormatError(where, f'unknown source "{source}"')
        row: dict[str, int] = {}
        for recipient, amount in expect_object(split, where).items():
            w = join(where, recipient)
            if scenario is not None and recipient not in scenario:
                raise FormatError(w, f'unknown recipient "{recipient}"')
            row[recipient] = expect_int(amount, w, minimum=0)
        out[source] = row
    return Assignment(out)
