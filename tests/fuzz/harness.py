"""A fuzz harness over every input format trample reads (docs/format.md, "The contract under fuzzing").

Each generated case is a command line and the documents it reads: scenarios with every effect (mutated from
examples/), card files and decklists, suites, recorded decisions, results files of `trample arena --out`,
library documents, and option values. Every case is run through ``trample.cli.main`` in this process (catching
SystemExit, capturing standard output and error) -- a few through a real process, under a memory limit -- and
checked against the contract:

- exit 0, 1 or 2 (130 only on a signal, which the harness does not send);
- on exit 2, standard error is lines starting with "trample" (one line for a single document), never a
  traceback;
- standard output is strict JSON (one document, or JSON Lines), no NaN or Infinity;
- a ``.jsonl`` batch of ``count`` or ``check`` gives one result line per input line;
- bounded time (every case runs under --time-limit where the command takes it, and a watchdog alarm) and, for
  the subprocess cases, bounded memory (RLIMIT_AS).

``python tests/fuzz/run.py --n 20000`` (``make fuzz``) runs it at length; tests/cli/test_fuzz.py runs a few hundred
cases in ``make test``.
"""

from __future__ import annotations

import copy
import io
import json
import os
import random
import resource
import signal
import subprocess
import sys
import tempfile
import time
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
DATA = ROOT / "tests" / "data"

WATCHDOG_S = 60  # a case that runs longer is a violation (every case also has a --time-limit of a few seconds)
MEMORY_BYTES = 2 << 30  # RLIMIT_AS of the subprocess cases

JUNK = [None, True, False, 0, -1, 1, 7, 10**6, 10**6 + 1, -(10**7), 10**30, 0.5, 1e308, -1e308, "", "x", "opp",
        "\u0000", "\ud800", "a" * 300, [], [1], ["x"], {}, {"x": 1}, [[[[]]]]]  # fmt: skip
DEEP = "[" * 400 + "]" * 400
MAX_PATH = 32  # mutate() picks fields at most this deep: a DEEP inside a DEEP is more than json.dumps can write


@dataclass
class Case:
    argv: list[str]
    files: dict[str, str] = field(default_factory=dict)  # name -> text, written in a temporary folder
    stdin: str = ""
    batch_lines: int | None = None  # a .jsonl batch of count/check: one result line per input line
    single: bool = True  # one document: one line on standard error on exit 2
    subprocess: bool = False
    kind: str = ""  # the generator that made it (case_step, ...)
    index: int = -1  # its number in the run: the case is made from (seed, index) alone


@dataclass
class Outcome:
    case: Case
    code: object
    out: str
    err: str
    problems: list[str]
    seconds: float = 0.0  # wall-clock time of the run
    cpu: float = 0.0  # CPU time of the run (this process's, or the child's)


def _examples(pattern: str) -> list[dict]:
    docs = []
    for p in sorted(EXAMPLES.glob(pattern)):
        try:
            doc = json.loads(p.read_text())
        except ValueError:
            continue
        if isinstance(doc, dict):
            docs.append(doc)
    return docs


SCENARIOS = [d for d in _examples("*.json") if "attackers" in d]
LIBRARIES = [d for d in _examples("*.json") if "cards" in d]
DECK = (DATA / "deck_arena.txt").read_text()
SCRYFALL = json.loads((DATA / "scryfall_cards.json").read_text())
EFFECTS = [
    ("prevent", [{"amount": 2}]),
    ("prevent_combat", True),
    ("protection", ["red", "thrasta"]),
    ("takes", [{"times": 2}, {"plus": 1}]),
    ("replacement_order", "most"),
    ("shield_order", ["thrasta"]),
    ("deals", [{"times": 2}]),
    ("tags", ["red", "giant"]),
    ("toxic", 2),
    ("assigns_toughness", True),
    ("keywords", ["lifelink", "deathtouch", "infect", "wither", "double_strike", "first_strike"]),
]


def _paths(obj, prefix=()):
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _paths(v, (*prefix, i))


def mutate(rng: random.Random, doc, times: int | None = None):
    """A copy of ``doc`` with one to three fields replaced by junk, deleted, or given an unknown sibling."""
    doc = copy.deepcopy(doc)
    for _ in range(times or rng.randint(1, 3)):
        paths = [p for p in _paths(doc) if p and len(p) <= MAX_PATH]  # never inside a DEEP already put there
        if not paths:
            return rng.choice(JUNK)
        path = rng.choice(paths)
        node = doc
        for key in path[:-1]:
            node = node[key]
        r = rng.random()
        if r < 0.15 and isinstance(node, dict):
            del node[path[-1]]
        elif r < 0.2 and isinstance(node, dict):
            node["unknown_" + str(rng.randint(0, 9))] = 1
        elif r < 0.25:
            node[path[-1]] = json.loads(DEEP)
        else:
            node[path[-1]] = copy.deepcopy(rng.choice(JUNK))
    return doc


