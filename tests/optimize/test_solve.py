"""trample solve (docs/solve.md): objectives, lexicographic optimisation, the tie-break, all-optimal, the command.

The differential tests compare trample.optimize against tests/oracles/brute.py's enumerator, scoring every brute-force
assignment with the small independent function ``oracle_values`` below (written from docs/solve.md's
definitions, not from solver/optimize/).
"""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from unittest.mock import patch

import pytest
from boards import DEATHTOUCH_TRAMPLER
from brute import allowed_recipients, brute_force, is_legal, normalize
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import examples, scenarios

from trample import Combat, optimize
from trample.models import Assignment, FormatError
from trample.optimize import all_optimal, parse_objectives, score

EXAMPLES = examples(250)
KINDS = ["max-damage", "lethal", "max-kills", "max-value", "min-overkill"]
PAIRS = [
    ("lethal", "max-value"),
    ("max-kills", "min-overkill"),
    ("max-damage", "max-kills"),
    ("max-value", "max-damage"),
    ("min-overkill", "max-damage"),
    ("lethal", "min-overkill"),
]


# ---------------------------------------------------------------------------------------------
# The independent scorer (docs/solve.md)
# ---------------------------------------------------------------------------------------------


def _dec(v) -> Fraction:
    return Fraction(v) if isinstance(v, int) else Fraction(repr(float(v)))


def oracle_values(scenario: dict, asg: dict, names, side: str = "attacking") -> dict:
    s = normalize(scenario)
    totals: dict[str, int] = {}
    touched: set[str] = set()
    for src, split in asg.items():
        dt = "deathtouch" in s["objects"][src][1]["keywords"]
        for r, n in split.items():
            if n > 0:
                totals[r] = totals.get(r, 0) + n
                if dt:
                    touched.add(r)  # 702.2c
    victims = []
    if side in ("attacking", "both"):
        victims += s["blockers"]
    if side in ("defending", "both"):
        victims += s["attackers"]

    def need(c):
        return max(0, c["toughness"] - c["damage_marked"])

    def killed(c):  # 702.19b / 702.2c, in combat, never indestructible
        return (
            c["in_combat"]
            and "indestructible" not in c["keywords"]
            and (totals.get(c["id"], 0) >= need(c) or c["id"] in touched)
        )

    out = {}
    for name in names:
        kind, _, target = name.partition(":")
        if kind == "max-damage":
            out[name] = totals.get(target, 0) if target else sum(totals.get(p["id"], 0) for p in s["players"])
        elif kind == "lethal":
            out[name] = sum(1 for p in s["players"] if totals.get(p["id"], 0) >= p.get("life", 20))
        elif kind == "max-kills":
            out[name] = sum(1 for c in victims if killed(c))
        elif kind == "max-value":
            q = sum((_dec(c.get("value", 1)) for c in victims if killed(c)), Fraction(0))
            q += sum(
                (
                    _dec(w.get("value", 1))
                    for w in s["planeswalkers"]
                    if w["in_combat"] and totals.get(w["id"], 0) >= w["loyalty"]
                ),
                Fraction(0),
            )
            out[name] = q
        elif kind == "min-overkill":
            o = 0
            for r, n in totals.items():
                rk, obj = s["objects"][r]
                if rk in ("blocker", "attacker"):
                    t = need(obj)
                    if r in touched and t > 0:
                        t = 1  # one point from deathtouch is lethal
                elif rk == "planeswalker":
                    t = obj["loyalty"]
                elif rk == "battle":
                    t = obj["defense"]
                else:
                    t = max(0, obj.get("life", 20))
                o += max(0, n - t)
            out[name] = o
    return out


def lex_key(values: dict, names) -> tuple:
    return tuple(-values[n] if n.startswith("min-") else values[n] for n in names)


def column_key(scenario: dict, asg: dict, side: str = "attacking") -> tuple:
    """The documented tie-break order: sources in scenario order (attackers, then blockers), each one's
    recipients in route order (its blockers in blocked_by order, what it attacks, that one's controller)."""
    s = normalize(scenario)
    key = []
    if side in ("attacking", "both"):
        for a in s["attackers"]:
            for r in allowed_recipients(s, a["id"]):
                key.append(asg.get(a["id"], {}).get(r, 0))
    if side in ("defending", "both"):
        for b in s["blockers"]:
            for a in s["attackers"]:
                if a["in_combat"] and b["id"] in a["blocked_by"]:
                    key.append(asg.get(b["id"], {}).get(a["id"], 0))
    return tuple(key)


def as_number(q: Fraction):
    return int(q) if q.denominator == 1 else float(q)


