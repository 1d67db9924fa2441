"""The sequential decision encoding (trample.arena.sequential): the masks reach every legal assignment, once each,
and nothing else; the optimum is always reachable."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import examples, scenarios

from trample import Combat
from trample.arena.sequential import StepDecoder, StepWalk
from trample.arena.suites import generate
from trample.models import load_scenario


def reachable(decoder: StepDecoder) -> list:
    """Every assignment a masked agent can build (depth-first over the allowed amounts)."""
    out = []

    def go(state, amounts):
        if decoder.done(state):
            out.append(decoder.assignment(amounts))
            return
        for a in decoder.allowed(state):
            go(decoder.apply(state, a), [*amounts, a])

    go(decoder.start(), [])
    return out


LEVELS = ["tiny", "basic", "keywords", "shared", "planeswalkers", "battles", "first-strike", "mixed"]


@pytest.mark.parametrize("level", LEVELS)
def test_reachable_set_is_the_legal_set_on_generated_boards(level):
    # 510.1a (all damage assigned), 510.1c-d (routes), 702.19b/c gates (lethal, loyalty), 702.2c deathtouch,
    # the legacy damage order (510.1c 2024-09) on "mixed": the masks allow exactly the legal assignments
    checked = 0
    for item in generate(level, 12, seed=15):
        scenario = load_scenario(item["scenario"])
        for side in ("attacking", "defending", "both"):
            combat = Combat(scenario, side=side)
            if combat.count() > 5000:
                continue
            got = reachable(StepDecoder(combat.plan))
            assert len(got) == len(set(got))  # one decision sequence per assignment
            assert set(got) == set(combat.legal_assignments)
            checked += 1
    assert checked >= 12


@settings(max_examples=examples(60), deadline=None)
@given(scenarios())
def test_reachable_set_is_the_legal_set_on_hypothesis_boards(data):
    scenario = load_scenario(data)
    if scenario.step == "combat":
        scenario = scenario.with_step("regular")
    combat = Combat(scenario)
    got = reachable(StepDecoder(combat.plan))
    assert len(got) == len(set(got))
    assert set(got) == set(combat.legal_assignments)


@settings(max_examples=examples(40), deadline=None)
@given(scenarios(), st.randoms(use_true_random=False))
def test_any_masked_walk_ends_legal_and_the_optimum_is_reachable(data, rnd):
    scenario = load_scenario(data)
    if scenario.step == "combat":
        scenario = scenario.with_step("regular")
    combat = Combat(scenario)
    walk = StepWalk(combat.plan)
    while not walk.done:
        walk.choose(rnd.choice(walk.allowed()))
    assert combat.check(walk.assignment()).legal
    best = combat.solve(["max-damage", "max-value"]).assignment
    walk = StepWalk(combat.plan)
    walk.follow(best)
    assert walk.assignment() == best


def test_a_board_beyond_any_fixed_action_space():
    # 4 tramplers of power 8 on shared blockers: more legal assignments than a fixed index space of 64 holds,
    # yet the decisions are amounts 0..8 and the optimum is reached
    board = {
        "players": [{"id": "opp", "life": 20}],
        "attackers": [
            {"id": f"a{k}", "power": 8, "toughness": 8, "keywords": ["trample"], "attacking": "opp",
             "blocked_by": ["x", "y"]}
            for k in range(4)
        ],
        "blockers": [{"id": "x", "power": 1, "toughness": 5}, {"id": "y", "power": 1, "toughness": 6}],
    }  # fmt: skip
    combat = Combat(board)
    assert combat.count() > 10_000
    best = combat.solve(["max-damage"]).assignment
    walk = StepWalk(combat.plan)
    walk.follow(best)
    assert walk.assignment() == best
    assert max(walk.decoder.max_amount, 0) == 8


def test_an_amount_the_mask_forbids_is_refused():
    # 702.19b: a trampler's damage may reach the player only once its blocker has lethal
    board = {
        "players": [{"id": "opp", "life": 20}],
        "attackers": [
            {"id": "a", "power": 5, "toughness": 5, "keywords": ["trample"], "attacking": "opp", "blocked_by": ["x"]}
        ],
        "blockers": [{"id": "x", "power": 1, "toughness": 3}],
    }
    walk = StepWalk(Combat(board).plan)
    assert walk.allowed() == [3, 4, 5]  # at least lethal (3) on the blocker: the rest tramples over
    with pytest.raises(ValueError, match="not allowed"):
        walk.choose(2)
    walk.choose(3)
    assert walk.done and walk.assignment() == {"a": {"x": 3, "opp": 2}}
