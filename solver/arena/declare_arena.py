"""The arenas of declarations (docs/arena.md, "Blocks" and "Attacks"): a player declares blockers
(``--game blocks``, :mod:`trample.arena.blocks_arena`'s boards and players) or attackers (``--game attacks``,
:mod:`trample.arena.attacks_arena`'s), judged by ``trample declare check``'s rules and scored against the proven
best declaration.

A declaration is checked (:func:`trample.declare.check_declaration`: every rule of 508.1 / 509.1 and 702 cited,
the 508.1d / 509.1c maximum of requirements, the costs); a legal one is valued, oriented so that more is better
for the attacking player:

- blocks: the attacker's best damage against them (the whole combat solved on the scenario they turn into);
- attacks: the defender's proven-best blocks against the attack, then the attacker's best damage
  (:class:`trample.declare.solve.AttackJudge`, the middle level of ``trample declare solve``).

The reference is ``solve_declaration``'s proven-best declaration, valued the same way; **regret** is what the
player's declaration gives away against it (blocks: its value minus the reference; attacks: the reference minus
its value), so 0 is a best declaration for both.

Players: each game's built-in ones, and every ``cmd:`` (an external program, JSON Lines) or ``py:module:attr``
player of the one-step arena (:func:`trample.arena.players.make_player`). Such a player is asked
``decide(board, objective, seed)`` with a :class:`DeclareBoard` (an external program receives the document as
its request's ``"scenario"``) and answers the declaration (``{"declaration": ...}`` around it is accepted, and a
:class:`trample.models.declare.Blocks` / ``Attacks`` from Python). A player that fails (raises, crashes, times
out, answers something that is not a declaration) makes an illegal decision, as in the one-step arena.

The results have the shape of :func:`trample.arena.runner.run_arena`'s, so the leaderboard, ``--out`` and
``--report`` read them the same; the runner plays the chunks on the same backends.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from ..declare import DeclarationSpace, check_declaration
from ..models import FormatError
from ..models.declare import AttackersDoc, Attacks, BlockersDoc, Blocks, load_declaration, load_declare_doc
from ..models.scenario import parse_json_text
from ..optimize import parse_objectives
from . import attacks_arena, blocks_arena
from .external import PlayerFailure
from .metrics import decision_seed
from .objectives import parse_objectives as parse_item_objectives
from .player import Player
from .players import chunk_player, close_all, make_player
from .suites import DrawnSuite

GAMES = ("blocks", "attacks")
_KIND = {"blocks": "blockers", "attacks": "attackers"}


def builtin(game: str) -> Mapping[str, Callable[..., dict]]:
    """The built-in players of a declaration game, by name."""
    return blocks_arena.PLAYERS if game == "blocks" else attacks_arena.PLAYERS


def default_players(game: str) -> tuple[str, ...]:
    return blocks_arena.BLOCK_PLAYERS if game == "blocks" else attacks_arena.ATTACK_PLAYERS


class DeclareBoard:
    """What a ``cmd:`` or ``py:`` player of a declaration arena is asked about: the document as given
    (``document``, sent to an external program as its request's ``"scenario"``) and loaded (``doc``: a
    :class:`BlockersDoc` or :class:`AttackersDoc`), and ``kind``, ``"blockers"`` or ``"attackers"``."""

    def __init__(self, document: dict, doc: BlockersDoc | AttackersDoc) -> None:
        self.document = document
        self.doc = doc
        self.kind = str(doc.kind)

    def to_json(self) -> dict:
        return self.document

    def __contains__(self, object_id: object) -> bool:
        return object_id in self.doc.board


# ---------------------------------------------------------------------------------------------
# Players
# ---------------------------------------------------------------------------------------------


def _spec(spec, game: str) -> tuple[str, str]:
    """(name, kind) of a player spec: kind is a built-in player's name, or ``"player"`` (``cmd:``, ``py:``, a
    :class:`Player`), built by :func:`make_player`."""
    if isinstance(spec, Player):
        return spec.name, "player"
    if not isinstance(spec, str) or not spec.strip():
        raise FormatError("--players", f"expected a player name or spec, got {spec!r}")
    spec = spec.strip()
    name, eq, kind = spec.partition("=")
    if not eq or ":" in name or " " in name:
        name, kind = spec, spec
    if kind in builtin(game):
        return name, kind
    if kind.startswith(("cmd:", "py:")):
        player = make_player(spec)  # a bad py: spec is bad input here, before any work
        player.close()
        return player.name, "player"
    raise FormatError(
        "--players",
        f'unknown {game} player "{spec}" (expected {", ".join(default_players(game))}, cmd:COMMAND or py:module:attr)',
    )


def player_names(specs: Sequence, game: str) -> list[str]:
    """The names of the players (``NAME=kind`` renames one); an unknown player is bad input."""
    names = []
    for spec in specs:
        name, _ = _spec(spec, game)
        if name in names:
            raise FormatError("players", f'two players are named "{name}"; rename one (NAME=spec)')
        names.append(name)
    return names


def build_players(specs: Sequence, payload: dict) -> list[tuple[str, str, Player | None]]:
    """(name, kind, Player or None) of each spec; ``cmd:`` and ``py:`` players are built (external programs
    configured by the payload's timeouts)."""
    out: list[tuple[str, str, Player | None]] = []
    for spec in specs:
        name, kind = _spec(spec, payload["game"])
        player = None
        if kind == "player":
            player = chunk_player(spec, payload)
            name = player.name
        out.append((name, kind, player))
    return out


def evaluate_chunk(payload: dict, built=None) -> list[dict]:
    """Play every board of one chunk (``payload`` as :func:`trample.arena.runner.evaluate_chunk`'s, with
    ``"game": "blocks"`` or ``"attacks"``); the players are built here (and closed) unless ``built`` is given."""
    players = built if built is not None else build_players(payload["players"], payload)
    try:
        return [
            play_board(i, item, players, payload["objective"], payload["seed"], payload["game"])
            for i, item in payload["items"]
        ]
    finally:
        if built is None:
            close_all(p for *_, p in players)


# ---------------------------------------------------------------------------------------------
# Judging
# ---------------------------------------------------------------------------------------------


class _Valuer:
    """The value of declarations on one board (oriented: more is better for the attacking player)."""

    def __init__(self, doc: BlockersDoc | AttackersDoc, objective: str) -> None:
        self.doc = doc
        self.objs = parse_objectives(objective, doc.board)
        if isinstance(doc, AttackersDoc):
            from ..declare.solve import AttackJudge

            self.judge = AttackJudge(doc, objective)

    def value(self, declaration: Blocks | Attacks) -> tuple[tuple, Blocks | None]:
        """The value, and for an attack the defender's best blocks against it."""
        if isinstance(declaration, Attacks):
            return self.judge.value(declaration)
        from ..whole import open_combat

        assert isinstance(self.doc, BlockersDoc)
        result = open_combat(self.doc.scenario(declaration)).solve([o.name for o in self.objs], tie_break=False)
        if result.status != "optimal":  # no limit is set: every solve is proven
            raise RuntimeError(f"a damage solve ended {result.status}")
        return tuple(Fraction(result.objectives[o.name]) * (1 if o.maximize else -1) for o in self.objs), None


def _plain(v) -> int | float:
    f = float(v)
    return int(f) if f.is_integer() else round(f, 6)


def _declared(output: Any, board: DeclareBoard) -> Any:
    """A player's answer as plain JSON: a Blocks / Attacks as its JSON, ``{"declaration": ...}`` unwrapped (unless
    "declaration" names a creature)."""
    if isinstance(output, (Blocks, Attacks)):
        return output.to_json()
    if isinstance(output, Mapping) and set(output) == {"declaration"} and "declaration" not in board:
        return output["declaration"]
    return output


def _decide(game: str, kind: str, player: Player | None, board: DeclareBoard, space, objective: str, seed: int):
    """(the answer, or None) and (failure kind, message), or None."""
    try:
        if player is None:
            return builtin(game)[kind](board.doc, space, objective, seed), None
        return _declared(player.decide(board, objective, seed), board), None  # type: ignore[arg-type]
    except PlayerFailure as err:
        return None, (err.kind, err.message)
    except Exception as err:  # an in-process player's bug is its illegal decision, not the run's end
        if player is None:
            raise
        return None, ("error", f"{type(err).__name__}: {err}")


def _record(name: str, output, failure, space, valuer: _Valuer, reference: tuple, attacking: bool) -> dict:
    record: dict = {"player": name, "lethal": None, "assignment": None}
    declaration = None
    if failure is None:
        try:
            declaration = load_declaration(output, valuer.doc)
        except FormatError as err:
            failure = ("bad-output", f"not a declaration: {err}")
        except (TypeError, ValueError, AttributeError) as err:
            failure = ("bad-output", f"not a declaration: {err}")
    if failure is not None or declaration is None:
        kind, message = failure or ("bad-output", "no declaration")
        violations = [{"rule": kind, "message": message}]
    else:
        record["assignment"] = declaration.to_json()
        violations = [v.to_json() for v in check_declaration(space, declaration).violations]
    if violations:
        rules = list(dict.fromkeys(v["rule"] for v in violations))
        record.update(legal=False, rules=rules, violations=violations, values=None, regret=None,
                      primary_regret=None, optimal=False)  # fmt: skip
        return record
    assert declaration is not None
    value, blocks = valuer.value(declaration)
    gap = reference[0] - value[0] if attacking else value[0] - reference[0]
    objs = valuer.objs
    record.update(
        legal=True,
        rules=[],
        violations=[],
        values={o.name: _plain(v * (1 if o.maximize else -1)) for o, v in zip(objs, value)},
        regret={objs[0].name: _plain(gap)},
        primary_regret=_plain(gap),
        optimal=value == reference,
    )
    if blocks is not None:
        record["blocks"] = blocks.to_json()  # the defender's best reply to the attack
    return record


def play_board(index: int, item: dict, players, objective: str, seed: int, game: str = "blocks") -> dict:
    """One board: the reference (the proven-best declaration), then each player's declaration judged."""
    from ..declare.solve import solve_declaration

    doc = _load(item["scenario"], f"board {index}: scenario", game)
    objective = item.get("objective") or objective
    valuer = _Valuer(doc, objective)
    space = DeclarationSpace(doc)
    best = solve_declaration(doc, objective)
    assert best.declaration is not None and best.status == "optimal"
    reference, reply = valuer.value(best.declaration)
    board = DeclareBoard(item["scenario"], doc)
    decisions = []
    for name, kind, player in players:
        started = time.perf_counter()
        output, failure = _decide(game, kind, player, board, space, objective, decision_seed(seed, index, name))
        elapsed = round((time.perf_counter() - started) * 1000, 3)
        record = _record(name, output, failure, space, valuer, reference, game == "attacks")
        record["time_ms"] = elapsed
        decisions.append(record)
    primary = valuer.objs[0]
    ref: dict = {"values": {primary.name: _plain(reference[0] * (1 if primary.maximize else -1))}}
    if game == "attacks":
        ref.update(attack=best.declaration.to_json(), blocks=reply.to_json() if reply is not None else {})
    else:
        ref["blocks"] = best.declaration.to_json()
    ref.update(lethal_exists=False, status="proven best attack" if game == "attacks" else "proven best blocks")
    return {
        "index": index,
        "id": item.get("id", str(index)),
        "scenario": item["scenario"],
        "objective": objective,
        "size": _size(doc, space),
        "reference": ref,
        "decisions": decisions,
    }


def _size(doc: BlockersDoc | AttackersDoc, space: DeclarationSpace) -> dict:
    board = doc.board
    return {
        "attackers": len(board.attackers),
        "blockers": len(board.blockers),
        "creatures": len(board.attackers) + len(board.blockers),
        "power": sum(max(0, a.power) for a in board.attackers),
        "declarations": space.count(),
    }


def _load(data, where: str, game: str) -> BlockersDoc | AttackersDoc:
    doc = load_declare_doc(data, where)
    if doc.kind != _KIND[game]:
        raise FormatError(f"{where}.declare", f'the {game} arena plays "declare": "{_KIND[game]}" documents')
    return doc


def load_suite(path: str, text: str, game: str = "blocks") -> list[dict]:
    """Items of a JSON Lines suite of declare documents of the game's kind (``{"scenario": doc, "objective":
    ...}`` or the document itself); a bad line is a FormatError naming it."""
    items = []
    for n, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        where = f"{path}: line {n}"
        data = parse_json_text(line, where)
        item = dict(data) if isinstance(data, dict) and "scenario" in data else {"scenario": data}
        doc = _load(item["scenario"], f"{where}: scenario", game)
        if item.get("objective") is not None:
            parse_item_objectives(item["objective"], doc.board, f"{where}: objective")
        items.append({"id": str(item.get("id") or f"{path}:{n}"), **item})
    return items


def generate(game: str, n: int, seed: int = 0) -> list[dict]:
    """``n`` generated boards of the game (:func:`trample.arena.blocks_arena.generate` or
    :func:`trample.arena.attacks_arena.generate`)."""
    return blocks_arena.generate(n, seed) if game == "blocks" else attacks_arena.generate(n, seed)


def drawn(game: str, n: int, seed: int = 0) -> DrawnSuite:
    """:func:`generate`'s boards, each drawn when the arena reaches it (about 43 µs a board: ``--n 100000`` drew
    for 4.3 s before its first board)."""
    stream = blocks_arena.boards if game == "blocks" else attacks_arena.boards
    return DrawnSuite(lambda: stream(seed), n)
