"""The one-step commands: ``trample count``, ``enumerate`` and ``check`` (one damage step's, or a whole combat's,
legal assignments, counted, listed and checked: docs/format.md), and ``sample``, ``rank``, ``unrank`` and
``enumerate --format npy`` / ``--output`` (docs/scale.md). Registered by trample.cli through ``add_commands``
and ``add_index_commands``.

Everything in ``sample``, ``rank`` and ``unrank`` runs on the direct engine's counting programme
(solver/engines/direct.py): no command lists assignments to answer, except ``enumerate``.

- ``trample sample FILE --n K --seed S``: K legal assignments drawn independently and exactly uniformly
  (with replacement), one JSON line each; the same seed gives the same lines.
- ``trample rank FILE ASSIGNMENT``: ``{"index": i, "count": N}``, the assignment's place in the canonical order.
- ``trample unrank FILE INDEX``: ``{"index": i, "count": N, "assignment": {...}}``.
- ``trample enumerate FILE --format npy --output OUT.npy``: an integer matrix, one row per legal assignment in
  the canonical order, one column per (source, recipient) route (the header: trample.engines.npy); the column
  names go to a sidecar ``OUT.columns.json``. Written in blocks (memory stays flat whatever the count). With
  ``--output`` (or standard output redirected to a file) and standard error on a terminal, a progress bar is
  shown (rich).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, cast

# numpy, the engines, the combats and the shards are imported where they are used: `trample count` on a small
# board imports what counting it needs and no more (issue 21: the command's start-up)
from ...cluster import BACKENDS
from ...documents import dumps, is_batch, iter_documents, scenario_from
from ...limits import STATE, LimitReached, deadline_of, work_done
from ...models import FormatError, Side, Step, load_assignment
from .. import EXIT_BAD, EXIT_NO, EXIT_OK, NO_COUNT, no_count
from ..batch import (
    emit,
    emit_results,
    jsonl_rows,
    limited,
    run_batch,
    run_paired,
    stream_batch,
    write_chunks,
)
from ..files import AtomicFiles, distinct_files, is_regular_target, redirected_output, written
from ..options import (
    MAX_SHARDS,
    MAX_WORKERS,
    add_backend_options,
    add_output,
    add_step_options,
    add_time_limit,
    bounded_int,
    positive_int,
    require_backend,
    shown,
)
from ..progress import Progress, is_terminal, want_progress

if TYPE_CHECKING:
    from ...step import DamageStep


def add_commands(sub) -> None:
    p = sub.add_parser("count", help="the exact number of legal assignments")
    p.add_argument("file", metavar="FILE", help="scenario JSON, a .jsonl batch, or - for standard input")
    add_time_limit(p, 'seconds per scenario; past it: {"count": null, "complete": false}, exit 1')
    _distributed_options(p, shards=False)
    add_step_options(p)
    p.set_defaults(func=cmd_count)

    p = sub.add_parser("enumerate", help="every legal assignment, one JSON line each")
    p.add_argument("file", metavar="FILE")
    p.add_argument("--limit", type=positive_int, default=None, help="stop after N assignments")
    add_time_limit(p, "stop after this many seconds")
    p.add_argument(
        "--format",
        choices=["jsonl", "npy"],
        default="jsonl",
        help="jsonl (default): one JSON line per assignment; npy: one integer matrix, a row per "
        "assignment, column names in a sidecar OUTPUT.columns.json",
    )
    add_output(
        p,
        "write to this file instead of standard output (a progress bar shows on a terminal; --out: the older spelling)",
    )
    p.add_argument(
        "--columns",
        default=None,
        metavar="PATH",
        help="npy: where to write the column names (default: OUTPUT with .columns.json)",
    )
    _distributed_options(p, shards=True)
    add_step_options(p)
    p.set_defaults(func=cmd_enumerate)

    p = sub.add_parser("check", help="is this assignment legal? which rules does it break?")
    p.add_argument("file", metavar="FILE")
    p.add_argument("assignment", metavar="ASSIGNMENT", help="assignment JSON file, .jsonl, - or inline JSON")
    add_step_options(p)
    add_time_limit(p, "seconds per scenario; past it: one line on standard error, exit 1")
    p.set_defaults(func=limited(cmd_check))


def _distributed_options(p, shards: bool) -> None:
    if shards:
        p.add_argument(
            "--shards",
            type=bounded_int(1, MAX_SHARDS),
            default=None,
            metavar="N",
            help="write N .npy shards of consecutive canonical index ranges into the directory --output "
            "(with manifest.json); see docs/scale.md",
        )
    add_backend_options(
        p,
        BACKENDS,
        backend_help="where the work runs: process (a local process pool, default with --shards), dask (a "
        "LocalCluster on 127.0.0.1, or --scheduler), serial"
        + (
            ""
            if shards
            else "; a .jsonl batch is counted in chunks of 50 scenarios (process with --time-limit: one task a "
            "scenario, each with its deadline, docs/scale.md)"
        ),
        scheduler_help="an existing Dask scheduler (tcp://host:8786)",
        workers_help=f"worker processes (local backends; at most {MAX_WORKERS})",
    )


def _combat(doc, args):
    from ...whole import open_combat

    return open_combat(
        scenario_from(doc), side=getattr(args, "side", Side.ATTACKING.value), engine=getattr(args, "engine", "auto")
    )


def cmd_count(args) -> int:
    if getattr(args, "backend", None) is not None or getattr(args, "scheduler", None) is not None:
        return _count_distributed(args)

    batch = is_batch(args.file)

    def one(doc):
        try:
            return {"count": _combat(doc, args).count(time_limit=args.time_limit)}, EXIT_OK
        except LimitReached as err:  # no count: say so on stdout (complete: false) and on stderr, exit 1
            if batch:
                raise  # the batch's line names its place (the same line)
            print(f"trample: count {err}; {NO_COUNT}", file=sys.stderr)
            return no_count(args.time_limit), EXIT_NO

    return run_batch(args.file, one, stopped=(no_count(args.time_limit), NO_COUNT))


def _count_distributed(args) -> int:
    """``count --backend ...``: a .jsonl batch counted in chunks on the backend, results in order; one damage
    step's count shared by the workers (:func:`trample.shard.count_split`)."""
    from ...shard import count_documents, count_split

    require_backend(args)
    if not is_batch(args.file):
        ((_, doc),) = iter_documents(args.file)
        scenario = scenario_from(doc)
        if scenario.step != Step.COMBAT:
            try:
                n = count_split(
                    scenario,
                    4 * (args.workers or os.cpu_count() or 1),
                    side=getattr(args, "side", Side.ATTACKING.value),
                    backend=args.backend or "dask",
                    scheduler=args.scheduler,
                    workers=args.workers,
                    time_limit=args.time_limit,
                )
            except LimitReached as err:
                print(f"trample: count {err}; {NO_COUNT}", file=sys.stderr)
                emit(no_count(args.time_limit))
                return EXIT_NO
            emit({"count": n})
            return EXIT_OK

    results = count_documents(
        iter_documents(args.file),
        side=getattr(args, "side", Side.ATTACKING.value),
        engine=getattr(args, "engine", "auto"),
        time_limit=args.time_limit,
        backend=args.backend or "dask",
        scheduler=args.scheduler,
        workers=args.workers,
    )
    batch = is_batch(args.file)

    def line_of(item: tuple) -> tuple[dict, int]:
        kind, value = item
        if kind == "count":
            return {"count": value}, EXIT_OK
        if not batch:
            if kind == "error":
                raise FormatError("", str(value))
            print(f"trample: count {value}; {NO_COUNT}", file=sys.stderr)
            return no_count(args.time_limit), EXIT_NO
        if kind == "error":
            print(f"trample: {value}", file=sys.stderr)
            return {"error": value}, EXIT_BAD
        if kind in ("limit", "late"):  # the document's limit: the line the command writes in this process
            print(f"trample: {value}; {NO_COUNT}", file=sys.stderr)
            return no_count(args.time_limit), EXIT_NO
        print(f"trample: {value}; the result is incomplete", file=sys.stderr)  # lost: the workers
        return {"error": value, "complete": False}, EXIT_NO

    return emit_results(results, line_of)