# ---------------------------------------------------------------------------------------------
# Differential: optimum == brute-force best, legal, canonical tie-break
# ---------------------------------------------------------------------------------------------


def check_against_brute(scenario: dict, names, side: str = "attacking", legal=None, combat=None):
    legal = brute_force(scenario, side) if legal is None else legal
    combat = combat or Combat(scenario, side=side)
    result = combat.solve(names)
    assert result.status == "optimal"
    got = result.assignment.to_json()
    assert is_legal(scenario, got, side), got
    assert combat.check(result.assignment).legal
    scored = [(lex_key(oracle_values(scenario, a, names, side), names), a) for a in legal]
    best = max(k for k, _ in scored)
    mine = oracle_values(scenario, got, names, side)
    assert lex_key(mine, names) == best, (names, got)
    assert result.objectives == {n: as_number(v) if isinstance(v, Fraction) else v for n, v in mine.items()}
    # the tie-break: the smallest column vector among the optimal assignments
    canonical = min((a for k, a in scored if k == best), key=lambda a: column_key(scenario, a, side))
    assert Assignment(got) == Assignment(canonical), (names, got, canonical)
    return result


@pytest.mark.slow
@settings(max_examples=EXAMPLES)
@given(scenarios(), st.data())
def test_every_objective_and_pairs_match_brute_force(scenario, data):
    legal = brute_force(scenario)
    combat = Combat(scenario)
    for kind in KINDS:
        check_against_brute(scenario, [kind], legal=legal, combat=combat)
    for pair in PAIRS:
        check_against_brute(scenario, list(pair), legal=legal, combat=combat)
    ids = [o["id"] for g in ("players", "planeswalkers", "battles", "blockers") for o in scenario.get(g, [])]
    target = data.draw(st.sampled_from(ids))
    check_against_brute(scenario, [f"max-damage:{target}", "min-overkill"], legal=legal, combat=combat)


@pytest.mark.slow
@settings(max_examples=EXAMPLES)
@given(scenarios())
def test_lethal_found_exactly_when_brute_force_finds_it(scenario):
    legal = brute_force(scenario)
    result = Combat(scenario).solve("lethal")
    s = normalize(scenario)
    best_count = max(oracle_values(scenario, a, ["lethal"])["lethal"] for a in legal)
    assert result.objectives["lethal"] == best_count
    for p in s["players"]:
        most = max(sum(split.get(p["id"], 0) for split in a.values()) for a in legal)
        report = result.lethal[p["id"]]
        assert report["max_damage"] == most
        assert report["reachable"] == (most >= p.get("life", 20))
        dealt = sum(split.get(p["id"], 0) for split in result.assignment.to_json().values())
        assert report["damage"] == dealt and report["margin"] == dealt - p.get("life", 20)


@pytest.mark.slow
@settings(max_examples=examples(120))
@given(scenarios(max_attackers=2, max_blockers=3), st.sampled_from(KINDS), st.sampled_from(KINDS))
def test_defending_side_matches_brute_force(scenario, first, second):
    names = [first] if first == second else [first, second]
    check_against_brute(scenario, names, side="defending")


@pytest.mark.slow
@settings(max_examples=examples(100))
@given(scenarios(), st.sampled_from(PAIRS))
def test_one_term_per_solve_gives_the_same_optimum(scenario, pair):
    # PACK_LIMIT = 1: no packing, every objective and every tie-break column is its own solve, fixed in turn
    with patch.object(optimize.model, "PACK_LIMIT", 1):  # where the packing reads it
        check_against_brute(scenario, list(pair))


@pytest.mark.slow
@settings(max_examples=examples(60))
@given(scenarios(max_attackers=2, max_blockers=2, max_total_power=5, max_work=400), st.sampled_from(KINDS))
def test_both_sides_match_brute_force(scenario, kind):
    check_against_brute(scenario, [kind, "max-damage"] if kind != "max-damage" else [kind], side="both")


@pytest.mark.slow
@settings(max_examples=examples(150))
@given(scenarios(), st.lists(st.sampled_from(KINDS), min_size=1, max_size=2, unique=True))
def test_all_optimal_is_exactly_the_brute_force_optimal_set(scenario, names):
    legal = brute_force(scenario)
    keys = [lex_key(oracle_values(scenario, a, names), names) for a in legal]
    best = max(keys)
    expected = {Assignment(a) for a, k in zip(legal, keys) if k == best}
    stream = all_optimal(Combat(scenario), names)
    got = list(stream)
    assert stream.status == "optimal"
    assert len(got) == len(set(got)), "an optimal assignment was listed twice"
    assert set(got) == expected


