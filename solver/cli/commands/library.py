"""The library subcommands of ``trample`` (docs/format.md): mill, discover, seek-thrills, gnome.

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

from ...documents import is_batch, label, read_text, scenario_from
from ...library import discover, discover_distribution, gnome_outcomes, mill, mill_distribution, seek_thrills
from ...library.decks import library_from_deck, load_card_data, parse_decklist
from ...library.transforms import shuffle_library
from ...models import parse_json_text
from ...models.cards import ZONES, GameState, load_library_or_state
from ...models.errors import FormatError, expect_object, join
from ...models.vocabulary import Zone
from .. import EXIT_NO, EXIT_OK
from ..batch import emit, limited, run_batch
from ..options import add_engine, add_time_limit, engine_choices, shown


def _optional_whole(text, what: str) -> int | None:
    return None if text is None else _whole(text, what)


def _whole(text, what: str) -> int:
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
    seed = _optional_whole(args.seed, "--seed")

    def one(doc):
        state, zones = _state(doc)
        if args.distribution:  # 701.17b: a cost that cannot be paid mills nothing, exit 1 as without --distribution
            dist = mill_distribution(state, n, as_cost=args.cost, to=args.to, end=args.end)
            return {"action": "mill_distribution", **dist.to_json()}, (EXIT_OK if dist.performed else EXIT_NO)
        new, event = mill(state, n, seed, as_cost=args.cost, to=args.to, end=args.end)
        return _result(event.to_json(), new, zones), (EXIT_NO if args.cost and not event.performed else EXIT_OK)

    return run_batch(args.library, one)


def cmd_seek_thrills(args) -> int:

    seed = _optional_whole(args.seed, "--seed")

    def one(doc):
        state, zones = _state(doc)
        if args.distribution:
            dist = mill_distribution(state, 7, to=args.to, end=args.end)
            return {"action": "seek_thrills_distribution", **dist.to_json()}, EXIT_OK
        new, event = seek_thrills(state, seed, to=args.to, end=args.end)
        return _result(event.to_json(), new, zones), EXIT_OK

    return run_batch(args.library, one)


def cmd_discover(args) -> int:

    n = _whole(args.n, "N")
    seed = _optional_whole(args.seed, "--seed")
    if seed is None and not args.distribution:
        raise FormatError("--seed", "required: it sets the random order of the cards put on the bottom (701.57a)")
    if args.face is not None and args.choice == Zone.HAND:
        raise FormatError("--face", "names the face to cast; with --choice hand nothing is cast (701.57a)")
    if args.face is not None and args.distribution:
        raise FormatError(
            "--face", "not used with --distribution (which casts the castable face of highest mana value)"
        )

    def one(doc):
        state, zones = _state(doc)
        if args.distribution:
            return {"action": "discover_distribution", **discover_distribution(state, n).to_json()}, EXIT_OK
        assert seed is not None  # required above unless --distribution
        new, event = discover(state, n, seed, choice=args.choice, face=args.face)
        return _result(event.to_json(), new, zones), EXIT_OK

    return run_batch(args.library, one)


def cmd_gnome(args) -> int:
    """One board (COMBAT a scenario JSON), or a ``.jsonl`` batch: one board per line, each a scenario (with the
    LIBRARY given) or ``{"combat": scenario, "library": ..., "gnome": id}`` (library and gnome optional)."""

    if args.combat == "-" and args.library == "-":
        raise FormatError("LIBRARY", "COMBAT and LIBRARY cannot both be read from standard input")
    shared = None
    if args.library is not None:
        shared, _ = _state(parse_json_text(read_text(args.library), label(args.library)))
    elif not is_batch(args.combat):
        raise FormatError("LIBRARY", "required (only a .jsonl batch may give a library on each line)")

    def one(doc):
        state, gnome, path = shared, args.gnome, ""
        if isinstance(doc, dict) and "combat" in doc:
            for key in doc:
                if key not in ("combat", "library", "gnome"):
                    raise FormatError(key, 'unknown field (a batch line is {"combat", "library", "gnome"})')
            if "library" in doc:
                state, _ = _state(doc["library"])
            if "gnome" in doc:
                gnome = doc["gnome"]
                if not isinstance(gnome, str):
                    raise FormatError("gnome", "expected an attacker id (a string)")
            doc, path = doc["combat"], "combat"
        if state is None:
            raise FormatError(join(path, "library") if path else "library", "no library: give LIBRARY or a library")
        scenario = scenario_from(expect_object(doc, path or "scenario"), path)
        report = gnome_outcomes(
            scenario,
            state,
            gnome,
            criterion=args.criterion,
            library_order=args.order,
            engine=args.engine,
            objective=args.objective,
        )
        return report.to_json(), EXIT_OK

    return run_batch(args.combat, one)


def cmd_from_deck(args) -> int:
    """``trample library from-deck DECK --cards FILE``: the library of a decklist, from card data on disk."""

    if args.deck == "-" and args.cards == "-":
        raise FormatError("--cards", "DECK and --cards cannot both be read from standard input")
    seed = _optional_whole(args.seed, "--seed")
    where = label(args.deck)
    lines = parse_decklist(read_text(args.deck, "DECK"), where)
    data = load_card_data(parse_json_text(read_text(args.cards, "--cards"), label(args.cards)), label(args.cards))
    sections = ("deck", "sideboard") if args.sideboard else ("deck",)
    library = library_from_deck(lines, data, sections=sections, where=where)
    state = _state(library.to_json())[0]
    if seed is not None:
        state, _ = shuffle_library(state, seed)
    emit(state.library.to_json())
    return EXIT_OK


# ---------------------------------------------------------------------------------------------
# Registration
# ---------------------------------------------------------------------------------------------


def _mill_options(p) -> None:
    p.add_argument(
        "--to",
        choices=[Zone.GRAVEYARD.value, Zone.EXILE.value],
        default=Zone.GRAVEYARD.value,
        help="where the milled cards go: graveyard (701.17a, default) or exile (a replacement effect)",
    )
    p.add_argument(
        "--from",
        dest="end",
        choices=["top", "bottom"],
        default="top",
        help="mill from the top of the library (default) or from the bottom",
    )


LIB_HELP = 'library JSON ({"cards": [...]}, top first), a zones document, a .jsonl batch, or -'


def add_commands(subparsers) -> None:
    """Register mill, discover, seek-thrills, gnome and library on an argparse subparsers object."""
    _add_library_commands(subparsers, LIB_HELP)
    _add_gnome(subparsers)
    _add_from_deck(subparsers)


def _add_library_commands(subparsers, lib_help: str) -> None:
    """mill, discover and seek-thrills: a library in, the cards moved out."""
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
    _mill_options(p)
    _time_limit(p, cmd_mill)

    p = subparsers.add_parser("discover", help="discover N (701.57): exiled cards, the discovered card, where it went")
    p.add_argument("library", metavar="LIBRARY", help=lib_help)
    p.add_argument("n", metavar="N", help="discover N (a whole number)")
    p.add_argument("--seed", default=None, help="seed of the random bottom order (required unless --distribution)")
    p.add_argument(
        "--choice",
        choices=["cast", Zone.HAND.value],
        default="cast",
        help="cast the card if a face has mana value <= N (default), or put it into hand",
    )
    p.add_argument("--face", default=None, help="the face to cast (default: the castable face of highest mana value)")
    p.add_argument(
        "--distribution", action="store_true", help="exact distribution over a uniformly shuffled library instead"
    )
    _time_limit(p, cmd_discover)

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
    _mill_options(p)
    _time_limit(p, cmd_seek_thrills)


def _add_gnome(subparsers) -> None:
    p = subparsers.add_parser("gnome", help="Scalesoul Gnome: each reachable X, its splits, and discover X")
    p.add_argument(
        "combat",
        metavar="COMBAT",
        help='combat scenario JSON (one damage step, or "step": "combat" for both), a .jsonl batch, or -',
    )
    p.add_argument("library", metavar="LIBRARY", nargs="?", default=None, help="library JSON or -")
    p.add_argument(
        "--gnome",
        default=None,
        help='the Gnome\'s attacker id (default: the only attacker, or the only one whose id contains "gnome")',
    )
    p.add_argument(
        "--criterion",
        choices=["score", "mana_value", "kills", "x"],
        default="score",
        help="best line: score (expected score of the faces cast and duplicates conjured, then kills, then X; "
        "default), mana_value (expected mana value discovered, then kills, then X), kills (then X, then mana "
        "value), x (then kills)",
    )
    p.add_argument(
        "--objective",
        default=None,
        help="lexicographic terms, comma-separated, overriding --criterion: lethal, damage, kills, score, "
        "mana_value, x (e.g. lethal,kills,score)",
    )
    p.add_argument(
        "--order",
        choices=["unknown", "known"],
        default="unknown",
        help="score with a uniformly shuffled library (default) or the order given",
    )

    add_engine(p, f"combat engine: {', '.join(engine_choices())} (default auto)")
    _time_limit(p, cmd_gnome)


def _add_from_deck(subparsers) -> None:
    p = subparsers.add_parser("library", help="build libraries from real data (library from-deck)")
    sub = p.add_subparsers(dest="library_command", metavar="SUBCOMMAND", parser_class=type(p))
    sub.required = True
    q = sub.add_parser(
        "from-deck",
        help="a library from a decklist (Arena, MTGO .dek, Cockatrice .cod, '4 Name' lines...) and Scryfall or "
        "MTGJSON card data",
    )
    q.add_argument("deck", metavar="DECK", help="decklist text file, or -")
    q.add_argument(
        "--cards",
        required=True,
        metavar="FILE",
        help="card data on disk: Scryfall card objects (a JSON array, as in bulk data) or MTGJSON (AtomicCards, "
        "AllPrintings or a set file)",
    )
    q.add_argument("--sideboard", action="store_true", help="include the sideboard (default: the main deck only)")
    q.add_argument("--seed", default=None, help="shuffle the library with this seed (default: the decklist's order)")
    add_time_limit(q, "seconds for the whole command; past it: one line on standard error, exit 1")
    q.set_defaults(func=limited(cmd_from_deck, whole=True))


def _time_limit(p, command) -> None:
    """--time-limit SECONDS (a distribution over many distinct cards, or a gnome board with 10^15 splits, can run
    for hours): per document, past it one line on standard error and exit 1 (trample.cli.batch.limited)."""
    add_time_limit(p, "seconds per document; past it: one line on standard error, exit 1")
    p.set_defaults(func=limited(command))
