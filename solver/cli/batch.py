"""Running a command over its documents: one document, or a ``.jsonl`` batch of one per line (docs/format.md):
one result line per input line, a bad line or a line stopped by ``--time-limit`` answered by an error line while
the others go on; the streamed lists of ``enumerate`` and ``sample``; the result lines written whole, so that an
interrupt leaves only whole lines (trample.limits holds the signal handlers and the interrupt state)."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterable, Iterator

from ..documents import dumps, is_batch, iter_documents, label, prefixed
from ..limits import STATE, CommandLimit, LimitReached, alarm, work_done
from ..models import FormatError, parse_json_text
from ..models.errors import expect_object
from . import EXIT_BAD, EXIT_NO, EXIT_OK

_AMBIENT: list = [None]  # the --time-limit of a command run under limited() (the batches arm it per document)


def limited(command: Callable, whole: bool = False) -> Callable:
    """A command handler run under its ``--time-limit`` where its work does not look at a Deadline itself:
    each document of :func:`run_batch` / :func:`run_paired` is worked under :func:`trample.limits.alarm`
    (the result and error lines between documents are never cut, and a batch gives one line per input line);
    ``whole``: the whole command instead (one document, or a command that writes files: arena, render)."""

    def run(args) -> int:
        limit = getattr(args, "time_limit", None)
        _AMBIENT[0] = limit
        try:
            if whole:
                with alarm(limit):
                    return command(args)
            return command(args)
        finally:
            _AMBIENT[0] = None

    run.__wrapped__ = command  # type: ignore[attr-defined]
    return run


def emit(obj) -> None:
    sys.stdout.write(dumps(obj) + "\n")


def emit_whole(obj, written: list[int]) -> None:
    """:func:`emit` a result line and count it (``written[0]``) as one step: an interrupt waits for both (the
    interrupt line says how many lines the output holds), and the line is flushed, so that a command stopped
    while it waits for the next result (a backend's batch) keeps every line it wrote."""
    STATE.hold()
    try:
        emit(obj)
        written[0] += 1
    finally:
        STATE.release()
    sys.stdout.flush()


def emit_results(results: Iterator, line_of: Callable[[tuple], tuple[dict, int]]) -> int:
    """Write a backend's results in order, one whole line each (:func:`emit_whole`): ``line_of(item) -> (line,
    exit code)`` says what an item of ``results`` writes; the worst exit code is returned. Ctrl-C ends the pool's
    workers at once (the generator is closed) and keeps the lines written."""
    worst = EXIT_OK
    written = [0]
    work_done(lambda: f"{written[0]} result lines written")
    with contextlib.closing(results):  # type: ignore[type-var]
        for item in results:
            line, code = line_of(item)
            worst = max(worst, code)
            emit_whole(line, written)
    return worst


def run_batch(path: str, one: Callable[[object], tuple[dict, int]], stopped: tuple[dict, str] | None = None) -> int:
    """Run ``one(document) -> (result, exit code)`` per document; a bad line yields an error line, a line past its
    time limit the incomplete line (``stopped``: the command's own line at its limit, and what standard error adds
    after the place and the limit: count's ``{"count": null, ...}`` and "no count (complete: false)")."""
    worst = EXIT_OK
    for where, doc in iter_documents(path):
        if where:
            CommandLimit.restart_all()  # --time-limit is per document of a batch
        try:
            if isinstance(doc, FormatError):
                raise doc
            with alarm(_AMBIENT[0]):
                result, code = one(doc)
        except FormatError as err:
            if not where:
                raise
            _bad_line(where, err)
            worst = EXIT_BAD
            continue
        except LimitReached as err:
            if not where:
                raise
            _limit_line(where, err, stopped)
            worst = max(worst, EXIT_NO)
            continue
        emit(result)
        if code > worst:
            worst = code
    return worst


def stream_batch(path: str, items: Callable[[object], Iterator], key: str = "assignments") -> int:
    """Like :func:`run_batch` for results that are long lists: each result line ``{"<key>": [...]}`` is written
    item by item as ``items(document)`` yields them, never held in memory. A line cut by an interrupt is closed
    (``..., "complete": false}``) before the interrupt goes on; a time limit reached before the first item gives
    the usual incomplete line, after it closes the list with ``"complete": false``."""
    worst = EXIT_OK
    out = sys.stdout
    for where, doc in iter_documents(path):
        if where:
            CommandLimit.restart_all()
        n = 0
        try:
            if isinstance(doc, FormatError):
                raise doc
            stream = iter(items(doc))
            for item in stream:
                text = dumps(item)
                out.write((f'{{"{key}":[' if n == 0 else ",") + text)
                n += 1
            out.write(f'{{"{key}":[]}}\n' if n == 0 else "]}\n")
        except FormatError as err:
            if n:
                out.write('],"complete":false}\n')
            if not where:
                raise
            _bad_line(where, err)
            worst = EXIT_BAD
        except LimitReached as err:
            if n:
                out.write('],"complete":false}\n')
                print(f"trample: {where or 'FILE'}: {err}; the result is incomplete", file=sys.stderr)
            elif not where:
                raise
            else:
                _limit_line(where, err)
            worst = max(worst, EXIT_NO)
        except KeyboardInterrupt:
            out.write(('],"complete":false}' if n else f'{{"{key}":[],"complete":false}}') + "\n")
            raise
    return worst


def _bad_line(where: str, err: FormatError) -> None:
    """A batch line that is bad input: one line on standard error, an error result line."""
    err = prefixed(where, err)
    print(f"trample: {err}", file=sys.stderr)
    emit({"error": str(err)})


def _limit_line(where: str, err: LimitReached, stopped: tuple[dict, str] | None = None) -> None:
    """A batch line stopped by --time-limit: one line on standard error, an incomplete result line."""
    line, said = stopped or ({"error": f"{where}: {err}", "complete": False}, "the result is incomplete")
    print(f"trample: {where}: {err}; {said}", file=sys.stderr)
    emit(line)


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
        if where or awhere:
            CommandLimit.restart_all()
        try:
            if isinstance(doc, FormatError):
                raise doc
            if isinstance(adoc, FormatError):  # a line of the assignment file: name that file and its line
                raise prefixed(f"{label(assignment)}: {awhere}" if awhere and where else awhere, adoc)
            if isinstance(adoc, str):  # JSON text inside a JSON string: the loaders would decode it again
                expect_object(adoc, "assignment")
            with alarm(_AMBIENT[0]):
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


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def jsonl_rows(columns: int) -> int:
    """Rows per chunk of JSON Lines formatted in bulk: about 4 MB of formatting work whatever the columns."""
    return max(256, min(1 << 16, (1 << 22) // (12 * max(1, columns))))


def write_all(raw, data: bytes) -> None:
    """Write all of ``data`` to the binary stream ``raw``. A signal whose handler returns (an interrupt held back
    while a chunk is written and counted) cuts a large write to a pipe short: ``BufferedWriter.write`` then
    returns the bytes it wrote (Python 3.11 handed 64-128 KB of a 1.6 MB chunk to the reader, and a text stream's
    ``write`` said it wrote it all), so the rest is written here until none is left: the output holds every
    line counted, whole."""
    view = memoryview(data)
    while len(view):
        n = raw.write(view)
        view = view[n or 0 :]


def write_chunks(out, chunks: Iterable[tuple[str | bytes, int]], done: list[int], advance=None, wrote=None) -> None:
    """Write ``(text, lines)`` chunks, each written and counted (``done[0]``) together, so that the interrupt line
    says what the output holds; flushed after each, ``advance(lines)`` called after each when given. Chunks go
    straight to the binary stream under ``out`` when it has one (``out`` flushed first, so the order holds; text
    encoded as UTF-8), each written whole (:func:`write_all`); ``wrote(out, bytes)`` after each when given
    (:func:`trample.cli.files.written`: a file synced as it grows)."""
    raw = getattr(out, "buffer", None)
    if raw is not None:
        out.flush()
    for text, lines in chunks:
        STATE.hold()
        try:
            if raw is not None:
                write_all(raw, text if isinstance(text, bytes) else text.encode("utf-8"))
            else:
                out.write(text if isinstance(text, str) else text.decode("ascii"))
            done[0] += lines
        finally:
            STATE.release()
        (raw if raw is not None else out).flush()
        if wrote is not None:
            wrote(out, len(text))  # files.written: an atomic output synced as it grows
        if advance is not None:
            advance(lines)
