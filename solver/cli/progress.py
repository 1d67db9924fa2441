"""Progress on standard error: a rich progress bar (the optional package ``rich``), shown only when standard
error is a terminal and the output goes elsewhere."""

from __future__ import annotations

import sys


class Progress:
    """A rich progress bar on standard error, or nothing (rich missing, or not ``enabled``). Moved on by
    :meth:`advance`, or called with ``(done, total)`` (a total known only once the work starts)."""

    def __init__(self, total: int | None, description: str, enabled: bool, console=None, transient: bool = False):
        self._bar = None
        self._task = None
        if not enabled:
            return
        try:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )
            from rich.progress import (
                Progress as RichProgress,
            )
        except ImportError:  # rich is optional (pip install trample[progress])
            return
        console = console or Console(file=sys.stderr)
        self._bar = RichProgress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=console,
            transient=transient,
        )
        self._task = self._bar.add_task(description, total=total)

    def __enter__(self):
        if self._bar is not None:
            self._bar.start()
        return self

    def advance(self, n: int) -> None:
        if self._bar is not None and self._task is not None:
            self._bar.advance(self._task, n)

    def __call__(self, done: int, total: int | None = None) -> None:
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, completed=done, total=total)

    def __exit__(self, *exc):
        if self._bar is not None:
            self._bar.stop()
        return False


def is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def want_progress(args) -> bool:
    """Progress goes on standard error when the output is a file and standard error is a terminal."""
    to_file = (getattr(args, "output", None) not in (None, "-")) or not is_terminal(sys.stdout)
    return to_file and is_terminal(sys.stderr)
