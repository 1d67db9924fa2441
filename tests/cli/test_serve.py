"""``trample serve`` (trample.serve): one response line per request line, the commands' own documents, bad
requests answered with exit 2 and one line, the server going on; over TCP, clients served concurrently."""

from __future__ import annotations

import io
import json
import os
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from trample import serve
from trample.combat import Combat
from trample.models import load_scenario

ROOT = Path(__file__).resolve().parents[2]
THRASTA = json.loads((ROOT / "examples" / "thrasta.json").read_text())
ILLEGAL = {"thrasta": {"wall": 3, "bear": 2, "opp": 5}, "cub": {"teferi": 2}}
BOUND = 120  # seconds: a generous bound on a loaded machine, never a sleep


def ask(**request) -> dict:
    return serve.handle(json.dumps(request))


def test_count_enumerate_check_solve_answer_what_the_library_answers():
    combat = Combat(load_scenario(THRASTA))
    assert ask(id=1, command="count", scenario=THRASTA) == {"id": 1, "exit": 0, "result": {"count": combat.count()}}

    listed = ask(id="e", command="enumerate", scenario=THRASTA, limit=5)
    assert listed["exit"] == 0 and listed["result"]["complete"] is False
    assert listed["result"]["assignments"] == [a.to_json() for a in combat.assignments(limit=5)]
    everything = ask(command="enumerate", scenario=THRASTA, limit=1000)["result"]
    assert everything["complete"] is True and len(everything["assignments"]) == combat.count()

    checked = ask(id=2, command="check", scenario=THRASTA, assignment=ILLEGAL)
    assert checked["exit"] == 1  # the answer is no, as `trample check` exits 1
    assert checked["result"] == combat.check(ILLEGAL).to_json()
    assert {v["rule"] for v in checked["result"]["violations"]} == {"702.19c"}

    solved = ask(id=3, command="solve", scenario=THRASTA, objective="lethal,max-value")
    assert solved["exit"] == 0 and solved["result"]["status"] == "optimal"
    expected = combat.solve("lethal,max-value").to_json()
    assert solved["result"]["objectives"] == expected["objectives"] == {"lethal": 1, "max-value": 7}
    assert combat.check(solved["result"]["assignment"]).legal


def test_defending_side_and_whole_combat_requests():
    blockers = ask(command="count", scenario=THRASTA, side="defending")
    assert blockers["result"]["count"] == Combat(load_scenario(THRASTA), side="defending").count()
    double = json.loads((ROOT / "examples" / "double_strike.json").read_text())
    whole = ask(command="count", scenario=double)
    assert whole["exit"] == 0 and whole["result"]["count"] >= 1


@pytest.mark.parametrize(
    "line, where",
    [
        ("not json", "request"),
        ("[1, 2]", "request: expected a JSON object"),
        ('{"command": "count"}', "request.scenario: missing"),
        ('{"command": "fly", "scenario": {}}', "request.command"),
        ('{"command": "count", "scenario": {}, "colour": 1}', "request.colour: unknown field"),
        ('{"command": "count", "scenario": {"attackers": [{"id": "a"}]}}', "request.scenario.attackers[0]"),
        ('{"id": [1], "command": "ping"}', "request.id"),
        ('{"command": "count", "scenario": {"attackers": []}, "time_limit": -1}', "request.time_limit"),
        ('{"command": "count", "scenario": {"attackers": []}, "side": "both sides"}', "request.side"),
        ('{"command": "enumerate", "scenario": {"attackers": []}, "limit": 0}', "request.limit"),
        ('{"command": "enumerate", "scenario": {"attackers": []}, "limit": 1000000000}', "request.limit"),
        ('{"command": "solve", "scenario": {"attackers": []}, "objective": "max-fun"}', "request.objective"),
        ('{"command": "check", "scenario": {"attackers": []}}', "request.assignment: missing"),
        ('{"command": "count", "scenario": {"attackers": []}, "engine": "warp"}', "request.engine"),
        ("[" * 100_000, "request"),
    ],
)
def test_a_bad_request_gets_exit_2_and_one_line(line, where):
    response = serve.handle(line)
    assert response["exit"] == 2, response
    assert where in response["error"] and "\n" not in response["error"]


def test_the_server_goes_on_after_bad_requests_and_answers_in_order():
    requests = [
        json.dumps({"id": 1, "command": "count", "scenario": THRASTA}),
        "{broken",
        "",
        json.dumps({"id": 3, "command": "ping"}),
        "\xff not utf-8",
    ]
    data = "\n".join(requests).encode("utf-8", "surrogateescape")
    data = data.replace("\xff".encode(), b"\xff")
    out = io.BytesIO()
    answered = serve.serve_lines(io.BytesIO(data + b"\n"), out)
    lines = out.getvalue().decode().splitlines()
    assert answered == 4 == len(lines)  # the blank line is skipped
    responses = [json.loads(line) for line in lines]
    assert [r["exit"] for r in responses] == [0, 2, 0, 2]
    assert responses[0]["result"]["count"] == 36 and responses[2]["id"] == 3
    assert "UTF-8" in responses[3]["error"]


