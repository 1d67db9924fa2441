"""Pictures of boards and assignments as SVG (pure Python; python-chess's ``chess.svg`` is the model).

:func:`board_svg` draws one damage step: across the top, what can be dealt damage (blockers, planeswalkers,
battles, players); across the bottom, the attackers. Each object is a card with its numbers: power/toughness,
marked damage and keywords for creatures, life for players, loyalty for planeswalkers, defense for battles. Grey
dashed lines show who blocks whom; an attacker's card names what it attacks. An assignment is drawn as thick
arrows from each source to each recipient labelled with the amount, and every recipient's card then shows what
it needs (lethal damage for a blocker, 702.19b; loyalty, 702.19c; life) and the result (dies / survives,
life 3 -> -2 LETHAL). Blockers' damage to attackers (the defending side) is drawn downwards in red.

:func:`combat_svg` draws a whole combat (``"step": "combat"``) with a line: the first-strike step on the board as
given and the regular step on the state after the state-based actions, side by side.

``Combat._repr_svg_`` shows a board in a notebook, ``Combat.show(assignment)`` a board with an assignment, and the
results of ``Combat.solve`` show their optimal line.
"""

from __future__ import annotations

from collections.abc import Mapping
from xml.sax.saxutils import escape

from .sba import creature_dies

CARD_W, CARD_H = 150, 128
GAP_X = 34
ROW_GAP = 150
MARGIN = 24
TITLE_H = 58
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
PALETTE = ("#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2", "#bcbd22")
DEFENDING_COLOUR = "#d62728"


def _t(x, y, text, size=12, weight="normal", anchor="start", fill="#222", style="normal") -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-family="{FONT}" font-size="{size}" font-weight="{weight}" '
        f'font-style="{style}" text-anchor="{anchor}" fill="{fill}">{escape(str(text))}</text>'
    )


def _fit(text: str, width: float, size: float) -> str:
    """Cut a line to what fits in ``width`` pixels (an estimate: 0.6 em per character)."""
    room = max(3, int(width / (0.6 * size)))
    return text if len(text) <= room else text[: room - 1] + "…"


def _num(x) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


KEYWORD_NAMES = {
    "trample_over_planeswalkers": "trample over PWs",
    "double_strike": "double strike",
    "first_strike": "first strike",
}


class _Layout:
    """Where each object's card is (x, y of its top-left corner) for one step."""

    def __init__(self, scenario):
        s = scenario
        self.top = [b.id for b in s.blockers] + [p.id for p in s.planeswalkers]
        self.top += [b.id for b in s.battles] + [p.id for p in s.players]
        self.bottom = [a.id for a in s.attackers]
        n = max(len(self.top), len(self.bottom), 1)
        self.width = 2 * MARGIN + n * CARD_W + (n - 1) * GAP_X
        self.height = TITLE_H + 2 * CARD_H + ROW_GAP + 2 * MARGIN + 40
        self.pos: dict[str, tuple[float, float]] = {}
        for row, ids in ((0, self.top), (1, self.bottom)):
            span = len(ids) * CARD_W + max(0, len(ids) - 1) * GAP_X
            x0 = (self.width - span) / 2
            y = TITLE_H + MARGIN + row * (CARD_H + ROW_GAP)
            for k, oid in enumerate(ids):
                self.pos[oid] = (x0 + k * (CARD_W + GAP_X), y)


def _totals(assignment) -> tuple[dict, set]:
    totals: dict[str, int] = {}
    for split in (assignment or {}).values():
        for r, n in split.items():
            if n:
                totals[r] = totals.get(r, 0) + n
    return totals, set()