# ---------------------------------------------------------------------------------------------
# Known lines
# ---------------------------------------------------------------------------------------------

OPP = [{"id": "opp", "life": 20}]


def test_702_19c_one_point_from_the_1_1_counts_toward_loyalty():
    # 702.19c: the 1/1's point counts toward the loyalty, so 2 from the 7/7 suffice and 5 go to the controller
    sc = {
        "players": OPP,
        "planeswalkers": [{"id": "pw", "controller": "opp", "loyalty": 3}],
        "attackers": [
            {"id": "small", "power": 1, "toughness": 1, "attacking": "pw"},
            {"id": "big", "power": 7, "toughness": 7, "keywords": ["trample_over_planeswalkers"], "attacking": "pw"},
        ],
    }
    r = Combat(sc).solve("max-damage")
    assert r.status == "optimal"
    assert r.objectives == {"max-damage": 5}
    assert r.assignment == {"small": {"pw": 1}, "big": {"pw": 2, "opp": 5}}


def test_max_value_kills_the_5_5_not_the_first_declared_blocker():
    # 510.1c (since Nov 2024): free division; killing the 5/5 (value 5) beats the 1/2 (value 1), docs/rules.md mistake 3
    sc = {
        "players": OPP,
        "attackers": [{"id": "a", "power": 6, "toughness": 6, "attacking": "opp", "blocked_by": ["small", "big"]}],
        "blockers": [
            {"id": "small", "power": 1, "toughness": 2, "value": 1},
            {"id": "big", "power": 5, "toughness": 5, "value": 5},
        ],
    }
    r = Combat(sc).solve("max-value")
    assert r.objectives == {"max-value": 5}
    assert r.assignment == {"a": {"big": 6}}  # tie-break: as little as possible on the earlier blocker
    r = Combat(sc).solve("max-kills,max-value")
    assert r.objectives == {"max-kills": 1, "max-value": 5}
    assert r.assignment.amount("a", "big") >= 5


def test_indestructible_blockers_never_count_as_kills_but_still_need_lethal():
    # 702.19b: lethal damage is still required to trample over an indestructible blocker
    sc = {
        "players": OPP,
        "attackers": [
            {"id": "a", "power": 6, "toughness": 6, "keywords": ["trample"], "attacking": "opp", "blocked_by": ["wall"]}
        ],
        "blockers": [{"id": "wall", "power": 0, "toughness": 2, "keywords": ["indestructible"], "value": 9}],
    }
    assert Combat(sc).solve("max-kills").objectives == {"max-kills": 0}
    assert Combat(sc).solve("max-value").objectives == {"max-value": 0}
    r = Combat(sc).solve("max-damage")
    assert r.assignment == {"a": {"wall": 2, "opp": 4}}


def test_deathtouch_overkill_is_beyond_one_point():
    # 702.2c + 702.19b: one deathtouch point is lethal; the rest tramples over, no overkill
    sc = DEATHTOUCH_TRAMPLER
    r = Combat(sc).solve("max-kills,min-overkill")
    assert r.objectives == {"max-kills": 1, "min-overkill": 0}
    assert r.assignment == {"a": {"x": 1, "opp": 3}}
    r = Combat(sc).solve("max-damage")
    assert r.objectives == {"max-damage": 3}


def test_blocker_that_arrives_dead_is_no_kill_and_blocks_nothing():
    # 704.5g: a blocker whose marked damage reaches its toughness was destroyed before the damage step (the board
    # is settled first, docs/effects.md): not a kill, and the trampler has no blocker left (702.19d)
    sc = {
        "players": OPP,
        "attackers": [
            {"id": "a", "power": 3, "toughness": 3, "keywords": ["trample"], "attacking": "opp", "blocked_by": ["x"]}
        ],
        "blockers": [{"id": "x", "power": 1, "toughness": 2, "damage_marked": 2}],
    }
    r = Combat(sc).solve("max-kills,max-damage")
    assert r.objectives == {"max-kills": 0, "max-damage": 3}
    assert r.assignment.to_json() == {"a": {"opp": 3}}
    # indestructible (702.12b): still blocking, needs nothing more, and never a kill
    tough = dict(sc, blockers=[dict(sc["blockers"][0], keywords=["indestructible"])])
    assert Combat(tough).solve("max-kills,max-damage").objectives == {"max-kills": 0, "max-damage": 3}
    assert Combat(tough).count() == 4  # 0..3 to the player, the rest on x


