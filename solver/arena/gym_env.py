"""A real Gymnasium environment: assign one combat damage step, decision by decision (``pip install 'trample[gym]'``).

>>> import gymnasium as gym, trample
>>> env = gym.make("trample/DamageAssignment-v0", level="tiny")
>>> obs, info = env.reset(seed=1)

The id is registered when ``trample`` and ``gymnasium`` have both been imported (in either order:
:mod:`trample.gym_registration`); ``gym.make("trample.arena.gym_env:trample/DamageAssignment-v0")`` works too.

An episode is one board of the attacking player (a generated board of ``level``, one of ``boards``, or
``options={"scenario": ...}``). Each step decides how much of one attacker's remaining damage goes to one of its
routes, in the damage plan's order (:mod:`trample.arena.sequential`): ``action_space = Discrete(max_amount + 1)``,
the action is the amount. ``action_masks()`` (and ``info["action_mask"]``) marks the amounts after which a legal
assignment can still be completed, so a masked agent only ever builds legal assignments, and every legal
assignment, the optimum included, is reachable whatever the board's number of assignments. Decisions with a
single allowed amount are taken for the agent. An unmasked action that is not allowed ends the episode with
``illegal_reward`` (and ``info["illegal"] = True``).

The default task is the ``shared`` level (blockers shared by several attackers: joint lethal, 510.1e) on
``max-value,max-damage``, where neither random play nor the smallest legal amount comes near the optimum
(docs/arena.md, "Training an agent").

Reward: 0 until the assignment is complete, then (``reward="difference"``) minus the lexicographic scalarisation of
the regrets against the proven optimum, ``-(r1 + w*r2 + w**2*r3 ...)`` with ``w = lexicographic_weight`` (0.1):
every level of the objective is rewarded, the primary most (0 is optimal); or (``reward="ratio"``) the primary's
value / optimum. The observation is the fixed-size vector of :mod:`trample.arena.encoding`, in ``[-1, 1]``.

``render_mode``: ``"ansi"`` (text) or ``"svg"`` (an SVG document); there is no ``"rgb_array"`` (no rasteriser is
a dependency), and asking for a mode the environment does not have raises TypeError, the error Gymnasium and
Stable-Baselines3's ``make_vec_env`` treat as "this environment does not take that render mode" (make_vec_env then
makes it without one).
"""

from __future__ import annotations

try:
    import gymnasium as gym
    import numpy as np
    from gymnasium import spaces
except ImportError as err:  # one line, naming the extra
    raise ImportError(f"the Gymnasium environment needs gymnasium (pip install 'trample[gym]'): {err}") from None

from collections.abc import Sequence

from .. import gym_registration
from ..models import Assignment, Scenario, Side, load_scenario
from ..rules import derive
from . import encoding
from .objectives import as_divided, is_lethal, objective_text, parse_objectives, regrets, score_all
from .sequential import StepWalk
from .suites import Level, generate_board, get_level, one_step

ENV_ID = gym_registration.ENV_ID
DEFAULT_MAX_AMOUNT = 20
DEFAULT_LEVEL = "shared"
DEFAULT_OBJECTIVE_GYM = "max-value,max-damage"
REFERENCE_CACHE = 4096  # optimum results kept in a process (a pool of boards is solved once)
_REFERENCES: dict = {}  # (scenario, objective text) -> metrics.reference, shared by the environments of a process


