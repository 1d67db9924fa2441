"""The declarations of attackers and blockers as data (docs/declare.md): the two documents, the two declarations,
and the damage-step scenario a declaration turns into.

- A **declare-blockers document** (``"declare": "blockers"``) is a scenario whose attackers are already declared
  (each with ``attacking``, no ``blocked_by``) and whose ``blockers`` are the defending players' creatures, every
  one of them a *potential* blocker; plus the fields that decide which blocks are legal (508-509, 702): the
  declaration keywords (flying, reach, menace, ...), ``tapped``, ``min_blockers``, ``block_extra``, ``landwalk``,
  and each defending player's ``lands``.
- A **declare-attackers document** (``"declare": "attackers"``) is the same board one step earlier: its
  ``attackers`` are the active player's creatures, none declared yet (no ``attacking``; ``summoning_sick`` may be
  set), and ``active`` names the active player (default ``"active"``), who may protect battles.
- A **block declaration** is ``{attacker id: [blocker ids]}`` (an attacker left out is unblocked); an **attack
  declaration** is ``{creature id: what it attacks}`` (a creature left out does not attack).

Everything a scenario accepts is accepted here, and checked by the scenario loader, so its one-line errors name
the same places; a declaration turns into a :class:`~.scenario.Scenario` every damage-step command reads.
Nothing here decides legality: ``trample.declare`` reads these objects.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from . import fields as F
from .errors import FormatError, expect_list, expect_object, expect_str, join
from .fields import DECLARE_KEYWORDS
from .keywords import NEEDS_FIELD, Keyword, suggestion
from .mana import ZERO, Mana, read_cost, read_pool
from .scenario import KEYWORDS, Scenario, load_scenario, parse_json_text
from .vocabulary import DeclareKind, Step, words

COLORS = ("white", "blue", "black", "red", "green")  # 105.1, read from a creature's tags
ARTIFACT = "artifact"  # a tag: an artifact creature (fear 702.36b, intimidate 702.13b)
KINDS = words(DeclareKind)

# The declaration fields of a creature and a player: models/fields.py (the schemas are built from the same tables).
_CREATURE_DECLARE = F.DECLARE_CREATURE.without("keywords")
_ATTACKERS_DECLARE = _CREATURE_DECLARE + F.DECLARE_ATTACKER_EXTRA


@dataclass(frozen=True)
class Abilities:
    """What one creature brings to the declarations (docs/declare.md)."""

    keywords: frozenset[str] = frozenset()  # of DECLARE_KEYWORDS, plus "haste" from the scenario keywords
    tapped: bool = False
    summoning_sick: bool = False
    min_blockers: int = 1  # "can't be blocked except by N or more creatures" (702.111b); menace makes it >= 2
    block_extra: int = 0  # "can block N additional creatures each combat"
    landwalk: tuple[str, ...] = ()  # 702.14: land types (or qualities) it walks
    bands_with_other: tuple[str, ...] = ()  # 702.22c: "bands with other [quality]", the qualities (tags)
    attack_cost: Mana = ZERO  # 508.1h: the mana its controller pays for it to attack
    block_cost: Mana = ZERO  # 509.1d: the mana its controller pays for it to block

    def has(self, keyword: str) -> bool:
        """Does it have this declaration keyword or ability (``ab.has(Keyword.FLYING)``, ``ab.has("lure")``)?"""
        return keyword in self.keywords

    @property
    def need_blockers(self) -> int:
        """The fewest creatures that may block it: ``min_blockers``, at least 2 with menace (702.111b)."""
        return max(self.min_blockers, 2 if Keyword.MENACE in self.keywords else 1)

    @property
    def block_limit(self) -> int | None:
        """How many attackers it may block: 1 + ``block_extra``; None for "any number" (509.1a)."""
        return None if "block_any_number" in self.keywords else 1 + self.block_extra


NONE = Abilities()


@dataclass(frozen=True)
class Costs:
    """Costs to attack and to block (508.1h, 509.1d), in mana (models/mana.py), and the mana each player can pay."""

    attack_tax: Mapping[str, Mana] = field(default_factory=dict)  # player or planeswalker -> cost per attacker
    block_tax: Mapping[str, Mana] = field(default_factory=dict)  # defending player -> cost per blocking creature
    mana: Mapping[str, Mana] = field(default_factory=dict)  # player (the active player too) -> their pool

    def available(self, player: str) -> Mana:
        return self.mana.get(player, ZERO)


NO_COSTS = Costs()


@dataclass(frozen=True)
class BlockersDoc:
    """A declare-blockers document: the attackers declared, every potential blocker, the abilities."""

    board: Scenario  # attackers with `attacking` and no blocks; blockers: every potential blocker
    abilities: Mapping[str, Abilities] = field(default_factory=dict)
    lands: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # player -> land types / qualities
    active: str = "active"
    costs: Costs = NO_COSTS
    bands: tuple[tuple[str, ...], ...] = ()  # the attacking bands (702.22c), members in document order

    kind: ClassVar[str] = DeclareKind.BLOCKERS

    def band_of(self, attacker_id: str) -> tuple[str, ...]:
        """The attacker's band (itself alone when it is in none)."""
        return next((b for b in self.bands if attacker_id in b), (attacker_id,))

    def block_cost(self, blocker_id: str) -> Mana:
        """What blocking with this creature costs its controller (509.1d): its own cost and its player's tax."""
        return self.of(blocker_id).block_cost + self.costs.block_tax.get(self.controller(blocker_id), ZERO)

    def of(self, creature_id: str) -> Abilities:
        """What the creature brings to the declarations (no abilities when it has none)."""
        return self.abilities.get(creature_id, NONE)

    def defending_player(self, attacker_id: str) -> str:
        """The player an attacker attacks, or who controls the planeswalker / protects the battle it attacks."""
        who = self.board.controller_of(self.board.attacker(attacker_id).attacking)
        assert who is not None
        return who

    def controller(self, blocker_id: str) -> str:
        """The player who controls a potential blocker (its ``controller``; the only listed player otherwise)."""
        b = self.board.blocker(blocker_id)
        return b.controller if b.controller is not None else self.board.players[0].id

    def scenario(self, blocks: Blocks) -> Scenario:
        """The damage step(s) after these blocks: each attacker ``blocked_by`` its blockers (in document order),
        the blockers that block nothing left out (they are not in combat). A creature blocking one member of a
        band blocks every member (702.22h)."""
        chosen = {b for ids in blocks.of.values() for b in ids}
        order = [b.id for b in self.board.blockers]

        def by(a: str) -> tuple[str, ...]:
            ids = {b for m in self.band_of(a) for b in blocks.of.get(m, ())}
            return tuple(sorted(ids, key=order.index))

        attackers = tuple(replace(a, blocked_by=by(a.id), blocked=bool(by(a.id))) for a in self.board.attackers)
        blockers = tuple(b for b in self.board.blockers if b.id in chosen)
        return replace(self.board, attackers=attackers, blockers=blockers)


