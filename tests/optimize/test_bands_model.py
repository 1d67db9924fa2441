"""The interacting banding shape on the CP-SAT model (trample.optimize.bands): the other player divides *part* of
the solved side's damage (702.22j: attackers blocked by a creature with banding are divided by the defending
player, the others by the active player; 702.22k: blockers blocking a creature with banding are divided by the
active player, the others by the defending player), so the two players' parts of the line share recipients
(marked damage, deaths, overkill, the player's life, poison and commander damage) and legality (510.1e).

Checked on generated boards with banding on some blockers (or one attacker) and not others, both sides solved,
every objective, other effects mixed in: against the listing (the reference path,
:func:`trample.optimize.listing.solve_by_outcome`: same status, values, assignment with the tie-break, lethal
report and reply) and, for the active player, against the brute force written from the rules
(tests/oracles/brute.py, tests/oracles/brute_combat.py: the step played by both players)."""

from __future__ import annotations

import copy
import json
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import examples, outcome_effects
from test_effects_model import OBJECTIVE_LISTS, _oriented, _same, oracle_line, oracle_optimum

from trample import Combat
from trample.optimize import bands, effects, parse_objectives
from trample.optimize.listing import solve_by_outcome
from trample.step import DamageStep


@pytest.fixture(autouse=True)
def _model_errors_are_not_hidden(monkeypatch):
    monkeypatch.setattr(effects, "USE_MODEL", "strict")


@st.composite
def banded_boards(draw, side: str) -> dict:
    """Two or three attackers, two to four blockers (some blocking two attackers: shared recipients). ``side``
    "attacking": banding on a blocker of the first attacker, none on the last one's blockers (702.22j for some
    attackers only); "defending": banding on the first attacker, and some blocker blocks only others (702.22k for
    some blockers only)."""
    n_att = draw(st.integers(2, 3))
    n_blk = draw(st.integers(2, 4))
    attack_kw = st.lists(st.sampled_from(["trample", "deathtouch", "lifelink", "infect", "wither"]), max_size=2)
    block_kw = st.lists(st.sampled_from(["lifelink", "deathtouch", "indestructible", "banding"]), max_size=2)
    blockers = [
        {
            "id": f"b{j}",
            "power": draw(st.integers(0, 3)),
            "toughness": draw(st.integers(1, 4)),
            "keywords": sorted(set(draw(block_kw))),
        }
        for j in range(n_blk)
    ]
    attackers = []
    for i in range(n_att):
        blocked = draw(st.lists(st.sampled_from([b["id"] for b in blockers]), min_size=1, max_size=2, unique=True))
        attackers.append(
            {
                "id": f"a{i}",
                "power": draw(st.integers(1, 4)),
                "toughness": draw(st.integers(1, 5)),
                "keywords": sorted(set(draw(attack_kw)) | ({"trample"} if draw(st.booleans()) else set())),
                "attacking": "opp",
                "blocked_by": sorted(blocked),
            }
        )
    doc = {"players": [{"id": "opp", "life": draw(st.sampled_from([2, 4, 6, 20]))}], "attackers": attackers}
    doc["blockers"] = blockers
    for c in attackers:
        c["keywords"] = [k for k in c["keywords"] if k != "banding"]
    if side == "attacking":
        last = set(attackers[-1]["blocked_by"])
        for b in blockers:
            if b["id"] in last:
                b["keywords"] = [k for k in b["keywords"] if k != "banding"]
        first = [b for b in blockers if b["id"] in attackers[0]["blocked_by"] and b["id"] not in last]
        if not first:  # give the first attacker a blocker of its own
            first = [{"id": "band", "power": 1, "toughness": 2, "keywords": []}]
            blockers.append(first[0])
            attackers[0]["blocked_by"].append("band")
        first[0]["keywords"] = sorted({*first[0]["keywords"], "banding"})
    else:
        for b in blockers:
            b["keywords"] = [k for k in b["keywords"] if k != "banding"]
        attackers[0]["keywords"] = [*attackers[0]["keywords"], "banding"]
        own = {"id": "free", "power": 1, "toughness": 2, "keywords": []}
        blockers.append(own)  # blocks another attacker only: the defending player divides it
        attackers[-1]["blocked_by"].append("free")
    if draw(st.booleans()):
        doc = draw(outcome_effects(doc))
        for c in doc["attackers"] + doc["blockers"]:  # outcome_effects never adds banding; keep the shape
            c["keywords"] = sorted(set(c.get("keywords", [])))
    if draw(st.booleans()):
        doc["players"][0]["poison"] = draw(st.sampled_from([6, 9]))
    if draw(st.sampled_from([False, False, True])):  # 702.19c: a planeswalker's loyalty gates both parts
        doc["planeswalkers"] = [{"id": "pw", "controller": "opp", "loyalty": draw(st.integers(1, 4))}]
        for a in doc["attackers"]:
            if draw(st.booleans()):
                a["attacking"] = "pw"
                a["keywords"] = sorted({*a["keywords"], "trample_over_planeswalkers"})
    return doc


