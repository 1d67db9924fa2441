"""``trample schema [NAME]``: print one of the JSON Schemas shipped in :mod:`trample.schemas`, or list them.

``trample.cli`` calls :func:`add_commands` with its subparsers. Nothing here imports the solver.
"""

from __future__ import annotations

import json
import sys

from .models.errors import FormatError

EXIT_OK = 0


def cmd_schema(args) -> int:
    from . import schemas

    available = schemas.names()
    if args.name is None:
        sys.stdout.write(json.dumps({"schemas": available}, separators=(",", ":")) + "\n")
        return EXIT_OK
    if args.name not in available:
        shown = json.dumps(args.name, ensure_ascii=False)
        raise FormatError("NAME", f"unknown schema {shown} (expected one of {', '.join(available)})")
    sys.stdout.write(schemas.text(args.name))
    return EXIT_OK


def add_commands(subparsers) -> None:
    """Register ``schema`` on an argparse subparsers object."""
    p = subparsers.add_parser(
        "schema",
        help="print the JSON Schema (draft 2020-12) of a document trample reads or writes; no NAME: list them",
    )
    p.add_argument("name", metavar="NAME", nargs="?", default=None, help="scenario, assignment, library, ...")
    p.set_defaults(func=cmd_schema)
