"""The whole combat (``"step": "combat"``): the first-strike step, the state-based actions, the regular step.

A *combat line* is ``{"first_strike": {...}, "regular": {...}}`` (docs/format.md): the first-strike step's
assignment, then the regular step's. Each step's assignment holds **both** players' sources (one key per
attacker and one per blocker), because the blockers' first-strike damage decides which attackers survive into
the regular step. Between the steps :func:`trample.outcome.after_step` deals the damage and performs the state-based
actions; the regular step is then derived from that state by the same rules as any step (``trample.rules``).

With no first-strike step (510.4: no attacking or blocking creature has first strike or double strike), a
line still has both keys, and its ``"first_strike"`` part is every source with ``{}``.

- ``count()`` is the sum, over the legal first-strike assignments, of the number of legal regular-step
  assignments in the state that follows. First-strike assignments are grouped by what they change for the
  regular step (see :func:`effect_key`), so the regular step is counted once per distinct state.
- ``assignments(limit)`` streams every legal line exactly once, first-strike assignment by first-strike
  assignment, in the engines' order.
- ``check(line)`` judges both steps, citing rules and naming the step in each message.
- ``solve(objectives)``: see :func:`solve_whole` (the defender's first-strike choice is adversarial).

The package, bottom to top: :mod:`.line` (the line type and loading), :mod:`.search` (the adversarial search),
:mod:`.combat` (:class:`WholeCombat`, :func:`open_combat`). What a first-strike assignment changes for the regular
step (its *effect*) and the canonical state are the outcome module's (:func:`trample.outcome.effect_key`,
:func:`trample.outcome.canonical_state`); the first step's assignments grouped by effect are an engine capability
(:data:`trample.engines.EFFECTS`, :mod:`trample.engines.effects`).
"""

from ..engines.effects import EFFECT_STATE_LIMIT, effect_counts, listed_effects
from ..outcome import canonical_state, effect_key
from ..outcome import regular_step_caps as effect_caps
from .combat import REPLAY_BUDGET, WholeCombat, open_combat
from .line import STEP_KEYS, STEP_NAMES, CombatLine, load_line


def __getattr__(name: str):
    """``solve_whole`` is imported when first used (PEP 562): the search imports trample.optimize, which counting
    and listing a whole combat do not need."""
    if name == "solve_whole":
        from .search import solve_whole

        return solve_whole
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "WholeCombat",
    "open_combat",
    "CombatLine",
    "load_line",
    "solve_whole",
    "canonical_state",
    "effect_caps",
    "effect_counts",
    "effect_key",
    "listed_effects",
    "STEP_KEYS",
    "STEP_NAMES",
    "REPLAY_BUDGET",
    "EFFECT_STATE_LIMIT",
]
