"""The three-decision combat as a two-player, zero-sum, perfect-information game (no optional dependency): the
attacking player declares attackers (508.1), the defending player declares blockers (509.1), then the damage steps
of :mod:`trample.arena.combat_game` (both players' assignments, first-strike step then regular step).

The board is a declare-attackers document (docs/declare.md). A declaration is made creature by creature, in the
document's order, as :class:`trample.declare.DeclarationSpace` lists it:

- **attack**: each of the active player's creatures in turn; action ``0`` does not attack, ``1 + t`` attacks the
  ``t``-th of the space's targets (players, planeswalkers, battles in document order);
- **band** (only when a creature may band, 702.22c, and two or more attack): each attacking creature in turn, in
  document order, chooses its band: action ``0`` is alone (or the first of a band others may join), ``1 + i`` joins
  the band whose first member is the ``i``-th creature of ``attackers``. The legal actions are those after which
  the attack's bands can still be completed into a choice 702.22c allows, all of one band attacking one player,
  planeswalker or battle (702.22d): :meth:`DeclarationSpace.band_choices`;
- **block**: each potential blocker in turn; the action is the set of the attacking player's creatures it blocks,
  as a bit mask over the document's creatures (bit ``i``: the ``i``-th creature of ``attackers``), ``0`` blocking
  nothing;
- **damage**: an amount, as in the combat game.

The legal actions are exactly the choices after which a legal declaration can still be completed
(:meth:`DeclarationSpace.legal_options`: every restriction, the 508.1d / 509.1c maximum of requirements, the
costs), read from the rules module; decisions with one legal action are taken automatically. So every legal
declaration is a play and every play is legal, bands included. The damage steps then divide as banding says
(702.22j/k, :mod:`trample.arena.combat_game`).

The outcome is the combat game's: the attacking player's value of the primary objective over the whole combat;
the game's minimax value is ``trample declare solve``'s best attack's (tests/arena/test_declare_game.py checks it
by a full game-tree search).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..declare import DeclarationSpace
from ..models import Side, Step
from ..models.declare import AttackersDoc, Attacks, Blocks, load_declare_doc
from . import encoding
from .combat_game import ATTACKER, DEFENDER, CombatGame, GameState

PHASES = ("attack", "band", "block", "damage")
DEFAULT_MAX_CREATURES = 4


def action_count(max_amount: int, max_creatures: int) -> int:
    """The fixed number of actions of an environment of this game (Gymnasium, PettingZoo): the largest damage
    amount, every block mask over ``max_creatures`` creatures, every target slot of the encoding."""
    return max(max_amount + 1, 2**max_creatures, 1 + encoding.DEFENDERS)


class DeclareGame:
    """The rules of the three-decision game for one declare-attackers document (shared by its states)."""

    def __init__(self, document, objective: str = "max-damage") -> None:
        doc = document if isinstance(document, AttackersDoc) else load_declare_doc(document)
        if not isinstance(doc, AttackersDoc):
            raise ValueError('the three-decision game starts from a "declare": "attackers" document')
        self.doc = doc
        self.objective = objective
        self.space = DeclarationSpace(doc)
        self.creatures = [a.id for a in doc.board.attackers]
        self.targets = list(self.space.targets)
        creatures = (*doc.board.attackers, *doc.board.blockers)
        self.max_amount = max([c.power for c in creatures] + [1])
        #: every action of every phase is below this: targets, block masks, damage amounts
        self.num_actions = max(1 + len(self.targets), 2 ** len(self.creatures), self.max_amount + 1)
        self._blocks: dict = {}
        self._combat: dict = {}
        self._bands: dict = {}

    def __deepcopy__(self, memo):  # the rules and their caches are shared by every copy of a state
        return self

    def blocks_space(self, attacks: Attacks) -> DeclarationSpace:
        got = self._blocks.get(attacks)
        if got is None:
            got = self._blocks[attacks] = DeclarationSpace(self.doc.blockers_doc(attacks))
        return got

    def combat(self, attacks: Attacks, blocks: Blocks) -> CombatGame:
        key = (attacks, blocks)
        got = self._combat.get(key)
        if got is None:
            scenario = self.blocks_space(attacks).doc.scenario(blocks)  # type: ignore[union-attr]
            got = self._combat[key] = CombatGame(scenario, self.objective)
        return got

    def band_plays(self, attacks: Attacks) -> list[tuple[tuple[int, ...], Attacks]]:
        """Every legal choice of bands for an attack (702.22c-d) as the band phase plays it: the actions of the
        attacking creatures in document order (``0`` alone or first of its band, ``1 + i`` joins the band of the
        ``i``-th creature), and the attack with those bands."""
        got = self._bands.get(attacks)
        if got is None:
            order = list(attacks.of)
            got = []
            for banded in self.space.band_choices(attacks):
                first = {c: band[0] for band in banded.bands for c in band}
                plays = tuple(0 if first.get(c, c) == c else 1 + self.creatures.index(first[c]) for c in order)
                got.append((plays, banded))
            self._bands[attacks] = got
        return got

    def band_actions(self, attacks: Attacks, prefix: tuple[int, ...]) -> list[int]:
        """The band phase's legal actions after ``prefix``: those some legal choice of bands continues with."""
        k = len(prefix)
        return sorted({plays[k] for plays, _ in self.band_plays(attacks) if plays[:k] == prefix})

    def action_of(self, space: DeclarationSpace, chooser: int, option: int) -> int:
        """The game's action for one option of one chooser."""
        picks = space.options[chooser][option].picks
        if not space.blocks:
            return 1 + picks[0] if picks else 0
        return sum(1 << self.creatures.index(space.attackers[i]) for i in picks)

    def initial(self) -> DeclareState:
        return DeclareState._enter(self, "attack", (), None, ())