def test_a_line_longer_than_the_bound_is_refused_without_being_held(monkeypatch):
    monkeypatch.setattr(serve, "MAX_LINE", 64)
    long_line = b'{"command": "ping", "pad": "' + b"x" * 1000 + b'"}\n'
    out = io.BytesIO()
    serve.serve_lines(io.BytesIO(long_line + b'{"id": 2, "command": "ping"}\n'), out)
    first, second = (json.loads(line) for line in out.getvalue().splitlines())
    assert first["exit"] == 2 and "longer than 64 bytes" in first["error"]
    assert second["id"] == 2 and second["exit"] == 0


def _client(port: int, requests: list[str], answers: list, errors: list) -> None:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=BOUND) as conn:
            conn.sendall("".join(r + "\n" for r in requests).encode())
            conn.shutdown(socket.SHUT_WR)
            reader = conn.makefile("rb")
            answers.extend(json.loads(line) for line in reader)
    except Exception as err:  # reported by the test thread
        errors.append(err)


def test_tcp_serves_two_clients_concurrently_and_survives_malformed_requests():
    ready = threading.Event()
    stop = threading.Event()
    where: dict = {}

    def on_ready(host, port):
        where["port"] = port
        ready.set()

    server = threading.Thread(target=serve.serve_tcp, kwargs={"port": 0, "ready": on_ready, "stop": stop})
    server.start()
    try:
        assert ready.wait(BOUND)
        port = where["port"]
        a_requests = [json.dumps({"id": f"a{i}", "command": "count", "scenario": THRASTA}) for i in range(3)]
        b_requests = [
            "garbage",
            json.dumps({"id": "b1", "command": "check", "scenario": THRASTA, "assignment": ILLEGAL}),
            '{"id": "b2", "command": "nope"}',
            json.dumps({"id": "b3", "command": "solve", "scenario": THRASTA, "objective": "max-damage"}),
        ]
        answers_a: list = []
        answers_b: list = []
        errors: list = []
        clients = [
            threading.Thread(target=_client, args=(port, a_requests, answers_a, errors)),
            threading.Thread(target=_client, args=(port, b_requests, answers_b, errors)),
        ]
        for c in clients:
            c.start()
        for c in clients:
            c.join(BOUND)
        assert not errors, errors
        assert [r["id"] for r in answers_a] == ["a0", "a1", "a2"]
        assert all(r["result"] == {"count": 36} for r in answers_a)
        assert [r["id"] for r in answers_b] == [None, "b1", "b2", "b3"]
        assert [r["exit"] for r in answers_b] == [2, 1, 2, 0]
        # a client that disconnects mid-request does not take the server down
        with socket.create_connection(("127.0.0.1", port), timeout=BOUND) as conn:
            conn.sendall(b'{"command": "count", "scen')
        after: list = []
        _client(port, [json.dumps({"id": "late", "command": "ping"})], after, errors)
        assert not errors and after[0]["id"] == "late" and after[0]["exit"] == 0
    finally:
        stop.set()
        server.join(BOUND)
    assert not server.is_alive()


def _trample(*args, **kwargs):
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen([sys.executable, "-m", "trample", *args], env=env, **kwargs)


def test_cli_serve_on_standard_input():
    requests = "\n".join(
        [json.dumps({"id": 1, "command": "count", "scenario": THRASTA}), "not json", json.dumps({"command": "ping"})]
    )
    proc = _trample("serve", stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = proc.communicate(requests.encode(), timeout=BOUND)
    assert proc.returncode == 0, err
    responses = [json.loads(line) for line in out.decode().splitlines()]
    assert [r["exit"] for r in responses] == [0, 2, 0]
    assert responses[0] == {"id": 1, "exit": 0, "result": {"count": 36}}


def test_cli_serve_on_a_port_until_interrupted():
    proc = _trample("serve", "--port", "0", stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        line = proc.stderr.readline().decode()  # waits for the server to say where it listens
        assert line.startswith("trample: serving on 127.0.0.1:"), line
        port = int(line.rsplit(":", 1)[1])
        answers: list = []
        errors: list = []
        _client(port, [json.dumps({"id": 9, "command": "count", "scenario": THRASTA})], answers, errors)
        assert not errors and answers == [{"id": 9, "exit": 0, "result": {"count": 36}}]
        proc.send_signal(signal.SIGINT)
        proc.wait(BOUND)
        assert proc.returncode == 130
        rest = proc.stderr.read().decode()
        assert "Traceback" not in rest and len(rest.strip().splitlines()) == 1
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize("args, message", [(["--port", "70000"], "--port"), (["--host", "0.0.0.0"], "--host")])
def test_cli_serve_bad_options(args, message):
    proc = _trample("serve", *args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = proc.communicate(timeout=BOUND)
    assert proc.returncode == 2 and message in err.decode() and len(err.decode().splitlines()) == 1
