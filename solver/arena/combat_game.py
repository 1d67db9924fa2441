"""The whole combat as a two-player, zero-sum, perfect-information game (no optional dependency).

This is the game the PettingZoo environment (:mod:`trample.arena.pz_env`) and the OpenSpiel game
(:mod:`trample.arena.openspiel_game`) expose. The order of play is docs/combat.md's (510.1, 510.4): the attacking
player assigns the attackers' first-strike damage (A1), the defending player the blockers' (D1); the damage is
dealt and the state-based actions happen (:meth:`trample.whole.WholeCombat.state_after`); then the regular step,
A2 then D2. Without a first-strike step the game is A2 then D2 on the board as given.

Each assignment is made decision by decision, as in :mod:`trample.arena.sequential`: an action is how much of the
current source's remaining damage goes to its current route, ``0..max_amount``, and the legal actions are exactly
the amounts after which a legal assignment can still be completed (decisions with one legal amount are taken
automatically; a phase with nothing to decide is skipped). So every legal line of ``WholeCombat`` is a play of the
game and every play is a legal line.

The outcome is the attacking player's value of the primary objective over the whole combat, with the definitions of
:func:`trample.whole.solve_whole` (first step's value plus the regular step's; ``lethal`` on the regular step's
state); the attacker's return is that value (negated for ``min-overkill``), the defender's its opposite. The game's
minimax value is therefore ``WholeCombat.solve([objective])``'s value (tests/test_combat_game.py checks it by a
full game-tree search).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from ..models import Assignment, FormatError, Scenario, load_scenario
from ..outcome import exact as _exact
from ..outcome import has_effects
from ..rules import derive, divider
from .sequential import StepDecoder

ATTACKER, DEFENDER = 0, 1
AGENTS = ("attacker", "defender")


def check_divisions(scenario: Scenario) -> None:
    """Refuse a board on which a rule gives some creature's damage to the other player to divide
    (:func:`trample.rules.divider`: banding, 702.22j/k): :class:`~trample.models.FormatError` (a ValueError, one
    line naming the creature). The games hand each decision to the player whose creature it is, in the damage
    plan's order, so they do not model that division yet, and refuse the board rather than let the wrong player
    choose."""
    for group, side in (("attackers", "attacking"), ("blockers", "defending")):
        for i, c in enumerate(getattr(scenario, group)):
            player, rule = divider(scenario, c.id)
            if player != side:
                raise FormatError(
                    f"{group}[{i}]",
                    f"the {player} player divides {c.id}'s damage ({rule}, banding); "
                    "the games do not model a division moved to the other player",
                )


class CombatGame:
    """The rules of the game for one board (shared by every state of it; caches decoders and states)."""

    def __init__(self, scenario, objective: str = "max-damage"):
        from ..optimize import parse_objectives
        from ..whole import WholeCombat

        if not isinstance(scenario, Scenario):
            scenario = load_scenario(scenario)
        check_divisions(scenario)
        self.whole = WholeCombat(scenario)
        self.scenario = self.whole.scenario
        self.objectives = parse_objectives(objective, self.scenario)
        self.primary = self.objectives[0]
        self.objective = ",".join(o.name for o in self.objectives)
        self.has_first_strike_step = self.whole.has_first_strike_step
        steps = ("first_strike", "regular") if self.has_first_strike_step else ("regular",)
        self.phases = tuple((step, side) for step in steps for side in ("attacking", "defending"))
        creatures = (*self.scenario.attackers, *self.scenario.blockers)
        self.max_amount = max([c.power for c in creatures] + [1])
        self._decoders: dict = {}
        self._regular: dict = {}

    def __deepcopy__(self, memo):  # the rules and their caches are shared by every copy of a state
        return self

    # -- the pieces ---------------------------------------------------------------------------------
    def board(self, phase: int, first_strike: Assignment | None) -> Scenario:
        step, _ = self.phases[phase]
        if step == "first_strike":
            return self.scenario.with_step("first_strike")
        if not self.has_first_strike_step:
            return self.scenario.with_step("regular")
        key = first_strike
        if key not in self._regular:
            self._regular[key] = self.whole.state_after(first_strike)
        return self._regular[key]

    def decoder(self, board: Scenario, side: str) -> StepDecoder:
        key = (board, side)
        dec = self._decoders.get(key)
        if dec is None:
            dec = self._decoders[key] = StepDecoder(derive(board, side))
        return dec

    def initial(self) -> GameState:
        return GameState._enter(self, 0, (), None)

    # -- the outcome ---------------------------------------------------------------------------------
    def values(self, line: dict) -> dict:
        """The attacking player's objective values of a complete line (exact numbers)."""
        from ..combat import Combat
        from ..optimize import outcome_of, score

        first = Assignment(line["first_strike"])
        state = self.whole.state_after(first)
        attackers = {a.id for a in self.scenario.attackers}
        a2 = Assignment({k: v for k, v in line["regular"].items() if k in attackers})
        regular = score(Combat(state, side="attacking"), a2, self.objectives)
        # lethal: the players who lose after the line as played (the defender's regular-step damage included, a
        # lifelink blocker's gain with it, 510.2), read on the outcome; the other objectives count only the
        # attackers' damage dealt, which the defender's damage does not change
        lost = len(outcome_of(Combat(state, side="attacking"), Assignment(line["regular"])).losers)
        out = {}
        for o in self.objectives:
            v = _exact(lost if o.kind == "lethal" else regular[o.name])
            if self.has_first_strike_step and o.kind != "lethal":
                a1 = Assignment({k: v for k, v in line["first_strike"].items() if k in attackers})
                v += _exact(score(Combat(self.scenario.with_step("first_strike"), side="attacking"), a1, [o])[o.name])
            out[o.name] = v
        return out

    def utility(self, values: dict) -> float:
        """The attacker's return: the primary objective's value, negated when it is minimised."""
        v = float(values[self.primary.name])
        return v if self.primary.maximize else -v

    # -- reference players ------------------------------------------------------------------------------
    def regular_best(self, state: Scenario):
        """The attacker's best regular step on ``state`` (``Combat.solve`` on the objectives), memoised."""
        from ..combat import Combat

        memo = self.__dict__.setdefault("_best", {})
        if state not in memo:
            memo[state] = Combat(state, side="attacking").solve([o.name for o in self.objectives])
        return memo[state]

    def best_reply(self, position: GameState) -> int:
        """The defending player's minimax action: in the first-strike step, the blockers' assignment after which
        the attacker's best regular step is worst for the attacker (the reply of :func:`trample.whole.solve_whole`);
        in the regular step, on a board with effects, the blockers' damage that is worst for the attacker (a
        lifelink gain can save a player); on other boards the defender's damage changes no objective, so the
        smallest legal amount."""
        from ..combat import Combat
        from ..optimize import score

        step, side = self.phases[position.phase]
        legal = position.legal_actions()
        if side != "defending":
            raise ValueError("best_reply is the defending player's move")
        if step != "first_strike":
            return self._regular_reply(position) if has_effects(self.scenario) else legal[0]
        a1 = position.done[0]
        cache = self.__dict__.setdefault("_replies", {})
        key = (a1, position.amounts)
        if key not in cache:
            first_board = self.scenario.with_step("first_strike")
            attackers = {a.id for a in self.scenario.attackers}
            a1_only = Assignment({k: v for k, v in a1.items() if k in attackers})
            first_value = {
                o.name: _exact(v)
                for o, v in zip(self.objectives, score(Combat(first_board), a1_only, self.objectives).values())
            }
            dec = position.decoder
            best: tuple[tuple[Fraction, ...], list[int]] | None = None

            def walk(state, amounts):
                nonlocal best
                if dec.done(state):
                    d1 = dec.assignment(amounts)
                    result = self.regular_best(self.whole.state_after(Assignment({**a1.to_json(), **d1.to_json()})))
                    total = tuple(
                        (1 if o.maximize else -1)
                        * (_exact(result.objectives[o.name]) + (first_value[o.name] if o.kind != "lethal" else 0))
                        for o in self.objectives
                    )
                    if best is None or total < best[0]:
                        best = (total, amounts)
                    return
                for a in dec.allowed(state):
                    walk(dec.apply(state, a), [*amounts, a])

            walk(position.dec_state, list(position.amounts))
            assert best is not None  # the walk always reaches at least one finished assignment
            chosen = best[1]
            for k in range(len(position.amounts), len(chosen) + 1):  # every later prefix follows the same reply
                cache[(a1, tuple(chosen[:k]))] = chosen
        chosen = cache[key]
        return chosen[len(position.amounts)]

    def _regular_reply(self, position: GameState) -> int:
        """The defender's regular-step action on a board with effects: the blockers' damage after which the line
        is worst for the attacker (a lifelink blocker's gain can save a player, 510.2); the first such reply in
        the decoder's order."""
        dec = position.decoder
        first = {k: dict(v) for a in position.done[:2] for k, v in a.items()} if self.has_first_strike_step else {}
        a2 = position.done[-1]
        best: tuple[tuple[Fraction, ...], list[int]] | None = None

        def walk(state, amounts):
            nonlocal best
            if dec.done(state):
                regular = {**a2.to_json(), **dec.assignment(amounts).to_json()}
                values = self.values({"first_strike": first, "regular": regular})
                key = tuple((1 if o.maximize else -1) * values[o.name] for o in self.objectives)
                if best is None or key < best[0]:
                    best = (key, amounts)
                return
            for a in dec.allowed(state):
                walk(dec.apply(state, a), [*amounts, a])

        walk(position.dec_state, list(position.amounts))
        assert best is not None  # the walk always reaches at least one finished assignment
        return best[1][len(position.amounts)]

    def optimal_action(self, position: GameState) -> int:
        """The attacking player's minimax action: the first-strike assignment of ``WholeCombat.solve``, then the
        best regular step on the state the defender's reply left (``Combat.solve``)."""
        step, side = self.phases[position.phase]
        if side != "attacking":
            raise ValueError("optimal_action is the attacking player's move")
        if step == "first_strike":
            if "_line" not in self.__dict__:
                self._line = self.whole.solve([o.name for o in self.objectives]).assignment
            target = self._line.first_strike
        else:
            assert position.board is not None  # a step to play: the game is not over
            target = self.regular_best(position.board).assignment
        return position.decoder.amounts_of(target)[len(position.amounts)]

    def minimax(self) -> float:
        """The game's value for the attacker (``WholeCombat.solve`` on the primary objective)."""
        result = self.whole.solve([self.primary.name])
        return self.utility({self.primary.name: _exact(result.objectives[self.primary.name])})


