"""The engine interface (trample.engines): what every engine declares, capability flags, the one count path,
and the plan's explicit cache. The engines' answers themselves are tested against the brute force elsewhere
(test_differential.py, test_perft.py, test_scale.py)."""

import inspect
from collections import Counter

import brute
import numpy as np
import pytest
from hypothesis import given, settings
from strategies import examples, scenarios

import trample
from trample import Combat
from trample.engines import BLOCKS, CAPABILITIES, EFFECTS, PROGRAMME, Engine, engine_names, get_engine
from trample.indexing import count as indexing_count
from trample.models import Keyword
from trample.outcome import effect_key, regular_step_caps, tally
from trample.rules import PlanCache, derive

ENGINES = engine_names()

# cpmpy-style: every conformance test below runs over every engine that declares its capability
DECLARED = [(name, cap) for name in ENGINES for cap in sorted(CAPABILITIES) if cap in get_engine(name).capabilities]


def engines_with(capability):
    return [pytest.param(name, id=name) for name, cap in DECLARED if cap == capability]


def test_every_capability_has_an_engine_and_a_conformance_test():
    assert {cap for _, cap in DECLARED} == set(CAPABILITIES) == {PROGRAMME, BLOCKS, EFFECTS}
    assert ("cpsat", EFFECTS) in DECLARED and ("direct", EFFECTS) in DECLARED and ("auto", EFFECTS) in DECLARED


@pytest.mark.parametrize("name", ENGINES)
def test_every_engine_declares_the_protocol(name):
    engine = get_engine(name)
    assert engine.name == name and isinstance(engine.capabilities, frozenset)
    for method in ("supports", "count", "iterate"):
        assert callable(getattr(engine, method)), method
    # AutoEngine asks supports(plan, component, deadline): every engine takes the deadline
    assert "deadline" in inspect.signature(engine.supports).parameters
    assert set(inspect.signature(Engine.supports).parameters) == {"self", "plan", "component", "deadline"}
    for capability in engine.capabilities:
        for method in CAPABILITIES[capability]:
            assert callable(getattr(engine, method)), f"{name} declares {capability} without {method}"


def test_capabilities_are_checked_by_the_registry():
    assert {PROGRAMME, BLOCKS} <= get_engine("direct", needs=[PROGRAMME, BLOCKS]).capabilities
    with pytest.raises(ValueError, match="does not offer programme"):
        get_engine("cpsat", needs=[PROGRAMME])


@pytest.mark.slow
@settings(max_examples=examples(60))
@given(scenarios())
def test_one_count_path(scenario):
    # Combat.count, legal_assignments.count() and trample.indexing.count give one number, whatever the engine
    n = Combat(scenario).count()
    for engine in ENGINES:
        combat = Combat(scenario, engine=engine)
        assert combat.legal_assignments.count() == n
        assert indexing_count(combat) == n


def test_the_plan_cache_is_explicit_and_not_part_of_the_plan():
    doc = {
        "players": [{"id": "opp", "life": 20}],
        "attackers": [
            {"id": "a", "power": 6, "toughness": 6, "keywords": ["trample"], "attacking": "opp", "blocked_by": ["x"]}
        ],
        "blockers": [{"id": "x", "power": 1, "toughness": 3}],
    }
    plan, again = derive(trample.models.load_scenario(doc)), derive(trample.models.load_scenario(doc))
    assert isinstance(plan.cache, PlanCache) and plan.cache is not again.cache
    get_engine("direct").count(plan, plan.components[0])
    get_engine("direct").programme(plan, plan.components[0])
    assert plan.cache.of("direct") and not again.cache.of("direct")  # the programme is kept with its plan...
    assert plan == again and repr(plan) == repr(again)  # ...outside its value (equality, repr)
    assert "_direct_dp" not in vars(plan)


