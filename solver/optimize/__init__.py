"""Optimal damage assignment: objectives, lexicographic optimisation on the CP-SAT model, ``trample solve``.

The objectives (docs/format.md; the precise definitions are in docs/solve.md) are integer linear expressions over the
reference model of :func:`trample.engines.cpsat.build_model`, plus helper variables built here, each one a
*function* of the assignment (tied both ways), so that fixing an optimum and enumerating lists every optimal
assignment exactly once:

- ``max-damage``: damage assigned to every player in ``players``; ``max-damage:ID``: damage assigned to ``ID``.
- ``lethal``: players assigned at least their life (life <= 0 is reached with nothing), and a per-player report.
- ``max-kills``: creatures of the other side assigned lethal damage (702.19b, 702.2c: marked + assigned >=
  toughness, or one point from a deathtouch source), in combat and not indestructible.
- ``max-value``: the ``value`` of those creatures (blockers; attackers count 1) plus the ``value`` of
  planeswalkers in combat assigned at least their loyalty (702.19c). Values are exact decimals scaled to integers.
- ``min-overkill``: damage beyond what each recipient needed: a creature beyond its lethal need (beyond 1 when a
  deathtouch source assigns it damage and it needs any), a planeswalker beyond its loyalty, a battle beyond its
  defense, a player beyond its life.

Lexicographic optimisation: the objectives, in the order given, then the tie-break (among optimal assignments,
the lexicographically smallest vector of amounts over the plan's columns: sources in plan order, routes in route
order) form one list of *terms*. Consecutive terms are packed into one weighted objective as long as the
product of their ranges stays below 2**50 (exact lexicographic weights), each packed group is solved, and its
terms are fixed (``model.add(term == value)``, values read with ``solver.value``) before the next group.

The package, bottom to top: :mod:`.objectives` (names, parsing, evaluation), :mod:`.results` (statuses,
:class:`SolveResult`, :func:`score`), :mod:`.model` (the objectives on the CP-SAT model and the runner),
:mod:`.linear` (every optimal assignment of small boards, for every objective, from the direct engine's blocks,
no solver), :mod:`.search` (lexicographic search, :func:`solve`, :func:`all_optimal`).
"""

from .model import ESCALATE_DET, LEAN_PARAMS, PACK_LIMIT, SMALL_COLUMNS, STRONG_PARAMS
from .objectives import OBJECTIVES, VALUE_LIMIT, Objective, oriented, parse_objectives
from .readers import losers_of, outcome_of, score
from .results import STATUS_FEASIBLE, STATUS_INFEASIBLE, STATUS_OPTIMAL, STATUS_UNKNOWN, SolveResult
from .search import AllOptimal, all_optimal, solve

__all__ = [
    "OBJECTIVES",
    "Objective",
    "parse_objectives",
    "oriented",
    "SolveResult",
    "STATUS_OPTIMAL",
    "STATUS_FEASIBLE",
    "STATUS_INFEASIBLE",
    "STATUS_UNKNOWN",
    "score",
    "outcome_of",
    "losers_of",
    "solve",
    "all_optimal",
    "AllOptimal",
    "ESCALATE_DET",
    "LEAN_PARAMS",
    "SMALL_COLUMNS",
    "STRONG_PARAMS",
    "PACK_LIMIT",
    "VALUE_LIMIT",
]