@dataclass(frozen=True)
class AttackersDoc:
    """A declare-attackers document: the active player's creatures, the defending players' creatures, and what
    can be attacked (players, their planeswalkers, battles)."""

    board: Scenario  # attackers: the active player's creatures (attacking = ""); blockers: the defenders'
    abilities: Mapping[str, Abilities] = field(default_factory=dict)
    lands: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    active: str = "active"
    own_battles: tuple[str, ...] = ()  # battles the active player protects (listed, never attackable: 508.1b)
    costs: Costs = NO_COSTS

    kind: ClassVar[str] = DeclareKind.ATTACKERS

    def of(self, creature_id: str) -> Abilities:
        """What the creature brings to the declarations (no abilities when it has none)."""
        return self.abilities.get(creature_id, NONE)

    @property
    def targets(self) -> tuple[str, ...]:
        """Every player, planeswalker and battle listed, in document order (the active player's own battles
        last; legality: ``trample.declare``)."""
        b = self.board
        listed = [p.id for p in b.players] + [p.id for p in b.planeswalkers] + [t.id for t in b.battles]
        return (*listed, *self.own_battles)

    def attack_cost(self, creature_id: str, target: str) -> Mana:
        """What attacking ``target`` with this creature costs the active player (508.1h): its own cost and the
        tax of the player or planeswalker attacked."""
        return self.of(creature_id).attack_cost + self.costs.attack_tax.get(target, ZERO)

    def blockers_doc(self, attacks: Attacks) -> BlockersDoc:
        """The declare-blockers document that follows this attack (the attackers in document order, its bands)."""
        attackers = tuple(replace(a, attacking=attacks.of[a.id]) for a in self.board.attackers if a.id in attacks.of)
        board = replace(self.board, attackers=attackers)
        return BlockersDoc(board, self.abilities, self.lands, self.active, self.costs, attacks.bands)


