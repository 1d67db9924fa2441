"""The fields of trample's input formats, described once: the loaders read documents by these tables and
``trample.schemas`` builds its JSON Schemas from them.

Each object of a format (a player, a planeswalker, a battle, an attacker, a blocker, the scenario itself, a
declare document's additions, a card, a face) is a table of :class:`Field`: its JSON name, its :class:`FieldKind`
(which says how the loader reads it, with which bounds, and which shared piece of the schema it is), whether it is
required, its default, its words (an enumeration) and its description. The loaders take from a table the fields
they accept (anything else is an "unknown field"), the required ones, the defaults and the bounds; the schema
builder writes the same table as JSON Schema. A new field is written once, here (plus the attribute of the model
class that holds it, and the dumper, which writes the normal form).

What a table cannot say stays in the loaders as code: ids that must name other objects, a keyword that needs its
field, a key written twice, the legacy damage order's attackers (docs/format.md lists these differences).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ._strenum import StrEnum
from .errors import (
    FormatError,
    brief,
    expect_bool,
    expect_int,
    expect_list,
    expect_number,
    expect_object,
    expect_str,
    join,
)
from .keywords import ALL_KEYWORDS
from .mana import COST_SCHEMA, POOL_SCHEMA
from .vocabulary import DamageOrder, DeclareKind, DoubleFaced, Modifier, RulesSet, Step, words

#: Every number of a scenario (power, toughness, damage_marked, life, loyalty, defense, value) lies between
#: -MAX_NUMBER and MAX_NUMBER: the counting programme's tables grow with power, and CP-SAT takes 64-bit
#: integers only. Anything beyond is bad input (README, "The scenario").
MAX_NUMBER = 1_000_000


class FieldKind(StrEnum):
    """How a field's value is read. The kinds that name a shared piece of the schemas (``$defs``) have its name."""

    ID = "id"  # a non-empty string (an id, or the id of another object)
    SIGNED = "signed"  # an integer from -MAX_NUMBER to MAX_NUMBER (power, life)
    AMOUNT = "amount"  # an integer from 0 (or ``minimum``) to MAX_NUMBER
    VALUE = "value"  # a finite number from -MAX_NUMBER to MAX_NUMBER
    IN_COMBAT = "in_combat"  # true or false, default true (false: removed from combat)
    BOOLEAN = "boolean"  # true or false
    WORD = "word"  # one of ``words``
    NAMES = "names"  # a list of non-empty strings, each kept once
    MODIFIERS = "modifiers"  # [{"times": N}, {"plus": N}] (614.1a)
    KEYWORDS = "keywords"  # a list of keywords (models/keywords.py)
    SPECIAL = "special"  # read by its loader's own code; ``schema`` is its schema


#: The kinds whose schema is a reference to the shared piece of that name.
SHARED = frozenset(
    {
        FieldKind.ID,
        FieldKind.SIGNED,
        FieldKind.AMOUNT,
        FieldKind.VALUE,
        FieldKind.IN_COMBAT,
        FieldKind.NAMES,
        FieldKind.MODIFIERS,
        FieldKind.KEYWORDS,
    }
)


class _Missing(StrEnum):
    MISSING = "<missing>"


#: A field without a default: absent, it is required (``required=True``) or ``None``.
MISSING = _Missing.MISSING


