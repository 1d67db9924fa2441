"""Every reader of "is it lethal?" reads what the damage does (trample.outcome), never the damage assigned:
`trample score` and the arena (objectives.is_lethal, metrics.reference / judge), the environments' rewards, the
greedy players and the pictures. Issue 20's reproducers, each named after its rule, and a property over generated
effect boards: every reader's verdict equals the losers of the outcome of the line `solve` returns."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from strategies import examples
from test_outcomes import effect_boards, near_death

from trample.arena.metrics import judge, reference
from trample.arena.objectives import is_lethal, losers, parse_objectives
from trample.models import load_scenario

ROOT = Path(__file__).resolve().parents[2]

# 702.15b: the priest's lifelink gain happens at the same time as the damage (510.2): opp ends at 3 - 3 + 2 = 2
LIFELINK = {
    "players": [{"id": "opp", "life": 3}],
    "attackers": [
        {"id": "rhino", "power": 5, "toughness": 5, "keywords": ["trample"], "attacking": "opp",
         "blocked_by": ["priest"]}
    ],
    "blockers": [{"id": "priest", "power": 2, "toughness": 2, "keywords": ["lifelink"]}],
}  # fmt: skip
# 702.90b, 704.5c: 1 infect damage to a player with 9 poison counters gives the tenth
INFECT = {
    "players": [{"id": "opp", "life": 20, "poison": 9}],
    "attackers": [{"id": "g", "power": 1, "toughness": 1, "keywords": ["infect"], "attacking": "opp"}],
}
# 903.10a, 704.6c: 22 combat damage from one commander (1 already dealt + 21 now) loses a 40-life player the game
COMMANDER = {
    "players": [{"id": "opp", "life": 40, "commander_damage": {"cmd": 1}}],
    "attackers": [{"id": "cmd", "power": 21, "toughness": 2, "commander": "me", "attacking": "opp"}],
}
# 615.1a: all combat damage that would be dealt to opp is prevented
PREVENTED = {
    "players": [{"id": "opp", "life": 3, "prevent_combat": True}],
    "attackers": [{"id": "a", "power": 5, "toughness": 5, "attacking": "opp"}],
}
CASES = [
    ("lifelink", LIFELINK, {"rhino": {"priest": 2, "opp": 3}}, False),  # 702.15b
    ("infect", INFECT, {"g": {"opp": 1}}, True),  # 704.5c
    ("commander", COMMANDER, {"cmd": {"opp": 21}}, True),  # 704.6c
    ("prevented", PREVENTED, {"a": {"opp": 5}}, False),  # 615.1a
]


@pytest.mark.parametrize("name,board,assignment,lethal", CASES, ids=[c[0] for c in CASES])
def test_the_arena_reads_lethal_on_the_outcome(name, board, assignment, lethal):
    scenario = load_scenario(board)
    assert is_lethal(scenario, assignment) is lethal
    assert losers(scenario, assignment) == (frozenset({"opp"}) if lethal else frozenset())
    for objective in ("lethal", "max-damage", "max-kills", "max-damage,lethal"):
        objs = parse_objectives(objective, scenario)
        ref = reference(scenario, objs)
        assert ref["lethal_exists"] is lethal, objective  # the objective asked does not change it
        rec = judge(scenario, objs, ref, "p", output=assignment)
        assert rec["legal"] and rec["lethal"] is lethal
        if "lethal" in rec["values"]:  # values and the verdict of one record agree
            assert rec["values"]["lethal"] == int(lethal)


def test_trample_score_lines_agree_with_the_outcome(tmp_path):
    path = tmp_path / "decisions.jsonl"
    lines = [{"scenario": b, "assignment": a, "objective": "lethal,max-damage"} for _, b, a, _ in CASES]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    proc = subprocess.run(
        [sys.executable, "-m", "trample", "score", str(path)], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert proc.returncode == 0, proc.stderr
    out = [json.loads(x) for x in proc.stdout.splitlines()]
    for (name, _, _, lethal), rec in zip(CASES, out, strict=True):
        assert rec["lethal"] is lethal and rec["lethal_exists"] is lethal, name
        assert rec["values"]["lethal"] == int(lethal) == rec["optimum"]["lethal"], name


# 510.2, 702.15b, 702.16e: L's damage to z gains opp 1 life (opp survives at 1); to y it is prevented (opp dies)
SPLIT_LIFELINK = {
    "players": [{"id": "opp", "life": 1}],
    "attackers": [
        {"id": "x", "power": 1, "toughness": 1, "attacking": "opp"},
        {"id": "y", "power": 0, "toughness": 2, "attacking": "opp", "blocked_by": ["L"], "protection": ["white"]},
        {"id": "z", "power": 0, "toughness": 2, "attacking": "opp", "blocked_by": ["L"]},
    ],
    "blockers": [{"id": "L", "power": 1, "toughness": 2, "keywords": ["lifelink"], "tags": ["white"]}],
}


def test_the_combat_game_returns_read_the_line_as_played():
    from trample.arena.combat_game import CombatGame

    game = CombatGame(SPLIT_LIFELINK, "lethal")
    start = game.initial()
    assert start.player == 1  # the attackers' damage is forced; the defender divides L's damage
    ends = {}
    for action in start.legal_actions():
        end = start
        end = end.apply(action)
        while not end.terminal:
            end = end.apply(end.legal_actions()[0])
        ends[json.dumps(end.line()["regular"]["L"], sort_keys=True)] = end.returns()[0]
    assert ends == {'{"z": 1}': 0.0, '{"y": 1}': 1.0}  # the prevented reply loses the game (704.5a)
    best = start.apply(game.best_reply(start))
    while not best.terminal:
        best = best.apply(best.legal_actions()[0])
    assert best.line()["regular"]["L"] == {"z": 1} and best.returns() == [0.0, 0.0]


# ---------------------------------------------------------------------------------------------
# The property: on generated effect boards every reader's verdict is the outcome's
# ---------------------------------------------------------------------------------------------


def fewest_losers(scenario, line) -> int:
    """Independently of trample's readers: resolve the line with every legal reply of the defending player
    (510.2: both sides' damage at once) and take the reply that leaves the fewest players losing."""
    from trample import Combat
    from trample.models import Assignment
    from trample.outcome import resolve

    replies = list(Combat(scenario, side="defending").assignments()) or [Assignment({})]
    attackers = {a.id for a in scenario.attackers}
    own = {k: dict(v) for k, v in line.items() if k in attackers}
    return min(len(resolve(scenario, {**own, **r.to_json()}).losers) for r in replies)


def lethal_cards(svg: str) -> int:
    import xml.etree.ElementTree as ET

    ns = "{http://www.w3.org/2000/svg}"
    root = ET.fromstring(svg)
    return sum(
        1
        for g in root.iter(ns + "g")
        if g.get("class") == "player" and any(t.text == "LETHAL" for t in g.iter(ns + "text"))
    )


@st.composite
def lifelink_edges(draw) -> dict:
    """702.15b at the edge: tramplers over lifelink blockers (some with protection, 702.16e) onto a player whose
    life the blockers' gain decides."""
    blockers = [
        {"id": f"b{j}", "power": draw(st.integers(1, 2)), "toughness": draw(st.integers(1, 2)),
         "keywords": ["lifelink"], "tags": ["white"]}
        for j in range(draw(st.integers(1, 2)))
    ]  # fmt: skip
    attackers = []
    for i in range(draw(st.integers(1, 2))):
        a = {"id": f"a{i}", "power": draw(st.integers(1, 5)), "toughness": draw(st.integers(1, 3)), "attacking": "p0",
             "keywords": ["trample"]}  # fmt: skip
        a["blocked_by"] = draw(st.lists(st.sampled_from([b["id"] for b in blockers]), max_size=2, unique=True))
        if draw(st.booleans()):
            a["protection"] = ["white"]
        attackers.append(a)
    players = [{"id": "p0", "life": draw(st.integers(1, 5))}]
    return {"players": players, "attackers": attackers, "blockers": blockers}


@settings(max_examples=examples(50), deadline=None)
@given(st.data())
def test_every_reader_reads_the_losers_of_the_solved_line(data):

    from trample import Combat
    from trample.arena.env import ArenaEnv
    from trample.arena.players import GreedyValuePlayer
    from trample.render import render

    doc = data.draw(st.one_of(effect_boards(), lifelink_edges()))  # every effect of docs/effects.md
    if data.draw(st.booleans()):
        doc = near_death(data, doc)  # players near death, lifelink blockers more often
    objective = data.draw(st.sampled_from(["lethal", "lethal,max-damage", "max-damage", "max-kills,lethal"]))
    scenario = load_scenario(doc)
    combat = Combat(scenario)
    result = combat.solve(objective)
    line = result.assignment
    n = fewest_losers(scenario, line)
    everyone = bool(scenario.players) and n == len(scenario.players)
    # solve: its value and its lethal report
    if "lethal" in objective:
        assert result.objectives["lethal"] == n
        assert sum(r["reached"] for r in result.lethal.values()) == n
    objs = parse_objectives(objective, scenario)
    ref = reference(scenario, objs)
    assert not everyone or ref["lethal_exists"]
    # the environment's verdict on the solved line
    env = ArenaEnv(objective=objective)
    env.reset(options={"scenario": doc})
    assert env.step(combat.rank(line))[4]["lethal"] is everyone
    # solve's line, the greedy player's and one drawn at random: the arena and trample score (metrics.judge is
    # what score runs) and the picture (one LETHAL per player who loses) read the outcome
    drawn = next(iter(combat.sample(1, data.draw(st.integers(0, 2**32)))))
    for player, assignment in (
        ("solve", line),
        ("greedy", GreedyValuePlayer().decide(scenario, objective, 0)),
        ("random", drawn),
    ):
        n = fewest_losers(scenario, assignment)
        everyone = bool(scenario.players) and n == len(scenario.players)
        assert len(losers(scenario, assignment)) == n, player
        assert is_lethal(scenario, assignment) is everyone, player
        rec = judge(scenario, objs, ref, player, output=assignment)
        assert rec["legal"] and rec["lethal"] is everyone, player
        assert not everyone or ref["lethal_exists"]
        assert lethal_cards(render(combat, assignment)) == n, player


def test_the_greedy_player_reads_kills_on_the_outcome():
    # 702.16e: the knight (value 3) has protection from the red ogre: its damage would be prevented, so the greedy
    # player kills the bear it can kill (the rest piles on it) instead of wasting 4 on the knight
    from trample.arena.players import GreedyValuePlayer
    from trample.outcome import resolve

    scenario = load_scenario(json.loads((ROOT / "examples" / "protection.json").read_text()))
    line = GreedyValuePlayer().decide(scenario, "max-value", 0)
    assert line == {"ogre": {"bear": 4}}
    assert resolve(scenario, line).died == ("bear",)


# ---------------------------------------------------------------------------------------------
# The same property on banding boards: who divides (702.22j/k) is read by every reader
# ---------------------------------------------------------------------------------------------


def banded_losers(doc: dict, line) -> int:
    """Independently of trample's readers (tests/oracles/brute.py's legal sets and its own ``divider``): the attacking
    player's part of ``line`` is the attackers they divide; they divide the damage of the blockers blocking a
    creature with banding (702.22k) at best, and the defending player divides the rest -- an attacker blocked by a
    creature with banding (702.22j) and the other blockers -- at worst, knowing the attacking player's part (510.2:
    every line resolved at once). The number of players who lose."""
    from brute import brute_force, divider

    from trample.outcome import resolve

    scenario = load_scenario(doc)
    mine = [a["id"] for a in doc["attackers"] if divider(doc, a["id"]) == "attacking"]
    theirs = [b["id"] for b in doc.get("blockers", []) if divider(doc, b["id"]) == "attacking"]

    def part(asg, ids):
        return json.dumps({k: {r: n for r, n in dict(asg.get(k, {})).items() if n} for k in ids}, sort_keys=True)

    want = part(line, mine)
    xs = [x for x in brute_force(doc, "attacking") if part(x, mine) == want]
    assert xs, "the line's own part is not a legal assignment's"
    worst: dict[str, int] = {}
    for y in brute_force(doc, "defending") or [{}]:
        g = part(y, theirs)
        n = min(len(resolve(scenario, {**x, **y}).losers) for x in xs)
        worst[g] = min(worst.get(g, n), n)
    return max(worst.values())


@settings(max_examples=examples(40), deadline=None)
@given(st.data())
def test_every_reader_reads_the_losers_of_the_solved_line_with_banding(data):
    # 702.22j/k with every effect of docs/effects.md: solve (its value, its lethal report and the picture of its
    # line with its reply), the arena (metrics.judge, what trample score runs) on solve's line, the greedy
    # player's and a random one, the Gymnasium reward's verdict and the whole-combat game's value all equal the
    # losers of the line as the rules' dividers play it (banded_losers)
    from strategies import with_banding

    from trample import Combat
    from trample.arena.combat_game import ATTACKER, CombatGame
    from trample.arena.players import GreedyValuePlayer
    from trample.render import render

    doc = data.draw(with_banding(data.draw(st.one_of(effect_boards(), lifelink_edges()))))
    if data.draw(st.booleans()):
        doc = near_death(data, doc)
    objective = data.draw(st.sampled_from(["lethal", "lethal,max-damage"]))
    scenario = load_scenario(doc)
    combat = Combat(scenario)
    if combat.count() > 300 or Combat(scenario, side="defending").count() > 60:
        return  # the oracle resolves every pair of lines
    event(
        "a division moved by banding"
        if combat.plan.moved or Combat(scenario, side="defending").plan.moved
        else "no division moved"
    )
    result = combat.solve(objective)
    line = result.assignment
    n = banded_losers(doc, line)
    assert result.objectives["lethal"] == n
    assert sum(r["reached"] for r in result.lethal.values()) == n
    full = {**line.to_json(), **(result.reply.to_json() if result.reply is not None else {})}
    assert lethal_cards(render(combat, full)) == n
    objs = parse_objectives(objective, scenario)
    ref = reference(scenario, objs)
    drawn = next(iter(combat.sample(1, data.draw(st.integers(0, 2**32)))))
    for player, assignment in (
        ("solve", line),
        ("greedy", GreedyValuePlayer().decide(scenario, objective, 0)),
        ("random", drawn),
    ):
        k = banded_losers(doc, assignment)
        rec = judge(scenario, objs, ref, player, output=assignment)
        assert rec["legal"] and rec["values"]["lethal"] == k, player
        assert rec["lethal"] is (bool(scenario.players) and k == len(scenario.players)), player
        assert rec["primary_regret"] >= 0, player  # nobody scores above the optimum by dividing for the defender
    try:
        from trample.arena.gym_env import DamageAssignmentEnv
    except ImportError:
        DamageAssignmentEnv = None  # noqa: N806  (the extra is not installed)
    if DamageAssignmentEnv is not None:
        env = DamageAssignmentEnv(objective=objective, max_amount=40)
        try:
            env.reset(options={"scenario": doc})
        except ValueError:  # the board does not fit the observation's slots
            env = None
        if env is not None:
            info = None
            for action in env.actions_for(line):
                *_, info = env.step(action)
            assert info is not None and info["values"]["lethal"] == n and info["optimal"]
    game = CombatGame(scenario.with_step("combat"), "lethal")
    if not game.has_first_strike_step:  # the whole combat is this one step
        assert game.minimax() == n
        pos = game.initial()
        while not pos.terminal:
            pos = pos.apply(game.optimal_action(pos) if pos.player == ATTACKER else game.best_reply(pos))
        assert pos.returns()[0] == n
