"""Rank, unrank and sample on the elimination tables, a source at a time (trample.engines.ordered, issue 21).

The oracle is the brute force (tests/oracles/brute.py, written from the rules): its legal assignments, sorted by the
canonical key of docs/scale.md (each component's vector over its columns, components in plan order,
lexicographically), must be exactly ``unrank(0), unrank(1), ...``; every vector the brute force does not list must
have no rank. On boards too big
to list, the programme is checked against the column programme (trample.engines.direct.ComponentDP), which ranks in
the same documented order by another method. Sampling is checked for uniformity with a chi-square statistic.
"""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest
from brute import brute_force
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from strategies import scenarios
from test_perf_paths import overlapping_boards

from benchmarks.boards import dense_pairs, pw_cycle, random_sharing, star, unblocked_chain
from trample import Combat, indexing
from trample.engines import PROGRAMME, direct, get_engine, ordered
from trample.engines.by_source import compositions
from trample.engines.direct import ComponentDP
from trample.engines.ordered import SourceProgramme
from trample.models import load_scenario


@pytest.fixture(autouse=True)
def _source_by_source(monkeypatch):
    # ranking tries the column programme first (engines.direct.COLUMN_TRIAL); these tests hold the source
    # programme itself to the oracle, so they skip the trial
    monkeypatch.setattr(direct, "COLUMN_TRIAL", 0)
    # and the count's joins with the prefix fixed (tests/engines/test_conditioned.py holds those to the oracle)
    monkeypatch.setattr(direct, "CONDITIONED", False)
    # nor the closed form of a few shared gated blockers (tests/engines/test_shared.py holds it to the oracle)
    monkeypatch.setattr(direct, "SHARED", False)


def _canonical(combat, legal: list[dict]) -> list[tuple[int, ...]]:
    """The brute force's assignments as canonical keys (component vectors, components in plan order), sorted."""
    plan = combat.plan
    names = plan.source_names
    cols = [c for comp in plan.components for c in plan.component_columns(comp)]
    return sorted(tuple(a.get(names[i], {}).get(r, 0) for i, r in cols) for a in legal)


def _key(combat, assignment) -> tuple[int, ...]:
    plan = combat.plan
    return tuple(v for comp in plan.components for v in plan.vector(assignment, plan.component_columns(comp)))


def _against_the_oracle(sc: dict, side: str = "attacking", programme: type = SourceProgramme) -> int:
    """Every index of the brute force's assignments, in the canonical order, unranked and ranked back, with each
    component of several sources handed to ``programme`` (this module's: the source programme)."""
    combat = Combat(load_scenario(sc), side=side)
    engine = get_engine("direct", needs=[PROGRAMME])
    for comp in combat.plan.components:
        if len(comp) > 1:  # several sources: the programme under test
            assert isinstance(engine.programme(combat.plan, comp), programme)  # type: ignore[attr-defined]
    expected = _canonical(combat, brute_force(sc, side))  # 702.19b/c, 702.2c, 510.1a: written from the rules
    n = indexing.count(combat)
    assert n == len(expected)
    for i, key in enumerate(expected):
        a = indexing.unrank(combat, i)
        assert _key(combat, a) == key
        assert indexing.rank(combat, a) == i
    return n


SHAPES = [
    ("cycle through planeswalkers, 3", pw_cycle(3, power=3, loyalty=2)),
    ("cycle through planeswalkers, 4", pw_cycle(4, power=3, loyalty=1)),
    ("random sharing 3 on 4 (seed 1)", random_sharing(3, 4, per=2, seed=1, power=(2, 4))),
    ("random sharing 3 on 4 (seed 2)", random_sharing(3, 4, per=2, seed=2, power=(2, 4))),
    ("random sharing 4 on 5 (seed 3)", random_sharing(4, 5, per=2, seed=3, power=(1, 3))),
    ("star, 3", star(3, power=3, toughness=3)),
    ("dense pairs, 3", dense_pairs(3, power=3)),
]


