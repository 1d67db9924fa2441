"""Legality options of real boards (docs/effects.md): every engine, check and the optimiser against the
independent brute force (tests/oracles/brute.py) on generated boards with the options, plus hand-counted boards
citing the rules; and the property that outcome effects (prevention, protection, doubling, ...) never change
legality."""

from __future__ import annotations

import brute_combat
import pytest
from boards import canon
from brute import brute_force, total_to
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import examples, outcome_effects, random_assignment, scenarios
from test_solve import oracle_values

from trample import Combat
from trample.engines import EFFECTS, engine_names, get_engine
from trample.models import FormatError, Keyword, load_scenario
from trample.whole import WholeCombat

SIDES = ["attacking", "attacking", "defending", "both"]


def assert_engines_match_brute(doc: dict, side: str) -> list[dict]:
    expected = brute_force(doc, side)
    keys = {canon(a) for a in expected}
    combat = Combat(load_scenario(doc), side=side)
    for engine in engine_names():  # every engine, as the conformance tests do
        got = [canon(a) for a in combat.assignments(engine=engine)]
        assert len(got) == len(set(got)), f"{engine} listed an assignment twice"
        assert set(got) == keys, (engine, sorted(set(got) - keys)[:3], sorted(keys - set(got))[:3])
        assert combat.count(engine=engine) == len(expected), engine
    return expected


@settings(max_examples=examples(300))
@given(scenarios(extras=True), st.sampled_from(SIDES))
def test_engines_match_brute_force_with_options(doc, side):
    assert_engines_match_brute(doc, side)


@settings(max_examples=examples(100))
@given(scenarios(extras=True, rules="legacy"), st.sampled_from(["defending", "both"]))
def test_legacy_blocker_order_matches_brute_force(doc, side):  # 510.1d (before Nov 2024), 702.22k
    assert_engines_match_brute(doc, side)


@settings(max_examples=examples(100))
@given(scenarios(extras=True, focus="planeswalkers"))
def test_as_though_unblocked_over_planeswalkers_matches_brute_force(doc):  # 702.19c/e with the option
    assert_engines_match_brute(doc, "attacking")


def _bear(i, power, attacking, blocked_by, **more):
    return {"id": f"a{i}", "power": power, "toughness": 2, "attacking": attacking, "blocked_by": blocked_by, **more}


# Found by the generated tests: the way-by-way listing sliced each way's rows with a growing step over a range of
# the first step (rows listed two and three times), and a way whose option source leaves its blockers splits the
# component in two, which the source programme does not list (it is listed by the column programme instead).
OPTION_BOARDS = {
    "shared blockers, the option on a trampler": {
        "players": [{"id": "p0", "life": 1}],
        "planeswalkers": [{"id": "w0", "controller": "p0", "loyalty": 0}],
        "attackers": [
            _bear(0, 2, "w0", ["b0", "b1", "b2"]),
            _bear(1, 2, "w0", ["b0", "b1", "b2"], damage_marked=1),
            _bear(2, 3, "p0", ["b0", "b1", "b2"], keywords=["trample"], damage_marked=1, as_though_unblocked=True),
        ],
        "blockers": [{"id": f"b{j}", "power": 1, "toughness": 2} for j in range(3)],
    },
    "the option's way parts the component": {
        "players": [{"id": "p0", "life": 1}],
        "planeswalkers": [{"id": "w0", "controller": "p0", "loyalty": 0}],
        "attackers": [
            _bear(0, 2, "w0", ["b0", "b1"], as_though_unblocked=True),
            _bear(1, 3, "p0", ["b0"], keywords=["trample"], damage_marked=1),
        ],
        "blockers": [{"id": f"b{j}", "power": 1, "toughness": 2} for j in range(2)],
    },
}


@pytest.mark.parametrize("name", list(OPTION_BOARDS))
def test_option_boards_list_each_assignment_once(name):  # 510.1c: either way, each assignment once
    assert len(assert_engines_match_brute(OPTION_BOARDS[name], "attacking")) > 10


@settings(max_examples=examples(200))
@given(st.data())
def test_check_agrees_with_brute_force_with_options(data):
    doc = data.draw(scenarios(extras=True))
    side = data.draw(st.sampled_from(["attacking", "defending"]))
    expected = brute_force(doc, side)
    legal = {canon(a) for a in expected}
    combat = Combat(load_scenario(doc), side=side)
    for _ in range(4):
        cand = random_assignment(data.draw, doc, expected, side)
        verdict = combat.check(cand)
        assert verdict.legal == (canon(cand) in legal), (cand, verdict)
        assert verdict.legal or all(v.rule[:3].isdigit() for v in verdict.violations)


