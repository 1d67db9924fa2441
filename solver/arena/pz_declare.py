"""The three-decision combat for two agents: a PettingZoo AEC environment (``pip install 'trample[multiagent]'``).

>>> from trample.arena.pz_declare import env
>>> e = env()
>>> e.reset(seed=3)

The game is :mod:`trample.arena.declare_game`'s: ``"attacker_0"`` declares attackers creature by creature (508.1) and,
when a creature may band, their bands (702.22c), ``"defender_0"`` declares blockers blocker by blocker (509.1), then
both play the damage steps as in :mod:`trample.arena.pz_env` (first-strike step, then the regular step; each agent's
assignment decision by decision). Boards are declare-attackers documents: ``boards`` (documents, or items ``{"scenario":
...}``), the ``options={"scenario": ...}`` of ``reset``, or else one generated from the reset's seed
(:func:`trample.arena.attacks_arena.generate`).

- ``action_space(agent)``: ``Discrete(n)``, ``n = max(max_amount + 1, 2 ** max_creatures, 1 + targets)``: in the
  attack phase ``0`` (does not attack) or ``1 + t`` (attacks the ``t``-th player, planeswalker or battle), in the
  block phase the bit mask of the attacking player's creatures blocked (bit ``i``: the document's ``i``-th), in
  the damage steps an amount;
- ``infos[agent]["action_mask"]`` (and :meth:`DeclareAEC.action_mask`): the legal actions, int8 of ``n``, read
  from the rules (:meth:`trample.declare.DeclarationSpace.legal_options`: restrictions, the 508.1d / 509.1c
  maximum, costs; the damage steps' masks as in ``pz_env``); all zero for the agent not to move;
- ``observation_space(agent)``: ``Box(OBS_SIZE)`` of :mod:`trample.arena.encoding`: the board the decision reads
  (:meth:`trample.arena.declare_game.DeclareState.board`: the attacks or blocks declared so far), the deciding
  creature as the source and no recipient during a declaration;
- rewards: 0 until the combat is over, then the attacker gets its value of the primary objective and the defender
  its opposite (zero-sum), read on the outcome as in ``pz_env``.
"""

from __future__ import annotations

try:
    import numpy as np
    from gymnasium import spaces
except ImportError as err:
    raise ImportError(
        f"the PettingZoo environment needs pettingzoo (pip install 'trample[multiagent]'): {err}"
    ) from None

from collections.abc import Sequence

from . import encoding
from .attacks_arena import generate
from .declare_game import DEFAULT_MAX_CREATURES, DeclareGame, DeclareState, action_count, check_fits, observation
from .pz_env import DEFAULT_MAX_AMOUNT, CombatAEC, wrapped


def raw_env(**kwargs) -> DeclareAEC:
    """The environment without wrappers (PettingZoo's ``raw_env()`` convention)."""
    return DeclareAEC(**kwargs)


def env(**kwargs):
    """The environment in PettingZoo's usual wrappers (PettingZoo's ``env()`` convention)."""
    return wrapped(raw_env(**kwargs))


class DeclareAEC(CombatAEC):
    metadata = {"render_modes": ["ansi"], "name": "trample_declare_combat_v0", "is_parallelizable": False}

    def __init__(
        self,
        objective: str = "max-damage",
        boards: Sequence[dict] | None = None,
        max_amount: int = DEFAULT_MAX_AMOUNT,
        max_creatures: int = DEFAULT_MAX_CREATURES,
        render_mode: str | None = None,
    ):
        super().__init__(objective=objective, max_amount=max_amount, render_mode=render_mode)
        self.boards = None if boards is None else [b["scenario"] if "scenario" in b else b for b in boards]
        self.max_creatures = int(max_creatures)
        self.n_actions = action_count(self.max_amount, self.max_creatures)
        self._action_spaces = {a: spaces.Discrete(self.n_actions) for a in self.possible_agents}
        self.state_: DeclareState | None = None  # type: ignore[assignment]

    def reset(self, seed: int | None = None, options: dict | None = None):
        options = options or {}
        raw = self._board(seed, options)
        game = DeclareGame(raw, options.get("objective") or self.objective)
        check_fits(game, self.max_amount, self.max_creatures, self.n_actions)
        self._begin(game)

    def _generated(self, seed: int):
        return generate(1, seed)[0]["scenario"]

    def observe(self, agent):
        s = self.state_
        if s is None:
            return np.zeros(encoding.OBS_SIZE, dtype=np.float32)
        return observation(s)

    def render(self):
        if self.render_mode is None or self.state_ is None:
            return None
        s = self.state_
        if s.terminal:
            return f"over: {s.line()} values {s.values()}"
        who = self.possible_agents[s.player]
        if s.damage is not None:
            src, rec = s.damage.current()
            return f"damage, {who} to move: how much of {src}'s damage goes to {rec}"
        return f"{s.phase} phase, {who} to move: {s.chooser()} declares (so far {s.partial().to_json()})"
