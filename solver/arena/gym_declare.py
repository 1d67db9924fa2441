"""The three-decision combat for one agent: a Gymnasium environment of the attacking player (``pip install
'trample[gym]'``).

>>> from trample.arena.gym_declare import DeclareCombatEnv
>>> env = DeclareCombatEnv()
>>> obs, info = env.reset(seed=1)

The agent plays the attacking player of :mod:`trample.arena.declare_game`: it declares attackers creature by creature
(508.1) and their bands when a creature may band (702.22c), then assigns its damage in the damage steps; the defending
player answers with its best replies: the proven-best blocks against the attack (as ``trample declare solve`` and the
attack arena find them, 509.1c kept) and, in the damage steps, :meth:`trample.arena.combat_game.CombatGame.best_reply`.
Boards are declare-attackers documents: ``boards``, ``options={"scenario": ...}`` of ``reset``, or one generated from
the seed (:func:`trample.arena.attacks_arena.generate`).

- ``action_space``: ``Discrete(n)`` as in :mod:`trample.arena.pz_declare` (``0`` / ``1 + t`` in the attack phase,
  ``0`` / ``1 + i`` in the band phase, an amount in the damage steps); ``action_masks()`` and
  ``info["action_mask"]``: the legal actions, read from the rules
  (:meth:`trample.declare.DeclarationSpace.legal_options`, the bands' choices, the damage steps' masks). An
  unmasked action that is not legal ends the episode with ``illegal_reward`` (``info["illegal"] = True``);
- ``observation_space``: ``Box(OBS_SIZE)`` (:func:`trample.arena.declare_game.observation`);
- reward: 0 until the combat is over, then the attacker's value of the primary objective over the whole combat
  (negated for a ``min-`` objective); the final ``info`` has ``"line"`` (attacks, blocks, damage), ``"values"``,
  and ``"best"``, the value of the proven-best attack (``trample declare solve``), so ``best - reward`` is the
  episode's regret.
"""

from __future__ import annotations

try:
    import gymnasium as gym
    import numpy as np
    from gymnasium import spaces
except ImportError as err:  # one line, naming the extra
    raise ImportError(f"the Gymnasium environment needs gymnasium (pip install 'trample[gym]'): {err}") from None

from collections.abc import Sequence

from ..models.declare import Blocks
from . import encoding
from .attacks_arena import generate
from .combat_game import ATTACKER
from .declare_game import DEFAULT_MAX_CREATURES, DeclareGame, DeclareState, action_count, check_fits, observation

DEFAULT_MAX_AMOUNT = 20


class DeclareCombatEnv(gym.Env):
    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        objective: str = "max-damage",
        boards: Sequence[dict] | None = None,
        max_amount: int = DEFAULT_MAX_AMOUNT,
        max_creatures: int = DEFAULT_MAX_CREATURES,
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
    ):
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise TypeError(f"render_mode {render_mode!r}: this environment renders only 'ansi'")
        self.objective = objective
        self.boards = None if boards is None else [b["scenario"] if "scenario" in b else b for b in boards]
        self.max_amount = int(max_amount)
        self.max_creatures = int(max_creatures)
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        self.n_actions = action_count(self.max_amount, self.max_creatures)
        self.action_space = spaces.Discrete(self.n_actions)
        self.observation_space = encoding.observation_space()
        self.game: DeclareGame | None = None
        self.state: DeclareState | None = None
        self._replies: dict = {}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        options = options or {}
        raw = encoding.choose_board(options, self.boards, self._draw, lambda seed: generate(1, seed)[0]["scenario"])
        game = DeclareGame(raw, options.get("objective") or self.objective)
        check_fits(game, self.max_amount, self.max_creatures, self.n_actions)
        self.game, self._replies = game, {}
        self.state = self._defend(game.initial())
        return observation(self.state), self._info()

    def _draw(self, n: int) -> int:
        return int(self.np_random.integers(n))

    def step(self, action):
        assert self.state is not None and self.game is not None, "call reset() first"
        action = int(np.asarray(action).reshape(()))
        if action not in self.state.legal_actions():
            return observation(self.state), self.illegal_reward, True, False, {**self._info(), "illegal": True}
        self.state = self._defend(self.state.apply(action))
        if not self.state.terminal:
            return observation(self.state), 0.0, False, False, self._info()
        reward = float(self.state.returns()[ATTACKER])
        return observation(self.state), reward, True, False, self._info()

    def _defend(self, state: DeclareState) -> DeclareState:
        """The defending player's best replies until the agent is to move (or the game is over)."""
        while not state.terminal and state.player != ATTACKER:
            if state.damage is not None:
                state = state.apply(state.damage.game.best_reply(state.damage))
                continue
            assert state.attacks is not None
            blocks = self._best_blocks(state)
            chooser = state.chooser()
            state = state.apply(sum(1 << state.game.creatures.index(a) for a in blocks.blocking(chooser)))
        return state

    def _best_blocks(self, state: DeclareState) -> Blocks:
        from ..declare.solve import AttackJudge

        assert self.game is not None and state.attacks is not None
        if state.attacks not in self._replies:
            judge = self._replies.setdefault("judge", AttackJudge(self.game.doc, self.game.objective))
            self._replies[state.attacks] = judge.value(state.attacks)[1]
        return self._replies[state.attacks]

    def action_masks(self) -> np.ndarray:
        mask = np.zeros(self.n_actions, dtype=np.int8)
        if self.state is not None and not self.state.terminal:
            mask[self.state.legal_actions()] = 1
        return mask

    def _info(self) -> dict:
        info: dict = {"action_mask": self.action_masks()}
        s = self.state
        if s is not None and s.terminal:
            from ..declare.solve import solve_declaration

            assert self.game is not None and s.damage is not None
            combat = s.damage.game
            if "best" not in self._replies:
                best = solve_declaration(self.game.doc, self.game.objective).objectives
                self._replies["best"] = combat.utility({combat.primary.name: best[combat.primary.name]})
            info["line"] = s.line()
            info["values"] = {k: float(v) for k, v in s.values().items()}
            info["best"] = self._replies["best"]
        return info

    def render(self):
        if self.render_mode != "ansi" or self.state is None:
            return None
        s = self.state
        if s.terminal:
            return f"over: {s.line()} values {s.values()}"
        if s.damage is not None:
            src, rec = s.damage.current()
            return f"damage: how much of {src}'s damage goes to {rec}"
        return f"attack: {s.chooser()} declares (so far {s.partial().to_json()})"