@pytest.mark.parametrize("name,sc", SHAPES, ids=[n for n, _ in SHAPES])
def test_unrank_lists_the_brute_force_in_the_canonical_order(name, sc):  # 702.19b, 702.19c, 510.1a
    assert _against_the_oracle(sc) > 1


@settings(max_examples=120, deadline=None)
@given(scenarios(max_attackers=3, max_blockers=3), st.sampled_from(["attacking", "defending", "both"]))
def test_generated_scenarios_against_the_oracle(sc, side):  # 510.1a-d, 702.19b-e, 702.2c, 702.22j/k
    combat = Combat(load_scenario(sc), side=side)
    assume(not combat.plan.has_options)  # the canonical order does not cover as-though-unblocked (refused)
    assume(combat.count() <= 3000)
    _against_the_oracle(sc, side)


@settings(max_examples=60, deadline=None)
@given(overlapping_boards(max_attackers=4, max_blockers=4, max_power=4))
def test_overlapping_boards_against_the_oracle(sc):  # 702.19b, 702.19c, 702.2c
    combat = Combat(load_scenario(sc))
    assume(combat.count() <= 3000)
    _against_the_oracle(sc)


def _splits(total: int, parts: int):
    for cut in itertools.combinations(range(total + parts - 1), parts - 1):
        yield tuple(b - a - 1 for a, b in zip((-1, *cut), (*cut, total + parts - 1)))


@pytest.mark.parametrize("name,sc", SHAPES[:5], ids=[n for n, _ in SHAPES[:5]])
def test_only_legal_vectors_have_a_rank(name, sc):  # 702.19b, 702.19c: an illegal split has no index
    combat = Combat(load_scenario(sc))
    plan = combat.plan
    brute = brute_force(sc)
    names = plan.source_names
    for comp in plan.components:
        cols = plan.component_columns(comp)
        legal = {tuple(a.get(names[i], {}).get(r, 0) for i, r in cols) for a in brute}
        prog = get_engine("direct", needs=[PROGRAMME]).programme(plan, comp)  # type: ignore[attr-defined]
        per_source = [list(_splits(plan.sources[i].damage, len(plan.sources[i].routes))) for i in comp]
        seen = 0
        for combo in itertools.product(*per_source):
            vec = tuple(v for split in combo for v in split)
            r = prog.rank(vec)
            assert (r is not None) == (vec in legal)
            seen += r is not None
        assert seen == len(legal)


MEDIUM = [("cycle through planeswalkers, 6", pw_cycle(6))] + [
    (f"random sharing 6 on 8 (seed {s})", random_sharing(6, 8, per=3, seed=s)) for s in range(3)
]


@pytest.mark.parametrize("name,sc", MEDIUM, ids=[n for n, _ in MEDIUM])
def test_against_the_column_programme(name, sc):  # the same documented order, by another method
    plan = Combat(load_scenario(sc)).plan
    for comp in plan.components:
        if len(comp) < 2:
            continue
        new, old = SourceProgramme(plan, comp), ComponentDP(plan, comp)
        assert new.count() == old.count()
        rng = random.Random(7)
        for i in [0, 1, new.count() - 1, *(rng.randrange(new.count()) for _ in range(15))]:
            v = new.unrank(i)
            assert v == old.unrank(i)
            assert new.rank(v) == i == old.rank(v)


