"""Work beyond one process: enumeration in shards by canonical index range, and counting a batch in chunks, on a
local process pool (the default), a Dask LocalCluster, or an existing Dask scheduler.

The canonical order (docs/scale.md) makes every space shardable: shard ``k`` of ``N`` holds the rows of
indices ``count*k//N <= i < count*(k+1)//N``, generated from its first index on (the direct engine never builds
the rows before a shard's start), so the shards are disjoint and, concatenated in order, are exactly the whole
space. Each task gets the scenario as JSON, so any worker that can ``import trample`` can run it.

    >>> from trample.shard import enumerate_shards                                    # doctest: +SKIP
    >>> enumerate_shards(scenario, "out/", shards=8, backend="dask")                  # doctest: +SKIP
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator, Sequence

import numpy as np

from . import cluster
from .combat import Combat
from .documents import prefixed, scenario_from
from .engines import blocks_engine
from .limits import LimitReached
from .models import FormatError, Step
from .whole import open_combat

BACKENDS = cluster.BACKENDS

BATCH_CHUNK = 50  # scenarios per task when counting a batch


def shard_ranges(total: int, shards: int) -> list[tuple[int, int]]:
    """``shards`` consecutive index ranges covering ``0..total`` (as equal as integers allow)."""
    if shards < 1:
        raise FormatError("--shards", f"expected a positive whole number, got {shards!r}")
    return [(total * k // shards, total * (k + 1) // shards) for k in range(shards)]


def run_tasks(
    fn: Callable, tasks: Sequence, backend: str = "process", scheduler: str | None = None, workers: int | None = None
) -> list:
    """``[fn(*t) for t in tasks]``, in order, on the chosen backend: ``process`` (a stdlib process pool),
    ``dask`` (a LocalCluster on 127.0.0.1, or the scheduler at ``scheduler``, e.g. ``tcp://10.0.0.5:8786``),
    ``serial`` (this process). On Dask, distributed's logging is silenced while the tasks run, and when every
    worker is gone (or the local cluster cannot start) :class:`trample.cluster.WorkersLost` is raised (with
    ``finished``: the results of the tasks that finished, by position) instead of waiting for ever."""
    if backend not in BACKENDS:
        raise FormatError("--backend", f"expected one of {', '.join(BACKENDS)}, got {backend!r}")
    if scheduler is not None and backend != "dask":
        raise FormatError("--scheduler", "only with --backend dask")
    if backend == "serial" or not tasks:
        return [fn(*t) for t in tasks]
    if backend == "process":
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=workers or os.cpu_count() or 1) as pool:
            return list(pool.map(fn, *zip(*tasks)))
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
                return _gather(client, fn, tasks)
        try:
            local = cluster.start_local(  # its workers leave Ctrl-C to the command
                LocalCluster,
                n_workers=workers or min(len(tasks), os.cpu_count() or 1),
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address=None,
            )
        except Exception as err:  # e.g. "Nanny failed to start." (a worker died while the cluster started)
            raise cluster.WorkersLost(f"--backend dask: the local cluster did not start: {_first_line(err)}") from None
        with local, Client(local) as client:
            return _gather(client, fn, tasks)


def _first_line(err: BaseException) -> str:
    return (str(err).splitlines() or [type(err).__name__])[0][:200]


def _gather(client, fn: Callable, tasks: Sequence) -> list:
    futures = client.map(fn, *zip(*tasks), pure=False)
    try:
        return cluster.gather(client, futures)
    finally:
        client.cancel(futures)


# -- enumeration in shards ---------------------------------------------------------------------------------


def write_shard(scenario: dict, side: str, start: int, stop: int, path: str) -> dict:
    """Write rows ``start <= i < stop`` of the canonical order as one .npy matrix (a worker task)."""
    combat = Combat(scenario, side=side, engine="direct")
    plan = combat.plan
    engine = blocks_engine("direct")
    dtype = np.dtype(engine.dtype_for(max((s.damage for s in plan.sources), default=0)))
    rows = stop - start
    out = np.lib.format.open_memmap(path, mode="w+", dtype=dtype, shape=(rows, len(plan.columns)))
    at = 0
    for block in engine.plan_blocks(plan, dtype=dtype, start=start, stop=stop):
        out[at : at + len(block)] = block
        at += len(block)
    out.flush()
    del out
    if at != rows:  # pragma: no cover - the count and the blocks agree
        raise AssertionError(f"shard {path}: {at} rows written, {rows} expected")
    return {"file": os.path.basename(path), "start": start, "stop": stop, "rows": rows}


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
    count, each shard's file and range). Returns the manifest."""
    combat = Combat(scenario, side=side, engine="direct")
    if combat.scenario.step == Step.COMBAT:  # pragma: no cover - Combat refuses it already
        raise FormatError("step", "shards are of one damage step")
    total = combat.count(engine="direct")
    rows = total if limit is None else min(total, limit)
    os.makedirs(out_dir, exist_ok=True)
    doc = combat.scenario.to_json()
    tasks = [
        (doc, side, a, b, os.path.join(out_dir, f"shard-{k:05d}.npy"))
        for k, (a, b) in enumerate(shard_ranges(rows, shards))
    ]
    done = run_tasks(write_shard, tasks, backend, scheduler, workers)
    plan = combat.plan
    names = [s.source for s in plan.sources]
    dtype = blocks_engine("direct").dtype_for(max((s.damage for s in plan.sources), default=0))
    manifest = {
        "count": total,
        "rows": rows,
        "columns": [[names[i], r] for i, r in plan.columns],
        "dtype": np.dtype(dtype).name,
        "order": "canonical (docs/scale.md): lexicographic per component, first component slowest",
        "shards": done,
    }
    with open(os.path.join(out_dir, "manifest.json"), "w", encoding="utf-8") as fh:
        fh.write(json.dumps(manifest) + "\n")
    return manifest


# -- counting a batch in chunks ------------------------------------------------------------------------------


def count_chunk(items: list, side: str, engine: str, time_limit) -> list[tuple[str, object]]:
    """Count each ``(where, document)`` of a chunk (a worker task): ``("count", n)``, ``("error", message)`` for
    bad input, ``("limit", message)`` past ``time_limit``."""
    out: list[tuple[str, object]] = []
    for where, doc in items:
        try:
            if isinstance(doc, FormatError):
                raise doc
            out.append(
                ("count", open_combat(scenario_from(doc), side=side, engine=engine).count(time_limit=time_limit))
            )
        except FormatError as err:
            out.append(("error", str(prefixed(where, err)) if where else str(err)))
        except LimitReached as err:
            out.append(("limit", f"{where}: {err}"))
    return out


def count_documents(
    items: Iterable[tuple[str, object]],
    side: str = "attacking",
    engine: str = "auto",
    time_limit=None,
    backend: str = "process",
    scheduler: str | None = None,
    workers: int | None = None,
    chunk: int = BATCH_CHUNK,
) -> Iterator[tuple[str, object]]:
    """The results of :func:`count_chunk` for every document, in order, counted in chunks of ``chunk``."""
    items = list(items)
    chunk = max(1, chunk)
    # lines that are not JSON are answered here (their errors are not sent to the workers)
    good = [(where, doc) for where, doc in items if not isinstance(doc, FormatError)]
    tasks = [(good[a : a + chunk], side, engine, time_limit) for a in range(0, len(good), chunk)]
    try:
        parts = run_tasks(count_chunk, tasks, backend, scheduler, workers)
    except cluster.WorkersLost as err:  # the chunks finished are answered; the others say why they are not
        finished = err.finished
        parts = [
            finished[k]
            if k in finished
            else [("limit", f"{where + ': ' if where else ''}not counted: {err}") for where, _ in task[0]]
            for k, task in enumerate(tasks)
        ]
    answers = iter([r for part in parts for r in part])
    for where, doc in items:
        if isinstance(doc, FormatError):
            yield ("error", str(prefixed(where, doc)) if where else str(doc))
        else:
            yield next(answers)