@dataclass(frozen=True)
class Blocks:
    """A block declaration: ``of[attacker] = (blocker, ...)`` for the blocked attackers, blockers in document
    order. Hashable; two declarations are equal when they block the same attackers with the same creatures."""

    of: Mapping[str, tuple[str, ...]]
    _key: tuple[tuple[str, tuple[str, ...]], ...] = field(default=(), compare=True, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "of", dict(self.of))
        object.__setattr__(self, "_key", tuple(sorted((a, tuple(sorted(bs))) for a, bs in self.of.items() if bs)))

    def __hash__(self) -> int:
        return hash(self._key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Blocks) and self._key == other._key

    def blocking(self, blocker_id: str) -> tuple[str, ...]:
        """The attackers this creature blocks."""
        return tuple(a for a, bs in self.of.items() if blocker_id in bs)

    def to_json(self) -> dict[str, list[str]]:
        return {a: list(bs) for a, bs in self.of.items()}


@dataclass(frozen=True)
class Attacks:
    """An attack declaration: ``of[creature] = what it attacks``, for the attacking creatures, and the bands
    declared (702.22c): each a tuple of two or more attacking creatures, in the document's order."""

    of: Mapping[str, str]
    bands: tuple[tuple[str, ...], ...] = ()
    _key: tuple[object, ...] = field(default=(), compare=True, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "of", dict(self.of))
        object.__setattr__(self, "bands", tuple(tuple(b) for b in self.bands))
        object.__setattr__(self, "_key", (tuple(sorted(self.of.items())), tuple(sorted(self.bands))))

    def __hash__(self) -> int:
        return hash(self._key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Attacks) and self._key == other._key

    def to_json(self) -> dict[str, Any]:
        """``{creature: target}``; a member of a band ``{"attacking": target, "band": its first member}``."""
        label = {c: band[0] for band in self.bands for c in band}
        return {c: ({"attacking": t, "band": label[c]} if c in label else t) for c, t in self.of.items()}


# ---------------------------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------------------------


def load_declare_doc(data: object, path: str = "") -> BlockersDoc | AttackersDoc:
    """Validate a declare document (decoded JSON or JSON text); :class:`FormatError` names the first problem."""
    if isinstance(data, (str, bytes)):
        data = parse_json_text(data if isinstance(data, str) else data.decode("utf-8"), path)
    obj = expect_object(data, path or "document")
    kind = obj.get("declare")
    if kind not in KINDS:
        shown = "missing" if "declare" not in obj else f"got {json.dumps(kind)}"
        raise FormatError(join(path, "declare"), f'expected "attackers" or "blockers" ({shown})')
    kind = DeclareKind(kind)
    active = F.DECLARE_TOP["active"].read(obj, path)
    plain = {k: v for k, v in obj.items() if k not in F.DECLARE_TOP}
    plain.setdefault("step", Step.COMBAT)  # both damage steps: the whole combat follows a declaration
    abilities: dict[str, Abilities] = {}
    lands: dict[str, tuple[str, ...]] = {}
    costs = Costs({}, {}, {active: read_pool(obj.get("mana", 0), join(path, "mana"))})
    labels: dict[str, list[tuple[str, str]]] = {}  # band label -> (attacker id, its place), a blockers document's
    attackers = expect_list(plain.get("attackers", None) if "attackers" in plain else [], join(path, "attackers"))
    plain["attackers"] = [
        _split_creature(c, join(join(path, "attackers"), i), abilities, kind, labels=labels)
        for i, c in enumerate(attackers)
    ]
    if "blockers" in plain:
        items = expect_list(plain["blockers"], join(path, "blockers"))
        plain["blockers"] = [
            _split_creature(c, join(join(path, "blockers"), i), abilities, DeclareKind.BLOCKERS, blocker=True)
            for i, c in enumerate(items)
        ]
    if "players" in plain:
        items = expect_list(plain["players"], join(path, "players"))
        plain["players"] = [_split_player(p, join(join(path, "players"), i), lands, costs) for i, p in enumerate(items)]
    if "planeswalkers" in plain:
        items = expect_list(plain["planeswalkers"], join(path, "planeswalkers"))
        plain["planeswalkers"] = [
            _split_taxed(w, join(join(path, "planeswalkers"), i), costs) for i, w in enumerate(items)
        ]
    players = [p.get("id") for p in plain.get("players", []) if isinstance(p, dict)]
    if not players:
        raise FormatError(join(path, "players"), "a declare document needs at least one defending player")
    if kind == DeclareKind.ATTACKERS:
        for c in plain["attackers"]:  # not yet attacking: a placeholder the scenario loader accepts
            c["attacking"] = players[0]
    own = _own_battles(plain, kind, active, path)
    board = load_scenario(plain, path)
    _check_board(board, active, own, path)
    if kind == DeclareKind.ATTACKERS:
        attackers_ = tuple(replace(a, attacking="") for a in board.attackers)
        return AttackersDoc(replace(board, attackers=attackers_), abilities, lands, active, tuple(own), costs)
    return BlockersDoc(board, abilities, lands, active, costs, _bands(board, labels, path))


