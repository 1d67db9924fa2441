"""Scale (docs/scale.md): the direct engine side by side with CP-SAT callback enumeration and itertools brute force.

    python -m benchmarks scale                 # default run, well under a minute
    python benchmarks/bench_scale.py --big     # also stream 10^8 assignments and report peak memory

Printed, never asserted (timings depend on the machine and its load), each figure beside its goal (issue 21).
Measured honestly, like bench_solve and bench_cliffs:

- CPU time (``time.process_time``) for every side, all measured in this run;
- the same repetitions and statistic for every side: the median of ``REPEAT`` complete runs;
- nothing extrapolated and no capped run beside complete ones: a side whose run passes ``CAP`` seconds of CPU is
  printed as ``> CAP`` (its ratio is then a bound, said so, or not printed).

For each board: the count (the engine's count, the column programme, CP-SAT and brute force listing everything),
then listing rates: direct numpy blocks from a fresh programme (tables included), tuples (what
``Combat.assignments()`` consumes), CP-SAT, itertools brute force, and the ratios beside their goals (numpy >= 100x
itertools, >= 50x CP-SAT). Then counts of huge spaces, and (with ``--big``) the memory of a 10^8-row stream.
"""

from __future__ import annotations

import argparse
import copy
import itertools
import resource
import statistics
import subprocess
import sys
import time
import tracemalloc
from math import comb
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.boards import blocker_chain, trampler  # noqa: E402
from trample.engines.direct import ComponentDP, closed_form_count, plan_blocks  # noqa: E402
from trample.models import load_scenario  # noqa: E402
from trample.rules import derive  # noqa: E402

OPP = [{"id": "opp", "life": 20}]
CAP = 10.0  # seconds of CPU: a side past this is stopped and printed as "> CAP" (never extrapolated)
REPEAT = 3  # complete runs per side; the median is printed


def shared3():
    """Three tramplers (power 8, 7, 6) on five blockers, two of them shared: one joined component."""
    return {
        "players": OPP,
        "attackers": [
            {
                "id": "a",
                "power": 8,
                "toughness": 5,
                "keywords": ["trample"],
                "attacking": "opp",
                "blocked_by": ["x", "s1"],
            },
            {
                "id": "b",
                "power": 7,
                "toughness": 5,
                "keywords": ["trample"],
                "attacking": "opp",
                "blocked_by": ["s1", "y", "s2"],
            },
            {
                "id": "c",
                "power": 6,
                "toughness": 5,
                "keywords": ["trample", "deathtouch"],
                "attacking": "opp",
                "blocked_by": ["s2", "z"],
            },
        ],
        "blockers": [
            {"id": "x", "power": 1, "toughness": 2},
            {"id": "s1", "power": 1, "toughness": 3},
            {"id": "y", "power": 1, "toughness": 1},
            {"id": "s2", "power": 1, "toughness": 4},
            {"id": "z", "power": 1, "toughness": 2},
        ],
    }


def plan_of(sc):
    return derive(load_scenario(sc), "attacking")


# ---------------------------------------------------------------------------------------------
# The alternatives
# ---------------------------------------------------------------------------------------------


class _Capped(Exception):
    """A run passed CAP seconds of CPU."""


def _over(start: float) -> bool:
    return time.process_time() - start > CAP


def cpsat_enumerate(plan, comp):
    """CP-SAT callback enumeration (the reference model, one worker), complete: the number of solutions."""
    from ortools.sat.python import cp_model

    from trample.engines.cpsat import build_model, enumeration_solver

    built = build_model(plan, comp)
    start = time.process_time()

    class Cb(cp_model.CpSolverSolutionCallback):
        def __init__(self):
            super().__init__()
            self.n = 0
            self.capped = False

        def on_solution_callback(self):
            tuple(self.value(x) for x in built.x)  # read the solution, as a consumer would
            self.n += 1
            if self.n % 256 == 0 and _over(start):
                self.capped = True
                self.stop_search()

    solver = enumeration_solver()
    cb = Cb()
    solver.solve(built.model, cb)
    if cb.capped:
        raise _Capped
    return cb.n


def compositions(total, parts):
    for bars in itertools.combinations(range(total + parts - 1), parts - 1):
        prev, out = -1, []
        for b in bars + (total + parts - 1,):
            out.append(b - prev - 1)
            prev = b
        yield tuple(out)


