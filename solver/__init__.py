"""trample: rules-exact combat damage assignment for Magic: The Gathering.

The public API (README.md, "Python"): a :class:`Combat` for one damage step, a :class:`WholeCombat` for a combat
with a first-strike step (:func:`open_combat` picks the right one), the documents they read and write
(:func:`load_scenario`, :class:`Scenario`, :class:`Assignment`) and what they answer (:class:`CheckResult`,
:class:`SolveResult`). Bad input raises :class:`FormatError`; a limited run that stops early raises
:class:`LimitReached`. Everything else lives in the submodules (``trample.optimize``, ``trample.arena``,
``trample.library``, ...).

>>> import trample
>>> combat = trample.Combat.from_json(open("examples/thrasta.json").read())
>>> combat.count()
36
>>> combat.solve("max-damage").status
'optimal'
"""

from .check import CheckResult, Violation
from .combat import Combat, LegalAssignments
from .docio import package_version
from .gym_registration import install as _install_gym_registration
from .limits import LimitReached
from .models import Assignment, FormatError, Scenario, load_scenario
from .optimize import SolveResult
from .rules import DamagePlan, derive
from .whole import WholeCombat, open_combat

__version__ = package_version()
_install_gym_registration()  # "trample/DamageAssignment-v0" for gym.make, once gymnasium is imported (if ever)

__all__ = [
    "Combat",
    "WholeCombat",
    "open_combat",
    "load_scenario",
    "Scenario",
    "Assignment",
    "LegalAssignments",
    "CheckResult",
    "Violation",
    "SolveResult",
    "FormatError",
    "LimitReached",
    "DamagePlan",
    "derive",
    "__version__",
]
