"""The combat scenario of docs/format.md: typed, immutable, validated, and dumped back to the same JSON.

Nothing here knows how damage is assigned; ``solver.rules`` reads these objects and derives that.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from .errors import (
    FormatError,
    brief,
    expect_bool,
    expect_int,
    expect_list,
    expect_number,
    expect_object,
    expect_str,
    join,
    reject_unknown,
)
from .keywords import ALL_KEYWORDS, NEEDS_FIELD, suggestion

#: Every keyword ability of 702 is accepted (an engine's board dump loads as it is); only DAMAGE_KEYWORDS change
#: the answers (models/keywords.py, docs/format.md "Keywords").
KEYWORDS = tuple(ALL_KEYWORDS)
RULES_VARIANTS = ("current", "legacy")
#: Every number of a scenario (power, toughness, damage_marked, life, loyalty, defense, value) lies between
#: -MAX_NUMBER and MAX_NUMBER: the counting programme's tables grow with power, and CP-SAT takes 64-bit
#: integers only. Anything beyond is bad input (README, "The scenario").
MAX_NUMBER = 1_000_000
STEPS = ("regular", "first_strike", "combat")
#: 616.1: the affected player chooses the order of replacement and prevention effects. "least": the order that
#: leaves the least damage (prevention shields first, then multiplications, then additions; the default), "most":
#: the order that leaves the most (additions, then multiplications, then shields). docs/effects.md.
DAMAGE_ORDERS = ("least", "most")
MODIFIERS = ("times", "plus")


@dataclass(frozen=True)
class Receiving:
    """What happens to damage dealt to one object or player (docs/effects.md): prevention and protection (615,
    702.16e), and damage increased or multiplied (``takes``: ``(("times", 2), ("plus", 1))``). None of it changes
    which assignments are legal (702.19b judges lethal on assigned damage)."""

    prevent: int = 0  # a shield: prevent the next N damage that would be dealt to it (615.7)
    prevent_combat: bool = False  # prevent all combat damage that would be dealt to it (615.1)
    protection: tuple[str, ...] = ()  # protection from these qualities (source ids or tags), 702.16e
    takes: tuple[tuple[str, int], ...] = ()  # damage dealt to it is multiplied / increased (614.1a)
    order: str = "least"  # 616.1: the order its controller applies the effects in
    shield_order: tuple[str, ...] = ()  # 615.7: sources whose damage the shield prevents first

    @property
    def is_plain(self) -> bool:
        return self == NO_EFFECTS

    def protected_from(self, source) -> bool:
        """702.16e: a quality of the source (its id or one of its tags) is one it has protection from."""
        if not self.protection:
            return False
        qualities = frozenset(self.protection)  # linear in the lists, not their product (10^5 tags each)
        return source.id in qualities or not qualities.isdisjoint(source.tags)


NO_EFFECTS = Receiving()


@dataclass(frozen=True)
class Player:
    id: str
    life: int = 20
    poison: int = 0  # poison counters (704.5c: ten or more loses)
    commander_damage: tuple[tuple[str, int], ...] = ()  # combat damage already dealt by each commander (704.6c)
    receiving: Receiving = NO_EFFECTS

    def commander_damage_from(self, commander: str) -> int:
        return dict(self.commander_damage).get(commander, 0)


@dataclass(frozen=True)
class Planeswalker:
    id: str
    controller: str
    loyalty: int
    in_combat: bool = True
    value: float = 1
    receiving: Receiving = NO_EFFECTS


@dataclass(frozen=True)
class Battle:
    id: str
    protector: str
    defense: int
    in_combat: bool = True
    receiving: Receiving = NO_EFFECTS


@dataclass(frozen=True)
class Creature:
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

    def has(self, keyword: str) -> bool:
        return keyword in self.keywords

    @property
    def trample(self) -> bool:
        """702.19: trample over planeswalkers is a variant of trample and implies it."""
        return "trample" in self.keywords or "trample_over_planeswalkers" in self.keywords

    @property
    def trample_over_planeswalkers(self) -> bool:
        return "trample_over_planeswalkers" in self.keywords

    @property
    def deathtouch(self) -> bool:
        return "deathtouch" in self.keywords

    @property
    def indestructible(self) -> bool:
        return "indestructible" in self.keywords

    def deals_damage_in(self, step: str) -> bool:
        """510.4 / 702.7b / 702.4b: which creatures deal combat damage in a step."""
        first = "first_strike" in self.keywords
        double = "double_strike" in self.keywords
        if step == "first_strike":
            return first or double
        return double or not first


@dataclass(frozen=True)
class Attacker(Creature):
    attacking: str = ""
    blocked_by: tuple[str, ...] = ()
    blocked: bool = False
    as_though_unblocked: bool = False  # "may assign its combat damage as though it weren't blocked"
    commander: str | None = None  # a commander; the id of its owner (704.6c, 903.10a)


@dataclass(frozen=True)
class Blocker(Creature):
    value: float = 1
    damage_order: tuple[str, ...] = ()  # legacy rules: the order of the attackers it blocks (510.1d before 2024)
    controller: str | None = None  # the player who controls it (default: see Scenario.blocker_controller)


@dataclass(frozen=True)
class Scenario:
    """One combat damage step (or a whole combat, ``step == "combat"``), immutable."""

    attackers: tuple[Attacker, ...]
    blockers: tuple[Blocker, ...] = ()
    players: tuple[Player, ...] = ()
    planeswalkers: tuple[Planeswalker, ...] = ()
    battles: tuple[Battle, ...] = ()
    rules: str = "current"
    step: str = "regular"
    players_in_game: int | None = None  # default: the listed players plus the attacking player
    _index: Mapping[str, object] = field(default=None, compare=False, repr=False, hash=False)  # type: ignore[arg-type]  # built in __post_init__

    def __post_init__(self):
        index = {}
        for group in (self.players, self.planeswalkers, self.battles, self.attackers, self.blockers):
            for obj in group:
                index[obj.id] = obj
        object.__setattr__(self, "_index", index)

    # -- lookups -------------------------------------------------------------------------------
    def __getitem__(self, object_id: str):
        return self._index[object_id]

    def get(self, object_id: str, default=None):
        return self._index.get(object_id, default)

    def __contains__(self, object_id: str) -> bool:
        return object_id in self._index

    def kind(self, object_id: str) -> str:
        """ "player", "planeswalker", "battle", "attacker" or "blocker"."""
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
        return self[blocker_id].damage_order or self.blocking(blocker_id)

    @property
    def game_players(self) -> int:
        """How many players are in the game: ``players_in_game``, default the listed players plus the attacker."""
        return self.players_in_game if self.players_in_game is not None else len(self.players) + 1

    def blocker_controller(self, blocker_id: str) -> str | None:
        """The player who controls a blocker: its ``controller``; else the only listed player; else the player
        attacked (or controlling / protecting what is attacked) by the first attacker it blocks."""
        b = self[blocker_id]
        if b.controller is not None:
            return b.controller
        if len(self.players) == 1:
            return self.players[0].id
        for a in self.attackers:
            if blocker_id in a.blocked_by:
                return self.controller_of(a.attacking)
        return None

    def receiving(self, object_id: str) -> Receiving:
        return getattr(self._index[object_id], "receiving", NO_EFFECTS)

    def with_step(self, step: str) -> Scenario:
        return replace(self, step=step)

    # -- JSON ----------------------------------------------------------------------------------
    @classmethod
    def from_json(cls, data) -> Scenario:
        return load_scenario(data)

    def to_json(self) -> dict:
        return dump_scenario(self)

    def dumps(self) -> str:
        return json.dumps(self.to_json(), separators=(",", ":"))


_KIND = {Player: "player", Planeswalker: "planeswalker", Battle: "battle", Attacker: "attacker", Blocker: "blocker"}


# ---------------------------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------------------------

_TOP = {"rules", "step", "players", "planeswalkers", "battles", "attackers", "blockers", "players_in_game"}
_RECEIVING = {"prevent", "prevent_combat", "protection", "takes", "replacement_order", "shield_order"}
_PLAYER = {"id", "life", "poison", "commander_damage"} | _RECEIVING
_PLANESWALKER = {"id", "controller", "loyalty", "in_combat", "value"} | _RECEIVING
_BATTLE = {"id", "protector", "defense", "in_combat"} | _RECEIVING
_CREATURE = {"id", "power", "toughness", "keywords", "damage_marked", "in_combat"}
_CREATURE |= {"toxic", "tags", "deals", "assigns_toughness"} | _RECEIVING
_ATTACKER = _CREATURE | {"attacking", "blocked_by", "blocked", "as_though_unblocked", "commander"}
_BLOCKER = _CREATURE | {"value", "damage_order", "controller"}


def parse_json_text(text: str, path: str = "") -> object:
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

    def __init__(self):
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

    def __init__(self):
        self.found = None

    def __call__(self, pairs):
        obj = dict(pairs)
        if len(obj) != len(pairs) and self.found is None:
            seen = set()
            for key, _ in pairs:
                if key in seen:
                    self.found = (obj, key)
                    break
                seen.add(key)
        return obj


def _path_of(root, target, match=None) -> str:
    """The JSON path of the object ``target`` (by identity; or the first value that ``match`` accepts) inside
    ``root``, in document order; walked without recursion."""
    stack = [(root, "")]
    while stack:
        node, where = stack.pop()
        if node is target if match is None else match(node):
            return where
        if isinstance(node, dict):
            stack.extend(reversed([(v, join(where, k)) for k, v in node.items()]))
        elif isinstance(node, list):
            stack.extend(reversed([(v, join(where, i)) for i, v in enumerate(node)]))
    return ""


def load_scenario(data, path: str = "") -> Scenario:
    """Validate a decoded JSON object (or JSON text) and build a :class:`Scenario`.

    Raises :class:`FormatError` naming the first problem's JSON path.
    """
    if isinstance(data, (str, bytes)):
        data = parse_json_text(data if isinstance(data, str) else data.decode("utf-8"), path)
    obj = expect_object(data, path or "scenario")
    reject_unknown(obj, _TOP, path)
    rules = obj.get("rules", "current")
    if rules not in RULES_VARIANTS:
        raise FormatError(join(path, "rules"), f'expected "current" or "legacy", got {brief(rules)}')
    step = obj.get("step", "regular")
    if step not in STEPS:
        raise FormatError(join(path, "step"), f'expected "regular", "first_strike" or "combat", got {brief(step)}')
    if "attackers" not in obj:
        raise FormatError(join(path, "attackers"), "required field is missing")

    players = tuple(_each(obj, "players", path, _load_player))
    planeswalkers = tuple(_each(obj, "planeswalkers", path, _load_planeswalker))
    battles = tuple(_each(obj, "battles", path, _load_battle))
    attackers = tuple(_each(obj, "attackers", path, _load_attacker))
    blockers = tuple(_each(obj, "blockers", path, _load_blocker))
    players_in_game = None
    if "players_in_game" in obj:
        players_in_game = _int(obj["players_in_game"], join(path, "players_in_game"))
        if players_in_game < max(2, len(players)):
            raise FormatError(
                join(path, "players_in_game"),
                f"must be at least {max(2, len(players))} (2, and every listed player), got {players_in_game}",
            )

    # Unique ids across the whole scenario.
    seen: dict[str, str] = {}
    for name, group in (
        ("players", players),
        ("planeswalkers", planeswalkers),
        ("battles", battles),
        ("attackers", attackers),
        ("blockers", blockers),
    ):
        for i, item in enumerate(group):
            where = join(join(join(path, name), i), "id")
            if item.id in seen:
                raise FormatError(where, f'duplicate id "{item.id}" (also {seen[item.id]})')
            seen[item.id] = where

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


def _check_effect_references(path, players, planeswalkers, battles, attackers, blockers) -> None:
    """The ids that effect fields name: a blocker's controller and damage order, shield orders, commander damage."""
    player_ids = {p.id for p in players}
    sources = {c.id for c in (*attackers, *blockers)}
    commanders = {a.id for a in attackers if a.commander is not None}
    blocked: dict[str, list[str]] = {}  # blocker id -> the attackers naming it, in order (one pass: linear)
    for a in attackers:
        for bid in a.blocked_by:
            blocked.setdefault(bid, []).append(a.id)
    for i, b in enumerate(blockers):
        where = join(join(path, "blockers"), i)
        if b.controller is not None and b.controller not in player_ids:
            raise FormatError(join(where, "controller"), f'unknown player "{b.controller}"')
        if b.damage_order:
            blocking = blocked.get(b.id, [])
            if sorted(b.damage_order) != sorted(blocking):
                shown = ", ".join(blocking) or "none"
                raise FormatError(
                    join(where, "damage_order"),
                    f"must list each attacker that {b.id} blocks exactly once (those naming it: {shown})",
                )
    for name, group in (
        ("players", players),
        ("planeswalkers", planeswalkers),
        ("battles", battles),
        ("attackers", attackers),
        ("blockers", blockers),
    ):
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


