"""External players: any program that speaks JSON Lines on its standard input and output.

Protocol (one decision = one line each way, the program keeps running between decisions):

- trample writes ``{"scenario": {...}, "objective": "max-damage,max-value", "seed": 123}`` and a newline
  (the scenario in docs/format.md's normal form: every field written);
- the program answers one line: the assignment ``{"attacker": {"recipient": n}}`` (docs/format.md), or
  ``{"assignment": {...}}``.

A decision that takes longer than ``timeout`` seconds (writing the request included: a program that does not
read its input times out too), a program that exits, and a line that is not an assignment are scored as illegal
(rules ``"timeout"``, ``"crash"``, ``"bad-output"``) and the run goes on: a hung program is killed, and a dead one
is started again for the next decision -- until it has failed ``max_failures`` decisions in a row: then it is
benched (rule ``"benched"``, never started again). The first decision of a program gets ``startup_timeout``
seconds more.
POSIX only (``select`` on pipes).
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import threading
import time
from collections.abc import Mapping
from typing import IO

from .player import Player

MAX_LINE = 16 << 20  # a longer answer is garbage


class PlayerFailure(Exception):
    """The player did not produce an assignment; ``kind`` is the rule the decision is scored under."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind
        self.message = message


MAX_FAILURES = 3  # failures in a row before a player is benched (--max-failures)
STDERR_TAIL = 64 << 10  # bytes of a player's standard error kept (the last ones), whatever it writes
DRAIN_LIMIT = 4 << 20  # bytes of stray output read (and dropped) before a decision; a flood is not waited out


