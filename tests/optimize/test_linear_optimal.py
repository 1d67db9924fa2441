"""--all-optimal from the direct engine's blocks (optimize/linear.py), for every objective and lexicographic lists
of them: the same SET of assignments as the CP-SAT enumeration, and as the brute force scored by the independent
``oracle_values`` of tests/optimize/test_solve.py, on generated boards (overlapping blockers, deathtouch, planeswalkers,
battles, legacy rules, marked damage, values, both sides). Boards too big to read whole go to CP-SAT."""

from __future__ import annotations

import json
from unittest.mock import patch

import pytest
from boards import canon
from brute import brute_force
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import scenarios
from test_perf_paths import overlapping_boards, small_enough
from test_solve import KINDS, lex_key, oracle_values

import trample.optimize.linear as linear
import trample.optimize.search as search
from trample import Combat
from trample.models import load_scenario
from trample.optimize import all_optimal
from trample.optimize.linear import applies
from trample.optimize.objectives import parse_objectives

NAMES = [*KINDS, "max-damage:w", "max-damage:b0"]


def _objectives(draw, sc):
    names = [n for n in NAMES if n.partition(":")[2] in ("", *[o["id"] for o in _objects(sc)])]
    return draw(st.lists(st.sampled_from(names), min_size=1, max_size=2, unique=True))


def _objects(sc):
    return [*sc.get("players", []), *sc.get("planeswalkers", []), *sc.get("blockers", []), *sc.get("attackers", [])]


def _both(sc, objs, side="attacking"):
    """The direct path and the CP-SAT path on one board: same status, values and set; returns the direct list."""
    scenario = load_scenario(sc)
    combat = Combat(scenario, side=side)
    taken = applies(combat, parse_objectives(objs, combat.scenario))
    fast = all_optimal(combat, objs)
    if taken:
        assert fast._direct is not None and fast.result.solves == 0
    got = list(fast)
    with patch.object(search, "direct_optimum", lambda *a, **k: None):  # the CP-SAT optimisation and enumeration
        ref_it = all_optimal(Combat(scenario, side=side), objs)
        ref = list(ref_it)
    assert fast.status == ref_it.status
    assert fast.objectives == ref_it.objectives
    assert len(got) == len(set(got))  # each optimal assignment once
    assert set(got) == set(ref)
    if got:
        assert fast.result.assignment in set(got)
    if fast.result.lethal is not None:  # the most each player could be assigned is the same (the line may differ)
        for p, rep in fast.result.lethal.items():
            other = ref_it.result.lethal[p]
            assert (rep["max_damage"], rep["reachable"], rep["life"]) == (
                other["max_damage"],
                other["reachable"],
                other["life"],
            )
    return got, fast.objectives, taken


def _oracle_check(sc, objs, got, side="attacking"):
    legal = brute_force(sc, side)
    keys = [lex_key(oracle_values(sc, a, objs, side), objs) for a in legal]
    best = max(keys, default=None)
    assert {canon(a.to_json()) for a in got} == {canon(a) for a, k in zip(legal, keys) if k == best}


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_direct_all_optimal_matches_cpsat_and_oracle(data):  # 510.1a-d, 702.19b-c, 702.2c
    sc = data.draw(overlapping_boards())
    for o in sc["blockers"]:
        o["value"] = data.draw(st.sampled_from([1, 2, 0.5, 3]))
    objs = _objectives(data.draw, sc)
    side = data.draw(st.sampled_from(["attacking", "both"]))
    got, values, taken = _both(sc, objs, side)
    if Combat(load_scenario(sc), side=side).plan.columns:
        assert taken  # small boards without effects: no solver
    if small_enough(sc):
        _oracle_check(sc, objs, got, side)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_direct_all_optimal_on_general_scenarios(data):  # 510.1a-d, 702.19b-e, 702.2c, 702.12b
    sc = data.draw(scenarios(max_attackers=3, max_blockers=3))
    objs = _objectives(data.draw, sc)
    side = data.draw(st.sampled_from(["attacking", "defending"]))
    got, _, _ = _both(sc, objs, side)
    if sum(a.get("power", 0) for a in sc.get("attackers", [])) <= 8:
        _oracle_check(sc, objs, got, side)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_small_blocks_per_distinct_total_and_second_pass_agree(data):
    # blocks of a few rows (the best values improve from block to block), terms computed per distinct total, and
    # the rows at the best kept or not (a second pass), each way the same set
    sc = data.draw(overlapping_boards())
    objs = _objectives(data.draw, sc)
    rows = data.draw(st.sampled_from([1, 2, 5]))
    table = data.draw(st.sampled_from([0, linear.TABLE_TOTALS]))
    keep = data.draw(st.sampled_from([0, 30, linear.KEEP_CELLS]))
    with (
        patch.object(linear, "BLOCK_ROWS", rows),
        patch.object(linear, "TABLE_TOTALS", table),
        patch.object(linear, "KEEP_CELLS", keep),
    ):
        got, _, _ = _both(sc, objs)
    if small_enough(sc):
        _oracle_check(sc, objs, got)