@pytest.mark.parametrize("name,sc", MEDIUM[:2], ids=[n for n, _ in MEDIUM[:2]])
def test_a_shifting_programme_ranks_the_same_before_and_after_the_shift(monkeypatch, name, sc):
    # the column programme's first trial too short to build: the source programme ranks and unranks, then, once the
    # unranks have paid for a trial long enough, the column programme does; the same vectors in the same order
    monkeypatch.setattr(direct, "COLUMN_TRIAL", 1e-9)
    plan = Combat(load_scenario(sc)).plan
    engine = get_engine("direct", needs=[PROGRAMME])
    for comp in plan.components:
        if len(comp) < 2:
            continue
        prog = engine.programme(plan, comp)  # type: ignore[attr-defined]
        assert isinstance(prog, direct.ShiftingProgramme) and prog.column is None
        old = ComponentDP(plan, comp)
        rng = random.Random(3)
        picks = [0, prog.count() - 1, *(rng.randrange(prog.count()) for _ in range(8))]
        prog.trial = math.inf  # no trial while the picks are unranked, however slow a loaded machine makes them
        before = [prog.unrank(i) for i in picks]
        assert prog.column is None
        prog.spent, prog.trial = 120.0, 120.0  # the unranks so far have paid for a trial of 120 s
        prog.unrank(0)
        assert prog.column is not None  # shifted: the column programme built within its trial
        assert engine.programme(plan, comp) is prog.column  # cached for the next callers  # type: ignore[attr-defined]
        after = [prog.unrank(i) for i in picks]
        assert before == after == [old.unrank(i) for i in picks]
        assert [prog.rank(v) for v in after] == picks


def test_many_draws_give_the_column_programme_its_long_trial(monkeypatch):
    # one unrank: a short trial, then the source programme; a sample of MANY draws: the long trial first
    monkeypatch.setattr(direct, "COLUMN_TRIAL", 1e-9)
    # the long trial's length is wall time: generous, so that a loaded machine still builds within it
    monkeypatch.setattr(direct, "COLUMN_TRIAL_MANY", 600.0)
    combat = Combat(load_scenario(pw_cycle(6)))
    (comp,) = [c for c in combat.plan.components if len(c) > 1]
    engine = get_engine("direct", needs=[PROGRAMME])
    assert isinstance(engine.programme(combat.plan, comp), direct.ShiftingProgramme)  # type: ignore[attr-defined]
    draws = indexing.sample(combat, direct.MANY, seed=5)
    assert isinstance(engine.programme(combat.plan, comp), ComponentDP)  # type: ignore[attr-defined]
    assert draws == indexing.sample(Combat(load_scenario(pw_cycle(6))), direct.MANY, seed=5)


def test_sample_is_uniform():  # chi-square over every assignment of a shared board, fixed seed, loose bound
    sc = random_sharing(3, 4, per=2, seed=1, power=(2, 4))
    combat = Combat(load_scenario(sc))
    n = combat.count()
    assert 20 <= n <= 400
    draws = 60 * n
    seen: dict[int, int] = {}
    for a in indexing.samples(combat, draws, seed=2024):
        i = indexing.rank(combat, a)
        seen[i] = seen.get(i, 0) + 1
    assert len(seen) == n  # every assignment is drawn
    expected = draws / n
    chi2 = sum((seen.get(i, 0) - expected) ** 2 / expected for i in range(n))
    df = n - 1
    assert chi2 < df + 6 * (2 * df) ** 0.5  # about 6 standard deviations of a chi-square with df degrees of freedom


@pytest.mark.parametrize("n,power", [(2, 3), (3, 3), (4, 2)])
def test_unblocked_chains_list_every_assignment_once(n, power):  # 510.1c: either way, each assignment once
    sc = unblocked_chain(n, power=power)
    combat = Combat(load_scenario(sc))
    names = combat.plan.source_names
    listed = [tuple(tuple(sorted(a[s].items())) for s in names) for a in combat.assignments()]
    expected = [tuple(tuple(sorted((r, x) for r, x in b[s].items() if x)) for s in names) for b in brute_force(sc)]
    assert len(listed) == len(set(listed)) == combat.count()
    assert sorted(listed) == sorted(expected)


def test_unblocked_chain_supports_and_lists_without_the_signed_variants(monkeypatch):  # 510.1c, per attacker
    # the 3^n signed variants are the count's inclusion-exclusion; listing must not build them (a chain of 10 took
    # 46-49 s and 2.8 GB for its first line)
    combat = Combat(load_scenario(unblocked_chain(10)))

    def refuse(*_):
        raise AssertionError("variants() built for listing")

    monkeypatch.setattr(type(combat.plan), "variants", refuse)
    assert get_engine("direct").supports(combat.plan, combat.plan.components[0])
    first = next(iter(combat.assignments()))
    assert combat.is_legal(first)


