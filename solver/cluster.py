"""Dask (``--backend dask``) as the commands use it: quiet, and never waiting for workers that are gone.

- :func:`quiet`: while trample's tasks run, distributed's loggers (in this process, and in the worker processes a
  local cluster starts: ``DASK_LOGGING__DISTRIBUTED``) and its warnings say nothing, so that standard error holds
  the commands' own lines only (no nanny tracebacks on a normal run or on Ctrl-C). The levels are restored after.
- :func:`completed`: the futures as they finish, watched. When no worker has been connected for ``lost_after``
  seconds (every worker died: killed, out of memory, their machine gone; a local cluster's nannies restart a worker
  that dies, so this means they are gone too), or a task's worker died more times than Dask allows
  (``KilledWorker``), or the scheduler cannot be reached, it raises :class:`WorkersLost` -- a
  :class:`trample.limits.LimitReached`, so a command stops with one line and exit 1 and keeps what was finished;
  given a time (``until``), it raises :class:`Overdue` once that has passed with tasks still running.

distributed is imported only when these run (``pip install 'trample[dask]'``).
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import warnings
from collections.abc import Iterator, Sequence

from .limits import LimitReached, monotonic

#: where a batch count or an enumeration in shards runs (``--backend``; trample.shard)
BACKENDS = ("process", "dask", "serial")
LOST_AFTER = 10.0  # seconds without a connected worker before the work is given up (docs/scale.md)
LOOK_EVERY = 0.5  # seconds between two looks at the scheduler's workers while tasks run
LOGGERS = ("distributed", "tornado")
# A loaded machine starts workers slowly: connections get 120 s, not Dask's 30 s (a cluster that did not start in
# time was "Nanny failed to start" with a traceback, issue 24); a dead worker's closed socket is still seen at once.
PATIENT = {"distributed.comm.timeouts.connect": "120s", "distributed.comm.timeouts.tcp": "120s"}
ENVIRONMENT = {
    "DASK_LOGGING__DISTRIBUTED": "critical",
    "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "120s",
    "DASK_DISTRIBUTED__COMM__TIMEOUTS__TCP": "120s",
}


class WorkersLost(LimitReached):
    """The Dask workers are gone and the work cannot be finished; ``str(err)`` says why, in one line.
    ``finished``: the results that did finish, by position (:func:`gather` fills it in)."""

    def __init__(self, message: str, finished: dict[int, object] | None = None) -> None:
        super().__init__(message)
        self.finished: dict[int, object] = {} if finished is None else finished


@contextlib.contextmanager
def quiet():
    """distributed's loggers and warnings silenced in this process and in the worker processes started inside the
    block, and its connection timeouts made patient (:data:`PATIENT`); all restored after -- but the loggers'
    levels only when the block ends normally: left by an exception (Ctrl-C, a time limit, lost workers) the
    cluster's teardown can go on in its loop thread after it, and what it logs then ("process ... exit status was
    already read") is not the command's to print."""
    import dask

    levels = {name: logging.getLogger(name).level for name in LOGGERS}
    env = {name: os.environ.get(name) for name in ENVIRONMENT}
    os.environ.update(ENVIRONMENT)  # worker processes read their configuration (logging, timeouts) at start
    with warnings.catch_warnings(), dask.config.set(PATIENT):
        warnings.filterwarnings("ignore", module=r"(distributed|dask|tornado)(\.|$)")
        ended = False
        try:
            for name in LOGGERS:
                logging.getLogger(name).setLevel(logging.CRITICAL + 10)
            yield
            ended = True
        finally:
            for name, level in levels.items() if ended else ():
                logging.getLogger(name).setLevel(level)
            for name, value in env.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value


PRELOAD = "trample.cluster"  # the local cluster's workers run dask_setup below when they start (and restart)


