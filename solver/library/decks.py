"""Libraries from real data: a decklist (MTG Arena export, plain ``4 Name``, MTGO ``.dek``, Cockatrice ``.cod``,
XMage, Archidekt, TappedOut, Moxfield lines) and a card-data file the user has (docs/library.md, "Decklists and
card data").

Nothing is downloaded: the card data is a file already on disk, either

- **Scryfall card objects**: a JSON array of cards as in Scryfall's bulk data (``name``, ``cmc``, ``type_line``,
  ``layout``, ``mana_cost``, ``card_faces``, ``keywords``, ``set_type``), a single card object, or a list object
  ``{"object": "list", "data": [...]}``; or
- **MTGJSON**: AtomicCards ``{"data": {"Card Name": [face, ...]}}``, AllPrintings ``{"data": {"ISD": {"cards":
  [...]}, ...}}`` or one set file ``{"data": {"cards": [...]}}`` (``faceName``, ``manaValue``, ``faceManaValue``,
  ``manaCost``, ``types``, ``supertypes``, ``layout``, ``side``, ``keywords``; a set's ``type``).

Layouts map to trample's faces (:mod:`trample.models.cards`):

=====================  ===========================================================================================
layout                 trample card
=====================  ===========================================================================================
split                  ``halves``, one per face (709); the card's mana value is the combined one (709.4)
aftermath              ``halves``; the aftermath half has ``"aftermath": true`` (cast only from a graveyard, 702.127a)
adventure              the main face, with ``adventure`` (715)
modal_dfc              the front face, ``back`` and ``"double_faced": "modal"`` (712; a land back is never cast)
transform, battle      the front face, ``back`` and ``"double_faced": "transform"`` (back never cast, 712.11a)
flip                   the unflipped face only (710: a flip card in the library has those characteristics)
token, emblem, ...     not a card: skipped (:data:`NOT_CARDS`), as are token sets (:data:`NOT_CARD_SETS`)
anything else          the card's own name, mana value and card types (meld, saga, class, leveler, prototype, ...)
=====================  ===========================================================================================

Card types are the words of the type line before the dash that are card types (205.2a) or supertypes (205.4a).
A face's mana value comes from its mana cost when the data gives no number (202.3: each generic number, one per
colored, colorless or Phyrexian symbol, the larger half of a hybrid ``{2/W}``, X as 0).

Every card object is read on its own: a problem in one (a field of the wrong type, a half mana value such as an
Un-card's ``cmc: 0.5``, a mana symbol without a whole value) is kept with its name and reported, in one line
naming the file, the card and the field, only when a decklist uses that card; a card the deck does not use never
rejects the file. Only a file that is not card data at all, or a card object without a name, is refused whole.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from xml.parsers import expat

from ..models import MAX_NUMBER
from ..models.cards import CARD_TYPES, SUPERTYPES, Card, Face, Library
from ..models.errors import FormatError
from ..models.vocabulary import DoubleFaced

#: Decklist section headers (lower case, without a trailing colon) and the section each starts.
HEADERS = {
    "deck": "deck",
    "main": "deck",
    "maindeck": "deck",
    "main deck": "deck",
    "mainboard": "deck",
    "sideboard": "sideboard",
    "side": "sideboard",
    "commander": "commander",
    "companion": "companion",
    "maybeboard": "maybeboard",
    "considering": "maybeboard",
    "about": "about",
}
SECTIONS = ("deck", "sideboard", "commander", "companion", "maybeboard")

#: Bounds (docs/format.md, "Decklists and card data"): copies on one line and cards in one library built from a
#: decklist (10^8 copies ran out of memory); characters on one decklist line; faces of one card object.
MAX_LIBRARY = 10_000
MAX_LINE = 1_000
MAX_FACES = 16

#: Scryfall and MTGJSON layouts of objects that are not cards of a deck (tokens, emblems, art cards): skipped.
NOT_CARDS = frozenset({"token", "double_faced_token", "emblem", "art_series"})
#: Set types whose objects are not cards of a deck (Scryfall ``set_type``, MTGJSON set ``type``): skipped.
NOT_CARD_SETS = frozenset({"token", "minigame"})
#: Set types of reprints that are not tournament cards (gold-bordered, art series): used only when the name has
#: no other printing in the file.
FALLBACK_SETS = frozenset({"memorabilia"})


def _kind(value, kinds: frozenset) -> bool:
    """``value in kinds`` for a value of any JSON type (a list is not hashable)."""
    return isinstance(value, str) and value in kinds


_SYMBOL = re.compile(r"\{([^}]*)\}")
_TYPE_WORDS = frozenset(CARD_TYPES) | frozenset(SUPERTYPES)
_DFC = {"modal_dfc": DoubleFaced.MODAL, "transform": DoubleFaced.TRANSFORM, "battle": DoubleFaced.TRANSFORM}


@dataclass(frozen=True)
class DeckLine:
    """One card line of a decklist: ``count`` copies of ``name`` in ``section``, from line ``line`` (1-based)."""

    count: int
    name: str
    section: str
    line: int
    set_code: str | None = None
    number: str | None = None


# ---------------------------------------------------------------------------------------------
# Decklists
# ---------------------------------------------------------------------------------------------


def _count(text: str, where: str) -> int:
    """A copy count: digits, at most MAX_LIBRARY (a 5 000-digit count or 10^8 copies is refused here)."""
    text = text.strip()
    if not text.isascii() or not text.isdigit():
        raise FormatError(where, f"expected a whole number of copies, got {text[:40]!r}")
    if len(text) > 6 or int(text) > MAX_LIBRARY:
        raise FormatError(
            where, f"at most {MAX_LIBRARY} copies of a card, got {text[:20]}{'...' if len(text) > 20 else ''}"
        )
    return int(text)


_COUNT_NAME = re.compile(r"(\d+)\s*[xX]?\s+(\S.*)")
_XMAGE = re.compile(r"\[([A-Za-z0-9_]+):([^\]\s]*)\]\s*(.*)")
_LABEL = re.compile(r"\s+\^[^\^]*\^$")  # Archidekt: ^Have,#37d67a^
_CATEGORY = re.compile(r"\s+\[([^\[\]]*)\]$")  # Archidekt: [Ramp], [Commander{top}], [Maybeboard{noDeck}]
_MARKER = re.compile(r"\s+\*([A-Za-z0-9-]+)\*$")  # TappedOut / Moxfield: *CMDR*, *F*, *E*
_SET_NUMBER = re.compile(r"\s+\(([A-Za-z0-9_]+)\)(?:\s+([^\s()\[\]*^]+))?$")  # (WOE) 220


def _category_section(categories: str, section: str) -> str:
    """The section an Archidekt category list puts a card in (the commander, maybeboard and sideboard are not
    the deck; ``{noDeck}`` marks a category kept out of the deck)."""
    names = [c.strip() for c in categories.split(",")]
    bases = {c.split("{", 1)[0].strip().lower() for c in names}
    if "commander" in bases:
        return "commander"
    if "maybeboard" in bases or "considering" in bases or any("{nodeck}" in c.lower() for c in names):
        return "maybeboard"
    if "sideboard" in bases:
        return "sideboard"
    return section


def _card_line(line: str, section: str, number: int, where: str) -> DeckLine:
    place = f"{where}:{number}"
    sideboard = line[:3].upper() == "SB:"
    body = line[3:].strip() if sideboard else line
    m = _COUNT_NAME.fullmatch(body)
    if m is None:
        raise FormatError(place, f"expected a card line like '4 Name' or a section header, got {line[:80]!r}")
    count = _count(m[1], place)
    rest = m[2].strip()
    set_code = card_number = None
    x = _XMAGE.fullmatch(rest)  # XMage: 4 [ISD:51] Delver of Secrets
    if x is not None:
        set_code, card_number, rest = x[1], x[2] or None, x[3].strip()
    if sideboard:
        section = "sideboard"
    for _ in range(8):  # the suffixes, right to left; each pass removes one
        if (s := _LABEL.search(rest)) is not None:
            rest = rest[: s.start()]
        elif (s := _CATEGORY.search(rest)) is not None:
            section = _category_section(s[1], section)
            rest = rest[: s.start()]
        elif (s := _MARKER.search(rest)) is not None:
            if s[1].upper() == "CMDR":  # TappedOut's commander: not in the library
                section = "commander"
            rest = rest[: s.start()]
        elif set_code is None and (s := _SET_NUMBER.search(rest)) is not None:
            set_code, card_number = s[1], s[2]
            rest = rest[: s.start()]
        else:
            break
    name = rest.strip()
    if not name:
        raise FormatError(place, f"no card name in {line[:80]!r}")
    return DeckLine(count, name, section, number, set_code, card_number)


def parse_decklist(text: str, where: str = "decklist") -> list[DeckLine]:
    """The card lines of a decklist, each with its section.

    Accepted: MTG Arena exports (``Deck`` / ``Sideboard`` / ``Commander`` / ``Companion`` headers, an ``About``
    block with ``Name ...``, lines ``4 Beluna Grandsquall (WOE) 220``), plain ``4 Name`` or ``4x Name`` lists, MTGO
    ``SB: 2 Name`` lines and ``.dek`` XML files, Cockatrice ``.cod`` XML files, XMage ``4 [ISD:51] Name`` lines,
    Archidekt ``1x Name (set) 123 [Category]`` lines (``[Commander]``, ``[Sideboard]``, ``[Maybeboard]`` and
    ``{noDeck}`` categories leave the deck), TappedOut's ``*CMDR*`` (the commander) and other ``*F*`` markers,
    comments (``#``, ``//``). Without a header, a blank line after the main deck's cards starts the sideboard
    (the usual export); after a commander or companion block it goes back to the deck. A line that is none of
    these is a :class:`FormatError` naming it.
    """
    body = text.removeprefix("\ufeff")
    if body.lstrip().startswith("<"):
        return _parse_xml(body, where)
    out: list[DeckLine] = []
    section = "deck"
    seen_cards = False
    for number, raw in enumerate(body.splitlines(), start=1):
        if len(raw) > MAX_LINE:
            raise FormatError(f"{where}:{number}", f"a decklist line has at most {MAX_LINE} characters")
        line = raw.strip()
        if not line:
            if seen_cards:
                section = {"deck": "sideboard", "commander": "deck", "companion": "deck"}.get(section, section)
                seen_cards = False
            continue
        if line.startswith("#") or line.startswith("//"):
            continue
        if line.startswith("NAME:") or line.startswith("LAYOUT "):  # XMage's deck name and layout lines
            continue
        head = line.rstrip(":").strip().lower()
        if head in HEADERS:
            section, seen_cards = HEADERS[head], False
            continue
        if section == "about":
            continue  # "Name My Deck"
        entry = _card_line(line, section, number, where)
        out.append(entry)
        seen_cards = True
    return out


def _parse_xml(text: str, where: str) -> list[DeckLine]:
    """MTGO ``.dek`` (``<Deck>`` with ``<Cards Quantity Sideboard Name>``) or Cockatrice ``.cod``
    (``<cockatrice_deck>`` with ``<zone name="main|side|tokens">`` of ``<card number name>``)."""
    if re.search(r"<!\s*(DOCTYPE|ENTITY)", text, re.IGNORECASE):
        raise FormatError(where, "an XML decklist with a DOCTYPE or entities is not read (a decklist needs neither)")
    parser = expat.ParserCreate(encoding="utf-8")
    out: list[DeckLine] = []
    state: dict = {"root": None, "zone": None}

    def start(tag: str, attrs: dict) -> None:
        number = parser.CurrentLineNumber
        place = f"{where}:{number}"
        if state["root"] is None:
            if tag not in ("Deck", "cockatrice_deck"):
                raise FormatError(place, f"unknown XML decklist <{tag[:40]}> (MTGO .dek <Deck> or Cockatrice .cod)")
            state["root"] = tag
            return
        if state["root"] == "Deck" and tag == "Cards":
            name = attrs.get("Name", "").strip()
            if not name:
                raise FormatError(place, "a <Cards> element without a Name")
            section = "sideboard" if attrs.get("Sideboard", "false").strip().lower() == "true" else "deck"
            out.append(DeckLine(_count(attrs.get("Quantity", ""), place), name, section, number))
        elif state["root"] == "cockatrice_deck" and tag == "zone":
            state["zone"] = attrs.get("name", "main").strip().lower()
        elif state["root"] == "cockatrice_deck" and tag == "card":
            zone = state["zone"] or "main"
            if zone == "tokens":  # tokens are not cards (111.1)
                return
            name = attrs.get("name", "").strip()
            if not name:
                raise FormatError(place, "a <card> element without a name")
            section = {"main": "deck", "side": "sideboard"}.get(zone, "maybeboard")
            out.append(DeckLine(_count(attrs.get("number", ""), place), name, section, number))

    def refuse_doctype(*_args) -> None:
        raise FormatError(where, "an XML decklist with a DOCTYPE is not read")

    parser.StartElementHandler = start
    parser.StartDoctypeDeclHandler = refuse_doctype
    parser.EntityDeclHandler = refuse_doctype
    try:
        parser.Parse(text, True)
    except expat.ExpatError as err:
        raise FormatError(f"{where}:{err.lineno}", f"not well-formed XML ({expat.ErrorString(err.code)})") from None
    return out


# ---------------------------------------------------------------------------------------------
# Card data
# ---------------------------------------------------------------------------------------------


def _show(value) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, float) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def mana_value_of(cost, where: str) -> int:
    """The mana value of a mana cost such as ``{2}{W/U}{G/P}`` (202.3); ``""`` or None is 0. A symbol without a
    whole mana value (an Un-card's ``{HW}`` or ``{∞}``) is a :class:`FormatError`."""
    if cost is None:
        return 0
    if not isinstance(cost, str):
        raise FormatError(where, f"expected a mana cost (text), got {_show(cost)}")
    total = 0
    for sym in _SYMBOL.findall(cost):
        s = sym.upper()
        if s.isascii() and s.isdigit() and len(s) <= 7:
            total += int(s)
        elif s in ("X", "Y", "Z"):
            continue
        elif "/" in s and all(
            p.isascii() and (p.isdigit() and len(p) <= 7 or p in "WUBRGCSP") and p for p in s.split("/")
        ):
            parts = [p for p in s.split("/") if p != "P"]
            if not parts:
                raise FormatError(where, f"mana symbol {{{sym[:20]}}} has no whole mana value")
            total += max((int(p) if p.isdigit() else 1) for p in parts)
        elif len(s) == 1 and s in "WUBRGCSP":
            total += 1
        else:
            raise FormatError(where, f"mana symbol {{{sym[:20]}}} has no whole mana value")
        if total > MAX_NUMBER:
            raise FormatError(where, f"a mana value is at most {MAX_NUMBER}")
    return total


def types_of(type_line, where: str = "type_line") -> tuple[str, ...]:
    """Card types and supertypes of a type line (``"Legendary Creature — Elf"`` gives Legendary, Creature)."""
    if type_line is None:
        return ()
    if not isinstance(type_line, str):
        raise FormatError(where, f"expected a type line (text), got {_show(type_line)}")
    head = re.split(r"\s+[—-]\s+|—", type_line, maxsplit=1)[0]
    return tuple(w for w in head.split() if w.lower() in _TYPE_WORDS)


def _whole(value, where: str) -> int:
    """A mana value given as a number: finite, from 0 to MAX_NUMBER, whole (``3.0`` is 3; an Un-card's 0.5 is
    refused, since trample's mana values are whole numbers)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise FormatError(where, f"expected a mana value (a number), got {_show(value)}")
    if isinstance(value, float) and not math.isfinite(value):
        raise FormatError(where, "expected a finite mana value")
    if value < 0 or value > MAX_NUMBER:
        raise FormatError(where, f"a mana value is from 0 to {MAX_NUMBER}, got {_show(value)}")
    if value != int(value):
        raise FormatError(
            where, f"mana value {_show(value)} is not a whole number (trample's mana values are whole, 202.3)"
        )
    return int(value)


def _text(value, where: str, default: str = "") -> str:
    if value is None:
        return default
    if not isinstance(value, str):
        raise FormatError(where, f"expected text, got {_show(value)}")
    return value


def _words(value, where: str) -> list[str]:
    """A list of strings (MTGJSON ``types``, ``supertypes``; Scryfall ``keywords``), null as empty."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise FormatError(where, f"expected a list of words, got {_show(value)}")
    if len(value) > 64:
        raise FormatError(where, f"at most 64 words, got {len(value)}")
    for i, w in enumerate(value):
        if not isinstance(w, str):
            raise FormatError(f"{where}[{i}]", f"expected a word (text), got {_show(w)}")
    return value


@dataclass(frozen=True)
class _RawFace:
    name: str
    mana_value: int
    types: tuple[str, ...]
    aftermath: bool = False


@dataclass(frozen=True)
class _Raw:
    """A card as the data gives it, before mapping: name, layout, whole mana value, faces."""

    name: str
    layout: str
    mana_value: int
    types: tuple[str, ...]
    faces: tuple[_RawFace, ...]


def _to_card(raw: _Raw) -> Card:
    layout, faces = raw.layout, raw.faces
    extra = () if layout in ("normal", "") else (("layout", json.dumps(layout, ensure_ascii=False)),)
    if layout in ("split", "aftermath") and len(faces) >= 2:
        types: list[str] = []
        for f in faces:
            types += [w for w in f.types if w not in types]
        halves = tuple(Face(f.name, f.mana_value, f.types, aftermath=f.aftermath) for f in faces)
        return Card(raw.name, raw.mana_value, tuple(types), halves=halves, extra=extra)
    if layout == "adventure" and len(faces) >= 2:
        f0, f1 = faces[0], faces[1]
        return Card(raw.name, raw.mana_value, f0.types, adventure=Face(f1.name, f1.mana_value, f1.types), extra=extra)
    if layout in _DFC and len(faces) >= 2:
        f0, f1 = faces[0], faces[1]
        kind = _DFC[layout]
        back_mv = f0.mana_value if kind == DoubleFaced.TRANSFORM else f1.mana_value  # a transforming back: the front's
        return Card(
            raw.name, f0.mana_value, f0.types, back=Face(f1.name, back_mv, f1.types), double_faced=kind, extra=extra
        )
    if layout == "flip" and faces:
        return Card(faces[0].name, raw.mana_value, faces[0].types, extra=extra)
    if faces and not raw.types:
        return Card(raw.name, faces[0].mana_value, faces[0].types, extra=extra)
    return Card(raw.name, raw.mana_value, raw.types, extra=extra)


def _aftermath_faces(layout: str, keywords: list[str], texts: list[str], count: int) -> list[bool]:
    """Which halves have aftermath (702.127a): those whose rules text starts with "Aftermath"; when no text says,
    the halves after the first of an ``aftermath`` layout (or a card whose keywords hold Aftermath)."""
    marked = [t.lstrip().lower().startswith("aftermath") for t in texts]
    if any(marked):
        return marked
    if layout == "aftermath" or any(k.lower() == "aftermath" for k in keywords):
        return [i > 0 for i in range(count)]
    return [False] * count


def _scryfall_raw(obj: dict, name: str, where: str) -> _Raw:
    layout = _text(obj.get("layout"), where + ".layout", "normal")
    _text(obj.get("set_type"), where + ".set_type")
    _text(obj.get("mana_cost"), where + ".mana_cost")  # its symbols are read only when no cmc is given
    top_types = types_of(obj.get("type_line"), where + ".type_line")
    keywords = _words(obj.get("keywords"), where + ".keywords")
    items = obj.get("card_faces")
    if items is None:
        items = []
    if not isinstance(items, list):
        raise FormatError(where + ".card_faces", f"expected a list of card faces, got {_show(items)}")
    if len(items) > MAX_FACES:
        raise FormatError(where + ".card_faces", f"at most {MAX_FACES} faces, got {len(items)}")
    faces: list[_RawFace] = []
    texts: list[str] = []
    for i, f in enumerate(items):
        fw = f"{where}.card_faces[{i}]"
        if not isinstance(f, dict):
            raise FormatError(fw, f"expected a card face (an object), got {_show(f)}")
        fname = f.get("name")
        if not isinstance(fname, str) or not fname.strip():
            raise FormatError(fw + ".name", f"expected a face name (text), got {_show(fname)}")
        _text(f.get("mana_cost"), fw + ".mana_cost")
        if f.get("cmc") is not None:
            mv = _whole(f["cmc"], fw + ".cmc")
        else:
            mv = mana_value_of(f.get("mana_cost"), fw + ".mana_cost")
        faces.append(_RawFace(fname, mv, types_of(f.get("type_line"), fw + ".type_line")))
        texts.append(_text(f.get("oracle_text"), fw + ".oracle_text"))
    if obj.get("cmc") is not None:
        mv = _whole(obj["cmc"], where + ".cmc")
    elif layout in ("split", "aftermath") and faces:  # 709.4: the halves' combined mana value
        mv = sum(f.mana_value for f in faces)
    elif faces:
        mv = faces[0].mana_value
    else:
        mv = mana_value_of(obj.get("mana_cost"), where + ".mana_cost")
    whole_types = () if faces else top_types
    marks = _aftermath_faces(layout, keywords, texts, len(faces))
    faces = [_RawFace(f.name, f.mana_value, f.types, m) for f, m in zip(faces, marks)]
    return _Raw(name, layout, mv, whole_types, tuple(faces))


def _mtgjson_raw(name: str, pairs: list[tuple[dict, str]]) -> _Raw:
    """One MTGJSON card from its face entries, each with its place in the file (side a first)."""
    for e, w in pairs:
        _text(e.get("side"), w + ".side", "a")
    pairs = sorted(pairs, key=lambda p: str(p[0].get("side") or "a"))
    first, first_w = pairs[0]
    layout = _text(first.get("layout"), first_w + ".layout", "normal")

    def types(e, w):
        words = [*_words(e.get("supertypes"), w + ".supertypes"), *_words(e.get("types"), w + ".types")]
        found = tuple(t for t in words if t.lower() in _TYPE_WORDS)
        line = types_of(e.get("type"), w + ".type")
        _text(e.get("manaCost"), w + ".manaCost")
        return found or line

    def whole_of(e, w):
        for k in ("manaValue", "convertedManaCost"):
            if e.get(k) is not None:
                return _whole(e[k], f"{w}.{k}")
        return mana_value_of(e.get("manaCost"), w + ".manaCost")

    whole = whole_of(first, first_w)
    if len(pairs) == 1 and "faceName" not in first:
        return _Raw(name, layout, whole, types(first, first_w), ())
    faces: list[_RawFace] = []
    keywords: list[str] = []
    texts: list[str] = []
    for e, w in pairs:
        if e.get("faceManaValue") is not None:
            mv = _whole(e["faceManaValue"], w + ".faceManaValue")
        elif e.get("faceConvertedManaCost") is not None:
            mv = _whole(e["faceConvertedManaCost"], w + ".faceConvertedManaCost")
        else:
            mv = mana_value_of(e.get("manaCost"), w + ".manaCost")
        fname = e.get("faceName", name)
        if not isinstance(fname, str) or not fname.strip():
            raise FormatError(w + ".faceName", f"expected a face name (text), got {_show(fname)}")
        faces.append(_RawFace(fname, mv, types(e, w)))
        keywords += _words(e.get("keywords"), w + ".keywords")
        texts.append(_text(e.get("text"), w + ".text"))
    marks = _aftermath_faces(layout, keywords, texts, len(faces))
    faces = [_RawFace(f.name, f.mana_value, f.types, m) for f, m in zip(faces, marks)]
    return _Raw(name, layout, whole, (), tuple(faces))


def _norm(name: str) -> str:
    return re.sub(r"\s*/{1,3}\s*", " // ", " ".join(name.split())).casefold()


@dataclass(frozen=True)
class Unusable:
    """A card the data names but trample cannot use: ``where`` (file, card, field) and why, in one line."""

    name: str
    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


class CardData:
    """Card objects by name (full name, front-face name; case and ``//`` / ``///`` spacing ignored).

    ``cards`` maps a normalised name to a :class:`Card` or to an :class:`Unusable` (reported only when a decklist
    uses it); ``skipped`` maps the names of objects that are not cards (tokens, emblems, art cards) to what they
    were, so that an unknown name can say so.
    """

    def __init__(self, cards: dict[str, Card | Unusable], source: str, skipped: dict[str, str] | None = None):
        self.cards = cards
        self.source = source
        self.skipped = skipped or {}

    def __len__(self) -> int:
        return len(self.cards)

    def lookup(self, name: str) -> Card | Unusable | None:
        return self.cards.get(_norm(name))

    def get(self, name: str) -> Card | None:
        """The card of this name, or None (unknown, or a card trample cannot use: see :meth:`lookup`)."""
        found = self.lookup(name)
        return found if isinstance(found, Card) else None


class _Collector:
    """Builds a :class:`CardData`: the first usable printing of a name wins, then a fallback printing
    (memorabilia), then an unusable one."""

    def __init__(self, source: str):
        self.source = source
        self.best: dict[str, tuple[int, Card | Unusable]] = {}
        self.skipped: dict[str, str] = {}

    def skip(self, name, kind: str) -> None:
        """Remember a skipped object (``kind``: its layout, or its set type with " set")."""
        words = {"double_faced_token": "double-faced token", "art_series": "art-series card"}
        text = f"card of a {kind}" if kind.endswith(" set") else words.get(kind, kind)
        if isinstance(name, str):
            self.skipped.setdefault(_norm(name), text)

    def add(self, name: str, build, fallback: bool) -> None:
        """``build()`` returns the :class:`_Raw` of one card object (or raises :class:`FormatError`)."""
        old = self.best.get(_norm(name))
        if old is not None and old[0] <= (1 if fallback else 0):  # a printing as good came first: bulk files
            return  # repeat a name once per printing
        try:
            raw = build()
            item: Card | Unusable = _to_card(raw)
            keys = [raw.name] + ([raw.faces[0].name] if raw.faces else [])
            rank = 1 if fallback else 0
        except FormatError as err:
            item = Unusable(name, err.path, err.message)
            keys = [name]
            rank = 3 if fallback else 2
        for k in keys:
            key = _norm(k)
            old = self.best.get(key)
            if old is None or rank < old[0]:
                self.best[key] = (rank, item)

    def data(self) -> CardData:
        return CardData({k: v for k, (_, v) in self.best.items()}, self.source, self.skipped)


def _scryfall_object(obj, where: str, out: _Collector) -> None:
    if not isinstance(obj, dict):
        raise FormatError(where, f"expected a Scryfall card object, got {_show(obj)}")
    name = obj.get("name")
    if not isinstance(name, str) or not name.strip():
        raise FormatError(where + ".name", f"expected a card name (text), got {_show(name)}")
    layout, set_type = obj.get("layout"), obj.get("set_type")
    if _kind(layout, NOT_CARDS) or _kind(set_type, NOT_CARD_SETS):
        out.skip(name, str(layout) if _kind(layout, NOT_CARDS) else f"{set_type} set")
        return
    out.add(name, lambda: _scryfall_raw(obj, name, where), _kind(set_type, FALLBACK_SETS))


def _mtgjson_set(cards, where: str, set_type, out: _Collector) -> None:
    """The ``cards`` of an MTGJSON set: entries of one card share a name; each side's first entry is kept."""
    if not isinstance(cards, list):
        raise FormatError(where, f"expected a list of MTGJSON card objects, got {_show(cards)}")
    if _kind(set_type, NOT_CARD_SETS):
        return
    groups: dict[str, list[tuple[dict, str]]] = {}
    for i, e in enumerate(cards):
        w = f"{where}[{i}]"
        if not isinstance(e, dict):
            raise FormatError(w, f"expected an MTGJSON card object, got {_show(e)}")
        name = e.get("name")
        if not isinstance(name, str) or not name.strip():
            raise FormatError(w + ".name", f"expected a card name (text), got {_show(name)}")
        if _kind(e.get("layout"), NOT_CARDS):
            out.skip(name, e["layout"])
            continue
        group = groups.setdefault(name, [])
        side = e.get("side") or "a"
        if len(group) < MAX_FACES and all((x.get("side") or "a") != side for x, _ in group):
            group.append((e, w))  # at most MAX_FACES sides: linear in the file, whatever the sides
    for name, pairs in groups.items():
        out.add(name, lambda n=name, ps=pairs: _mtgjson_raw(n, ps), _kind(set_type, FALLBACK_SETS))


def _mtgjson_atomic(name: str, entries, where: str, out: _Collector) -> None:
    if not isinstance(entries, list) or not entries:
        raise FormatError(where, f"expected a list of MTGJSON card objects, got {_show(entries)}")
    for i, e in enumerate(entries):
        if not isinstance(e, dict):
            raise FormatError(f"{where}[{i}]", f"expected an MTGJSON card object, got {_show(e)}")
    if any(_kind(e.get("layout"), NOT_CARDS) for e in entries):
        out.skip(name, next(e["layout"] for e in entries if _kind(e.get("layout"), NOT_CARDS)))
        return
    kept: list[tuple[dict, str]] = []
    for i, e in enumerate(entries):
        if len(kept) < MAX_FACES and all((x.get("side") or "a") != (e.get("side") or "a") for x, _ in kept):
            kept.append((e, f"{where}[{i}]"))
    out.add(name, lambda: _mtgjson_raw(name, kept), False)


def load_card_data(data, where: str = "cards") -> CardData:
    """A :class:`CardData` from decoded JSON: Scryfall card objects, or MTGJSON AtomicCards, AllPrintings or a set
    file (see the module doc). Objects that are not cards (tokens, emblems, art cards) are skipped."""
    out = _Collector(where)
    if isinstance(data, dict) and isinstance(data.get("data"), dict):  # MTGJSON
        body = data["data"]
        base = f"{where}.data"
        if isinstance(body.get("cards"), list):  # one set file
            _mtgjson_set(body["cards"], f"{base}.cards", body.get("type"), out)
            return out.data()
        for key, value in body.items():
            w = f"{base}.{key}"
            if isinstance(value, dict):  # AllPrintings: a set
                if "cards" not in value:
                    raise FormatError(w, "expected an MTGJSON set with cards (AllPrintings) or a list of faces")
                _mtgjson_set(value["cards"], f"{w}.cards", value.get("type"), out)
            else:
                _mtgjson_atomic(key, value, w, out)
        return out.data()
    if isinstance(data, dict) and isinstance(data.get("data"), list):
        items, base = data["data"], f"{where}.data"
    elif isinstance(data, dict):
        items, base = [data], where
    elif isinstance(data, list):
        items, base = data, where
    else:
        raise FormatError(where, "expected Scryfall card objects (a JSON array) or an MTGJSON file")
    for i, obj in enumerate(items):
        _scryfall_object(obj, f"{base}[{i}]", out)
    return out.data()


def _listed(items: list[str], limit: int = 20) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def library_from_deck(lines: list[DeckLine], data: CardData, *, sections=("deck",), where: str = "decklist") -> Library:
    """The library of the decklist's cards in ``sections`` (the main deck by default), in list order, copies
    expanded. Every unknown name (in any section) is reported in one :class:`FormatError` naming the decklist
    lines; then every card of the library that trample cannot use (naming the file, the card and the field);
    a library of more than :data:`MAX_LIBRARY` cards is refused before it is built."""
    unknown: list[DeckLine] = [e for e in lines if data.lookup(e.name) is None]
    if unknown:
        first = unknown[0]
        if len(unknown) == 1:
            note = data.skipped.get(_norm(first.name))
            article = "an" if note and note[0] in "aeiou" else "a"
            why = f"only {article} {note} of that name in {data.source}" if note else f"not in {data.source}"
            raise FormatError(f"{where}:{first.line}", f"unknown card {first.name!r} ({why})")
        names = [f"{e.name!r} (line {e.line})" for e in unknown]
        raise FormatError(
            f"{where}:{first.line}", f"{len(unknown)} unknown cards (not in {data.source}): {_listed(names)}"
        )
    used = [e for e in lines if e.section in sections]
    bad = [(e, found) for e in used for found in [data.lookup(e.name)] if isinstance(found, Unusable)]
    if bad:
        e, found = bad[0]
        more = f" (and {len(bad) - 1} more unusable cards)" if len(bad) > 1 else ""
        raise FormatError(f"{where}:{e.line}", f"card {e.name!r} cannot be used: {found}{more}")
    total = sum(e.count for e in used)
    if total > MAX_LIBRARY:
        raise FormatError(where, f"a library has at most {MAX_LIBRARY} cards, the decklist gives {total}")
    cards: list[Card] = []
    for e in used:
        card = data.lookup(e.name)
        assert isinstance(card, Card)
        cards.extend([card] * e.count)
    return Library(tuple(cards))