def step_svg_parts(scenario, assignment=None, title: str = "", subtitle: str = "") -> tuple[list[str], int, int]:
    """The SVG elements of one step (no <svg> wrapper), and the picture's width and height."""
    s = scenario
    lay = _Layout(s)
    totals, _ = _totals(assignment)
    deathtouched: set[str] = set()
    for source, split in (assignment or {}).items():
        obj = s.get(source)
        if obj is not None and getattr(obj, "deathtouch", False):
            deathtouched.update(r for r, n in split.items() if n)
    out: list[str] = [f'<rect x="0" y="0" width="{lay.width}" height="{lay.height}" fill="#fbfaf6"/>']
    if title:
        out.append(_t(MARGIN, 28, _fit(title, lay.width - 2 * MARGIN, 17), 17, "bold"))
    if subtitle:
        out.append(_t(MARGIN, 48, _fit(subtitle, lay.width - 2 * MARGIN, 12), 12, fill="#555"))

    # who blocks whom: grey dashed lines under everything
    for a in s.attackers:
        ax, ay = lay.pos[a.id]
        for b in a.blocked_by:
            if b in lay.pos:
                bx, by = lay.pos[b]
                out.append(
                    f'<line x1="{ax + CARD_W / 2:.1f}" y1="{ay:.1f}" x2="{bx + CARD_W / 2:.1f}" y2="{by + CARD_H:.1f}"'
                    ' stroke="#999" stroke-width="2" stroke-dasharray="6 5"/>'
                )

    for a in s.attackers:
        out += _creature_card(s, a, lay.pos[a.id], "attacker", totals.get(a.id, 0), a.id in deathtouched)
    for b in s.blockers:
        out += _creature_card(s, b, lay.pos[b.id], "blocker", totals.get(b.id, 0), b.id in deathtouched)
    for p in s.planeswalkers:
        out += _planeswalker_card(s, p, lay.pos[p.id], totals.get(p.id, 0), assignment is not None)
    for t in s.battles:
        out += _battle_card(s, t, lay.pos[t.id], totals.get(t.id, 0), assignment is not None)
    for p in s.players:
        out += _player_card(p, lay.pos[p.id], totals.get(p.id, 0), assignment is not None)

    if assignment:
        out += _arrows(s, assignment, lay)
    return out, lay.width, lay.height


def _card(x, y, fill, stroke, faded=False) -> str:
    op = ' opacity="0.45"' if faded else ""
    return (
        f'<rect x="{x:.1f}" y="{y:.1f}" width="{CARD_W}" height="{CARD_H}" rx="9" fill="{fill}" '
        f'stroke="{stroke}" stroke-width="2"{op}/>'
    )


def _creature_card(s, c, pos, role: str, dealt: int, deathtouched: bool) -> list[str]:
    x, y = pos
    faded = not c.in_combat
    out = [f'<g class="{role}" id="{escape(c.id)}">']
    out.append(
        _card(
            x, y, "#eef4fb" if role == "attacker" else "#fbeeee", "#4a6fa5" if role == "attacker" else "#a54a4a", faded
        )
    )
    out.append(_t(x + 8, y + 18, _fit(c.id, CARD_W - 56, 13), 13, "bold"))
    out.append(_t(x + CARD_W - 8, y + 19, f"{c.power}/{c.toughness}", 15, "bold", "end"))
    kws = [KEYWORD_NAMES.get(k, k) for k in c.keywords if k != "haste"]
    line = y + 36
    if kws:
        text = ", ".join(kws)
        for chunk in _wrap(text, CARD_W - 14, 10.5)[:2]:
            out.append(_t(x + 8, line, chunk, 10.5, style="italic", fill="#444"))
            line += 13
    if c.damage_marked:
        out.append(_t(x + 8, line, f"marked damage {c.damage_marked}", 10.5, fill="#a05000"))
        line += 13
    if role == "attacker":
        what = " (PW)" if c.attacking in s and s.kind(c.attacking) == "planeswalker" else ""
        out.append(_t(x + 8, line, _fit(f"attacks {c.attacking}{what}", CARD_W - 14, 10.5), 10.5, fill="#333"))
        line += 13
        if c.blocked_by:
            for chunk in _wrap("blocked by " + ", ".join(c.blocked_by), CARD_W - 14, 10.5)[:2]:
                out.append(_t(x + 8, line, _fit(chunk, CARD_W - 14, 10.5), 10.5, fill="#333"))
                line += 13
        elif c.blocked:
            out.append(_t(x + 8, line, "blocked (no blocker left)", 10.5, fill="#333"))
        else:
            out.append(_t(x + 8, line, "unblocked", 10.5, fill="#333"))
    elif not faded:
        need = max(0, c.toughness - c.damage_marked)
        out.append(
            _t(x + 8, line, f"lethal: {need}" + ("  value " + _num(c.value) if c.value != 1 else ""), 10.5, fill="#333")
        )
        if any(a.deathtouch and a.power > 0 and c.id in a.blocked_by for a in s.attackers):  # 702.2c
            out.append(_t(x + 8, line + 13, "(1 from a deathtouch source)", 10.5, fill="#333"))
    if faded:
        out.append(_t(x + CARD_W / 2, y + CARD_H - 10, "removed from combat", 10.5, "bold", "middle", "#777"))
    elif dealt or deathtouched:
        dies = creature_dies(c, dealt, deathtouched)
        verdict = "dies" if dies else "survives"
        why = " (deathtouch)" if dies and deathtouched and c.damage_marked + dealt < c.toughness else ""
        colour = "#b00020" if dies else "#1b7a1b"
        out.append(
            _t(x + CARD_W / 2, y + CARD_H - 10, f"takes {dealt}: {verdict}{why}", 11.5, "bold", "middle", colour)
        )
    out.append("</g>")
    return out


