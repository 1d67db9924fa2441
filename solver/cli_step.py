"""``trample count``, ``trample enumerate`` and ``trample check``: one damage step's (or a whole combat's) legal
assignments, counted, listed and checked (docs/format.md). Registered by solver/cli.py through ``add_commands``."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator

from .cli_scale import enumerate_jsonl_to, enumerate_npy, jsonl_progress
from .docio import (
    EXIT_BAD,
    EXIT_NO,
    EXIT_OK,
    MAX_SHARDS,
    MAX_WORKERS,
    STATE,
    add_step_options,
    add_time_limit,
    bounded_int,
    distinct_files,
    emit,
    is_batch,
    iter_documents,
    jsonl_rows,
    limited,
    positive_int,
    run_batch,
    run_paired,
    scenario_from,
    stream_batch,
    time_limit,
    work_done,
    write_chunks,
)
from .limits import LimitReached
from .models import FormatError
from .shard import BACKENDS, count_documents, enumerate_shards
from .step import DamageStep
from .whole import open_combat


def add_commands(sub) -> None:
    p = sub.add_parser("count", help="the exact number of legal assignments")
    p.add_argument("file", metavar="FILE", help="scenario JSON, a .jsonl batch, or - for standard input")
    p.add_argument(
        "--time-limit",
        type=time_limit,
        default=None,
        help='seconds per scenario; past it: {"count": null, "complete": false}, exit 1',
    )
    _distributed_options(p, shards=False)
    add_step_options(p)
    p.set_defaults(func=cmd_count)

    p = sub.add_parser("enumerate", help="every legal assignment, one JSON line each")
    p.add_argument("file", metavar="FILE")
    p.add_argument("--limit", type=positive_int, default=None, help="stop after N assignments")
    p.add_argument("--time-limit", type=time_limit, default=None, help="stop after this many seconds")
    p.add_argument(
        "--format",
        choices=["jsonl", "npy"],
        default="jsonl",
        help="jsonl (default): one JSON line per assignment; npy: one integer matrix, a row per "
        "assignment, column names in a sidecar OUTPUT.columns.json",
    )
    p.add_argument(
        "-o",
        "--output",
        default=None,
        metavar="PATH",
        help="write to this file instead of standard output (a progress bar shows on a terminal)",
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
    p.add_argument(
        "--backend",
        choices=BACKENDS,
        default=None,
        help="where the work runs: process (a local process pool, default with --shards), dask (a LocalCluster "
        "on 127.0.0.1, or --scheduler), serial"
        + ("" if shards else "; a .jsonl batch is counted in chunks of 50 scenarios"),
    )
    p.add_argument("--scheduler", default=None, metavar="ADDRESS", help="an existing Dask scheduler (tcp://host:8786)")
    p.add_argument(
        "--workers",
        type=bounded_int(1, MAX_WORKERS),
        default=None,
        metavar="N",
        help=f"worker processes (local backends; at most {MAX_WORKERS})",
    )


def _combat(doc, args):
    return open_combat(
        scenario_from(doc), side=getattr(args, "side", "attacking"), engine=getattr(args, "engine", "auto")
    )


def cmd_count(args) -> int:
    if getattr(args, "backend", None) is not None or getattr(args, "scheduler", None) is not None:
        return _count_distributed(args)

    def one(doc):
        try:
            return {"count": _combat(doc, args).count(time_limit=args.time_limit)}, EXIT_OK
        except LimitReached as err:  # no count: say so on stdout (complete: false) and on stderr, exit 1
            print(f"trample: count {err}; no count (complete: false)", file=sys.stderr)
            return {"count": None, "complete": False, "time_limit": args.time_limit}, EXIT_NO

    return run_batch(args.file, one)


def _count_distributed(args) -> int:
    """``count --backend ...``: the documents counted in chunks on the backend, results in order."""
    results = count_documents(
        iter_documents(args.file),
        side=getattr(args, "side", "attacking"),
        engine=getattr(args, "engine", "auto"),
        time_limit=args.time_limit,
        backend=args.backend or "dask",
        scheduler=args.scheduler,
        workers=args.workers,
    )
    worst = EXIT_OK
    batch = is_batch(args.file)
    for kind, value in results:
        if kind == "count":
            emit({"count": value})
        elif not batch:
            if kind == "error":
                raise FormatError("", str(value))
            print(f"trample: count {value}; no count (complete: false)", file=sys.stderr)
            emit({"count": None, "complete": False, "time_limit": args.time_limit})
            worst = max(worst, EXIT_NO)
        elif kind == "error":
            print(f"trample: {value}", file=sys.stderr)
            emit({"error": value})
            worst = EXIT_BAD
        else:
            print(f"trample: {value}; the result is incomplete", file=sys.stderr)
            emit({"error": value, "complete": False})
            worst = max(worst, EXIT_NO)
    return worst


def _enumerate_shards(args) -> int:
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
    if scenario.step == "combat":
        raise FormatError("step", '--shards enumerates one damage step ("combat" holds two)')
    manifest = enumerate_shards(
        scenario,
        args.output,
        args.shards,
        side=getattr(args, "side", "attacking"),
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
                write_chunks(out, _bulk_lines(combat, args, stopped), done, bar.advance)
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


def _bulk_lines(combat: DamageStep, args, stopped) -> Iterator[tuple[str, int]]:
    """(text, lines) per block of the step's assignments, up to --limit; --time-limit sets stopped["time"]."""
    left = args.limit
    rows = jsonl_rows(len(combat.plan.columns))
    try:
        for block in combat.assignment_blocks(rows=rows, time_limit=args.time_limit):
            if left is not None:
                block = block[:left]
                left -= len(block)
            yield combat.jsonl(block), len(block)
            if left is not None and left <= 0:
                return
    except LimitReached:
        stopped["time"] = True


def _progress(args, doc):
    """A progress bar on standard error when writing to a file (trample.cli_scale), else nothing."""
    return jsonl_progress(args, doc)


def cmd_check(args) -> int:
    def one(doc, adoc):
        result = _combat(doc, args).check(adoc)  # one step: an assignment; "combat": {"first_strike", "regular"}
        return result.to_json(), (EXIT_OK if result.legal else EXIT_NO)

    return run_paired(args.file, args.assignment, one)