class ExternalPlayer(Player):
    """A program answering decisions on its standard output. It is untrusted: writes to it never block (a program
    that never reads its input times out), only the last :data:`STDERR_TAIL` bytes of its standard error are kept,
    and it runs in its own process group, killed with every process it started (even those that left the group:
    the arena becomes their subreaper and kills them by process id) when it is closed or times out.

    ``max_failures``: after that many failed decisions in a row (timeout, crash, bad output) the player is
    *benched*: it is not started again, and every later decision fails at once with kind ``"benched"`` and the
    reason (``benched`` holds it). 0 or None: never benched."""

    def __init__(
        self,
        argv,
        name: str | None = None,
        timeout: float = 5.0,
        startup_timeout: float = 10.0,
        cwd: str | None = None,
        env: dict | None = None,
        max_failures: int | None = MAX_FAILURES,
    ):
        self.argv = list(argv)
        self.name = name or f"cmd:{' '.join(self.argv)}"
        self.timeout = float(timeout)
        self.startup_timeout = float(startup_timeout)
        self.cwd = cwd
        self.env = env
        self.max_failures = max_failures
        self.failures = 0  # in a row
        self.benched: str | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._tail = bytearray()
        self._buf = b""
        self._fresh = False
        self._hung = False  # the last decision timed out: a restart gets no start-up allowance
        self._family: dict[int, int] = {}  # pid -> start time of every process the program started
        self.starts = 0

    # pickling (for worker processes) carries the command, never the running program
    def __getstate__(self):
        state = dict(self.__dict__)
        state.update(_proc=None, _tail=bytearray(), _buf=b"", _fresh=False, _family={})
        return state

    # -- the program's life -----------------------------------------------------------------------
    def _start(self) -> None:
        become_subreaper()
        # started and registered as one step: another chunk's reaping (a threaded worker) lists this process's
        # children under the same lock, so it never takes a player started but not yet registered for an orphan
        # (it killed it and collected its exit status: the player then seemed to have exited with code 0)
        with _PLAYERS_LOCK:
            try:
                self._proc = subprocess.Popen(
                    self.argv,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    cwd=self.cwd,
                    env=self.env,
                    start_new_session=True,
                    bufsize=0,
                )
            except OSError as err:
                self._proc = None
                raise PlayerFailure("crash", f"cannot start {self.argv[0]!r}: {err.strerror or err}") from None
            _LIVE_PLAYERS.add(self._proc.pid)  # not an orphan: another chunk's reaping spares it
        stdin, _, stderr = _pipes(self._proc)
        os.set_blocking(stdin.fileno(), False)
        os.set_blocking(stderr.fileno(), False)
        self._tail = bytearray()
        self._buf = b""
        self._fresh = not self._hung
        self.starts += 1

    def _alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def pid(self) -> int | None:
        """The process id of the program, while one is started (None before the first decision and after close)."""
        return None if self._proc is None else self._proc.pid

    @property
    def stderr_tail(self) -> bytes:
        """The last bytes (at most STDERR_TAIL) the program wrote on its standard error."""
        self._read_err()
        return bytes(self._tail)

    @property
    def running(self) -> bool:
        """Whether the program is started and has not exited."""
        return self._alive()

    def close(self) -> None:
        """Stop the program (politely: close its input; then its process group and every process it started are
        killed, and reaped)."""
        proc, self._proc = self._proc, None
        if proc is not None:
            self._note_family(proc.pid)
            stdin, stdout, stderr = _pipes(proc)
            try:
                stdin.close()
            except OSError:
                pass
            try:
                proc.wait(timeout=0.5)
            except subprocess.TimeoutExpired:
                pass
            self._kill(proc)
            for fh in (stdout, stderr):
                try:
                    fh.close()
                except OSError:
                    pass
        self._buf = b""

    def _kill(self, proc) -> None:
        """SIGKILL to the program's process group, to every process it started (even in another session), and
        wait for them."""
        _LIVE_PLAYERS.discard(proc.pid)
        self._note_family(proc.pid)
        for pgid in {proc.pid} | set(self._family):
            try:
                os.killpg(pgid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError, OSError):
                pass
        for pid, started in list(self._family.items()):
            if _start_time(pid) == started:  # the same process, not a new one that got its number
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        _reap(self._family)
        self._family = {}

    def _note_family(self, root: int) -> None:
        """Remember every process below ``root`` (and the orphans it left, reparented to this process)."""
        for pid in _descendants(root):
            started = _start_time(pid)
            if started is not None:
                self._family.setdefault(pid, started)

    def _read_err(self) -> None:
        """Read what the program wrote on standard error, keeping the last STDERR_TAIL bytes."""
        if self._proc is None:
            return
        try:
            while True:
                chunk = os.read(_pipes(self._proc)[2].fileno(), 1 << 16)
                if not chunk:
                    return
                self._tail += chunk
                if len(self._tail) > STDERR_TAIL:
                    del self._tail[: len(self._tail) - STDERR_TAIL]
        except (BlockingIOError, OSError, ValueError):
            return

    def _stderr_tail(self, n: int = 200) -> str:
        self._read_err()
        text = bytes(self._tail[-n:]).decode("utf-8", "replace").strip()
        return text.splitlines()[-1] if text else ""

    def _fail_dead(self) -> PlayerFailure:
        code = None
        if self._proc is not None:
            try:
                code = self._proc.wait(timeout=1)  # its output closed: it is exiting (or about to)
            except subprocess.TimeoutExpired:
                pass
        tail = self._stderr_tail()
        msg = f"{self.name} exited" + (f" with code {code}" if code is not None else "")
        if tail:
            msg += f": {tail}"
        self.close()
        return PlayerFailure("crash", msg)

    def _fail_timeout(self, what: str) -> PlayerFailure:
        self._hung = True
        proc, self._proc = self._proc, None
        if proc is not None:
            self._kill(proc)
            for fh in _pipes(proc):
                try:
                    fh.close()
                except OSError:
                    pass
        return PlayerFailure("timeout", f"{self.name} {what} within {self.timeout:g} s")

    # -- one decision -----------------------------------------------------------------------------
    def decide(self, scenario, objective, seed):
        if self.benched:
            raise PlayerFailure("benched", f"{self.name} is benched: {self.benched}")
        try:
            answer = self._decide(scenario, objective, seed)
        except PlayerFailure as err:
            self.failures += 1
            if self.max_failures and self.failures >= self.max_failures:
                self.benched = f"{self.failures} failed decisions in a row (the last: {err.kind})"
                self.close()
            raise
        self.failures = 0
        return answer

    def _decide(self, scenario, objective, seed):
        if not self._alive():
            if self._proc is not None:
                self.close()
            self._start()
        request = {"scenario": scenario.to_json(), "objective": str(objective), "seed": int(seed)}
        data = (json.dumps(request, separators=(",", ":")) + "\n").encode()
        self._drain()
        budget = self.timeout + (self.startup_timeout if self._fresh else 0.0)
        self._fresh = False
        deadline = time.monotonic() + budget
        self._write(data, deadline)
        line = self._read_line(deadline)
        self._hung = False
        if self._proc is not None:
            self._note_family(self._proc.pid)
        try:
            answer = json.loads(line)
        except (ValueError, RecursionError):
            raise PlayerFailure("bad-output", f"{self.name} answered a line that is not JSON: {_clip(line)}") from None
        if not isinstance(answer, dict):
            raise PlayerFailure("bad-output", f"{self.name} answered {_clip(line)}, not an assignment object")
        inner = answer.get("assignment")
        if isinstance(inner, dict) and "assignment" not in scenario:
            answer = inner
        return answer

    def _write(self, data: bytes, deadline: float) -> None:
        """Write the request without ever blocking: a program that does not read it times out."""
        stdin, _, stderr = _pipes(self._proc)
        fd = stdin.fileno()
        err = stderr.fileno()
        view = memoryview(data)
        while view:
            left = deadline - time.monotonic()
            if left <= 0:
                raise self._fail_timeout("did not read its input")
            readable, writable, _ = select.select([err], [fd], [], left)
            if readable:
                self._read_err()
            if not writable:
                continue
            try:
                n = os.write(fd, view)
            except BlockingIOError:
                continue
            except OSError:  # BrokenPipeError: it exited
                raise self._fail_dead() from None
            view = view[n:]

    def _drain(self) -> None:
        """Forget anything the program printed beyond its last answer (keeps request and answer in step); a
        program flooding its output is not waited out (at most DRAIN_LIMIT bytes are read)."""
        self._buf = b""
        self._read_err()
        fd = _pipes(self._proc)[1].fileno()
        dropped = 0
        while dropped < DRAIN_LIMIT:
            ready, _, _ = select.select([fd], [], [], 0)
            if not ready:
                return
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return
            dropped += len(chunk)

    def _read_line(self, deadline: float) -> str:
        _, stdout, stderr = _pipes(self._proc)
        fd = stdout.fileno()
        err = stderr.fileno()
        watch = [fd, err]
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise self._fail_timeout("gave no answer")
            ready, _, _ = select.select(watch, [], [], left)
            if err in ready:
                self._read_err()
            if fd not in ready:
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise self._fail_dead()
            self._buf += chunk
            if len(self._buf) > MAX_LINE:
                self.close()
                raise PlayerFailure("bad-output", f"{self.name} answered more than {MAX_LINE} bytes on one line")
        line, _, self._buf = self._buf.partition(b"\n")
        return line.decode("utf-8", "replace").strip()


