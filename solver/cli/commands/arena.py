"""``trample arena`` (score players on a suite, print a leaderboard) and ``trample score`` (offline scoring of
recorded decisions). See docs/arena.md.

Nothing here imports ortools, rich or matplotlib at import time.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import warnings
from collections.abc import Iterator, Sequence

from ...arena import report, suites
from ...arena.declare_arena import default_players as declaration_players
from ...arena.declare_arena import drawn as drawn_declarations
from ...arena.declare_arena import load_suite as declarations_suite
from ...arena.declare_arena import player_names as declaration_player_names
from ...arena.metrics import board_size, judge, objectives_of, reference, summarize, summarize_levels
from ...arena.objectives import DEFAULT_OBJECTIVE, objective_text, parse_objectives
from ...arena.players import DEFAULT_PLAYERS, make_player
from ...arena.runner import (
    BACKENDS,
    DEFAULT_CHUNK,
    failed_everywhere,
    run_arena,
    run_attacks_arena,
    run_blocks_arena,
    run_whole_arena,
)
from ...arena.stats import run_facts, setup_facts
from ...arena.suites import one_step
from ...arena.whole_arena import PLAYERS, player_names, rescore
from ...documents import any_digits, iter_documents, prefixed, read_text
from ...limits import STATE, Deadline, deadline_of, import_soon, stop_like_interrupt, stop_sooner, work_done
from ...models import FormatError, load_scenario
from ...models.errors import brief, expect_object, expect_str
from ...models.scenario import parse_json_text
from ...models.vocabulary import DeclareKind
from .. import EXIT_BAD, EXIT_NO, EXIT_OK
from ..batch import emit
from ..files import AtomicFiles, check_writable, distinct_files
from ..options import (
    MAX_BOARDS,
    MAX_WORKERS,
    add_backend_options,
    add_output,
    add_time_limit,
    bounded_int,
    has_module,
    positive_int,
    require_extra,
    seconds,
    shown,
)
from ..progress import Progress


def _positive(text: str) -> int:
    value = positive_int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected at least 1, got {text}")
    return value


def _seed(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {shown(text)}") from None


_KIND = {"blocks": DeclareKind.BLOCKERS, "attacks": DeclareKind.ATTACKERS}


def _players(args, combat: bool = False, declarations: str | None = None) -> list[str]:
    specs = [p.strip() for p in (args.players or "").split(",") if p.strip()]
    for k, cmd in enumerate(args.external or [], 1):
        head, eq, rest = cmd.partition("=")
        if eq and head and " " not in head and rest.strip():
            specs.append(f"{head}=cmd:{rest.strip()}")
        else:
            specs.append(f"external{k if len(args.external) > 1 else ''}=cmd:{cmd.strip()}")
    if not specs:
        raise FormatError("--players", "no player given")
    if declarations:
        declaration_player_names(specs, declarations)  # unknown players are bad input, before any work
        return specs
    if combat:
        player_names(specs)  # unknown players are bad input, before any work
        return specs
    for s in specs:
        make_player(s, timeout=args.timeout)  # unknown names are bad input, before any work
    return specs


def _want_progress(args) -> bool:
    """--progress / --no-progress, else a bar on a terminal when rich is installed (plain runs without it)."""
    if args.progress:
        require_extra("--progress", "rich", "progress")
    if args.progress is not None:
        return args.progress
    return sys.stderr.isatty() and has_module("rich")


def _format(args) -> str:
    """--format, else a table on a terminal (rich's, or plain text without rich), JSON otherwise."""
    if args.format:
        return args.format
    return "table" if sys.stdout.isatty() else "json"


# ---------------------------------------------------------------------------------------------
# trample arena
# ---------------------------------------------------------------------------------------------


def cmd_arena(args) -> int:
    if args.list_levels:
        for lv in suites.LEVELS.values():
            sys.stdout.write(json.dumps(lv.to_json(), separators=(",", ":")) + "\n")
        return EXIT_OK
    combat = args.game == "combat"
    declarations = args.game if args.game in ("blocks", "attacks") else None
    if args.players is None:
        defaults = declaration_players(declarations) if declarations else PLAYERS if combat else DEFAULT_PLAYERS
        args.players = ",".join(defaults)  # --external players are added to these
    parse_objectives(args.objective)  # bad objective names are bad input, before any work
    _check_outputs(args, args.suite)
    described: dict = {"files": list(args.suite), "level": None}
    if declarations and args.level is not None:
        raise FormatError(
            "--level",
            f"the {declarations} arena has no levels (a suite of declare-{_KIND[declarations]} documents, or none)",
        )
    fmt = _format(args)
    played = {"done": 0, "total": 0}
    try:  # a stop before play (the suite read, the players set up) still writes --out and --report: of no board
        results = _play(args, combat, described, declarations, played)
    except KeyboardInterrupt:
        _output(_no_boards(args, described), args, None)
        raise
    if results.get("interrupted"):  # the boards finished are written ("complete": false), then exit 130
        played["done"] = len(results["boards"])
        _output(results, args, None)
        raise KeyboardInterrupt
    if results.get("workers_lost"):  # the boards finished are written ("complete": false), one line, exit 1
        _output(results, args, fmt)
        print(f"trample: {results['workers_lost']}; the results are incomplete", file=sys.stderr)
        return EXIT_NO
    return _output(results, args, fmt) or _report_failed_players(results)


def _play(args, combat: bool, described: dict, declarations: str | None, played: dict) -> dict:
    """The boards read or generated, then played, ``played`` kept current (a stop once play has begun returns the
    boards finished, marked "interrupted")."""
    items = _arena_boards(args, combat, described, declarations)
    _arena_backend(args)
    specs = _players(args, combat, declarations)
    played["total"] = len(items)
    work_done(lambda: f"{played['done']} of {played['total']} boards played")
    runs = {"blocks": run_blocks_arena, "attacks": run_attacks_arena, "combat": run_whole_arena}
    run = runs.get(args.game, run_arena)
    with Progress(None, "arena", _want_progress(args), transient=True) as bar:

        def progress(done: int, total: int) -> None:
            played["done"] = done
            bar(done, total)
            _time_to_write(args.time_limit, done)

        try:
            results = run(
                items,
                players=specs,
                objective=args.objective,
                seed=args.seed,
                workers=args.workers,
                backend=args.backend,
                scheduler=args.scheduler,
                chunk_size=args.chunk,
                timeout=args.timeout,
                startup_timeout=args.startup_timeout,
                max_failures=args.max_failures,
                progress=progress,
                suite=described,
                keep_on_interrupt=True,
            )
        except (OSError, TimeoutError) as err:
            if args.backend == "dask":
                raise FormatError("--scheduler", f"cannot reach {args.scheduler}: {err}") from None
            raise
        except RuntimeError as err:  # dask missing, or a local cluster that could not start: one line
            if args.backend == "dask":
                raise FormatError(
                    "--backend dask", str(err).splitlines()[0] if str(err) else type(err).__name__
                ) from None
            raise
    return results


#: what a run stopped at its time limit keeps for writing its results, at most ``WRITE_SHARE`` of the limit, and
#: ``WRITE_PER_BOARD`` more for each board played: their intervals (two bootstraps of 2 000 resamples a player),
#: the JSON and the table took 0.25-0.3 s for 484 boards on 2 loaded cores (load 3), after the limit
WRITE_RESERVE, WRITE_SHARE, WRITE_PER_BOARD = 0.1, 0.1, 0.0008


def _reserve(seconds: float, done: int = 0) -> float:
    """The time kept for writing the results of ``done`` boards under a limit of ``seconds``."""
    return min(WRITE_RESERVE, WRITE_SHARE * seconds) + WRITE_PER_BOARD * done


def _time_to_write(limit, done: int) -> None:
    """Stop play now (as the limit stops it) when the time left would not write the results of ``done``
    boards."""
    deadline = deadline_of(limit)
    left = deadline.remaining() if deadline else None
    if left is not None and left <= _reserve(deadline.seconds or 0, done):
        stop_sooner()


def _played_until(limit):
    """When play stops under ``--time-limit``: the limit less what writing the boards finished takes
    (:data:`WRITE_RESERVE`), so that the command ends near its limit rather than that much after it."""
    deadline = deadline_of(limit)
    if not deadline or deadline.at is None or deadline.seconds is None:
        return limit
    reserve = _reserve(deadline.seconds)
    return Deadline(deadline.seconds, deadline.at - deadline.seconds - reserve)  # reads "the time limit of N s"


def _stoppable(command):
    """arena and score under --time-limit: stopped as an interrupt stops them (the boards finished are written,
    "complete": false), then one line on standard error and exit 1 (docs/arena.md)."""

    def run(args) -> int:
        limit = args.time_limit
        stop: dict = {"fired": False}
        code = None
        try:  # around the whole block: the limit can run out as it is entered or left (a loaded machine)
            with stop_like_interrupt(_played_until(limit), stop):
                code = command(args)
            return code
        except KeyboardInterrupt:
            if not stop["fired"] or STATE.signum is not None:
                raise
            if code is not None:  # the command had finished: the limit ran out while its handler was taken down
                return code
        done = STATE.done() if STATE.done else ""
        print(
            f"trample: stopped at the time limit of {limit:g} s{': ' + done if done else ''}; the results are "
            "incomplete",
            file=sys.stderr,
        )
        return EXIT_NO

    return run


def _no_boards(args, described: dict) -> dict:
    """The results of a run stopped before its first board ("complete": false, no board played)."""
    names = [spec.partition("=")[0] if "=" in spec else spec for spec in (args.players or "").split(",") if spec]
    return {
        "arena": 1,
        "config": {"objective": args.objective, "seed": args.seed, "players": names, "boards": 0, "suite": described},
        "facts": run_facts(args.seed),
        "leaderboard": summarize([], names),
        "boards": [],
        "complete": False,
        "played": 0,
        "interrupted": True,
    }


def _wanted(args, have: int) -> int:
    """How many boards to generate: --n, or fewer when --limit keeps fewer (arena --n 1000000000 --limit 2
    generated every board before applying the limit)."""
    if args.limit is None:
        return args.n
    return max(0, min(args.n, args.limit - have))


def _report_failed_players(results: dict) -> int:
    """A player that returned no assignment on any board is a harness problem (a broken ``py:`` spec, a program
    that cannot start), not a weak player: one line each on standard error and exit code 2, after the results and
    the leaderboard are written (docs/arena.md)."""
    worst = EXIT_OK
    for name, n, message in failed_everywhere(results):
        print(f'trample: player "{name}" failed at every decision ({n} of {n}; the first: {message})', file=sys.stderr)
        worst = EXIT_BAD
    return worst


#: File types matplotlib writes without extra packages; --report must name one (else matplotlib raises, or
#: silently appends ".png" to a name without an extension).
REPORT_TYPES = ("png", "pdf", "svg", "svgz", "eps", "ps", "jpg", "jpeg", "tif", "tiff", "webp")


def _check_outputs(args, inputs=()) -> None:
    """--out and --report name files that can be written (and no input file): bad input before any board is
    played."""

    distinct_files(inputs, [("--out", args.out), ("--report", args.report)])

    for option, path in (("--out", args.out), ("--report", args.report)):
        if path is None:
            continue
        if not path.strip():
            raise FormatError(option, "expected a file name")
        if os.path.isdir(path):
            raise FormatError(path, "is a directory, expected a file name")
        folder = os.path.dirname(path) or "."
        if not os.path.isdir(folder):
            raise FormatError(path, f"cannot write: no such directory {folder}")
        check_writable(option, path)  # a read-only folder is found now, not after every board was played
    if args.report is not None:
        require_extra("--report", "matplotlib", "report")
        ext = os.path.splitext(args.report)[1].lower().lstrip(".")
        if ext not in REPORT_TYPES:
            others = ", ".join("." + t for t in REPORT_TYPES[1:])
            raise FormatError(
                "--report",
                f"expected a file name ending in .png (or {others}), got {json.dumps(args.report, ensure_ascii=False)}",
            )
        # matplotlib imported while the boards are played (0.7 s of CPU, seconds on a loaded machine), not after a
        # time limit or Ctrl-C stopped them, when the report of the boards finished is drawn
        import_soon("matplotlib.pyplot")


@contextlib.contextmanager
def _held() -> Iterator[None]:
    """An interrupt arriving inside the block waits for its end (:meth:`InterruptState.hold`)."""
    STATE.hold()
    try:
        yield
    finally:
        STATE.release()  # raises the KeyboardInterrupt that waited, if one did


def _output(results: dict, args, fmt: str | None) -> int:
    """Write --out and --report, then print the leaderboard as ``fmt`` ("table", "json" or None: nothing)."""

    # Written under temporary names and renamed when complete (cli.files.AtomicFiles): a kill at any moment leaves
    # the previous file, never a truncated one. Each file is written whole with the interrupt held back (Ctrl-C, or
    # the time limit, which stops arena and score like Ctrl-C): an interrupt inside json.dump or matplotlib's save
    # would commit the part written so far under the final name. The interrupt comes right after the file.
    if args.out:
        with AtomicFiles() as files, _held():
            try:
                with any_digits():
                    report.write_json(results, files.temp_name(args.out))
            except OSError as err:
                raise FormatError(args.out, f"cannot write: {err.strerror}") from None
    if args.report:
        with AtomicFiles() as files, _held():
            try:
                with warnings.catch_warnings():  # an interrupted run's empty panels: no stray warning lines
                    warnings.simplefilter("ignore")
                    report.write_png(results, files.temp_name(args.report))
            except OSError as err:
                raise FormatError(args.report, f"cannot write: {err.strerror}") from None
            except ValueError as err:  # a file type this matplotlib cannot write
                raise FormatError("--report", str(err).splitlines()[0]) from None
    if fmt == "table":
        report.print_leaderboard(results)
    elif fmt == "json":
        summary = {"config": results["config"], "leaderboard": results["leaderboard"]}
        sys.stdout.write(json.dumps(summary, separators=(",", ":")) + "\n")
    return EXIT_OK


# ---------------------------------------------------------------------------------------------
# trample score
# ---------------------------------------------------------------------------------------------


def cmd_score(args) -> int:
    parse_objectives(args.objective)
    _check_outputs(args, [args.file])
    fmt = args.format or "lines"
    boards: list[dict] = []
    names: list[str] = []
    worst = EXIT_OK
    work_done(lambda: f"{len(boards)} decisions scored")
    interrupted, rescored = False, None
    try:  # a stop at any point, the file still being read included, writes the decisions scored so far
        setup_facts()  # read before scoring: a run stopped at its time limit does not read them after it
        docs = list(decision_documents(args.file, iter_documents))
        if len(docs) == 1 and isinstance(docs[0][1], dict) and _config(docs[0][1]).get("game") == "combat":
            rescored = rescore(docs[0][1], args.file)
        else:
            worst = _score_all(expand_results(docs), args, fmt, boards, names)
    except KeyboardInterrupt:  # the decisions scored so far are written ("complete": false), then exit 130
        interrupted = True
    if not interrupted and rescored is not None:
        return _output(rescored, args, None if fmt == "lines" else fmt)
    results = {
        "arena": 1,
        "config": {
            "objective": args.objective,
            "boards": len(boards),
            "players": names,
            "suite": {"files": [args.file]},
            "recorded": True,
        },
        "facts": run_facts(),
        "leaderboard": (leaderboard := summarize(boards, names)),
        "boards": boards,
        "complete": not interrupted,
    }
    levels = summarize_levels(boards, names, leaderboard)
    if levels:
        results["by_level"] = levels
    if interrupted:
        _output(results, args, None)
        raise KeyboardInterrupt
    _output(results, args, None if fmt == "lines" else fmt)
    return worst


def _score_all(docs, args, fmt: str, boards: list[dict], names: list[str]) -> int:
    """Each decision judged (``boards`` and ``names`` grow as it goes: an interrupt keeps those scored); the worst
    exit code (a bad decision inside a file is one line and exit 2, the others still scored)."""
    worst = EXIT_OK
    for where, doc in docs:
        try:
            scenario, objectives, player, time_ms, failure, ref = _decision(doc, args.objective)
        except FormatError as err:
            if not where:
                raise
            err = prefixed(where, err)
            print(f"trample: {err}", file=sys.stderr)
            if fmt == "lines":
                emit({"error": str(err)})
            worst = EXIT_BAD
            continue
        if failure is not None:  # a recorded failure (timeout, crash, bad output) stays one
            rec = judge(scenario, objectives, ref, player, failure=failure, time_ms=time_ms)
        else:
            rec = judge(scenario, objectives, ref, player, output=doc["assignment"], time_ms=time_ms)
        if player not in names:
            names.append(player)
        boards.append(_scored_board(len(boards), where, doc, scenario, objectives, ref, rec))
        if fmt == "lines":
            _emit_scored(rec, ref)
    return worst


def _decision(doc, default_objective: str) -> tuple:
    """One recorded decision read and its reference computed: (scenario, objectives, player, time_ms, failure,
    reference); FormatError naming the field at fault."""
    if isinstance(doc, FormatError):
        raise doc
    if not isinstance(doc, dict) or "scenario" not in doc:
        raise FormatError("", 'expected a decision {"scenario": ..., "assignment": ..., "objective": ...}')
    if "assignment" not in doc and "failure" not in doc:
        raise FormatError("assignment", "required field is missing")
    scenario = load_scenario(expect_object(doc["scenario"], "scenario"), "scenario")
    one_step(scenario)
    objectives = objectives_of(doc, default_objective, scenario)
    player = doc.get("player", "recorded")
    if not isinstance(player, str) or not player:
        raise FormatError("player", "expected a non-empty string")
    expect_str(player, "player")  # no lone surrogate: the name is printed in the leaderboard table
    time_ms = _time_ms(doc)
    failure = _failure(doc)
    ref = reference(scenario, objectives)
    return scenario, objectives, player, time_ms, failure, ref


def _scored_board(n: int, where, doc: dict, scenario, objectives, ref: dict, rec: dict) -> dict:
    """The board record of the ``n``-th decision scored (as ``trample arena --out`` writes them)."""
    board = {
        "index": n,
        "id": str(doc.get("id", doc.get("name", where or n))),
        "scenario": scenario.to_json(),
        "objective": objective_text(objectives),
        "size": board_size(scenario),
        "reference": ref,
        "decisions": [rec],
    }
    if isinstance(doc.get("level"), str):
        board["level"] = doc["level"]
    return board


def _emit_scored(rec: dict, ref: dict) -> None:
    """One result line of ``trample score --format lines``, written whole or not at all."""
    out = {k: rec[k] for k in ("player", "legal", "rules", "violations", "values", "regret", "optimal", "lethal")}
    out["optimum"] = ref["values"]
    out["lethal_exists"] = ref["lethal_exists"]
    STATE.hold()  # a line is written whole, or not at all
    try:
        emit(out)
    finally:
        STATE.release()


def decision_documents(path: str, iter_documents):
    """(where, document) of a decisions file: one JSON document, JSON Lines (a .jsonl file, or standard input
    holding several lines), or a results file of ``trample arena --out``."""

    if path != "-":
        yield from iter_documents(path)
        return
    text = read_text(path)
    try:
        yield "", parse_json_text(text, "standard input")
        return
    except FormatError:
        if len([line for line in text.split("\n") if line.strip()]) < 2:
            raise
    for n, line in enumerate(text.split("\n"), 1):  # JSON Lines on standard input
        line = line.removesuffix("\r")
        if line.strip():
            try:
                yield f"line {n}", parse_json_text(line)
            except FormatError as err:
                yield f"line {n}", err


MAX_TIME_MS = 10**12  # a recorded decision time: at most 10^12 ms (about 32 years); 1e308 overflowed the mean


def _config(doc: dict) -> dict:
    config = doc.get("config", {})
    return config if isinstance(config, dict) else {}


def _time_ms(doc: dict) -> float | None:
    """A decision's recorded ``time_ms``: null (or missing), or a finite number from 0 to MAX_TIME_MS."""
    value = doc.get("time_ms")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise FormatError("time_ms", f"expected milliseconds (a number) or null, got {brief(value)}")
    if not 0 <= value <= MAX_TIME_MS:
        raise FormatError("time_ms", f"expected from 0 to {MAX_TIME_MS} milliseconds, got {brief(value)}")
    return float(value)


def _failure(doc: dict) -> tuple[str, str] | None:
    """A recorded failure ``["timeout", "message"]``: two strings, or None when the decision has none."""
    if "failure" not in doc:
        return None
    value = doc["failure"]
    if not (isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value)):
        raise FormatError("failure", f'expected ["kind", "message"] (two strings), got {brief(value)}')
    return value[0], value[1]