def _own_battles(plain: dict[str, Any], kind: DeclareKind, active: str, path: str) -> list[str]:
    """The battles the active player protects, taken out of a declare-attackers document's list: listed, never
    attackable (508.1b)."""
    own: list[str] = []
    if "battles" in plain and kind == DeclareKind.ATTACKERS:
        items = expect_list(plain["battles"], join(path, "battles"))
        for i, bt in enumerate(items):
            if isinstance(bt, dict) and bt.get("protector") == active:
                own.append(expect_str(bt.get("id"), join(join(join(path, "battles"), i), "id")))
        plain["battles"] = [bt for bt in items if not (isinstance(bt, dict) and bt.get("protector") == active)]
    return own


def _check_board(board: Scenario, active: str, own: list[str], path: str) -> None:
    """What a declare document's board may not hold: the active player's id on a listed object, a blocker of no
    known controller among several defending players, blocks already declared."""
    if active in board or active in own:
        raise FormatError(join(path, "active"), f'"{active}" is also the id of a listed object')
    for battle in own:
        if battle in board:
            raise FormatError(join(path, "battles"), f'duplicate id "{battle}"')
    if len(board.players) > 1:
        for i, blocker in enumerate(board.blockers):
            if blocker.controller is None:
                raise FormatError(
                    join(join(join(path, "blockers"), i), "controller"),
                    "required with more than one defending player (whose creature is it?)",
                )
    for i, a in enumerate(board.attackers):
        where = join(join(path, "attackers"), i)
        if a.blocked:
            raise FormatError(join(where, "blocked_by"), "the blocks are what a declaration says: leave them out")


def _bands(board: Scenario, labels: Mapping[str, list[tuple[str, str]]], path: str) -> tuple[tuple[str, ...], ...]:
    """The bands of a declare-blockers document: two or more attackers each, attacking one player, planeswalker or
    battle (702.22d); whether a band may be formed at all (702.22c) is ``trample.declare``'s question."""
    out = []
    for label, members in labels.items():
        first_id, first_place = members[0]
        if len(members) < 2:
            raise FormatError(
                first_place, f'a band is two or more attacking creatures (702.22c): only {first_id} is in "{label}"'
            )
        for member, where in members[1:]:
            if board.attacker(member).attacking != board.attacker(first_id).attacking:
                raise FormatError(
                    where,
                    f"{member} attacks {board.attacker(member).attacking}, but {first_id} of its band attacks "
                    f"{board.attacker(first_id).attacking}: a band attacks one player, planeswalker or battle "
                    "(702.22d)",
                )
        out.append(tuple(m for m, _ in members))
    return tuple(sorted(out, key=lambda b: [a.id for a in board.attackers].index(b[0])))