def _enumerate_shards(args) -> int:
    require_backend(args)
    if not args.output or args.output == "-":
        raise FormatError("--output", "--shards writes files: give --output DIRECTORY")
    for option, value in (("--time-limit", args.time_limit), ("--columns", getattr(args, "columns", None))):
        if value is not None:
            raise FormatError(
                option, "not with --shards (each shard is written whole; the columns are in manifest.json)"
            )
    if os.path.exists(args.output) and not os.path.isdir(args.output):
        raise FormatError("--output", f"{args.output} is a file: --shards needs a directory")
    if is_batch(args.file):
        raise FormatError(args.file, "--shards takes one scenario, not a .jsonl batch")
    ((_, doc),) = iter_documents(args.file)
    scenario = scenario_from(doc)
    if scenario.step == Step.COMBAT:
        raise FormatError("step", '--shards enumerates one damage step ("combat" holds two)')
    # numpy and the pool imported once the options are checked: a refusal comes first however loaded the machine
    from ...shard import enumerate_shards

    manifest = enumerate_shards(
        scenario,
        args.output,
        args.shards,
        side=getattr(args, "side", Side.ATTACKING.value),
        backend=args.backend or ("dask" if args.scheduler else "process"),
        scheduler=args.scheduler,
        workers=args.workers,
        limit=args.limit,
    )
    emit({"shards": len(manifest["shards"]), "rows": manifest["rows"], "count": manifest["count"]})
    return EXIT_OK


