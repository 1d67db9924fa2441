"""Counting a whole combat, re-exported: the canonical state of the regular step and what a first-strike
assignment changes for the regular step (its *effect*, :func:`trample.outcome.effect_key`) are the outcome
module's; the first step's assignments grouped by effect are an engine capability (:data:`trample.engines.EFFECTS`,
:mod:`trample.engines.effects`)."""

from __future__ import annotations

from ..engines.effects import EFFECT_STATE_LIMIT, effect_counts, listed_effects
from ..outcome import canonical_state, effect_key, merge_effect_keys
from ..outcome import regular_step_caps as effect_caps

__all__ = [
    "EFFECT_STATE_LIMIT",
    "canonical_state",
    "effect_caps",
    "effect_counts",
    "effect_key",
    "listed_effects",
    "merge_effect_keys",
]
