"""Pictures: trample.render's SVG is well-formed and shows the objects, their numbers, the blocks,
the assignment's amounts and the results; `trample render`; _repr_svg_ for notebooks."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import examples

from trample import Combat, open_combat
from trample.models import FormatError
from trample.render import board_svg, render, xml_text

ROOT = Path(__file__).resolve().parents[2]
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
    assert "takes 3" in words and "life 3 → 0" in words and "LETHAL" in words and "life (704.5a)" in words
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


# ---------------------------------------------------------------------------------------------
# What happens: every picture shows the outcome the solver reports (issue 20)
# ---------------------------------------------------------------------------------------------


def example(name: str) -> dict:
    return json.loads((ROOT / "examples" / f"{name}.json").read_text())


def test_lifelink_is_drawn_as_the_solver_reports_it():
    # 702.15b, 510.2: the priest's 2 lifelink damage to the rhino is dealt at the same time: opp at 3 - 3 + 2 = 2
    combat = Combat(example("lifelink"))
    result = combat.solve("lethal,max-damage")
    assert result.lethal["opp"]["life_after"] == 2 and not result.lethal["opp"]["reached"]
    svg = render(combat, result.assignment)
    words = texts(svg)
    assert "life 3 → 2" in words and "lifelink +2" in words
    assert "LETHAL" not in words and "life 3 → 0" not in words
    assert "the defending player's best reply" in " ".join(words)  # the reply drawn is said to be one
    red = [
        ln
        for ln in ET.fromstring(svg).iter(NS + "line")
        if ln.get("class") == "assign" and ln.get("stroke") == "#d62728"
    ]
    assert len(red) == 1  # priest -> rhino


def test_the_defending_sides_picture_draws_the_attacking_players_reply():  # 510.2, 702.15b, 702.90b
    # --side defending on a board with effects: the blockers' assignment and the attackers' best reply solve
    # assumes are dealt at once -- the picture read the blockers' damage alone (opp untouched, the lifelink
    # gain only); it reads Combat.outcome, as every reader does, and says whose reply it drew
    board = example("lifelink")
    board["attackers"][0]["keywords"] = ["trample", "infect"]
    combat = Combat(board, side="defending")
    result = combat.solve("max-kills")
    want = combat.outcome(result.assignment)
    assert any(e.source == "rhino" for e in want.events)  # the reply deals damage
    words = texts(render(combat, result.assignment))
    after = want.player("opp")
    assert f"poison 0 → {after.poison}" in words or after.poison == 0
    assert f"life 3 → {after.life}" in words
    assert "the attacking player's best reply" in " ".join(words)


def test_infect_is_drawn_as_poison_not_life_loss():
    # 702.90b: infect damage to a player gives poison counters; 704.5c: 10 poison counters lose the game
    combat = Combat(example("infect"))
    result = combat.solve("lethal,max-damage")
    words = texts(render(combat, result.assignment))
    assert "poison 8 → 10" in words and "LETHAL" in words and "poison (704.5c)" in words
    assert not any(w.startswith("life 20 →") for w in words)
    assert "2 -1/-1 counters" in words  # 702.90c: infect damage to a creature is -1/-1 counters


def test_prevented_damage_is_drawn_as_prevented():
    # 702.16e: the ogre (red) assigns 2 to the knight with protection from red: prevented, the knight survives
    combat = Combat(example("protection"))
    svg = render(combat, {"ogre": {"knight": 2, "bear": 2}})
    words = texts(svg)
    assert "2 prevented (702.16e): survives" in " ".join(words)  # a result line may wrap on the card
    root = ET.fromstring(svg)
    bubbles = [g.find(NS + "text").text for g in root.iter(NS + "g") if g.get("class") == "amount"]
    assert "2→0" in bubbles
    prevented = [ln for ln in root.iter(NS + "line") if ln.get("class") == "assign" and ln.get("stroke-dasharray")]
    assert len(prevented) == 1


def test_no_step_is_drawn_after_the_game_ends():
    # 104.3b: the first-strike step's 2 damage kills opp (704.5a): there is no regular damage step
    whole = open_combat(example("game_over"))
    line = whole.solve("lethal").assignment
    svg = render(whole, line)
    words = texts(svg)
    assert "1. first-strike damage step" in words
    assert not any(w.startswith("2. regular damage step") for w in words)
    assert any(w.startswith("no regular damage step") for w in words)
    assert "LETHAL" in words and "life 2 → 0" in words


def test_whole_combat_show_and_repr_svg():
    whole = open_combat(DOUBLE)
    line = whole.solve(["max-damage", "max-kills"]).assignment
    assert whole.show(line)._repr_svg_() == render(whole, line)
    assert "2. regular damage step (after state-based actions)" in texts(whole.show(line).svg)
    assert ET.fromstring(whole._repr_svg_()).tag == NS + "svg"


def test_long_titles_wrap_instead_of_being_cut():
    title = "a long title " * 12 + "END"
    words = texts(render(Combat(example("lifelink")), None, title))
    assert " ".join(w for w in words if "title" in w or "END" in w).split() == title.split()


def test_cli_render_side_both_draws_the_solve_line(tmp_path):
    # README: `trample solve --side both ... | trample render --side both ...`: both sides' damage, legal
    solved = run("solve", "examples/lifelink.json", "--side", "both", "--objective", "lethal").stdout
    proc = run("render", "examples/lifelink.json", "-", "--side", "both", stdin=solved)
    assert proc.returncode == 0, proc.stderr
    words = texts(proc.stdout)
    assert "legal ✓" in words and not any(w.startswith("ILLEGAL") for w in words)
    assert "life 3 → 2" in words  # the priest's lifelink, as solve --side both reports it
    defending = run("render", "examples/lifelink.json", '{"priest": {"rhino": 2}}', "--side", "defending")
    assert defending.returncode == 0 and "legal ✓" in texts(defending.stdout)
    assert "takes 2: survives" in texts(defending.stdout)  # the rhino (5/5)


# ---------------------------------------------------------------------------------------------
# Hostile ids (issue 24): every picture is well-formed XML and carries only what trample.render writes
# ---------------------------------------------------------------------------------------------

ELEMENTS = {  # what trample.render writes: element -> its attributes
    "svg": {"version", "width", "height", "viewBox"},
    "rect": {"x", "y", "width", "height", "rx", "fill", "stroke", "stroke-width", "opacity"},
    "text": {"x", "y", "font-family", "font-size", "font-weight", "font-style", "text-anchor", "fill"},
    "line": {"class", "x1", "y1", "x2", "y2", "stroke", "stroke-width", "stroke-dasharray", "marker-end", "opacity"},
    "g": {"class", "id", "transform"},
    "defs": set(),
    "marker": {"id", "viewBox", "refX", "refY", "markerWidth", "markerHeight", "orient"},
    "path": {"d", "fill"},
}
CLASSES = {"attacker", "blocker", "planeswalker", "battle", "player", "amount", "assign", None}
HOSTILE = [
    'opp" onload="alert(1)',
    "<script>alert(1)</script>",
    "a\x01b\x1b[31m\x00",
    "]]><svg onload=x>",
    "&amp;&lt;\ufffe\uffff",
    "x'y\"z\n\t\r",
]


def only_what_render_writes(svg: str) -> ET.Element:
    root = ET.fromstring(svg)  # well-formed XML, or this raises
    for el in root.iter():
        assert el.tag.startswith(NS), el.tag
        tag = el.tag[len(NS) :]
        assert tag in ELEMENTS, tag
        assert set(el.attrib) <= ELEMENTS[tag], (tag, el.attrib)
        if tag == "g":
            assert el.get("class") in CLASSES
        if "marker-end" in el.attrib:
            assert el.get("marker-end").startswith("url(#trample-arrowhead-")
    return root


def hostile_board(ids: list[str], step: str = "regular") -> dict:
    p, q, a, b, w, t = ids
    return {
        "step": step,
        "players": [{"id": p, "life": 3}, {"id": q, "life": 20}],
        "planeswalkers": [{"id": w, "controller": p, "loyalty": 2}],
        "battles": [{"id": t, "protector": q, "defense": 3}],
        "attackers": [
            {"id": a, "power": 4, "toughness": 2, "keywords": ["trample", "first_strike"], "attacking": p,
             "blocked_by": [b], "tags": [p], "commander": q},
            {"id": a + "2", "power": 2, "toughness": 2, "keywords": ["double_strike"], "attacking": w},
        ],
        "blockers": [{"id": b, "power": 2, "toughness": 2, "keywords": ["lifelink"], "protection": [t]}],
    }  # fmt: skip


def every_picture(board: dict) -> list[str]:
    combat = Combat(board)
    best = combat.solve("lethal,max-damage").assignment
    whole = open_combat({**board, "step": "combat"})
    line = whole.solve("max-damage").assignment
    return [
        combat._repr_svg_(),
        render(combat, best, title=board["players"][0]["id"]),
        render(combat, {board["attackers"][0]["id"]: {board["players"][1]["id"]: 9}}),  # illegal: names the ids
        board_svg(combat.scenario, best, title=board["attackers"][0]["id"], verdict=board["blockers"][0]["id"]),
        whole.show(line, title=board["blockers"][0]["id"]).svg,
        whole._repr_svg_(),
    ]


@pytest.mark.parametrize("hostile", HOSTILE)
def test_hostile_ids_carry_nothing_into_the_picture(hostile):
    ids = [hostile + suffix for suffix in ("", "-q", "-a", "-b", "-w", "-t")]
    for svg in every_picture(hostile_board(ids)):
        root = only_what_render_writes(svg)
        words = " ".join(t.text or "" for t in root.iter(NS + "text"))
        assert "alert(1)" not in words or hostile.startswith(("opp", "<script>"))  # shown as text, never run
    svg = render(Combat(hostile_board(ids)))
    assert "<script" not in svg  # text is escaped: &lt;script
    if hostile.startswith("opp"):  # issue 24's reproducer: the id stays inside its attribute, escaped
        assert '<g class="player" id="opp&quot; onload=&quot;alert(1)">' in svg


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.text(min_size=1, max_size=12), min_size=6, max_size=6))
def test_any_ids_give_well_formed_pictures(raw):
    ids = [f"{s}#{k}" for k, s in enumerate(raw)]  # distinct
    board = hostile_board(ids)
    try:
        Combat(board)
    except FormatError:  # ids the loader refuses (lone surrogates): one line, no picture
        return
    for svg in every_picture(board):
        root = only_what_render_writes(svg)
        shown = {g.get("id") for g in root.iter(NS + "g") if g.get("class") in ("player", "attacker", "blocker")}
        assert shown <= {xml_text(i) for i in (*ids, ids[2] + "2")}  # each id, escaped where XML cannot carry it


def test_the_arena_png_report_shows_hostile_player_names(tmp_path):
    # matplotlib reads "$...$" as mathtext, which fails on "$\foo{$": the names are shown literally
    pytest.importorskip("matplotlib")
    board = {"players": [{"id": "opp", "life": 3}], "attackers": [{"id": "a", "power": 5, "toughness": 5,
             "attacking": "opp"}]}  # fmt: skip
    decisions = tmp_path / "d.jsonl"
    decisions.write_text(
        json.dumps({"player": "$\\foo{$", "scenario": board, "assignment": {"a": {"opp": 5}}})
        + "\n"
        + json.dumps({"player": "x\x01y$", "scenario": board, "assignment": {"a": {"opp": 2}}})
        + "\n"
    )
    png = tmp_path / "r.png"
    proc = run("score", str(decisions), "--report", str(png))
    assert proc.returncode == 0, proc.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_leaderboard_table_shows_control_characters_visibly(tmp_path):
    # a recorded player's name with an ANSI escape sequence must not reach the terminal as one
    pytest.importorskip("rich")
    board = {"players": [{"id": "opp", "life": 3}], "attackers": [{"id": "a", "power": 5, "toughness": 5,
             "attacking": "opp"}]}  # fmt: skip
    decisions = tmp_path / "d.jsonl"
    decisions.write_text(json.dumps({"player": "evil\x1b[31mRED", "scenario": board, "assignment": {"a": {"opp": 5}}}))
    proc = run("score", str(decisions), "--format", "table")
    assert proc.returncode == 0, proc.stderr
    assert "\x1b" not in proc.stdout and "evil\\x1b[31mRED" in proc.stdout


@settings(max_examples=examples(30), deadline=None)
@given(st.lists(st.text(min_size=1, max_size=12), min_size=6, max_size=6))
def test_pictures_are_written_as_elementtree_writes_them(raw):
    # render builds and writes its tree itself (no ElementTree objects, no namespace pass): the text must be what
    # ElementTree writes for the same tree, character for character, whatever the ids hold (quotes, &, <, newlines
    # and tabs inside attribute values, escapes)
    from trample import render as render_module

    ids = [f"{s}#{k}" for k, s in enumerate(raw)]
    board = hostile_board([*ids[:5], 'q"&<>\n\t\r' + ids[5]])
    try:
        Combat(board)
    except FormatError:
        return
    pairs = []
    own = render_module._serialise

    def both(root):
        pairs.append((own(root), ET.tostring(root.element(), encoding="unicode", short_empty_elements=True)))
        return pairs[-1][0]

    render_module._serialise = both
    try:
        every_picture(board)
    finally:
        render_module._serialise = own
    assert len(pairs) == 6
    for mine, elementtree in pairs:
        assert mine == elementtree


def test_the_characters_xml_cannot_carry_are_exactly_those_of_xml_1_0_section_2_2():
    # XML 1.0 2.2 Char: tab, newline, carriage return, U+0020-U+D7FF, U+E000-U+FFFD, U+10000-U+10FFFF. render's
    # pattern names the others (compiled in a fraction of the negated class's time): every code point checked
    from trample.render import _NOT_XML

    def allowed(c: int) -> bool:
        return c in (0x9, 0xA, 0xD) or 0x20 <= c <= 0xD7FF or 0xE000 <= c <= 0xFFFD or 0x10000 <= c <= 0x10FFFF

    wrong = [hex(c) for c in range(0x110000) if (_NOT_XML.match(chr(c)) is None) != allowed(c)]
    assert wrong == []