def _each(obj: dict, key: str, path: str, loader) -> Iterable:
    if key not in obj:
        return []
    items = expect_list(obj[key], join(path, key))
    return [loader(item, join(join(path, key), i)) for i, item in enumerate(items)]


def _load_player(data, path) -> Player:
    obj = expect_object(data, path)
    reject_unknown(obj, _PLAYER, path)
    cd = expect_object(obj.get("commander_damage", {}), join(path, "commander_damage"))
    commander_damage = []
    for key, amount in cd.items():
        expect_str(key, join(join(path, "commander_damage"), key))
        commander_damage.append((key, _int(amount, join(join(path, "commander_damage"), key))))
    return Player(
        id=_id(obj, path),
        life=_int(obj.get("life", 20), join(path, "life"), signed=True),
        poison=_int(obj.get("poison", 0), join(path, "poison")),
        commander_damage=tuple(sorted(commander_damage)),
        receiving=_receiving(obj, path),
    )


def _strings(obj, key: str, path: str, what: str = "string") -> tuple[str, ...]:
    """A list of non-empty strings, each once (a repeat is redundant and dropped)."""
    items = expect_list(obj.get(key, []), join(path, key))
    out: dict[str, None] = {}  # in order, each once: linear (a list's `in` made 10^5 tags take 33 s)
    for i, item in enumerate(items):
        if not isinstance(item, str):
            raise FormatError(join(join(path, key), i), f"expected a {what}, got {brief(item)}")
        if item not in out:  # the path is built only for a string seen the first time (or an error)
            expect_str(item, join(join(path, key), i))
            out[item] = None
    return tuple(out)