def _wrap(text: str, width: float, size: float) -> list[str]:
    room = max(6, int(width / (0.6 * size)))
    lines, cur = [], ""
    for word in text.split(" "):
        if cur and len(cur) + 1 + len(word) > room:
            lines.append(cur)
            cur = word
        else:
            cur = f"{cur} {word}" if cur else word
    if cur:
        lines.append(cur)
    return lines


def _planeswalker_card(s, p, pos, dealt: int, shown: bool) -> list[str]:
    x, y = pos
    out = [f'<g class="planeswalker" id="{escape(p.id)}">', _card(x, y, "#f6f0fb", "#7a4aa5", not p.in_combat)]
    out.append(_t(x + 8, y + 18, _fit(p.id, CARD_W - 40, 13), 13, "bold"))
    out.append(_t(x + CARD_W - 8, y + 19, f"◆{p.loyalty}", 15, "bold", "end", "#5a2a85"))
    out.append(_t(x + 8, y + 36, "planeswalker", 10.5, style="italic", fill="#444"))
    out.append(_t(x + 8, y + 50, _fit(f"controller {p.controller}", CARD_W - 14, 10.5), 10.5, fill="#333"))
    out.append(
        _t(
            x + 8,
            y + 64,
            f"loyalty: {p.loyalty}" + ("  value " + _num(p.value) if p.value != 1 else ""),
            10.5,
            fill="#333",
        )
    )
    if not p.in_combat:
        out.append(_t(x + CARD_W / 2, y + CARD_H - 10, "removed from combat", 10.5, "bold", "middle", "#777"))
    elif shown and dealt:
        left = p.loyalty - dealt
        verdict = "destroyed" if left <= 0 else f"loyalty {left} left"
        colour = "#b00020" if left <= 0 else "#1b7a1b"
        out.append(_t(x + CARD_W / 2, y + CARD_H - 10, f"takes {dealt}: {verdict}", 11.5, "bold", "middle", colour))
    out.append("</g>")
    return out


def _battle_card(s, t, pos, dealt: int, shown: bool) -> list[str]:
    x, y = pos
    out = [f'<g class="battle" id="{escape(t.id)}">', _card(x, y, "#f7f4ea", "#8a7a3a", not t.in_combat)]
    out.append(_t(x + 8, y + 18, _fit(t.id, CARD_W - 40, 13), 13, "bold"))
    out.append(_t(x + CARD_W - 8, y + 19, f"def {t.defense}", 15, "bold", "end", "#6a5a1a"))
    out.append(_t(x + 8, y + 36, "battle", 10.5, style="italic", fill="#444"))
    out.append(_t(x + 8, y + 50, _fit(f"protector {t.protector}", CARD_W - 14, 10.5), 10.5, fill="#333"))
    out.append(_t(x + 8, y + 64, f"defense: {t.defense}", 10.5, fill="#333"))
    if not t.in_combat:
        out.append(_t(x + CARD_W / 2, y + CARD_H - 10, "removed from combat", 10.5, "bold", "middle", "#777"))
    elif shown and dealt:
        left = t.defense - dealt
        verdict = "defeated" if left <= 0 else f"defense {left} left"
        colour = "#b00020" if left <= 0 else "#1b7a1b"
        out.append(_t(x + CARD_W / 2, y + CARD_H - 10, f"takes {dealt}: {verdict}", 11.5, "bold", "middle", colour))
    out.append("</g>")
    return out


