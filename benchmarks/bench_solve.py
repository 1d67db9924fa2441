"""trample solve: latency per scenario in batch, against brute-force maximisation over enumeration.

Prints (never asserts):

1. generated boards of <= 4 attackers and <= 6 blockers, solved in-process one after the other (as a .jsonl
   batch is): median / p90 ms per scenario and scenarios per second on one core, for several objective lists,
   side by side with brute force (enumerate every legal assignment with Combat.assignments, score each with
   trample.optimize.score, keep the lexicographic best) on the same boards, as a ratio;
2. CP-SAT settings on the same boards: presolve on / off, lean parameters, tie-break off, solution hints;
3. the command on the same boards as one .jsonl batch (one process, start-up included);
4. growth with attackers x blockers up to 20 x 20;
5. the diagonal of 4. against brute force, on the boards small enough for it.

Run: ``python -m benchmarks solve`` (``QUICK=1`` for a short run, ``SECTIONS=24`` for some sections only).
CPU time (time.process_time) is reported because wall time on a shared machine measures the neighbours too.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from trample import Combat  # noqa: E402
from trample.optimize import parse_objectives, score, solve  # noqa: E402

QUICK = bool(os.environ.get("QUICK"))
N_BOARDS = 300 if QUICK else 1000
BRUTE_CAP = 20_000  # boards with more legal assignments than this are left out of the brute-force column


def board(rng: random.Random, n_att: int, n_blk: int, max_power: int = 8) -> dict:
    """A random board: one player, sometimes a planeswalker; each blocker blocks one attacker (sometimes two)."""
    players = [{"id": "opp", "life": rng.randint(3, 20)}]
    walkers = []
    if rng.random() < 0.3:
        walkers.append(
            {"id": "pw", "controller": "opp", "loyalty": rng.randint(1, 6), "value": rng.choice([1, 2, 3, 4.5])}
        )
    attackers = []
    for i in range(n_att):
        kws = []
        r = rng.random()
        if r < 0.45:
            kws.append("trample")
        elif r < 0.55:
            kws.append("trample_over_planeswalkers")
        if rng.random() < 0.12:
            kws.append("deathtouch")
        target = "pw" if walkers and rng.random() < 0.4 else "opp"
        attackers.append(
            {
                "id": f"a{i}",
                "power": rng.randint(1, max_power),
                "toughness": rng.randint(1, 8),
                "keywords": kws,
                "attacking": target,
                "blocked_by": [],
            }
        )
    blockers = []
    for j in range(n_blk):
        b = {
            "id": f"b{j}",
            "power": rng.randint(0, 5),
            "toughness": rng.randint(1, 6),
            "value": rng.choice([1, 1, 2, 3, 0.5]),
        }
        if rng.random() < 0.08:
            b["keywords"] = ["indestructible"]
        if rng.random() < 0.1:
            b["damage_marked"] = 1
        blockers.append(b)
        if attackers:
            for a in rng.sample(attackers, 2 if rng.random() < 0.1 and len(attackers) > 1 else 1):
                a["blocked_by"].append(b["id"])
    return {"players": players, "planeswalkers": walkers, "attackers": attackers, "blockers": blockers}


def small_boards(n: int, seed: int = 3) -> list[dict]:
    rng = random.Random(seed)
    return [board(rng, rng.randint(1, 4), rng.randint(0, 6)) for _ in range(n)]


class TooMany(Exception):
    pass


def brute(doc: dict, objectives, cap: int = BRUTE_CAP) -> tuple:
    """Brute-force maximisation: every legal assignment (Combat.assignments), each scored, the best kept."""
    combat = Combat(doc)
    objs = parse_objectives(objectives)
    best = None
    for n, a in enumerate(combat.assignments(limit=cap + 1)):
        if n == cap:
            raise TooMany
        values = score(combat, a, objs)
        key = tuple(values[o.name] if o.maximize else -values[o.name] for o in objs)
        if best is None or key > best:
            best = key
    return best


def solved_key(doc: dict, objectives, **options) -> tuple:
    result = solve(Combat(doc), objectives, **options)
    objs = parse_objectives(objectives)
    return tuple(result.objectives[o.name] if o.maximize else -result.objectives[o.name] for o in objs)


def cpu_ms(fn, *args, **kw):
    """(result, CPU milliseconds of this process): steadier than wall time on a shared machine."""
    t = time.process_time()
    out = fn(*args, **kw)
    return out, (time.process_time() - t) * 1000


def stats(ms: list[float]) -> tuple[float, float, float]:
    """median ms, p90 ms, scenarios per CPU second."""
    ms = sorted(ms)
    return statistics.median(ms), ms[int(0.9 * (len(ms) - 1))], len(ms) / (sum(ms) / 1000)


def row(label: str, ms: list[float], ref: list[float] | None = None) -> str:
    """ratio: median over median, and total time over total time (the batch throughput ratio)."""
    med, p90, rate = stats(ms)
    out = f"  {label:<40}{med:9.3f}{p90:9.3f}{rate:10.0f}"
    if ref is not None:
        out += f"{statistics.median(ms) / statistics.median(ref):9.2f}x{sum(ms) / sum(ref):9.2f}x"
    return out


HEADER = f"  {'':<40}{'med ms':>9}{'p90 ms':>9}{'scen/s':>10}{'med':>10}{'total':>10}"


def section_batch(boards: list[dict]) -> None:
    print(
        f"\n1. {len(boards)} generated boards (1-4 attackers, 0-6 blockers, power 1-8), one after the other "
        "in one process;\n   CPU time per scenario (load + plan + model + solve); ratios brute / solve (of the "
        f"medians, of the totals) on the boards with <= {BRUTE_CAP} legal assignments"
    )
    for objectives in ("max-damage", "lethal,max-value", "max-kills,min-overkill"):
        solve_ms, brute_ms, mine, agree, skipped = [], [], [], 0, 0
        for doc in boards:
            key, ms = cpu_ms(solved_key, doc, objectives)
            solve_ms.append(ms)
            try:
                best, bms = cpu_ms(brute, doc, objectives)
            except TooMany:
                skipped += 1
                continue
            brute_ms.append(bms)
            mine.append(ms)
            agree += best == key
        print(f"\n  --objective {objectives}")
        print(HEADER)
        print(row("solve, every board", solve_ms))
        print(row(f"solve, {len(mine)} brute-forceable boards", mine))
        print(row("brute force, same boards", brute_ms, mine))
        print(
            f"  brute force agrees with solve on {agree}/{len(mine)} boards; {skipped} boards had more than "
            f"{BRUTE_CAP} legal assignments"
        )


def section_settings(boards: list[dict]) -> None:
    lean_all = {"linearization_level": 0, "symmetry_level": 0, "cp_model_probing_level": 0}
    configs = [
        ("default (presolve off, lean <=16 col)", {}),
        ("presolve on", {"presolve": True}),
        ("presolve on, CP-SAT default params", {"presolve": True, "params": {}}),
        ("presolve off, CP-SAT default params", {"params": {}}),
        ("lean params on every model", {"params": lean_all}),
        ("no tie-break", {"tie_break": False}),
        ("hints from the previous solve", {"hints": True}),
    ]
    for objectives in ("lethal,max-value", "max-kills,min-overkill"):
        print(
            f"\n2. CP-SAT settings, --objective {objectives}, same {len(boards)} boards; ratio = setting / default. "
            "Each board runs every setting\n   in turn (rotating the order), three times; the least CPU time of "
            "the three counts"
        )
        print(HEADER)
        combats = [Combat(doc) for doc in boards]
        for c in combats:
            _ = c.plan  # build every plan before the clock starts
        results: dict[str, list[float]] = {label: [] for label, _ in configs}
        for n, c in enumerate(combats):
            best = {label: float("inf") for label, _ in configs}
            for rep in range(3):
                k = (n + rep) % len(configs)
                for label, opts in configs[k:] + configs[:k]:
                    best[label] = min(best[label], cpu_ms(solve, c, objectives, **opts)[1])
            for label in best:
                results[label].append(best[label])
        ref = results[configs[0][0]]
        for label, _ in configs:
            print(row(label, results[label], ref))


def section_cli(boards: list[dict]) -> None:
    import json
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "boards.jsonl"
        path.write_text("".join(json.dumps(b) + "\n" for b in boards))
        cmd = [sys.executable, "-m", "trample", "solve", str(path), "--objective", "lethal,max-value"]
        t = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.perf_counter() - t
    lines = p.stdout.splitlines()
    print(
        f"\n3. trample solve boards.jsonl --objective lethal,max-value: {len(lines)} result lines, exit "
        f"{p.returncode}, {wall:.2f} s wall including start-up: {len(lines) / wall:.0f} scenarios/s"
    )


def section_growth(per_cell: int, only: str = "45") -> None:
    sizes = (1, 2, 4, 8, 12, 16, 20)
    for objectives in ("lethal,max-value", "max-kills,min-overkill") if "4" in only else ():
        print(
            f"\n4. growth, --objective {objectives}: median CPU ms per solve over {per_cell} boards "
            "(rows: attackers, columns: blockers)"
        )
        print("  " + "att\\blk".rjust(8) + "".join(f"{b:>8}" for b in sizes))
        for a in sizes:
            cells = []
            for b in sizes:
                rng = random.Random(1000 * a + b)
                ms = []
                for _ in range(per_cell):
                    c = Combat(board(rng, a, b))
                    ms.append(cpu_ms(solve, c, objectives)[1])
                cells.append(statistics.median(ms))
            print("  " + f"{a:>8}" + "".join(f"{m:8.2f}" for m in cells))
    if "5" not in only:
        return
    print(
        "\n5. the diagonal against brute force, --objective lethal,max-value: median CPU ms over the boards "
        f"with <= {BRUTE_CAP} legal assignments (how many of {per_cell} had that few)"
    )
    print(f"  {'size':>8}{'columns':>9}{'boards':>8}{'solve':>9}{'brute':>10}{'ratio':>9}")
    for n in sizes:
        rng = random.Random(7 * n)
        docs = [board(rng, n, n) for _ in range(per_cell)]
        cols = statistics.mean(len(Combat(d).plan.columns) for d in docs)
        s_ms, b_ms = [], []
        for d in docs:
            try:
                b_ms.append(cpu_ms(brute, d, "lethal,max-value")[1])
            except TooMany:
                continue
            s_ms.append(cpu_ms(solved_key, d, "lethal,max-value")[1])
        if b_ms:
            s_med, b_med = statistics.median(s_ms), statistics.median(b_ms)
            tail = f"{s_med:9.2f}{b_med:10.2f}{b_med / s_med:8.1f}x"
        else:
            tail = f"{'':>9}{'-':>10}{'':>9}"
        print(f"  {f'{n}x{n}':>8}{cols:9.1f}{len(b_ms):>8}{tail}")


def main() -> None:
    boards = small_boards(N_BOARDS)
    solve(Combat(boards[0]), "max-damage")  # import ortools outside the clock
    only = os.environ.get("SECTIONS", "12345")  # e.g. SECTIONS=2 for the settings table alone
    if "1" in only:
        section_batch(boards)
    if "2" in only:
        section_settings(boards[: N_BOARDS // 2])
    if "3" in only:
        section_cli(boards)
    if "4" in only or "5" in only:
        section_growth(5 if QUICK else 15, only)


if __name__ == "__main__":
    main()
