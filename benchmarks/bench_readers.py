"""The readers of what damage does (issue 20): every path that reads ``trample.outcome`` for "is it lethal?" and
"what happens?", CPU time of this process (time.process_time), median of ``REPS`` runs (default 3) after one warm-up
run, printed beside the figure measured at cb83492 (the commit before issue 20 made these readers read the outcome)
on the same machine, with the ratio. Goal: ratio <= 1.0 on every path (the readers got no slower).

The workloads (the same boards on both sides: :func:`make_data` draws them once):

- ``arena <level>``: ``run_arena`` with the five baseline players on generated boards (``mixed``, ``first-strike``,
  and ``mixed`` boards with one effect each -- a lifelink blocker, an infect attacker or a prevention shield on a
  player -- made by :func:`with_effect`), objective ``max-damage,max-value``;
- ``score``: ``trample score`` of the decisions of the ``mixed`` arena (every player's assignment on every board);
- ``solve``: ``Combat.solve`` on every ``mixed`` (``plain``) and effect board, ``lethal`` (with its lethal report)
  and ``lethal,max-kills,min-overkill``;
- ``whole``: ``WholeCombat.solve`` (the whole combat's line and its lethal report) on the ``first-strike`` boards;
- ``gym``: one Gymnasium episode per ``mixed`` board (the first allowed amount at each decision);
- ``render``: ``trample.render.render`` of the optimal line of every ``mixed`` and effect board;
- ``count`` / ``check``: ``Combat(doc).count()`` and ``Combat(doc).check(line)`` (its ``max-damage`` line) on 300
  small generated boards of ``bench_solve.py``'s kind (1-4 attackers, 0-6 blockers), loading included: the user
  paths where a board costs a fraction of a millisecond, so per-board overhead shows.

Measured against cb83492 on 2026-12-02 13:14-13:37 UTC (2 shared cores, load average 8-11 from other processes;
both versions' children run alternately on the same boards, CPU time of one run per child, median of 3, so
+-10-25 % is noise): :data:`BASELINE` holds cb83492's figures, the table is in docs/scale.md ("The readers of the
outcome").

Instructions (``BENCH_IR=1``, with valgrind installed): the rows near 1 move by +-10-25 % from one run to the next
on a shared machine, more than the differences they are asked about. With ``BENCH_IR=1`` each row is also counted
in instructions, which do not depend on the load: each version's child runs under ``valgrind --tool=callgrind``
with the measured workload run 0, 1 and 2 times after its set-up (``--child-ir NAME DATA K``); the differences are
the instructions of the first run (the one the CPU figure times: every cache kept on the boards cold) and of a
second, warm run (the children's imports, set-up and warm-up cancel out). Every such child runs with
``PYTHONHASHSEED=0`` (string hashes, hence set orders and the work that follows them, the same from run to run:
without it a count moved by a few per cent between runs) and ``OPENBLAS_NUM_THREADS=1`` (OpenBLAS's worker thread
spins after numpy's import, and under valgrind its spin added a different number of instructions to each child:
with it, the same child counts the same instructions to the last one). It is slow (about a minute a child) and
printed under the CPU figures as two more ratios.

Run: ``python -m benchmarks readers`` (``REPS=1`` for one run; ``ROWS=count,render`` for the rows whose names
contain one of those words). A child process runs one workload:
``python benchmarks/bench_readers.py --child NAME DATA.json`` prints its CPU seconds; with
``BASE_PYTHON=<cb83492 checkout>/.venv/bin/python`` the same children also run against that checkout's install,
alternately with this one's, and its medians are printed instead of :data:`BASELINE` (only public APIs that cb83492
also had are used: ``git worktree add ../base_cb83492 cb83492``, then ``make venv`` there).
"""

from __future__ import annotations

import contextlib
import gc
import io
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPS = int(os.environ.get("REPS", "3"))
N_MIXED, N_FIRST, N_EFFECT, N_SMALL = 60, 30, 40, 300
PLAYERS = ["random", "declaration", "greedy", "face", "optimal"]
OBJECTIVE = "max-damage,max-value"

