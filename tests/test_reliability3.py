"""Issue 24, "Reliability, round 3": each defect that was found is a test named after it (docs/format.md states
the contract: exit 0 / 1 / 2, 130 on a signal, one line on standard error, strict JSON on standard output)."""

import io
import json
import sys
from pathlib import Path

import pytest

from trample.cli import main

ROOT = Path(__file__).resolve().parents[1]
THRASTA = json.loads((ROOT / "examples" / "thrasta.json").read_text())


def run_main(capsys, monkeypatch, args, stdin: str | bytes = ""):
    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


# 1. enumerate printed "}" (invalid JSON Lines) and exited 0 when the only legal assignment is the empty one.
@pytest.mark.parametrize(
    "args, board",
    [
        (["enumerate", "-"], {"attackers": []}),
        (["enumerate", "-", "--side", "defending"], {"players": [{"id": "opp", "life": 20}], "attackers": [{"id": "a", "power": 3, "toughness": 3, "attacking": "opp"}]}),
    ],
)
def test_enumerate_empty_assignment_prints_valid_jsonl(capsys, monkeypatch, args, board):
    code, out, err = run_main(capsys, monkeypatch, args, json.dumps(board))
    assert code == 0, err
    assert [json.loads(line) for line in out.splitlines()] == [{}]
