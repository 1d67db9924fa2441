"""The objectives on the CP-SAT model: linear terms with exact bounds over the reference model of
:func:`trample.engines.cpsat.build_model`, their helper variables, and the runner that solves it within a budget
(escalating to STRONG_PARAMS)."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..limits import CommandLimit, Deadline
from ..models import ObjectiveKind, ObjectKind
from ..rules import DamagePlan
from .objectives import Definitions, Objective
from .results import STATUS_FEASIBLE, STATUS_INFEASIBLE, STATUS_OPTIMAL, STATUS_UNKNOWN

SMALL_COLUMNS = 16  # models up to this many columns get LEAN_PARAMS (benchmarks/bench_solve.py measures it)


LEAN_PARAMS = {"linearization_level": 0, "symmetry_level": 0, "cp_model_probing_level": 0}


# The models of boards with effects (optimize.effects, optimize.bands) on LEAN_PARAMS with core-based optimisation:
# their packed objectives (a kill or overkill bound that propagation alone proves slowly: a doubling attacker's
# overkill, 33 ms -> 8 ms; the interacting banding board, 7 -> 3 ms) are proven from below. Only with the tie-break
# (any optimum is then the one smallest vector, so the answer cannot depend on the settings), and only where the
# solved player maximises (where the other player divides all their damage the worst line is minimised: slower).
CORE_PARAMS = {**LEAN_PARAMS, "optimize_with_core": True}


# A solve with the default settings that has not finished after ESCALATE_DET deterministic time units (typical
# solves take under 0.001) is run again with STRONG_PARAMS: the full LP relaxation proves at once the bounds that
# propagation alone cannot (eight tramplers on one wall: minutes with the defaults, milliseconds with them). At
# 0.05 a dragging min-overkill regular step (six double-striking tramplers over planeswalkers, as though unblocked:
# 18 columns) spent 0.2-0.25 s of CPU before escalating, then was proven in 0.01 s; at 0.01 it escalates after
# 0.05 s. Of the 2 756 one-step solves of benchmarks/bench_whole_search.py's 6-attacker rows the same 4 escalate at
# 0.01 as at 0.05 (at 0.003, 31: 24-column max-damage probes, 0.04 s -> 0.11 s), and none of 70 random boards of
# 4-20 attackers (benchmarks/bench_solve.py's generator) escalates even at 0.003.
ESCALATE_DET = 0.01


STRONG_PARAMS = {"linearization_level": 2, "symmetry_level": 0, "cp_model_probing_level": 0}


class Lin:
    """sum(coeff * var) + const, with the variables' bounds kept for exact interval arithmetic."""

    __slots__ = ("terms", "const")

    def __init__(self, const: int = 0):
        self.terms: dict[int, list] = {}  # var index -> [var, coeff, lo, hi]
        self.const = const

    @classmethod
    def of(cls, var, lo: int, hi: int, coeff: int = 1) -> Lin:
        out = cls()
        out.terms[var.index] = [var, coeff, lo, hi]
        return out

    def add(self, other: Lin, k: int = 1) -> Lin:
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
        if self.const == 0 and len(self.terms) == 1:  # one variable: itself (no sum built)
            ((var, c, _, _),) = self.terms.values()
            if c == 1:
                return var
        from ..engines.cpsat import cp_model

        items = [(v, c) for v, c, _, _ in self.terms.values() if c]
        if not items:
            return cp_model.LinearExpr.constant(self.const)
        return cp_model.LinearExpr.weighted_sum([v for v, _ in items], [c for _, c in items]) + self.const


