"""Work beyond one process: enumeration in shards by canonical index range, and counting a batch in chunks, on a
local process pool (the default), a Dask LocalCluster, or an existing Dask scheduler.

The canonical order (docs/scale.md) makes every space shardable: shard ``k`` of ``N`` holds the rows of
indices ``count*k//N <= i < count*(k+1)//N``, generated from its first index on (the direct engine never builds
the rows before a shard's start), so the shards are disjoint and, concatenated in order, are exactly the whole
space. The counting programme is built once, in the client, and shipped to each worker once (:class:`Cargo`), so a task
carries only its range; any worker that can ``import trample`` (the same version) can run it. Shards can also
consume their rows where they are made (:func:`map_reduce`, :func:`count_where`, :func:`top_k`), and one count
can be shared (:func:`count_split`).

    >>> from trample.shard import enumerate_shards                                    # doctest: +SKIP
    >>> enumerate_shards(scenario, "out/", shards=8, backend="dask")                  # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import operator
import os
import pickle
import weakref
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from typing import Any, cast

import numpy as np

from . import cluster, limits
from .combat import Combat
from .documents import prefixed, scenario_from
from .engines import blocks_engine, elimination
from .engines.direct import ComponentDP, closed_form_count, component_lister
from .limits import Deadline, LimitReached, TimeLimit, deadline_of, per_document
from .models import FormatError, Step
from .rules import DamagePlan
from .whole import open_combat

BACKENDS = cluster.BACKENDS

BATCH_CHUNK = 50  # scenarios per task when counting a batch


def shard_ranges(total: int, shards: int) -> list[tuple[int, int]]:
    """``shards`` consecutive index ranges covering ``0..total`` (as equal as integers allow)."""
    if shards < 1:
        raise FormatError("--shards", f"expected a positive whole number, got {shards!r}")
    return [(total * k // shards, total * (k + 1) // shards) for k in range(shards)]


class Cargo:
    """Something built once in the client and shipped to every worker once (trample's counting programme: a plan
    whose components' programmes are built, or a count's tables): pickled, named by the hash of its bytes. A
    worker unpickles it on first use and keeps it (:func:`received`), so a task carries only its own range."""

    __slots__ = ("digest", "blob", "local")

    def __init__(self, obj: object):
        self.local = obj
        self.blob = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        self.digest = hashlib.blake2b(self.blob, digest_size=16).hexdigest()


KEEP = 2  # cargos a worker process keeps (the newest): a long-lived Dask worker serves one command after another
_RECEIVED: dict[str, object] = {}


def received(digest: str, blob: bytes | None = None) -> object:
    """The cargo named ``digest`` in this process: unpickled from ``blob`` the first time, then kept."""
    got = _RECEIVED.get(digest)
    if got is None:
        if blob is None:  # pragma: no cover - every backend delivers the cargo before the tasks
            raise RuntimeError(f"cargo {digest} was not shipped to this worker")
        got = pickle.loads(blob)
        while len(_RECEIVED) >= KEEP:
            _RECEIVED.pop(next(iter(_RECEIVED)))
        _RECEIVED[digest] = got
    return got


def _worker_start(digest: str | None = None, blob: bytes | None = None) -> None:
    """A process pool's initializer: the worker leaves signals to the command (:func:`_deaf_worker`), and the
    cargo, if any, is unpickled once per worker process."""
    _deaf_worker()
    if digest is not None:
        received(digest, blob)


def _deaf_worker() -> None:
    """A pool's worker process ignores Ctrl-C (a terminal sends it to the whole process group: the command
    answers it and ends its workers), dies of SIGTERM, and no longer writes the signals it gets into the
    command's signal pipe (a forked worker inherits the command's handlers and that pipe: its Ctrl-C read as the
    command's own)."""
    import signal

    with contextlib.suppress(ValueError, OSError):
        signal.set_wakeup_fd(-1)
    for sig, how in ((signal.SIGINT, signal.SIG_IGN), (signal.SIGTERM, signal.SIG_DFL)):
        with contextlib.suppress(ValueError, OSError):
            signal.signal(sig, how)


