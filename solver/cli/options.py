"""The options of the ``trample`` command: the argument types (whole numbers, bounded numbers, seconds) and one
definition of every option that several commands share: ``--time-limit``, ``-o/--output``, ``--side``,
``--engine`` and the ``--backend/--scheduler/--workers`` group; and the checks of the optional packages an option
needs.

``--time-limit SECONDS`` has one meaning for every command (docs/format.md, "Sizes"): a finite positive number of
seconds, at most 10^9, counted from the command's first instruction (before the heavy imports) and again from the
start of each later document of a ``.jsonl`` batch (trample.limits.CommandLimit). What a command gives when the
limit is reached (nothing, what was found, the best found as ``feasible``) is its own, said in its help. The one
exception is ``serve``: there it caps each request (a request's own ``time_limit`` may only lower it), since a
server runs for as long as its caller likes.
"""

from __future__ import annotations

import argparse
import importlib.util
from collections.abc import Callable

from ..engines import engine_names
from ..limits import CommandLimit, parse_seconds
from ..models import FormatError, Side
from ..models.vocabulary import words


def has_module(name: str) -> bool:
    """Is the optional package ``name`` installed (found without importing it)?"""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def require_extra(option: str, module: str, extra: str) -> None:
    """Bad input (one line, exit 2), before any work, when ``option`` needs an optional package that is missing."""
    if not has_module(module):
        raise FormatError(option, f"needs the optional package {module}: pip install 'trample[{extra}]'")


def require_backend(args) -> None:
    """``--backend dask`` (or ``--scheduler``) needs distributed: bad input, one line, before any work -- also where
    the work would turn out small enough to run in this process."""
    if getattr(args, "backend", None) == "dask" or getattr(args, "scheduler", None):
        require_extra("--scheduler" if getattr(args, "scheduler", None) else "--backend dask", "distributed", "dask")


def shown(text: str) -> str:
    """A command-line value quoted for a one-line error message, cut short when long."""
    return repr(text) if len(text) <= 40 else repr(text[:37]) + "..."


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {shown(text)}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative number, got {shown(text)}")
    return value


MAX_WORKERS = 256  # --workers: worker processes (a million started processes without a cap)
MAX_SHARDS = 100_000  # --shards: files written (a billion ran out of memory building the list of ranges)
MAX_BOARDS = 1_000_000  # arena --n: generated boards


def bounded_int(low: int, high: int) -> Callable[[str], int]:
    """An argument type: a whole number from ``low`` to ``high`` (docs/format.md, "Sizes")."""

    def parse(text: str) -> int:
        try:
            value = int(text.strip(), 10) if len(text) <= 40 else None
        except ValueError:
            value = None
        if value is None:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {shown(text)}")
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"expected a whole number from {low} to {high}, got {shown(text)}")
        return value

    return parse


def seconds(text: str) -> float:
    """Seconds on the command line: finite, positive, at most trample.limits.MAX_SECONDS."""
    try:
        return parse_seconds(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def time_limit(text: str) -> float:
    """``--time-limit SECONDS``, parsed here for every command: counted from the start of the command (its first
    instruction; loading included), and again from the start of each later document of a ``.jsonl`` batch
    (trample.limits.CommandLimit)."""
    return CommandLimit(seconds(text))


def add_time_limit(p: argparse.ArgumentParser, help: str | None = None, per_command: bool = True) -> None:
    """``--time-limit SECONDS``: the one definition of it, shared by every command. One meaning everywhere (the
    module's docstring): ``help`` says what the command gives when the limit is reached. ``per_command=False``
    (serve: a cap on each request): plain seconds, not a limit on the command (nor watched: trample.limits)."""
    p.add_argument(
        "--time-limit",
        type=time_limit if per_command else seconds,
        default=None,
        metavar="SECONDS",
        help=help or "stop after this many seconds (past it: one line on standard error, exit 1)",
    )


def add_output(p: argparse.ArgumentParser, help: str, dest: str = "output", metavar: str = "PATH") -> None:
    """``-o/--output PATH`` (``--out``: the older spelling, kept), the one definition of the output option."""
    p.add_argument("-o", "--output", "--out", dest=dest, default=None, metavar=metavar, help=help)


def add_side(p: argparse.ArgumentParser, help: str | None = None) -> None:
    """``--side attacking|defending|both`` (default attacking): whose damage assignment."""
    p.add_argument(
        "--side",
        choices=words(Side),
        default=Side.ATTACKING.value,
        help=help or "whose damage assignment: the attacking player's (default), the defending player's, or both",
    )


def add_engine(
    p: argparse.ArgumentParser,
    help: str | None = None,
    choices: list[str] | None = None,
    default: str = "auto",
    metavar: str | None = "ENGINE",
) -> None:
    """``--engine NAME``: the combat engines of :mod:`trample.engines` (default auto), or ``choices`` (the
    declaration engines of ``trample declare``)."""
    choices = choices or engine_choices()
    p.add_argument(
        "--engine",
        default=default,
        choices=choices,
        metavar=metavar,
        help=help or f"{', '.join(choices)} (default {default})",
    )


def add_step_options(p: argparse.ArgumentParser) -> None:
    """--side and --engine, shared by the commands that read a combat scenario."""
    add_side(p)
    add_engine(p)


def add_backend_options(
    p: argparse.ArgumentParser,
    backends,
    backend_help: str,
    scheduler_help: str,
    workers_help: str,
    workers_default: int | None = None,
) -> None:
    """``--backend``, ``--scheduler ADDRESS`` and ``--workers N``: where the work of ``count``, ``enumerate
    --shards`` and ``arena`` runs (``backends``: the choices of each, trample.shard.BACKENDS or the arena's)."""
    p.add_argument("--backend", choices=backends, default=None, help=backend_help)
    p.add_argument("--scheduler", default=None, metavar="ADDRESS", help=scheduler_help)
    p.add_argument(
        "--workers",
        type=bounded_int(1, MAX_WORKERS),
        default=workers_default,
        metavar="N",
        help=workers_help,
    )


def engine_choices() -> list[str]:
    """The registered engine names (trample.engines imports no engine until one is used)."""
    return engine_names()