class DamageAssignmentEnv(gym.Env):
    """One damage step of the attacking player as a sequence of amount decisions (module docstring)."""

    metadata = {"render_modes": ["ansi", "svg"], "render_fps": 1}

    def __init__(
        self,
        level: str | Level = DEFAULT_LEVEL,
        objective: str = DEFAULT_OBJECTIVE_GYM,
        boards: Sequence[dict] | None = None,
        max_amount: int = DEFAULT_MAX_AMOUNT,
        reward: str = "difference",
        illegal_reward: float = -10.0,
        render_mode: str | None = None,
        lexicographic_weight: float = 0.1,
    ):
        if reward not in ("difference", "ratio"):
            raise ValueError(f"reward: expected 'difference' or 'ratio', got {reward!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            # TypeError: what make_vec_env (Stable-Baselines3) catches to make the environment without a mode
            raise TypeError(
                f"render_mode: expected one of {self.metadata['render_modes']} or None, got {render_mode!r}"
            )
        if not 0 <= lexicographic_weight < 1:
            raise ValueError(f"lexicographic_weight: expected 0 <= w < 1, got {lexicographic_weight!r}")
        self.lexicographic_weight = float(lexicographic_weight)
        self._references = _REFERENCES
        self.level = get_level(level) if isinstance(level, str) else level
        self.boards = None if boards is None else [b.get("scenario", b) if "attackers" not in b else b for b in boards]
        self.objective = objective
        self.max_amount = int(max_amount)
        self.reward_mode = reward
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        self.action_space = spaces.Discrete(self.max_amount + 1)
        self.observation_space = encoding.observation_space()
        self.scenario: Scenario | None = None
        self.walk: StepWalk | None = None
        self._result: dict | None = None

    # -- Gymnasium API ----------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Deal a new board (``options={"scenario": {...}, "objective": "..."}`` plays that board)."""
        from .metrics import reference

        super().reset(seed=seed)
        options = options or {}
        raw = encoding.choose_board(
            options, self.boards, lambda n: int(self.np_random.integers(n)), lambda s: generate_board(self.level, s, 0)
        )
        scenario = load_scenario(raw)
        one_step(scenario)
        encoding.check_fits(scenario)
        plan = derive(scenario, Side.ATTACKING)
        biggest = max((s.damage for s in plan.sources), default=0)
        if biggest > self.max_amount:
            raise ValueError(f"a source assigns {biggest} damage, more than max_amount={self.max_amount}")
        self.scenario = scenario
        self.objectives = parse_objectives(options.get("objective") or self.objective, scenario)
        key = (scenario, objective_text(self.objectives))
        if key not in self._references:
            if len(self._references) >= REFERENCE_CACHE:
                self._references.clear()
            self._references[key] = reference(scenario, self.objectives)
        self.reference = self._references[key]
        # the agent decides the attackers the attacking player divides (trample.rules.divider); an attacker blocked
        # by a creature with banding is the defending player's to divide (702.22j): the environment's reply
        self.walk = StepWalk.of_player(plan, Side.ATTACKING)
        self._result = None
        return self._observation(), self._info()

    def step(self, action):
        if self.walk is None or self._result is not None:
            raise RuntimeError("the episode is over: call reset()")
        amount = int(np.asarray(action).reshape(()))  # a Python int, a numpy integer or a 0-d array
        if self.walk.done:  # a board with nothing to decide: any action confirms the only assignment
            return self._finish()
        if amount not in self.walk.allowed():
            src, rec = self.walk.decoder.current(self.walk.state)
            self._result = {"illegal": True, "message": f"{src} cannot assign {amount} to {rec} here"}
            info = self._info()
            info.update(self._result)
            return self._observation(), self.illegal_reward, True, False, info
        self.walk.choose(amount)
        if self.walk.done:
            return self._finish()
        return self._observation(), 0.0, False, False, self._info()

    def action_masks(self):
        """The amounts allowed now (bool, ``max_amount + 1``): the MaskablePPO convention."""
        if self.walk is None:
            raise RuntimeError("call reset() first")
        mask = np.zeros(self.max_amount + 1, dtype=bool)
        if self._result is not None:
            return mask
        if self.walk.done:
            mask[0] = True  # nothing to decide: one confirming action
            return mask
        for a in self.walk.allowed():
            mask[a] = True
        return mask

    def render(self):
        if self.scenario is None or self.render_mode is None:
            return None
        partial = self.assignment()
        if self.render_mode == "svg":
            from ..render import board_svg

            return board_svg(self.scenario, partial)
        lines = [f"objective {objective_text(self.objectives)}"]
        for source, split in partial.items():
            if split:
                lines.append(f"{source} -> " + ", ".join(f"{r} {n}" for r, n in split.items()))
        if self.walk is not None and not self.walk.done:
            src, rec = self.walk.decoder.current(self.walk.state)
            lines.append(f"deciding: how much of {src}'s damage goes to {rec} ({self.walk.state[1]} left)")
        return "\n".join(lines)

    def close(self) -> None:
        self.walk = None

    # -- helpers ----------------------------------------------------------------------------------
    def assignment(self) -> Assignment:
        """The assignment built so far (the amounts decided)."""
        return self.walk.assignment() if self.walk is not None else Assignment({})

    def actions_for(self, assignment) -> list[int]:
        """The actions that build ``assignment`` from the start of this episode (forced decisions left out)."""
        if self.walk is None:
            raise RuntimeError("no episode: call reset()")
        return StepWalk.of_player(self.walk.decoder.plan, Side.ATTACKING).follow(Assignment(assignment)) or [0]

    def _finish(self):
        assert self.walk is not None and self.scenario is not None  # step() checked the episode is live
        # the defending player divides what banding gives them (702.22j): their reply to the agent's part, the
        # worst for the agent, as the optimum (Combat.solve) reads it
        assignment = as_divided(self.scenario, self.walk.assignment(), self.objectives)
        values = score_all(self.scenario, assignment, self.objectives)
        reg = regrets(self.objectives, values, self.reference["values"])
        primary = self.objectives[0]
        reward = self._reward(values[primary.name], self.reference["values"][primary.name], reg)
        self._result = {
            "illegal": False,
            "assignment": assignment.to_json(),
            "values": values,
            "regret": reg,
            "optimal": all(r == 0 for r in reg.values()),
            "lethal": is_lethal(self.scenario, assignment),
        }
        info = self._info()
        info.update(self._result)
        return self._observation(), reward, True, False, info

    def _reward(self, value, best, regret: dict) -> float:
        if self.reward_mode == "difference":  # the lexicographic scalarisation of every level's regret
            w = self.lexicographic_weight
            total = sum(float(regret[o.name]) * w**k for k, o in enumerate(self.objectives))
            return 0.0 - float(total)  # 0.0 for the optimum, not -0.0
        if value == best:
            return 1.0
        if self.objectives[0].maximize:
            return float(value) / float(best) if best else 0.0
        return float(best) / float(value) if value else 1.0

    def _observation(self):
        assert self.walk is not None and self.scenario is not None  # reset() set the episode up
        return encoding.encode_walk(self.scenario, self.walk, over=self._result is not None)

    def _info(self) -> dict:
        return {
            "action_mask": self.action_masks(),
            "optimum": dict(self.reference["values"]),
            "lethal_exists": self.reference["lethal_exists"],
        }


def register() -> None:
    """Register :data:`ENV_ID` with Gymnasium (done when this module is imported, and by ``import trample``)."""
    gym_registration.register()


register()
