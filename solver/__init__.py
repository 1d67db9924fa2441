"""trample's solver: the rules (trample.rules), the engines, and the Combat object users hold."""

from .check import CheckResult, Violation
from .combat import Combat, LegalAssignments
from .rules import DamagePlan, derive
from .whole import open_combat

__all__ = ["Combat", "open_combat", "LegalAssignments", "CheckResult", "Violation", "DamagePlan", "derive"]