@settings(max_examples=examples(100))
@given(scenarios(extras=True), st.sampled_from(["max-damage", "max-kills", "lethal"]))
def test_optimiser_reaches_the_brute_force_optimum_with_options(doc, kind):
    legal = brute_force(doc)
    result = Combat(load_scenario(doc)).solve(kind)
    assert Combat(load_scenario(doc)).check(result.assignment).legal
    best = max(oracle_values(doc, a, [kind])[kind] for a in legal)
    assert oracle_values(doc, result.assignment.to_json(), [kind])[kind] == best


@settings(max_examples=examples(60), deadline=None)
@given(scenarios(extras=True, step="combat", max_attackers=3, max_blockers=3, max_total_power=6, max_work=150))
def test_whole_combat_matches_brute_force_with_options(doc):
    expected = brute_combat.combat_lines(doc)
    combat = WholeCombat(doc)
    assert combat.count() == len(expected)
    got = [canon(line.to_json()["first_strike"]) + canon(line.to_json()["regular"]) for line in combat.assignments()]
    assert sorted(got) == sorted(canon(x["first_strike"]) + canon(x["regular"]) for x in expected)


# -- outcome effects never change legality (702.19b: lethal is judged on assigned damage) -------------------------


@settings(max_examples=examples(200))
@given(st.data())
def test_outcome_effects_leave_count_and_enumeration_unchanged(data):
    doc = data.draw(scenarios(extras=True))
    side = data.draw(st.sampled_from(SIDES))
    with_effects = data.draw(outcome_effects(doc))
    plain = Combat(load_scenario(doc), side=side)
    dressed = Combat(load_scenario(with_effects), side=side)
    assert dressed.count() == plain.count()
    assert [canon(a) for a in dressed.assignments()] == [canon(a) for a in plain.assignments()]


@settings(max_examples=examples(40), deadline=None)
@given(st.data())
def test_outcome_effects_leave_the_whole_combat_count_unchanged_without_losses(data):
    doc = data.draw(scenarios(step="combat", max_total_power=6, max_work=150))
    with_effects = data.draw(outcome_effects(doc))
    for p in with_effects.get("players", []):  # no player can lose here: their losses are tested elsewhere
        p.update(life=1000, poison=0, commander_damage={})
    for p in doc.get("players", []):
        p["life"] = 1000
    # prevention and doubling change the first step's damage, hence the regular step's board, but not the count
    # of first-step lines
    plain, dressed = WholeCombat(doc), WholeCombat(with_effects)
    assert dressed.first_step.count() == plain.first_step.count()


# -- hand-counted boards --------------------------------------------------------------------------------------


def board(attackers, blockers=(), rules="current", **extra):
    return {
        "rules": rules,
        "players": [{"id": "opp"}],
        "attackers": list(attackers),
        "blockers": list(blockers),
        **extra,
    }


def test_510_1a_assigns_damage_equal_to_toughness():
    # a 0/4 that assigns damage equal to its toughness, blocked by two 1/1s: 4 over two blockers = 5 splits
    doc = board(
        [
            {
                "id": "a",
                "power": 0,
                "toughness": 4,
                "assigns_toughness": True,
                "attacking": "opp",
                "blocked_by": ["x", "y"],
            }
        ],
        [{"id": "x", "power": 1, "toughness": 1}, {"id": "y", "power": 1, "toughness": 1}],
    )
    assert Combat(doc).count() == 5 == len(brute_force(doc))
    verdict = Combat(doc).check({"a": {"x": 1}})
    assert (
        not verdict.legal
        and verdict.violations[0].rule == "510.1a"
        and "its toughness" in verdict.violations[0].message
    )


def test_510_1a_toughness_zero_assigns_nothing():
    doc = board([{"id": "a", "power": 5, "toughness": 0, "assigns_toughness": True, "attacking": "opp"}])
    assert [a.to_json() for a in Combat(doc).assignments()] == [{"a": {}}]