def cmd_enumerate(args) -> int:
    if getattr(args, "shards", None) is not None:
        return _enumerate_shards(args)
    if getattr(args, "backend", None) is not None or getattr(args, "scheduler", None) is not None:
        raise FormatError("--backend", "only with --shards N (enumerate) or for count")
    for option, value in (("--output", getattr(args, "output", None)), ("--columns", getattr(args, "columns", None))):
        if value is not None and not value.strip():
            raise FormatError(option, "expected a file name")
    if getattr(args, "columns", None) is not None and getattr(args, "format", "jsonl") != "npy":
        raise FormatError("--columns", "only with --format npy (the jsonl lines name their own columns)")
    distinct_files(
        [args.file], [("--output", getattr(args, "output", None)), ("--columns", getattr(args, "columns", None))]
    )
    if getattr(args, "format", "jsonl") == "npy":
        return enumerate_npy(args)
    if getattr(args, "output", None) not in (None, "-"):
        return enumerate_jsonl_to(args, lambda: _enumerate_jsonl(args))
    return _enumerate_jsonl(args)


def _enumerate_jsonl(args) -> int:
    from ...step import DamageStep

    stopped = {"time": False}

    def stream(doc) -> Iterator[dict]:
        try:  # the engines check the time limit all along, and stop within it
            for a in _combat(doc, args).assignments(limit=args.limit, time_limit=args.time_limit):
                yield a.to_json()
        except LimitReached:
            stopped["time"] = True

    if is_batch(args.file):
        code = stream_batch(args.file, stream)  # each line written as it is listed, not held
    else:
        done = [0]
        work_done(lambda: f"{done[0]} assignments written")
        ((_, doc),) = iter_documents(args.file)
        out = sys.stdout
        with _progress(args, doc) as bar:
            combat = _combat(doc, args)
            if isinstance(combat, DamageStep):  # one step: lines formatted in bulk from the numpy blocks
                write_chunks(out, _bulk_lines(combat, args, stopped), done, bar.advance, written)
            else:
                for n, a in enumerate(stream(doc), 1):
                    STATE.hold()  # the line written and counted together
                    try:
                        out.write(json.dumps(a, separators=(",", ":")) + "\n")
                        done[0] = n
                    finally:
                        STATE.release()
                    if n % 4096 == 0:
                        out.flush()
                        bar.advance(4096)
        code = EXIT_OK
    if stopped["time"]:
        print(f"trample: enumerate stopped at --time-limit {args.time_limit}s; the list is incomplete", file=sys.stderr)
    return code


def _bulk_lines(combat: DamageStep, args, stopped) -> Iterator[tuple[bytes, int]]:
    """(text, lines) per block of the step's assignments, up to --limit; --time-limit sets stopped["time"]."""
    left = args.limit
    rows = jsonl_rows(len(combat.plan.columns))
    if left is not None:
        rows = max(1, min(rows, left))  # no block listed past --limit (a slow lister's rows cost milliseconds)
    try:
        for block in combat.assignment_blocks(rows=rows, time_limit=args.time_limit):
            if left is not None:
                block = block[:left]
                left -= len(block)
            yield combat.jsonl_bytes(block), len(block)
            if left is not None and left <= 0:
                return
    except LimitReached:
        stopped["time"] = True


def _progress(args, doc):
    """A progress bar on standard error when writing to a file (:func:`jsonl_progress`), else nothing."""
    return jsonl_progress(args, doc)


