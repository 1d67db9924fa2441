"""``make fuzz``: ``python tests/fuzz/run.py --n 20000 [--seed S] [--jobs N]`` runs the fuzz harness at length
and prints each contract violation (the case and what broke); exit 1 if there was any.

Case ``k`` of a run is made from (seed, k) alone (harness.case_at), so the cases do not depend on how they are
split: ``--start/--stop`` run a range of them, ``--jobs N`` deals the indices out to N worker processes (index k
to worker k mod N) and merges what they find. ``--out FILE`` appends one JSON line per case run (index, kind,
exit code, wall and CPU seconds, the problems) and skips the indices FILE already holds, so an interrupted run
loses nothing and is taken up where it stopped. ``--indices K,K,...`` (or ``@FILE``, a JSON list) runs those
cases only (the cases a fix affects, again). ``--replay K`` runs case K alone and shows it (its command line,
its files and what it gave). ``--summary FILE...`` adds up record files: cases, violations, time by kind.
"""

from __future__ import annotations

import argparse
import json
import os
import selectors
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness  # noqa: E402


def record(outcome: harness.Outcome, seed: int) -> dict:
    rec = {
        "seed": seed,
        "index": outcome.case.index,
        "kind": outcome.case.kind,
        "subprocess": outcome.case.subprocess,
        "code": outcome.code,
        "seconds": round(outcome.seconds, 3),
        "cpu": round(outcome.cpu, 3),
        "problems": outcome.problems,
    }
    if outcome.problems:
        rec["argv"] = outcome.case.argv
        rec["err"] = outcome.err[-300:]
    return rec


def _worker(seed: int, indices: list[int], emit) -> None:
    harness.fuzz(0, seed, indices=indices, report=lambda done, outcome: emit(record(outcome, seed)))


def _child(seed: int) -> int:
    """A worker of --jobs: the indices on standard input (one JSON list), one record line per case on the
    standard output it was given; the cases' own writes to descriptor 1 (a player, a library) go to stderr."""
    indices = json.loads(sys.stdin.read())
    records = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)

    def emit(rec):
        records.write(json.dumps(rec) + "\n")
        records.flush()

    _worker(seed, indices, emit)
    return 0


