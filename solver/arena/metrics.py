"""Judging decisions and summarising them per player.

For each board the *reference* is computed once: the optimum of the objective (``Combat.solve``) and its
value read by :func:`trample.arena.objectives.score`, and whether a lethal assignment exists (``Combat.solve``
with the ``lethal`` objective). Each player's decision is then

- **illegal** when ``Combat.check`` finds a violation (the rules broken are kept), or when the player failed to
  answer (rules ``timeout``, ``crash``, ``bad-output``, ``error``);
- otherwise scored: its objective values, the **regret** per objective (optimum minus value, signed so that
  positive is worse), **optimal** when every objective equals the optimum, and **lethal** when every
  defending player loses the game after it (:func:`trample.arena.objectives.is_lethal`: read on what the damage
  does -- prevention, lifelink, poison, commander damage -- never on the damage assigned).

Summaries: illegal rate (and how often each rule was broken), regret mean and max over the legal decisions,
share of optimal decisions (over all decisions), lethal found when lethal exists, decision time; each estimate
with a 95% confidence interval (``row["ci"]``, :mod:`trample.arena.stats`), and per level (:func:`summarize_levels`).
"""

from __future__ import annotations

import copy
import hashlib
import math
import statistics
from collections import Counter
from fractions import Fraction

from ..check import check
from ..combat import Combat
from ..indexing import count
from ..models import Assignment, FormatError, ObjectiveKind, Scenario, Side, load_assignment
from ..rules import derive
from .objectives import is_lethal, parse_objectives, played_line, regrets, score_all
from .stats import bootstrap, seed_of, wilson

TIMING_KEYS = ("time_ms",)