@dataclass(frozen=True)
class Field:
    """One field of one object of a format: how it is read and how the schema describes it."""

    name: str
    kind: FieldKind
    required: bool = False
    default: Any = MISSING
    description: str = ""
    #: the vocabulary of a WORD field (models/vocabulary.py): its words, in the order the error message lists them,
    #: and what the loader stores (the member)
    vocabulary: type[StrEnum] | None = None
    #: the least integer an AMOUNT field takes (default 0)
    minimum: int | None = None
    #: whether the schema writes the default (a shared piece may carry its own: ``in_combat``, ``value``)
    show_default: bool = True
    #: the model attribute, when it differs from the JSON name (``replacement_order`` is ``Receiving.order``)
    attr: str = ""
    #: what a NAMES field's items are, for its error message ("tag string", "creature id", ...)
    item: str = "string"
    #: the whole schema of a SPECIAL field (or of any field whose schema is not the kind's)
    schema: Mapping[str, Any] | None = None

    @cached_property
    def words(self) -> tuple[str, ...]:
        return words(self.vocabulary) if self.vocabulary is not None else ()

    @property
    def attribute(self) -> str:
        return self.attr or self.name

    def to_schema(self) -> dict[str, Any]:
        """The field's JSON Schema (draft 2020-12), as ``trample schema`` prints it."""
        if self.schema is not None:
            return dict(self.schema)
        out: dict[str, Any]
        if self.kind in SHARED:
            out = {"$ref": f"#/$defs/{self.kind.value}"}
        elif self.kind is FieldKind.WORD:
            out = {"enum": list(self.words)}
        elif self.kind is FieldKind.BOOLEAN:
            out = {"type": "boolean"}
        else:  # pragma: no cover - a SPECIAL field always has its schema
            raise ValueError(f"{self.name}: a {self.kind} field needs its schema")
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.default is not MISSING and self.show_default and not self.required:
            out["default"] = self.default
        if self.description:
            out["description"] = self.description
        return out

    def read(self, obj: Mapping[str, Any], path: str) -> Any:
        """The field's value in the JSON object ``obj`` at ``path`` (its default when absent; ``None`` when absent
        without a default): checked as the loaders always did, with their one-line :class:`FormatError`.

        The usual values (absent, an in-range integer, a plain string, a boolean) are taken without building the
        field's path: :meth:`_checked` reads the rest, and names the place of anything wrong."""
        name = self.name
        if name not in obj:
            if self.required:
                raise FormatError(join(path, name), "required field is missing")
            return None if self.default is MISSING else self.default  # every default is a value read would return
        value = obj[name]
        test, low = self.usual  # (Table.read makes the same tests on the same description, without this call)
        if test is int:
            if type(value) is int and low <= value <= MAX_NUMBER:
                return value
        elif test is str:
            if type(value) is str and value and value.isascii():  # else expect_str checks the text
                return value
        elif test is bool and (value is True or value is False):
            return value
        return self._checked(obj, path)

    @cached_property
    def low(self) -> int:
        """The least value of an AMOUNT field."""
        return 0 if self.minimum is None else self.minimum

    @cached_property
    def usual(self) -> tuple[Any, int]:
        """The values :meth:`read` (and :meth:`Table.read`) take as they are, without their checks that name the
        place: ``(int, least)`` an integer from ``least`` to MAX_NUMBER, ``(str, 0)`` a non-empty ASCII id,
        ``(bool, 0)`` true or false; ``(None, 0)``: none (every value checked)."""
        kind = self.kind
        if kind is FieldKind.SIGNED or kind is FieldKind.VALUE:
            return (int, -MAX_NUMBER)
        if kind is FieldKind.AMOUNT:
            return (int, self.low)
        if kind is FieldKind.ID:
            return (str, 0)
        if kind is FieldKind.BOOLEAN or kind is FieldKind.IN_COMBAT:
            return (bool, 0)
        return (None, 0)

    def _checked(self, obj: Mapping[str, Any], path: str) -> Any:
        """The present field's value, each check naming the field's path on failure."""
        where = join(path, self.name)
        value = obj[self.name]
        kind = self.kind
        if kind is FieldKind.ID:
            return expect_str(value, where)
        if kind is FieldKind.SIGNED:
            return expect_int(value, where, minimum=-MAX_NUMBER, maximum=MAX_NUMBER)
        if kind is FieldKind.AMOUNT:
            return expect_int(value, where, minimum=self.low, maximum=MAX_NUMBER)
        if kind is FieldKind.VALUE:
            return expect_number(value, where, bound=MAX_NUMBER)
        if kind in (FieldKind.BOOLEAN, FieldKind.IN_COMBAT):
            return expect_bool(value, where)
        if kind is FieldKind.WORD:
            if value not in self.words:
                raise FormatError(where, f"expected {_choices(self.words)}, got {brief(value)}")
            assert self.vocabulary is not None
            return self.vocabulary(value)
        if kind is FieldKind.NAMES:
            return read_names(obj, self.name, path, self.item)
        if kind is FieldKind.MODIFIERS:
            return read_modifiers(obj, self.name, path)
        raise TypeError(f"{self.name}: a {kind} field is read by its loader")  # pragma: no cover

    @property
    def generic(self) -> bool:
        """Read by :meth:`read` (the others, SPECIAL and KEYWORDS, by their loader's own code)."""
        return self.kind not in (FieldKind.SPECIAL, FieldKind.KEYWORDS)


