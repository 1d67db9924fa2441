"""The arena for block declarations (docs/arena.md, "Blocks"): defending players choose blocks, scored against
the proven-best blocks.

Each board is a declare-blockers document (docs/declare.md). A player declares blocks for the defending players;
the declaration is checked (:func:`trample.declare.check_declaration`: every rule of 509.1 and 702 cited, 509.1c's
maximum of requirements, the costs to block), and a legal one is valued by the attacking player's best answer to
it: the whole combat solved on the scenario it turns into (both damage steps, every effect trample models), the
primary objective read. The reference is :func:`trample.declare.solve.solve_declaration`'s value, the least the
attacker can get against any legal blocks (proven). A player's **regret** is its value minus that, oriented so
that 0 is the best block and more is what the defender gave away (for a ``min-`` objective, the other way round).

Players (built in; each is a function of the document, the objective and a seed):

- ``optimal``: the proven-best blocks (regret 0: a check on the harness);
- ``no-blocks``: declares nothing;
- ``chump``: every creature that can block blocks the attacker with the greatest power it may block (the evasion
  rules read, menace, requirements and costs not: such a declaration may be illegal);
- ``survive``: "block when the blocker survives": each creature blocks the attacker with the greatest power among
  those whose damage it survives (power below its toughness, no deathtouch), else nothing;
- ``random``: a legal declaration drawn uniformly (``DeclarationSpace.sample``).

The results have the shape of :func:`trample.arena.runner.run_arena`'s, so the leaderboard, ``--out`` and
``--report`` read them the same; :func:`trample.arena.runner.run_blocks_arena` plays the chunks on the same
backends.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from fractions import Fraction

from ..declare import DeclarationSpace, check_declaration
from ..declare.legality import block_refusals, can_ever_block
from ..models import FormatError
from ..models.declare import BlockersDoc, load_blocks, load_declare_doc
from ..models.scenario import parse_json_text
from ..optimize import parse_objectives
from .metrics import decision_seed
from .objectives import parse_objectives as parse_item_objectives

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
            survives = attacker.power < b.toughness and not attacker.has("deathtouch")
            if survives and not block_refusals(doc, a, b.id):
                out.setdefault(a, []).append(b.id)
                break
    return out


def _optimal(doc: BlockersDoc, space: DeclarationSpace, objective: str, seed: int) -> dict:
    from ..declare.solve import solve_declaration

    result = solve_declaration(doc, objective)
    assert result.declaration is not None
    return result.declaration.to_json()


def _random(doc: BlockersDoc, space: DeclarationSpace, objective: str, seed: int) -> dict:
    return space.sample(1, seed)[0].to_json()


PLAYERS: dict[str, Callable[[BlockersDoc, DeclarationSpace, str, int], dict]] = {
    "optimal": _optimal,
    "no-blocks": lambda doc, space, objective, seed: {},
    "chump": _chump,
    "survive": _survive,
    "random": _random,
}


def player_names(specs: Sequence) -> list[str]:
    """The names of the players (``NAME=kind`` renames one); an unknown player is bad input."""
    names = []
    for spec in specs:
        name, _ = _spec(spec)
        if name in names:
            raise FormatError("players", f'two players are named "{name}"; rename one (NAME=spec)')
        names.append(name)
    return names


def _spec(spec) -> tuple[str, str]:
    if not isinstance(spec, str):
        raise FormatError("--players", f"the blocks arena plays its own players ({', '.join(BLOCK_PLAYERS)})")
    name, eq, kind = spec.partition("=")
    if not eq:
        name, kind = spec, spec
    if kind not in PLAYERS:
        raise FormatError("--players", f'unknown blocks player "{spec}" (expected {", ".join(BLOCK_PLAYERS)})')
    return name, kind


def evaluate_blocks_chunk(payload: dict) -> list[dict]:
    """Play every board of one chunk (``payload`` as :func:`trample.arena.runner.evaluate_chunk`'s, with
    ``"game": "blocks"``)."""
    players = [_spec(s) for s in payload["players"]]
    return [play_board(i, item, players, payload["objective"], payload["seed"]) for i, item in payload["items"]]


def _value(doc: BlockersDoc, blocks, objs) -> tuple:
    """The attacking player's best value against these blocks (oriented: more is better for the attacker)."""
    from ..whole import open_combat

    result = open_combat(doc.scenario(blocks)).solve([o.name for o in objs], tie_break=False)
    if result.status != "optimal":  # no limit is set: every solve is proven
        raise RuntimeError(f"a damage solve ended {result.status}")
    return tuple(Fraction(result.objectives[o.name]) * (1 if o.maximize else -1) for o in objs)


def _plain(v) -> int | float:
    f = float(v)
    return int(f) if f.is_integer() else round(f, 6)


