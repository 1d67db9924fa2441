"""Cards, libraries and one player's zones (docs/format.md, "Library, cards and zones"): typed, immutable,
validated, dumped back.

A library document is ``{"cards": [card, ...]}``, top of the library first. A card::

    {"name": "Galvanic Giant // Storm Reading", "mana_value": 4, "types": ["Creature"],
     "adventure": {"name": "Storm Reading", "mana_value": 7, "types": ["Sorcery"]}}
    {"name": "Fire // Ice", "mana_value": 4, "types": ["Instant"],
     "halves": [{"name": "Fire", "mana_value": 2}, {"name": "Ice", "mana_value": 2}]}

- ``name`` (non-empty string) and ``mana_value`` (integer >= 0) are required; for a split card ``mana_value`` is
  the whole card's (the halves' combined, 709.4: its mana value everywhere but on the stack).
- ``types`` (optional, default ``[]``): card types (205.2a) and supertypes (205.4a), matched case-insensitively;
  anything else is rejected, so that a typo cannot turn a land into a nonland. ``"Land"`` makes a land.
- ``adventure`` (optional): the Adventure face, ``name``, ``mana_value``, optional ``types`` (``"Adventure"``
  is accepted there as well).
- ``halves`` (optional, at least two): the halves of a split card, each ``name``, ``mana_value``, optional
  ``types`` (default: the card's).
- ``back`` and ``double_faced`` (optional, together): a double-faced card (712). The card's own fields are its
  front face, which is all it has in the library, graveyard, exile and hand (712.8a); ``back`` is the back face
  (``name``, ``mana_value``, optional ``types``, default ``[]``); ``double_faced`` is ``"modal"`` (a modal
  double-faced card: either face may be cast, a land face is played instead) or ``"transform"`` (a transforming
  double-faced card: only the front face is ever cast).
- ``value`` (optional, a number from 0 to 10^6, on cards and faces): what the player counts a card or face as
  worth (the Gnome's score); without it, a face is worth its mana value.
- ``aftermath`` (optional, ``true`` or ``false``, on a split card's half only): the half has aftermath (702.127a):
  it is cast only from a graveyard, so discover (which casts from exile) never casts it.
- A face that is a land (its types hold ``Land``) is never cast (305.1, 305.9): it is not among the spell faces.
- Every other field (``id``, ``oracle_text``, ...) travels unchanged, on cards and on faces; dumping writes the
  known fields first, then the extra ones in their original order.

The zones (:class:`GameState`) are our extension of the format, for chaining transforms::

    {"library": [card, ...], "graveyard": [...], "exile": [...], "hand": [...],
     "stack": [{"card": card, "face": "Storm Reading"}, ...]}

Nothing here imports the solver.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .errors import FormatError, expect_bool, expect_int, expect_list, expect_object, expect_str, join
from .fields import CARD_FIELDS, CARD_TYPES, DOUBLE_FACED, FACE_FIELDS, MAX_NUMBER, SUPERTYPES
from .scenario import parse_json_text
from .vocabulary import DoubleFaced, Zone, words

# The formats' words and fields: models/fields.py (the JSON Schemas are built from the same tables).
ZONES = words(Zone)
_CARD_FIELDS = CARD_FIELDS
_FACE_FIELDS = FACE_FIELDS


#: Extra fields may nest this deep (a deeper one, ~1000 levels, could be read but not written back).
MAX_DEPTH = 64


def _freeze_extra(obj: Mapping[str, Any], known: Sequence[str], path: str = "") -> tuple[tuple[str, str], ...]:
    """Extra fields as ``(key, JSON text)`` pairs: immutable, hashable, and dumped back exactly."""
    out = []
    for k, v in obj.items():
        if k in known:
            continue
        _check_depth(v, join(path, k))
        out.append((k, json.dumps(v, ensure_ascii=False)))
    return tuple(out)


def _check_depth(value: object, path: str) -> None:
    """Refuse a value nested deeper than MAX_DEPTH lists and objects (walked without recursion)."""
    todo: list[tuple[object, int]] = [(value, 1)]
    while todo:
        v, depth = todo.pop()
        if isinstance(v, (list, dict)):
            if depth > MAX_DEPTH:
                raise FormatError(path, f"nested more than {MAX_DEPTH} levels deep")
            todo.extend((x, depth + 1) for x in (v.values() if isinstance(v, dict) else v))


def _thaw_extra(extra: Iterable[tuple[str, str]]) -> dict[str, Any]:
    return {k: json.loads(v) for k, v in extra}


def _canon_extra(extra: Iterable[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """The extra fields in a form that ignores key order (JSON objects are unordered): what equality compares."""
    return tuple(sorted((k, json.dumps(json.loads(v), sort_keys=True, ensure_ascii=False)) for k, v in extra))


def _has_land(types: Iterable[str] | None) -> bool:
    return any(t.lower() == "land" for t in types or ())


@dataclass(frozen=True)
class Face:
    """One castable face: an Adventure, a split card's half, or (built on the fly) a card's main face."""

    name: str
    mana_value: int
    types: tuple[str, ...] | None = None  # None: not given (a half then has its card's types)
    extra: tuple[tuple[str, str], ...] = field(default=(), compare=False)
    value: int | float | None = None
    aftermath: bool = False  # a split card's half with aftermath: cast only from a graveyard (702.127a)
    _canon: tuple[tuple[str, str], ...] = field(default=(), init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_canon", _canon_extra(self.extra))

    @property
    def is_land(self) -> bool:
        """A land face is played, never cast (305.1, 305.9)."""
        return _has_land(self.types)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "mana_value": self.mana_value}
        if self.types is not None:
            out["types"] = list(self.types)
        if self.value is not None:
            out["value"] = self.value
        if self.aftermath:
            out["aftermath"] = True
        out.update(_thaw_extra(self.extra))
        return out


@dataclass(frozen=True)
class Card:
    """A card in a library or another zone. Equal cards (same JSON) are interchangeable copies."""

    name: str
    mana_value: int
    types: tuple[str, ...] = ()
    adventure: Face | None = None
    halves: tuple[Face, ...] = ()
    extra: tuple[tuple[str, str], ...] = field(default=(), compare=False)
    back: Face | None = None
    double_faced: str | None = None  # "modal" or "transform" when ``back`` is given
    value: int | float | None = None
    _canon: tuple[tuple[str, str], ...] = field(default=(), init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_canon", _canon_extra(self.extra))

    # -- characteristics ---------------------------------------------------------------------------
    @property
    def is_land(self) -> bool:
        """In the library (and every zone but the stack and battlefield) a double-faced card has its front face's
        characteristics only (712.8a): a modal card with a land back and a spell front is a nonland card."""
        return _has_land(self.types)

    @property
    def is_double_faced(self) -> bool:
        return self.back is not None

    @property
    def has_adventure(self) -> bool:
        return self.adventure is not None

    @property
    def is_split(self) -> bool:
        return bool(self.halves)

    @property
    def main_face_name(self) -> str:
        """An adventurer's creature name (``"Galvanic Giant // Storm Reading"`` gives ``"Galvanic Giant"``), a
        double-faced card's front face name (``"Valakut Awakening // Valakut Stoneforge"``: ``"Valakut Awakening"``)."""
        other = self.adventure if self.adventure is not None else self.back
        if other is not None and " // " in self.name:
            head, _, tail = self.name.partition(" // ")
            if tail.strip() == other.name:
                return head
        return self.name

    def faces(self) -> tuple[Face, ...]:
        """Every face as printed, types filled in: a split card's halves (709); an adventurer's main face and
        Adventure (715); a double-faced card's front and back (712); any other card, itself."""
        if self.halves:
            return tuple(h if h.types is not None else replace(h, types=self.types) for h in self.halves)
        main = Face(self.main_face_name, self.mana_value, self.types, (), self.value)
        if self.adventure is not None:
            return (main, self.adventure)
        if self.back is not None:
            back = self.back if self.back.types is not None else replace(self.back, types=())
            return (main, back)
        return (main,)

    def spell_faces(self, *, from_graveyard: bool = False) -> tuple[Face, ...]:
        """The spells this card can be cast as (from exile, without paying its mana cost), each with the mana
        value and types it has on the stack.

        A split card: each half (709.3, 709.3b; fuse works only from a hand, 702.102a), except a half with
        aftermath, which can be cast only from a graveyard (702.127a). An adventurer: the card itself, then its
        Adventure (715.3). A modal double-faced card: either face (712.11); a transforming one: its front face
        only (712.11a). Any other card: itself. Land faces are left out: a land is played, never cast (305.1,
        305.9). ``from_graveyard=True`` keeps the aftermath halves too (every face that can be a spell from
        some zone: what a stack entry may name).
        """
        faces = self.faces()
        if self.back is not None and self.double_faced == DoubleFaced.TRANSFORM:
            faces = faces[:1]
        return tuple(f for f in faces if not f.is_land and (from_graveyard or not f.aftermath))

    def face(self, name: str) -> Face | None:
        """The face named ``name`` (any face as printed, lands included), or None."""
        for f in self.faces():
            if f.name == name:
                return f
        return None

    def castable_faces(self, limit: int) -> tuple[Face, ...]:
        """701.57a: the spell faces whose resulting spell would have mana value ``limit`` or less."""
        return tuple(f for f in self.spell_faces() if f.mana_value <= limit)

    def get(self, key: str, default: Any = None) -> Any:
        """A field by name: a known one, or an extra one (decoded)."""
        if key in ("name", "mana_value"):
            return getattr(self, key)
        if key == "value":
            return self.value if self.value is not None else default
        if key == "types":
            return list(self.types)
        for k, v in self.extra:
            if k == key:
                return json.loads(v)
        return default

    # -- JSON ----------------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "mana_value": self.mana_value, "types": list(self.types)}
        if self.adventure is not None:
            out["adventure"] = self.adventure.to_json()
        if self.halves:
            out["halves"] = [h.to_json() for h in self.halves]
        if self.back is not None:
            out["back"] = self.back.to_json()
            out["double_faced"] = self.double_faced
        if self.value is not None:
            out["value"] = self.value
        out.update(_thaw_extra(self.extra))
        return out

    @classmethod
    def from_json(cls, data: object, path: str = "card") -> Card:
        return load_card(data, path)

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Library:
    """A library, top first (``cards[0]`` is the top card)."""

    cards: tuple[Card, ...] = ()

    def __len__(self) -> int:
        return len(self.cards)

    def __iter__(self) -> Iterator[Card]:
        return iter(self.cards)

    def __getitem__(self, i: int) -> Card:
        return self.cards[i]

    def to_json(self) -> dict[str, Any]:
        return {"cards": [c.to_json() for c in self.cards]}

    def dumps(self) -> str:
        return json.dumps(self.to_json(), separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_json(cls, data: object, path: str = "") -> Library:
        return load_library(data, path)


@dataclass(frozen=True)
class Spell:
    """A card on the stack, cast as one of its faces (``face`` is that face's name)."""

    card: Card
    face: str

    @property
    def mana_value(self) -> int:
        """On the stack a spell has the characteristics of the face cast: a split card's half (709.3b), an
        Adventure (715.3b), a double-faced card's face (712.8d)."""
        f = self.card.face(self.face)
        return self.card.mana_value if f is None else f.mana_value

    def to_json(self) -> dict[str, Any]:
        return {"card": self.card.to_json(), "face": self.face}


@dataclass(frozen=True)
class GameState:
    """One player's zones. Immutable: transforms return a new state."""

    library: Library = field(default_factory=Library)
    graveyard: tuple[Card, ...] = ()
    exile: tuple[Card, ...] = ()
    hand: tuple[Card, ...] = ()
    stack: tuple[Spell, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.library, Library):
            object.__setattr__(self, "library", Library(tuple(self.library)))
        for name in ("graveyard", "exile", "hand", "stack"):
            object.__setattr__(self, name, tuple(getattr(self, name)))

    def all_cards(self) -> tuple[Card, ...]:
        """Every card in every zone (stack objects count as their cards)."""
        return (*self.library.cards, *self.graveyard, *self.exile, *self.hand, *(s.card for s in self.stack))

    def multiset(self) -> Counter[Card]:
        """The multiset of cards over all zones: every transform conserves it."""
        return Counter(self.all_cards())

    def to_json(self) -> dict[str, Any]:
        return {
            "library": [c.to_json() for c in self.library.cards],
            "graveyard": [c.to_json() for c in self.graveyard],
            "exile": [c.to_json() for c in self.exile],
            "hand": [c.to_json() for c in self.hand],
            "stack": [s.to_json() for s in self.stack],
        }

    def dumps(self) -> str:
        return json.dumps(self.to_json(), separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_json(cls, data: object, path: str = "") -> GameState:
        return load_state(data, path)


def as_state(obj: object) -> GameState:
    """A :class:`GameState` from a state, a :class:`Library`, or a sequence of cards (the library)."""
    if isinstance(obj, GameState):
        return obj
    if isinstance(obj, Library):
        return GameState(library=obj)
    if isinstance(obj, (list, tuple)) and all(isinstance(c, Card) for c in obj):
        return GameState(library=Library(tuple(obj)))
    raise TypeError(f"expected a GameState, a Library or a list of cards, got {type(obj).__name__}")


# ---------------------------------------------------------------------------------------------
# Loading (every problem is a FormatError naming its JSON path)
# ---------------------------------------------------------------------------------------------


def _decode(data: object, path: str) -> Any:
    if isinstance(data, bytes):
        data = data.decode("utf-8")
    if isinstance(data, str):
        data = parse_json_text(data, path)
    return data


def _required(obj: dict[str, Any], key: str, path: str) -> Any:
    if key not in obj:
        raise FormatError(join(path, key), "required field is missing")
    return obj[key]


def _load_types(value: object, path: str, extra_words: tuple[str, ...] = ()) -> tuple[str, ...]:
    items = expect_list(value, path)
    out = []
    for i, t in enumerate(items):
        where = join(path, i)
        expect_str(t, where)
        if t.lower() not in CARD_TYPES and t.lower() not in SUPERTYPES and t.lower() not in extra_words:
            raise FormatError(where, f'unknown card type "{t}" (205.2a card types and 205.4a supertypes only)')
        out.append(t)
    return tuple(out)


def _load_value(obj: dict[str, Any], path: str) -> int | float | None:
    if "value" not in obj:
        return None
    v = obj["value"]
    where = join(path, "value")
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v or v in (float("inf"), float("-inf")):
        raise FormatError(where, f"expected a number, got {json.dumps(v, ensure_ascii=False)[:40]}")
    if v < 0:
        raise FormatError(where, f"must not be negative, got {v}")
    if v > MAX_NUMBER:  # like the scenario's values: a value of 1e308 overflowed the Gnome's score
        raise FormatError(where, f"must be at most {MAX_NUMBER}, got {v}")
    return v


def _load_face(data: object, path: str, extra_words: tuple[str, ...] = (), *, half: bool = False) -> Face:
    obj = expect_object(data, path)
    types = None
    if "types" in obj:
        types = _load_types(obj["types"], join(path, "types"), extra_words)
    aftermath = False
    if "aftermath" in obj:
        aftermath = expect_bool(obj["aftermath"], join(path, "aftermath"))
        if not half:
            raise FormatError(join(path, "aftermath"), "only a split card's half has aftermath (702.127a)")
    return Face(
        name=expect_str(_required(obj, "name", path), join(path, "name")),
        mana_value=expect_int(
            _required(obj, "mana_value", path), join(path, "mana_value"), minimum=0, maximum=MAX_NUMBER
        ),
        types=types,
        extra=_freeze_extra(obj, _FACE_FIELDS, path),
        value=_load_value(obj, path),
        aftermath=aftermath,
    )


def load_card(data: object, path: str = "card") -> Card:
    """Validate one card object (or its JSON text)."""
    return _load_card(_decode(data, path), path)


def _load_card(data: object, path: str) -> Card:
    obj = expect_object(data, path)
    name = expect_str(_required(obj, "name", path), join(path, "name"))
    mana_value = expect_int(
        _required(obj, "mana_value", path), join(path, "mana_value"), minimum=0, maximum=MAX_NUMBER
    )  # like the scenario's numbers: bounded (a mana value of 10^309 overflowed the distributions)
    types = _load_types(obj.get("types", []), join(path, "types"))
    adventure = None
    if "adventure" in obj:
        adventure = _load_face(obj["adventure"], join(path, "adventure"), ("adventure",))
    halves: tuple[Face, ...] = ()
    if "halves" in obj:
        items = expect_list(obj["halves"], join(path, "halves"))
        if len(items) < 2:
            raise FormatError(join(path, "halves"), f"a split card has at least two halves, got {len(items)}")
        halves = tuple(_load_face(h, join(join(path, "halves"), i), half=True) for i, h in enumerate(items))
        if adventure is not None:
            raise FormatError(join(path, "halves"), "a card cannot have both halves and an adventure")
    back = None
    double_faced = None
    if "back" in obj or "double_faced" in obj:
        if "back" not in obj:
            raise FormatError(join(path, "back"), 'required with "double_faced" (the back face)')
        back = _load_face(obj["back"], join(path, "back"))
        double_faced = obj.get("double_faced")
        if double_faced not in DOUBLE_FACED:
            raise FormatError(
                join(path, "double_faced"),
                f'expected "modal" or "transform" (712), got {json.dumps(double_faced, ensure_ascii=False)[:40]}',
            )
        if halves or adventure is not None:
            raise FormatError(join(path, "back"), "a double-faced card cannot also have halves or an adventure")
    return Card(
        name=name,
        mana_value=mana_value,
        types=types,
        adventure=adventure,
        halves=halves,
        extra=_freeze_extra(obj, _CARD_FIELDS, path),
        back=back,
        double_faced=double_faced,
        value=_load_value(obj, path),
    )


def _load_cards(value: object, path: str) -> tuple[Card, ...]:
    items = expect_list(value, path)
    return tuple(_load_card(c, join(path, i)) for i, c in enumerate(items))


def load_library(data: object, path: str = "") -> Library:
    """A library document ``{"cards": [...]}`` (top first), as decoded JSON or as JSON text."""
    obj = expect_object(_decode(data, path), path or "library")
    for key in obj:
        if key != "cards":
            raise FormatError(join(path, key), 'unknown field (a library is {"cards": [...]})')
    return Library(_load_cards(_required(obj, "cards", path), join(path, "cards")))


def load_state(data: object, path: str = "") -> GameState:
    """A zones document ``{"library": [...], "graveyard": [...], ...}``; every zone is optional."""
    obj = expect_object(_decode(data, path), path or "state")
    for key in obj:
        if key not in ZONES:
            raise FormatError(join(path, key), f"unknown zone (expected one of {', '.join(ZONES)})")
    stack = []
    for i, item in enumerate(expect_list(obj.get("stack", []), join(path, "stack"))):
        where = join(join(path, "stack"), i)
        entry = expect_object(item, where)
        for key in entry:
            if key not in ("card", "face"):
                raise FormatError(join(where, key), "unknown field (a stack entry is {card, face})")
        card = _load_card(_required(entry, "card", where), join(where, "card"))
        face = expect_str(entry.get("face", card.main_face_name), join(where, "face"))
        names = [f.name for f in card.spell_faces(from_graveyard=True)]
        if face not in names and face != card.name:
            raise FormatError(
                join(where, "face"),
                f"{json.dumps(card.name, ensure_ascii=False)} has no face named "
                f"{json.dumps(face, ensure_ascii=False)} (faces: {', '.join(names)})",
            )
        stack.append(Spell(card, face))
    return GameState(
        library=Library(_load_cards(obj.get("library", []), join(path, "library"))),
        graveyard=_load_cards(obj.get("graveyard", []), join(path, "graveyard")),
        exile=_load_cards(obj.get("exile", []), join(path, "exile")),
        hand=_load_cards(obj.get("hand", []), join(path, "hand")),
        stack=tuple(stack),
    )


def load_library_or_state(data: object, path: str = "") -> GameState:
    """A library document (``{"cards": ...}``) or a zones document, as a :class:`GameState`."""
    obj = expect_object(_decode(data, path), path or "library")
    if "cards" in obj or not any(z in obj for z in ZONES):
        return GameState(library=load_library(obj, path))
    return load_state(obj, path)


__all__ = [
    "CARD_TYPES",
    "SUPERTYPES",
    "DOUBLE_FACED",
    "ZONES",
    "MAX_DEPTH",
    "Face",
    "Card",
    "Library",
    "Spell",
    "GameState",
    "as_state",
    "load_card",
    "load_library",
    "load_state",
    "load_library_or_state",
]
