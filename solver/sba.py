"""State-based actions between the first-strike and the regular combat damage step: a thin re-export of
:mod:`trample.outcome`, where what damage does is written once (kept so that ``trample.sba.after_step`` and the
other names stay importable).

``after_step(scenario, assignment)`` deals one step's damage (both sides' keys) and performs the state-based
actions that follow (704.3), returning the state of the regular step; ``state_based_actions(state)`` performs them
on a board whose damage is applied, and ``settle(scenario)`` on a board as given. See
:func:`trample.outcome.resolve` for the stages and for the players who lose.
"""

from __future__ import annotations

from .outcome import (
    after_step,
    apply_damage,
    creature_dies,
    damage_dealt,
    first_strike_step_happens,
    settle,
    state_based_actions,
)

__all__ = [
    "after_step",
    "apply_damage",
    "creature_dies",
    "damage_dealt",
    "first_strike_step_happens",
    "settle",
    "state_based_actions",
]
