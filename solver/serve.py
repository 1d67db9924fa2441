"""trample as a rules oracle for other programs: JSON Lines requests in, JSON Lines responses out (docs/serve.md).

An engine written in another language (Java, Kotlin, Rust, ...) keeps one ``trample serve`` process and sends it
one request per line, on its standard input or over a local TCP socket; each request gets one response line with
the same documents the commands print:

    {"id": 7, "command": "count", "scenario": {...}}
    {"id": 7, "exit": 0, "result": {"count": 36}}

A request never ends the server: bad input gets ``{"id": ..., "exit": 2, "error": "one line naming the place"}``
and the next request is read. ``handle`` is the whole protocol (one request line → one response object); the
transports (:func:`serve_lines`, :func:`serve_tcp`) only move lines.
"""

from __future__ import annotations

import io
import json
import math
import socketserver
import threading
from collections.abc import Callable, Iterable
from typing import IO, Any

from .limits import LimitReached
from .models import FormatError, load_scenario, parse_json_text

__all__ = ["COMMANDS", "MAX_LINE", "MAX_ENUMERATE", "handle", "serve_lines", "serve_tcp"]

COMMANDS = ("count", "enumerate", "check", "solve", "ping")
#: A request line longer than this (bytes) is refused without being parsed: a client cannot make the server hold
#: an unbounded line in memory.
MAX_LINE = 16 * 1024 * 1024
#: ``enumerate`` answers a list: at most this many assignments per request (``limit``, default 1000).
MAX_ENUMERATE = 100_000
DEFAULT_ENUMERATE = 1000
_FIELDS = {"id", "command", "scenario", "assignment", "objective", "side", "engine", "limit", "time_limit"}
_SIDES = ("attacking", "defending", "both")


def handle(line: str | bytes, time_limit: float | None = None) -> dict:
    """One request line → its response object (never raises for bad input: ``exit`` 2 and ``error``).

    ``time_limit`` is the server's cap in seconds on each request; a request's own ``time_limit`` may only lower it.
    """
    request_id: Any = None
    try:
        if isinstance(line, bytes):
            if len(line) > MAX_LINE:
                raise FormatError("request", f"longer than {MAX_LINE} bytes")
            try:
                line = line.decode("utf-8")
            except UnicodeDecodeError as err:
                raise FormatError("request", f"not UTF-8 (byte {err.start})") from None
        if len(line) > MAX_LINE:
            raise FormatError("request", f"longer than {MAX_LINE} characters")
        doc = parse_json_text(line, "request")
        if not isinstance(doc, dict):
            raise FormatError("request", "expected a JSON object")
        given = doc.get("id")
        if given is not None and (isinstance(given, bool) or not isinstance(given, (str, int, float))):
            raise FormatError("request.id", "expected a string or a number")
        request_id = given
        return {"id": request_id, **_answer(doc, time_limit)}
    except FormatError as err:
        return {"id": request_id, "exit": 2, "error": str(err)}
    except RecursionError:
        return {"id": request_id, "exit": 2, "error": "request: nested too deeply"}


def _answer(doc: dict, cap: float | None) -> dict:
    unknown = sorted(set(doc) - _FIELDS)
    if unknown:
        raise FormatError(f"request.{unknown[0]}", "unknown field")
    command = doc.get("command")
    if command not in COMMANDS:
        shown = json.dumps(command, ensure_ascii=False)[:80]
        raise FormatError("request.command", f"expected one of {', '.join(COMMANDS)}, got {shown}")
    if command == "ping":
        from .documents import package_version

        return {"exit": 0, "result": {"trample": package_version()}}
    if "scenario" not in doc:
        raise FormatError("request.scenario", "missing")
    scenario = load_scenario(doc["scenario"], "request.scenario")
    side = doc.get("side", "attacking")
    if side not in _SIDES:
        raise FormatError("request.side", f"expected one of {', '.join(_SIDES)}")
    engine = doc.get("engine", "auto")
    if not isinstance(engine, str):
        raise FormatError("request.engine", "expected a string")
    limit = _time_limit(doc.get("time_limit"), cap)

    from .optimize import parse_objectives
    from .whole import open_combat

    try:
        combat = open_combat(scenario, side=side, engine=engine)
    except ValueError as err:  # an engine name the registry does not know
        raise FormatError("request.engine", str(err)) from None
    if command == "count":
        try:
            return {"exit": 0, "result": {"count": combat.count(time_limit=limit)}}
        except LimitReached:
            return {"exit": 1, "result": {"count": None, "complete": False, "time_limit": limit}}
    if command == "enumerate":
        return _enumerate(combat, doc, limit)
    if command == "check":
        if "assignment" not in doc:
            raise FormatError("request.assignment", "missing")
        result = combat.check(doc["assignment"])
        return {"exit": 0 if result.legal else 1, "result": result.to_json()}
    # solve
    objective = doc.get("objective")
    if not isinstance(objective, str):
        raise FormatError("request.objective", 'expected a string such as "lethal,max-value"')
    try:
        objectives = parse_objectives(objective, combat.scenario)
    except FormatError as err:
        raise FormatError("request.objective", err.message) from None
    result = combat.solve(objectives, time_limit=limit)
    return {"exit": 0 if result.status in ("optimal", "feasible") else 1, "result": result.to_json()}