def _player_card(p, pos, dealt: int, shown: bool) -> list[str]:
    x, y = pos
    out = [f'<g class="player" id="{escape(p.id)}">', _card(x, y, "#eef7ee", "#3a7a3a")]
    out.append(_t(x + 8, y + 18, _fit(p.id, CARD_W - 40, 13), 13, "bold"))
    out.append(_t(x + CARD_W - 8, y + 19, f"♥{p.life}", 15, "bold", "end", "#2a6a2a"))
    out.append(_t(x + 8, y + 36, "player", 10.5, style="italic", fill="#444"))
    out.append(_t(x + 8, y + 50, f"life: {p.life}", 10.5, fill="#333"))
    if shown and dealt:
        left = p.life - dealt
        lethal = left <= 0
        colour = "#b00020" if lethal else "#1b7a1b"
        out.append(
            _t(
                x + CARD_W / 2,
                y + CARD_H - 26,
                f"takes {dealt}: life {p.life} → {left}",
                11.5,
                "bold",
                "middle",
                colour,
            )
        )
        if lethal:
            out.append(_t(x + CARD_W / 2, y + CARD_H - 10, "LETHAL", 12.5, "bold", "middle", colour))
    out.append("</g>")
    return out


def _arrows(s, assignment, lay: _Layout) -> list[str]:
    """Labelled arrows, source to recipient; several arrows leaving (or reaching) one card are spread along it."""
    edges = []
    for source, split in assignment.items():
        for recipient, amount in split.items():
            if amount and source in lay.pos and recipient in lay.pos:
                edges.append((source, recipient, amount))
    touching: dict[str, list] = {}
    for e in edges:
        touching.setdefault(e[0], []).append(e)
        touching.setdefault(e[1], []).append(e)
    for k in touching:  # spread along the card in the order of the other end's x, so arrows do not cross on it

        def along(e: tuple, k: str = k) -> tuple:
            return (lay.pos[e[1] if e[0] == k else e[0]][0], e[0] == k)

        touching[k].sort(key=along)

    def spot(obj, edge):
        x, y = lay.pos[obj]
        group = touching[obj]
        i, n = group.index(edge), len(group)
        return x + CARD_W * (i + 1) / (n + 1), y

    attackers = {a.id for a in s.attackers}
    colours = {a.id: PALETTE[k % len(PALETTE)] for k, a in enumerate(s.attackers)}
    out = [
        "<defs>"
        + "".join(
            f'<marker id="head{k}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="5" markerHeight="5" '
            f'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{c}"/></marker>'
            for k, c in enumerate((*PALETTE, DEFENDING_COLOUR))
        )
        + "</defs>"
    ]
    labels = []
    taken: list[tuple[float, float]] = []
    for e in edges:
        source, recipient, amount = e
        down = source not in attackers  # a blocker's damage to an attacker
        colour = DEFENDING_COLOUR if down else colours.get(source, PALETTE[0])
        head = len(PALETTE) if down else PALETTE.index(colour)
        sx, sy = spot(source, e)
        rx, ry = spot(recipient, e)
        if down:
            sy += CARD_H
        else:
            ry += CARD_H
        out.append(
            f'<line class="assign" x1="{sx:.1f}" y1="{sy:.1f}" x2="{rx:.1f}" y2="{ry:.1f}" stroke="{colour}" '
            f'stroke-width="4" marker-end="url(#head{head})" opacity="0.9"/>'
        )
        for t in (0.62, 0.45, 0.75, 0.35, 0.85, 0.25):  # a spot no other bubble covers
            lx, ly = sx + (rx - sx) * t, sy + (ry - sy) * t
            if all(abs(lx - ox) > 26 or abs(ly - oy) > 24 for ox, oy in taken):
                break
        taken.append((lx, ly))
        label = str(amount)
        w = 12 + 8 * len(label)
        labels.append(
            f'<g class="amount"><rect x="{lx - w / 2:.1f}" y="{ly - 11:.1f}" width="{w}" height="22" rx="11" '
            f'fill="{colour}" stroke="white" stroke-width="1.5"/>'
            + _t(lx, ly + 5, label, 14, "bold", "middle", "white")
            + "</g>"
        )
    return out + labels


def _wrap_svg(parts: list[str], width: int, height: int) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}">' + "".join(parts) + "</svg>"
    )


def _step_name(step: str) -> str:
    return {"first_strike": "first-strike damage step", "regular": "regular damage step"}.get(step, step)


