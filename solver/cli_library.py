"""The library subcommands of ``trample`` (FORMAT.md): mill, discover, seek-thrills, gnome.

``trample.cli`` calls :func:`add_commands` with its subparsers. Every handler prints JSON (one line per
document; a ``.jsonl`` LIBRARY holds one library per line) and returns the exit code: 0, 1 when the answer is
no (``mill --cost`` that cannot be paid), and bad input raises :class:`~trample.models.errors.FormatError` (exit 2,
one line on standard error). Nothing here imports ortools at import time; ``gnome`` loads the combat engine
when it runs.

LIBRARY is a library document ``{"cards": [...]}`` (top first) or a zones document
``{"library": [...], "graveyard": [...], "exile": [...], "hand": [...], "stack": [...]}``; with the latter the
output also carries ``"state"``, the zones after the action, so commands can be chained.
"""

from __future__ import annotations

from .docio import emit, engine_choices, label, read_text, run_batch, scenario_from, shown
from .library import discover, discover_distribution, gnome_outcomes, mill, mill_distribution, seek_thrills
from .models import parse_json_text
from .models.cards import ZONES, GameState, load_library_or_state
from .models.errors import FormatError, expect_object

EXIT_OK, EXIT_NO = 0, 1


def _whole(text, what: str, *, allow_none: bool = False) -> int | None:
    if text is None and allow_none:
        return None
    try:
        value = int(str(text), 10)
    except ValueError:
        raise FormatError(what, f"expected a whole number, got {shown(str(text))}") from None
    if value < 0:
        raise FormatError(what, f"must not be negative, got {value}")
    return value


def _state(doc) -> tuple[GameState, bool]:
    """The state, and whether the document was a zones document (then the output includes "state")."""

    expect_object(doc, "library")  # not a string: load_library_or_state would decode JSON text inside it again
    zones = isinstance(doc, dict) and "cards" not in doc and any(z in doc for z in ZONES)
    return load_library_or_state(doc), zones


def _result(event_json: dict, state: GameState, zones: bool) -> dict:
    out = dict(event_json)
    out["library"] = state.library.to_json()
    if zones:
        out["state"] = state.to_json()
    return out


# ---------------------------------------------------------------------------------------------
# Handlers
# ---------------------------------------------------------------------------------------------


def cmd_mill(args) -> int:
    n = _whole(args.n, "N")
    seed = _whole(args.seed, "--seed", allow_none=True)

    def one(doc):
        state, zones = _state(doc)
        if args.distribution:
            return {"action": "mill_distribution", **mill_distribution(state, n).to_json()}, EXIT_OK
        new, event = mill(state, n, seed, as_cost=args.cost)
        return _result(event.to_json(), new, zones), (EXIT_NO if args.cost and not event.performed else EXIT_OK)

    return run_batch(args.library, one)


def cmd_seek_thrills(args) -> int:
    seed = _whole(args.seed, "--seed", allow_none=True)

    def one(doc):
        state, zones = _state(doc)
        if args.distribution:
            return {"action": "seek_thrills_distribution", **mill_distribution(state, 7).to_json()}, EXIT_OK
        new, event = seek_thrills(state, seed)
        return _result(event.to_json(), new, zones), EXIT_OK

    return run_batch(args.library, one)


def cmd_discover(args) -> int:
    n = _whole(args.n, "N")
    seed = _whole(args.seed, "--seed", allow_none=True)
    if seed is None and not args.distribution:
        raise FormatError("--seed", "required: it sets the random order of the cards put on the bottom (701.57a)")

    def one(doc):
        state, zones = _state(doc)
        if args.distribution:
            return {"action": "discover_distribution", **discover_distribution(state, n).to_json()}, EXIT_OK
        new, event = discover(state, n, seed, choice=args.choice, face=args.face)
        return _result(event.to_json(), new, zones), EXIT_OK

    return run_batch(args.library, one)


