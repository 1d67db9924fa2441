"""``trample solve FILE --objective OBJ[,OBJ...]``: the best legal assignment, proven (docs/solve.md).

Registered by solver/cli.py through ``add_commands``; ortools is imported only when a scenario is solved.
"""

from __future__ import annotations

import argparse
import json
import sys

from ...cluster import BACKENDS
from ...combat import Combat
from ...documents import is_batch, iter_documents, prefixed, scenario_from
from ...limits import STATE, Deadline, LimitReached, import_soon, per_document, work_done
from ...models import FormatError, Side
from ...optimize import all_optimal, parse_objectives
from ...optimize.search import CPSAT
from ...whole import open_combat
from .. import EXIT_BAD, EXIT_NO, EXIT_OK, nothing_found
from ..batch import emit_results, jsonl_rows, run_batch, write_chunks
from ..files import written
from ..options import (
    MAX_WORKERS,
    add_backend_options,
    add_step_options,
    add_time_limit,
    positive_int,
    require_backend,
    seconds,
)
from ..progress import Progress, is_terminal

SOLVED = ("optimal", "feasible")


def add_commands(subparsers) -> None:
    p = subparsers.add_parser("solve", help="the best legal assignment for lexicographic objectives")
    p.add_argument("file", metavar="FILE", help="scenario JSON, a .jsonl batch, or - for standard input")
    p.add_argument(
        "--objective",
        required=True,
        metavar="OBJ[,OBJ...]",
        help="max-damage, max-damage:ID, lethal, max-kills, max-value, min-overkill; "
        "several, comma-separated, are lexicographic in the order given",
    )
    p.add_argument(
        "--all-optimal",
        action="store_true",
        help="every optimal assignment, one JSON line each (in a batch: a list per scenario)",
    )
    p.add_argument("--limit", type=positive_int, default=None, help="with --all-optimal: stop after N")
    add_time_limit(p, "wall-clock seconds per scenario; the best found is returned as feasible")
    p.add_argument(
        "--deterministic-time",
        type=seconds,
        default=None,
        help="the same limit in CP-SAT deterministic time units (reproducible)",
    )
    add_step_options(p)
    add_backend_options(
        p,
        BACKENDS,
        backend_help="where a .jsonl batch is solved, in chunks of 50 scenarios: process (a local process pool), "
        "dask (a LocalCluster on 127.0.0.1, or --scheduler), serial; the lines are those of the plain command "
        "(process with --time-limit: one task a scenario, each with its deadline, docs/scale.md)",
        scheduler_help="an existing Dask scheduler (tcp://host:8786)",
        workers_help=f"worker processes (local backends; at most {MAX_WORKERS})",
    )
    p.set_defaults(func=cmd_solve)


def _options(args) -> dict:
    return {"time_limit": args.time_limit, "deterministic_time": args.deterministic_time}


def _combat(doc, args):
    return open_combat(scenario_from(doc), side=args.side, engine=args.engine)


def _solve(doc, args, bar: bool = False):
    combat = _combat(doc, args)
    objectives = parse_objectives(args.objective, combat.scenario)
    if not hasattr(combat, "solve"):
        raise FormatError("step", "solve handles one damage step at a time")
    if bar and not isinstance(combat, Combat):  # a whole combat's search: first-strike assignments searched
        with Progress(None, "first-strike lines searched", True, transient=True) as progress:
            return combat.solve(objectives, progress=progress, **_options(args))
    return combat.solve(objectives, **_options(args))


def _all_optimal(doc, args):
    return _all_optimal_of(_combat(doc, args), args)


def _all_optimal_of(combat, args):
    if not isinstance(combat, Combat):
        raise FormatError("step", "--all-optimal handles one damage step at a time")
    return all_optimal(combat, args.objective, limit=args.limit, **_options(args))


