"""The ``trample`` command line (docs/format.md): JSON out, exit 0 / 1 (the answer is no) / 2 (bad input).

Bad input never shows a traceback: one line on standard error naming the place, and exit code 2.
This module is the entry point (``main``, the console script ``trample`` and ``python -m trample``), the parser
and the dispatch. Every command group lives in a module of :mod:`trample.cli.commands` (``step``: count,
enumerate, check, sample, rank, unrank; ``solve``; ``declare``; ``library``; ``arena``: arena, score; ``schema``:
schema, example; ``render``; ``serve``: serve, conformance; ``cluster``) that registers its commands through
``add_commands(subparsers)`` (none of them imports ortools at import time). What they share is beside them:
``options`` (one definition of every shared option and the argument types), ``batch`` (one document or a
``.jsonl`` batch, result lines), ``files`` (atomic outputs), ``progress`` (the progress bar); the documents they
read are :mod:`trample.documents`'s, the signal handlers and time limits :mod:`trample.limits`'s.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys

# Only the standard library and trample.limits (itself stdlib only) at import time: main() installs the signal
# handlers and starts the --time-limit clock before the heavy imports (numpy, the engines: about 0.4 s, more on a
# loaded machine), so that Ctrl-C or SIGTERM at any moment gives one line and exit 130 (issue 24).
from ..limits import (
    CommandLimit,
    LimitReached,
    answer_at_limit,
    imports_running,
    interrupts,
    parse_seconds,
    quick_exit,
    start_clock,
    unwatched,
    watchdog,
)

# The exit codes of every command (docs/format.md, "Exit codes"); 130: SIGINT or SIGTERM, the work done so far is
# kept (docs/format.md, "Outputs").
EXIT_OK, EXIT_NO, EXIT_BAD, EXIT_INTERRUPTED = 0, 1, 2, 130
#: what standard error adds to count's line at its time limit (:func:`no_count`)
NO_COUNT = "no count (complete: false)"


def no_count(seconds: float) -> dict:
    """count's line at its time limit of ``seconds`` (a document's, a batch line's, or the watchdog's)."""
    return {"count": None, "complete": False, "time_limit": seconds}


def nothing_found(seconds: float) -> dict:
    """solve's line when its time limit of ``seconds`` passed before any assignment was found."""
    return {"status": "unknown", "assignment": None, "objectives": {}, "time_ms": round(seconds * 1000, 3)}


# The registrations of the command modules (trample.cli.commands.NAME), in the order of `trample --help`.
COMMANDS = (
    ("step", "add_commands"),  # count, enumerate, check
    ("solve", "add_commands"),
    ("declare", "add_commands"),
    ("step", "add_index_commands"),  # sample, rank, unrank
    ("library", "add_commands"),
    ("arena", "add_commands"),  # arena, score
    ("schema", "add_commands"),  # schema, example
    ("render", "add_commands"),
    ("serve", "add_commands"),  # serve, conformance
    ("cluster", "add_commands"),
)

# The commands each registration adds (tests/cli/test_cli_startup.py keeps it equal to what they register): a command
# line naming one builds the parser of that registration alone, so that `trample count` imports neither the
# solver's nor the arena's modules (issue 21: the start-up time).
REGISTERS = {
    ("step", "add_commands"): ("count", "enumerate", "check"),
    ("solve", "add_commands"): ("solve",),
    ("declare", "add_commands"): ("declare",),
    ("step", "add_index_commands"): ("sample", "rank", "unrank"),
    ("library", "add_commands"): ("mill", "discover", "seek-thrills", "gnome", "library"),
    ("arena", "add_commands"): ("arena", "score"),
    ("schema", "add_commands"): ("schema", "example"),
    ("render", "add_commands"): ("render",),
    ("serve", "add_commands"): ("serve", "conformance"),
    ("cluster", "add_commands"): ("cluster",),
}


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2, no usage dump
        raise UsageError(f"{self.prog}: {message}")


# ---------------------------------------------------------------------------------------------
# The parser
# ---------------------------------------------------------------------------------------------