def test_fractional_values_are_exact():
    sc = {
        "players": OPP,
        "attackers": [{"id": "a", "power": 4, "toughness": 4, "attacking": "opp", "blocked_by": ["x", "y", "z"]}],
        "blockers": [
            {"id": "x", "power": 1, "toughness": 2, "value": 0.1},
            {"id": "y", "power": 1, "toughness": 2, "value": 0.2},
            {"id": "z", "power": 1, "toughness": 4, "value": 0.25},
        ],
    }
    r = Combat(sc).solve("max-value")
    assert r.objectives == {"max-value": 0.3}  # 0.1 + 0.2 killed exactly, not 0.30000000000000004
    assert r.assignment == {"a": {"x": 2, "y": 2}}


def test_lethal_report_says_by_how_much_it_is_missed():
    sc = {
        "players": [{"id": "opp", "life": 10}],
        "attackers": [
            {"id": "a", "power": 6, "toughness": 6, "keywords": ["trample"], "attacking": "opp", "blocked_by": ["x"]}
        ],
        "blockers": [{"id": "x", "power": 1, "toughness": 2}],
    }
    r = Combat(sc).solve("lethal")
    assert r.objectives == {"lethal": 0}
    # the tie-break puts as little as it may on the blocker (2) and the rest on the player: missed by 6
    assert r.lethal == {
        "opp": {"life": 10, "damage": 4, "margin": -6, "reached": False, "max_damage": 4, "reachable": False}
    }
    r = Combat(sc).solve("lethal,min-overkill", tie_break=False)
    assert r.lethal["opp"]["max_damage"] == 4 and r.lethal["opp"]["reachable"] is False


def test_thrasta_example():
    with open("examples/thrasta.json") as fh:
        sc = json.load(fh)
    r = Combat(sc).solve("lethal,max-value")
    assert r.to_json()["status"] == "optimal"
    assert r.objectives == {"lethal": 1, "max-value": 7}
    assert r.assignment == {"thrasta": {"wall": 3, "bear": 2, "teferi": 2, "opp": 3}, "cub": {"teferi": 2}}


def test_forced_boards_need_no_solver_and_zero_power_is_empty():
    sc = {
        "players": OPP,
        "attackers": [
            {"id": "a", "power": 3, "toughness": 3, "attacking": "opp"},
            {"id": "z", "power": 0, "toughness": 1, "attacking": "opp"},
        ],
    }
    r = Combat(sc).solve("max-damage,min-overkill")
    assert r.solves == 0 and r.status == "optimal"
    assert r.to_json()["assignment"] == {"a": {"opp": 3}, "z": {}}
    assert r.objectives == {"max-damage": 3, "min-overkill": 0}


def test_same_input_same_answer_and_score_agrees():
    with open("examples/thrasta.json") as fh:
        sc = json.load(fh)
    a = [Combat(sc).solve("min-overkill").assignment for _ in range(3)]
    assert a[0] == a[1] == a[2]
    assert score(Combat(sc), a[0], "min-overkill,max-kills") == {"min-overkill": 0, "max-kills": 2}


def test_deterministic_limit_is_reproducible():
    sc = {
        "players": [{"id": "opp", "life": 30}],
        "attackers": [
            {
                "id": f"a{i}",
                "power": 7,
                "toughness": 7,
                "keywords": ["trample"],
                "attacking": "opp",
                "blocked_by": [f"b{j}" for j in range(i, 12, 3)],
            }
            for i in range(3)
        ],
        "blockers": [{"id": f"b{j}", "power": 2, "toughness": 1 + j % 4, "value": j} for j in range(12)],
    }
    combat = Combat(sc)
    for limit in (1e-4, 1e-3, 1e-2):
        runs = [combat.solve("max-value,min-overkill", deterministic_time=limit) for _ in range(2)]
        assert runs[0].to_json()["assignment"] == runs[1].to_json()["assignment"]
        assert runs[0].objectives == runs[1].objectives
        if runs[0].status in ("feasible", "optimal"):  # best found: legal, and its values are its own
            assert combat.check(runs[0].assignment).legal
            assert score(combat, runs[0].assignment, "max-value,min-overkill") == runs[0].objectives
    best = combat.solve("max-value,min-overkill")
    assert best.status == "optimal"
    assert best.objectives["max-value"] >= runs[0].objectives.get("max-value", 0)