def cmd_solve(args) -> int:
    parse_objectives(args.objective)  # a bad name is bad input before any scenario is read
    if args.time_limit is not None and args.backend is None and args.scheduler is None:
        import_soon(CPSAT)  # OR-Tools imported while the input is read: waited for within the limit (issue 21)
    if args.limit is not None and not args.all_optimal:
        raise FormatError("--limit", "only with --all-optimal")

    if args.backend is not None or args.scheduler is not None:
        return _solve_distributed(args)
    if not args.all_optimal:
        # one whole combat, standard error on a terminal: a progress bar (rich, if installed) while it searches
        bar = not is_batch(args.file) and is_terminal(sys.stderr)

        def one(doc):
            result = _solve(doc, args, bar)
            return result.to_json(), EXIT_OK if result.status in SOLVED else EXIT_NO

        return run_batch(args.file, one)

    if is_batch(args.file):

        def one_list(doc):
            stream = _all_optimal(doc, args)
            out = stream.result.to_json()
            del out["assignment"]
            out["assignments"] = []
            try:
                for a in stream:
                    out["assignments"].append(a.to_json())
            except LimitReached:
                out["complete"] = False
                print("trample: --all-optimal stopped at --time-limit; the list is incomplete", file=sys.stderr)
            out["time_ms"] = out.pop("time_ms")
            return out, EXIT_OK if stream.status in SOLVED else EXIT_NO

        return run_batch(args.file, one_list)

    ((_, doc),) = iter_documents(args.file)
    done = [0]
    work_done(lambda: f"{done[0]} optimal assignments written")
    combat = _combat(doc, args)
    stream = _all_optimal_of(combat, args)
    if stream.status not in SOLVED:
        print(f"trample: no assignment found ({stream.status})", file=sys.stderr)
        return EXIT_NO
    if stream.status != "optimal":
        print(
            "trample: a limit stopped the proof; listing the assignments that reach the best values found",
            file=sys.stderr,
        )
    out = sys.stdout
    blocks = stream.blocks()  # from the direct engine: lines formatted in bulk, a block at a time
    try:
        if blocks is not None:
            rows = jsonl_rows(len(combat.columns))
            chunks = (block[at : at + rows] for block in blocks for at in range(0, len(block), rows))
            write_chunks(out, ((combat.jsonl_bytes(chunk), len(chunk)) for chunk in chunks), done, wrote=written)
            return EXIT_OK
        for n, a in enumerate(stream, 1):
            STATE.hold()  # the line written and counted together: the interrupt line says what the output holds
            try:
                out.write(json.dumps(a.to_json(), separators=(",", ":")) + "\n")
                done[0] = n
            finally:
                STATE.release()
            if n % 4096 == 0:
                out.flush()
    except LimitReached:
        print("trample: --all-optimal stopped at --time-limit; the list is incomplete", file=sys.stderr)
    return EXIT_OK


#: what a worker needs of the command's options to solve as the command does
SOLVE_OPTIONS = ("objective", "time_limit", "deterministic_time", "side", "engine")


def solve_chunk(items: list, options: dict, deadline: Deadline | None = None) -> list[tuple]:
    """Solve each ``(where, document)`` of a chunk as ``trample solve`` does (a worker task): ``("ok", result
    line, exit code)``, ``("error", message)`` for bad input, ``("limit", message)`` past the time limit:
    ``deadline`` when given (the process pool's, for one document), else the command's limit per document."""
    args = argparse.Namespace(**options)
    limit = options.get("time_limit")
    out: list[tuple] = []
    for where, doc in items:
        args.time_limit = deadline if deadline is not None else per_document(limit)
        try:
            result = _solve(doc, args)
            out.append(("ok", result.to_json(), EXIT_OK if result.status in SOLVED else EXIT_NO))
        except FormatError as err:
            out.append(("error", str(prefixed(where, err)) if where else str(err)))
        except LimitReached as err:
            out.append(("limit", f"{where}: {err}"))
    return out


def _solve_distributed(args) -> int:
    """``solve FILE.jsonl --backend ...``: the batch solved in chunks on the backend, its lines (and exit code)
    those of ``trample solve FILE.jsonl``, in order."""
    from ...shard import map_documents

    if args.all_optimal:
        raise FormatError("--backend", "not with --all-optimal (its lists are streamed by this process)")
    if not is_batch(args.file):
        raise FormatError(
            "--backend", "only a .jsonl batch is solved on a backend (in chunks): solve one scenario without it"
        )
    require_backend(args)
    options = {name: getattr(args, name, None) for name in SOLVE_OPTIONS}
    options["side"] = options["side"] or Side.ATTACKING.value
    options["engine"] = options["engine"] or "auto"
    results = map_documents(
        solve_chunk,
        iter_documents(args.file),
        options,
        "solved",
        backend=args.backend or "dask",
        scheduler=args.scheduler,
        workers=args.workers,
        time_limit=args.time_limit,
    )

    def line_of(item: tuple) -> tuple[dict, int]:
        kind, value, *code = item
        if kind == "ok":
            return value, code[0]
        if kind == "error":
            print(f"trample: {value}", file=sys.stderr)
            return {"error": value}, EXIT_BAD
        if kind == "late":  # no answer by the document's limit: what this process answers when it found none
            return nothing_found(float(args.time_limit or 0.0)), EXIT_NO
        # the document's own limit (as in this process), or the workers lost
        print(f"trample: {value}; the result is incomplete", file=sys.stderr)
        return {"error": value, "complete": False}, EXIT_NO

    return emit_results(results, line_of)


__all__ = ["add_commands", "cmd_solve", "EXIT_BAD"]
