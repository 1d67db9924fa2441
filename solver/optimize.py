"""Optimal damage assignment: objectives, lexicographic optimisation on the CP-SAT model, ``trample solve``.

The objectives (FORMAT.md; the precise definitions are in docs/solve.md) are integer linear expressions over the
reference model of :func:`trample.engines.cpsat.build_model`, plus helper variables built here, each one a
*function* of the assignment (tied both ways), so that fixing an optimum and enumerating lists every optimal
assignment exactly once:

- ``max-damage``: damage assigned to every player in ``players``; ``max-damage:ID``: damage assigned to ``ID``.
- ``lethal``: players assigned at least their life (life <= 0 is reached with nothing), and a per-player report.
- ``max-kills``: creatures of the other side assigned lethal damage (702.19b, 702.2c: marked + assigned >=
  toughness, or one point from a deathtouch source), in combat and not indestructible.
- ``max-value``: the ``value`` of those creatures (blockers; attackers count 1) plus the ``value`` of
  planeswalkers in combat assigned at least their loyalty (702.19c). Values are exact decimals scaled to integers.
- ``min-overkill``: damage beyond what each recipient needed: a creature beyond its lethal need (beyond 1 when a
  deathtouch source assigns it damage and it needs any), a planeswalker beyond its loyalty, a battle beyond its
  defense, a player beyond its life.

Lexicographic optimisation: the objectives, in the order given, then the tie-break (among optimal assignments,
the lexicographically smallest vector of amounts over the plan's columns: sources in plan order, routes in route
order) form one list of *terms*. Consecutive terms are packed into one weighted objective as long as the
product of their ranges stays below 2**50 (exact lexicographic weights), each packed group is solved, and its
terms are fixed (``model.add(term == value)``, values read with ``solver.value``) before the next group.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from .models import Assignment, FormatError
from .rules import DamagePlan, lethal_need

OBJECTIVES = ("max-damage", "lethal", "max-kills", "max-value", "min-overkill")
SMALL_COLUMNS = 16  # models up to this many columns get LEAN_PARAMS (benchmarks/bench_solve.py measures it)
LEAN_PARAMS = {"linearization_level": 0, "symmetry_level": 0, "cp_model_probing_level": 0}
# A solve with the default settings that has not finished after ESCALATE_DET deterministic time units (typical
# solves take under 0.001) is run again with STRONG_PARAMS: the full LP relaxation proves at once the bounds that
# propagation alone cannot (eight tramplers on one wall: minutes with the defaults, milliseconds with them).
ESCALATE_DET = 0.05
STRONG_PARAMS = {"linearization_level": 2, "symmetry_level": 0, "cp_model_probing_level": 0}
PACK_LIMIT = 1 << 50  # largest product of term ranges packed into one weighted objective
VALUE_LIMIT = 1 << 40  # largest scaled |value| sum accepted for max-value

STATUS_OPTIMAL, STATUS_FEASIBLE, STATUS_INFEASIBLE, STATUS_UNKNOWN = "optimal", "feasible", "infeasible", "unknown"


# ---------------------------------------------------------------------------------------------
# Objectives
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Objective:
    name: str  # as written: "max-damage", "max-damage:opp", ...
    kind: str  # one of OBJECTIVES
    target: str | None = None

    @property
    def maximize(self) -> bool:
        return self.kind != "min-overkill"


def parse_objectives(spec, scenario=None) -> tuple[Objective, ...]:
    """``"lethal,max-value"`` or ``["lethal", "max-value"]`` -> objectives; :class:`FormatError` if unknown."""
    if isinstance(spec, Objective):
        spec = [spec]
    if isinstance(spec, str):
        items = [part.strip() for part in spec.split(",")]
        if spec.strip() == "":
            raise FormatError("objective", f"expected at least one of {_expected()}")
    else:
        items = list(spec)
    out: list[Objective] = []
    for item in items:
        if isinstance(item, Objective):
            obj = item
        else:
            if not isinstance(item, str) or not item:
                raise FormatError("objective", f"empty objective name (expected {_expected()})")
            kind, sep, target = item.partition(":")
            if kind not in OBJECTIVES:
                raise FormatError("objective", f'unknown objective "{item}" (expected {_expected()})')
            if sep and kind != "max-damage":
                raise FormatError("objective", f'"{kind}" takes no ":ID" (only max-damage:ID does)')
            if sep and not target:
                raise FormatError("objective", 'max-damage: expected an id after ":"')
            obj = Objective(item, kind, target or None)
        if obj.target is not None and scenario is not None and obj.target not in scenario:
            raise FormatError("objective", f'{obj.name}: unknown id "{obj.target}"')
        if any(o.name == obj.name for o in out):
            raise FormatError("objective", f"{obj.name} is listed twice")
        out.append(obj)
    return tuple(out)


def _expected() -> str:
    return "max-damage, max-damage:ID, lethal, max-kills, max-value, min-overkill"


def _exact(value) -> Fraction:
    """The decimal the JSON wrote (0.1 -> 1/10), not the binary float's expansion."""
    if isinstance(value, int):
        return Fraction(value)
    return Fraction(repr(float(value)))


