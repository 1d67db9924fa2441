"""The reference model: the rules of a DamagePlan as OR-Tools CP-SAT constraints.

Variables: one integer ``x[s, r]`` in ``[0, damage(s)]`` per route. Constraints:

- 510.1a: ``sum_r x[s, r] == damage(s)`` for every source.
- 702.19b / 702.2c: a boolean ``lethal[b]`` per gated blocker, tied both ways to
  ``sum_s x[s, b] >= need(b)  OR  x[d, b] >= 1 for some deathtouch source d``.
- 702.19c: a boolean ``loyal[p]`` per gated planeswalker, tied both ways to ``sum_s x[s, p] >= loyalty(p)``.
- every gated route: ``x[s, r] == 0`` unless each of its gate's booleans is true.
- a source that may assign as though it weren't blocked: a boolean for the way it uses (docs/effects.md); each
  way's total, unused routes and gates hold only when that way is used.

Every helper boolean is a function of the ``x`` variables, so each legal assignment is exactly one solution.
Enumeration pins ``num_workers = 1`` (more workers silently lose solutions while still reporting OPTIMAL).
"""

from __future__ import annotations

import atexit
import importlib
import queue
import sys
import threading
import types
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..limits import NEVER, Deadline, LimitReached, check_interrupt, register_search
from ..rules import DamagePlan, Gate, Route
from . import EFFECTS
from .effects import Effects, listed_effects


class DeferredPandas(types.ModuleType):
    """Stands for pandas while OR-Tools' ``cp_model`` is imported (:func:`import_cp_model`), then forwards to it.

    ``cp_model`` imports pandas at its top only for its ``*_series`` helpers (``pd.Index`` and ``pd.Series`` in
    annotations and in those helpers' ``isinstance`` tests); trample never calls them, and pandas costs 0.3-0.4 s
    of CPU, about half of importing ``cp_model``. While ``cp_model`` is imported, those two names are
    placeholders (its annotations keep them); afterwards every name is read from the real pandas, imported at the
    first such reading, so a caller of the ``*_series`` helpers gets pandas' own classes."""

    PLACEHOLDERS = ("Index", "Series")

    def __init__(self) -> None:
        super().__init__("pandas", "pandas, imported when first used (trample.engines.cpsat.import_cp_model)")
        for name in self.PLACEHOLDERS:
            setattr(self, name, type(name, (), {"__module__": "pandas (not imported)"}))

    def forward(self) -> None:
        """From now on, every name is pandas' own."""
        for name in self.PLACEHOLDERS:
            delattr(self, name)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or sys.modules.get("pandas") is self:
            raise AttributeError(f"pandas.{name}: pandas is not imported while cp_model is")
        return getattr(importlib.import_module("pandas"), name)


def import_cp_model() -> types.ModuleType:
    """OR-Tools' ``cp_model``, imported without importing pandas (:class:`DeferredPandas`) unless pandas is
    already imported; every module of trample takes ``cp_model`` from here."""
    if "pandas" in sys.modules or "ortools.sat.python.cp_model" in sys.modules:
        return importlib.import_module("ortools.sat.python.cp_model")
    stand_in = DeferredPandas()
    sys.modules["pandas"] = stand_in
    try:
        return importlib.import_module("ortools.sat.python.cp_model")
    finally:
        if sys.modules.get("pandas") is stand_in:
            del sys.modules["pandas"]
        stand_in.forward()


if TYPE_CHECKING:
    from ortools.sat.python import cp_model as cp_model  # re-exported: every module takes it from here
else:
    cp_model = import_cp_model()


@dataclass
class BuiltModel:
    """A plan's legal assignments as a CP-SAT model (:func:`build_model`) and the variables callers read."""

    model: cp_model.CpModel
    columns: tuple[tuple[int, str], ...]
    x: list[Any]  # IntVar per column, same order
    var: dict[tuple[int, str], Any]  # (source index, recipient) -> IntVar
    lethal: dict[str, Any]  # blocker -> BoolVar (or True)
    loyal: dict[str, Any]  # planeswalker -> BoolVar (or True)