def test_bad_objectives_are_format_errors():
    sc = {"players": OPP, "attackers": [{"id": "a", "power": 3, "toughness": 3, "attacking": "opp"}]}
    for spec, text in [
        ("max-dmg", 'unknown objective "max-dmg"'),
        ("", "expected at least one"),
        ("lethal,lethal", "listed twice"),
        ("max-damage:nobody", 'unknown id "nobody"'),
        ("max-kills:opp", "takes no"),
        ("lethal,", "empty objective"),
    ]:
        with pytest.raises(FormatError) as err:
            Combat(sc).solve(spec)
        assert text in str(err.value) and "\n" not in str(err.value)
    assert [o.name for o in parse_objectives(" lethal , max-value ")] == ["lethal", "max-value"]
    tiny = {
        "players": OPP,
        "attackers": [{"id": "a", "power": 3, "toughness": 3, "attacking": "opp", "blocked_by": ["x", "y"]}],
        "blockers": [
            {"id": "x", "power": 1, "toughness": 1, "value": 1},
            {"id": "y", "power": 1, "toughness": 1, "value": 0.1 + 0.2},
        ],
    }  # 0.30000000000000004
    with pytest.raises(FormatError) as err:
        Combat(tiny).solve("max-value")
    assert str(err.value).startswith("value: ")


# ---------------------------------------------------------------------------------------------
# The command
# ---------------------------------------------------------------------------------------------


def trample(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "trample", *args], input=stdin, capture_output=True, text=True)


@pytest.mark.slow
def test_cli_solve_the_example():
    p = trample("solve", "examples/thrasta.json", "--objective", "lethal,max-value")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["status"] == "optimal"
    assert out["objectives"] == {"lethal": 1, "max-value": 7}
    assert out["assignment"] == {"thrasta": {"wall": 3, "bear": 2, "teferi": 2, "opp": 3}, "cub": {"teferi": 2}}
    assert out["lethal"]["opp"]["reached"] is True
    assert isinstance(out["time_ms"], (int, float))


@pytest.mark.slow
def test_cli_bad_objective_is_one_line_exit_2():
    p = trample("solve", "examples/thrasta.json", "--objective", "max-fun")
    assert p.returncode == 2
    assert p.stdout == "" and len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr
    assert 'unknown objective "max-fun"' in p.stderr
    for bad in (["--objective", "lethal", "--time-limit", "soon"], ["--objective", "max-damage:ghost"], []):
        p = trample("solve", "examples/thrasta.json", *bad)
        assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1, p.stderr


@pytest.mark.slow
def test_cli_batch_one_line_per_scenario(tmp_path):
    good = {
        "players": OPP,
        "attackers": [
            {"id": "a", "power": 5, "toughness": 5, "keywords": ["trample"], "attacking": "opp", "blocked_by": ["x"]}
        ],
        "blockers": [{"id": "x", "power": 1, "toughness": 2}],
    }
    batch = tmp_path / "b.jsonl"
    batch.write_text("\n".join([json.dumps(good), "{not json", json.dumps({"scenario": good, "name": "wrapped"})]))
    p = trample("solve", str(batch), "--objective", "max-damage")
    assert p.returncode == 2
    lines = [json.loads(x) for x in p.stdout.splitlines()]
    assert len(lines) == 3
    assert lines[0]["objectives"] == {"max-damage": 3} and lines[2]["objectives"] == {"max-damage": 3}
    assert lines[1]["error"].startswith("line 2")
    batch.write_text(json.dumps(good) + "\n\n" + json.dumps(good) + "\n")
    p = trample("solve", str(batch), "--objective", "max-kills", "--all-optimal")
    assert p.returncode == 0, p.stderr
    lines = [json.loads(x) for x in p.stdout.splitlines()]
    assert len(lines) == 2 and lines[0]["objectives"] == {"max-kills": 1}
    assert len(lines[0]["assignments"]) == 4  # 2..5 on the 2/2 kill it: x=2,3,4,5


@pytest.mark.slow
def test_cli_all_optimal_streams_each_once_and_side_option():
    p = trample("solve", "examples/thrasta.json", "--objective", "max-value", "--all-optimal")
    assert p.returncode == 0, p.stderr
    lines = [json.loads(x) for x in p.stdout.splitlines()]
    assert len(lines) == len({json.dumps(x, sort_keys=True) for x in lines}) == 20
    p = trample("solve", "examples/thrasta.json", "--objective", "max-value", "--all-optimal", "--limit", "3")
    assert len(p.stdout.splitlines()) == 3
    p = trample("solve", "examples/thrasta.json", "--objective", "max-kills", "--side", "defending")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["assignment"] == {"wall": {}, "bear": {"thrasta": 2}} and out["objectives"] == {"max-kills": 0}


@pytest.mark.slow
def test_cli_time_limits_are_accepted():
    p = trample(
        "solve", "examples/thrasta.json", "--objective", "max-damage", "--time-limit", "5", "--deterministic-time", "5"
    )
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["status"] == "optimal"