def brute_enumerate(plan, comp):
    """itertools brute force, complete: every split of every source (stars and bars), their product, filtered by
    the rules (totals, lethal with deathtouch, loyalty, gates). The number of legal vectors."""
    srcs = [plan.sources[i] for i in comp]
    if len(srcs) == 1:  # lazily: no need to hold every split of a lone source
        per_source = [compositions(srcs[0].damage, len(srcs[0].routes))]
    else:
        per_source = [list(compositions(s.damage, len(s.routes))) for s in srcs]
    cols = plan.component_columns(comp)
    gates = [(k, plan.sources[i].route(r).gate) for k, (i, r) in enumerate(cols)]
    gates = [(k, g) for k, g in gates if g is not None]
    dt = [plan.sources[i].deathtouch for i, _ in cols]
    recips = [r for _, r in cols]
    start = time.process_time()
    n = seen = 0
    for combo in itertools.product(*per_source):
        vec = [x for split in combo for x in split]
        seen += 1
        if seen % 4096 == 0 and _over(start):
            raise _Capped
        totals, touched = {}, set()
        for r, x, d in zip(recips, vec, dt):
            if x:
                totals[r] = totals.get(r, 0) + x
                if d:
                    touched.add(r)
        ok = True
        for k, g in gates:
            if vec[k] and (
                any(not plan.is_lethal(b, totals, touched) for b in g.lethal)
                or any(not plan.loyalty_met(p, totals) for p in g.loyalty)
            ):
                ok = False
                break
        n += ok
    return n


def direct_blocks(plan, comp):
    """A fresh programme (counting, tables and all), then every block: the number of rows."""
    return sum(len(b) for b in ComponentDP(plan, comp).blocks())


def direct_tuples(plan, comp):
    start = time.process_time()
    n = 0
    for block in ComponentDP(plan, comp).blocks():
        for _ in map(tuple, block.tolist()):
            n += 1
        if _over(start):
            raise _Capped
    return n


def median_cpu(fn):
    """(result, median CPU seconds of REPEAT complete runs), or (None, None) when a run passes CAP."""
    times, out = [], None
    for _ in range(REPEAT):
        start = time.process_time()
        try:
            out = fn()
        except _Capped:
            return None, None
        t = time.process_time() - start
        if t > CAP:
            return None, None
        times.append(t)
    return out, statistics.median(times)


def fmt_rate(r):
    return f"{r / 1e6:.2f} M/s" if r >= 1e5 else f"{r / 1e3:.1f} k/s"


def fmt_time(t):
    if t is None:
        return f"> {CAP:g} s"
    if t < 1e-3:
        return f"{t * 1e6:.1f} us"
    if t < 1:
        return f"{t * 1e3:.2f} ms"
    return f"{t:.2f} s"


def figure(what, value, goal, met):
    mark = "" if met is None else ("met" if met else "MISSED")
    print(f"  {what:<44} {value:>18}   goal {goal:<16} {mark}")


# ---------------------------------------------------------------------------------------------


def board_report(name, sc):
    from trample import Combat

    plan = plan_of(sc)
    (comp,) = plan.components
    print(f"\n{name}: {len(plan.component_columns(comp))} columns (CPU, median of {REPEAT} complete runs)")
    # a copy each run: the board object keeps its plan and count (rules.derive), a copy does not (fresh plan)
    n, t_count = median_cpu(lambda: Combat(copy.copy(sc)).count())
    _, t_dp = median_cpu(lambda: ComponentDP(plan, comp).count())
    form, t_form = median_cpu(lambda: closed_form_count(plan, comp))
    n_blk, t_blk = median_cpu(lambda: direct_blocks(plan, comp))
    n_tup, t_tup = median_cpu(lambda: direct_tuples(plan, comp))
    n_cp, t_cp = median_cpu(lambda: cpsat_enumerate(plan, comp))
    n_bf, t_bf = median_cpu(lambda: brute_enumerate(plan, comp))
    for got in (n_blk, n_tup, n_cp, n_bf):
        assert got is None or got == n, (got, n)
    print(f"  {n:,} legal assignments")
    figure("count: Combat.count() (fresh plan)", fmt_time(t_count), "<= 100 ms", t_count is not None and t_count <= 0.1)
    figure("count: column programme", fmt_time(t_dp), "", None)
    figure("count: closed form", fmt_time(t_form) if form is not None else "n/a", "", None)
    figure("count: CP-SAT, listing everything", fmt_time(t_cp), "", None)
    figure("count: itertools brute force", fmt_time(t_bf), "", None)
    rate = {k: (None if t is None else n / t) for k, t in (("blk", t_blk), ("tup", t_tup), ("cp", t_cp), ("bf", t_bf))}
    for key, label in (
        ("blk", "numpy blocks, fresh programme"),
        ("tup", "tuples"),
        ("cp", "CP-SAT"),
        ("bf", "itertools"),
    ):
        figure(f"list rate: {label}", "> cap" if rate[key] is None else fmt_rate(rate[key]), "", None)
    for other, label, goal in (("bf", "itertools", 100), ("cp", "CP-SAT", 50)):
        if t_blk is None:
            figure(f"numpy blocks vs {label}", "blocks > cap", f">= {goal}x", False)
        elif rate[other] is None:  # the other side did not finish within CAP: a lower bound, said so
            figure(f"numpy blocks vs {label}", f">= {CAP / t_blk:,.0f}x (bound)", f">= {goal}x", CAP / t_blk >= goal)
        else:
            figure(
                f"numpy blocks vs {label}",
                f"{rate['blk'] / rate[other]:,.0f}x",
                f">= {goal}x",
                rate["blk"] / rate[other] >= goal,
            )
    return rate["blk"]


