"""Train a PPO agent on trample's Gymnasium environment and measure its regret curve against simple baselines.

    pip install 'trample[rl]'          # stable-baselines3 and sb3-contrib (MaskablePPO); torch: its CPU build
    python examples/train_ppo.py --steps 20480 --out docs/data/train_ppo.json

The task is the environment's default (``trample/DamageAssignment-v0``: the ``shared`` level on
``max-value,max-damage``). Training draws from a pool of generated boards (seed 1), and every ``--eval-every``
steps the policy (deterministic) plays a disjoint pool of evaluation boards (seed 2); the baselines play the same
evaluation boards:

- ``random``: a uniformly random legal amount at every decision (seeded);
- ``smallest``: always the smallest legal amount;
- ``greedy``: the arena's Forge-like ``GreedyValuePlayer`` (kill the most valuable blockers it can afford);
- ``optimal``: the proven optimum (regret 0 by definition).

The agent is sb3-contrib's ``MaskablePPO`` (PPO that samples only the legal amounts, ``env.action_masks()``);
``--unmasked`` trains plain ``stable_baselines3.PPO`` instead, which learns to avoid illegal amounts through the
environment's ``illegal_reward``. The results (JSON: the config, the baselines' and every checkpoint's mean
primary regret, mean reward and share of optimal decisions) go to ``--out``; ``python -m benchmarks.docs_figures``
draws docs/train-ppo.png from them and checks the table in docs/arena.md.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time

import numpy as np


def episode(env, policy, scenario: dict) -> dict:
    """Play one board with ``policy(env, obs, mask) -> action``; the final info's numbers."""
    obs, info = env.reset(options={"scenario": scenario})
    done = False
    reward = 0.0
    while not done:
        action = policy(env, obs, info["action_mask"])
        obs, reward, done, _, info = env.step(int(action))
    primary = env.objectives[0].name
    regret = None if info.get("illegal") else float(info["regret"][primary])
    return {"reward": float(reward), "regret": regret, "optimal": bool(info.get("optimal")), "illegal": info["illegal"]}


def summary(rows: list[dict]) -> dict:
    legal = [r for r in rows if not r["illegal"]]
    return {
        "regret_mean": round(float(np.mean([r["regret"] for r in legal])), 4) if legal else None,
        "reward_mean": round(float(np.mean([r["reward"] for r in rows])), 4),
        "optimal_share": round(float(np.mean([r["optimal"] for r in rows])), 4),
        "illegal_share": round(float(np.mean([r["illegal"] for r in rows])), 4),
    }


