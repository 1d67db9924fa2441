"""What ``--backend dask`` costs a command (issue 21): ``trample count BATCH --backend dask`` starting its own
LocalCluster (2 worker processes) against the same command given ``--scheduler ADDRESS`` of a cluster that is
already up (``trample cluster``, started once here and closed at the end), and the plain command (no backend).

Each command runs as a child, ``REPS`` times (default 3), interleaved so that the machine's load falls on all
alike: its wall time (``time.perf_counter`` around it) and its CPU (``ru_utime + ru_stime`` of the child and its
own children: a local cluster's worker processes are the command's children; a running cluster's workers are not,
and are shown apart as the cluster's CPU over all the runs against it). Median of the runs. Prints, never asserts.

Run: ``python -m benchmarks dask_start``.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.boards import random_sharing  # noqa: E402

REPS = int(os.environ.get("REPS", 3))
PY = sys.executable


def _child(argv: list[str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _cpu_of(pid: int) -> float:
    """CPU seconds of a running process and its children (Linux /proc), for the running cluster."""
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for proc in [pid, *_children(pid)]:
        try:
            fields = Path(f"/proc/{proc}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick  # utime, stime
        except (OSError, ValueError, IndexError):
            pass
    return total


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        kids = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return out
    for k in kids:
        out += [int(k), *_children(int(k))]
    return out


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        batch = Path(tmp) / "batch.jsonl"  # 100 small boards: two chunks of 50, one per worker
        batch.write_text("".join(json.dumps(random_sharing(3, 3, seed=s)) + "\n" for s in range(100)))
        cluster = subprocess.Popen(
            [PY, "-m", "trample", "cluster", "--workers", "2"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            cwd=ROOT,
        )
        try:
            address = cluster.stdout.readline().strip() if cluster.stdout else ""
            base = [PY, "-m", "trample", "count", str(batch)]
            cases = {
                "plain (no backend)": base,
                "--backend dask (own LocalCluster, 2 workers)": [*base, "--backend", "dask", "--workers", "2"],
                "--backend dask --scheduler (trample cluster)": [*base, "--backend", "dask", "--scheduler", address],
            }
            _child(cases["--backend dask --scheduler (trample cluster)"])  # the workers import trample's tasks once
            runs: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
            cluster_cpu = _cpu_of(cluster.pid)
            for _ in range(REPS):
                for name, argv in cases.items():
                    runs[name].append(_child(argv))
            cluster_cpu = _cpu_of(cluster.pid) - cluster_cpu
        finally:
            cluster.terminate()
            cluster.wait(120)
    print(f"trample count BATCH (100 boards), median of {REPS}; load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores")  # fmt: skip
    print("| command | wall | CPU of the command (and its own workers) |")
    print("|---|---|---|")
    for name, rs in runs.items():
        wall = statistics.median(r[0] for r in rs)
        cpu = statistics.median(r[1] for r in rs)
        print(f"| {name} | {wall:.2f} s | {cpu:.2f} s |")
    print(f"the running cluster's own CPU over the {REPS} runs against it: {cluster_cpu / REPS:.2f} s a run")


if __name__ == "__main__":
    main()