def expand_results(docs):
    """A results file (``trample arena --out``) becomes its decisions, each with its board: the results are
    re-scored from themselves alone. Other documents pass through. The file is read as strictly as a scenario:
    every field the re-scoring reads is type-checked, and a damaged file gives one line naming the place (a
    results file cut or edited by hand used to stop at one of ten tracebacks)."""
    out = []
    for where, doc in docs:
        if not (isinstance(doc, dict) and "arena" in doc and "boards" in doc):
            out.append((where, doc))
            continue
        top = f"{where}: " if where else ""
        boards = doc["boards"]
        if not isinstance(boards, list):
            raise FormatError(f"{top}boards", f"expected a list of boards, got {brief(boards)}")
        for k, board in enumerate(boards):
            here = f"{top}boards[{k}]"
            if not isinstance(board, dict):
                raise FormatError(here, f"expected a board (an object), got {brief(board)}")
            if "scenario" not in board:
                raise FormatError(here, "has no scenario (a results file written before boards were recorded)")
            decisions = board.get("decisions", [])
            if not isinstance(decisions, list):
                raise FormatError(f"{here}.decisions", f"expected a list of decisions, got {brief(decisions)}")
            for key in ("id", "level"):
                value = board.get(key)
                if value is not None and (isinstance(value, bool) or not isinstance(value, (str, int))):
                    raise FormatError(f"{here}.{key}", f"expected a string, got {brief(value)}")
            for j, d in enumerate(decisions):
                at = f"{here}.decisions[{j}]"
                if not isinstance(d, dict):
                    raise FormatError(at, f"expected a decision (an object), got {brief(d)}")
                item = {
                    "scenario": board["scenario"],
                    "objective": board.get("objective"),
                    "player": d.get("player", "recorded"),
                    "id": str(board.get("id", k)),
                    "time_ms": d.get("time_ms"),
                }
                if board.get("level"):
                    item["level"] = board["level"]
                if d.get("assignment") is None:
                    item["failure"] = _recorded_failure(d, at)
                else:
                    item["assignment"] = d["assignment"]
                out.append((at, item))
    return out


