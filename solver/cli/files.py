"""The files a command writes: atomic outputs (a reader, or a ``kill -9``, never sees a half-written file under
its final name), and the checks made before any work (the folder can be written; no output is an input)."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile

from ..limits import on_abandon
from ..models import FormatError


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
        self._files.append({"fh": fh, "tmp": tmp, "path": path, "whole": whole_lines, "fd": fd})
        _LIVE.add(tmp)
        _UNSYNCED[fd] = 0
        return fh

    def temp_name(self, path: str) -> str:
        """A temporary name for ``path`` (same folder and extension) that a writer fills itself (matplotlib):
        committed with the others."""
        fh = self.open(path, binary=True)
        _UNSYNCED.pop(self._files[-1].get("fd", -1), None)  # written by the other writer, not through written()
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
            _UNSYNCED.pop(f.get("fd", -1), None)  # (closed already or now: its descriptor is free for another file)
        pending = [f for f in self._files if f["tmp"]]
        if pending:
            with _folder_lock(os.path.dirname(os.path.abspath(pending[0]["path"]))):
                for f in pending:
                    os.replace(f["tmp"], f["path"])
                    _LIVE.discard(f["tmp"])
                    f["tmp"] = None
        self._files = []

    def discard(self) -> None:
        for f in self._files:
            _discard(f)
        self._files = []

    def _drop_unwritten(self) -> None:
        """Interrupted before a byte of a file was written (while the command was still importing or reading):
        that file's temporary goes and whatever its final name held stays as it was -- nothing was finished."""
        keep = []
        for f in self._files:
            if f["tmp"] is not None and _nothing_written(f["fh"]):
                _discard(f)
            else:
                keep.append(f)
        self._files = keep

    def __enter__(self):
        return self

    def __exit__(self, kind, err, tb):
        if kind is not None and issubclass(kind, KeyboardInterrupt):
            self._drop_unwritten()
        if kind is None or issubclass(kind, KeyboardInterrupt):
            try:
                self.commit()
            except BaseException:
                self.discard()
                raise
        else:
            self.discard()
        return False


def _discard(f: dict) -> None:
    """Close one file and remove its temporary (its final name keeps what it held)."""
    _UNSYNCED.pop(f.get("fd", -1), None)
    with contextlib.suppress(OSError):
        f["fh"].close()
    if f["tmp"]:
        _LIVE.discard(f["tmp"])
        with contextlib.suppress(OSError):
            os.unlink(f["tmp"])


# The temporaries being written now: removed when the time limit's watchdog ends the process (trample.limits)
_LIVE: set[str] = set()

#: bytes written to an atomic output's temporary between two syncs (:func:`written`). The commit syncs the file
#: before renaming it (a crash never leaves a complete-looking name over data not on disk); synced as it grows, a
#: large output has at most this much left for that last sync, so a run stopped by --time-limit still ends within
#: the limit (700 MB of npy rows synced only at the end took 0.3-0.7 s past it)
SYNC_EVERY = 32 << 20
#: an atomic output's temporary (its file descriptor) -> bytes written to it since its last sync
_UNSYNCED: dict[int, int] = {}


def written(fh, nbytes: int) -> None:
    """Note ``nbytes`` just written to ``fh``: an atomic output's temporary (:class:`AtomicFiles`) is flushed and
    synced (``os.fdatasync``) each time SYNC_EVERY more bytes were written; any other stream (standard output, a
    pipe, /dev/null) is left alone. Called by the writers of large outputs after each block."""
    try:
        fd = (getattr(fh, "buffer", None) or fh).fileno()
    except (AttributeError, OSError, ValueError):
        return
    held = _UNSYNCED.get(fd)
    if held is None:
        return
    held += nbytes
    if held >= SYNC_EVERY:
        fh.flush()
        with contextlib.suppress(OSError):
            os.fdatasync(fd)
        held = 0
    _UNSYNCED[fd] = held


def _remove_live() -> None:
    for tmp in list(_LIVE):
        with contextlib.suppress(OSError):
            os.unlink(tmp)


on_abandon(_remove_live)


def _nothing_written(fh) -> bool:
    """An open file with no byte written through it (a file a writer fills by name is closed: not this)."""
    try:
        return not fh.closed and fh.tell() == 0
    except (OSError, ValueError):
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


@contextlib.contextmanager
def redirected_output(path: str | None, binary: bool = False):
    """Standard output, or a file opened for writing (a one-line error if it cannot be opened)."""
    if path in (None, "-"):
        yield sys.stdout.buffer if binary else sys.stdout
        return
    with AtomicFiles() as files:  # written under a temporary name, renamed when finished (or interrupted)
        yield files.open(path, binary=binary, whole_lines=not binary)
