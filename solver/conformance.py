"""A conformance suite for other engines, in the spirit of chess engines' perft files (docs/serve.md).

Each case is one damage step with what the rules say about it: the exact number of legal assignments of one side,
some legal assignments (drawn uniformly), and some illegal ones with the rules each breaks. An engine's own test
suite reads the file and holds its engine to it: the same count, every ``legal`` assignment accepted, every
``illegal`` one refused (ideally for the rules listed). ``trample conformance`` writes it.

The boards: the perft suite shipped in ``trample/suites/perft.jsonl`` and boards generated from the arena's
levels (every keyword, shared blockers, planeswalkers, battles, effects), with a seed, so the file is the same
for the same options.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Iterator
from pathlib import Path

from .arena.suites import CURATED_DIR, LEVELS, generate_board
from .combat import Combat
from .indexing import sample
from .limits import deadline_of
from .models import Side, load_scenario

__all__ = ["boards", "case", "cases"]

SIDES = ("attacking", "defending")


def boards(per_level: int = 4, seed: int = 0) -> Iterator[tuple[str, str | None, dict]]:
    """``(name, rule, scenario document)``: the perft suite's boards, then ``per_level`` generated boards of each
    arena level."""
    with open(Path(CURATED_DIR) / "perft.jsonl", encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                doc = json.loads(line)
                yield doc["name"], doc.get("rule"), doc["scenario"]
    for name, level in LEVELS.items():
        for i in range(per_level):
            yield f"{name}/{seed}/{i}", None, generate_board(level, seed, i)


def case(
    name: str, rule: str | None, doc: dict, side: str, legal: int = 3, illegal: int = 3, seed: int = 0, deadline=None
) -> dict:
    """One conformance line for ``side``'s assignment of the step ``doc`` describes."""
    combat = Combat(load_scenario(doc), side=side)
    total = combat.count(time_limit=deadline)
    shown: list[dict]
    if total <= legal:
        shown = [a.to_json() for a in combat.assignments(time_limit=deadline)]
    else:
        shown = []
        for a in sample(combat, 4 * legal, seed, time_limit=deadline):
            if a.to_json() not in shown:
                shown.append(a.to_json())
            if len(shown) == legal:
                break
    rng = random.Random(f"{seed}/{name}/{side}")
    bad: list[dict] = []
    seen: list[dict] = []
    recipients = sorted(_ids(doc))
    for right in shown:
        for wrong in _mutations(right, recipients, rng):
            if len(bad) == illegal:
                break
            if wrong in seen:
                continue
            seen.append(wrong)
            verdict = combat.check(wrong)
            if not verdict.legal:
                rules = sorted({v.rule for v in verdict.violations})
                bad.append({"assignment": wrong, "rules": rules})
    out: dict = {"name": name}
    if rule is not None:
        out["rule"] = rule
    out.update({"side": side, "scenario": doc, "count": total, "legal": shown, "illegal": bad})
    return out


def cases(
    docs: Iterable[tuple[str, str | None, dict]],
    legal: int = 3,
    illegal: int = 3,
    seed: int = 0,
    time_limit=None,
) -> Iterator[dict]:
    """A case per board and side (the defending side only where some blocker assigns damage)."""
    deadline = deadline_of(time_limit)
    for name, rule, doc in docs:
        for side in SIDES:
            if side == Side.DEFENDING and not _blockers_deal(doc):
                continue
            deadline.check()
            yield case(name, rule, doc, side, legal, illegal, seed, deadline)


def _blockers_deal(doc: dict) -> bool:
    return any(b.get("power", 0) > 0 for b in doc.get("blockers", []))


def _ids(doc: dict) -> set[str]:
    out: set[str] = set()
    for key in ("players", "planeswalkers", "battles", "attackers", "blockers"):
        out.update(obj["id"] for obj in doc.get(key, []))
    return out


def _mutations(assignment: dict, recipients: list[str], rng: random.Random) -> Iterator[dict]:
    """Near misses of a legal assignment, the most telling first: one point moved to another recipient (the
    division rules: 510.1c/d, 702.19b/c/f, 506.4c), a point from a source that assigned nothing, then one point
    more or less than the source's power (510.1a)."""
    entries = [(s, r) for s, split in sorted(assignment.items()) for r in sorted(split)]
    rng.shuffle(entries)
    for source, recipient in entries:
        others = [r for r in recipients if r != recipient and r != source]
        if others:
            yield _changed(assignment, source, {recipient: -1, rng.choice(others): 1})
    for source in sorted(s for s, split in assignment.items() if not split):
        others = [r for r in recipients if r != source]
        if others:
            yield _changed(assignment, source, {rng.choice(others): 1})
    for source, recipient in entries:
        yield _changed(assignment, source, {recipient: 1})
        yield _changed(assignment, source, {recipient: -1})


def _changed(assignment: dict, source: str, deltas: dict[str, int]) -> dict:
    out = {s: dict(split) for s, split in assignment.items()}
    for recipient, delta in deltas.items():
        amount = out[source].get(recipient, 0) + delta
        if amount > 0:
            out[source][recipient] = amount
        else:
            out[source].pop(recipient, None)
    return out
