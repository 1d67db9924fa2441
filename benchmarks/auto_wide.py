"""Issue 21: "auto" on random_sharing(12, 14, 4) boards, before and after it lists them with the direct engine's
prefix lister: CPU of a fresh process to the first block of 65 536 rows and rows/s, one process per seed, medians.

``python benchmarks/auto_wide.py ROWS SEED...`` lists up to ROWS rows with "auto" as it is; with ``--old``,
``DirectEngine.supports`` is replaced by its rule before (the source lister or a bounded column programme, else
CP-SAT). Not part of ``make bench`` (section 4e of bench_cliffs.py prints the ratios to CP-SAT).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, sys, time
sys.path.insert(0, {root!r})
from benchmarks.boards import random_sharing
from trample import Combat
from trample.engines import direct as D
if {old}:
    def supports(self, plan, component, deadline=None):
        if len(component) > 1 and D.source_lister(plan, component, deadline) is not None:
            return True
        return D.bounded_dp(plan, component, deadline) is not None
    D.DirectEngine.supports = supports
sc = random_sharing(12, 14, 4, seed={seed})
t = time.process_time()
c = Combat(sc)
rows, first, first_rows = 0, None, 0
for b in c.assignment_blocks(rows=1 << 16):
    rows += len(b)
    if first is None:
        first, first_rows = time.process_time() - t, rows
    if rows >= {rows}:
        break
cpu = time.process_time() - t
after = (rows - first_rows) / (cpu - first) if cpu > first and rows > first_rows else None
print(json.dumps(dict(first=first, rows=rows, cpu=cpu, rate=rows / cpu, after=after)))
"""


def main(argv: list[str]) -> None:
    old = "--old" in argv
    args = [a for a in argv if a != "--old"]
    rows, seeds = int(args[0]), [int(s) for s in args[1:]]
    out = []
    for s in seeds:
        code = CHILD.format(root=str(ROOT), old=old, seed=s, rows=rows)
        proc = subprocess.run([sys.executable, "-"], input=code, capture_output=True, text=True, check=True)
        line = json.loads(proc.stdout.strip().splitlines()[-1]) | {"seed": s}
        out.append(line)
        print(json.dumps(line), flush=True)
    print("median CPU to the first block (s):", statistics.median(o["first"] for o in out))
    print("median rows/s (start-up included):", statistics.median(o["rate"] for o in out))
    after = [o["after"] for o in out if o["after"]]
    print("median rows/s after the first block:", statistics.median(after) if after else None)


if __name__ == "__main__":
    main(sys.argv[1:])
