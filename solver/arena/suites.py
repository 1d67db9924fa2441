"""Suites: the boards players are scored on.

A suite is a list of items ``{"id": str, "scenario": {...docs/format.md...}, "objective": str | None, ...}``.

- :func:`generate` draws boards from a named :class:`Level` (attackers, blockers, keyword mix, shared
  blockers, planeswalkers, battles, first strike). Board ``i`` depends only on ``(level, seed, i)``, so a suite
  of 100 is the first 100 of a suite of 1000 and the same on every machine.
- :func:`load_suite` reads curated JSON Lines files (``solver/suites/*.jsonl``): a line is either a scenario
  or an object with a ``scenario`` field (perft lines, recorded boards), optionally ``name``, ``rule`` and
  ``objective``.
"""

from __future__ import annotations

import itertools
import os
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import overload

from ..combat import Combat
from ..documents import read_text
from ..indexing import count
from ..models import FormatError, Keyword, Step, load_scenario, parse_json_text
from .objectives import parse_objectives

#: The curated suites ship inside the package (solver/suites/*.jsonl, package data): a plain ``pip install``
#: has them, and ``trample arena known-mistakes`` names one from any folder.
CURATED_DIR = Path(__file__).resolve().parents[1] / "suites"


@dataclass(frozen=True)
class Level:
    """How boards of one difficulty are drawn. Ranges are inclusive ``(low, high)``."""

    name: str
    description: str
    attackers: tuple[int, int] = (1, 1)
    blockers: tuple[int, int] = (0, 2)
    power: tuple[int, int] = (1, 6)
    toughness: tuple[int, int] = (1, 6)
    blocker_power: tuple[int, int] = (0, 4)
    # keyword -> probability that an attacker (resp. a blocker) has it
    attacker_keywords: dict = field(default_factory=lambda: {"trample": 0.5})
    blocker_keywords: dict = field(default_factory=dict)
    shared: float = 0.0  # probability that a blocker also blocks a second attacker
    unblocked: float = 0.2  # probability that an attacker is left unblocked when blockers remain
    planeswalkers: tuple[int, int] = (0, 0)
    battles: tuple[int, int] = (0, 0)
    players: tuple[int, int] = (1, 1)
    first_strike: float = 0.0  # probability that the board is the first-strike damage step
    legacy: float = 0.0  # probability of the legacy rules (damage assignment order)
    marked: float = 0.0  # probability that a blocker already has damage marked
    removed: float = 0.0  # probability that a blocker / planeswalker / battle has left combat
    life: tuple[int, int] = (3, 20)
    min_assignments: int = 2  # a board with fewer legal assignments has nothing to decide: it is drawn again

    def to_json(self) -> dict:
        return asdict(self)


_KW = {"trample": 0.5, "deathtouch": 0.2, "first_strike": 0.1, "double_strike": 0.15}

LEVELS: dict[str, Level] = {
    lv.name: lv
    for lv in (
        Level(
            "tiny",
            "one attacker, up to two blockers, trample half the time",
            attackers=(1, 1),
            blockers=(0, 2),
            power=(1, 5),
        ),
        Level("basic", "one or two attackers, up to three blockers", attackers=(1, 2), blockers=(0, 3)),
        Level(
            "keywords",
            "deathtouch, first and double strike, indestructible blockers, damage already marked",
            attackers=(1, 3),
            blockers=(1, 3),
            attacker_keywords=dict(_KW),
            blocker_keywords={"deathtouch": 0.15, "indestructible": 0.15, "first_strike": 0.1},
            marked=0.25,
        ),
        Level(
            "shared",
            "blockers that block several attackers at once (joint lethal, 510.1e)",
            attackers=(2, 4),
            blockers=(1, 3),
            power=(1, 5),
            shared=0.7,
            attacker_keywords={"trample": 0.6, "deathtouch": 0.15},
        ),
        Level(
            "planeswalkers",
            "attacks on planeswalkers, trample over planeswalkers, bounced planeswalkers",
            attackers=(1, 3),
            blockers=(0, 2),
            planeswalkers=(1, 2),
            removed=0.1,
            attacker_keywords={"trample": 0.4, "trample_over_planeswalkers": 0.4},
        ),
        Level(
            "battles",
            "attacks on battles (702.19b; no damage to the protector)",
            attackers=(1, 3),
            blockers=(0, 2),
            battles=(1, 2),
            removed=0.1,
        ),
        Level(
            "first-strike",
            "the first-strike damage step and double strike",
            attackers=(1, 3),
            blockers=(0, 3),
            first_strike=0.6,
            attacker_keywords={"trample": 0.5, "first_strike": 0.35, "double_strike": 0.35},
            blocker_keywords={"first_strike": 0.2},
        ),
        Level(
            "mixed",
            "everything at once, up to four attackers and four blockers, two players",
            attackers=(1, 4),
            blockers=(0, 4),
            power=(1, 6),
            attacker_keywords=dict(_KW, trample_over_planeswalkers=0.15),
            blocker_keywords={"deathtouch": 0.1, "indestructible": 0.1},
            shared=0.35,
            planeswalkers=(0, 2),
            battles=(0, 1),
            players=(1, 2),
            first_strike=0.15,
            legacy=0.1,
            marked=0.15,
            removed=0.05,
        ),
        Level(
            "large",
            "five to eight attackers against four to eight blockers",
            attackers=(5, 8),
            blockers=(4, 8),
            power=(1, 8),
            attacker_keywords=dict(_KW),
            blocker_keywords={"deathtouch": 0.1},
            shared=0.3,
            planeswalkers=(0, 1),
            marked=0.1,
            life=(10, 30),
        ),
    )
}
DEFAULT_LEVEL = "mixed"


