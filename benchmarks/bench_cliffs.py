"""Performance cliffs: every figure next to its target, side by side in one run (``python -m benchmarks cliffs``).

Honest by construction:

- CPU time for both sides (``time.process_time`` in this process; a child's own ``process_time`` for work that
  may have to be stopped, and its ``ru_maxrss`` from ``os.wait4`` for memory);
- the same repetitions and the same statistic for both sides (median of ``REPEAT`` complete runs);
- no extrapolation: a side that does not finish within its cap is printed as ``> T`` (and has no ratio);
- cold (a fresh plan: programme and tables built) and warm (rerun with them built) are separate figures;
- the paths users call (``Combat.assignments()``, the ``trample enumerate`` JSON Lines CLI) are measured;
- boards with overlapping blockers are generated from a seed, not chosen by hand.

Each run writes a JSON record (figures, versions, commit, machine, load) to benchmarks/results/. pytest-benchmark
and asv are not used: neither stops a slow baseline and reports "> T" (both time complete runs only), neither
measures a child's peak RSS, and asv builds an environment per commit -- too heavy for this shared machine.
"""

from __future__ import annotations

import datetime
import itertools
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from benchmarks.bench_readers import bytecode_current  # noqa: E402
from benchmarks.boards import (  # noqa: E402
    blocker_chain,
    chained,
    defeatable_with,
    dense_pairs,
    ladder,
    mixed_group,
    pw_cycle,
    random_sharing,
    star,
    trampler,
    unblocked_chain,
)
from trample import Combat  # noqa: E402
from trample.engines.direct import ComponentDP  # noqa: E402

REPEAT = 3
CAP = 10.0  # seconds of CPU for a side before it is stopped and printed as "> CAP"
PY = sys.executable
OPP = [{"id": "opp", "life": 20}]
RECORD: dict = {"figures": []}


# -- boards ----------------------------------------------------------------------------------------------------


def overlapping(seed, n_att=3, n_blk=5, power=(6, 9)):
    """A generated board: n_att tramplers (some deathtouch), each blocked by 2-3 of n_blk blockers drawn at random,
    so that blockers are shared in varied patterns."""
    rng = random.Random(seed)
    blockers = [{"id": f"b{i}", "power": 1, "toughness": rng.randint(1, 4)} for i in range(n_blk)]
    attackers = []
    for i in range(n_att):
        kws = ["trample"] + (["deathtouch"] if rng.random() < 0.2 else [])
        attackers.append(
            {
                "id": f"a{i}",
                "power": rng.randint(*power),
                "toughness": 5,
                "keywords": kws,
                "attacking": "opp",
                "blocked_by": sorted(rng.sample([b["id"] for b in blockers], rng.randint(2, 3))),
            }
        )
    return {"players": OPP, "attackers": attackers, "blockers": blockers}


def generated(first_seed, k, lo, hi, **kw):
    """The first k boards of overlapping(seed) for seed = first_seed, first_seed+1, ... whose attackers are all
    joined by shared blockers (one component) and whose count is within [lo, hi] (a size class, stated; the
    boards themselves are whatever the seeds give)."""
    out, seed = [], first_seed
    while len(out) < k:
        sc = overlapping(seed, **kw)
        c = Combat(sc)
        if len(c.plan.components) == 1 and lo <= c.count() <= hi:  # all three joined by shared blockers
            out.append((f"gen#{seed}", sc))
        seed += 1
    return out


def three_of_six(n, power=40, seed=14):
    rng = random.Random(seed)
    blockers = [{"id": f"b{i}", "power": 1, "toughness": t} for i, t in enumerate((2, 3, 4, 5, 3, 4))]
    return {
        "players": OPP,
        "blockers": blockers,
        "attackers": [
            {
                "id": f"a{i}",
                "power": power,
                "toughness": 5,
                "keywords": ["trample"],
                "attacking": "opp",
                "blocked_by": sorted(rng.sample([b["id"] for b in blockers], 3)),
            }
            for i in range(n)
        ],
    }


def square(n, power=10):
    return {
        "players": OPP,
        "blockers": [{"id": f"b{i}", "power": 1, "toughness": 2 + i % 3} for i in range(n)],
        "attackers": [
            {
                "id": f"a{i}",
                "power": power,
                "toughness": 5,
                "keywords": ["trample"],
                "attacking": "opp",
                "blocked_by": [f"b{j}" for j in range(n)],
            }
            for i in range(n)
        ],
    }


