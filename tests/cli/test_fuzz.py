"""The fuzz harness (tests/fuzz/harness.py) run briefly in `make test`: a few hundred generated inputs over every
format, each checked against the contract of docs/format.md (exit 0/1/2, one line on error, strict JSON, one
result per batch line, no traceback, bounded time). `make fuzz` runs 20 000."""

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fuzz"))

import harness  # noqa: E402


def _report(bad) -> str:
    return "\n".join(f"{o.case.argv} -> {o.code!r}: {o.problems} {o.err[-200:]!r}" for o in bad[:10])


@pytest.mark.slow
def test_fuzz_every_format_keeps_the_contract():
    bad = harness.fuzz(250, seed=24, subprocess_every=125, without=("case_deck",))
    assert bad == [], _report(bad)


@pytest.mark.slow
def test_fuzz_card_files_and_decklists_keep_the_contract():
    rng_cases = harness.fuzz(60, seed=9, subprocess_every=0, without=tuple(
        k.__name__ for k, _ in harness.KINDS if k.__name__ != "case_deck"))  # fmt: skip
    assert rng_cases == [], _report(rng_cases)


def test_a_case_depends_only_on_the_seed_and_its_index():
    """`make fuzz --jobs N` deals the indices out to N processes: case k must be the same whoever makes it, in
    whatever order (a case made from one stream of random numbers depended on every case before it)."""
    later_first = [harness.case_at(3, k) for k in (41, 7, 40)]
    in_order = [harness.case_at(3, k) for k in range(7, 42)]
    assert [c.argv for c in later_first] == [in_order[34].argv, in_order[0].argv, in_order[33].argv]
    assert [c.files for c in later_first] == [in_order[34].files, in_order[0].files, in_order[33].files]
    assert {c.kind for c in in_order} == {k.__name__ for k, _ in harness.KINDS}
    assert [c.subprocess for c in (harness.case_at(0, 199), harness.case_at(0, 200))] == [True, False]


def test_mutations_inside_a_deep_field_stay_writable():
    """make fuzz case 2361 (seed 0): a second mutation put a DEEP list inside the DEEP list of the first, and
    json.dumps could not write the document (RecursionError: the worker died, 70 cases not run)."""
    for seed in range(100):
        doc = harness.mutate(random.Random(seed), {"x": json.loads(harness.DEEP)}, times=3)
        json.dumps(doc)
    harness.case_at(0, 2361)


def test_an_argument_no_process_can_take_runs_in_process():
    """make fuzz case 9399: a real-process case whose command line held a NUL byte (an option value) could not be
    started (ValueError: embedded null byte), and the worker died with 300 cases unrun."""
    case = harness.case_at(0, 9399)
    assert any("\x00" in arg for arg in case.argv) and not case.subprocess


@pytest.mark.slow
def test_run_splits_the_cases_over_jobs_and_takes_an_interrupted_run_up(tmp_path):
    """run.py --jobs 2 --out FILE: every index once, in FILE; run again, the indices FILE holds are skipped (a
    line cut by a kill is run again)."""
    out = tmp_path / "fuzz.jsonl"
    run = [sys.executable, str(Path(harness.__file__).with_name("run.py")), "--seed", "5", "--out", str(out)]
    first = subprocess.run([*run, "--start", "0", "--stop", "6", "--jobs", "2"], capture_output=True, text=True)
    assert first.returncode == 0, first.stdout + first.stderr
    assert sorted(json.loads(line)["index"] for line in out.read_text().splitlines()) == list(range(6))
    assert "6 cases, 0 contract violations" in first.stdout
    out.write_text(out.read_text() + '{"index": 6, "ki')  # a kill in the middle of a line
    again = subprocess.run([*run, "--start", "0", "--stop", "8", "--jobs", "2"], capture_output=True, text=True)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "2 cases, 0 contract violations" in again.stdout
    lines = out.read_text().splitlines()
    assert lines[6] == '{"index": 6, "ki'  # the cut line is left alone, the next record starts on a line of its own
    assert sorted(json.loads(line)["index"] for line in lines[:6] + lines[7:]) == list(range(8))


def test_harness_finds_a_violation():
    """The checker is not blind: a traceback, a bad exit code, a cut JSON line and a missing batch line are found."""
    case = harness.Case(["count", "b.jsonl"], batch_lines=2, single=False)
    assert harness.check(case, 0, '{"count":1}\n{"count":2}\n', "") == []
    assert harness.check(case, 0, '{"count":1}\n', "")  # one line for two
    assert harness.check(case, 0, '{"count":1}\n{"count"\n', "")  # not JSON
    assert harness.check(case, 0, '{"count":NaN}\n{"count":1}\n', "")  # not strict JSON
    assert harness.check(case, 3, "", "")  # exit code
    assert harness.check(harness.Case(["count", "s.json"]), 2, "", "Traceback (most recent call last):\n")
    assert harness.check(harness.Case(["count", "s.json"]), 2, "", "trample: a\ntrample: b\n")  # two lines