def _enumerate(combat, doc: dict, limit: float | None) -> dict:
    """The answer to an enumerate request: at most the request's ``limit`` assignments (within the time ``limit``),
    and whether that is all."""
    n = _positive_int(doc.get("limit", DEFAULT_ENUMERATE), "request.limit", MAX_ENUMERATE)
    out: list = []
    complete = True
    try:
        for a in combat.assignments(limit=n + 1, time_limit=limit):
            if len(out) == n:  # one more than asked for: the list goes on
                complete = False
                break
            out.append(a.to_json())
    except LimitReached:
        complete = False
    return {"exit": 0, "result": {"assignments": out, "complete": complete}}


def _time_limit(value, cap: float | None) -> float | None:
    if value is None:
        return cap
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise FormatError("request.time_limit", "expected a positive number of seconds")
    return float(value) if cap is None else min(float(value), cap)


def _positive_int(value, where: str, most: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise FormatError(where, "expected a positive integer")
    if value > most:
        raise FormatError(where, f"at most {most} per request")
    return value


def _dump(response: dict) -> bytes:
    return (json.dumps(response, separators=(",", ":"), ensure_ascii=False) + "\n").encode("utf-8")


def _too_long(request_id: Any = None) -> dict:
    return {"id": request_id, "exit": 2, "error": f"request: longer than {MAX_LINE} bytes"}


def _lines(stream: IO[bytes] | io.BufferedIOBase) -> Iterable[bytes | None]:
    """Lines of a byte stream, each at most MAX_LINE bytes; ``None`` stands for a line that was longer (its bytes
    are read and dropped, never held)."""
    while True:
        line = stream.readline(MAX_LINE + 1)
        if not line:
            return
        if len(line) > MAX_LINE and not line.endswith(b"\n"):
            while True:  # skip the rest of the long line in bounded pieces
                rest = stream.readline(MAX_LINE)
                if not rest or rest.endswith(b"\n"):
                    break
            yield None
            continue
        yield line


def serve_lines(
    reader: IO[bytes] | io.BufferedIOBase,
    writer: IO[bytes] | io.BufferedIOBase,
    time_limit: float | None = None,
    on_answer: Callable[[], None] | None = None,
) -> int:
    """Answer every request line of ``reader`` on ``writer`` in order, until end of input; returns the number of
    requests answered. Blank lines are skipped."""
    answered = 0
    for line in _lines(reader):
        if line is not None and not line.strip():
            continue
        response = _too_long() if line is None else handle(line, time_limit)
        writer.write(_dump(response))
        writer.flush()
        answered += 1
        if on_answer is not None:
            on_answer()
    return answered


class _Handler(socketserver.StreamRequestHandler):
    server: _Server

    def handle(self) -> None:
        try:
            serve_lines(self.rfile, self.wfile, self.server.time_limit)
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            pass  # the client went away mid-answer: its connection alone ends


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    time_limit: float | None = None


def serve_tcp(
    host: str = "127.0.0.1",
    port: int = 0,
    time_limit: float | None = None,
    ready: Callable[[str, int], None] | None = None,
    stop: threading.Event | None = None,
) -> None:
    """Serve clients on a TCP socket, each connection a JSON Lines stream answered in order, connections served
    concurrently (a thread each). ``port`` 0 picks a free port; ``ready(host, port)`` is called once listening.
    Runs until ``stop`` is set (or KeyboardInterrupt)."""
    with _Server((host, port), _Handler) as server:
        server.time_limit = time_limit
        bound_host, bound_port = server.server_address[:2]
        if ready is not None:
            ready(str(bound_host), int(bound_port))
        if stop is None:
            server.serve_forever(poll_interval=0.2)
            return
        worker = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        worker.start()
        stop.wait()
        server.shutdown()
        worker.join()