_POOLS: weakref.WeakSet = weakref.WeakSet()  # the process pools open now (ended if the watchdog ends the command)


def _process_pool(size: int, initargs: tuple = ()) -> Any:
    """A stdlib process pool of ``size`` workers started by :func:`_worker_start`. Should the command line's
    watchdog end the process while it is open (a limit passed while the main thread waited for it), its workers
    are killed first (:func:`_end_pools`): the exit joined them, and they waited for tasks for ever."""
    from concurrent.futures import ProcessPoolExecutor

    pool = ProcessPoolExecutor(max_workers=size, initializer=_worker_start, initargs=initargs)
    if _end_pools not in limits._ABANDON:
        limits.on_abandon(_end_pools)
    _POOLS.add(pool)
    return pool


def _end_pools() -> None:
    """End every process pool still open (:func:`_end_pool`), then kill any worker process still alive: one the
    main thread was starting (a pool starts its workers as tasks are handed out) when the watchdog took the pool's
    list would otherwise wait for tasks for ever, and the exit (multiprocessing's handler joins its children) with
    it. Only called as the command ends (:func:`trample.limits.on_abandon`)."""
    import multiprocessing

    for pool in list(_POOLS):
        _end_pool(pool)
    for proc in multiprocessing.active_children():
        with contextlib.suppress(Exception):
            proc.kill()
            proc.join(5)


def _close_pool(pool: Any) -> None:
    """Shut ``pool`` down once its tasks are done (the workers joined)."""
    pool.shutdown(wait=True)
    _POOLS.discard(pool)


def _placed(where: str, message: str) -> str:
    """A batch answer's message, after its place in the batch when it has one (``line 3: ...``)."""
    return f"{where}: {message}" if where else message


def _end_pool(pool: Any) -> None:
    """Shut ``pool`` down without waiting for its running tasks: its queued tasks cancelled, its workers killed
    (a task past its limit, or cut short by Ctrl-C, would hold the command until it ends)."""
    _POOLS.discard(pool)
    workers = list((getattr(pool, "_processes", None) or {}).values())  # the stdlib keeps them there (3.9-3.13)
    manager = getattr(pool, "_executor_manager_thread", None)  # (the shutdown forgets it) it closes the pool's
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in workers:
        with contextlib.suppress(Exception):
            proc.kill()
    for proc in workers:
        with contextlib.suppress(Exception):
            proc.join(5)
    if manager is not None:  # wake-up pipe as it ends: joined here, so the exit does not write to it as it closes
        with contextlib.suppress(Exception):
            manager.join(5)


