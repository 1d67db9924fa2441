"""Adversarial input at the command line: each row is a bug that was found (a traceback, a hang, a silent wrong
answer or an unclear message) and the one-line error it now gives. docs/format.md: bad input exits 2 with one line
on standard error that names the place, and never a traceback."""

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from trample.cli import main
from trample.models import MAX_NUMBER, FormatError, load_scenario, parse_json_text

ROOT = Path(__file__).resolve().parents[2]
THRASTA = json.loads((ROOT / "examples" / "thrasta.json").read_text())
DOUBLE = ROOT / "examples" / "double_strike.json"
LIBRARY = ROOT / "examples" / "library.json"
LEGAL = '{"thrasta":{"bear":10},"cub":{"teferi":2}}'
BIG = 10**30


def board(path: str, value) -> str:
    """THRASTA as JSON text with the field at ``path`` (``attackers.0.power``) set to ``value``."""
    doc = json.loads(json.dumps(THRASTA))
    *head, last = path.split(".")
    node = doc
    for key in head:
        node = node[int(key)] if key.isdigit() else node[key]
    node[int(last) if last.isdigit() else last] = value
    return json.dumps(doc)


def raw(path: str, text: str) -> str:
    """THRASTA with the field at ``path`` set to the raw JSON ``text`` (NaN, 1e309, 5000 digits)."""
    return board(path, "@@").replace('"@@"', text)


def run_main(capsys, monkeypatch, args, stdin: str | bytes = "", cwd=None):
    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    if cwd is not None:
        monkeypatch.chdir(cwd)
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