#: CPU seconds of each workload at cb83492, measured on this machine (see the module docstring)
BASELINE: dict[str, float] = {
    "arena mixed": 0.538,
    "arena first-strike": 0.230,
    "arena effect boards": 3.111,
    "score (mixed decisions)": 1.717,
    "solve lethal, plain": 0.073,
    "solve lethal, effects": 1.256,
    "solve lex, plain": 0.125,
    "solve lex, effects": 1.249,
    "whole combat first-strike": 0.421,
    "gym episodes (mixed)": 0.254,
    "render (mixed + effects)": 0.024,
    "count (300 small boards)": 0.076,
    "check (300 small boards)": 0.049,
}


def with_effect(item: dict, k: int) -> dict:
    """``item`` (a generated suite item) with one effect on its board, chosen by ``k``."""
    item = json.loads(json.dumps(item))
    doc = item["scenario"]
    rng = random.Random(k)
    kind = k % 3
    if kind == 0 and doc.get("blockers"):
        b = rng.choice(doc["blockers"])
        b["keywords"] = [*b.get("keywords", []), "lifelink"]
    elif kind == 1 or not doc.get("blockers"):
        a = rng.choice(doc["attackers"])
        a["keywords"] = [*a.get("keywords", []), "infect"]
    else:
        p = rng.choice(doc["players"])
        p["prevent"] = rng.randint(1, 3)
    item["id"] = f"{item['id']}+effect"
    return item


def make_data(
    n_mixed: int = N_MIXED, n_first: int = N_FIRST, n_effect: int = N_EFFECT, n_small: int = N_SMALL, seed: int = 1
) -> dict:
    """The boards (generated once, by this checkout) and the decisions that ``score`` reads; ``"warm"``: a few
    other boards of each kind, run once before the measured run (imports, OR-Tools)."""
    from trample.arena import generate, run_arena

    mixed = generate("mixed", n_mixed, seed=seed)
    first = generate("first-strike", n_first, seed=seed)
    effect = [with_effect(it, k) for k, it in enumerate(generate("mixed", n_effect, seed=seed + 1))]
    results = run_arena(mixed, players=PLAYERS, seed=1, objective=OBJECTIVE)
    boards = {it["id"]: it["scenario"] for it in mixed}
    decisions = []
    for b in results["boards"]:
        for d in b.get("decisions", []):
            if "assignment" in d:
                decisions.append(
                    {
                        "scenario": boards[b["id"]],
                        "assignment": d["assignment"],
                        "objective": OBJECTIVE,
                        "player": d.get("player", "recorded"),
                    }
                )
    small = _small_boards(n_small, seed + 2)
    data = {"mixed": mixed, "first-strike": first, "effect": effect, "decisions": decisions, "small": small}
    if seed == 1:
        data["warm"] = make_data(2, 2, 2, 2, seed=99)
    return data


def _small_boards(n: int, seed: int) -> list[dict]:
    """``n`` small generated boards of bench_solve.py's kind (1-4 attackers, 0-6 blockers), each with a line to
    check (its ``max-damage`` line, found by this checkout)."""
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from benchmarks.bench_solve import small_boards
    from trample import Combat

    return [
        {"scenario": doc, "line": Combat(doc).solve("max-damage").assignment.to_json()} for doc in small_boards(n, seed)
    ]


def _arena(items):
    from trample.arena import run_arena

    return lambda: run_arena(items, players=PLAYERS, seed=1, objective=OBJECTIVE)


def _score(decisions):
    from trample.cli import main as cli

    fd, path = tempfile.mkstemp(suffix=".jsonl")
    with os.fdopen(fd, "w") as f:
        for d in decisions:
            f.write(json.dumps(d) + "\n")

    def run():
        with contextlib.redirect_stdout(io.StringIO()):
            cli(["score", path])

    return run


def _solve(items, objectives):
    from trample import Combat

    def run():
        for it in items:
            Combat(it["scenario"]).solve(objectives)

    return run


def _whole(items):
    from trample.whole import WholeCombat

    def run():
        for it in items:
            WholeCombat(it["scenario"]).solve("lethal,max-kills")

    return run


def _gym(items):
    from trample.arena.gym_env import DamageAssignmentEnv

    env = DamageAssignmentEnv(objective=OBJECTIVE, max_amount=64)

    def run():
        for it in items:
            env.reset(options={"scenario": it["scenario"]})
            done = False
            while not done:
                mask = env.action_masks()
                action = int(mask.argmax())
                done = env.step(action)[2]

    return run


def _render(items):
    from trample import Combat
    from trample.render import render

    lines = []
    for it in items:
        combat = Combat(it["scenario"])
        lines.append((combat, combat.solve("max-damage").assignment))

    def run():
        for combat, line in lines:
            render(Combat(combat.scenario), line)

    return run