def run_tasks(
    fn: Callable,
    tasks: Sequence,
    backend: str = "process",
    scheduler: str | None = None,
    workers: int | None = None,
    cargo: Cargo | None = None,
    task_seconds: float | None = None,
) -> list:
    """``[fn(*t) for t in tasks]``, in order, on the chosen backend: ``process`` (a stdlib process pool),
    ``dask`` (a LocalCluster on 127.0.0.1, or the scheduler at ``scheduler``, e.g. ``tcp://10.0.0.5:8786``),
    ``serial`` (this process). On Dask, distributed's logging is silenced while the tasks run, and when every
    worker is gone (or the local cluster cannot start) :class:`trample.cluster.WorkersLost` is raised (with
    ``finished``: the results of the tasks that finished, by position) instead of waiting for ever.

    ``cargo``: shipped once to every worker (process pool: its initializer; Dask: ``client.scatter(...,
    broadcast=True)``; serial: the object itself, not pickled) and the tasks called as ``fn(digest, blob, *t)``
    (``blob`` None where the worker already has it; :func:`received` gives the object either way).

    ``task_seconds`` (Dask): each task's time limit, counted on its worker. The client then waits for the tasks
    at most ``ceil(tasks / worker threads) * task_seconds`` (and :data:`DASK_GRACE`) from when it hands them out,
    and raises :class:`trample.cluster.Overdue` (with ``finished``) past it: a task that does not notice its
    limit (a native call) holds the command no longer."""
    if backend not in BACKENDS:
        raise FormatError("--backend", f"expected one of {', '.join(BACKENDS)}, got {backend!r}")
    if scheduler is not None and backend != "dask":
        raise FormatError("--scheduler", "only with --backend dask")
    if cargo is not None:
        tasks = [(cargo.digest, None, *t) for t in tasks]
    if backend == "serial" or not tasks:
        if cargo is None:
            return [fn(*t) for t in tasks]
        _RECEIVED[cargo.digest] = cargo.local
        try:
            return [fn(*t) for t in tasks]
        finally:
            _RECEIVED.pop(cargo.digest, None)
    if backend == "process":
        size = workers or min(len(tasks), os.cpu_count() or 1)
        pool = _process_pool(size, () if cargo is None else (cargo.digest, cargo.blob))
        try:
            out = list(pool.map(fn, *zip(*tasks)))
        except BaseException:  # Ctrl-C, a task's error: the running tasks are not waited for
            _end_pool(pool)
            raise
        _close_pool(pool)
        return out
    try:
        from dask.distributed import Client, LocalCluster
    except ModuleNotFoundError:
        raise FormatError("--backend", "dask is not installed: pip install 'trample[dask]'") from None
    # distributed's own logging silenced (the commands' lines only); every worker gone: WorkersLost, not a hang
    with cluster.quiet():
        if scheduler is not None:
            try:
                client = Client(scheduler, timeout="10s")
            except (OSError, TimeoutError) as err:
                raise FormatError("--scheduler", f"cannot reach {scheduler}: {str(err).splitlines()[0]}") from None
            with client:
                return _gather(client, fn, tasks, cargo, task_seconds)
        try:
            local = cluster.start_local(  # its workers leave Ctrl-C to the command
                LocalCluster, **cluster.local_options(workers or min(len(tasks), os.cpu_count() or 1))
            )
        except Exception as err:  # e.g. "Nanny failed to start." (a worker died while the cluster started)
            raise cluster.WorkersLost(f"--backend dask: the local cluster did not start: {_first_line(err)}") from None
        with local, Client(local) as client:
            return _gather(client, fn, tasks, cargo, task_seconds)


def _first_line(err: BaseException) -> str:
    return (str(err).splitlines() or [type(err).__name__])[0][:200]


#: seconds past a Dask batch's bound that the client waits for its last answers (they cross the network)
DASK_GRACE = 1.0


def _gather(client, fn: Callable, tasks: Sequence, cargo: Cargo | None = None, task_seconds=None) -> list:
    if cargo is not None:  # the bytes once to every worker; each task names them (resolved on the worker)
        blob = client.scatter(cargo.blob, broadcast=True, hash=False)
        tasks = [(t[0], blob, *t[2:]) for t in tasks]
    futures = client.map(fn, *zip(*tasks), pure=False)
    until = None
    if task_seconds is not None:
        slots = max(1, sum(client.nthreads().values()))
        until = limits.monotonic() + math.ceil(len(tasks) / slots) * task_seconds + DASK_GRACE
    try:
        return cluster.gather(client, futures, until=until)
    finally:
        client.cancel(futures)


# -- the programme, built once -------------------------------------------------------------------------------


def built_plan(combat: Combat) -> DamagePlan:
    """``combat``'s plan with the programme that lists each component built (what the blocks read from their first
    index: :func:`~trample.engines.direct.component_lister`, the source lister where it lists, else the column
    programme), ready to ship: a worker given it only generates its index range. The column programme is not built
    where the source lister lists (on random sharing graphs it took seconds that no shard read)."""
    plan = combat.plan
    for comp in plan.components:
        prog = component_lister(plan, comp)  # built and cached in the plan
        if isinstance(prog, ComponentDP):
            prog.numpy_tables()  # its numpy tables too
    return plan