def dask_setup(worker) -> None:
    """A local cluster's worker process ignores SIGINT: Ctrl-C in a terminal reaches the whole process group, and
    the command answers it (one line, exit 130) and closes the cluster; the workers printed a traceback each.
    (A worker still importing distributed, in the first seconds of the cluster, has not run this yet.)"""
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        if hasattr(signal, "pthread_sigmask"):  # born with it blocked (_deaf_loop): ignored now, so let it through
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _deaf_loop():
    """distributed's event loop for a local cluster, its thread started with SIGINT blocked: the threads it starts
    (the one that spawns the worker processes among them) inherit the mask, and so do the worker processes (a
    signal mask survives fork and exec), so that Ctrl-C stays pending in a worker until :func:`dask_setup` ignores
    it -- a worker still importing distributed printed a KeyboardInterrupt traceback (or "Fatal Python error"),
    and its nanny "Nanny failed to start". Only that thread is masked: the command answers Ctrl-C at once. None
    where there are no signal masks."""
    import signal

    if not hasattr(signal, "pthread_sigmask"):
        return None
    from multiprocessing import resource_tracker

    from distributed.utils import LoopRunner

    # started before the mask: the cluster would start it from its event loop, and multiprocessing unblocks
    # SIGINT in the thread that starts it (resource_tracker.ensure_running), so the workers would hear it again
    resource_tracker.ensure_running()
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        runner = LoopRunner(asynchronous=False)
        runner.start()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
    # a cluster cut short while it starts leaves failed tasks that asyncio reports when they are collected, after
    # the command's last line and outside quiet() ("Task exception was never retrieved ... Nanny failed to
    # start" with a traceback): this loop's exceptions are distributed's, silenced as its loggers are
    runner.loop.asyncio_loop.set_exception_handler(_ignore_loop_exception)
    return runner


def _ignore_loop_exception(loop, context) -> None:
    pass


def local_options(workers: int, port: int = 0, host: str = "127.0.0.1") -> dict:
    """The options of a local cluster (``--backend dask`` without ``--scheduler``, and ``trample cluster``):
    ``workers`` worker processes of one thread on ``host``, the scheduler on ``port`` (0: a free port), no
    dashboard (its HTTP server on a free port, not 8787: a user's own dashboard). Worker processes, even for one:
    a worker thread in the command's process started in 0.2 s instead of 3 s, but Ctrl-C then waited for its
    running task (30 s measured, Dask's close timeout) -- a process is killed at once (docs/scale.md)."""
    return {
        "n_workers": workers,
        "threads_per_worker": 1,
        "processes": True,
        "host": host,
        "scheduler_port": port,
        "dashboard_address": None,
        "scheduler_kwargs": {"dashboard_address": f"{host}:0"},
    }


def start_local(LocalCluster, **options):
    """``LocalCluster(**options)``, with its workers' preload (:func:`dask_setup`), on an event loop whose workers
    are born deaf to Ctrl-C until they ignore it (:func:`_deaf_loop`). When the start is cut short (Ctrl-C, a
    worker dying), the half-started cluster is closed quietly and forgotten, and the error raised: distributed's
    exit hook printed a traceback closing it ("Exception ignored in atexit callback ... Status.init")."""
    from distributed.deploy.spec import SpecCluster

    before = set(SpecCluster._instances)
    runner = _deaf_loop()
    cut_short = False
    try:
        if runner is not None:
            options["loop"] = runner.loop
        return LocalCluster(preload=[PRELOAD], **options)
    except BaseException:
        cut_short = True
        settle_spawns()  # before the close: closing frees the semaphores a worker still unpickling names
        for half in set(SpecCluster._instances) - before:
            with contextlib.suppress(BaseException):
                half.close(timeout=10)
            SpecCluster._instances.discard(half)
        raise
    finally:
        if runner is not None:  # the cluster holds the loop now (its close stops it), or nothing does
            runner.stop()
        if cut_short:
            settle_spawns()


SETTLE_WITHIN = 10.0  # seconds a cut-short start waits for the worker processes being spawned to get their data


def half_spawned() -> set[int]:
    """The worker processes this process has created whose start is not finished: a multiprocessing ``spawn``
    child exists (``spawn_main`` in its command line) and either its parent has not yet written it what to run (the
    process is in ``multiprocessing.active_children()`` only after that) or it is still reading it (the pipe named
    ``pipe_handle=N`` on its command line is open in it until its data are read and unpickled). Empty where there
    is no ``/proc``."""
    import multiprocessing

    mine = os.getpid()
    try:
        pids = [int(pid) for pid in os.listdir("/proc") if pid.isdigit()]
    except OSError:
        return set()
    spawned: dict[int, bytes] = {}
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                ppid = int(fh.read().rsplit(b")", 1)[1].split()[1])
            if ppid != mine:
                continue
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                cmdline = fh.read()
            if b"spawn_main" in cmdline:
                spawned[pid] = cmdline
        except (OSError, ValueError, IndexError):
            continue
    if not spawned:
        return set()
    known = {child.pid for child in multiprocessing.active_children()}
    return {pid for pid, cmdline in spawned.items() if pid not in known or _reading_its_data(pid, cmdline)}


def _reading_its_data(pid: int, cmdline: bytes) -> bool:
    """Whether spawned child ``pid`` still holds open the pipe its start-up data come through. It unpickles them
    from that pipe, and the pickle names the parent's semaphores: one the parent has unlinked meanwhile (closing a
    half-started cluster frees them) fails its start with "FileNotFoundError" and a traceback (``SemLock._rebuild``)."""
    found = re.search(rb"pipe_handle=(\d+)", cmdline)
    return found is not None and os.path.lexists(f"/proc/{pid}/fd/{int(found.group(1))}")