def cmd_check(args) -> int:
    def one(doc, adoc):
        result = _combat(doc, args).check(adoc)  # one step: an assignment; "combat": {"first_strike", "regular"}
        return result.to_json(), (EXIT_OK if result.legal else EXIT_NO)

    return run_paired(args.file, args.assignment, one)


# rank and unrank (and sample, which keeps the draws made in time): the counting programme is built within the
# limit, docs/scale.md
TIME_LIMIT_HELP = (
    "seconds per scenario, the counting programme built within it; past it: one line on standard error, exit 1"
)


def add_index_commands(subparsers) -> None:
    p = subparsers.add_parser("sample", help="legal assignments drawn uniformly at random (reproducible by seed)")
    p.add_argument("file", metavar="FILE", help="scenario JSON, a .jsonl batch, or - for standard input")
    p.add_argument("--n", type=positive_int, default=1, metavar="K", help="how many to draw (default 1)")
    p.add_argument("--seed", type=_seed, default=0, metavar="S", help="random seed, a whole number (default 0)")
    add_time_limit(
        p,
        "seconds per scenario, the counting programme built within it; past it: the draws made in time, one "
        "line on standard error (exit 1 if none)",
    )
    add_step_options(p)
    p.set_defaults(func=cmd_sample)

    p = subparsers.add_parser("rank", help="the index of a legal assignment in the canonical order")
    p.add_argument("file", metavar="FILE")
    p.add_argument("assignment", metavar="ASSIGNMENT", help="assignment JSON file, .jsonl, - or inline JSON")
    add_time_limit(p, TIME_LIMIT_HELP)
    add_step_options(p)
    p.set_defaults(func=cmd_rank)

    p = subparsers.add_parser("unrank", help="the legal assignment at an index of the canonical order")
    p.add_argument("file", metavar="FILE")
    p.add_argument("index", metavar="INDEX", type=positive_int, help="0 <= INDEX < count")
    add_time_limit(p, TIME_LIMIT_HELP)
    add_step_options(p)
    p.set_defaults(func=cmd_unrank)


