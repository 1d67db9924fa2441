"""A combat damage step without the questions that need the layers above: the scenario, its damage plan,
the engines' counts and streams, and checking. :class:`trample.combat.Combat` adds solving and indexing on top;
the optimiser and the indexing read a step through this class, so that they never import the combat module
(the layers only point down: README.md, Layout)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import cached_property
from itertools import chain
from typing import Any

import numpy as np
import numpy.typing as npt

from .check import CheckResult, check
from .engines import Engine, blocks_engine, engine_names, get_engine
from .limits import Deadline, TimeLimit, deadline_of
from .models import Assignment, FormatError, Scenario, load_assignment, load_scenario
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
        if scenario.step == "combat":
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
            total *= self._engine_for(comp, engine).count(self.plan, comp, deadline)
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

    def canonical(self, engine: str | None = None, deadline: TimeLimit = None) -> bool:
        """Do :meth:`assignments` and :meth:`assignment_blocks` (under ``engine``, default the step's) list the
        assignments in the canonical order (lexicographic over :attr:`columns`, docs/scale.md)? They do when the
        direct engine's blocks serve them: under ``"direct"``, and under ``"auto"`` when the direct engine takes
        every component; never when a creature may assign as though it weren't blocked."""
        plan = self.plan
        name = engine or self.engine
        if plan.has_options:  # the canonical blocks do not cover the second way to assign: streamed then
            return False
        direct = blocks_engine("direct")
        return name == "direct" or (
            name == "auto" and all(direct.supports(plan, c, deadline_of(deadline)) for c in plan.components)
        )

    def jsonl(self, block: Block) -> str:
        """The rows of a block of :meth:`assignment_blocks` as JSON Lines, formatted in bulk: exactly the text of
        ``json.dumps(a.to_json(), separators=(",", ":"))`` and a newline for each assignment, in order."""
        return self._layout.jsonl(block)

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
    def _engine_for(self, comp: Sequence[int], engine: str | None) -> Engine:
        return get_engine(engine or self.engine)

    def _replayable(
        self, comp: Sequence[int], engine: str | None, deadline: Deadline
    ) -> Callable[[], Iterable[tuple[int, ...]]]:
        eng = self._engine_for(comp, engine)
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
        self._tokens: dict[int, tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]] = {}

    def assignment(self, row: list[int]) -> Assignment:
        return _RowAssignment(self, row)

    @cached_property
    def _pieces(self) -> dict[str, list[int]]:
        """Per source, its column indices; the JSON text between them (keys escaped as json.dumps does)."""
        by_source: dict[str, list[int]] = {name: [] for name in self.names}
        for j, (s, _) in enumerate(self.columns):
            by_source[s].append(j)
        return by_source

    def jsonl(self, block: Block) -> str:
        """The rows of a block as JSON Lines, byte for byte ``json.dumps(a.to_json(), separators=(",", ":"))``
        of each assignment plus a newline, formatted in bulk: each (column, amount, first-in-its-source?) token
        is a padded byte row of a small table; a row's tokens and the constant text between them are laid side
        by side and the padding is dropped with one boolean mask (row-major, so lines come out in order)."""
        n = len(block)
        if not n:
            return ""
        top = int(block.max(initial=0))
        if top < 0 or (top + 1) * max(1, len(self.columns)) > 1 << 20:  # huge amounts: one line at a time
            return "".join(json.dumps(self.mapping(r), separators=(",", ":")) + "\n" for r in block.tolist())
        parts: list[npt.NDArray[np.uint8]] = []
        lens: list[npt.NDArray[np.int64]] = []

        def const(text: str) -> None:
            b = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
            parts.append(np.broadcast_to(b, (n, len(b))))
            lens.append(np.full(n, len(b), dtype=np.int64))

        opener = "{"
        for name, cols in self._pieces.items():
            const(opener + json.dumps(name) + ":{")
            opener = "},"
            seen = np.zeros(n, dtype=bool)
            for j in cols:
                v = block[:, j].astype(np.int64)
                tab, tlen = self._token_table(j, top)
                flag = seen.astype(np.int64)
                parts.append(tab[flag, v])
                lens.append(tlen[flag, v])
                seen |= v != 0
        const("}}\n" if self._pieces else "{}\n")  # no source: the empty assignment {}
        width = sum(p.shape[1] for p in parts)
        big = np.empty((n, width), dtype=np.uint8)
        mask = np.empty((n, width), dtype=bool)
        at = 0
        for p, ln in zip(parts, lens):
            w = p.shape[1]
            big[:, at : at + w] = p
            mask[:, at : at + w] = np.arange(w)[None, :] < ln[:, None]
            at += w
        return big[mask].tobytes().decode("ascii")

    def _token_table(self, j: int, top: int) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
        got = self._tokens.get(j)
        if got is None or got[0].shape[1] <= top:
            key = json.dumps(self.columns[j][1]) + ":"
            texts = [
                [""] + [key + str(v) for v in range(1, top + 1)],
                [""] + ["," + key + str(v) for v in range(1, top + 1)],
            ]
            w = max(len(t) for t in texts[1])
            tab = np.zeros((2, top + 1, w), dtype=np.uint8)
            tlen = np.zeros((2, top + 1), dtype=np.int64)
            for f in (0, 1):
                for v, t in enumerate(texts[f]):
                    b = t.encode("ascii")
                    tab[f, v, : len(b)] = np.frombuffer(b, dtype=np.uint8)
                    tlen[f, v] = len(b)
            got = self._tokens[j] = (tab, tlen)
        return got

    def mapping(self, row: list[int]) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {name: {} for name in self.names}
        for (s, r), amount in zip(self.columns, row):
            if amount:
                out[s][r] = amount
        return out


class _RowAssignment(Assignment):
    """An :class:`~trample.models.Assignment` that keeps its row and builds its mapping when first read: the same
    value, equality, hash, pickling and immutability (one eager Assignment per line cost ~30 us)."""

    __slots__ = ("_row", "_lay")

    def __init__(self, layout: _Layout, row: list[int]) -> None:
        object.__setattr__(self, "_lay", layout)
        object.__setattr__(self, "_row", row)

    def __getattr__(self, name: str) -> Any:
        if name in ("_data", "_key"):
            Assignment.__init__(self, self._lay.mapping(self._row))
            return object.__getattribute__(self, name)
        raise AttributeError(name)