class ObjectiveModel:
    """The CP-SAT reference model of the whole plan plus the helper variables the objectives need."""

    def __init__(self, plan: DamagePlan, defs: Definitions):
        from ..engines.cpsat import LeanCpModel, build_model

        self.plan = plan
        self.defs = defs
        self.built = build_model(plan, model=LeanCpModel())
        self.m = self.built.model
        self.cols = plan.columns
        assert tuple(self.built.columns) == tuple(self.cols)
        self.hi = [plan.sources[i].max_damage for i, _ in self.cols]
        self._cache: dict = {}
        self.memo: dict = {}  # optimize.effects: its helper variables by what they equal

    # -- building blocks ------------------------------------------------------------------------
    def total(self, r: str) -> Lin:
        out = Lin()
        for k in self.defs.incoming.get(r, ()):
            out.add(Lin.of(self.built.x[k], 0, self.hi[k]))
        return out

    def _bool_iff_at_least(self, lin: Lin, need: int, name: str) -> Lin:
        """A boolean equal to ``lin >= need`` (or a constant when the bounds decide it)."""
        lo, hi = lin.bounds()
        if lo >= need:
            return Lin(1)
        if hi < need:
            return Lin(0)
        b = self.m.new_bool_var(name)
        e = lin.expr()
        self.m.add(e >= need).only_enforce_if(b)
        self.m.add(e <= need - 1).only_enforce_if(~b)
        return Lin.of(b, 0, 1)

    def touched(self, c: str) -> Lin:
        """1 when some deathtouch source assigns ``c`` at least 1 (702.2c)."""
        key = ("touched", c)
        if key not in self._cache:
            dt = Lin()
            for k in self.defs.incoming.get(c, ()):
                if self.cols[k][0] in self.defs.deathtouch:
                    dt.add(Lin.of(self.built.x[k], 0, self.hi[k]))
            self._cache[key] = self._bool_iff_at_least(dt, 1, f"touched[{c}]")
        return self._cache[key]

    def killed(self, c: str) -> Lin:
        """1 when creature ``c`` has been assigned lethal damage (702.19b, 702.2c)."""
        key = ("killed", c)
        if key in self._cache:
            return self._cache[key]
        need = self.defs.need(c)
        reused = self.built.lethal.get(c)
        if need == 0:
            out = Lin(1)
        elif reused is not None and reused is not True:
            out = Lin.of(reused, 0, 1)  # the reference model's own lethal boolean: same definition
        else:
            enough = self._bool_iff_at_least(self.total(c), need, f"enough[{c}]")
            touched = self.touched(c)
            parts = [p for p in (enough, touched) if p.terms or p.const]
            if any(not p.terms for p in parts):  # a constant 1
                out = Lin(1)
            elif not parts:
                out = Lin(0)
            elif len(parts) == 1:
                out = parts[0]
            else:
                b = self.m.new_bool_var(f"killed[{c}]")
                self.m.add_max_equality(b, [p.expr() for p in parts])
                out = Lin.of(b, 0, 1)
        self._cache[key] = out
        return out

    def loyal(self, p: str) -> Lin:
        """1 when planeswalker ``p`` has been assigned at least its loyalty (702.19c)."""
        key = ("loyal", p)
        if key not in self._cache:
            reused = self.built.loyal.get(p)
            if reused is True:
                out = Lin(1)
            elif reused is not None:
                out = Lin.of(reused, 0, 1)
            else:
                out = self._bool_iff_at_least(self.total(p), self.defs.loyalty(p), f"loyal[{p}]")
            self._cache[key] = out
        return self._cache[key]

    def reached(self, p: str) -> Lin:
        key = ("reached", p)
        if key not in self._cache:
            self._cache[key] = self._bool_iff_at_least(self.total(p), self.defs.life(p), f"reached[{p}]")
        return self._cache[key]

    def overkill(self, r: str) -> Lin:
        total = self.total(r)
        _, hi = total.bounds()
        t = self.defs.threshold(r)
        if t == 0:
            return total
        touched = Lin(0)
        if self.defs.scenario.kind(r) in (ObjectKind.BLOCKER, ObjectKind.ATTACKER) and t > 1:
            touched = self.touched(r)  # deathtouch: anything beyond 1 point is overkill
        if hi <= (1 if touched.terms or touched.const else t):
            return Lin(0)
        excess = Lin().add(total)
        excess.const -= t
        excess.add(touched, t - 1)
        o = self.m.new_int_var(0, hi, f"overkill[{r}]")
        self.m.add_max_equality(o, [0, excess.expr()])
        return Lin.of(o, 0, hi)

    # -- the objectives -------------------------------------------------------------------------
    def objective(self, obj: Objective) -> Lin:
        d = self.defs
        out = Lin()
        if obj.kind == ObjectiveKind.MAX_DAMAGE:
            for r in [obj.target] if obj.target else d.players:
                out.add(self.total(r))
        elif obj.kind == ObjectiveKind.LETHAL:
            for p in d.players:
                out.add(self.reached(p))
        elif obj.kind == ObjectiveKind.MAX_KILLS:
            for c in d.kill_set:
                out.add(self.killed(c))
        elif obj.kind == ObjectiveKind.MAX_VALUE:
            scale = d.value_scale
            for c in d.kill_set:
                out.add(self.killed(c), int(d.value_of(c) * scale))
            for p in d.walkers:
                out.add(self.loyal(p), int(d.value_of(p) * scale))
        elif obj.kind == ObjectiveKind.MIN_OVERKILL:
            for r in d.incoming:
                out.add(self.overkill(r))
        else:
            raise ValueError(obj.kind)
        return out


