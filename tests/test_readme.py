"""The examples of README.md and docs/*.md run and print what they say; so do the ``>>>`` examples in the package.

- ``console`` blocks: each ``$ command`` runs in bash (``trample`` and ``python`` are this environment's), in a
  scratch folder that sees the repository's examples/ and benchmarks/; what follows it, up to the next ``$``, is
  its output (standard output and standard error, in order). The ``$ trample`` lines of ``text`` blocks (tables
  with timings) run and must succeed. JSON lines are compared as JSON without
  ``time_ms`` (the one field that varies); other lines as text. ``echo $?`` prints the previous command's exit
  code. A file a block only shows (``$ cat missed.json`` before any command made it) is written from what it
  shows; so is a file the prose gives inline (```tiny.json`:`` followed by a line of code).
- ``python`` blocks run from the repository's root; a top-level ``print(...)  # text`` must print ``text``
  (in order), and so must the comment lines that follow the README's first block. Blocks written as ``>>>``
  sessions run as doctests.
- ``sh`` blocks: ``make`` lines name targets of the Makefile; the other lines run in bash and must succeed.
"""

from __future__ import annotations

import doctest
import importlib
import json
import os
import pkgutil
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))

# Commands whose output is not reproducible here, and why.
NOT_RUN = {
    "python -m benchmarks": "a benchmark: minutes of timings that differ on every machine",
    "/usr/bin/time": "a measurement of time and memory",
}


def _blocks(path: Path, lang: str) -> list[tuple[int, str]]:
    """(line number, text) of every ```lang block (indented ones too, as in a list item)."""
    text = path.read_text(encoding="utf-8")
    out = []
    for m in re.finditer(rf"^( *)```{lang}\n(.*?)^\1```", text, re.S | re.M):
        indent = len(m.group(1))
        body = "".join(line[indent:] if line[:indent].isspace() else line for line in m.group(2).splitlines(True))
        out.append((text[: m.start()].count("\n") + 1, body))
    return out


def _cases(lang: str):
    return [
        pytest.param(path, line, body, id=f"{path.relative_to(ROOT)}:{line}")
        for path in DOCS
        for line, body in _blocks(path, lang)
    ]


def _inline_files(path: Path) -> dict[str, str]:
    """Files the prose gives inline: ```NAME`:`` then a line holding the file as inline code."""
    return dict(re.findall(r"`([\w.-]+\.jsonl?)`:\n`([^`\n]+)`", path.read_text(encoding="utf-8")))


def _commands(body: str) -> list[tuple[str, list[str]]]:
    out: list[tuple[str, list[str]]] = []
    for line in body.splitlines():
        if line.startswith("$ "):
            out.append((line[2:], []))
        else:
            assert out, f"output before any command: {line!r}"
            if line.strip():
                out[-1][1].append(line)
    return out


def _normal(line: str):
    try:
        value = json.loads(line)
    except ValueError:
        return line.rstrip()
    if isinstance(value, dict):
        value.pop("time_ms", None)
    return value


@pytest.fixture
def scratch(tmp_path):
    for name in ("examples", "benchmarks"):
        (tmp_path / name).symlink_to(ROOT / name)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "data").symlink_to(ROOT / "tests" / "data")  # the card-data fixtures the docs use
    env = dict(os.environ, PYTHONUNBUFFERED="1")  # standard output and error interleave as they are written
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return tmp_path, env


@pytest.mark.slow
@pytest.mark.parametrize("path, line, body", _cases("console"))
def test_console_blocks_print_what_they_say(scratch, path, line, body):
    folder, env = scratch
    for name, content in _inline_files(path).items():
        (folder / name).write_text(content + "\n")
    last_code = None
    ran = 0
    for cmd, expected in _commands(body):
        if any(cmd.startswith(prefix) for prefix in NOT_RUN):
            continue
        if cmd.strip() == "echo $?":
            assert expected == [str(last_code)], f"{path.name}:{line}: exit code of the previous command"
            continue
        shown = re.fullmatch(r"cat (\S+)(\s+#.*)?", cmd)
        if shown and not (folder / shown.group(1)).exists():
            (folder / shown.group(1)).write_text("\n".join(expected) + "\n")  # the block shows the file
            continue
        if "| jq" in cmd and shutil.which("jq") is None:
            continue
        proc = subprocess.run(
            ["bash", "-c", cmd],
            cwd=folder,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=300,
        )
        last_code = proc.returncode
        got = [_normal(x) for x in proc.stdout.splitlines() if x.strip()]
        assert got == [_normal(x) for x in expected], f"{path.name}:{line}: $ {cmd}\n{proc.stdout}"
        ran += 1
    assert ran or all(any(c.startswith(p) for p in NOT_RUN) for c, _ in _commands(body))


