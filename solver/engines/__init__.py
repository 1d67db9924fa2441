"""Engines behind one small interface, chosen by name (cpmpy-style).

An engine answers two questions about one *component* of a :class:`~trample.rules.DamagePlan` (a group of
sources whose choices constrain each other):

- ``count(plan, component) -> int``: the exact number of legal assignments of that component;
- ``iterate(plan, component) -> Iterator[tuple[int, ...]]``: each legal assignment exactly once, as a vector of
  amounts over ``plan.component_columns(component)``.

and ``supports(plan, component, deadline)``: whether it takes that component (the "auto" engine asks the direct
engine, and falls back to CP-SAT; :meth:`AutoEngine.pick` returns the engine it chose).

Beyond these, an engine declares what else it offers in ``capabilities`` (flags, never ``hasattr``):

- :data:`PROGRAMME`: ``programme(plan, component, deadline) -> Programme``, an exact counting programme that also
  ranks and unranks (the canonical order of :mod:`trample.indexing`);
- :data:`BLOCKS`: ``plan_blocks(plan, rows, dtype, deadline)`` (every legal assignment of the plan, in order, as
  integer matrices) and ``dtype_for(max_amount)`` (the smallest integer type that holds an amount);
- :data:`EFFECTS`: ``effects(plan, component, caps, deathtouch, deadline) -> Counter``, the whole combat's
  first-step effects count (:mod:`trample.engines.effects`): {effect key: number of legal assignments of the
  component with that effect} (the direct engine counts without listing; CP-SAT lists).

``get_engine(name, needs=...)`` imports an engine's module only when it is asked for, so ``import trample`` never
pays for ``import ortools``; with ``needs``, it checks that the engine declares those capabilities.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, cast

from ..limits import NEVER, Deadline, LimitReached, import_within
from ..rules import DamagePlan
from .effects import Effects, effect_counts, listed_effects

if TYPE_CHECKING:  # numpy is imported by the engines that use it, not by this interface
    import numpy as np
    import numpy.typing as npt

ENGINES = {
    "cpsat": ("trample.engines.cpsat", "CpSatEngine"),
    "direct": ("trample.engines.direct", "DirectEngine"),
}
DEFAULT_ENGINE = "auto"  # per component: "direct" where it supports the component, else "cpsat"


PROGRAMME = "programme"  # programme(plan, component, deadline) -> Programme
BLOCKS = "blocks"  # plan_blocks(plan, rows, dtype, deadline) and dtype_for(max_amount)
EFFECTS = "effects"  # effects(plan, component, caps, deathtouch, deadline) -> Counter
CAPABILITIES = {PROGRAMME: ("programme",), BLOCKS: ("plan_blocks", "dtype_for"), EFFECTS: ("effects",)}


class Programme(Protocol):
    """An exact counting programme of one component (the direct engine's ``ComponentDP``)."""

    columns: Sequence[tuple[int, str]]  # the component's columns: (source index, recipient)

    def count(self) -> int: ...

    def rank(self, vector: Sequence[int]) -> int | None: ...  # None: not a legal vector

    def unrank(self, index: int) -> tuple[int, ...]: ...


class Engine(Protocol):
    """``deadline`` (a :class:`trample.limits.Deadline`, or None): raise :class:`trample.limits.LimitReached` once
    it has passed; ``iterate`` yields what it found before. ``capabilities``: what the engine offers beyond
    these methods (:data:`PROGRAMME`, :data:`BLOCKS`, :data:`EFFECTS`; the methods each names are in
    :data:`CAPABILITIES`)."""

    name: str
    capabilities: frozenset[str]

    def supports(self, plan: DamagePlan, component: Sequence[int], deadline: Deadline | None = None) -> bool: ...

    def count(self, plan: DamagePlan, component: Sequence[int], deadline: Deadline | None = None) -> int: ...

    def iterate(
        self, plan: DamagePlan, component: Sequence[int], deadline: Deadline | None = None
    ) -> Iterator[tuple[int, ...]]: ...


class ProgrammeEngine(Engine, Protocol):
    """An engine with the :data:`PROGRAMME` capability."""

    def programme(
        self, plan: DamagePlan, component: Sequence[int], deadline: Deadline | None = None, uses: int = 1
    ) -> Programme: ...


class BlocksEngine(Engine, Protocol):
    """An engine with the :data:`BLOCKS` capability."""

    def plan_blocks(
        self,
        plan: DamagePlan,
        rows: int = ...,
        dtype: npt.DTypeLike | None = None,
        deadline: Deadline | None = None,
        start: int = 0,
        stop: int | None = None,
    ) -> Iterator[npt.NDArray[np.integer[Any]]]: ...

    def dtype_for(self, max_amount: int) -> type[np.signedinteger[Any]]: ...


class EffectsEngine(Engine, Protocol):
    """An engine with the :data:`EFFECTS` capability."""

    def effects(
        self,
        plan: DamagePlan,
        component: Sequence[int],
        caps: Mapping[str, int],
        deathtouch: Sequence[bool],
        deadline: Deadline | None = None,
    ) -> Effects: ...


def blocks_engine(name: str = "auto") -> BlocksEngine:
    """The engine ``name``, checked to declare :data:`BLOCKS` (ValueError otherwise)."""
    return cast(BlocksEngine, get_engine(name, needs=(BLOCKS,)))


def effects_engine(name: str = "auto", deadline: Deadline | None = None) -> EffectsEngine:
    """The engine ``name``, checked to declare :data:`EFFECTS` (ValueError otherwise), imported within
    ``deadline`` (:func:`get_engine`)."""
    return cast(EffectsEngine, get_engine(name, needs=(EFFECTS,), deadline=deadline))


_cache: dict[str, Engine] = {}


def engine_names() -> list[str]:
    return ["auto", *ENGINES]


class AutoEngine:
    """Chooses per component: the direct engine where ``supports()`` says yes (its exact counts cover every
    component), CP-SAT otherwise."""

    name = "auto"
    capabilities: frozenset[str] = frozenset({BLOCKS, EFFECTS})

    def pick(self, plan: DamagePlan, component: Sequence[int], deadline: Deadline | None = None) -> Engine:
        """The engine that lists ``component`` under "auto" (its ``name`` says which): the direct engine where its
        ``supports`` says yes (the source programme, the prefix lister on the count's join tree, or a bounded
        column programme: the canonical order, docs/scale.md), CP-SAT otherwise."""
        direct = get_engine("direct")
        return direct if direct.supports(plan, component, deadline) else get_engine("cpsat", deadline=deadline)

    def supports(self, plan: DamagePlan, component: Sequence[int], deadline: Deadline | None = None) -> bool:
        return True

    def count(self, plan: DamagePlan, component: Sequence[int], deadline: Deadline | None = None) -> int:
        return get_engine("direct").count(plan, component, deadline)

    def iterate(
        self, plan: DamagePlan, component: Sequence[int], deadline: Deadline | None = None
    ) -> Iterator[tuple[int, ...]]:
        return self.pick(plan, component, deadline).iterate(plan, component, deadline)

    def plan_blocks(
        self,
        plan: DamagePlan,
        rows: int | None = None,
        dtype: npt.DTypeLike | None = None,
        deadline: Deadline | None = None,
    ) -> Iterator[npt.NDArray[np.integer[Any]]]:
        """BLOCKS: the direct engine's (its programmes cover every component, in the canonical order)."""
        direct = blocks_engine("direct")
        if rows is None:
            return direct.plan_blocks(plan, dtype=dtype, deadline=deadline)
        return direct.plan_blocks(plan, rows=rows, dtype=dtype, deadline=deadline)

    def dtype_for(self, max_amount: int) -> type[np.signedinteger[Any]]:
        return blocks_engine("direct").dtype_for(max_amount)

    def effects(
        self,
        plan: DamagePlan,
        component: Sequence[int],
        caps: Mapping[str, int],
        deathtouch: Sequence[bool],
        deadline: Deadline | None = None,
    ) -> Effects:
        """The direct engine's count without listing; past its state limit, listed (direct or CP-SAT)."""
        deadline = deadline or NEVER
        local = effect_counts(plan, component, caps, deathtouch, deadline)
        return local if local is not None else listed_effects(plan, component, self, caps, deathtouch, deadline)


def get_engine(name: str = "auto", needs: Iterable[str] = (), deadline: Deadline | None = None) -> Engine:
    """The engine called ``name``; ``needs``: capabilities it must declare (ValueError when it does not).
    ``deadline``: an engine's module not imported yet (CP-SAT's: OR-Tools, over a second of wall time on a loaded
    machine) is imported in a thread and waited for within it (:func:`trample.limits.import_within`; an import is
    never cut short), :class:`trample.limits.LimitReached` when it runs out first."""
    made = _cache.get(name)
    if made is not None and not needs:  # the usual call (per component of every count): made, nothing asked of it
        return made
    if deadline and name in ENGINES and name not in _cache and not import_within(ENGINES[name][0], deadline):
        deadline.check()
        raise LimitReached(f"stopped at the time limit of {deadline.seconds:g} s", deadline.seconds)
    engine = _engine(name)
    missing = set(needs) - engine.capabilities
    if missing:
        raise ValueError(f"engine {name!r} does not offer {', '.join(sorted(missing))}")
    return engine


def _engine(name: str) -> Engine:
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