# (id, arguments, standard input, the fragment of the one stderr line). Every row exits 2.
BAD = [
    # Numbers beyond the documented bound: tracebacks (OverflowError in the counting programme, TypeError in
    # CP-SAT) or, at 2**31 - 1, a counting table of billions of cells.
    (
        "power-1e30-count",
        ["count", "-"],
        board("attackers.0.power", BIG),
        f"attackers[0].power: must be at most {MAX_NUMBER}, got a 31-digit number",
    ),
    (
        "power-2**31-sample",
        ["sample", "-"],
        board("attackers.0.power", 2**31 - 1),
        f"attackers[0].power: must be at most {MAX_NUMBER}",
    ),
    (
        "toughness-1e30-solve",
        ["solve", "-", "--objective", "lethal"],
        board("blockers.0.toughness", BIG),
        "blockers[0].toughness: must be at most",
    ),
    (
        "life-1e30-solve",
        ["solve", "-", "--objective", "max-damage"],
        board("players.0.life", BIG),
        "players[0].life: must be at most",
    ),
    (
        "life-minus-1e30",
        ["count", "-"],
        board("players.0.life", -BIG),
        f"players[0].life: must be at least -{MAX_NUMBER}, got a 31-digit negative number",
    ),
    (
        "loyalty-1e30-solve",
        ["solve", "-", "--objective", "max-value"],
        board("planeswalkers.0.loyalty", BIG),
        "planeswalkers[0].loyalty: must be at most",
    ),
    (
        "marked-1e30",
        ["count", "-"],
        board("blockers.0.damage_marked", BIG),
        "blockers[0].damage_marked: must be at most",
    ),
    (
        "value-1e300",
        ["solve", "-", "--objective", "max-value"],
        board("blockers.0.value", 1e300),
        f"blockers[0].value: must be between -{MAX_NUMBER} and {MAX_NUMBER}",
    ),
    # Text that Python reads but that is not JSON, or that it cannot turn into a number.
    ("5000-digits", ["count", "-"], raw("attackers.0.power", "9" * 5000), "not JSON: a number with 5000 digits"),
    (
        "5000-digit-amount",
        ["check", ROOT / "examples" / "thrasta.json", '{"thrasta": {"bear": %s}}' % ("9" * 5000)],
        "",
        "ASSIGNMENT: not JSON: a number with 5000 digits",
    ),
    ("nan", ["count", "-"], raw("attackers.0.power", "NaN"), "attackers[0].power: NaN is not a JSON number"),
    ("1e309", ["count", "-"], raw("blockers.1.value", "1e309"), "blockers[1].value: 1e309 is not a JSON number"),
    (
        "infinity-in-score",
        ["score", "-"],
        '{"scenario": {"attackers": []}, "assignment": {}, "time_ms": Infinity}',
        "time_ms: Infinity is not a JSON number",
    ),
    # A repeated key silently kept its last value.
    (
        "duplicate-key",
        ["count", "-"],
        board("attackers.1.power", 2).replace('"power": 2', '"power": 2, "power": 9'),
        "attackers[1].power: duplicate key",
    ),
    (
        "duplicate-amount",
        ["check", ROOT / "examples" / "thrasta.json", '{"thrasta": {"bear": 10, "bear": 3}}'],
        "",
        "ASSIGNMENT: thrasta.bear: duplicate key",
    ),
    ("duplicate-key-in-batch-line", ["count", "batch.jsonl"], None, "line 2: attackers: duplicate key"),
    # An unknown engine was a ValueError traceback (and a whole combat never checked the name).
    (
        "engine-nope",
        ["count", "-", "--engine", "nope"],
        json.dumps(THRASTA),
        "argument --engine: invalid choice: 'nope'",
    ),
    ("engine-nope-whole-combat", ["enumerate", DOUBLE, "--engine", "brute"], "", "argument --engine: invalid choice"),
    (
        "engine-nope-gnome",
        ["gnome", ROOT / "examples" / "gnome.json", LIBRARY, "--engine", "x"],
        "",
        "argument --engine: invalid choice",
    ),
    # Standard input: empty, not UTF-8 (a UnicodeDecodeError traceback under PYTHONIOENCODING=utf-8).
    ("empty-stdin", ["count", "-"], "", "standard input: not JSON: the input is empty"),
    ("blank-stdin", ["solve", "-", "--objective", "lethal"], " \n ", "standard input: not JSON: the input is empty"),
    ("not-utf8-stdin", ["count", "-"], b"\xff\xfe{}", "standard input: not UTF-8 text (byte 1 is 0xff)"),
    ("not-json-names-the-file", ["count", "thrasta.json"], None, "thrasta.json: not JSON: Extra data at line 2"),
    # Both inputs from standard input: the second read was empty, "not JSON".
    (
        "check-stdin-twice",
        ["check", "-", "-"],
        json.dumps(THRASTA),
        "ASSIGNMENT: FILE and ASSIGNMENT cannot both be read from standard input",
    ),
    ("rank-stdin-twice", ["rank", "-", "-"], json.dumps(THRASTA), "cannot both be read from standard input"),
    # Inline JSON that is not an object was looked up as a file: "[]: no such file".
    (
        "inline-list-assignment",
        ["check", ROOT / "examples" / "thrasta.json", "[]"],
        "",
        "assignment: expected an object, got a list",
    ),
    (
        "inline-null-assignment",
        ["rank", ROOT / "examples" / "thrasta.json", "null"],
        "",
        "assignment: expected an object, got null",
    ),
    # Ids that break the one-line rule or cannot be printed.
    ("newline-in-id", ["count", "-"], board("attackers.0.attacking", "x\ny"), 'unknown id "x\\ny"'),
    ("u2028-in-id", ["count", "-"], board("attackers.0.attacking", "x\u2028y"), 'unknown id "x\\u2028y"'),
    (
        "lone-surrogate-id",
        ["count", "-"],
        board("attackers.1.id", "@@").replace('"@@"', '"\\ud800"'),
        "attackers[1].id: expected Unicode text, got a lone surrogate",
    ),
    (
        "lone-surrogate-player",
        ["score", "-", "--format", "table"],
        '{"player": "\\udc00", "scenario": {"attackers": []}, "assignment": {}}',
        "player: expected Unicode text",
    ),
    # Options: an empty file name, a file type matplotlib cannot write (a traceback after the whole run),
    # a missing directory (found only after the whole run), an option that was silently ignored.
    ("output-empty", ["enumerate", "-", "-o", ""], json.dumps(THRASTA), "--output: expected a file name"),
    (
        "columns-without-npy",
        ["enumerate", "-", "--columns", "c.json"],
        json.dumps(THRASTA),
        "--columns: only with --format npy",
    ),
    (
        "report-type",
        ["arena", "--level", "tiny", "--n", "1", "--report", "r.foo"],
        "",
        "--report: expected a file name ending in .png",
    ),
    ("score-report-type", ["score", "-", "--report", "r"], "", "--report: expected a file name ending in .png"),
    ("out-empty", ["arena", "--level", "tiny", "--n", "1", "--out", ""], "", "--out: expected a file name"),
    (
        "out-no-directory",
        ["arena", "--level", "tiny", "--n", "1", "--out", "no/such/dir/r.json"],
        "",
        "no/such/dir/r.json: cannot write: no such directory no/such/dir",
    ),
    (
        "out-is-directory",
        ["arena", "--level", "tiny", "--n", "1", "--report", "."],
        "",
        ".: is a directory, expected a file name",
    ),
    ("arena-empty-suite", ["arena", "empty.jsonl"], None, "empty.jsonl: no boards to play"),
    # Messages that named the wrong thing.
    (
        "gnome-no-attacker",
        ["gnome", "-", LIBRARY],
        '{"attackers": []}',
        "attackers: no attacker: the Scalesoul Gnome must be attacking",
    ),
    (
        "stack-face-unknown",
        ["mill", "-", "1"],
        '{"stack": [{"card": {"name": "Bear", "mana_value": 2}, "face": "Nope"}]}',
        'stack[0].face: "Bear" has no face named "Nope" (faces: Bear)',
    ),
    (
        "perft-line-path",
        ["count", "perft.jsonl"],
        None,
        "line 1: scenario.attackers[0].power: required field is missing",
    ),
    ("empty-file-name", ["count", ""], "", "FILE: expected a file name, or - for standard input"),
    ("empty-assignment", ["check", "-", " "], json.dumps(THRASTA), "ASSIGNMENT: expected JSON, a file name, or -"),
    (
        "several-documents",
        ["count", "-"],
        json.dumps(THRASTA) + "\n" + json.dumps(THRASTA),
        "standard input: not JSON: Extra data at line 2 column 1 (one JSON document expected; a batch of one document "
        "per line is a file whose name ends in .jsonl)",
    ),
    # JSON text inside a JSON string (encoded twice) was decoded again and silently accepted.
    (
        "double-encoded-scenario",
        ["count", "-"],
        json.dumps(json.dumps({"attackers": []})),
        'scenario: expected an object, got "{\\"attackers\\": []}"',
    ),
    (
        "double-encoded-assignment",
        ["check", ROOT / "examples" / "thrasta.json", "-"],
        json.dumps(LEGAL),
        "assignment: expected an object, got",
    ),
    ("double-encoded-library", ["mill", "-", "1"], json.dumps('{"cards": []}'), "library: expected an object"),
    (
        "double-encoded-decision",
        ["score", "-"],
        json.dumps({"scenario": "{}", "assignment": {}}),
        "scenario: expected an object",
    ),
    ("double-encoded-suite-line", ["arena", "s.jsonl"], None, "s.jsonl: line 1: scenario: expected an object"),
    (
        "mismatch-plural",
        ["check", ROOT / "examples" / "thrasta.json", "two.jsonl"],
        "",
        "two.jsonl: has 2 assignments for 1 scenario\n",
    ),
]