def _number(q: Fraction):
    return int(q) if q.denominator == 1 else float(q)


class _Definitions:
    """What every objective counts, read from the plan once (shared by the model and the direct evaluator)."""

    def __init__(self, plan: DamagePlan):
        s = plan.scenario
        self.plan = plan
        self.scenario = s
        self.players = [p.id for p in s.players]
        sides = {"attacking": ("blocker",), "defending": ("attacker",), "both": ("blocker", "attacker")}[plan.side]
        creatures = []
        if "blocker" in sides:
            creatures += list(s.blockers)
        if "attacker" in sides:
            creatures += list(s.attackers)
        # 702.19b / 702.2c: killable creatures of the other side (in combat, not indestructible)
        self.kill_set = [c.id for c in creatures if c.in_combat and not c.indestructible]
        self.walkers = [p.id for p in s.planeswalkers if p.in_combat]
        self.deathtouch = {i for i, src in enumerate(plan.sources) if src.assigns and s[src.source].deathtouch}
        self.incoming: dict[str, list[int]] = {}  # recipient -> column indices
        for k, (i, r) in enumerate(plan.columns):
            self.incoming.setdefault(r, []).append(k)
        self._value_scale: int | None = None

    def need(self, creature_id: str) -> int:
        """702.19b: damage still needed for lethal (trample.rules, for blockers and attackers alike)."""
        return lethal_need(self.scenario[creature_id])

    def threshold(self, recipient: str) -> int:
        """What a non-creature recipient takes before further damage is overkill."""
        kind = self.scenario.kind(recipient)
        obj = self.scenario[recipient]
        if kind == "player":
            return max(0, obj.life)
        if kind == "planeswalker":
            return obj.loyalty
        if kind == "battle":
            return obj.defense
        return self.need(recipient)

    def value_of(self, object_id: str) -> Fraction:
        obj = self.scenario[object_id]
        return _exact(getattr(obj, "value", 1))

    @property
    def value_scale(self) -> int:
        """The least common denominator of every value that max-value may count."""
        if self._value_scale is None:
            ids = self.kill_set + self.walkers
            scale = 1
            for i in ids:
                scale = math.lcm(scale, self.value_of(i).denominator)
            total = sum(abs(self.value_of(i)) for i in ids) * scale
            if total > VALUE_LIMIT:
                raise FormatError(
                    "value", f"the values need too many digits to be optimised exactly (scaled total {total} > 2**40)"
                )
            self._value_scale = scale
        return self._value_scale

    # -- the direct evaluation (no solver): used for forced boards and by score() ---------------
    def evaluate(self, obj: Objective, vec: Sequence[int]):
        plan = self.plan
        cols = plan.columns

        def total(r):
            return sum(vec[k] for k in self.incoming.get(r, ()))

        def touched(r):
            return any(vec[k] > 0 and cols[k][0] in self.deathtouch for k in self.incoming.get(r, ()))

        def killed(c):
            return total(c) >= self.need(c) or touched(c)

        if obj.kind == "max-damage":
            return total(obj.target) if obj.target else sum(total(p) for p in self.players)
        if obj.kind == "lethal":
            return sum(1 for p in self.players if total(p) >= self.scenario[p].life)
        if obj.kind == "max-kills":
            return sum(1 for c in self.kill_set if killed(c))
        if obj.kind == "max-value":
            q = sum((self.value_of(c) for c in self.kill_set if killed(c)), Fraction(0))
            q += sum((self.value_of(p) for p in self.walkers if total(p) >= self.scenario[p].loyalty), Fraction(0))
            return _number(q)
        if obj.kind == "min-overkill":
            out = 0
            for r in self.incoming:
                t = self.threshold(r)
                if self.scenario.kind(r) in ("blocker", "attacker") and t > 0 and touched(r):
                    t = 1
                out += max(0, total(r) - t)
            return out
        raise ValueError(obj.kind)


