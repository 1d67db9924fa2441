"""The Gymnasium environment: a real gymnasium.Env, check_env, masks, numpy actions, np_random seeding,
and every legal assignment (the optimum included) reachable through the action encoding."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402

from trample import Combat  # noqa: E402
from trample.arena import encoding  # noqa: E402
from trample.arena.gym_env import ENV_ID, DamageAssignmentEnv  # noqa: E402
from trample.arena.suites import generate  # noqa: E402
from trample.models import Assignment  # noqa: E402

THRASTA = json.loads((Path(__file__).resolve().parents[2] / "examples/thrasta.json").read_text())


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("level", ["tiny", "mixed"])
def test_check_env_passes(level):
    env = gym.make(ENV_ID, level=level)
    assert isinstance(env.unwrapped, gym.Env)
    check_env(env.unwrapped)
    assert env.action_space == gym.spaces.Discrete(21)
    assert env.observation_space.shape == (encoding.OBS_SIZE,)


def test_np_random_seeding_is_reproducible():
    a, b = DamageAssignmentEnv(level="mixed"), DamageAssignmentEnv(level="mixed")
    for seed in (0, 7):
        oa, _ = a.reset(seed=seed)
        ob, _ = b.reset(seed=seed)
        assert np.array_equal(oa, ob) and a.scenario == b.scenario
    a.reset(seed=1)
    b.reset(seed=2)
    assert a.scenario != b.scenario


def test_the_optimal_line_is_reachable_and_scores_zero():
    env = DamageAssignmentEnv(objective="lethal,max-value")
    obs, info = env.reset(seed=0, options={"scenario": THRASTA})
    assert env.observation_space.contains(obs)
    best = Combat(THRASTA).solve(["lethal", "max-value"]).assignment
    for action in env.actions_for(best):
        mask = env.action_masks()
        assert mask[action]
        obs, reward, terminated, truncated, info = env.step(np.int64(action))  # numpy actions are accepted
        assert env.observation_space.contains(obs)
    assert terminated and not truncated
    assert Assignment(info["assignment"]) == best
    assert reward == 0.0 and info["optimal"] and info["lethal"]


def test_reachable_through_the_env_equals_the_legal_assignments():
    # every legal assignment, and only those, is the end of some sequence of masked actions
    def reachable(env, board, prefix, seen):
        env.reset(options={"scenario": board})
        for a in prefix:
            env.step(a)
        if env._result is not None:
            seen.add(Assignment(env._result["assignment"]))
            return seen
        for a in np.flatnonzero(env.action_masks()):
            reachable(env, board, [*prefix, int(a)], seen)
        return seen

    for item in generate("basic", 6, seed=3) + generate("planeswalkers", 4, seed=3):
        seen = reachable(DamageAssignmentEnv(), item["scenario"], [], set())
        assert seen == set(Combat(item["scenario"]).legal_assignments)


def test_masked_random_play_is_always_legal_and_rewards_are_minus_regret():
    env = DamageAssignmentEnv(level="mixed", objective="max-value")
    env.action_space.seed(3)
    for episode in range(15):
        obs, info = env.reset(seed=episode)
        combat = Combat(env.scenario)
        done = False
        while not done:
            obs, reward, done, _, info = env.step(env.action_space.sample(mask=env.action_masks().astype(np.int8)))
        assert not info["illegal"] and combat.check(info["assignment"]).legal
        assert reward == -info["regret"]["max-value"] <= 0


def test_an_unmasked_illegal_action_ends_the_episode():
    env = DamageAssignmentEnv(illegal_reward=-5)
    env.reset(options={"scenario": THRASTA})
    bad = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, terminated, _, info = env.step(bad)
    assert terminated and reward == -5 and info["illegal"]
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_render_modes():
    env = DamageAssignmentEnv(render_mode="ansi")
    env.reset(options={"scenario": THRASTA})
    assert "deciding: how much of thrasta's damage goes to wall" in env.render()
    env = DamageAssignmentEnv(render_mode="svg")
    env.reset(options={"scenario": THRASTA})
    assert env.render().startswith("<svg")


def test_too_big_for_the_encoding_is_a_clear_error():
    env = DamageAssignmentEnv(max_amount=5)
    with pytest.raises(ValueError, match="max_amount=5"):
        env.reset(options={"scenario": THRASTA})


def test_without_gymnasium_one_line_names_the_extra():
    code = "import sys; sys.modules['gymnasium'] = None\nimport trample.arena.gym_env"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode != 0
    assert "pip install 'trample[gym]'" in out.stderr.strip().splitlines()[-1]


def test_every_level_of_a_lexicographic_objective_is_rewarded():
    # reward = -(r1 + w*r2), w = lexicographic_weight: two lines with the same primary regret and different
    # secondary regrets get different rewards, the better secondary the higher
    env = DamageAssignmentEnv(objective="max-damage,max-value")
    rewards: dict = {}
    for assignment in Combat(THRASTA).legal_assignments:
        env.reset(options={"scenario": THRASTA})
        for a in env.actions_for(assignment):
            *_, reward, _, _, info = env.step(a)
        r = info["regret"]
        assert reward == pytest.approx(-(r["max-damage"] + 0.1 * r["max-value"]))
        rewards.setdefault(r["max-damage"], {})[r["max-value"]] = reward
    ties = [by for by in rewards.values() if len(by) > 1]
    assert ties, "a board with several secondary regrets at one primary regret"
    for by in ties:
        order = sorted(by)
        assert [by[k] for k in order] == sorted(by.values(), reverse=True)
    with pytest.raises(ValueError, match="lexicographic_weight"):
        DamageAssignmentEnv(lexicographic_weight=1.5)


def test_observations_are_scaled_into_minus_one_one():
    env = DamageAssignmentEnv(level="mixed")
    assert env.observation_space == gym.spaces.Box(-1.0, 1.0, (encoding.OBS_SIZE,), np.float32)
    for seed in range(20):
        obs, _ = env.reset(seed=seed)
        assert obs.dtype == np.float32 and -1.0 <= obs.min() and obs.max() <= 1.0
    obs, _ = env.reset(options={"scenario": THRASTA})
    thrasta = THRASTA["attackers"][0]
    assert obs[1] == pytest.approx(thrasta["power"] / encoding.SCALE)  # attacker slot 0: present, power, ...


@pytest.mark.filterwarnings("ignore:.*render_mode='rgb_array' that is not in the possible render_modes")  # gymnasium's
def test_a_render_mode_it_does_not_have_is_a_type_error_and_make_vec_env_works():
    with pytest.raises(TypeError, match="render_mode"):
        DamageAssignmentEnv(render_mode="rgb_array")
    sb3 = pytest.importorskip("stable_baselines3")  # the 'rl' extra: skipped when absent
    vec = sb3.common.env_util.make_vec_env(ENV_ID, n_envs=2, seed=0)
    obs = vec.reset()
    assert obs.shape == (2, encoding.OBS_SIZE)
    assert vec.env_method("action_masks")[0].shape == (21,)
    vec.close()


def test_make_vec_env_asked_for_no_render_mode_warns_nothing():
    # what examples/train_ppo.py does: make_vec_env's default "rgb_array" is not asked for, so no warning at all
    sb3 = pytest.importorskip("stable_baselines3")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        vec = sb3.common.env_util.make_vec_env(ENV_ID, n_envs=1, seed=0, env_kwargs={"render_mode": None})
    assert vec.reset().shape == (1, encoding.OBS_SIZE)
    vec.close()


@pytest.mark.parametrize(
    "code",
    [
        # import trample first, gymnasium later: the id is registered when gymnasium arrives, not before
        "import sys, trample; assert 'gymnasium' not in sys.modules\n"
        "import gymnasium as gym; assert 'trample.arena.gym_env' not in sys.modules\n"
        "env = gym.make('trample/DamageAssignment-v0'); env.reset(seed=0); print('ok')",
        # gymnasium first
        "import gymnasium as gym, trample\n"
        "env = gym.make('trample/DamageAssignment-v0'); env.reset(seed=0); print('ok')",
        # without gymnasium, import trample still works
        "import sys; sys.modules['gymnasium'] = None\nimport trample; print('ok')",
    ],
)
def test_the_gymnasium_id_is_registered_by_import_trample(code):
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