def _blocks(plan: DamagePlan, start: int, stop: int) -> Iterator[np.ndarray]:
    engine = blocks_engine("direct")
    dtype = np.dtype(engine.dtype_for(max((s.damage for s in plan.sources), default=0)))
    return engine.plan_blocks(plan, dtype=dtype, start=start, stop=stop)


# -- enumeration in shards ---------------------------------------------------------------------------------


def write_shard(digest: str, blob: bytes | None, start: int, stop: int, path: str) -> dict:
    """Write rows ``start <= i < stop`` of the canonical order as one .npy matrix (a worker task; the plan is the
    cargo :func:`built_plan` shipped). The rows go to ``path`` + ``.part`` with plain writes, block after block,
    which is synced and then renamed to ``path``: a file under its own name is always whole (a task that fails
    removes its ``.part``; one killed half way leaves it). A memory map of the whole file cost twice the CPU (a
    page fault per page written, and ``msync``), and a file cut short by a kill kept its full size, its header
    promising rows never written."""
    plan = cast(DamagePlan, received(digest, blob))
    dtype = _row_dtype(plan)
    rows = stop - start
    header = {"descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": False, "shape": (rows, len(plan.columns))}
    at = 0
    with _whole(path, "wb") as fh:
        np.lib.format.write_array_header_1_0(fh, header)
        for block in _blocks(plan, start, stop):
            fh.write(np.ascontiguousarray(block, dtype=dtype).data)
            at += len(block)
        if at != rows:  # pragma: no cover - the count and the blocks agree
            raise AssertionError(f"shard {path}: {at} rows written, {rows} expected")
    return {"file": os.path.basename(path), "start": start, "stop": stop, "rows": rows}


def _space(scenario, side: str, limit: int | None) -> tuple[Combat, int, int]:
    combat = Combat(scenario, side=side, engine="direct")
    if combat.scenario.step == Step.COMBAT:  # pragma: no cover - Combat refuses it already
        raise FormatError("step", "shards are of one damage step")
    total = combat.count(engine="direct")
    return combat, total, total if limit is None else min(total, limit)


def _row_dtype(plan: DamagePlan) -> np.dtype:
    """The dtype of the plan's rows in a shard (the direct engine's: the smallest integer that holds a source's
    damage)."""
    return np.dtype(blocks_engine("direct").dtype_for(max((s.damage for s in plan.sources), default=0)))


def _writable(plan: DamagePlan, dtype: np.dtype, most: int, shards: int) -> None:
    """A shard of ``most`` rows can be a .npy file: numpy sizes an array in signed 64-bit bytes (a shard of a
    count past 2^63 failed in the worker with OverflowError, a traceback). Bad input otherwise, before any file."""
    width = max(1, len(plan.columns)) * dtype.itemsize
    if most * width > np.iinfo(np.int64).max:
        raise FormatError(
            "--shards",
            f"{shards} shards of up to {most:.3g} rows ({width} bytes each) are too large for .npy files: give "
            "--limit (the first rows only) or more shards",
        )


def enumerate_shards(
    scenario,
    out_dir: str,
    shards: int,
    side: str = "attacking",
    backend: str = "process",
    scheduler: str | None = None,
    workers: int | None = None,
    limit: int | None = None,
) -> dict:
    """Write the legal assignments as ``shards`` .npy files ``out_dir/shard-00000.npy``... (rows of consecutive
    canonical index ranges; the first ``limit`` only, if given) and ``out_dir/manifest.json`` (columns, dtype,
    count, each shard's file and range). Returns the manifest. The programme is built here and shipped to the
    workers once (:class:`Cargo`)."""
    combat, total, rows = _space(scenario, side, limit)
    ranges = shard_ranges(rows, shards)
    plan = combat.plan
    dtype = _row_dtype(plan)
    _writable(plan, dtype, max((b - a for a, b in ranges), default=0), shards)
    os.makedirs(out_dir, exist_ok=True)
    tasks = [(a, b, os.path.join(out_dir, f"shard-{k:05d}.npy")) for k, (a, b) in enumerate(ranges)]
    done = run_tasks(write_shard, tasks, backend, scheduler, workers, cargo=Cargo(built_plan(combat)))
    names = [s.source for s in plan.sources]
    manifest = {
        "count": total,
        "rows": rows,
        "columns": [[names[i], r] for i, r in plan.columns],
        "dtype": dtype.name,
        "order": "canonical (docs/scale.md): lexicographic per component, first component slowest",
        "shards": done,
    }
    with _whole(os.path.join(out_dir, "manifest.json"), "w", encoding="utf-8") as fh:
        fh.write(json.dumps(manifest) + "\n")
    return manifest