def _recorded_failure(d: dict, at: str) -> list[str]:
    """The failure of a decision recorded without an assignment: its first violation's rule and message."""
    violations = d.get("violations") or [{}]
    if not isinstance(violations, list):
        raise FormatError(f"{at}.violations", f"expected a list, got {brief(violations)}")
    v = violations[0]
    if not isinstance(v, dict):
        raise FormatError(f"{at}.violations[0]", f"expected an object, got {brief(v)}")
    rule, message = v.get("rule", "bad-output"), v.get("message", "no assignment recorded")
    for key, value in (("rule", rule), ("message", message)):
        if not isinstance(value, str):
            raise FormatError(f"{at}.violations[0].{key}", f"expected a string, got {brief(value)}")
    return [rule, message]


# ---------------------------------------------------------------------------------------------
# Registration
# ---------------------------------------------------------------------------------------------


def _output_options(p) -> None:
    add_time_limit(
        p,
        "seconds for the whole command: play stops up to 0.1 s before it and the boards finished are written "
        '(--out, --report, "complete": false), one line on standard error, exit 1; a --report picture is drawn '
        "after it (about 0.5 s of CPU)",
    )
    add_output(p, "write the full results (every decision) as JSON (--out: the older spelling)", "out", "FILE")
    p.add_argument(
        "--report",
        metavar="PNG",
        help="write a PNG report: per player a histogram of the regret, the regret ECDFs, the optimal share and the "
        "illegal rate by rule",
    )