def pair(P):
    return {
        "players": OPP,
        "blockers": [{"id": "b", "power": 1, "toughness": P // 2}],
        "attackers": [
            {
                "id": f"a{i}",
                "power": P,
                "toughness": 5,
                "keywords": ["trample"],
                "attacking": "opp",
                "blocked_by": ["b"],
            }
            for i in range(2)
        ],
    }


def realistic(seed):
    """6 attackers, 6 blockers, two planeswalkers, first and double strike mixed (generated)."""
    rng = random.Random(seed)
    kws = [["trample"], ["first_strike"], ["double_strike"], ["double_strike", "trample"], [], ["deathtouch"]]
    blockers = [
        {
            "id": f"b{i}",
            "power": rng.randint(1, 4),
            "toughness": rng.randint(1, 5),
            "keywords": rng.choice([[], [], ["first_strike"]]),
        }
        for i in range(6)
    ]
    attackers = []
    free = [b["id"] for b in blockers]
    rng.shuffle(free)
    for i in range(6):
        take = [free.pop()] if free and rng.random() < 0.8 else []
        attackers.append(
            {
                "id": f"a{i}",
                "power": rng.randint(1, 6),
                "toughness": rng.randint(1, 5),
                "keywords": rng.choice(kws),
                "attacking": rng.choice(["opp", "w1", "w2"]),
                "blocked_by": take,
            }
        )
    return {
        "step": "combat",
        "players": OPP,
        "planeswalkers": [
            {"id": "w1", "controller": "opp", "loyalty": rng.randint(2, 6)},
            {"id": "w2", "controller": "opp", "loyalty": rng.randint(2, 6)},
        ],
        "attackers": attackers,
        "blockers": blockers,
    }


# -- measuring ---------------------------------------------------------------------------------------------------


def cpu(fn, repeat=REPEAT):
    """Median CPU seconds of `repeat` complete runs of fn() (and its last result)."""
    times, out = [], None
    for _ in range(repeat):
        t = time.process_time()
        out = fn()
        times.append(time.process_time() - t)
    return statistics.median(times), out


CHILD = r"""
import json, sys, time
sys.path.insert(0, {root!r})
{setup}
t = time.process_time()
out = {expr}
print(json.dumps({{"cpu": time.process_time() - t, "out": out}}))
"""


WALL = 30  # a child stopped by the CPU limit is "> cap"; the wall clock only guards against a hang (x cap)


def _cpu_limit(proc: subprocess.Popen, cap: float) -> None:
    """Kill the child ``proc`` once it has used ``cap`` + 1 seconds of CPU (read from /proc every 20 ms, in a
    thread), so that what is printed as "> cap" is CPU time, not the wall time of a loaded machine. Not
    RLIMIT_CPU: a process CPU limit makes the kernel sample the child's CPU clock at its tick (4 ms here), and
    every figure the child timed itself came out in multiples of 4 ms."""
    import threading

    tick = os.sysconf("SC_CLK_TCK")

    def running() -> bool:  # without reaping it (the caller reads its usage from os.wait4)
        try:
            return os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None
        except ChildProcessError:  # reaped by the caller already
            return False

    def watch() -> None:
        while running():
            try:
                with open(f"/proc/{proc.pid}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                return
            if (int(fields[11]) + int(fields[12])) / tick > cap + 1:  # utime, stime
                proc.kill()
                return
            time.sleep(0.02)  # polling the child's CPU (a guard, not synchronisation of the work)

    threading.Thread(target=watch, daemon=True).start()


def child(setup: str, expr: str, cap: float = CAP, repeat: int = 1):
    """Run `expr` in a fresh interpreter, `repeat` times (median of its own CPU time); None past `cap` seconds.
    Returns (cpu seconds, result, peak RSS MB of the child)."""
    runs, rss, out = [], 0.0, None
    for _ in range(repeat):
        code = CHILD.format(root=str(ROOT), setup=setup, expr=expr)
        proc = subprocess.Popen(
            [PY, "-"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        _cpu_limit(proc, cap)
        try:
            stdout, _ = proc.communicate(code, timeout=WALL * (cap + 5))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            return None, None, None
        try:
            _, _, usage = os.wait4(proc.pid, 0)
        except ChildProcessError:
            usage = None
        line = json.loads(stdout.strip().splitlines()[-1]) if stdout.strip() else None
        if line is None or line["cpu"] > cap:
            return None, None, None
        runs.append(line["cpu"])
        out = line["out"]
        if usage is not None:
            rss = max(rss, usage.ru_maxrss / 1024)
    return statistics.median(runs), out, rss


HWM = r"""
import atexit, sys
def _hwm():
    with open("/proc/self/status") as fh:
        kb = next(int(l.split()[1]) for l in fh if l.startswith("VmHWM"))
    with open({out!r}, "w") as fh:
        fh.write(str(kb))
atexit.register(_hwm)
from trample.cli import main
sys.argv = ["trample", *{argv!r}]
sys.exit(main())
"""


def rss_of(argv: list[str], cap: float = 60.0, env: dict[str, str] | None = None):
    """Peak RSS (MB, the child's own VmHWM: ru_maxrss would count the fork of this big process) and CPU seconds
    (user + sys, from os.wait4) of a ``trample`` command run in a fresh interpreter; (None, None) past cap.
    ``env``: the child's environment (default: this process's)."""
    import tempfile

    with tempfile.NamedTemporaryFile("r", suffix=".hwm") as out:
        code = HWM.format(out=out.name, argv=list(argv))
        proc = subprocess.Popen(
            [PY, "-c", code],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        _cpu_limit(proc, cap)
        deadline = time.monotonic() + WALL * cap  # the CPU limit stops it; this only guards against a hang
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                proc.returncode = status
                text = open(out.name).read().strip()
                used = usage.ru_utime + usage.ru_stime
                if used > cap or not text:  # stopped by the CPU limit
                    return None, None
                return int(text) / 1024, used
            if time.monotonic() > deadline:
                proc.kill()
                os.wait4(proc.pid, 0)
                proc.returncode = -9
                return None, None
            time.sleep(0.02)


def show(section, what, value, target, unit, ok, note=""):
    RECORD["figures"].append(
        {"section": section, "figure": what, "value": value, "target": target, "unit": unit, "met": ok, "note": note}
    )
    v = f"> {CAP:g} s" if value is None and unit == "s" else ("> cap" if value is None else _fmt(value, unit))
    mark = "met" if ok else ("MISSED" if ok is False else "")
    print(f"  {what:<58} {v:>14}   target {target:<14} {mark:<6} {note}", flush=True)


def _fmt(v, unit):
    if unit == "MB":
        return f"{v:.0f} MB"
    if unit == "s":
        return f"{v * 1000:.1f} ms" if v < 1 else f"{v:.2f} s"
    if unit == "x":
        return f"{v:.2f}x" if v < 10 else f"{v:,.0f}x"
    if unit == "/s":
        return f"{v / 1e6:.2f} M/s" if v >= 1e5 else f"{v / 1e3:.1f} k/s"
    return str(v)


def write(path: Path, doc) -> str:
    path.write_text(json.dumps(doc))
    return str(path)


# -- the alternatives ----------------------------------------------------------------------------------------------


def cpsat_list(plan, comp, cap=CAP):
    """CP-SAT callback enumeration (one worker), reading each solution; (n, complete)."""
    from ortools.sat.python import cp_model

    from trample.engines.cpsat import build_model, enumeration_solver

    built = build_model(plan, comp)

    class Cb(cp_model.CpSolverSolutionCallback):
        def __init__(self):
            super().__init__()
            self.n = 0
            self.t0 = time.process_time()

        def on_solution_callback(self):
            tuple(self.value(x) for x in built.x)
            self.n += 1
            if self.n % 256 == 0 and time.process_time() - self.t0 > cap:
                self.stop_search()

    solver = enumeration_solver()
    cb = Cb()
    status = solver.solve(built.model, cb)
    return cb.n, status == cp_model.OPTIMAL


def itertools_list(plan, comp, cap=CAP):
    """itertools brute force: every stars-and-bars split of every source, their product, filtered; (n, complete)."""
    srcs = [plan.sources[i] for i in comp]

    def splits(total, parts):
        for bars in itertools.combinations(range(total + parts - 1), parts - 1):
            prev, out = -1, []
            for b in (*bars, total + parts - 1):
                out.append(b - prev - 1)
                prev = b
            yield out

    per = [list(splits(s.damage, len(s.routes))) for s in srcs]
    cols = plan.component_columns(comp)
    gates = [(k, plan.sources[i].route(r).gate) for k, (i, r) in enumerate(cols)]
    gates = [(k, g) for k, g in gates if g is not None]
    dt = [plan.sources[i].deathtouch for i, _ in cols]
    recips = [r for _, r in cols]
    t0 = time.process_time()
    n = seen = 0
    for combo in itertools.product(*per):
        vec = [x for s in combo for x in s]
        seen += 1
        if not seen & 4095 and time.process_time() - t0 > cap:
            return n, False
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
    return n, True


def timed_side(fn, repeat=REPEAT):
    """Median CPU of `repeat` runs of fn() -> (n, complete); None when a run does not complete."""
    times, n = [], None
    for _ in range(repeat):
        t = time.process_time()
        n, complete = fn()
        if not complete:
            return None, n
        times.append(time.process_time() - t)
    return statistics.median(times), n


# -- the sections --------------------------------------------------------------------------------------------------


def memory(tmp: Path):
    print("\n1. memory (peak RSS of a fresh `trample` process; target < 200 MB)")
    trample: list[str] = []
    boards = [(f"chain n={n}", blocker_chain(n)) for n in (2, 3, 5, 10, 20)]
    boards.append(("1 trampler vs 100 blockers", trampler(200, [1 + i % 4 for i in range(100)])))
    for name, sc in boards:
        f = write(tmp / "m.json", sc)
        mb, _ = rss_of([*trample, "enumerate", f, "--limit", "1"])
        show("memory", f"enumerate --limit 1, {name}", mb, "< 200 MB", "MB", mb is not None and mb < 200)
    for name, sc in (boards[4], boards[5]):
        f = write(tmp / "m.json", sc)
        for what, argv in (
            ("--limit 100000 (jsonl)", ["enumerate", f, "--limit", "100000"]),
            (
                "npy --limit 1000000",
                [
                    "enumerate",
                    f,
                    "--format",
                    "npy",
                    "--limit",
                    "1000000",
                    "-o",
                    os.devnull,
                    "--columns",
                    str(tmp / "c.json"),
                ],
            ),
            ("rank", ["rank", f, json.dumps(Combat(sc).unrank(10**12).to_json())]),
            ("unrank 10^12", ["unrank", f, str(10**12)]),
            ("sample --n 1000", ["sample", f, "--n", "1000"]),
        ):
            mb, _ = rss_of([*trample, *argv])
            show("memory", f"{what}, {name}", mb, "< 200 MB", "MB", mb is not None and mb < 200)
    f = write(tmp / "m.json", overlapping(7, power=(30, 30)))
    rows = 10**7
    mb, sec = rss_of(
        [
            *trample,
            "enumerate",
            f,
            "--format",
            "npy",
            "--limit",
            str(rows),
            "-o",
            os.devnull,
            "--columns",
            str(tmp / "c.json"),
        ],
        cap=120,
    )
    show(
        "memory",
        "stream 10^7 npy rows, 3 tramplers sharing blockers",
        mb,
        "< 200 MB",
        "MB",
        mb is not None and mb < 200,
        f"{rows / sec / 1e6:.1f} M rows/s CPU" if sec else "",
    )
    code = "from trample import Combat\nc = Combat({sc!r})"
    t, out, _ = child(
        code.format(
            sc={
                "players": OPP,
                "attackers": [
                    {
                        "id": f"a{i}",
                        "power": 2,
                        "toughness": 2,
                        "keywords": ["trample"],
                        "attacking": "opp",
                        "blocked_by": [f"b{i}"],
                    }
                    for i in range(1000)
                ],
                "blockers": [{"id": f"b{i}", "power": 1, "toughness": 1} for i in range(1000)],
            }
        ),
        "sum(1 for _ in c.assignments(limit=100000))",
    )
    show("memory", "1000 independent attackers: 100 000 assignments", t, "no RecursionError", "s", out == 100000)


def user_paths(tmp: Path):
    print("\n2. the paths users iterate (CPU, median of 3 complete runs each side)")
    boards = [("P20k5", trampler(20, [2, 3, 1, 4, 2]))] + generated(100, 3, 10_000, 60_000, power=(4, 7))
    for name, sc in boards:
        c = Combat(sc)
        n = c.count()
        t_ours, got = cpu(lambda c=c: sum(1 for _ in Combat(c.scenario).assignments()))
        assert got == n
        plan = c.plan
        comps = plan.components
        t_cp, _ = timed_side(lambda plan=plan, comps=comps: _all(cpsat_list, plan, comps))
        ratio = None if t_cp is None else (n / t_ours) / (n / t_cp)
        show(
            "user",
            f"Combat.assignments() {name} ({n:,} lines)",
            n / t_ours,
            "",
            "/s",
            None,
            f"CP-SAT callback {f'> {CAP:g} s' if t_cp is None else _fmt(n / t_cp, '/s')}",
        )
        show(
            "user",
            f"  ratio Combat.assignments() / CP-SAT, {name}",
            ratio,
            ">= 10x",
            "x",
            ratio is not None and ratio >= 10,
        )
    # the JSON Lines CLI on P20k8: CPU of the whole command (startup included) from rusage
    f = write(tmp / "p20k8.json", trampler(20, [2, 3, 1, 4, 2, 1, 2, 1]))
    runs = [rss_of(["enumerate", f], cap=60)[1] for _ in range(REPEAT)]
    base = [rss_of(["count", f])[1] for _ in range(REPEAT)]  # startup + counting, for reference
    lines = 888195
    t = statistics.median(runs)
    show(
        "user",
        "trample enumerate P20k8 JSON Lines (whole command)",
        lines / t,
        ">= 1 M/s",
        "/s",
        lines / t >= 1e6,
        f"{t:.2f} s CPU incl. {statistics.median(base):.2f} s start-up+count",
    )
    c = Combat(trample_p20k8 := trampler(20, [2, 3, 1, 4, 2, 1, 2, 1]))
    t_bulk, _ = cpu(lambda: sum(len(c.jsonl(b)) for b in Combat(trample_p20k8).assignment_blocks()))
    t_old, _ = cpu(
        lambda: sum(len(json.dumps(a.to_json(), separators=(",", ":"))) for a in Combat(trample_p20k8).assignments())
    )
    show(
        "user",
        "  JSON Lines formatting in bulk vs one json.dumps per line",
        t_old / t_bulk,
        "",
        "x",
        None,
        f"{lines / t_bulk / 1e6:.2f} vs {lines / t_old / 1e6:.2f} M lines/s",
    )
    # wide lines: a trampler blocked by 26 creatures, rows of amounts 0-11 in every column (~200 bytes a line)
    wide = Combat(trampler(300, [12] * 26))
    rng = np.random.default_rng(21)
    block = rng.integers(1, 12, size=(1 << 16, len(wide.columns)))
    block[rng.random(block.shape) < 0.1] = 0
    width = len(wide.jsonl(block[:1000])) / 1000
    t_wide, _ = cpu(lambda: sum(len(wide.jsonl(block)) for _ in range(8)))
    show(
        "user",
        f"  JSON Lines formatting in bulk, lines of {width:.0f} bytes",
        8 * len(block) / t_wide,
        ">= 1 M/s",
        "/s",
        8 * len(block) / t_wide >= 1e6,
        f"{8 * len(block) * width / t_wide / 1e6:.0f} MB/s",
    )


def _all(fn, plan, comps):
    n, ok = 1, True
    for comp in comps:
        k, done = fn(plan, comp)
        n *= k
        ok = ok and done
    return n, ok


def numpy_vs_itertools():
    print("\n3. numpy enumeration vs itertools brute force (CPU, median of 3; cold = fresh programme, warm = rerun)")
    boards = [("P20k5", trampler(20, [2, 3, 1, 4, 2])), ("P20k8", trampler(20, [2, 3, 1, 4, 2, 1, 2, 1]))]
    boards += generated(200, 5, 20_000, 2_000_000)
    for name, sc in boards:
        c = Combat(sc)
        plan = c.plan
        comps = plan.components
        n = c.count()

        def cold(sc=sc):
            p = Combat(sc).plan
            return sum(sum(len(b) for b in ComponentDP(p, comp).blocks()) for comp in p.components)

        t_cold, got = cpu(cold)
        dps = [ComponentDP(plan, comp) for comp in comps]
        for dp in dps:
            sum(len(b) for b in dp.blocks())
        t_warm, _ = cpu(lambda dps=dps: sum(sum(len(b) for b in dp.blocks()) for dp in dps))
        t_it, _ = timed_side(lambda plan=plan, comps=comps: _all(itertools_list, plan, comps))
        ratio = None if t_it is None else t_it / t_cold
        show(
            "numpy",
            f"numpy blocks cold {name} ({n:,} rows) vs itertools",
            ratio,
            ">= 100x",
            "x",
            ratio is not None and ratio >= 100,
            f"cold {_fmt(n / t_cold, '/s')}, warm {_fmt(n / t_warm, '/s')}, itertools "
            + (f"> {CAP:g} s" if t_it is None else _fmt(n / t_it, "/s")),
        )


def counting():
    print("\n4. counting cliffs (CPU of a fresh process's count; target <= 100 ms each)")
    setup = "from trample import Combat\nsc = {sc!r}"
    cases = [(f"3-of-6 shared, n={n}", three_of_six(n)) for n in (5, 6, 7, 8, 10)]
    cases += [(f"{n}x{n} all shared, power 10", square(n)) for n in (4, 5, 6)]
    cases += [(f"2 sharing a P/2 blocker, P={P}", pair(P)) for P in (3000, 10000)]
    cases += [("10 x power 40, neighbours share (README)", blocker_chain(10))]
    for name, sc in cases:
        t, _, _ = child(setup.format(sc=sc), "Combat(sc).count() > 0", repeat=1)
        show("count", name, t, "<= 100 ms", "s", t is not None and t <= 0.1)


GRAPH_CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, {root!r})
from trample import Combat
sc = {sc!r}
t = time.process_time()
n = Combat(sc).count()
cpu = time.process_time() - t
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({{"cpu": cpu, "digits": len(str(n)), "rss": rss}}))
"""


def graph_shapes():
    """The boards of issue 21 off the usual shapes (benchmarks/boards.py), several fixed seeds per random shape."""
    cases = [(f"cycle through 3 planeswalkers, n={n}", pw_cycle(n)) for n in (6, 9, 12)]
    cases += [(f"random sharing 9 on 11, 3 each, seed {s}", random_sharing(9, 11, 3, seed=s)) for s in (1, 2, 3)]
    cases += [(f"random sharing 12 on 14, 3 each, seed {s}", random_sharing(12, 14, 3, seed=s)) for s in range(1, 6)]
    cases += [(f"random sharing 12 on 14, 4 each, seed {s}", random_sharing(12, 14, 4, seed=s)) for s in range(10)]
    cases += [(f"as-though-unblocked chain, n={n}", unblocked_chain(n)) for n in (10, 12)]
    cases += [("star, 12 on a shared blocker", star(12)), ("dense pairs, 5 (10 blockers)", dense_pairs(5))]
    return cases


#: the children's environment, as installed: pip byte-compiles the package, so a user's process loads .pyc files;
#: this machine sets PYTHONDONTWRITEBYTECODE, under which every child compiled each module it imports from source
#: (the lazy imports of a first count, rank or listing: a small board's count measured 75-120 ms, 9-28 ms of it
#: the count with its imports loaded from bytecode).
#: main() writes the bytecode once (``bench_readers.bytecode_current``) before any child runs.
AS_INSTALLED = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _child_line(code: str, cap: float = CAP) -> dict | None:
    """Run ``code`` in a fresh Python under the CPU cap, its bytecode as installed (:data:`AS_INSTALLED`); its last
    output line as JSON, or None (killed, no answer)."""
    proc = subprocess.Popen([PY, "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=AS_INSTALLED)
    _cpu_limit(proc, cap)
    try:
        stdout, _ = proc.communicate(code, timeout=WALL * (cap + 5))
        return json.loads(stdout.strip().splitlines()[-1])
    except (subprocess.TimeoutExpired, ValueError, IndexError):
        proc.kill()
        proc.communicate()
        return None


def dense_graphs():
    """The densest random sharing graphs within the count's goal (12 attackers, 14 blockers): 5 blockers each."""
    return [(f"random sharing 12 on 14, 5 each, seed {s}", random_sharing(12, 14, 5, seed=s)) for s in range(10)]


def counting_graphs():
    print("\n4b. counting on any sharing graph (CPU and peak RSS of a fresh process's count; <= 100 ms, < 200 MB)")
    for name, sc in graph_shapes() + dense_graphs():
        code = GRAPH_CHILD.format(root=str(ROOT), sc=sc)
        line = _child_line(code)
        t = None if line is None or line["cpu"] > CAP else line["cpu"]
        rss = None if line is None else line["rss"]
        note = "" if line is None else f"peak RSS {rss:.0f} MB (target < 200 MB), {line['digits']}-digit count"
        show("count", name, t, "<= 100 ms", "s", t is not None and t <= 0.1 and rss is not None and rss < 200, note)


RANK_CHILD = r"""
import json, sys, time
sys.path.insert(0, {root!r})
from trample import Combat
sc = {sc!r}
c = Combat(sc)
n = c.count()
t = time.process_time()
a = c.unrank(n // 3)
cold = time.process_time() - t
t = time.process_time()
assert c.rank(a) == n // 3
warm = time.process_time() - t
print(json.dumps({{"cpu": cold, "warm": warm}}))
"""


def ranking_graphs():
    print("\n4c. unrank on the same boards (CPU of a fresh process's first unrank, programme built; <= 100 ms)")
    for name, sc in graph_shapes():
        if "unblocked" in name:  # not run: the child's FormatError would print a traceback between the rows
            note = "refused: the canonical order does not cover as-though-unblocked options"
            show("rank", f"unrank cold: {name}", None, "<= 100 ms", "s", False, note)
            continue
        code = RANK_CHILD.format(root=str(ROOT), sc=sc)
        line = _child_line(code)
        t = None if line is None or line["cpu"] > CAP else line["cpu"]
        note = "" if line is None else f"then rank {line['warm'] * 1000:.1f} ms"
        show("rank", f"unrank cold: {name}", t, "<= 100 ms", "s", t is not None and t <= 0.1, note)


RANK_MANY_CHILD = r"""
import json, random, resource, statistics, sys, time
sys.path.insert(0, {root!r})
from trample import Combat
c = Combat({sc!r})
t = time.process_time()
n = c.count()
count = time.process_time() - t
t = time.process_time()
c.unrank(n // 3)
first = time.process_time() - t
rng, later = random.Random(5), []
for _ in range(5):
    i = rng.randrange(n)
    t = time.process_time()
    c.unrank(i)
    later.append(time.process_time() - t)
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({{"count": count, "first": first, "later": statistics.median(later), "rss": rss}}))
"""


def ranking_wide():
    """Issue 21: rank and unrank use the count's programme (engines/conditioned.py's join tree): the first unrank
    within a few counts, every later one in milliseconds, under 200 MB."""
    print("\n4c'. unrank on the widest random boards (CPU of a fresh process: count, first unrank, median of 5 later")
    print("     unranks at random indices; first <= 3x count, later <= 10 ms, peak RSS < 200 MB)")
    for name, sc in graph_shapes():
        if "4 each" not in name and "seed 1" not in name:
            continue
        if "unblocked" in name:
            continue
        line = _child_line(RANK_MANY_CHILD.format(root=str(ROOT), sc=sc))
        if line is None:
            show("rank", f"unrank first: {name}", None, "<= 3x count", "s", False, "no answer within the cap")
            continue
        note = f"count {line['count'] * 1000:.0f} ms, peak RSS {line['rss']:.0f} MB"
        ok = line["first"] <= 3 * line["count"] and line["rss"] < 200
        show("rank", f"unrank first: {name}", line["first"], "<= 3x count", "s", ok, note)
        show("rank", f"unrank later (median): {name}", line["later"], "<= 10 ms", "s", line["later"] <= 0.01)


ENUM_CHILD = r"""
import json, sys, time
sys.path.insert(0, {root!r})
from trample import Combat
sc = {sc!r}
t = time.process_time()
c = Combat(sc, engine={engine!r})
rows, first, first_rows = 0, None, 0
for block in c.assignment_blocks(rows={block}):
    rows += len(block)
    if first is None:
        first, first_rows = time.process_time() - t, rows
    so_far = {{"cpu": time.process_time() - t, "rows": rows, "first": first, "first_rows": first_rows}}
    print(json.dumps(so_far), flush=True)
    if rows >= {rows}:
        break
"""

ENUM_ROWS = 1_000_000
CPSAT_BLOCK = 4096  # rows per block of CP-SAT's listing in 4e (its first 65 536 took 7-10 s)
#: 4e on the widest random boards (random_sharing(12, 14, 4), seeds 0-9): CP-SAT lists about 5 k rows/s there, so its
#: million rows would take over 3 minutes a board; both sides list the same first WIDE_ROWS rows instead, CP-SAT
#: within WIDE_CAP seconds of CPU (its 65 536 took 12-13 s), and the ratio is of the CPU to them (start-up included)
WIDE_ROWS = 1 << 16
WIDE_CAP = 3 * CAP


def enumeration_graphs():
    print(f"\n4e. listing on the same boards: Combat.assignment_blocks() in a fresh process, up to {ENUM_ROWS:,} rows")
    print(f"    or {CAP:g} s of CPU; the rate of the blocks after the first (goal: blocks of shared components")
    print("    >= 50 M rows/s), and the CPU to the first block (the programme built) beside it; then the whole run's")
    print("    rate (rows / CPU, start-up included) against CP-SAT's listing on the same board in the same run")
    print(f"    (engine='cpsat', blocks of {CPSAT_BLOCK:,}; goal >= 50x)")
    print("    On random sharing 12 on 14, 4 each (seeds 0-9) CP-SAT is too slow to list")
    print(f"    {ENUM_ROWS:,} rows (about 5 k/s): there both sides list the first {WIDE_ROWS:,} rows, CP-SAT within")
    print(f"    {WIDE_CAP:g} s of CPU, and the ratio is of the CPU to them, start-up included (a lower bound, said so,")
    print("    where CP-SAT does not reach them)")
    cases = [(name, sc) for name, sc in graph_shapes() if "unblocked" not in name]
    cases += [(f"{n}x{n} all shared, power 10", square(n)) for n in (4, 5, 6)]
    for name, sc in cases:
        code = ENUM_CHILD.format(root=str(ROOT), sc=sc, rows=ENUM_ROWS, engine="auto", block=1 << 16)
        line = _child_line(code)  # its last line: the rows so far
        if line is None or line["first"] is None:
            show("list", f"blocks: {name}", None, ">= 50 M/s", "/s", False, "no block within the cap")
            show("list", f"vs CP-SAT: {name}", None, ">= 50x", "x", False, "no block within the cap")
            continue
        rest, spent = line["rows"] - line["first_rows"], line["cpu"] - line["first"]
        rate = rest / spent if rest and spent > 0 else None
        note = f"first block ({line['first_rows']:,} rows) after {line['first'] * 1000:.0f} ms"
        note += f"; {line['rows']:,} rows in all"
        show("list", f"blocks: {name}", rate, ">= 50 M/s", "/s", rate is not None and rate >= 50e6, note)
        if "4 each" in name:
            _wide_vs_cpsat(name, sc)
            continue
        code = ENUM_CHILD.format(root=str(ROOT), sc=sc, rows=ENUM_ROWS, engine="cpsat", block=CPSAT_BLOCK)
        ref = _child_line(code)
        ours = line["rows"] / line["cpu"]
        theirs = None if ref is None or not ref["rows"] else ref["rows"] / ref["cpu"]
        # no block within the cap: CP-SAT's rate is below a block per CAP seconds (the ratio is at least this)
        ratio = ours / (theirs or CPSAT_BLOCK / CAP)
        note = f"{_fmt(ours, '/s')} vs CP-SAT " + (
            f"< {_fmt(CPSAT_BLOCK / CAP, '/s')} (no block in {CAP:g} s)" if theirs is None else _fmt(theirs, "/s")
        )
        show("list", f"vs CP-SAT: {name}", ratio, ">= 50x", "x", ratio >= 50, note)


def _wide_vs_cpsat(name: str, sc: dict) -> None:
    """4e's ratio on a board where CP-SAT cannot list ENUM_ROWS rows in reasonable time: the CPU of a fresh process
    to the first WIDE_ROWS rows on both sides (once each, start-up included), CP-SAT's within WIDE_CAP seconds; past
    it, the ratio printed is a lower bound (WIDE_CAP over ours) and the row says so."""
    code = ENUM_CHILD.format(root=str(ROOT), sc=sc, rows=WIDE_ROWS, engine="auto", block=WIDE_ROWS)
    ours = _child_line(code)
    if ours is None or ours["rows"] < WIDE_ROWS:
        show("list", f"vs CP-SAT: {name}", None, ">= 50x", "x", False, f"no {WIDE_ROWS:,} rows within the cap")
        return
    code = ENUM_CHILD.format(root=str(ROOT), sc=sc, rows=WIDE_ROWS, engine="cpsat", block=CPSAT_BLOCK)
    ref = _child_line(code, cap=WIDE_CAP)
    done = ref is not None and ref["rows"] >= WIDE_ROWS
    theirs = ref["cpu"] if done and ref is not None else WIDE_CAP
    ratio = theirs / ours["cpu"]
    note = f"CPU to the first {WIDE_ROWS:,} rows: {_fmt(ours['cpu'], 's')} vs CP-SAT "
    if done:
        note += _fmt(theirs, "s")
    else:
        got = 0 if ref is None else ref["rows"]
        note += f"> {WIDE_CAP:g} s ({got:,} rows by then; the ratio is at least this)"
    show("list", f"vs CP-SAT: {name}", ratio, ">= 50x", "x", ratio >= 50, note)


def start_up(tmp: Path):
    print("\n4d. CLI start (CPU of the whole command, user + sys; <= 0.3 s)")
    # As installed: pip byte-compiles the package when it installs it, so a user's command loads .pyc files. An
    # environment with PYTHONDONTWRITEBYTECODE set (this machine's is) would compile every module of an editable
    # install on every run -- about 0.1 s of CPU that no user pays: the children run with bytecode allowed, after
    # one untimed run that writes it.
    env = AS_INSTALLED
    f = write(tmp / "thrasta.json", json.loads((ROOT / "examples" / "thrasta.json").read_text()))
    for argv in (["solve", f, "--objective", "lethal"], ["count", f], ["enumerate", f]):
        rss_of(argv, cap=CAP, env=env)  # writes the bytecode
        runs = [rss_of(argv, cap=CAP, env=env)[1] for _ in range(REPEAT)]
        t = None if any(r is None for r in runs) else statistics.median(runs)
        show(
            "start",
            "trample " + " ".join(a if a != f else "thrasta.json" for a in argv),
            t,
            "<= 0.3 s",
            "s",
            t is not None and t <= 0.3,
            "median of 3 fresh processes, bytecode compiled as pip installs it",
        )
    # an effect board needs the CP-SAT model (OR-Tools imported, without pandas: engines.cpsat.import_cp_model);
    # beside the same board without its effect, which the direct engine answers (issue 21: effects within 3x)
    doc = json.loads((ROOT / "examples" / "lifelink.json").read_text())
    plain = json.loads(json.dumps(doc))
    plain["blockers"][0]["keywords"] = []
    times = {}
    for name, board in (("lifelink.json", doc), ("the same without lifelink", plain)):
        path = write(tmp / f"start-{len(times)}.json", board)
        argv = ["solve", path, "--objective", "lethal"]
        rss_of(argv, cap=CAP, env=env)
        runs = [rss_of(argv, cap=CAP, env=env)[1] for _ in range(REPEAT)]
        times[name] = None if any(r is None for r in runs) else statistics.median(runs)
    ours, base = times["lifelink.json"], times["the same without lifelink"]
    ratio = None if ours is None or not base else ours / base
    show(
        "start",
        "trample solve lifelink.json --objective lethal (vs no lifelink)",
        ratio,
        "<= 3x",
        "x",
        ratio is not None and ratio <= 3,
        f"{_fmt(ours, 's')} vs {_fmt(base, 's')}" if ours is not None and base is not None else "",
    )


#: one-group whole combats off the chained and ladder shapes, each with an objective list slow on it (of the 13 lists
#: of benchmarks/bench_whole_search.py, one cold process each, docs/combat.md): the defeatable planeswalker trampled
#: over by every attacker with infect on the odd ones (lethal by poison through the planeswalker, 702.19c, 702.90b),
#: drawn boards of :func:`benchmarks.boards.mixed_group` without shields, and with them: prevention shields (615.7)
#: and indestructible blockers an infect or wither attacker blocks (704.5f), all searched best bound first
OFF_SHAPES = [
    ("trample over + infect n=5", defeatable_with(5, "trample_over+infect"), "lethal"),
    ("trample over + infect n=5", defeatable_with(5, "trample_over+infect"), "max-kills,lethal"),
    ("trample over + infect n=6", defeatable_with(6, "trample_over+infect"), "max-kills,lethal"),
    ("mixed_group(5, 12) no shields", mixed_group(5, 12, shields=False), "max-kills,lethal"),
    ("mixed_group(6, 0) no shields", mixed_group(6, 0, shields=False), "max-kills,lethal"),
    ("mixed_group(6, 4) no shields", mixed_group(6, 4, shields=False), "lethal,max-kills,min-overkill"),
    ("mixed_group(6, 3) no shields", mixed_group(6, 3, shields=False), "min-overkill"),
    ("mixed_group(6, 13) no shields", mixed_group(6, 13, shields=False), "max-value"),
    ("mixed_group(5, 0), a prevention shield", mixed_group(5, 0), "lethal"),
    ("mixed_group(6, 0), a prevention shield", mixed_group(6, 0), "max-kills,lethal"),
    ("mixed_group(6, 1), indestructible, blocking infect", mixed_group(6, 1), "min-overkill"),
    ("mixed_group(6, 7), a prevention shield", mixed_group(6, 7), "lethal,max-kills,min-overkill"),
]


def whole_combat():
    print("\n5. whole-combat solve (CPU of a fresh process; max-damage)")
    setup = "from trample.whole import WholeCombat\nsc = {sc!r}"
    for n in range(1, 7):
        t, _, _ = child(setup.format(sc=ladder(n)), "WholeCombat(sc).solve('max-damage').status", repeat=1)
        show("whole", f"ladder n={n}", t, "<= 1 s", "s", t is not None and t <= 1)
        if t is None:
            for m in range(n + 1, 7):
                show("whole", f"ladder n={m}", None, "<= 1 s", "s", False, "not run: n-1 timed out")
            break
    for n in range(2, 7):  # one group: no part of the first step is independent of the rest (docs/combat.md)
        t, _, _ = child(setup.format(sc=chained(n)), "WholeCombat(sc).solve('max-damage').status", repeat=1)
        show("whole", f"chained ladder n={n} (one group)", t, "<= 1 s", "s", t is not None and t <= 1)
        if t is None:
            for m in range(n + 1, 7):
                show("whole", f"chained ladder n={m} (one group)", None, "<= 1 s", "s", False, "not run: n-1 timed out")
            break
    # the goal's "any objective list" on the one-group board at 6 attackers (best bound first, docs/combat.md)
    for objectives in ("lethal", "lethal,max-kills,min-overkill", "min-overkill", "max-kills"):
        t, _, _ = child(setup.format(sc=chained(6)), f"WholeCombat(sc).solve({objectives!r}).status", repeat=1)
        show("whole", f"chained ladder n=6, {objectives}", t, "<= 1 s", "s", t is not None and t <= 1)
    # off those shapes: one group with effects (benchmarks/boards.py), each the worst objective list found on it
    for what, board, objectives in OFF_SHAPES:
        t, _, _ = child(setup.format(sc=board), f"WholeCombat(sc).solve({objectives!r}).status")
        show("whole", f"{what}, {objectives}", t, "<= 1 s", "s", t is not None and t <= 1)
    code = (
        "from trample.whole import WholeCombat\nimport time\nts = []\n"
        "for sc in {boards!r}:\n    t = time.process_time(); WholeCombat(sc).solve('max-damage'); "
        "ts.append(time.process_time() - t)\nts.sort()"
    )
    boards = [realistic(s) for s in range(40)]
    t, out, _ = child(code.format(boards=boards), "[ts[len(ts) // 2], ts[int(0.99 * (len(ts) - 1))]]", cap=120)
    show(
        "whole",
        "realistic boards (40 generated): p99",
        None if out is None else out[1],
        "<= 100 ms",
        "s",
        out is not None and out[1] <= 0.1,
        "" if out is None else f"median {out[0] * 1000:.1f} ms",
    )
    all_optimal_figures()


def all_optimal_figures():
    """--all-optimal from the direct engine's blocks (optimize/linear.py): CPU of a fresh process, optimisation
    included; the Python stream of Assignments, and the JSON Lines command users call (whole command)."""
    import tempfile

    # "lethal" on P20k8: the opponent cannot be killed (at most 4 of 20 life), so all 888 195 lines tie
    p20k8 = trampler(20, [2, 3, 1, 4, 2, 1, 2, 1])
    setup = "from trample import Combat\nfrom trample.optimize import all_optimal\nsc = {sc!r}"

    def optimal_rate(what: str, sc: dict, objective: str) -> None:
        t, n, _ = child(setup.format(sc=sc), f"sum(1 for _ in all_optimal(Combat(sc), {objective!r}))", cap=20)
        show(
            "whole",
            what,
            None if t is None else n / t,
            ">= 1 M/s",
            "/s",
            t is not None and n / t >= 1e6,
            "direct engine blocks, Python Assignment stream" + (" unfinished at 20 s" if t is None else ""),
        )

    optimal_rate("--all-optimal P20k8 lethal (all 888 195 lines tie)", p20k8, "lethal")
    # max-damage: P20k8 without trample, plus an unblocked 3/3: every split of the blocked attacker ties
    # (max-damage 3), so all C(27, 7) = 888 030 lines are optimal
    sc = trampler(20, [2, 3, 1, 4, 2, 1, 2, 1])
    sc["attackers"][0]["keywords"] = []
    sc["attackers"].append({"id": "u", "power": 3, "toughness": 3, "attacking": sc["attackers"][0]["attacking"]})
    optimal_rate(
        "--all-optimal P20k8 (no trample) + unblocked 3/3, max-damage (all 888 030 lines tie)", sc, "max-damage"
    )
    # the command users call: JSON Lines formatted in bulk from the optimal blocks (CPU from rusage, start-up incl.)
    with tempfile.TemporaryDirectory() as d:
        f = write(Path(d) / "p20k8.json", p20k8)
        runs = [rss_of(["solve", f, "--objective", "lethal", "--all-optimal"], cap=60)[1] for _ in range(REPEAT)]
        base = [rss_of(["count", f])[1] for _ in range(REPEAT)]  # start-up + counting, for reference
    ok = all(r is not None for r in runs)
    t = statistics.median(runs) if ok else None
    lines = 888195
    show(
        "whole",
        "trample solve --all-optimal P20k8 lethal JSON Lines (whole command)",
        None if t is None else lines / t,
        ">= 1 M/s",
        "/s",
        t is not None and lines / t >= 1e6,
        "" if t is None else f"{t:.2f} s CPU incl. {statistics.median(base):.2f} s start-up+count",
    )
    # a space too big to read whole (9 348 439 717 407 assignments): CP-SAT proves the optimum, lists its one line
    huge = trampler(100, [2] * 10)
    t, n, _ = child(setup.format(sc=huge), "sum(1 for _ in all_optimal(Combat(sc), 'max-damage'))", cap=20)
    show(
        "whole",
        "--all-optimal power 100 vs ten 1/2 (9.3e12 lines), max-damage",
        t,
        "finishes",
        "s",
        t is not None and n == 1,
        "CP-SAT (over linear.DIRECT_ROWS)" + (" unfinished at 20 s" if t is None else ""),
    )


SHARD_CHILD = """
import os, resource, sys, time
sys.path.insert(0, {root!r})
import benchmarks.bench_cliffs as bc
import benchmarks.boards as B
from trample import Combat
from trample.shard import Cargo, built_plan, run_tasks, shard_ranges, write_shard
t0 = time.process_time()
sc = B.random_sharing(9, 11, seed=1)
shards, how, backend = {shards}, {how!r}, {backend!r}
rows = min(Combat(sc).count(), 800_000)
ranges = shard_ranges(rows, shards)
out = {out!r}
paths = [os.path.join(out, f"s{{k}}.npy") for k in range(shards)]
if how == "rebuild":  # what every task did before: the scenario as JSON, the programme built again per task
    doc = Combat(sc).scenario.to_json()
    run_tasks(bc.rebuilt_shard, [(doc, a, b, p) for (a, b), p in zip(ranges, paths)], backend, workers=2)
else:
    cargo = Cargo(built_plan(Combat(sc, engine="direct")))
    run_tasks(write_shard, [(a, b, p) for (a, b), p in zip(ranges, paths)], backend, workers=2, cargo=cargo)
kids = resource.getrusage(resource.RUSAGE_CHILDREN)
print(time.process_time() - t0 + kids.ru_utime + kids.ru_stime)
"""


def _count_in_parts():
    """One count cut into 8 parts (trample.shard.count_split): the CPU of the whole contraction, of its largest
    part (the wall time of 8 free workers) and of all the parts, in this process (median of 3)."""
    from trample.engines import elimination
    from trample.shard import shard_ranges

    plan = Combat(random_sharing(10, 10, per=4, seed=0)).plan
    splits = [s for s in (elimination.split_count(plan, c) for c in plan.components) if s.tables]
    whole, largest, total = [], [], []
    for _ in range(REPEAT):
        t = time.process_time()
        for sp in splits:
            elimination.count_part(sp, 0, sp.entries)
        whole.append(time.process_time() - t)
        parts = []
        for sp in splits:
            for lo, hi in shard_ranges(sp.entries, 8):
                t = time.process_time()
                elimination.count_part(sp, lo, hi)
                parts.append(time.process_time() - t)
        largest.append(max(parts))
        total.append(sum(parts))
    w, m, a = (statistics.median(x) for x in (whole, largest, total))
    show("shard", "count in 8 parts, random sharing 10 on 10: whole contraction", w, "", "s", None)
    show("shard", "  its largest part (the wall time on 8 free workers)", m, "<= whole / 4", "s", m <= w / 4)
    show("shard", "  all 8 parts (the CPU)", a, "<= 2 x whole", "s", a <= 2 * w)


def rebuilt_shard(doc: dict, start: int, stop: int, path: str) -> int:
    """The shard task as it was before the programme was shipped: the scenario rebuilt and its programme built
    again in the task (the baseline of :func:`sharding`)."""
    from trample.engines.direct import plan_blocks

    plan = Combat(doc, engine="direct").plan
    out = np.lib.format.open_memmap(path, mode="w+", dtype=np.int16, shape=(stop - start, len(plan.columns)))
    at = 0
    for block in plan_blocks(plan, dtype=np.int16, start=start, stop=stop):
        out[at : at + len(block)] = block
        at += len(block)
    out.flush()
    return at


def sharding(tmp: Path):
    print("\n6. shards: the programme shipped once vs rebuilt per task (random sharing 9 on 11, seed 1: 5.2e12")
    print("   assignments, the first 800 000 rows; CPU of the command and all its workers, median of 3)")
    from trample.shard import enumerate_shards

    cpu = {}
    for how, backend, shards in (
        ("rebuild", "serial", 1),
        ("rebuild", "process", 8),
        ("ship", "serial", 1),
        ("ship", "process", 8),
        ("ship", "dask", 8),
    ):
        runs = []
        for r in range(REPEAT):
            out = tmp / f"shard-{how}-{backend}-{shards}-{r}"
            out.mkdir()
            code = SHARD_CHILD.format(root=str(ROOT), shards=shards, how=how, backend=backend, out=str(out))
            done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
            runs.append(float(done.stdout.split()[-1]) if done.returncode == 0 else None)
        ok = all(x is not None for x in runs)
        cpu[how, backend, shards] = statistics.median(runs) if ok else None
        show(
            "shard",
            f"{how} {shards} shard(s), backend {backend} (CPU, all processes)",
            cpu[how, backend, shards],
            "",
            "s",
            None if ok else False,
        )
    for how in ("rebuild", "ship"):
        one, eight = cpu[how, "serial", 1], cpu[how, "process", 8]
        if one and eight:
            # the goal is the shipped programme's (what trample.shard does); rebuilding in every task is the way
            # it was done before, measured beside it for comparison
            ship = how == "ship"
            show(
                "shard",
                f"{how}: CPU of 8 shards / 1 (process pool, 2 workers)",
                eight / one,
                "<= 2x" if ship else "",
                "x",
                eight / one <= 2 if ship else None,
                "" if ship else "the old way (each task rebuilds the programme), for comparison",
            )
    _count_in_parts()
    sc = trampler(20, [2, 3, 1, 4, 2, 1, 2, 1])
    for backend in ("serial", "process", "dask"):
        w = time.perf_counter()
        m = enumerate_shards(sc, str(tmp / backend), 4, backend=backend, workers=2)
        w = time.perf_counter() - w
        ok = sum(s["rows"] for s in m["shards"]) == m["count"]
        show("shard", f"enumerate_shards P20k8 backend={backend} (wall)", w, "", "s", ok)


def main():
    import tempfile
    from importlib.metadata import version

    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    RECORD.update(
        {
            "when": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "commit": commit,
            "machine": {"platform": platform.platform(), "cpus": os.cpu_count(), "load": os.getloadavg()},
            "versions": {
                "python": platform.python_version(),
                **{p: version(p) for p in ("numpy", "ortools", "dask") if _has(p)},
            },
            "cap_seconds": CAP,
            "repeat": REPEAT,
        }
    )
    print(f"commit {commit[:10]}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f} (other jobs share this machine)")
    only = set(os.environ.get("BENCH_CLIFFS", "").split(",")) - {""}
    bytecode_current(PY)  # (untimed: what pip does at install)
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for name, fn in (
            ("memory", lambda: memory(tmp)),
            ("user", lambda: user_paths(tmp)),
            ("numpy", numpy_vs_itertools),
            ("count", counting),
            ("graph", counting_graphs),
            ("rank", ranking_graphs),
            ("rank-wide", ranking_wide),
            ("list", enumeration_graphs),
            ("start", lambda: start_up(tmp)),
            ("whole", whole_combat),
            ("shard", lambda: sharding(tmp)),
        ):
            if not only or name in only:
                fn()
    out = ROOT / "benchmarks" / "results"
    out.mkdir(exist_ok=True)
    path = out / f"cliffs-{RECORD['when'].replace(':', '')}.json"
    path.write_text(json.dumps(RECORD, indent=1, default=str))
    missed = [f for f in RECORD["figures"] if f["met"] is False]
    print(f"\n{len(RECORD['figures'])} figures, {len(missed)} targets missed; record: {path.relative_to(ROOT)}")


def _has(p):
    from importlib.metadata import PackageNotFoundError, version

    try:
        version(p)
        return True
    except PackageNotFoundError:
        return False


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
