"""The conformance suite other engines run (trample.conformance, ``trample conformance``), held to the independent
brute force of tests/oracles/brute.py: each case's count, its legal assignments and its illegal ones."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest
from brute import brute_force, is_legal, violations

from trample import conformance, schemas

jsonschema = pytest.importorskip("jsonschema")
BOUND = 120


def _key(assignment: dict) -> str:
    return json.dumps({s: dict(sorted(split.items())) for s, split in sorted(assignment.items())}, sort_keys=True)


@pytest.fixture(scope="module")
def suite() -> list[dict]:
    return list(conformance.cases(conformance.boards(per_level=2, seed=3)))


def test_every_case_agrees_with_the_brute_force(suite):
    assert len(suite) > 40
    for case in suite:
        legal = {_key(a) for a in brute_force(case["scenario"], case["side"])}
        assert case["count"] == len(legal), case["name"]
        assert case["legal"], case["name"]
        for a in case["legal"]:
            assert _key(a) in legal, (case["name"], a)
        for wrong in case["illegal"]:
            assert _key(wrong["assignment"]) not in legal, (case["name"], wrong)
            assert not is_legal(case["scenario"], wrong["assignment"], case["side"])
            assert wrong["rules"] and all(isinstance(r, str) for r in wrong["rules"])


def test_the_illegal_assignments_cite_the_rules_the_brute_force_finds(suite):
    # the brute force names its own rules; at least one rule it finds is among the case's (510.1a, 702.19b, ...)
    agree = total = 0
    for case in suite:
        for wrong in case["illegal"]:
            found = {rule for rule, _ in violations(case["scenario"], wrong["assignment"], case["side"])}
            total += 1
            agree += bool(found & set(wrong["rules"]))
    assert total > 60 and agree / total > 0.9


def test_the_suite_covers_the_rules_and_both_sides(suite):
    rules = {r for case in suite for wrong in case["illegal"] for r in wrong["rules"]}
    assert {"510.1a", "510.1c", "510.1d", "702.19b"} <= rules
    assert {case["side"] for case in suite} == {"attacking", "defending"}


def test_every_line_validates_against_its_schema(suite):
    schema = schemas.load("conformance-line")
    for case in suite:
        jsonschema.validate(case, schema)


def test_the_same_options_write_the_same_suite():
    first = list(conformance.cases(conformance.boards(per_level=1, seed=5)))
    again = list(conformance.cases(conformance.boards(per_level=1, seed=5)))
    assert first == again


def _trample(*args, **kwargs):
    return subprocess.Popen([sys.executable, "-m", "trample", *args], **kwargs)


def test_cli_writes_the_file_and_an_interrupt_keeps_whole_lines(tmp_path):
    out = tmp_path / "suite.jsonl"
    proc = _trample("conformance", "--per-level", "1", "-o", str(out), stderr=subprocess.PIPE)
    _, err = proc.communicate(timeout=BOUND)
    assert proc.returncode == 0, err
    lines = out.read_text().splitlines()
    assert len(lines) > 40 and all(json.loads(line)["count"] >= 1 for line in lines)

    big = tmp_path / "big.jsonl"  # interrupted once the first line is out: what was finished stays, whole
    proc = _trample("conformance", "--per-level", "1000", stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = proc.stdout.readline()
    assert json.loads(first)["count"] >= 1
    proc.send_signal(signal.SIGINT)
    rest, err = proc.communicate(timeout=BOUND)
    assert proc.returncode == 130, err
    assert all(json.loads(line) for line in rest.decode().splitlines())
    assert "Traceback" not in err.decode() and not big.exists()


@pytest.mark.parametrize("args", [["--legal", "x"], ["--illegal", "5000"], ["-o", "/no/such/folder/x.jsonl"]])
def test_cli_bad_options(args):
    proc = _trample("conformance", *args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=os.environ)
    out, err = proc.communicate(timeout=BOUND)
    assert proc.returncode == 2 and len(err.decode().splitlines()) == 1 and out == b""