def _modifiers(obj, key: str, path: str) -> tuple[tuple[str, int], ...]:
    """``[{"times": 2}, {"plus": 1}]``: damage multiplied by / increased by a whole number (614.1a)."""
    items = expect_list(obj.get(key, []), join(path, key))
    out = []
    for i, item in enumerate(items):
        where = join(join(path, key), i)
        m = expect_object(item, where)
        if len(m) != 1 or next(iter(m)) not in MODIFIERS:
            raise FormatError(where, 'expected one of {"times": N} or {"plus": N}')
        kind, amount = next(iter(m.items()))
        out.append((kind, expect_int(amount, join(where, kind), minimum=1, maximum=MAX_NUMBER)))
    return tuple(out)


def _receiving(obj, path) -> Receiving:
    if not any(k in obj for k in _RECEIVING):
        return NO_EFFECTS
    order = obj.get("replacement_order", "least")
    if order not in DAMAGE_ORDERS:
        raise FormatError(join(path, "replacement_order"), f'expected "least" or "most", got {brief(order)}')
    return Receiving(
        prevent=_int(obj.get("prevent", 0), join(path, "prevent")),
        prevent_combat=expect_bool(obj.get("prevent_combat", False), join(path, "prevent_combat")),
        protection=_strings(obj, "protection", path, "quality string"),
        takes=_modifiers(obj, "takes", path),
        order=order,
        shield_order=_strings(obj, "shield_order", path, "creature id"),
    )


