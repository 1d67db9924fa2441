"""Engines behind one small interface, chosen by name (cpmpy-style).

An engine answers two questions about one *component* of a :class:`~trample.rules.DamagePlan` (a group of
sources whose choices constrain each other):

- ``count(plan, component) -> int``: the exact number of legal assignments of that component;
- ``iterate(plan, component) -> Iterator[tuple[int, ...]]``: each legal assignment exactly once, as a vector of
  amounts over ``plan.component_columns(component)``.

``get_engine(name)`` imports an engine's module only when it is asked for, so ``import trample`` never pays for
``import ortools``.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Sequence
from typing import Protocol

from ..rules import DamagePlan

ENGINES = {
    "cpsat": ("trample.engines.cpsat", "CpSatEngine"),
    "direct": ("trample.engines.direct", "DirectEngine"),
}
DEFAULT_ENGINE = "auto"  # per component: "direct" where it supports the component, else "cpsat"


class Engine(Protocol):
    """``deadline`` (a :class:`trample.limits.Deadline`, or None): raise :class:`trample.limits.LimitReached` once
    it has passed; ``iterate`` yields what it found before."""

    name: str

    def supports(self, plan: DamagePlan, component: Sequence[int]) -> bool: ...

    def count(self, plan: DamagePlan, component: Sequence[int], deadline=None) -> int: ...

    def iterate(self, plan: DamagePlan, component: Sequence[int], deadline=None) -> Iterator[tuple[int, ...]]: ...


_cache: dict[str, Engine] = {}


def engine_names() -> list[str]:
    return ["auto", *ENGINES]


class AutoEngine:
    """Chooses per component: the direct engine where ``supports()`` says yes (its exact counts cover every
    component), CP-SAT otherwise."""

    name = "auto"

    def _pick(self, plan: DamagePlan, component: Sequence[int], deadline=None) -> Engine:
        direct = get_engine("direct")
        return direct if direct.supports(plan, component, deadline) else get_engine("cpsat")

    def supports(self, plan: DamagePlan, component: Sequence[int]) -> bool:
        return True

    def count(self, plan: DamagePlan, component: Sequence[int], deadline=None) -> int:
        return get_engine("direct").count(plan, component, deadline)

    def iterate(self, plan: DamagePlan, component: Sequence[int], deadline=None) -> Iterator[tuple[int, ...]]:
        return self._pick(plan, component, deadline).iterate(plan, component, deadline)


def get_engine(name: str = "auto") -> Engine:
    if name == "auto":
        if "auto" not in _cache:
            _cache["auto"] = AutoEngine()
        return _cache["auto"]
    if name not in ENGINES:
        raise ValueError(f"unknown engine {name!r} (expected one of {', '.join(engine_names())})")
    if name not in _cache:
        module, cls = ENGINES[name]
        _cache[name] = getattr(importlib.import_module(module), cls)()
    return _cache[name]
