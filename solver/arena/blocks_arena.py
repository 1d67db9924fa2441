"""The blocks arena's players and boards (docs/arena.md, "Blocks"): defending players choose blocks, scored against
the proven-best blocks by :mod:`trample.arena.declare_arena`.

Each board is a declare-blockers document (docs/declare.md). A legal declaration is valued by the attacking
player's best answer to it: the whole combat solved on the scenario it turns into (both damage steps, every
effect trample models), the primary objective read. A player's **regret** is its value minus the proven-best
blocks' (:func:`trample.declare.solve.solve_declaration`), oriented so that 0 is the best block and more is what
the defender gave away (for a ``min-`` objective, the other way round).

Players built in (each a function of the document, its space, the objective and a seed); ``cmd:`` and ``py:``
players are played by the driver:

- ``optimal``: the proven-best blocks (regret 0: a check on the harness);
- ``no-blocks``: declares nothing;
- ``chump``: every creature that can block blocks the attacker with the greatest power it may block (the evasion
  rules read, menace, requirements and costs not: such a declaration may be illegal);
- ``survive``: "block when the blocker survives": each creature blocks the attacker with the greatest power among
  those whose damage it survives (power below its toughness, no deathtouch), else nothing;
- ``random``: a legal declaration drawn uniformly (``DeclarationSpace.sample``).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterator, Sequence

from ..declare import DeclarationSpace
from ..declare.legality import block_refusals, can_ever_block
from ..models import Keyword
from ..models.declare import AttackersDoc, BlockersDoc

BLOCK_PLAYERS = ("optimal", "no-blocks", "chump", "survive", "random")


def _power_order(doc: BlockersDoc) -> list[str]:
    return [a.id for a in sorted(doc.board.attackers, key=lambda a: -a.power)]


def _chump(doc: BlockersDoc, space: DeclarationSpace, objective: str, seed: int) -> dict:
    out: dict[str, list[str]] = {}
    for b in doc.board.blockers:
        if can_ever_block(doc, b.id):
            continue
        able = [a for a in _power_order(doc) if not block_refusals(doc, a, b.id)]
        if able:
            out.setdefault(able[0], []).append(b.id)
    return out


def _survive(doc: BlockersDoc, space: DeclarationSpace, objective: str, seed: int) -> dict:
    out: dict[str, list[str]] = {}
    for b in doc.board.blockers:
        if can_ever_block(doc, b.id):
            continue
        for a in _power_order(doc):
            attacker = doc.board.attacker(a)
            survives = attacker.power < b.toughness and not attacker.has(Keyword.DEATHTOUCH)
            if survives and not block_refusals(doc, a, b.id):
                out.setdefault(a, []).append(b.id)
                break
    return out


def optimal_declaration(doc: BlockersDoc | AttackersDoc, space: DeclarationSpace, objective: str, seed: int) -> dict:
    """The proven-best declaration (``declare solve``): the ``optimal`` player of the blocks and attacks arenas."""
    from ..declare.solve import solve_declaration

    result = solve_declaration(doc, objective)
    assert result.declaration is not None
    return result.declaration.to_json()


def random_declaration(doc: BlockersDoc | AttackersDoc, space: DeclarationSpace, objective: str, seed: int) -> dict:
    """A uniformly random legal declaration: the ``random`` player of the blocks and attacks arenas."""
    return space.sample(1, seed)[0].to_json()


PLAYERS: dict[str, Callable[[BlockersDoc, DeclarationSpace, str, int], dict]] = {
    "optimal": optimal_declaration,
    "no-blocks": lambda doc, space, objective, seed: {},
    "chump": _chump,
    "survive": _survive,
    "random": random_declaration,
}


KEYWORDS = ("flying", "menace", "trample", "deathtouch", "first_strike")
BLOCKER_KEYWORDS = ("reach", "flying", "first_strike", "deathtouch")


def random_creatures(
    rng: random.Random, count: int, prefix: str, power: tuple[int, int], keywords: Sequence[str], most: int, **fields
) -> list[dict]:
    """``count`` creatures ``prefix0``, ``prefix1``, ... of a generated declare board: power in ``power``,
    toughness 1 to 5, ``fields`` (``attacking``), then up to ``most`` of ``keywords``; drawn from ``rng`` in that
    order (the generated suites of the blocks and attacks arenas depend on it)."""
    out = []
    for i in range(count):
        creature = {"id": f"{prefix}{i}", "power": rng.randint(*power), "toughness": rng.randint(1, 5), **fields}
        creature["keywords"] = sorted(rng.sample(keywords, rng.randint(0, most)))
        out.append(creature)
    return out


def generate(n: int, seed: int = 0) -> list[dict]:
    """``n`` declare-blockers boards (2-3 attackers, 2-3 potential blockers, mixed keywords), reproducible."""
    return list(itertools.islice(boards(seed), n))


def boards(seed: int = 0) -> Iterator[dict]:
    """The boards of :func:`generate`, one after another, without end."""
    rng = random.Random(seed)
    for k in itertools.count():
        attackers = random_creatures(rng, rng.randint(2, 3), "a", (1, 5), KEYWORDS, 2, attacking="opp")
        blockers = random_creatures(rng, rng.randint(2, 3), "b", (0, 4), BLOCKER_KEYWORDS, 1)
        doc = {"declare": "blockers", "players": [{"id": "opp", "life": rng.randint(4, 12)}],
               "attackers": attackers, "blockers": blockers}  # fmt: skip
        yield {"id": f"blocks:{k}", "scenario": doc}
