"""Banding moves a division to the other player (702.22j/k, trample.rules.divider) in every game and arena reader:
the combat game (PettingZoo, OpenSpiel) hands each decision to the player who divides that source's damage, in
both damage steps; the Gymnasium agent and the one-step arena's players decide only the attackers the attacking
player divides, the defending player's division of a banded attacker's damage being the defender's reply."""

from __future__ import annotations

import copy
import json
import random

import pytest
from boards import BAND_PROTECTED, BANDING_BLOCKER
from test_combat_game import minimax, plays, small_whole_boards

from trample import Combat
from trample.arena.combat_game import ATTACKER, DEFENDER, CombatGame
from trample.arena.metrics import judge, reference
from trample.arena.objectives import as_divided, parse_objectives, score_all
from trample.arena.players import DeclarationOrderPlayer, FacePlayer, GreedyValuePlayer
from trample.models import load_scenario
from trample.whole import WholeCombat

# both steps: a double striker blocked by a banding blocker: the defender divides its first-strike damage (all on b,
# which dies); in the regular step b has left combat, so its banding moves nothing and the attacker tramples over
BANDING_BLOCKER_TWO_STEPS = copy.deepcopy(BANDING_BLOCKER)
BANDING_BLOCKER_TWO_STEPS["attackers"][0]["keywords"].append("double_strike")
BANDING_BLOCKER_TWO_STEPS["blockers"][0]["toughness"] = 2
# 702.22k in the first-strike step: a first-striking blocker blocking a band: the active player divides its damage
# and kills band, not big, so big deals its 3 to f in the regular step and kills it (the defending player would
# have killed big: no kill)
BANDING_FIRST_STRIKE_BLOCKER = {
    "players": [{"id": "opp", "life": 20}],
    "attackers": [
        {"id": "band", "power": 1, "toughness": 1, "keywords": ["banding"], "attacking": "opp", "blocked_by": ["f"]},
        {"id": "big", "power": 3, "toughness": 1, "attacking": "opp", "blocked_by": ["f"]},
    ],
    "blockers": [{"id": "f", "power": 1, "toughness": 3, "keywords": ["first_strike"]}],
}


def deciders(game: CombatGame, pick) -> list[tuple[int, str]]:
    """(player to move, source) of every decision of one play."""
    out = []
    pos = game.initial()
    while not pos.terminal:
        out.append((pos.player, pos.current()[0]))
        pos = pos.apply(pick(game, pos))
    return out


def optimal(game, pos):
    return game.optimal_action(pos) if pos.player == ATTACKER else game.best_reply(pos)


@pytest.mark.parametrize(
    "board, objective, chooser, source, value",
    [
        (BAND_PROTECTED, "lethal", ATTACKER, "L", 1.0),  # 702.22k
        (BANDING_BLOCKER, "max-damage", DEFENDER, "a", 0.0),  # 702.22j
        (BANDING_BLOCKER_TWO_STEPS, "max-damage", DEFENDER, "a", 4.0),  # 702.22j, first-strike step
        (BANDING_FIRST_STRIKE_BLOCKER, "max-kills", ATTACKER, "f", 1.0),  # 702.22k, first-strike step
    ],
)
def test_the_combat_game_hands_each_division_to_its_divider(board, objective, chooser, source, value):
    game = CombatGame(dict(board, step="combat"), objective)
    movers = deciders(game, optimal)
    assert (chooser, source) in movers and (1 - chooser, source) not in movers
    # the game tree's minimax (no trample search code) is WholeCombat.solve's value, and the optimal attacker
    # against the best reply reaches it; every play is a legal line and every legal line a play
    assert minimax(game.initial()) == pytest.approx(game.minimax()) == pytest.approx(value)
    pos = game.initial()
    while not pos.terminal:
        pos = pos.apply(optimal(game, pos))
    assert pos.returns()[0] == pytest.approx(value)
    whole = WholeCombat(game.scenario)
    assert set(plays(game.initial(), [])) == {json.dumps(x.to_json(), sort_keys=True) for x in whole.assignments()}


def test_the_combat_game_on_generated_banding_boards():
    # 702.22j/k in both steps on generated first-strike boards with banding added at random: the plays are the
    # legal lines, and the game-tree value is the whole combat's
    rnd = random.Random(7)
    checked = 0
    for scenario in small_whole_boards(30, seed=11):
        doc = scenario.to_json()
        for c in doc["attackers"] + doc.get("blockers", []):
            if rnd.random() < 0.4:
                c["keywords"] = [*c.get("keywords", []), "banding"]
        game = CombatGame(load_scenario(doc), "max-damage,max-kills")
        if not any(game.moved(game.board(p, None)) for p in range(min(2, len(game.phases)))):
            continue
        if WholeCombat(game.scenario).count() > 400:
            continue
        got = plays(game.initial(), [])
        assert len(got) == len(set(got))
        assert set(got) == {json.dumps(x.to_json(), sort_keys=True) for x in WholeCombat(game.scenario).assignments()}
        assert minimax(game.initial()) == pytest.approx(game.minimax())
        checked += 1
    assert checked >= 3