def add_commands(sub) -> None:
    """``trample arena`` and ``trample score``."""
    _add_arena(sub)
    _add_score(sub)


def _arena_boards(args, combat: bool, described: dict, declarations: str | None = None) -> Sequence[dict]:
    """The boards to play: the suite files', then a generated level's (``described`` records which), the first
    ``--limit``; an empty suite is bad input. ``declarations`` (``"blocks"``, ``"attacks"``): declare documents of
    that game, or generated ones."""
    items: list[dict] = []
    work_done(lambda: "0 boards played (the suite was being read)")
    setup_facts()  # read first: a run stopped by Ctrl-C or its time limit then writes its results at once
    for path in args.suite:
        if declarations:
            items += declarations_suite(path, read_text(suites.suite_file(path)), declarations)
            continue
        items += suites.load_suite(path)
    if declarations and not args.suite:
        described.update(generated=declarations, n=args.n, seed=args.seed)
        return drawn_declarations(declarations, _wanted(args, 0), seed=args.seed)  # drawn as play reaches them
    elif not declarations and (args.level is not None or not args.suite):
        level = args.level or ("first-strike" if combat else suites.DEFAULT_LEVEL)
        drawn = suites.GeneratedSuite(level, _wanted(args, len(items)), seed=args.seed)  # drawn as play reaches them
        described.update(level=level, n=args.n, seed=args.seed)
        if not items and drawn:
            return drawn  # (--limit is in its length)
        items += drawn[:]
    if args.limit is not None:
        items = items[: args.limit]
    if not items:
        raise FormatError(", ".join(args.suite) or "SUITE", "no boards to play (the suite is empty)")
    return items


