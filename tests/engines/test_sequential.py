"""The sequential decision encoding (trample.arena.sequential): the masks reach every legal assignment, once each,
and nothing else; the optimum is always reachable."""

from __future__ import annotations

import pytest
from boards import canon
from brute import brute_force
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import examples, scenarios

from trample import Combat
from trample.arena.sequential import StepDecoder, StepWalk
from trample.arena.suites import generate
from trample.models import load_scenario


def reachable(decoder: StepDecoder) -> list:
    """Every assignment a masked agent can build (depth-first over the allowed amounts)."""
    out = []

    def go(state, amounts):
        if decoder.done(state):
            out.append(decoder.assignment(amounts))
            return
        for a in decoder.allowed(state):
            go(decoder.apply(state, a), [*amounts, a])

    go(decoder.start(), [])
    return out


LEVELS = ["tiny", "basic", "keywords", "shared", "planeswalkers", "battles", "first-strike", "mixed"]


@pytest.mark.parametrize("level", LEVELS)
def test_reachable_set_is_the_legal_set_on_generated_boards(level):
    # 510.1a (all damage assigned), 510.1c-d (routes), 702.19b/c gates (lethal, loyalty), 702.2c deathtouch,
    # the legacy damage order (510.1c 2024-09) on "mixed": the masks allow exactly the legal assignments
    checked = 0
    for item in generate(level, 12, seed=15):
        scenario = load_scenario(item["scenario"])
        for side in ("attacking", "defending", "both"):
            combat = Combat(scenario, side=side)
            if combat.count() > 5000:
                continue
            got = reachable(StepDecoder(combat.plan))
            assert len(got) == len(set(got))  # one decision sequence per assignment
            assert set(got) == set(combat.legal_assignments)
            checked += 1
    assert checked >= 12


@settings(max_examples=examples(60), deadline=None)
@given(scenarios())
def test_reachable_set_is_the_legal_set_on_hypothesis_boards(data):
    scenario = load_scenario(data)
    if scenario.step == "combat":
        scenario = scenario.with_step("regular")
    combat = Combat(scenario)
    got = reachable(StepDecoder(combat.plan))
    assert len(got) == len(set(got))
    assert set(got) == set(combat.legal_assignments)


@settings(max_examples=examples(40), deadline=None)
@given(scenarios(), st.randoms(use_true_random=False))
def test_any_masked_walk_ends_legal_and_the_optimum_is_reachable(data, rnd):
    scenario = load_scenario(data)
    if scenario.step == "combat":
        scenario = scenario.with_step("regular")
    combat = Combat(scenario)
    walk = StepWalk(combat.plan)
    while not walk.done:
        walk.choose(rnd.choice(walk.allowed()))
    assert combat.check(walk.assignment()).legal
    best = combat.solve(["max-damage", "max-value"]).assignment
    walk = StepWalk(combat.plan)
    walk.follow(best)
    assert walk.assignment() == best


def test_a_board_beyond_any_fixed_action_space():
    # 4 tramplers of power 8 on shared blockers: more legal assignments than a fixed index space of 64 holds,
    # yet the decisions are amounts 0..8 and the optimum is reached
    board = {
        "players": [{"id": "opp", "life": 20}],
        "attackers": [
            {"id": f"a{k}", "power": 8, "toughness": 8, "keywords": ["trample"], "attacking": "opp",
             "blocked_by": ["x", "y"]}
            for k in range(4)
        ],
        "blockers": [{"id": "x", "power": 1, "toughness": 5}, {"id": "y", "power": 1, "toughness": 6}],
    }  # fmt: skip
    combat = Combat(board)
    assert combat.count() > 10_000
    best = combat.solve(["max-damage"]).assignment
    walk = StepWalk(combat.plan)
    walk.follow(best)
    assert walk.assignment() == best
    assert max(walk.decoder.max_amount, 0) == 8


def test_an_amount_the_mask_forbids_is_refused():
    # 702.19b: a trampler's damage may reach the player only once its blocker has lethal
    board = {
        "players": [{"id": "opp", "life": 20}],
        "attackers": [
            {"id": "a", "power": 5, "toughness": 5, "keywords": ["trample"], "attacking": "opp", "blocked_by": ["x"]}
        ],
        "blockers": [{"id": "x", "power": 1, "toughness": 3}],
    }
    walk = StepWalk(Combat(board).plan)
    assert walk.allowed() == [3, 4, 5]  # at least lethal (3) on the blocker: the rest tramples over
    with pytest.raises(ValueError, match="not allowed"):
        walk.choose(2)
    walk.choose(3)
    assert walk.done and walk.assignment() == {"a": {"x": 3, "opp": 2}}


# -- "as though it weren't blocked" (510.1c; 702.19c-era legacy order; 506.4c): every way of a source is decoded --

