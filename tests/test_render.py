"""Pictures: trample.render's SVG is well-formed and shows the objects, their numbers, the blocks,
the assignment's amounts and the results; `trample render`; _repr_svg_ for notebooks."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from trample import Combat, open_combat
from trample.render import board_svg, render

ROOT = Path(__file__).resolve().parent.parent
THRASTA = json.loads((ROOT / "examples/thrasta.json").read_text())
DOUBLE = json.loads((ROOT / "examples/double_strike.json").read_text())
NS = "{http://www.w3.org/2000/svg}"


def texts(svg: str) -> list[str]:
    root = ET.fromstring(svg)  # well-formed XML, or this raises
    assert root.tag == NS + "svg"
    return [t.text for t in root.iter(NS + "text")]


def groups(svg: str, cls: str) -> list[str]:
    return [g.get("id") for g in ET.fromstring(svg).iter(NS + "g") if g.get("class") == cls]


def test_a_board_shows_every_object_with_its_numbers():
    svg = board_svg(Combat(THRASTA).scenario)
    words = texts(svg)
    assert groups(svg, "attacker") == ["thrasta", "cub"]
    assert groups(svg, "blocker") == ["wall", "bear"]
    assert groups(svg, "planeswalker") == ["teferi"] and groups(svg, "player") == ["opp"]
    for expected in ("10/10", "2/2", "0/4", "♥3", "◆4", "life: 3", "loyalty: 4  value 4", "marked damage 1"):
        assert expected in words, expected
    assert "lethal: 3" in words  # 702.19b: toughness 4 with 1 marked
    assert "trample, trample over" in words and "attacks teferi (PW)" in words
    assert "blocked by wall, bear" in words
    root = ET.fromstring(svg)
    dashed = [ln for ln in root.iter(NS + "line") if ln.get("stroke-dasharray")]
    assert len(dashed) == 2  # who blocks whom: wall and bear block thrasta


def test_the_optimal_line_is_drawn_with_amounts_thresholds_and_results():
    combat = Combat(THRASTA)
    best = combat.solve(["lethal", "max-value"]).assignment
    svg = render(combat, best, "thrasta")
    words = texts(svg)
    root = ET.fromstring(svg)
    arrows = [ln for ln in root.iter(NS + "line") if ln.get("class") == "assign"]
    assert len(arrows) == 5  # thrasta -> wall, bear, teferi, opp; cub -> teferi
    amounts = sorted(int(g.find(NS + "text").text) for g in root.iter(NS + "g") if g.get("class") == "amount")
    assert amounts == sorted(n for split in best.values() for n in split.values())
    assert "takes 3: dies" in words and "takes 2: dies" in words
    assert "takes 4: destroyed" in words  # 702.19c: teferi's loyalty 4 is met
    assert "takes 3: life 3 → 0" in words and "LETHAL" in words
    assert any(w.startswith("legal ✓") for w in words)


def test_an_illegal_assignment_says_which_rule_it_breaks():
    svg = render(Combat(THRASTA), {"thrasta": {"wall": 3, "bear": 2, "opp": 5}, "cub": {"teferi": 2}})
    assert any(w.startswith("ILLEGAL: 702.19") for w in texts(svg))


def test_a_whole_combat_line_shows_both_steps_side_by_side():
    whole = open_combat(DOUBLE)
    line = whole.solve(["max-damage", "max-kills"]).assignment
    svg = render(whole, line)
    words = texts(svg)
    assert "1. first-strike damage step" in words
    assert "2. regular damage step (after state-based actions)" in words
    assert "removed from combat" in words  # the fencer and the ogre died in the first step
    assert groups(svg, "attacker") == ["knight", "ogre", "knight", "ogre"]


def test_repr_svg_for_notebooks():
    combat = Combat(THRASTA)
    assert ET.fromstring(combat._repr_svg_()).tag == NS + "svg"
    result = combat.solve(["lethal", "max-value"])
    assert "optimal: lethal 1, max-value 7" in texts(result._repr_svg_())
    assert combat.show(result.assignment)._repr_svg_() == render(combat, result.assignment)


def run(*args, stdin=None):
    return subprocess.run(
        [sys.executable, "-m", "trample", *args], input=stdin, capture_output=True, text=True, timeout=120, cwd=ROOT
    )


def test_cli_render_reads_a_solve_result_on_stdin(tmp_path):
    solved = run("solve", "examples/thrasta.json", "--objective", "lethal,max-value").stdout
    out = tmp_path / "board.svg"
    proc = run("render", "examples/thrasta.json", "-", "-o", str(out), stdin=solved)
    assert proc.returncode == 0, proc.stderr
    assert "takes 4: destroyed" in texts(out.read_text())
    proc = run("render", "examples/double_strike.json")
    assert proc.returncode == 0 and "knight" in texts(proc.stdout)


def test_cli_render_bad_input_is_one_line_and_exit_2(tmp_path):
    for args, message in (
        (("examples/thrasta.json", '{"nobody": {}}'), 'unknown source "nobody"'),
        (("examples/nothing.json",), "no such file"),
        (("examples/thrasta.json", "-o", str(tmp_path / "no" / "x.svg")), "no such directory"),
        (("examples/thrasta.json", '{"status": "unknown", "assignment": null}'), "has no assignment"),
    ):
        proc = run("render", *args)
        assert proc.returncode == 2 and message in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1


def test_the_pictures_in_docs_are_current(tmp_path):
    # README: `trample solve examples/thrasta.json --objective lethal,max-value | trample render ... -`
    for name, objective in (("thrasta", "lethal,max-value"), ("double_strike", "max-damage,max-kills")):
        solved = run("solve", f"examples/{name}.json", "--objective", objective).stdout
        out = tmp_path / f"{name}.svg"
        assert run("render", f"examples/{name}.json", "-", "-o", str(out), stdin=solved).returncode == 0
        assert out.read_text() == (ROOT / "docs" / f"{name}.svg").read_text()


def test_battles_planeswalkers_and_removed_objects():
    board = {
        "players": [{"id": "opp", "life": 20}, {"id": "ally", "life": 9}],
        "planeswalkers": [{"id": "jace", "controller": "opp", "loyalty": 3, "in_combat": False}],
        "battles": [{"id": "siege", "protector": "ally", "defense": 5}],
        "attackers": [
            {"id": "rhino", "power": 6, "toughness": 4, "keywords": ["trample", "deathtouch"], "attacking": "siege",
             "blocked_by": ["wall"]},
            {"id": "elf", "power": 1, "toughness": 1, "attacking": "jace"},
        ],
        "blockers": [{"id": "wall", "power": 0, "toughness": 7, "keywords": ["indestructible"]}],
    }  # fmt: skip
    combat = Combat(board)
    line = {"rhino": {"wall": 1, "siege": 5}, "elf": {}}
    assert combat.is_legal(line)  # 702.2c: deathtouch makes 1 lethal; 702.19b: the rest to the battle
    words = texts(render(combat, line))
    assert groups(render(combat, line), "battle") == ["siege"]
    assert "def 5" in words and "defense: 5" in words and "protector ally" in words
    assert "takes 5: defeated" in words
    assert "removed from combat" in words  # jace left combat: the elf assigns nothing (506.4c)
    assert "takes 1: survives" in words  # indestructible (702.12b) despite deathtouch
    assert "trample, deathtouch" in words and "indestructible" in words
    assert "(1 from a deathtouch source)" in words  # 702.2c: any damage from a deathtouch source is lethal
