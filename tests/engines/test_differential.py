"""Differential tests: the engine (trample.Combat) against the independent brute-force oracle (tests/oracles/brute.py).

Compared on the perft file, docs/rules.md's known engine mistakes and generated scenarios: the SET of legal
attacking-side assignments (each exactly once), the count, membership, and ``check`` verdicts on near-legal
candidates (every illegal verdict must cite a rule).
"""

from __future__ import annotations

import re

import pytest
from boards import KNOWN_MISTAKES, canon, load_perft
from brute import brute_force, total_to
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import examples, random_assignment, scenarios

from trample import Combat
from trample.models import load_scenario

PERFT = load_perft()
RULE = re.compile(r"^\d{3}(\.\d+[a-z]?)?\b")  # "702.19b", "510.1a", "506.4c", ...


def engine_list(scenario: dict) -> list:
    return list(Combat(load_scenario(scenario)).legal_assignments)


def assert_same_enumeration(scenario: dict) -> list[dict]:
    expected = brute_force(scenario)
    combat = Combat(load_scenario(scenario))
    view = combat.legal_assignments
    got = list(view)
    got_keys = [canon(a) for a in got]
    assert len(set(got_keys)) == len(got_keys), "the engine enumerated an assignment twice"
    exp_keys = {canon(a) for a in expected}
    missing = exp_keys - set(got_keys)
    extra = set(got_keys) - exp_keys
    assert not missing and not extra, (
        f"missing (legal, not enumerated): {sorted(missing)[:3]}; extra (enumerated, illegal): {sorted(extra)[:3]}"
    )
    assert view.count() == len(expected)
    for a in got:  # Assignment is a Mapping equal to its plain dict form
        assert a == {s: dict(split) for s, split in a.items()}
        assert set(a) == {x["id"] for x in scenario["attackers"]}
    for a in expected[:20]:
        assert a in view
    return expected


def assert_verdict(combat, scenario_legal: set, candidate: dict):
    legal = canon(candidate) in scenario_legal
    verdict = combat.check(candidate)
    assert isinstance(verdict.legal, bool) and verdict.legal == legal, (candidate, verdict.legal, legal)
    if legal:
        assert not verdict.violations, (candidate, verdict.violations)
    else:
        assert verdict.violations, f"illegal {candidate} but no violation cited"
        for v in verdict.violations:
            assert isinstance(v.rule, str) and RULE.match(v.rule), v.rule
            assert isinstance(v.message, str) and v.message
    assert (candidate in combat.legal_assignments) == legal, candidate


@pytest.mark.parametrize("line", PERFT, ids=[p["name"] for p in PERFT])
def test_engine_perft(line):
    got = assert_same_enumeration(line["scenario"])
    assert len(got) == line["count"]
    assert max(total_to(engine_list(line["scenario"]), "opp")) == line["max_damage_to_opp"]


@pytest.mark.parametrize("board", KNOWN_MISTAKES, ids=[b["name"] for b in KNOWN_MISTAKES])
def test_engine_known_mistakes(board):
    got = assert_same_enumeration(board["scenario"])
    assert len(got) == board["count"]
    combat = Combat(load_scenario(board["scenario"]))
    legal = {canon(a) for a in got}
    for cand in board["legal"] + board["illegal"]:
        assert_verdict(combat, legal, cand)


@pytest.mark.slow
@settings(max_examples=examples(200))
@given(scenarios())
def test_engine_enumeration_matches_oracle(sc):
    assert_same_enumeration(sc)


@pytest.mark.slow
@settings(max_examples=examples(100))
@given(scenarios(focus="planeswalkers"))
def test_engine_enumeration_matches_oracle_planeswalkers(sc):
    assert_same_enumeration(sc)


@pytest.mark.slow
@settings(max_examples=examples(200))
@given(st.data())
def test_engine_check_agrees_with_enumeration(data):
    sc = data.draw(scenarios())
    expected = brute_force(sc)
    legal = {canon(a) for a in expected}
    combat = Combat(load_scenario(sc))
    for _ in range(4):
        assert_verdict(combat, legal, random_assignment(data.draw, sc, expected))