def _parallel(seed: int, indices: list[int], jobs: int, emit) -> list[int]:
    """Deal ``indices`` out to ``jobs`` child processes; ``emit`` each record as it comes; the exit codes."""
    children = []
    selector = selectors.DefaultSelector()
    for j in range(jobs):
        share = indices[j::jobs]
        if not share:
            continue
        child = subprocess.Popen(
            [sys.executable, __file__, "--child", "--seed", str(seed)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert child.stdin is not None and child.stdout is not None
        child.stdin.write(json.dumps(share))
        child.stdin.close()
        selector.register(child.stdout, selectors.EVENT_READ, child)
        children.append(child)
    try:
        open_pipes = len(children)
        while open_pipes:
            for key, _ in selector.select():
                line = key.fileobj.readline()  # type: ignore[union-attr]
                if not line:
                    selector.unregister(key.fileobj)
                    open_pipes -= 1
                    continue
                emit(json.loads(line))
        return [child.wait() for child in children]
    finally:  # interrupted: the workers go too (what they did is in --out)
        for child in children:
            if child.poll() is None:
                child.kill()
                child.wait()


def _done_indices(path: str | None) -> set[int]:
    if not path or not os.path.exists(path):
        return set()
    done = set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            try:
                done.add(json.loads(line)["index"])
            except (ValueError, KeyError, TypeError):
                continue  # a line cut by an interrupt: that case runs again
    return done


def summary(records: list[dict]) -> str:
    by_kind: dict = defaultdict(lambda: [0, 0.0, 0.0, 0])
    for rec in records:
        row = by_kind[rec["kind"] + (" (process)" if rec.get("subprocess") else "")]
        row[0] += 1
        row[1] += rec["seconds"]
        row[2] += rec["cpu"]
        row[3] += bool(rec["problems"])
    lines = [f"{'kind':24} {'cases':>6} {'wall s':>9} {'s/case':>7} {'cpu s':>9} {'cpu/case':>8} {'bad':>4}"]
    for kind, (n, wall, cpu, bad) in sorted(by_kind.items()):
        lines.append(f"{kind:24} {n:6} {wall:9.1f} {wall / n:7.3f} {cpu:9.1f} {cpu / n:8.3f} {bad:4}")
    return "\n".join(lines)


def _replay(seed: int, index: int) -> int:
    case = harness.case_at(seed, index)
    print(json.dumps({"index": index, "kind": case.kind, "argv": case.argv, "subprocess": case.subprocess}))
    for name, text in case.files.items():
        print(f"--- {name}\n{text[:4000]}")
    with tempfile.TemporaryDirectory() as folder:
        outcome = harness.run_case(case, folder)
    print(f"--- exit {outcome.code!r} in {outcome.seconds:.2f} s ({outcome.cpu:.2f} s CPU)")
    print(f"--- stdout\n{outcome.out[:2000]}\n--- stderr\n{outcome.err[-2000:]}")
    print(f"--- problems {outcome.problems}")
    return 1 if outcome.problems else 0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=20000, help="cases 0 .. n-1 (default 20000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--start", type=int, default=0, help="the first index to run")
    parser.add_argument("--stop", type=int, default=None, help="the index to stop before (default --n)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1: this process)")
    parser.add_argument("--out", help="append one JSON line per case; skip the indices it holds")
    parser.add_argument("--indices", help="run these indices only: K,K,... or @FILE holding a JSON list")
    parser.add_argument("--replay", type=int, help="run one case and show it")
    parser.add_argument("--summary", nargs="+", metavar="FILE", help="add up record files")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return _child(args.seed)
    if args.replay is not None:
        return _replay(args.seed, args.replay)
    if args.summary:
        recs = []
        for path in args.summary:
            with open(path, encoding="utf-8") as f:
                for line in f:
                    try:
                        recs.append(json.loads(line))
                    except ValueError:
                        continue
        print(summary(recs))
        bad = sum(bool(r["problems"]) for r in recs)
        print(f"{len({(r['seed'], r['index']) for r in recs})} cases, {bad} contract violations")
        return 1 if bad else 0

    stop = args.n if args.stop is None else args.stop
    skip = _done_indices(args.out)
    wanted = range(args.start, stop)
    if args.indices:  # the cases a fix affects, run again
        text = Path(args.indices[1:]).read_text() if args.indices.startswith("@") else f"[{args.indices}]"
        wanted = sorted(set(json.loads(text)))
    indices = [k for k in wanted if k not in skip]
    if skip:
        print(f"{len(wanted) - len(indices)} cases already in {args.out}", file=sys.stderr)
    out = open(args.out, "a+", encoding="utf-8") if args.out else None
    if out is not None and out.tell():
        out.seek(out.tell() - 1)
        if out.read(1) != "\n":  # a line cut by a kill: the next record starts on a line of its own
            out.write("\n")
    records: list[dict] = []

    def emit(rec: dict) -> None:
        records.append(rec)
        if out is not None:
            out.write(json.dumps(rec) + "\n")
            out.flush()
        if rec["problems"]:
            print(f"VIOLATION case {rec['index']} {rec['argv']}: {rec['problems']}; exit {rec['code']!r}; "
                  f"stderr {rec['err']!r}", flush=True)  # fmt: skip
        if len(records) % 500 == 0:
            print(f"{len(records)} of {len(indices)} cases", file=sys.stderr, flush=True)

    codes = [0]
    try:
        if args.jobs <= 1:
            _worker(args.seed, indices, emit)
        else:
            codes = _parallel(args.seed, indices, args.jobs, emit)
    finally:
        if out is not None:
            out.close()
    print(summary(records), file=sys.stderr)
    bad = [r for r in records if r["problems"]]
    lost = len(indices) - len(records)
    print(f"{len(records)} cases, {len(bad)} contract violations" + (f", {lost} cases not run" if lost else ""))
    return 1 if bad or lost or any(codes) else 0


if __name__ == "__main__":
    sys.exit(main())
