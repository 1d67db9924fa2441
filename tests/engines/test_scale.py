"""The direct engine (docs/scale.md): exact counts without listing, lexicographic rank/unrank, uniform sampling,
numpy block enumeration -- each checked against the CP-SAT reference engine and the brute-force oracle."""

from __future__ import annotations

import math
import random
from collections import Counter
from math import comb

import numpy as np
import pytest
from boards import DEATHTOUCH_TRAMPLER, canon, load_perft
from brute import brute_force, is_legal
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import examples, scenarios

import trample.engines.direct as direct
from benchmarks.boards import blocker_chain, trampler
from trample import Combat
from trample.engines import engine_names, get_engine, ordered
from trample.engines.direct import ComponentDP, closed_form_count, component_dp, plan_blocks
from trample.models import FormatError, load_scenario

CASES = load_perft()
OPP = [{"id": "opp", "life": 20}]


def chain_board(n_att=10, power=40, per=6, rules="current", tough=(2, 3, 1, 4, 2, 3)):
    """n_att tramplers, each blocked by `per` creatures; each attacker shares one blocker with the next."""
    return blocker_chain(n_att, power, per, tough, rules)


# ---------------------------------------------------------------------------------------------
# Known counts, by hand
# ---------------------------------------------------------------------------------------------


def test_p20k5_closed_form_by_hand():
    # 702.19b: power 20 over 5 blockers needing 2,3,1,4,2 (sum 12): everything on the blockers, C(24,4) = 10626,
    # or every blocker lethal and 1..8 to the player: sum_t C(8-t+4, 4) = C(12, 5) = 792 (hockey stick)
    combat = Combat(trampler(20, (2, 3, 1, 4, 2)), engine="direct")
    assert combat.count() == 10626 + 792 == 11418
    assert component_dp(combat.plan, combat.plan.components[0]).count() == 11418


def test_p20k8_count():
    # 702.19b: needs summing to 16: C(27,7) = 888030 splits on the blockers + C(11,8) = 165 over the top
    combat = Combat(trampler(20, (2, 3, 1, 4, 2, 1, 2, 1)), engine="direct")
    assert combat.count() == 888195


def test_deathtouch_trample_needs_one_each():
    # 702.2c + 702.19b: deathtouch makes 1 lethal: power 4 vs toughness 4 -> 4 (1..4 on the blocker)
    sc = DEATHTOUCH_TRAMPLER
    for engine in ("direct", "cpsat"):
        assert Combat(sc, engine=engine).count() == 4
    assert [a.to_json() for a in Combat(sc, engine="direct").assignments()] == [
        {"a": {"x": 1, "opp": 3}},
        {"a": {"x": 2, "opp": 2}},
        {"a": {"x": 3, "opp": 1}},
        {"a": {"x": 4}},
    ]


def test_top_unblocked_closed_form():
    # 702.19c: 7 power, loyalty 3: all 7 to the planeswalker, or >= 3 to it and 1..4 to its controller -> 5
    sc = {
        "players": OPP,
        "planeswalkers": [{"id": "w", "controller": "opp", "loyalty": 3}],
        "attackers": [
            {"id": "a", "power": 7, "toughness": 7, "keywords": ["trample_over_planeswalkers"], "attacking": "w"}
        ],
    }
    combat = Combat(sc, engine="direct")
    assert closed_form_count(combat.plan, combat.plan.components[0]) == 5
    assert component_dp(combat.plan, combat.plan.components[0]).count() == 5


def test_huge_space_counts_exactly():
    # one trampler of power 300 vs 9 blockers (needs sum 20): C(308, 8) + C(288, 9) -- well past 10**15
    needs = (2, 3, 1, 4, 2, 3, 1, 2, 2)
    combat = Combat(trampler(300, needs), engine="direct")
    expected = comb(308, 8) + comb(300 - 20 - 1 + 9, 9)
    assert combat.count() == expected > 10**15
    assert component_dp(combat.plan, combat.plan.components[0]).count() == expected  # the programme agrees
    i = expected // 7
    assert combat.rank(combat.unrank(i)) == i