class LeanCpModel(cp_model.CpModel):
    """A CpModel without the per-instance camelCase aliases that CpModel() attaches (about 60 setattr calls,
    a quarter of a millisecond per model): for callers that build thousands of small models."""

    def _add_pre_pep8_methods(self) -> None:
        pass


def build_model(
    plan: DamagePlan, component: Sequence[int] | None = None, model: cp_model.CpModel | None = None
) -> BuiltModel:
    """CP-SAT model of the plan's legal assignments (of one component, or of every active source).

    ``model``: an empty model to build into (default: a new ``cp_model.CpModel()``). In named steps: the amounts
    (:func:`_amounts`), each source's total (:func:`_totals`, 510.1a, with its as-though-unblocked way), a literal
    per gated blocker (:func:`_lethal_literals`) and planeswalker (:func:`_loyal_literals`), and the gates
    (:func:`_gates`).
    """
    component = plan.active if component is None else tuple(component)
    m = cp_model.CpModel() if model is None else model
    columns = plan.component_columns(component)
    var = _amounts(m, plan, columns)
    way = _totals(m, plan, component, var)
    incoming: dict[str, list[tuple[int, Any]]] = {}
    for (i, r), v in var.items():
        incoming.setdefault(r, []).append((i, v))
    gated_blockers = {b for i in component for r, _ in _gated_routes(plan, way, i) for b in _gate(r).lethal}
    gated_walkers = {p for i in component for r, _ in _gated_routes(plan, way, i) for p in _gate(r).loyalty}
    lethal = _lethal_literals(m, plan, gated_blockers, incoming)
    loyal = _loyal_literals(m, plan, gated_walkers, incoming)
    _gates(m, plan, component, var, way, lethal, loyal)
    return BuiltModel(m, columns, [var[c] for c in columns], var, lethal, loyal)


def _amounts(m: cp_model.CpModel, plan: DamagePlan, columns: Sequence[tuple[int, str]]) -> dict[tuple[int, str], Any]:
    """One integer variable per column: the amount the source assigns to the recipient, 0 to its damage."""
    var = {}
    for i, r in columns:
        src = plan.sources[i]
        var[i, r] = m.new_int_var(0, src.max_damage, f"x[{src.source},{r}]")
    return var


def _totals(
    m: cp_model.CpModel, plan: DamagePlan, component: Sequence[int], var: Mapping[tuple[int, str], Any]
) -> dict[int, Any]:
    """Each source assigns all its damage (510.1a); a source that may assign as though it weren't blocked has two
    ways, legal if either is, and a boolean for the way it uses (returned: option source -> BoolVar)."""
    way: dict[int, Any] = {}  # option source -> BoolVar "assigns as though it weren't blocked"
    for i in component:
        src = plan.sources[i]
        if src.unblocked is None:
            m.add(sum(var[i, r.recipient] for r in src.routes) == src.damage)  # 510.1a
            continue
        # two ways (as it is / as though it weren't blocked); legal if either is. The boolean is a function of the
        # amounts: with equal totals the ways share exactly the normal way's assignments that give the blockers
        # nothing, which are read as the unblocked way, so each legal assignment is one solution.
        u = way[i] = m.new_bool_var(f"unblocked[{src.source}]")
        normal = [r.recipient for r in src.routes]
        alt = [r.recipient for r in src.unblocked.routes]
        every = [r.recipient for r in src.all_routes]
        m.add(sum(var[i, r] for r in alt) == src.unblocked.damage).only_enforce_if(u)
        m.add(sum(var[i, r] for r in normal) == src.damage).only_enforce_if(~u)
        for r in every:
            if r not in alt:
                m.add(var[i, r] == 0).only_enforce_if(u)
            if r not in normal:
                m.add(var[i, r] == 0).only_enforce_if(~u)
        if src.damage == src.unblocked.damage:
            only_normal = [var[i, r] for r in normal if r not in alt]
            if only_normal:
                m.add(sum(only_normal) >= 1).only_enforce_if(~u)
            else:
                m.add(u == 1)
    return way


