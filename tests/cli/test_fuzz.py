"""The fuzz harness (tests/fuzz/harness.py) run briefly in `make test`: a few hundred generated inputs over every
format, each checked against the contract of docs/format.md (exit 0/1/2, one line on error, strict JSON, one
result per batch line, no traceback, bounded time). `make fuzz` runs 20 000."""

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


# Card files and decklists (library from-deck) are being held to the contract by another change (issue 24, item
# 9): their fuzzing is here, expected to fail until that lands (strict=False: it passes once it has).
@pytest.mark.slow
@pytest.mark.xfail(reason="issue 24 item 9: library from-deck tracebacks on damaged card data", strict=False)
def test_fuzz_card_files_and_decklists_keep_the_contract():
    rng_cases = harness.fuzz(60, seed=9, subprocess_every=0, without=tuple(
        k.__name__ for k, _ in harness.KINDS if k.__name__ != "case_deck"))  # fmt: skip
    assert rng_cases == [], _report(rng_cases)


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