def test_as_though_unblocked_non_trampler():  # 510.1c, and the card's "as though it weren't blocked"
    # 3/3 blocked by a 2/2 and a 1/1: 4 splits over the blockers, or all 3 to the player
    doc = board(
        [
            {
                "id": "a",
                "power": 3,
                "toughness": 3,
                "attacking": "opp",
                "blocked_by": ["x", "y"],
                "as_though_unblocked": True,
            }
        ],
        [{"id": "x", "power": 1, "toughness": 2}, {"id": "y", "power": 1, "toughness": 1}],
    )
    combat = Combat(doc)
    assert combat.count() == 5
    assert combat.check({"a": {"opp": 3}}).legal
    bad = combat.check({"a": {"x": 1, "opp": 2}})  # not both ways at once
    assert not bad.legal and bad.violations[0].rule == "510.1c"
    assert combat.solve("max-damage").objectives["max-damage"] == 3


def test_as_though_unblocked_trampler_is_counted_once():  # 702.19b with the option
    # 4/4 trampler blocked by a 1/2 and a 1/1
    doc = board(
        [
            {
                "id": "a",
                "power": 4,
                "toughness": 4,
                "keywords": ["trample"],
                "attacking": "opp",
                "blocked_by": ["x", "y"],
                "as_though_unblocked": True,
            }
        ],
        [{"id": "x", "power": 1, "toughness": 2}, {"id": "y", "power": 1, "toughness": 1}],
    )
    plain = dict(doc, attackers=[{k: v for k, v in doc["attackers"][0].items() if k != "as_though_unblocked"}])
    n_plain = Combat(plain).count()
    # the option adds only "all 4 to the player", which trample alone does not allow (x and y need 3 first)
    assert Combat(doc).count() == n_plain + 1 == len(brute_force(doc))


def test_as_though_unblocked_after_the_blockers_left():  # 510.1c: no blocker left and no trample: nothing
    doc = board(
        [{"id": "a", "power": 2, "toughness": 2, "attacking": "opp", "blocked": True, "as_though_unblocked": True}]
    )
    got = sorted(canon(a) for a in Combat(doc).assignments())
    assert got == sorted([canon({"a": {}}), canon({"a": {"opp": 2}})])


@pytest.mark.parametrize("kind", ["planeswalker", "battle"])
def test_as_though_unblocked_whose_target_left_combat_may_assign_nothing(kind):
    # 510.1c: a blocked attacker that "may assign its combat damage as though it weren't blocked" has two choices;
    # 506.4c: as though unblocked, its damage goes to what it attacks, which has left combat, so that way it assigns
    # nothing. 3 over its blockers x and y (4 splits) or nothing: 5 assignments (the brute force agrees).
    target = (
        {"planeswalkers": [{"id": "w", "controller": "opp", "loyalty": 3, "in_combat": False}]}
        if kind == "planeswalker"
        else {"battles": [{"id": "w", "protector": "opp", "defense": 3, "in_combat": False}]}
    )
    doc = board(
        [{"id": "a", "power": 3, "toughness": 3, "attacking": "w", "blocked_by": ["x", "y"]}],
        [{"id": "x", "power": 1, "toughness": 2}, {"id": "y", "power": 1, "toughness": 2}],
        **target,
    )
    doc["attackers"][0]["as_though_unblocked"] = True
    expected = assert_engines_match_brute(doc, "attacking")
    assert len(expected) == 5 and {"a": {}} in expected
    combat = Combat(doc)
    assert combat.check({"a": {}}).legal
    bad = combat.check({"a": {"w": 3}})
    assert not bad.legal and bad.violations[0].rule == "506.4c"
    assert combat.plan.source("a").unblocked.rule == "506.4c"
    # without the option it must assign all 3 to its blockers (510.1a, 510.1c): 4
    plain = dict(doc, attackers=[dict(doc["attackers"][0], as_though_unblocked=False)])
    assert Combat(plain).count() == 4 and not Combat(plain).check({"a": {}}).legal
    # nothing to choose when its blockers have left too: both ways assign nothing, one assignment
    gone = dict(doc, blockers=[dict(b, in_combat=False) for b in doc["blockers"]])
    assert [x.to_json() for x in Combat(gone).assignments()] == [{"a": {}}] == brute_force(gone)


def test_as_though_unblocked_refuses_the_canonical_order():
    doc = board(
        [{"id": "a", "power": 2, "toughness": 2, "attacking": "opp", "blocked_by": ["x"], "as_though_unblocked": True}],
        [{"id": "x", "power": 1, "toughness": 1}],
    )
    with pytest.raises(FormatError, match=r"^attackers\[0\]\.as_though_unblocked: the canonical order"):
        Combat(doc).rank({"a": {"x": 2}})