ATU_LEGACY = {
    "rules": "legacy",
    "players": [{"id": "opp", "life": 20}],
    "attackers": [
        {"id": "a", "power": 3, "toughness": 3, "keywords": ["first_strike"], "attacking": "opp",
         "blocked_by": ["x", "y"], "as_though_unblocked": True}
    ],
    "blockers": [{"id": "x", "power": 1, "toughness": 1}, {"id": "y", "power": 1, "toughness": 2}],
}  # fmt: skip

ATU_SHAPES = {
    # issue 24 item 6: the legacy order gates y on x's lethal damage; as though unblocked, all 3 go to opp
    "legacy first strike, two blockers": dict(ATU_LEGACY, step="first_strike"),
    "current rules, two blockers, no trample": {
        "players": [{"id": "opp", "life": 20}],
        "attackers": [{"id": "a", "power": 3, "toughness": 3, "attacking": "opp", "blocked_by": ["x", "y"],
                       "as_though_unblocked": True}],
        "blockers": [{"id": "x", "power": 1, "toughness": 1}, {"id": "y", "power": 1, "toughness": 2}],
    },
    # 702.19b: the normal way's route to opp is gated on lethal to x; the unblocked way's is not
    "trample, the same recipient in both ways with different gates": {
        "players": [{"id": "opp", "life": 20}],
        "attackers": [{"id": "a", "power": 4, "toughness": 4, "keywords": ["trample"], "attacking": "opp",
                       "blocked_by": ["x"], "as_though_unblocked": True}],
        "blockers": [{"id": "x", "power": 1, "toughness": 3}],
    },
    # 702.19c: both ways reach the planeswalker's controller, the normal way only past lethal and loyalty
    "trample over planeswalkers": {
        "players": [{"id": "opp", "life": 20}],
        "planeswalkers": [{"id": "pw", "controller": "opp", "loyalty": 2}],
        "attackers": [{"id": "a", "power": 4, "toughness": 4, "keywords": ["trample", "trample_over_planeswalkers"],
                       "attacking": "pw", "blocked_by": ["x"], "as_though_unblocked": True}],
        "blockers": [{"id": "x", "power": 1, "toughness": 2}],
    },
    # 510.1c with 506.4c: the planeswalker it attacks left combat: the unblocked way assigns nothing
    "attacking a planeswalker that left combat": {
        "players": [{"id": "opp", "life": 20}],
        "planeswalkers": [{"id": "pw", "controller": "opp", "loyalty": 3, "in_combat": False}],
        "attackers": [{"id": "a", "power": 2, "toughness": 2, "attacking": "pw", "blocked_by": ["x", "y"],
                       "as_though_unblocked": True}],
        "blockers": [{"id": "x", "power": 1, "toughness": 2}, {"id": "y", "power": 1, "toughness": 2}],
    },
    # 510.1c: its blockers have left combat and it has no trample: nothing, or all to opp as though unblocked
    "blocked, every blocker gone": {
        "players": [{"id": "opp", "life": 20}],
        "attackers": [{"id": "a", "power": 2, "toughness": 2, "attacking": "opp", "blocked_by": ["x"],
                       "as_though_unblocked": True}],
        "blockers": [{"id": "x", "power": 1, "toughness": 2, "in_combat": False}],
    },
    # two sources with two ways each, sharing a gated blocker (legacy order)
    "two attackers with the option on a shared blocker": {
        "rules": "legacy",
        "players": [{"id": "opp", "life": 20}],
        "attackers": [
            {"id": "a", "power": 3, "toughness": 3, "attacking": "opp", "blocked_by": ["x", "y"],
             "as_though_unblocked": True},
            {"id": "b", "power": 2, "toughness": 2, "keywords": ["trample"], "attacking": "opp", "blocked_by": ["y"],
             "as_though_unblocked": True},
        ],
        "blockers": [{"id": "x", "power": 1, "toughness": 1}, {"id": "y", "power": 1, "toughness": 2}],
    },
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(ATU_SHAPES))
def test_every_way_of_as_though_unblocked_is_decoded(name):
    # 510.1c ("as though it weren't blocked"), 506.4c: the decoder reaches exactly the brute force's legal set
    doc = ATU_SHAPES[name]
    for side in ("attacking", "both"):
        expected = {canon(a) for a in brute_force(doc, side)}
        combat = Combat(doc, side=side)
        got = reachable(StepDecoder(combat.plan))
        assert len(got) == len(set(got))
        assert {canon(a.to_json()) for a in got} == expected, (name, side)
        for a in combat.legal_assignments:  # and each one is played through a walk, decision by decision
            walk = StepWalk(combat.plan)
            walk.follow(a)
            assert walk.done and walk.assignment() == a


