"""A learned policy as an arena player: :class:`PolicyPlayer` (numpy only; no gymnasium, no torch).

A policy trained on ``trample/DamageAssignment-v0`` maps the environment's observation (and its action mask) to
an amount. :class:`PolicyPlayer` plays a board the way the environment does, decision by decision on the damage
plan (:class:`trample.arena.sequential.StepWalk`) with the same observation vector
(:func:`trample.arena.encoding.encode_walk`), so the policy sees exactly what it saw in training; the assignment
it builds is then judged like any player's. In the whole-combat arena it plays each of the attacker's steps.

>>> from trample.arena.policy import PolicyPlayer
>>> largest = PolicyPlayer("largest", lambda obs, mask: mask.nonzero()[0][-1])

A Stable-Baselines3 model: ``PolicyPlayer("ppo", lambda obs, mask: model.predict(obs, action_masks=mask,
deterministic=True)[0])`` (``examples/train_ppo.py``). Put it in a module and name it ``py:module:attr`` on the
command line (``trample arena --players py:my_agents:ppo``; with ``--workers`` or Dask the module is imported in
each worker).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..models import Side
from ..rules import derive
from . import encoding
from .objectives import as_divided, parse_objectives
from .player import Player
from .sequential import StepWalk


class PolicyPlayer(Player):
    """``policy(observation, mask) -> amount``: ``observation`` is the float32 vector of
    :mod:`trample.arena.encoding`, ``mask`` a bool array of ``max_amount + 1`` (the legal amounts). An amount
    that is not legal raises ValueError (the decision is scored as the player's error)."""

    def __init__(self, name: str, policy: Callable, max_amount: int = 20):
        self.name = name
        self.policy = policy
        self.max_amount = int(max_amount)

    def decide(self, scenario, objective, seed):
        encoding.check_fits(scenario)
        walk = StepWalk.of_player(
            derive(scenario, Side.ATTACKING), Side.ATTACKING
        )  # the attackers it divides (702.22j)
        while not walk.done:
            allowed = walk.allowed()
            mask = np.zeros(self.max_amount + 1, dtype=bool)
            mask[[a for a in allowed if a <= self.max_amount]] = True
            amount = int(np.asarray(self.policy(encoding.encode_walk(scenario, walk), mask)).reshape(()))
            if amount not in allowed:
                src, rec = walk.decoder.current(walk.state)
                raise ValueError(f"the policy chose {amount} for {src} -> {rec}; the legal amounts are {allowed}")
            walk.choose(amount)
        # an attacker blocked by a creature with banding: the defending player's division (702.22j)
        return as_divided(scenario, walk.assignment(), parse_objectives(objective, scenario)).to_json()