@pytest.mark.parametrize("first", ["rank", "list"])
def test_ranking_and_listing_one_combat_in_either_order(monkeypatch, first):
    # the ranking programme (a shifting wrapper) and the source lister are cached apart: a listing after an unrank
    # once found the wrapper where it expected the lister's programme (AttributeError)
    monkeypatch.setattr(direct, "COLUMN_TRIAL", 1e-9)
    combat = Combat(load_scenario(pw_cycle(6)))
    listed = list(itertools.islice(Combat(load_scenario(pw_cycle(6))).assignments(), 40))
    if first == "rank":
        assert indexing.unrank(combat, 5) == listed[5]
    got = list(itertools.islice(combat.assignments(), 40))
    assert got == listed
    assert [indexing.unrank(combat, i) for i in (0, 5, 39)] == [listed[0], listed[5], listed[39]]
    assert indexing.rank(combat, listed[7]) == 7


@pytest.mark.parametrize("scale", [1, 10**30])
@pytest.mark.parametrize("name,sc", SHAPES, ids=[n for n, _ in SHAPES])
def test_the_walks_one_pass_per_route_is_its_weighted_counts(monkeypatch, name, sc, scale):  # 702.19b/c, 510.1a
    # _Walk.profile weighs every amount of the next route in one numpy pass (a blocker that needs 50 000: one pass
    # where the bisection walked its totals 34 times); against the walk's counts one amount at a time, in the
    # routes' states as dicts (VECTOR_ROWS 0: route_states), on every prefix of every source's splits; ``scale``:
    # completions past int64 (Python integers in the pass)
    plan = Combat(load_scenario(sc)).plan
    seen = 0
    for comp in (c for c in plan.components if len(c) > 1):
        prog = SourceProgramme(plan, comp)
        for j, i in enumerate(comp):
            src = plan.sources[i]
            W = {k: w * scale for k, w in prog._weights_of(j, 0).items()}  # from the first state its cut reached
            walk = ordered.Walk(prog, j, W)
            for split in _splits(src.damage, len(src.routes)):
                for c in range(len(split) - 1):
                    got = walk.profile(split[:c])
                    monkeypatch.setattr(ordered, "VECTOR_ROWS", 0)
                    want = [walk.weighted([*split[:c], v], None) for v in range(len(got))]
                    monkeypatch.setattr(ordered, "VECTOR_ROWS", 1 << 20)
                    assert got.tolist() == want
                    seen += sum(w > 0 for w in want)
    assert seen


@pytest.mark.parametrize("name,sc", SHAPES[:3], ids=[n for n, _ in SHAPES[:3]])
def test_the_walk_ranks_alike_in_numpy_and_in_dicts(monkeypatch, name, sc):  # the same order by either path
    monkeypatch.setattr(ordered, "VECTOR_FROM", 0)  # numpy on every route, however few its amounts
    combat = Combat(load_scenario(sc))
    n = combat.count()
    want = [_key(combat, combat.unrank(i)) for i in range(n)]
    monkeypatch.setattr(ordered, "VECTOR_ROWS", 0)  # every route's states in dicts, the bisection on each route
    monkeypatch.setattr(ordered, "VECTOR_FROM", 1 << 30)
    combat = Combat(load_scenario(sc))
    assert [_key(combat, combat.unrank(i)) for i in range(n)] == want


def test_the_walks_compositions_are_exact_past_int64():  # stars and bars in numpy, against the one copy
    total = np.array([0, 1, 7, 10**3, 10**6, 10**6 - 1, 3], dtype=np.int64)
    for parts in range(6):
        got = ordered._compositions(total, np.full(len(total), parts, dtype=np.int64))
        assert [int(v) for v in got] == [compositions(int(t), parts) for t in total]
    mixed = ordered._compositions(total, np.array([0, 1, 2, 3, 4, 5, 0], dtype=np.int64))
    assert [int(v) for v in mixed] == [compositions(int(t), p) for t, p in zip(total, [0, 1, 2, 3, 4, 5, 0])]
    assert ordered._compositions(np.array([10**6]), np.array([5])).dtype == object  # 8.3 x 10^27


