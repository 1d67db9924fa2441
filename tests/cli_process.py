"""Runs the command line as a user does: ``python -m trample ...`` in a child process from the repository root."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(*args, stdin=None) -> tuple[int, str, str]:
    """The exit code, standard output and standard error of ``trample *args`` (stdin text optional); a run longer
    than two minutes fails the test (subprocess.TimeoutExpired)."""
    proc = subprocess.run(
        [sys.executable, "-m", "trample", *map(str, args)],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    return proc.returncode, proc.stdout, proc.stderr