def _seed(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {shown(text)}") from None


def _step_combat(doc, args, what: str):
    """A one-step Combat; a whole combat ("step": "combat") is refused with a one-line error."""
    from ...combat import Combat

    scenario = scenario_from(doc)
    if scenario.step == Step.COMBAT:
        raise FormatError("step", f'{what} works on one damage step ("regular" or "first_strike"), not "combat"')
    return Combat(scenario, side=args.side, engine=args.engine)


# ---------------------------------------------------------------------------------------------
# sample / rank / unrank
# ---------------------------------------------------------------------------------------------


def cmd_sample(args) -> int:
    def draw(doc):  # streamed: a batch line of any --n in flat memory
        combat = _step_combat(doc, args, "sample")
        return (a.to_json() for a in combat.samples(args.n, args.seed, time_limit=args.time_limit))

    if is_batch(args.file):
        return stream_batch(args.file, draw)
    ((_, doc),) = iter_documents(args.file)

    drawn = 0
    work_done(lambda: f"{drawn} of {args.n} draws written")
    combat = _step_combat(doc, args, "sample")
    try:
        stream = combat.samples(args.n, args.seed, time_limit=args.time_limit)  # LimitReached: no programme in time
        for a in stream:  # streamed: any --n in flat memory
            STATE.hold()  # written and counted together (the interrupt line says what the output holds)
            try:
                emit(a.to_json())
                drawn += 1
            finally:
                STATE.release()
    except LimitReached:
        print(
            f"trample: sample stopped at --time-limit {args.time_limit}s after {drawn} of {args.n} draws; "
            "the list is incomplete",
            file=sys.stderr,
        )
        return EXIT_OK if drawn else EXIT_NO  # the help's promise: exit 1 when no draw came in time
    return EXIT_OK


def cmd_unrank(args) -> int:
    def one(doc):
        combat = _step_combat(doc, args, "unrank")
        a = combat.unrank(args.index, time_limit=args.time_limit)
        return {"index": args.index, "count": combat.count(), "assignment": a.to_json()}, EXIT_OK

    return run_batch(args.file, one)


def cmd_rank(args) -> int:
    def one(doc, adoc):
        combat = _step_combat(doc, args, "rank")
        index = combat.rank(load_assignment(adoc, combat.scenario), time_limit=args.time_limit)
        return {"index": index, "count": combat.count()}, EXIT_OK

    return run_paired(args.file, args.assignment, one)


# ---------------------------------------------------------------------------------------------
# enumerate --format npy | --output
# ---------------------------------------------------------------------------------------------


def columns_path(output: str) -> str:
    base = output[:-4] if output.endswith(".npy") else output
    return base + ".columns.json"


def enumerate_npy(args) -> int:
    """``trample enumerate FILE --format npy``: the legal assignments as one integer matrix."""
    import numpy as np

    from ...engines import BLOCKS, BlocksEngine, get_engine
    from ...engines.npy import npy_header, npy_header_size

    output, seekable_out = _npy_target(args)
    ((_, doc),) = iter_documents(args.file)
    combat = _step_combat(doc, args, "enumerate --format npy")
    plan = combat.plan
    names = [s.source for s in plan.sources]
    columns = [[names[i], r] for i, r in plan.columns]

    count, rows = _npy_rows(combat, args)
    blocks_engine = cast(BlocksEngine, get_engine("direct", needs=[BLOCKS]))  # the engine that writes numpy blocks
    dtype = np.dtype(blocks_engine.dtype_for(max((s.damage for s in plan.sources), default=0)))
    # The columns file beside a matrix written to a regular file; /dev/null, a FIFO or a terminal gets none (a
    # columns file of "/dev/null.columns.json" was created): --columns names one explicitly.
    sidecar = getattr(args, "columns", None) or (
        columns_path(output) if output not in (None, "-") and is_regular_target(output) else None
    )

    deadline = deadline_of(args.time_limit)  # --time-limit counts from the start of the command
    blocks = _npy_blocks(args, combat, columns, count, dtype, deadline)
    state = {"written": 0, "stopped": count is None}
    header_size = npy_header_size(dtype, (rows, len(columns)))
    where = output if seekable_out else "standard output"
    work_done(lambda: f"{state['written']} of {rows} rows written to {where} (the matrix is incomplete)")
    # The matrix and its columns file are written under temporary names and renamed together when finished
    # (trample.cli.files.AtomicFiles): a kill -9 leaves the previous pair, never a truncated matrix beside old columns.
    with AtomicFiles() as files:
        fh = files.open(output, binary=True) if seekable_out else sys.stdout.buffer
        try:
            with Progress(rows, "enumerate", want_progress(args)) as bar:
                fh.write(npy_header(dtype, (rows, len(columns)), header_size))
                _write_blocks(fh, blocks, state, rows, dtype, deadline, bar)
        finally:  # also on an interrupt: the header says how many rows were written, and the columns file follows
            written = state["written"]
            if written != rows and _seekable(fh):
                fh.flush()
                fh.seek(0)
                fh.write(npy_header(dtype, (written, len(columns)), header_size))
                fh.seek(0, 2)
            if sidecar:
                _write_columns(files, sidecar, args.engine, columns, written, count, dtype)
    if state["stopped"]:
        of = "before the count was known" if count is None else f"after {written} of {rows} rows"
        print(
            f"trample: enumerate stopped at --time-limit {args.time_limit}s {of}; the matrix is incomplete",
            file=sys.stderr,
        )
    return EXIT_OK


def _write_blocks(fh, blocks: Iterator, state: dict, rows: int, dtype, deadline, bar) -> None:
    """The matrix's rows, block by block, until ``rows`` are written, the deadline passes or the programme stops
    (``state["stopped"]``); each block is written whole or not at all (an interrupt waits for it)."""
    import numpy as np

    for block in _until_limit(blocks, state):
        if state["written"] >= rows:
            break
        if deadline.expired():
            state["stopped"] = True
            break
        block = np.ascontiguousarray(block[: rows - state["written"]], dtype=dtype)
        STATE.hold()
        try:
            fh.write(block.tobytes())
            state["written"] += len(block)
        finally:
            STATE.release()
        written(fh, block.nbytes)  # synced as it grows: the commit's last sync stays short (files.SYNC_EVERY)
        bar.advance(len(block))


def _npy_rows(combat, args) -> tuple[int | None, int]:
    """The count (None: --time-limit ran out while counting, an empty and incomplete matrix) and the rows to write
    (at most --limit)."""
    work_done(lambda: "nothing written yet (the rows were being counted)")
    try:
        count = _direct_count(combat, args.time_limit)  # every engine gives the same count; the programme never lists
    except LimitReached:  # --time-limit ran out while counting: an empty (incomplete) matrix
        count = None
    rows = 0 if count is None else count if args.limit is None else min(count, args.limit)
    return count, rows


def _npy_target(args) -> tuple[str | None, bool]:
    """Where ``--format npy`` writes (``--output``, or None / "-": standard output) and whether it can seek there;
    bad input: a batch, binary data to a terminal, a --time-limit without a file to fix the header in."""
    if is_batch(args.file):
        raise FormatError(args.file, "--format npy takes one scenario, not a .jsonl batch")
    output = getattr(args, "output", None)
    if output in (None, "-") and is_terminal(sys.stdout):
        raise FormatError("--output", "--format npy writes binary data: give --output FILE or redirect standard output")
    seekable_out = output not in (None, "-")
    if args.time_limit is not None and not seekable_out:
        raise FormatError(
            "--time-limit",
            "with --format npy it needs --output FILE (the row count in the "
            "header is fixed when enumeration stops early)",
        )
    return output, seekable_out


def _npy_blocks(args, combat, columns, count: int | None, dtype, deadline) -> Iterator:
    """The rows to write, in blocks: none when the count ran out of time; the canonical order from an engine with
    BLOCKS; else as the engine lists them."""
    from ...engines import BLOCKS, BlocksEngine, get_engine

    if count is None:
        return iter(())
    if BLOCKS in get_engine(args.engine).capabilities:  # the canonical order, in numpy blocks
        # the deadline reaches the building of the listing programme too (one attacker of power 10^6 behind
        # 30 blockers built it for 41 s and 6.3 GB under --time-limit 2)
        return cast(BlocksEngine, get_engine(args.engine, needs=[BLOCKS])).plan_blocks(
            combat.plan, dtype=dtype, deadline=deadline
        )
    return _engine_blocks(combat, columns, dtype, args.engine)


def _write_columns(files, sidecar: str, engine: str, columns, written: int, count: int | None, dtype) -> None:
    """The columns file beside an npy matrix: its columns, rows written, the count, the dtype and the order."""
    from ...engines import BLOCKS, get_engine

    meta = {
        "columns": columns,
        "rows": written,
        "count": count,
        "dtype": dtype.name,
        "order": "canonical (docs/scale.md): lexicographic per component, first component slowest"
        if BLOCKS in get_engine(engine).capabilities
        else f"as listed by the {engine} engine",
    }
    try:
        files.open(sidecar).write(dumps(meta, separators=None) + "\n")
    except OSError as err:
        raise FormatError(sidecar, f"cannot write: {err.strerror}") from None


def _until_limit(blocks: Iterator, state: dict) -> Iterator:
    """The blocks until the programme behind them stops at the time limit (``state["stopped"]`` then)."""
    try:
        yield from blocks
    except LimitReached:
        state["stopped"] = True


def _seekable(fh) -> bool:
    try:
        return fh.seekable()
    except (OSError, ValueError, AttributeError):
        return False


def _direct_count(combat, time_limit=None) -> int:
    from ...indexing import count

    return count(combat, time_limit)


def _engine_blocks(combat, columns, dtype, engine, rows: int = 1 << 14):
    """Rows from another engine's listing (its own order), in blocks (``columns``: the plan's, named)."""
    import numpy as np

    plan = combat.plan
    buf = np.zeros((rows, len(columns)), dtype=dtype)
    n = 0
    for a in combat.assignments(engine=engine):
        buf[n] = plan.vector(a)
        n += 1
        if n == rows:
            yield buf.copy()
            n = 0
    if n:
        yield buf[:n].copy()


def enumerate_jsonl_to(args, run) -> int:
    """Run the jsonl enumeration ``run()`` with standard output sent to ``--output`` (if given), with a
    progress bar when writing to a file."""
    output = getattr(args, "output", None)
    with redirected_output(output) as fh:
        if fh is sys.stdout:
            return run()
        with contextlib.redirect_stdout(fh):
            return run()


def jsonl_progress(args, doc):
    """A Progress for a single-document jsonl enumeration (total from the counting programme)."""
    enabled = want_progress(args)
    total = None
    if enabled:
        try:
            combat = _step_combat(doc, args, "enumerate")
            total = _direct_count(combat, 1.0)  # a total for the bar if it comes quickly, else a bar without one
            if args.limit is not None:
                total = min(total, args.limit)
        except (FormatError, LimitReached):
            total = None
    return Progress(total, "enumerate", enabled)