# ---------------------------------------------------------------------------------------------
# Linear terms over the CP-SAT model, with exact bounds
# ---------------------------------------------------------------------------------------------


class _Lin:
    """sum(coeff * var) + const, with the variables' bounds kept for exact interval arithmetic."""

    __slots__ = ("terms", "const")

    def __init__(self, const: int = 0):
        self.terms: dict[int, list] = {}  # var index -> [var, coeff, lo, hi]
        self.const = const

    @classmethod
    def of(cls, var, lo: int, hi: int, coeff: int = 1) -> _Lin:
        out = cls()
        out.terms[var.index] = [var, coeff, lo, hi]
        return out

    def add(self, other: _Lin, k: int = 1) -> _Lin:
        """self += k * other; ``terms`` never keeps a zero coefficient, so ``not terms`` means constant."""
        self.const += k * other.const
        for idx, (var, c, lo, hi) in other.terms.items():
            if idx in self.terms:
                self.terms[idx][1] += k * c
                if self.terms[idx][1] == 0:
                    del self.terms[idx]
            elif k * c:
                self.terms[idx] = [var, k * c, lo, hi]
        return self

    def bounds(self) -> tuple[int, int]:
        lo = hi = self.const
        for _, c, vlo, vhi in self.terms.values():
            a, b = c * vlo, c * vhi
            lo += min(a, b)
            hi += max(a, b)
        return lo, hi

    def expr(self):
        from ortools.sat.python import cp_model

        items = [(v, c) for v, c, _, _ in self.terms.values() if c]
        if not items:
            return cp_model.LinearExpr.constant(self.const)
        return cp_model.LinearExpr.weighted_sum([v for v, _ in items], [c for _, c in items]) + self.const