@dataclass(frozen=True)
class GameState:
    """An immutable position: the phase, the decisions made in it, and the finished phases' assignments."""

    game: CombatGame = field(repr=False, compare=False)
    phase: int  # index into game.phases; len(game.phases) when the game is over
    done: tuple  # the finished phases' assignments (Assignment each)
    board: Scenario | None = field(repr=False)
    dec_state: tuple | None = None
    amounts: tuple = ()
    history: tuple = ()  # every action taken by a player (forced decisions are not actions)

    @staticmethod
    def _enter(game: CombatGame, phase: int, done: tuple, history) -> GameState:
        """The state at the start of ``phase`` (phases with nothing to decide are completed on the way)."""
        history = history or ()
        while phase < len(game.phases):
            first = Assignment({k: v for a in done[:2] for k, v in a.items()}) if phase >= 2 else None
            board = game.board(phase, first)
            dec = game.decoder(board, game.phases[phase][1])
            state = dec.start()
            amounts: list[int] = []
            while not dec.done(state):
                allowed = dec.allowed(state)
                if len(allowed) != 1:
                    return GameState(game, phase, done, board, state, tuple(amounts), history)
                amounts.append(allowed[0])
                state = dec.apply(state, allowed[0])
            done = (*done, dec.assignment(amounts))
            phase += 1
        return GameState(game, phase, done, None, None, (), history)

    def __deepcopy__(self, memo):  # immutable
        return self

    # -- queries ------------------------------------------------------------------------------------
    @property
    def terminal(self) -> bool:
        return self.phase >= len(self.game.phases)

    @property
    def player(self) -> int:
        """ATTACKER (0) or DEFENDER (1); -1 when the game is over."""
        if self.terminal:
            return -1
        return ATTACKER if self.game.phases[self.phase][1] == "attacking" else DEFENDER

    @property
    def decoder(self) -> StepDecoder:
        if self.board is None:
            raise ValueError("the game is over")
        return self.game.decoder(self.board, self.game.phases[self.phase][1])

    @property
    def _step_state(self) -> tuple:
        """The decoder state of the step to play (a finished game has none)."""
        if self.dec_state is None:
            raise ValueError("the game is over")
        return self.dec_state

    def legal_actions(self) -> list[int]:
        return [] if self.terminal else self.decoder.allowed(self._step_state)

    def current(self) -> tuple[str, str]:
        """(source, recipient) of the decision to make."""
        return self.decoder.current(self._step_state)

    def apply(self, action: int) -> GameState:
        if self.terminal:
            raise ValueError("the game is over")
        action = int(action)
        dec = self.decoder
        if action not in dec.allowed(self._step_state):
            src, rec = dec.current(self._step_state)
            raise ValueError(f"{src} cannot assign {action} to {rec} here (legal: {dec.allowed(self._step_state)})")
        state = dec.apply(self._step_state, action)
        amounts = [*self.amounts, action]
        history = (*self.history, action)
        while not dec.done(state):
            allowed = dec.allowed(state)
            if len(allowed) != 1:
                return GameState(self.game, self.phase, self.done, self.board, state, tuple(amounts), history)
            amounts.append(allowed[0])
            state = dec.apply(state, allowed[0])
        done = (*self.done, dec.assignment(amounts))
        return GameState._enter(self.game, self.phase + 1, done, history)

    def partial(self) -> Assignment:
        """The assignment of the current phase so far."""
        return self.decoder.assignment(self.amounts) if not self.terminal else Assignment({})

    def line(self) -> dict:
        """The whole-combat line (docs/format.md ``{"first_strike": ..., "regular": ...}``) of a finished game."""
        if not self.terminal:
            raise ValueError("the game is not over")
        sources = [c.id for c in (*self.game.scenario.attackers, *self.game.scenario.blockers)]

        def merged(parts):
            out: dict[str, dict] = {s: {} for s in sources}
            for part in parts:
                for k, v in part.items():
                    out[k] = dict(v)
            return out

        if self.game.has_first_strike_step:
            return {"first_strike": merged(self.done[:2]), "regular": merged(self.done[2:])}
        return {"first_strike": merged(()), "regular": merged(self.done)}

    def values(self) -> dict:
        return self.game.values(self.line())

    def returns(self) -> list[float]:
        """[attacker, defender] (zero-sum); zeros until the game is over."""
        if not self.terminal:
            return [0.0, 0.0]
        u = self.game.utility(self.values())
        return [u, -u]
