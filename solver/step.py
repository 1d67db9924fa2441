"""A combat damage step without the questions that need the layers above: the scenario, its damage plan,
the engines' counts and streams, and checking. :class:`trample.combat.Combat` adds solving and indexing on top;
the optimiser and the indexing read a step through this class, so that they never import the combat module
(the layers only point down: README.md, Layout)."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import cached_property
from itertools import chain
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from .check import CheckResult, check
from .engines import PROGRAMME, Engine, ProgrammeEngine, blocks_engine, engine_names, get_engine
from .limits import Deadline, TimeLimit, deadline_of
from .models import Assignment, FormatError, Scenario, Step, load_assignment, load_scenario
from .outcome import settle
from .rules import SIDES, DamagePlan, derive

REPLAY_CACHE = 1 << 18  # inner components up to this many assignments are kept in memory and replayed

# rows of assignments over the step's columns (assignment_blocks): the direct engine's blocks come in the smallest
# integer type that holds the amounts (engines.direct.dtype_for), a stream's in int64
Block = npt.NDArray[np.integer[Any]]
ScenarioInput = Scenario | Mapping[str, Any] | str  # a loaded scenario, its JSON data, or its JSON text


def opening(scenario: ScenarioInput, side: str, engine: str) -> Scenario:
    """The loaded scenario, once ``side`` and ``engine`` are known names (what every combat object checks)."""
    if not isinstance(scenario, Scenario):
        scenario = load_scenario(scenario)
    if side not in SIDES:
        raise FormatError("side", f"expected one of {', '.join(SIDES)}, got {side!r}")
    if engine not in engine_names():
        raise FormatError("engine", f"unknown engine {engine!r} (expected one of {', '.join(engine_names())})")
    return settle(scenario)  # the state-based actions pending on the board, once, for every combat object


class DamageStep:
    """One combat damage step (the base of :class:`trample.combat.Combat`)."""

    def __init__(self, scenario: ScenarioInput, side: str = "attacking", engine: str = "auto") -> None:
        scenario = opening(scenario, side, engine)
        if scenario.step == Step.COMBAT:
            raise FormatError("step", '"combat" describes both damage steps: use trample.open_combat()')
        self.scenario = scenario
        self.side = side
        self.engine = engine

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | str, side: str = "attacking", engine: str = "auto") -> DamageStep:
        return cls(load_scenario(data), side=side, engine=engine)

    @cached_property
    def plan(self) -> DamagePlan:
        return derive(self.scenario, self.side)

    # -- the questions ---------------------------------------------------------------------------
    def count(self, engine: str | None = None, time_limit: TimeLimit = None) -> int:
        """The exact number of legal assignments. ``time_limit`` (seconds): :class:`trample.limits.LimitReached`
        if the count is not known by then."""
        deadline = deadline_of(time_limit)
        total = 1
        for comp in self.plan.components:
            total *= self._engine_for(comp, engine, deadline).count(self.plan, comp, deadline)
            if total == 0:
                return 0
        return total

    def assignments(
        self, limit: int | None = None, engine: str | None = None, time_limit: TimeLimit = None
    ) -> Iterator[Assignment]:
        """Every legal assignment exactly once, lazily, in the order of :meth:`assignment_blocks`.

        Each :class:`~trample.models.Assignment` is built from its row of a block and fills its mapping only when
        it is read (equality, hashing, ``a[source]``...), so iterating costs about a microsecond per assignment.
        ``time_limit`` (seconds, from the first ``next``): the assignments found by then are yielded, then
        :class:`trample.limits.LimitReached` is raised."""
        if limit is not None and limit <= 0:
            return
        layout = self._layout
        free = free_rows(self.plan) if (engine or self.engine) in ("auto", "direct") else None
        if free is not None:  # the canonical order, as the blocks list it (the direct engine takes a free plan)
            yield from map(layout.assignment, free if limit is None else free[:limit])
            return
        n = 0
        rows = max(16, min(1 << 16, (1 << 20) // max(1, len(layout.columns))))  # ~1 M cells of Python lists
        if limit is not None:
            rows = min(rows, limit)
        for block in self.assignment_blocks(rows=rows, engine=engine, time_limit=time_limit, _grow=True):
            rows = block.tolist()
            if limit is not None and n + len(rows) >= limit:
                rows = rows[: limit - n]
                yield from map(layout.assignment, rows)
                return
            n += len(rows)
            yield from map(layout.assignment, rows)

    def assignment_blocks(
        self, rows: int = 1 << 16, engine: str | None = None, time_limit: TimeLimit = None, _grow: bool = False
    ) -> Iterator[Block]:
        """Every legal assignment exactly once, as numpy integer matrices of at most ``rows`` rows: one row per
        assignment, one column per route of ``self.columns`` (``(source, recipient)`` pairs).

        The bulk form of :meth:`assignments` (the same assignments in the same order): under the direct engine
        (and ``"auto"`` when the direct engine takes every component) the blocks come straight from its numpy
        enumeration, in the canonical order (docs/scale.md); otherwise the components' streams are combined row
        by row (first component slowest). ``time_limit`` as for :meth:`assignments`. ``_grow`` (for the lazy
        :meth:`assignments`): streamed blocks start at 16 rows and double up to ``rows``, so that the first
        assignments come as soon as they are found, not after a whole block (a listing can slow down as it goes)."""
        deadline = deadline_of(time_limit)
        plan = self.plan
        comps = plan.components
        rows = max(1, int(rows))
        dtype = np.dtype(np.int64)
        if self.canonical(engine, deadline):
            yield from blocks_engine("direct").plan_blocks(plan, rows=rows, deadline=deadline)
            return
        factories = [self._replayable(comp, engine, deadline) for comp in comps]
        cols = [plan.component_columns(c) for c in comps]
        where = {c: k for k, c in enumerate(plan.columns)}
        order = np.array([where[c] for cc in cols for c in cc], dtype=np.int64)
        buf: list[tuple[int, ...]] = []
        target = min(16, rows) if _grow else rows
        for n, row in enumerate(_product(factories)):
            if deadline and not n & 255:
                deadline.check()
            buf.append(row)
            if len(buf) == target:
                yield _matrix(buf, order, dtype)
                buf = []
                target = min(rows, 2 * target)
        if buf:
            yield _matrix(buf, order, dtype)

    def component_blocks(
        self, comp: Sequence[int], rows: int = 1 << 16, time_limit: TimeLimit = None
    ) -> Iterator[Block]:
        """One component's legal vectors as rows over ``plan.component_columns(comp)``, in the order
        :meth:`assignment_blocks` takes them: its rows are the product of the components' orders (first component
        slowest), so the first of its rows with given amounts on some columns is made of each component's first
        vector with its part of them."""
        deadline = deadline_of(time_limit)
        plan = self.plan
        cols = plan.component_columns(comp)
        rows = max(1, int(rows))
        if self.canonical(None, deadline):
            from .engines.direct import component_lister

            dp = component_lister(plan, comp, deadline)
            where = {c: k for k, c in enumerate(dp.columns)}
            order = np.array([where[c] for c in cols], dtype=np.int64)
            for block in dp.blocks(rows, np.dtype(np.int64)):
                yield block[:, order]
                deadline.check()
            return
        buf: list[tuple[int, ...]] = []
        for n, vec in enumerate(self._engine_for(comp, None, deadline).iterate(plan, comp, deadline)):
            if deadline and not n & 255:
                deadline.check()
            buf.append(vec)
            if len(buf) == rows:
                yield np.array(buf, dtype=np.int64).reshape(len(buf), len(cols))
                buf = []
        if buf:
            yield np.array(buf, dtype=np.int64).reshape(len(buf), len(cols))

    def first_row(self, time_limit: TimeLimit = None) -> list[int] | None:
        """The first row of :meth:`assignment_blocks` (None when there is no legal assignment) without listing the
        others: in the canonical order, each component's first vector (its counting programme's ``unrank(0)``,
        the first component slowest: every digit 0)."""
        deadline = deadline_of(time_limit)
        if self.canonical(None, deadline):
            plan = self.plan
            engine = cast(ProgrammeEngine, get_engine("direct", needs=[PROGRAMME]))
            at: dict[tuple[int, str], int] = {}
            for comp in plan.components:
                dp = engine.programme(plan, comp, deadline)
                if dp.count() == 0:
                    return None
                at.update(zip(dp.columns, dp.unrank(0)))
            return [at[c] for c in plan.columns]
        for block in self.assignment_blocks(time_limit=deadline):
            if len(block):
                return [int(v) for v in block[0]]
        return None

    def canonical(self, engine: str | None = None, deadline: TimeLimit = None) -> bool:
        """Do :meth:`assignments` and :meth:`assignment_blocks` (under ``engine``, default the step's) list the
        assignments in the canonical order (lexicographic over :attr:`columns`, docs/scale.md)? They do when the
        direct engine's blocks serve them: under ``"direct"``, and under ``"auto"`` when the direct engine takes
        every component; never when a creature may assign as though it weren't blocked."""
        plan = self.plan
        name = engine or self.engine
        if plan.has_options:  # the canonical blocks do not cover the second way to assign: streamed then
            return False
        if name == "auto" and _is_free(plan):  # at most FREE_ROWS rows: the direct engine takes it
            return True
        direct = blocks_engine("direct")
        return name == "direct" or (
            name == "auto" and all(direct.supports(plan, c, deadline_of(deadline)) for c in plan.components)
        )

    def jsonl(self, block: Block) -> str:
        """The rows of a block of :meth:`assignment_blocks` as JSON Lines, formatted in bulk: exactly the text of
        ``json.dumps(a.to_json(), separators=(",", ":"))`` and a newline for each assignment, in order."""
        return self._layout.jsonl(block)

    def jsonl_bytes(self, block: Block) -> bytes:
        """:meth:`jsonl` as ASCII bytes, for a binary stream (no decoding and encoding again)."""
        return self._layout.jsonl_bytes(block)

    @property
    def columns(self) -> list[tuple[str, str]]:
        """The ``(source, recipient)`` pair of each column of :meth:`assignment_blocks`."""
        return self._layout.columns

    @cached_property
    def _layout(self) -> _Layout:
        names = [s.source for s in self.plan.sources]
        return _Layout(names, [(names[i], r) for i, r in self.plan.columns])

    def check(self, assignment: Assignment | Mapping[str, Any]) -> CheckResult:
        if not isinstance(assignment, Assignment):
            assignment = load_assignment(assignment, self.scenario)
        return check(self.plan, assignment)

    def is_legal(self, assignment: Assignment | Mapping[str, Any]) -> bool:
        return self.check(assignment).legal

    # -- plumbing --------------------------------------------------------------------------------
    def _engine_for(self, comp: Sequence[int], engine: str | None, deadline: Deadline | None = None) -> Engine:
        """The engine of ``comp``, its module imported within ``deadline`` (trample.engines.get_engine)."""
        return get_engine(engine or self.engine, deadline=deadline)

    def _replayable(
        self, comp: Sequence[int], engine: str | None, deadline: Deadline
    ) -> Callable[[], Iterable[tuple[int, ...]]]:
        eng = self._engine_for(comp, engine, deadline)
        plan = self.plan
        cache: list[tuple[int, ...]] = []
        state = {"complete": False, "overflow": False}

        def fresh() -> Iterator[tuple[int, ...]]:
            if state["complete"]:
                return iter(cache)
            if state["overflow"]:
                return eng.iterate(plan, comp, deadline)
            return recording()

        def recording() -> Iterator[tuple[int, ...]]:
            cache.clear()
            for vec in eng.iterate(plan, comp, deadline):
                if not state["overflow"]:
                    if len(cache) < REPLAY_CACHE:
                        cache.append(vec)
                    else:
                        state["overflow"] = True
                        cache.clear()
                yield vec
            if not state["overflow"]:
                state["complete"] = True

        return fresh


#: a plan whose every active source divides its damage freely (no gate, one way) among at most this many
#: assignments is listed in Python by :meth:`DamageStep.assignments` (the same rows in the same order as the
#: direct engine's blocks), without the blocks' set-up: the defending side's replies of a small board
FREE_ROWS = 256


def free_rows(plan: DamagePlan) -> list[list[int]] | None:
    """The rows of every legal assignment of ``plan`` in the canonical order (lexicographic over its columns)
    when each active source divides exactly its damage (510.1a) among routes none of which is gated, at most
    :data:`FREE_ROWS` rows in all; else None. Each source's columns are contiguous in plan order, so the product
    of each source's splits, each listed in lexicographic order, is in lexicographic order."""
    if not _is_free(plan):
        return None
    splits = [list(ordered_splits(plan.sources[i].damage, len(plan.sources[i].routes))) for i in plan.active]
    return [[n for part in row for n in part] for row in itertools.product(*splits)]


def _is_free(plan: DamagePlan) -> bool:
    """Does :func:`free_rows` list ``plan`` (no second way, no gated route, at most :data:`FREE_ROWS` rows)? A free
    plan's frontier is at most its rows, far below the direct engine's ``STATE_LIMIT``: the direct engine takes
    every component of it, so its rows are the canonical order of ``"auto"`` and ``"direct"`` alike."""
    if plan.has_options:
        return False
    total = 1
    for i in plan.active:
        src = plan.sources[i]
        if not src.routes or any(r.gate is not None for r in src.routes):
            return False
        total *= src.splits
        if total > FREE_ROWS:
            return False
    return True


def ordered_splits(total: int, parts: int) -> Iterator[tuple[int, ...]]:
    """``total`` as an ordered sum of ``parts`` non-negative integers, in lexicographic order."""
    if parts == 1:
        yield (total,)
        return
    for first in range(total + 1):
        for rest in ordered_splits(total - first, parts - 1):
            yield (first, *rest)


def _product(factories: Sequence[Callable[[], Iterable[tuple[int, ...]]]]) -> Iterator[tuple[int, ...]]:
    """The concatenated vectors of every combination of the factories' streams, first slowest; an odometer of
    iterators, not a recursion (a thousand components are fine)."""
    k = len(factories)
    if not k:
        yield ()
        return
    iters = [iter(factories[0]())]
    cur: list[tuple[int, ...]] = []
    while iters:
        v = next(iters[-1], None)
        if v is None:
            iters.pop()
            del cur[len(iters) :]  # the finished stream's value goes; its parent's stays, to be replaced
            continue
        if len(cur) == len(iters):
            cur[-1] = v
        else:
            cur.append(v)
        if len(iters) == k:
            yield tuple(chain.from_iterable(cur))
        else:
            iters.append(iter(factories[len(iters)]()))


def _matrix(buf: list[tuple[int, ...]], order: npt.NDArray[np.int64], dtype: np.dtype[Any]) -> Block:
    m = np.array(buf, dtype=dtype).reshape(len(buf), len(order))
    out = np.empty_like(m)
    out[:, order] = m
    return out


class _Layout:
    """How a row of :meth:`DamageStep.assignment_blocks` reads as an assignment."""

    def __init__(self, names: list[str], columns: list[tuple[str, str]]):
        self.names = names
        self.columns = columns
        self._segments: dict[int, _Segments] = {}  # by radix: the segment tables of rows with amounts < radix
        self._lined = 0  # rows written one line at a time while no table served (:meth:`_tables_pay`)

    def assignment(self, row: list[int]) -> Assignment:
        return _RowAssignment(self, row)

    @cached_property
    def _pieces(self) -> dict[str, list[int]]:
        """Per source, its column indices, in column order."""
        by_source: dict[str, list[int]] = {name: [] for name in self.names}
        for j, (s, _) in enumerate(self.columns):
            by_source[s].append(j)
        return by_source

    def jsonl(self, block: Block) -> str:
        """The rows of a block as JSON Lines (:meth:`jsonl_bytes`, as text)."""
        return self.jsonl_bytes(block).decode("ascii")

    def jsonl_bytes(self, block: Block) -> bytes:
        """The rows of a block as JSON Lines, byte for byte ``json.dumps(a.to_json(), separators=(",", ":"))``
        of each assignment plus a newline, formatted in bulk. A line is cut into segments of a few columns each
        (the constant text between them folded in); a segment's text depends only on its amounts and on whether an
        earlier column of its source is non-zero, so it is one entry of a small table built once. Each row picks
        its entries by number, one gather per segment copies their texts, zero-padded, into a record per row, and
        dropping the padding lays the lines out in order."""
        n = len(block)
        if not n:
            return b""
        top = int(block.max(initial=0))
        # huge amounts (or negative ones, which no engine makes), or tables that these rows would not pay for yet:
        # one line at a time
        if int(block.min(initial=0)) < 0 or not self._tables_pay(top + 1, n):
            return "".join(json.dumps(self.mapping(r), separators=(",", ":")) + "\n" for r in block.tolist()).encode()
        seg = self._segments_for(top + 1)
        if not seg.parts:  # no column: every line is the same text
            return seg.const * n
        # each segment's entry number: its amounts as digits in base radix, plus the flag (an earlier column of its
        # source is non-zero: then its text opens with a comma) above them
        rows = block.astype(np.int32)
        out = np.empty(n, dtype=seg.record)  # a row's segments side by side, each zero-padded to its table's width
        seen: dict[str, npt.NDArray[np.bool_]] = {}
        for s, part in enumerate(seg.parts):
            code = rows[:, part.cols[0]].copy()
            for j in part.cols[1:]:
                code *= seg.radix
                code += rows[:, j]
            nonzero = code != 0
            if part.flagged:
                code += seen[part.source] * np.int32(seg.radix ** len(part.cols))
                seen[part.source] |= nonzero
            else:
                seen[part.source] = nonzero
            np.take(seg.tables[s], code, out=out[seg.names[s]], mode="clip")
        # the padding dropped: a JSON line is printable ASCII, never a zero byte
        flat = out.view(np.uint8)
        return bytes(flat[flat != 0].tobytes())

    def _tables_pay(self, radix: int, n: int) -> bool:
        """Are tables for amounts below ``radix`` built, or worth building now: within ``2^20`` entries, and the
        rows written one at a time so far (these ``n`` too) at least their entries over :data:`_ENTRIES_PER_ROW`
        (an entry costs about 1.3 us to build, a line written alone 4 us, one from the tables 0.25 us: so the
        tables never cost much more than the lines they replace; ``enumerate --limit 3`` on two tramplers of
        100 000 built 600 000 entries, 1.7 s, for three lines)?"""
        if any(r >= radix for r in self._segments):
            return True
        entries = radix * max(1, len(self.columns))
        if entries > 1 << 20:
            return False
        self._lined += n
        return entries <= self._lined * _ENTRIES_PER_ROW

    def _segments_for(self, radix: int) -> _Segments:
        """The segment tables for amounts below ``radix`` (a table built for a larger radix serves too)."""
        fits = [r for r in self._segments if r >= radix]
        if fits:
            return self._segments[min(fits)]
        got = self._segments[radix] = _Segments(self.columns, self._pieces, radix)
        return got

    def mapping(self, row: list[int]) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {name: {} for name in self.names}
        for (s, r), amount in zip(self.columns, row):
            if amount:
                out[s][r] = amount
        return out


_SEGMENT_ENTRIES = 1 << 12  # at most this many entries in one segment's table
#: table entries (amounts x columns) that one row written one line at a time pays for (_Layout._tables_pay)
_ENTRIES_PER_ROW = 3


class _Part:
    """One segment of a JSON line: the columns ``cols`` of ``source`` (after the first of its columns when
    ``flagged``), the constant text before and after them; :meth:`texts` is the text of every value of
    (flag, amounts), in the order of the entry numbers."""

    def __init__(self, source: str, cols: list[int], flagged: bool, before: str) -> None:
        self.source, self.cols, self.flagged, self.before, self.after = source, cols, flagged, before, ""

    def texts(self, columns: list[tuple[str, str]], radix: int) -> list[bytes]:
        keys = [json.dumps(columns[j][1]) + ":" for j in self.cols]
        out = []
        for flag in (False, True) if self.flagged else (False,):
            for code in range(radix ** len(self.cols)):
                amounts = []
                for _ in self.cols:
                    code, v = divmod(code, radix)
                    amounts.append(v)
                pieces, first = [self.before], not flag
                for key, v in zip(keys, reversed(amounts)):
                    if v:
                        pieces.append(("" if first else ",") + key + str(v))
                        first = False
                pieces.append(self.after)
                out.append("".join(pieces).encode("ascii"))
        return out


class _Segments:
    """The segments of a line for amounts below ``radix``: each segment's table of texts (zero-padded to one width)
    and the record that holds a row's segments side by side."""

    def __init__(self, columns: list[tuple[str, str]], by_source: dict[str, list[int]], radix: int) -> None:
        self.radix = radix
        self.parts: list[_Part] = []
        text, opener = "", "{"
        for name, cols in by_source.items():
            text += opener + json.dumps(name) + ":{"
            opener = "},"
            k = 0
            while k < len(cols):  # as many columns per segment as keep its table within _SEGMENT_ENTRIES
                m = 1
                while k + m < len(cols) and 2 * radix ** (m + 1) <= _SEGMENT_ENTRIES:
                    m += 1
                self.parts.append(_Part(name, cols[k : k + m], k > 0, text))
                text, k = "", k + m
        text += "}}\n" if by_source else "{}\n"  # no source: the empty assignment {}
        self.const = text.encode("ascii")
        if self.parts:
            self.parts[-1].after = text
        self.tables: list[npt.NDArray[np.void]] = []  # per segment: the text of each entry, zero-padded
        for part in self.parts:
            texts = part.texts(columns, radix)
            width = max(1, max(len(t) for t in texts))
            self.tables.append(np.frombuffer(b"".join(t.ljust(width, b"\0") for t in texts), dtype=f"V{width}"))
        widths = [t.dtype.itemsize for t in self.tables]
        self.names = [f"s{k}" for k in range(len(widths))]
        self.record = np.dtype({"names": self.names, "formats": [f"V{w}" for w in widths]})


class _RowAssignment(Assignment):
    """An :class:`~trample.models.Assignment` that keeps its row and builds its mapping when first read: the same
    value, equality, hash, pickling and immutability (one eager Assignment per line cost ~30 us)."""

    __slots__ = ("_row", "_lay")

    def __init__(self, layout: _Layout, row: list[int]) -> None:
        object.__setattr__(self, "_lay", layout)
        object.__setattr__(self, "_row", row)

    def __getattr__(self, name: str) -> Any:
        if name == "_data":  # the mapping alone (to_json, the outcome, the pictures read no more)
            self._set_data(self._lay.mapping(self._row))
            return object.__getattribute__(self, name)
        if name == "_key":  # equality and hashing: from the mapping (built first when not yet)
            self._set_key()
            return object.__getattribute__(self, name)
        raise AttributeError(name)