class _ObjectiveModel:
    """The CP-SAT reference model of the whole plan plus the helper variables the objectives need."""

    def __init__(self, plan: DamagePlan, defs: _Definitions):
        from .engines.cpsat import LeanCpModel, build_model

        self.plan = plan
        self.defs = defs
        self.built = build_model(plan, model=LeanCpModel())
        self.m = self.built.model
        self.cols = plan.columns
        assert tuple(self.built.columns) == tuple(self.cols)
        self.hi = [plan.sources[i].max_damage for i, _ in self.cols]
        self._cache: dict = {}

    # -- building blocks ------------------------------------------------------------------------
    def total(self, r: str) -> _Lin:
        out = _Lin()
        for k in self.defs.incoming.get(r, ()):
            out.add(_Lin.of(self.built.x[k], 0, self.hi[k]))
        return out

    def _bool_iff_at_least(self, lin: _Lin, need: int, name: str) -> _Lin:
        """A boolean equal to ``lin >= need`` (or a constant when the bounds decide it)."""
        lo, hi = lin.bounds()
        if lo >= need:
            return _Lin(1)
        if hi < need:
            return _Lin(0)
        b = self.m.new_bool_var(name)
        e = lin.expr()
        self.m.add(e >= need).only_enforce_if(b)
        self.m.add(e <= need - 1).only_enforce_if(~b)
        return _Lin.of(b, 0, 1)

    def touched(self, c: str) -> _Lin:
        """1 when some deathtouch source assigns ``c`` at least 1 (702.2c)."""
        key = ("touched", c)
        if key not in self._cache:
            dt = _Lin()
            for k in self.defs.incoming.get(c, ()):
                if self.cols[k][0] in self.defs.deathtouch:
                    dt.add(_Lin.of(self.built.x[k], 0, self.hi[k]))
            self._cache[key] = self._bool_iff_at_least(dt, 1, f"touched[{c}]")
        return self._cache[key]

    def killed(self, c: str) -> _Lin:
        """1 when creature ``c`` has been assigned lethal damage (702.19b, 702.2c)."""
        key = ("killed", c)
        if key in self._cache:
            return self._cache[key]
        need = self.defs.need(c)
        reused = self.built.lethal.get(c)
        if need == 0:
            out = _Lin(1)
        elif reused is not None and reused is not True:
            out = _Lin.of(reused, 0, 1)  # the reference model's own lethal boolean: same definition
        else:
            enough = self._bool_iff_at_least(self.total(c), need, f"enough[{c}]")
            touched = self.touched(c)
            parts = [p for p in (enough, touched) if p.terms or p.const]
            if any(not p.terms for p in parts):  # a constant 1
                out = _Lin(1)
            elif not parts:
                out = _Lin(0)
            elif len(parts) == 1:
                out = parts[0]
            else:
                b = self.m.new_bool_var(f"killed[{c}]")
                self.m.add_max_equality(b, [p.expr() for p in parts])
                out = _Lin.of(b, 0, 1)
        self._cache[key] = out
        return out

    def loyal(self, p: str) -> _Lin:
        """1 when planeswalker ``p`` has been assigned at least its loyalty (702.19c)."""
        key = ("loyal", p)
        if key not in self._cache:
            reused = self.built.loyal.get(p)
            if reused is True:
                out = _Lin(1)
            elif reused is not None:
                out = _Lin.of(reused, 0, 1)
            else:
                out = self._bool_iff_at_least(self.total(p), self.defs.scenario[p].loyalty, f"loyal[{p}]")
            self._cache[key] = out
        return self._cache[key]

    def reached(self, p: str) -> _Lin:
        key = ("reached", p)
        if key not in self._cache:
            self._cache[key] = self._bool_iff_at_least(self.total(p), self.defs.scenario[p].life, f"reached[{p}]")
        return self._cache[key]

    def overkill(self, r: str) -> _Lin:
        total = self.total(r)
        _, hi = total.bounds()
        t = self.defs.threshold(r)
        if t == 0:
            return total
        touched = _Lin(0)
        if self.defs.scenario.kind(r) in ("blocker", "attacker") and t > 1:
            touched = self.touched(r)  # deathtouch: anything beyond 1 point is overkill
        if hi <= (1 if touched.terms or touched.const else t):
            return _Lin(0)
        excess = _Lin().add(total)
        excess.const -= t
        excess.add(touched, t - 1)
        o = self.m.new_int_var(0, hi, f"overkill[{r}]")
        self.m.add_max_equality(o, [0, excess.expr()])
        return _Lin.of(o, 0, hi)

    # -- the objectives -------------------------------------------------------------------------
    def objective(self, obj: Objective) -> _Lin:
        d = self.defs
        out = _Lin()
        if obj.kind == "max-damage":
            for r in [obj.target] if obj.target else d.players:
                out.add(self.total(r))
        elif obj.kind == "lethal":
            for p in d.players:
                out.add(self.reached(p))
        elif obj.kind == "max-kills":
            for c in d.kill_set:
                out.add(self.killed(c))
        elif obj.kind == "max-value":
            scale = d.value_scale
            for c in d.kill_set:
                out.add(self.killed(c), int(d.value_of(c) * scale))
            for p in d.walkers:
                out.add(self.loyal(p), int(d.value_of(p) * scale))
        elif obj.kind == "min-overkill":
            for r in d.incoming:
                out.add(self.overkill(r))
        else:
            raise ValueError(obj.kind)
        return out


# ---------------------------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------------------------


