"""The whole combat as an OpenSpiel game (``pip install 'trample[multiagent]'``: the ``open-spiel`` package).

>>> import pyspiel, trample.arena.openspiel_game
>>> game = pyspiel.load_game("python_trample_combat", {"board": open("examples/double_strike.json").read()})

The game is :mod:`trample.arena.combat_game`'s: player 0 is the attacking player, player 1 the defending player;
sequential, deterministic, perfect information, zero-sum, terminal rewards (the attacker's value of the primary
objective, the defender's its opposite). Parameters: ``board`` (a scenario as JSON text; default: the double
strike example of docs/combat.md) and ``objective`` (default ``max-damage``). In the game string the board
travels as unpadded URL-safe base64 of its JSON (:func:`encode_board`) and the objectives are joined by ``;``, so
``pyspiel.load_game(str(game))``, ``serialize_game_and_state`` and ``pickle`` round-trip (a JSON board's commas
would split OpenSpiel's parameters); JSON text is still accepted as the ``board`` parameter. Actions are amounts
of damage, ``0..max_amount`` (the largest power on the board); ``legal_actions()`` are the masks of the decision
encoding, so every play is a legal whole-combat line.

OpenSpiel's bots play it (:func:`make_bot`: ``"random"``, uniform over legal actions, and ``"mcts"``, UCT with
random rollouts), and :func:`play` runs one as the attacker against the defender's best reply
(:meth:`trample.arena.combat_game.CombatGame.best_reply`), which is how ``trample arena --game combat`` scores
its regret against the minimax value.
"""

from __future__ import annotations

try:
    import numpy as np
    import pyspiel
except ImportError as err:
    raise ImportError(f"the OpenSpiel game needs open-spiel (pip install 'trample[multiagent]'): {err}") from None

import base64
import binascii
import json
import re
from typing import Any

from ..models import Scenario, Side, Step
from . import encoding
from .combat_game import CombatGame

SHORT_NAME = "python_trample_combat"

DEFAULT_BOARD = {
    "step": "combat",
    "players": [{"id": "opp", "life": 20}],
    "attackers": [
        {"id": "knight", "power": 3, "toughness": 3, "keywords": ["double_strike", "trample"],
         "attacking": "opp", "blocked_by": ["bear", "fencer"]},
        {"id": "ogre", "power": 4, "toughness": 2, "keywords": ["trample"], "attacking": "opp",
         "blocked_by": ["fencer"]},
    ],
    "blockers": [
        {"id": "bear", "power": 2, "toughness": 2},
        {"id": "fencer", "power": 2, "toughness": 3, "keywords": ["first_strike"]},
    ],
}  # fmt: skip


def game_type(short_name: str, long_name: str):
    """The ``pyspiel.GameType`` of trample's games: two players, sequential, deterministic, perfect information,
    zero-sum, rewards at the end; parameters ``board`` and ``objective``."""
    return pyspiel.GameType(
        short_name=short_name,
        long_name=long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"board": "", "objective": "max-damage"},
    )


GAME_TYPE = game_type(SHORT_NAME, "trample: a whole Magic combat (first-strike and regular damage steps)")


def encode_board(board) -> str:
    """The ``board`` parameter for a scenario (a dict or JSON text): its compact JSON as unpadded URL-safe base64,
    so that the game string ``python_trample_combat(board=...,objective=...)`` holds no comma, bracket or ``=`` and
    ``pyspiel.load_game(str(game))``, ``serialize_game_and_state`` and pickling round-trip."""
    doc = json.loads(board) if isinstance(board, str) else board
    text = json.dumps(doc, separators=(",", ":"), sort_keys=True)
    return base64.urlsafe_b64encode(text.encode("utf-8")).decode("ascii").rstrip("=")


def encode_objective(objective: str) -> str:
    """The ``objective`` parameter: the lexicographic objectives joined by ``;`` (a comma would split OpenSpiel's
    parameters); an objective naming a target with other punctuation travels as ``b64:`` + base64."""
    names = [part.strip() for part in objective.split(",")]
    if all(re.fullmatch(r"[A-Za-z0-9_.:\-]+", n) for n in names):
        return ";".join(names)
    return "b64:" + base64.urlsafe_b64encode(objective.encode("utf-8")).decode("ascii").rstrip("=")