def _split_creature(
    data: object,
    path: str,
    abilities: dict[str, Abilities],
    kind: str,
    blocker: bool = False,
    labels: dict[str, list[tuple[str, str]]] | None = None,
) -> dict[str, Any]:
    """The scenario part of a creature (a copy), its declaration part recorded in ``abilities`` (and, for an
    attacker of a declare-blockers document, its band's label in ``labels``)."""
    obj = dict(expect_object(data, path))
    if kind == DeclareKind.BLOCKERS and not blocker and labels is not None and "band" in obj:
        label = F.DECLARE_DECLARED["band"].read(obj, path)
        labels.setdefault(label, []).append((expect_str(obj.get("id"), join(path, "id")), join(path, "band")))
        del obj["band"]
    extra = _ATTACKERS_DECLARE if kind == DeclareKind.ATTACKERS and not blocker else _CREATURE_DECLARE
    if kind == DeclareKind.ATTACKERS and not blocker and "attacking" in obj:
        raise FormatError(join(path, "attacking"), "not declared yet: an attack declaration says what it attacks")
    keywords = expect_list(obj.get("keywords", []), join(path, "keywords"))
    plain_kw, declare_kw = [], set()
    for j, kw in enumerate(keywords):
        where = join(join(path, "keywords"), j)
        if not isinstance(kw, str):
            raise FormatError(where, f"expected a keyword string, got {json.dumps(kw)}")
        if kw in DECLARE_KEYWORDS:
            declare_kw.add(kw)
            if kw not in KEYWORDS:
                continue  # a declaration's only (the scenario carries flying, reach, ... unchanged)
        if kw not in KEYWORDS:  # checked here, where the index is the document's
            better = suggestion(kw)
            hint = f' (the format spells it "{better}")' if better else " (docs/format.md lists the keywords)"
            raise FormatError(where, f'unknown keyword "{kw}"{hint}')
        if kw in NEEDS_FIELD and not obj.get(NEEDS_FIELD[kw][0]):
            raise FormatError(where, f'"{kw}" alone does not say how much or from what; {NEEDS_FIELD[kw][1]}')
        plain_kw.append(kw)
    if Keyword.HASTE in plain_kw:
        declare_kw.add(Keyword.HASTE)
    found = {k: obj.pop(k) for k in list(obj) if k in extra}
    for k in list(obj):
        if k in _ATTACKERS_DECLARE:
            raise FormatError(join(path, k), "unknown field (only on a creature that may attack)")
    if "keywords" in obj:
        obj["keywords"] = plain_kw
    ab = Abilities(
        keywords=frozenset(declare_kw),
        **_ATTACKERS_DECLARE.without("landwalk").read(found, path),
        landwalk=_names(found, "landwalk", path),
        attack_cost=read_cost(found.get("attack_cost", 0), join(path, "attack_cost")),
        block_cost=read_cost(found.get("block_cost", 0), join(path, "block_cost")),
    )
    if ab != NONE and isinstance(obj.get("id"), str):
        abilities[obj["id"]] = ab
    return obj


def _split_player(data: object, path: str, lands: dict[str, tuple[str, ...]], costs: Costs) -> dict[str, Any]:
    obj = dict(expect_object(data, path))
    if "lands" in obj:
        found = _names(obj, "lands", path)
        del obj["lands"]
        if isinstance(obj.get("id"), str):
            lands[obj["id"]] = found
    obj = _split_taxed(obj, path, costs)
    tax = read_cost(obj.pop("block_tax", 0), join(path, "block_tax"))
    pool = read_pool(obj.pop("mana", 0), join(path, "mana"))
    if isinstance(obj.get("id"), str):
        if tax:
            costs.block_tax[obj["id"]] = tax  # type: ignore[index]
        if pool:
            costs.mana[obj["id"]] = pool  # type: ignore[index]
    return obj


def _split_taxed(data: object, path: str, costs: Costs) -> dict[str, Any]:
    """A player or planeswalker without its ``attack_tax`` (recorded in ``costs``: 508.1h)."""
    obj = dict(expect_object(data, path))
    tax = read_cost(obj.pop("attack_tax", 0), join(path, "attack_tax"))
    if tax and isinstance(obj.get("id"), str):
        costs.attack_tax[obj["id"]] = tax  # type: ignore[index]
    return obj


