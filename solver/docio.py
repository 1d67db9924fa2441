"""Document I/O shared by the command-line commands and the arena: reading text files and standard input,
JSON Lines batches, the result lines, and the argument types of the command line. It sits below every
command module (``trample.cli`` and ``trample.cli_*`` import it; nothing here imports a command)."""

from __future__ import annotations

import argparse
import contextlib
import importlib.metadata
import importlib.util
import json
import os
import re
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator

from .engines import engine_names
from .limits import (  # the interrupt machinery lives in limits (stdlib only): the command line installs it first
    STATE,
    CommandLimit,
    InterruptState,
    LimitReached,
    alarm,
    interrupts,
    parse_seconds,
    work_done,
)
from .models import FormatError, load_scenario, parse_json_text
from .models.errors import expect_object

EXIT_OK, EXIT_NO, EXIT_BAD = 0, 1, 2
EXIT_INTERRUPTED = 130  # SIGINT or SIGTERM: the work done so far is kept (docs/format.md, "Outputs")

__all__ = ["STATE", "InterruptState", "interrupts", "work_done"]  # re-exported from trample.limits


_AMBIENT: list = [None]  # the --time-limit of a command run under limited() (docio's batches arm it per document)


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


# ---------------------------------------------------------------------------------------------
# Atomic outputs
# ---------------------------------------------------------------------------------------------


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def is_regular_target(path: str) -> bool:
    """Whether ``path`` is (or will be) a regular file: /dev/null, a FIFO or a terminal is written in place."""
    try:
        import stat

        return stat.S_ISREG(os.stat(path).st_mode)
    except FileNotFoundError:
        return True
    except OSError:
        return False


class AtomicFiles:
    """Output files written under a temporary name in their own folder (``.NAME.XXXX.part``) and renamed over
    their final names only when complete (:meth:`commit`): a reader, or a ``kill -9`` at any moment, never sees
    a half-written file under the final name. Files committed together (a matrix and its columns file) are
    renamed under a lock on their folder, so that two concurrent runs cannot mix one's matrix with the other's
    columns. Used as a context manager: leaving normally or by KeyboardInterrupt commits (the caller has
    finished what was done), any other exception discards."""

    def __init__(self):
        self._files: list[dict] = []

    def open(self, path: str, binary: bool = False, whole_lines: bool = False):
        """A file object to write ``path`` through. ``whole_lines``: on commit, text after the last newline
        (a line cut short by an interrupt) is dropped."""
        try:
            if not is_regular_target(path):
                fh = open(path, "wb" if binary else "w", encoding=None if binary else "utf-8")
                self._files.append({"fh": fh, "tmp": None, "path": path, "whole": False})
                return fh
            if os.path.isdir(path):
                raise IsADirectoryError(21, "Is a directory", path)
            folder = os.path.dirname(os.path.abspath(path))
            base = os.path.basename(path)
            ext = os.path.splitext(base)[1]
            fd, tmp = tempfile.mkstemp(prefix=f".{base}.", suffix=f".part{ext}", dir=folder)
        except OSError as err:
            raise FormatError(path, f"cannot write: {err.strerror}") from None
        try:
            os.fchmod(fd, 0o666 & ~_umask())
        except OSError:
            pass
        fh = os.fdopen(fd, "wb" if binary else "w", encoding=None if binary else "utf-8")
        self._files.append({"fh": fh, "tmp": tmp, "path": path, "whole": whole_lines})
        return fh

    def temp_name(self, path: str) -> str:
        """A temporary name for ``path`` (same folder and extension) that a writer fills itself (matplotlib):
        committed with the others."""
        fh = self.open(path, binary=True)
        fh.close()
        return self._files[-1]["tmp"] or path

    def commit(self) -> None:
        for f in self._files:
            fh = f["fh"]
            if not fh.closed:
                fh.flush()
                if f["whole"] and f["tmp"]:
                    _trim_to_line(fh.fileno())
                try:
                    os.fsync(fh.fileno())
                except OSError:
                    pass
                fh.close()
        pending = [f for f in self._files if f["tmp"]]
        if pending:
            with _folder_lock(os.path.dirname(os.path.abspath(pending[0]["path"]))):
                for f in pending:
                    os.replace(f["tmp"], f["path"])
                    f["tmp"] = None
        self._files = []

    def discard(self) -> None:
        for f in self._files:
            try:
                f["fh"].close()
            except OSError:
                pass
            if f["tmp"]:
                with contextlib.suppress(OSError):
                    os.unlink(f["tmp"])
        self._files = []

    def __enter__(self):
        return self

    def __exit__(self, kind, err, tb):
        if kind is None or issubclass(kind, KeyboardInterrupt):
            try:
                self.commit()
            except BaseException:
                self.discard()
                raise
        else:
            self.discard()
        return False


def _trim_to_line(fd: int) -> None:
    """Cut a file after its last newline (nothing to do when it ends with one or is empty)."""
    size = os.lseek(fd, 0, os.SEEK_END)
    if size == 0:
        return
    pos = size
    while pos > 0:
        step = min(pos, 1 << 16)
        pos -= step
        chunk = os.pread(fd, step, pos)
        k = chunk.rfind(b"\n")
        if k >= 0:
            if pos + k + 1 != size:
                os.ftruncate(fd, pos + k + 1)
            return
    os.ftruncate(fd, 0)


