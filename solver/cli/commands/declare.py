"""``trample declare count|enumerate|check|sample|scenario|render|solve FILE``: the declarations of attackers and
blockers (docs/declare.md), with the damage step's contract: JSON out (``render``: SVG), exit 0, 1 (the answer is
no), 2 (bad input).

Registered by trample.cli through ``add_commands``; ortools is imported only by ``--engine cpsat`` and
``solve``.
"""

from __future__ import annotations

import os
import random
import sys

from ...check import CheckResult
from ...declare import DeclarationSpace, check_declaration
from ...documents import dumps, is_batch, iter_documents, read_text
from ...limits import STATE, LimitReached, deadline_of
from ...models import FormatError
from ...models.declare import load_declaration, load_declare_doc
from ...models.scenario import parse_json_text
from ...models.vocabulary import DeclareKind
from .. import EXIT_NO, EXIT_OK
from ..batch import emit, limited, run_batch, run_paired, stream_batch
from ..options import add_engine, add_output, add_time_limit, positive_int


def add_commands(subparsers) -> None:
    top = subparsers.add_parser(
        "declare", help="declarations of attackers and blockers: count, enumerate, check, sample, solve"
    )
    sub = top.add_subparsers(dest="declare_command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("count", help="the exact number of legal declarations (509.1c / 508.1d maximum obeyed)")
    p.add_argument("file", metavar="FILE", help="declare document JSON, a .jsonl batch, or - for standard input")
    add_engine(p, "direct (default) or cpsat", choices=["direct", "cpsat"], default="direct", metavar=None)
    add_time_limit(p, "seconds per document; past it: one line on standard error, exit 1")
    p.set_defaults(func=limited(cmd_count))

    p = sub.add_parser("enumerate", help="every legal declaration, one JSON line each, in the canonical order")
    p.add_argument("file", metavar="FILE")
    p.add_argument("--limit", type=positive_int, default=None, help="stop after N declarations")
    add_time_limit(p, "stop after this many seconds")
    p.set_defaults(func=cmd_enumerate)

    p = sub.add_parser("check", help="is this declaration legal? which rules does it break?")
    p.add_argument("file", metavar="FILE")
    p.add_argument("declaration", metavar="DECLARATION", help="declaration JSON file, - or inline JSON")
    add_time_limit(p, "seconds per document; past it: one line on standard error, exit 1")
    p.set_defaults(func=limited(cmd_check))

    p = sub.add_parser("sample", help="legal declarations drawn exactly uniformly")
    p.add_argument("file", metavar="FILE")
    p.add_argument("--n", type=positive_int, default=1, help="how many (default 1)")
    p.add_argument("--seed", type=int, default=None, help="random seed (reproducible draws)")
    add_time_limit(p, "seconds per document; past it: one line on standard error, exit 1")
    p.set_defaults(func=limited(cmd_sample, whole=True))

    p = sub.add_parser(
        "scenario",
        help="the document that follows a declaration: the damage-step scenario of blocks, the declare-blockers "
        "document of an attack",
    )
    p.add_argument("file", metavar="FILE")
    p.add_argument("declaration", metavar="DECLARATION")
    add_time_limit(p, "seconds per document; past it: one line on standard error, exit 1")
    p.set_defaults(func=limited(cmd_scenario))

    p = sub.add_parser("render", help="a picture of a declaration: who attacks what, who blocks whom (SVG)")
    p.add_argument("file", metavar="FILE", help="declare document JSON (or - for standard input)")
    p.add_argument("declaration", metavar="DECLARATION", help="declaration JSON file, - or inline JSON")
    add_output(p, "write the SVG here (default: standard output)", "out", "SVG")
    p.add_argument("--title", default=None, help="the picture's title (default: the file name)")
    add_time_limit(p, "seconds for the whole command; past it: no picture, one line on standard error, exit 1")
    p.set_defaults(func=limited(cmd_render, whole=True))

    p = sub.add_parser(
        "solve",
        help="the defender's best blocks (blockers document) or the attacker's best attack against them "
        "(attackers document), proven over every legal declaration",
    )
    p.add_argument("file", metavar="FILE")
    p.add_argument(
        "--objective",
        required=True,
        metavar="OBJ[,OBJ...]",
        help="the attacking player's objectives, as for trample solve (lexicographic); the defender minimises",
    )
    add_time_limit(p, "wall-clock seconds; the best declaration found is returned as feasible")
    p.set_defaults(func=cmd_solve)


def _space(doc) -> DeclarationSpace:
    return DeclarationSpace(load_declare_doc(doc))


def cmd_count(args) -> int:
    def one(doc):
        space = _space(doc)
        if args.engine == "cpsat":
            return {"count": space.count_cpsat(), "requirements_obeyed": space.max_obeyed_cpsat()}, EXIT_OK
        return {"count": space.count(), "requirements_obeyed": space.max_obeyed()}, EXIT_OK

    return run_batch(args.file, one)


def _single(path: str):
    docs = list(iter_documents(path))
    if len(docs) != 1:
        raise FormatError(path, "one declare document expected (a batch of several is a .jsonl file)")
    ((_, doc),) = docs
    if isinstance(doc, FormatError):
        raise doc
    return doc


def cmd_enumerate(args) -> int:
    if is_batch(args.file):  # one line per document: {"declarations": [...]}, streamed as listed

        def listed(doc):
            space = _space(doc)
            deadline = deadline_of(args.time_limit)  # --time-limit is per document of a batch
            return (d.to_json() for d in space.declarations(limit=args.limit, deadline=deadline))

        return stream_batch(args.file, listed, key="declarations")
    space = _space(_single(args.file))
    deadline = deadline_of(args.time_limit)
    out = sys.stdout
    try:
        for n, d in enumerate(space.declarations(limit=args.limit, deadline=deadline), 1):
            STATE.hold()
            try:
                out.write(dumps(d.to_json()) + "\n")
            finally:
                STATE.release()
            if n % 4096 == 0:
                out.flush()
    except LimitReached:
        print("trample: declare enumerate stopped at --time-limit; the list is incomplete", file=sys.stderr)
    return EXIT_OK


def cmd_check(args) -> int:
    def one(doc, decl):
        space = _space(doc)
        result: CheckResult = check_declaration(space, load_declaration(decl, space.doc))
        return result.to_json(), EXIT_OK if result.legal else EXIT_NO

    return run_paired(args.file, args.declaration, one)


def cmd_sample(args) -> int:
    if is_batch(args.file):  # one line per document: {"declarations": [...]}, the same seed for each

        def drawn(doc):
            space = _space(doc)
            return (d.to_json() for d in space.sample(args.n, args.seed))

        return stream_batch(args.file, drawn, key="declarations")
    space = _space(_single(args.file))
    rng = random.Random(args.seed)
    total = space.count()
    for _ in range(args.n):
        emit(space.unrank(rng.randrange(total)).to_json())
    return EXIT_OK


def cmd_scenario(args) -> int:
    def one(doc, decl):
        d = load_declare_doc(doc)
        declaration = load_declaration(decl, d)
        if d.kind == DeclareKind.BLOCKERS:
            return d.scenario(declaration).to_json(), EXIT_OK  # type: ignore[union-attr,arg-type]
        return _blockers_json(doc, declaration.to_json()), EXIT_OK

    return run_paired(args.file, args.declaration, one)


def _blockers_json(doc: dict, attacks: dict) -> dict:
    """The declare-blockers document of an attack: the attacking creatures with what they attack (the rest
    stay home), written in the attackers document's own terms."""
    out = {k: v for k, v in doc.items() if k not in ("declare", "mana")}  # mana: the active player's, to attack
    out["declare"] = DeclareKind.BLOCKERS.value
    kept = []
    for c in doc.get("attackers", []):
        if c["id"] in attacks:
            c = {k: v for k, v in c.items() if k not in ("summoning_sick", "attack_cost")}
            declared = attacks[c["id"]]
            if isinstance(declared, dict):  # a member of a band (702.22c): the band is declared with the attack
                c["band"] = declared["band"]
                declared = declared["attacking"]
            c["attacking"] = declared
            kept.append(c)
    out["attackers"] = kept
    if "battles" in doc:  # the active player's own battles were never attackable (508.1b)
        active = doc.get("active", "active")
        out["battles"] = [b for b in doc["battles"] if b.get("protector") != active]
    return out


def cmd_render(args) -> int:
    """One picture (docs/declare.md, "Pictures"): the declaration drawn, its verdict under the title."""
    from ...render import declaration_svg

    if args.file == "-" and args.declaration == "-":
        raise FormatError("DECLARATION", "FILE and DECLARATION cannot both be standard input")
    doc = load_declare_doc(parse_json_text(read_text(args.file), "standard input" if args.file == "-" else args.file))
    text = args.declaration
    if not text.lstrip().startswith("{"):
        text = read_text(text, "DECLARATION")
    declaration = load_declaration(text, doc)
    verdict = check_declaration(DeclarationSpace(doc), declaration)
    note = "legal" if verdict.legal else "illegal: " + "; ".join(f"{v.rule} {v.message}" for v in verdict.violations)
    title = args.title or (os.path.basename(args.file) if args.file != "-" else "declaration")
    svg = declaration_svg(doc, declaration, title, [note])
    if args.out is None:
        sys.stdout.write(svg + "\n")
        return EXIT_OK
    try:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write(svg + "\n")
    except OSError as err:
        raise FormatError(args.out, f"cannot write: {err.strerror}") from None
    return EXIT_OK


def cmd_solve(args) -> int:
    from ...declare.solve import solve_declaration
    from ...optimize import parse_objectives

    parse_objectives(args.objective)

    def one(doc):
        result = solve_declaration(load_declare_doc(doc), args.objective, time_limit=args.time_limit)
        return result.to_json(), EXIT_OK if result.status in ("optimal", "feasible") else EXIT_NO

    return run_batch(args.file, one)


__all__ = ["add_commands"]
