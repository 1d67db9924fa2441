"""External players: any program that speaks JSON Lines on its standard input and output.

Protocol (one decision = one line each way, the program keeps running between decisions):

- trample writes ``{"scenario": {...}, "objective": "max-damage,max-value", "seed": 123}`` and a newline
  (the scenario in FORMAT.md's normal form: every field written);
- the program answers one line: the assignment ``{"attacker": {"recipient": n}}`` (FORMAT.md), or
  ``{"assignment": {...}}``.

A decision that takes longer than ``timeout`` seconds, a program that exits, and a line that is not an
assignment are scored as illegal (rules ``"timeout"``, ``"crash"``, ``"bad-output"``) and the run goes on:
a hung program is killed, and a dead one is started again for the next decision.
POSIX only (``select`` on pipes).
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import tempfile
import time

from .player import Player

MAX_LINE = 16 << 20  # a longer answer is garbage


class PlayerFailure(Exception):
    """The player did not produce an assignment; ``kind`` is the rule the decision is scored under."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind
        self.message = message


class ExternalPlayer(Player):
    def __init__(
        self,
        argv,
        name: str | None = None,
        timeout: float = 5.0,
        startup_timeout: float = 10.0,
        cwd: str | None = None,
        env: dict | None = None,
    ):
        self.argv = list(argv)
        self.name = name or f"cmd:{' '.join(self.argv)}"
        self.timeout = float(timeout)
        self.startup_timeout = float(startup_timeout)
        self.cwd = cwd
        self.env = env
        self._proc = None
        self._err = None
        self._buf = b""
        self._fresh = False
        self.starts = 0

    # pickling (for worker processes) carries the command, never the running program
    def __getstate__(self):
        state = dict(self.__dict__)
        state.update(_proc=None, _err=None, _buf=b"", _fresh=False)
        return state

    # -- the program's life -----------------------------------------------------------------------
    def _start(self) -> None:
        self._err = tempfile.TemporaryFile()
        try:
            self._proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._err,
                cwd=self.cwd,
                env=self.env,
                start_new_session=True,
            )
        except OSError as err:
            self._err.close()
            self._err = None
            self._proc = None
            raise PlayerFailure("crash", f"cannot start {self.argv[0]!r}: {err.strerror or err}") from None
        self._buf = b""
        self._fresh = True
        self.starts += 1

    def _alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def pid(self) -> int | None:
        """The process id of the program, while one is started (None before the first decision and after close)."""
        return None if self._proc is None else self._proc.pid

    @property
    def running(self) -> bool:
        """Whether the program is started and has not exited."""
        return self._alive()

    def close(self) -> None:
        """Stop the program (politely: close its input, then kill its process group if it lingers)."""
        proc, self._proc = self._proc, None
        if proc is not None:
            try:
                if proc.stdin:
                    proc.stdin.close()
            except OSError:
                pass
            try:
                proc.wait(timeout=0.5)
            except subprocess.TimeoutExpired:
                self._kill(proc)
            if proc.stdout:
                proc.stdout.close()
        if self._err is not None:
            self._err.close()
            self._err = None
        self._buf = b""

    @staticmethod
    def _kill(proc) -> None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # its own session: the program and its children
        except (ProcessLookupError, PermissionError):
            pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass

    def _stderr_tail(self, n: int = 200) -> str:
        if self._err is None:
            return ""
        try:
            self._err.seek(0, os.SEEK_END)
            size = self._err.tell()
            self._err.seek(max(0, size - n))
            text = self._err.read().decode("utf-8", "replace").strip()
        except (OSError, ValueError):
            return ""
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

    # -- one decision -----------------------------------------------------------------------------
    def decide(self, scenario, objective, seed):
        if not self._alive():
            if self._proc is not None:
                self.close()
            self._start()
        request = {"scenario": scenario.to_json(), "objective": str(objective), "seed": int(seed)}
        data = (json.dumps(request, separators=(",", ":")) + "\n").encode()
        self._drain()
        try:
            self._proc.stdin.write(data)
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._fail_dead() from None
        budget = self.timeout + (self.startup_timeout if self._fresh else 0.0)
        self._fresh = False
        line = self._read_line(time.monotonic() + budget)
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

    def _drain(self) -> None:
        """Forget anything the program printed beyond its last answer (keeps request and answer in step)."""
        self._buf = b""
        fd = self._proc.stdout.fileno()
        while True:
            ready, _, _ = select.select([fd], [], [], 0)
            if not ready:
                return
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return

    def _read_line(self, deadline: float) -> str:
        fd = self._proc.stdout.fileno()
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                proc = self._proc
                self._proc = None
                self._kill(proc)
                if proc.stdout:
                    proc.stdout.close()
                if self._err is not None:
                    self._err.close()
                    self._err = None
                raise PlayerFailure("timeout", f"{self.name} gave no answer within {self.timeout:g} s")
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
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


def _clip(text: str, n: int = 60) -> str:
    text = json.dumps(text)
    return text if len(text) <= n else text[: n - 4] + '..."'
