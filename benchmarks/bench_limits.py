"""Time limits under load (issue 21): every long command, given ``--time-limit`` on a board that takes much longer,
must stop within the limit plus 0.1 s of wall time -- on a loaded machine too, where importing OR-Tools or numpy,
building a counting programme or starting a worker pool takes several times longer than on a quiet one.

Each command runs as a child (``python -m trample ...``), ``REPS`` times (default 3), while ``LOAD`` busy-loop
processes (default 4; started here, killed at the end whatever happens) keep the cores busy. Printed per command:
the median wall time of the child (``time.perf_counter`` around it: what the limit is about), its median CPU
(``ru_utime + ru_stime`` from ``os.wait4``), its exit code and the load average, beside the goal ``<= limit +
0.1 s`` (a batch of three documents on two workers: two limits, one per wave of documents). A child still
running at 30 x its goal is killed and printed as ``killed``. Prints, never asserts.

The ``API`` rows call the Python API in a child (``python -c``) with ``time_limit=LIMIT``: their wall time is the
call's, timed by the child (the limit counts from the call, not from the start of the process). ``enumerate
--shards`` takes no ``--time-limit`` (each shard is written whole): it is not here.

Run: ``python -m benchmarks limits`` (``LOAD=0``: a quiet machine; ``ONLY=solve,count``: some commands;
``BEFORE=/path/to/other/worktree``: the same commands with that worktree's ``.venv/bin/python``, interleaved, in
the same run: the before/after of a change).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_declare import board as declare_board  # noqa: E402
from benchmarks.boards import chained, random_sharing  # noqa: E402
from trample import Combat  # noqa: E402

REPS = int(os.environ.get("REPS", 3))
LOAD = int(os.environ.get("LOAD", 4))
LIMIT = float(os.environ.get("LIMIT", 1.0))
SLACK = 0.1
ONLY = [w for w in os.environ.get("ONLY", "").split(",") if w]
PY = sys.executable
BEFORE = os.environ.get("BEFORE")


def _boards(tmp: Path) -> dict[str, str]:
    """The boards, written once: each takes much longer than LIMIT for the commands given it."""
    docs = {
        "rs14": random_sharing(14, 14, per=4, seed=0),  # CP-SAT solve, counting: seconds
        "rs9": random_sharing(9, 11, seed=1),  # a 5.2e12 programme: 2.4-4.4 s of CPU to build
        "rs5": random_sharing(12, 14, per=5, seed=3),  # the conditioned programme's joins merge 10^6 codes and more
        "chained": chained(8),  # a whole combat: first-strike lines searched
        "declare": declare_board(8, 8, 30),  # 8 vs 8 blocks: seconds of declarations
        "three on two": _three_on_two(3000, 2000),  # count, rank, unrank, sample: the closed form (engines/shared.py)
    }
    paths = {}
    for name, doc in docs.items():
        path = tmp / f"{name}.json"
        path.write_text(json.dumps(doc))
        paths[name] = str(path)
    combat = Combat(docs["rs14"])  # a legal assignment for rank (an illegal one is bad input: exit 2 at once)
    paths["rs14 assignment"] = json.dumps(combat.unrank(combat.count() // 2).to_json())
    batch = tmp / "batch.jsonl"  # a batch of one hard board (the limit is per document of a batch)
    batch.write_text(json.dumps(docs["rs14"]) + "\n")
    paths["batch"] = str(batch)
    batch3 = tmp / "batch3.jsonl"  # three: on 2 workers, ceil(3 / 2) = 2 limits (trample.shard.map_documents)
    batch3.write_text((json.dumps(docs["rs14"]) + "\n") * 3)
    paths["batch3"] = str(batch3)
    return paths


def _three_on_two(power: int, toughness: int) -> dict:
    """702.19b: three tramplers of ``power`` each blocked by both of two blockers of ``toughness`` (docs/scale.md,
    "A blocker that needs tens of thousands")."""
    return {
        "players": [{"id": "opp", "life": 20}],
        "attackers": [
            {"id": f"a{i}", "power": power, "toughness": 5, "keywords": ["trample"], "attacking": "opp"}
            | {"blocked_by": ["b0", "b1"]}
            for i in range(3)
        ],
        "blockers": [{"id": f"b{j}", "power": 1, "toughness": toughness} for j in range(2)],
    }


# The Python API (issue 21): the limit counts from the call, so the child times the call itself and prints it;
# the object called is made before (``c = ...``: making a whole combat imports its modules, 0.14 s, outside the
# limit of a call made on it later).
API = {
    "count": "trample.Combat(board('rs14')).count(time_limit=T)",
    "count cpsat": "trample.Combat(board('rs9'), engine='cpsat').count(time_limit=T)",
    "assignments cpsat": "sum(1 for _ in trample.Combat(board('rs9'), engine='cpsat').assignments(time_limit=T))",
    "solve": "trample.Combat(board('rs14')).solve('max-kills,max-value', time_limit=T)",
    "whole solve": "c = trample.open_combat(board('chained'))\nc.solve('max-damage', time_limit=T)",
    "whole count": "c = trample.open_combat(board('chained'))\nc.count(time_limit=T)",
    "declare solve": "solve_declaration(load_declare_doc(raw('declare')), 'max-damage,max-value', time_limit=T)",
    "count_documents (process)": "list(count_documents([('line 1', raw('rs14'))], time_limit=T, workers=1))",
}
API_CHILD = """
import json, sys, time
import trample
from trample.declare.solve import solve_declaration
from trample.limits import LimitReached
from trample.models import load_scenario
from trample.models.declare import load_declare_doc
from trample.shard import count_documents
paths, T = json.loads(sys.argv[1]), float(sys.argv[2])
def raw(name):
    return json.load(open(paths[name]))
