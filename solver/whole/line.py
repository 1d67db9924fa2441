"""A line of a whole combat: :class:`CombatLine` (both steps' assignments) and :func:`load_line`."""

from __future__ import annotations

from collections.abc import Mapping

from ..models import Assignment, FormatError, Scenario, Step, load_assignment, parse_json_text
from ..models.errors import expect_object, join

STEP_KEYS = ("first_strike", "regular")


STEP_NAMES = {"first_strike": "first-strike step", "regular": "regular step"}


class CombatLine(Mapping):
    """One line of a whole combat: ``{"first_strike": Assignment, "regular": Assignment}``; immutable, hashable.

    Equal to another line, or to a plain dict of the same shape, when both steps' assignments are equal.
    """

    __slots__ = ("first_strike", "regular")
    first_strike: Assignment
    regular: Assignment

    def __init__(self, first_strike, regular):
        object.__setattr__(
            self, "first_strike", first_strike if isinstance(first_strike, Assignment) else Assignment(first_strike)
        )
        object.__setattr__(self, "regular", regular if isinstance(regular, Assignment) else Assignment(regular))

    def __setattr__(self, name, value):
        raise AttributeError("CombatLine is immutable")

    def __reduce__(self):  # pickles (process pools, Dask) through the constructor, not attribute by attribute
        return (CombatLine, (self.first_strike, self.regular))

    def __getitem__(self, step: str) -> Assignment:
        if step == Step.FIRST_STRIKE:
            return self.first_strike
        if step == Step.REGULAR:
            return self.regular
        raise KeyError(step)

    def __iter__(self):
        return iter(STEP_KEYS)

    def __len__(self) -> int:
        return 2

    def __eq__(self, other) -> bool:
        if isinstance(other, CombatLine):
            return self.first_strike == other.first_strike and self.regular == other.regular
        if isinstance(other, Mapping):
            if set(other) != set(STEP_KEYS):
                return False
            return self.first_strike == other["first_strike"] and self.regular == other["regular"]
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.first_strike, self.regular))

    def __repr__(self) -> str:
        return f"CombatLine(first_strike={self.first_strike.to_json()!r}, regular={self.regular.to_json()!r})"

    def to_json(self) -> dict:
        return {"first_strike": self.first_strike.to_json(), "regular": self.regular.to_json()}


def load_line(data, scenario: Scenario | None = None, path: str = "assignment") -> CombatLine:
    """Validate the JSON shape of a combat line ``{"first_strike": {...}, "regular": {...}}`` (both required)."""
    if isinstance(data, CombatLine):
        return data
    if isinstance(data, (str, bytes)):
        data = parse_json_text(data if isinstance(data, str) else data.decode("utf-8"), path)
    obj = expect_object(data, path)
    for key in obj:
        if key not in STEP_KEYS:
            raise FormatError(
                join(path, key), 'unknown field (a whole-combat line is {"first_strike": {...}, "regular": {...}})'
            )
    for key in STEP_KEYS:
        if key not in obj:
            raise FormatError(
                join(path, key),
                'required field is missing (a whole-combat line is {"first_strike": {...}, "regular": {...}})',
            )
    return CombatLine(
        load_assignment(obj["first_strike"], scenario, join(path, "first_strike")),
        load_assignment(obj["regular"], scenario, join(path, "regular")),
    )