def test_chain_board_ten_attackers_of_power_40():
    # 10 attackers of power 40, 6 blockers each, neighbours share a blocker: one component of 70 columns
    sc = chain_board()
    combat = Combat(sc, engine="direct")
    assert len(combat.plan.components) == 1
    n = combat.count()
    assert n > 10**60
    # the programme does not depend on reading the attackers in the given order
    rev = dict(sc, attackers=list(reversed(sc["attackers"])))
    assert Combat(rev, engine="direct").count() == n
    for i in (0, 1, n // 3, n - 1):
        a = combat.unrank(i)
        assert combat.check(a).legal and combat.rank(a) == i


def test_independent_attackers_multiply():
    # no shared blocker: the count is the product of the one-attacker closed forms
    sc = chain_board(n_att=4, power=12, per=3)
    for a in sc["attackers"][1:]:
        a["blocked_by"] = a["blocked_by"][1:]  # drop the shared blocker
    combat = Combat(sc, engine="direct")
    assert len(combat.plan.components) == 4
    forms = [closed_form_count(combat.plan, c) for c in combat.plan.components]
    assert None not in forms and combat.count() == math.prod(forms)


# ---------------------------------------------------------------------------------------------
# The perft suite on every engine
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("engine", engine_names())
@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_perft_every_engine(case, engine):
    # each case names its rule in case["rule"]
    combat = Combat(case["scenario"], engine=engine)
    assert combat.count() == case["count"], case["rule"]
    listed = list(combat.assignments())
    assert len(listed) == len(set(listed)) == case["count"], case["rule"]
    reference = set(Combat(case["scenario"], engine="cpsat").assignments())
    assert set(listed) == reference
    if engine in ("direct", "auto"):  # the canonical order, indexable
        assert [combat.rank(a) for a in listed] == list(range(case["count"]))
        assert [combat.unrank(i) for i in range(case["count"])] == listed
    if combat.canonical():  # what DamageStep.canonical promises: lexicographic over the columns
        vectors = [combat.plan.vector(a) for a in listed]
        assert vectors == sorted(vectors)
    assert engine != "cpsat" or not combat.canonical()


# ---------------------------------------------------------------------------------------------
# Differential: direct vs CP-SAT vs brute force on random scenarios
# ---------------------------------------------------------------------------------------------


def assert_engines_agree(sc: dict, side: str) -> None:
    scenario = load_scenario(sc)
    d = Combat(scenario, side=side, engine="direct")
    c = Combat(scenario, side=side, engine="cpsat")
    listed = list(d.assignments())
    keys = [canon(a) for a in listed]
    assert len(set(keys)) == len(keys), "listed twice"
    oracle = {canon(a) for a in brute_force(sc, side)}
    assert set(keys) == oracle
    assert {canon(a) for a in c.assignments()} == oracle
    assert d.count() == c.count() == len(oracle)
    for comp in d.plan.components:
        dp = component_dp(d.plan, comp)
        assert dp.count() == get_engine("cpsat").count(d.plan, comp)
        form = closed_form_count(d.plan, comp)
        assert form is None or form == dp.count()
        vecs = [tuple(v) for b in dp.blocks() for v in b.tolist()]
        assert vecs == sorted(set(vecs)), "not strictly increasing lexicographically"
        assert vecs == [dp.unrank(i) for i in range(dp.count())]
    for i, a in enumerate(listed):
        assert d.rank(a) == i and d.unrank(i) == a


@pytest.mark.slow
@settings(max_examples=examples(200))
@given(scenarios(), st.sampled_from(["attacking", "attacking", "attacking", "defending", "both"]))
def test_direct_matches_cpsat_and_oracle(sc, side):
    assert_engines_agree(sc, side)


@pytest.mark.slow
@settings(max_examples=examples(60))
@given(scenarios(focus="planeswalkers"))
def test_direct_matches_cpsat_and_oracle_planeswalkers(sc):
    assert_engines_agree(sc, "attacking")


@st.composite
def shared_boards(draw):
    """2-3 attackers with trample / trample over planeswalkers / deathtouch on a few shared blockers and a
    shared planeswalker: joined components, the frontier's hard cases (702.19b-e, 702.2c, legacy order)."""
    n_b = draw(st.integers(1, 4))
    blockers = [
        {
            "id": f"b{i}",
            "power": 1,
            "toughness": draw(st.integers(0, 3)),
            "damage_marked": draw(st.sampled_from([0, 0, 1])),
        }
        for i in range(n_b)
    ]
    for b in blockers:
        b["damage_marked"] = min(b["damage_marked"], b["toughness"])
    attackers = []
    for i in range(draw(st.integers(2, 3))):
        kws = draw(
            st.sampled_from(
                [
                    ["trample"],
                    ["trample"],
                    ["trample_over_planeswalkers"],
                    [],
                    ["trample", "deathtouch"],
                    ["deathtouch"],
                ]
            )
        )
        attackers.append(
            {
                "id": f"a{i}",
                "power": draw(st.integers(1, 4)),
                "toughness": 3,
                "keywords": kws,
                "attacking": draw(st.sampled_from(["opp", "w"])),
                "blocked_by": draw(st.lists(st.sampled_from([b["id"] for b in blockers]), unique=True, max_size=3)),
            }
        )
    return {
        "rules": draw(st.sampled_from(["current", "legacy"])),
        "players": OPP,
        "planeswalkers": [{"id": "w", "controller": "opp", "loyalty": draw(st.integers(0, 3))}],
        "attackers": attackers,
        "blockers": blockers,
    }


@pytest.mark.slow
@settings(max_examples=examples(100))
@given(shared_boards())
def test_joined_components_match_cpsat(sc):
    scenario = load_scenario(sc)
    d = Combat(scenario, engine="direct")
    listed = list(d.assignments())
    assert set(listed) == set(Combat(scenario, engine="cpsat").assignments())
    assert len(set(listed)) == len(listed) == d.count()
    for a in listed[:50]:
        assert is_legal(sc, a.to_json())
    for i, a in enumerate(listed):
        assert d.rank(a) == i


@pytest.mark.slow
@settings(max_examples=examples(100))
@given(
    scenarios(max_total_power=12, max_work=20000),
    st.sampled_from([1, 2, 7, 4096]),
    st.sampled_from([0, 3, 40, 1 << 22]),
    st.sampled_from([1, 5, 1 << 20]),
    st.sampled_from(["attacking", "both"]),
)
def test_blocks_independent_of_chunking(sc, rows, suffix_cells, expand_cells, side):
    # whatever the chunk sizes and the column where cached completion tables start, the same rows in order
    combat = Combat(load_scenario(sc), side=side, engine="direct")
    saved = direct.SUFFIX_CELLS, direct.EXPAND_CELLS
    try:
        direct.SUFFIX_CELLS, direct.EXPAND_CELLS = suffix_cells, expand_cells
        for comp in combat.plan.components:
            dp = ComponentDP(combat.plan, comp)
            blocks = list(dp.blocks(rows))
            assert all(1 <= len(b) <= rows for b in blocks)
            got = [tuple(v) for b in blocks for v in b.tolist()]
            assert got == [dp.unrank(i) for i in range(dp.count())]
    finally:
        direct.SUFFIX_CELLS, direct.EXPAND_CELLS = saved


@pytest.mark.slow
@settings(max_examples=examples(60))
@given(
    scenarios(max_total_power=8, max_work=2000), st.sampled_from([1, 3, 1 << 16]), st.sampled_from([0, 2, 50, 1 << 16])
)
def test_plan_blocks_follow_the_canonical_order(sc, rows, cache_rows):
    # the product across components, first component slowest, in plan.columns order
    combat = Combat(load_scenario(sc), side="both", engine="direct")
    names = [s.source for s in combat.plan.sources]
    rows_out = [r for b in plan_blocks(combat.plan, rows, cache_rows=cache_rows) for r in b.tolist()]
    expected = list(combat.assignments())
    assert len(rows_out) == len(expected) == combat.count()
    for row, a in zip(rows_out, expected):
        got = {n: {} for n in names}
        for (i, r), x in zip(combat.plan.columns, row):
            if x:
                got[names[i]][r] = x
        assert a == got


# ---------------------------------------------------------------------------------------------
# Rank, unrank, sample
# ---------------------------------------------------------------------------------------------


def test_rank_rejects_illegal_assignments_citing_the_rule():
    combat = Combat(trampler(5, (2,)))
    with pytest.raises(FormatError) as err:
        combat.rank({"t": {"opp": 5}})  # 702.19b: the blocker lacks lethal damage
    assert str(err.value).startswith("assignment: not a legal assignment (702.19b")
    with pytest.raises(FormatError):
        combat.rank({"t": {"b0": 2, "opp": 2}})  # 510.1a: assigns 4 of 5
    with pytest.raises(FormatError):
        combat.rank({"t": {"b0": 5}, "nobody": {}})


def test_unrank_range_is_checked():
    combat = Combat(trampler(5, (2,)))
    assert combat.count() == 4
    assert combat.unrank(3).to_json() == {"t": {"b0": 5}}
    assert combat.unrank(0).to_json() == {"t": {"b0": 2, "opp": 3}}
    for bad in (-1, 4, 10**30):
        with pytest.raises(FormatError, match="out of range"):
            combat.unrank(bad)
    with pytest.raises(FormatError):
        combat.unrank("1")


def test_canonical_order_is_lexicographic_over_columns():
    # b0 first, then the player: (2,3) < (3,2) < (4,1) < (5,0)
    combat = Combat(trampler(5, (2,)))
    assert [combat.unrank(i).to_json() for i in range(4)] == [
        {"t": {"b0": 2, "opp": 3}},
        {"t": {"b0": 3, "opp": 2}},
        {"t": {"b0": 4, "opp": 1}},
        {"t": {"b0": 5}},
    ]


def test_sample_is_reproducible_and_is_unrank_of_uniform_integers():
    combat = Combat(chain_board(n_att=3, power=6, per=3))
    n = combat.count()
    a = combat.sample(20, seed=11)
    assert a == combat.sample(20, seed=11)
    assert a != combat.sample(20, seed=12)
    rng = random.Random(11)
    assert a == [combat.unrank(rng.randrange(n)) for _ in range(20)]
    assert all(combat.check(x).legal for x in a)
    assert combat.sample(0, seed=1) == []


def chi_square_critical(df: int, z: float = 3.719) -> float:
    """Upper critical value of chi-square (Wilson-Hilferty); z = 3.719 is the 0.9999 normal quantile."""
    h = 2.0 / (9.0 * df)
    return df * (1.0 - h + z * math.sqrt(h)) ** 3


@pytest.mark.parametrize(
    "sc",
    [
        trampler(6, (2, 3)),
        chain_board(n_att=2, power=4, per=2),
        {
            "players": OPP,
            "planeswalkers": [{"id": "w", "controller": "opp", "loyalty": 2}],
            "attackers": [
                {
                    "id": "a",
                    "power": 5,
                    "toughness": 5,
                    "keywords": ["trample_over_planeswalkers"],
                    "attacking": "w",
                    "blocked_by": ["x"],
                },
                {"id": "c", "power": 2, "toughness": 2, "attacking": "w"},
            ],
            "blockers": [{"id": "x", "power": 1, "toughness": 2}],
        },
    ],
    ids=["trampler", "chain", "top+planeswalker"],
)
def test_sampling_is_uniform_chi_square(sc):
    combat = Combat(sc)
    n = combat.count()
    legal = set(combat.assignments())
    assert 5 <= n <= 200
    draws = combat.sample(300 * n, seed=2024)
    seen = Counter(draws)
    assert set(seen) == legal  # every legal assignment can come up, nothing else does
    expected = len(draws) / n
    stat = sum((seen[a] - expected) ** 2 / expected for a in legal)
    assert stat < chi_square_critical(n - 1), (stat, n)


def test_sampling_detects_a_biased_sampler():
    # the same statistic rejects a sampler that prefers assignment 0 (so the test above can fail)
    combat = Combat(trampler(6, (2, 3)))
    n = combat.count()
    rng = random.Random(5)
    draws = [0 if rng.random() < 0.05 else rng.randrange(n) for _ in range(300 * n)]
    seen = Counter(draws)
    expected = len(draws) / n
    stat = sum((seen[i] - expected) ** 2 / expected for i in range(n))
    assert stat > chi_square_critical(n - 1)


# ---------------------------------------------------------------------------------------------
# Engines: registry, auto, supports(), dtype
# ---------------------------------------------------------------------------------------------


def test_registry_and_auto():
    assert {"auto", "direct", "cpsat"} <= set(engine_names())
    combat = Combat(trampler(5, (2,)), engine="auto")
    assert list(combat.assignments()) == list(Combat(trampler(5, (2,)), engine="direct").assignments())


def test_auto_lists_with_the_source_programme_past_the_frontier(monkeypatch):
    sc = chain_board(n_att=2, power=4, per=2)
    monkeypatch.setattr(direct, "STATE_LIMIT", 1)
    combat = Combat(sc, engine="auto")
    comp = combat.plan.components[0]
    assert get_engine("direct").supports(combat.plan, comp) and combat.canonical()
    listed = list(combat.assignments())  # listed by the source programme (engines.ordered.Lister)
    assert listed == [combat.unrank(i) for i in range(combat.count())]
    assert set(listed) == set(Combat(sc, engine="cpsat").assignments())


def test_auto_falls_back_to_cpsat_when_neither_programme_lists(monkeypatch):
    sc = chain_board(n_att=2, power=4, per=2)
    monkeypatch.setattr(direct, "STATE_LIMIT", 1)
    monkeypatch.setattr(ordered, "SPLIT_LIMIT", 1)  # nor does the source programme list (too many splits)
    combat = Combat(sc, engine="auto")
    comp = combat.plan.components[0]
    assert not get_engine("direct").supports(combat.plan, comp)
    listed = list(combat.assignments())  # listed by CP-SAT
    assert set(listed) == set(Combat(sc, engine="cpsat").assignments())
    assert combat.count() == len(listed)  # counted by the programme (no limit for counting)


def test_dtype_fits_the_largest_amount():
    assert direct.dtype_for(127) == np.int8 and direct.dtype_for(128) == np.int16
    combat = Combat(trampler(300, (2,)))
    blocks = list(plan_blocks(combat.plan))
    assert blocks[0].dtype == np.int16
    # 702.19b: all 300 on the blocker, or 2..299 on it and the rest to the player
    assert sum(len(b) for b in blocks) == combat.count() == 1 + 298