@dataclass(frozen=True)
class DeclareState:
    """An immutable position: the phase, the options chosen so far in it, the attack declared (from the block
    phase on), and the damage game's state (in the damage phase)."""

    game: DeclareGame = field(repr=False, compare=False)
    phase: str
    prefix: tuple[int, ...]  # option indices chosen in the current declaration (band phase: the actions)
    attacks: Attacks | None  # the attack declared (band phase: without its bands yet)
    history: tuple = ()
    blocks: Blocks | None = None
    damage: GameState | None = None

    @staticmethod
    def _enter(game: DeclareGame, phase: str, prefix: tuple, attacks: Attacks | None, history: tuple) -> DeclareState:
        """The state where a player has a choice (forced options are taken on the way)."""
        while True:
            if phase == "band":
                assert attacks is not None
                if len(prefix) < len(attacks.of):
                    legal = game.band_actions(attacks, prefix)
                    if len(legal) != 1:
                        return DeclareState(game, phase, prefix, attacks, history)
                    prefix = (*prefix, legal[0])
                    continue
                attacks = next(a for plays, a in game.band_plays(attacks) if plays == prefix)
                phase, prefix = "block", ()
                continue
            space = game.space if phase == "attack" else game.blocks_space(attacks)  # type: ignore[arg-type]
            if len(prefix) < len(space.choosers):
                legal = space.legal_options(prefix)
                if len(legal) != 1:
                    return DeclareState(game, phase, prefix, attacks, history)
                prefix = (*prefix, legal[0])
                continue
            declared = space.declaration(prefix)
            if phase == "attack":
                assert isinstance(declared, Attacks)
                phase, prefix, attacks = ("band" if game.space.banding else "block"), (), declared
                continue
            assert isinstance(declared, Blocks) and attacks is not None
            damage = game.combat(attacks, declared).initial()
            return DeclareState(game, "damage", (), attacks, history, declared, damage)

    def __deepcopy__(self, memo):  # immutable
        return self

    @property
    def space(self) -> DeclarationSpace:
        if self.phase in ("attack", "band"):
            return self.game.space
        assert self.attacks is not None
        return self.game.blocks_space(self.attacks)

    @property
    def terminal(self) -> bool:
        return self.damage is not None and self.damage.terminal

    @property
    def player(self) -> int:
        """ATTACKER (0) or DEFENDER (1); -1 when the game is over."""
        if self.damage is not None:
            return self.damage.player
        return ATTACKER if self.phase in ("attack", "band") else DEFENDER

    def chooser(self) -> str:
        """The creature declaring now (a declaration phase)."""
        if self.phase == "band":
            assert self.attacks is not None
            return list(self.attacks.of)[len(self.prefix)]
        return self.space.choosers[len(self.prefix)]

    def legal_actions(self) -> list[int]:
        if self.damage is not None:
            return self.damage.legal_actions()
        if self.phase == "band":
            assert self.attacks is not None
            return self.game.band_actions(self.attacks, self.prefix)
        space, i = self.space, len(self.prefix)
        return sorted(self.game.action_of(space, i, k) for k in space.legal_options(self.prefix))

    def apply(self, action: int) -> DeclareState:
        action = int(action)
        history = (*self.history, action)
        if self.damage is not None:
            return DeclareState(self.game, "damage", (), self.attacks, history, self.blocks, self.damage.apply(action))
        if self.phase == "band":
            if action not in self.legal_actions():
                raise ValueError(f"{self.chooser()} cannot join band {action} here (legal: {self.legal_actions()})")
            return DeclareState._enter(self.game, "band", (*self.prefix, action), self.attacks, history)
        space, i = self.space, len(self.prefix)
        chosen = [k for k in space.legal_options(self.prefix) if self.game.action_of(space, i, k) == action]
        if not chosen:
            raise ValueError(f"{self.chooser()} cannot declare action {action} here (legal: {self.legal_actions()})")
        return DeclareState._enter(self.game, self.phase, (*self.prefix, chosen[0]), self.attacks, history)

    def partial(self) -> Attacks | Blocks:
        """The declaration of the current phase so far (the creatures still to choose: not acting; in the band
        phase, alone)."""
        if self.phase == "band":
            assert self.attacks is not None
            leader = {c: c for c in self.attacks.of}
            for c, play in zip(self.attacks.of, self.prefix):
                if play:
                    leader[c] = self.game.creatures[play - 1]
            groups: dict[str, list[str]] = {}
            for c, first in leader.items():
                groups.setdefault(first, []).append(c)
            return Attacks(self.attacks.of, tuple(tuple(g) for g in groups.values() if len(g) > 1))
        space = self.space
        return space.declaration((*self.prefix, *(0,) * (len(space.choosers) - len(self.prefix))))

    def returns(self) -> list[float]:
        """[attacker, defender] (zero-sum); zeros until the game is over."""
        if not self.terminal:
            return [0.0, 0.0]
        assert self.damage is not None
        return self.damage.returns()

    def values(self) -> dict:
        assert self.damage is not None and self.damage.terminal
        return self.damage.values()

    def line(self) -> dict:
        """A finished game: the attack, the blocks and the whole-combat line (docs/format.md)."""
        assert self.damage is not None and self.attacks is not None and self.blocks is not None
        return {"attacks": self.attacks.to_json(), "blocks": self.blocks.to_json(), **self.damage.line()}

    def board(self):
        """The board the current decision reads (a scenario): in the attack phase the active player's creatures
        with the attacks declared so far (``attacking`` empty for the others); in the block phase the attackers
        with the blocks so far (``blocked_by``) and every potential blocker; then the damage step's board."""
        if self.damage is not None:
            return self.damage.board if self.damage.board is not None else self.damage.game.scenario
        partial = self.partial()
        board = self.space.doc.board
        if isinstance(partial, Attacks):
            attackers = tuple(replace(a, attacking=partial.of.get(a.id, "")) for a in board.attackers)
            return replace(board, attackers=attackers)
        attackers = tuple(
            replace(a, blocked_by=partial.of.get(a.id, ()), blocked=bool(partial.of.get(a.id))) for a in board.attackers
        )
        return replace(board, attackers=attackers)