def get_level(name: str) -> Level:
    if name not in LEVELS:
        raise FormatError("level", f'unknown level "{name}" (expected {", ".join(LEVELS)})')
    return LEVELS[name]


def _rng(level: str, seed: int, i: int) -> random.Random:
    return random.Random(f"trample-arena/{level}/{seed}/{i}")  # str seeds are hashed with SHA-512: stable


def _keywords(rng: random.Random, mix: dict) -> list[str]:
    kws = [kw for kw, p in mix.items() if rng.random() < p]
    if Keyword.FIRST_STRIKE in kws and Keyword.DOUBLE_STRIKE in kws:
        kws.remove(rng.choice([Keyword.FIRST_STRIKE, Keyword.DOUBLE_STRIKE]))
    if Keyword.TRAMPLE_OVER_PLANESWALKERS in kws and Keyword.TRAMPLE in kws:
        kws.remove(Keyword.TRAMPLE)
    return kws


def generate_board(level: Level, seed: int, i: int) -> dict:
    """Board ``i`` of ``level`` for ``seed``: a docs/format.md scenario dict with at least ``level.min_assignments``
    legal assignments (boards are drawn from one seeded stream until one qualifies; at most 1000 draws)."""

    rng = _rng(level.name, seed, i)
    for _ in range(1000):
        board = _draw_board(level, rng)
        if level.min_assignments <= 1 or count(Combat(board)) >= level.min_assignments:
            return board
    raise ValueError(f"level {level.name!r}: no board with {level.min_assignments} legal assignments in 1000 draws")


def _draw_board(level: Level, rng: random.Random) -> dict:
    """One board of a level, drawn from ``rng`` in a fixed order (players, planeswalkers, battles, attackers,
    blockers, the step, the rules: a stable stream)."""
    players, walkers, battles = _draw_targets(level, rng)
    pids = [p["id"] for p in players]
    targets = pids + [w["id"] for w in walkers] + [b["id"] for b in battles]
    defender = (
        {p: p for p in pids} | {w["id"]: w["controller"] for w in walkers} | {b["id"]: b["protector"] for b in battles}
    )
    weights = [1.0] * len(pids) + [2.0] * (len(walkers) + len(battles))
    attackers: list[dict] = []
    for k in range(rng.randint(*level.attackers)):
        attackers.append(
            {
                "id": f"a{k + 1}",
                "power": rng.randint(*level.power),
                "toughness": rng.randint(*level.toughness),
                "keywords": _keywords(rng, level.attacker_keywords),
                "attacking": rng.choices(targets, weights)[0],
                "blocked_by": [],
            }
        )
    blockers = _draw_blockers(level, rng, attackers, defender)
    step = "first_strike" if rng.random() < level.first_strike else "regular"
    strikes = {Keyword.FIRST_STRIKE, Keyword.DOUBLE_STRIKE}
    if step == Step.FIRST_STRIKE and not any(strikes & set(a["keywords"]) for a in attackers):
        # 510.4: a first-strike step where no attacker strikes would have nothing to decide
        rng.choice(attackers)["keywords"].append(rng.choice(["first_strike", "double_strike"]))
    rules = "legacy" if rng.random() < level.legacy else "current"
    board = {"rules": rules, "step": step, "players": players}
    if walkers:
        board["planeswalkers"] = walkers
    if battles:
        board["battles"] = battles
    board["attackers"] = attackers
    if blockers:
        board["blockers"] = blockers
    return board


