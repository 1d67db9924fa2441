"""The bulk JSON Lines writer (``DamageStep.jsonl_bytes``): byte for byte ``json.dumps(..., separators=(",", ":"))``
of each row's assignment plus a newline, on arbitrary rows (narrow and wide, zero amounts, names that need
escaping, sources without columns, amounts on both sides of each table's size), and the commands that write it."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trample.step as step
from trample import Combat
from trample.optimize import all_optimal

NAMES = st.sampled_from(["a", "b0", 'q"uote', "back\\slash", "sn\u2603w", "tab\t", "opp", "x" * 30])


@st.composite
def layouts(draw):
    """Source names, and columns (source, recipient) in any order of sources, some sources without a column."""
    names = draw(st.lists(NAMES, min_size=0, max_size=4, unique=True))
    columns = []
    for name in names:
        recipients = draw(st.lists(NAMES, min_size=0, max_size=12, unique=True))
        columns += [(name, r) for r in recipients]
    return names, draw(st.permutations(columns))


def expected(names, columns, rows) -> bytes:
    """The reference: the assignment's mapping built plainly (sources in order, recipients in column order, zero
    amounts left out), through json.dumps."""
    lines = []
    for row in rows:
        mapping = {name: {} for name in names}
        for (source, recipient), amount in zip(columns, row):
            if amount != 0:
                mapping[source][recipient] = amount
        lines.append(json.dumps(mapping, separators=(",", ":")) + "\n")
    return "".join(lines).encode("ascii")


@settings(max_examples=300, deadline=None)
@given(layouts(), st.data(), st.sampled_from([2, 16, 1 << 12]), st.sampled_from([np.int8, np.int32, np.int64]))
def test_bulk_lines_are_json_dumps_of_each_row(layout, data, entries, dtype):
    names, columns = layout
    top = data.draw(st.sampled_from([0, 1, 3, 20, 127, 3000]))
    n = data.draw(st.integers(0, 40))
    rows = data.draw(
        st.lists(st.lists(st.integers(0, top), min_size=len(columns), max_size=len(columns)), min_size=n, max_size=n)
    )
    saved, paid = step._SEGMENT_ENTRIES, step._ENTRIES_PER_ROW
    step._SEGMENT_ENTRIES = entries  # one column a segment (tiny tables) up to several columns a segment
    step._ENTRIES_PER_ROW = 1 << 40  # the tables built for any number of rows (the one-line path: below)
    try:
        layout_ = step._Layout(list(names), list(columns))
        block = np.array(rows, dtype=np.int16 if top > 127 else dtype).reshape(n, len(columns))
        got = layout_.jsonl_bytes(block)
        assert got == expected(names, columns, rows)
        assert layout_.jsonl(block) == got.decode("ascii")
        # the tables built for this block serve a block of smaller amounts, and larger ones get their own
        for shift in (-1, 1):
            other = [[max(0, v + shift) for v in r] for r in rows]
            assert layout_.jsonl_bytes(np.array(other, dtype=np.int64).reshape(n, len(columns))) == expected(
                names, columns, other
            )
    finally:
        step._SEGMENT_ENTRIES, step._ENTRIES_PER_ROW = saved, paid


def test_tables_are_built_once_the_rows_pay_for_them():
    # a few rows of large amounts are written one line at a time (HUGE's `enumerate --limit 3` built 600 000 table
    # entries for three lines); once the rows so written reach the tables' entries over _ENTRIES_PER_ROW, the
    # tables are built and serve the blocks after: the same text either way
    columns = [("a", "b"), ("a", "opp"), ("c", "b")]
    layout = step._Layout(["a", "c"], columns)
    rng = np.random.default_rng(3)
    for k in range(8):
        rows = rng.integers(0, 400, size=(100, 3)) * (rng.random((100, 3)) < 0.8)
        rows[0, 0] = 399  # amounts below 400: 1 200 entries, paid for after 400 rows
        assert layout.jsonl_bytes(rows) == expected(["a", "c"], columns, rows.tolist())
        assert bool(layout._segments) == (k >= 3)


def test_wide_rows_of_about_200_bytes():
    # one attacker blocked by many creatures: lines of ~200 bytes, with runs of zero amounts between the others
    columns = [("attacker", f"blocker-{i:02d}") for i in range(24)] + [("attacker", "opponent")]
    rng = np.random.default_rng(7)
    rows = rng.integers(0, 12, size=(3000, len(columns))) * (rng.random((3000, len(columns))) < 0.7)
    got = step._Layout(["attacker"], columns).jsonl_bytes(rows)
    assert got == expected(["attacker"], columns, rows.tolist())
    assert 150 < len(got) / len(rows) < 400


def test_amounts_too_large_for_tables_are_written_one_line_at_a_time():
    columns = [("a", "b"), ("a", "opp")]
    rows = np.array([[0, 10**9], [3, 0], [0, 0]], dtype=np.int64)
    assert step._Layout(["a"], columns).jsonl_bytes(rows) == expected(["a"], columns, rows.tolist())


def test_no_source_and_no_row():
    assert step._Layout([], []).jsonl_bytes(np.zeros((3, 0), dtype=np.int64)) == b"{}\n" * 3
    assert step._Layout(["a"], []).jsonl_bytes(np.zeros((2, 0), dtype=np.int64)) == b'{"a":{}}\n' * 2
    assert step._Layout(["a"], [("a", "b")]).jsonl_bytes(np.zeros((0, 1), dtype=np.int64)) == b""


def sharing_board() -> dict:
    """Two tramplers sharing blockers, one more unblocked: several sources, lines of different widths."""
    return {
        "players": [{"id": "opp", "life": 20}],
        "attackers": [
            {"id": "t1", "power": 6, "toughness": 5, "keywords": ["trample"], "attacking": "opp",
             "blocked_by": ["b0", "b1", "b2"]},
            {"id": "t2", "power": 5, "toughness": 5, "keywords": ["trample"], "attacking": "opp",
             "blocked_by": ["b1", "b2", "b3"]},
            {"id": "u", "power": 2, "toughness": 2, "attacking": "opp"},
        ],
        "blockers": [{"id": f"b{i}", "power": 1, "toughness": 1 + i % 3} for i in range(4)],
    }  # fmt: skip


def run(*args) -> bytes:
    proc = subprocess.run([sys.executable, "-m", "trample", *args], capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.parametrize("limit", [None, 7])
def test_enumerate_writes_the_lines_of_json_dumps(tmp_path, limit):
    board = tmp_path / "board.json"
    board.write_text(json.dumps(sharing_board()))
    listed = list(Combat(sharing_board()).assignments())[:limit]
    want = "".join(json.dumps(a.to_json(), separators=(",", ":")) + "\n" for a in listed).encode("ascii")
    extra = [] if limit is None else ["--limit", str(limit)]
    assert run("enumerate", str(board), *extra) == want
    out = tmp_path / "out.jsonl"
    assert run("enumerate", str(board), "--output", str(out), *extra) == b""
    assert out.read_bytes() == want


def test_solve_all_optimal_writes_the_lines_of_json_dumps(tmp_path):
    board = tmp_path / "board.json"
    board.write_text(json.dumps(sharing_board()))
    listed = list(all_optimal(Combat(sharing_board()), "lethal"))
    want = "".join(json.dumps(a.to_json(), separators=(",", ":")) + "\n" for a in listed).encode("ascii")
    assert len(listed) > 1
    assert run("solve", str(board), "--objective", "lethal", "--all-optimal") == want