def settle_spawns(within: float = SETTLE_WITHIN) -> bool:
    """Wait (at most ``within`` seconds) until no worker process is half spawned (:func:`half_spawned`); True when
    none is. A local cluster's start cut short by Ctrl-C ends the command at once (``os._exit``), and a worker
    process whose parent was still writing it its start-up data (distributed starts them from a daemon thread)
    read an empty pipe and printed "EOFError: Ran out of input" with a traceback after the command's last line;
    one still unpickling them when the half-started cluster's close freed the semaphores they name failed in
    ``SemLock._rebuild`` (:func:`_reading_its_data`). Once it has read its data, a worker whose parent is gone exits
    quietly (distributed watches the parent's pipe)."""
    import time

    until = monotonic() + within
    while half_spawned():
        if monotonic() >= until:
            return False
        time.sleep(0.005)  # polling the processes' state, not a wait for time to pass
    return True


def connected_workers(client) -> int:
    """How many workers the scheduler has now (raises OSError when it cannot be asked)."""
    return int(client.scheduler_info(n_workers=0).get("n_workers", 0) or 0)


class Overdue(WorkersLost):
    """The work's time is up (:func:`completed`'s ``until`` passed): the tasks not finished are not waited for."""


def completed(
    client, futures: Sequence, lost_after: float = LOST_AFTER, until: float | None = None, more=None
) -> Iterator:
    """Yield each of ``futures`` once it has finished (in the order they finish); its result is ready. Raises
    :class:`WorkersLost` when the work cannot be finished (see the module), :class:`Overdue` once ``until``
    (trample.limits.monotonic's clock) has passed with tasks still running, and a task's own exception as is.
    ``more``: called after the finished futures of each look are yielded, it returns futures submitted since,
    watched from then on (work fed as it finishes, a few tasks ahead of the workers)."""
    import asyncio  # here: distributed imports it anyway; the commands that run no cluster need not

    from distributed import wait
    from distributed.scheduler import KilledWorker

    pending = list(futures)
    total = len(pending)
    alone_since = None
    while pending:
        look = LOOK_EVERY if until is None else max(0.01, min(LOOK_EVERY, until - monotonic()))
        try:
            wait(pending, timeout=look, return_when="FIRST_COMPLETED")
        except (TimeoutError, asyncio.TimeoutError):
            pass
        still = []
        for fut in pending:
            if fut.status == "finished":
                yield fut
            elif fut.status in ("error", "cancelled"):
                try:
                    fut.result()
                except KilledWorker as err:
                    raise WorkersLost(
                        f"--backend dask: a task's worker died too often ({str(err).splitlines()[0][:160]}): "
                        f"{total - len(pending)} of {total} tasks finished"
                    ) from None
                except Exception as err:
                    if fut.status == "cancelled" or type(err).__name__ in ("CancelledError", "FutureCancelledError"):
                        raise WorkersLost(
                            f"--backend dask: a task was lost (its scheduler or workers went away): "
                            f"{total - len(pending)} of {total} tasks finished"
                        ) from None
                    raise
            else:
                still.append(fut)
        if more is not None:
            fresh = list(more())
            still += fresh
            total += len(fresh)
        pending = still
        if not pending:
            return
        if until is not None and monotonic() >= until:
            raise Overdue(f"--backend dask: {total - len(pending)} of {total} tasks finished by the time limit")
        try:
            workers = connected_workers(client)
        except Exception:  # noqa: BLE001 - the scheduler is gone or unreachable: the same outcome for the user
            workers = 0
        if workers:
            alone_since = None
        elif alone_since is None:
            alone_since = monotonic()
        elif monotonic() - alone_since >= lost_after:
            raise WorkersLost(
                f"--backend dask: every worker is gone (none connected for {lost_after:g} s): "
                f"{total - len(pending)} of {total} tasks finished"
            )


def gather(client, futures: Sequence, lost_after: float = LOST_AFTER, until: float | None = None) -> list:
    """The results of ``futures``, in order, watched as :func:`completed` watches them (WorkersLost and Overdue
    carry the results finished so far: ``err.finished``, a dict from position to result)."""
    where = {f.key: i for i, f in enumerate(futures)}
    finished: dict[int, object] = {}
    try:
        for fut in completed(client, futures, lost_after, until):
            finished[where[fut.key]] = fut.result()
    except WorkersLost as err:
        err.finished = finished
        raise
    return [finished[i] for i in range(len(futures))]