def _arena_backend(args) -> None:
    """``args.backend`` settled: a scheduler address means Dask (refused with --backend local), else local by
    default; Dask needs its extra."""
    if args.scheduler:  # a scheduler address means Dask
        if args.backend == "local":
            raise FormatError("--scheduler", "not with --backend local (a scheduler address means --backend dask)")
        args.backend = "dask"
    args.backend = args.backend or "local"
    if args.backend == "dask":
        require_extra("--backend dask", "distributed", "dask")


def _add_arena(sub) -> None:
    p = sub.add_parser("arena", help="score AI players against the optimum on a suite of boards; print a leaderboard")
    p.add_argument(
        "suite",
        nargs="*",
        metavar="SUITE",
        help="suite files (.jsonl: scenarios, or lines with a scenario field); none: a generated suite",
    )
    p.add_argument("--level", default=None, help="generate boards of this level (default mixed; --list-levels)")
    p.add_argument(
        "--n",
        type=bounded_int(1, MAX_BOARDS),
        default=100,
        help=f"number of generated boards (default 100, at most {MAX_BOARDS})",
    )
    p.add_argument("--seed", type=_seed, default=0, help="seed of the generated suite and of every player (default 0)")
    p.add_argument("--limit", type=_positive, default=None, help="only the first N boards")
    p.add_argument(
        "--objective",
        default=DEFAULT_OBJECTIVE,
        help=f"objectives, lexicographic (default {DEFAULT_OBJECTIVE}); a board's own objective wins",
    )
    p.add_argument(
        "--players",
        default=None,
        help="comma-separated players: random, declaration, greedy, face, optimal, cmd:COMMAND, "
        f"py:module:attr, NAME=spec (default: {','.join(DEFAULT_PLAYERS)}); with --game combat: optimal, "
        "first-legal, openspiel-random, openspiel-mcts[:N] (default: optimal,openspiel-mcts,openspiel-random)",
    )
    p.add_argument(
        "--game",
        choices=["step", "combat", "blocks", "attacks"],
        default="step",
        help="step (default): one damage step per board; combat: whole combats, the attacker's player against the "
        "defender's best reply, regret against the minimax value (first-strike level by default); blocks: "
        "defending players' block declarations against the proven-best blocks (players: optimal, no-blocks, "
        "chump, survive, random); attacks: attacking players' attack declarations against the proven-best attack, "
        "the defender blocking its best (players: optimal, all, none, survivors, random); both: a suite of declare "
        "documents, or generated boards, and cmd:/py: players too",
    )
    _external_options(p)
    add_backend_options(
        p,
        BACKENDS,
        backend_help="local (default: a process pool) or dask (Dask distributed; implied by --scheduler)",
        scheduler_help="Dask scheduler address (tcp://host:8786), implies --backend dask; none: a local Dask "
        "cluster of --workers",
        workers_help=f"worker processes (default 1: in this process; at most {MAX_WORKERS})",
        workers_default=1,
    )
    p.add_argument(
        "--chunk", type=_positive, default=DEFAULT_CHUNK, help=f"boards per unit of work (default {DEFAULT_CHUNK})"
    )
    p.add_argument(
        "--format",
        choices=["table", "json"],
        default=None,
        help="table (rich's when installed, else plain text) or json (config and leaderboard); default: table on a "
        "terminal, else json",
    )
    p.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="a progress bar on standard error (default: when it is a terminal)",
    )
    p.add_argument("--list-levels", action="store_true", help="print the named levels as JSON Lines and exit")
    _output_options(p)
    p.set_defaults(func=_stoppable(cmd_arena))


