"""The three-decision combat game (trample.arena.declare_game): declare attackers (508.1), declare blockers (509.1),
then the damage steps. Every play is a legal declaration (the brute force's, tests/oracles/brute_declare.py), every
legal declaration a play, and the game's minimax value is ``trample declare solve``'s best attack."""

from __future__ import annotations

import pytest
from brute_declare import legal_declarations
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import examples
from test_declare_solve import attacker_boards, blockers_of_attack

from trample.arena.attacks_arena import generate
from trample.arena.declare_game import DeclareGame, minimax
from trample.declare.solve import solve_declaration
from trample.models.declare import load_attacks, load_blocks, load_declare_doc
from trample.optimize import parse_objectives

# 702.22c: hero may band with one creature without banding; the flier and the ogre may each join it, not both
BANDED = {
    "declare": "attackers", "active": "me",
    "players": [{"id": "opp", "life": 5}],
    "planeswalkers": [{"id": "pw", "controller": "opp", "loyalty": 3}],
    "attackers": [{"id": "hero", "power": 1, "toughness": 1, "keywords": ["banding"]},
                  {"id": "ogre", "power": 4, "toughness": 3},
                  {"id": "drake", "power": 2, "toughness": 2, "keywords": ["flying"]}],
    "blockers": [{"id": "wall", "power": 0, "toughness": 4}, {"id": "bird", "power": 1, "toughness": 1,
                                                               "keywords": ["flying"]}],
}  # fmt: skip


def declarations_played(game: DeclareGame) -> tuple[set, set]:
    """Every (attack) and (attack, blocks) the game can reach, walking every legal action of the declarations."""
    attacks, blocks = set(), set()

    def walk(state):
        if state.phase == "damage":
            attacks.add(state.attacks)
            blocks.add((state.attacks, state.blocks))
            return
        for a in state.legal_actions():
            walk(state.apply(a))

    walk(game.initial())
    return attacks, blocks


@given(attacker_boards())
@settings(deadline=None, max_examples=examples(15))
def test_the_plays_are_exactly_the_legal_declarations(raw):
    """Bands included: the band phase plays every choice of bands 702.22c-d allow, and only those."""
    doc = load_declare_doc(raw)
    game = DeclareGame(raw)
    attacks, blocks = declarations_played(game)
    legal_attacks = {load_attacks(a, doc) for a in legal_declarations(raw)[0]}
    assert attacks == legal_attacks  # 508.1 and 702.22c-d, read by the brute force
    for attack in legal_attacks:
        after = blockers_of_attack(raw, attack.to_json())
        blockers_doc = load_declare_doc(after)
        legal_blocks = {load_blocks(b, blockers_doc) for b in legal_declarations(after)[0]}
        assert {b for a, b in blocks if a == attack} == legal_blocks  # 509.1


@given(attacker_boards(), st.sampled_from(["max-damage", "lethal", "max-kills,max-damage"]))
@settings(deadline=None, max_examples=examples(10))
def test_the_minimax_value_is_the_best_attacks(raw, objective):
    doc = load_declare_doc(raw)
    primary = parse_objectives(objective, doc.board)[0]
    best = solve_declaration(doc, objective)
    value = float(best.objectives[primary.name]) * (1 if primary.maximize else -1)
    assert minimax(DeclareGame(raw, objective).initial()) == value


def test_an_illegal_action_is_refused():
    raw = {"declare": "attackers", "players": [{"id": "opp", "life": 5}],
           "attackers": [{"id": "a", "power": 2, "toughness": 2, "keywords": ["attacks_each_combat"]},
                         {"id": "b", "power": 1, "toughness": 1}],
           "blockers": [{"id": "x", "power": 1, "toughness": 1}]}  # fmt: skip
    state = DeclareGame(raw).initial()
    # 508.1d: a attacks if able, so its only legal action was taken for it; b chooses
    assert state.chooser() == "b" and state.legal_actions() == [0, 1] and state.history == ()
    assert state.partial().to_json() == {"a": "opp"}
    with pytest.raises(ValueError, match="cannot declare"):
        state.apply(2)  # there is no second target