def _check(doc: dict, side: str, names) -> None:
    step = DamageStep(doc, side=side)
    objs = parse_objectives(names, step.scenario)
    assert effects.solve_by_model(step, objs) is None  # the separable shapes' model leaves it to optimize.bands
    got = bands.solve_by_model(step, objs)
    assert got is not None  # the interacting shape is solved on the model (these boards are far below the bounds)
    _same(got, solve_by_outcome(step, objs))
    if side == "attacking":  # the active player's part against the brute force (the step as a game)
        assert _oriented(got.objectives, names) == oracle_optimum(doc, names)
        line = {**got.assignment.to_json(), **(got.reply.to_json() if got.reply is not None else {})}
        assert {n: Fraction(v) for n, v in oracle_line(doc, line, names).items()} == {
            n: Fraction(v) for n, v in got.objectives.items()
        }


def _partial(doc: dict, side: str) -> bool:
    """Does the other player divide some, not all, of ``side``'s damage (read by the plan)?"""
    step = DamageStep(doc, side=side)
    plan = step.plan
    moved = [plan.sources[i].chooser != side for i, _ in plan.columns]
    return any(moved) and not all(moved)


@settings(max_examples=examples(100), deadline=None)
@given(st.data())
def test_attackers_partly_divided_by_the_defending_player(data):
    # 702.22j for some attackers only, 510.1e (gates counting both players' parts), 510.2 (the reply at once),
    # 615, 702.16e, 614.1a, 702.15b, 702.90, 702.80b, 702.164c, 704.5a/c/f/g/h, 704.6c mixed in
    doc = data.draw(banded_boards("attacking"))
    names = data.draw(st.sampled_from(OBJECTIVE_LISTS))
    names = [n for n in names if n != "max-damage:p0"] or ["max-damage"]
    if not _partial(doc, "attacking"):  # e.g. the banded attacker deals no damage: no column moved
        return
    _check(doc, "attacking", names)


@settings(max_examples=examples(60), deadline=None)
@given(st.data())
def test_blockers_partly_divided_by_the_active_player(data):
    # 702.22k for some blockers only (side defending: the active player divides the blockers blocking the band)
    doc = data.draw(banded_boards("defending"))
    names = data.draw(st.sampled_from(OBJECTIVE_LISTS[:9]))
    names = [n for n in names if n != "max-damage:p0"] or ["max-damage"]
    if not _partial(doc, "defending"):
        return
    _check(doc, "defending", names)


def test_the_issue_board():  # 702.22j, 702.19b/c, 510.1e: b2 is shared by a1 (divided by opp) and a2
    doc = json.loads((Path(__file__).parent.parent / "data" / "banding_shared.json").read_text())
    _check(doc, "attacking", ["lethal", "max-kills", "min-overkill"])
    result = Combat(doc).solve("lethal,max-kills,min-overkill")
    assert result.solves > 0  # on the model, not listed


@pytest.mark.parametrize("bound", ["MAX_GROUPS", "MAX_KEYS"])
def test_the_listing_answers_past_the_bound(monkeypatch, bound):
    doc = json.loads((Path(__file__).parent.parent / "data" / "banding_shared.json").read_text())
    monkeypatch.setattr(bands, bound, 1)
    result = Combat(doc).solve("lethal,max-kills,min-overkill")
    assert result.solves == 0  # the listing makes no CP-SAT solve
    monkeypatch.setattr(bands, bound, 10**6)
    assert Combat(copy.deepcopy(doc)).solve("lethal,max-kills,min-overkill").objectives == result.objectives


