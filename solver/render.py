"""Pictures of boards and what an assignment does, as SVG (pure Python; python-chess's ``chess.svg`` is the model).

:func:`board_svg` draws one damage step: across the top, what can be dealt damage (blockers, planeswalkers,
battles, players); across the bottom, the attackers. Each object is a card with its numbers: power/toughness,
marked damage and keywords for creatures, life (poison, commander damage) for players, loyalty for planeswalkers,
defense for battles. Grey dashed lines show who blocks whom; an attacker's card names what it attacks.

An assignment is drawn as thick arrows from each source to each recipient labelled with the amount assigned, and
every card then shows what the damage *does* -- the step's outcome (:func:`trample.outcome.resolve`), the answer
the solver reads: damage dealt (an arrow whose damage is prevented is dashed and its bubble reads ``2→0``; doubled
damage ``2→4``), the damage prevented and the rule, -1/-1 counters, dies / survives, life before and after with
lifelink gains, poison, commander damage, and the players who lose (704.5a, 704.5c, 704.6c). The blockers' damage
(the defending side) is drawn downwards in red; when only one side's assignment is given on a board with effects,
the other player's reply that the solver assumes (its best: :meth:`trample.Combat.outcome`) is drawn and said so --
the defending player's for the attacking side, the attacking player's for ``--side defending``.

:func:`combat_svg` draws a whole combat (``"step": "combat"``) with a line: the first-strike step on the board as
given and the regular step on the state after the state-based actions, side by side; when the first step ends the
game (104.3b), no regular step is drawn.

Every text and attribute is escaped as :mod:`xml.etree.ElementTree` escapes it (the picture is a light tree of
ElementTree's model whose leaves -- texts, frames, arrows -- are their XML text, written when drawn; the whole is
written as ``ET.tostring`` writes the same tree: a test holds the two equal), and characters
that XML 1.0 cannot carry (most control characters, lone surrogates) are shown as visible escapes
(:func:`xml_text`): a picture carries no element or attribute but the ones written here, whatever the board's ids.

``Combat._repr_svg_`` / ``WholeCombat._repr_svg_`` show a board in a notebook, ``show(assignment)`` a board with an
assignment or line, and the results of ``solve`` show their optimal line.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from operator import attrgetter
from typing import Any, cast

from .models import Keyword, ObjectKind, Side, Step, load_assignment
from .models.declare import AttackersDoc, BlockersDoc
from .outcome import ATTACKING_PLAYER, Outcome, resolve
from .rules import known_legal

SVG_NS = "http://www.w3.org/2000/svg"
CARD_W, CARD_H = 150, 150
GAP_X = 34
ROW_GAP = 150
MARGIN = 24
MIN_WIDTH = 480  # room for a title and the notes on a board of one or two cards
LINE = 15  # height of a title or note line
TITLE_LINES = 4  # at most this many lines of title, and of notes (the last one cut with "…")
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
PALETTE = ("#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2", "#bcbd22")
DEFENDING_COLOUR = "#d62728"
ALONE_COLOUR = "#555555"  # a declaration's attacker in no band (the palette colours the bands)
LOSS_COLOUR, SAFE_COLOUR = "#b00020", "#1b7a1b"
LEFT_COLOUR = "#666666"  # out of combat without dying: left the game with its controller, or removed (800.4a, 506.4)
MARKER = "trample-arrowhead-"  # arrowhead marker ids (a prefix no reader needs to match)


# ---------------------------------------------------------------------------------------------
# Text that XML can carry, and elements
# ---------------------------------------------------------------------------------------------


#: a character XML 1.0 cannot carry (2.2 Char: everything but tab, newline, carriage return, U+0020-U+D7FF,
#: U+E000-U+FFFD and U+10000-U+10FFFF): one regular expression, so that the usual text (all of it allowed) is
#: checked in one pass rather than character by character. Written as the characters it matches (the complement
#: of those ranges, checked equal on every code point by tests/render): the negated class took about 4 ms of CPU to
#: compile at import, the positive one 0.5 ms
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _escape(match: re.Match) -> str:
    o = ord(match.group())
    return f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}"


def xml_text(text) -> str:
    """``text`` as XML 1.0 can carry it: a character XML cannot hold (most control characters, lone surrogates,
    U+FFFE, U+FFFF) becomes a visible escape (``\\x01``, ``\\ud800``); everything else is kept (ElementTree
    escapes ``<``, ``&`` and quotes)."""
    s = str(text)
    return _NOT_XML.sub(_escape, s) if _NOT_XML.search(s) else s


def _attr(value) -> str:
    if isinstance(value, float):
        return f"{value:.1f}"
    return xml_text(value)


_ATTR_NAMES: dict[str, str] = {}  # keyword -> attribute name (stroke_width -> stroke-width, class_ -> class)


def _attr_name(key: str) -> str:
    name = _ATTR_NAMES.get(key)
    if name is None:
        name = _ATTR_NAMES[key] = key.rstrip("_").replace("_", "-")
    return name


class _Node:
    """An element of a picture: ElementTree's model (a tag, attributes in order, children) without its C objects,
    written by :func:`_serialise` as ``ET.tostring`` writes the same tree (:meth:`element` builds that tree: a test
    holds the two texts equal). Attribute values are already what XML can carry (:func:`_value`). A child is a
    node or a leaf's XML text (a ``str``: most of a picture, written once, when drawn)."""

    __slots__ = ("tag", "attrib", "children")

    def __init__(self, tag: str, attrib: dict[str, str]) -> None:
        self.tag = tag
        self.attrib = attrib
        self.children: list[_Node | _Group | str] = []

    def set(self, key: str, value: str) -> None:
        self.attrib[key] = value

    def append(self, child: _Node | _Group | str) -> None:
        self.children.append(child)

    def element(self) -> ET.Element:
        """The same element as an ElementTree element (for the test that compares the two writers)."""
        el = ET.Element(self.tag, self.attrib)
        for child in self.children:  # a leaf is its XML text, written when drawn: ElementTree reads it back (a
            # carriage return in text is kept raw, as ElementTree writes it; read raw, XML would make it a newline)
            if isinstance(child, _Node):
                el.append(child.element())
            else:
                text = child if isinstance(child, str) else child.text()
                el.append(ET.fromstring(text.replace("\r", "&#13;")))
        return el


class _Group:
    """A ``g`` element whose children are all leaves (a card, an amount's bubble): its start tag written when it is
    made, its children's XML text appended as they are drawn, the whole written as one leaf (:meth:`text`)."""

    __slots__ = ("head", "children")

    def __init__(self, head: str) -> None:
        self.head = head  # "<g" and its attributes
        self.children: list[str] = []

    def text(self) -> str:
        if self.children:
            return self.head + ">" + "".join(self.children) + "</g>"
        return self.head + " />"


#: a coordinate's text with one decimal (``f"{float(v):.1f}"``), kept per value: a picture writes a few hundred
#: coordinates, most of them the same few card positions and offsets, and formatting a float is most of the cost
#: of writing an element. Only what the formatting itself returns is kept (the text is a function of the value
#: alone: nothing of one picture can show in another); 0 and -0.0 (equal keys, written differently) and a value
#: past :data:`_F1_MOST` distinct ones are formatted each time.
_F1: dict[float, str] = {}
_F1_MOST = 8192


def _f1(v) -> str:
    """``f"{float(v):.1f}"``, kept in :data:`_F1` (the caller looks there first: ``_F1.get(v) or _f1(v)``)."""
    s = f"{float(v):.1f}"
    if v and len(_F1) < _F1_MOST:
        _F1[v] = s
    return s


def _el(parent: _Node | None, tag: str, **attrs) -> _Node:
    """An element; ``stroke_width`` is written ``stroke-width``, ``class_`` ``class``."""
    a = {}
    for k, v in attrs.items():
        if v is not None:
            t = type(v)  # _value, with the numbers (most attributes) written here
            a[_ATTR_NAMES.get(k) or _attr_name(k)] = f"{v:.1f}" if t is float else str(v) if t is int else _value(v)
    node = _Node(tag, a)
    if parent is not None:
        parent.children.append(node)
    return node


def _value(v) -> str:
    """:func:`_attr` with the usual values (numbers, printable ASCII) taken without a regular expression: the
    pictures write tens of thousands of attributes."""
    t = type(v)
    if t is float:
        return f"{v:.1f}"
    if t is int:
        return str(v)
    if t is str and v.isascii() and v.isprintable():  # U+0020-U+007E: XML carries every one
        return v
    return _attr(v)


#: the attributes of a text element after its position, written once per (size, weight, style, anchor, fill)
_TEXT_STYLES: dict[tuple, str] = {}