@dataclass
class Budget:
    time_limit: float | Deadline | None
    deterministic_time: float | None
    start: float = field(default_factory=time.perf_counter)
    used_det: float = 0.0

    def remaining(self) -> tuple[float | None, float | None]:
        if isinstance(self.time_limit, CommandLimit):  # a command's --time-limit counts from its start
            wall = self.time_limit.deadline.remaining()
        elif isinstance(self.time_limit, Deadline):  # a running deadline (solve's, from its call): shared
            wall = self.time_limit.remaining()
        else:
            wall = None if self.time_limit is None else self.time_limit - (time.perf_counter() - self.start)
        det = None if self.deterministic_time is None else self.deterministic_time - self.used_det
        return wall, det

    def exhausted(self) -> bool:
        wall, det = self.remaining()
        return (wall is not None and wall <= 0) or (det is not None and det <= 0)


class Runner:
    """Solves on one model repeatedly, within one budget, keeping the last solution."""

    def __init__(
        self,
        om: ObjectiveModel,
        budget: Budget,
        workers: int,
        presolve: bool,
        hints: bool,
        params: Mapping | None = None,
        lean: Mapping = LEAN_PARAMS,
    ):
        """``params``: the CpSolver settings (None: ``lean`` on models of <= SMALL_COLUMNS columns, else CP-SAT's
        defaults, escalating to STRONG_PARAMS when a solve drags)."""
        from ..engines.cpsat import cp_model

        self.cp = cp_model
        self.om = om
        self.budget = budget
        self.hints = hints
        from ..engines.cpsat import new_solver

        self.solver = new_solver(num_workers=workers, cp_model_presolve=presolve)
        p = self.solver.parameters
        self.escalate = params is None  # the default settings: escalate to STRONG_PARAMS when a solve drags
        self.escalated = False  # whether a solve did
        if params is None:
            params = lean if len(om.cols) <= SMALL_COLUMNS else {}
        for k, v in params.items():
            setattr(p, k, v)
        self.solves = 0
        self.vec: list[int] | None = None  # the last solution found (the x columns)
        self._solution: list[int] = []  # every variable's value in it, by variable index
        self.watch: list[Lin] = []  # expressions read with every solution found
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
            self.escalated = True
            for k, v in STRONG_PARAMS.items():
                setattr(self.solver.parameters, k, v)
            again = self._solve(None)
            if again != cp.UNKNOWN or found is None:  # else: keep the first solve's solution
                status, found = again, self._read(again)
        if status == cp.MODEL_INVALID:
            raise RuntimeError(f"CP-SAT rejected the objective model: {self.solver.solution_info()}")
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
        if wall is not None:  # the limit may have passed since run() looked: a negative time is an invalid model
            p.max_time_in_seconds = max(wall, 1e-3)
        if cap is not None and (det is None or cap < det):
            det = cap
        p.max_deterministic_time = det if det is not None else float("inf")
        status = self.solver.solve(self.om.m)
        self.solves += 1
        self.budget.used_det += self.solver.deterministic_time
        return status

    def value(self, lin: Lin) -> int:
        """The value of ``lin`` in the solution kept by the last :meth:`run` that found one (exact integers)."""
        sol = self._solution
        return lin.const + sum(c * sol[i] for i, (_, c, _, _) in lin.terms.items())


PACK_LIMIT = 1 << 50  # largest product of term ranges packed into one weighted objective


@dataclass
class Term:
    """One term of a lexicographic objective: a linear expression, its direction, and whether it is an objective
    (not a tie-break column)."""

    lin: Lin
    maximize: bool
    is_objective: bool

    def range(self) -> int:
        lo, hi = self.lin.bounds()
        return hi - lo


def _pack(terms: Sequence[Term], limit: int | None = None) -> list[list[Term]]:
    """Consecutive terms grouped so that the product of (range + 1) in each group stays <= limit."""
    limit = PACK_LIMIT if limit is None else limit
    groups: list[list[Term]] = []
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


def _weighted(group: Sequence[Term]) -> Lin:
    """One objective to *minimise* whose optimum is the lexicographic optimum of the group (exact weights)."""
    out = Lin()
    w = 1
    for t in reversed(group):
        out.add(t.lin, -w if t.maximize else w)
        w *= t.range() + 1
    return out


def lex_optimise(runner: Runner, terms: Sequence[Term]) -> tuple[str, bool]:
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
