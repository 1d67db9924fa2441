"""The whole combat as a two-player game: the game of trample.arena.combat_game, its PettingZoo AEC
environment, its OpenSpiel game and bots, and the whole-combat arena (regret against the minimax value)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from clusters import local_cluster

from trample.arena.combat_game import ATTACKER, CombatGame
from trample.arena.suites import generate
from trample.models import load_scenario
from trample.whole import WholeCombat

ROOT = Path(__file__).resolve().parents[2]
DOUBLE = json.loads((ROOT / "examples/double_strike.json").read_text())


def minimax(position) -> float:
    """Full game-tree search (no trample search code): the attacker maximises, the defender minimises."""
    if position.terminal:
        return position.returns()[0]
    values = [minimax(position.apply(a)) for a in position.legal_actions()]
    return max(values) if position.player == ATTACKER else min(values)


def plays(position, out):
    if position.terminal:
        out.append(json.dumps(position.line(), sort_keys=True))
        return out
    for a in position.legal_actions():
        plays(position.apply(a), out)
    return out


def small_whole_boards(n: int, seed: int):
    for item in generate("first-strike", n, seed=seed):
        scenario = load_scenario(item["scenario"])
        if WholeCombat(scenario).count() <= 2000:
            yield scenario


def test_the_plays_are_exactly_the_legal_lines():
    # 510.4 first-strike step, 704.3 SBAs between the steps, 510.1 the attacker assigns first: every legal line
    # of WholeCombat is one play of the game, and every play is a legal line
    assert set(plays(CombatGame(DOUBLE).initial(), [])) == {
        json.dumps(line.to_json(), sort_keys=True) for line in WholeCombat(DOUBLE).assignments()
    }
    checked = 0
    for scenario in small_whole_boards(12, seed=5):
        got = plays(CombatGame(scenario).initial(), [])
        assert len(got) == len(set(got))
        assert set(got) == {json.dumps(line.to_json(), sort_keys=True) for line in WholeCombat(scenario).assignments()}
        checked += 1
    assert checked >= 6


@pytest.mark.parametrize("objective", ["max-damage", "max-value", "lethal", "min-overkill", "max-kills"])
def test_the_game_value_is_the_whole_combat_solve(objective):
    # the game-tree minimax (attacker max, defender min over the blockers' first-strike replies) equals
    # WholeCombat.solve's value (trample.whole.solve_whole)
    for scenario in [load_scenario(DOUBLE), *small_whole_boards(8, seed=9)]:
        game = CombatGame(scenario, objective)
        assert minimax(game.initial()) == pytest.approx(game.minimax())


def test_optimal_attacker_against_the_best_reply_reaches_the_minimax_value():
    for scenario in [load_scenario(DOUBLE), *small_whole_boards(8, seed=2)]:
        game = CombatGame(scenario, "max-damage,max-kills")
        pos = game.initial()
        while not pos.terminal:
            pos = pos.apply(game.optimal_action(pos) if pos.player == ATTACKER else game.best_reply(pos))
        assert pos.returns()[0] == pytest.approx(game.minimax())
        assert WholeCombat(scenario).check(pos.line()).legal


def test_pettingzoo_api_seed_tests_pass_without_warnings():
    # api_test and seed_test with every warning an error: numpy observations (a Box), the action mask in infos,
    # <descriptor>_<number> agent names; env() (wrapped) and raw_env() both pass
    import warnings

    pytest.importorskip("pettingzoo")
    from pettingzoo.test import api_test, seed_test

    from trample.arena.pz_env import CombatAEC, env, raw_env

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for level in ("first-strike", "mixed"):
            api_test(env(level=level), num_cycles=100, verbose_progress=False)
            api_test(raw_env(level=level), num_cycles=100, verbose_progress=False)
        seed_test(lambda: env(level="first-strike"), num_cycles=20)
    assert isinstance(raw_env(), CombatAEC) and isinstance(env().unwrapped, CombatAEC)
    assert not CombatAEC.metadata["is_parallelizable"]  # the agents move in turn: no parallel_api_test


def test_pettingzoo_rewards_are_the_outcome():
    pytest.importorskip("pettingzoo")
    import numpy as np

    from trample.arena.pz_env import env

    e = env()
    e.reset(seed=0, options={"scenario": DOUBLE, "objective": "max-damage"})
    order, final = [], {}
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        assert isinstance(obs, np.ndarray) and obs.dtype == np.float32 and e.observation_space(agent).contains(obs)
        if terminated:
            final[agent] = reward
            e.step(None)
            continue
        assert info["action_mask"].any()
        other = [a for a in e.agents if a != agent][0]
        assert not e.infos[other]["action_mask"].any()  # the agent not to move has no legal action
        order.append(agent)
        e.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert order[0] == "attacker_0" and "defender_0" in order  # A1 first (510.1), then the defender's D1
    assert final["attacker_0"] == -final["defender_0"]
    assert final["attacker_0"] == CombatGame(DOUBLE).values(info["line"])["max-damage"]  # the damage dealt
    assert WholeCombat(DOUBLE).check(info["line"]).legal


def test_openspiel_bots_play_to_the_end_and_never_beat_the_minimax_value():
    pyspiel = pytest.importorskip("pyspiel")
    from trample.arena import openspiel_game as og

    game = pyspiel.load_game(og.SHORT_NAME)  # registered: the default board is docs/combat.md's double strike
    assert game.num_players() == 2 and game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    pyspiel.random_sim_test(game, num_sims=5, serialize=False, verbose=False)
    for scenario in [load_scenario(DOUBLE), *small_whole_boards(5, seed=4)]:
        g = og.load(scenario.to_json(), "max-damage")
        best = g.core.minimax()
        for kind in og.BOTS:
            final = og.play(g, og.make_bot(kind, g, 0, seed=1, simulations=30))
            assert final.is_terminal() and final.returns()[0] <= best + 1e-9
            assert final.returns()[0] == -final.returns()[1]
            assert WholeCombat(scenario).check(final.position.line()).legal
        # both sides played by OpenSpiel bots also end
        final = og.play(g, og.make_bot("mcts", g, 0, 2, 20), og.make_bot("random", g, 1, 3))
        assert final.is_terminal()


def test_openspiel_game_string_serialisation_and_pickle_round_trip():
    # the board travels as base64 of its JSON inside the game string (the JSON's commas split OpenSpiel's
    # parameters): load_game(str(game)), serialize_game_and_state, random_sim_test(serialize=True) and pickle
    import pickle

    pyspiel = pytest.importorskip("pyspiel")
    from trample.arena import openspiel_game as og

    for scenario in [load_scenario(DOUBLE), *small_whole_boards(3, seed=4)]:
        game = og.load(scenario.to_json(), "max-damage,max-kills")
        text = str(game)
        assert "," not in text.split("board=", 1)[1].split(",objective=", 1)[0]
        again = pyspiel.load_game(text)
        assert str(again) == text and again.core.scenario == game.core.scenario
        assert again.core.objective == "max-damage,max-kills"
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(state.legal_actions()[-1])
        g2, s2 = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
        assert str(g2) == text and s2.history() == state.history() and s2.returns() == state.returns()
        g3 = pickle.loads(pickle.dumps(game))
        assert str(g3) == text and g3.core.minimax() == game.core.minimax()
        s3 = pickle.loads(pickle.dumps(state))
        assert s3.history() == state.history() and s3.returns() == state.returns()
        pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)
    # the JSON text itself is still accepted as the parameter, and a bad one is one clear error
    assert str(pyspiel.load_game(og.SHORT_NAME, {"board": json.dumps(DOUBLE)})) == str(og.load(DOUBLE))
    with pytest.raises(ValueError, match="^board: expected base64"):
        pyspiel.load_game(og.SHORT_NAME, {"board": "not*base64"})


def test_whole_combat_arena_leaderboard_has_the_bots_regret():
    pytest.importorskip("pyspiel")
    from trample.arena.runner import run_whole_arena

    items = generate("first-strike", 8, seed=1)
    results = run_whole_arena(items, ["optimal", "openspiel-mcts:30", "openspiel-random"], "max-damage", seed=1)
    rows = {r["player"]: r for r in results["leaderboard"]}
    assert set(rows) == {"optimal", "openspiel-mcts:30", "openspiel-random"}
    assert rows["optimal"]["regret_mean"] == 0 and rows["optimal"]["optimal_share"] == 1
    for row in rows.values():
        assert row["illegal"] == 0 and row["regret_mean"] >= 0
    for board in results["boards"]:
        for d in board["decisions"]:
            assert d["primary_regret"] >= 0


def test_cli_arena_game_combat():
    pytest.importorskip("pyspiel")
    proc = subprocess.run(
        [sys.executable, "-m", "trample", "arena", "--game", "combat", "--n", "4", "--seed", "2", "--format", "json",
         "--players", "optimal,openspiel-random,openspiel-mcts:20"],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["config"]["game"] == "combat" and len(out["leaderboard"]) == 3
    proc = subprocess.run(
        [sys.executable, "-m", "trample", "arena", "--game", "combat", "--players", "alphazero"],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )  # fmt: skip
    assert proc.returncode == 2 and 'unknown whole-combat player "alphazero"' in proc.stderr


@pytest.mark.parametrize(
    ("module", "blocked", "extra"),
    [
        ("trample.arena.pz_env", "pettingzoo", "multiagent"),
        ("trample.arena.openspiel_game", "pyspiel", "multiagent"),
        ("trample.arena.pz_declare", "pettingzoo", "multiagent"),
        ("trample.arena.openspiel_declare", "pyspiel", "multiagent"),
        ("trample.arena.gym_declare", "gymnasium", "gym"),
    ],  # fmt: skip
)
def test_without_the_extra_one_line_names_it(module, blocked, extra):
    code = f"import sys; sys.modules[{blocked!r}] = None\nimport {module}"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode != 0
    assert f"pip install 'trample[{extra}]'" in out.stderr.strip().splitlines()[-1]


def test_cli_without_open_spiel_names_the_extra_in_one_line():
    code = (
        "import sys; sys.modules['pyspiel'] = None\n"
        "from trample.cli import main\n"
        "sys.exit(main(['arena', '--game', 'combat', '--n', '2', '--players', 'openspiel-mcts']))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 2
    assert (
        out.stderr.strip() == "trample: --players: openspiel-mcts needs open-spiel (pip install 'trample[multiagent]')"
    )


EXTERNAL_FIRST_LEGAL = """
import json, sys
from trample import Combat
for line in sys.stdin:
    request = json.loads(line)
    print(json.dumps(next(iter(Combat(request["scenario"]).legal_assignments)).to_json()), flush=True)