def _gate(route: Route) -> Gate:
    """The gate of a route known to be gated."""
    assert route.gate is not None
    return route.gate


def _gated_routes(plan: DamagePlan, way: Mapping[int, Any], i: int) -> Iterator[tuple[Route, Any]]:
    """Source ``i``'s gated routes, each with the literal of the way it belongs to (None: the source has one way)."""
    src = plan.sources[i]
    ways = [(src.routes, ~way[i] if i in way else None)]
    if src.unblocked is not None:
        ways.append((src.unblocked.routes, way[i]))
    for routes, when in ways:
        for r in routes:
            if r.gate is not None:
                yield r, when


def _lethal_literals(
    m: cp_model.CpModel, plan: DamagePlan, gated_blockers: set[str], incoming: Mapping[str, list[tuple[int, Any]]]
) -> dict[str, Any]:
    """Per gated blocker, True (already lethal) or a literal tied both ways to lethal damage: its total reaches
    its need (702.19b), or a deathtouch source gives it any (702.2c)."""
    lethal: dict[str, Any] = {}  # True (already lethal) or a CP-SAT literal
    for b in sorted(gated_blockers):  # 702.19b, 702.2c
        need = plan.lethal_need[b]
        if need == 0:
            lethal[b] = True
            continue
        ins = incoming.get(b, [])
        total = sum(v for _, v in ins)
        reasons = []
        enough = m.new_bool_var(f"enough[{b}]")
        if ins:
            m.add(total >= need).only_enforce_if(enough)
            m.add(total <= need - 1).only_enforce_if(~enough)
        else:
            m.add(enough == 0)
        reasons.append(enough)
        for i, v in ins:
            if plan.sources[i].deathtouch:
                touched = m.new_bool_var(f"touched[{plan.sources[i].source},{b}]")
                m.add(v >= 1).only_enforce_if(touched)
                m.add(v == 0).only_enforce_if(~touched)
                reasons.append(touched)
        lb = m.new_bool_var(f"lethal[{b}]")
        m.add_max_equality(lb, reasons)
        lethal[b] = lb
    return lethal


def _loyal_literals(
    m: cp_model.CpModel, plan: DamagePlan, gated_walkers: set[str], incoming: Mapping[str, list[tuple[int, Any]]]
) -> dict[str, Any]:
    """Per gated planeswalker, True (no loyalty needed) or a literal tied both ways to its total reaching its
    loyalty (702.19c)."""
    loyal: dict[str, Any] = {}  # True (no loyalty needed) or a CP-SAT literal
    for p in sorted(gated_walkers):  # 702.19c
        need = plan.loyalty_need[p]
        if need == 0:
            loyal[p] = True
            continue
        ins = incoming.get(p, [])
        yp = m.new_bool_var(f"loyal[{p}]")
        if ins:
            total = sum(v for _, v in ins)
            m.add(total >= need).only_enforce_if(yp)
            m.add(total <= need - 1).only_enforce_if(~yp)
        else:
            m.add(yp == 0)
        loyal[p] = yp
    return loyal


def _gates(
    m: cp_model.CpModel,
    plan: DamagePlan,
    component: Sequence[int],
    var: Mapping[tuple[int, str], Any],
    way: Mapping[int, Any],
    lethal: Mapping[str, Any],
    loyal: Mapping[str, Any],
) -> None:
    """Every gated route assigns 0 unless each of its gate's literals is true (in the way it belongs to)."""
    for i in component:
        for r, when in _gated_routes(plan, way, i):
            conds = [lethal[b] for b in _gate(r).lethal] + [loyal[p] for p in _gate(r).loyalty]
            for c in conds:
                if c is True:
                    continue
                m.add(var[i, r.recipient] == 0).only_enforce_if([~c] if when is None else [~c, when])