LEGACY_DOUBLE_BLOCK = board(
    [
        {"id": "a", "power": 2, "toughness": 2, "attacking": "opp", "blocked_by": ["w"]},
        {"id": "c", "power": 2, "toughness": 3, "attacking": "opp", "blocked_by": ["w"]},
    ],
    [{"id": "w", "power": 4, "toughness": 5, "damage_order": ["c", "a"]}],
    rules="legacy",
)


def test_legacy_blocker_order():  # 510.1d (before Nov 2024)
    # w orders c before a: 3 to c first (lethal), then the 4th point may go to a; (c 4), (c 3, a 1)
    combat = Combat(LEGACY_DOUBLE_BLOCK, side="defending")
    assert sorted(canon(a) for a in combat.assignments()) == sorted(
        [canon({"w": {"c": 4}}), canon({"w": {"c": 3, "a": 1}})]
    )
    bad = combat.check({"w": {"a": 2, "c": 2}})
    assert not bad.legal and bad.violations[0].rule == "510.1d (2024-09)"
    # the current rules have no order: 5 splits
    assert Combat(dict(LEGACY_DOUBLE_BLOCK, rules="current"), side="defending").count() == 5


def test_legacy_blocker_order_default_is_attacker_order():
    doc = dict(LEGACY_DOUBLE_BLOCK, blockers=[{"id": "w", "power": 4, "toughness": 5}])
    # a first (needs 2), then c: (a 4), (a 3, c 1), (a 2, c 2)
    assert Combat(doc, side="defending").count() == 3 == len(brute_force(doc, "defending"))


def test_banding_attacker_ignores_the_legacy_blocker_order():  # 702.22k
    doc = dict(LEGACY_DOUBLE_BLOCK)
    doc["attackers"] = [dict(doc["attackers"][0], keywords=["banding"]), doc["attackers"][1]]
    assert Combat(doc, side="defending").count() == 5 == len(brute_force(doc, "defending"))
    assert Combat(doc, side="defending").plan.source("w").chooser == "attacking"


def test_banding_blocker_ignores_the_attackers_legacy_order():  # 702.22j
    doc = board(
        [{"id": "a", "power": 3, "toughness": 3, "attacking": "opp", "blocked_by": ["x", "y"]}],
        [{"id": "x", "power": 1, "toughness": 2}, {"id": "y", "power": 1, "toughness": 2, "keywords": ["banding"]}],
        rules="legacy",
    )
    # in order: (x 3), (x 2, y 1); with banding any split: 4
    assert Combat(doc).count() == 4 == len(brute_force(doc))
    assert Combat(doc).plan.source("a").chooser == "defending"
    no_band = dict(doc, blockers=[doc["blockers"][0], {"id": "y", "power": 1, "toughness": 2}])
    assert Combat(no_band).count() == 2


def test_banding_keeps_trample_lethal():  # 702.22j: the other rules still apply
    doc = board(
        [{"id": "a", "power": 3, "toughness": 3, "keywords": ["trample"], "attacking": "opp", "blocked_by": ["x"]}],
        [{"id": "x", "power": 1, "toughness": 2, "keywords": ["banding"]}],
        rules="legacy",
    )
    assert not Combat(doc).check({"a": {"x": 1, "opp": 2}}).legal
    assert Combat(doc).count() == 2 == len(brute_force(doc))


def test_max_damage_with_the_option_over_brute():
    doc = board(
        [{"id": "a", "power": 5, "toughness": 5, "attacking": "opp", "blocked_by": ["x"], "as_though_unblocked": True}],
        [{"id": "x", "power": 1, "toughness": 1}],
    )
    assert max(total_to(brute_force(doc), "opp")) == 5
    assert Combat(doc).solve("max-damage").assignment.to_json() == {"a": {"opp": 5}}


@settings(max_examples=examples(60), deadline=None)
@given(scenarios(extras=True, step="first_strike", max_work=300))
def test_effects_capability_with_options_agrees_over_engines(doc):
    # the whole combat's first-step effects (EFFECTS capability): every engine that declares it, same counter
    from trample.outcome import regular_step_caps

    combat = Combat(load_scenario(doc), side="both")
    plan = combat.plan
    caps = regular_step_caps(combat.scenario)
    deathtouch = [combat.scenario.creature(s.source).has(Keyword.DEATHTOUCH) for s in plan.sources]
    names = [n for n in engine_names() if EFFECTS in get_engine(n).capabilities]
    for comp in plan.components:
        got = [get_engine(n).effects(plan, comp, caps, deathtouch) for n in names]
        assert all(g == got[0] for g in got), names
