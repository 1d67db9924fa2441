"""The shortcuts of the effect boards' models (to solve effect boards within 3x of the same boards without effects)
give the answers of the paths they replace, on generated boards:

- CP-SAT's core-based optimisation (``model.CORE_PARAMS``, used by :mod:`trample.optimize.effects` and
  :mod:`trample.optimize.bands` with the tie-break) against the lean settings they used before: the same status,
  values, assignment (the one smallest vector), lethal report and reply -- and both against the listing;
- :func:`trample.optimize.effects.unit_objective` (one unit's objective, read directly) against
  :func:`trample.optimize.effects.objective_of` kept to that unit: the same expression;
- the packed sum's weights of :mod:`trample.optimize.bands` (``_Encoded.weights``, over the groups in numpy)
  against the loop over every group it replaced.

Rules: 510.1 and 510.2 (each player's part, dealt at once), 702.22j/k (banding moves a division), 510.1e (gates
counting both parts), 614.1a (doubling), 615.7 (shields), 702.15b, 702.90, 702.80b, 702.164c, 704.5a/c/f/g/h/i,
704.6c as the generated boards mix them."""

from __future__ import annotations

import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import examples, with_banding
from test_bands_model import _partial, banded_boards
from test_effects_model import OBJECTIVE_LISTS, _same, generated_effect_boards

from trample.optimize import bands, effects, parse_objectives
from trample.optimize.effects import content, objective_of, prepare, separable, unit_objective
from trample.optimize.listing import solve_by_outcome
from trample.optimize.model import LEAN_PARAMS, PACK_LIMIT
from trample.step import DamageStep, ordered_splits


@pytest.fixture(autouse=True)
def _model_errors_are_not_hidden(monkeypatch):
    monkeypatch.setattr(effects, "USE_MODEL", "strict")


def _lean(step: DamageStep, objs):
    """The answer with the lean settings the effect boards' models used before ``CORE_PARAMS``."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(effects, "CORE_PARAMS", LEAN_PARAMS)
        mp.setattr(bands, "CORE_PARAMS", LEAN_PARAMS)
        return bands.solve_by_model(step, objs)


def _doubled(doc: dict, times: int) -> dict:
    """The board with every attacker's damage multiplied (614.1a): the doubling row of bench_effects."""
    for a in doc["attackers"]:
        a["deals"] = [*a.get("deals", []), {"times": times}]
    return doc


@settings(max_examples=examples(120), deadline=None)
@given(st.data())
def test_core_settings_answer_as_the_lean_ones_on_effect_boards(data):
    # 510.1, 510.2, 614.1a, 615.7, 702.15b, 702.90, 702.80b, 702.164c, 704.5: the one smallest optimal vector
    doc = data.draw(generated_effect_boards())
    if data.draw(st.booleans()):
        doc = _doubled(doc, data.draw(st.integers(2, 3)))
    if data.draw(st.booleans()):
        doc = data.draw(with_banding(doc))
    side = data.draw(st.sampled_from(["attacking", "attacking", "defending", "both"]))
    names = [n for n in data.draw(st.sampled_from(OBJECTIVE_LISTS)) if n != "max-damage:p0" or "p0" in str(doc)]
    step = DamageStep(doc, side=side)
    objs = parse_objectives(names, step.scenario)
    got = bands.solve_by_model(step, objs)
    if got is None:  # the listing answers (both players divide some of the other's damage)
        return
    _same(got, _lean(DamageStep(doc, side=side), objs))
    _same(got, solve_by_outcome(DamageStep(doc, side=side), objs))


@settings(max_examples=examples(60), deadline=None)
@given(st.data())
def test_core_settings_answer_as_the_lean_ones_on_interacting_banding(data):
    # 702.22j/k for some sources only, 510.1e: optimize.bands' model
    side = data.draw(st.sampled_from(["attacking", "defending"]))
    doc = data.draw(banded_boards(side))
    names = [n for n in data.draw(st.sampled_from(OBJECTIVE_LISTS[:9]))]
    if not _partial(doc, side):
        return
    step = DamageStep(doc, side=side)
    objs = parse_objectives(names, step.scenario)
    got = bands.solve_by_model(step, objs)
    assert got is not None
    _same(got, _lean(DamageStep(doc, side=side), objs))


def _units(step: DamageStep, em) -> list[tuple[bool, str]]:
    """Every unit an objective can read: each object's damage, kill or overkill, each player's loss too."""
    s = step.scenario
    players = {p.id for p in s.players}
    ids = {r for _, r in step.plan.columns} | set(em.killable) | set(em.walkers) | players
    ids |= {c.id for c in (*s.attackers, *s.blockers)}
    return [(player, i) for i in sorted(ids) for player in (False, True) if not player or i in players]


