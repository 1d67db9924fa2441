"""``trample declare count|enumerate|check|sample|scenario`` (solver/cli/commands/declare.py): the damage step's
contract for declarations: JSON out, exit 0 / 1 (the answer is no) / 2 (bad input, one line naming the place)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trample.cli import main
from trample.models.declare import BlockersDoc, load_declare_doc

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "declare"
BLOCKS = str(EXAMPLES / "blocks.json")
ATTACKS = str(EXAMPLES / "attacks.json")


def run(capsys, *argv) -> tuple[int, list, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, [json.loads(line) for line in out.out.splitlines()], out.err


def test_count_enumerate_sample_agree(capsys):
    code, (count,), _ = run(capsys, "declare", "count", ATTACKS)
    assert code == 0 and count == {"count": 18, "requirements_obeyed": 1}
    assert run(capsys, "declare", "count", ATTACKS, "--engine", "cpsat")[1] == [count]
    code, listed, _ = run(capsys, "declare", "enumerate", ATTACKS)
    assert code == 0 and len(listed) == 18 and len({json.dumps(d, sort_keys=True) for d in listed}) == 18
    assert all(d.get("berserker") for d in listed)  # 508.1d: it attacks each combat if able
    assert run(capsys, "declare", "enumerate", ATTACKS, "--limit", "2")[1] == listed[:2]
    code, drawn, _ = run(capsys, "declare", "sample", ATTACKS, "--n", "5", "--seed", "7")
    assert code == 0 and len(drawn) == 5 and all(d in listed for d in drawn)
    assert run(capsys, "declare", "sample", ATTACKS, "--n", "5", "--seed", "7")[1] == drawn


def test_check_cites_every_rule_and_exits_1(capsys):
    code, (result,), _ = run(capsys, "declare", "check", BLOCKS, '{"dragon": ["wolf"], "ogre": ["knight"]}')
    assert code == 1
    rules = [v["rule"] for v in result["violations"]]
    assert rules == ["702.9b", "509.1a", "702.111b", "509.1c"]
    code, (result,), _ = run(capsys, "declare", "check", BLOCKS, '{"rat": ["archer", "wolf", "wall"]}')
    assert code == 0 and result == {"legal": True, "violations": []}


def test_a_batch_counts_line_by_line(tmp_path, capsys):
    path = tmp_path / "docs.jsonl"
    lines = [(EXAMPLES / "blocks.json").read_text(), "{", (EXAMPLES / "attacks.json").read_text()]
    path.write_text("\n".join(json.dumps(json.loads(t)) if t != "{" else t for t in lines) + "\n")
    code, out, err = run(capsys, "declare", "count", str(path))
    assert code == 2 and out[0]["count"] == 1 and "error" in out[1] and out[2]["count"] == 18
    assert len(err.splitlines()) == 1


def test_enumerate_and_sample_read_a_batch_one_line_per_document(tmp_path, capsys):
    """A .jsonl batch: one {"declarations": [...]} line per document, the single document's list in it (the same
    seed for each line), a bad line an error line and exit 2."""
    path = tmp_path / "docs.jsonl"
    lines = [(EXAMPLES / "attacks.json").read_text(), "{", (EXAMPLES / "blocks.json").read_text()]
    path.write_text("\n".join(json.dumps(json.loads(t)) if t != "{" else t for t in lines) + "\n")
    for command, extra in (("enumerate", ["--limit", "5"]), ("sample", ["--n", "4", "--seed", "7"])):
        code, out, err = run(capsys, "declare", command, str(path), *extra)
        assert code == 2 and len(out) == 3 and "error" in out[1] and len(err.splitlines()) == 1
        assert out[0]["declarations"] == run(capsys, "declare", command, ATTACKS, *extra)[1]
        assert out[2]["declarations"] == run(capsys, "declare", command, BLOCKS, *extra)[1]
    code, out, _ = run(capsys, "declare", "enumerate", str(path))
    assert len(out[0]["declarations"]) == 18  # every declaration of the attacks document, each once


@pytest.mark.parametrize(
    "argv,message",
    [
        (["declare", "count", "missing.json"], "trample: missing.json: no such file"),
        (["declare", "check", BLOCKS, '{"rat": ["nobody"]}'], 'trample: declaration.rat[0]: unknown creature "nobody"'),
        (["declare", "check", ATTACKS, '{"giant": "moon"}'], 'trample: declaration.giant: unknown id "moon"'),
        (["declare", "count", BLOCKS, "--engine", "fast"], "trample declare count: argument --engine"),
        (["declare"], "trample declare: the following arguments are required: COMMAND"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv, message, capsys):
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert len(err.splitlines()) == 1 and err.startswith(message), err


def test_a_bad_document_is_one_line_and_exit_2(tmp_path, capsys):
    doc = json.loads((EXAMPLES / "blocks.json").read_text())
    doc["attackers"][0]["keywords"] = ["flyin"]
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(doc))
    code, _, err = run(capsys, "declare", "enumerate", str(path))
    assert code == 2 and err.startswith('trample: attackers[0].keywords[0]: unknown keyword "flyin"')
    assert len(err.splitlines()) == 1


def test_the_scenario_command_pipes_into_every_damage_command(tmp_path, capsys):
    assert main(["declare", "scenario", str(EXAMPLES / "blocks.json"), '{"rat": ["archer", "wolf", "wall"]}']) == 0
    scenario = json.loads(capsys.readouterr().out)
    path = tmp_path / "s.json"
    path.write_text(json.dumps(scenario), encoding="utf-8")
    assert main(["count", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["count"] > 0
    assert main(["declare", "scenario", str(EXAMPLES / "attacks.json"), '{"giant": "opp"}']) == 0
    nxt = json.loads(capsys.readouterr().out)
    assert nxt["declare"] == "blockers" and [a["id"] for a in nxt["attackers"]] == ["giant"]
    assert nxt["battles"] == []  # the active player's own battle is not the defenders'
    assert isinstance(load_declare_doc(nxt), BlockersDoc)


def test_enumerate_stops_at_the_time_limit_with_whole_lines(tmp_path, capsys):
    attackers = [{"id": f"a{i}", "power": 2, "toughness": 2, "attacking": "opp"} for i in range(8)]
    blockers = [{"id": f"b{i}", "power": 1, "toughness": 1} for i in range(8)]
    path = tmp_path / "big.json"
    path.write_text(json.dumps({"declare": "blockers", "players": [{"id": "opp"}], "attackers": attackers,
                                "blockers": blockers}))  # fmt: skip
    code = main(["declare", "enumerate", str(path), "--time-limit", "0.2"])
    out = capsys.readouterr()
    assert code == 0 and "stopped at --time-limit; the list is incomplete" in out.err
    lines = out.out.splitlines()
    assert len(lines) < 9**8  # 8 blockers, each blocking one of 8 attackers or none: 43 046 721 declarations
    assert all(isinstance(json.loads(line), dict) for line in lines)