def test_the_band_phase_offers_exactly_the_bands_702_22c_allows():
    game = DeclareGame(BANDED)
    state = game.initial()
    for creature in ("hero", "ogre", "drake"):  # everyone attacks the player
        assert state.phase == "attack" and state.chooser() == creature
        state = state.apply(1)
    # hero is first: alone or first of a band (forced: no earlier band to join), so ogre chooses first
    assert state.phase == "band" and state.player == 0 and state.chooser() == "ogre"
    assert state.legal_actions() == [0, 1]  # alone, or join hero's band (bit 1 + index of hero)
    assert state.apply(0).partial().bands == ()  # so far: ogre alone, drake not chosen yet
    joined = state.apply(1)
    # 702.22c: a band has at most one creature without banding: drake can't join hero and ogre
    assert joined.phase == "block" and joined.attacks.bands == (("hero", "ogre"),)
    alone = state.apply(0)
    assert alone.chooser() == "drake" and alone.legal_actions() == [0, 1]  # not 1 + index of ogre: no banding
    with pytest.raises(ValueError, match="band"):
        alone.apply(2)
    # 702.22d: a band attacks one player, planeswalker or battle: hero at the planeswalker bands with nobody
    split = game.initial().apply(2).apply(1).apply(1)
    assert split.phase == "block" and split.attacks.bands == ()


def test_a_banded_attack_is_blocked_as_a_band():
    """702.22h: the wall declared blocking hero blocks ogre too, and the damage steps are the combat game's on that
    scenario (which hands each division to the player 702.22j/k names)."""
    state = DeclareGame(BANDED).initial().apply(1).apply(1).apply(0).apply(1)  # hero+ogre banded, drake stays home
    assert state.phase == "block" and state.attacks.bands == (("hero", "ogre"),)
    assert state.chooser() == "wall"
    blocked = state.apply(1)  # wall blocks hero (bit 0)
    blocked = blocked.apply(0) if blocked.phase == "block" else blocked  # bird blocks nothing
    assert blocked.phase == "damage"
    assert blocked.blocks.of == {"hero": ("wall",)}
    scenario = blocked.damage.game.scenario
    assert {a.id: a.blocked_by for a in scenario.attackers} == {"hero": ("wall",), "ogre": ("wall",)}  # 702.22h


def test_pettingzoo_api_seed_tests_pass_without_warnings():
    pytest.importorskip("pettingzoo")
    import warnings

    from pettingzoo.test import api_test, seed_test

    from trample.arena.pz_declare import DeclareAEC, env, raw_env

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        api_test(env(), num_cycles=100, verbose_progress=False)
        api_test(raw_env(), num_cycles=100, verbose_progress=False)
        seed_test(lambda: env(), num_cycles=20)
        api_test(env(boards=[BANDED]), num_cycles=100, verbose_progress=False)  # with a band phase (702.22c)
        seed_test(lambda: env(boards=[BANDED]), num_cycles=20)
    assert not DeclareAEC.metadata["is_parallelizable"]