def test_the_group_bound_counts_groups_not_keys(monkeypatch):
    # the bench's four-trampler board (702.22j on a1 and a4): 290 keys read as 88 groups, so a bound between the
    # two leaves it on the model
    doc = {
        "players": [{"id": "opp", "life": 20}],
        "attackers": [
            {
                "id": f"a{i + 1}",
                "power": p,
                "toughness": p,
                "keywords": ["trample"],
                "attacking": "opp",
                "blocked_by": b,
            }
            for i, (p, b) in enumerate(zip((12, 10, 8), [["b1", "b2"], ["b2", "b3"], ["b4"]]))
        ]
        + [
            {
                "id": "a4",
                "power": 6,
                "toughness": 5,
                "keywords": ["trample"],
                "attacking": "opp",
                "blocked_by": ["b1", "b5"],
            }
        ],
        "blockers": [
            {"id": "b1", "power": 2, "toughness": 3, "keywords": ["banding"]},
            {"id": "b2", "power": 2, "toughness": 3},
            {"id": "b3", "power": 3, "toughness": 2},
            {"id": "b4", "power": 1, "toughness": 4},
            {"id": "b5", "power": 2, "toughness": 3},
        ],
    }
    step = DamageStep(doc, side="attacking")
    objs = parse_objectives(["lethal", "max-kills", "min-overkill"], step.scenario)
    other = effects.separable(step)[0]
    monkeypatch.setattr(bands, "MAX_KEYS", 290)
    monkeypatch.setattr(bands, "MAX_GROUPS", 88)
    assert bands.solve_interacting(step, objs, other) is not None  # on the model
    monkeypatch.setattr(bands, "MAX_GROUPS", 87)
    assert bands.solve_interacting(step, objs, other) is None  # the listing answers
    monkeypatch.setattr(bands, "MAX_GROUPS", 88)
    monkeypatch.setattr(bands, "MAX_KEYS", 289)
    assert bands.solve_interacting(step, objs, other) is None


@st.composite
def twin_bands(draw) -> dict:
    """Two attackers blocked by one banding blocker (702.22j: the defending player divides both) and a third the
    active player divides (listed first, between or last: the order of the hits, 615.7), all three blocked by one
    more blocker (a shared recipient) and trampling over to the player (another): the twins' columns into one
    recipient count alike unless their qualities or an effect tell them apart (then the model reads their total,
    bands._Encoded._classes). The effects: on the recipients only (shields, "plus", 615.7, 614.1a) and toxic
    alike on the twins (702.164c), or any (strategies.outcome_effects)."""
    twin = draw(st.sampled_from([[], ["deathtouch"], ["infect"], ["lifelink"]]))
    other = twin if draw(st.booleans()) else draw(st.sampled_from([[], ["deathtouch"], ["wither"]]))
    roles = [(twin, ["band", "shared"]), (other, ["band", "shared"]), ([], ["shared", "b2"])]
    where = draw(st.integers(0, 2))  # where the third attacker is listed
    roles.insert(where, roles.pop())
    attackers = [
        {
            "id": f"a{i}",
            "power": draw(st.integers(1, 3)),
            "toughness": 2,
            "keywords": sorted({"trample", *kw}),
            "attacking": "opp",
            "blocked_by": blocked,
        }
        for i, (kw, blocked) in enumerate(roles)
    ]
    blockers = [
        {"id": "band", "power": 1, "toughness": draw(st.integers(1, 3)), "keywords": ["banding"]},
        {"id": "shared", "power": draw(st.integers(0, 2)), "toughness": draw(st.integers(1, 4)), "keywords": []},
        {"id": "b2", "power": 0, "toughness": draw(st.integers(1, 3)), "keywords": []},
    ]
    doc = {"players": [{"id": "opp", "life": draw(st.sampled_from([2, 4, 6]))}], "attackers": attackers}
    doc["blockers"] = blockers
    effects_on = draw(st.sampled_from(["none", "recipients", "any"]))
    if effects_on == "recipients":
        for r in (doc["players"][0], blockers[1]):
            if draw(st.booleans()):
                r["prevent"] = draw(st.integers(1, 3))
            if draw(st.booleans()):
                r["takes"] = draw(st.lists(st.sampled_from([{"times": 2}, {"plus": 1}]), min_size=1, max_size=2))
        toxic = draw(st.integers(0, 2))
        for a in attackers:
            if "band" in a["blocked_by"]:
                a["toxic"] = toxic
    elif effects_on == "any":
        doc = draw(outcome_effects(doc))
        for c in doc["attackers"] + doc["blockers"]:
            c["keywords"] = sorted(set(c.get("keywords", [])))
    return doc