@contextlib.contextmanager
def _whole(path: str, mode: str, encoding: str | None = None) -> Iterator[Any]:
    """A file written as ``path`` + ``.part``, synced and renamed to ``path`` when the block ends: a shard or a
    manifest is there whole or not at all. An error or an interrupt in the block removes the ``.part``."""
    part = path + ".part"
    try:
        with open(part, mode, encoding=encoding) as fh:
            yield fh
            fh.flush()
            os.fdatasync(fh.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(part)
        raise
    os.replace(part, path)


# -- reducing on the workers ---------------------------------------------------------------------------------


def reduce_shard(digest: str, blob: bytes | None, start: int, stop: int, fn: Callable, reduce: Callable) -> Any:
    """``fn(block, first)`` of each block of rows ``start <= i < stop`` (``first``: the canonical index of the
    block's first row), folded left with ``reduce``; None for an empty range (a worker task)."""
    plan = cast(DamagePlan, received(digest, blob))
    acc: Any = None
    at = start
    for block in _blocks(plan, start, stop):
        value = fn(block, at)
        acc = value if at == start else reduce(acc, value)
        at += len(block)
    return acc


def map_reduce(
    scenario,
    fn: Callable[[np.ndarray, int], Any],
    reduce: Callable[[Any, Any], Any],
    shards: int = 1,
    side: str = "attacking",
    backend: str = "process",
    scheduler: str | None = None,
    workers: int | None = None,
    limit: int | None = None,
) -> Any:
    """Fold every legal assignment (the first ``limit``, if given) where it is generated: each worker calls
    ``fn(block, first)`` on its blocks of rows (numpy, over ``Combat(scenario).columns``, in the canonical order;
    ``first`` is the index of the block's first row) and folds the values with ``reduce``; the shards' values are
    folded in order here. Only the reduced values travel back, never rows. The result is the left fold over the
    blocks in canonical order, whatever the shards and backend (block boundaries differ: ``reduce`` must be
    associative, and ``fn`` consistent with it, as with count and top-k). None for an empty space.

    ``fn`` and ``reduce`` must be picklable for the ``process`` and ``dask`` backends (module-level functions or
    instances of module-level classes, not lambdas)."""
    combat, _, rows = _space(scenario, side, limit)
    tasks = [(a, b, fn, reduce) for a, b in shard_ranges(rows, shards) if b > a]
    parts = run_tasks(reduce_shard, tasks, backend, scheduler, workers, cargo=Cargo(built_plan(combat)))
    acc: Any = None
    for k, part in enumerate(parts):
        acc = part if k == 0 else reduce(acc, part)
    return acc


class CountWhere:
    """``fn`` of :func:`map_reduce` that counts the rows where ``predicate(block)`` (a boolean array) holds."""

    def __init__(self, predicate: Callable[[np.ndarray], np.ndarray]):
        self.predicate = predicate

    def __call__(self, block: np.ndarray, first: int) -> int:
        return int(np.count_nonzero(self.predicate(block)))


def count_where(scenario, predicate: Callable[[np.ndarray], np.ndarray], shards: int = 1, **options) -> int:
    """How many legal assignments ``predicate`` accepts (a picklable function of a block of rows returning one
    boolean per row), counted on the workers (:func:`map_reduce`'s options)."""
    return map_reduce(scenario, CountWhere(predicate), operator.add, shards=shards, **options) or 0


class TopK:
    """``fn`` and ``reduce`` of :func:`map_reduce` keeping the ``k`` best rows under ``score`` (a picklable
    function of a block returning one number per row): (scores, indices, rows), best first, ties to the smaller
    canonical index (stable sorts, and the parts folded in order)."""

    def __init__(self, score: Callable[[np.ndarray], np.ndarray], k: int):
        self.score, self.k = score, k

    def __call__(self, block: np.ndarray, first: int) -> tuple[np.ndarray, list[int], np.ndarray]:
        s = np.asarray(self.score(block))
        keep = np.argsort(-s, kind="stable")[: self.k]
        return s[keep], [first + int(i) for i in keep], block[keep]

    def merge(self, a: tuple, b: tuple) -> tuple[np.ndarray, list[int], np.ndarray]:
        s = np.concatenate([a[0], b[0]])
        keep = np.argsort(-s, kind="stable")[: self.k]  # a's rows come before b's: ties keep the smaller index
        idx = a[1] + b[1]
        return s[keep], [idx[i] for i in keep.tolist()], np.concatenate([a[2], b[2]])[keep]


def top_k(
    scenario, score: Callable[[np.ndarray], np.ndarray], k: int, shards: int = 1, **options
) -> list[tuple[Any, int, tuple[int, ...]]]:
    """The ``k`` legal assignments with the highest ``score`` (a picklable function of a block of rows returning
    one number per row), as ``(score, canonical index, row over Combat(scenario).columns)``, best first, ties to
    the smaller index; each worker keeps its own top ``k`` and only those travel (:func:`map_reduce`'s options)."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 0:
        raise FormatError("k", f"expected a non-negative whole number, got {k!r}")
    keeper = TopK(score, k)
    got = map_reduce(scenario, keeper, keeper.merge, shards=shards, **options)
    if got is None:
        return []
    scores, idx, rows = got
    return [(s, i, tuple(r)) for s, i, r in zip(scores.tolist(), idx, rows.tolist())]


# -- one count in parts --------------------------------------------------------------------------------------


def count_part(digest: str, blob: bytes | None, comp: int, lo: int, hi: int, seconds: float | None) -> int:
    """Component ``comp``'s contraction over entries ``lo:hi`` of its split table (a worker task)."""
    splits = cast(list, received(digest, blob))
    return elimination.count_part(splits[comp], lo, hi, Deadline(seconds))


def count_split(
    scenario,
    parts: int,
    side: str = "attacking",
    backend: str = "process",
    scheduler: str | None = None,
    workers: int | None = None,
    time_limit: TimeLimit = None,
) -> int:
    """One damage step's count, its counting shared by the workers: every component's tables are built here,
    and the contraction of each component that has joins is cut into ``parts`` by ranges of one table's entries
    (:func:`trample.engines.elimination.split_count`; the count is linear in each table), shipped once; the
    parts' counts are exact Python integers, summed here. The same number as ``Combat(scenario).count()``."""
    if isinstance(parts, bool) or not isinstance(parts, int) or parts < 1:
        raise FormatError("--shards", f"expected a positive whole number, got {parts!r}")
    deadline = deadline_of(time_limit)
    combat = Combat(scenario, side=side, engine="direct")
    plan = combat.plan
    splits, total = [], 1
    for comp in plan.components:
        known = closed_form_count(plan, comp) if not plan.options_in(comp) else None
        if known is not None:
            total *= known
            continue
        split = elimination.split_count(plan, comp, deadline)
        if split.tables:
            splits.append(split)
        else:
            total *= split.settled
    if not splits or not total:
        return total
    tasks = [
        (k, lo, hi, deadline.remaining())
        for k, split in enumerate(splits)
        for lo, hi in shard_ranges(split.entries, min(parts, split.entries))
    ]
    counts = run_tasks(count_part, tasks, backend, scheduler, workers, cargo=Cargo(splits))
    sums = [0] * len(splits)
    for (k, *_), n in zip(tasks, counts):
        sums[k] += n
    for split, n in zip(splits, sums):
        total *= split.settled * n
    return total


# -- counting a batch in chunks ------------------------------------------------------------------------------


def count_chunk(
    items: list, side: str, engine: str, time_limit, deadline: Deadline | None = None
) -> list[tuple[str, object]]:
    """Count each ``(where, document)`` of a chunk (a worker task): ``("count", n)``, ``("error", message)`` for
    bad input, ``("limit", message)`` past the limit: ``deadline`` when given (the process pool's, for one
    document), else ``time_limit`` per document (:func:`trample.limits.per_document`)."""
    out: list[tuple[str, object]] = []
    for where, doc in items:
        try:
            if isinstance(doc, FormatError):
                raise doc
            limit = deadline if deadline is not None else per_document(time_limit)
            out.append(("count", open_combat(scenario_from(doc), side=side, engine=engine).count(time_limit=limit)))
        except FormatError as err:
            out.append(("error", str(prefixed(where, err)) if where else str(err)))
        except LimitReached as err:
            out.append(("limit", _placed(where, str(err))))
    return out


POOL_GRACE = 0.05  # seconds past a document's deadline that the command waits for its worker's answer


def map_documents(
    task: Callable,
    items: Iterable[tuple[str, object]],
    options: object,
    what: str,
    backend: str = "process",
    scheduler: str | None = None,
    workers: int | None = None,
    chunk: int = BATCH_CHUNK,
    time_limit: TimeLimit = None,
) -> Generator[tuple, None, None]:
    """``task(chunk_of_items, options)`` (a module-level function returning one tuple per ``(where, document)``)
    over the documents in chunks of ``chunk``, the answers in order: bad JSON lines answered here as ``("error",
    message)``; when the workers are lost, the chunks not finished as ``("lost", "WHERE: not WHAT: why")``.

    On the ``process`` backend the answers come as their tasks finish, in order (an interrupted command keeps
    the lines it wrote), and the workers are killed, not waited for, when the stream is closed early (close it:
    ``contextlib.closing``). With ``time_limit`` there (seconds, or the command's limit) each document is one
    task ``task([item], options, deadline)``: document ``i`` of the batch on ``W`` workers must finish by
    ``start + (i // W + 1) * time_limit`` (``start``: the command's start for the command's limit, else now),
    which leaves each at least ``time_limit`` from when its worker takes it (the workers take the documents in
    order) and bounds the batch by ``ceil(n / W) * time_limit``; the command waits for a document until its
    deadline (and :data:`POOL_GRACE`), then answers it ``("late", "WHERE: stopped at the time limit of S s")``
    and goes on (``"limit"`` is the task's own answer: the document saw its limit)."""
    items = list(items)
    chunk = max(1, chunk)
    good = [(where, doc) for where, doc in items if not isinstance(doc, FormatError)]
    if backend == "process" and scheduler is None and good:
        answers: Iterator[tuple] = _pooled(task, good, options, what, workers, chunk, time_limit)
    else:
        answers = iter(_gathered(task, good, options, what, backend, scheduler, workers, chunk, time_limit))
    try:
        for where, doc in items:
            if isinstance(doc, FormatError):
                yield ("error", str(prefixed(where, doc)) if where else str(doc))
            else:
                yield next(answers)
    finally:
        close = getattr(answers, "close", None)
        if close is not None:
            close()  # the pool's workers ended now, not when the stream is collected


def _gathered(task, good, options, what, backend, scheduler, workers, chunk, time_limit=None) -> list[tuple]:
    """:func:`map_documents`'s answers computed at once on ``backend`` (Dask, serial). On Dask with a time limit,
    one document a task, and the documents not done within the batch's bound are answered as past their limit."""
    first = deadline_of(time_limit) if backend == "dask" else None
    seconds = float(first.seconds) if first and first.seconds else None
    if seconds is not None:
        chunk = 1
    tasks = [(good[a : a + chunk], options) for a in range(0, len(good), chunk)]
    try:
        parts = run_tasks(task, tasks, backend, scheduler, workers, task_seconds=seconds)
    except cluster.WorkersLost as err:  # the chunks finished are answered; the others say why they are not
        finished = err.finished
        late = isinstance(err, cluster.Overdue)
        why = f"stopped at the time limit of {seconds or 0:g} s" if late else f"not {what}: {err}"
        parts = [
            finished[k] if k in finished else [("late" if late else "lost", _placed(where, why)) for where, _ in t[0]]
            for k, t in enumerate(tasks)
        ]
    return [r for part in parts for r in part]


def _pooled(task, good, options, what, workers, chunk, time_limit) -> Iterator[tuple]:
    """:func:`map_documents`'s answers on a process pool, in order, as they finish (see there). A document whose
    deadline has passed before it is handed out (the command's start-up took its limit) is answered at once,
    and the pool is started only for a document that still has time."""
    from concurrent.futures import CancelledError

    size = max(1, min(len(good), workers or os.cpu_count() or 1))
    first = deadline_of(time_limit)
    seconds = float(first.seconds or 0.0)
    base = (first.at or 0.0) - seconds  # the command's start for its own limit: the first wave counts from it
    groups = [[item] for item in good] if first else [good[a : a + chunk] for a in range(0, len(good), chunk)]
    pool = None
    jobs: list[tuple[list, Deadline | None, Any]] = []
    try:
        for k, group in enumerate(groups):
            slot = Deadline(seconds, start=base + (k // size) * seconds) if first else None
            if slot is not None and slot.remaining() <= -POOL_GRACE:  # type: ignore[operator]
                jobs.append((group, slot, None))  # past its limit already: not handed out
                continue
            pool = pool or _process_pool(size)
            jobs.append((group, slot, pool.submit(task, group, options, *([slot] if slot is not None else []))))
        for group, slot, future in jobs:
            if future is None or not _finished(future, slot):
                why = f"stopped at the time limit of {seconds:g} s"
                yield from [("late", _placed(where, why)) for where, _ in group]
                continue
            try:
                yield from future.result()
            except (CancelledError, RuntimeError) as err:  # BrokenProcessPool: a worker died (killed, out of memory)
                why = _first_line(err)
                yield from [("lost", _placed(where, f"not {what}: {why}")) for where, _ in group]
    finally:  # also when the stream is closed at its last answer (map_documents reads no further)
        cut = len(jobs) < len(groups) or not all(future is None or future.done() for _, _, future in jobs)
        if pool is not None and cut:  # a task still running (past its limit), or the stream closed (Ctrl-C)
            _end_pool(pool)
        elif pool is not None:
            _close_pool(pool)


def _finished(future: Any, slot: Deadline | None) -> bool:
    """Wait for ``future``: until it is done (True), or, with a ``slot``, until its deadline and
    :data:`POOL_GRACE` have passed (False). The clock is read every 50 ms (trample.limits.monotonic)."""
    from concurrent.futures import wait

    while not future.done():
        if slot is None:
            wait([future], timeout=0.05)
            continue
        left = (slot.at or 0.0) + POOL_GRACE - limits.monotonic()
        if left <= 0:
            return future.done()
        wait([future], timeout=min(left, 0.05))
    return True


def _count_chunk(items: list, options: tuple, deadline: Deadline | None = None) -> list[tuple[str, object]]:
    side, engine, time_limit = options
    return count_chunk(items, side, engine, time_limit, deadline)


def count_documents(
    items: Iterable[tuple[str, object]],
    side: str = "attacking",
    engine: str = "auto",
    time_limit=None,
    backend: str = "process",
    scheduler: str | None = None,
    workers: int | None = None,
    chunk: int = BATCH_CHUNK,
) -> Generator[tuple[str, object], None, None]:
    """The results of :func:`count_chunk` for every document, in order, counted in chunks of ``chunk`` (on the
    process backend with ``time_limit``: one document a task, :func:`map_documents`)."""
    return map_documents(
        _count_chunk, items, (side, engine, time_limit), "counted", backend, scheduler, workers, chunk, time_limit
    )