def read_names(obj: Mapping[str, Any], key: str, path: str, item: str = "string") -> tuple[str, ...]:
    """A list of non-empty strings, each once (a repeat is redundant and dropped)."""
    if key not in obj:  # (most objects: a path built only where it can be needed)
        return ()
    items = expect_list(obj[key], join(path, key))
    out: dict[str, None] = {}  # in order, each once: linear (a list's `in` made 10^5 tags take 33 s)
    for i, value in enumerate(items):
        if not isinstance(value, str):
            raise FormatError(join(join(path, key), i), f"expected a {item}, got {brief(value)}")
        if value not in out:  # the path is built only for a string seen the first time (or an error)
            expect_str(value, join(join(path, key), i))
            out[value] = None
    return tuple(out)


def read_modifiers(obj: Mapping[str, Any], key: str, path: str) -> tuple[tuple[str, int], ...]:
    """``[{"times": 2}, {"plus": 1}]``: damage multiplied by / increased by a whole number (614.1a)."""
    items = expect_list(obj.get(key, []), join(path, key))
    out = []
    for i, value in enumerate(items):
        where = join(join(path, key), i)
        m = expect_object(value, where)
        if len(m) != 1 or next(iter(m)) not in MODIFIERS:
            raise FormatError(where, 'expected one of {"times": N} or {"plus": N}')
        kind, amount = next(iter(m.items()))
        out.append((Modifier(kind), expect_int(amount, join(where, kind), minimum=1, maximum=MAX_NUMBER)))
    return tuple(out)


def _choices(options: tuple[str, ...]) -> str:
    quoted = [f'"{w}"' for w in options]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"