@pytest.mark.parametrize("seed", range(2))
def test_a_bounded_build_refuses_alike_whatever_its_first_slices(monkeypatch, seed):
    """A build under a work limit reads its forward steps' first pairs in small slices (FIRST_PAIRS, doubled) so it
    can refuse early: it builds, or refuses, as with full slices from the first, with the same count."""
    plan = Combat(load_scenario(random_sharing(7, 8, 3, seed=seed))).plan
    verdicts = {}
    for first in (ordered.PAIRS, 1, 1 << 6):
        monkeypatch.setattr(ordered, "FIRST_PAIRS", first)
        got = []
        for comp in (c for c in plan.components if len(c) > 1):
            for limit in (1 << 16, 1 << 18, 3 << 17, 1 << 19, 3 << 18, 1 << 20):  # (it builds from 2^19-2^20)
                try:
                    got.append(SourceProgramme(plan, comp, work_limit=limit).count())
                except ordered.TooWide:
                    got.append(None)
        verdicts[first] = got
    assert verdicts[1] == verdicts[ordered.PAIRS] == verdicts[1 << 6]
    assert None in verdicts[1] and any(v for v in verdicts[1])  # some refuse, some build


def _shared_square(n: int, power: int) -> dict:
    """``n`` identical tramplers all blocked by the same ``n`` blockers (bench_cliffs' `all shared` boards)."""
    return {
        "players": [{"id": "opp", "life": 20}],
        "blockers": [{"id": f"b{i}", "power": 1, "toughness": 2 + i % 3} for i in range(n)],
        "attackers": [
            {"id": f"a{i}", "power": power, "toughness": 5, "keywords": ["trample"], "attacking": "opp"}
            | {"blocked_by": [f"b{j}" for j in range(n)]}
            for i in range(n)
        ],
    }


def test_limbs_add_up_to_the_completions():  # the split of _backward's completions, exact in float64 per limb
    rng = np.random.default_rng(5)
    tw = rng.integers(0, 1000, 300).astype(np.int64)
    for nxt in (rng.integers(0, 1 << 62, 500).astype(np.int64), np.array([3**k for k in range(80)], dtype=object)):
        got = ordered._limbs(nxt, tw)
        assert got is not None
        parts, bits = got
        assert len(parts) > 1
        for part in parts:
            assert part.dtype == np.float64 and part.min() >= 0 and part.max() < 1 << bits
            assert int(part.max()) * int(tw.sum()) < ordered.EXACT_BOUND
        back = sum(part.astype(np.int64).astype(object) * (1 << (bits * k)) for k, part in enumerate(parts))
        assert back.tolist() == nxt.tolist()
    assert ordered._limbs(np.array([-1, 5], dtype=np.int64), tw) is None  # (completions are never negative)
    assert ordered._limbs(np.array([5], dtype=np.int64), np.array([1 << 40], dtype=np.int64)) is None


def _completions(plan, comp) -> tuple[list[list[int]], list[list[int]], int]:
    prog = SourceProgramme(plan, comp)
    return [c.tolist() for c in prog.codes], [[int(v) for v in g.tolist()] for g in prog.G], prog.count()