class _Version(argparse.Action):
    """``--version``: the package's version, read only when asked (importlib.metadata is slow to import)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings=option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        from ..documents import package_version

        print(f"trample {package_version()}")
        parser.exit()


def _command_named(argv) -> str | None:
    """The command a command line names (its first word; the only options before it are --help and --version)."""
    args = list(argv)
    return args[0] if args and not args[0].startswith("-") else None


def build_parser(argv=None) -> argparse.ArgumentParser:
    """The parser of every command, or, when ``argv`` names a known command, of its registration alone (the
    same options and messages for it, without importing the other command groups)."""
    import importlib

    parser = _Parser(prog="trample", description="Rules-exact combat damage assignment (Magic: The Gathering).")
    parser.add_argument("--version", action=_Version, help="show program's version number and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    named = _command_named(argv) if argv is not None else None
    chosen = [reg for reg in COMMANDS if named in REGISTERS[reg]] or list(COMMANDS)
    if argv is not None and list(argv)[:1] == ["--version"]:  # answered by the top parser: no command imported
        chosen = []
    for name, register in chosen:
        getattr(importlib.import_module(f".commands.{name}", __package__), register)(sub)
    return parser


def main(argv=None) -> int:
    """The command line (``argv``: its words; None: this process's own, ``sys.argv[1:]``). A process that is the
    command (``argv`` None) counts ``--time-limit`` from its own start, is watched by trample.limits.watchdog (a
    limit passed inside an import or native call: one line, exit 1, without waiting for it), and leaves at once
    once its output is flushed when it was given a limit (the interpreter's clean-up, 50-150 ms of wall time under
    load, is not the command's time: a run stopped short of its limit to write its results, as the arena's is, ended
    up to 0.15 s past it) or an import is still running."""
    command_line = argv is None
    start_clock(command_line)  # --time-limit counts from here (the process's start for a real command line)
    if command_line:
        _early_limit(sys.argv[1:])
    with watchdog() if command_line else contextlib.nullcontext():
        code = _guarded(argv)
    if command_line and (imports_running() or CommandLimit.any_given()):
        _leave(code)
    return code


def _early_limit(words: list[str]) -> None:
    """The command's ``--time-limit``, read from its words before the heavy imports and the parser (a loaded
    machine can spend the whole limit importing numpy), so that the watchdog keeps it from the start, with the
    answer the command gives at its limit (:func:`_limit_answer`); the parser reads it again (and says what is
    wrong with a bad one). Not ``serve``'s (there it caps each request), nor a batch's (``.jsonl``: each document
    has its limit, and its line, trample.limits.unwatched)."""
    if not words or words[0] in ("serve", "cluster") or "--" in words:
        return
    outputs = ("-o", "--output", "--out", "--report")
    read = [w for i, w in enumerate(words) if not (i and words[i - 1] in outputs) and not w.startswith("--out")]
    whole = words[0] in ("arena", "score")  # their .jsonl inputs are a suite or decisions: the limit is the command's
    if not whole and any(word.endswith(".jsonl") for word in read):  # an input batch (not an output named .jsonl)
        unwatched()
        return
    for i, word in enumerate(words):
        text = words[i + 1] if word == "--time-limit" and i + 1 < len(words) else None
        if word.startswith("--time-limit="):
            text = word.split("=", 1)[1]
        if text is not None:
            try:
                limit = CommandLimit(parse_seconds(text))
            except ValueError:
                return
            answer_at_limit(_limit_answer(words, float(limit)))
            return


def _limit_answer(words: list[str], seconds: float):
    """What a command whose limit passed in an import or a native call answers (trample.limits.watchdog): the
    answer it documents at its limit, as it gives it when it sees the limit itself (docs/format.md)."""
    import json

    def line(obj) -> None:
        sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")

    def stopped(deadline) -> int:
        print(f"trample: stopped at the time limit of {seconds:g} s; the result is incomplete", file=sys.stderr)
        return EXIT_NO

    def count(deadline) -> int:  # step.py: no count, complete false
        print(f"trample: count stopped at the time limit of {seconds:g} s; {NO_COUNT}", file=sys.stderr)
        line(no_count(seconds))
        return EXIT_NO

    def solve(deadline) -> int:  # nothing found: status unknown, no assignment
        if "--all-optimal" in words:
            print("trample: no assignment found (unknown)", file=sys.stderr)
            return EXIT_NO
        line(nothing_found(seconds))
        return EXIT_NO

    def enumerate_(deadline) -> int:  # what was written stays; exit 0
        print(f"trample: enumerate stopped at --time-limit {seconds}s; the list is incomplete", file=sys.stderr)
        return EXIT_OK

    def starting(deadline) -> int:  # arena, score: their modules not loaded yet, so no board and no file
        done = "boards played" if words[0] == "arena" else "decisions scored"
        print(
            f"trample: stopped at the time limit of {seconds:g} s while the command was starting: 0 {done}, "
            "nothing written; the results are incomplete",
            file=sys.stderr,
        )
        return EXIT_NO

    if words[0] == "enumerate" and "--shards" in words:  # no manifest: the result is incomplete
        return stopped
    answers = {"count": count, "solve": solve, "enumerate": enumerate_, "arena": starting, "score": starting}
    return answers.get(words[0], stopped)


def _guarded(argv) -> int:
    with interrupts() as state:
        try:
            return _main(argv)
        except KeyboardInterrupt:  # raised again by the clean-up, or before _main's handler
            return _interrupted(state)
        except Exception:
            if state.signum is not None:  # an interrupt that surfaced as another error (ortools' import cut short)
                return _interrupted(state)
            raise


def _leave(code: int) -> None:
    """End the process now with ``code``, its output flushed: under a time limit, the interpreter's clean-up
    (freeing numpy's and OR-Tools' modules, a fraction of a second; more under load) and an import still running
    in a thread (trample.limits.import_soon) are not waited for. Every output file is committed or removed by
    now (trample.cli.files: the commands leave their ``with`` blocks before returning)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            code = code or EXIT_BAD if stream is sys.stdout else code
    quick_exit(code)


def _interrupted(state) -> int:
    """SIGINT or SIGTERM: what was written stays (whole lines), one line on standard error, exit 130."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        _drop_stdout()
    try:
        print(state.line(), file=sys.stderr)
    except (OSError, ValueError):
        pass
    return EXIT_INTERRUPTED


def _main(argv=None) -> int:
    from ..limits import STATE

    try:
        from ..models import FormatError  # the heavy imports, under the signal handlers
    except KeyboardInterrupt:
        return _interrupted(STATE)
    try:
        parser = build_parser(sys.argv[1:] if argv is None else argv)
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
        return _interrupted(STATE)


def _drop_stdout() -> None:
    """Point standard output at the null device, so that the flush at exit cannot fail a second time."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        sys.stdout = None


if __name__ == "__main__":
    sys.exit(main())