def _text_commands():
    """``$ trample ...`` lines of ``text`` blocks: tables with timings, so only run, not compared."""
    out = []
    for path in DOCS:
        for line, body in _blocks(path, "text"):
            for cmd in body.splitlines():
                if cmd.startswith("$ trample ") and "Ctrl-C" not in cmd:  # an interrupt is shown, not run
                    out.append(pytest.param(path, line, cmd[2:].split("  #")[0], id=f"{path.relative_to(ROOT)}:{line}"))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("path, line, cmd", _text_commands())
def test_text_block_commands_run(scratch, path, line, cmd):
    folder, env = scratch
    for word in cmd.split():
        for part in word.strip('"').split("="):
            if part.endswith(".py") and not (folder / part).exists():
                pytest.skip(f"{part}: a program of the reader's own")
    proc = subprocess.run(["bash", "-c", cmd], cwd=folder, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0 and proc.stdout.strip(), f"{path.name}:{line}: $ {cmd}\n{proc.stderr}"
    assert "Traceback" not in proc.stderr


@pytest.mark.slow
@pytest.mark.parametrize("path, line, body", _cases("python"))
def test_python_blocks_run(path, line, body, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(sys, "path", list(sys.path))  # a block may add benchmarks/ to it
    if body.lstrip().startswith(">>>"):
        test = doctest.DocTestParser().get_doctest(body, {}, f"{path.name}:{line}", str(path), line)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        runner.run(test)
        assert test.examples and runner.failures == 0, capsys.readouterr().out
        return
    exec(compile(body, f"{path.name}:{line}", "exec"), {"__name__": "__doc_example__"})
    out = capsys.readouterr().out.splitlines()
    expected = re.findall(r"^print\(.*\)[ \t]+#[ \t]*(.+)$", body, re.M)
    if path.name == "README.md" and line == _blocks(path, "python")[0][0]:
        expected += [e for e in re.findall(r"^# (.+)$", body, re.M) if not e.startswith(" ")]
    rest = iter(out)
    for e in expected:  # each expected line appears, in order
        assert any(e.strip() == o.strip() for o in rest), f"{path.name}:{line}: {e!r} not printed in order:\n{out}"


def test_every_doc_block_is_collected():
    assert _cases("console") and _cases("python")
    for path in DOCS:  # a python block that is not Python (a signature, say) should be marked text instead
        for line, body in _blocks(path, "python"):
            if not body.lstrip().startswith(">>>"):
                compile(body, f"{path.name}:{line}", "exec")


@pytest.mark.parametrize("path, line, body", _cases("sh"))
def test_sh_blocks_run(path, line, body):
    """``make`` lines must name targets of the Makefile (``make test`` cannot run inside the tests); the other
    lines run in bash from the repository's root, in order (activating .venv when the block does)."""
    targets = set(re.findall(r"^([\w-]+):", (ROOT / "Makefile").read_text(), re.M))
    script = ["set -e"]
    for cmd in body.splitlines():
        cmd = cmd.split("  #")[0].strip()
        if cmd.startswith("make "):
            assert set(cmd.split()[1:]) <= targets, cmd
        elif cmd and not any(cmd.startswith(prefix) for prefix in NOT_RUN):
            script.append(cmd)
    if len(script) == 1:
        return
    if any(".venv/bin/activate" in c for c in script) and not (ROOT / ".venv" / "bin" / "activate").exists():
        pytest.skip("no .venv here (make creates it)")
    env = dict(os.environ, PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    proc = subprocess.run(
        ["bash", "-c", "\n".join(script)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, f"{path.name}:{line}\n{proc.stdout}{proc.stderr}"


# ---------------------------------------------------------------------------------------------
# The >>> examples in the package's docstrings
# ---------------------------------------------------------------------------------------------


def _modules():
    import trample.models

    names = ["trample", "trample.models"]
    for package in (trample, trample.models):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            names.append(info.name)
    return sorted({n for n in names if not n.endswith("__main__")})  # running __main__ would start the CLI


def test_the_package_has_doctests():
    found = []
    for name in _modules():
        module = importlib.import_module(name)
        if any(t.examples for t in doctest.DocTestFinder().find(module)):
            found.append(name)
    assert {"trample", "trample.combat", "trample.whole.combat", "trample.arena"} <= set(found), found


@pytest.mark.parametrize("name", _modules())
def test_package_doctests(name, monkeypatch):
    monkeypatch.chdir(ROOT)  # examples read examples/*.json
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} doctest examples failed"
