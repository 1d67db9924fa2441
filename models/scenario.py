"""The combat scenario of docs/format.md: typed, immutable, validated, and dumped back to the same JSON.

Nothing here knows how damage is assigned; ``solver.rules`` reads these objects and derives that.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any, NoReturn, Protocol, TypeVar

from . import fields as F
from .errors import (
    FormatError,
    brief,
    expect_int,
    expect_list,
    expect_object,
    expect_str,
    join,
    reject_unknown,
)
from .fields import read_names
from .keywords import ALL_KEYWORDS, NEEDS_FIELD, Keyword, suggestion
from .vocabulary import DamageOrder, ObjectKind, RulesSet, Step, words

# the keywords and the step read for every creature of every plan, looked up once (an enum member's attribute
# lookup costs several times a global's)
_TRAMPLE, _OVER_PLANESWALKERS = Keyword.TRAMPLE, Keyword.TRAMPLE_OVER_PLANESWALKERS
_FIRST_STRIKE, _DOUBLE_STRIKE, _FIRST_STRIKE_STEP = Keyword.FIRST_STRIKE, Keyword.DOUBLE_STRIKE, Step.FIRST_STRIKE

#: Every keyword ability of 702 is accepted (an engine's board dump loads as it is); only DAMAGE_KEYWORDS change
#: the answers (models/keywords.py, docs/format.md "Keywords").
KEYWORDS = tuple(ALL_KEYWORDS)
MAX_NUMBER = F.MAX_NUMBER
MODIFIERS = F.MODIFIERS
RULES_VARIANTS = words(RulesSet)
STEPS = words(Step)
#: 616.1: the affected player chooses the order of replacement and prevention effects. "least": the order that
#: leaves the least damage (prevention shields first, then multiplications, then additions; the default), "most":
#: the order that leaves the most (additions, then multiplications, then shields). docs/effects.md.
DAMAGE_ORDERS = words(DamageOrder)


class DamageSource(Protocol):
    """What protection reads of a source of damage (702.16a): its id and its qualities (a creature, or a
    source that is not one of the scenario's creatures)."""

    @property
    def id(self) -> str: ...

    @property
    def tags(self) -> tuple[str, ...]: ...


@dataclass(frozen=True)
class Receiving:
    """What happens to damage dealt to one object or player (docs/effects.md): prevention and protection (615,
    702.16e), and damage increased or multiplied (``takes``: ``(("times", 2), ("plus", 1))``). None of it changes
    which assignments are legal (702.19b judges lethal on assigned damage)."""

    prevent: int = 0  # a shield: prevent the next N damage that would be dealt to it (615.7)
    prevent_combat: bool = False  # prevent all combat damage that would be dealt to it (615.1)
    protection: tuple[str, ...] = ()  # protection from these qualities (source ids or tags), 702.16e
    takes: tuple[tuple[str, int], ...] = ()  # damage dealt to it is multiplied / increased (614.1a)
    order: str = DamageOrder.LEAST  # 616.1: the order its controller applies the effects in
    shield_order: tuple[str, ...] = ()  # 615.7: sources whose damage the shield prevents first

    @property
    def is_plain(self) -> bool:
        return self == NO_EFFECTS

    def protected_from(self, source: DamageSource) -> bool:
        """702.16e: a quality of the source (its id or one of its tags) is one it has protection from."""
        if not self.protection:
            return False
        qualities = frozenset(self.protection)  # linear in the lists, not their product (10^5 tags each)
        return source.id in qualities or not qualities.isdisjoint(source.tags)


NO_EFFECTS = Receiving()


@dataclass(frozen=True)
class Player:
    """A player who can be dealt damage: life, poison counters, combat damage already taken from each commander."""

    id: str
    life: int = 20
    poison: int = 0  # poison counters (704.5c: ten or more loses)
    commander_damage: tuple[tuple[str, int], ...] = ()  # combat damage already dealt by each commander (704.6c)
    receiving: Receiving = NO_EFFECTS

    def commander_damage_from(self, commander: str) -> int:
        return dict(self.commander_damage).get(commander, 0)


@dataclass(frozen=True)
class Planeswalker:
    """A planeswalker that can be attacked (506.3): its controller, its loyalty, what killing it is worth."""

    id: str
    controller: str
    loyalty: int
    in_combat: bool = True
    value: float = 1
    receiving: Receiving = NO_EFFECTS


@dataclass(frozen=True)
class Battle:
    """A battle that can be attacked (310.8): the player who protects it and its defense."""

    id: str
    protector: str
    defense: int
    in_combat: bool = True
    receiving: Receiving = NO_EFFECTS


@dataclass(frozen=True)
class Creature:
    """A creature in combat (an :class:`Attacker` or a :class:`Blocker`): power, toughness, keywords, damage
    already marked, and the effects on the damage it deals and is dealt.

    Ask about a keyword one way: ``creature.has(Keyword.TRAMPLE)`` (models/keywords.py)."""

    id: str
    power: int
    toughness: int
    keywords: tuple[str, ...] = ()
    damage_marked: int = 0
    in_combat: bool = True
    toxic: int = 0  # total toxic value (702.164b)
    tags: tuple[str, ...] = ()  # qualities protection can name: colours, types, ... (702.16a)
    deals: tuple[tuple[str, int], ...] = ()  # damage it deals is multiplied / increased (614.1a)
    assigns_toughness: bool = False  # assigns combat damage equal to its toughness, not its power (510.1a)
    receiving: Receiving = NO_EFFECTS

    @property
    def combat_damage(self) -> int:
        """510.1a: the amount it assigns (its power, or its toughness for "assigns damage equal to toughness")."""
        return self.toughness if self.assigns_toughness else self.power

    def has(self, keyword: Keyword | str) -> bool:
        """Does it have this keyword? The one way to ask (``c.has(Keyword.DEATHTOUCH)``). 702.19c: trample over
        planeswalkers is a kind of trample, so a creature with it has trample too."""
        # (one expression: asked for every creature of every plan)
        return keyword in self.keywords or (keyword == _TRAMPLE and _OVER_PLANESWALKERS in self.keywords)

    def deals_damage_in(self, step: str) -> bool:
        """510.4 / 702.7b / 702.4b: which creatures deal combat damage in a step."""
        first = _FIRST_STRIKE in self.keywords
        double = _DOUBLE_STRIKE in self.keywords
        if step == _FIRST_STRIKE_STEP:
            return first or double
        return double or not first


@dataclass(frozen=True)
class Attacker(Creature):
    """An attacking creature: what it attacks, the blockers blocking it (for the legacy rules, in its damage
    assignment order), whether it is blocked, and whether it is a commander (and whose)."""

    attacking: str = ""
    blocked_by: tuple[str, ...] = ()
    blocked: bool = False
    as_though_unblocked: bool = False  # "may assign its combat damage as though it weren't blocked"
    commander: str | None = None  # a commander; the id of its owner (704.6c, 903.10a)


@dataclass(frozen=True)
class Blocker(Creature):
    """A blocking creature: what killing it is worth, its legacy damage order, the player who controls it."""

    value: float = 1
    damage_order: tuple[str, ...] = ()  # legacy rules: the order of the attackers it blocks (510.1d before 2024)
    controller: str | None = None  # the player who controls it (default: see Scenario.blocker_controller)


@dataclass(frozen=True)
class Scenario:
    """One combat damage step (or a whole combat, ``step == "combat"``), immutable: the board of docs/format.md.

    ``scenario[id]`` is the object an id names (every id is unique across the scenario, the type is
    :data:`GameObject`); :meth:`creature`, :meth:`attacker`, :meth:`blocker`, :meth:`player`, :meth:`planeswalker`
    and :meth:`battle` are the same lookup typed for one kind (:class:`TypeError` for an object of another kind).
    Load one with :func:`load_scenario` (bad input: a one-line :class:`FormatError`), write it with :meth:`to_json`.
    """

    attackers: tuple[Attacker, ...]
    blockers: tuple[Blocker, ...] = ()
    players: tuple[Player, ...] = ()
    planeswalkers: tuple[Planeswalker, ...] = ()
    battles: tuple[Battle, ...] = ()
    rules: str = RulesSet.CURRENT
    step: str = Step.REGULAR
    players_in_game: int | None = None  # default: the listed players plus the attacking player
    _index: Mapping[str, GameObject] = field(init=False, default_factory=dict, compare=False, repr=False, hash=False)

    def __post_init__(self) -> None:
        index: dict[str, GameObject] = {}
        for group in (self.players, self.planeswalkers, self.battles, self.attackers, self.blockers):
            for obj in group:
                index[obj.id] = obj
        object.__setattr__(self, "_index", index)

    def __getstate__(self) -> dict[str, Any]:
        """A board pickles and copies as its fields (and their index): what readers keep on the board object
        (trample.outcome.remembered: its settled board, its plans and their engines' caches) stays with the object
        it was read on, not shipped to a worker or carried into a copy."""
        return {f.name: self.__dict__[f.name] for f in _SCENARIO_FIELDS}

    # -- lookups -------------------------------------------------------------------------------
    def __getitem__(self, object_id: str) -> GameObject:
        """The object an id names (:class:`KeyError` for an unknown id)."""
        return self._index[object_id]

    def get(self, object_id: str, default: GameObject | None = None) -> GameObject | None:
        return self._index.get(object_id, default)

    def __contains__(self, object_id: object) -> bool:
        return object_id in self._index

    def creature(self, object_id: str) -> Creature:
        """The attacker or blocker an id names (:class:`KeyError` for an unknown id, :class:`TypeError` for a
        player, planeswalker or battle)."""
        return self._typed(object_id, Creature)

    def attacker(self, object_id: str) -> Attacker:
        return self._typed(object_id, Attacker)

    def blocker(self, object_id: str) -> Blocker:
        return self._typed(object_id, Blocker)

    def player(self, object_id: str) -> Player:
        return self._typed(object_id, Player)

    def planeswalker(self, object_id: str) -> Planeswalker:
        return self._typed(object_id, Planeswalker)

    def battle(self, object_id: str) -> Battle:
        return self._typed(object_id, Battle)

    def _typed(self, object_id: str, cls: type[_O]) -> _O:
        obj = self._index[object_id]
        if not isinstance(obj, cls):
            kind = self.kind(object_id)
            raise TypeError(f"{object_id!r} is {_a(kind)} {kind}, not {_a(cls.__name__)} {cls.__name__.lower()}")
        return obj

    def kind(self, object_id: str) -> ObjectKind:
        """What the id names: ``ObjectKind.PLAYER`` (``"player"``), ``PLANESWALKER``, ``BATTLE``, ``ATTACKER`` or
        ``BLOCKER``."""
        return _KIND[type(self._index[object_id])]

    def controller_of(self, object_id: str) -> str | None:
        """The player who controls a planeswalker, protects a battle, or is the player."""
        obj = self._index[object_id]
        if isinstance(obj, Player):
            return obj.id
        if isinstance(obj, Planeswalker):
            return obj.controller
        if isinstance(obj, Battle):
            return obj.protector
        return None

    def blocking(self, blocker_id: str) -> tuple[str, ...]:
        """Ids of the attackers whose ``blocked_by`` names this blocker, in attacker order."""
        return tuple(a.id for a in self.attackers if blocker_id in a.blocked_by)

    def damage_order(self, blocker_id: str) -> tuple[str, ...]:
        """Legacy rules: the blocker's damage assignment order of the attackers it blocks (its ``damage_order``,
        default the order of ``attackers``)."""
        return self.blocker(blocker_id).damage_order or self.blocking(blocker_id)

    @property
    def game_players(self) -> int:
        """How many players are in the game: ``players_in_game``, default the listed players plus the attacker."""
        return self.players_in_game if self.players_in_game is not None else len(self.players) + 1

    def blocker_controller(self, blocker_id: str) -> str | None:
        """The player who controls a blocker: its ``controller``; else the only listed player; else the player
        attacked (or controlling / protecting what is attacked) by the first attacker it blocks."""
        b = self.blocker(blocker_id)
        if b.controller is not None:
            return b.controller
        if len(self.players) == 1:
            return self.players[0].id
        for a in self.attackers:
            if blocker_id in a.blocked_by:
                return self.controller_of(a.attacking)
        return None

    def receiving(self, object_id: str) -> Receiving:
        """What happens to damage dealt to the object (every kind of object has its ``receiving``)."""
        return self._index[object_id].receiving

    def with_step(self, step: str) -> Scenario:
        return replace(self, step=step)

    # -- JSON ----------------------------------------------------------------------------------
    @classmethod
    def from_json(cls, data: object) -> Scenario:
        return load_scenario(data)

    def to_json(self) -> dict[str, Any]:
        return dump_scenario(self)

    def dumps(self) -> str:
        return json.dumps(self.to_json(), separators=(",", ":"))


def _a(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


#: What an id of a scenario can name.
GameObject = Player | Planeswalker | Battle | Attacker | Blocker


def value_of(obj: GameObject) -> float:
    """What destroying an object is worth to the max-value objective: a blocker's or a planeswalker's ``value``,
    1 for any other object."""
    return obj.value if isinstance(obj, (Blocker, Planeswalker)) else 1


_O = TypeVar("_O", Creature, Attacker, Blocker, Player, Planeswalker, Battle)

_KIND: dict[type, ObjectKind] = {
    Player: ObjectKind.PLAYER,
    Planeswalker: ObjectKind.PLANESWALKER,
    Battle: ObjectKind.BATTLE,
    Attacker: ObjectKind.ATTACKER,
    Blocker: ObjectKind.BLOCKER,
}

_SCENARIO_FIELDS = fields(Scenario)  # what a board pickles as (Scenario.__getstate__)


# ---------------------------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------------------------

# The fields each object accepts, its defaults and bounds: models/fields.py, which the JSON Schemas are built from.
# A table "of its own" is an object's fields without the receiving ones (read into its ``receiving``).
_PLAYER_OWN = F.PLAYER.minus(F.RECEIVING)
_PLANESWALKER_OWN = F.PLANESWALKER.minus(F.RECEIVING)
_BATTLE_OWN = F.BATTLE.minus(F.RECEIVING)
_ATTACKER_OWN = F.ATTACKER.minus(F.CREATURE_BASE).minus(F.CREATURE_EFFECTS).minus(F.RECEIVING)
_BLOCKER_OWN = F.BLOCKER.minus(F.CREATURE_BASE).minus(F.CREATURE_EFFECTS).minus(F.RECEIVING)


def parse_json_text(text: str, path: str = "") -> Any:
    """``json.loads`` with a one-line :class:`FormatError` for text that is not JSON."""
    if not text.strip():
        raise FormatError(path, "not JSON: the input is empty")
    duplicates = _DuplicateKeys()
    finite = _Finite()
    try:
        data = json.loads(
            text,
            object_pairs_hook=duplicates,
            parse_int=_parse_int,
            parse_float=finite.number,
            parse_constant=finite.constant,
        )
    except json.JSONDecodeError as err:
        raise FormatError(path, f"not JSON: {err.msg} at line {err.lineno} column {err.colno}") from None
    except RecursionError:
        raise FormatError(path, "not JSON: nested too deeply") from None
    except _TooManyDigits as err:
        raise FormatError(path, f"not JSON: a number with {err.args[0]} digits (at most {_MAX_DIGITS})") from None
    if not finite.ok:  # NaN, Infinity, 1e309: Python reads them, but they are not JSON numbers
        where = _path_of(data, None, match=lambda v: isinstance(v, float) and not math.isfinite(v))
        message = f"{finite.ok_not} is not a JSON number (JSON numbers are finite)"
        raise FormatError(path, f"{where}: {message}" if where else message) if path else FormatError(where, message)
    if duplicates.found is not None:
        obj, key = duplicates.found
        where = join(_path_of(data, obj), key)
        message = "duplicate key (a JSON object takes each key once)"
        raise FormatError(path, f"{where}: {message}") if path else FormatError(where, message)
    return data


_MAX_DIGITS = 4000  # below Python's int-from-text limit (4300), whose error would not name the place


class _TooManyDigits(ValueError):
    pass


def _parse_int(text: str) -> int:
    if len(text) > _MAX_DIGITS:
        raise _TooManyDigits(len(text.lstrip("-")))
    return int(text)


class _Finite:
    """``parse_float`` / ``parse_constant`` hooks that note the first number which is not finite."""

    def __init__(self) -> None:
        self.ok = True
        self.ok_not = ""

    def _note(self, text: str) -> None:
        if self.ok:
            self.ok, self.ok_not = False, text if len(text) <= 30 else text[:27] + "..."

    def number(self, text: str) -> float:
        value = float(text)
        if not math.isfinite(value):
            self._note(text)
        return value

    def constant(self, text: str) -> float:
        self._note(text)
        return float(text)


class _DuplicateKeys:
    """``object_pairs_hook`` that builds dicts as ``json.loads`` does and remembers the first repeated key
    (a repeated key would otherwise silently keep its last value: ``{"power": 3, "power": 5}`` is 5)."""

    def __init__(self) -> None:
        self.found: tuple[dict[str, Any], str] | None = None

    def __call__(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(pairs)
        if len(obj) != len(pairs) and self.found is None:
            seen = set()
            for key, _ in pairs:
                if key in seen:
                    self.found = (obj, key)
                    break
                seen.add(key)
        return obj


def _path_of(root: object, target: object, match: Callable[[object], bool] | None = None) -> str:
    """The JSON path of the object ``target`` (by identity; or the first value that ``match`` accepts) inside
    ``root``, in document order; walked without recursion."""
    stack: list[tuple[object, str]] = [(root, "")]
    while stack:
        node, where = stack.pop()
        if node is target if match is None else match(node):
            return where
        if isinstance(node, dict):
            stack.extend(reversed([(v, join(where, k)) for k, v in node.items()]))
        elif isinstance(node, list):
            stack.extend(reversed([(v, join(where, i)) for i, v in enumerate(node)]))
    return ""


def load_scenario(data: object, path: str = "") -> Scenario:
    """Validate a decoded JSON object (or JSON text) and build a :class:`Scenario`.

    Raises :class:`FormatError` naming the first problem's JSON path.
    """
    if isinstance(data, (str, bytes)):
        data = parse_json_text(data if isinstance(data, str) else data.decode("utf-8"), path)
    obj = expect_object(data, path or "scenario")
    reject_unknown(obj, F.SCENARIO.names, path)
    rules = F.SCENARIO["rules"].read(obj, path)
    step = F.SCENARIO["step"].read(obj, path)
    for name in F.SCENARIO.required:
        if name not in obj:
            raise FormatError(join(path, name), "required field is missing")

    players = tuple(_each(obj, "players", path, _load_player))
    planeswalkers = tuple(_each(obj, "planeswalkers", path, _load_planeswalker))
    battles = tuple(_each(obj, "battles", path, _load_battle))
    attackers = tuple(_each(obj, "attackers", path, _load_attacker))
    blockers = tuple(_each(obj, "blockers", path, _load_blocker))
    players_in_game = None
    if "players_in_game" in obj:
        players_in_game = F.Field("players_in_game", F.FieldKind.AMOUNT).read(obj, path)
        if players_in_game < max(2, len(players)):
            raise FormatError(
                join(path, "players_in_game"),
                f"must be at least {max(2, len(players))} (2, and every listed player), got {players_in_game}",
            )

    # Unique ids across the whole scenario.
    seen: dict[str, tuple[str, int]] = {}  # id -> where it is (its path built only for the error)
    groups = _groups(players, planeswalkers, battles, attackers, blockers)
    for name, group in groups:
        for i, item in enumerate(group):
            if item.id in seen:
                first = join(join(join(path, seen[item.id][0]), seen[item.id][1]), "id")
                raise FormatError(join(join(join(path, name), i), "id"), f'duplicate id "{item.id}" (also {first})')
            seen[item.id] = (name, i)

    player_ids = {p.id for p in players}
    for i, pw in enumerate(planeswalkers):
        if pw.controller not in player_ids:
            raise FormatError(
                join(join(join(path, "planeswalkers"), i), "controller"), f'unknown player "{pw.controller}"'
            )
    for i, bt in enumerate(battles):
        if bt.protector not in player_ids:
            raise FormatError(join(join(join(path, "battles"), i), "protector"), f'unknown player "{bt.protector}"')
    attackable = player_ids | {p.id for p in planeswalkers} | {b.id for b in battles}
    blocker_ids = {b.id for b in blockers}
    for i, a in enumerate(attackers):
        where = join(join(path, "attackers"), i)
        if a.attacking not in attackable:
            raise FormatError(
                join(where, "attacking"), f'unknown id "{a.attacking}" (expected a player, planeswalker or battle)'
            )
        for j, b in enumerate(a.blocked_by):
            if b not in blocker_ids:
                raise FormatError(join(join(where, "blocked_by"), j), f'unknown blocker "{b}"')
    _check_effect_references(path, players, planeswalkers, battles, attackers, blockers)
    return Scenario(
        attackers=attackers,
        blockers=blockers,
        players=players,
        planeswalkers=planeswalkers,
        battles=battles,
        rules=rules,
        step=step,
        players_in_game=players_in_game,
    )


def _groups(
    players: Sequence[Player],
    planeswalkers: Sequence[Planeswalker],
    battles: Sequence[Battle],
    attackers: Sequence[Attacker],
    blockers: Sequence[Blocker],
) -> tuple[tuple[str, Sequence[GameObject]], ...]:
    """Each list of a scenario's objects with its field's name, in the order the checks report them."""
    return (
        ("players", players),
        ("planeswalkers", planeswalkers),
        ("battles", battles),
        ("attackers", attackers),
        ("blockers", blockers),
    )


def _check_effect_references(
    path: str,
    players: Sequence[Player],
    planeswalkers: Sequence[Planeswalker],
    battles: Sequence[Battle],
    attackers: Sequence[Attacker],
    blockers: Sequence[Blocker],
) -> None:
    """The ids that effect fields name: a blocker's controller and damage order, shield orders, commander damage."""
    player_ids = {p.id for p in players}
    sources = {c.id for c in (*attackers, *blockers)}
    commanders = {a.id for a in attackers if a.commander is not None}
    blocked: dict[str, list[str]] = {}  # blocker id -> the attackers naming it, in order (one pass: linear)
    for a in attackers:
        for bid in a.blocked_by:
            blocked.setdefault(bid, []).append(a.id)
    for i, b in enumerate(blockers):
        if b.controller is not None and b.controller not in player_ids:
            raise FormatError(join(join(join(path, "blockers"), i), "controller"), f'unknown player "{b.controller}"')
        if b.damage_order:
            blocking = blocked.get(b.id, [])
            if sorted(b.damage_order) != sorted(blocking):
                shown = ", ".join(blocking) or "none"
                raise FormatError(
                    join(join(join(path, "blockers"), i), "damage_order"),
                    f"must list each attacker that {b.id} blocks exactly once (those naming it: {shown})",
                )
    groups = _groups(players, planeswalkers, battles, attackers, blockers)
    for name, group in groups:
        for i, item in enumerate(group):
            for j, src in enumerate(item.receiving.shield_order):
                if src not in sources:
                    raise FormatError(
                        join(join(join(join(path, name), i), "shield_order"), j), f'unknown creature "{src}"'
                    )
    for i, p in enumerate(players):
        for cid, _ in p.commander_damage:
            if cid in sources and cid not in commanders:
                raise FormatError(
                    join(join(join(join(path, "players"), i), "commander_damage"), cid),
                    f'"{cid}" is not marked as a commander',
                )


_L = TypeVar("_L")


def _each(obj: Mapping[str, Any], key: str, path: str, loader: Callable[[object, str], _L]) -> list[_L]:
    if key not in obj:
        return []
    where = join(path, key)
    items = expect_list(obj[key], where)
    return [loader(item, f"{where}[{i}]") for i, item in enumerate(items)]  # join(where, i)


def _load_player(data: object, path: str) -> Player:
    obj = expect_object(data, path)
    reject_unknown(obj, F.PLAYER.names, path)
    cd = obj.get("commander_damage", _ABSENT)
    commander_damage = []
    if cd is _ABSENT:
        cd = {}
    else:  # (its path built only where it is present)
        expect_object(cd, join(path, "commander_damage"))
    for key, amount in cd.items():
        expect_str(key, join(join(path, "commander_damage"), key))
        commander_damage.append((key, _int(amount, join(join(path, "commander_damage"), key))))
    values = _PLAYER_OWN.read(obj, path)
    values["commander_damage"] = tuple(sorted(commander_damage))
    values["receiving"] = _receiving(obj, path)
    return _built(Player, values)


#: an absent list or object field (``blocked_by``, ``commander_damage``), told apart from any value given
_ABSENT: Any = object()


def _receiving(obj: Mapping[str, Any], path: str) -> Receiving:
    if F.RECEIVING.names.isdisjoint(obj):
        return NO_EFFECTS
    return _built(Receiving, F.RECEIVING.read(obj, path))


def _load_planeswalker(data: object, path: str) -> Planeswalker:
    obj = expect_object(data, path)
    reject_unknown(obj, F.PLANESWALKER.names, path)
    values = _PLANESWALKER_OWN.read(obj, path)
    values["receiving"] = _receiving(obj, path)
    return _built(Planeswalker, values)


def _load_battle(data: object, path: str) -> Battle:
    obj = expect_object(data, path)
    reject_unknown(obj, F.BATTLE.names, path)
    values = _BATTLE_OWN.read(obj, path)
    values["receiving"] = _receiving(obj, path)
    return _built(Battle, values)


def _keywords(obj: Mapping[str, Any], path: str) -> tuple[Keyword, ...]:
    if "keywords" not in obj:
        return ()
    keywords = expect_list(obj["keywords"], join(path, "keywords"))
    kws: list[Keyword] = []
    for i, kw in enumerate(keywords):
        member = _KEYWORD.get(kw) if isinstance(kw, str) else None
        if member is None or (kw in NEEDS_FIELD and not obj.get(NEEDS_FIELD[kw][0])):
            _bad_keyword(obj, kw, join(join(path, "keywords"), i))
        if member not in kws:  # 702.19g and friends: multiple instances are redundant
            kws.append(member)
    return tuple(kws)


#: keyword text -> its member (a dictionary lookup per keyword of every loaded creature)
_KEYWORD: dict[str, Keyword] = {k: Keyword(k) for k in ALL_KEYWORDS}


def _bad_keyword(obj: Mapping[str, Any], kw: object, where: str) -> NoReturn:
    """The one-line error of a keyword entry that is not a keyword, or needs a field the creature lacks."""
    if not isinstance(kw, str):
        raise FormatError(where, f"expected a keyword string, got {brief(kw)}")
    if kw not in ALL_KEYWORDS:
        better = suggestion(kw)
        hint = f' (the format spells it "{better}")' if better else " (docs/format.md lists the keywords)"
        raise FormatError(where, f'unknown keyword "{kw}"{hint}')
    raise FormatError(where, f'"{kw}" alone does not say how much or from what; {NEEDS_FIELD[kw][1]}')


def _creature_fields(obj: Mapping[str, Any], path: str) -> dict[str, Any]:
    keywords = _keywords(obj, path)
    return {
        **F.CREATURE_BASE.read(obj, path),
        "keywords": keywords,
        **F.CREATURE_EFFECTS.read(obj, path),
        "receiving": _receiving(obj, path),
    }


def _load_attacker(data: object, path: str) -> Attacker:
    obj = expect_object(data, path)
    reject_unknown(obj, F.ATTACKER.names, path)
    fields = _creature_fields(obj, path)
    blocked_by = obj.get("blocked_by", _ABSENT)
    if blocked_by is _ABSENT:
        blocked_by = ()
    elif type(blocked_by) is not list:  # (its path built only for the error)
        expect_list(blocked_by, join(path, "blocked_by"))
    ids = []
    seen = set()  # a set: the check stays linear (100 000 blockers took 47 s with a list)
    for i, b in enumerate(blocked_by):
        if not (type(b) is str and b and b.isascii()):  # else its checks, with its path
            expect_str(b, join(join(path, "blocked_by"), i))
        if b in seen:
            raise FormatError(join(join(path, "blocked_by"), i), f'"{b}" is listed twice')
        seen.add(b)
        ids.append(b)
    own = _ATTACKER_OWN.read(obj, path)
    if own["blocked"] is None:
        own["blocked"] = len(ids) > 0
    elif not own["blocked"] and ids:
        raise FormatError(join(path, "blocked"), "false, but blocked_by names blockers")
    fields.update(own)
    fields["blocked_by"] = tuple(ids)
    return _built(Attacker, fields)


def _load_blocker(data: object, path: str) -> Blocker:
    obj = expect_object(data, path)
    reject_unknown(obj, F.BLOCKER.names, path)
    order = read_names(obj, "damage_order", path, "attacker id")
    if order and len(order) != len(obj["damage_order"]):  # (read_names checked it is a list)
        raise FormatError(join(path, "damage_order"), "names an attacker twice")
    fields = _creature_fields(obj, path)
    fields.update(_BLOCKER_OWN.read(obj, path))
    fields["damage_order"] = order
    return _built(Blocker, fields)


_D = TypeVar("_D")


def _built(cls: type[_D], values: dict[str, Any]) -> _D:
    """``cls(**values)`` for one of the loader's frozen dataclasses (none has a ``__post_init__``) when ``values``
    names each of its fields: the object's dictionary filled at once. A frozen dataclass's ``__init__`` sets each
    field through ``object.__setattr__`` (2.3 µs for an attacker, against 0.25 µs: a tenth of checking a small
    board); the object is the same (equal, hashing alike, its fields the values). Anything else: ``cls(**values)``."""
    if values.keys() != _FIELD_NAMES[cls]:
        return cls(**values)
    made = object.__new__(cls)
    made.__dict__.update(values)
    return made


#: the fields of the classes :func:`_built` makes
_FIELD_NAMES: dict[type, frozenset[str]] = {
    cls: frozenset(f.name for f in fields(cls)) for cls in (Attacker, Blocker, Player, Planeswalker, Battle, Receiving)
}


def _int(value: object, path: str) -> int:
    """An integer from 0 to MAX_NUMBER."""
    return expect_int(value, path, minimum=0, maximum=MAX_NUMBER)


# ---------------------------------------------------------------------------------------------
# Dumping (the normal form: every field written, so load(dump(s)) == s)
# ---------------------------------------------------------------------------------------------


def dump_scenario(s: Scenario) -> dict[str, Any]:
    """The normal form. The fields of docs/effects.md are written only when they differ from their defaults, so a
    scenario without effects dumps exactly as before they existed."""
    out: dict[str, Any] = {"rules": s.rules, "step": s.step}
    if s.players_in_game is not None:
        out["players_in_game"] = s.players_in_game
    out["players"] = []
    for p in s.players:
        d: dict[str, Any] = {"id": p.id, "life": p.life}
        if p.poison:
            d["poison"] = p.poison
        if p.commander_damage:
            d["commander_damage"] = dict(p.commander_damage)
        out["players"].append(_dump_receiving(p, d))
    out["planeswalkers"] = [
        _dump_receiving(
            p,
            {"id": p.id, "controller": p.controller, "loyalty": p.loyalty, "in_combat": p.in_combat, "value": p.value},
        )
        for p in s.planeswalkers
    ]
    out["battles"] = [
        _dump_receiving(b, {"id": b.id, "protector": b.protector, "defense": b.defense, "in_combat": b.in_combat})
        for b in s.battles
    ]
    out["attackers"] = []
    for a in s.attackers:
        d = _dump_creature(a)
        d["attacking"] = a.attacking
        d["blocked_by"] = list(a.blocked_by)
        d["blocked"] = a.blocked
        if a.as_though_unblocked:
            d["as_though_unblocked"] = True
        if a.commander is not None:
            d["commander"] = a.commander
        out["attackers"].append(_dump_receiving(a, d))
    out["blockers"] = []
    for b in s.blockers:
        d = _dump_creature(b)
        d["value"] = b.value
        if b.damage_order:
            d["damage_order"] = list(b.damage_order)
        if b.controller is not None:
            d["controller"] = b.controller
        out["blockers"].append(_dump_receiving(b, d))
    return out


def _dump_creature(c: Creature) -> dict[str, Any]:
    d: dict[str, Any] = {
        "id": c.id,
        "power": c.power,
        "toughness": c.toughness,
        "keywords": list(c.keywords),
        "damage_marked": c.damage_marked,
        "in_combat": c.in_combat,
    }
    if c.toxic:
        d["toxic"] = c.toxic
    if c.tags:
        d["tags"] = list(c.tags)
    if c.deals:
        d["deals"] = [{kind: n} for kind, n in c.deals]
    if c.assigns_toughness:
        d["assigns_toughness"] = True
    return d


def _dump_receiving(obj: GameObject, d: dict[str, Any]) -> dict[str, Any]:
    r = obj.receiving
    if r.prevent:
        d["prevent"] = r.prevent
    if r.prevent_combat:
        d["prevent_combat"] = True
    if r.protection:
        d["protection"] = list(r.protection)
    if r.takes:
        d["takes"] = [{kind: n} for kind, n in r.takes]
    if r.order != "least":
        d["replacement_order"] = r.order
    if r.shield_order:
        d["shield_order"] = list(r.shield_order)
    return d
