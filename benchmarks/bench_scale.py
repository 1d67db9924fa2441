"""Scale (docs/scale.md): the direct engine side by side with CP-SAT callback enumeration and itertools brute force.

    python -m benchmarks scale                 # default run, well under a minute
    python benchmarks/bench_scale.py --big     # also stream 10^8 assignments and report peak memory

Printed, never asserted (timings depend on the machine and its load). For each board: the exact count and
how long each method takes to count it (CP-SAT and brute force count by listing, so their time is measured
on a capped run and extrapolated from their rate), then listing rates: direct numpy blocks (a fresh
programme, tables included), direct tuples (what ``Combat.assignments()`` consumes), CP-SAT, brute force --
and the ratios. Then counts of huge spaces, and (with ``--big``) the memory of a 10^8-row stream.
"""

from __future__ import annotations

import argparse
import itertools
import resource
import subprocess
import sys
import time
import tracemalloc
from math import comb
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from trample.engines.direct import ComponentDP, closed_form_count, plan_blocks  # noqa: E402
from trample.models import load_scenario  # noqa: E402
from trample.rules import derive  # noqa: E402

OPP = [{"id": "opp", "life": 20}]
CAP_SECONDS = 2.0  # CP-SAT and brute force are stopped after this long and their rate extrapolated


def trampler(power, needs):
    return {
        "players": OPP,
        "attackers": [
            {
                "id": "t",
                "power": power,
                "toughness": 5,
                "keywords": ["trample"],
                "attacking": "opp",
                "blocked_by": [f"b{i}" for i in range(len(needs))],
            }
        ],
        "blockers": [{"id": f"b{i}", "power": 1, "toughness": n} for i, n in enumerate(needs)],
    }


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


def chain_board(n_att=10, power=40, per=6, tough=(2, 3, 1, 4, 2, 3)):
    blockers, attackers, bid, shared = [], [], 0, None
    for a in range(n_att):
        bl = [shared] if shared else []
        while len(bl) < per:
            blockers.append({"id": f"b{bid}", "power": 1, "toughness": tough[bid % len(tough)]})
            bl.append(f"b{bid}")
            bid += 1
        shared = bl[-1]
        attackers.append(
            {
                "id": f"a{a}",
                "power": power,
                "toughness": 5,
                "keywords": ["trample"],
                "attacking": "opp",
                "blocked_by": bl,
            }
        )
    return {"players": OPP, "attackers": attackers, "blockers": blockers}


def plan_of(sc):
    return derive(load_scenario(sc), "attacking")


# ---------------------------------------------------------------------------------------------
# The alternatives
# ---------------------------------------------------------------------------------------------


def cpsat_enumerate(plan, comp, cap=CAP_SECONDS):
    """CP-SAT callback enumeration (the reference model, one worker): (solutions seen, seconds, complete)."""
    from ortools.sat.python import cp_model

    from trample.engines.cpsat import build_model, enumeration_solver

    built = build_model(plan, comp)

    class Cb(cp_model.CpSolverSolutionCallback):
        def __init__(self):
            super().__init__()
            self.n = 0
            self.start = time.perf_counter()

        def on_solution_callback(self):
            tuple(self.value(x) for x in built.x)  # read the solution, as a consumer would
            self.n += 1
            if self.n % 256 == 0 and time.perf_counter() - self.start > cap:
                self.stop_search()

    solver = enumeration_solver()
    cb = Cb()
    start = time.perf_counter()
    status = solver.solve(built.model, cb)
    return cb.n, time.perf_counter() - start, status == cp_model.OPTIMAL


def compositions(total, parts):
    for bars in itertools.combinations(range(total + parts - 1), parts - 1):
        prev, out = -1, []
        for b in bars + (total + parts - 1,):
            out.append(b - prev - 1)
            prev = b
        yield tuple(out)


def brute_enumerate(plan, comp, cap=CAP_SECONDS):
    """itertools brute force: every split of every source (stars and bars), their product, filtered by the
    rules (totals, lethal with deathtouch, loyalty, gates). (legal seen, seconds, complete)."""
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
    start = time.perf_counter()
    n = seen = 0
    complete = True
    for combo in itertools.product(*per_source):
        vec = [x for split in combo for x in split]
        seen += 1
        if seen % 4096 == 0 and time.perf_counter() - start > cap:
            complete = False
            break
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
    return n, time.perf_counter() - start, complete


