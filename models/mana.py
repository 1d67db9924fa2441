"""Mana costs and mana pools of the declarations (508.1h, 509.1d; docs/declare.md "Costs"): what attacking or
blocking costs, and what a player can pay it with.

- A **cost** is an integer ``N`` (``{N}``: generic mana, 107.4b) or mana symbols as printed, ``"{2}{W}"``: ``{N}``
  generic, ``{W}`` ``{U}`` ``{B}`` ``{R}`` ``{G}`` one mana of that colour (105.1, 107.4a), ``{C}`` one colourless
  mana (107.4c). Hybrid, Phyrexian, ``{X}`` and snow symbols are not read (bad input).
- A **pool** (``mana``) is an integer ``N`` (``N`` mana of no stated type: it pays generic costs only, as before
  coloured costs were read) or an object ``{"W": 1, "U": 0, "B": 0, "R": 0, "G": 2, "C": 0, "generic": 1}``: the
  mana of each type the player can produce to pay (any key may be left out; ``generic``: mana of no stated type).

A total cost is payable from a pool (:func:`payable`) when each coloured or colourless part has that much mana of its
type, and the whole cost has that much mana in all (the generic part takes whatever is left over: 107.4b, 118.3):
the pool's mana of one type pays only that type's symbols or generic, so that is the whole matching condition.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .errors import FormatError, brief, expect_int, expect_object, join
from .vocabulary import ManaType

MAX_MANA = 1_000_000

TYPES = tuple(ManaType)
GENERIC = "generic"  # a pool's mana of no stated type (pays generic costs only)
_SYMBOL = re.compile(r"\{([0-9]+|[WUBRGC])\}")


@dataclass(frozen=True, order=True)
class Mana:
    """An amount of mana: a cost (``generic`` and each type's symbols) or a pool (``generic``: of no stated type)."""

    generic: int = 0
    typed: tuple[int, ...] = (0,) * len(TYPES)  # in TYPES order

    @property
    def total(self) -> int:
        return self.generic + sum(self.typed)

    def of(self, kind: ManaType) -> int:
        return self.typed[TYPES.index(kind)]

    def __bool__(self) -> bool:
        return self.total > 0

    def __add__(self, other: Mana) -> Mana:
        return Mana(self.generic + other.generic, tuple(a + b for a, b in zip(self.typed, other.typed)))

    def __mul__(self, n: int) -> Mana:
        return Mana(self.generic * n, tuple(a * n for a in self.typed))

    @property
    def plain(self) -> bool:
        """Generic mana only (a cost written as an integer)."""
        return not any(self.typed)

    def symbols(self) -> str:
        """As printed: ``{2}{W}`` (``{0}`` for nothing)."""
        parts = [f"{{{self.generic}}}"] if self.generic or not self.total else []
        parts += [f"{{{t.value}}}" * n for t, n in zip(TYPES, self.typed)]
        return "".join(parts)

    def cost_text(self) -> str:
        """A cost in a message: ``4`` when generic only, else its symbols."""
        return str(self.generic) if self.plain else self.symbols()

    def pool_text(self) -> str:
        """A pool in a message: ``3 mana``, with its types when it has some (``3 mana: {W}{W} and 1 of any``)."""
        if self.plain:
            return f"{self.total} mana"
        typed = "".join(f"{{{t.value}}}" * n for t, n in zip(TYPES, self.typed))
        rest = f" and {self.generic} of no stated type" if self.generic else ""
        return f"{self.total} mana: {typed}{rest}"

    def to_json(self) -> int | str | dict[str, int]:
        """A cost's JSON (an integer when generic only, else its symbols)."""
        return self.generic if self.plain else self.symbols()

    def pool_json(self) -> int | dict[str, int]:
        if self.plain:
            return self.generic
        out = {t.value: n for t, n in zip(TYPES, self.typed) if n}
        return {**out, GENERIC: self.generic} if self.generic else out


ZERO = Mana()


def payable(cost: Mana, pool: Mana) -> bool:
    """Can ``pool`` pay ``cost`` (508.1h-j, 509.1d-f)? Each type's symbols from mana of that type, the generic part
    from what is left (of any type, or of no stated type)."""
    return all(c <= p for c, p in zip(cost.typed, pool.typed)) and cost.total <= pool.total


def read_cost(value: Any, where: str) -> Mana:
    """A cost: an integer (generic) or mana symbols (``"{2}{W}"``); bad input names ``where``."""
    if isinstance(value, str):
        if not value or _SYMBOL.sub("", value):
            symbols = "{N}, {W}, {U}, {B}, {R}, {G}, {C}"
            raise FormatError(
                where, f'expected an integer or mana symbols such as "{{2}}{{W}}" ({symbols}), got {brief(value)}'
            )
        generic, typed = 0, [0] * len(TYPES)
        for symbol in _SYMBOL.findall(value):
            if symbol.isdigit():
                generic += int(symbol)
            else:
                typed[TYPES.index(ManaType(symbol))] += 1
        if generic + sum(typed) > MAX_MANA:
            raise FormatError(where, f"at most {MAX_MANA} mana, got {generic + sum(typed)}")
        return Mana(generic, tuple(typed))
    return Mana(expect_int(value, where, minimum=0, maximum=MAX_MANA))


def read_pool(value: Any, where: str) -> Mana:
    """A pool: an integer (mana of no stated type) or ``{"W": n, ..., "C": n, "generic": n}``."""
    if isinstance(value, dict):
        obj = expect_object(value, where)
        for key in obj:
            if key not in (*(t.value for t in TYPES), GENERIC):
                raise FormatError(join(where, key), 'unknown mana type (expected W, U, B, R, G, C or "generic")')
        typed = tuple(expect_int(obj.get(t.value, 0), join(where, t.value), minimum=0, maximum=MAX_MANA) for t in TYPES)
        generic = expect_int(obj.get(GENERIC, 0), join(where, GENERIC), minimum=0, maximum=MAX_MANA)
        return Mana(generic, typed)
    return Mana(expect_int(value, where, minimum=0, maximum=MAX_MANA))


_AMOUNT = {"type": "integer", "minimum": 0, "maximum": MAX_MANA}
#: JSON Schemas of a cost and of a pool (the declare schema's; models/fields.py)
COST_SCHEMA = {
    "oneOf": [_AMOUNT, {"type": "string", "pattern": r"^(\{([0-9]+|[WUBRGC])\})+$"}],
}
POOL_SCHEMA = {
    "oneOf": [
        _AMOUNT,
        {
            "type": "object",
            "properties": {**{t.value: _AMOUNT for t in TYPES}, GENERIC: _AMOUNT},
            "additionalProperties": False,
        },
    ]
}

__all__ = ["ManaType", "Mana", "ZERO", "payable", "read_cost", "read_pool", "COST_SCHEMA", "POOL_SCHEMA"]
