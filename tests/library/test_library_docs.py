"""docs/library.md's console examples print what they say (run with bash; jq where the docs use it).

``python tests/library/test_library_docs.py`` rewrites the outputs in the docs from a fresh run (then read the diff)."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "library.md"
_WORD = re.compile(r"(^|\|\s*|;\s*)trample ")


def _commands(text: str) -> list[tuple[str, list[str]]]:
    out = []
    for block in re.findall(r"```console\n(.*?)```", text, re.S):
        cmd, expected = None, []
        for line in block.splitlines():
            if line.startswith("$ "):
                if cmd is not None:
                    out.append((cmd, expected))
                cmd, expected = line[2:], []
            elif line:
                expected.append(line)
        if cmd is not None:
            out.append((cmd, expected))
    return out


def _run(cmd: str) -> list[str]:
    python = f'"{sys.executable}" -m trample '
    shell = _WORD.sub(lambda m: m.group(1) + python, cmd)
    proc = subprocess.run(
        ["bash", "-c", "exec 2>&1\n" + shell], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    return [x for x in proc.stdout.splitlines() if x]


COMMANDS = _commands(DOC.read_text())


@pytest.mark.skipif(shutil.which("jq") is None or shutil.which("bash") is None, reason="needs bash and jq")
@pytest.mark.parametrize("cmd,expected", COMMANDS, ids=[c[:60] for c, _ in COMMANDS])
def test_doc_example(cmd, expected):
    assert _run(cmd) == expected


def _rewrite() -> None:
    text = DOC.read_text()

    def block(m):
        lines, out = m.group(1).splitlines(), []
        for line in lines:
            if line.startswith("$ "):
                if out:
                    out.append("")
                out.append(line)
                out.extend(_run(line[2:]))
        return "```console\n" + "\n".join(out) + "\n```"

    DOC.write_text(re.sub(r"```console\n(.*?)```", block, text, flags=re.S))


if __name__ == "__main__":
    _rewrite()
