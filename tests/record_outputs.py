"""Record what ~100 trample commands print, to compare two versions of the code (a refactoring's proof that no
output byte changed).

    python tests/record_outputs.py --trample /work/main/.venv/bin/trample --out /tmp/before
    python tests/record_outputs.py --trample .venv/bin/trample --out /tmp/after
    diff -r /tmp/before /tmp/after

Each command writes one file: its exit code, its standard output and its standard error, and the files it writes
(``-o``). Timing fields (``time_ms``, ``seconds``, ``elapsed``, ...) are blanked first, since they differ from run to
run; so are temporary paths. The commands read the examples of the repository (examples/) and of the package
(``trample example``), the suites of the package, and files written by earlier commands into the working folder
(named relative to it: a suite's hash reads its path). Every random draw is seeded; the git commit and the path
of the executable, which the arena's results record, are blanked too.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EX = ROOT / "examples"

# a JSON number (or null) under a key that names a duration; a duration in a table ("0.12 s", "12 ms")
TIMING = re.compile(
    r'("(?:[a-z_]*time[a-z_]*|[a-z_]*_ms|[a-z_]*seconds[a-z_]*|elapsed[a-z_]*|wall[a-z_]*|cpu[a-z_]*)"'
    r"\s*:\s*)(-?[0-9.eE+-]+|null|\[[^]]*\])"
)
GIT_COMMIT = re.compile(r'("git_commit":\s*)"[0-9a-f]{40}"')
DURATION = re.compile(r"\b[0-9]+(?:\.[0-9]+)?\s?(?:ms|s)\b")

SCENARIOS = ["blocker_divides", "double_strike", "game_over", "gnome", "gnome_double_strike", "infect", "lifelink",
             "missed", "protection", "thrasta"]  # fmt: skip
LARGE = ["p20k5", "p20k8", "p60k7"]
DECLARE = ["attacks", "band", "blocks", "lethal", "obvious", "propaganda"]
OBJECTIVES = ["max-damage", "lethal,max-value", "max-kills,min-overkill"]


def commands(work: Path) -> list[tuple[str, list[str]]]:
    """(name, arguments) of every command, in order (later ones may read what earlier ones wrote into work)."""
    out: list[tuple[str, list[str]]] = []
    for name in SCENARIOS:
        f = str(EX / f"{name}.json")
        out.append((f"count-{name}", ["count", f]))
        out.append((f"count-both-{name}", ["count", "--side", "both", f]))
        out.append((f"enumerate-{name}", ["enumerate", f]))
        for obj in OBJECTIVES:
            out.append((f"solve-{name}-{obj}", ["solve", "--objective", obj, f]))
        out.append((f"solve-all-{name}", ["solve", "--objective", "max-damage", "--all-optimal", "--limit", "20", f]))
        out.append((f"solve-def-{name}", ["solve", "--objective", "max-damage", "--side", "defending", f]))
        out.append((f"render-{name}", ["render", f]))
        out.append((f"sample-{name}", ["sample", "--n", "3", "--seed", "7", f]))
    for name in LARGE:
        f = str(EX / f"{name}.json")
        out.append((f"count-{name}", ["count", f]))
        out.append((f"solve-{name}", ["solve", "--objective", "lethal,max-value", f]))
        out.append((f"sample-{name}", ["sample", "--n", "2", f]))
    for batch in ["boards", "gnome_boards"]:
        f = str(EX / f"{batch}.jsonl")
        out.append((f"count-{batch}", ["count", f]))
        out.append((f"solve-{batch}", ["solve", "--objective", "max-damage", f]))
    for name in DECLARE:
        f = str(EX / "declare" / f"{name}.json")
        for sub in ["count", "enumerate"]:
            out.append((f"declare-{sub}-{name}", ["declare", sub, f]))
        out.append((f"declare-sample-{name}", ["declare", "sample", "--n", "3", "--seed", "7", f]))
        out.append((f"declare-solve-{name}", ["declare", "solve", "--objective", "max-damage", f]))
        out.append((f"declare-solve2-{name}", ["declare", "solve", "--objective", "lethal,max-kills", f]))
        decl = f"declaration-{name}.json"
        for sub in ["check", "scenario", "render"]:
            out.append((f"declare-{sub}-one-{name}", ["declare", sub, f, decl]))
    for name in ["thrasta", "double_strike", "declare/blocks", "library", "nope"]:
        out.append((f"example-{name.replace('/', '-')}", ["example", name]))
    out.append(("example-list", ["example"]))
    for name in ["scenario", "assignment", "declare", "combat-line", "arena-results", "library", "nope", ""]:
        out.append((f"schema-{name or 'list'}", ["schema", *([name] if name else [])]))
    suite = str(ROOT / "solver" / "suites" / "known-mistakes.jsonl")
    results = "arena-step.json"
    arenas = [
        ("arena-step", ["--n", "30", "--seed", "3", "--level", "mixed", "-o", results]),
        ("arena-keywords", ["--n", "20", "--level", "keywords"]),
        ("arena-suite", [suite]),
        ("arena-combat", ["--game", "combat", "--n", "6", "--players", "optimal,first-legal,openspiel-random"]),
        ("arena-blocks", ["--game", "blocks", "--n", "8"]),
        ("arena-attacks", ["--game", "attacks", "--n", "6"]),
        ("arena-blocks-docs", ["--game", "blocks", "blocks.jsonl"]),
        ("arena-attacks-docs", ["--game", "attacks", "attacks.jsonl"]),
    ]
    for name, args in arenas:
        out.append((name, ["arena", "--format", "json", "--no-progress", *args]))
    out.append(("score-results", ["score", "--format", "json", results]))
    out.append(("score-lines", ["score", "--format", "lines", results]))
    out.append(("render-solved", ["render", str(EX / "blocker_divides.json"), "solve.json"]))
    out.append(("render-combat", ["render", str(EX / "double_strike.json"), "combat.json"]))
    out.append(("check-bad", ["check", str(EX / "thrasta.json"), '{"t": {"opp": 7}}']))
    out.append(("check-ok", ["check", str(EX / "blocker_divides.json"), "assignment.json"]))
    return out


def scrub(text: str, work: Path, trample: str) -> str:
    text = text.replace(str(work), "<work>").replace(trample, "<trample>")
    text = text.replace(str(Path(trample).parent), "<trample's folder>")
    text = GIT_COMMIT.sub(r"\1<commit>", text)
    text = TIMING.sub(lambda m: m.group(1) + "0", text)
    return DURATION.sub("<t>", text)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trample", required=True, help="the trample executable to run")
    ap.add_argument("--out", required=True, type=Path, help="a folder for one file a command")
    ns = ap.parse_args()
    ns.trample = str(Path(ns.trample).absolute())  # the commands run in a temporary folder
    ns.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        solved = subprocess.run(
            [ns.trample, "solve", "--objective", "max-damage", str(EX / "blocker_divides.json")],
            capture_output=True,
            text=True,
            check=True,
        )
        (work / "solve.json").write_text(solved.stdout)
        (work / "assignment.json").write_text(json.dumps(json.loads(solved.stdout)["assignment"]))
        combat = [ns.trample, "solve", "--objective", "max-damage", str(EX / "double_strike.json")]
        (work / "combat.json").write_text(subprocess.run(combat, capture_output=True, text=True, check=True).stdout)
        for name in DECLARE:
            listed = [ns.trample, "declare", "enumerate", str(EX / "declare" / f"{name}.json")]
            first = subprocess.run(listed, capture_output=True, text=True, check=True).stdout.splitlines()[-1]
            (work / f"declaration-{name}.json").write_text(first)
        for kind, names in [("blocks", ["blocks", "obvious"]), ("attacks", ["attacks", "lethal", "band"])]:
            docs = [json.dumps(json.loads((EX / "declare" / f"{n}.json").read_text())) for n in names]
            (work / f"{kind}.jsonl").write_text("\n".join(docs) + "\n")
        for name, args in commands(work):
            before = {p.name: p.stat().st_mtime_ns for p in work.iterdir()}
            run = subprocess.run([ns.trample, *args], capture_output=True, text=True, timeout=300, cwd=work)
            written = "".join(
                f"--- file {p.name}\n{p.read_text()}\n"
                for p in sorted(work.iterdir())
                if before.get(p.name) != p.stat().st_mtime_ns
            )
            record = f"exit {run.returncode}\n--- stdout\n{run.stdout}\n--- stderr\n{run.stderr}\n{written}"
            (ns.out / f"{name.replace(',', '+')}.txt").write_text(scrub(record, work, ns.trample))
    print(f"{len(commands(Path('.')))} commands recorded in {ns.out}")


if __name__ == "__main__":
    main()
