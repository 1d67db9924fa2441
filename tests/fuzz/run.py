"""``make fuzz``: ``python tests/fuzz/run.py --n 20000 [--seed S]`` runs the fuzz harness at length and prints
each contract violation (the case and what broke); exit 1 if there was any."""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import fuzz  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    def report(done, outcome):
        if outcome.problems:
            print(f"VIOLATION {outcome.case.argv}: {outcome.problems}; exit {outcome.code!r}; "
                  f"stderr {outcome.err[-300:]!r}", flush=True)  # fmt: skip
        if done % 500 == 0:
            print(f"{done} of {args.n} cases", file=sys.stderr, flush=True)

    bad = fuzz(args.n, args.seed, report=report)
    print(f"{args.n} cases, {len(bad)} contract violations")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