@settings(max_examples=examples(120), deadline=None)
@given(st.data())
def test_two_attackers_divided_by_the_defending_player_share_recipients(data):
    # 702.22j (both attackers blocked by the banding blocker), 510.1e, 702.19b/c; 615.7, 614.1a, 702.164c,
    # 702.2c, 702.90b, 702.15b: the effects that make the twins' columns count apart
    doc = data.draw(twin_bands())
    names = data.draw(st.sampled_from(OBJECTIVE_LISTS))
    names = [n for n in names if n != "max-damage:p0"] or ["max-damage"]
    if not _partial(doc, "attacking"):
        return
    _check(doc, "attacking", names)


def test_twins_with_other_keywords_count_apart():
    # 702.22j; 702.2c (a1's deathtouch kills "shared" with 1) and 702.15b: a0's and a1's damage into one
    # recipient must not be read as one total (a regression board: their sum read as a0's missed the kill)
    twin = {"toughness": 2, "attacking": "opp", "blocked_by": ["band", "shared"]}
    doc = {
        "players": [{"id": "opp", "life": 4}],
        "attackers": [
            {"id": "a0", "power": 1, "keywords": ["lifelink", "trample"], **twin},
            {"id": "a1", "power": 3, "keywords": ["deathtouch", "trample"], **twin},
            {
                "id": "a2",
                "power": 1,
                "toughness": 2,
                "keywords": ["trample"],
                "attacking": "opp",
                "blocked_by": ["shared", "b2"],
            },
        ],
        "blockers": [
            {"id": "band", "power": 1, "toughness": 2, "keywords": ["banding"]},
            {"id": "shared", "power": 1, "toughness": 2},
            {"id": "b2", "power": 0, "toughness": 1},
        ],
    }
    for names in (["lethal", "max-kills", "min-overkill"], ["min-overkill"], ["max-kills"]):
        _check(doc, "attacking", names)


def test_twins_under_a_plus_modifier_count_apart():
    # 702.22j; 614.1a: "shared" takes 1 more from each source that deals it damage, so 2 + 3 from the twins is
    # not 5 from one of them (a regression board for the totals of bands._Encoded._classes); 615.7 on the player
    twin = {"toughness": 2, "keywords": ["trample"], "attacking": "opp", "blocked_by": ["band", "shared"]}
    doc = {
        "players": [{"id": "opp", "life": 6, "prevent": 3}],
        "attackers": [
            {"id": "a0", "power": 2, **twin},
            {"id": "a1", "power": 3, **twin},
            {
                "id": "a2",
                "power": 2,
                "toughness": 2,
                "keywords": ["trample"],
                "attacking": "opp",
                "blocked_by": ["shared", "b2"],
            },
        ],
        "blockers": [
            {"id": "band", "power": 1, "toughness": 3, "keywords": ["banding"]},
            {"id": "shared", "power": 2, "toughness": 4, "takes": [{"plus": 1}]},
            {"id": "b2", "power": 0, "toughness": 2},
        ],
    }
    for names in (["lethal", "max-kills", "min-overkill"], ["min-overkill"], ["max-damage"]):
        _check(doc, "attacking", names)


@st.composite
def saturating_boards(draw) -> dict:
    """:func:`banded_boards` (banding on a blocker of the first attacker, 702.22j) with more power than the
    recipients need (toughness 1 to 2, life 1 to 3, power 3 to 7): the other player's amount into a shared or own
    recipient passes its threshold (lethal damage, loyalty, life) by two or more, where bands._Encoded._saturated
    reads the unit from its encodings at the threshold (sometimes with effects that keep it from doing so)."""
    doc = draw(banded_boards("attacking"))
    for a in doc["attackers"]:
        a["power"] = draw(st.integers(3, 7))
    for b in doc["blockers"]:
        b["toughness"] = min(b.get("toughness", 1), draw(st.integers(1, 2)))
    doc["players"][0]["life"] = draw(st.integers(1, 3))
    return doc