def cmd_gnome(args) -> int:
    if args.combat == "-" and args.library == "-":
        raise FormatError("LIBRARY", "COMBAT and LIBRARY cannot both be read from standard input")
    scenario = scenario_from(parse_json_text(read_text(args.combat), label(args.combat)))
    state, _ = _state(parse_json_text(read_text(args.library), label(args.library)))
    report = gnome_outcomes(
        scenario, state, args.gnome, criterion=args.criterion, library_order=args.order, engine=args.engine
    )
    emit(report.to_json())
    return EXIT_OK


# ---------------------------------------------------------------------------------------------
# Registration
# ---------------------------------------------------------------------------------------------


def add_commands(subparsers) -> None:
    """Register mill, discover, seek-thrills and gnome on an argparse subparsers object."""
    lib_help = 'library JSON ({"cards": [...]}, top first), a zones document, a .jsonl batch, or -'

    p = subparsers.add_parser("mill", help="mill N (701.17): the library after, the milled cards, where each went")
    p.add_argument("library", metavar="LIBRARY", help=lib_help)
    p.add_argument("n", metavar="N", help="how many cards to mill (a whole number)")
    p.add_argument(
        "--cost",
        action="store_true",
        help="mill as a cost: with fewer than N cards nothing happens and the exit code is 1 (701.17b)",
    )
    p.add_argument("--seed", default=None, help="shuffle the library with this seed first (default: order given)")
    p.add_argument(
        "--distribution",
        action="store_true",
        help="exact distribution over a uniformly shuffled library instead (adventurers, total mana value)",
    )
    p.set_defaults(func=cmd_mill)

    p = subparsers.add_parser("discover", help="discover N (701.57): exiled cards, the discovered card, where it went")
    p.add_argument("library", metavar="LIBRARY", help=lib_help)
    p.add_argument("n", metavar="N", help="discover N (a whole number)")
    p.add_argument("--seed", default=None, help="seed of the random bottom order (required unless --distribution)")
    p.add_argument(
        "--choice",
        choices=["cast", "hand"],
        default="cast",
        help="cast the card if a face has mana value <= N (default), or put it into hand",
    )
    p.add_argument("--face", default=None, help="the face to cast (default: the castable face of highest mana value)")
    p.add_argument(
        "--distribution", action="store_true", help="exact distribution over a uniformly shuffled library instead"
    )
    p.set_defaults(func=cmd_discover)

    p = subparsers.add_parser(
        "seek-thrills", help="Seek Thrills: mill seven, then every milled card with an Adventure to hand"
    )
    p.add_argument("library", metavar="LIBRARY", help=lib_help)
    p.add_argument("--seed", default=None, help="shuffle the library with this seed first (default: order given)")
    p.add_argument(
        "--distribution",
        action="store_true",
        help="exact distribution of adventurers among the seven milled, over a shuffled library",
    )
    p.set_defaults(func=cmd_seek_thrills)

    p = subparsers.add_parser("gnome", help="Scalesoul Gnome: each reachable X, its splits, and discover X")
    p.add_argument("combat", metavar="COMBAT", help="combat scenario JSON (one damage step) or -")
    p.add_argument("library", metavar="LIBRARY", help="library JSON or -")
    p.add_argument(
        "--gnome",
        default=None,
        help='the Gnome\'s attacker id (default: the only attacker, or the only one whose id contains "gnome")',
    )
    p.add_argument(
        "--criterion",
        choices=["mana_value", "kills", "x"],
        default="mana_value",
        help="best split: mana_value (expected mana value discovered, then kills, then X; default), "
        "kills (then X, then mana value), x (then kills)",
    )
    p.add_argument(
        "--order",
        choices=["unknown", "known"],
        default="unknown",
        help="score with a uniformly shuffled library (default) or the order given",
    )

    p.add_argument(
        "--engine",
        default="auto",
        choices=engine_choices(),
        metavar="ENGINE",
        help=f"combat engine: {', '.join(engine_choices())} (default auto)",
    )
    p.set_defaults(func=cmd_gnome)