def with_effects(rng: random.Random, doc: dict) -> dict:
    """A scenario with effects added to some of its objects (some right, some wrong)."""
    doc = copy.deepcopy(doc)
    holders = [o for key in ("players", "attackers", "blockers", "planeswalkers") for o in doc.get(key, [])]
    for obj in rng.sample(holders, k=min(len(holders), rng.randint(1, 3))):
        key, value = rng.choice(EFFECTS)
        obj[key] = copy.deepcopy(value)
    return doc


def scenario(rng: random.Random) -> dict:
    doc = rng.choice(SCENARIOS)
    if rng.random() < 0.5:
        doc = with_effects(rng, doc)
    return mutate(rng, doc) if rng.random() < 0.8 else copy.deepcopy(doc)


def text_of(rng: random.Random, doc) -> str:
    text = json.dumps(doc, ensure_ascii=rng.random() < 0.5)
    r = rng.random()
    if r < 0.05:
        return text[: rng.randint(0, len(text))]  # cut short
    if r < 0.08:
        return text.replace(":", "::", 1)
    return text


def _limit(rng) -> list[str]:
    return ["--time-limit", rng.choice(["2", "0.5", "0.1"])]


def case_step(rng: random.Random) -> Case:
    command = rng.choice(["count", "enumerate", "check", "solve", "sample", "rank", "unrank", "render"])
    argv = [command]
    if rng.random() < 0.3:  # a batch
        lines = [text_of(rng, scenario(rng)) for _ in range(rng.randint(1, 4))]
        if rng.random() < 0.2:
            lines.insert(1, "not json")
        files = {"b.jsonl": "\n".join(lines) + "\n"}
        argv.append("b.jsonl")
        batch = len(lines) if command in ("count", "check") else None
        single = False
    else:
        files = {"s.json": text_of(rng, scenario(rng))}
        argv.append("s.json")
        batch, single = None, True
    if command in ("check", "rank"):
        argv.append(json.dumps(mutate(rng, {"thrasta": {"wall": 3, "bear": 2, "opp": 5}}, 1)))
    if command == "unrank":
        argv.append(str(rng.choice([0, 1, 35, 36, -1, 10**40])))
    if command == "sample":
        argv.append(str(rng.choice([0, 1, 5])))
    if command == "enumerate":
        argv += ["--limit", str(rng.choice([1, 10, 1000]))]
    if command == "solve":
        argv += ["--objective", rng.choice(["lethal", "max-damage", "max-kills,max-value", "nonsense", ""])]
    if command != "render":
        argv += rng.choice([[], ["--side", "defending"], ["--side", "both"], ["--engine", "direct"]])
    argv += _limit(rng)
    return Case(argv, files, batch_lines=batch, single=single)


def case_library(rng: random.Random) -> Case:
    command = rng.choice(["mill", "discover", "seek-thrills", "gnome"])
    lib = mutate(rng, rng.choice(LIBRARIES)) if rng.random() < 0.8 else rng.choice(LIBRARIES)
    files = {"l.json": text_of(rng, lib)}
    if command == "mill":
        argv = ["mill", "l.json", str(rng.choice([0, 1, 3, 40, -1, "x"]))]
        argv += rng.choice([[], ["--distribution"], ["--cost"], ["--seed", "3"]])
    elif command == "discover":
        argv = ["discover", "l.json", str(rng.choice([0, 3, 7, 10**6]))] + rng.choice([[], ["--distribution"]])
    elif command == "seek-thrills":
        argv = ["seek-thrills", "l.json"] + rng.choice([[], ["--distribution"]])
    else:
        files["c.json"] = text_of(rng, scenario(rng))
        argv = ["gnome", "c.json", "l.json"]
    return Case(argv + _limit(rng), files)


def case_deck(rng: random.Random) -> Case:
    deck = DECK
    if rng.random() < 0.7:
        lines = deck.split("\n")
        k = rng.randrange(len(lines))
        lines[k] = rng.choice(["4", "0 Forest", "-1 Forest", "9" * 50 + " Forest", "Deck", "", "x" * 200, "1 \u0000",
                               "4 Lightning Bolt (M11) 149", "99999999 Lightning Bolt"])  # fmt: skip
        deck = "\n".join(lines)
    cards = mutate(rng, SCRYFALL) if rng.random() < 0.6 else SCRYFALL
    argv = ["library", "from-deck", "d.txt", "--cards", "c.json"] + rng.choice([[], ["--sideboard"], ["--seed", "1"]])
    return Case(argv + _limit(rng), {"d.txt": deck, "c.json": text_of(rng, cards)})