def board_svg(scenario, assignment=None, title: str | None = None, verdict: str | None = None) -> str:
    """One damage step as SVG text; with ``assignment`` (docs/format.md ``{source: {recipient: amount}}``) its arrows
    and what each recipient then suffers. ``verdict``: a line shown under the title (legal / the rule broken)."""
    if title is None:
        title = f"{_step_name(scenario.step)} ({scenario.rules} rules)"
    parts, w, h = step_svg_parts(scenario, assignment, title, verdict or _legend(assignment))
    return _wrap_svg(parts, w, h)


def _legend(assignment) -> str:
    if assignment is None:
        return "dashed: who blocks whom"
    return "arrows: damage assigned (amount in the bubble); dashed: who blocks whom"


def combat_svg(whole, line=None, title: str | None = None, verdict: str | None = None) -> str:
    """A whole combat: with ``line`` ({"first_strike": ..., "regular": ...}), both steps side by side (the regular
    step on the state after the first step's damage and state-based actions)."""
    scenario = whole.scenario
    if line is None or not whole.has_first_strike_step:
        board = scenario.with_step("regular" if not whole.has_first_strike_step else "first_strike")
        regular = None if line is None else line["regular"]
        name = "whole combat (no first-strike step)" if not whole.has_first_strike_step else "whole combat"
        return board_svg(board, regular, title or name, verdict)
    first = line["first_strike"]
    state = whole.state_after(first)
    left, w1, h1 = step_svg_parts(
        scenario.with_step("first_strike"), first, "1. first-strike damage step", _legend(first)
    )
    right, w2, h2 = step_svg_parts(
        state, line["regular"], "2. regular damage step (after state-based actions)", _legend(line)
    )
    head = 40
    width, height = w1 + w2 + 20, max(h1, h2) + head
    parts = [f'<rect x="0" y="0" width="{width}" height="{height}" fill="white"/>']
    parts.append(_t(MARGIN, 27, _fit(title or "whole combat", width - 2 * MARGIN, 18), 18, "bold"))
    if verdict:
        parts.append(_t(width - MARGIN, 27, verdict, 12, anchor="end", fill="#555"))
    parts.append(f'<g transform="translate(0,{head})">' + "".join(left) + "</g>")
    parts.append(f'<line x1="{w1 + 10}" y1="{head}" x2="{w1 + 10}" y2="{height}" stroke="#bbb" stroke-width="2"/>')
    parts.append(f'<g transform="translate({w1 + 20},{head})">' + "".join(right) + "</g>")
    return _wrap_svg(parts, width, height)


def render(combat, assignment=None, title: str | None = None) -> str:
    """SVG of a :class:`trample.Combat` or ``WholeCombat``, with an optional assignment (or line), checked: the
    subtitle says whether it is legal and, if not, the first rule it breaks."""
    verdict = None
    if assignment is not None:
        if isinstance(assignment, Mapping) and hasattr(assignment, "to_json"):
            assignment = assignment.to_json()
        result = combat.check(assignment)
        if result.legal:
            verdict = "legal ✓  arrows: damage assigned; dashed: who blocks whom"
        else:
            v = result.violations[0]
            verdict = f"ILLEGAL: {v.rule}: {v.message}"
    if hasattr(combat, "has_first_strike_step"):
        return combat_svg(combat, assignment, title, verdict)
    return board_svg(combat.scenario, assignment, title, verdict)


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


def shown_result(result, combat):
    """``result`` (a :class:`trample.optimize.SolveResult`) with ``_repr_svg_``: its board and line."""
    cls = type(result)
    shown = _SHOWN.get(cls)
    if shown is None:
        body = {
            "_repr_svg_": _result_svg,
            "__module__": cls.__module__,
            "__qualname__": cls.__qualname__,
            "__reduce__": lambda self: (_plain_result, (cls, _fields(self))),  # pickles as the plain class
            "__eq__": lambda self, other: _fields(self) == _fields(other) if isinstance(other, cls) else NotImplemented,
            "__hash__": None,
        }
        shown = _SHOWN[cls] = type(cls.__name__, (cls,), body)
    result.__class__ = shown
    result._combat = combat
    return result


_SHOWN: dict = {}


def _fields(result) -> dict:
    return {k: v for k, v in vars(result).items() if k != "_combat"}


def _plain_result(cls, fields: dict):
    obj = cls.__new__(cls)
    obj.__dict__.update(fields)
    return obj


def _result_svg(self) -> str:
    title = f"{self.status}: " + ", ".join(f"{k} {v}" for k, v in self.objectives.items())
    return render(self._combat, self.assignment, title)
