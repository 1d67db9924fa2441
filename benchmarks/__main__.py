"""``python -m benchmarks [NAME ...]``: run every benchmarks/bench_*.py (or the named ones) in turn."""

import runpy
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    files = sorted(HERE.glob("bench_*.py"))
    if argv:
        files = [f for f in files if any(name in f.stem for name in argv)]
    for f in files:
        print(f"\n=== {f.stem} ===", flush=True)
        start = time.perf_counter()
        runpy.run_path(str(f), run_name="__main__")
        print(f"=== {f.stem}: {time.perf_counter() - start:.1f} s ===", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