@dataclass
class SolveResult:
    status: str  # optimal | feasible | infeasible | unknown
    assignment: Assignment | None
    objectives: dict  # name -> int (or a number for max-value with fractional values)
    lethal: dict | None = None  # player -> report, when "lethal" was asked for
    time_ms: float = 0.0
    solves: int = 0  # CP-SAT calls made (0: the assignment was forced)

    @property
    def optimal(self) -> bool:
        return self.status == STATUS_OPTIMAL

    def to_json(self) -> dict:
        out = {
            "status": self.status,
            "assignment": None if self.assignment is None else self.assignment.to_json(),
            "objectives": dict(self.objectives),
        }
        if self.lethal is not None:
            out["lethal"] = self.lethal
        out["time_ms"] = round(self.time_ms, 3)
        return out


@dataclass
class _Budget:
    time_limit: float | None
    deterministic_time: float | None
    start: float = field(default_factory=time.perf_counter)
    used_det: float = 0.0

    def remaining(self) -> tuple[float | None, float | None]:
        wall = None if self.time_limit is None else self.time_limit - (time.perf_counter() - self.start)
        det = None if self.deterministic_time is None else self.deterministic_time - self.used_det
        return wall, det

    def exhausted(self) -> bool:
        wall, det = self.remaining()
        return (wall is not None and wall <= 0) or (det is not None and det <= 0)


class _Runner:
    """Solves on one model repeatedly, within one budget, keeping the last solution."""

    def __init__(
        self,
        om: _ObjectiveModel,
        budget: _Budget,
        workers: int,
        presolve: bool,
        hints: bool,
        params: Mapping | None = None,
    ):
        from ortools.sat.python import cp_model

        self.cp = cp_model
        self.om = om
        self.budget = budget
        self.hints = hints
        self.solver = cp_model.CpSolver()
        p = self.solver.parameters
        p.num_workers = workers
        p.cp_model_presolve = presolve
        self.escalate = params is None  # the default settings: escalate to STRONG_PARAMS when a solve drags
        if params is None:
            params = LEAN_PARAMS if len(om.cols) <= SMALL_COLUMNS else {}
        for k, v in params.items():
            setattr(p, k, v)
        self.solves = 0
        self.vec: list[int] | None = None  # the last solution found (the x columns)
        self._solution: list[int] = []  # every variable's value in it, by variable index
        self.watch: list[_Lin] = []  # expressions read with every solution found
        self.watched: list[int] = []  # their values in self.vec

    def run(self):
        """One solve of the model as it stands: 'optimal', 'feasible', 'infeasible' or 'unknown'."""
        if self.budget.exhausted():
            return STATUS_UNKNOWN
        cp = self.cp
        status = self._solve(ESCALATE_DET if self.escalate else None)
        found = self._read(status)
        if (
            self.escalate
            and status not in (cp.OPTIMAL, cp.INFEASIBLE, cp.MODEL_INVALID)
            and not self.budget.exhausted()
        ):
            self.escalate = False  # this model is hard: the strong settings from now on
            for k, v in STRONG_PARAMS.items():
                setattr(self.solver.parameters, k, v)
            again = self._solve(None)
            if again != cp.UNKNOWN or found is None:  # else: keep the first solve's solution
                status, found = again, self._read(again)
        if status == cp.MODEL_INVALID:
            raise RuntimeError(f"CP-SAT rejected the objective model: {self.solver.solution_info}")
        if status == cp.INFEASIBLE:
            return STATUS_INFEASIBLE
        if found is None:
            return STATUS_UNKNOWN
        self.vec, self._solution = found
        self.watched = [self.value(lin) for lin in self.watch]
        if self.hints:
            m = self.om.m
            m.clear_hints()
            for x, v in zip(self.om.built.x, self.vec):
                m.add_hint(x, v)
        return STATUS_OPTIMAL if status == cp.OPTIMAL else STATUS_FEASIBLE

    def _read(self, status):
        """(the x values, every variable's value) of the solution the last solve found, or None."""
        if status not in (self.cp.OPTIMAL, self.cp.FEASIBLE):
            return None
        solution = list(self.solver.response_proto.solution)
        return [solution[x.index] for x in self.om.built.x], solution

    def _solve(self, cap: float | None):
        """One CP-SAT solve within the budget (and within ``cap`` deterministic time units, if given)."""
        wall, det = self.budget.remaining()
        p = self.solver.parameters
        if wall is not None:
            p.max_time_in_seconds = wall
        if cap is not None and (det is None or cap < det):
            det = cap
        p.max_deterministic_time = det if det is not None else float("inf")
        status = self.solver.solve(self.om.m)
        self.solves += 1
        self.budget.used_det += self.solver.deterministic_time
        return status

    def value(self, lin: _Lin) -> int:
        """The value of ``lin`` in the solution kept by the last :meth:`run` that found one (exact integers)."""
        sol = self._solution
        return lin.const + sum(c * sol[i] for i, (_, c, _, _) in lin.terms.items())


