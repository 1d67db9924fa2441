"""The attack arena's players and boards (docs/arena.md, "Attacks"): attacking players declare attackers, scored
against the proven-best attack by :mod:`trample.arena.declare_arena`.

Each board is a declare-attackers document (docs/declare.md). A legal attack is valued as ``trample declare
solve`` values one: the defender answers with its proven-best blocks (509.1c kept, the attacker's best damage
against each block), and the attacker assigns its best damage (the whole combat). The reference is
:func:`trample.declare.solve.solve_declaration`'s best attack (three levels, proven); a player's **regret** is
that value minus its own (0: a best attack; more: what the attacker left on the table against a perfect defender).

Players built in (each a function of the document, its space, the objective and a seed):

- ``optimal``: the proven-best attack (regret 0: a check on the harness);
- ``all``: every creature that can attack attacks the first listed player (requirements read by nothing, costs
  not read: such a declaration may be illegal);
- ``none``: declares nothing (illegal when a creature "attacks each combat if able" and can, 508.1d);
- ``survivors``: the creatures that survive any single block attack the first listed player: no potential blocker
  that may block it (the evasion rules read) deals it lethal damage alone (its power, twice with double strike,
  at least the creature's toughness, or any damage with deathtouch);
- ``random``: a legal attack drawn uniformly (``DeclarationSpace.sample``).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterator

from ..declare import DeclarationSpace
from ..declare.legality import block_refusals, can_ever_attack, can_ever_block
from ..models import Keyword
from ..models.declare import AttackersDoc, Attacks
from .blocks_arena import optimal_declaration, random_creatures, random_declaration

ATTACK_PLAYERS = ("optimal", "all", "none", "survivors", "random")


def _target(doc: AttackersDoc) -> str:
    return doc.board.players[0].id


def _all(doc: AttackersDoc, space: DeclarationSpace, objective: str, seed: int) -> dict:
    return {a.id: _target(doc) for a in doc.board.attackers if not can_ever_attack(doc, a.id)}


def survives_any_single_block(doc: AttackersDoc, creature: str) -> bool:
    """Would this creature, attacking the first listed player, survive the block of any one creature that may
    block it (702 evasion, 509.1a/b read; requirements and costs not)?"""
    blockers_doc = doc.blockers_doc(Attacks({creature: _target(doc)}))
    toughness = doc.board.attacker(creature).toughness
    for b in blockers_doc.board.blockers:
        if can_ever_block(blockers_doc, b.id) or block_refusals(blockers_doc, creature, b.id):
            continue
        damage = b.power * (2 if b.has(Keyword.DOUBLE_STRIKE) else 1)
        if damage >= toughness or (damage > 0 and b.has(Keyword.DEATHTOUCH)):
            return False
    return True


def _survivors(doc: AttackersDoc, space: DeclarationSpace, objective: str, seed: int) -> dict:
    return {
        a.id: _target(doc)
        for a in doc.board.attackers
        if not can_ever_attack(doc, a.id) and survives_any_single_block(doc, a.id)
    }


PLAYERS: dict[str, Callable[[AttackersDoc, DeclarationSpace, str, int], dict]] = {
    "optimal": optimal_declaration,
    "all": _all,
    "none": lambda doc, space, objective, seed: {},
    "survivors": _survivors,
    "random": random_declaration,
}

ATTACKER_KEYWORDS = ("flying", "menace", "trample", "deathtouch", "first_strike", "double_strike")
DEFENDER_KEYWORDS = ("reach", "flying", "first_strike", "deathtouch")


def generate(n: int, seed: int = 0) -> list[dict]:
    """``n`` declare-attackers boards (2-3 creatures of the active player, 1-3 potential blockers, mixed keywords,
    one in four with a planeswalker to attack too), reproducible."""
    return list(itertools.islice(boards(seed), n))


def boards(seed: int = 0) -> Iterator[dict]:
    """The boards of :func:`generate`, one after another, without end."""
    rng = random.Random(seed)
    for k in itertools.count():
        attackers = random_creatures(rng, rng.randint(2, 3), "a", (1, 5), ATTACKER_KEYWORDS, 2)
        blockers = random_creatures(rng, rng.randint(1, 3), "b", (0, 4), DEFENDER_KEYWORDS, 1)
        doc: dict = {"declare": "attackers", "active": "me", "players": [{"id": "opp", "life": rng.randint(3, 10)}],
                     "attackers": attackers, "blockers": blockers}  # fmt: skip
        if rng.random() < 0.25:
            doc["planeswalkers"] = [{"id": "pw", "controller": "opp", "loyalty": rng.randint(1, 4)}]
        yield {"id": f"attacks:{k}", "scenario": doc}