def _external_options(p) -> None:
    """--external players and their limits: --timeout, --startup-timeout, --max-failures."""
    p.add_argument(
        "--external",
        action="append",
        metavar="[NAME=]COMMAND",
        help="an external player speaking JSON Lines on stdin/stdout (repeatable)",
    )
    p.add_argument(
        "--timeout",
        type=_float_seconds,
        default=5.0,
        help="seconds an external player may take per decision (default 5)",
    )
    p.add_argument(
        "--startup-timeout",
        type=_float_seconds,
        default=10.0,
        help="seconds an external player gets on top of --timeout for its first decision (default 10)",
    )
    p.add_argument(
        "--max-failures",
        type=positive_int,
        default=3,
        metavar="K",
        help="bench an external player after K failed decisions in a row (timeout, crash, bad output): its "
        "remaining decisions fail without starting it again (default 3; 0: never)",
    )


def _add_score(sub) -> None:
    p = sub.add_parser("score", help="score recorded decisions {scenario, assignment, objective} against the optimum")
    p.add_argument(
        "file",
        metavar="DECISIONS",
        help="a .jsonl file of decisions, one JSON decision, a results file of `trample arena --out`, "
        "or - for standard input (JSON Lines)",
    )
    p.add_argument(
        "--objective", default=DEFAULT_OBJECTIVE, help=f"objectives for lines without one (default {DEFAULT_OBJECTIVE})"
    )
    p.add_argument(
        "--format",
        choices=["lines", "table", "json"],
        default=None,
        help="lines: one result per decision (default); table: leaderboard; json: leaderboard as JSON",
    )
    _output_options(p)
    p.set_defaults(func=_stoppable(cmd_score))


def _float_seconds(text: str) -> float:
    return seconds(text)