@dataclass(frozen=True)
class Table:
    """The fields of one object, in the order the schema lists them."""

    fields: tuple[Field, ...]
    by_name: Mapping[str, Field] = field(init=False, repr=False, compare=False)
    # what a load asks of every object, computed once: the accepted names
    _names: frozenset[str] = field(init=False, repr=False, compare=False)
    # (attribute, JSON name, reader, required, the value when absent, the usual values' test) of the generic
    # fields, for :meth:`read`
    _absent: tuple[tuple[str, str, Callable[[Mapping[str, Any], str], Any], bool, Any, tuple[Any, int]], ...] = field(
        init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_name", {f.name: f for f in self.fields})
        object.__setattr__(self, "_names", frozenset(self.by_name))
        absent = tuple(
            (f.attribute, f.name, f.read, f.required, None if f.default is MISSING else f.default, f.usual)
            for f in self.fields
            if f.generic
        )
        object.__setattr__(self, "_absent", absent)

    def __getitem__(self, name: str) -> Field:
        return self.by_name[name]

    def __contains__(self, name: object) -> bool:
        return name in self.by_name

    @property
    def names(self) -> frozenset[str]:
        """The JSON names the object accepts (anything else is an unknown field)."""
        return self._names

    @property
    def required(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields if f.required)

    def __add__(self, other: Table) -> Table:
        return Table((*self.fields, *other.fields))

    def without(self, *names: str) -> Table:
        return Table(tuple(f for f in self.fields if f.name not in names))

    def minus(self, other: Table) -> Table:
        return self.without(*other.names)

    def read(self, obj: Mapping[str, Any], path: str) -> dict[str, Any]:
        """Every field :meth:`Field.read` reads (not SPECIAL or KEYWORDS), in table order, keyed by model attribute:
        the keyword arguments of the model class. An absent field is :meth:`Field.read`'s answer without the call
        (its default, or its one-line error when required): most of an object's fields are absent."""
        out: dict[str, Any] = {}
        for attribute, name, read, required, default, usual in self._absent:
            if name in obj:
                # the usual values (:attr:`Field.usual`: an in-range integer, a plain id, a boolean) taken here,
                # without Field.read's call (a board's objects read about 27 present fields); the rest read by it
                value = obj[name]
                test, low = usual
                if test is int:
                    if type(value) is int and low <= value <= MAX_NUMBER:
                        out[attribute] = value
                        continue
                elif test is str:
                    if type(value) is str and value and value.isascii():
                        out[attribute] = value
                        continue
                elif test is bool and (value is True or value is False):
                    out[attribute] = value
                    continue
                out[attribute] = read(obj, path)
            elif required:
                raise FormatError(join(path, name), "required field is missing")
            else:
                out[attribute] = default
        return out

    def properties(self) -> dict[str, Any]:
        return {f.name: f.to_schema() for f in self.fields}


# ---------------------------------------------------------------------------------------------------------------
# The scenario (docs/format.md, docs/effects.md)
# ---------------------------------------------------------------------------------------------------------------

#: Fields of anything that can be dealt damage (docs/effects.md): prevention, protection, modifiers, their order.
RECEIVING = Table(
    (
        Field("prevent", FieldKind.AMOUNT, default=0, description="Prevent the next N damage dealt to it (615.7)."),
        Field("prevent_combat", FieldKind.BOOLEAN, default=False, description="Prevent all combat damage to it."),
        Field(
            "protection",
            FieldKind.NAMES,
            default=(),
            show_default=False,
            item="quality string",
            description="Protection from these qualities: source ids or tags (702.16e).",
        ),
        Field("takes", FieldKind.MODIFIERS, default=(), show_default=False),
        Field(
            "replacement_order",
            FieldKind.WORD,
            vocabulary=DamageOrder,
            default=DamageOrder.LEAST,
            attr="order",
            description="616.1: the affected player's order.",
        ),
        Field(
            "shield_order",
            FieldKind.NAMES,
            default=(),
            show_default=False,
            item="creature id",
            description="Whose damage the prevent shield stops first (creature ids).",
        ),
    )
)

ID = Field("id", FieldKind.ID, required=True)

PLAYER = (
    Table(
        (
            ID,
            Field("life", FieldKind.SIGNED, default=20),
            Field("poison", FieldKind.AMOUNT, default=0, description="Poison counters (704.5c: 10 loses)."),
            Field(
                "commander_damage",
                FieldKind.SPECIAL,
                schema={
                    "type": "object",
                    "propertyNames": {"minLength": 1},
                    "additionalProperties": {"$ref": "#/$defs/amount"},
                    "default": {},
                    "description": "Combat damage already dealt by each commander, by its id (704.6c: 21 loses).",
                },
            ),
        )
    )
    + RECEIVING
)

PLANESWALKER = (
    Table(
        (
            ID,
            Field("controller", FieldKind.ID, required=True, description="The id of a player."),
            Field("loyalty", FieldKind.AMOUNT, required=True),
            Field("in_combat", FieldKind.IN_COMBAT, default=True, show_default=False),
            Field("value", FieldKind.VALUE, default=1, show_default=False),
        )
    )
    + RECEIVING
)

BATTLE = (
    Table(
        (
            ID,
            Field("protector", FieldKind.ID, required=True, description="The id of a player."),
            Field("defense", FieldKind.AMOUNT, required=True),
            Field("in_combat", FieldKind.IN_COMBAT, default=True, show_default=False),
        )
    )
    + RECEIVING
)

#: The fields every creature has, attacker or blocker (the first ones of both tables).
CREATURE_BASE = Table(
    (
        ID,
        Field("power", FieldKind.SIGNED, required=True),
        Field("toughness", FieldKind.AMOUNT, required=True),
        Field("keywords", FieldKind.KEYWORDS, default=(), show_default=False),
        Field("damage_marked", FieldKind.AMOUNT, default=0),
        Field("in_combat", FieldKind.IN_COMBAT, default=True, show_default=False),
    )
)

#: Fields of a creature as a source of damage (docs/effects.md).
CREATURE_EFFECTS = Table(
    (
        Field("toxic", FieldKind.AMOUNT, default=0, description="Total toxic value (702.164b)."),
        Field(
            "tags",
            FieldKind.NAMES,
            default=(),
            show_default=False,
            item="tag string",
            description="Qualities protection can name (colours, types).",
        ),
        Field("deals", FieldKind.MODIFIERS, default=(), show_default=False),
        Field(
            "assigns_toughness",
            FieldKind.BOOLEAN,
            default=False,
            description="Assigns combat damage equal to its toughness rather than its power (510.1a).",
        ),
    )
)

ATTACKER = (
    CREATURE_BASE
    + Table(
        (
            Field(
                "attacking",
                FieldKind.ID,
                required=True,
                description="The id of a player, planeswalker or battle.",
            ),
            Field(
                "blocked_by",
                FieldKind.SPECIAL,
                schema={
                    "type": "array",
                    "items": {"$ref": "#/$defs/id"},
                    "uniqueItems": True,
                    "default": [],
                    "description": "Ids of blockers; for the legacy rules, the damage assignment order.",
                },
            ),
            Field(
                "blocked",
                FieldKind.BOOLEAN,
                description="Default: whether blocked_by names any blocker.",
            ),
            Field(
                "as_though_unblocked",
                FieldKind.BOOLEAN,
                default=False,
                description="May assign its combat damage as though it weren't blocked (docs/effects.md).",
            ),
            Field("commander", FieldKind.ID, description="A commander: the id of its owner (704.6c)."),
        )
    )
    + CREATURE_EFFECTS
    + RECEIVING
)

BLOCKER = (
    CREATURE_BASE
    + Table(
        (
            Field("value", FieldKind.VALUE, default=1, show_default=False),
            Field(
                "damage_order",
                FieldKind.SPECIAL,
                schema={
                    "type": "array",
                    "items": {"$ref": "#/$defs/id"},
                    "uniqueItems": True,
                    "description": "Legacy rules: its damage assignment order of the attackers it blocks (510.1d).",
                },
            ),
            Field(
                "controller",
                FieldKind.ID,
                description="The id of the player who controls it (lifelink).",
            ),
        )
    )
    + CREATURE_EFFECTS
    + RECEIVING
)


def _array_of(name: str, default: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "array", "items": {"$ref": f"#/$defs/{name}"}}
    if default:
        out["default"] = []
    return out


SCENARIO = Table(
    (
        Field("rules", FieldKind.WORD, vocabulary=RulesSet, default=RulesSet.CURRENT),
        Field("step", FieldKind.WORD, vocabulary=Step, default=Step.REGULAR),
        Field("players", FieldKind.SPECIAL, schema=_array_of("player")),
        Field("planeswalkers", FieldKind.SPECIAL, schema=_array_of("planeswalker")),
        Field("battles", FieldKind.SPECIAL, schema=_array_of("battle")),
        Field("attackers", FieldKind.SPECIAL, required=True, schema=_array_of("attacker", default=False)),
        Field("blockers", FieldKind.SPECIAL, schema=_array_of("blocker")),
        Field(
            "players_in_game",
            FieldKind.SPECIAL,
            schema={
                "type": "integer",
                "minimum": 2,
                "maximum": MAX_NUMBER,
                "description": "Players in the game (default: the listed players and the attacking player).",
            },
        ),
    )
)

#: The steps a one-step scenario takes (an arena board, a conformance case).
ONE_STEP = (Step.REGULAR.value, Step.FIRST_STRIKE.value)

# ---------------------------------------------------------------------------------------------------------------
# Declare documents (docs/declare.md): a scenario's fields plus these
# ---------------------------------------------------------------------------------------------------------------

#: Keywords and abilities that decide who may attack and who may block (none changes the damage step).
DECLARE_KEYWORDS = (
    "flying",  # 702.9b
    "reach",  # 702.17b
    "menace",  # 702.111b
    "fear",  # 702.36b
    "intimidate",  # 702.13b
    "shadow",  # 702.28b
    "horsemanship",  # 702.31b
    "skulk",  # 702.118b
    "defender",  # 702.3b
    "cant_attack",  # 508.1c: "can't attack"
    "cant_block",  # 509.1b: "can't block"
    "cant_be_blocked",  # 509.1b: "can't be blocked"
    "cant_attack_alone",  # 508.1c: "can't attack alone"
    "cant_block_alone",  # 509.1b: "can't block alone"
    "block_any_number",  # 509.1a: "can block any number of creatures"
    "attacks_each_combat",  # 508.1d: "attacks each combat if able"
    "blocks_each_combat",  # 509.1c: "blocks each combat if able"
    "must_be_blocked",  # 509.1c: "must be blocked if able"
    "lure",  # 509.1c: "all creatures able to block it do so"
)

#: What a declare document adds to every creature (the declaration part of it; docs/declare.md).
DECLARE_CREATURE = Table(
    (
        Field(
            "keywords",
            FieldKind.SPECIAL,
            schema={
                "type": "array",
                "items": {"enum": [*ALL_KEYWORDS, *(k for k in DECLARE_KEYWORDS if k not in ALL_KEYWORDS)]},
                "default": [],
                "description": "Damage-step keywords and the declaration keywords of docs/declare.md.",
            },
        ),
        Field(
            "tapped",
            FieldKind.BOOLEAN,
            default=False,
            description="Tapped: it can neither attack nor block.",
        ),
        Field(
            "min_blockers",
            FieldKind.AMOUNT,
            minimum=1,
            default=1,
            description="Can't be blocked except by this many or more creatures (702.111b).",
        ),
        Field(
            "block_extra",
            FieldKind.AMOUNT,
            default=0,
            description="Can block this many additional creatures.",
        ),
        Field(
            "landwalk",
            FieldKind.NAMES,
            default=(),
            show_default=False,
            description="Land types it walks (702.14c).",
        ),
        Field(
            "bands_with_other",
            FieldKind.NAMES,
            default=(),
            show_default=False,
            item="quality",
            description='"Bands with other [quality]": the qualities (tags) it bands with (702.22c).',
        ),
        Field(
            "block_cost",
            FieldKind.SPECIAL,
            schema={**COST_SCHEMA, "default": 0},
            description='Mana its controller pays for it to block (509.1d): N generic, or symbols as "{1}{G}".',
        ),
    )
)
#: A creature that may attack (a declare-attackers document's attackers) also takes these.
DECLARE_ATTACKER_EXTRA = Table(
    (
        Field(
            "summoning_sick",
            FieldKind.BOOLEAN,
            default=False,
            description="Summoning sickness (302.6).",
        ),
        Field(
            "attack_cost",
            FieldKind.SPECIAL,
            schema={**COST_SCHEMA, "default": 0},
            description='Mana its controller pays for it to attack (508.1h): N generic, or symbols as "{2}{W}".',
        ),
    )
)
#: An attacker already declared (a declare-blockers document's attackers) also takes these.
DECLARE_DECLARED = Table(
    (
        Field(
            "band",
            FieldKind.ID,
            description="The attacking band it was declared in (702.22c): the creatures with the same label.",
        ),
    )
)
#: What a declare document adds to a player.
DECLARE_PLAYER = Table(
    (
        Field(
            "lands",
            FieldKind.NAMES,
            default=(),
            show_default=False,
            description="Land types and qualities it controls (702.14c).",
        ),
        Field(
            "attack_tax",
            FieldKind.SPECIAL,
            schema={**COST_SCHEMA, "default": 0},
            description="Creatures can't attack this player unless their controller pays this for each (508.1h).",
        ),
        Field(
            "block_tax",
            FieldKind.SPECIAL,
            schema={**COST_SCHEMA, "default": 0},
            description="This player's creatures can't block unless they pay this for each (509.1d).",
        ),
        Field(
            "mana",
            FieldKind.SPECIAL,
            schema={**POOL_SCHEMA, "default": 0},
            description="The mana this defending player can pay to block (509.1d-f): N of no stated type (generic "
            'costs only), or {"W": n, "U": n, "B": n, "R": n, "G": n, "C": n, "generic": n}.',
        ),
    )
)
#: What a declare document adds to a planeswalker.
DECLARE_PLANESWALKER = Table(
    (
        Field(
            "attack_tax",
            FieldKind.SPECIAL,
            schema={**COST_SCHEMA, "default": 0},
            description="Creatures can't attack it unless their controller pays this for each (508.1h).",
        ),
    )
)
#: What a declare document adds to the scenario's top level.
DECLARE_TOP = Table(
    (
        Field(
            "declare",
            FieldKind.WORD,
            required=True,
            vocabulary=DeclareKind,
            description="Which declaration the document asks about.",
        ),
        Field("active", FieldKind.ID, default="active", description="The active (attacking) player."),
        Field(
            "mana",
            FieldKind.SPECIAL,
            schema={**POOL_SCHEMA, "default": 0},
            description="The mana the active player can pay to attack (508.1h-j): N of no stated type (generic "
            'costs only), or {"W": n, "U": n, "B": n, "R": n, "G": n, "C": n, "generic": n}.',
        ),
    )
)

# ---------------------------------------------------------------------------------------------------------------
# Cards (docs/format.md, "Library, cards and zones")
# ---------------------------------------------------------------------------------------------------------------

#: 205.2a card types and 205.4a supertypes, lower case (the ``types`` field accepts these, any case).
CARD_TYPES = (
    "artifact",
    "battle",
    "conspiracy",
    "creature",
    "dungeon",
    "enchantment",
    "instant",
    "kindred",
    "land",
    "phenomenon",
    "plane",
    "planeswalker",
    "scheme",
    "sorcery",
    "tribal",
    "vanguard",
)
SUPERTYPES = ("basic", "legendary", "ongoing", "snow", "world")
#: The words a ``types`` list takes (any letter case).
CARD_WORDS = (*CARD_TYPES, *SUPERTYPES)
DOUBLE_FACED = words(DoubleFaced)


def _piece(name: str, **more: Any) -> dict[str, Any]:
    """A reference to a shared piece of the library schemas (``$defs``), with more keys."""
    return {"$ref": f"#/$defs/{name}", **more}


#: A card's name and mana value: every card and every face has them.
_NAME = Field("name", FieldKind.SPECIAL, required=True, schema={"type": "string", "minLength": 1})
_MANA_VALUE = Field("mana_value", FieldKind.SPECIAL, required=True, schema=_piece("mana_value"))
_CARD_VALUE = Field("value", FieldKind.SPECIAL, schema=_piece("card_value"))

#: A face's own fields (an Adventure, a split card's half, a double-faced card's back), read by models/cards.py's
#: own code (every other field travels unchanged). The schema builder writes the face, half and Adventure pieces
#: from this table: an Adventure's types take "adventure" too, and only a half takes aftermath (702.127a).
FACE = Table(
    (
        _NAME,
        _MANA_VALUE,
        Field("types", FieldKind.SPECIAL, schema=_piece("card_types")),
        _CARD_VALUE,
        Field(
            "aftermath",
            FieldKind.BOOLEAN,
            default=False,
            show_default=False,
            description="The half has aftermath: cast only from a graveyard, never by discover (702.127a).",
        ),
    )
)
#: A card's own fields, read by models/cards.py's own code (every other field travels unchanged); the schema
#: builder writes the card piece from this table.
CARD = Table(
    (
        _NAME,
        _MANA_VALUE,
        Field("types", FieldKind.SPECIAL, default=(), schema=_piece("card_types", default=[])),
        Field("adventure", FieldKind.SPECIAL, schema=_piece("adventure")),
        Field("halves", FieldKind.SPECIAL, schema={"type": "array", "minItems": 2, "items": _piece("half")}),
        Field("back", FieldKind.SPECIAL, schema=_piece("face")),
        Field("double_faced", FieldKind.WORD, vocabulary=DoubleFaced),
        _CARD_VALUE,
    )
)
#: The names of a card's and a face's own fields, in table order.
CARD_FIELDS = tuple(f.name for f in CARD.fields)
FACE_FIELDS = tuple(f.name for f in FACE.fields)

#: 614.1a: the words of a ``deals`` / ``takes`` entry.
MODIFIERS = words(Modifier)

__all__ = [
    "MAX_NUMBER",
    "FieldKind",
    "Field",
    "Table",
    "MISSING",
    "RECEIVING",
    "PLAYER",
    "PLANESWALKER",
    "BATTLE",
    "CREATURE_BASE",
    "CREATURE_EFFECTS",
    "ATTACKER",
    "BLOCKER",
    "SCENARIO",
    "ONE_STEP",
    "DECLARE_KEYWORDS",
    "DECLARE_CREATURE",
    "DECLARE_ATTACKER_EXTRA",
    "DECLARE_DECLARED",
    "DECLARE_PLAYER",
    "DECLARE_PLANESWALKER",
    "DECLARE_TOP",
    "CARD_TYPES",
    "SUPERTYPES",
    "CARD_WORDS",
    "DOUBLE_FACED",
    "CARD",
    "FACE",
    "CARD_FIELDS",
    "FACE_FIELDS",
    "MODIFIERS",
]