FILES = {
    "batch.jsonl": json.dumps(THRASTA) + '\n{"attackers": [], "attackers": []}\n',
    "thrasta.json": json.dumps(THRASTA) + "\n" + json.dumps(THRASTA),
    "empty.jsonl": "\n",
    "perft.jsonl": '{"name": "x", "scenario": {"attackers": [{"id": "a"}]}}\n',
    "two.jsonl": LEGAL + "\n" + LEGAL + "\n",
    "s.jsonl": json.dumps({"name": "x", "scenario": json.dumps(THRASTA)}) + "\n",
}


@pytest.mark.parametrize("args,stdin,fragment", [row[1:] for row in BAD], ids=[row[0] for row in BAD])
def test_bad_input_exit_2_one_line_naming_the_place(capsys, monkeypatch, tmp_path, args, stdin, fragment):
    for name, text in FILES.items():
        (tmp_path / name).write_text(text)
    code, out, err = run_main(capsys, monkeypatch, args, stdin or "", cwd=tmp_path)
    assert code == 2, (code, out, err)
    assert len(err.splitlines()) == 1 and err.startswith("trample") and "Traceback" not in err, err
    assert fragment in err, err
    if fragment.startswith("line "):  # a batch: the bad line's result is an error line in its place
        assert json.loads(out.splitlines()[-1]) == {"error": err.strip().removeprefix("trample: ")}
    else:
        assert out == ""