@dataclass
class _Term:
    lin: _Lin
    maximize: bool
    is_objective: bool

    def range(self) -> int:
        lo, hi = self.lin.bounds()
        return hi - lo


def _pack(terms: Sequence[_Term], limit: int | None = None) -> list[list[_Term]]:
    """Consecutive terms grouped so that the product of (range + 1) in each group stays <= limit."""
    limit = PACK_LIMIT if limit is None else limit
    groups: list[list[_Term]] = []
    prod = limit + 1
    for t in terms:
        size = t.range() + 1
        if groups and prod * size <= limit:
            groups[-1].append(t)
            prod *= size
        else:
            groups.append([t])
            prod = size
    return groups


def _weighted(group: Sequence[_Term]) -> _Lin:
    """One objective to *minimise* whose optimum is the lexicographic optimum of the group (exact weights)."""
    out = _Lin()
    w = 1
    for t in reversed(group):
        out.add(t.lin, -w if t.maximize else w)
        w *= t.range() + 1
    return out


def _lex_optimise(runner: _Runner, terms: Sequence[_Term]) -> tuple[str, bool]:
    """Optimise the terms lexicographically; returns (status of the last solve, every objective term proven)."""
    m = runner.om.m
    status = STATUS_UNKNOWN if runner.vec is None else STATUS_OPTIMAL
    groups = _pack(terms)
    for n, group in enumerate(groups):
        if all(not t.lin.terms for t in group):
            continue  # constants: nothing to choose
        m.minimize(_weighted(group).expr())
        status = runner.run()
        if status == STATUS_INFEASIBLE:
            return status, False
        if status != STATUS_OPTIMAL:  # a limit: the objectives are proven only if none was left to optimise
            m.clear_objective()
            return status, not any(t.is_objective and t.lin.terms for g in groups[n:] for t in g)
        for t in group:
            if t.lin.terms:
                m.add(t.lin.expr() == runner.value(t.lin))
    m.clear_objective()
    proven = True
    if runner.vec is None:  # every term was a constant: any legal assignment will do, and is optimal
        status = runner.run()
        if status == STATUS_FEASIBLE:  # a solution of a model without objective: nothing left to prove
            status = STATUS_OPTIMAL
        proven = status == STATUS_OPTIMAL
    return status, proven


def _assignment(plan: DamagePlan, vec: Sequence[int]) -> Assignment:
    out = {s.source: {} for s in plan.sources}
    for (i, r), amount in zip(plan.columns, vec):
        if amount:
            out[plan.sources[i].source][r] = amount
    return Assignment(out)


def _forced(plan: DamagePlan) -> list[int] | None:
    """The only assignment, when no active source has a choice (no solver needed)."""
    if any(len(plan.sources[i].all_routes) != 1 or plan.sources[i].unblocked for i in plan.active):
        return None
    return [plan.sources[i].damage for i, _ in plan.columns]


def _combat_of(combat):
    from .combat import Combat

    if isinstance(combat, Combat):
        return combat
    return Combat(combat)


# ---------------------------------------------------------------------------------------------
# The API
# ---------------------------------------------------------------------------------------------


