"""Judging one declaration, citing every rule it breaks (as ``trample check`` does for an assignment)."""

from __future__ import annotations

from ..check import CheckResult, Violation
from ..models.declare import BlockersDoc
from .legality import violations
from .space import DeclarationSpace


def check_declaration(space: DeclarationSpace, declaration) -> CheckResult:
    """Every restriction broken (509.1a-b, 508.1a-c, the evasion rules of 702), then 509.1c / 508.1d: fewer
    requirements obeyed than the most a declaration breaking no restriction obeys."""
    out = [Violation(rule, message) for rule, message in violations(space.doc, declaration)]
    best = space.max_obeyed()
    got = space.obeyed(declaration)
    if got < best:
        rule = "509.1c" if isinstance(space.doc, BlockersDoc) else "508.1d"
        missed = [r.text() for r in space.requirements if not r.obeyed(declaration)]
        out.append(
            Violation(
                rule,
                f"the declaration obeys {got} of the requirements, but {best} can be obeyed without violating a "
                f"restriction (not obeyed: {'; '.join(missed)})",
            )
        )
    return CheckResult(legal=not out, violations=tuple(out))