@pytest.mark.parametrize("name", engines_with(PROGRAMME))
@settings(max_examples=40)
@given(scenarios())
def test_programme_conformance(name, scenario):
    # PROGRAMME: count, rank and unrank agree with the engine's own listing (the canonical order is sorted)
    engine = get_engine(name, needs=[PROGRAMME])
    plan = derive(trample.models.load_scenario(scenario))
    for comp in plan.components:
        dp = engine.programme(plan, comp)
        listed = sorted(engine.iterate(plan, comp))
        assert dp.count() == len(listed) == engine.count(plan, comp)
        for index, vec in enumerate(listed):
            assert dp.rank(vec) == index and tuple(dp.unrank(index)) == tuple(vec)


@pytest.mark.parametrize("name", engines_with(BLOCKS))
@settings(max_examples=40)
@given(scenarios())
def test_blocks_conformance(name, scenario):
    # BLOCKS: the plan's blocks hold every legal assignment once, the same set as the brute force
    engine = get_engine(name, needs=[BLOCKS])
    plan = derive(trample.models.load_scenario(scenario))
    rows = [tuple(row) for block in engine.plan_blocks(plan, rows=7) for row in np.asarray(block).tolist()]
    expected = {plan.vector(trample.models.Assignment(a)) for a in brute.brute_force(scenario)}
    assert len(rows) == len(set(rows)) == len(expected) and set(rows) == expected
    assert np.iinfo(engine.dtype_for(100)).max >= 100


def _first_step(doc):
    return {**doc, "step": "first_strike"}


@pytest.mark.parametrize("name", engines_with(EFFECTS))
@settings(max_examples=30)
@given(scenarios(step="first_strike", max_attackers=3, max_blockers=3, max_total_power=7, max_work=300))
def test_effects_conformance(name, doc):
    # EFFECTS: the first step's assignments (both sides, 510.1) grouped by what they change for the regular step
    # (trample.outcome.effect_key: damage capped at the lethal need 702.19b / loyalty / defense, deathtouch
    # 702.2c) -- per component from the engine, folded, against the brute force's list grouped the same way
    engine = get_engine(name, needs=[EFFECTS])
    scenario = trample.models.load_scenario(doc)
    plan = derive(scenario, side="both")
    caps = regular_step_caps(scenario)
    deathtouch = [scenario.creature(s.source).has(Keyword.DEATHTOUCH) for s in plan.sources]
    folded = Counter({(): 1})
    for comp in plan.components:
        local = engine.effects(plan, comp, caps, deathtouch)
        assert sum(local.values()) == get_engine("direct").count(plan, comp)
        merged = Counter()
        for k1, n1 in folded.items():
            for k2, n2 in local.items():
                merged[trample.outcome.merge_effect_keys(k1, k2, caps)] += n1 * n2
        folded = merged
    dts = {s.source for s in plan.sources if s.deathtouch and s.damage > 0}
    expected = Counter(effect_key(*tally(a, dts), caps) for a in brute.brute_force(doc, "both"))
    assert +folded == expected


@settings(max_examples=examples(150))
@given(scenarios())
def test_free_plans_are_listed_in_python_as_the_direct_engine_lists_them(scenario):
    # DamageStep.assignments lists a small plan with no gate and no second way in Python (step.free_rows): the
    # same rows, in the same canonical order, as the direct engine's blocks, on either side; and the legal set
    from trample.step import free_rows

    for side in ("attacking", "defending", "both"):
        combat = Combat(scenario, side=side, engine="direct")
        rows = free_rows(combat.plan)
        if rows is None:
            continue
        blocks = [row for block in combat.assignment_blocks() for row in block.tolist()]
        assert rows == blocks
        listed = list(combat.assignments())
        assert [a.to_json() for a in listed] == [combat._layout.assignment(r).to_json() for r in blocks]
        assert all(combat.check(a).legal for a in listed)
        assert len(listed) == combat.count()
        # the direct engine takes every component of a free plan, so "auto" lists it in the canonical order too
        # without asking (DamageStep.canonical)
        direct = trample.engines.blocks_engine("direct")
        assert all(direct.supports(combat.plan, c) for c in combat.plan.components)
        auto = Combat(scenario, side=side)
        assert auto.canonical() and [a.to_json() for a in auto.assignments()] == [a.to_json() for a in listed]
