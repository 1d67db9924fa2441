"""The three-decision combat as an OpenSpiel game (``pip install 'trample[multiagent]'``: the ``open-spiel``
package).

>>> import pyspiel, trample.arena.openspiel_declare
>>> game = pyspiel.load_game("python_trample_declare_combat", {"board": open("examples/declare/attacks.json").read()})

The game is :mod:`trample.arena.declare_game`'s: player 0 is the attacking player (declares attackers, then assigns its
damage), player 1 the defending player (declares blockers, then assigns its creatures' damage); sequential,
deterministic, perfect information, zero-sum, terminal rewards (the attacker's value of the primary objective over the
whole combat, the defender's its opposite). Parameters: ``board`` (a declare-attackers document, as
:func:`trample.arena.openspiel_game.encode_board`'s base64 or as JSON text; default :data:`DEFAULT_BOARD`) and
``objective`` (default ``max-damage``), carried in the game string as in :mod:`trample.arena.openspiel_game`, so
``pyspiel.load_game(str(game))``, ``serialize_game_and_state`` and ``pickle`` round-trip. Actions: in the attack phase
``0`` (does not attack) or ``1 + t`` (the ``t``-th target), in the band phase (a creature that may band, 702.22c) ``0``
(alone, or first of a band) or ``1 + i`` (joins the band of the ``i``-th creature), in the block phase the bit mask of
the attackers blocked, in the damage steps an amount; ``legal_actions()`` are the rules'
(:meth:`trample.declare.DeclarationSpace.legal_options`, then the damage steps' masks).
"""

from __future__ import annotations

try:
    import pyspiel
except ImportError as err:
    raise ImportError(f"the OpenSpiel game needs open-spiel (pip install 'trample[multiagent]'): {err}") from None

import json

from .declare_game import DeclareGame, observation
from .openspiel_game import (
    PositionState,
    TrampleGame,
    VectorObserver,
    encode_board,
    encode_objective,
    game_type,
    utility_bound,
)

SHORT_NAME = "python_trample_declare_combat"

DEFAULT_BOARD = {
    "declare": "attackers",
    "players": [{"id": "opp", "life": 6}],
    "attackers": [
        {"id": "giant", "power": 4, "toughness": 4, "keywords": ["trample"]},
        {"id": "drake", "power": 2, "toughness": 1, "keywords": ["flying"]},
    ],
    "blockers": [
        {"id": "bear", "power": 2, "toughness": 2},
        {"id": "archer", "power": 1, "toughness": 2, "keywords": ["reach"]},
    ],
}

GAME_TYPE = game_type(SHORT_NAME, "trample: a Magic combat from the declaration of attackers (attack, block, damage)")


class TrampleDeclareGame(TrampleGame):
    GAME_TYPE = GAME_TYPE
    DEFAULT_BOARD = DEFAULT_BOARD

    def make_core(self, doc: dict, objective: str) -> DeclareGame:
        return DeclareGame(doc, objective)

    def bounds(self) -> tuple[float, int, int]:
        s = self.core.doc.board
        a, b = len(s.attackers), len(s.blockers)
        routes = a * (b + 2) + b * a  # every source's routes in one step
        return utility_bound(s), max(1, 2 * a + b + 2 * routes), self.core.num_actions  # attack, band, block, damage

    def new_initial_state(self):
        return TrampleDeclareState(self, self.core.initial())

    def make_py_observer(self, iig_obs_type=None, params=None):
        return DeclareObserver(self)


class TrampleDeclareState(PositionState):
    def _action_to_string(self, player, action):
        p = self.position
        if p.terminal:
            return str(action)
        if p.damage is not None:
            src, rec = p.damage.current()
            return f"{src}->{rec}:{action}"
        return f"{p.phase}:{p.chooser()}:{action}"

    def __str__(self):
        p = self.position
        if p.terminal:
            return json.dumps(p.line(), separators=(",", ":"))
        if p.damage is not None:
            step, side = p.damage.game.phases[p.damage.phase]
            src, rec = p.damage.current()
            return f"{step}/{side} {json.dumps(p.damage.partial().to_json(), separators=(',', ':'))} {src}->{rec}?"
        return f"{p.phase} {json.dumps(p.partial().to_json(), separators=(',', ':'))} {p.chooser()}?"


class DeclareObserver(VectorObserver):
    """Observations: the :mod:`trample.arena.encoding` vector of the board the decision reads (perfect
    information; :func:`trample.arena.declare_game.observation`)."""

    def set_from(self, state, player):
        self.tensor[:] = observation(state.position)


pyspiel.register_game(GAME_TYPE, TrampleDeclareGame)


def load(board, objective: str = "max-damage"):
    """The OpenSpiel game for one declare-attackers document (a dict or JSON text)."""
    return pyspiel.load_game(SHORT_NAME, {"board": encode_board(board), "objective": encode_objective(objective)})
