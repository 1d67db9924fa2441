"""``trample sample | rank | unrank``, and ``trample enumerate --format npy`` / ``--output`` (docs/scale.md).

Registered by solver/cli.py through ``add_commands``. Everything here runs on the direct engine's counting
programme (solver/engines/direct.py): no command lists assignments to answer, except ``enumerate``.

- ``trample sample FILE --n K --seed S``: K legal assignments drawn independently and exactly uniformly
  (with replacement), one JSON line each; the same seed gives the same lines.
- ``trample rank FILE ASSIGNMENT``: ``{"index": i, "count": N}``, the assignment's place in the canonical order.
- ``trample unrank FILE INDEX``: ``{"index": i, "count": N, "assignment": {...}}``.
- ``trample enumerate FILE --format npy --output OUT.npy``: an integer matrix, one row per legal assignment in
  the canonical order, one column per (source, recipient) route; the column names go to a sidecar
  ``OUT.columns.json``. Written in blocks (memory stays flat whatever the count). With ``--output`` (or
  standard output redirected to a file) and standard error on a terminal, a progress bar is shown (rich).
"""

from __future__ import annotations

import argparse
import contextlib
import struct
import sys
from collections.abc import Iterator
from typing import cast

import numpy as np

from .combat import Combat
from .docio import (
    EXIT_OK,
    STATE,
    AtomicFiles,
    Progress,
    add_step_options,
    any_digits,
    dumps,
    emit,
    is_batch,
    is_regular_target,
    is_terminal,
    iter_documents,
    positive_int,
    run_batch,
    run_paired,
    scenario_from,
    shown,
    stream_batch,
    time_limit,
    work_done,
)
from .engines import BLOCKS, BlocksEngine, get_engine
from .indexing import count
from .limits import LimitReached, deadline_of
from .models import FormatError, load_assignment

NPY_HEADER = 128  # bytes: fixed, so the shape can be rewritten in place if enumeration stops early


def add_commands(subparsers) -> None:
    p = subparsers.add_parser("sample", help="legal assignments drawn uniformly at random (reproducible by seed)")
    p.add_argument("file", metavar="FILE", help="scenario JSON, a .jsonl batch, or - for standard input")
    p.add_argument("--n", type=positive_int, default=1, metavar="K", help="how many to draw (default 1)")
    p.add_argument("--seed", type=_seed, default=0, metavar="S", help="random seed, a whole number (default 0)")
    _time_limit_option(p)
    add_step_options(p)
    p.set_defaults(func=cmd_sample)

    p = subparsers.add_parser("rank", help="the index of a legal assignment in the canonical order")
    p.add_argument("file", metavar="FILE")
    p.add_argument("assignment", metavar="ASSIGNMENT", help="assignment JSON file, .jsonl, - or inline JSON")
    _time_limit_option(p)
    add_step_options(p)
    p.set_defaults(func=cmd_rank)

    p = subparsers.add_parser("unrank", help="the legal assignment at an index of the canonical order")
    p.add_argument("file", metavar="FILE")
    p.add_argument("index", metavar="INDEX", type=positive_int, help="0 <= INDEX < count")
    _time_limit_option(p)
    add_step_options(p)
    p.set_defaults(func=cmd_unrank)


def _time_limit_option(p) -> None:
    p.add_argument(
        "--time-limit",
        type=time_limit,
        default=None,
        help="seconds for building the counting programme; past it: one line on stderr, exit 1",
    )


