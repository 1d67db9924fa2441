"""``trample render FILE [ASSIGNMENT] -o board.svg``: a picture of a board and an assignment (trample.render).

ASSIGNMENT is inline JSON, a file, or ``-`` (standard input); an assignment, a whole-combat line, or the output
of ``trample solve`` (its ``assignment`` field is drawn), so ``trample solve FILE | trample render FILE -`` works;
``--side defending|both`` reads it as that side's assignment (``trample solve --side both | trample render --side
both``). The picture shows what the damage does (trample.render).
"""

from __future__ import annotations

import json
import os
import sys

from ...documents import read_text, scenario_from
from ...models import FormatError
from ...models.scenario import parse_json_text
from ...render import render
from ...whole import open_combat
from .. import EXIT_OK
from ..batch import limited
from ..options import add_output, add_side, add_time_limit


def _assignment(text: str) -> tuple[dict, str]:
    """The assignment (or line) to draw, and what it is when it is a `trample solve` result ("" otherwise)."""

    if text.lstrip().startswith("{"):
        doc = parse_json_text(text, "ASSIGNMENT")
    else:
        doc = parse_json_text(read_text(text, "ASSIGNMENT"), "ASSIGNMENT" if text == "-" else text)
    what = ""
    if isinstance(doc, dict) and "status" in doc and "assignment" in doc:  # a `trample solve` result
        if doc["assignment"] is None:
            raise FormatError("ASSIGNMENT.assignment", f"the solve result has no assignment (status {doc['status']})")
        values = doc["objectives"] if isinstance(doc.get("objectives"), dict) else {}
        what = f"{doc['status']} line, " + ", ".join(f"{k} {v}" for k, v in values.items())
        doc = doc["assignment"]
    if not isinstance(doc, dict):
        raise FormatError("ASSIGNMENT", "expected a JSON object (an assignment, a line, or a solve result)")
    return doc, what


def cmd_render(args) -> int:

    if args.out is not None:
        if os.path.isdir(args.out):
            raise FormatError(args.out, "is a directory, expected a file name")
        folder = os.path.dirname(args.out) or "."
        if not os.path.isdir(folder):
            raise FormatError(args.out, f"cannot write: no such directory {folder}")
    if args.file == "-" and args.assignment == "-":
        raise FormatError("ASSIGNMENT", "FILE and ASSIGNMENT cannot both be standard input")
    doc = parse_json_text(read_text(args.file), "standard input" if args.file == "-" else args.file)
    combat = open_combat(scenario_from(doc), side=args.side)
    assignment, what = None, ""
    if args.assignment is not None:
        assignment, what = _assignment(args.assignment)
        try:
            combat.check(assignment)
        except FormatError as err:  # unknown ids, wrong shape: bad input naming the place
            raise FormatError(f"ASSIGNMENT: {err.path}" if err.path else "ASSIGNMENT", err.message) from None
    title = args.title or (os.path.basename(args.file) if args.file != "-" else "board") + (f": {what}" if what else "")
    svg = render(combat, assignment, title)
    if args.out is None:
        sys.stdout.write(svg + "\n")
    else:
        try:
            with open(args.out, "w", encoding="utf-8") as fh:
                fh.write(svg + "\n")
        except OSError as err:
            raise FormatError(args.out, f"cannot write: {err.strerror}") from None
        print(json.dumps({"svg": args.out, "bytes": len(svg.encode()) + 1}), file=sys.stderr)
    return EXIT_OK


def add_commands(sub) -> None:
    p = sub.add_parser("render", help="draw a board (and an assignment as labelled arrows) as SVG")
    p.add_argument("file", metavar="FILE", help="a scenario JSON file (or - for standard input)")
    p.add_argument(
        "assignment",
        metavar="ASSIGNMENT",
        nargs="?",
        default=None,
        help="assignment or whole-combat line: inline JSON, a file, or - (a `trample solve` result works too)",
    )
    add_output(p, "write the SVG here (default: standard output; --out: the older spelling)", "out", "SVG")
    p.add_argument("--title", default=None, help="the picture's title (default: the file name)")
    add_side(
        p,
        "whose assignment ASSIGNMENT is (as for check and solve; default attacking): "
        "`trample solve --side both | trample render --side both` draws both sides' damage",
    )
    add_time_limit(p, "seconds for the whole command; past it: no picture, one line on standard error, exit 1")
    p.set_defaults(func=limited(cmd_render, whole=True))