def _text_style(size, weight, anchor, fill, style) -> str:
    key = (type(size), size, weight, anchor, fill, style)  # 12 and 12.0 are written differently
    head = _TEXT_STYLES.get(key)
    if head is None:
        values = (FONT, _value(size), _value(weight), _value(style), _value(anchor), _value(fill))
        names = ("font-family", "font-size", "font-weight", "font-style", "text-anchor", "fill")
        head = "".join(f' {k}="{_escaped(v, _ATTR_ESCAPES)}"' for k, v in zip(names, values))
        if len(_TEXT_STYLES) < 4096:  # a program passing ever new colours does not grow it without bound
            _TEXT_STYLES[key] = head
    return head


def _t(parent, x, y, text, size=12, weight="normal", anchor="start", fill="#222", style="normal") -> None:
    head = _TEXT_STYLES.get((type(size), size, weight, anchor, fill, style)) or _text_style(
        size, weight, anchor, fill, style
    )
    _tx(parent.children, x, y, head, text)


def _body(text) -> str:
    """A text element's content: what XML can carry (:func:`xml_text`), with ``&``, ``<`` and ``>`` escaped."""
    key = text if type(text) is str else None
    if key is None or not (text.isascii() and text.isprintable()):
        text = xml_text(text)
    body = text.translate(_TEXT_ESCAPES) if "&" in text or "<" in text or ">" in text else text
    if key is not None and len(_BODIES) < _BODIES_MOST:
        _BODIES[key] = body
    return body


#: a text's content as :func:`_body` writes it, kept per text (a function of the text alone; the same lines --
#: "unblocked", "player", "lethal: 2" -- are on most pictures), at most :data:`_BODIES_MOST` texts
_BODIES: dict[str, str] = {}
_BODIES_MOST = 8192


def _tx(out: list, x, y, head: str, text) -> None:
    """A text element at (``x``, ``y``) with its attributes ``head`` (:func:`_text_style`), its XML appended to
    ``out``: :func:`_t` with the style looked up once (the cards' fixed styles, below)."""
    body = _BODIES.get(text) if type(text) is str else None
    if body is None:
        body = _body(text)
    if body:
        out.append(f'<text x="{_F1.get(x) or _f1(x)}" y="{_F1.get(y) or _f1(y)}"{head}>{body}</text>')
    else:
        out.append(f'<text x="{_F1.get(x) or _f1(x)}" y="{_F1.get(y) or _f1(y)}"{head} />')


def _room(width: float, size: float) -> int:
    room = _ROOMS.get((width, size))
    if room is None:
        room = max(3, int(width / (0.6 * size)))  # an estimate: 0.6 em per character
        if len(_ROOMS) < 1024:  # the pictures use a dozen (width, size) pairs; a program's own ones do not grow it
            _ROOMS[(width, size)] = room
    return room


#: characters per line at (width, size), computed once per pair (a function of the pair alone)
_ROOMS: dict[tuple[float, float], int] = {}


def _fit(text: str, width: float, size: float) -> str:
    """Cut a line to what fits in ``width`` pixels."""
    return _cut(text, _ROOMS.get((width, size)) or _room(width, size))


def _cut(text: str, room: int) -> str:
    """Cut a line to ``room`` characters (:func:`_fit` with the room known)."""
    return text if len(text) <= room else text[: room - 1] + "…"


def _wrap(text: str, width: float, size: float, most: int | None = None) -> list[str]:
    """Lines of at most ``width`` pixels (words longer than a line are split); at most ``most`` lines, the last
    one cut with "…" when more would be needed."""
    return _lines(str(text), max(6, _ROOMS.get((width, size)) or _room(width, size)), most)


def _lines(text: str, room: int, most: int | None = None) -> list[str]:
    """:func:`_wrap` with its room known (characters per line, at least 6)."""
    if len(text) <= room and text and text[0] != " ":  # one line, as the loop below would find it
        return [text]
    lines: list[str] = []
    cur = ""
    for word in text.split(" "):
        while len(word) > room:
            if cur:
                lines.append(cur)
                cur = ""
            lines.append(word[:room])
            word = word[room:]
        if cur and len(cur) + 1 + len(word) > room:
            lines.append(cur)
            cur = word
        else:
            cur = f"{cur} {word}" if cur else word
    if cur:
        lines.append(cur)
    if most is not None and len(lines) > most:
        lines = lines[:most]
        lines[-1] = lines[-1][: room - 1] + "…"
    return lines


def _num(x) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def _svg(width: float, height: float) -> _Node:
    return _el(
        None, "svg", xmlns=SVG_NS, version="1.1", width=int(width), height=int(height), viewBox=f"0 0 {width} {height}"
    )


