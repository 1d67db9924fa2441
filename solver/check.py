"""The direct checker: judge one proposed assignment against a DamagePlan, citing every rule it breaks.

It reads the same plan as every engine (trample.rules), but evaluates it directly, without CP-SAT.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from typing import Any

from .models import Assignment, Side
from .outcome import tally
from .rules import LEGACY_BLOCKER_ORDER_RULE, LEGACY_ORDER_RULE, DamagePlan, SourcePlan, refusal


@dataclass(frozen=True)
class Violation:
    rule: str
    message: str
    source: str | None = None
    recipient: str | None = None

    def to_json(self) -> dict[str, str]:
        return {"rule": self.rule, "message": self.message}


@dataclass(frozen=True)
class CheckResult:
    legal: bool
    violations: tuple[Violation, ...] = ()

    def __bool__(self) -> bool:
        return self.legal

    def to_json(self) -> dict[str, Any]:
        return {"legal": self.legal, "violations": [v.to_json() for v in self.violations]}


def check(plan: DamagePlan, assignment: Assignment) -> CheckResult:
    violations: list[Violation] = []
    totals, deathtouched = tally(assignment, plan.deathtouch_sources)

    for source in assignment:
        if plan.source(source) is None:
            what = "an attacking creature" if plan.side == Side.ATTACKING else "a source of combat damage here"
            violations.append(
                Violation("510.1", f"{source} is not {what}; it cannot assign this side's damage", source)
            )

    for src in plan.sources:
        split = assignment.get(src.source, {})
        mine = _source_violations(plan, src, split, totals, deathtouched)
        if mine and src.unblocked is not None:
            alt = src.unblocked
            other = replace(src, damage=alt.damage, routes=alt.routes, unblocked=None, rule=alt.rule, reason=alt.reason)
            if not _source_violations(plan, other, split, totals, deathtouched):
                mine = []  # legal as though it weren't blocked (docs/effects.md)
        violations += mine
    return CheckResult(legal=not violations, violations=tuple(violations))


def _source_violations(
    plan: DamagePlan,
    src: SourcePlan,
    split: Mapping[str, int],
    totals: Mapping[str, int],
    deathtouched: Collection[str],
) -> list[Violation]:
    violations: list[Violation] = []
    given = sum(split.values())
    if src.damage == 0:
        if given:
            violations.append(Violation(src.rule, f"{src.reason}, but it assigns {given}", src.source))
        return violations
    if given != src.damage:
        what = "its toughness" if plan.scenario.creature(src.source).assigns_toughness else "its power"
        violations.append(
            Violation(
                "510.1a",
                f"{src.source} must assign exactly {src.damage} combat damage ({what}), but assigns {given}",
                src.source,
            )
        )
    for recipient, amount in split.items():
        if amount <= 0:
            continue
        route = src.route(recipient)
        if route is None:
            rule, why = refusal(plan, src.source, recipient)
            violations.append(
                Violation(rule, f"{src.source} assigns {amount} to {recipient}: {why}", src.source, recipient)
            )
            continue
        if route.gate is None:
            continue
        for bad in plan.gate_failures(route.gate, totals, deathtouched):
            violations.append(
                Violation(
                    route.gate.rule,
                    _gate_message(plan, src.source, recipient, amount, route.gate.rule, bad, totals),
                    src.source,
                    recipient,
                )
            )
    return violations


def _gate_message(
    plan: DamagePlan, source: str, recipient: str, amount: int, rule: str, bad: str, totals: Mapping[str, int]
) -> str:
    if bad in plan.loyalty_need:
        return (
            f"{source} assigns {amount} to {recipient}, but the planeswalker {bad} has been assigned "
            f"{totals.get(bad, 0)} of the {plan.loyalty_need[bad]} damage its loyalty requires first"
        )
    have, need = totals.get(bad, 0), plan.lethal_need[bad]
    lethal = f"{bad} has been assigned {have} of the {need} damage that is lethal to it"
    if rule in (LEGACY_ORDER_RULE, LEGACY_BLOCKER_ORDER_RULE):
        return (
            f"{source} assigns {amount} to {recipient}, but {bad} comes earlier in its damage assignment "
            f"order and {lethal}"
        )
    return f"{source} assigns {amount} to {recipient}, but {lethal}"