def huge_counts():
    print(f"\ncounts of huge spaces (CPU, median of {REPEAT} runs, a fresh programme each time; goal <= 100 ms)")
    cases = [
        ("one trampler, power 300, 9 blockers (closed form)", trampler(300, (2, 3, 1, 4, 2, 3, 1, 2, 2)), True),
        ("one trampler, power 300, 9 blockers (programme)", trampler(300, (2, 3, 1, 4, 2, 3, 1, 2, 2)), False),
        (
            "4 tramplers of power 40 x 5 own blockers (closed forms)",
            {
                "players": OPP,
                "attackers": [
                    dict(
                        trampler(40, (2, 3, 1, 4, 2))["attackers"][0],
                        id=f"t{k}",
                        blocked_by=[f"b{k}_{i}" for i in range(5)],
                    )
                    for k in range(4)
                ],
                "blockers": [
                    {"id": f"b{k}_{i}", "power": 1, "toughness": n}
                    for k in range(4)
                    for i, n in enumerate((2, 3, 1, 4, 2))
                ],
            },
            True,
        ),
        ("10 attackers of power 40 x 6 blockers, neighbours share one (programme)", blocker_chain(), False),
        (
            "3 tramplers sharing blockers, power x10 (programme)",
            {**shared3(), "attackers": [dict(a, power=a["power"] * 10) for a in shared3()["attackers"]]},
            False,
        ),
    ]
    for name, sc, closed in cases:
        plan = plan_of(sc)

        def count(plan=plan, closed=closed):
            total = 1
            for comp in plan.components:
                total *= (closed_form_count(plan, comp) if closed else None) or ComponentDP(plan, comp).count()
            return total

        n, t = median_cpu(count)
        figure(name[:44], fmt_time(t), "<= 100 ms", t is not None and t <= 0.1)
        if n is not None:
            print(f"      {name}: {n:.3e} ({len(str(n))} digits)")


def big_stream(rows_wanted=10**8):
    """Stream >= 10^8 rows through plan_blocks (numpy blocks, nothing kept); peak memory."""
    sc = trampler(60, (2, 3, 1, 4, 2, 3, 1))
    plan = plan_of(sc)
    total = 1
    for comp in plan.components:
        total *= ComponentDP(plan, comp).count()
    print(
        f"\nstreaming {min(total, rows_wanted):,} of {total:,} assignments "
        f"(one trampler of power 60 vs 7 blockers) through numpy blocks"
    )
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    tracemalloc.start()
    start = time.process_time()
    n = 0
    checksum = 0
    for block in plan_blocks(plan):
        n += len(block)
        checksum += int(block[-1, 0])
        if n >= rows_wanted:
            break
    t = time.process_time() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(
        f"  {n:,} rows in {t:.1f} s of CPU ({n / t / 1e6:.1f} M rows/s); peak traced memory {peak / 2**20:.1f} MB; "
        f"process max RSS {rss / 1024:.0f} MB (before: {base / 1024:.0f} MB)"
    )


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--big", action="store_true", help="also stream 10^8 assignments and report peak memory")
    ap.add_argument("--stream-only", action="store_true", help=argparse.SUPPRESS)
    args, _ = ap.parse_known_args(argv)  # python -m benchmarks passes its own arguments along
    if args.stream_only:
        big_stream()
        return
    print(
        f"(every side: CPU, median of {REPEAT} complete runs; a side past {CAP:g} s of CPU is printed as > {CAP:g} s)"
    )
    rates = []
    rates.append(board_report("P20k5 (power 20; blockers need 2,3,1,4,2)", trampler(20, (2, 3, 1, 4, 2))))
    rates.append(
        board_report("P20k8 (power 20; blockers need 2,3,1,4,2,1,2,1)", trampler(20, (2, 3, 1, 4, 2, 1, 2, 1)))
    )
    rates.append(board_report("3 attackers, 2 shared blockers (power 8, 7, 6; one deathtouch)", shared3()))
    huge_counts()
    if args.big:  # in a fresh process, so that its peak memory is its own
        sys.stdout.flush()
        subprocess.run([sys.executable, __file__, "--stream-only"], check=False)
    else:
        print("\n(run with --big to stream 10^8 assignments and measure peak memory)")
    print(f"\nexpected P20k5 by hand: C(24,4) + C(12,5) = {comb(24, 4) + comb(12, 5)}")


if __name__ == "__main__":
    main()
