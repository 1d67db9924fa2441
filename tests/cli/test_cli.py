"""The trample command line: docs/format.md's contract (exit codes 0/1/2, one-line errors, .jsonl batches)."""

import json
from pathlib import Path

import pytest
from boards import PERFT_PATH
from cli_process import run

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "thrasta.json"
PERFT = PERFT_PATH  # tests/data/combat-perft.jsonl

TRAMPLE_2_2 = {
    "players": [{"id": "opp", "life": 20}],
    "attackers": [
        {"id": "a", "power": 5, "toughness": 5, "keywords": ["trample"], "attacking": "opp", "blocked_by": ["x"]}
    ],
    "blockers": [{"id": "x", "power": 1, "toughness": 2}],
}


def test_count_from_stdin():  # 702.19b: 2+3, 3+2, 4+1, 5+0
    code, out, err = run("count", "-", stdin=json.dumps(TRAMPLE_2_2))
    assert (code, json.loads(out), err) == (0, {"count": 4}, "")


@pytest.mark.slow
def test_enumerate_lists_each_once_and_limit(tmp_path):
    f = tmp_path / "s.json"
    f.write_text(json.dumps(TRAMPLE_2_2))
    code, out, _ = run("enumerate", f)
    got = [json.loads(line) for line in out.splitlines()]
    assert code == 0
    assert sorted(json.dumps(g, sort_keys=True) for g in got) == sorted(
        json.dumps(g, sort_keys=True)
        for g in [{"a": {"x": 5}}, {"a": {"x": 4, "opp": 1}}, {"a": {"x": 3, "opp": 2}}, {"a": {"x": 2, "opp": 3}}]
    )
    code, out, _ = run("enumerate", f, "--limit", "2")
    assert code == 0 and len(out.splitlines()) == 2


@pytest.mark.slow
def test_check_exit_codes_and_rules(tmp_path):
    f = tmp_path / "s.json"
    f.write_text(json.dumps(TRAMPLE_2_2))
    code, out, _ = run("check", f, '{"a": {"x": 2, "opp": 3}}')
    assert code == 0 and json.loads(out) == {"legal": True, "violations": []}
    code, out, _ = run("check", f, '{"a": {"x": 1, "opp": 4}}')  # 702.19b: lethal first
    res = json.loads(out)
    assert code == 1 and res["legal"] is False and [v["rule"] for v in res["violations"]] == ["702.19b"]
    code, out, _ = run("check", f, '{"a": {"x": 1, "opp": 3}}')  # 510.1a: all of its damage
    assert code == 1 and "510.1a" in [v["rule"] for v in json.loads(out)["violations"]]
    a = tmp_path / "a.json"
    a.write_text('{"a": {"x": 5}}')
    code, out, _ = run("check", f, a)
    assert code == 0 and json.loads(out)["legal"] is True


def test_perft_batch_one_line_per_scenario():
    lines = [json.loads(x) for x in PERFT.read_text().splitlines() if x.strip()]
    code, out, err = run("count", PERFT)
    assert code == 0, err
    assert [json.loads(x)["count"] for x in out.splitlines()] == [c["count"] for c in lines]


def test_batch_with_a_bad_line_keeps_its_place(tmp_path):
    f = tmp_path / "b.jsonl"
    good = json.dumps(TRAMPLE_2_2)
    f.write_text("\n".join([good, '{"attackers": [{"id": "a"}]}', "not json", good]) + "\n")
    code, out, err = run("count", f)
    rows = [json.loads(x) for x in out.splitlines()]
    assert code == 2
    assert rows[0] == {"count": 4} and rows[3] == {"count": 4}
    assert rows[1]["error"].startswith("line 2: attackers[0].power: required field is missing")
    assert rows[2]["error"].startswith("line 3: not JSON")
    assert "Traceback" not in err and len(err.splitlines()) == 2