def direct_blocks(plan, comp, repeat=3):
    """Best of `repeat` runs, each from a fresh programme (counting, tables and all); then a warm rerun."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        dp = ComponentDP(plan, comp)
        n = sum(len(b) for b in dp.blocks())
        best = min(best, time.perf_counter() - start)
    start = time.perf_counter()
    sum(len(b) for b in dp.blocks())
    return n, best, time.perf_counter() - start


def direct_tuples(plan, comp, cap=CAP_SECONDS):
    dp = ComponentDP(plan, comp)
    start = time.perf_counter()
    n = 0
    for block in dp.blocks():
        for _ in map(tuple, block.tolist()):
            n += 1
        if time.perf_counter() - start > cap:
            break
    return n, time.perf_counter() - start


def best_of(fn, repeat=5):
    best = float("inf")
    out = None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return out, best


def fmt_rate(r):
    return f"{r / 1e6:8.2f} M/s" if r >= 1e5 else f"{r / 1e3:8.1f} k/s"


def fmt_time(t):
    if t < 1e-3:
        return f"{t * 1e6:8.1f} us"
    if t < 1:
        return f"{t * 1e3:8.2f} ms"
    return f"{t:8.2f} s "


# ---------------------------------------------------------------------------------------------


def board_report(name, sc):
    plan = plan_of(sc)
    (comp,) = plan.components
    (n, t_dp) = best_of(lambda: ComponentDP(plan, comp).count())
    form, t_form = best_of(lambda: closed_form_count(plan, comp))
    n_cp, t_cp, cp_done = cpsat_enumerate(plan, comp)
    n_bf, t_bf, bf_done = brute_enumerate(plan, comp)
    n_blk, t_blk, t_warm = direct_blocks(plan, comp)
    n_tup, t_tup = direct_tuples(plan, comp)
    assert n_blk == n and (not cp_done or n_cp == n) and (not bf_done or n_bf == n)
    r_cp, r_bf, r_blk, r_tup = n_cp / t_cp, max(n_bf, 1) / t_bf, n_blk / t_blk, n_tup / t_tup
    t_cp_all = t_cp if cp_done else n / r_cp
    t_bf_all = t_bf if bf_done else n / r_bf
    print(f"\n{name}: {n:,} legal assignments, {len(plan.component_columns(comp))} columns")
    print(
        "  count          direct DP {}   closed form {}   CP-SAT {}{}   brute force {}{}".format(
            fmt_time(t_dp),
            fmt_time(t_form) if form is not None else "      n/a  ",
            fmt_time(t_cp_all),
            "" if cp_done else "*",
            fmt_time(t_bf_all),
            "" if bf_done else "*",
        )
    )
    print(f"  count ratio    DP vs CP-SAT {t_cp_all / t_dp:10,.0f}x   DP vs brute force {t_bf_all / t_dp:10,.0f}x")
    print(
        f"  list rate      numpy blocks {fmt_rate(r_blk)} (warm {fmt_rate(n_blk / t_warm).strip()})   "
        f"tuples {fmt_rate(r_tup)}   CP-SAT {fmt_rate(r_cp)}   brute force {fmt_rate(r_bf)}"
    )
    print(
        f"  list ratio     blocks/CP-SAT {r_blk / r_cp:8.0f}x   blocks/brute {r_blk / r_bf:8.0f}x   "
        f"tuples/CP-SAT {r_tup / r_cp:6.1f}x   tuples/brute {r_tup / r_bf:6.1f}x"
    )
    return r_blk


def huge_counts():
    print("\ncounts of huge spaces (best of 5, a fresh programme each time)")
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
        ("10 attackers of power 40 x 6 blockers, neighbours share one (programme)", chain_board(), False),
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

        n, t = best_of(count)
        print(f"  {fmt_time(t)}  {name}: {n:.3e} ({len(str(n))} digits)")


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
    start = time.perf_counter()
    n = 0
    checksum = 0
    for block in plan_blocks(plan):
        n += len(block)
        checksum += int(block[-1, 0])
        if n >= rows_wanted:
            break
    t = time.perf_counter() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(
        f"  {n:,} rows in {t:.1f} s ({n / t / 1e6:.1f} M rows/s); peak traced memory {peak / 2**20:.1f} MB; "
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
    print(f"(CP-SAT and brute force are stopped after {CAP_SECONDS:g} s; * = extrapolated from their rate)")
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