def decision_seed(seed: int, index: int, player: str) -> int:
    """The seed a player gets for board ``index``: stable across processes, machines and backends."""
    digest = hashlib.sha256(f"{seed}/{index}/{player}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def board_size(scenario: Scenario) -> dict:
    """How big a board is: creatures, attacking power, and the exact number of legal assignments."""

    return {
        "attackers": len(scenario.attackers),
        "blockers": len(scenario.blockers),
        "creatures": len(scenario.attackers) + len(scenario.blockers),
        "power": sum(max(0, a.power) for a in scenario.attackers),
        "assignments": count(Combat(scenario)),
    }


def reference(scenario: Scenario, objectives) -> dict:
    """The optimum of one board (``Combat.solve``): its values, the assignment, and whether lethal exists."""

    combat = Combat(scenario)
    result = combat.solve([o.name for o in objectives])
    assert isinstance(result.assignment, Assignment)  # one step always has a legal assignment (510.1)
    best = Assignment(result.assignment)
    verdict = combat.check(best)
    if not verdict.legal:  # never score players against an illegal "optimum"
        raise RuntimeError(f"Combat.solve returned an illegal assignment: {verdict.violations[0].message}")
    values = score_all(combat, best, objectives)
    # Whether a lethal assignment exists does not depend on the objective asked: the optimum's line when it is
    # lethal, else the line of the lethal objective (read on what the damage does, like every decision).
    lethal = is_lethal(combat, best)
    if not lethal and scenario.players and objectives[0].kind != ObjectiveKind.LETHAL:
        line = combat.solve(["lethal"]).assignment
        assert isinstance(line, Assignment)
        lethal = is_lethal(combat, line)
    return {"status": result.status, "values": values, "assignment": best.to_json(), "lethal_exists": lethal}


def blank_decision(player: str, time_ms: float | None) -> dict:
    """A decision's record before it is judged (as it stays when it is illegal or failed): every field, in the
    results file's order."""
    return {
        "player": player,
        "legal": False,
        "rules": [],
        "violations": [],
        "values": None,
        "regret": None,
        "primary_regret": None,
        "optimal": False,
        "lethal": None,
        "assignment": None,
        "time_ms": time_ms,
    }


def judge(
    scenario: Scenario, objectives, ref: dict, player: str, output=None, failure=None, time_ms: float | None = None
) -> dict:
    """One decision's record. ``output`` is what the player returned; ``failure`` a (kind, message) pair."""

    rec = blank_decision(player, time_ms)
    if failure is None:
        try:
            assignment = load_assignment(plain_output(output), scenario)
        except FormatError as err:
            failure = ("bad-output", f"not an assignment: {err}")
        except (TypeError, ValueError, AttributeError) as err:
            failure = ("bad-output", f"not an assignment: {err}")
    if failure is not None:
        kind, message = failure
        rec["rules"] = [kind]
        rec["violations"] = [{"rule": kind, "message": message}]
        return rec
    rec["assignment"] = assignment.to_json()
    verdict = check(derive(scenario, Side.ATTACKING), assignment)
    if not verdict.legal:
        rules = []
        for v in verdict.violations:
            if v.rule not in rules:
                rules.append(v.rule)
        rec["rules"] = rules
        rec["violations"] = [v.to_json() for v in verdict.violations[:5]]
        return rec
    # the defending player divides the damage of an attacker blocked by a creature with banding (702.22j,
    # trample.rules.divider): the decision is scored on the line as played, that division the defender's
    played, values, outcome = played_line(scenario, assignment, objectives)
    if played != assignment:
        rec["assignment"] = played.to_json()
        rec["divided_by_defender"] = sorted(k for k in played if played[k] != assignment.get(k, {}))
    assignment = played
    if values is None:
        values = score_all(scenario, assignment, objectives)
        lethal = is_lethal(scenario, assignment)
    else:  # the line chosen with the blockers' damage (702.22k): its own outcome
        lost = {p for p, _ in outcome.losers}
        lethal = bool(scenario.players) and all(p.id in lost for p in scenario.players)
    reg = regrets(objectives, values, ref["values"])
    rec.update(
        legal=True,
        values=values,
        regret=reg,
        primary_regret=reg[objectives[0].name],
        optimal=all(r == 0 for r in reg.values()),
        lethal=lethal,
    )
    return rec


def plain_output(output):
    """A player's output as plain JSON data (an Assignment, a Mapping, or a decoded JSON object)."""
    if isinstance(output, Assignment):
        return output.to_json()
    if isinstance(output, dict):
        return output
    if hasattr(output, "items"):
        return {k: dict(v) if hasattr(v, "items") else v for k, v in output.items()}
    raise TypeError(f"a player returned {type(output).__name__}, not an assignment")


def objectives_of(item: dict, default: str, scenario: Scenario, where: str = "objective"):
    objective = item.get("objective")
    return parse_objectives(default if objective is None else objective, scenario, where)


# ---------------------------------------------------------------------------------------------
# Summaries
# ---------------------------------------------------------------------------------------------


def summarize(boards: list[dict], players: list[str]) -> list[dict]:
    """One leaderboard row per player, best first (fewest illegal, then least regret, then most optimal)."""
    rows = []
    for name in players:
        recs = [d for b in boards for d in b["decisions"] if d["player"] == name]
        lethal_recs = [
            d
            for b, d in ((b, d) for b in boards for d in b["decisions"])
            if d["player"] == name and b["reference"]["lethal_exists"]
        ]
        n = len(recs)
        legal = [d for d in recs if d["legal"]]
        rules = Counter(r for d in recs if not d["legal"] for r in d["rules"])
        regs = [d["primary_regret"] for d in legal]
        times = [d["time_ms"] for d in recs if d.get("time_ms") is not None]
        found = sum(1 for d in lethal_recs if d["lethal"])
        optimal = sum(1 for d in recs if d["optimal"])
        rows.append(
            {
                "player": name,
                "decisions": n,
                "illegal": n - len(legal),
                "illegal_rate": _ratio(n - len(legal), n),
                "illegal_rules": dict(rules.most_common()),
                "regret_mean": _mean(regs) if regs else None,
                "regret_max": max(regs) if regs else None,
                "optimal": sum(1 for d in recs if d["optimal"]),
                "optimal_share": _ratio(sum(1 for d in recs if d["optimal"]), n),
                "lethal_exists": len(lethal_recs),
                "lethal_found": found,
                "lethal_rate": _ratio(found, len(lethal_recs)) if lethal_recs else None,
                "time_ms_mean": _round(statistics.fmean(times), 3) if times else None,
                "time_ms_median": _round(statistics.median(times), 3) if times else None,
                "time_ms_max": _round(max(times), 3) if times else None,
                "time_ms_median_ci": bootstrap(times, "median", seed_of(name, "time")),  # wall clock: not in "ci"
                "ci": {  # 95% confidence intervals (trample.arena.stats)
                    "illegal_rate": wilson(n - len(legal), n),
                    "regret_mean": bootstrap(regs, "mean", seed_of(name, "regret")) if _as_floats(regs) else None,
                    "optimal_share": wilson(optimal, n),
                    "lethal_rate": wilson(found, len(lethal_recs)),
                },
            }
        )

    def merit(r):
        return (
            r["illegal_rate"] if r["illegal_rate"] is not None else 1,
            r["regret_mean"] if r["regret_mean"] is not None else float("inf"),
            -(r["optimal_share"] or 0),
        )

    rows.sort(key=lambda r: (merit(r), r["player"]))
    for k, row in enumerate(rows):  # competition ranking: equal merit, equal rank (1, 1, 3)
        row["rank"] = rows[k - 1]["rank"] if k and merit(rows[k - 1]) == merit(row) else k + 1
    return rows


def summarize_levels(boards: list[dict], players: list[str], every: list[dict] | None = None) -> dict:
    """The leaderboard of each level's boards (boards without a level are left out): {level: rows}. ``every``:
    :func:`summarize` of all ``boards`` when the caller has it; a level that holds every board (a generated
    suite) gets a copy of it rather than the same intervals bootstrapped again (the partial results of a run
    stopped at its time limit are written after the limit)."""
    levels: dict[str, list] = {}
    for b in boards:
        if b.get("level"):
            levels.setdefault(b["level"], []).append(b)
    return {
        level: copy.deepcopy(every) if every is not None and len(bs) == len(boards) else summarize(bs, players)
        for level, bs in levels.items()
    }


def _ratio(a, b):
    return round(a / b, 6) if b else None


def _mean(values: list):
    """The mean of exact regrets: a float when it is one (rounded as before), else the nearest integer -- large
    damage doubling gives regrets of 10^360, which no float holds (``fmean`` raised OverflowError)."""
    total = sum(values)
    if isinstance(total, int):
        try:
            return round(total / len(values), 6)
        except OverflowError:
            return round(Fraction(total, len(values)))
    return _round(statistics.fmean(values))


def _as_floats(values: list) -> bool:
    """Whether every value converts to a finite float (the bootstrap works in floats)."""
    try:
        return all(math.isfinite(float(v)) for v in values)
    except OverflowError:
        return False


def _round(x, digits: int = 6):
    return round(x, digits) if isinstance(x, float) else x


def strip_timing(obj):
    """The results without wall-clock fields: what must be identical across backends and worker counts."""
    if isinstance(obj, dict):
        return {
            k: strip_timing(v)
            for k, v in obj.items()
            if k not in TIMING_KEYS and not k.startswith("time_ms") and k != "elapsed_s"
        }
    if isinstance(obj, list):
        return [strip_timing(v) for v in obj]
    return obj