def decode_objective(param: str) -> str:
    """The objective text (comma-separated) of an ``objective`` parameter (:func:`encode_objective`)."""
    if param.startswith("b64:"):
        body = param[4:]
        return base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)).decode("utf-8")
    return param.replace(";", ",")


def decode_board(param: str) -> dict:
    """The scenario of a ``board`` parameter: :func:`encode_board`'s base64 text, or (for convenience, when calling
    ``pyspiel.load_game(SHORT_NAME, {"board": ...})`` directly) the JSON text itself."""
    text = param.strip()
    if not text.startswith("{"):
        try:
            text = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            raise ValueError(
                f"board: expected base64 of a scenario's JSON (encode_board) or JSON, got {param[:40]!r}"
            ) from None
    doc = json.loads(text)
    if not isinstance(doc, dict):
        raise ValueError("board: expected a scenario (a JSON object)")
    return doc


def utility_bound(s: Scenario) -> float:
    """A bound on |utility| of a game on this board: twice every creature's power, every value, one a player and
    a creature (OpenSpiel's GameInfo wants one)."""
    power = sum(max(0, c.power) for c in (*s.attackers, *s.blockers))
    values = sum(abs(float(b.value)) for b in s.blockers) + sum(abs(float(p.value)) for p in s.planeswalkers)
    return float(2 * power + values + len(s.players) + len(s.attackers) + len(s.blockers) + 1)


class TrampleGame(pyspiel.Game):
    """What trample's OpenSpiel games share: the parameters (``board``, ``objective``: the game string always
    carries the encoded form, whatever was given), the core game (``core``), GameInfo from the core's bounds,
    pickling as the game string. A game gives its GAME_TYPE, DEFAULT_BOARD, core, bounds, state and observer."""

    GAME_TYPE: Any
    DEFAULT_BOARD: dict

    def __init__(self, params=None):
        params = dict(params or {})
        raw = params.get("board") or self.DEFAULT_BOARD
        doc = decode_board(raw) if isinstance(raw, str) else raw
        board = encode_board(doc)
        self.core = self.make_core(doc, decode_objective(params.get("objective") or "max-damage"))
        utility, length, actions = self.bounds()
        info = pyspiel.GameInfo(
            num_distinct_actions=actions,
            max_chance_outcomes=0,
            num_players=2,
            min_utility=-utility,
            max_utility=utility,
            utility_sum=0.0,
            max_game_length=length,
        )
        super().__init__(self.GAME_TYPE, info, {"board": board, "objective": encode_objective(self.core.objective)})

    def make_core(self, doc: dict, objective: str) -> Any:
        """The game's core (its positions) for a board document and the objective text."""
        raise NotImplementedError

    def bounds(self) -> tuple[float, int, int]:
        """A bound on |utility|, on the number of decisions, and the number of distinct actions."""
        raise NotImplementedError

    def __reduce__(self):  # pickled as its game string (pyspiel's own pickling does not call __init__)
        return (pyspiel.load_game, (str(self),))


class TrampleCombatGame(TrampleGame):
    GAME_TYPE = GAME_TYPE
    DEFAULT_BOARD = DEFAULT_BOARD

    def make_core(self, doc: dict, objective: str) -> CombatGame:
        return CombatGame(doc, objective)

    def bounds(self) -> tuple[float, int, int]:
        s = self.core.scenario
        routes = sum(len(a.blocked_by) + 2 for a in s.attackers) + sum(len(s.blocking(b.id)) for b in s.blockers)
        return utility_bound(s), max(1, 2 * routes), self.core.max_amount + 1

    def new_initial_state(self):
        return TrampleCombatState(self, self.core.initial())

    def make_py_observer(self, iig_obs_type=None, params=None):
        return CombatObserver(self)


