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

from typing import TYPE_CHECKING

from .gym_registration import install as _install_gym_registration

if TYPE_CHECKING:
    from .check import CheckResult, Violation
    from .combat import Combat, LegalAssignments
    from .limits import LimitReached
    from .models import Assignment, FormatError, Scenario, load_scenario
    from .optimize import SolveResult
    from .rules import DamagePlan, derive
    from .whole import WholeCombat, open_combat

# The names are imported when first used (PEP 562): ``import trample.cli`` must not import numpy first, so that
# the command line installs its signal handlers and starts its clock before the heavy imports (docs/format.md).
_WHERE = {
    "CheckResult": "check",
    "Violation": "check",
    "Combat": "combat",
    "LegalAssignments": "combat",
    "LimitReached": "limits",
    "Assignment": "models",
    "FormatError": "models",
    "Scenario": "models",
    "load_scenario": "models",
    "SolveResult": "optimize",
    "DamagePlan": "rules",
    "derive": "rules",
    "WholeCombat": "whole",
    "open_combat": "whole",
}


def __getattr__(name: str):
    if name == "__version__":
        from .documents import package_version

        value = package_version()
    elif name in _WHERE:
        import importlib

        value = getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_WHERE) | {"__version__"})


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
