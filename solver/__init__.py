"""trample's solver: the rules (trample.rules), the engines, and the Combat object users hold."""

from .check import CheckResult, Violation
from .combat import Combat, LegalAssignments, open_combat
from .rules import DamagePlan, derive

__all__ = ["Combat", "open_combat", "LegalAssignments", "CheckResult", "Violation", "DamagePlan", "derive"]