def _draw_targets(level: Level, rng: random.Random) -> tuple[list[dict], list[dict], list[dict]]:
    """What can be attacked: the players, their planeswalkers and the battles they protect."""
    n_players = rng.randint(*level.players)
    players = [{"id": "opp" if k == 0 else f"opp{k + 1}", "life": rng.randint(*level.life)} for k in range(n_players)]
    pids = [p["id"] for p in players]
    walkers = []
    for k in range(rng.randint(*level.planeswalkers)):
        walkers.append(
            {
                "id": f"pw{k + 1}",
                "controller": rng.choice(pids),
                "loyalty": rng.randint(1, 6),
                "value": rng.randint(1, 5),
                "in_combat": rng.random() >= level.removed,
            }
        )
    battles = []
    for k in range(rng.randint(*level.battles)):
        battles.append(
            {
                "id": f"bt{k + 1}",
                "protector": rng.choice(pids),
                "defense": rng.randint(1, 6),
                "in_combat": rng.random() >= level.removed,
            }
        )
    return players, walkers, battles


def _draw_blockers(level: Level, rng: random.Random, attackers: list[dict], defender: dict[str, str]) -> list[dict]:
    """The blockers, each added to the ``blocked_by`` of the attackers it blocks (shuffled: the declaration order is
    the defender's); an attacker no one blocks loses its empty ``blocked_by``."""
    blockers = []
    n_blockers = rng.randint(*level.blockers)
    # which attackers get blocked at all (each blocker then blocks one of them, some also a second one)
    blocked = [a for a in attackers if rng.random() >= level.unblocked] or (
        [rng.choice(attackers)] if n_blockers else []
    )
    for k in range(n_blockers):
        tough = rng.randint(*level.toughness)
        power = rng.randint(*level.blocker_power)  # drawn in this order: power, keywords, value (a stable stream)
        keywords = _keywords(rng, level.blocker_keywords)
        b: dict = {
            "id": f"b{k + 1}",
            "power": power,
            "toughness": tough,
            "keywords": keywords,
            "value": rng.randint(1, 5),
        }
        if rng.random() < level.marked:
            marked = rng.randint(1, tough)
            # 704.5g: a creature with lethal damage marked would already have died (unless indestructible)
            if marked < tough or Keyword.INDESTRUCTIBLE in keywords:
                b["damage_marked"] = marked
        if rng.random() < level.removed:
            b["in_combat"] = False
        first = rng.choice(blocked)
        first["blocked_by"].append(b["id"])
        if len(blocked) > 1 and rng.random() < level.shared:
            # 506.2, 509.1a: a blocker is the defending player's; it can block only creatures attacking that player
            # (or a planeswalker they control, a battle they protect), so a second attacker attacks the same one
            same = [a for a in blocked if a is not first and defender[a["attacking"]] == defender[first["attacking"]]]
            if same:
                rng.choice(same)["blocked_by"].append(b["id"])
        blockers.append(b)
    for a in attackers:
        rng.shuffle(a["blocked_by"])  # the declaration order is the defender's, not ours
        if not a["blocked_by"]:
            del a["blocked_by"]
    return blockers


def generate(level: str | Level, n: int, seed: int = 0, start: int = 0) -> list[dict]:
    """``n`` suite items of a named level (boards ``start .. start + n - 1``)."""
    lv = get_level(level) if isinstance(level, str) else level
    return [_drawn(lv, seed, i) for i in range(start, start + n)]


def _drawn(lv: Level, seed: int, i: int) -> dict:
    return {"id": f"{lv.name}/{seed}/{i}", "scenario": generate_board(lv, seed, i), "level": lv.name}


class LazySuite(Sequence):
    """A suite whose boards are made when they are read (:class:`GeneratedSuite`, :class:`DrawnSuite`): the arena
    takes it as it is, a chunk at a time, rather than as a list. ``n`` boards; ``_take(start, stop)`` makes boards
    ``start .. stop - 1``."""

    n: int

    def __len__(self) -> int:
        return self.n

    @overload
    def __getitem__(self, i: int) -> dict: ...

    @overload
    def __getitem__(self, i: slice) -> list[dict]: ...

    def __getitem__(self, i: int | slice) -> dict | list[dict]:
        if isinstance(i, slice):
            start, stop, step = i.indices(self.n)
            if step < 0:
                return [self[k] for k in range(start, stop, step)]
            return self._take(start, max(start, stop))[::step]
        k = i + self.n if i < 0 else i
        if not 0 <= k < self.n:
            raise IndexError(f"board {i} of a suite of {self.n}")
        return self._take(k, k + 1)[0]

    def _take(self, start: int, stop: int) -> list[dict]:
        raise NotImplementedError