def board(name):
    return load_scenario(raw(name))
*made, call = sys.argv[3].splitlines()
for line in made:  # the object called, made before the call (not timed)
    exec(line)
start = time.perf_counter()
try:
    eval(call)
except LimitReached:
    pass
print(json.dumps({"call": time.perf_counter() - start}))
"""


def _commands(b: dict[str, str], out: Path) -> list[tuple[str, list[str], int]]:
    """(name, words, limits): the goal is ``limits * LIMIT + SLACK`` (a batch on a pool: one limit per wave)."""
    return [
        ("solve", ["solve", b["rs14"], "--objective", "max-kills,max-value"], 1),
        ("solve --all-optimal", ["solve", b["rs14"], "--objective", "max-damage", "--all-optimal"], 1),
        ("solve (whole combat)", ["solve", b["chained"], "--objective", "max-damage"], 1),
        ("count", ["count", b["rs14"]], 1),
        ("count --engine cpsat", ["count", b["rs9"], "--engine", "cpsat"], 1),
        ("enumerate -o", ["enumerate", b["rs9"], "-o", str(out / "rows.jsonl")], 1),
        ("sample", ["sample", b["rs9"], "--n", "1000"], 1),
        ("rank", ["rank", b["rs14"], b["rs14 assignment"]], 1),
        ("unrank (12 on 14, 5 blockers each)", ["unrank", b["rs5"], "123456789"], 1),
        ("count (three tramplers on two blockers of 2 000)", ["count", b["three on two"]], 1),
        ("unrank (three tramplers on two blockers of 2 000)", ["unrank", b["three on two"], "12345"], 1),
        ("sample (three tramplers on two blockers of 2 000)", ["sample", b["three on two"]], 1),
        (
            "count --backend process (one count shared)",
            ["count", b["rs14"], "--backend", "process", "--workers", "2"],
            1,
        ),
        ("count batch", ["count", b["batch"]], 1),
        ("solve batch", ["solve", b["batch"], "--objective", "max-value"], 1),
        ("count batch --backend process", ["count", b["batch"], "--backend", "process"], 1),
        ("solve batch --backend process", ["solve", b["batch"], "--objective", "max-value", "--backend", "process"], 1),
        (
            "solve batch of 3 --backend process --workers 2",
            ["solve", b["batch3"], "--objective", "max-value", "--backend", "process", "--workers", "2"],
            2,
        ),
        ("declare solve", ["declare", "solve", b["declare"], "--objective", "max-damage,max-value"], 1),
        ("declare count", ["declare", "count", b["declare"]], 1),
        ("arena", ["arena", "--n", "400"], 1),
        ("arena --n 100000 (boards drawn as played)", ["arena", "--n", "100000"], 1),
        ("arena --game blocks --n 100000", ["arena", "--game", "blocks", "--n", "100000"], 1),
        ("arena --workers 2 --n 100000", ["arena", "--workers", "2", "--n", "100000"], 1),
    ]


def _run(argv: list[str], cap: float, cwd: Path = ROOT) -> tuple[float, float, int | None]:
    """(wall, CPU, exit code; None when killed at ``cap`` s) of one child; an API child's wall is the one it
    printed (its call's)."""
    start = time.perf_counter()
    api = argv[1] == "-c"  # only an API child's output is read (a killed command's workers may hold a pipe open)
    proc = subprocess.Popen(
        argv, stdout=subprocess.PIPE if api else subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cwd
    )
    killed = False
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() - start > cap:
            proc.kill()
            killed = True
        time.sleep(0.01)  # polling a child's end (measurement, not synchronisation of the work)
    wall = time.perf_counter() - start
    out = proc.stdout.read() if proc.stdout and not killed else b""
    proc.returncode = os.waitstatus_to_exitcode(status)
    if api and not killed:
        lines = out.decode().strip().splitlines()
        wall = json.loads(lines[-1])["call"] if lines else wall
    return wall, usage.ru_utime + usage.ru_stime, None if killed else proc.returncode


def _row(name: str, runs: list, limits: int = 1) -> None:
    wall = statistics.median(r[0] for r in runs)
    cpu = statistics.median(r[1] for r in runs)
    codes = sorted({str(r[2]) if r[2] is not None else "killed" for r in runs})
    worst = max(r[0] for r in runs)
    goal = limits * LIMIT + SLACK
    met = worst <= goal
    print(
        f"| {name} | {wall:.2f} s (worst {worst:.2f}) | {cpu:.2f} s | {','.join(codes)} "
        f"| {os.getloadavg()[0]:.1f} | <= {goal:.1f} s {'met' if met else 'MISSED'} |",
        flush=True,
    )


def _load(n: int) -> list[subprocess.Popen]:
    return [subprocess.Popen([PY, "-c", "while True: pass"]) for _ in range(n)]


def main() -> None:
    print(
        f"--time-limit {LIMIT:g} under load: {LOAD} busy-loop processes on {os.cpu_count()} cores; wall and CPU of "
        f"the child, median of {REPS}; goal: wall <= limit + {SLACK:g} s"
    )
    print("| command | wall | CPU | exit | load avg | goal |")
    print("|---|---|---|---|---|---|")
    busy = _load(LOAD)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            boards = _boards(Path(tmp))
            runs_of = [
                (name, ["-m", "trample", *argv, "--time-limit", f"{LIMIT:g}"], n)
                for name, argv, n in _commands(boards, Path(tmp))
            ]
            runs_of += [
                (f"API {name}", ["-c", API_CHILD, json.dumps(boards), f"{LIMIT:g}", code], 1)
                for name, code in API.items()
            ]
            for name, words, n in runs_of:
                if ONLY and not any(w in name for w in ONLY):
                    continue
                sides = {"": (PY, ROOT)}
                if BEFORE:
                    sides = {" (before)": (str(Path(BEFORE) / ".venv/bin/python"), Path(BEFORE)), **sides}
                runs: dict[str, list] = {side: [] for side in sides}
                for _ in range(REPS):  # interleaved: the load falls on both sides alike
                    for side, (python, cwd) in sides.items():
                        runs[side].append(_run([python, *words], 30 * LIMIT * n, cwd))
                for side, rs in runs.items():
                    _row(name + side, rs, n)
    finally:
        for p in busy:
            p.kill()
        for p in busy:
            p.wait()


if __name__ == "__main__":
    main()