def _load_planeswalker(data, path) -> Planeswalker:
    obj = expect_object(data, path)
    reject_unknown(obj, _PLANESWALKER, path)
    return Planeswalker(
        id=_id(obj, path),
        controller=expect_str(_required(obj, "controller", path), join(path, "controller")),
        loyalty=_int(_required(obj, "loyalty", path), join(path, "loyalty")),
        in_combat=expect_bool(obj.get("in_combat", True), join(path, "in_combat")),
        value=expect_number(obj.get("value", 1), join(path, "value"), bound=MAX_NUMBER),
        receiving=_receiving(obj, path),
    )


def _load_battle(data, path) -> Battle:
    obj = expect_object(data, path)
    reject_unknown(obj, _BATTLE, path)
    return Battle(
        id=_id(obj, path),
        protector=expect_str(_required(obj, "protector", path), join(path, "protector")),
        defense=_int(_required(obj, "defense", path), join(path, "defense")),
        in_combat=expect_bool(obj.get("in_combat", True), join(path, "in_combat")),
        receiving=_receiving(obj, path),
    )


def _creature_fields(obj, path) -> dict:
    keywords = expect_list(obj.get("keywords", []), join(path, "keywords"))
    kws = []
    for i, kw in enumerate(keywords):
        where = join(join(path, "keywords"), i)
        if not isinstance(kw, str):
            raise FormatError(where, f"expected a keyword string, got {brief(kw)}")
        if kw not in ALL_KEYWORDS:
            better = suggestion(kw)
            hint = f' (the format spells it "{better}")' if better else " (docs/format.md lists the keywords)"
            raise FormatError(where, f'unknown keyword "{kw}"{hint}')
        if kw in NEEDS_FIELD and not obj.get(NEEDS_FIELD[kw][0]):
            raise FormatError(where, f'"{kw}" alone does not say how much or from what; {NEEDS_FIELD[kw][1]}')
        if kw not in kws:  # 702.19g and friends: multiple instances are redundant
            kws.append(kw)
    return dict(
        id=_id(obj, path),
        power=_int(_required(obj, "power", path), join(path, "power"), signed=True),
        toughness=_int(_required(obj, "toughness", path), join(path, "toughness")),
        keywords=tuple(kws),
        damage_marked=_int(obj.get("damage_marked", 0), join(path, "damage_marked")),
        in_combat=expect_bool(obj.get("in_combat", True), join(path, "in_combat")),
        toxic=_int(obj.get("toxic", 0), join(path, "toxic")),
        tags=_strings(obj, "tags", path, "tag string"),
        deals=_modifiers(obj, "deals", path),
        assigns_toughness=expect_bool(obj.get("assigns_toughness", False), join(path, "assigns_toughness")),
        receiving=_receiving(obj, path),
    )