def solve(
    combat,
    objectives,
    *,
    time_limit: float | None = None,
    deterministic_time: float | None = None,
    workers: int = 1,
    presolve: bool = False,
    tie_break: bool = True,
    hints: bool = False,
    params: Mapping | None = None,
) -> SolveResult:
    """The best legal assignment for ``objectives`` (lexicographic, in the order given).

    ``combat``: a :class:`trample.Combat` (or anything ``Combat()`` accepts). ``objectives``: ``"lethal,max-value"``
    or a list of names. ``time_limit``: wall-clock seconds for the whole solve (the best assignment found is
    returned with status ``feasible``); ``deterministic_time``: the same in CP-SAT's deterministic time units,
    reproducible. ``tie_break=False`` skips the canonical tie-break (any optimal assignment is returned).
    CP-SAT settings: ``workers`` (default 1: reproducible, and fastest on small models), ``presolve`` (default
    off: faster on every board size measured), ``hints`` (hint each solve with the previous solution),
    ``params`` (extra CpSolver parameters; default: LEAN_PARAMS on models of <= SMALL_COLUMNS columns, escalating
    to STRONG_PARAMS when a solve takes more than ESCALATE_DET deterministic time units).
    """
    result, _ = _optimise(
        combat,
        objectives,
        time_limit,
        deterministic_time,
        tie_break,
        dict(workers=workers, presolve=presolve, hints=hints, params=params),
    )
    return result


def _optimise(combat, objectives, time_limit, deterministic_time, tie_break: bool, settings: dict):
    """(SolveResult, the objective model with the optimum fixed, or None when no solver was needed)."""
    combat = _combat_of(combat)
    plan = combat.plan
    objs = parse_objectives(objectives, combat.scenario)
    defs = _Definitions(plan)
    if any(o.kind == "max-value" for o in objs):
        defs.value_scale  # bad values are bad input, before any solving
    wants_lethal = any(o.kind == "lethal" for o in objs)
    forced = _forced(plan)
    if forced is None:
        from .engines import cpsat  # noqa: F401  (import ortools before the clock starts)
    budget = _Budget(time_limit, deterministic_time)

    def elapsed() -> float:
        return (time.perf_counter() - budget.start) * 1000

    if forced is not None:
        values = {o.name: defs.evaluate(o, forced) for o in objs}
        lethal = None
        if wants_lethal:
            lethal = _lethal_report(
                defs, forced, {p: defs.evaluate(Objective(p, "max-damage", p), forced) for p in defs.players}
            )
        return SolveResult(STATUS_OPTIMAL, _assignment(plan, forced), values, lethal, elapsed(), 0), None

    om = _ObjectiveModel(plan, defs)
    runner = _Runner(om, budget, settings["workers"], settings["presolve"], settings["hints"], settings["params"])
    lins = [om.objective(o) for o in objs]
    runner.watch = lins

    best_to: dict[str, int] = {}
    probes_proven = True
    if wants_lethal:
        for p in defs.players:  # the most this step can assign to each player, alone
            total = om.total(p)
            if not total.terms:
                best_to[p] = total.const
                continue
            om.m.maximize(total.expr())
            st = runner.run()
            if st in (STATUS_OPTIMAL, STATUS_FEASIBLE):
                best_to[p] = runner.value(total)
            probes_proven &= st == STATUS_OPTIMAL
        om.m.clear_objective()

    terms = [_Term(lin, o.maximize, True) for o, lin in zip(objs, lins)]
    if tie_break:
        terms += _tie_break_terms(om)
    status, proven = _lex_optimise(runner, terms)
    if runner.vec is None:
        st = STATUS_INFEASIBLE if status == STATUS_INFEASIBLE else STATUS_UNKNOWN
        return SolveResult(st, None, {}, None, elapsed(), runner.solves), None
    values = {}
    for o, lin, raw in zip(objs, lins, runner.watched):  # read with solver.value after the solve that found vec
        values[o.name] = _number(Fraction(raw, defs.value_scale)) if o.kind == "max-value" else raw
    for lin, raw in zip(lins, runner.watched):  # fix what was found (already fixed when proven)
        if lin.terms and not proven:
            om.m.add(lin.expr() == raw)
    final = STATUS_OPTIMAL if proven and probes_proven else STATUS_FEASIBLE
    lethal = _lethal_report(defs, runner.vec, best_to) if wants_lethal else None
    return SolveResult(final, _assignment(plan, runner.vec), values, lethal, elapsed(), runner.solves), om


