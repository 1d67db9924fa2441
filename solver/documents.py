"""The documents trample reads and writes, below every reader of them (the commands, the arena's suites, the
shards, the server): the text of a file or of standard input, one document or a ``.jsonl`` batch of one per line
(each with the place an error names), the scenario of a document (itself, or the ``scenario`` of a perft-style
line), compact JSON of any size, and the package's version. Standard library and :mod:`trample.models` only."""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
from collections.abc import Iterator

from .models import FormatError, load_scenario, parse_json_text
from .models.errors import expect_object


def package_version() -> str:
    """trample's version: the installed distribution's, else (run from a source tree that was never installed)
    the one pyproject.toml beside the package declares, else "unknown"."""
    import importlib.metadata  # here: slow to import (about 0.1 s), and only --version and the server need it

    try:
        return importlib.metadata.version("trample")
    except importlib.metadata.PackageNotFoundError:
        pass
    pyproject = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pyproject.toml")
    try:
        with open(pyproject, encoding="utf-8") as fh:
            found = re.search(r'^version\s*=\s*"([^"]+)"', fh.read(), re.M)
    except OSError:
        found = None
    return found.group(1) if found else "unknown"


def read_text(path: str, what: str = "FILE") -> str:
    """The text of a file, or of standard input for ``-``: UTF-8 (a leading byte order mark is skipped)."""
    if not path.strip():
        raise FormatError(what, "expected a file name, or - for standard input")
    try:
        if path == "-":
            stream = getattr(sys.stdin, "buffer", None)
            if stream is None:  # a text stream put in place of standard input (tests, embedding)
                return sys.stdin.read().removeprefix("\ufeff")
            data = stream.read()
        else:
            with open(path, "rb") as fh:
                data = fh.read()
    except FileNotFoundError:
        raise FormatError(path, "no such file") from None
    except IsADirectoryError:
        raise FormatError(path, "is a directory, expected a JSON file") from None
    except OSError as err:
        raise FormatError(label(path), f"cannot read: {err.strerror}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise FormatError(label(path), f"not UTF-8 text (byte {err.start + 1} is 0x{data[err.start]:02x})") from None


def label(path: str) -> str:
    """How an error names an input file: its path, or "standard input" for ``-``."""
    return "standard input" if path == "-" else path


def is_batch(path: str) -> bool:
    return path.endswith(".jsonl")


def _wrapped(obj) -> bool:
    return isinstance(obj, dict) and "scenario" in obj and "attackers" not in obj


def iter_documents(path: str) -> Iterator[tuple[str, object]]:
    """(location prefix, decoded JSON) for one document, or for each non-blank line of a .jsonl file."""
    text = read_text(path)
    if not is_batch(path):
        try:
            doc = parse_json_text(text, label(path))
        except FormatError as err:
            if err.message.startswith("not JSON: Extra data"):  # several documents: the user meant a batch
                raise FormatError(
                    err.path,
                    f"{err.message} (one JSON document expected; a batch of one document "
                    f"per line is a file whose name ends in .jsonl)",
                ) from None
            raise
        yield "", doc
        return
    # Lines end at "\n" only: str.splitlines() would also cut at U+2028, form feeds and other characters that
    # JSON strings may hold raw, and the result lines would no longer match the input lines.
    for n, line in enumerate(text.split("\n"), 1):
        line = line.removesuffix("\r")
        if line.strip():
            where = f"line {n}"
            try:
                yield where, parse_json_text(line)
            except FormatError as err:
                yield where, err


def dumps(obj, **options) -> str:
    """Compact JSON text of a result, whatever the size of its integers (a count may have more than the 4300
    digits Python converts to text by default; reading stays capped)."""
    options.setdefault("separators", (",", ":"))
    with any_digits():
        return json.dumps(obj, **options)


@contextlib.contextmanager
def any_digits():
    """Lift Python's cap on int-to-text conversion for the duration (output only: big numbers in the input stay
    refused by the models' bounds)."""
    get = getattr(sys, "get_int_max_str_digits", None)
    if get is None:
        yield
        return
    old = get()
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(old)


def prefixed(where: str, err: FormatError) -> FormatError:
    if not where:
        return err
    return FormatError(f"{where}: {err.path}" if err.path else where, err.message)


def scenario_from(doc, path=""):
    """The scenario of a document: the document itself, or the ``scenario`` field of a perft-style line."""
    if _wrapped(doc):
        doc, path = doc["scenario"], f"{path}.scenario" if path else "scenario"
    # An object, never a string: load_scenario would read a string as JSON text, so a double-encoded document
    # ("{\"attackers\": []}") was silently accepted.
    return load_scenario(expect_object(doc, path or "scenario"), path)