def test_pettingzoo_on_banding_boards():
    pytest.importorskip("pettingzoo")
    import numpy as np

    from trample.arena.pz_env import env

    for board, objective, agent in [
        (BAND_PROTECTED, "lethal", "attacker_0"),  # 702.22k: the attacker divides L's damage
        (BANDING_BLOCKER, "max-damage", "defender_0"),  # 702.22j: the defender divides a's damage
    ]:
        e = env()
        e.reset(seed=0, options={"scenario": dict(board, step="combat"), "objective": objective})
        movers, final = [], {}
        game = CombatGame(dict(board, step="combat"), objective)
        for name in e.agent_iter():
            obs, reward, terminated, truncated, info = e.last()
            if terminated:
                final[name] = reward
                e.step(None)
                continue
            movers.append(name)
            e.step(int(np.flatnonzero(info["action_mask"])[0]))
        assert movers and set(movers) == {agent}  # the only decision is the divider's
        assert final["attacker_0"] == -final["defender_0"]
        assert WholeCombat(game.scenario).check(info["line"]).legal
        assert final["attacker_0"] == pytest.approx(game.values(info["line"])[objective])


def test_openspiel_on_banding_boards():
    pytest.importorskip("pyspiel")
    from trample.arena import openspiel_game as og

    for board, objective, player, value in [
        (BAND_PROTECTED, "lethal", 0, 1.0),
        (BANDING_BLOCKER, "max-damage", 1, 0.0),
    ]:
        g = og.load(dict(board, step="combat"), objective)
        state = g.new_initial_state()
        assert state.current_player() == player  # the divider moves (702.22k / 702.22j)
        final = og.play(g, og.make_bot("mcts", g, 0, seed=1, simulations=30))
        assert final.is_terminal() and final.returns()[0] <= g.core.minimax() + 1e-9
        assert g.core.minimax() == pytest.approx(value)
        assert WholeCombat(g.core.scenario).check(final.position.line()).legal


def test_gymnasium_agent_decides_only_what_it_divides():
    pytest.importorskip("gymnasium")
    from trample.arena.gym_env import DamageAssignmentEnv

    env = DamageAssignmentEnv(objective="max-damage")
    # 702.22j: a's damage is the defending player's: the agent has nothing to decide; the defender's reply keeps
    # it all on b, which is the optimum (reward 0, not a gain over it)
    env.reset(seed=0, options={"scenario": BANDING_BLOCKER})
    assert env.walk is not None and env.walk.done
    _, reward, terminated, _, info = env.step(0)
    assert terminated and info["assignment"] == {"a": {"b": 4}} and info["values"]["max-damage"] == 0
    assert reward == 0.0 and info["optimal"]
    # an attacker of its own beside the banded one: the agent decides it alone
    board = copy.deepcopy(BANDING_BLOCKER)
    board["attackers"].append({"id": "c", "power": 3, "toughness": 3, "keywords": ["trample"], "attacking": "opp",
                               "blocked_by": ["d"]})  # fmt: skip
    board["blockers"].append({"id": "d", "power": 1, "toughness": 1})
    env.reset(seed=0, options={"scenario": board})
    assert env.walk is not None and not env.walk.done
    sources = set()
    while not env.walk.done:
        sources.add(env.walk.decoder.current(env.walk.state)[0])
        _, reward, terminated, _, info = env.step(int(env.walk.allowed()[0]))  # lethal on d, 2 over
    assert sources == {"c"} and info["assignment"]["a"] == {"b": 4}
    assert info["optimal"] and info["values"]["max-damage"] == 2


@pytest.mark.parametrize("player", [GreedyValuePlayer(), DeclarationOrderPlayer(), FacePlayer()])
def test_one_step_players_leave_the_banded_attackers_damage_to_the_defender(player):
    # 702.22j: the heuristic players used to trample 3 over b themselves (max-damage 3, above the optimum 0)
    s = load_scenario(BANDING_BLOCKER)
    out = player.decide(s, "max-damage", 1)
    assert out == {"a": {"b": 4}}  # the defending player's division: everything on the banding blocker
    assert Combat(s).check(out).legal


def test_the_arena_scores_the_line_as_played():
    # 702.22j: a decision that divides a's damage itself is scored on the defender's division, never above the
    # optimum; the record says which sources the defender divided
    s = load_scenario(BANDING_BLOCKER)
    objs = parse_objectives("max-damage,lethal", s)
    ref = reference(s, objs)
    rec = judge(s, objs, ref, "mine", output={"a": {"b": 1, "opp": 3}})
    assert rec["legal"] and rec["values"] == {"max-damage": 0, "lethal": 0} and rec["primary_regret"] == 0
    assert rec["lethal"] is False and rec["assignment"] == {"a": {"b": 4}} and rec["divided_by_defender"] == ["a"]
    # without banding nothing is replaced
    plain = load_scenario({**BANDING_BLOCKER, "blockers": [{"id": "b", "power": 1, "toughness": 1}]})
    assert as_divided(plain, {"a": {"b": 1, "opp": 3}}, objs) == {"a": {"b": 1, "opp": 3}}
    assert score_all(plain, {"a": {"b": 1, "opp": 3}}, objs)["lethal"] == 1