@contextlib.contextmanager
def _folder_lock(folder: str):
    try:
        import fcntl

        fd = os.open(folder, os.O_RDONLY)
    except (ImportError, OSError):
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def check_writable(option: str, path: str) -> None:
    """Bad input (before any work) unless a file can be created in ``path``'s folder."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".check", dir=folder)
    except OSError as err:
        raise FormatError(option, f"cannot write {path}: {err.strerror}") from None
    os.close(fd)
    os.unlink(tmp)


def package_version() -> str:
    """trample's version: the installed distribution's, else (run from a source tree that was never installed)
    the one pyproject.toml beside the package declares, else "unknown"."""
    try:
        return importlib.metadata.version("trample")
    except importlib.metadata.PackageNotFoundError:
        pass
    pyproject = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pyproject.toml")
    try:
        with open(pyproject, encoding="utf-8") as fh:
            found = re.search(r'^version\s*=\s*"([^"]+)"', fh.read(), re.M)
    except OSError:
        found = None
    return found.group(1) if found else "unknown"


# ---------------------------------------------------------------------------------------------
# Optional packages (the extras of pyproject.toml)
# ---------------------------------------------------------------------------------------------


def has_module(name: str) -> bool:
    """Is the optional package ``name`` installed (found without importing it)?"""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def require_extra(option: str, module: str, extra: str) -> None:
    """Bad input (one line, exit 2), before any work, when ``option`` needs an optional package that is missing."""
    if not has_module(module):
        raise FormatError(option, f"needs the optional package {module}: pip install 'trample[{extra}]'")


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
    sys.stdout.write(dumps(obj) + "\n")


def dumps(obj, **options) -> str:
    """Compact JSON text of a result, whatever the size of its integers (a count may have more than the 4300
    digits Python converts to text by default; reading stays capped)."""
    options.setdefault("separators", (",", ":"))
    with any_digits():
        return json.dumps(obj, **options)


@contextlib.contextmanager
def any_digits():
    """Lift Python's cap on int-to-text conversion for the duration (output only: big numbers in the input stay
    refused by the models' bounds)."""
    get = getattr(sys, "get_int_max_str_digits", None)
    if get is None:
        yield
        return
    old = get()
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(old)


def prefixed(where: str, err: FormatError) -> FormatError:
    if not where:
        return err
    return FormatError(f"{where}: {err.path}" if err.path else where, err.message)


def run_batch(path: str, one: Callable[[object], tuple[dict, int]]) -> int:
    """Run ``one(document) -> (result, exit code)`` per document; a bad line yields an error line."""
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
            err = prefixed(where, err)
            print(f"trample: {err}", file=sys.stderr)
            emit({"error": str(err)})
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


MAX_WORKERS = 256  # --workers: worker processes (a million started processes without a cap)
MAX_SHARDS = 100_000  # --shards: files written (a billion ran out of memory building the list of ranges)
MAX_BOARDS = 1_000_000  # arena --n: generated boards


def bounded_int(low: int, high: int) -> Callable[[str], int]:
    """An argument type: a whole number from ``low`` to ``high`` (docs/format.md, "Sizes")."""

    def parse(text: str) -> int:
        try:
            value = int(text.strip(), 10) if len(text) <= 40 else None
        except ValueError:
            value = None
        if value is None:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {shown(text)}")
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"expected a whole number from {low} to {high}, got {shown(text)}")
        return value

    return parse


def seconds(text: str) -> float:
    """Seconds on the command line: finite, positive, at most trample.limits.MAX_SECONDS."""
    try:
        return parse_seconds(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def time_limit(text: str) -> float:
    """``--time-limit SECONDS``, parsed here for every command: counted from the start of the command (its first
    instruction; loading included), and again from the start of each later document of a ``.jsonl`` batch
    (trample.limits.CommandLimit)."""
    return CommandLimit(seconds(text))


def add_time_limit(p: argparse.ArgumentParser, help: str | None = None) -> None:
    """``--time-limit SECONDS`` (the one parser of it, shared by every command)."""
    p.add_argument(
        "--time-limit",
        type=time_limit,
        default=None,
        metavar="SECONDS",
        help=help or "stop after this many seconds (past it: one line on standard error, exit 1)",
    )


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


def jsonl_rows(columns: int) -> int:
    """Rows per chunk of JSON Lines formatted in bulk: about 4 MB of formatting work whatever the columns."""
    return max(256, min(1 << 16, (1 << 22) // (12 * max(1, columns))))


def write_chunks(out, chunks: Iterable[tuple[str, int]], done: list[int], advance=None) -> None:
    """Write ``(text, lines)`` chunks, each written and counted (``done[0]``) together, so that the interrupt line
    says what the output holds; flushed after each, ``advance(lines)`` called after each when given."""
    for text, lines in chunks:
        STATE.hold()
        try:
            out.write(text)
            done[0] += lines
        finally:
            STATE.release()
        out.flush()
        if advance is not None:
            advance(lines)


# ---------------------------------------------------------------------------------------------
# Progress on standard error
# ---------------------------------------------------------------------------------------------


class Progress:
    """A rich progress bar on standard error, or nothing (rich missing, or not ``enabled``). Moved on by
    :meth:`advance`, or called with ``(done, total)`` (a total known only once the work starts)."""

    def __init__(self, total: int | None, description: str, enabled: bool, console=None, transient: bool = False):
        self._bar = None
        self._task = None
        if not enabled:
            return
        try:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )
            from rich.progress import (
                Progress as RichProgress,
            )
        except ImportError:  # rich is optional (pip install trample[progress])
            return
        console = console or Console(file=sys.stderr)
        self._bar = RichProgress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=console,
            transient=transient,
        )
        self._task = self._bar.add_task(description, total=total)

    def __enter__(self):
        if self._bar is not None:
            self._bar.start()
        return self

    def advance(self, n: int) -> None:
        if self._bar is not None and self._task is not None:
            self._bar.advance(self._task, n)

    def __call__(self, done: int, total: int | None = None) -> None:
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, completed=done, total=total)

    def __exit__(self, *exc):
        if self._bar is not None:
            self._bar.stop()
        return False


def is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