def test_pettingzoo_masks_are_the_rules_and_rewards_the_outcome():
    pytest.importorskip("pettingzoo")
    import numpy as np

    from trample.arena.combat_game import CombatGame
    from trample.arena.pz_declare import env
    from trample.whole import WholeCombat

    for seed, raw in enumerate([*(item["scenario"] for item in generate(6, seed=9)), BANDED, BANDED, BANDED]):
        e = env()
        e.reset(seed=seed, options={"scenario": raw})
        final, order = {}, []
        for agent in e.agent_iter():
            obs, reward, terminated, truncated, info = e.last()
            assert e.observation_space(agent).contains(obs)
            if terminated:
                final[agent] = reward
                e.step(None)
                continue
            legal = np.flatnonzero(info["action_mask"])
            assert list(legal) == e.unwrapped.state_.legal_actions()
            order.append(agent)
            e.step(int(legal[(seed + len(order)) % len(legal)]))  # some legal action, not always the first
        line = info["line"]
        doc = load_declare_doc(raw)
        assert line["attacks"] in legal_declarations(raw)[0]  # 508.1, by the brute force
        after = blockers_of_attack(raw, line["attacks"])
        blocks = load_blocks(line["blocks"], load_declare_doc(after))
        assert blocks in {load_blocks(b, load_declare_doc(after)) for b in legal_declarations(after)[0]}  # 509.1
        scenario = load_declare_doc(after).scenario(blocks)
        damage = {"first_strike": line["first_strike"], "regular": line["regular"]}
        assert WholeCombat(scenario).check(damage).legal
        assert final["attacker_0"] == -final["defender_0"] == float(CombatGame(scenario).values(damage)["max-damage"])
        assert doc.board.attackers and order[0] == "attacker_0"


def test_openspiel_random_sims_serialisation_pickle_and_the_minimax_value():
    import pickle

    pyspiel = pytest.importorskip("pyspiel")
    from trample.arena import openspiel_declare as od

    boards = [od.DEFAULT_BOARD, *[item["scenario"] for item in generate(3, seed=5)], BANDED]
    for raw in boards:
        game = od.load(raw, "max-damage,max-kills")
        pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)
        text = str(game)
        again = pyspiel.load_game(text)
        assert str(again) == text and again.core.doc == game.core.doc and again.core.objective == "max-damage,max-kills"
        state = game.new_initial_state()
        while not state.is_terminal():
            assert state.legal_actions() == state.position.legal_actions()  # the rules' masks
            state.apply_action(state.legal_actions()[-1])
        g2, s2 = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
        assert str(g2) == text and s2.history() == state.history() and s2.returns() == state.returns()
        g3 = pickle.loads(pickle.dumps(game))
        s3 = pickle.loads(pickle.dumps(state))
        assert str(g3) == text and s3.history() == state.history() and s3.returns() == state.returns()
        best = solve_declaration(load_declare_doc(raw), "max-damage")
        assert minimax(game.new_initial_state().position) == best.objectives["max-damage"]


@pytest.mark.filterwarnings("ignore::UserWarning")  # check_env's "no spec: alternative render modes not tested"
def test_gymnasium_check_env_and_the_attackers_regret():
    pytest.importorskip("gymnasium")
    import numpy as np
    from gymnasium.utils.env_checker import check_env

    from trample.arena.gym_declare import DeclareCombatEnv

    check_env(DeclareCombatEnv(boards=[BANDED]))  # with a band phase (702.22c)
    env = DeclareCombatEnv()
    check_env(env)
    for seed in range(6):
        # the minimax attacker against the environment's defender (the best blocks, the best damage replies)
        # earns exactly the best attack's value; the largest legal action never more
        for chooser in ("minimax", "largest"):
            obs, info = env.reset(seed=seed, options={"scenario": BANDED} if seed >= 4 else None)
            done = False
            while not done:
                legal = [int(a) for a in np.flatnonzero(info["action_mask"])]
                assert legal == env.state.legal_actions()  # the rules' mask
                pick = max(legal, key=lambda a: minimax(env.state.apply(a))) if chooser == "minimax" else legal[-1]
                obs, reward, done, truncated, info = env.step(pick)
            assert reward <= info["best"] == solve_declaration(env.game.doc, "max-damage").objectives["max-damage"]
            if chooser == "minimax":
                assert reward == info["best"]
    env.reset(seed=0)
    illegal = int(np.flatnonzero(env.action_masks() == 0)[0])
    _, reward, done, _, info = env.step(illegal)
    assert done and reward == -1.0 and info["illegal"]
