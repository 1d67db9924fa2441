"""Who divides a source's combat damage (trample.rules.divider): the active player for attackers (510.1c), the
defending player for blockers (510.1d), moved by banding (702.22j: an attacker blocked by a creature with banding
is divided by the defending player; 702.22k: a blocker blocking a creature with banding by the active player), in
both steps. One notion read by the plan, solve (one step and whole combat), the lethal report and the games;
checked against the independent oracle (tests/oracles/brute.py ``divider``,
tests/oracles/brute_combat.py ``step_game``)."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import brute
import brute_combat
import pytest
import strategies
from boards import BAND_PROTECTED, BANDING_BLOCKER
from hypothesis import given, settings
from hypothesis import strategies as st
from test_outcomes import oracle_optimum, oracle_reachable

from trample import Combat
from trample.models import load_scenario
from trample.outcome import resolve
from trample.rules import derive, divider
from trample.whole import WholeCombat

ROOT = Path(__file__).resolve().parents[2]

# the boards (tests/boards.py): BAND_PROTECTED, the active player divides L's damage (702.22k) and puts it
# on y, protected from white; BANDING_BLOCKER, the defending player divides a's damage (702.22j), all of it on b

# without banding: the defending player divides L's damage and gains 1 from it (510.1d, 702.15b)
LIFELINK_SPLIT = {
    "step": "combat",
    "players": [{"id": "opp", "life": 1}],
    "attackers": [
        {"id": "x", "power": 1, "toughness": 1, "attacking": "opp"},
        {"id": "z", "power": 0, "toughness": 2, "attacking": "opp", "blocked_by": ["L"]},
        {"id": "y", "power": 0, "toughness": 2, "attacking": "opp", "blocked_by": ["L"], "protection": ["white"]},
    ],
    "blockers": [{"id": "L", "power": 1, "toughness": 2, "keywords": ["lifelink"], "tags": ["white"]}],
}

# a first-striking blocker blocking a band: the active player divides its first-strike damage (702.22k) and kills
# the band, so the trampler survives to deal 1 past L in the regular step
FIRST_STRIKE_BAND = {
    "step": "combat",
    "players": [{"id": "opp", "life": 20}],
    "attackers": [
        {"id": "band", "power": 1, "toughness": 1, "keywords": ["banding"], "attacking": "opp", "blocked_by": ["L"]},
        {"id": "y", "power": 2, "toughness": 1, "keywords": ["trample"], "attacking": "opp", "blocked_by": ["L"]},
    ],
    "blockers": [{"id": "L", "power": 1, "toughness": 1, "keywords": ["first_strike"]}],
}


def solve_cli(doc: dict, objective: str, tmp_path) -> dict:
    path = tmp_path / "board.json"
    path.write_text(json.dumps(doc))
    out = subprocess.run(
        [sys.executable, "-m", "trample", "solve", str(path), "--objective", objective],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


# -- the notion ---------------------------------------------------------------------------------------------------


def test_divider_defaults_to_the_controller():  # 510.1c, 510.1d
    s = load_scenario(LIFELINK_SPLIT)
    assert divider(s, "x") == ("attacking", "510.1c") and divider(s, "L") == ("defending", "510.1d")


def test_divider_banding_blocker_gives_the_attacker_to_the_defending_player():  # 702.22j
    s = load_scenario(BANDING_BLOCKER)
    assert divider(s, "a") == ("defending", "702.22j")
    assert divider(s, "b") == ("defending", "510.1d")  # b blocks no band: its own controller divides
    plan = derive(s, "attacking")
    assert plan.source("a").chooser == "defending" and plan.source("a").moved and plan.moved


def test_divider_blocker_of_a_band_gives_it_to_the_active_player():  # 702.22k
    s = load_scenario(BAND_PROTECTED)
    assert divider(s, "L") == ("attacking", "702.22k")
    assert derive(s, "defending").chosen_by("attacking") == (0,)
    assert derive(s, "defending", step="first_strike").sources[0].chooser == "attacking"  # in both steps


def test_divider_ignores_a_band_removed_from_combat():  # 506.4: no longer blocking or blocked
    doc = copy.deepcopy(BANDING_BLOCKER)
    doc["blockers"][0]["in_combat"] = False
    assert divider(load_scenario(doc), "a")[0] == "attacking"
    doc = copy.deepcopy(BAND_PROTECTED)
    doc["attackers"][1]["in_combat"] = False
    assert divider(load_scenario(doc), "L")[0] == "defending"


@settings(max_examples=strategies.examples(150), deadline=None)
@given(st.data())
def test_divider_matches_the_oracle(data):  # 510.1c/d, 702.22j/k
    doc = data.draw(strategies.scenarios(max_attackers=3, max_blockers=3, max_work=60))
    doc = data.draw(strategies.with_banding(doc))
    s = load_scenario(doc)
    for c in doc["attackers"] + doc.get("blockers", []):
        assert divider(s, c["id"])[0] == brute.divider(doc, c["id"])


# -- the reproducers ----------------------------------------------------------------------------------------------


def test_active_player_divides_a_band_blockers_damage_in_solve(tmp_path):  # 702.22k, 702.16e, 702.15b
    result = Combat(BAND_PROTECTED).solve("lethal")
    assert result.objectives == {"lethal": 1}
    assert result.reply.to_json() == {"L": {"y": 1}}  # on y: protection prevents it, no life is gained
    report = result.lethal["opp"]
    assert report["reached"] is True and report["life_after"] == 0 and report["reachable"] is True
    cli = solve_cli(BAND_PROTECTED, "lethal", tmp_path)
    assert cli["objectives"] == {"lethal": 1} and cli["lethal"]["opp"]["reachable"] is True
    # without banding the defending player divides L's damage: on band, and the gain saves the player (510.1d)
    plain = copy.deepcopy(BAND_PROTECTED)
    plain["attackers"][1]["keywords"] = []
    assert Combat(plain).solve("lethal").lethal["opp"]["reachable"] is False


def test_reachable_respects_the_defending_players_division(tmp_path):  # 702.22j
    result = Combat(BANDING_BLOCKER).solve("lethal")
    assert result.objectives == {"lethal": 0} and result.lethal["opp"]["reachable"] is False
    assert solve_cli(BANDING_BLOCKER, "lethal", tmp_path)["lethal"]["opp"]["reachable"] is False
    plain = copy.deepcopy(BANDING_BLOCKER)
    plain["blockers"][0]["keywords"] = []
    assert Combat(plain).solve("lethal").lethal["opp"]["reachable"] is True  # 702.19b: 1 to b, 3 to opp


def test_whole_combat_returns_the_defenders_lifelink_reply(tmp_path):  # 510.1d, 702.15b, 702.16e
    result = WholeCombat(LIFELINK_SPLIT).solve(["lethal"])
    line = result.assignment.to_json()
    assert line["regular"]["L"] == {"z": 1}  # not on y (prevented): on z, and the defending player gains 1
    report = result.lethal["opp"]
    assert result.objectives == {"lethal": 0}
    assert report["reached"] is False and report["life_after"] == 1 and report["reachable"] is False
    cli = solve_cli(LIFELINK_SPLIT, "lethal", tmp_path)
    assert cli["assignment"] == line and cli["lethal"]["opp"]["reached"] is False


def test_whole_combat_with_a_band_blockers_damage(tmp_path):  # 702.22k in the regular step
    doc = dict(BAND_PROTECTED, step="combat")
    result = WholeCombat(doc).solve(["lethal"])
    assert result.objectives == {"lethal": 1}
    assert result.assignment.to_json()["regular"]["L"] == {"y": 1}
    report = result.lethal["opp"]
    assert report["reached"] is True and report["life_after"] == 0 and report["reachable"] is True
    assert solve_cli(doc, "lethal", tmp_path)["objectives"] == {"lethal": 1}


def test_whole_combat_first_strike_band_is_divided_by_the_active_player(tmp_path):  # 702.22k, 510.4
    result = WholeCombat(FIRST_STRIKE_BAND).solve(["max-damage"])
    assert result.objectives == {"max-damage": 1}
    line = result.assignment.to_json()
    assert line["first_strike"]["L"] == {"band": 1} and line["regular"]["y"] == {"L": 1, "opp": 1}
    assert solve_cli(FIRST_STRIKE_BAND, "max-damage", tmp_path)["objectives"] == {"max-damage": 1}
    expected = brute_combat.adversarial_optimum(FIRST_STRIKE_BAND, ["max-damage"])
    assert expected == (1,)
    # without banding the defending player divides it and kills the trampler first (510.1d)
    plain = copy.deepcopy(FIRST_STRIKE_BAND)
    plain["attackers"][0]["keywords"] = []
    assert WholeCombat(plain).solve(["max-damage"]).objectives == {"max-damage": 0}


# -- differential: generated boards with banding ------------------------------------------------------------------


def near_death(doc: dict, data) -> dict:
    for p in doc.get("players", []):
        p["life"] = data.draw(st.sampled_from([1, 2, 3]))
    for b in doc.get("blockers", []):
        if data.draw(st.booleans()):
            b["keywords"] = [*b.get("keywords", []), "lifelink"]
    return doc


@st.composite
def banded_effect_boards(draw, step: str = "regular", max_work: int = 40) -> dict:
    doc = draw(strategies.scenarios(max_attackers=3, max_blockers=2, max_total_power=4, max_work=max_work, step=step))
    doc = draw(strategies.outcome_effects(doc))
    return draw(strategies.with_banding(doc))


@settings(max_examples=strategies.examples(120), deadline=None)
@given(st.data())
def test_solve_with_banding_matches_the_oracle(data):  # 702.22j/k, 510.2
    doc = near_death(data.draw(banded_effect_boards()), data)
    names = data.draw(st.sampled_from([["lethal"], ["max-damage"], ["max-kills"], ["lethal", "max-kills"]]))
    result = Combat(doc).solve(",".join(names))
    assert result.status == "optimal"
    assert tuple(Fraction(result.objectives[n]) for n in names) == oracle_optimum(doc, names)
    if "lethal" in names:
        line = {**result.assignment.to_json(), **(result.reply.to_json() if result.reply is not None else {})}
        losers = {p for p, _ in resolve(load_scenario(doc), line).losers}
        reachable = oracle_reachable(doc)
        for p in doc["players"]:
            assert result.lethal[p["id"]]["reached"] is (p["id"] in losers)  # read on the line returned
            assert result.lethal[p["id"]]["reachable"] is reachable[p["id"]]


def one_player(doc: dict) -> dict:
    doc["players"] = doc["players"][:1]
    for a in doc["attackers"]:
        a["attacking"] = doc["players"][0]["id"]
    doc.pop("planeswalkers", None)
    doc.pop("battles", None)
    doc.pop("players_in_game", None)
    return doc


@pytest.mark.slow
@settings(max_examples=strategies.examples(60), deadline=None)
@given(st.data())
def test_whole_combat_with_banding_and_effects_matches_the_oracle(data):  # 702.22j/k in both steps, 510.2
    doc = one_player(near_death(data.draw(banded_effect_boards(step="combat", max_work=20)), data))
    names = data.draw(st.sampled_from([["lethal"], ["max-damage"], ["max-kills"], ["lethal", "max-damage"]]))
    expected = brute_combat.outcome_adversarial_optimum(doc, names)
    result = WholeCombat(doc).solve(names)
    assert result.status == "optimal"
    got = tuple(Fraction(result.objectives[n]) for n in names)
    assert got == tuple(Fraction(v) for v in expected)
    line = result.assignment.to_json()
    assert brute_combat.is_legal_line(doc, line)
    assert brute_combat.outcome_line_value(doc, line, names) == expected  # the line is a minimax line
    if "lethal" in names:  # the report is read on that line
        lost = brute_combat.outcome_line_values(doc, line, ["lethal"])["lethal"] >= 1
        assert result.lethal[doc["players"][0]["id"]]["reached"] is lost


@settings(max_examples=strategies.examples(60), deadline=None)
@given(st.data())
def test_whole_combat_defenders_reply_on_effect_boards(data):  # 510.1d, 702.15b: D2 is the defender's best
    doc = data.draw(
        strategies.scenarios(max_attackers=2, max_blockers=2, max_total_power=4, max_work=20, step="combat")
    )
    doc = one_player(near_death(data.draw(strategies.outcome_effects(doc)), data))
    names = data.draw(st.sampled_from([["lethal"], ["max-damage"], ["max-kills"]]))
    expected = brute_combat.outcome_adversarial_optimum(doc, names)
    result = WholeCombat(doc).solve(names)
    line = result.assignment.to_json()
    assert tuple(Fraction(result.objectives[n]) for n in names) == tuple(Fraction(v) for v in expected)
    assert brute_combat.outcome_line_value(doc, line, names) == expected
    if "lethal" in names:
        lost = brute_combat.outcome_line_values(doc, line, ["lethal"])["lethal"] >= 1
        assert result.lethal[doc["players"][0]["id"]]["reached"] is lost


@pytest.mark.slow
@settings(max_examples=strategies.examples(60), deadline=None)
@given(st.data())
def test_whole_combat_with_banding_on_plain_boards_matches_the_oracle(data):  # 702.22j/k, damage assigned
    doc = data.draw(
        strategies.scenarios(max_attackers=3, max_blockers=2, max_total_power=5, max_work=40, step="combat")
    )
    doc = data.draw(strategies.with_banding(doc))
    names = data.draw(st.sampled_from([["max-damage"], ["max-kills"], ["lethal", "max-damage"], ["min-overkill"]]))
    expected = brute_combat.adversarial_optimum(doc, names)
    result = WholeCombat(doc).solve(names)
    assert result.status == "optimal"
    got = tuple(Fraction(str(result.objectives[o])) for o in names)
    assert got == tuple(Fraction(v) for v in expected)
    line = result.assignment.to_json()
    assert brute_combat.is_legal_line(doc, line)
    values = brute_combat.line_values(doc, line, names)
    assert tuple(Fraction(values[o]) for o in names) == got


# The games used to refuse a moved division (702.22j/k); they model it now: tests/arena/test_game_banding.py.
