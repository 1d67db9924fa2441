"""A Gymnasium-style environment for learning agents (no gymnasium dependency).

For a real ``gymnasium.Env`` whose actions reach every legal assignment whatever the board, see
:mod:`trample.arena.gym_env` (``trample/DamageAssignment-v0``); this one picks an assignment by index.

One episode is one decision: :meth:`ArenaEnv.reset` deals a board, the agent picks an action ``i`` with
``0 <= i < N`` (``N`` = the number of legal assignments; the action is assignment ``i`` of the canonical order,
``Combat.unrank(i)``), and :meth:`ArenaEnv.step` returns the reward and ends the episode.

- observation: ``{"scenario": docs/format.md normal form, "objective": str, "count": N}``;
- ``info["action_count"]`` is ``N``; ``info["action_mask"]`` (numpy bool) marks the valid actions of a
  fixed-size action space of ``max_actions`` (all of ``0..N-1`` when ``max_actions`` is None and ``N`` is small
  enough to hold in memory); :meth:`action_masks` returns the same mask (the MaskablePPO convention);
- reward (``reward="difference"``, default): the primary objective's value minus the optimum's, signed so
  that 0 is optimal and negative is worse (``-regret``); ``reward="ratio"``: value / optimum, 1.0 when optimal.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..combat import Combat
from ..indexing import count
from ..models import Assignment, load_scenario
from .metrics import reference
from .objectives import DEFAULT_OBJECTIVE, is_lethal, objective_text, parse_objectives, regrets, score_all
from .suites import Level, generate_board, get_level

MASK_LIMIT = 1 << 20  # a mask of every legal assignment is built only up to this many


class ArenaEnv:
    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        level: str | Level = "tiny",
        objective: str = DEFAULT_OBJECTIVE,
        seed: int | None = None,
        boards: Sequence[dict] | None = None,
        max_actions: int | None = None,
        reward: str = "difference",
    ):
        if reward not in ("difference", "ratio"):
            raise ValueError(f"reward: expected 'difference' or 'ratio', got {reward!r}")
        self.level = get_level(level) if isinstance(level, str) else level
        self.boards = None if boards is None else [b.get("scenario", b) if "attackers" not in b else b for b in boards]
        self.objective = objective
        self.max_actions = max_actions
        self.reward_mode = reward
        self._rng = random.Random(seed)
        self.combat: Combat | None = None
        self._done = True

    # -- Gymnasium API ----------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None):
        """Deal a new board. ``options={"scenario": {...}}`` plays that board instead."""

        if seed is not None:
            self._rng = random.Random(seed)
        if options and "scenario" in options:
            raw = options["scenario"]
        elif self.boards is not None:
            raw = self._rng.choice(self.boards)
        else:
            raw = generate_board(self.level, self._rng.getrandbits(63), 0)
        scenario = load_scenario(raw)
        combat = self.combat = Combat(scenario)
        self.objectives = parse_objectives((options or {}).get("objective") or self.objective, scenario)
        self.reference = reference(scenario, self.objectives)

        self.count = count(combat)  # the same counting programme as Combat.unrank
        self._done = False
        return self._observation(), self._info()

    def step(self, action):
        if self._done:
            raise RuntimeError("the episode is over: call reset()")
        i = int(action)
        if not 0 <= i < self.count:
            raise ValueError(f"action {i} is not an assignment index (0 <= i < {self.count}); see action_masks()")
        if self.max_actions is not None and i >= self.max_actions:
            raise ValueError(f"action {i} is outside the action space of {self.max_actions}")
        assert self.combat is not None  # dealt by reset()
        assignment = Assignment(self.combat.unrank(i))
        scenario = self.combat.scenario
        values = score_all(self.combat, assignment, self.objectives)
        reg = regrets(self.objectives, values, self.reference["values"])
        primary = self.objectives[0]
        reward = self._reward(values[primary.name], self.reference["values"][primary.name], reg[primary.name])
        self._done = True
        info = self._info()
        info.update(
            assignment=assignment.to_json(),
            values=values,
            regret=reg,
            optimal=all(r == 0 for r in reg.values()),
            lethal=is_lethal(scenario, assignment),
        )
        return self._observation(), reward, True, False, info

    def action_masks(self):
        import numpy as np

        if self.combat is None:
            raise RuntimeError("call reset() first")
        size = self.max_actions if self.max_actions is not None else self.count
        if size > MASK_LIMIT:
            raise ValueError(f"{size} actions: too many for a mask; use info['action_count']")
        mask = np.zeros(size, dtype=bool)
        mask[: min(size, self.count)] = True
        return mask

    def render(self) -> str:
        if self.combat is None:
            return ""
        return self.combat.scenario.dumps()

    def close(self) -> None:
        self.combat = None

    # -- helpers ----------------------------------------------------------------------------------
    def _reward(self, value, best, regret) -> float:
        if self.reward_mode == "difference":
            return float(-regret)
        if value == best:
            return 1.0
        if self.objectives[0].maximize:
            return float(value) / float(best) if best else 0.0
        return float(best) / float(value) if value else 1.0

    def _observation(self) -> dict:
        assert self.combat is not None  # dealt by reset()
        return {
            "scenario": self.combat.scenario.to_json(),
            "objective": objective_text(self.objectives),
            "count": self.count,
        }

    def _info(self) -> dict:
        size = self.max_actions if self.max_actions is not None else self.count
        info = {
            "action_count": self.count,
            "optimum": dict(self.reference["values"]),
            "lethal_exists": self.reference["lethal_exists"],
        }
        if size <= MASK_LIMIT:
            info["action_mask"] = self.action_masks()
        return info