def _huge():
    # one trampler of power 100 blocked by ten 1/2 blockers: 9 348 439 717 407 legal assignments
    return {
        "players": [{"id": "opp", "life": 20}],
        "attackers": [
            {
                "id": "t",
                "power": 100,
                "toughness": 5,
                "keywords": ["trample"],
                "attacking": "opp",
                "blocked_by": [f"b{i}" for i in range(10)],
            }
        ],
        "blockers": [{"id": f"b{i}", "power": 1, "toughness": 2} for i in range(10)],
    }


def test_huge_space_goes_to_cpsat():  # 702.19b: lethal (2) to each blocker before the rest tramples over
    combat = Combat(_huge())
    assert combat.count() == 9_348_439_717_407 > linear.DIRECT_ROWS
    assert not applies(combat, parse_objectives("max-damage"))
    stream = all_optimal(combat, "max-damage")
    assert stream._direct is None and stream.result.solves > 0  # CP-SAT proved it
    assert stream.objectives == {"max-damage": 80}
    assert [a.to_json() for a in stream] == [{"t": {**{f"b{i}": 2 for i in range(10)}, "opp": 80}}]


def test_the_row_bound_decides_the_path():
    # three blockers: C(8, 3) = 56 assignments (1..5 beyond lethal to opp); the bound is read from DIRECT_ROWS
    sc = _huge()
    sc["attackers"][0]["power"] = 10
    sc["attackers"][0]["blocked_by"] = ["b0", "b1", "b2"]
    sc["blockers"] = sc["blockers"][:3]
    combat = Combat(sc)
    n = combat.count()
    objs = parse_objectives("max-kills,min-overkill")
    with patch.object(linear, "DIRECT_ROWS", n):
        assert applies(combat, objs)
    with patch.object(linear, "DIRECT_ROWS", n - 1):
        assert not applies(combat, objs)
        assert all_optimal(combat, objs)._direct is None


def test_effects_and_options_keep_their_paths():  # 702.19b; prevention (615.1a) changes damage dealt
    sc = _huge()
    sc["attackers"][0]["power"] = 6
    sc["blockers"] = sc["blockers"][:2]
    sc["attackers"][0]["blocked_by"] = ["b0", "b1"]
    combat = Combat(sc)
    assert applies(combat, parse_objectives("lethal"))
    sc["blockers"][0]["prevent"] = 1
    assert not applies(Combat(sc), parse_objectives("lethal"))


def test_known_optima():  # 702.19b, 702.2c: values read on known lines
    sc = {
        "players": [{"id": "opp", "life": 3}],
        "planeswalkers": [{"id": "w", "controller": "opp", "loyalty": 2, "value": 2.5}],
        "blockers": [{"id": "b", "power": 1, "toughness": 3, "value": 0.5}],
        "attackers": [
            {"id": "a", "power": 4, "toughness": 2, "keywords": ["trample"], "attacking": "opp", "blocked_by": ["b"]},
            {"id": "d", "power": 2, "toughness": 2, "keywords": ["deathtouch"], "attacking": "w"},
        ],
    }
    s = all_optimal(Combat(sc), "max-value,min-overkill")
    assert s._direct is not None
    assert s.objectives == {"max-value": 3, "min-overkill": 0}  # b (0.5) and w (2.5)
    assert [a.to_json() for a in s] == [{"a": {"b": 3, "opp": 1}, "d": {"w": 2}}]
    s = all_optimal(Combat(sc), "lethal")
    assert s.objectives == {"lethal": 0}
    assert s.result.lethal["opp"]["max_damage"] == 1 and not s.result.lethal["opp"]["reachable"]
    assert len(list(s)) == 2  # 3 or 4 to b


@pytest.mark.parametrize("limit", [None, 5])
def test_cli_all_optimal_lines_in_bulk(tmp_path, limit):  # the lines of the Python stream, byte for byte
    from test_solve import trample

    sc = _huge()
    sc["attackers"][0]["power"] = 12
    path = tmp_path / "b.json"
    path.write_text(json.dumps(sc))
    args = ["solve", str(path), "--objective", "lethal", "--all-optimal"]
    p = trample(*args, *(["--limit", str(limit)] if limit else []))
    assert p.returncode == 0, p.stderr
    want = [json.dumps(a.to_json(), separators=(",", ":")) for a in all_optimal(Combat(sc), "lethal", limit=limit)]
    assert p.stdout.splitlines() == want
    assert len(want) == (limit or Combat(sc).count())


def test_cli_bulk_lines_reader_closing_is_a_clean_exit(tmp_path):  # `trample solve ... --all-optimal | head -1`
    import subprocess
    import sys

    from brute import is_legal

    sc = _huge()
    sc["attackers"][0]["power"] = 20
    sc["blockers"] = [{"id": f"b{i}", "power": 1, "toughness": n} for i, n in enumerate([2, 3, 1, 4, 2, 1, 2, 1])]
    sc["attackers"][0]["blocked_by"] = [b["id"] for b in sc["blockers"]]  # P20k8: all 888 195 lines tie at lethal
    path = tmp_path / "b.json"
    path.write_text(json.dumps(sc))
    proc = subprocess.Popen(
        [sys.executable, "-m", "trample", "solve", str(path), "--objective", "lethal", "--all-optimal"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    first = proc.stdout.readline()
    proc.stdout.close()  # the reader goes away
    _, err = proc.communicate(timeout=120)
    assert is_legal(sc, json.loads(first))
    assert proc.returncode == 0, err
    assert "Traceback" not in err