@settings(max_examples=examples(100), deadline=None)
@given(st.data())
def test_unit_objective_is_objective_of_kept_to_the_unit(data):
    # every objective, every unit (a recipient's damage, kill, overkill; a player's loss), every reply profile
    doc = data.draw(generated_effect_boards())
    if data.draw(st.booleans()):
        doc = _doubled(doc, 2)
    side = data.draw(st.sampled_from(["attacking", "defending"]))
    step = DamageStep(doc, side=side)
    names = ["lethal", "max-damage", "max-kills", "max-value", "min-overkill"]
    if "p0" in str(doc):
        names.append("max-damage:p0")
    try:
        objs = parse_objectives(names, step.scenario)
        other, _, theirs, partial = separable(step)
    except (effects.NotSeparable, ValueError):
        return
    ready = prepare(step, objs, other, [] if partial else theirs, time.perf_counter())
    if not isinstance(ready, effects.Prepared):
        return
    em = ready.em
    for prof in {p.key: p for ps in ready.choices for p in ps}.values():
        for unit in _units(step, em):
            for o in objs:
                direct = unit_objective(em, o, prof, ready.scale, unit)
                kept = objective_of(em, o, prof, ready.scale, lambda k, i, unit=unit: (k, i) == unit)
                assert content(direct) == content(kept), (unit, o.name)


def _reference_weights(enc) -> tuple[list[int], list[int], int] | None:
    """The packed sum's (lows, weights, range) by the loop over every group and profile (the previous code)."""
    lows, highs = [], []
    ps = range(len(enc.profiles))
    xs = [[lin.bounds() for lin in ls] for ls in enc.xs]
    of_unit = {id(u): [[lin.bounds() for lin in ls] for ls in u[1]] for us in enc.parts.values() for u in us}
    for j, o in enumerate(enc.objs):
        bounds = [lins[j].bounds() for lins in enc.full]
        for key, owns in enc.own.items():
            units = [of_unit[id(u)] for u in enc.parts[key]]
            for p in ps:
                lo = xs[p][j][0] + sum(u[p][j][0] for u in units)
                hi = xs[p][j][1] + sum(u[p][j][1] for u in units)
                consts = [enc.own_values[i][p][j] for i in owns]
                bounds.append((lo + min(consts), hi + max(consts)))
        lo, hi = min(b[0] for b in bounds), max(b[1] for b in bounds)
        lows.append(lo if o.maximize else -hi)
        highs.append(hi if o.maximize else -lo)
    weights, w = [], 1
    for j in reversed(range(len(enc.objs))):
        weights.append(w)
        w *= highs[j] - lows[j] + 1
    weights.reverse()
    return None if w > PACK_LIMIT else (lows, weights, w)


@settings(max_examples=examples(80), deadline=None)
@given(st.data())
def test_bands_weights_are_the_loops(data):
    # 702.22j/k, 510.1e: the packed sum's bounds over every group, profile and objective
    side = data.draw(st.sampled_from(["attacking", "defending"]))
    doc = data.draw(banded_boards(side))
    names = data.draw(st.sampled_from(OBJECTIVE_LISTS[:9]))
    if not _partial(doc, side):
        return
    seen = []
    weights = bands._Encoded.weights

    def checked(enc):
        got = weights(enc)
        assert got == _reference_weights(enc)
        seen.append(got)
        return got

    step = DamageStep(doc, side=side)
    objs = parse_objectives(names, step.scenario)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(bands._Encoded, "weights", checked)
        assert bands.solve_by_model(step, objs) is not None
    assert seen  # the interacting shape was encoded


@settings(max_examples=examples(100), deadline=None)
@given(
    st.lists(st.lists(st.integers(0, 4), min_size=3, max_size=3), min_size=0, max_size=90),
    st.integers(0, 3),
)
def test_labels_of_a_few_rows_are_numpys(rows, width):
    # bands._labels: the dict path for a few rows, and the table of codes (the least index per code), give
    # numpy's labels (each row's index among the distinct rows in the order they first appear, each distinct
    # row's first index)
    a = np.array(rows, dtype=np.int64).reshape(len(rows), 3)[:, :width]
    small = bands._labels(a)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(bands, "SMALL_ROWS", -1)
        dense = bands._labels(a)
        mp.setattr(bands, "DENSE_CODES", -1)
        ref = bands._labels(a)
    for got in (small, dense):
        assert got[0].tolist() == ref[0].tolist()
        assert got[1].tolist() == ref[1].tolist()


@settings(max_examples=examples(100), deadline=None)
@given(st.integers(0, 12), st.integers(1, 4))
def test_splits_as_rows_are_ordered_splits(total, parts):
    # 510.1a: bands._splits lists a source's divisions over its routes as step.ordered_splits does, in its order
    assert bands._splits(total, parts).tolist() == [list(t) for t in ordered_splits(total, parts)]
