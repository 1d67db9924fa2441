"""The pictures' fast paths agree with the full pipeline: a solver's answer drawn without checking it again
(``rules.mark_legal`` / ``known_legal``) is the picture of the same assignment read from input and checked, on
generated boards with every outcome effect and banding; a mark is honoured only on the board object, side and
lists of rules it was made for."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import examples, outcome_effects, scenarios, with_banding

from trample import Combat, outcome, rules
from trample.models import Assignment, FormatError
from trample.render import render
from trample.rules import known_legal, mark_legal

OBJECTIVES = ["max-damage", "lethal", "lethal,max-kills,min-overkill", "max-value"]


def _board(data) -> dict | None:
    sc = data.draw(scenarios())
    if data.draw(st.booleans()):
        sc = data.draw(outcome_effects(sc))
    if data.draw(st.booleans()):
        sc = data.draw(with_banding(sc))
    return sc


@settings(max_examples=examples(60), deadline=None)
@given(st.data())
def test_a_solvers_answer_is_legal_and_drawn_as_the_checked_input(data):
    sc = _board(data)
    side = data.draw(st.sampled_from(["attacking", "defending", "both"]))
    try:
        combat = Combat(sc, side=side)
    except FormatError:
        return
    result = combat.solve(data.draw(st.sampled_from(OBJECTIVES)))
    line = result.assignment
    if line is None:
        return
    assert known_legal(line, combat.scenario, side)
    assert combat.check(line.to_json()).legal  # the mark says what the checker says
    fresh = Combat(combat.scenario, side=side)  # another combat object on the same (settled) board
    fast = render(fresh, line)  # marked: not checked again
    full = render(fresh, line.to_json())  # read from input: loaded and checked
    assert fast == full
    assert render(combat, line) == full
    assert result._repr_svg_() == render(combat, line.to_json(), _title(result))


def _title(result) -> str:
    return f"{result.status}: " + ", ".join(f"{k} {v}" for k, v in result.objectives.items())


THRASTA = {
    "players": [{"id": "opp", "life": 20}],
    "attackers": [
        {"id": "a", "power": 5, "toughness": 5, "keywords": ["trample"], "attacking": "opp", "blocked_by": ["x"]}
    ],
    "blockers": [{"id": "x", "power": 1, "toughness": 2}],
}


def test_a_mark_holds_only_for_its_board_side_and_rule_lists(monkeypatch):
    combat = Combat(THRASTA)
    line = combat.solve("max-damage").assignment
    assert known_legal(line, combat.scenario, "attacking")
    assert not known_legal(line, combat.scenario, "defending")
    assert not known_legal(line, Combat(dict(THRASTA)).scenario, "attacking")  # an equal board, another object
    assert not known_legal(Assignment(line.to_json()), combat.scenario, "attacking")  # an equal value, unmarked
    assert not known_legal(line.to_json(), combat.scenario, "attacking")  # input is never marked
    monkeypatch.setattr(rules, "DIVISION_RULES", list(rules.DIVISION_RULES))  # a list replaced
    assert not known_legal(line, combat.scenario, "attacking")
    monkeypatch.undo()
    monkeypatch.setattr(outcome, "LOSS_CONDITIONS", list(outcome.LOSS_CONDITIONS))
    assert not known_legal(line, combat.scenario, "attacking")


def test_a_mark_is_not_part_of_the_value():
    combat = Combat(THRASTA)
    line = combat.solve("max-damage").assignment
    plain = Assignment(line.to_json())
    assert line == plain and hash(line) == hash(plain)
    import pickle

    assert not known_legal(pickle.loads(pickle.dumps(line)), combat.scenario, "attacking")


def test_an_illegal_assignment_marked_by_hand_is_drawn_legal_only_through_the_mark():
    # the mark is a promise of the solver; input never carries it, so an illegal input is still refused
    combat = Combat(THRASTA)
    bad = {"a": {"opp": 5}}  # 702.19b: lethal damage to x first
    assert "ILLEGAL: 702.19b" in render(combat, bad)
    loaded = Assignment(bad)
    assert "ILLEGAL: 702.19b" in render(combat, loaded)
    mark_legal(loaded, combat.scenario, "attacking")
    assert "legal ✓" in render(combat, loaded)


@pytest.mark.parametrize("side", ["attacking", "defending", "both"])
def test_every_side_draws_the_same_picture_either_way(side):
    combat = Combat(THRASTA, side=side)
    line = combat.solve("max-damage").assignment
    assert render(combat, line) == render(combat, line.to_json())