def test_the_legacy_as_though_unblocked_first_striker_plays_through_the_combat_game():
    # issue 24 item 6 (510.1c, 2024-09 order): the whole combat's optimal line was refused by the game's apply
    # ("a cannot assign 0 to x here"); now the optimal player, the smallest-action player and the defender's
    # replies all play to the end, and the optimal line is the game's minimax value
    from trample.arena.combat_game import ATTACKER, CombatGame

    game = CombatGame(dict(ATU_LEGACY, step="combat"), "max-damage")
    for pick in ("optimal", "first"):
        pos = game.initial()
        while not pos.terminal:
            if pos.player == ATTACKER:
                pos = pos.apply(game.optimal_action(pos) if pick == "optimal" else pos.legal_actions()[0])
            else:
                pos = pos.apply(game.best_reply(pos))
        assert game.whole.check(pos.line()).legal
        if pick == "optimal":
            assert pos.line()["first_strike"]["a"] == {"opp": 3}  # as though unblocked: all 3 to opp
            assert pos.returns()[0] == game.minimax() == 3.0


def test_arena_game_combat_on_the_legacy_as_though_unblocked_board(tmp_path):
    # issue 24 item 6: `trample arena --game combat` on it exits 0 and scores the optimal player optimal
    import json
    import subprocess
    import sys

    suite = tmp_path / "atu.jsonl"
    suite.write_text(json.dumps(ATU_LEGACY) + "\n")
    out = tmp_path / "out.json"
    proc = subprocess.run(
        [sys.executable, "-m", "trample", "arena", str(suite), "--game", "combat", "--players", "optimal,declaration",
         "--format", "json", "-o", str(out)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    rows = {r["player"]: r for r in json.loads(out.read_text())["leaderboard"]}
    assert rows["optimal"]["optimal_share"] == 1.0


@settings(max_examples=examples(150), deadline=None)
@given(scenarios(extras=True, max_total_power=6, max_work=600), st.sampled_from(["attacking", "defending", "both"]))
def test_every_legal_assignment_of_a_step_is_decodable(doc, side):
    # 510.1a-d, 510.1c "as though it weren't blocked", 506.4c, 702.19b/c, 702.22j/k banding, the legacy orders:
    # on generated boards with every legality option, the assignments the masks reach are exactly the brute
    # force's legal set (tests/oracles/brute.py, written from the rules), once each, and each plays through a walk
    if doc.get("step") == "combat":
        doc = dict(doc, step="regular")
    expected = {canon(a) for a in brute_force(doc, side)}
    plan = Combat(doc, side=side).plan
    got = reachable(StepDecoder(plan))
    assert len(got) == len(set(got))
    assert {canon(a.to_json()) for a in got} == expected
    for a in got[:20]:
        walk = StepWalk(plan)
        walk.follow(a)
        assert walk.done and walk.assignment() == a


def _general(plan, order=None) -> StepDecoder:
    """The general decoder (a set of consistent ways in its state) even where every source has one way."""
    dec = object.__new__(StepDecoder)
    dec.__init__(plan, order)
    return dec


@settings(max_examples=examples(60), deadline=None)
@given(scenarios(extras=True, max_total_power=6, max_work=600), st.sampled_from(["attacking", "defending", "both"]))
def test_the_flat_one_way_decoder_makes_the_general_decoders_decisions(doc, side):
    # 510.1a (a source's last column takes what it has left), 702.19b/c gates, 702.2c: a plan whose sources have
    # one way each is decoded with a flat state; at every state it reaches, in plan order and in reverse (the
    # games' order: one player's sources first), its masks are the general decoder's
    if doc.get("step") == "combat":
        doc = dict(doc, step="regular")
    plan = Combat(doc, side=side).plan
    one_way = all(plan.sources[i].unblocked is None for i in plan.active)
    for order in (None, tuple(reversed(plan.active))):
        fast, slow = StepDecoder(plan, order), _general(plan, order)
        assert (type(fast) is not StepDecoder) == one_way
        seen = 0

        def go(fs, ss, fast=fast, slow=slow):
            nonlocal seen
            assert fast.done(fs) == slow.done(ss) and fs[:2] == ss[:2]
            if fast.done(fs) or seen > 400:
                return
            seen += 1
            allowed = fast.allowed(fs)
            assert allowed == slow.allowed(ss) and list(fast.choices(fs)) == list(slow.choices(ss))
            for a in allowed:
                go(fast.apply(fs, a), slow.apply(ss, a))

        go(fast.start(), slow.start())


def test_a_pickled_one_way_decoder_keeps_its_class_and_masks():
    import pickle

    plan = Combat(load_scenario(generate("shared", 1, seed=3)[0]["scenario"])).plan
    dec = StepDecoder(plan)
    again = pickle.loads(pickle.dumps(dec))
    assert type(again) is type(dec) is not StepDecoder
    assert again.allowed(again.start()) == dec.allowed(dec.start())