def check_fits(game: DeclareGame, max_amount: int, max_creatures: int, n_actions: int) -> None:
    """ValueError when a declare game does not fit an environment's actions and observations."""
    encoding.check_fits(game.doc.board)
    if len(game.creatures) > max_creatures:
        raise ValueError(f"the board has {len(game.creatures)} creatures to attack with, more than max_creatures")
    if game.max_amount > max_amount:
        raise ValueError(f"a creature has power {game.max_amount}, more than max_amount={max_amount}")
    if 1 + len(game.targets) > n_actions:
        raise ValueError(f"the board has {len(game.targets)} targets, more than the actions allow")


def observation(state: DeclareState):
    """The :mod:`trample.arena.encoding` vector of a position: during a declaration, the board with the
    declaration so far (:meth:`DeclareState.board`), the deciding creature as the source, no recipient, and the
    defending flag in the block phase; in the damage steps, as the combat game's environments encode them; at the
    end, the document's board alone."""
    d = state.damage
    if state.terminal:
        return encoding.encode(state.game.doc.board, {}, None, None, 0, False, False)
    if d is None:
        return encoding.encode(state.board(), {}, state.chooser(), None, 0, False, state.phase == "block")
    received: dict = {}
    for split in d.partial().values():
        for r, n in split.items():
            received[r] = received.get(r, 0) + n
    step, side = d.game.phases[d.phase]
    source, recipient = d.current()
    assert d.dec_state is not None  # not terminal
    return encoding.encode(
        d.board, received, source, recipient, d.dec_state[1], step == Step.FIRST_STRIKE, side == Side.DEFENDING
    )


def minimax(state: DeclareState) -> float:
    """The attacker's value of a position by full game-tree search (small boards: tests and checks)."""
    if state.terminal:
        return state.returns()[0]
    values = [minimax(state.apply(a)) for a in state.legal_actions()]
    return max(values) if state.player == ATTACKER else min(values)
