"""The whole combat for two agents: a PettingZoo AEC environment (``pip install 'trample[multiagent]'``).

>>> from trample.arena.pz_env import env
>>> e = env(level="first-strike")
>>> e.reset(seed=3)

``env(**kwargs)`` is :func:`raw_env` (the :class:`CombatAEC` itself) inside PettingZoo's usual wrappers (an
out-of-bounds action asserts, the order of calls is enforced), PettingZoo's convention. Agents ``"attacker_0"``
and ``"defender_0"`` (PettingZoo's ``<descriptor>_<number>`` names) play the game of
:mod:`trample.arena.combat_game`: the first-strike step
(the attacker's assignment, then the defender's), then the regular step on the state after the state-based actions
(attacker, then defender), as docs/combat.md describes. An agent keeps the turn for all the decisions of its
assignment (one per source and route: how much of the source's remaining damage goes there).

- ``action_space(agent)``: ``Discrete(max_amount + 1)`` (an amount of damage);
- ``observation_space(agent)``: ``Box(OBS_SIZE)``, a numpy float32 vector: :mod:`trample.arena.encoding` of the
  board of the current step and the decision being made (scaled, in ``[-1, 1]``);
- ``infos[agent]["action_mask"]`` (and :meth:`CombatAEC.action_mask`): the legal amounts, int8 of
  ``max_amount + 1`` (all zero for the agent not to move), PettingZoo's action-mask-in-info convention;
- the agents move in turn, so the game has no parallel form (``is_parallelizable`` is False);
- rewards: 0 until the combat is over, then the attacker gets its value of the primary objective (``max-damage``
  by default: the damage dealt over both steps) and the defender its opposite (zero-sum).
"""

from __future__ import annotations

try:
    import numpy as np
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils import agent_selector as _selector_module
except ImportError as err:
    raise ImportError(
        f"the PettingZoo environment needs pettingzoo (pip install 'trample[multiagent]'): {err}"
    ) from None

from collections.abc import Sequence

from ..models import Side, Step
from . import encoding
from .combat_game import CombatGame, GameState
from .suites import Level, generate_board, get_level

DEFAULT_MAX_AMOUNT = 20


AGENT_NAMES = ("attacker_0", "defender_0")  # the combat game's ATTACKER (0) and DEFENDER (1)


def raw_env(**kwargs) -> CombatAEC:
    """The environment without wrappers (PettingZoo's ``raw_env()`` convention)."""
    return CombatAEC(**kwargs)


def env(**kwargs):
    """The environment in PettingZoo's usual wrappers (PettingZoo's ``env()`` convention)."""
    return wrapped(raw_env(**kwargs))


def wrapped(raw: AECEnv):
    """An environment in PettingZoo's usual wrappers (out-of-bounds actions refused, the order enforced)."""
    from pettingzoo.utils import wrappers

    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(raw))


