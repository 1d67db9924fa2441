"""Time limits of a batch worked on a process pool (``--backend process``, trample.shard.map_documents; issue 21):
each document gets its own deadline, the command does not wait for a worker past it (the document is answered as
stopped, the worker killed), the lines come in order as they finish, and Ctrl-C keeps the lines written.

No sleeps and no timing assertions: the parent's clock is fake where a deadline must pass
(``trample.limits.monotonic``, forked into the workers as well), a stuck worker stands for a document that does not
notice its limit (native code), and real processes only have generous bounds against a hang.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from test_perf_paths import independent
from waiting import wait_until

from trample import Combat, limits
from trample.limits import CommandLimit, Deadline, per_document
from trample.shard import count_documents, map_documents

ROOT = Path(__file__).resolve().parents[2]


def _task(items, marker, deadline=None):
    """A worker task: ``"fast"`` answered at once; ``"stuck"`` never returns (a document that does not see its
    limit); ``"die"`` ends its worker process abruptly. The deadline each document was given is answered too."""
    out = []
    for where, doc in items:
        if doc == "stuck":
            Path(marker).touch()  # the parent's clock jumps once the stuck document is being worked
            threading.Event().wait()
        if doc == "die":
            os._exit(3)
        out.append(("ok", where, None if deadline is None else deadline.seconds))
    return out


def _clock_after(monkeypatch, marker: Path) -> None:
    """The parent's clock: 0 until a worker has started the stuck document, then far past every deadline."""
    monkeypatch.setattr(limits, "monotonic", lambda: 1e9 if marker.exists() else 0.0)


def test_a_document_past_its_deadline_is_answered_and_its_worker_killed(tmp_path, monkeypatch):
    marker = tmp_path / "started"
    _clock_after(monkeypatch, marker)
    docs = [("line 1", "fast"), ("line 2", "stuck"), ("line 3", "fast")]
    got = list(map_documents(_task, docs, str(marker), "tested", workers=1, time_limit=5.0))
    assert got[0] == ("ok", "line 1", 5.0)  # one document a task, with its own deadline of the limit's seconds
    # line 2 never noticed its limit; line 3 waited behind it on the one worker: both past their deadlines
    assert got[1:] == [("late", f"line {n}: stopped at the time limit of 5 s") for n in (2, 3)]
    # the stuck worker was killed, not waited for: gone once the kill lands (a condition, not a sleep)
    assert wait_until(lambda: multiprocessing.active_children() == [])


def test_deadlines_by_wave_of_documents(monkeypatch):
    """Document i of a batch on W workers must finish by start + (i // W + 1) x limit (the pool stands in: the
    deadlines handed out are what is looked at)."""
    monkeypatch.setattr(limits, "monotonic", lambda: 100.0)
    seen = []

    class Pool:
        def submit(self, task, group, options, slot):
            seen.append(slot.at)
            return _Done([("ok", group[0][0], slot.seconds)])

        def shutdown(self, **kw):
            pass

    monkeypatch.setattr("trample.shard._process_pool", lambda size: Pool())
    docs = [(f"line {k}", "fast") for k in range(1, 6)]
    got = list(map_documents(_task, docs, "", "tested", workers=2, time_limit=3))
    assert seen == [103.0, 103.0, 106.0, 106.0, 109.0]
    assert got == [("ok", f"line {k}", 3.0) for k in range(1, 6)]


class _Pool:
    """A process pool's stand-in: its tasks answered at once, its shutdowns recorded."""

    def __init__(self):
        self.shutdowns: list[dict] = []

    def submit(self, task, group, options, *slot):
        return _Pending() if group[0][1] == "stuck" else _Done(task(group, options, *slot))

    def shutdown(self, **kw):
        self.shutdowns.append(kw)


