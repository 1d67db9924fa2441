"""Arena throughput: the same suite in-process, on a process pool and on a local Dask cluster, side by side.

Prints boards per second for each backend (and the ratio to in-process), checks that the results agree, and
the median decision time of each player as a ratio of the optimal player's.
``python -m benchmarks arena`` (N boards: ARENA_BOARDS, default 400).
"""

from __future__ import annotations

import os
import time

from trample.arena import generate, run_arena, strip_timing

N = int(os.environ.get("ARENA_BOARDS", "400"))
PLAYERS = ["random", "declaration", "greedy", "face", "optimal"]


def timed(**kwargs):
    start = time.perf_counter()
    results = run_arena(generate("mixed", N, seed=1), players=PLAYERS, seed=1, **kwargs)
    return results, time.perf_counter() - start


def main():
    runs = {}
    runs["inline (1 process)"] = timed()
    runs["process pool, 2 workers"] = timed(workers=2)
    try:
        import distributed  # noqa: F401

        runs["dask LocalCluster, 2 workers"] = timed(backend="dask", workers=2)
    except ImportError:
        print("(dask[distributed] is not installed: no dask run)")
    base_results, base = runs["inline (1 process)"]
    print(f"{N} 'mixed' boards x {len(PLAYERS)} players, chunks of 50 (startup of pools and clusters included)")
    print(f"{'backend':32} {'seconds':>8} {'boards/s':>9} {'vs inline':>10}  same results")
    for name, (results, secs) in runs.items():
        same = strip_timing(results) == strip_timing(base_results)
        print(f"{name:32} {secs:8.2f} {N / secs:9.1f} {base / secs:9.2f}x  {same}")
    rows = {r["player"]: r for r in base_results["leaderboard"]}
    opt = rows["optimal"]["time_ms_median"]
    print(f"\n{'player':12} {'median ms/decision':>19} {'vs optimal':>11}")
    for p in PLAYERS:
        t = rows[p]["time_ms_median"]
        print(f"{p:12} {t:19.3f} {t / opt:10.2f}x")


if __name__ == "__main__":
    main()