class TrampleSolver(cp_model.CpSolver):
    """A CpSolver made by :func:`new_solver`: registered so that an interrupt stops its search, and refusing to
    start a search once the process is interrupted."""

    def solve(self, model: cp_model.CpModel, solution_callback: cp_model.CpSolverSolutionCallback | None = None) -> Any:
        """CpSolver.solve, refused once the process is interrupted; its status."""
        check_interrupt()
        status = super().solve(model, solution_callback)
        check_interrupt()  # stopped by an interrupt: its answer is not an answer
        return status


def new_solver(listing: bool = False, **params: Any) -> cp_model.CpSolver:
    """THE place where every CP-SAT solver of trample is made (tests/cli/test_interrupts.py checks that no other code
    creates one).

    - ``catch_sigint_signal = False``: by default CP-SAT installs its own SIGINT handler on the first solve, after
      which Ctrl-C never reaches Python again (and can abort the process from a search thread);
    - ``listing=True`` (solutions are listed): ``enumerate_all_solutions`` and ``num_workers = 1`` (more workers
      silently lose solutions);
    - ``params``: any other SatParameters field.
    """
    solver = TrampleSolver()
    p = solver.parameters
    p.catch_sigint_signal = False
    if listing:
        p.enumerate_all_solutions = True
        p.num_workers = 1
    for k, v in params.items():
        setattr(p, k, v)
    if listing and (p.num_workers != 1 or not p.enumerate_all_solutions):
        raise ValueError("a listing solver needs num_workers = 1 and enumerate_all_solutions")
    register_search(solver)
    return solver


def enumeration_solver(deterministic_time: float | None = None) -> cp_model.CpSolver:
    params = {} if deterministic_time is None else {"max_deterministic_time": deterministic_time}
    return new_solver(listing=True, **params)


class _Counter(cp_model.CpSolverSolutionCallback):
    def __init__(self, deadline: Deadline = NEVER):
        super().__init__()
        self.n = 0
        self.deadline = deadline
        self.stopped = False

    def on_solution_callback(self) -> None:
        self.n += 1
        if self.deadline and not self.n & 1023 and self.deadline.expired():
            self.stopped = True
            self.stop_search()


_DONE = object()
#: A stream whose search thread may be running: (stop event, solver, queue, thread).
Live = tuple[threading.Event, cp_model.CpSolver, queue.Queue[Any], threading.Thread]


class _Streamer(cp_model.CpSolverSolutionCallback):
    """Hands solutions to a consumer thread in chunks through a bounded queue; stops when told."""

    def __init__(self, xs: list[Any], q: queue.Queue[Any], stop: threading.Event, chunk: int = 512):
        super().__init__()
        self.xs = xs
        self.q = q
        self.stop = stop
        self.chunk = 1  # the first solution goes at once; chunks then double up to ``chunk``
        self.max_chunk = chunk
        self.buf: list[tuple[int, ...]] = []

    def on_solution_callback(self) -> None:
        if self.stop.is_set():
            self.stop_search()
            return
        self.buf.append(tuple(self.value(x) for x in self.xs))
        if len(self.buf) >= self.chunk:
            self.flush()
            self.chunk = min(self.max_chunk, 2 * self.chunk)

    def flush(self) -> None:
        buf, self.buf = self.buf, []
        while buf and not self.stop.is_set():
            try:
                self.q.put(buf, timeout=0.05)
                return
            except queue.Full:
                continue
        if self.stop.is_set():
            self.stop_search()


class CpSatEngine:
    name = "cpsat"
    capabilities: frozenset[str] = frozenset({EFFECTS})

    def supports(self, plan: DamagePlan, component: Sequence[int], deadline: Deadline | None = None) -> bool:
        return True

    def count(self, plan: DamagePlan, component: Sequence[int], deadline: Deadline | None = None) -> int:
        deadline = deadline or NEVER
        built = build_model(plan, component)
        solver = enumeration_solver()
        _limit(solver, deadline)
        cb = _Counter(deadline)
        status = solver.solve(built.model, cb)
        _expect_complete(solver, status, deadline if cb.stopped or deadline else None)
        return cb.n

    def iterate(
        self, plan: DamagePlan, component: Sequence[int], deadline: Deadline | None = None
    ) -> Iterator[tuple[int, ...]]:
        built = build_model(plan, component)
        yield from stream_solutions(built.model, built.x, deadline=deadline)

    def effects(
        self,
        plan: DamagePlan,
        component: Sequence[int],
        caps: Mapping[str, int],
        deathtouch: Sequence[bool],
        deadline: Deadline | None = None,
    ) -> Effects:
        """EFFECTS, the reference: by listing the component's assignments."""
        return listed_effects(plan, component, self, caps, deathtouch, deadline or NEVER)