def test_a_finished_stream_shuts_its_pool_down_and_a_closed_one_ends_it(monkeypatch):
    """Read to its last answer (map_documents reads no further: the stream is closed there), the pool is shut down
    with its workers joined -- not killed: an ended pool's management thread closes its wake-up pipe while the
    interpreter's exit may write to it (CPython 3.11's 'Bad file descriptor' on stderr at exit). Closed before
    its last answer (Ctrl-C, a reader that stops), the pool is ended: its tasks cancelled, its workers killed."""
    pools: list[_Pool] = []
    monkeypatch.setattr("trample.shard._process_pool", lambda size: pools.append(_Pool()) or pools[-1])
    docs = [(f"line {k}", "fast") for k in range(1, 4)]
    for limit in (None, 600):
        assert len(list(map_documents(_task, docs, "", "tested", workers=2, time_limit=limit))) == 3
        assert pools[-1].shutdowns == [{"wait": True}]
        stream = map_documents(
            _task, [docs[0], ("line 2", "stuck")], "", "tested", workers=2, time_limit=limit, chunk=1
        )
        next(stream)
        stream.close()
        assert pools[-1].shutdowns == [{"wait": False, "cancel_futures": True}]


def test_a_real_pool_read_to_the_end_exits_cleanly(tmp_path):
    """The command line over a pool: every line answered, nothing on stderr but the bad line's message, at every
    try (the exit's race was one run in hundreds: a few runs check the path, not the race)."""
    batch = tmp_path / "b.jsonl"
    batch.write_text("\n".join([json.dumps(independent(2, power=3)), "not json", json.dumps(independent(1))]) + "\n")
    run = [sys.executable, "-m", "trample", "solve", str(batch), "--objective", "lethal"]
    run += ["--backend", "process", "--workers", "2"]
    for _ in range(3):
        done = subprocess.run(run, capture_output=True, text=True, timeout=300, cwd=ROOT)
        assert len(done.stdout.splitlines()) == 3 and done.returncode == 2
        assert done.stderr == "trample: line 2: not JSON: Expecting value at line 1 column 1\n"


class _Pending:
    """A future still running."""

    def done(self) -> bool:
        return False


class _Done:
    """A finished future."""

    def __init__(self, value):
        self.value = value

    def done(self) -> bool:
        return True

    def result(self):
        return self.value


def test_a_document_already_past_its_limit_starts_no_pool(monkeypatch):
    """The command's start-up took the first documents' limit: they are answered at once, no worker started."""
    monkeypatch.setattr(CommandLimit, "_live", [])
    limit = CommandLimit(2.0)
    limit.deadline = Deadline(2.0, start=limits.monotonic() - 60)  # the command started a minute ago
    monkeypatch.setattr("trample.shard._process_pool", pytest.fail)
    got = list(
        map_documents(_task, [("line 1", "fast"), ("line 2", "fast")], "", "tested", workers=2, time_limit=limit)
    )
    assert got == [("late", f"line {n}: stopped at the time limit of 2 s") for n in (1, 2)]


def test_a_worker_that_dies_is_an_honest_line(tmp_path):
    got = list(map_documents(_task, [("line 1", "die")], str(tmp_path / "m"), "tested", workers=1, time_limit=600))
    assert len(got) == 1 and got[0][0] == "lost" and got[0][1].startswith("line 1: not tested: ")
    assert wait_until(lambda: multiprocessing.active_children() == [])


def test_command_limit_is_per_document_off_the_pool():
    """A command's limit given to the serial backend (and to Dask's workers): its seconds, counted afresh for each
    document -- its own deadline (from the command's start, in this process's clock) had every later document of
    a batch stopped at once."""
    limit = CommandLimit(600.0)
    try:
        limit.deadline = Deadline(600.0, start=limits.monotonic() - 3600)  # long past
        assert per_document(limit) == 600.0 and type(per_document(limit)) is float
        docs = [(f"line {k + 1}", independent(1 + k % 3, power=2 + k)) for k in range(3)]
        got = list(count_documents(docs, backend="serial", time_limit=limit))
        assert got == [("count", Combat(d).count()) for _, d in docs]  # answers unchanged
    finally:
        CommandLimit._live.remove(limit)
    assert per_document(2.5) == 2.5 and per_document(None) is None


# -- the command line -----------------------------------------------------------------------------------------