def _load_attacker(data, path) -> Attacker:
    obj = expect_object(data, path)
    reject_unknown(obj, _ATTACKER, path)
    fields = _creature_fields(obj, path)
    blocked_by = expect_list(obj.get("blocked_by", []), join(path, "blocked_by"))
    ids = []
    seen = set()  # a set: the check stays linear (100 000 blockers took 47 s with a list)
    for i, b in enumerate(blocked_by):
        where = join(join(path, "blocked_by"), i)
        expect_str(b, where)
        if b in seen:
            raise FormatError(where, f'"{b}" is listed twice')
        seen.add(b)
        ids.append(b)
    blocked = obj.get("blocked", len(ids) > 0)
    expect_bool(blocked, join(path, "blocked"))
    if not blocked and ids:
        raise FormatError(join(path, "blocked"), "false, but blocked_by names blockers")
    return Attacker(
        **fields,
        attacking=expect_str(_required(obj, "attacking", path), join(path, "attacking")),
        blocked_by=tuple(ids),
        blocked=blocked,
        as_though_unblocked=expect_bool(obj.get("as_though_unblocked", False), join(path, "as_though_unblocked")),
        commander=expect_str(obj["commander"], join(path, "commander")) if "commander" in obj else None,
    )


def _load_blocker(data, path) -> Blocker:
    obj = expect_object(data, path)
    reject_unknown(obj, _BLOCKER, path)
    order = _strings(obj, "damage_order", path, "attacker id")
    if len(order) != len(expect_list(obj.get("damage_order", []), join(path, "damage_order"))):
        raise FormatError(join(path, "damage_order"), "names an attacker twice")
    return Blocker(
        **_creature_fields(obj, path),
        value=expect_number(obj.get("value", 1), join(path, "value"), bound=MAX_NUMBER),
        damage_order=order,
        controller=expect_str(obj["controller"], join(path, "controller")) if "controller" in obj else None,
    )


def _int(value, path: str, signed: bool = False) -> int:
    """An integer of at most MAX_NUMBER; not negative unless ``signed`` (power and life may be)."""
    return expect_int(value, path, minimum=-MAX_NUMBER if signed else 0, maximum=MAX_NUMBER)


def _id(obj, path) -> str:
    return expect_str(_required(obj, "id", path), join(path, "id"))


def _required(obj, key, path):
    if key not in obj:
        raise FormatError(join(path, key), "required field is missing")
    return obj[key]


# ---------------------------------------------------------------------------------------------
# Dumping (the normal form: every field written, so load(dump(s)) == s)
# ---------------------------------------------------------------------------------------------


def dump_scenario(s: Scenario) -> dict:
    """The normal form. The fields of docs/effects.md are written only when they differ from their defaults, so a
    scenario without effects dumps exactly as before they existed."""
    out: dict = {"rules": s.rules, "step": s.step}
    if s.players_in_game is not None:
        out["players_in_game"] = s.players_in_game
    out["players"] = []
    for p in s.players:
        d = {"id": p.id, "life": p.life}
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


def _dump_creature(c: Creature) -> dict:
    d = {
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


def _dump_receiving(obj, d: dict) -> dict:
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