def test_the_bound_is_inclusive(capsys, monkeypatch):  # 510.1a: a creature of power MAX_NUMBER still counts
    doc = {
        "players": [{"id": "p", "life": -MAX_NUMBER}],
        "attackers": [{"id": "a", "power": MAX_NUMBER, "toughness": MAX_NUMBER, "attacking": "p"}],
    }
    code, out, err = run_main(capsys, monkeypatch, ["count", "-"], json.dumps(doc))
    assert (code, json.loads(out), err) == (0, {"count": 1}, "")
    with pytest.raises(FormatError, match=r"attackers\[0\]\.power: must be at least -1000000"):
        load_scenario(doc | {"attackers": [dict(doc["attackers"][0], power=-MAX_NUMBER - 1)]})


def test_long_values_are_cut_short_in_messages(capsys, monkeypatch):  # docs/format.md: a one-line error
    code, _, err = run_main(capsys, monkeypatch, ["sample", "-", "--seed", "7" * 5000], json.dumps(THRASTA))
    assert code == 2 and "argument --seed: expected a whole number" in err and len(err) < 200
    code, _, err = run_main(capsys, monkeypatch, ["mill", LIBRARY, "x" * 5000])
    assert code == 2 and "N: expected a whole number" in err and len(err) < 200


def test_byte_order_mark_is_skipped(capsys, monkeypatch, tmp_path):  # docs/format.md: a file that is JSON
    f = tmp_path / "bom.json"
    f.write_bytes(b"\xef\xbb\xbf" + json.dumps(THRASTA).encode())
    assert run_main(capsys, monkeypatch, ["count", f]) == (0, '{"count":36}\n', "")
    assert run_main(capsys, monkeypatch, ["count", "-"], b"\xef\xbb\xbf" + json.dumps(THRASTA).encode()) == (
        0,
        '{"count":36}\n',
        "",
    )


def test_jsonl_lines_end_at_newline_only(capsys, monkeypatch, tmp_path):  # docs/format.md: a result line per line
    # U+2028, form feed and vertical tab cut str.splitlines(): a line that held one was answered twice, and
    # every later result moved down one line.
    text = json.dumps(THRASTA)
    f = tmp_path / "b.jsonl"
    f.write_text("\n".join([text + sep + text for sep in ("\u2028", "\x0c", "\x0b")] + [text]) + "\r\n")
    code, out, err = run_main(capsys, monkeypatch, ["count", f])
    rows = [json.loads(x) for x in out.splitlines()]
    assert code == 2 and len(rows) == 4 and rows[3] == {"count": 36}
    assert [r["error"][:7] for r in rows[:3]] == ["line 1:", "line 2:", "line 3:"]
    assert len(err.splitlines()) == 3 and "Traceback" not in err


def test_arena_suite_lines_end_at_newline_only(tmp_path):  # docs/format.md: one board per line
    from trample.arena.suites import load_suite

    s = dict(THRASTA, attackers=[dict(THRASTA["attackers"][1], id="a\u2028b")], blockers=[])
    f = tmp_path / "s.jsonl"
    f.write_text(json.dumps(s, ensure_ascii=False) + "\n")
    assert [i["scenario"]["attackers"][0]["id"] for i in load_suite(f)] == ["a\u2028b"]


def test_parse_json_text_names_the_place():  # docs/format.md: the message names the JSON path
    with pytest.raises(FormatError) as err:
        parse_json_text('{"a": [{"b": 1}, {"b": 2, "b": 3}]}')
    assert str(err.value) == "a[1].b: duplicate key (a JSON object takes each key once)"
    with pytest.raises(FormatError) as err:
        parse_json_text('{"a": [1, -Infinity]}', "line 4")
    assert str(err.value) == "line 4: a[1]: -Infinity is not a JSON number (JSON numbers are finite)"
    assert parse_json_text('{"a": {"x": 1}, "b": {"x": 1}}') == {"a": {"x": 1}, "b": {"x": 1}}


