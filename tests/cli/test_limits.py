"""Never a hang: every long computation honours a time limit and says clearly that it stopped.

Library calls take ``time_limit`` (seconds, or a ``trample.limits.Deadline``) and raise
``trample.limits.LimitReached`` (streams first yield what they found); ``solve`` returns ``feasible`` or
``unknown`` instead. The command line prints one line on standard error; ``count`` prints
``{"count": null, "complete": false, ...}`` and exits 1 (docs/scale.md, docs/combat.md, docs/solve.md).

Most tests use a deadline that has already passed, so the outcome does not depend on the machine's speed: the
work must notice it and stop. A few run the real command on boards that would take hours, in a subprocess
with a generous timeout (so that a regression fails instead of hanging the suite). No timing assertions.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from boards import ENDLESS_COMBAT, THREE_GANGS
from brute import is_legal

from trample import Combat
from trample.engines import get_engine
from trample.limits import Deadline, LimitReached, deadline_of
from trample.optimize import all_optimal
from trample.whole import WholeCombat

ROOT = Path(__file__).resolve().parents[2]
OPP = [{"id": "opp", "life": 20}]


def shared(n_att: int, n_blk: int, power: int, tough: int, **extra) -> dict:
    """702.19b: n tramplers all blocked by the same n_blk blockers (one component, a wide frontier)."""
    return {
        "players": OPP,
        **extra,
        "attackers": [
            {
                "id": f"a{i}",
                "power": power,
                "toughness": 5,
                "keywords": ["trample"],
                "attacking": "opp",
                "blocked_by": [f"b{j}" for j in range(n_blk)],
            }
            for i in range(n_att)
        ],
        "blockers": [{"id": f"b{j}", "power": 1, "toughness": tough} for j in range(n_blk)],
    }


# Hours of work without a limit: two power-100000 tramplers sharing a blocker that needs 50000 (the counting
# programme's tables grow with need x power; counting alone is quick one source at a time, enumeration and sampling
# are not), and four tramplers sharing four 20-toughness blockers (counting too).
HUGE = shared(2, 1, 100_000, 50_000)
WIDE = shared(4, 4, 30, 20)
DOUBLE = ENDLESS_COMBAT  # tests/boards.py: a whole combat of more than 10^20 lines
# small enough to finish in about a second (so that ignoring the deadline fails the test, not hangs it)
MEDIUM = shared(3, 3, 12, 5)


def expired() -> Deadline:
    d = Deadline(1e-9)
    while not d.expired():
        pass
    return d


def test_deadline_basics():
    assert not deadline_of(None) and deadline_of(None).remaining() is None
    assert deadline_of(5.0).seconds == 5.0 and deadline_of(5.0).remaining() > 0
    d = expired()
    assert deadline_of(d) is d
    with pytest.raises(LimitReached, match="time limit"):
        d.check()
    for bad in (0, -1, "3", True):
        with pytest.raises(ValueError):
            deadline_of(bad)


@pytest.mark.parametrize("engine", ["direct", "cpsat", "auto"])
def test_count_and_enumerate_stop_at_the_deadline(engine):
    combat = Combat(MEDIUM, engine=engine)
    with pytest.raises(LimitReached):
        combat.count(time_limit=expired())
    got = []
    with pytest.raises(LimitReached):
        for a in combat.assignments(time_limit=expired()):
            got.append(a)
    assert all(is_legal(MEDIUM, a.to_json()) for a in got)


def test_rank_unrank_sample_stop_at_the_deadline():
    combat = Combat(MEDIUM)
    with pytest.raises(LimitReached):
        combat.sample(3, seed=1, time_limit=expired())
    with pytest.raises(LimitReached):
        combat.unrank(0, time_limit=expired())
    with pytest.raises(LimitReached):
        combat.rank({"a0": {"b0": 12}, "a1": {"b0": 12}, "a2": {"b0": 12}}, time_limit=expired())
    # nothing half-built was kept: without a limit the same questions are answered
    n = combat.count()
    assert combat.rank(combat.unrank(n - 1)) == n - 1


def test_a_limit_that_is_not_reached_changes_nothing():
    combat = Combat(shared(2, 2, 6, 2))
    assert combat.count(time_limit=60) == combat.count()
    assert list(combat.assignments(time_limit=60)) == list(combat.assignments())
    whole = WholeCombat(
        DOUBLE
        | {"attackers": DOUBLE["attackers"][:1], "blockers": DOUBLE["blockers"][:2]}
        | {"attackers": [dict(DOUBLE["attackers"][0], power=5, blocked_by=["b0", "b1"])]}
    )
    assert whole.count(time_limit=60) == whole.count()


def test_whole_combat_count_enumerate_and_solve_stop_at_the_deadline():
    whole = WholeCombat(DOUBLE)
    with pytest.raises(LimitReached):
        whole.count(time_limit=expired())
    with pytest.raises(LimitReached):
        list(whole.assignments(time_limit=expired()))
    result = whole.solve(["max-damage"], time_limit=expired())
    assert result.status == "unknown" and result.assignment is None


@pytest.mark.slow
def test_whole_combat_solve_with_a_short_limit_returns_a_legal_line():
    # the search cannot finish in a second; what it returns is a complete, legal line, marked feasible
    result = WholeCombat(DOUBLE).solve(["max-damage"], time_limit=1.0)
    assert result.status in ("feasible", "unknown")
    if result.assignment is not None:
        assert WholeCombat(DOUBLE).check(result.assignment).legal


@pytest.mark.parametrize("where", ["canonical", "assignments"])
def test_whole_combat_solve_stopped_anywhere_is_a_result_not_an_error(monkeypatch, where):
    # the time limit may run out while the direct engine's programme is built (Combat.canonical) or while the
    # first-strike assignments are listed: the solve then returns "unknown" (or "feasible"), it never raises
    original = getattr(Combat, where)

    def stop(self, *args, **kwargs):
        if where == "canonical" and "deadline" not in kwargs:  # the listings' own check: let it through
            return original(self, *args, **kwargs)
        raise LimitReached("stopped at the time limit of 1 s", 1.0)

    monkeypatch.setattr(Combat, where, stop)
    result = WholeCombat(DOUBLE).solve(["max-damage"], time_limit=30)
    assert result.status in ("feasible", "unknown")
    if result.assignment is not None:
        assert WholeCombat(DOUBLE).check(result.assignment).legal


def test_all_optimal_stream_stops_at_the_time_limit():
    # every split that kills the three 2/2s is optimal for max-kills: 10^13 of them
    sc = THREE_GANGS
    stream = all_optimal(Combat(sc), ["max-kills"], time_limit=0.5)
    assert stream.status == "optimal"
    with pytest.raises(LimitReached):
        for _ in stream:
            pass
    assert stream.complete is False


@pytest.mark.slow
def test_enumeration_support_is_decided_without_building_a_huge_programme():
    # the direct engine's answer on a component whose column programme would be huge is decided after a bounded
    # amount of work, not after building it: it lists it with the closed form of engines/shared.py (two tramplers
    # sharing one blocker, a source's splits past SPLIT_LIMIT), which builds at once; the column programme is not
    # built (before the closed form listed: declined, and "auto" listed it with CP-SAT)
    from trample.engines.direct import ComponentDP
    from trample.engines.shared import SharedProgramme

    plan = Combat(shared(2, 1, 10_000, 5_000)).plan
    (comp,) = plan.components
    assert get_engine("direct").supports(plan, comp) is True
    built = plan.cache.of("direct").get(tuple(comp))
    assert isinstance(built, SharedProgramme) and not isinstance(built, ComponentDP)
    first = list(Combat(HUGE).assignments(limit=3))
    assert len(first) == 3 and all(is_legal(HUGE, a.to_json()) for a in first)


def test_lazy_listing_yields_its_first_rows_before_a_whole_block():
    # Combat.assignments reads blocks of up to 65 536 rows; a CP-SAT listing slows down as it goes (HUGE: 600
    # solutions take 0.2 s, 65 536 would take most of an hour), so the lazy view asks for small blocks first and
    # CP-SAT's stream hands over its first solution at once (found in session 5: limit=3 never returned)
    blocks = Combat(HUGE).assignment_blocks(rows=1 << 16, engine="cpsat", _grow=True)
    sizes = [len(next(blocks)) for _ in range(4)]
    blocks.close()
    assert sizes == [16, 32, 64, 128]
    first = list(Combat(HUGE).assignments(limit=3, engine="cpsat"))
    assert len({json.dumps(a.to_json(), sort_keys=True) for a in first}) == 3
    assert all(is_legal(HUGE, a.to_json()) for a in first)  # 702.19b


# ---------------------------------------------------------------------------------------------
# The command line, on boards that would take hours
# ---------------------------------------------------------------------------------------------


def trample(*args):
    return subprocess.run(
        [sys.executable, "-m", "trample", *map(str, args)], capture_output=True, text=True, cwd=ROOT, timeout=300
    )


@pytest.mark.slow
def test_cli_count_time_limit_says_incomplete(tmp_path):
    big = tmp_path / "wide.json"  # HUGE is counted at once one source at a time (engines/by_source.py): WIDE is not
    big.write_text(json.dumps(WIDE))
    proc = trample("count", big, "--time-limit", "0.5")
    assert proc.returncode == 1, proc.stderr
    assert json.loads(proc.stdout) == {"count": None, "complete": False, "time_limit": 0.5}
    assert proc.stderr.count("\n") == 1 and "time limit" in proc.stderr and "Traceback" not in proc.stderr
    # a batch: each line stops on its own, the others are answered
    batch = tmp_path / "b.jsonl"
    batch.write_text(json.dumps(WIDE) + "\n" + json.dumps(shared(1, 1, 3, 2)) + "\n")
    proc = trample("count", batch, "--time-limit", "0.5")
    lines = [json.loads(x) for x in proc.stdout.splitlines()]
    assert (
        proc.returncode == 1 and lines[0]["complete"] is False and lines[1] == {"count": 2}
    )  # (2, 1), (3, 0): 702.19b


@pytest.mark.slow
def test_cli_whole_combat_and_enumerate_time_limits(tmp_path):
    ds = tmp_path / "ds.json"
    ds.write_text(json.dumps(DOUBLE))
    proc = trample("count", ds, "--time-limit", "0.5")
    assert proc.returncode == 1 and json.loads(proc.stdout)["count"] is None
    proc = trample("solve", ds, "--objective", "max-damage", "--time-limit", "1")
    assert proc.returncode in (0, 1) and json.loads(proc.stdout)["status"] in ("feasible", "unknown")
    big = tmp_path / "huge.json"
    big.write_text(json.dumps(HUGE))
    proc = trample("enumerate", big, "--engine", "direct", "--time-limit", "0.5")
    assert proc.returncode == 0 and "incomplete" in proc.stderr and proc.stderr.count("\n") == 1
    proc = trample("sample", big, "--time-limit", "0.5")
    # HUGE has the closed form's shape (engines/shared.py): a draw may now come within the limit -- then one legal
    # assignment -- or, on a loaded machine, not: then nothing on standard output and one line on standard error
    if proc.returncode == 0:
        assert proc.stderr == "" and is_legal(HUGE, json.loads(proc.stdout))
    else:
        assert proc.returncode == 1 and proc.stdout == "" and proc.stderr.count("\n") == 1
    assert "Traceback" not in proc.stderr
    # a board whose count alone takes seconds (random sharing, 5 blockers each): the draw stops at the limit
    from benchmarks.boards import random_sharing

    slow = tmp_path / "slow.json"
    slow.write_text(json.dumps(random_sharing(12, 14, 5, seed=1)))
    proc = trample("sample", slow, "--time-limit", "0.5")
    assert proc.returncode == 1 and proc.stdout == "" and proc.stderr.count("\n") == 1
    assert "Traceback" not in proc.stderr


def test_samples_stream_the_same_draws_as_sample():
    combat = Combat(MEDIUM)
    assert list(combat.samples(40, seed=3)) == combat.sample(40, seed=3)
    stream = combat.samples(10**9, seed=3, time_limit=0.2)  # far more than can be drawn in time: flat memory
    got = []
    with pytest.raises(LimitReached):
        for a in stream:
            got.append(a)
    assert got == combat.sample(len(got), seed=3)


#: 702.22j: the banding blocker b makes the defending player divide the double strikers' damage (first strike too,
#: 702.4b): the whole combat's search takes the first step as a game (search._divided_search), its lines far more
#: than 500 clock readings.
DIVIDED = {
    "step": "combat",
    "players": [{"id": "opp", "life": 40}],
    "attackers": [
        {
            "id": f"a{k}",
            "power": 5,
            "toughness": 5,
            "keywords": ["double_strike", "trample"],
            "attacking": "opp",
            "blocked_by": ["b", "c", "d"],
        }
        for k in range(3)
    ],
    "blockers": [
        {"id": "b", "power": 1, "toughness": 6, "keywords": ["banding"]},
        {"id": "c", "power": 1, "toughness": 4},
        {"id": "d", "power": 1, "toughness": 4},
    ],
}


def test_the_whole_searchs_bounds_stop_on_the_clock(monkeypatch):
    # the best-bound-first search reads a bound per outcome of the defender's replies before any candidate: the
    # clock is read before each, and a limit that passes among them stops the search with no line (not a late one)
    import trample.whole.search as search
    from benchmarks.boards import chained
    from trample import limits

    whole = WholeCombat(chained(4))
    objs = search.parse_objectives("max-damage", whole.scenario)
    deadline = Deadline(60)
    problem = search._Problem(whole, objs, deadline, {}, search._Stats())
    replies = search._replies(problem)
    assert len(search._outcomes(replies)) > 1
    read = search._reply_bounds
    calls = []

    def expiring(*args, **kwargs):  # the clock jumps past the limit while the first bound is read
        calls.append(1)
        monkeypatch.setattr(limits, "monotonic", lambda: 1e9)
        return read(*args, **kwargs)

    monkeypatch.setattr(search, "_reply_bounds", expiring)
    regular = search._Regular(problem)
    assert search._front_search(problem, regular, search._effect_caps(problem), replies, 1) == (None, True)
    assert len(calls) == 1


def _ladder(n: int) -> dict:
    """benchmarks/boards.py's ladder: n double-strike tramplers (power 4, toughness 3), each blocked by its own 1/2
    and by a first-strike 2/3 shared per pair of attackers; one player at 20."""
    from benchmarks.boards import ladder

    return ladder(n)


@pytest.mark.parametrize(
    "board, objectives",
    [
        # the A1s in the canonical order (a creature's damage: no monotone prefix), one-step solves; the ladder's
        # lethal,max-kills,min-overkill is now done within 500 readings (the overkill floor, docs/combat.md)
        ("ladder", "max-damage:b0"),
        ("endless", "max-damage"),  # the first step's effects listed, cut short
        ("endless at 1000 life", "max-damage"),  # best bound first (the order needs every A1 listed)
        ("endless at 1000 life", "max-kills,min-overkill"),
        ("divided", "max-damage"),  # banding gives the first step's division away: _divided_search
    ],
)
def test_whole_combat_search_stops_on_the_clock(monkeypatch, board, objectives):
    # --time-limit in the whole-combat search, on a fake clock (trample.limits.monotonic) that moves 1 ms at each
    # reading: the search stops where the clock says so, whichever path it is on -- no one-step solve starts once
    # the limit is past -- and returns an honest partial answer: a legal line marked feasible, or unknown and no
    # line (never "unknown" with a line: a one-step solve cut short made it so before)
    import trample.whole.search as search
    from trample import limits

    if board == "ladder":
        doc = _ladder(6)
    elif board == "divided":
        doc = DIVIDED
    else:
        doc = dict(DOUBLE, players=[{"id": "opp", "life": 1000}]) if "1000" in board else DOUBLE
    clock = [0.0]

    def tick() -> float:
        clock[0] += 0.001
        return clock[0]

    started: list[float] = []
    solve_step = search.solve_step

    def counted(*args, **kwargs):
        started.append(clock[0])
        return solve_step(*args, **kwargs)

    monkeypatch.setattr(limits, "monotonic", tick)
    monkeypatch.setattr(search, "solve_step", counted)
    whole = WholeCombat(doc)
    result = whole.solve(objectives, time_limit=0.5)
    assert clock[0] > 0.5  # it ran out of time (each board takes far longer than 500 readings)
    # the first reading of the deadline is its start (rounded: the clock adds 0.001 hundreds of times)
    late = [t for t in started if round(t, 6) > 0.501]
    assert not late, f"{len(late)} one-step solves started after the limit"
    assert clock[0] < 0.5 + 0.1  # and it stopped within 100 further readings
    if result.assignment is None:
        assert result.status == "unknown" and result.objectives == {}
    else:
        assert result.status == "feasible"
        assert whole.check(result.assignment).legal


@pytest.mark.parametrize("made", [0, 1])
def test_sample_past_its_limit_exits_1_only_when_no_draw_came(made, capsys, monkeypatch):
    # `trample sample --help`: past the limit, the draws made in time and one line on standard error, exit 1 if
    # none. A stream cut after its programme was built (the first draw still walking) used to exit 0 with nothing.
    import io

    import trample.combat
    from trample.cli import main

    def cut(self, n, seed=None, time_limit=None):
        yield from trample.combat.Combat.sample(self, made, seed=seed)
        raise LimitReached("time limit reached")

    monkeypatch.setattr(trample.combat.Combat, "samples", cut)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(json.dumps(THREE_GANGS).encode())))
    code = main(["sample", "-", "--n", "3", "--time-limit", "60"])
    out, err = capsys.readouterr()
    assert code == (0 if made else 1) and len(out.splitlines()) == made
    assert err == f"trample: sample stopped at --time-limit 60.0s after {made} of 3 draws; the list is incomplete\n"