BAD_INPUTS = [
    (
        '{"attackers": [{"id": "a", "power": "3", "toughness": 1, "attacking": "p"}], "players": [{"id": "p"}]}',
        "attackers[0].power: expected an integer",
    ),
    (
        '{"attackers": [{"id": "a", "power": 3, "toughness": 1, "attacking": "p", "keywords": ["trample", "flyng"]}],'
        ' "players": [{"id": "p"}]}',
        'attackers[0].keywords[1]: unknown keyword "flyng"',
    ),
    (
        '{"attackers": [{"id": "a", "power": 3, "toughness": 1, "attacking": "q"}], "players": [{"id": "p"}]}',
        'attackers[0].attacking: unknown id "q"',
    ),
    (
        '{"attackers": [{"id": "p", "power": 3, "toughness": 1, "attacking": "p"}], "players": [{"id": "p"}]}',
        'attackers[0].id: duplicate id "p"',
    ),
    (
        '{"attackers": [], "blockers": [{"id": "b", "power": 3, "toughness": -1}]}',
        "blockers[0].toughness: must not be negative",
    ),
    (
        '{"attackers": [], "planeswalkers": [{"id": "w", "controller": "p", "loyalty": -3}], "players": [{"id": "p"}]}',
        "planeswalkers[0].loyalty: must not be negative",
    ),
    (
        '{"attackers": [], "battles": [{"id": "w", "protector": "p", "defense": -3}], "players": [{"id": "p"}]}',
        "battles[0].defense: must not be negative",
    ),
    (
        '{"attackers": [], "blockers": [{"id": "b", "power": 3, "toughness": 1, "damage_marked": -1}]}',
        "blockers[0].damage_marked: must not be negative",
    ),
    (
        '{"attackers": [{"id": "a", "power": 3.5, "toughness": 1, "attacking": "p"}], "players": [{"id": "p"}]}',
        "attackers[0].power: expected an integer",
    ),
    ("[1, 2", "not JSON"),
    ('["a list"]', "expected an object"),
]


@pytest.mark.parametrize("command", ["count", "enumerate"])
@pytest.mark.parametrize("text,expected", BAD_INPUTS, ids=[e for _, e in BAD_INPUTS])
def test_bad_input_exit_2_one_line(command, text, expected):
    code, out, err = run(command, "-", stdin=text)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and expected in err and "Traceback" not in err


@pytest.mark.slow
def test_bad_assignment_exit_2(tmp_path):
    f = tmp_path / "s.json"
    f.write_text(json.dumps(TRAMPLE_2_2))
    for text, expected in [
        ('{"a": {"x": -1}}', "assignment.a.x: must not be negative"),
        ('{"a": {"dragon": 5}}', 'assignment.a.dragon: unknown recipient "dragon"'),
        ('{"a": {"x": "5"}}', "assignment.a.x: expected an integer"),
        ('{"a": 5}', "assignment.a: expected an object"),
    ]:
        code, out, err = run("check", f, text)
        assert code == 2 and expected in err and len(err.strip().splitlines()) == 1, (text, err)


@pytest.mark.slow
def test_usage_errors_are_one_line():
    for args in (["frobnicate"], ["count"], ["enumerate", "-", "--limit", "many"], ["count", "/no/such/file.json"]):
        code, out, err = run(*args, stdin="")
        assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, (args, err)


def test_example_counts():
    code, out, _ = run("count", EXAMPLE)
    assert code == 0 and json.loads(out)["count"] == 36


def test_the_declare_examples_are_shipped_too(capsys):  # a plain pip install has no examples/declare folder
    from trample.cli import main

    assert main(["example"]) == 0
    names = json.loads(capsys.readouterr().out)["examples"]
    declare = sorted(p.stem for p in (ROOT / "examples" / "declare").glob("*.json"))
    assert [n for n in names if n.startswith("declare/")] == [f"declare/{n}" for n in declare] and "thrasta" in names
    assert main(["example", "declare/obvious"]) == 0
    shipped = capsys.readouterr().out
    assert json.loads(shipped) == json.loads((ROOT / "examples" / "declare" / "obvious.json").read_text())


def test_removed_attacker_assigns_nothing():  # 506.4: an attacker removed from combat deals no combat damage
    doc = json.loads(json.dumps(TRAMPLE_2_2))
    doc["attackers"][0]["in_combat"] = False
    code, out, _ = run("enumerate", "-", stdin=json.dumps(doc))
    assert code == 0 and [json.loads(x) for x in out.splitlines()] == [{"a": {}}]


def test_every_command_that_writes_a_file_takes_dash_o_and_output(tmp_path):
    # issue 22: the output option was spelled -o/--output, -o/--out and --out; now -o/--output everywhere
    for spelling in ("-o", "--output", "--out"):
        out = tmp_path / f"render{spelling}.svg"
        assert run("render", "examples/thrasta.json", spelling, str(out))[0] == 0 and out.exists()
        res = tmp_path / f"arena{spelling}.json"
        code, _, err = run("arena", "known-mistakes", "--format", "json", spelling, str(res))
        assert code == 0, err
        assert json.loads(res.read_text())["config"]["boards"] == 13
