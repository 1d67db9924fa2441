"""The ``trample`` command line (FORMAT.md): JSON out, exit 0 / 1 (the answer is no) / 2 (bad input).

Bad input never shows a traceback: one line on standard error naming the place, and exit code 2.
Subcommands of other areas register themselves through ``add_commands(subparsers)`` in the modules listed in
``EXTENSIONS`` (imported only when present, and never importing ortools at import time).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from collections.abc import Callable, Iterator

from .limits import LimitReached
from .models import FormatError, load_scenario, parse_json_text
from .models.errors import expect_object

EXIT_OK, EXIT_NO, EXIT_BAD = 0, 1, 2

# Modules that add subcommands: each defines add_commands(subparsers).
EXTENSIONS = (
    "trample.cli_solve",
    "trample.cli_scale",
    "trample.cli_library",
    "trample.cli_arena",
    "trample.cli_render",
)


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2, no usage dump
        raise UsageError(f"{self.prog}: {message}")


# ---------------------------------------------------------------------------------------------
# Reading inputs
# ---------------------------------------------------------------------------------------------


def read_text(path: str, what: str = "FILE") -> str:
    """The text of a file, or of standard input for ``-``: UTF-8 (a leading byte order mark is skipped)."""
    if not path.strip():
        raise FormatError(what, "expected a file name, or - for standard input")
    try:
        if path == "-":
            stream = getattr(sys.stdin, "buffer", None)
            if stream is None:  # a text stream put in place of standard input (tests, embedding)
                return sys.stdin.read().removeprefix("\ufeff")
            data = stream.read()
        else:
            with open(path, "rb") as fh:
                data = fh.read()
    except FileNotFoundError:
        raise FormatError(path, "no such file") from None
    except IsADirectoryError:
        raise FormatError(path, "is a directory, expected a JSON file") from None
    except OSError as err:
        raise FormatError(label(path), f"cannot read: {err.strerror}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise FormatError(label(path), f"not UTF-8 text (byte {err.start + 1} is 0x{data[err.start]:02x})") from None


def label(path: str) -> str:
    """How an error names an input file: its path, or "standard input" for ``-``."""
    return "standard input" if path == "-" else path


def is_batch(path: str) -> bool:
    return path.endswith(".jsonl")


def unwrap_scenario(obj):
    """Accept a perft line ``{"name", "scenario": {...}, ...}`` where a scenario is expected."""
    if _wrapped(obj):
        return obj["scenario"]
    return obj


def _wrapped(obj) -> bool:
    return isinstance(obj, dict) and "scenario" in obj and "attackers" not in obj


def iter_documents(path: str) -> Iterator[tuple[str, object]]:
    """(location prefix, decoded JSON) for one document, or for each non-blank line of a .jsonl file."""
    text = read_text(path)
    if not is_batch(path):
        try:
            doc = parse_json_text(text, label(path))
        except FormatError as err:
            if err.message.startswith("not JSON: Extra data"):  # several documents: the user meant a batch
                raise FormatError(
                    err.path,
                    f"{err.message} (one JSON document expected; a batch of one document "
                    f"per line is a file whose name ends in .jsonl)",
                ) from None
            raise
        yield "", doc
        return
    # Lines end at "\n" only: str.splitlines() would also cut at U+2028, form feeds and other characters that
    # JSON strings may hold raw, and the result lines would no longer match the input lines.
    for n, line in enumerate(text.split("\n"), 1):
        line = line.removesuffix("\r")
        if line.strip():
            where = f"line {n}"
            try:
                yield where, parse_json_text(line)
            except FormatError as err:
                yield where, err


def emit(obj) -> None:
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")


def prefixed(where: str, err: FormatError) -> FormatError:
    if not where:
        return err
    return FormatError(f"{where}: {err.path}" if err.path else where, err.message)


def run_batch(path: str, one: Callable[[object], tuple[dict, int]]) -> int:
    """Run ``one(document) -> (result, exit code)`` per document; a bad line yields an error line."""
    worst = EXIT_OK
    for where, doc in iter_documents(path):
        try:
            if isinstance(doc, FormatError):
                raise doc
            result, code = one(doc)
        except FormatError as err:
            if not where:
                raise
            err = prefixed(where, err)
            print(f"trample: {err}", file=sys.stderr)
            emit({"error": str(err)})
            worst = EXIT_BAD
            continue
        except LimitReached as err:
            if not where:
                raise
            _limit_line(where, err)
            worst = max(worst, EXIT_NO)
            continue
        emit(result)
        if code > worst:
            worst = code
    return worst


def _limit_line(where: str, err: LimitReached) -> None:
    """A batch line stopped by --time-limit: one line on standard error, an incomplete result line."""
    print(f"trample: {where}: {err}; the result is incomplete", file=sys.stderr)
    emit({"error": f"{where}: {err}", "complete": False})


def scenario_from(doc, path=""):
    """The scenario of a document: the document itself, or the ``scenario`` field of a perft-style line."""
    if _wrapped(doc):
        doc, path = doc["scenario"], f"{path}.scenario" if path else "scenario"
    # An object, never a string: load_scenario would read a string as JSON text, so a double-encoded document
    # ("{\"attackers\": []}") was silently accepted.
    return load_scenario(expect_object(doc, path or "scenario"), path)


# ---------------------------------------------------------------------------------------------
# count / enumerate / check
# ---------------------------------------------------------------------------------------------


def _combat(doc, args):
    from .combat import open_combat

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
        from .cli_scale import enumerate_npy

        return enumerate_npy(args)
    if getattr(args, "output", None) not in (None, "-"):
        from .cli_scale import enumerate_jsonl_to

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
    try:
        from .cli_scale import jsonl_progress
    except ModuleNotFoundError as err:
        if err.name != "trample.cli_scale":
            raise
        import contextlib

        class _Nothing(contextlib.nullcontext):
            def advance(self, n):
                pass

        return _Nothing(None)
    return jsonl_progress(args, doc)


def _assignment_docs(path: str):
    """ASSIGNMENT: inline JSON (an object, or any other JSON text that is not a file's name), ``-`` or a file."""
    if not path.strip():
        raise FormatError("ASSIGNMENT", "expected JSON, a file name, or - for standard input")
    if path.lstrip().startswith("{"):
        return [("", parse_json_text(path, "ASSIGNMENT"))]
    if path != "-" and not os.path.exists(path):
        if path.lstrip().startswith("["):
            return [("", parse_json_text(path, "ASSIGNMENT"))]
        try:  # null, 5, "text": JSON, but not an assignment (said so by the loader, at "assignment")
            return [("", parse_json_text(path, "ASSIGNMENT"))]
        except FormatError:
            pass  # not JSON either: a file that does not exist (said so below)
    return list(iter_documents(path))


def run_paired(path: str, assignment: str, one: Callable[[object, object], tuple[dict, int]]) -> int:
    """Like :func:`run_batch`, for commands that read a scenario and an assignment (``check``, ``rank``).

    With a ``.jsonl`` scenario file, ASSIGNMENT is a ``.jsonl`` file of as many lines, or one assignment applied
    to every scenario.
    """
    if path == "-" and assignment == "-":
        raise FormatError("ASSIGNMENT", "FILE and ASSIGNMENT cannot both be read from standard input")
    scen = list(iter_documents(path))
    asg = _assignment_docs(assignment)
    if is_batch(path) and len(asg) == 1 and not is_batch(assignment):
        asg = asg * len(scen)
    if len(scen) != len(asg):
        raise FormatError(
            label(assignment), f"has {_plural(len(asg), 'assignment')} for {_plural(len(scen), 'scenario')}"
        )
    worst = EXIT_OK
    for (where, doc), (awhere, adoc) in zip(scen, asg):
        try:
            if isinstance(doc, FormatError):
                raise doc
            if isinstance(adoc, FormatError):  # a line of the assignment file: name that file and its line
                raise prefixed(f"{label(assignment)}: {awhere}" if awhere and where else awhere, adoc)
            if isinstance(adoc, str):  # JSON text inside a JSON string: the loaders would decode it again
                expect_object(adoc, "assignment")
            result, code = one(doc, adoc)
        except FormatError as err:
            if not where and not awhere:
                raise
            err = prefixed(where or awhere, err)
            print(f"trample: {err}", file=sys.stderr)
            emit({"error": str(err)})
            worst = EXIT_BAD
            continue
        except LimitReached as err:
            if not where and not awhere:
                raise
            _limit_line(where or awhere, err)
            worst = max(worst, EXIT_NO)
            continue
        emit(result)
        worst = max(worst, code)
    return worst


def cmd_check(args) -> int:
    def one(doc, adoc):
        result = _combat(doc, args).check(adoc)  # one step: an assignment; "combat": {"first_strike", "regular"}
        return result.to_json(), (EXIT_OK if result.legal else EXIT_NO)

    return run_paired(args.file, args.assignment, one)


# ---------------------------------------------------------------------------------------------
# The parser
# ---------------------------------------------------------------------------------------------


def distinct_files(inputs, outputs) -> None:
    """Refuse an output file that is an input file or another output (``enumerate s.json -o s.json`` emptied the
    scenario before reading it). ``outputs`` holds ``(option, path)`` pairs; None and ``-`` are skipped."""
    seen = {}
    for path in inputs:
        if path not in (None, "-"):
            seen[os.path.realpath(path)] = "an input file"
    for option, path in outputs:
        if path in (None, "-") or not path.strip():
            continue
        real = os.path.realpath(path)
        if real in seen:
            raise FormatError(option, f"{path} is {seen[real]}; writing it would overwrite it")
        seen[real] = f"the {option} file"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def shown(text: str) -> str:
    """A command-line value quoted for a one-line error message, cut short when long."""
    return repr(text) if len(text) <= 40 else repr(text[:37]) + "..."


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {shown(text)}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative number, got {shown(text)}")
    return value


def seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {shown(text)}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {shown(text)}")
    return value


def add_step_options(p: argparse.ArgumentParser) -> None:
    """--side and --engine, shared by the commands that read a combat scenario."""
    p.add_argument(
        "--side",
        choices=["attacking", "defending", "both"],
        default="attacking",
        help="whose damage assignment: the attacking player's (default), the defending player's, or both",
    )
    p.add_argument(
        "--engine",
        default="auto",
        choices=engine_choices(),
        metavar="ENGINE",
        help=f"{', '.join(engine_choices())} (default auto)",
    )


def engine_choices() -> list[str]:
    """The registered engine names (trample.engines imports no engine until one is used)."""
    from .engines import engine_names

    return engine_names()


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

    for name in EXTENSIONS:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as err:
            if err.name == name:
                continue
            raise
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