class CombatAEC(AECEnv):
    metadata = {"render_modes": ["ansi", "svg"], "name": "trample_combat_v0", "is_parallelizable": False}
    agent_selection: str  # set by reset(), as AECEnv declares it

    def __init__(
        self,
        level: str | Level = "first-strike",
        objective: str = "max-damage",
        boards: Sequence[dict] | None = None,
        max_amount: int = DEFAULT_MAX_AMOUNT,
        render_mode: str | None = None,
    ):
        super().__init__()
        self.level = get_level(level) if isinstance(level, str) else level
        self.boards = None if boards is None else [b.get("scenario", b) if "attackers" not in b else b for b in boards]
        self.objective = objective
        self.max_amount = int(max_amount)
        self.render_mode = render_mode
        self.possible_agents = list(AGENT_NAMES)
        self.n_actions = self.max_amount + 1
        self._action_spaces = {a: spaces.Discrete(self.n_actions) for a in self.possible_agents}
        self._observation_spaces = {a: encoding.observation_space() for a in self.possible_agents}
        self.state_: GameState | None = None
        self._rng = np.random.default_rng()

    def action_space(self, agent):
        return self._action_spaces[agent]

    def observation_space(self, agent):
        return self._observation_spaces[agent]

    # -- AEC API ------------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None):
        options = options or {}
        raw = self._board(seed, options)
        game = CombatGame(raw, options.get("objective") or self.objective)
        encoding.check_fits(game.scenario)
        if game.max_amount > self.max_amount:
            raise ValueError(f"a creature has power {game.max_amount}, more than max_amount={self.max_amount}")
        self._begin(game)

    def _board(self, seed: int | None, options: dict):
        """The board of a new game: ``options["scenario"]``, else one of ``boards``, else a generated one."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        return encoding.choose_board(options, self.boards, lambda n: int(self._rng.integers(n)), self._generated)

    def _generated(self, seed: int):
        return generate_board(self.level, seed, 0)

    def _begin(self, game) -> None:
        """A new game from its first position: every agent in, no reward yet, the first to move selected."""
        self.game = game
        self.state_ = game.initial()
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict] = {a: {} for a in self.agents}
        self._after_move()

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        assert self.state_ is not None  # an agent to step means reset() has run
        self.state_ = self.state_.apply(int(np.asarray(action).reshape(())))
        self._after_move()
        self._accumulate_rewards()

    def _after_move(self) -> None:
        s = self.state_
        assert s is not None  # called by reset() and step() once a game is set
        if s.terminal:
            ret = s.returns()
            self.rewards = {a: ret[i] for i, a in enumerate(self.possible_agents)}
            self.terminations = {a: True for a in self.agents}
            line = s.line()
            values = {k: float(v) for k, v in s.values().items()}
            self.infos = {a: {"line": line, "values": values, "action_mask": self.action_mask(a)} for a in self.agents}
            self.agent_selection = self.agents[0] if self.agent_selection is None else self.agent_selection
            return
        self.rewards = {a: 0.0 for a in self.agents}
        self.agent_selection = self.possible_agents[s.player]
        self.infos = {a: {"action_mask": self.action_mask(a)} for a in self.agents}

    def action_mask(self, agent) -> np.ndarray:
        """The legal actions of ``agent`` now (int8, ``n_actions``: in the damage steps the amounts, 0 to
        ``max_amount``; all zero when it is not to move)."""
        s = self.state_
        mask = np.zeros(self.n_actions, dtype=np.int8)
        if s is not None and not s.terminal and self.possible_agents[s.player] == agent:
            mask[s.legal_actions()] = 1
        return mask

    def observe(self, agent):
        s = self.state_
        if s is None:
            return np.zeros(encoding.OBS_SIZE, dtype=np.float32)
        if s.terminal:
            return self._encode(self.game.scenario, None)
        return self._encode(s.board, s)

    def _encode(self, board, s):
        received: dict = {}
        if s is None:
            return encoding.encode(board, received, None, None, 0, False, False)
        for split in s.partial().values():
            for r, n in split.items():
                received[r] = received.get(r, 0) + n
        source, recipient = s.current()
        step, side = s.game.phases[s.phase]  # the state's own game (the three-decision env's damage steps too)
        return encoding.encode(
            board, received, source, recipient, s.dec_state[1], step == Step.FIRST_STRIKE, side == Side.DEFENDING
        )

    def render(self):
        if self.render_mode is None or self.state_ is None:
            return None
        s = self.state_
        if self.render_mode == "svg":
            from ..render import board_svg, combat_svg

            if s.terminal:
                return combat_svg(self.game.whole, s.line())
            return board_svg(s.board, s.partial())
        if s.terminal:
            return f"over: {s.line()} values {s.values()}"
        step, side = self.game.phases[s.phase]
        src, rec = s.current()
        return f"{step} step, {self.possible_agents[s.player]} to move: how much of {src}'s damage goes to {rec}"

    def close(self):
        pass


_ = _selector_module  # imported to fail early on a PettingZoo without AEC utilities
