"""Agents a user might write, named by ``py:user_agents:NAME`` in tests (tests/ is on sys.path under pytest, and
the tests that start processes put it on PYTHONPATH)."""

from __future__ import annotations

import numpy as np

from trample import Combat
from trample.arena import FunctionPlayer
from trample.arena.policy import PolicyPlayer


def _first_legal(scenario, objective, seed):
    return next(iter(Combat(scenario).legal_assignments))


#: a FunctionPlayer instance (was: "'FunctionPlayer' object is not callable" at every decision)
first_legal = FunctionPlayer("first", _first_legal)


def broken(scenario, objective, seed):
    raise RuntimeError("no model loaded")


def _largest(obs, mask):
    return int(np.flatnonzero(mask)[-1])


#: a "trained policy": observation and mask in, amount out (the largest legal amount, always)
largest = PolicyPlayer("largest", _largest)

not_a_player = 42


def _declare_first(board, objective, seed):
    """A declaration player (``trample arena --game attacks|blocks``): the first creature that can attack attacks
    the first listed player (no care for requirements or costs); blocks nothing. Wrapped as {"declaration": ...}."""
    from trample.declare.legality import can_ever_attack

    doc = board.doc
    if board.kind == "blockers":
        return {"declaration": {}}
    able = [a.id for a in doc.board.attackers if not can_ever_attack(doc, a.id)]
    return {"declaration": {able[0]: doc.board.players[0].id} if able else {}}


#: a declaration player as a FunctionPlayer
declare_first = FunctionPlayer("declare-first", _declare_first)