_LIVE: set[Live] = set()  # (stop event, solver, queue, thread) of every stream whose search thread may be running


def _halt(live: Live) -> None:
    """Stop a stream's search (even one between solutions) and wait for its thread."""
    stop, solver, q, t = live
    stop.set()
    solver.stop_search()
    _drain(q)
    t.join()


@atexit.register
def _halt_live_streams() -> None:
    """A stream left unclosed at exit (a reader gone, a reference cycle) must not leave CP-SAT running in its
    thread while the interpreter shuts down: the process would abort ("terminate called without an active
    exception")."""
    for live in list(_LIVE):
        _halt(live)
        _LIVE.discard(live)


def _drain(q: queue.Queue[Any]) -> None:
    try:
        while True:
            q.get_nowait()
    except queue.Empty:
        pass


def _limit(solver: cp_model.CpSolver, deadline: Deadline) -> None:
    """Give the solver the time left before ``deadline`` (at least a millisecond)."""
    left = deadline.remaining()
    if left is not None:
        solver.parameters.max_time_in_seconds = max(left, 1e-3)


def _expect_complete(solver: cp_model.CpSolver, status: Any, deadline: Deadline | None = None) -> None:
    if status not in (cp_model.OPTIMAL, cp_model.INFEASIBLE):
        if deadline and status in (cp_model.FEASIBLE, cp_model.UNKNOWN):  # stopped at its time limit
            raise LimitReached(f"stopped at the time limit of {deadline.seconds:g} s", deadline.seconds)
        raise RuntimeError(f"CP-SAT enumeration did not complete: {solver.status_name(status)}")


def stream_solutions(
    model: cp_model.CpModel,
    xs: Sequence[Any],
    solver: cp_model.CpSolver | None = None,
    deadline: Deadline | None = None,
) -> Iterator[tuple[int, ...]]:
    """Every solution of ``model`` as a tuple of the values of ``xs``, streamed from a worker thread.

    ``solver`` defaults to :func:`enumeration_solver` (one worker, enumerate all). The model must have no
    objective (an objective makes CP-SAT stop after one solution). Closing the generator stops the search.
    ``deadline``: the search gets the time left; the solutions found before it are yielded, then
    :class:`~trample.limits.LimitReached` is raised if the search did not complete.
    """
    solver = solver or enumeration_solver()
    deadline = deadline or NEVER
    _limit(solver, deadline)
    if not xs:
        status = solver.solve(model)
        if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            yield ()
        elif status != cp_model.INFEASIBLE:
            _expect_complete(solver, status, deadline)
        return
    q: queue.Queue[Any] = queue.Queue(maxsize=8)
    stop = threading.Event()
    cb = _Streamer(list(xs), q, stop)
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["status"] = solver.solve(model, cb)
            cb.flush()
        except BaseException as err:  # handed to the consumer
            outcome["error"] = err
        finally:
            while True:
                try:
                    q.put(_DONE, timeout=0.05)
                    break
                except queue.Full:
                    if stop.is_set():
                        _drain(q)

    t = threading.Thread(target=run, name="trample-cpsat-stream", daemon=True)
    live = (stop, solver, q, t)
    _LIVE.add(live)
    t.start()
    try:
        while True:
            item = q.get()
            if item is _DONE:
                break
            yield from item
    finally:
        _halt(live)
        _LIVE.discard(live)
    if "error" in outcome:
        raise outcome["error"]
    _expect_complete(solver, outcome["status"], deadline)