"""
USER_PLAYERS = ["optimal", "greedy", "py:user_agents:first_legal", "py:user_agents:largest", "py:user_agents:broken"]


def _user_agents_run(tmp_path, **options):
    from trample.arena.runner import run_whole_arena

    program = tmp_path / "first.py"
    program.write_text(EXTERNAL_FIRST_LEGAL)
    players = [*USER_PLAYERS, f"ext=cmd:{sys.executable} {program}"]
    items = generate("first-strike", 6, seed=3)
    options = {"timeout": 300, "startup_timeout": 300, **options}  # a loaded machine must not time the program out
    return items, run_whole_arena(items, players, "max-damage,max-value", seed=2, **options)


def test_a_users_agents_score_on_the_whole_combat_arena(tmp_path):
    # a FunctionPlayer instance, a policy (PolicyPlayer), a baseline and an external program play the attacker's
    # steps against the defender's best reply; every line they play is legal and scored against the minimax value
    items, results = _user_agents_run(tmp_path)
    rows = {r["player"]: r for r in results["leaderboard"]}
    assert set(rows) == {"optimal", "greedy", "first", "largest", "broken", "ext"}
    assert rows["optimal"]["regret_max"] == 0
    for board, item in zip(results["boards"], items):
        whole = WholeCombat(load_scenario(item["scenario"]).with_step("combat"))
        minimax = CombatGame(whole.scenario, "max-damage,max-value").minimax()
        by = {d["player"]: d for d in board["decisions"]}
        for name in ("greedy", "first", "largest", "ext"):
            d = by[name]
            assert d["legal"] and whole.check(d["assignment"]).legal
            assert (
                d["primary_regret"] == pytest.approx(minimax - d["values"]["max-damage"]) and d["primary_regret"] >= 0
            )
        assert by["ext"]["assignment"] == by["first"]["assignment"]  # the same agent, in a process or not
        assert by["broken"]["rules"] == ["error"] and "no model loaded" in by["broken"]["violations"][0]["message"]


@pytest.mark.slow
def test_a_users_agents_score_the_same_on_workers_and_dask(tmp_path):
    distributed = pytest.importorskip("distributed")
    from trample.arena import strip_timing

    _, inline = _user_agents_run(tmp_path)
    _, pooled = _user_agents_run(tmp_path, workers=2, chunk_size=2)
    assert strip_timing(pooled)["boards"] == strip_timing(inline)["boards"]
    with local_cluster(distributed) as cluster:
        _, remote = _user_agents_run(tmp_path, backend="dask", scheduler=cluster.scheduler_address, chunk_size=3)
    assert strip_timing(remote)["boards"] == strip_timing(inline)["boards"]
    assert strip_timing(remote)["leaderboard"] == strip_timing(inline)["leaderboard"]


def test_cli_whole_combat_arena_with_py_external_and_workers(tmp_path):
    import os

    program = tmp_path / "first.py"
    program.write_text(EXTERNAL_FIRST_LEGAL)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "tests")}
    argv = [sys.executable, "-m", "trample", "arena", "--game", "combat", "--n", "4", "--seed", "1",
            "--format", "json", "--players", "optimal,py:user_agents:first_legal",
            "--external", f"ext={sys.executable} {program}"]  # fmt: skip
    for extra in ([], ["--workers", "2", "--chunk", "2"]):
        proc = subprocess.run([*argv, *extra], capture_output=True, text=True, timeout=600, cwd=ROOT, env=env)
        assert (proc.returncode, proc.stderr) == (0, "")
        rows = {r["player"]: r for r in json.loads(proc.stdout)["leaderboard"]}
        assert set(rows) == {"optimal", "first", "ext"} and rows["ext"]["illegal"] == 0
        assert rows["ext"]["regret_mean"] == rows["first"]["regret_mean"]
    # a player that fails at every decision: the leaderboard is printed, one line names it, exit code 2
    argv[argv.index("--players") + 1] = "optimal,py:user_agents:broken"
    proc = subprocess.run(argv[:-2], capture_output=True, text=True, timeout=600, cwd=ROOT, env=env)
    assert proc.returncode == 2 and json.loads(proc.stdout)["leaderboard"]
    assert proc.stderr == (
        'trample: player "broken" failed at every decision (4 of 4; the first: first_strike step: RuntimeError: '
        "no model loaded)\n"
    )