def _hard_board() -> dict:
    sys.path.insert(0, str(ROOT))
    from benchmarks.boards import random_sharing

    return random_sharing(14, 14, per=5, seed=0)  # over 20 s to count (four blockers each: 0.6 s since the dense joins)


def test_cli_pool_batch_answers_every_line_at_its_limit(tmp_path):
    batch = tmp_path / "b.jsonl"
    small = independent(2)
    batch.write_text("\n".join(json.dumps(d) for d in (small, _hard_board(), small)) + "\n")
    proc = subprocess.run(
        [sys.executable, "-m", "trample", "count", str(batch), "--backend", "process", "--workers", "2"]
        + ["--time-limit", "0.2"],
        capture_output=True,
        text=True,
        timeout=120,  # only a hang: the pool waited for its worker
        cwd=ROOT,
    )
    assert proc.returncode == 1, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(lines) == 3
    stopped = {"count": None, "complete": False, "time_limit": 0.2}  # count's own line at its limit
    assert lines[1] == stopped
    for line in (lines[0], lines[2]):  # a small board: counted, or stopped as honestly (the command's start-up can
        assert line in ({"count": Combat(small).count()}, stopped)  # take its 0.2 s on a loaded machine)
    assert "trample: line 2: stopped at the time limit of 0.2 s; no count (complete: false)\n" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("command", ["count", "solve"])
def test_a_batch_line_at_its_limit_is_the_same_in_process_and_on_every_backend(tmp_path, command):
    """The hard line of a batch, stopped at its limit: the same result line and the same standard-error line
    (naming its place) whether the batch runs in this process, on the serial backend or on a process pool, and
    the same exit code. count: ``{"count": null, "complete": false, "time_limit": S}``; solve: status unknown
    (its time_ms aside)."""
    from benchmarks.boards import chained

    hard = _hard_board() if command == "count" else chained(10)  # a whole combat of ten chained tramplers: minutes
    batch = tmp_path / "b.jsonl"
    batch.write_text("\n".join(json.dumps(d) for d in (independent(2), hard)) + "\n")
    words = [sys.executable, "-m", "trample", command, str(batch), "--time-limit", "1"]
    if command == "solve":
        words += ["--objective", "lethal,max-kills,min-overkill"]
    seen = []
    for backend in ([], ["--backend", "serial"], ["--backend", "process", "--workers", "2"]):
        proc = subprocess.run(words + backend, capture_output=True, text=True, timeout=300, cwd=ROOT)
        line = json.loads(proc.stdout.splitlines()[1])
        line.pop("time_ms", None)
        said = [x for x in proc.stderr.splitlines() if x.startswith("trample: line 2")]
        seen.append((line, said, proc.returncode))
    if command == "count":
        want = {"count": None, "complete": False, "time_limit": 1.0}
        said = ["trample: line 2: stopped at the time limit of 1 s; no count (complete: false)"]
    else:
        want, said = {"status": "unknown", "assignment": None, "objectives": {}}, []
    assert seen == [(want, said, 1)] * 3