@pytest.mark.parametrize("bounds", [(1 << 14, 1 << 62), (1 << 14, 1 << 16), (1 << 53, 1 << 16)])
@pytest.mark.parametrize("sc", [_shared_square(3, 5), pw_cycle(5, power=4, loyalty=2)], ids=["square", "cycle"])
def test_completions_in_limbs_are_the_sums_in_python_integers(monkeypatch, bounds, sc):
    """Past float64's exact bound, _backward sums the completions in limbs of float64 (one BLAS product each), not
    in int64 or Python integers: the same completions. Lowered bounds make small boards take that path (and the
    Python integers' one, past the lowered int64 bound, where the limbs are off)."""
    plan = Combat(load_scenario(sc)).plan
    comp = next(c for c in plan.components if len(c) > 1)
    monkeypatch.setattr(ordered, "EXACT_BOUND", bounds[0])
    monkeypatch.setattr(ordered, "INT64_SAFE", bounds[1])
    monkeypatch.setattr(ordered, "LIMB_BITS", 2)
    taken = []
    real = ordered._limbs
    monkeypatch.setattr(ordered, "_limbs", lambda nxt, tw: taken.append(real(nxt, tw)) or taken[-1])
    with_limbs = _completions(plan, comp)
    limbs = [len(t[0]) for t in taken if t is not None]
    assert limbs and (max(limbs) > 1 or bounds[0] > 1 << 14)  # the path under test (several limbs, where few bits)
    monkeypatch.setattr(ordered, "_limbs", lambda nxt, tw: None)
    assert with_limbs == _completions(plan, comp)
    rows = np.concatenate(list(SourceProgramme(plan, comp).blocks(rows=1 << 12)))
    assert len(rows) == with_limbs[2] == Combat(load_scenario(sc)).count()


@pytest.mark.parametrize("sc", [_shared_square(5, 10), _shared_square(5, 3), random_sharing(6, 7, 3, seed=1)])
def test_a_repeated_forward_step_reaches_the_same_states(monkeypatch, sc):
    """Identical sources on the same blockers repeat the forward step before them once its states stop growing
    (_repeats): its states are taken as they are, not joined again. The codes, completions, rows and a bounded
    build's verdicts are those of the build that joins every step."""
    plan = Combat(load_scenario(sc)).plan
    comps = [c for c in plan.components if len(c) > 1]
    hits = []
    real = SourceProgramme._repeats
    monkeypatch.setattr(SourceProgramme, "_repeats", lambda self, j: hits.append(real(self, j)) or hits[-1])

    def built() -> list:
        got: list = [_completions(plan, c) for c in comps]
        blocks = [itertools.islice(SourceProgramme(plan, c).blocks(rows=1 << 12), 8) for c in comps]
        got += [np.concatenate(list(b)).tobytes() for b in blocks]  # (the first 32 768 rows)
        for c in comps:
            for limit in (1 << 12, 1 << 16, 1 << 20, 1 << 22, 1 << 23, 1 << 24):
                try:
                    got.append(SourceProgramme(plan, c, work_limit=limit).count())
                except ordered.TooWide:
                    got.append(None)
        return got

    fast = built()
    monkeypatch.setattr(SourceProgramme, "_repeats", lambda self, j: False)
    assert fast == built()
    assert any(hits) == ("b4" in str(sc) and "'power': 10" in str(sc))  # square(5, 10) repeats its fourth step


