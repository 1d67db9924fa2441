"""``trample count``, ``trample enumerate`` and ``trample check``: one damage step's (or a whole combat's) legal
assignments, counted, listed and checked (FORMAT.md). Registered by solver/cli.py through ``add_commands``."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator

from .cli_scale import enumerate_jsonl_to, enumerate_npy, jsonl_progress
from .docio import (
    EXIT_NO,
    EXIT_OK,
    add_step_options,
    distinct_files,
    is_batch,
    iter_documents,
    positive_int,
    run_batch,
    run_paired,
    scenario_from,
    seconds,
)
from .limits import LimitReached
from .models import FormatError
from .whole import open_combat


def add_commands(sub) -> None:
    p = sub.add_parser("count", help="the exact number of legal assignments")
    p.add_argument("file", metavar="FILE", help="scenario JSON, a .jsonl batch, or - for standard input")
    p.add_argument(
        "--time-limit",
        type=seconds,
        default=None,
        help='seconds per scenario; past it: {"count": null, "complete": false}, exit 1',
    )
    add_step_options(p)
    p.set_defaults(func=cmd_count)

    p = sub.add_parser("enumerate", help="every legal assignment, one JSON line each")
    p.add_argument("file", metavar="FILE")
    p.add_argument("--limit", type=positive_int, default=None, help="stop after N assignments")
    p.add_argument("--time-limit", type=seconds, default=None, help="stop after this many seconds")
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
    add_step_options(p)
    p.set_defaults(func=cmd_enumerate)

    p = sub.add_parser("check", help="is this assignment legal? which rules does it break?")
    p.add_argument("file", metavar="FILE")
    p.add_argument("assignment", metavar="ASSIGNMENT", help="assignment JSON file, .jsonl, - or inline JSON")
    add_step_options(p)
    p.set_defaults(func=cmd_check)


def _combat(doc, args):
    return open_combat(
        scenario_from(doc), side=getattr(args, "side", "attacking"), engine=getattr(args, "engine", "auto")
    )


def cmd_count(args) -> int:
    def one(doc):
        try:
            return {"count": _combat(doc, args).count(time_limit=args.time_limit)}, EXIT_OK
        except LimitReached as err:  # no count: say so on stdout (complete: false) and on stderr, exit 1
            print(f"trample: count {err}; no count (complete: false)", file=sys.stderr)
            return {"count": None, "complete": False, "time_limit": args.time_limit}, EXIT_NO

    return run_batch(args.file, one)


def cmd_enumerate(args) -> int:
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
        code = run_batch(args.file, lambda doc: ({"assignments": list(stream(doc))}, EXIT_OK))
    else:
        ((_, doc),) = iter_documents(args.file)
        out = sys.stdout
        with _progress(args, doc) as bar:
            for n, a in enumerate(stream(doc), 1):
                out.write(json.dumps(a, separators=(",", ":")) + "\n")
                if n % 4096 == 0:
                    out.flush()
                    bar.advance(4096)
        code = EXIT_OK
    if stopped["time"]:
        print(f"trample: enumerate stopped at --time-limit {args.time_limit}s; the list is incomplete", file=sys.stderr)
    return code


def _progress(args, doc):
    """A progress bar on standard error when writing to a file (trample.cli_scale), else nothing."""
    return jsonl_progress(args, doc)


def cmd_check(args) -> int:
    def one(doc, adoc):
        result = _combat(doc, args).check(adoc)  # one step: an assignment; "combat": {"first_strike", "regular"}
        return result.to_json(), (EXIT_OK if result.legal else EXIT_NO)

    return run_paired(args.file, args.assignment, one)