def play_board(index: int, item: dict, players, objective: str, seed: int) -> dict:
    from ..declare.solve import solve_declaration

    doc = load_declare_doc(item["scenario"], f"board {index}: scenario")
    if not isinstance(doc, BlockersDoc):
        raise FormatError(f"board {index}: scenario.declare", 'the blocks arena plays "declare": "blockers" documents')
    objective = item.get("objective") or objective
    objs = parse_objectives(objective, doc.board)
    primary = objs[0]
    space = DeclarationSpace(doc)
    best = solve_declaration(doc, objective)
    assert best.declaration is not None and best.status == "optimal"
    reference = _value(doc, best.declaration, objs)
    sign = 1 if primary.maximize else -1
    decisions = []
    for name, kind in players:
        started = time.perf_counter()
        declared = PLAYERS[kind](doc, space, objective, decision_seed(seed, index, name))
        elapsed = round((time.perf_counter() - started) * 1000, 3)
        record = {"player": name, "lethal": None, "assignment": declared, "time_ms": elapsed}
        try:
            blocks = load_blocks(declared, doc)
        except FormatError as err:
            blocks, violations = None, [{"rule": "bad-output", "message": str(err)}]
        else:
            violations = [v.to_json() for v in check_declaration(space, blocks).violations]
        if blocks is None or violations:
            record.update(legal=False, rules=[v["rule"] for v in violations], violations=violations, values=None,
                          regret=None, primary_regret=None, optimal=False)  # fmt: skip
        else:
            value = _value(doc, blocks, objs)
            regret = _plain(value[0] - reference[0])  # oriented: what the attacker gains over the best blocks
            record.update(
                legal=True,
                rules=[],
                violations=[],
                values={o.name: _plain(v * (1 if o.maximize else -1)) for o, v in zip(objs, value)},
                regret={primary.name: regret},
                primary_regret=regret,
                optimal=value == reference,
            )
        decisions.append(record)
    board = doc.board
    return {
        "index": index,
        "id": item.get("id", str(index)),
        "scenario": item["scenario"],
        "objective": objective,
        "size": {
            "attackers": len(board.attackers),
            "blockers": len(board.blockers),
            "creatures": len(board.attackers) + len(board.blockers),
            "power": sum(max(0, a.power) for a in board.attackers),
            "declarations": space.count(),
        },
        "reference": {
            "values": {primary.name: _plain(reference[0] * sign)},
            "blocks": best.declaration.to_json(),
            "lethal_exists": False,
            "status": "proven best blocks",
        },
        "decisions": decisions,
    }


def load_suite(path: str, text: str) -> list[dict]:
    """Items of a JSON Lines suite of declare-blockers documents (``{"scenario": doc, "objective": ...}`` or the
    document itself); a bad line is a FormatError naming it."""
    items = []
    for n, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        where = f"{path}: line {n}"
        data = parse_json_text(line, where)
        item = dict(data) if isinstance(data, dict) and "scenario" in data else {"scenario": data}
        doc = load_declare_doc(item["scenario"], f"{where}: scenario")
        if not isinstance(doc, BlockersDoc):
            raise FormatError(f"{where}: scenario.declare", 'expected "blockers" (the blocks arena)')
        if item.get("objective") is not None:
            parse_item_objectives(item["objective"], doc.board, f"{where}: objective")
        items.append({"id": str(item.get("id") or f"{path}:{n}"), **item})
    return items


KEYWORDS = ("flying", "menace", "trample", "deathtouch", "first_strike")
BLOCKER_KEYWORDS = ("reach", "flying", "first_strike", "deathtouch")


def generate(n: int, seed: int = 0) -> list[dict]:
    """``n`` declare-blockers boards (2-3 attackers, 2-3 potential blockers, mixed keywords), reproducible."""
    rng = random.Random(seed)
    out = []
    for k in range(n):
        attackers = [
            {
                "id": f"a{i}",
                "power": rng.randint(1, 5),
                "toughness": rng.randint(1, 5),
                "attacking": "opp",
                "keywords": sorted(rng.sample(KEYWORDS, rng.randint(0, 2))),
            }  # fmt: skip
            for i in range(rng.randint(2, 3))
        ]
        blockers = [
            {
                "id": f"b{i}",
                "power": rng.randint(0, 4),
                "toughness": rng.randint(1, 5),
                "keywords": sorted(rng.sample(BLOCKER_KEYWORDS, rng.randint(0, 1))),
            }  # fmt: skip
            for i in range(rng.randint(2, 3))
        ]
        doc = {"declare": "blockers", "players": [{"id": "opp", "life": rng.randint(4, 12)}],
               "attackers": attackers, "blockers": blockers}  # fmt: skip
        out.append({"id": f"blocks:{k}", "scenario": doc})
    return out