@pytest.mark.parametrize(
    "sc",
    [_shared_square(4, 3), pw_cycle(5, power=4, loyalty=2), random_sharing(5, 6, 3, seed=2, power=(2, 4))],
    ids=["square", "cycle", "random"],  # (the last two reach states without completions)
)
def test_the_listers_targets_by_one_gather_are_those_found_and_masked(monkeypatch, sc):
    """The lister finds the states a slice of states leads to by one gather from a table of the live codes
    (Lister._live_index, int32 targets) where the cut's codes are found by a table: the same rows as finding them
    and masking the dead ones after (LIVE_BYTES 0: as before it), whatever the children kept or not (CSR_CELLS)."""
    plan = Combat(load_scenario(sc)).plan
    comps = [c for c in plan.components if len(c) > 1]
    taken = []
    real = ordered.Lister._live_index
    monkeypatch.setattr(ordered.Lister, "_live_index", lambda self, j: taken.append(real(self, j)) or taken[-1])

    def rows() -> list[bytes]:
        out = []
        for cells in (ordered.CSR_CELLS, 0):
            monkeypatch.setattr(ordered, "CSR_CELLS", cells)
            for c in comps:
                prog = SourceProgramme(plan, c)
                for start in (0, prog.count() // 3):
                    out.append(np.concatenate(list(prog.blocks(rows=1 << 10, start=start))).tobytes())
        return out

    fast = rows()
    assert any(t[1] is not None for t in taken)
    monkeypatch.setattr(ordered, "LIVE_BYTES", 0)
    taken.clear()
    assert fast == rows()
    assert taken and all(t[1] is None for t in taken)


@pytest.mark.parametrize("bounds", [(1 << 53, 1 << 62), (1 << 10, 1 << 62), (1 << 10, 1 << 12)])
@pytest.mark.parametrize(
    "sc",
    [_shared_square(4, 5), pw_cycle(6, power=4, loyalty=2), random_sharing(7, 8, 3, seed=1)],
    ids=["square", "cycle", "random"],
)
def test_the_backward_steps_from_the_live_pairs_kept_are_the_walks_over_every_pair(monkeypatch, bounds, sc):
    """A build keeps the live pairs of its forward steps (SourceProgramme._live_pairs: found by the join matrices'
    cells as booleans, only theirs coded) and sums its backward steps over them (_weighted_live: in float64, in
    int64 where float64 is not exact and the limbs are off, Python integers' walk past int64): the same codes,
    completions, rows and bounded verdicts as the walk over every pair (KEPT_PAIRS -1: nothing kept), as a bound
    that keeps some steps' pairs and not others', and as steps whose slices are coded whole once one is mostly live
    (LIVE_SHARE)."""
    plan = Combat(load_scenario(sc)).plan
    comps = [c for c in plan.components if len(c) > 1]
    monkeypatch.setattr(ordered, "EXACT_BOUND", bounds[0])
    monkeypatch.setattr(ordered, "INT64_SAFE", bounds[1])
    if bounds[0] < 1 << 53:
        monkeypatch.setattr(ordered, "_limbs", lambda nxt, tw: None)
    used = []
    real = SourceProgramme._weighted_live
    monkeypatch.setattr(SourceProgramme, "_weighted_live", lambda self, *a: used.append(a[0]) or real(self, *a))

    def built() -> list:
        got: list = [_completions(plan, c) for c in comps]
        blocks = [itertools.islice(SourceProgramme(plan, c).blocks(rows=1 << 12), 8) for c in comps]
        got += [np.concatenate(list(b)).tobytes() for b in blocks]  # (the first 32 768 rows)
        for c in comps:
            for limit in (1 << 10, 1 << 13, 1 << 16, 1 << 19, 1 << 22):
                try:
                    got.append(SourceProgramme(plan, c, work_limit=limit).count())
                except ordered.TooWide:
                    got.append(None)
        return got

    monkeypatch.setattr(ordered, "LIVE_SHARE", 0)  # no slice coded whole: every step's live pairs kept
    kept = built()
    assert used  # the path under test
    prog = SourceProgramme(plan, comps[0])
    first = len(prog._live(0, prog._cut_states(0, 0, 1), ())[0])  # the first step's live pairs: kept, not the rest
    for bound in (-1, first):
        used.clear()
        monkeypatch.setattr(ordered, "KEPT_PAIRS", bound)
        assert kept == built()
        assert set(used) <= (set() if bound < 0 else {0})  # nothing kept, or the first step's alone
    monkeypatch.setattr(ordered, "KEPT_PAIRS", 1 << 21)
    for share in (8, 1 << 30):  # slices coded whole after a first one mostly live (1 << 30: after any live pair)
        monkeypatch.setattr(ordered, "LIVE_SHARE", share)
        assert kept == built()


@pytest.mark.parametrize("sc", [_shared_square(4, 5), random_sharing(7, 8, 3, seed=1)], ids=["square", "random"])
def test_the_live_pairs_are_the_pair_codes_not_negative(sc):
    """SourceProgramme._live: the places and codes of the pairs whose code (_pair_codes) is not negative."""
    plan = Combat(load_scenario(sc)).plan
    for comp in (c for c in plan.components if len(c) > 1):
        prog = SourceProgramme(plan, comp)
        for j in range(len(comp)):
            a = prog._cut_states(j, 0, len(prog.codes[j]))
            code = prog._pair_codes(j, a)
            flat, live = prog._live(j, a, ())
            assert flat.tolist() == np.flatnonzero(code >= 0).tolist()
            assert live.tolist() == code[code >= 0].tolist()