def _names(obj: Mapping[str, Any], key: str, path: str) -> tuple[str, ...]:
    items = expect_list(obj.get(key, []), join(path, key))
    out: list[str] = []
    for i, item in enumerate(items):
        name = expect_str(item, join(join(path, key), i)).lower()
        if name not in out:
            out.append(name)
    return tuple(out)


def load_blocks(data: object, doc: BlockersDoc, path: str = "declaration") -> Blocks:
    """``{attacker id: [blocker ids]}``: bad input (an unknown id, a blocker named twice for one attacker, ...)
    is a :class:`FormatError`; whether the blocks are *legal* is ``trample.declare``'s question."""
    if isinstance(data, (str, bytes)):
        data = parse_json_text(data if isinstance(data, str) else data.decode("utf-8"), path)
    obj = expect_object(data, path)
    attackers = {a.id for a in doc.board.attackers}
    blockers = [b.id for b in doc.board.blockers]
    out: dict[str, tuple[str, ...]] = {}
    for a, ids in obj.items():
        where = join(path, a)
        if a not in attackers:
            raise FormatError(where, f'unknown attacker "{a}"')
        items = expect_list(ids, where)
        seen: list[str] = []
        for j, b in enumerate(items):
            expect_str(b, join(where, j))
            if b not in blockers:
                raise FormatError(join(where, j), f'unknown creature "{b}" (expected a potential blocker)')
            if b in seen:
                raise FormatError(join(where, j), f'"{b}" is listed twice')
            seen.append(b)
        if seen:
            out[a] = tuple(sorted(seen, key=blockers.index))
    return Blocks({a.id: out[a.id] for a in doc.board.attackers if a.id in out})


def load_attacks(data: object, doc: AttackersDoc, path: str = "declaration") -> Attacks:
    """``{creature id: player, planeswalker or battle id}``, or for a member of a band ``{creature id:
    {"attacking": id, "band": label}}`` (the creatures with one label are one band, 702.22c); unknown ids are a
    :class:`FormatError`, and so is a band of one creature. Whether a band may be formed is legality's question."""
    if isinstance(data, (str, bytes)):
        data = parse_json_text(data if isinstance(data, str) else data.decode("utf-8"), path)
    obj = expect_object(data, path)
    order = [a.id for a in doc.board.attackers]
    targets = set(doc.targets)
    out: dict[str, str] = {}
    labels: dict[str, list[str]] = {}
    for c, value in obj.items():
        where = join(path, c)
        if c not in order:
            raise FormatError(where, f'unknown creature "{c}" (expected one of the active player\'s creatures)')
        if isinstance(value, dict):
            for k in value:
                if k not in ("attacking", "band"):
                    raise FormatError(join(where, k), 'unknown field (expected "attacking" and "band")')
            target = expect_str(value.get("attacking"), join(where, "attacking"))
            labels.setdefault(expect_str(value.get("band"), join(where, "band")), []).append(c)
            target_where = join(where, "attacking")
        else:
            target = expect_str(value, where)
            target_where = where
        if target not in targets:
            raise FormatError(target_where, f'unknown id "{target}" (expected a player, planeswalker or battle)')
        out[c] = target
    for label, members in labels.items():
        if len(members) < 2:
            raise FormatError(
                join(join(path, members[0]), "band"),
                f'a band is two or more attacking creatures (702.22c): only {members[0]} is in "{label}"',
            )
    bands = sorted((tuple(sorted(m, key=order.index)) for m in labels.values()), key=lambda b: order.index(b[0]))
    return Attacks({c: out[c] for c in order if c in out}, tuple(bands))


def load_declaration(data: object, doc: BlockersDoc | AttackersDoc, path: str = "declaration") -> Blocks | Attacks:
    return load_blocks(data, doc, path) if isinstance(doc, BlockersDoc) else load_attacks(data, doc, path)


__all__ = [
    "DECLARE_KEYWORDS",
    "COLORS",
    "ARTIFACT",
    "Abilities",
    "Costs",
    "BlockersDoc",
    "AttackersDoc",
    "Blocks",
    "Attacks",
    "load_declare_doc",
    "load_blocks",
    "load_attacks",
    "load_declaration",
]
