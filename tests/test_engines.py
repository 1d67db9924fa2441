"""The engine interface (trample.engines): what every engine declares, capability flags, the one count path,
and the plan's explicit cache. The engines' answers themselves are tested against the brute force elsewhere
(test_differential.py, test_perft.py, test_scale.py)."""

import inspect

import pytest
from hypothesis import given, settings
from strategies import scenarios

import trample
from trample import Combat
from trample.engines import BLOCKS, PROGRAMME, Engine, engine_names, get_engine
from trample.indexing import count as indexing_count
from trample.rules import PlanCache, derive

ENGINES = engine_names()


@pytest.mark.parametrize("name", ENGINES)
def test_every_engine_declares_the_protocol(name):
    engine = get_engine(name)
    assert engine.name == name and isinstance(engine.capabilities, frozenset)
    for method in ("supports", "count", "iterate"):
        assert callable(getattr(engine, method)), method
    # AutoEngine asks supports(plan, component, deadline): every engine takes the deadline
    assert "deadline" in inspect.signature(engine.supports).parameters
    assert set(inspect.signature(Engine.supports).parameters) == {"self", "plan", "component", "deadline"}
    offered = {PROGRAMME: ("programme",), BLOCKS: ("plan_blocks", "dtype_for")}
    for capability in engine.capabilities:
        for method in offered[capability]:
            assert callable(getattr(engine, method)), f"{name} declares {capability} without {method}"


def test_capabilities_are_checked_by_the_registry():
    assert {PROGRAMME, BLOCKS} <= get_engine("direct", needs=[PROGRAMME, BLOCKS]).capabilities
    with pytest.raises(ValueError, match="does not offer programme"):
        get_engine("cpsat", needs=[PROGRAMME])


@settings(max_examples=60)
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