# ---------------------------------------------------------------------------------------------
# Processes started by a player (Linux: /proc; elsewhere only the process group is killed)
# ---------------------------------------------------------------------------------------------

_SUBREAPER: list = []
_LIVE_PLAYERS: set[int] = set()  # pids of the programs of players still running, in this process
_PLAYERS_LOCK = threading.Lock()  # a player's start and registration, against another thread's reap_orphans


def become_subreaper() -> None:
    """Linux: orphans of the players' processes are reparented to this process (not to init), so they can be
    found, killed and reaped even when they left the player's session."""
    if _SUBREAPER:
        return
    _SUBREAPER.append(True)
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass


def children_now() -> frozenset:
    """This process's children at this moment (``(pid, start time)``): spared by :func:`reap_orphans`."""
    return frozenset((pid, _start_time(pid)) for pid in _children(os.getpid()))


def reap_orphans(spare: frozenset = frozenset()) -> None:
    """Kill and reap what the players left behind: the processes reparented to this process (its subreaper) that
    live in another session than this one (a player's program runs in its own session, and so do the processes
    that left it), except those in ``spare`` (children this process had before the players started: an
    embedding program's own) and the programs of players still running (a Dask worker with threads runs several
    chunks in one process: one chunk's reaping must not kill another chunk's player). Only once this process is a
    subreaper (it started external players)."""
    if not _SUBREAPER:
        return
    try:
        mine = os.getsid(0)
    except OSError:
        return
    family: dict[int, int | None] = {}
    with _PLAYERS_LOCK:  # no player starts between the listing and the kill (see ExternalPlayer._start)
        for pid in _children(os.getpid()):
            try:
                if os.getsid(pid) != mine and pid not in _LIVE_PLAYERS:
                    started = _start_time(pid)
                    if (pid, started) not in spare:
                        family[pid] = started
            except OSError:
                continue
        for pid, started in family.items():
            if _start_time(pid) == started:
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
    _reap(family)


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as fh:
                out += [int(x) for x in fh.read().split()]
        except (OSError, ValueError):
            continue
    return out


def _descendants(root: int) -> list[int]:
    seen: list[int] = []
    todo = [root]
    while todo:
        pid = todo.pop()
        for child in _children(pid):
            if child not in seen and child != root:
                seen.append(child)
                todo.append(child)
    return seen


def _start_time(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
        return int(stat[stat.rindex(b")") + 2 :].split()[19])
    except (OSError, ValueError, IndexError):
        return None


def _reap(family: Mapping[int, int | None]) -> None:
    """Collect the exit status of the killed processes that became this process's children (no zombies)."""
    end = time.monotonic() + 1.0
    pending = set(family)
    while pending and time.monotonic() < end:
        for pid in list(pending):
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:  # not (yet) our child: its own parent reaps it, or it is being reparented
                if not os.path.exists(f"/proc/{pid}"):
                    pending.discard(pid)
                continue
            if done:
                pending.discard(pid)
        if pending:
            time.sleep(0.01)


def _pipes(proc: subprocess.Popen[bytes] | None) -> tuple[IO[bytes], IO[bytes], IO[bytes]]:
    """stdin, stdout and stderr of a started program (always started with all three piped)."""
    assert proc is not None and proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    return proc.stdin, proc.stdout, proc.stderr


def _clip(text: str, n: int = 60) -> str:
    text = json.dumps(text)
    return text if len(text) <= n else text[: n - 4] + '..."'
