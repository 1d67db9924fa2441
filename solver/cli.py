"""The ``trample`` command line (FORMAT.md): JSON out, exit 0 / 1 (the answer is no) / 2 (bad input).

Bad input never shows a traceback: one line on standard error naming the place, and exit code 2.
Subcommands of other areas register themselves through ``add_commands(subparsers)`` in the command modules
listed in ``EXTENSIONS`` (none of them imports ortools at import time). The shared reading and writing helpers
are in :mod:`trample.docio`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator

from . import cli_arena, cli_library, cli_scale, cli_solve
from .cli_scale import enumerate_jsonl_to, enumerate_npy, jsonl_progress
from .docio import (  # noqa: F401  (re-exported: trample.cli.read_text etc. keep working)
    EXIT_BAD,
    EXIT_NO,
    EXIT_OK,
    add_step_options,
    distinct_files,
    emit,
    engine_choices,
    is_batch,
    iter_documents,
    label,
    positive_int,
    prefixed,
    read_text,
    run_batch,
    run_paired,
    scenario_from,
    seconds,
    shown,
    unwrap_scenario,
)
from .limits import LimitReached
from .models import FormatError
from .whole import open_combat

# The modules that add subcommands: each defines add_commands(subparsers).
EXTENSIONS = (cli_solve, cli_scale, cli_library, cli_arena)


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2, no usage dump
        raise UsageError(f"{self.prog}: {message}")


# ---------------------------------------------------------------------------------------------
# count / enumerate / check
# ---------------------------------------------------------------------------------------------


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


# ---------------------------------------------------------------------------------------------
# The parser
# ---------------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="trample", description="Rules-exact combat damage assignment (Magic: The Gathering).")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

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

    for module in EXTENSIONS:
        module.add_commands(sub)
    return parser


def main(argv=None) -> int:
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        code = args.func(args)
        sys.stdout.flush()  # a failing write (a full disk) is reported here, not by the interpreter at exit
        return code
    except UsageError as err:
        print(str(err), file=sys.stderr)
        return EXIT_BAD
    except FormatError as err:
        print(f"trample: {err}", file=sys.stderr)
        return EXIT_BAD
    except LimitReached as err:  # a limited command that has no partial answer to give
        print(f"trample: {err}; the result is incomplete", file=sys.stderr)
        return EXIT_NO
    except BrokenPipeError:  # the reader left (`trample enumerate ... | head -1`): not an error
        _drop_stdout()
        return EXIT_OK
    except MemoryError:  # numpy says so before the system does: one line rather than a traceback
        print(
            "trample: out of memory: the board is too large for this command (try --time-limit, --limit or a "
            "smaller board)",
            file=sys.stderr,
        )
        return EXIT_BAD
    except OSError as err:  # e.g. the output cannot be written (a full disk): one line, no traceback
        try:
            sys.stdout.flush()
        except (OSError, ValueError):
            _drop_stdout()
        where = f"{err.filename}: " if err.filename else ""
        print(f"trample: {where}{err.strerror or err}", file=sys.stderr)
        return EXIT_BAD
    except KeyboardInterrupt:
        print("trample: interrupted", file=sys.stderr)
        return 130


def _drop_stdout() -> None:
    """Point standard output at the null device, so that the flush at exit cannot fail a second time."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        sys.stdout = None


if __name__ == "__main__":
    sys.exit(main())
