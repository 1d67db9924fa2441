"""The README's Python examples run, and its console examples print what they say."""

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def test_python_blocks_run(capsys):
    blocks = re.findall(r"```python\n(.*?)```", README, re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})
    out = capsys.readouterr().out
    expected = re.findall(r"^# (.+)$", blocks[0], re.M)
    for line in expected:
        if not line.startswith(" "):
            assert line in out


def test_console_blocks_match():
    for block in re.findall(r"```console\n(.*?)```", README, re.S):
        lines = block.splitlines()
        i = 0
        while i < len(lines):
            line = lines[i]
            assert line.startswith("$ "), line
            cmd = line[2:]
            i += 1
            expected = []
            while i < len(lines) and not lines[i].startswith("$ "):
                expected.append(lines[i])
                i += 1
            if cmd.startswith("echo $?"):
                assert expected == [str(last_code)]
                continue
            assert cmd.startswith("trample ")
            proc = subprocess.run(
                f"{sys.executable} -m trample {cmd[len('trample ') :]}",
                shell=True,
                cwd=ROOT,
                capture_output=True,
                text=True,
                timeout=120,
            )
            last_code = proc.returncode
            got = [json.loads(x) for x in proc.stdout.splitlines()]
            for g in got:
                if isinstance(g, dict):
                    g.pop("time_ms", None)  # the only field that varies from run to run
            assert got == [json.loads(x) for x in expected], cmd
