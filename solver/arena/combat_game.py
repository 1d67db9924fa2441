"""The whole combat as a two-player, zero-sum, perfect-information game (no optional dependency).

This is the game the PettingZoo environment (:mod:`trample.arena.pz_env`) and the OpenSpiel game
(:mod:`trample.arena.openspiel_game`) expose. The order of play is docs/combat.md's (510.1, 510.4): the attacking
player assigns the attackers' first-strike damage (A1), the defending player the blockers' (D1); the damage is
dealt and the state-based actions happen (:meth:`trample.whole.WholeCombat.state_after`); then the regular step,
A2 then D2. Without a first-strike step the game is A2 then D2 on the board as given.

Each step's two phases are its two players' (510.1c/d): the attacking player decides the damage of every source
they divide, then the defending player of every source they divide (:func:`trample.rules.divider`: a creature's
controller, except that banding moves the division to the other player, 702.22j/k, in both steps: the defending
player divides the damage of an attacker blocked by a creature with banding, the active player the damage of a
blocker blocking a creature with banding). The defending player decides knowing the attacking player's part, as
:func:`trample.whole.solve_whole` and ``Combat.solve`` read a step with a moved division.

Each assignment is made decision by decision, as in :mod:`trample.arena.sequential`: an action is how much of the
current source's remaining damage goes to its current route, ``0..max_amount``, and the legal actions are exactly
the amounts after which a legal assignment can still be completed (decisions with one legal amount are taken
automatically; a phase with nothing to decide is skipped). So every legal line of ``WholeCombat`` is a play of the
game and every play is a legal line.

The outcome is the attacking player's value of the primary objective over the whole combat, with the definitions of
:func:`trample.whole.solve_whole` (first step's value plus the regular step's; ``lethal`` on the regular step's
state); the attacker's return is that value (negated for ``min-overkill``), the defender's its opposite. The game's
minimax value is therefore ``WholeCombat.solve([objective])``'s value (tests/arena/test_combat_game.py checks it by a
full game-tree search).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from ..models import Assignment, Chooser, ObjectiveKind, Scenario, Side, Step, load_scenario
from ..outcome import exact as _exact
from ..outcome import has_effects
from ..rules import derive
from .sequential import StepDecoder

ATTACKER, DEFENDER = 0, 1
AGENTS = ("attacker", "defender")


class CombatGame:
    """The rules of the game for one board (shared by every state of it; caches decoders and states)."""

    def __init__(self, scenario, objective: str = "max-damage"):
        from ..optimize import parse_objectives
        from ..whole import WholeCombat

        if not isinstance(scenario, Scenario):
            scenario = load_scenario(scenario)
        self.whole = WholeCombat(scenario)
        self.scenario = self.whole.scenario
        self.objectives = parse_objectives(objective, self.scenario)
        self.primary = self.objectives[0]
        self.objective = ",".join(o.name for o in self.objectives)
        self.has_first_strike_step = self.whole.has_first_strike_step
        steps = ("first_strike", "regular") if self.has_first_strike_step else ("regular",)
        self.phases = tuple((step, side) for step in steps for side in (Side.ATTACKING, Side.DEFENDING))
        creatures = (*self.scenario.attackers, *self.scenario.blockers)
        self.max_amount = max([c.power for c in creatures] + [1])
        self._decoders: dict = {}
        self._regular: dict = {}

    def __deepcopy__(self, memo):  # the rules and their caches are shared by every copy of a state
        return self

    # -- the pieces ---------------------------------------------------------------------------------
    def board(self, phase: int, first_strike: Assignment | None) -> Scenario:
        step, _ = self.phases[phase]
        if step == Step.FIRST_STRIKE:
            return self.scenario.with_step(Step.FIRST_STRIKE)
        if not self.has_first_strike_step:
            return self.scenario.with_step(Step.REGULAR)
        key = first_strike
        if key not in self._regular:
            self._regular[key] = self.whole.state_after(first_strike)
        return self._regular[key]

    def decoder(self, board: Scenario) -> StepDecoder:
        """The decisions of one step, both sides' sources (``derive(board, "both")``): the sources the attacking
        player divides first, then the defending player's (:func:`trample.rules.divider`)."""
        dec = self._decoders.get(board)
        if dec is None:
            plan = derive(board, Side.BOTH)
            order = plan.chosen_by("attacking") + plan.chosen_by("defending")
            dec = self._decoders[board] = StepDecoder(plan, order)
        return dec

    def bounds(self, board: Scenario, side: str) -> tuple[int, int]:
        """The columns of ``side``'s phase in :meth:`decoder`'s order: ``(first, end)``."""
        dec = self.decoder(board)
        split = sum(1 for col in dec.columns if dec.plan.sources[col.source].chooser == Chooser.ACTIVE_PLAYER)
        return (0, split) if side == Side.ATTACKING else (split, len(dec.columns))

    def moved(self, board: Scenario) -> bool:
        """Does a rule give the other player some source's damage to divide on this board (banding)?"""
        return self.decoder(board).plan.moved

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
        regular = score(Combat(state, side=Side.ATTACKING), a2, self.objectives)
        # lethal: the players who lose after the line as played (the defender's regular-step damage included, a
        # lifelink blocker's gain with it, 510.2), read on the outcome; the other objectives count only the
        # attackers' damage dealt, which the defender's damage does not change
        lost = len(outcome_of(Combat(state, side=Side.ATTACKING), Assignment(line["regular"])).losers)
        out = {}
        for o in self.objectives:
            v = _exact(lost if o.kind == ObjectiveKind.LETHAL else regular[o.name])
            if self.has_first_strike_step and o.kind != ObjectiveKind.LETHAL:
                a1 = Assignment({k: v for k, v in line["first_strike"].items() if k in attackers})
                v += _exact(
                    score(Combat(self.scenario.with_step(Step.FIRST_STRIKE), side=Side.ATTACKING), a1, [o])[o.name]
                )
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
            memo[state] = Combat(state, side=Side.ATTACKING).solve([o.name for o in self.objectives])
        return memo[state]

    def best_reply(self, position: GameState) -> int:
        """The defending player's minimax action: in the first-strike step, the division of the damage they divide
        (their blockers', and with banding some attackers', 702.22j) after which the attacker's best regular step
        is worst for the attacker (the reply of :func:`trample.whole.solve_whole`); in the regular step, on a board
        with effects or a division moved by banding, the division that is worst for the attacker (a lifelink gain
        can save a player; a banded attacker's damage kept off the player); on other boards the defender's damage
        changes no objective, so the smallest legal amount."""
        from ..combat import Combat
        from ..optimize import score

        step, side = self.phases[position.phase]
        legal = position.legal_actions()
        if side != Side.DEFENDING:
            raise ValueError("best_reply is the defending player's move")
        if step != Step.FIRST_STRIKE:
            assert position.board is not None  # a step to play
            if has_effects(self.scenario) or self.moved(position.board):
                return self._regular_reply(position)
            return legal[0]
        a1 = position.done[0]
        cache = self.__dict__.setdefault("_replies", {})
        key = (a1, position.amounts)
        if key not in cache:
            first_board = self.scenario.with_step(Step.FIRST_STRIKE)
            attackers = [a.id for a in self.scenario.attackers]
            assert position.board is not None  # a step to play
            start, _ = self.bounds(position.board, Side.DEFENDING)
            first_values: dict = {}

            def first_value(line: dict) -> dict:
                """The attacking side's first-step values of a line (its attackers' damage, whoever divided it)."""
                part = Assignment({k: dict(line.get(k, {})) for k in attackers})
                if part not in first_values:
                    got = score(Combat(first_board), part, self.objectives)
                    first_values[part] = {o.name: _exact(got[o.name]) for o in self.objectives}
                return first_values[part]

            dec = position.decoder
            best: tuple[tuple[Fraction, ...], list[int]] | None = None

            def walk(state, amounts):
                nonlocal best
                if dec.done(state):
                    line = {**a1.to_json(), **dec.part(amounts, start).to_json()}
                    result = self.regular_best(self.whole.state_after(Assignment(line)))
                    fv = first_value(line)
                    total = tuple(
                        (1 if o.maximize else -1)
                        * (_exact(result.objectives[o.name]) + (fv[o.name] if o.kind != ObjectiveKind.LETHAL else 0))
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
        """The defender's regular-step action on a board with effects or a moved division: the division after
        which the line is worst for the attacker (a lifelink blocker's gain can save a player, 510.2; a banded
        attacker's damage, 702.22j); the first such reply in the decoder's order."""
        dec = position.decoder
        first = {k: dict(v) for a in position.done[:2] for k, v in a.items()} if self.has_first_strike_step else {}
        a2 = position.done[-1]
        assert position.board is not None  # a step to play
        start, _ = self.bounds(position.board, Side.DEFENDING)
        best: tuple[tuple[Fraction, ...], list[int]] | None = None

        def walk(state, amounts):
            nonlocal best
            if dec.done(state):
                regular = {**a2.to_json(), **dec.part(amounts, start).to_json()}
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
        """The attacking player's minimax action: the first-strike part of ``WholeCombat.solve``'s line, then the
        best regular step on the state the defender's reply left (``Combat.solve``: its assignment, and the blockers'
        damage the attacking player divides with banding, 702.22k, from its reply). Where that amount is not
        allowed (it can only be a blocker's damage that changes no objective on the board), the smallest allowed."""
        step, side = self.phases[position.phase]
        if side != Side.ATTACKING:
            raise ValueError("optimal_action is the attacking player's move")
        if step == Step.FIRST_STRIKE:
            if "_line" not in self.__dict__:
                self._line = self.whole.solve([o.name for o in self.objectives]).assignment
            target = self._line.first_strike
        else:
            assert position.board is not None  # a step to play: the game is not over
            best = self.regular_best(position.board)
            target = Assignment(
                {**(best.reply.to_json() if best.reply is not None else {}), **best.assignment.to_json()}
            )
        amount = position.decoder.amounts_of(target)[position.start + len(position.amounts)]
        legal = position.legal_actions()
        return amount if amount in legal else legal[0]

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
    def _enter(game: CombatGame, phase: int, done: tuple, history, board=None, state=None) -> GameState:
        """The state at the start of ``phase`` (phases with nothing to decide are completed on the way). The
        defending player's phase continues the step's decoder ``state`` on ``board`` where the attacking player's
        ended."""
        history = history or ()
        while phase < len(game.phases):
            side = game.phases[phase][1]
            if side == Side.ATTACKING or board is None or state is None:  # a new step: its board and decisions
                first = Assignment({k: v for a in done[:2] for k, v in a.items()}) if phase >= 2 else None
                board = game.board(phase, first)
                state = game.decoder(board).start()
            dec = game.decoder(board)
            start, end = game.bounds(board, side)
            amounts: list[int] = []
            while state[0] < end:
                allowed = dec.allowed(state)
                if len(allowed) != 1:
                    return GameState(game, phase, done, board, state, tuple(amounts), history)
                amounts.append(allowed[0])
                state = dec.apply(state, allowed[0])
            done = (*done, dec.part(amounts, start))
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
        return ATTACKER if self.game.phases[self.phase][1] == Side.ATTACKING else DEFENDER

    @property
    def decoder(self) -> StepDecoder:
        if self.board is None:
            raise ValueError("the game is over")
        return self.game.decoder(self.board)

    @property
    def start(self) -> int:
        """The decoder column this phase's decisions start at."""
        if self.board is None:
            raise ValueError("the game is over")
        return self.game.bounds(self.board, self.game.phases[self.phase][1])[0]

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
        assert self.board is not None  # not terminal
        start, end = self.game.bounds(self.board, self.game.phases[self.phase][1])
        while state[0] < end:
            allowed = dec.allowed(state)
            if len(allowed) != 1:
                return GameState(self.game, self.phase, self.done, self.board, state, tuple(amounts), history)
            amounts.append(allowed[0])
            state = dec.apply(state, allowed[0])
        done = (*self.done, dec.part(amounts, start))
        return GameState._enter(self.game, self.phase + 1, done, history, self.board, state)

    def partial(self) -> Assignment:
        """The assignment of the current phase so far."""
        return self.decoder.part(self.amounts, self.start) if not self.terminal else Assignment({})

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