def _solve_twice(doc: dict, names) -> tuple:
    """bands.solve_by_model with the saturated units read from their threshold's encodings, and encoded one by
    one (the path before it)."""
    step = DamageStep(doc, side="attacking")
    objs = parse_objectives(names, step.scenario)
    got = bands.solve_by_model(step, objs)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(bands._Encoded, "_top", lambda self, kind, n: None)
        ref = bands.solve_by_model(DamageStep(doc, side="attacking"), objs)
    return step, objs, got, ref


@settings(max_examples=examples(60), deadline=None)
@given(st.data())
def test_saturated_units_read_as_encoded(data):
    # 702.22j, 704.5a/g/i, 702.2c: past its threshold a plain unit's objectives are affine in the amount; the
    # model built from the threshold's encodings answers as the one encoding every amount (the same status,
    # values, assignment, lethal report and reply), and as the listing (the active player's part against the
    # brute force where the board is small)
    doc = data.draw(saturating_boards())
    names = data.draw(st.sampled_from(OBJECTIVE_LISTS))
    names = [n for n in names if n != "max-damage:p0"] or ["max-damage"]
    if not _partial(doc, "attacking"):
        return
    step, objs, got, ref = _solve_twice(doc, names)
    assert (got is None) == (ref is None)
    if got is None:
        return
    _same(got, ref)
    if step.count() <= 400:
        _same(got, solve_by_outcome(step, objs))
    if step.count() <= 60:
        assert _oriented(got.objectives, names) == oracle_optimum(doc, names)


def test_saturated_units_on_the_bench_board():
    # the bench's three tramplers 12/10/8 (702.22j on a1, b2 shared with a2): a1's amounts into b2 (need 3) and
    # into the player pass their thresholds; the same answer as encoding every amount; at 6/5/4 as the listing
    # and the brute force
    doc = json.loads((Path(__file__).parent.parent / "data" / "banding_shared.json").read_text())
    for a, p in zip(doc["attackers"], (12, 10, 8)):
        a["power"] = p
    doc["players"][0]["life"] = 6
    for names in (["lethal", "max-kills", "min-overkill"], ["max-damage"], ["min-overkill"], ["max-value"]):
        step, objs, got, ref = _solve_twice(doc, names)
        assert got is not None
        _same(got, ref)
    for a, p in zip(doc["attackers"], (6, 5, 4)):  # small enough for the listing and the brute force
        a["power"] = p
    doc["players"][0]["life"] = 3
    _check(doc, "attacking", ["lethal", "max-kills", "min-overkill"])


def _model_built(doc: dict, names, apart: bool | None) -> str:
    """The CP-SAT model bands.solve_interacting builds (before its solves), as text; ``apart`` False: each group's
    sum of pieces merged as Lin (the path before bands._sum_expr)."""
    built = []
    finish = bands._finish

    def keep(step, objs, em, *rest):
        built.append(str(em.m.Proto()))
        return finish(step, objs, em, *rest)

    step = DamageStep(doc, side="attacking")
    objs = parse_objectives(names, step.scenario)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(bands, "_finish", keep)
        if apart is False:
            mp.setattr(bands, "_apart", lambda *args: False)
        bands.solve_by_model(step, objs)
    return built[0] if built else ""


@settings(max_examples=examples(60), deadline=None)
@given(st.data())
def test_group_sums_written_as_they_stand_build_the_same_model(data):
    # 702.22j: the groups' values written without merging their pieces (they share no variable) are the very
    # model the merged sums built: the same variables, constraints and coefficients in the same order
    doc = data.draw(st.one_of(banded_boards("attacking"), saturating_boards(), twin_bands()))
    names = data.draw(st.sampled_from(OBJECTIVE_LISTS))
    names = [n for n in names if n != "max-damage:p0"] or ["max-damage"]
    if not _partial(doc, "attacking"):
        return
    assert _model_built(doc, names, None) == _model_built(doc, names, False)
