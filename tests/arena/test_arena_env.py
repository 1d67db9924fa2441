"""The Gymnasium-style environment (docs/arena.md): reset(seed) / step(action), action = assignment index of N."""

from __future__ import annotations

import numpy as np
import pytest

from trample import Combat
from trample.arena import ArenaEnv, load_suite
from trample.models import Assignment

# docs/rules.md known mistake 3: a 6/6 blocked by a 1/2 (value 1, declared first) and a 5/5 (value 5); 7 splits
KNOWN = {item["id"].split(".")[0]: item for item in load_suite("known-mistakes")}


def test_every_action_of_a_small_board():
    env = ArenaEnv(objective="max-value")
    obs, info = env.reset(options={"scenario": KNOWN["3"]["scenario"]})
    assert obs["count"] == info["action_count"] == 7  # 510.1c: any split of 6 between two blockers, no order
    assert obs["objective"] == "max-value"
    assert info["action_mask"].dtype == bool and info["action_mask"].tolist() == [True] * 7
    assert np.array_equal(env.action_masks(), info["action_mask"])
    assert info["optimum"] == {"max-value": 5}
    rewards, seen = [], set()
    combat = Combat(KNOWN["3"]["scenario"])
    for i in range(7):
        env.reset(options={"scenario": KNOWN["3"]["scenario"]})
        _, reward, terminated, truncated, info = env.step(i)
        assert (terminated, truncated) == (True, False)
        assert Assignment(info["assignment"]) == combat.unrank(i)
        assert combat.check(info["assignment"]).legal
        seen.add(Assignment(info["assignment"]))
        rewards.append(reward)
        assert reward == -info["regret"]["max-value"]
        assert info["optimal"] == (reward == 0)
    assert len(seen) == 7
    # 702.19b lethal: the 1/2 needs 2, the 5/5 needs 5, 6 damage kills exactly one of them: the 5/5 (value 5)
    # with 0 or 1 on the 1/2, the 1/2 (value 1) with 2..6 on it
    assert sorted(rewards) == [-4.0] * 5 + [0.0, 0.0]
    best = combat.rank(combat.solve("max-value").assignment)
    env.reset(options={"scenario": KNOWN["3"]["scenario"]})
    assert env.step(best)[1] == 0.0


def test_reset_is_seeded():
    env = ArenaEnv("mixed")
    a = [env.reset(seed=3)[0]["scenario"]] + [env.reset()[0]["scenario"] for _ in range(3)]
    b = [env.reset(seed=3)[0]["scenario"]] + [env.reset()[0]["scenario"] for _ in range(3)]
    assert a == b and len({str(s) for s in a}) > 1
    assert ArenaEnv("mixed", seed=3).reset()[0] == ArenaEnv("mixed").reset(seed=3)[0]


def test_fixed_action_space_mask_and_bad_actions():
    env = ArenaEnv(boards=[KNOWN["4"]], objective="max-damage", max_actions=16)
    obs, info = env.reset(seed=0)
    assert info["action_count"] == 10  # 702.19b: a 6/6 trampler vs two 2/2s
    assert info["action_mask"].tolist() == [True] * 10 + [False] * 6
    with pytest.raises(ValueError, match="not an assignment index"):
        env.step(10)
    _, reward, *_ = env.step(9)
    assert reward <= 0
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(0)


def test_ratio_reward():
    env = ArenaEnv(boards=[KNOWN["4"]], objective="max-damage", reward="ratio")
    env.reset(seed=1)
    combat = Combat(KNOWN["4"]["scenario"])
    rewards = {combat.unrank(i).total_to("opp"): env.reset() and env.step(i)[1] for i in range(10)}
    assert rewards == {0: 0.0, 1: 0.5, 2: 1.0}  # 702.19b: at most 2 of 6 trample over two 2/2s