def _count(items):
    from trample import Combat

    def run():
        for it in items:
            Combat(it["scenario"]).count()

    return run


def _check(items):
    from trample import Combat

    def run():
        for it in items:
            Combat(it["scenario"]).check(it["line"])

    return run


def workloads(data: dict) -> dict:
    """name -> a callable that runs the workload once (setup done outside it)."""
    return {
        "arena mixed": lambda: _arena(data["mixed"]),
        "arena first-strike": lambda: _arena(data["first-strike"]),
        "arena effect boards": lambda: _arena(data["effect"]),
        "score (mixed decisions)": lambda: _score(data["decisions"]),
        "solve lethal, plain": lambda: _solve(data["mixed"], "lethal"),
        "solve lethal, effects": lambda: _solve(data["effect"], "lethal"),
        "solve lex, plain": lambda: _solve(data["mixed"], "lethal,max-kills,min-overkill"),
        "solve lex, effects": lambda: _solve(data["effect"], "lethal,max-kills,min-overkill"),
        "whole combat first-strike": lambda: _whole(data["first-strike"]),
        "gym episodes (mixed)": lambda: _gym(data["mixed"]),
        "render (mixed + effects)": lambda: _render(data["mixed"] + data["effect"]),
        "count (300 small boards)": lambda: _count(data["small"]),
        "check (300 small boards)": lambda: _check(data["small"]),
    }


def child(name: str, data_path: str) -> float:
    """One measured run of workload ``name`` in this (fresh) process, after the same workload on the warm-up
    boards: nothing one run caches can serve the next, since every run is a new process.

    The run starts at the same phase of the garbage collector on both sides (``gc.collect()`` first, outside the
    timed run; the run's own collections are still timed). The set-up leaves the collector's counters wherever
    its allocations happen to put them, and the interpreter's free lists as full or as empty as its imports left
    them: cb83492's set-up imports OR-Tools and fills the tuple free lists, ours does not, so our run's freed
    tuples went to the free lists uncounted, the young generation's count rose to 2 000 over the run, against
    300, and one of its collections took in the set-up's survivors (render: 0.85 ms of a 19 ms run, three
    collections against none). Measured in the render row's child, CPU ms, alternately, 6-7 runs each: with the
    collector off ours 18.2-19.3 against 19.1-20.7; on, without a collection first, 19.3-20.7 against 18.8-19.6;
    with it, 17.5-19.5 against 18.1-18.9."""
    with open(data_path) as f:
        data = json.load(f)
    workloads(data["warm"])[name]()()
    run = workloads(data)[name]()
    other_threads_quiet()
    gc.collect()
    t0 = time.process_time()
    run()
    return time.process_time() - t0


def other_threads_quiet(window: float = 0.02, bound: float = 2.0) -> float:
    """Wait until the process's other threads use no CPU over ``window`` seconds (at most ``bound`` seconds);
    return how long it waited. Importing numpy starts OpenBLAS's worker thread, which then spins for about 0.1 s of
    CPU (measured here: 87-92 ms after ``import trample`` in both versions, with no matrix product asked); a
    workload timed within that tenth of a second after its imports counts that spin as its own (the ``count``
    and ``check`` rows, whose warm-up is shorter than the spin when ``import trample`` is quick, read 1.3-1.8
    against 1.0 in instructions). The CPU of every thread is still counted in the run itself."""
    start = time.monotonic()
    while time.monotonic() - start < bound:
        before = time.process_time() - time.thread_time()
        time.sleep(window)  # a poll of the condition below, not a guess at how long it takes
        if time.process_time() - time.thread_time() - before < window / 20:
            break
    return time.monotonic() - start


def child_ir(name: str, data_path: str, k: int) -> None:
    """The workload ``name`` after its warm-up and set-up, then run ``k`` times (for :func:`instructions`)."""
    with open(data_path) as f:
        data = json.load(f)
    workloads(data["warm"])[name]()()
    run = workloads(data)[name]()
    for _ in range(k):
        run()