def _children(pid: int) -> set[int]:
    out: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            out |= {int(c) for c in (task / "children").read_text().split()}
        except OSError:
            pass
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.parametrize("command", [["count"], ["solve", "--objective", "max-damage"]])
def test_sigint_in_a_pool_batch_keeps_the_lines_written(tmp_path, command):
    """Ctrl-C while the pool works the batch's hard line: the lines finished before it are kept whole, nothing
    claims the batch complete (fewer lines than input lines), one line on standard error, exit 130, and the
    workers are gone."""
    small = [independent(1 + k) for k in range(3)]
    batch = tmp_path / "b.jsonl"
    batch.write_text("\n".join(json.dumps(d) for d in [*small, _hard_board(), small[0]]) + "\n")
    out = tmp_path / "out.jsonl"
    words = [sys.executable, "-m", "trample", *command[:1], str(batch), *command[1:]]
    words += ["--backend", "process", "--workers", "1", "--time-limit", "600"]
    with open(out, "w") as fh:
        proc = subprocess.Popen(words, stdout=fh, stderr=subprocess.PIPE, text=True, cwd=ROOT)
        try:
            wait_until(lambda: out.read_text().count("\n") >= 3, proc=proc)  # the small lines, then the hard one
            workers = _children(proc.pid)
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=120)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert proc.returncode == 130, err
    lines = out.read_text().splitlines()
    assert len(lines) == 3 and out.read_text().endswith("\n")
    alone = tmp_path / "small.jsonl"
    alone.write_text("\n".join(json.dumps(d) for d in small) + "\n")
    plain = subprocess.run(
        [sys.executable, "-m", "trample", *command[:1], str(alone), *command[1:]],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert lines == plain.stdout.splitlines() or all(  # solve's lines hold their time_ms: the same but for it
        {**json.loads(a), "time_ms": 0} == {**json.loads(b), "time_ms": 0}
        for a, b in zip(lines, plain.stdout.splitlines(), strict=True)
    )
    assert err.count("\n") == 1 and "interrupted" in err and "3 result lines written" in err, err
    assert workers and wait_until(lambda: not any(_alive(w) for w in workers))


def test_one_count_shared_by_a_pool_ends_at_its_limit(tmp_path):
    """`count FILE.json --backend process` (one damage step's count shared by the workers): when the limit passes
    while the command waits for its pool, the watchdog answers and the workers are killed before the exit (the
    exit joined them, and they waited for tasks for ever: the command never ended)."""
    board = tmp_path / "hard.json"
    board.write_text(json.dumps(_hard_board()))
    proc = subprocess.run(
        [sys.executable, "-m", "trample", "count", str(board), "--backend", "process", "--workers", "2"]
        + ["--time-limit", "0.5"],
        capture_output=True,
        text=True,
        timeout=120,  # only a hang
        cwd=ROOT,
    )
    assert proc.returncode == 1, proc.stderr
    assert json.loads(proc.stdout) == {"count": None, "complete": False, "time_limit": 0.5}
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


RELEASE = threading.Event()  # lets the Dask test's stuck task end once the test has its answers


def _dask_task(items, options):
    """A Dask worker task (one document): ``"stuck"`` waits until the test releases it (a document that does
    not see its limit); any other document is answered at once."""
    if items[0][1] == "stuck":
        RELEASE.wait(120)
    return [("ok", items[0][0], None)]


@pytest.mark.slow
def test_a_dask_batch_does_not_wait_past_its_bound():
    """On Dask with a time limit, one document a task; the client waits at most ceil(n / worker threads) x S (and
    trample.shard.DASK_GRACE) from handing them out: the stuck document is answered as past its limit, the
    others with their answers, in order."""
    distributed = pytest.importorskip("distributed")
    from clusters import local_cluster

    docs = [("line 1", "fast"), ("line 2", "stuck"), ("line 3", "fast")]
    RELEASE.clear()
    with local_cluster(distributed) as cluster:
        try:
            got = list(
                map_documents(
                    _dask_task, docs, None, "tested", backend="dask", scheduler=cluster.scheduler_address, time_limit=3
                )
            )
        finally:
            RELEASE.set()
    assert got == [("ok", "line 1", None), ("late", "line 2: stopped at the time limit of 3 s"), ("ok", "line 3", None)]


def _wait_for_ever(event) -> None:
    event.wait()


def test_ending_the_pools_kills_a_worker_started_outside_their_lists():
    # the watchdog's abandon (trample.shard._end_pools) once left a command hanging at its exit: a worker the main
    # thread was still starting was not in the pool's list of processes, waited for tasks, and the exit joined it;
    # every child process still alive is killed too (here one no pool knows of)
    import multiprocessing

    from trample import shard

    ctx = multiprocessing.get_context("spawn")
    never = ctx.Event()
    proc = ctx.Process(target=_wait_for_ever, args=(never,))
    proc.start()
    try:
        shard._end_pools()
        proc.join(60)  # only a hang
        assert not proc.is_alive()
        assert proc.exitcode is not None and proc.exitcode < 0  # killed, not ended by itself
    finally:
        if proc.is_alive():
            proc.kill()