#: XML escapes (2.4): of text (``&``, ``<``, ``>``) and of attribute values (also the quote, and the white space an
#: attribute value would otherwise normalise away, 3.3.3), as ElementTree writes them
_TEXT_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
_ATTR_ESCAPES = str.maketrans(
    {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\r": "&#13;", "\n": "&#10;", "\t": "&#09;"}
)


def _serialise(root: _Node) -> str:
    """The tree as XML text, as ``ET.tostring(root.element(), encoding="unicode")`` writes it (a test holds the
    two equal), without its namespace pass over the tree: render's elements are plain SVG names, their text and
    attribute values already what XML can carry (:func:`xml_text`)."""
    attrib, children = root.attrib, root.children
    if children and not _ESCAPED.search("".join(attrib.values())):
        try:  # every child a leaf (a step's picture): the whole text in one join, as _write writes it (the
            # picture, most of it not ASCII, copied once rather than joined and then copied into the document)
            leaves = cast("list[str]", children)
            return "".join(
                ["<", root.tag, *[f' {k}="{v}"' for k, v in attrib.items()], ">", *leaves, "</", root.tag, ">"]
            )
        except TypeError:  # a node or a group among them: _write takes each child in turn
            pass
    out: list[str] = []
    _write(root, out.append)
    return "".join(out)


_ESCAPED = re.compile('[&<>"\r\n\t]')  # a character of _ATTR_ESCAPES (most values have none)


def _escaped(text: str, table: dict) -> str:
    return text.translate(table) if _ESCAPED.search(text) else text


def _write(el: _Node, write) -> None:
    attrib = el.attrib
    if _ESCAPED.search("".join(attrib.values())):  # one search for the element (most values need no escape)
        write("<" + el.tag + "".join([f' {k}="{_escaped(v, _ATTR_ESCAPES)}"' for k, v in attrib.items()]))
    else:
        write("<" + el.tag + "".join([f' {k}="{v}"' for k, v in attrib.items()]))
    if el.children:
        write(">")
        try:
            write("".join(cast("list[str]", el.children)))  # every child a leaf (a step's picture): at once
            write(f"</{el.tag}>")
            return
        except TypeError:  # a node or a group among them: each child in turn
            pass
        for child in el.children:
            if type(child) is str:  # a leaf, written when drawn
                write(child)
            elif type(child) is _Group:
                write(child.text())
            else:  # a node (the identity tests above leave mypy the subclasses of str and _Group)
                _write(child, write)  # type: ignore[arg-type]
        write(f"</{el.tag}>")
    else:
        write(" />")


#: the cards' fixed text styles (size, weight, anchor, fill, style), looked up once
_NAME = _text_style(13, "bold", "start", "#222", "normal")
_POWER = _text_style(15, "bold", "end", "#222", "normal")
_KEYWORDS = _text_style(10.5, "normal", "start", "#444", "italic")
_LINE = _text_style(10.5, "normal", "start", "#333", "normal")
_MARKED = _text_style(10.5, "normal", "start", "#a05000", "normal")
_REMOVED = _text_style(10.5, "bold", "middle", "#777", "normal")
_LOYALTY = _text_style(15, "bold", "end", "#5a2a85", "normal")
_DEFENSE = _text_style(15, "bold", "end", "#6a5a1a", "normal")
_LIFE = _text_style(15, "bold", "end", "#2a6a2a", "normal")
_AMOUNT = _text_style(14, "bold", "middle", "white", "normal")
#: the cards' fixed texts after their start tag (:class:`_Spot`): style, content and end tag
_UNBLOCKED = f"{_LINE}>unblocked</text>"
_BLOCKED_BY_NONE = f"{_LINE}>blocked (no blocker left)</text>"
_FROM_DEATHTOUCH = f"{_LINE}>(1 from a deathtouch source)</text>"
_REMOVED_TEXT = f"{_REMOVED}>removed from combat</text>"
_PLANESWALKER = f"{_KEYWORDS}>planeswalker</text>"
_BATTLE = f"{_KEYWORDS}>battle</text>"
_PLAYER = f"{_KEYWORDS}>player</text>"
#: the cards' characters per line: a name beside the power (or beside the loyalty, defense, life), a card's line,
#: a wrapped line (keywords, blockers) and a result line (at least 6, as _wrap takes them)
_ROOM_NAME, _ROOM_ID, _ROOM_LINE = _room(CARD_W - 56, 13), _room(CARD_W - 40, 13), _room(CARD_W - 14, 10.5)
_WRAP_LINE, _WRAP_RESULT = max(6, _ROOM_LINE), max(6, _room(CARD_W - 12, 11))


_HASTE = Keyword.HASTE

KEYWORD_NAMES = {
    "trample_over_planeswalkers": "trample over PWs",
    "double_strike": "double strike",
    "first_strike": "first strike",
}


# ---------------------------------------------------------------------------------------------
# One step
# ---------------------------------------------------------------------------------------------


class _Layout:
    """Where each object's card is (x, y of its top-left corner) for one step, under a header of ``head`` px."""

    __slots__ = ("width", "head", "height", "pos")

    def __init__(self, scenario, head: int = 0):
        s = scenario
        top = (*s.blockers, *s.planeswalkers, *s.battles, *s.players)
        key = (len(top), len(s.attackers), head)
        rows = _ROWS_AT.get(key) or _rows_at(*key)
        self.width, self.height, top_at, bottom_at = rows
        self.head = head
        pos = dict(zip(map(_ID, top), top_at))
        pos.update(zip(map(_ID, s.attackers), bottom_at))
        if len(pos) < len(top_at) + len(bottom_at):  # an id twice (a board made in code): its first place
            pos = {}
            for o, at in (*zip(top, top_at), *zip(s.attackers, bottom_at)):
                pos.setdefault(o.id, at)
        self.pos: dict[str, tuple[float, float]] = pos

    @staticmethod
    def width_of(s) -> int:
        """The width of a step's picture: its longer row of cards."""
        top = len(s.blockers) + len(s.planeswalkers) + len(s.battles) + len(s.players)
        n = max(top, len(s.attackers), 1)
        return max(MIN_WIDTH, 2 * MARGIN + n * CARD_W + (n - 1) * GAP_X)


def _rows_at(top: int, bottom: int, head: int) -> tuple[int, int, tuple, tuple]:
    """A step's width and height and the places of its cards, ``top`` of them across the top and ``bottom`` across
    the bottom under a header of ``head`` px (each row centred), kept per (top, bottom, head): a function of the
    three alone, the same for most boards."""
    n = max(top, bottom, 1)
    width = max(MIN_WIDTH, 2 * MARGIN + n * CARD_W + (n - 1) * GAP_X)  # as _Layout.width_of
    rows = []
    for row, count in ((0, top), (1, bottom)):
        span = count * CARD_W + max(0, count - 1) * GAP_X
        x0 = (width - span) / 2
        y = head + MARGIN + row * (CARD_H + ROW_GAP)
        rows.append(tuple((x0 + k * (CARD_W + GAP_X), y) for k in range(count)))
    out = (width, head + 2 * CARD_H + ROW_GAP + 2 * MARGIN + 10, rows[0], rows[1])
    if len(_ROWS_AT) < 1024:
        _ROWS_AT[(top, bottom, head)] = out
    return out


_ID = attrgetter("id")
#: :func:`_rows_at` per (top, bottom, head)
_ROWS_AT: dict[tuple[int, int, int], tuple[int, int, tuple, tuple]] = {}


class _What:
    """What the step's damage did to each object, read from the outcome (None: no assignment drawn)."""

    def __init__(self, outcome: Outcome | None):
        self.outcome = outcome
        self.dealt: dict[str, int] = {}
        self.assigned: dict[str, int] = {}
        self.prevented: dict[str, int] = {}
        self.why_prevented: dict[str, list[str]] = {}
        self.counters: dict[str, int] = {}
        self.gone: set[str] = set()  # out of combat after the step
        self.destroyed: set[str] = set()  # of those, put into the graveyard (704.5f-i, 704.5v); the rest left (800.4a)
        self.after: dict[str, Any] = {}
        if outcome is None:
            return
        assigned, dealt, prevented, counters = self.assigned, self.dealt, self.prevented, self.counters
        for e in outcome.events:
            r = e.recipient
            if r in dealt:
                assigned[r] += e.assigned
                dealt[r] += e.dealt
            else:
                assigned[r] = e.assigned
                dealt[r] = e.dealt
            result = e.result
            if result == "prevented":
                stopped, rule = e.assigned, e.rule
            elif e.shielded:
                stopped, rule = e.shielded, "615.7"
            else:
                stopped = 0
            if stopped:
                prevented[r] = prevented.get(r, 0) + stopped
                rules = self.why_prevented.setdefault(r, [])
                if rule and rule not in rules:
                    rules.append(rule)
            if result == "counters":
                counters[r] = counters.get(r, 0) + e.dealt
        gone = outcome.gone
        if gone:  # what went (outcome.destroyed reads gone again: only when some went)
            self.gone = set(gone)
            self.destroyed = set(outcome.destroyed)
        after = self.after  # each player's PlayerOutcome (the first of an id, as a search would find it)
        for o in outcome.players:
            after.setdefault(o.id, o)

    @property
    def shown(self) -> bool:
        return self.outcome is not None

    def touched(self, oid: str) -> bool:
        return bool(self.assigned.get(oid) or self.dealt.get(oid))

    def takes(self, oid: str) -> str:
        """``takes 3`` / ``takes 4 (2 prevented, 702.16e)`` / ``2 prevented (615.1a)``."""
        dealt, prevented = self.dealt.get(oid, 0), self.prevented.get(oid, 0)
        why = ", ".join(self.why_prevented.get(oid, []))
        if prevented and not dealt:
            return f"{prevented} prevented ({why})"
        text = f"takes {dealt}"
        if prevented:
            text += f" ({prevented} prevented)"
        return text


def _step(parent: _Node, scenario, assignment, outcome: Outcome | None, title: str, notes: list[str]):
    """Draw one step into ``parent``; its width and height."""
    s = scenario
    head, texts = _header_block(title, notes, _Layout.width_of(s))
    lay = _Layout(s, head)
    what = _What(outcome if assignment is not None else None)
    out, pos = parent.children, lay.pos
    out.append(f'<rect x="0" y="0" width="{lay.width}" height="{lay.height}" fill="#fbfaf6" />')
    out += texts

    # who blocks whom: grey dashed lines under everything
    for a in s.attackers:
        if a.blocked_by:
            start = (_SPOTS.get(pos[a.id]) or _spot(pos[a.id])).block_start
            for b in a.blocked_by:
                at = pos.get(b)
                if at is not None:
                    out.append(start + (_SPOTS.get(at) or _spot(at)).block_end)

    deathtouched = set(outcome.deathtouched) if outcome is not None else set()
    # 702.2c: the blockers a deathtouch attacker with power blocks (their card says 1 is lethal), found once
    touchy = {b for a in s.attackers if a.power > 0 and a.has(Keyword.DEATHTOUCH) for b in a.blocked_by}
    for a in s.attackers:
        _creature_card(out, s, a, pos[a.id], True, what, a.id in deathtouched, touchy)
    for b in s.blockers:
        _creature_card(out, s, b, pos[b.id], False, what, b.id in deathtouched, touchy)
    for p in s.planeswalkers:
        _planeswalker_card(out, p, pos[p.id], what)
    for t in s.battles:
        _battle_card(out, t, pos[t.id], what)
    for p in s.players:
        _player_card(out, p, pos[p.id], what)
    if outcome is not None and assignment is not None:
        _arrows(out, s, outcome, lay)
    return lay.width, lay.height


def _header_block(title: str, notes: list[str], width: float) -> tuple[int, tuple[str, ...]]:
    """A step's header: its height and its text elements (:func:`_header_lines`, :func:`_header_height`,
    :func:`_header`), kept per (title, notes, width): a function of the three alone (most pictures share their
    title, verdict and legend), at most :data:`_HEADERS_MOST` of them."""
    key = (title, tuple(notes), width) if type(title) is str and _STR.issuperset(map(type, notes)) else None
    block = _HEADER_BLOCKS.get(key) if key is not None else None
    if block is None:
        lines = _header_lines(title, notes, width)
        texts: list[str] = []
        _header(_Leaves(texts), lines)
        block = (_header_height(lines), tuple(texts))
        if key is not None and len(_HEADER_BLOCKS) < _HEADERS_MOST:
            _HEADER_BLOCKS[key] = block
    return block


_HEADER_BLOCKS: dict[tuple, tuple[int, tuple[str, ...]]] = {}
_STR = frozenset({str})


def _header_lines(title: str, notes: list[str], width: float) -> list[tuple[str, int, str, str]]:
    """(text, size, weight, fill) of each header line: the title wrapped, then each note wrapped."""
    out = [(line, 17, "bold", "#222") for line in _header_wrap(title, width, 17)] if title else []
    for note in notes:
        out += [(line, 12, "normal", "#555") for line in _header_wrap(note, width, 12)]
    return out


def _header_wrap(text, width: float, size: int) -> tuple[str, ...]:
    """``_wrap(text, width - 2 * MARGIN, size, TITLE_LINES)``, kept per (text, width, size): the legend and the
    step's title are the same long lines on most pictures (a function of its arguments alone, at most
    :data:`_HEADERS_MOST` of them)."""
    key = (text, width, size) if type(text) is str else None
    lines = _HEADERS.get(key) if key is not None else None
    if lines is None:
        lines = tuple(_wrap(text, width - 2 * MARGIN, size, TITLE_LINES))
        if key is not None and len(_HEADERS) < _HEADERS_MOST:
            _HEADERS[key] = lines
    return lines


_HEADERS: dict[tuple[str, float, int], tuple[str, ...]] = {}
_HEADERS_MOST = 1024


def _header_height(lines) -> int:
    return 14 + sum(22 if size > 12 else LINE for _, size, _, _ in lines) + 6


def _header(parent, lines, x: float = MARGIN) -> None:
    y = 14
    for text, size, weight, fill in lines:
        y += 22 if size > 12 else LINE
        _t(parent, x, y - 4, text, size, weight, fill=fill)


def _card(parent, x, y, fill, stroke, faded=False) -> None:
    faint = ' opacity="0.45"' if faded else ""
    parent.children.append(
        f'<rect x="{_F1.get(x) or _f1(x)}" y="{_F1.get(y) or _f1(y)}" width="{CARD_W}" height="{CARD_H}" rx="9"'
        f' fill="{fill}"'
        f' stroke="{stroke}" stroke-width="2"{faint} />'
    )


class _Spot:
    """A card's place (``x``, ``y``: its top-left corner): the start tags of its fixed text elements (name, number,
    a creature's lines from 36 px down every 13 px, the lines at 50 and 64 px, the result lines from the bottom up
    every 14 px) and its frames (:func:`_card`), written once per place (a function of the place alone: a picture's
    cards stand on a few places, the same on most pictures)."""

    __slots__ = (
        "name",
        "number",
        "rows",
        "line50",
        "line64",
        "results",
        "block_start",
        "block_end",
        "frames",
        "x",
        "y",
    )

    def __init__(self, x, y) -> None:
        self.x, self.y = x, y
        x8 = _F1.get(x + 8) or _f1(x + 8)
        self.name = f'<text x="{x8}" y="{_F1.get(y + 18) or _f1(y + 18)}"'
        self.number = f'<text x="{_F1.get(x + CARD_W - 8) or _f1(x + CARD_W - 8)}" y="{_F1.get(y + 19) or _f1(y + 19)}"'
        rows = []
        line = y + 36
        for _ in range(_ROWS):  # a creature's lines, as its card steps down them (13 px each)
            rows.append(f'<text x="{x8}" y="{_F1.get(line) or _f1(line)}"')
            line += 13
        self.rows = tuple(rows)
        self.line50 = f'<text x="{x8}" y="{_F1.get(y + 50) or _f1(y + 50)}"'
        self.line64 = f'<text x="{x8}" y="{_F1.get(y + 64) or _f1(y + 64)}"'
        xm = x + CARD_W / 2
        xt = _F1.get(xm) or _f1(xm)
        self.results = tuple(  # the k-th result line from the bottom (:func:`_results`); the bottom line is the first
            f'<text x="{xt}" y="{_F1.get(yk) or _f1(yk)}"' for yk in (y + CARD_H - 10 - 14 * k for k in range(7))
        )
        # who blocks whom (:func:`_step`): a line from the middle of an attacker's top to a blocker's bottom
        xm, yt, yb = xm, float(y), float(y + CARD_H)
        self.block_start = f'<line x1="{_F1.get(xm) or _f1(xm)}" y1="{_F1.get(yt) or _f1(yt)}"'
        self.block_end = f' x2="{_F1.get(xm) or _f1(xm)}" y2="{_F1.get(yb) or _f1(yb)}"{_BLOCK_LINE}'
        self.frames: dict[tuple[str, str, bool], str] = {}

    def frame(self, fill: str, stroke: str, faded: bool = False) -> str:
        """:func:`_card`'s rectangle at this place."""
        text = self.frames.get((fill, stroke, faded))
        if text is None:
            out: list[str] = []
            _card(_Leaves(out), self.x, self.y, fill, stroke, faded)
            text = self.frames[(fill, stroke, faded)] = out[0]
        return text


_BLOCK_LINE = ' stroke="#999" stroke-width="2" stroke-dasharray="6 5" />'
#: a creature card's lines below its name (2 of keywords, marked damage, 3 of combat lines: at most 6)
_ROWS = 6


class _Leaves:
    """A parent whose children are the list given (what :func:`_card` and :func:`_tx` append to)."""

    __slots__ = ("children",)

    def __init__(self, children: list) -> None:
        self.children = children


def _spot(pos: tuple[float, float]) -> _Spot:
    """The :class:`_Spot` of a card at ``pos``, kept per place (at most :data:`_SPOTS_MOST`; a place at 0 or less,
    where 0 and -0.0 are equal keys written differently, is made each time)."""
    spot = _SPOTS.get(pos)
    if spot is None:
        spot = _Spot(*pos)
        if pos[0] > 0 and pos[1] > 0 and len(_SPOTS) < _SPOTS_MOST:
            _SPOTS[pos] = spot
    return spot


_SPOTS: dict[tuple[float, float], _Spot] = {}
_SPOTS_MOST = 4096


def _results(out: list, spot: _Spot, lines: list[tuple[str, str, str]]) -> None:
    """Result lines (text, colour, weight) stacked upwards from the bottom of a card (each wrapped to at most two
    lines, the last seven kept)."""
    rows: list[str] = []
    for line in lines:
        rows += _RESULT_TAILS.get(line) or _result_tails(line)
    if len(rows) > 7:
        rows = rows[-7:]
    starts = spot.results
    k = len(rows)
    for tail in rows:  # in reading order
        k -= 1
        out.append(starts[k] + tail)


def _result_tails(line: tuple[str, str, str]) -> tuple[str, ...]:
    """A result line (text, colour, weight) as its elements after their position (:func:`_tail`), wrapped to at
    most two lines, kept per line in :data:`_RESULT_TAILS` (a function of the three alone)."""
    text, colour, weight = line
    head = _RESULT_STYLES.get((weight, colour)) or _result_style(weight, colour)
    tails = tuple(_tail(head, part) for part in _lines(text, _WRAP_RESULT, 2))
    if len(_RESULT_TAILS) < _WRAPPED_MOST:
        _RESULT_TAILS[line] = tails
    return tails


_RESULT_TAILS: dict[tuple[str, str, str], tuple[str, ...]] = {}


def _result_style(weight: str, colour: str) -> str:
    """A result line's text style (11, ``weight``, middle, ``colour``), kept per (weight, colour)."""
    head = _text_style(11, weight, "middle", colour, "normal")
    if len(_RESULT_STYLES) < 256:
        _RESULT_STYLES[(weight, colour)] = head
    return head


_RESULT_STYLES: dict[tuple[str, str], str] = {}


def _group(parent, role: str, oid: str) -> _Group:
    """A card's group (``class`` its role, ``id`` the object's id, escaped as :func:`_write` escapes a value)."""
    g = _Group(_GROUP_HEADS.get((role, oid)) or _group_head(role, oid))
    parent.children.append(g)
    return g


def _group_head(role: str, oid: str) -> str:
    """A card group's start tag (``<g`` and its attributes), kept in :data:`_GROUP_HEADS`."""
    head = f'<g class="{role}" id="{_escaped(_value(oid), _ATTR_ESCAPES)}"'
    if len(_GROUP_HEADS) < 4096:
        _GROUP_HEADS[(role, oid)] = head
    return head


#: a card group's start tag per (role, id): a function of the two alone (the same ids -- "opp", "a1" -- on many
#: boards), at most 4096 of them
_GROUP_HEADS: dict[tuple[str, str], str] = {}


def _card_start(role: str, oid: str, pos: tuple[float, float], faded: bool) -> str:
    """A card's group start tag, its frame and its name (the id cut to fit), as one text, kept per (role, id, place,
    faded) in :data:`_CARD_STARTS` (a function of the four alone: the same few ids stand on the same few places
    on most boards)."""
    spot = _SPOTS.get(pos) or _spot(pos)
    fill, stroke, room = _CARD_LOOKS[role]
    frame = spot.frames.get((fill, stroke, faded)) or spot.frame(fill, stroke, faded)
    head = _GROUP_HEADS.get((role, oid)) or _group_head(role, oid)
    start = f"{head}>{frame}{spot.name}{_tail(_NAME, _cut(oid, room))}"
    if pos[0] > 0 and pos[1] > 0 and len(_CARD_STARTS) < _CARD_STARTS_MOST:  # (0 and -0.0: as _spot)
        _CARD_STARTS[(role, oid, pos, faded)] = start
    return start


#: each role's frame (fill, stroke) and the characters its name may take beside the card's number
_CARD_LOOKS = {
    "attacker": ("#eef4fb", "#4a6fa5", _ROOM_NAME),
    "blocker": ("#fbeeee", "#a54a4a", _ROOM_NAME),
    "planeswalker": ("#f6f0fb", "#7a4aa5", _ROOM_ID),
    "battle": ("#f7f4ea", "#8a7a3a", _ROOM_ID),
    "player": ("#eef7ee", "#3a7a3a", _ROOM_ID),
}
_CARD_STARTS: dict[tuple[str, str, tuple[float, float], bool], str] = {}
_CARD_STARTS_MOST = 4096


def _tail(head: str, text) -> str:
    """A text element after its position: ``head`` (its style), the content escaped and the end tag."""
    body = _BODIES.get(text) if type(text) is str else None
    if body is None:
        body = _body(text)
    return f"{head}>{body}</text>" if body else f"{head} />"


def _wrapped(text: str, room: int, head: str) -> tuple[str, ...]:
    """:func:`_tail` of each line of ``text`` wrapped to ``room`` characters (at most two lines), kept per (text,
    room, head) in :data:`_WRAPPED` (the same keyword lists and blockers on many cards)."""
    key = (text, room, head)
    tails = _WRAPPED.get(key)
    if tails is None:
        tails = tuple(_tail(head, chunk) for chunk in _lines(text, room, 2))
        if len(_WRAPPED) < _WRAPPED_MOST:
            _WRAPPED[key] = tails
    return tails


def _cut_tail(text: str, room: int, head: str) -> str:
    """:func:`_tail` of ``text`` cut to ``room`` characters, kept per (text, room, head) in :data:`_CUT_TAILS`."""
    key = (text, room, head)
    tail = _CUT_TAILS.get(key)
    if tail is None:
        tail = _tail(head, _cut(text, room))
        if len(_CUT_TAILS) < _WRAPPED_MOST:
            _CUT_TAILS[key] = tail
    return tail


_WRAPPED: dict[tuple[str, int, str], tuple[str, ...]] = {}
_CUT_TAILS: dict[tuple[str, int, str], str] = {}
_WRAPPED_MOST = 4096


def _keyword_text(keywords: tuple[str, ...]) -> str:
    """A card's keywords as its line says them (haste is not shown), kept per tuple in :data:`_KEYWORD_TEXTS`."""
    text = ", ".join([KEYWORD_NAMES.get(w, w) for w in keywords if w != _HASTE])
    if len(_KEYWORD_TEXTS) < 1024:
        _KEYWORD_TEXTS[keywords] = text
    return text


_KEYWORD_TEXTS: dict[tuple[str, ...], str] = {}


def _creature_card(out: list, s, c, pos, attacker: bool, what: _What, deathtouched: bool, touchy: set[str]) -> None:
    """A creature's card (a group: one leaf of the picture, written here)."""
    spot = _SPOTS.get(pos) or _spot(pos)
    faded = not c.in_combat
    role = "attacker" if attacker else "blocker"
    g = [
        _CARD_STARTS.get((role, c.id, pos, faded)) or _card_start(role, c.id, pos, faded),
        f"{spot.number}{_POWER}>{c.power}/{c.toughness}</text>",  # numbers: nothing to escape
    ]
    rows = spot.rows
    k = 0
    if c.keywords or c.toxic or c.tags or c.receiving.protection or (attacker and c.commander is not None):
        kw = c.keywords
        named = _KEYWORD_TEXTS.get(kw) if kw else ""
        words = [_keyword_text(kw) if named is None else named]
        if c.toxic:
            words.append(f"toxic {c.toxic}")
        if attacker and c.commander is not None:
            words.append("commander")
        if c.tags:
            words.append("(" + ", ".join(c.tags) + ")")
        if c.receiving.protection:
            words.append("protection from " + ", ".join(c.receiving.protection))
        text = ", ".join(words) if words[0] else ", ".join(words[1:])
        if text:
            for tail in _wrapped(text, _WRAP_LINE, _KEYWORDS):
                g.append(rows[k] + tail)
                k += 1
    if c.damage_marked:
        g.append(f"{rows[k]}{_MARKED}>marked damage {c.damage_marked}</text>")
        k += 1
    if attacker:
        pw = " (PW)" if c.attacking in s and s.kind(c.attacking) == ObjectKind.PLANESWALKER else ""
        g.append(rows[k] + _cut_tail(f"attacks {c.attacking}{pw}", _ROOM_LINE, _LINE))
        k += 1
        if c.blocked_by:
            for tail in _wrapped("blocked by " + ", ".join(c.blocked_by), _WRAP_LINE, _LINE):
                g.append(rows[k] + tail)
                k += 1
        else:
            g.append(rows[k] + (_BLOCKED_BY_NONE if c.blocked else _UNBLOCKED))
    elif not faded:  # a blocker's lethal damage (702.2c: 1 from a deathtouch source, ``touchy``)
        value = "  value " + _num(c.value) if c.value != 1 else ""
        g.append(f"{rows[k]}{_LINE}>lethal: {max(0, c.toughness - c.damage_marked)}{value}</text>")
        if c.id in touchy:
            g.append(rows[k + 1] + _FROM_DEATHTOUCH)
    if faded:
        g.append(spot.results[0] + _REMOVED_TEXT)
    elif what.outcome is not None:
        cid = c.id
        if what.assigned.get(cid) or what.dealt.get(cid) or cid in what.gone:
            _creature_verdict(g, spot, c, what, deathtouched, attacker)
    g.append("</g>")
    out.append("".join(g))


def _creature_verdict(g: list, spot: _Spot, c, what: _What, deathtouched: bool, attacker: bool) -> None:
    """What the damage did to a creature: -1/-1 counters, and whether it dies (704.5f/g/h, 702.12b: the outcome's
    state-based actions)."""
    dies = c.id in what.destroyed
    # out of combat without dying: a blocker leaves the game with its controller (800.4a); an attacker is removed
    # from combat when what it attacks leaves (506.4)
    left = "removed" if attacker else "leaves"  # the header says who lost and left (800.4a)
    verdict = "dies" if dies else (left if c.id in what.gone else "survives")
    if dies and deathtouched and c.damage_marked + what.dealt.get(c.id, 0) < c.toughness:
        verdict += " (deathtouch)"
    lines = []
    counters = what.counters.get(c.id, 0)
    if counters:
        lines.append((f"{counters} -1/-1 counters", "#a05000", "normal"))
    colour = LOSS_COLOUR if dies else (LEFT_COLOUR if c.id in what.gone else SAFE_COLOUR)
    lines.append((f"{what.takes(c.id)}: {verdict}", colour, "bold"))
    _results(g, spot, lines)


def _target_top(role: str, t, pos, number: str, kind: str, owner: str) -> tuple[_Spot, list[str]]:
    """A planeswalker's or battle's card as far as they are drawn alike: its start (faded out of combat), its
    number (``number``: the number's class and text) and kind, and the line naming ``owner``."""
    spot = _SPOTS.get(pos) or _spot(pos)
    faded = not t.in_combat
    return spot, [
        _CARD_STARTS.get((role, t.id, pos, faded)) or _card_start(role, t.id, pos, faded),
        f"{spot.number}{number}</text>{spot.rows[0]}{kind}",
        spot.line50 + _cut_tail(owner, _ROOM_LINE, _LINE),
    ]


def _planeswalker_card(out: list, p, pos, what: _What) -> None:
    spot, g = _target_top(
        "planeswalker", p, pos, f"{_LOYALTY}>◆{p.loyalty}", _PLANESWALKER, f"controller {p.controller}"
    )
    value = "  value " + _num(p.value) if p.value != 1 else ""
    g.append(f"{spot.line64}{_LINE}>loyalty: {p.loyalty}{value}</text>")
    if not p.in_combat:
        g.append(spot.results[0] + _REMOVED_TEXT)
    elif what.outcome is not None and what.touched(p.id):
        left = p.loyalty - what.dealt.get(p.id, 0)
        gone = p.id in what.destroyed  # 704.5i
        verdict = "destroyed" if gone else ("leaves" if p.id in what.gone else f"loyalty {left} left")  # 800.4a
        colour = LOSS_COLOUR if gone else (LEFT_COLOUR if p.id in what.gone else SAFE_COLOUR)
        _results(g, spot, [(f"{what.takes(p.id)}: {verdict}", colour, "bold")])
    g.append("</g>")
    out.append("".join(g))


def _battle_card(out: list, t, pos, what: _What) -> None:
    spot, g = _target_top("battle", t, pos, f"{_DEFENSE}>def {t.defense}", _BATTLE, f"protector {t.protector}")
    g.append(f"{spot.line64}{_LINE}>defense: {t.defense}</text>")
    if not t.in_combat:
        g.append(spot.results[0] + _REMOVED_TEXT)
    elif what.outcome is not None and what.touched(t.id):
        left = t.defense - what.dealt.get(t.id, 0)
        gone = t.id in what.gone  # 704.5v
        verdict = "defeated" if gone else f"defense {left} left"
        _results(g, spot, [(f"{what.takes(t.id)}: {verdict}", LOSS_COLOUR if gone else SAFE_COLOUR, "bold")])
    g.append("</g>")
    out.append("".join(g))


def _player_card(out: list, p, pos, what: _What) -> None:
    x, y = pos
    spot = _SPOTS.get(pos) or _spot(pos)
    g = [_CARD_STARTS.get(("player", p.id, pos, False)) or _card_start("player", p.id, pos, False)]
    poison = f"  poison: {p.poison}" if p.poison else ""
    g.append(f"{spot.number}{_LIFE}>♥{p.life}</text>{spot.rows[0]}{_PLAYER}")
    g.append(f"{spot.line50}{_LINE}>life: {p.life}{poison}</text>")
    line = y + 50
    for commander, n in p.commander_damage:
        line += 13
        _tx(g, x + 8, line, _LINE, _cut(f"from {commander}: {n} (commander)", _ROOM_LINE))
    after = what.after.get(p.id) if what.outcome is not None else None
    if after is not None:
        _player_results(g, spot, p, after, what)
    g.append("</g>")
    out.append("".join(g))


def _player_results(g: list, spot: _Spot, p, after, what: _What) -> None:
    """What the damage did to a player (the outcome's :class:`~trample.outcome.PlayerOutcome`)."""
    lines: list[tuple[str, str, str]] = []
    colour = LOSS_COLOUR if after.loses else SAFE_COLOUR
    if what.touched(p.id):
        lines.append((what.takes(p.id), "#333", "normal"))
    if after.life != p.life or after.life_lost or after.life_gained:
        lines.append((f"life {p.life} → {after.life}", colour, "bold"))
    if after.life_gained:
        lines.append((f"lifelink +{after.life_gained}", SAFE_COLOUR, "normal"))  # 702.15b
    if after.poison != p.poison:
        lines.append((f"poison {p.poison} → {after.poison}", colour, "bold"))  # 702.90b, 702.164c
    if after.commander_damage or p.commander_damage:
        before = dict(p.commander_damage)
        for commander, n in sorted(after.commander_damage.items()):
            if n != before.get(commander, 0):
                lines.append((f"{commander}: {before.get(commander, 0)} → {n}", colour, "bold"))  # 903.10a
    if after.loses:
        lines.append(("LETHAL", LOSS_COLOUR, "bold"))
        lines += [(why, LOSS_COLOUR, "normal") for why in after.to_json()["because"]]  # "life (704.5a)", ...
    _results(g, spot, lines)


def _arrows(out: list, s, outcome: Outcome, lay: _Layout) -> None:
    """Labelled arrows, source to recipient (the amount assigned, and what was dealt when it differs); several
    arrows leaving (or reaching) one card are spread along it."""
    pos = lay.pos
    edges = [
        (e.source, e.recipient, e.assigned, e.dealt)
        for e in outcome.events
        if e.assigned and e.source in pos and e.recipient in pos
    ]
    touching: dict[str, list] = {}
    for e in edges:
        touching.setdefault(e[0], []).append(e)
        touching.setdefault(e[1], []).append(e)
    spots: dict[tuple[str, tuple], tuple[float, float]] = {}  # (card, edge) -> where the edge meets the card
    for k, group in touching.items():  # spread along the card in the order of the other end's x, so arrows do
        # not cross on it (equal edges: the first one's spot, as the list's index finds it)
        x, y = pos[k]
        if len(group) == 1:
            spots[(k, group[0])] = (x + CARD_W / 2, y)
            continue

        def along(e: tuple, k: str = k) -> tuple:
            return (pos[e[1] if e[0] == k else e[0]][0], e[0] == k)

        group.sort(key=along)
        n = len(group) + 1
        for i, e in enumerate(group, 1):
            spots.setdefault((k, e), (x + CARD_W * i / n, y))

    out.append(_HEADS or _arrow_heads())
    bubbles = []
    taken: list[tuple[float, float]] = []
    colours = {a.id: PALETTE[k % len(PALETTE)] for k, a in enumerate(s.attackers)}
    for e in edges:
        source, recipient, assigned, dealt = e
        colour = colours.get(source)
        sx, sy = spots[(source, e)]
        rx, ry = spots[(recipient, e)]
        if colour is None:  # a blocker's damage to an attacker: down, in red
            colour, head = DEFENDING_COLOUR, len(PALETTE)
            sy += CARD_H
        else:
            head = _PALETTE_INDEX[colour]
            ry += CARD_H
        # (an int place is written as its float: _f1 formats float(v), and _F1's int and float keys are equal)
        dashed = ' stroke-dasharray="3 6"' if dealt == 0 else ""  # prevented: nothing dealt
        out.append(
            f'<line class="assign" x1="{_F1.get(sx) or _f1(sx)}" y1="{_F1.get(sy) or _f1(sy)}"'
            f' x2="{_F1.get(rx) or _f1(rx)}" y2="{_F1.get(ry) or _f1(ry)}" stroke="{colour}"'
            f' stroke-width="4"{dashed} marker-end="url(#{MARKER}{head})" opacity="{"0.9" if dealt else "0.5"}" />'
        )
        dx, dy = rx - sx, ry - sy
        lx, ly = sx + dx * 0.62, sy + dy * 0.62
        if taken:
            for t in _BUBBLE_SPOTS:  # a spot no other bubble covers
                lx, ly = sx + dx * t, sy + dy * t
                for ox, oy in taken:
                    if abs(lx - ox) <= 26 and abs(ly - oy) <= 24:
                        break  # this bubble covers the spot: the next spot
                else:
                    break
        taken.append((lx, ly))
        # the amount's bubble (its text: digits and an arrow, nothing to escape)
        label = str(assigned) if dealt == assigned else f"{assigned}→{dealt}"
        w = 12 + 8 * len(label)
        bx, by, ty = lx - w / 2, ly - 11, ly + 5
        bubbles.append(
            f'<g class="amount"><rect x="{_F1.get(bx) or _f1(bx)}" y="{_F1.get(by) or _f1(by)}" width="{w}"'
            f' height="22" rx="11" fill="{colour}" stroke="white" stroke-width="1.5" />'
            f'<text x="{_F1.get(lx) or _f1(lx)}" y="{_F1.get(ty) or _f1(ty)}"{_AMOUNT}>{label}</text></g>'
        )
    out += bubbles


_BUBBLE_SPOTS = (0.62, 0.45, 0.75, 0.35, 0.85, 0.25)  # where along its arrow an amount's bubble goes, in order
_PALETTE_INDEX = {c: k for k, c in reversed(list(enumerate(PALETTE)))}  # PALETTE.index


def _arrow_heads() -> str:
    """The arrow heads, one per attacker colour and one for the defending side's damage: the same elements in
    every picture (written once: a leaf of every picture's tree)."""
    global _HEADS
    if _HEADS is None:
        out: list[str] = []
        _write(_heads(), out.append)
        _HEADS = "".join(out)
    return _HEADS


_HEADS: str | None = None


def _heads() -> _Node:
    defs = _el(None, "defs")
    for n, c in enumerate((*PALETTE, DEFENDING_COLOUR)):
        marker = _el(
            defs,
            "marker",
            id=f"{MARKER}{n}",
            viewBox="0 0 10 10",
            refX=9,
            refY=5,
            markerWidth=5,
            markerHeight=5,
            orient="auto-start-reverse",
        )
        _el(marker, "path", d="M0,0 L10,5 L0,10 z", fill=c)
    return defs


def _step_name(step: str) -> str:
    return _STEP_NAMES.get(step, step)


_STEP_NAMES = {"first_strike": "first-strike damage step", "regular": "regular damage step"}


def _legend(assignment, replied: Side | None = None) -> str:
    """``replied``: the side whose reply the outcome adds, if any."""
    if assignment is None:
        return "dashed: who blocks whom"
    text = "arrows: damage assigned (assigned→dealt when they differ); dashed: who blocks whom"
    if replied == Side.DEFENDING:  # the blockers' arrows are red
        text += "; red: the defending player's best reply, as the solver reads it"
    elif replied == Side.ATTACKING:
        text += "; the attackers' arrows: the attacking player's best reply, as the solver reads it"
    return text


def _ending(outcome: Outcome | None) -> list[str]:
    """Notes on what the step's outcome ends: players who lose, the game over (104.3b) or players leaving
    (800.4a), the attacking player's lifelink gain."""
    if outcome is None:
        return []
    notes = []
    gained = outcome.life_gained.get(ATTACKING_PLAYER, 0)
    if gained:
        notes.append(f"the attacking player gains {gained} life (lifelink, 702.15b)")
    if outcome.losers:
        who = ", ".join(f"{p} ({rule})" for p, rule in outcome.losers)
        if outcome.game_over:
            notes.append(f"{who} loses the game: the game is over (104.3b)")
        else:
            notes.append(f"{who} loses the game and leaves it (800.4a)")
    return notes


def _replied(scenario, outcome: Outcome | None, assignment) -> Side | None:
    """Whose reply the outcome adds, dealing damage from sources the drawn assignment does not name: the
    attacking side's (attackers) or the defending side's (blockers); None when there is none."""
    if outcome is None or assignment is None:
        return None
    named = set(assignment)  # its sources (an Assignment's membership test goes through its read-only views)
    others = {e.source for e in outcome.events if e.source not in named}
    if not others:
        return None
    attackers = {a.id for a in scenario.attackers}
    return Side.ATTACKING if others <= attackers else Side.DEFENDING


def board_svg(
    scenario, assignment=None, title: str | None = None, verdict: str | None = None, outcome: Outcome | None = None
) -> str:
    """One damage step as SVG text; with ``assignment`` (docs/format.md ``{source: {recipient: amount}}``) its arrows
    and what the damage does (``outcome``: the step's :class:`trample.outcome.Outcome`; by default ``assignment``
    resolved as given). ``verdict``: a line shown under the title (legal / the rule broken)."""
    if title is None:
        title = f"{_step_name(scenario.step)} ({scenario.rules} rules)"
    if assignment is not None and outcome is None:
        outcome = resolve(scenario, assignment)
    legend = _legend(assignment, _replied(scenario, outcome, assignment))
    notes = [verdict or legend, *_ending(outcome)]
    if verdict and assignment is not None:
        notes.insert(1, legend)
    root = _Node("svg", {})
    w, h = _step(root, scenario, assignment, outcome, title, notes)
    # _svg(w, h)'s attributes
    root.attrib = {
        "xmlns": SVG_NS,
        "version": "1.1",
        "width": str(int(w)),
        "height": str(int(h)),
        "viewBox": f"0 0 {w} {h}",
    }
    return _serialise(root)


# ---------------------------------------------------------------------------------------------
# Declarations (docs/declare.md): who attacks what, who blocks whom
# ---------------------------------------------------------------------------------------------


def _plain_card(parent, x, y, oid: str, lines: list[str], faded: bool, stroke: str, role: str) -> None:
    g = _group(parent, role, oid)
    _card(g, x, y, "#fafafa" if not faded else "#eeeeee", stroke, faded)
    _t(g, x + CARD_W / 2, y + 22, _fit(oid, CARD_W - 12, 14), 14, "bold", "middle")
    rows = [part for text in lines for part in _wrap(text, CARD_W - 12, 11, 2)][:6]
    for k, text in enumerate(rows):
        _t(g, x + CARD_W / 2, y + 44 + 15 * k, text, 11, anchor="middle", fill="#555" if faded else "#222")


def _creature_lines(c, extra: list[str], ab=None) -> list[str]:
    """A creature card's lines: power/toughness, its keywords (with ``ab``, a declaration's
    :class:`~trample.models.declare.Abilities`: its declaration keywords too), then ``extra``."""
    keywords = set(c.keywords) | (set(ab.keywords) if ab is not None else set())
    words = [KEYWORD_NAMES.get(k, k.replace("_", " ")) for k in sorted(keywords)]
    return [f"{c.power}/{c.toughness}", *([", ".join(words)] if words else []), *_declare_lines(ab), *extra]


def _declare_lines(ab) -> list[str]:
    """What else decides a declaration's legality (docs/declare.md), so an illegal one shows why on the card."""
    if ab is None:
        return []
    state = [word for word, on in (("tapped", ab.tapped), ("summoning sick", ab.summoning_sick)) if on]
    more = [
        *(["; ".join(state)] if state else []),
        *([f"needs {ab.min_blockers}+ blockers"] if ab.min_blockers > 1 else []),
        *([f"blocks {ab.block_extra} more"] if ab.block_extra else []),
        *([f"{'/'.join(ab.landwalk)}walk"] if ab.landwalk else []),
        *([f"bands with other {'/'.join(ab.bands_with_other)}"] if ab.bands_with_other else []),
    ]
    paid = (("attack cost", ab.attack_cost), ("block cost", ab.block_cost))
    costs = [f"{what} {n.symbols()}" for what, n in paid if n]
    return more + (["; ".join(costs)] if costs else [])


def _arrow(parent, x1, y1, x2, y2, colour: str, dashed: bool = False, label: str | None = None) -> None:
    _el(parent, "line", x1=float(x1), y1=float(y1), x2=float(x2), y2=float(y2), stroke=colour, stroke_width=2.5,
        stroke_dasharray="7 5" if dashed else None, marker_end=f"url(#{MARKER}{colour.lstrip('#')})")  # fmt: skip
    if label:
        _t(parent, (x1 + x2) / 2 + 6, (y1 + y2) / 2, label, 11, "bold", fill=colour)


def _markers(root, colours) -> None:
    defs = _el(root, "defs")
    for colour in dict.fromkeys(colours):
        m = _el(defs, "marker", id=f"{MARKER}{colour.lstrip('#')}", viewBox="0 0 10 10", refX=9, refY=5,
                markerWidth=7, markerHeight=7, orient="auto-start-reverse")  # fmt: skip
        _el(m, "path", d="M 0 0 L 10 5 L 0 10 z", fill=colour)


def _pools(doc, blocks: bool) -> list[str]:
    """The mana that pays the costs to attack (the active player's, 508.1h) or to block (each defending player's,
    509.1d), when the document has costs: one line."""
    creatures = (*doc.board.attackers, *doc.board.blockers)
    own = any(doc.of(c.id).attack_cost or doc.of(c.id).block_cost for c in creatures)
    if not (own or doc.costs.attack_tax or doc.costs.block_tax):
        return []
    payers = [p.id for p in doc.board.players] if blocks else [doc.active]
    return ["; ".join(f"{p} has {doc.costs.available(p).pool_text()}" for p in payers)]


def declaration_svg(
    doc: BlockersDoc | AttackersDoc, declaration, title: str | None = None, notes: Sequence[str] = ()
) -> str:
    """A declaration as SVG text (docs/declare.md): for blocks (a declare-blockers document and a
    :class:`~trample.models.declare.Blocks`), the potential blockers above the attackers, an arrow from each
    blocker to each attacker it is declared to block and a dashed one to the other members of that attacker's band
    (702.22h); for attacks (a declare-attackers document and an :class:`~trample.models.declare.Attacks`), what can
    be attacked above the active player's creatures, an arrow from each attacker to what it attacks, a band's
    members in one colour with its label. Creatures that do not act are faded. ``notes``: lines under the title
    (a verdict). Every id goes through ElementTree (escaped)."""
    board = doc.board
    blocks = isinstance(doc, BlockersDoc)
    if blocks:
        top = [b.id for b in board.blockers]
        bottom = [a.id for a in board.attackers]
    else:
        top = [p.id for p in board.players] + [w.id for w in board.planeswalkers] + [t.id for t in board.battles]
        bottom = [a.id for a in board.attackers]
    n = max(len(top), len(bottom), 1)
    width = max(MIN_WIDTH, 2 * MARGIN + n * CARD_W + (n - 1) * GAP_X)
    lines = _header_lines(title or ("blocks" if blocks else "attacks"), [*notes, *_pools(doc, blocks)], width)
    head = _header_height(lines)
    height = head + 2 * CARD_H + ROW_GAP + 2 * MARGIN + 10
    pos: dict[str, tuple[float, float]] = {}
    for row, ids in ((0, top), (1, bottom)):
        span = len(ids) * CARD_W + max(0, len(ids) - 1) * GAP_X
        for k, oid in enumerate(ids):
            pos[oid] = ((width - span) / 2 + k * (CARD_W + GAP_X), head + MARGIN + row * (CARD_H + ROW_GAP))
    root = _svg(width, height)
    _el(root, "rect", x=0, y=0, width=width, height=height, fill="white")
    _header(root, lines)
    if blocks:
        arrows = _draw_blocks(root, doc, declaration, top, bottom, pos)
    else:
        arrows = _draw_attacks(root, doc, declaration, top, bottom, pos)
    _markers(root, [colour for *_, colour, _, _ in arrows])
    ends = _spread_ends(arrows, pos)
    for k, (src, dst, colour, dashed, label) in enumerate(arrows):
        (x1, y1), (_, y2) = pos[src], pos[dst]
        if blocks:  # a blocker (top) to the attacker it blocks (bottom)
            _arrow(root, x1 + CARD_W / 2, y1 + CARD_H, ends[k], y2 - 4, colour, dashed, label)
        else:  # an attacker (bottom) to what it attacks (top)
            _arrow(root, x1 + CARD_W / 2, y1, ends[k], y2 + CARD_H + 4, colour, dashed, label)
    return _serialise(root)


#: An arrow of a declaration's picture: (from, to, colour, dashed, label).
_Arrow = tuple[str, str, str, bool, str | None]


def _draw_blocks(
    root, doc, declaration, top: list[str], bottom: list[str], pos: dict[str, tuple[float, float]]
) -> list[_Arrow]:
    """The cards of a blocks picture (the potential blockers on top, the attackers below) and its arrows: a
    blocker to each attacker it blocks, dashed to the other members of that attacker's band (702.22h)."""
    board = doc.board
    arrows: list[_Arrow] = []
    of = declaration.of
    blocking = {b for ids in of.values() for b in ids}
    band_of = {m: band for band in doc.bands for m in band}
    for k, b in enumerate(top):
        c = board.blocker(b)
        colour = PALETTE[k % len(PALETTE)]
        _plain_card(root, *pos[b], b, _creature_lines(c, [], doc.of(b)), b not in blocking, colour, "blocker")
        for a in bottom:
            if b in of.get(a, ()):
                arrows.append((b, a, colour, False, None))
            elif any(b in of.get(m, ()) for m in band_of.get(a, ())):  # 702.22h: it blocks the whole band
                arrows.append((b, a, colour, True, None))
    for a in bottom:
        c = board.attacker(a)
        extra = [f"attacks {c.attacking}"] + ([f"band: {band_of[a][0]}"] if a in band_of else [])
        _plain_card(root, *pos[a], a, _creature_lines(c, extra, doc.of(a)), False, DEFENDING_COLOUR, "attacker")
    return arrows


def _draw_attacks(
    root, doc, declaration, top: list[str], bottom: list[str], pos: dict[str, tuple[float, float]]
) -> list[_Arrow]:
    """The cards of an attacks picture (what can be attacked on top, with its attack tax; the creatures below, a
    band in one colour) and its arrows: an attacker to what it attacks."""
    board = doc.board
    arrows: list[_Arrow] = []
    of = declaration.of
    band_of = {m: band for band in declaration.bands for m in band}
    colours = {band[0]: PALETTE[k % len(PALETTE)] for k, band in enumerate(declaration.bands)}
    attacked = set(of.values())
    tax = doc.costs.attack_tax
    for t in top:
        lines_t = [board.kind(t), *([f"attack tax {tax[t].symbols()} each"] if tax.get(t) else [])]  # 508.1h
        _plain_card(root, *pos[t], t, lines_t, t not in attacked, "#555", "target")
    for a in bottom:
        band = band_of.get(a)
        colour = colours[band[0]] if band else ALONE_COLOUR  # never a band's colour
        extra = [f"band: {band[0]}"] if band else []
        lines_a = _creature_lines(board.attacker(a), extra, doc.of(a))
        _plain_card(root, *pos[a], a, lines_a, a not in of, colour, "attacker")
        if a in of:
            arrows.append((a, of[a], colour, False, None))
    return arrows


def _spread_ends(arrows, pos) -> list[float]:
    """Where each arrow meets its target card: the arrows into one card spread along its edge in the order of
    where they come from (left to right), so no arrowhead hides another."""
    into: dict[str, list[int]] = {}
    for k, (_src, dst, *_) in enumerate(arrows):
        into.setdefault(dst, []).append(k)
    ends = [0.0] * len(arrows)
    for dst, ks in into.items():
        ks.sort(key=lambda k: pos[arrows[k][0]][0])
        step = (CARD_W - 40) / max(len(ks) - 1, 1)
        left = pos[dst][0] + (CARD_W / 2 if len(ks) == 1 else 20)
        for i, k in enumerate(ks):
            ends[k] = left + i * step
    return ends


def combat_svg(whole, line=None, title: str | None = None, verdict: str | None = None) -> str:
    """A whole combat: with ``line`` ({"first_strike": ..., "regular": ...}), both steps side by side (the regular
    step on the state after the first step's damage and state-based actions); when the first step ends the game
    (104.3b) the regular step is not drawn."""
    scenario = whole.scenario
    if line is not None and hasattr(line, "to_json"):
        line = line.to_json()
    if line is None or not whole.has_first_strike_step:
        board = scenario.with_step(Step.REGULAR if not whole.has_first_strike_step else Step.FIRST_STRIKE)
        regular = None if line is None else dict(line["regular"])
        name = "whole combat (no first-strike step)" if not whole.has_first_strike_step else "whole combat"
        return board_svg(board, regular, title or name, verdict)
    first = dict(line["first_strike"])
    first_board = scenario.with_step(Step.FIRST_STRIKE)
    first_outcome = resolve(first_board, first)
    left = _el(None, "g")
    w1, h1 = _step(
        left,
        first_board,
        first,
        first_outcome,
        "1. first-strike damage step",
        [_legend(first), *_ending(first_outcome)],
    )
    parts = [left]
    width, height = w1, h1
    notes = [verdict] if verdict else []
    if first_outcome.game_over:  # 104.3b: no further combat damage step
        losers = ", ".join(p for p, _ in first_outcome.losers)
        notes.append(f"no regular damage step: {losers} lost the game in the first-strike step (104.3b)")
    else:
        state = whole.state_after(first)
        regular = dict(line["regular"])
        second = resolve(state, regular)
        right = _el(None, "g")
        w2, h2 = _step(
            right,
            state,
            regular,
            second,
            "2. regular damage step (after state-based actions)",
            [_legend(regular), *_ending(second)],
        )
        parts.append(right)
        width, height = w1 + w2 + 20, max(h1, h2)
    head_lines = _header_lines(title or "whole combat", notes, width)
    head = _header_height(head_lines) + 4
    root = _svg(width, height + head)
    _el(root, "rect", x=0, y=0, width=width, height=height + head, fill="white")
    _header(root, head_lines)
    for k, part in enumerate(parts):
        part.set("transform", f"translate({w1 + 20 if k else 0},{head})")
        if k:
            _el(root, "line", x1=w1 + 10, y1=head, x2=w1 + 10, y2=height + head, stroke="#bbb", stroke_width=2)
        root.append(part)
    return _serialise(root)


def render(combat, assignment=None, title: str | None = None) -> str:
    """SVG of a :class:`trample.Combat` or ``WholeCombat``, with an optional assignment (or line), checked: the
    subtitle says whether it is legal and, if not, the first rule it breaks; each card shows what the damage does
    (``combat.outcome(assignment)`` for one step: the outcome the solver reads)."""
    verdict = None
    whole = combat.scenario.step == Step.COMBAT  # a WholeCombat (a Combat is one damage step: never this one)
    loaded = None
    if assignment is not None and not whole and known_legal(assignment, combat.scenario, combat.side):
        loaded = assignment  # the solver's answer on this board and side (rules.mark_legal): legal, not checked again
        verdict = "legal ✓"  # (drawn as it is: an Assignment is the mapping board_svg reads)
    elif assignment is not None:
        if isinstance(assignment, Mapping) and hasattr(assignment, "to_json"):  # an Assignment or a CombatLine
            assignment = assignment.to_json()
        if not whole:  # one step's assignment, read once for the check and the outcome
            loaded = load_assignment(assignment, combat.scenario)
        result = combat.check(assignment if whole else loaded)
        if result.legal:
            verdict = "legal ✓"
        else:
            v = result.violations[0]
            verdict = f"ILLEGAL: {v.rule}: {v.message}"
    if whole:
        return combat_svg(combat, assignment, title, verdict)
    # with the other player's reply the solver assumes (either side; --side both: as given)
    outcome = combat.outcome(loaded) if assignment is not None else None
    return board_svg(combat.scenario, assignment, title, verdict, outcome)


class Picture:
    """An SVG picture a notebook shows (``_repr_svg_``) and a program saves (``save``)."""

    def __init__(self, svg: str):
        self.svg = svg

    def _repr_svg_(self) -> str:
        return self.svg

    def save(self, path: str) -> None:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(self.svg)

    def __str__(self) -> str:
        return self.svg


__all__: list[Any] = ["board_svg", "combat_svg", "render", "Picture", "xml_text"]
