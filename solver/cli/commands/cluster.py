"""``trample cluster``: a local Dask cluster that stays up, so that many commands share it (``--scheduler ADDRESS``)
instead of each starting its own (about 2-4 s of wall time and 0.65 s of CPU per worker process: docs/scale.md,
"Overhead of Dask").

It prints the scheduler's address on standard output (one line, flushed: a script reads it) and waits; Ctrl-C or
SIGTERM closes it (exit 0). Registered by trample.cli through ``add_commands``; distributed is imported only when
it runs (``pip install 'trample[dask]'``).
"""

from __future__ import annotations

import os
import sys
import threading

from ...limits import deadline_of, notice, unwatched
from ...models import FormatError
from .. import EXIT_OK
from ..options import MAX_WORKERS, add_time_limit, bounded_int, require_extra


def add_commands(subparsers) -> None:
    p = subparsers.add_parser(
        "cluster",
        help="start a local Dask cluster, print its address and keep it up until Ctrl-C (for --scheduler)",
    )
    p.add_argument(
        "--workers",
        type=bounded_int(1, MAX_WORKERS),
        default=None,
        metavar="N",
        help=f"worker processes of one thread each (default: one per CPU; at most {MAX_WORKERS})",
    )
    p.add_argument(
        "--port", type=bounded_int(0, 65535), default=0, metavar="N", help="the scheduler's port (default 0: any free)"
    )
    p.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)")
    add_time_limit(p, "close the cluster after this many seconds (exit 0); default: until Ctrl-C or SIGTERM")
    p.set_defaults(func=cmd_cluster)


def cmd_cluster(args) -> int:
    from ... import cluster

    unwatched()  # its limit is when it closes: the watchdog must not end it (its workers would be left running)
    require_extra("cluster", "distributed", "dask")
    from distributed import LocalCluster

    workers = args.workers or os.cpu_count() or 1
    deadline = deadline_of(args.time_limit)
    with cluster.quiet():
        try:
            local = cluster.start_local(LocalCluster, **cluster.local_options(workers, args.port, args.host))
        except OSError as err:
            raise FormatError("--port", f"cannot listen on {args.host}:{args.port}: {err.strerror or err}") from None
        with local:
            print(local.scheduler_address, flush=True)
            print(
                f"trample: a Dask cluster of {workers} worker{'s' if workers != 1 else ''} at "
                f"{local.scheduler_address}; give it to commands with --backend dask --scheduler "
                f"{local.scheduler_address}; Ctrl-C closes it",
                file=sys.stderr,
                flush=True,
            )
            _wait(deadline)
    print("trample: the cluster is closed", file=sys.stderr)
    return EXIT_OK


def _wait(deadline) -> None:
    """Until Ctrl-C or SIGTERM (a KeyboardInterrupt: the cluster is closed and the command exits 0), or the
    deadline."""
    stop = threading.Event()  # never set: the wait ends by a signal or the deadline
    try:
        while True:
            left = deadline.remaining()
            if left is not None and left <= 0:
                notice()  # the limit is the command's own end: the watchdog leaves its close alone
                return
            stop.wait(1.0 if left is None else min(left, 1.0))
    except KeyboardInterrupt:
        return