def case_arena(rng: random.Random) -> Case:
    item = {"scenario": rng.choice(SCENARIOS), "objective": rng.choice(["max-damage", "lethal", None])}
    item = {k: v for k, v in item.items() if v is not None}
    if rng.random() < 0.8:
        item = mutate(rng, item)
    suite = text_of(rng, item) + "\n"
    argv = ["arena", "s.jsonl", "--players", rng.choice(["greedy", "random", "declaration,face"]), "--format", "json"]
    return Case(argv + _limit(rng), {"s.jsonl": suite}, single=False)


def case_score(rng: random.Random) -> Case:
    if rng.random() < 0.5:
        doc = {
            "scenario": rng.choice(SCENARIOS),
            "assignment": {"thrasta": {"wall": 3, "bear": 2, "opp": 5}},
            "objective": "max-damage",
            "player": "p",
            "time_ms": 3.5,
        }
        lines = [text_of(rng, mutate(rng, doc)) for _ in range(rng.randint(1, 3))]
        return Case(["score", "d.jsonl", *_limit(rng)], {"d.jsonl": "\n".join(lines) + "\n"}, single=False)
    # a results file holds many decisions: one error line each (as the lines of a batch)
    results = text_of(rng, mutate(rng, results_template()))
    return Case(["score", "r.json", *_limit(rng)], {"r.json": results}, single=False)


_RESULTS: list = []


def results_template() -> dict:
    """A real results file of `trample arena --out` (made once per process)."""
    if not _RESULTS:
        from trample.cli import main

        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "r.json")
            with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
                main(["arena", "--n", "2", "--players", "greedy,declaration", "--out", out])
            _RESULTS.append(json.loads(Path(out).read_text()))
    return _RESULTS[0]


OPTION_VALUES = ["0", "-1", "1", "1e10", "inf", "nan", "", "x", "1000000000", "9" * 50, "\u0000"]


def case_options(rng: random.Random) -> Case:
    """Hostile values of the numeric options of every command."""
    base = rng.choice(
        [
            ["count", "s.json", "--workers"],
            ["count", "s.json", "--time-limit"],
            ["enumerate", "s.json", "--limit"],
            ["enumerate", "s.json", "-o", "out", "--shards"],
            ["sample", "s.json", "1", "--seed"],
            ["solve", "s.json", "--deterministic-time"],
            ["arena", "--n"],
            ["arena", "--n", "1", "--workers"],
            ["arena", "--n", "1", "--limit"],
            ["arena", "--n", "1", "--timeout"],
            ["mill", "s.json", "1", "--time-limit"],
            ["render", "s.json", "--time-limit"],
            ["score", "s.json", "--time-limit"],
        ]
    )
    argv = [*base, rng.choice(OPTION_VALUES)]
    if "--time-limit" not in argv:
        argv += ["--time-limit", "2"]
    return Case(argv, {"s.json": json.dumps(rng.choice(SCENARIOS))})


KINDS = [(case_step, 40), (case_library, 15), (case_deck, 10), (case_arena, 8), (case_score, 12), (case_options, 15)]


def generate(rng: random.Random, without: tuple = ()) -> Case:
    kinds, weights = zip(*[(k, w) for k, w in KINDS if k.__name__ not in without])
    kind = rng.choices(kinds, weights)[0]
    case = kind(rng)
    case.kind = kind.__name__
    return case


def case_at(seed: int, index: int, subprocess_every: int = 200, without: tuple = ()) -> Case:
    """The case number ``index`` of the run with ``seed``: made from (seed, index) alone, so that any range of
    indices, run in any process and in any order, gives the same cases (``run.py --jobs``, ``--start/--stop``)."""
    case = generate(random.Random(f"trample-fuzz:{seed}:{index}"), without)
    case.index = index
    case.subprocess = bool(subprocess_every) and index % subprocess_every == subprocess_every - 1
    if any("\x00" in arg for arg in case.argv):  # no process can be given it (case 9399): run it in this one
        case.subprocess = False
    return case


# ---------------------------------------------------------------------------------------------
# Running a case and checking the contract
# ---------------------------------------------------------------------------------------------


class _Watchdog(BaseException):
    pass


def _strict(text: str):
    def constant(name):
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_constant=constant)