def _tie_break_terms(om: _ObjectiveModel) -> list[_Term]:
    """Minimise each column in plan order, except each source's last (fixed by 510.1a, given the others, whichever
    way the source assigns)."""
    out = []
    plan = om.plan
    for k, (i, r) in enumerate(om.cols):
        if r == plan.sources[i].all_routes[-1].recipient:
            continue
        out.append(_Term(_Lin.of(om.built.x[k], 0, om.hi[k]), False, False))
    return out


def _lethal_report(defs: _Definitions, vec, best_to: Mapping[str, int]) -> dict:
    out = {}
    for p in defs.players:
        life = defs.scenario[p].life
        dealt = sum(vec[k] for k in defs.incoming.get(p, ()))
        best = best_to.get(p, dealt)
        out[p] = {
            "life": life,
            "damage": dealt,
            "margin": dealt - life,
            "reached": dealt >= life,
            "max_damage": best,
            "reachable": best >= life,
        }
    return out


class AllOptimal(Iterator[Assignment]):
    """Every optimal assignment, each exactly once, streamed (CP-SAT enumeration with one worker).

    ``.result`` is the :class:`SolveResult` of the optimisation (status, objective values, one of the optimal
    assignments); when its status is ``feasible`` (a limit stopped the proof), the stream lists the assignments
    that reach the best values found. The order is CP-SAT's, not the canonical one.

    ``time_limit`` (wall-clock seconds) covers the optimisation and the stream: the assignments found before it
    runs out are yielded, then :class:`trample.limits.LimitReached` is raised (``.complete`` is then False).
    """

    def __init__(
        self,
        combat,
        objectives,
        *,
        time_limit=None,
        deterministic_time=None,
        workers: int = 1,
        presolve: bool = False,
        limit: int | None = None,
        params: Mapping | None = None,
    ):
        from .limits import deadline_of

        self._deadline = deadline_of(time_limit)
        self.complete = True
        combat = _combat_of(combat)
        self.plan = combat.plan
        self.limit = limit
        self.result, self._model = _optimise(
            combat,
            objectives,
            time_limit,
            deterministic_time,
            False,
            dict(workers=workers, presolve=presolve, hints=False, params=params),
        )
        self._stream = None
        if self._model is None:
            self._stream = iter([self.result.assignment] if self.result.assignment is not None else [])
        else:
            self._model.m.clear_objective()
            self._model.m.clear_hints()
        self._count = 0

    @property
    def status(self) -> str:
        return self.result.status

    @property
    def objectives(self) -> dict:
        return self.result.objectives

    def __iter__(self):
        return self

    def __next__(self) -> Assignment:
        if self.limit is not None and self._count >= self.limit:
            self.close()
            raise StopIteration
        if self._stream is None:
            self._stream = self._enumerate()
        a = next(self._stream)
        self._count += 1
        return a

    def _enumerate(self) -> Iterator[Assignment]:
        from .engines.cpsat import enumeration_solver, stream_solutions
        from .limits import LimitReached

        om = self._model
        try:
            for vec in stream_solutions(om.m, om.built.x, enumeration_solver(), deadline=self._deadline):
                yield _assignment(self.plan, vec)
        except LimitReached:
            self.complete = False
            raise

    def close(self) -> None:
        if self._stream is not None and hasattr(self._stream, "close"):
            self._stream.close()


def all_optimal(combat, objectives, **options) -> AllOptimal:
    """A stream of every optimal assignment (see :class:`AllOptimal`); ``.result`` holds status and values."""
    return AllOptimal(combat, objectives, **options)


def score(combat, assignment, objectives) -> dict:
    """The objectives' values for one given (legal) assignment, evaluated directly, without a solver."""
    combat = _combat_of(combat)
    plan = combat.plan
    objs = parse_objectives(objectives, combat.scenario)
    defs = _Definitions(plan)
    if not isinstance(assignment, Assignment):
        from .models import load_assignment

        assignment = load_assignment(assignment, combat.scenario)
    vec = [assignment.amount(plan.sources[i].source, r) for i, r in plan.columns]
    return {o.name: defs.evaluate(o, vec) for o in objs}