def instructions(python: str, script: str, name: str, data_path: str) -> tuple[int, int] | None:
    """Instructions of the first and of the second run of workload ``name`` in a child, under callgrind: the child
    with one run less the child with none (the run :func:`child` times: the boards' caches cold), and the child
    with two runs less the child with one (a warm run); None when valgrind is not installed."""
    if shutil.which("valgrind") is None:
        return None
    counts = []
    with tempfile.TemporaryDirectory() as tmp:
        for k in (0, 1, 2):
            out = subprocess.run(
                [
                    "valgrind",
                    "--tool=callgrind",
                    f"--callgrind-out-file={tmp}/cg{k}",
                    python,
                    script,
                    "--child-ir",
                    name,
                    data_path,
                    str(k),
                ],  # fmt: skip
                capture_output=True,
                text=True,
                check=True,
                # the same set and dict orders in every child; OpenBLAS without its worker thread, whose spin
                # (valgrind runs the threads one at a time) added a different number of instructions to each child
                env={**os.environ, "PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1"},
            )
            found = re.search(r"Collected : (\d+)", out.stderr)
            if found is None:
                return None
            counts.append(int(found.group(1)))
    return counts[1] - counts[0], counts[2] - counts[1]


def run_child(python: str, script: str, name: str, data_path: str) -> float:
    """CPU seconds of one child's measured run (``python script --child name data_path``)."""
    out = subprocess.run(
        ["nice", "-n", "10", python, script, "--child", name, data_path], capture_output=True, text=True, check=True
    )
    return float(out.stdout.strip().splitlines()[-1])


def bytecode_current(python: str) -> None:
    """Write the bytecode of ``python``'s trample where its sources are newer (``compileall``, which writes even under
    ``PYTHONDONTWRITEBYTECODE``). A checkout edited under that setting keeps stale ``.pyc`` files; each child then
    compiles those modules again at its imports, and the garbage and memory that leaves made the timed run of the
    small rows 3-70 % slower (check: 0.043-0.061 s against 0.036-0.038 s with the bytecode current)."""
    code = (
        "import compileall, os, trample, trample.models as m\n"
        "for x in (trample, m): compileall.compile_dir(os.path.dirname(x.__file__), quiet=1)"
    )
    subprocess.run([python, "-c", code], check=True)


def main() -> None:
    fd, data_path = tempfile.mkstemp(suffix=".json")
    with os.fdopen(fd, "w") as f:
        json.dump(make_data(), f)
    against = os.environ.get("BASE_PYTHON")  # cb83492's install: its children measured now, alternately with ours
    for python in (sys.executable, *([against] if against else [])):
        bytecode_current(python)
    where = "measured now, alternately" if against else "measured on this machine (docstring)"
    print(f"CPU s of one run in a fresh child process, median of {REPS}; cb83492: {where}")
    print(f"{'path':<30}{'now':>9}{'cb83492':>9}{'ratio':>7}  goal")
    only = [r.strip() for r in os.environ.get("ROWS", "").split(",") if r.strip()]
    for name in workloads({}):
        if only and not any(r in name for r in only):
            continue
        ours, theirs = [], []
        for _ in range(REPS):
            if against:
                theirs.append(run_child(against, __file__, name, data_path))
            ours.append(run_child(sys.executable, __file__, name, data_path))
        t = statistics.median(ours)
        base = statistics.median(theirs) if against else BASELINE.get(name)
        if base is None:
            print(f"{name:<30}{t:9.3f}{'-':>9}{'-':>7}")
            continue
        ratio = t / base
        print(f"{name:<30}{t:9.3f}{base:9.3f}{ratio:7.2f}  <= 1.0 ({'met' if ratio <= 1.0 else 'NOT met'})", flush=True)
        if against and os.environ.get("BENCH_IR") == "1":
            mine, theirs_ir = (instructions(py, __file__, name, data_path) for py in (sys.executable, against))
            if mine is not None and theirs_ir is not None:
                for k, label in enumerate(("  instructions, 1st run", "  instructions, 2nd run")):
                    r = mine[k] / theirs_ir[k]
                    print(f"{label:<30}{mine[k] / 1e6:9.1f}{theirs_ir[k] / 1e6:9.1f}{r:7.2f}  (10^6)", flush=True)


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "--child":
        print(child(sys.argv[2], sys.argv[3]))
    elif len(sys.argv) >= 2 and sys.argv[1] == "--child-ir":
        child_ir(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif len(sys.argv) >= 2 and sys.argv[1] == "--data":
        with open(sys.argv[2], "w") as f:
            json.dump(make_data(), f)
    else:
        main()