def check(case: Case, code, out: str, err: str) -> list[str]:
    problems = []
    if code not in (0, 1, 2):
        problems.append(f"exit code {code!r}")
    if "Traceback" in err:
        problems.append("a traceback on standard error")
    err_lines = [line for line in err.splitlines() if line.strip()]
    if code == 2:
        if not err_lines:
            problems.append("exit 2 without a line on standard error")
        if case.single and len(err_lines) != 1:
            problems.append(f"{len(err_lines)} lines on standard error for one document")
    for line in err_lines:
        if not line.startswith("trample") and not line.startswith("usage"):
            problems.append(f"a stray line on standard error: {line[:80]!r}")
            break
    if case.argv[:1] == ["render"]:  # a picture: well-formed XML (SVG), not JSON
        if code == 0:
            import xml.etree.ElementTree as ET

            try:
                ET.fromstring(out)
            except ET.ParseError as e:
                problems.append(f"the SVG is not well-formed XML ({e})")
    elif out.strip():
        try:
            _strict(out)
        except ValueError:
            for n, line in enumerate(out.splitlines(), 1):
                try:
                    _strict(line)
                except ValueError as e:
                    problems.append(f"standard output line {n} is not strict JSON ({e})")
                    break
    if case.batch_lines is not None and code != 2 or (case.batch_lines is not None and out):
        got = len(out.splitlines())
        if got != case.batch_lines:
            problems.append(f"{got} result lines for {case.batch_lines} input lines")
    return problems


def run_inprocess(case: Case, folder: str) -> Outcome:
    from trample.cli import main

    for name, text in case.files.items():
        Path(folder, name).write_text(text, encoding="utf-8", errors="surrogatepass")
    out, err = io.StringIO(), io.StringIO()
    old_cwd = os.getcwd()
    old_stdin = sys.stdin

    def bark(signum, frame):
        raise _Watchdog

    previous = signal.signal(signal.SIGVTALRM, bark)
    signal.setitimer(signal.ITIMER_VIRTUAL, WATCHDOG_S)  # CPU time: not fooled by a loaded machine
    try:
        os.chdir(folder)
        sys.stdin = io.TextIOWrapper(io.BytesIO(case.stdin.encode()), encoding="utf-8")
        with redirect_stdout(out), redirect_stderr(err):
            try:
                code = main(case.argv)
            except SystemExit as e:
                code = e.code
            except _Watchdog:
                code = "watchdog"
            except BaseException as e:  # noqa: BLE001 - any escape is a contract violation, reported
                code = f"escaped {type(e).__name__}: {str(e)[:120]}"
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.signal(signal.SIGVTALRM, previous)
        sys.stdin = old_stdin
        os.chdir(old_cwd)
        for name in case.files:
            Path(folder, name).unlink(missing_ok=True)
    return Outcome(case, code, out.getvalue(), err.getvalue(), check(case, code, out.getvalue(), err.getvalue()))


def _limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))


def run_subprocess(case: Case, folder: str) -> Outcome:
    for name, text in case.files.items():
        Path(folder, name).write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        proc = subprocess.run(
            [sys.executable, "-c", "import sys; from trample.cli import main; sys.exit(main())", *case.argv],
            cwd=folder,
            input=case.stdin,
            capture_output=True,
            text=True,
            timeout=WATCHDOG_S * 3,
            preexec_fn=_limit_memory,
        )
        code, out, err = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired:
        code, out, err = "watchdog", "", ""
    finally:
        for name in case.files:
            Path(folder, name).unlink(missing_ok=True)
    return Outcome(case, code, out, err, check(case, code, out, err))


def run_case(case: Case, folder: str) -> Outcome:
    """Run one case (in this process or a real one, as the case says), timed."""
    clock = time.perf_counter()
    who = resource.RUSAGE_CHILDREN if case.subprocess else resource.RUSAGE_SELF
    before = resource.getrusage(who)
    outcome = run_subprocess(case, folder) if case.subprocess else run_inprocess(case, folder)
    after = resource.getrusage(who)
    outcome.seconds = time.perf_counter() - clock
    outcome.cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return outcome


def fuzz(
    n: int,
    seed: int = 0,
    subprocess_every: int = 200,
    report=None,
    without: tuple = (),
    start: int = 0,
    indices=None,
) -> list[Outcome]:
    """Run the generated cases ``start .. n-1`` (or the given ``indices``), every ``subprocess_every``-th in a
    real process; the violations. ``without``: generator names left out (``("case_deck",)``). ``report(done,
    outcome)`` is called after each case."""
    bad = []
    with tempfile.TemporaryDirectory() as folder:
        for done, k in enumerate(range(start, n) if indices is None else indices, 1):
            try:
                case = case_at(seed, k, subprocess_every, without)
            except Exception as e:  # noqa: BLE001 - the harness's own bug: reported as a problem of that case
                case = Case([], kind="harness", index=k)
                problem = f"the harness could not make this case: {type(e).__name__}: {str(e)[:120]}"
                outcome = Outcome(case, "not run", "", "", [problem])
            else:
                try:
                    outcome = run_case(case, folder)
                except Exception as e:  # noqa: BLE001 - the harness's own bug: reported, and the run goes on
                    problem = f"the harness could not run this case: {type(e).__name__}: {str(e)[:120]}"
                    outcome = Outcome(case, "not run", "", "", [problem])
            if outcome.problems:
                bad.append(outcome)
            if report is not None:
                report(done, outcome)
    return bad