class DrawnSuite(LazySuite):
    """``n`` boards drawn in order from one seeded stream (``boards()``: a fresh iterator of the suite's items,
    the declaration arenas' generators), each when first read. Reading on from where the last read ended
    continues the stream; reading back starts it again (the arena reads its chunks in order)."""

    def __init__(self, boards: Callable[[], Iterator[dict]], n: int):
        self._boards, self.n = boards, max(0, int(n))
        self._stream: Iterator[dict] | None = None
        self._at = 0

    def _take(self, start: int, stop: int) -> list[dict]:
        if self._stream is None or start < self._at:
            self._stream, self._at = self._boards(), 0
        for _ in range(start - self._at):
            next(self._stream)
        out = list(itertools.islice(self._stream, stop - start))
        self._at = start + len(out)
        return out


class GeneratedSuite(LazySuite):
    """The suite :func:`generate` makes, each board made when it is read: ``arena --n 1000000`` starts playing at
    once and holds only the boards it has reached, and a run stopped by its time limit has played boards rather
    than spent the limit drawing the rest (a board costs about 0.35 ms to draw and count). Indexing and slicing
    give :func:`generate`'s items (board ``i`` depends only on ``(level, seed, i)``); nothing is kept."""

    def __init__(self, level: str | Level, n: int, seed: int = 0):
        self.level = get_level(level) if isinstance(level, str) else level
        self.n, self.seed = max(0, int(n)), seed

    def _take(self, start: int, stop: int) -> list[dict]:
        return [_drawn(self.level, self.seed, k) for k in range(start, stop)]


def custom_level(base: str, **overrides) -> Level:
    """A named level with some fields replaced (ranges as ``(low, high)``)."""
    lv = get_level(base)
    return replace(lv, name=overrides.pop("name", f"{base}*"), **overrides)


# ---------------------------------------------------------------------------------------------
# Curated files
# ---------------------------------------------------------------------------------------------


def curated_files() -> list[Path]:
    """The curated suites shipped with trample; an install that lost them is an error, not an empty list."""
    files = sorted(CURATED_DIR.glob("*.jsonl"))
    if not files:
        raise FileNotFoundError(f"trample's curated suites are missing from {CURATED_DIR} (a broken install?)")
    return files


def suite_file(name: str) -> str:
    """A suite argument as a file: an existing path as it is, else a curated suite's name (``known-mistakes``,
    with or without ``.jsonl``); neither is bad input naming the argument and the suites there are."""
    if name == "-" or os.path.exists(name):
        return name
    stem = name[: -len(".jsonl")] if name.endswith(".jsonl") else name
    if "/" not in stem and os.sep not in stem:
        for path in curated_files():
            if path.stem == stem:
                return str(path)
    names = ", ".join(p.stem for p in curated_files())
    raise FormatError(name, f"no such file, and no curated suite of that name (curated: {names})")


def load_suite(path, text: str | None = None) -> list[dict]:
    """Items of a JSON Lines suite file (a bad line is a :class:`FormatError` naming its line)."""
    path = str(path)
    if text is None:
        text = read_text(suite_file(path))  # errors name the suite as the user gave it
    stem = Path(path).stem if path != "-" else "stdin"
    items = []
    for n, line in enumerate(text.split("\n"), 1):  # not splitlines(): JSON strings may hold U+2028 raw
        if not line.strip():
            continue
        where = f"{path}: line {n}"
        doc = parse_json_text(line, where)
        items.append(_item(doc, f"{stem}:{n}", where))
    return items


def _item(doc, default_id: str, where: str) -> dict:
    if isinstance(doc, dict) and "scenario" in doc and "attackers" not in doc:
        item = dict(doc)
        scenario = doc["scenario"]
    else:
        item, scenario = {}, doc
    if isinstance(scenario, str):  # JSON text inside a JSON string: load_scenario would decode it again
        raise FormatError(f"{where}: scenario", "expected an object, got a string")
    parsed = load_scenario(scenario, f"{where}: scenario")  # validate now: bad input is reported before any work
    one_step(parsed, f"{where}: scenario.step")
    objective = item.get("objective")
    if objective is not None:
        parse_objectives(objective, parsed, f"{where}: objective")
    out = {"id": str(item.get("name") or item.get("id") or default_id), "scenario": scenario}
    for key in ("objective", "rule", "name", "level"):
        if item.get(key) is not None:
            out[key] = item[key]
    return out


def one_step(scenario, path: str = "scenario.step") -> None:
    """The arena scores one damage step; a whole combat (``"step": "combat"``) is bad input here."""
    if scenario.step == Step.COMBAT:
        raise FormatError(path, 'the arena scores one damage step ("regular" or "first_strike"), not "combat"')