def real(*args, stdout=subprocess.PIPE, env=None):
    return subprocess.Popen(
        [sys.executable, "-m", "trample", *map(str, args)], stdout=stdout, stderr=subprocess.PIPE, cwd=ROOT, env=env
    )


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_full_disk_is_one_line_not_a_traceback():  # docs/format.md: no traceback
    with open("/dev/full", "w") as full:
        proc = real("count", ROOT / "examples" / "thrasta.json", stdout=full)
        _, err = proc.communicate(timeout=120)
    assert proc.returncode == 2 and err.decode().strip() == "trample: No space left on device"


def test_a_reader_that_leaves_early_is_not_an_error():  # `trample enumerate ... | head -1`
    proc = real("enumerate", ROOT / "examples" / "p20k8.json")
    first = proc.stdout.readline()
    proc.stdout.close()
    _, err = proc.communicate(timeout=120)
    assert json.loads(first) == {"t": {"b7": 20}} and proc.returncode == 0 and err == b""


def test_strict_stdin_encoding_is_not_a_traceback():  # docs/format.md: bytes that are not UTF-8 are bad input
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "trample", "count", "-"],
        input=b"\xff{}",
        capture_output=True,
        cwd=ROOT,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 2 and proc.stderr.decode() == "trample: standard input: not UTF-8 text (byte 1 is 0xff)\n"


def test_out_of_memory_is_one_line(capsys, monkeypatch):  # docs/format.md: no traceback
    # numpy raises MemoryError for a block it cannot allocate (one trampler blocked by 500 1/1s, enumerate)
    import trample.combat

    def too_big(*args, **kwargs):
        raise MemoryError("Unable to allocate 522. MiB")

    monkeypatch.setattr(trample.combat.Combat, "count", too_big)
    code, out, err = run_main(capsys, monkeypatch, ["count", "-"], json.dumps(THRASTA))
    assert code == 2 and out == "" and err.startswith("trample: out of memory") and len(err.splitlines()) == 1


def test_a_bad_assignment_line_names_its_own_file_and_line(capsys, monkeypatch, tmp_path):  # docs/format.md
    (tmp_path / "s.jsonl").write_text("\n" + json.dumps(THRASTA) + "\n" + json.dumps(THRASTA) + "\n")
    (tmp_path / "a.jsonl").write_text("nope\n" + LEGAL + "\n")
    code, out, err = run_main(capsys, monkeypatch, ["check", "s.jsonl", "a.jsonl"], cwd=tmp_path)
    assert code == 2 and err == "trample: line 2: a.jsonl: line 1: not JSON: Expecting value at line 1 column 1\n"
    assert [json.loads(x) for x in out.splitlines()][1] == {"legal": True, "violations": []}


@pytest.mark.parametrize(
    "args",
    [
        ["enumerate", "s.json", "-o", "s.json"],  # emptied the scenario before reading it: "not JSON", data lost
        ["enumerate", "s.json", "--format", "npy", "-o", "./s.json"],
        ["enumerate", "s.json", "--format", "npy", "-o", "m.npy", "--columns", "m.npy"],  # the sidecar over the matrix
        ["score", "d.jsonl", "--out", "d.jsonl"],  # the results over the recorded decisions
        ["arena", "d.jsonl", "--report", "d.jsonl"],
    ],
)
def test_an_output_never_overwrites_an_input(capsys, monkeypatch, tmp_path, args):  # docs/format.md: pure transforms
    (tmp_path / "s.json").write_text(json.dumps(THRASTA))
    decisions = (ROOT / "benchmarks" / "arena" / "decisions" / "example.jsonl").read_text()
    (tmp_path / "d.jsonl").write_text(decisions)
    code, out, err = run_main(capsys, monkeypatch, args, cwd=tmp_path)
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and "writing it would overwrite it" in err
    assert json.loads((tmp_path / "s.json").read_text()) == THRASTA
    assert (tmp_path / "d.jsonl").read_text() == decisions
    assert not (tmp_path / "m.npy").exists()
