"""What a solve returns: the statuses, :class:`SolveResult`, the lethal report, and :func:`score` (the
objectives' values for one given assignment)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from ..models import Assignment, load_assignment
from ..outcome import lethal_report, tally_vector
from ..rules import DamagePlan
from .objectives import Definitions, damage_step_of, parse_objectives

STATUS_OPTIMAL, STATUS_FEASIBLE, STATUS_INFEASIBLE, STATUS_UNKNOWN = "optimal", "feasible", "infeasible", "unknown"


class Solution(Protocol):
    """What a :class:`SolveResult` holds: an :class:`Assignment`, or a whole combat's line (both steps)."""

    def to_json(self) -> dict: ...


@dataclass
class SolveResult:
    status: str  # optimal | feasible | infeasible | unknown
    assignment: Assignment | Solution | None
    objectives: dict  # name -> int (or a number for max-value with fractional values)
    lethal: dict | None = None  # player -> report, when "lethal" was asked for
    time_ms: float = 0.0
    solves: int = 0  # CP-SAT calls made (0: the assignment was forced)
    #: the other side's assignment on the chosen line, when the solve read it (boards with effects or banding:
    #: the other player's worst reply, with the solved player's part of it, 702.22j/k); not in ``to_json``
    reply: Assignment | None = None
    #: whether a solve on the default settings dragged and the strong ones took over (optimize.model.Runner); a
    #: solve of the same model again may start on STRONG_PARAMS; not in ``to_json``
    escalated: bool = False

    @property
    def optimal(self) -> bool:
        return self.status == STATUS_OPTIMAL

    def to_json(self) -> dict:
        out: dict[str, object] = {
            "status": self.status,
            "assignment": None if self.assignment is None else self.assignment.to_json(),
            "objectives": dict(self.objectives),
        }
        if self.lethal is not None:
            out["lethal"] = self.lethal
        out["time_ms"] = round(self.time_ms, 3)
        return out


def assignment_of_vector(plan: DamagePlan, vec: Sequence[int]) -> Assignment:
    return plan.assignment(((plan.columns, vec),))


def lethal_report_of_vector(defs: Definitions, vec, best_to: Mapping[str, int]) -> dict:
    totals, _ = tally_vector(defs.plan.columns, vec, defs.deathtouch_of)
    return lethal_report(defs.scenario, {p: totals.get(p, 0) for p in defs.players}, best_to)


def score_assigned(combat, assignment, objectives) -> dict:
    """The objectives' values for one given (legal) assignment on damage assigned, evaluated directly, without a
    solver (:func:`trample.optimize.score` reads the outcome instead on boards with effects)."""
    combat = damage_step_of(combat)
    plan = combat.plan
    objs = parse_objectives(objectives, combat.scenario)
    defs = Definitions(plan)
    if not isinstance(assignment, Assignment):
        assignment = load_assignment(assignment, combat.scenario)
    vec = plan.vector(assignment)
    return {o.name: defs.evaluate(o, vec) for o in objs}