def baselines(env, boards: list[dict], seed: int) -> dict:
    from trample.arena.players import GreedyValuePlayer

    rng = np.random.default_rng(seed)
    greedy = GreedyValuePlayer()
    plan: dict = {"walk": None, "actions": []}

    def random_policy(env, obs, mask):
        return int(rng.choice(np.flatnonzero(mask)))

    def smallest(env, obs, mask):
        return int(np.flatnonzero(mask)[0])

    def greedy_policy(env, obs, mask):
        if plan["walk"] is not env.walk:  # a new episode: the greedy assignment, as the decisions that build it
            plan["walk"] = env.walk
            plan["actions"] = list(env.actions_for(greedy.decide(env.scenario, env.objective, 0)))
        return plan["actions"].pop(0)

    out = {}
    for name, policy in (("random", random_policy), ("smallest", smallest), ("greedy", greedy_policy)):
        out[name] = summary([episode(env, policy, b) for b in boards])
    out["optimal"] = {"regret_mean": 0.0, "reward_mean": 0.0, "optimal_share": 1.0, "illegal_share": 0.0}
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=20480, help="environment steps of training (default 20480)")
    parser.add_argument(
        "--eval-every", type=int, default=2048, help="steps between evaluations (default 2048; a rollout is 1024 steps)"
    )
    parser.add_argument("--train-boards", type=int, default=1000, help="boards in the training pool (default 1000)")
    parser.add_argument("--eval-boards", type=int, default=200, help="evaluation boards (default 200)")
    parser.add_argument("--level", default=None, help="the level (default: the environment's, shared)")
    parser.add_argument("--objective", default=None, help="the objective (default: the environment's)")
    parser.add_argument("--seed", type=int, default=0, help="the agent's seed (default 0)")
    parser.add_argument("--unmasked", action="store_true", help="plain PPO without action masks")
    parser.add_argument("--out", default=None, help="write the results as JSON here")
    args = parser.parse_args(argv)

    try:
        import gymnasium as gym
        from stable_baselines3 import PPO
        from stable_baselines3.common.env_util import make_vec_env
    except ImportError as err:
        print(f"train_ppo: needs the rl extra (pip install 'trample[rl]'): {err}", file=sys.stderr)
        return 2
    import trample  # noqa: F401  (registers trample/DamageAssignment-v0)
    from trample.arena.gym_env import DEFAULT_LEVEL, DEFAULT_OBJECTIVE_GYM
    from trample.arena.suites import generate

    level = args.level or DEFAULT_LEVEL
    objective = args.objective or DEFAULT_OBJECTIVE_GYM
    train = [item["scenario"] for item in generate(level, args.train_boards, seed=1)]
    evaluation = [item["scenario"] for item in generate(level, args.eval_boards, seed=2)]
    # render_mode None: make_vec_env asks for "rgb_array" otherwise, which the environment does not have (a warning)
    kwargs = {"boards": train, "objective": objective, "render_mode": None}
    vec = make_vec_env("trample/DamageAssignment-v0", n_envs=4, seed=args.seed, env_kwargs=kwargs)
    judge_env = gym.make("trample/DamageAssignment-v0", objective=objective).unwrapped

    started = time.perf_counter()
    base = baselines(judge_env, evaluation, seed=args.seed)
    print(json.dumps({"baselines": base}), flush=True)

    ppo_kwargs = {"n_steps": 256, "batch_size": 256, "learning_rate": 3e-4, "ent_coef": 0.01, "seed": args.seed}
    if args.unmasked:
        model = PPO("MlpPolicy", vec, **ppo_kwargs)
        algorithm = "PPO"

        def act(env, obs, mask):
            return int(model.predict(obs, deterministic=True)[0])
    else:
        try:
            from sb3_contrib import MaskablePPO
        except ImportError as err:
            print(f"train_ppo: MaskablePPO needs sb3-contrib (pip install 'trample[rl]'): {err}", file=sys.stderr)
            return 2
        model = MaskablePPO("MlpPolicy", vec, **ppo_kwargs)
        algorithm = "MaskablePPO"

        def act(env, obs, mask):
            return int(model.predict(obs, deterministic=True, action_masks=mask.astype(bool))[0])

    curve = []

    def evaluate(steps: int) -> None:
        point = {"steps": steps, **summary([episode(judge_env, act, b) for b in evaluation])}
        curve.append(point)
        print(json.dumps(point), flush=True)

    evaluate(0)
    done = 0
    while done < args.steps:
        chunk = min(args.eval_every, args.steps - done)
        model.learn(total_timesteps=chunk, reset_num_timesteps=False)
        done = model.num_timesteps
        evaluate(done)
    vec.close()

    results = {
        "config": {
            "algorithm": algorithm,
            "level": level,
            "objective": objective,
            "steps": args.steps,
            "eval_every": args.eval_every,
            "train_boards": args.train_boards,
            "eval_boards": args.eval_boards,
            "seed": args.seed,
            "ppo": {k: v for k, v in ppo_kwargs.items() if k != "seed"},
            "n_envs": 4,
        },
        "facts": {"python": platform.python_version(), "elapsed_s": round(time.perf_counter() - started, 1)},
        "baselines": base,
        "curve": curve,
    }
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            json.dump(results, fh, indent=1)
            fh.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
