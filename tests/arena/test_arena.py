"""The arena (docs/arena.md): player conformance, scoring against the optimum, suites.

Legality is judged twice: by ``Combat.check`` (what the arena scores with) and by the independent brute-force
oracle ``tests/oracles/brute.py``; the optimum the arena scores against is checked against brute-force maximisation.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from brute import brute_force, is_legal
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import examples, scenarios

from trample import Combat
from trample.arena import (
    BASELINES,
    LEVELS,
    FunctionPlayer,
    Player,
    decision_seed,
    generate,
    generate_board,
    load_suite,
    make_player,
    run_arena,
)
from trample.arena.metrics import judge, reference
from trample.arena.objectives import parse_objectives, regrets, score_all
from trample.indexing import count
from trample.models import Assignment, FormatError, load_scenario

ROOT = Path(__file__).resolve().parents[2]
CURATED = ROOT / "solver" / "suites"
KNOWN = CURATED / "known-mistakes.jsonl"
PERFT = CURATED / "perft.jsonl"
OBJECTIVES = [
    "max-damage",
    "lethal",
    "max-kills",
    "max-value",
    "min-overkill",
    "max-damage,max-value",
    "max-kills,min-overkill",
    "lethal,max-value",
]


def _decide(player: Player, raw: dict, objective: str, seed: int) -> dict:
    out = player.decide(load_scenario(raw), objective, seed)
    return Assignment(out).to_json() if not isinstance(out, Assignment) else out.to_json()


# ---------------------------------------------------------------------------------------------
# Conformance: every baseline, on random scenarios
# ---------------------------------------------------------------------------------------------


def _conforms(name: str, raw: dict, objective: str, seed: int) -> None:
    """Only legal outputs (510.1a exact totals, 510.1c/d routes, 702.19 gates), and the same output for the same
    seed, from the same player object and from a fresh one."""
    player = make_player(name)
    out = _decide(player, raw, objective, seed)
    assert is_legal(raw, out), (name, raw, out)  # the independent oracle
    assert Combat(raw).check(out).legal  # the checker the arena scores with
    assert _decide(player, raw, objective, seed) == out
    assert _decide(make_player(name), raw, objective, seed) == out


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(BASELINES))
@settings(max_examples=examples(120))
@given(raw=scenarios(), objective=st.sampled_from(OBJECTIVES), seed=st.integers(0, 2**32))
def test_player_conformance(name, raw, objective, seed):
    _conforms(name, raw, objective, seed)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(BASELINES))
def test_player_conformance_on_every_level(name):
    for level in LEVELS:
        for k, item in enumerate(generate(level, 12 if level != "large" else 3, seed=9)):
            _conforms(name, item["scenario"], OBJECTIVES[k % len(OBJECTIVES)], k)


def test_random_player_depends_on_the_seed_and_covers_the_legal_set():
    # 702.19b: a 5/5 trampler blocked by a 1/2 has 4 legal splits; the random player draws them all
    raw = {
        "players": [{"id": "opp", "life": 20}],
        "attackers": [
            {"id": "a", "power": 5, "toughness": 5, "keywords": ["trample"], "attacking": "opp", "blocked_by": ["x"]}
        ],
        "blockers": [{"id": "x", "power": 1, "toughness": 2}],
    }
    player = make_player("random")
    seen = {json.dumps(_decide(player, raw, "max-damage", s), sort_keys=True) for s in range(60)}
    assert len(seen) == 4
    assert {json.dumps(a.to_json(), sort_keys=True) for a in Combat(raw).assignments()} == seen


def test_decision_seeds_are_stable_and_distinct():
    assert decision_seed(0, 0, "random") == decision_seed(0, 0, "random")
    assert len({decision_seed(s, i, p) for s in range(3) for i in range(3) for p in ("a", "b")}) == 18
    assert (
        decision_seed(7, 12, "random")
        == int.from_bytes(__import__("hashlib").sha256(b"7/12/random").digest()[:8], "big") >> 1
    )


# ---------------------------------------------------------------------------------------------
# The optimum the arena scores against, and the optimal player's regret
# ---------------------------------------------------------------------------------------------


@pytest.mark.slow
@settings(max_examples=examples(200))
@given(raw=scenarios(max_work=600), objective=st.sampled_from(OBJECTIVES))
def test_reference_is_the_brute_force_optimum_and_no_player_beats_it(raw, objective):
    scenario = load_scenario(raw)
    objs = parse_objectives(objective, scenario)
    ref = reference(scenario, objs)
    every = brute_force(raw)
    combat = Combat(scenario)
    vectors = [tuple(score_all(combat, a, objs)[o.name] * (1 if o.maximize else -1) for o in objs) for a in every]
    best = max(vectors)
    assert tuple(ref["values"][o.name] * (1 if o.maximize else -1) for o in objs) == best
    # lethal exists exactly when some legal assignment reaches every player's life
    players = [p["id"] for p in raw["players"]]
    life = {p["id"]: p.get("life", 20) for p in raw["players"]}
    reachable = any(all(sum(s.get(p, 0) for s in a.values()) >= life[p] for p in players) for a in every)
    assert ref["lethal_exists"] == reachable
    for name in BASELINES:
        rec = judge(scenario, objs, ref, name, make_player(name).decide(scenario, objective, 1))
        assert rec["legal"] and rec["primary_regret"] >= 0, (name, rec)
        if name == "optimal":
            assert rec["optimal"] and set(rec["regret"].values()) == {0}


def test_optimal_player_regret_is_zero_on_generated_and_curated_suites():
    items = load_suite(KNOWN) + load_suite(PERFT)
    for level in LEVELS:
        if level != "large":
            items += generate(level, 6, seed=11)
    results = run_arena(items, players=["optimal"])
    (row,) = results["leaderboard"]
    assert (row["illegal"], row["regret_mean"], row["regret_max"], row["optimal_share"]) == (0, 0, 0, 1.0)
    assert row["decisions"] == len(items) == 13 + 24 + 6 * 8


def test_regret_signs():
    objs = parse_objectives("max-damage,min-overkill")
    assert regrets(objs, {"max-damage": 3, "min-overkill": 2}, {"max-damage": 5, "min-overkill": 0}) == {
        "max-damage": 2,
        "min-overkill": 2,
    }
    assert regrets(objs, {"max-damage": 5, "min-overkill": 0}, {"max-damage": 5, "min-overkill": 1}) == {
        "max-damage": 0,
        "min-overkill": -1,
    }


# ---------------------------------------------------------------------------------------------
# Exact numbers on the curated known-mistakes suite (docs/rules.md)
# ---------------------------------------------------------------------------------------------


def test_curated_files_hold_their_expected_counts_and_optima():
    for path in (KNOWN, PERFT):
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        assert len(lines) == (13 if path == KNOWN else 24)
        for d in lines:
            c = Combat(d["scenario"])
            assert c.count() == d["expected"]["count"], d["name"]
            assert c.solve(d["objective"]).objectives[d["objective"]] == d["expected"][d["objective"]], d["name"]


def test_known_mistakes_regrets_per_player():
    results = run_arena(load_suite(KNOWN), players=["declaration", "greedy", "face", "optimal"])
    regret = {
        (b["id"].split(".")[0], d["player"]): d["primary_regret"] for b in results["boards"] for d in b["decisions"]
    }
    # 510.1e / board 2: the three attackers jointly reach lethal on the 6-toughness blocker, so the trampler may
    # send all 4 to the player; attacker-by-attacker heuristics send only 1
    assert [regret["2", p] for p in ("declaration", "greedy", "face", "optimal")] == [3, 3, 3, 0]
    # 510.1c / board 3: declaration order kills the 1/2 and leaves the 5/5 (value 5) alive; greedy kills the 5/5
    assert [regret["3", p] for p in ("declaration", "greedy", "face", "optimal")] == [4, 0, 4, 0]
    # 702.19c / board 5: with the 1/1's point counted 2 suffice; the face player pays 3, the others none to opp
    assert [regret["5", p] for p in ("declaration", "greedy", "face", "optimal")] == [5, 5, 1, 0]
    others = {k: v for k, v in regret.items() if k[0] not in ("2", "3", "5")}
    assert set(others.values()) == {0}
    rows = {r["player"]: r for r in results["leaderboard"]}
    assert [r["player"] for r in results["leaderboard"]] == ["optimal", "greedy", "face", "declaration"]
    assert rows["declaration"]["regret_mean"] == round(12 / 13, 6)
    assert rows["greedy"]["regret_max"] == 5 and rows["face"]["regret_max"] == 4
    assert rows["optimal"]["optimal"] == 13 and rows["declaration"]["optimal"] == 10


# ---------------------------------------------------------------------------------------------
# Judging: illegal decisions keep the rule they break; failures are illegal
# ---------------------------------------------------------------------------------------------

TRAMPLE = {
    "players": [{"id": "opp", "life": 3}],
    "attackers": [
        {"id": "a", "power": 6, "toughness": 6, "keywords": ["trample"], "attacking": "opp", "blocked_by": ["x", "y"]}
    ],
    "blockers": [{"id": "x", "power": 2, "toughness": 2}, {"id": "y", "power": 2, "toughness": 2}],
}


@pytest.mark.parametrize(
    "output, rules",
    [
        ({"a": {"x": 4, "opp": 2}}, ["702.19b"]),  # docs/rules.md mistake 4: y has not been assigned lethal
        ({"a": {"x": 2, "y": 2, "opp": 1}}, ["510.1a"]),  # assigns 5 of its 6
        ({"a": {"x": 2, "y": 2, "opp": 2}, "zz": {}}, ["bad-output"]),  # unknown source id
        ([1, 2], ["bad-output"]),
        ("hello", ["bad-output"]),
    ],
)
def test_judge_illegal(output, rules):
    scenario = load_scenario(TRAMPLE)
    objs = parse_objectives("max-damage")
    ref = reference(scenario, objs)
    assert ref["values"] == {"max-damage": 2} and ref["lethal_exists"] is False
    rec = judge(scenario, objs, ref, "p", output)
    assert (rec["legal"], rec["rules"], rec["regret"], rec["optimal"]) == (False, rules, None, False)
    assert rec["violations"] and rec["violations"][0]["rule"] == rules[0]


def test_in_process_player_errors_and_garbage_are_illegal_and_the_run_goes_on():
    calls = []

    def flaky(scenario, objective, seed):
        calls.append(seed)
        if len(calls) % 3 == 1:
            raise ZeroDivisionError("boom")
        if len(calls) % 3 == 2:
            return {"nobody": {}}
        return make_player("declaration").decide(scenario, objective, seed)

    results = run_arena(generate("tiny", 6, seed=2), players=[FunctionPlayer("flaky", flaky), "optimal"])
    recs = [b["decisions"][0] for b in results["boards"]]
    assert [r["rules"] for r in recs] == [["error"], ["bad-output"], []] * 2
    assert recs[0]["violations"][0]["message"] == "ZeroDivisionError: boom"
    row = next(r for r in results["leaderboard"] if r["player"] == "flaky")
    assert (row["illegal"], row["illegal_rules"]) == (4, {"error": 2, "bad-output": 2})
    assert row["illegal_rate"] == round(4 / 6, 6)


def test_players_must_have_distinct_names_and_known_specs():
    with pytest.raises(ValueError, match="two players"):
        run_arena(generate("tiny", 1), players=["greedy", "greedy"])
    with pytest.raises(FormatError, match='unknown player "nobody"'):
        make_player("nobody")
    assert make_player("smart=optimal").name == "smart"
    assert make_player("py:trample.arena.players:GreedyValuePlayer").name == "greedy"


# ---------------------------------------------------------------------------------------------
# Suites
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("level", sorted(LEVELS))
def test_generated_boards_are_valid_and_follow_their_level(level):
    lv = LEVELS[level]
    items = generate(level, 40, seed=5)
    assert [i["id"] for i in items[:2]] == [f"{level}/5/0", f"{level}/5/1"]
    for item in items:
        s = load_scenario(item["scenario"])  # docs/format.md-valid
        assert lv.attackers[0] <= len(s.attackers) <= lv.attackers[1]
        assert lv.blockers[0] <= len(s.blockers) <= lv.blockers[1]
        assert lv.planeswalkers[0] <= len(s.planeswalkers) <= lv.planeswalkers[1]
        assert lv.battles[0] <= len(s.battles) <= lv.battles[1]
        assert all(lv.power[0] <= a.power <= lv.power[1] for a in s.attackers)
        assert all(s.blocking(b.id) for b in s.blockers)  # every blocker blocks something
        assert count(Combat(s)) >= 2  # something to decide
        if s.step == "first_strike":  # 510.4: someone deals damage in the first-strike step
            assert any(a.deals_damage_in("first_strike") for a in s.attackers)
    shared = sum(
        any(len(load_scenario(i["scenario"]).blocking(b["id"])) > 1 for b in i["scenario"].get("blockers", []))
        for i in items
    )
    firsts = sum(i["scenario"]["step"] == "first_strike" for i in items)
    assert (shared > 0) == (lv.shared > 0)
    assert (firsts > 0) == (lv.first_strike > 0)


@pytest.mark.parametrize("level", sorted(LEVELS))
def test_generated_boards_are_reachable_game_states(level):
    # Read from the raw JSON, written plainly from the rules, not from the loader's helpers.
    for item in generate(level, 150, seed=11):
        board = item["scenario"]
        defender = {p["id"]: p["id"] for p in board["players"]}
        defender |= {w["id"]: w["controller"] for w in board.get("planeswalkers", [])}
        defender |= {t["id"]: t["protector"] for t in board.get("battles", [])}
        for b in board.get("blockers", []):
            # 704.5g: a creature with lethal damage marked is destroyed before anyone could assign damage again
            if "indestructible" not in b["keywords"]:
                assert b.get("damage_marked", 0) < b["toughness"], (item["id"], b)
            # 506.2 / 509.1a: a blocker is a defending player's and blocks only creatures attacking that player,
            # a planeswalker they control or a battle they protect
            attacked = {defender[a["attacking"]] for a in board["attackers"] if b["id"] in a.get("blocked_by", [])}
            assert len(attacked) == 1, (item["id"], b["id"], attacked)


def test_generation_is_seeded_and_prefix_stable():
    assert generate("mixed", 10, seed=3) == generate("mixed", 30, seed=3)[:10]
    assert generate("mixed", 10, seed=3) != generate("mixed", 10, seed=4)
    assert generate("mixed", 5, seed=3, start=5) == generate("mixed", 10, seed=3)[5:]
    # the same board on every machine and Python (random.Random seeded with a string)
    assert generate_board(LEVELS["tiny"], 0, 0) == {
        "rules": "current",
        "step": "regular",
        "players": [{"id": "opp", "life": 20}],
        "attackers": [
            {
                "id": "a1",
                "power": 1,
                "toughness": 1,
                "keywords": ["trample"],
                "attacking": "opp",
                "blocked_by": ["b2", "b1"],
            }
        ],
        "blockers": [
            {"id": "b1", "power": 0, "toughness": 5, "keywords": [], "value": 5},
            {"id": "b2", "power": 4, "toughness": 4, "keywords": [], "value": 2},
        ],
    }
    # 702.19b: 1 point cannot make either blocker lethal, so it goes to b2 or to b1: 2 choices
    assert Combat(generate_board(LEVELS["tiny"], 0, 0)).count() == 2


def test_load_suite_reads_scenarios_and_wrapped_lines_and_names_bad_lines(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text(
        json.dumps(TRAMPLE) + "\n\n" + json.dumps({"name": "n", "objective": "max-kills", "scenario": TRAMPLE}) + "\n"
    )
    items = load_suite(path)
    assert [i["id"] for i in items] == ["s:1", "n"]
    assert items[1]["objective"] == "max-kills" and "objective" not in items[0]
    path.write_text(json.dumps(TRAMPLE) + "\n" + '{"scenario": {"attackers": [{"id": 1}]}}\n')
    with pytest.raises(FormatError) as err:
        load_suite(path)
    assert str(err.value) == f"{path}: line 2: scenario.attackers[0].id: expected a string, got 1"
    path.write_text(json.dumps({"objective": "max-damage:x", "scenario": TRAMPLE}) + "\n")
    with pytest.raises(FormatError) as err:
        load_suite(path)
    assert str(err.value) == f'{path}: line 1: objective: max-damage:x: "x" is not a player'
    path.write_text(json.dumps(dict(TRAMPLE, step="combat")) + "\n")
    with pytest.raises(FormatError) as err:
        load_suite(path)
    assert str(err.value) == (
        f'{path}: line 1: scenario.step: the arena scores one damage step ("regular" or "first_strike"), not "combat"'
    )


def test_the_package_docstring_example_runs():
    import doctest

    import trample.arena

    assert doctest.testmod(trample.arena).failed == 0


# The curated suites ship in the package (trample/suites): named from any folder, missing ones said loudly


def test_a_curated_suite_is_named_without_a_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert [item["id"] for item in load_suite("known-mistakes")] == [item["id"] for item in load_suite(str(KNOWN))]
    assert load_suite("perft.jsonl") == load_suite(str(PERFT))


def test_a_missing_suite_is_bad_input_listing_the_curated_ones(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FormatError, match=r"nosuch: no such file, and no curated suite of that name \(curated: "):
        load_suite("nosuch")


def test_an_install_without_its_suites_fails_loudly(tmp_path, monkeypatch):
    from trample.arena import suites

    monkeypatch.setattr(suites, "CURATED_DIR", tmp_path)
    with pytest.raises(FileNotFoundError, match="curated suites are missing"):
        suites.curated_files()


# ---------------------------------------------------------------------------------------------
# A user's agent onto the leaderboard
# ---------------------------------------------------------------------------------------------


def test_run_arena_takes_scenarios_scenario_dicts_and_items():
    from trample.arena.runner import suite_items

    boards = [item["scenario"] for item in generate("tiny", 3, seed=2)]
    by_items = run_arena(generate("tiny", 3, seed=2), players=["greedy"], seed=1)
    by_dicts = run_arena(boards, players=["greedy"], seed=1)
    by_objects = run_arena([load_scenario(b) for b in boards], players=["greedy"], seed=1)
    for other in (by_dicts, by_objects):
        assert [b["reference"] for b in other["boards"]] == [b["reference"] for b in by_items["boards"]]
        assert other["leaderboard"][0]["decisions"] == 3
    with pytest.raises(FormatError, match=r"^items\[1\]: expected a Scenario"):
        suite_items([boards[0], {"no": "board"}])
    with pytest.raises(FormatError, match="^items: expected a list of boards"):
        run_arena(load_scenario(boards[0]), players=["greedy"])


def test_py_spec_naming_a_player_instance_plays():
    from trample.arena.policy import PolicyPlayer

    p = make_player("py:user_agents:first_legal")
    assert isinstance(p, FunctionPlayer) and p.name == "first"
    assert isinstance(make_player("py:user_agents:largest"), PolicyPlayer)
    results = run_arena(generate("basic", 4, seed=1), players=["py:user_agents:first_legal"], seed=0)
    assert all(d["legal"] for b in results["boards"] for d in b["decisions"])
    with pytest.raises(FormatError, match="not_a_player is a int, not a Player or a function"):
        make_player("py:user_agents:not_a_player")


def test_a_policy_player_sees_what_the_gym_env_shows():
    # the same observations, masks and assignment as playing the Gymnasium environment with the same policy
    gym_env = pytest.importorskip("trample.arena.gym_env")
    import numpy as np

    from trample.arena.policy import PolicyPlayer

    for item in generate("shared", 6, seed=4):
        seen_player, seen_env = [], []

        def policy(obs, mask, seen=seen_player):
            seen.append((obs.copy(), mask.copy()))
            return int(np.flatnonzero(mask)[len(seen) % int(mask.sum())])

        got = PolicyPlayer("p", policy).decide(load_scenario(item["scenario"]), "max-value", 0)
        env = gym_env.DamageAssignmentEnv(objective="max-value")
        obs, info = env.reset(options={"scenario": item["scenario"]})
        done = env.walk.done
        while not done:
            seen_env.append((obs.copy(), info["action_mask"].copy()))
            action = int(np.flatnonzero(info["action_mask"])[len(seen_env) % int(info["action_mask"].sum())])
            obs, _, done, _, info = env.step(action)
        assert len(seen_player) == len(seen_env)
        for (o1, m1), (o2, m2) in zip(seen_player, seen_env):
            assert np.array_equal(o1, o2) and np.array_equal(m1, m2)
        assert Assignment(got) == Assignment(info["assignment"])
