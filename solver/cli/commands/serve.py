"""The commands for other programs (docs/serve.md). ``trample serve``: answer count / enumerate / check / solve
requests as JSON Lines, on standard input and output or on a local TCP socket, for as long as the caller likes (the
protocol is :mod:`trample.serve`). ``trample conformance``: write the conformance suite an engine's own tests run
(:mod:`trample.conformance`).

Registered by solver/cli.py through ``add_commands``.
"""

from __future__ import annotations

import argparse
import json
import sys

from ...limits import STATE, LimitReached, work_done
from ...models import FormatError
from .. import EXIT_NO, EXIT_OK
from ..files import AtomicFiles, check_writable
from ..options import add_output, add_time_limit, positive_int
from ..progress import Progress, is_terminal


def add_commands(sub) -> None:
    p = sub.add_parser(
        "serve",
        help="a long-running rules oracle: JSON Lines requests (count, enumerate, check, solve) answered on "
        "standard output, or on a local TCP socket with --port",
    )
    p.add_argument(
        "--port",
        type=int,
        default=None,
        metavar="N",
        help="listen on this TCP port (0: any free port) instead of standard input; one JSON line per request "
        "and per answer, each connection answered in order, connections concurrently",
    )
    p.add_argument("--host", default="127.0.0.1", help="the address to listen on with --port (default 127.0.0.1)")
    add_time_limit(
        p,
        "seconds at most per request, counted from the start of each request (not of the command: a server runs "
        "for as long as its caller likes); a request's own time_limit may only lower it",
        per_command=False,
    )
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser(
        "conformance",
        help="write a conformance suite for another engine's tests: boards with their exact counts, legal "
        "assignments, and illegal ones with the rules they break (JSON Lines)",
    )
    add_output(p, "write to this file (default: standard output; --out: the older spelling)")
    p.add_argument("--per-level", type=_count, default=4, metavar="N", help="generated boards per arena level (4)")
    p.add_argument("--legal", type=_count, default=3, metavar="K", help="legal assignments per case (3)")
    p.add_argument("--illegal", type=_count, default=3, metavar="K", help="illegal assignments per case (3)")
    p.add_argument("--seed", type=int, default=0, help="the seed of the generated boards and the draws (0)")
    add_time_limit(p, "stop after this many seconds")
    p.set_defaults(func=cmd_conformance)


def _count(text: str) -> int:
    value = positive_int(text)  # a whole number, 0 or more
    if value > 1000:
        raise argparse.ArgumentTypeError(f"at most 1000, got {value}")
    return value


def cmd_serve(args) -> int:
    from ...serve import serve_lines, serve_tcp

    limit = None if args.time_limit is None else float(args.time_limit)
    if args.port is None:
        if args.host != "127.0.0.1":
            raise FormatError("--host", "only with --port")
        serve_lines(sys.stdin.buffer, sys.stdout.buffer, limit)
        return EXIT_OK
    if not 0 <= args.port <= 65535:
        raise FormatError("--port", f"expected 0 to 65535, got {args.port}")

    def ready(host: str, port: int) -> None:  # the one line a caller waits for before it connects
        print(f"trample: serving on {host}:{port}", file=sys.stderr, flush=True)

    try:
        serve_tcp(args.host, args.port, limit, ready=ready)
    except OSError as err:
        raise FormatError("--port", f"cannot listen on {args.host}:{args.port}: {err.strerror or err}") from None
    return EXIT_OK


def cmd_conformance(args) -> int:
    from ...conformance import boards, cases

    if args.output is not None and args.output != "-":
        check_writable("--output", args.output)
    done = [0]
    work_done(lambda: f"{done[0]} conformance cases written")
    docs = boards(per_level=args.per_level, seed=args.seed)
    stopped = False
    with AtomicFiles() as files:
        out = sys.stdout if args.output in (None, "-") else files.open(args.output, whole_lines=True)
        with Progress(None, "conformance cases", is_terminal(sys.stderr), transient=True) as bar:
            try:
                for line in cases(docs, args.legal, args.illegal, args.seed, args.time_limit):
                    text = json.dumps(line, separators=(",", ":")) + "\n"
                    STATE.hold()  # the line written and counted together
                    try:
                        out.write(text)
                        done[0] += 1
                    finally:
                        STATE.release()
                    bar.advance(1)
            except LimitReached:
                stopped = True
        out.flush()
    if stopped:
        print(
            f"trample: conformance stopped at --time-limit {args.time_limit}s after {done[0]} cases; the suite is "
            "incomplete",
            file=sys.stderr,
        )
        return EXIT_NO
    return EXIT_OK
