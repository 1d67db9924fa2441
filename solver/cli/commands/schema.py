"""``trample schema [NAME]``: print one of the JSON Schemas shipped in :mod:`trample.schemas`, or list them.
``trample example [NAME]``: print one of the example files shipped as ``trample.examples`` (the repository's
``examples/`` folder, package data), or list them: a plain ``pip install`` has them too.

``trample.cli`` calls :func:`add_commands` with its subparsers. Nothing here imports the solver.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

from ...models.errors import FormatError
from .. import EXIT_OK
from ..batch import limited
from ..options import add_time_limit

if TYPE_CHECKING:
    from importlib.abc import Traversable


def cmd_schema(args) -> int:
    from ... import schemas

    available = schemas.names()
    if args.name is None:
        sys.stdout.write(json.dumps({"schemas": available}, separators=(",", ":")) + "\n")
        return EXIT_OK
    if args.name not in available:
        shown = json.dumps(args.name, ensure_ascii=False)
        raise FormatError("NAME", f"unknown schema {shown} (expected one of {', '.join(available)})")
    sys.stdout.write(schemas.text(args.name))
    return EXIT_OK


def example_files() -> dict[str, Traversable]:
    """The shipped examples by name (``thrasta`` for thrasta.json, ``declare/obvious`` for the declare documents
    of examples/declare/): the installed package data, or the repository's examples/ folder when trample runs
    from a source checkout that maps no such package."""
    from importlib import resources
    from pathlib import Path

    folder: Traversable
    try:
        folder = resources.files("trample.examples")
    except ModuleNotFoundError:
        folder = Path(__file__).resolve().parents[3] / "examples"  # solver/cli/commands/ -> the repository
    out: dict[str, Traversable] = {}
    declare = folder / "declare"
    places = [("", folder), ("declare/", declare)] if declare.is_dir() else [("", folder)]
    for prefix, place in places:
        for f in place.iterdir():
            for ext in (".json", ".jsonl"):
                if f.name.endswith(ext) and not f.name.startswith("."):
                    out[prefix + f.name[: -len(ext)]] = f
    if not out:
        raise FileNotFoundError("trample's examples are missing (a broken install?)")
    return dict(sorted(out.items()))


def cmd_example(args) -> int:
    files = example_files()
    if args.name is None:
        sys.stdout.write(json.dumps({"examples": list(files)}, separators=(",", ":")) + "\n")
        return EXIT_OK
    name = args.name[: -len(".json")] if args.name.endswith(".json") else args.name
    if name not in files:
        shown = json.dumps(args.name, ensure_ascii=False)
        raise FormatError("NAME", f"unknown example {shown} (expected one of {', '.join(files)})")
    sys.stdout.write(files[name].read_text(encoding="utf-8"))
    return EXIT_OK


def add_commands(subparsers) -> None:
    """Register ``schema`` on an argparse subparsers object."""
    p = subparsers.add_parser(
        "schema",
        help="print the JSON Schema (draft 2020-12) of a document trample reads or writes; no NAME: list them",
    )
    p.add_argument("name", metavar="NAME", nargs="?", default=None, help="scenario, assignment, library, ...")
    add_time_limit(p, "accepted for uniformity (every command takes it); printing a schema is immediate")
    p.set_defaults(func=limited(cmd_schema, whole=True))

    p = subparsers.add_parser(
        "example",
        help="print an example file shipped with trample (trample example thrasta | trample count -); no NAME: list",
    )
    p.add_argument("name", metavar="NAME", nargs="?", default=None, help="thrasta, lifelink, library, ...")
    add_time_limit(p, "accepted for uniformity (every command takes it); printing an example is immediate")
    p.set_defaults(func=limited(cmd_example, whole=True))