class PositionState(pyspiel.State):
    """What the OpenSpiel states of trample's games share (a ``pyspiel.State``): the game's
    ``core`` and the current ``position`` (an object with ``terminal``, ``player``, ``legal_actions()``,
    ``apply(action)`` and ``returns()``), pickled as the game string and the actions played."""

    def __init__(self, game, position=None):
        super().__init__(game)  # pyspiel.State's
        self.core = game.core
        self.position = position if position is not None else game.core.initial()

    def __reduce__(self):  # pickled as the game string and the actions played
        return (replay, (str(self.get_game()), list(self.history())))

    def current_player(self):
        if self.position.terminal:
            return pyspiel.PlayerId.TERMINAL
        return self.position.player

    def _legal_actions(self, player):
        return self.position.legal_actions()

    def _apply_action(self, action):
        self.position = self.position.apply(action)

    def is_terminal(self):
        return self.position.terminal

    def returns(self):
        return self.position.returns()


class TrampleCombatState(PositionState):
    def _action_to_string(self, player, action):
        if self.position.terminal:
            return str(action)
        src, rec = self.position.current()
        return f"{src}->{rec}:{action}"

    def __str__(self):
        p = self.position
        if p.terminal:
            return json.dumps(p.line(), separators=(",", ":"))
        step, side = self.core.phases[p.phase]
        return f"{step}/{side} {json.dumps(p.partial().to_json(), separators=(',', ':'))} " + "{}->{}?".format(
            *p.current()
        )


def replay(game_string: str, history: list):
    """The state reached by playing ``history`` in the game of ``game_string`` (unpickling a state)."""
    state = pyspiel.load_game(game_string).new_initial_state()
    for action in history:
        state.apply_action(action)
    return state


class VectorObserver:
    """An observer of a perfect-information game: one :mod:`trample.arena.encoding` vector (``set_from``, each
    game's own), and the state's text with the actions played as the string."""

    def __init__(self, game):
        self.tensor = np.zeros(encoding.OBS_SIZE, dtype=np.float32)
        self.dict = {"observation": self.tensor}

    def string_from(self, state, player):
        return str(state) + " " + " ".join(map(str, state.history()))


class CombatObserver(VectorObserver):
    """Observations: the :mod:`trample.arena.encoding` vector of the current step (perfect information)."""

    def set_from(self, state, player):
        p = state.position
        if p.terminal:
            self.tensor[:] = encoding.encode(p.game.scenario, {}, None, None, 0, False, False)
            return
        received: dict = {}
        for split in p.partial().values():
            for r, n in split.items():
                received[r] = received.get(r, 0) + n
        step, side = p.game.phases[p.phase]
        src, rec = p.current()
        self.tensor[:] = encoding.encode(
            p.board, received, src, rec, p.dec_state[1], step == Step.FIRST_STRIKE, side == Side.DEFENDING
        )


pyspiel.register_game(GAME_TYPE, TrampleCombatGame)


def load(board, objective: str = "max-damage"):
    """The OpenSpiel game for one board (a scenario dict or JSON text)."""
    return pyspiel.load_game(SHORT_NAME, {"board": encode_board(board), "objective": encode_objective(objective)})


BOTS = ("random", "mcts")


def make_bot(kind: str, game, player: int, seed: int, simulations: int = 200):
    """An OpenSpiel bot: ``"random"`` (uniform over legal actions) or ``"mcts"`` (UCT, random rollouts)."""
    if kind == "random":
        return pyspiel.make_uniform_random_bot(player, seed % (2**31))
    if kind == "mcts":
        from open_spiel.python.algorithms import mcts

        rng = np.random.RandomState(seed % (2**32))
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
        return mcts.MCTSBot(game, uct_c=2.0, max_simulations=simulations, evaluator=evaluator, random_state=rng)
    raise ValueError(f"unknown OpenSpiel bot {kind!r} (expected one of {', '.join(BOTS)})")


def play(game, attacker, defender=None):
    """Play one game to the end: ``attacker`` (an OpenSpiel bot) against ``defender`` (a bot, or None: the
    defender's best reply, :meth:`CombatGame.best_reply`). Returns the final state."""
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.current_player() == 0:
            action = attacker.step(state)
        elif defender is None:
            action = game.core.best_reply(state.position)
        else:
            action = defender.step(state)
        state.apply_action(action)
    return state
