"""The arena: score AI players' damage assignments against the proven optimum.

>>> from trample.arena import generate, run_arena
>>> results = run_arena(generate("shared", 20, seed=1), players=["declaration", "greedy", "optimal"])
>>> [(row["rank"], row["player"], row["regret_mean"]) for row in results["leaderboard"]]
[(1, 'optimal', 0.0), (2, 'greedy', 0.95), (3, 'declaration', 1.0)]

Modules: ``players`` (the Player interface, baselines, :func:`make_player`), ``external`` (programs speaking JSON
Lines), ``suites`` (seeded levels, curated files), ``objectives`` (scoring any assignment), ``metrics`` (judging and
summarising), ``stats`` (confidence intervals, the run's facts), ``runner`` (chunks; in-process, process pool or
Dask), ``report`` (rich table, JSON, PNG), ``env`` (a one-decision environment), ``policy`` (a trained policy as a
player: ``PolicyPlayer``). Nothing here imports ortools until a board is solved.

Imported on demand, with their extras: ``gym_env`` (a ``gymnasium.Env``, ``trample[gym]``), ``sequential`` and
``encoding`` (its per-route decisions and numeric observation), ``combat_game`` (the whole combat as a two-player
game), ``pz_env`` (PettingZoo) and ``openspiel_game`` (OpenSpiel; both ``trample[multiagent]``), ``whole_arena``
(``trample arena --game combat``), ``declare_arena`` (``--game blocks`` and ``--game attacks``: declarations, with
the players and boards of ``blocks_arena`` and ``attacks_arena``), ``declare_game`` (the three-decision combat:
attack, block, damage) with ``gym_declare`` (Gymnasium), ``pz_declare`` (PettingZoo) and ``openspiel_declare``
(OpenSpiel).
"""

from .env import ArenaEnv
from .external import ExternalPlayer, PlayerFailure
from .metrics import decision_seed, judge, reference, strip_timing, summarize
from .objectives import DEFAULT_OBJECTIVE, is_lethal, parse_objectives, regrets, score_all
from .players import (
    BASELINES,
    DEFAULT_PLAYERS,
    DeclarationOrderPlayer,
    FacePlayer,
    FunctionPlayer,
    GreedyValuePlayer,
    OptimalPlayer,
    Player,
    RandomPlayer,
    make_player,
)
from .policy import PolicyPlayer
from .runner import DEFAULT_CHUNK, evaluate_chunk, run_arena
from .suites import DEFAULT_LEVEL, LEVELS, Level, curated_files, generate, generate_board, get_level, load_suite

__all__ = [
    "ArenaEnv",
    "ExternalPlayer",
    "PlayerFailure",
    "decision_seed",
    "judge",
    "reference",
    "strip_timing",
    "summarize",
    "DEFAULT_OBJECTIVE",
    "is_lethal",
    "parse_objectives",
    "regrets",
    "score_all",
    "BASELINES",
    "DEFAULT_PLAYERS",
    "DeclarationOrderPlayer",
    "FacePlayer",
    "FunctionPlayer",
    "GreedyValuePlayer",
    "OptimalPlayer",
    "Player",
    "PolicyPlayer",
    "RandomPlayer",
    "make_player",
    "DEFAULT_CHUNK",
    "evaluate_chunk",
    "run_arena",
    "DEFAULT_LEVEL",
    "LEVELS",
    "Level",
    "curated_files",
    "generate",
    "generate_board",
    "get_level",
    "load_suite",
]
