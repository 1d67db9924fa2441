"""Document I/O shared by the command-line commands and the arena: reading text files and standard input,
JSON Lines batches, the result lines, and the argument types of the command line. It sits below every
command module (``trample.cli`` and ``trample.cli_*`` import it; nothing here imports a command)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Iterator

from .engines import engine_names
from .limits import LimitReached
from .models import FormatError, load_scenario, parse_json_text
from .models.errors import expect_object

EXIT_OK, EXIT_NO, EXIT_BAD = 0, 1, 2


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


# ---------------------------------------------------------------------------------------------
# Command-line arguments
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
    return engine_names()