def _seed(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {shown(text)}") from None


def _step_combat(doc, args, what: str):
    """A one-step Combat; a whole combat ("step": "combat") is refused with a one-line error."""

    scenario = scenario_from(doc)
    if scenario.step == "combat":
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
    stream = combat.samples(args.n, args.seed, time_limit=args.time_limit)  # LimitReached: no programme in time
    try:
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


def want_progress(args) -> bool:
    """Progress goes on standard error when the output is a file and standard error is a terminal."""
    to_file = (getattr(args, "output", None) not in (None, "-")) or not is_terminal(sys.stdout)
    return to_file and is_terminal(sys.stderr)


@contextlib.contextmanager
def redirected_output(path: str | None, binary: bool = False):
    """Standard output, or a file opened for writing (a one-line error if it cannot be opened)."""
    if path in (None, "-"):
        yield sys.stdout.buffer if binary else sys.stdout
        return
    with AtomicFiles() as files:  # written under a temporary name, renamed when finished (or interrupted)
        yield files.open(path, binary=binary, whole_lines=not binary)


def npy_header(dtype, shape: tuple[int, int], size: int = NPY_HEADER) -> bytes:
    """A .npy header padded to exactly ``size`` bytes (so it can be rewritten in place with a smaller row count):
    version 1.0, or 2.0 when ``size`` is past version 1.0's 64 KiB. :func:`npy_header_size` gives a size that
    fits ``shape``."""
    body = _header_text(dtype, shape)
    v2 = size - 10 > 0xFFFF
    prefix = 12 if v2 else 10
    pad = size - prefix - len(body) - 1
    if pad < 0:
        raise ValueError(f"npy header too long: {len(body)} characters do not fit in {size} bytes")
    if v2:
        return b"\x93NUMPY\x02\x00" + struct.pack("<I", size - 12) + (body + " " * pad + "\n").encode("latin1")
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", size - 10) + (body + " " * pad + "\n").encode("latin1")


def npy_header_size(dtype, shape: tuple[int, int]) -> int:
    """The header size for ``shape``: 128 bytes, or the next multiple of 64 that holds a longer row count (a
    count of thousands of digits gets a header of that many bytes)."""
    text = _header_text(dtype, shape)
    need = 12 + len(text) + 1
    return max(NPY_HEADER, -(-need // 64) * 64)


def _header_text(dtype, shape) -> str:
    descr = np.lib.format.dtype_to_descr(np.dtype(dtype))
    with any_digits():
        return f"{{'descr': {descr!r}, 'fortran_order': False, 'shape': ({shape[0]:d}, {shape[1]:d}), }}"


def columns_path(output: str) -> str:
    base = output[:-4] if output.endswith(".npy") else output
    return base + ".columns.json"


def enumerate_npy(args) -> int:
    """``trample enumerate FILE --format npy``: the legal assignments as one integer matrix."""

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
    ((_, doc),) = iter_documents(args.file)
    combat = _step_combat(doc, args, "enumerate --format npy")
    plan = combat.plan
    names = [s.source for s in plan.sources]
    columns = [[names[i], r] for i, r in plan.columns]

    work_done(lambda: "nothing written yet (the rows were being counted)")
    try:
        count = _direct_count(combat, args.time_limit)  # every engine gives the same count; the programme never lists
    except LimitReached:  # --time-limit ran out while counting: an empty (incomplete) matrix
        count = None
    rows = 0 if count is None else count if args.limit is None else min(count, args.limit)
    blocks_engine = cast(BlocksEngine, get_engine("direct", needs=[BLOCKS]))  # the engine that writes numpy blocks
    dtype = np.dtype(blocks_engine.dtype_for(max((s.damage for s in plan.sources), default=0)))
    # The columns file beside a matrix written to a regular file; /dev/null, a FIFO or a terminal gets none (a
    # columns file of "/dev/null.columns.json" was created): --columns names one explicitly.
    sidecar = getattr(args, "columns", None) or (
        columns_path(output) if output not in (None, "-") and is_regular_target(output) else None
    )

    deadline = deadline_of(args.time_limit)  # --time-limit counts from the start of the command
    blocks: Iterator
    if count is None:
        blocks = iter(())
    elif BLOCKS in get_engine(args.engine).capabilities:  # the canonical order, in numpy blocks
        # the deadline reaches the building of the listing programme too (one attacker of power 10^6 behind
        # 30 blockers built it for 41 s and 6.3 GB under --time-limit 2)
        blocks = cast(BlocksEngine, get_engine(args.engine, needs=[BLOCKS])).plan_blocks(
            plan, dtype=dtype, deadline=deadline
        )
    else:
        blocks = _engine_blocks(combat, columns, dtype, args.engine)
    state = {"written": 0, "stopped": count is None}
    header_size = npy_header_size(dtype, (rows, len(columns)))
    where = output if seekable_out else "standard output"
    work_done(lambda: f"{state['written']} of {rows} rows written to {where} (the matrix is incomplete)")
    # The matrix and its columns file are written under temporary names and renamed together when finished
    # (docio.AtomicFiles): a kill -9 leaves the previous pair, never a truncated matrix beside old columns.
    with AtomicFiles() as files:
        fh = files.open(output, binary=True) if seekable_out else sys.stdout.buffer
        try:
            with Progress(rows, "enumerate", want_progress(args)) as bar:
                fh.write(npy_header(dtype, (rows, len(columns)), header_size))
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
                    bar.advance(len(block))
        finally:  # also on an interrupt: the header says how many rows were written, and the columns file follows
            written = state["written"]
            if written != rows and _seekable(fh):
                fh.flush()
                fh.seek(0)
                fh.write(npy_header(dtype, (written, len(columns)), header_size))
                fh.seek(0, 2)
            if sidecar:
                meta = {
                    "columns": columns,
                    "rows": written,
                    "count": count,
                    "dtype": dtype.name,
                    "order": "canonical (docs/scale.md): lexicographic per component, first component slowest"
                    if BLOCKS in get_engine(args.engine).capabilities
                    else f"as listed by the {args.engine} engine",
                }
                try:
                    files.open(sidecar).write(dumps(meta, separators=None) + "\n")
                except OSError as err:
                    raise FormatError(sidecar, f"cannot write: {err.strerror}") from None
    if state["stopped"]:
        of = "before the count was known" if count is None else f"after {written} of {rows} rows"
        print(
            f"trample: enumerate stopped at --time-limit {args.time_limit}s {of}; the matrix is incomplete",
            file=sys.stderr,
        )
    return EXIT_OK


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
    return count(combat, time_limit)


def _engine_blocks(combat, columns, dtype, engine, rows: int = 1 << 14):
    """Rows from another engine's listing (its own order), in blocks (``columns``: the plan's, named)."""
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
