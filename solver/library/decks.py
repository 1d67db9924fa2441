"""Libraries from real data: a decklist (MTG Arena export, plain ``4 Name``) and a card-data file the user has.

Nothing is downloaded: the card data is a file already on disk, either

- **Scryfall card objects**: a JSON array of cards as in Scryfall's bulk data (``name``, ``cmc``, ``type_line``,
  ``layout``, ``mana_cost``, ``card_faces``), a single card object, or a list object ``{"object": "list",
  "data": [...]}``; or
- **MTGJSON AtomicCards**: ``{"data": {"Card Name": [face, ...]}}`` with ``faceName``, ``manaValue``,
  ``faceManaValue``, ``manaCost``, ``types``, ``supertypes``, ``layout``, ``side``.

Layouts map to trample's faces (:mod:`trample.models.cards`):

=====================  ===========================================================================================
layout                 trample card
=====================  ===========================================================================================
split (and aftermath)  ``halves``, one per face (709); the card's mana value is the combined one (709.4)
adventure              the main face, with ``adventure`` (715)
modal_dfc              the front face, ``back`` and ``"double_faced": "modal"`` (712; a land back is never cast)
transform, battle      the front face, ``back`` and ``"double_faced": "transform"`` (back never cast, 712.11a)
flip                   the unflipped face only (710: a flip card in the library has those characteristics)
anything else          the card's own name, mana value and card types (meld, saga, class, leveler, prototype, ...)
=====================  ===========================================================================================

Card types are the words of the type line before the dash that are card types (205.2a) or supertypes (205.4a).
A face's mana value comes from its mana cost (202.3: each generic number, one per colored, colorless or
Phyrexian symbol, the larger half of a hybrid ``{2/W}``, X as 0).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from ..models.cards import CARD_TYPES, SUPERTYPES, Card, Face, Library
from ..models.errors import FormatError

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

_LINE = re.compile(
    r"^(?:SB:\s*)?(?P<count>\d+)\s*[xX]?\s+(?P<name>.+?)"
    r"(?:\s+\((?P<set>[A-Za-z0-9_]+)\)(?:\s+(?P<number>\S+))?)?(?:\s+\*[A-Za-z]+\*)*\s*$"
)
_SYMBOL = re.compile(r"\{([^}]*)\}")
_TYPE_WORDS = frozenset(CARD_TYPES) | frozenset(SUPERTYPES)
_DFC = {"modal_dfc": "modal", "transform": "transform", "battle": "transform"}


@dataclass(frozen=True)
class DeckLine:
    """One card line of a decklist: ``count`` copies of ``name`` in ``section``, from line ``line`` (1-based)."""

    count: int
    name: str
    section: str
    line: int
    set_code: str | None = None
    number: str | None = None


def parse_decklist(text: str, where: str = "decklist") -> list[DeckLine]:
    """The card lines of a decklist, each with its section.

    Accepted: MTG Arena exports (``Deck`` / ``Sideboard`` / ``Commander`` / ``Companion`` headers, an ``About``
    block with ``Name ...``, lines ``4 Beluna Grandsquall (WOE) 220``), plain ``4 Name`` or ``4x Name`` lists, MTGO
    ``SB: 2 Name`` lines, comments (``#``, ``//``). Without a header, a blank line after the main deck's cards
    starts the sideboard (the usual export); after a commander or companion block it goes back to the deck.
    A line that is none of these is a :class:`FormatError` naming it.
    """
    out: list[DeckLine] = []
    section = "deck"
    seen_cards = False
    for number, raw in enumerate(text.removeprefix("\ufeff").splitlines(), start=1):
        line = raw.strip()
        if not line:
            if seen_cards:
                section = {"deck": "sideboard", "commander": "deck", "companion": "deck"}.get(section, section)
                seen_cards = False
            continue
        if line.startswith("#") or line.startswith("//"):
            continue
        head = line.rstrip(":").strip().lower()
        if head in HEADERS:
            section, seen_cards = HEADERS[head], False
            continue
        if section == "about":
            continue  # "Name My Deck"
        m = _LINE.match(line)
        if m is None:
            raise FormatError(
                f"{where}:{number}", f"expected a card line like '4 Name' or a section header, got {line!r}"
            )
        count = int(m["count"])
        sb = line.upper().startswith("SB:")
        out.append(DeckLine(count, m["name"].strip(), "sideboard" if sb else section, number, m["set"], m["number"]))
        seen_cards = True
    return out


# ---------------------------------------------------------------------------------------------
# Card data
# ---------------------------------------------------------------------------------------------


def mana_value_of(cost: str | None, where: str) -> int:
    """The mana value of a mana cost such as ``{2}{W/U}{G/P}`` (202.3); ``""`` or None is 0."""
    total = 0
    for sym in _SYMBOL.findall(cost or ""):
        s = sym.upper()
        if s.isdigit():
            total += int(s)
        elif s in ("X", "Y", "Z"):
            continue
        elif "/" in s:
            parts = s.split("/")
            total += max((int(p) if p.isdigit() else 1) for p in parts if p != "P")
        elif len(s) == 1 and s in "WUBRGCS":
            total += 1
        else:
            raise FormatError(where, f"mana symbol {{{sym}}} has no whole mana value")
    return total


def types_of(type_line: str | None) -> tuple[str, ...]:
    """Card types and supertypes of a type line (``"Legendary Creature — Elf"`` gives Legendary, Creature)."""
    if not type_line:
        return ()
    head = re.split(r"\s+[—-]\s+|—", type_line, maxsplit=1)[0]
    return tuple(w for w in head.split() if w.lower() in _TYPE_WORDS)


@dataclass(frozen=True)
class _Raw:
    """A card as the data gives it, before mapping: name, layout, whole mana value, faces (name, mv, types)."""

    name: str
    layout: str
    mana_value: int
    types: tuple[str, ...]
    faces: tuple[tuple[str, int, tuple[str, ...]], ...]


def _to_card(raw: _Raw) -> Card:
    layout, faces = raw.layout, raw.faces
    extra = () if layout in ("normal", "") else (("layout", json.dumps(layout)),)
    if layout in ("split", "aftermath") and len(faces) >= 2:
        types: list[str] = []
        for _, _, t in faces:
            types += [w for w in t if w not in types]
        return Card(
            raw.name, raw.mana_value, tuple(types), halves=tuple(Face(n, mv, t) for n, mv, t in faces), extra=extra
        )
    if layout == "adventure" and len(faces) >= 2:
        n0, mv0, t0 = faces[0]
        n1, mv1, t1 = faces[1]
        return Card(raw.name, raw.mana_value, t0, adventure=Face(n1, mv1, t1), extra=extra)
    if layout in _DFC and len(faces) >= 2:
        n0, mv0, t0 = faces[0]
        n1, mv1, t1 = faces[1]
        kind = _DFC[layout]
        back_mv = mv0 if kind == "transform" else mv1  # a transforming back face has the front's mana value
        return Card(raw.name, mv0, t0, back=Face(n1, back_mv, t1), double_faced=kind, extra=extra)
    if layout == "flip" and faces:
        n0, _, t0 = faces[0]
        return Card(n0, raw.mana_value, t0, extra=extra)
    if faces and not raw.types:
        n0, mv0, t0 = faces[0]
        return Card(raw.name, mv0, t0, extra=extra)
    return Card(raw.name, raw.mana_value, raw.types, extra=extra)


def _whole(value, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 or value != int(value):
        raise FormatError(where, f"expected a whole mana value, got {json.dumps(value)[:40]}")
    return int(value)


def _from_scryfall(obj, where: str) -> _Raw:
    if not isinstance(obj, dict) or not isinstance(obj.get("name"), str):
        raise FormatError(where, "expected a Scryfall card object with a name")
    name = obj["name"]
    layout = obj.get("layout", "normal")
    faces = []
    for i, f in enumerate(obj.get("card_faces") or []):
        fw = f"{where}.card_faces[{i}]"
        if not isinstance(f, dict) or not isinstance(f.get("name"), str):
            raise FormatError(fw, "expected a card face with a name")
        mv = _whole(f["cmc"], fw + ".cmc") if "cmc" in f else mana_value_of(f.get("mana_cost"), fw + ".mana_cost")
        faces.append((f["name"], mv, types_of(f.get("type_line"))))
    if "cmc" in obj:
        mv = _whole(obj["cmc"], where + ".cmc")
    elif faces:
        mv = faces[0][1]
    else:
        mv = mana_value_of(obj.get("mana_cost"), where + ".mana_cost")
    whole_types = () if faces else types_of(obj.get("type_line"))
    return _Raw(name, layout, mv, whole_types, tuple(faces))


def _from_mtgjson(name: str, entries, where: str) -> _Raw:
    if not isinstance(entries, list) or not entries or not all(isinstance(e, dict) for e in entries):
        raise FormatError(where, "expected a list of MTGJSON card objects")
    entries = sorted(entries, key=lambda e: str(e.get("side", "a")))
    first = entries[0]
    layout = first.get("layout", "normal")

    def types(e):
        words = [*e.get("supertypes", []), *e.get("types", [])]
        return tuple(w for w in words if isinstance(w, str) and w.lower() in _TYPE_WORDS) or types_of(e.get("type"))

    def whole_of(e, w):
        for k in ("manaValue", "convertedManaCost"):
            if k in e:
                return _whole(e[k], f"{w}.{k}")
        return mana_value_of(e.get("manaCost"), w + ".manaCost")

    whole = whole_of(first, f"{where}[0]")
    if len(entries) == 1 and "faceName" not in first:
        return _Raw(name, layout, whole, types(first), ())
    faces = []
    for i, e in enumerate(entries):
        w = f"{where}[{i}]"
        if "faceManaValue" in e:
            mv = _whole(e["faceManaValue"], w + ".faceManaValue")
        elif "faceConvertedManaCost" in e:
            mv = _whole(e["faceConvertedManaCost"], w + ".faceConvertedManaCost")
        else:
            mv = mana_value_of(e.get("manaCost"), w + ".manaCost")
        faces.append((str(e.get("faceName", name)), mv, types(e)))
    return _Raw(name, layout, whole, (), tuple(faces))


def _norm(name: str) -> str:
    return re.sub(r"\s*/{1,3}\s*", " // ", " ".join(name.split())).casefold()


class CardData:
    """Card objects by name (full name, front-face name; case and ``//`` / ``///`` spacing ignored)."""

    def __init__(self, cards: dict[str, Card], source: str):
        self.cards = cards
        self.source = source

    def __len__(self) -> int:
        return len(self.cards)

    def get(self, name: str) -> Card | None:
        return self.cards.get(_norm(name))


def load_card_data(data, where: str = "cards") -> CardData:
    """A :class:`CardData` from decoded JSON: Scryfall card objects or MTGJSON AtomicCards (see module doc)."""
    raws: list[_Raw] = []
    if isinstance(data, dict) and isinstance(data.get("data"), dict):  # MTGJSON
        for name, entries in data["data"].items():
            raws.append(_from_mtgjson(name, entries, f"{where}.data.{name}"))
    else:
        if isinstance(data, dict) and isinstance(data.get("data"), list):
            items, base = data["data"], f"{where}.data"
        elif isinstance(data, dict):
            items, base = [data], where
        elif isinstance(data, list):
            items, base = data, where
        else:
            raise FormatError(where, "expected Scryfall card objects (a JSON array) or MTGJSON AtomicCards")
        for i, obj in enumerate(items):
            raws.append(_from_scryfall(obj, f"{base}[{i}]"))
    cards: dict[str, Card] = {}
    for raw in raws:
        card = _to_card(raw)
        keys = [raw.name] + ([raw.faces[0][0]] if raw.faces else [])
        for k in keys:
            cards.setdefault(_norm(k), card)  # the first printing of a name wins (bulk data repeats names)
    return CardData(cards, where)


def library_from_deck(lines: list[DeckLine], data: CardData, *, sections=("deck",), where: str = "decklist") -> Library:
    """The library of the decklist's cards in ``sections`` (the main deck by default), in list order, copies
    expanded. An unknown name is a :class:`FormatError` naming the decklist line."""
    cards: list[Card] = []
    for entry in lines:
        card = data.get(entry.name)
        if card is None:
            raise FormatError(f"{where}:{entry.line}", f"unknown card {entry.name!r} (not in {data.source})")
        if entry.section in sections:
            cards.extend([card] * entry.count)
    return Library(tuple(cards))
