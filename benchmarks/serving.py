"""Serving benchmark: a served tool call against the same call in process, 32 sessions at
once on one server, and the server's memory against the number of finished sessions.

* **Per-call overhead** — one airline episode whose agent reads ``get_user_details`` N
  times, four ways, side by side in one run: an in-process agent (the loop, the choke
  point, the ledger: what every served call also pays), and the same calls served over
  streamable HTTP to a raw keep-alive HTTP client (the server's own cost), to the MCP SDK's
  client, and over stdio to the SDK's client spawning ``sscbench serve``. Latency is per
  call as the agent sees it (median and p90 over every call of every trial); the overhead
  is the served median minus the in-process median. Target: ≤ 2 ms on loopback.
* **32 sessions at once** — 32 runs of airline task 0 served together (concurrency 32) to
  32 clients in a separate process. Even clients cancel reservation EHGLP3, then every
  client reads it back and tells the user its own name: the check is that each run's
  ledger holds exactly its client's words and calls, that every cancelling client sees
  the reservation cancelled and every other client sees it as the base database has it (no
  state crosses sessions).
* **Memory against finished sessions** — the server (this process) serves S short runs in
  a row (8 at a time) to a client process; its RSS is sampled as sessions finish. Target:
  flat (the slope over the second half, KiB per finished session, near 0).

Prints a markdown summary and writes ``benchmarks/serving-results.json``.

    .venv/bin/python benchmarks/serving.py            # ~3 min on a 2-core machine
    .venv/bin/python benchmarks/serving.py --quick    # ~1 min
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import string
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).with_name("serving-results.json")
USER = "mia_li_3668"  # airline task 0's user
RESERVATION = "EHGLP3"  # a reservation to cancel (any works: the check is who sees it)
BASE_STATUS = None  # its status in τ²'s base database (JSON null)
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def _rss_mib() -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _summary(values: Sequence[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "median_ms": 1000 * statistics.median(ordered),
        "p90_ms": 1000 * ordered[int(0.9 * (len(ordered) - 1))],
        "min_ms": 1000 * ordered[0],
        "calls": len(ordered),
    }


# ---------------------------------------------------------------------- per-call overhead
class _Reader:
    """An in-process agent that reads the same record ``calls`` times, then stops."""

    def __init__(self, calls: int) -> None:
        from sscbench.records.events import ParticipantSpec

        self.spec = ParticipantSpec(name="bench:reader")
        self.calls = calls
        self.stamps: list[float] = []

    def start(self, ctx: Any) -> None:
        self.stamps = []

    def next_turn(self, history: Any) -> Any:
        from sscbench.agents.base import AgentTurn
        from sscbench.envs.calls import ToolCall

        self.stamps.append(time.perf_counter())
        n = len(self.stamps) - 1
        if n >= self.calls:
            return AgentTurn()
        return AgentTurn(
            tool_calls=(ToolCall(id=f"call_{n}", name="get_user_details",
                                 arguments={"user_id": USER}),)
        )  # fmt: skip


def _in_process(calls: int, work: Path) -> list[float]:
    from sscbench.runs.episode import EpisodeSpec, run_episode
    from sscbench.users import make_user

    agent = _Reader(calls)
    spec = EpisodeSpec(domain="airline", task_id="0", max_steps=2 * calls + 10)
    run_episode(spec, agent, make_user("scripted"), work / "in-process", run_id="in-process")
    return [b - a for a, b in zip(agent.stamps[1:-1], agent.stamps[2:], strict=False)]


def _serve_one(calls: int, work: Path, name: str) -> tuple[Any, threading.Thread]:
    from sscbench.agents.external.agent import ExternalAgent, ExternalParams
    from sscbench.agents.external.hub import HttpFrontEnd
    from sscbench.runs.episode import EpisodeSpec, run_episode
    from sscbench.users import make_user

    params = ExternalParams()
    front = HttpFrontEnd(params)
    agent = ExternalAgent(params, front_end=front)
    spec = EpisodeSpec(domain="airline", task_id="0", max_steps=2 * calls + 10)
    failed: list[BaseException] = []

    def body() -> None:
        try:
            run_episode(spec, agent, make_user("scripted"), work / name, run_id=name)
        except BaseException as exc:
            failed.append(exc)
            raise

    thread = threading.Thread(target=body, daemon=True)
    thread.start()
    while front._url is None:
        if failed or not thread.is_alive():
            raise SystemExit(f"the served episode {name} did not start: {failed}")
        time.sleep(0.005)
    return front, thread


def _raw_http(calls: int, work: Path, name: str) -> list[float]:
    import httpx

    front, thread = _serve_one(calls, work, name)
    url = front._url
    latencies = []
    with httpx.Client(timeout=60) as http:
        opened = http.post(url, headers=ACCEPT, json={
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "bench-raw", "version": "1"}},
        })  # fmt: skip
        headers = {**ACCEPT, "mcp-session-id": opened.headers["mcp-session-id"],
                   "mcp-protocol-version": "2025-06-18"}  # fmt: skip
        http.post(url, headers=headers,
                  json={"jsonrpc": "2.0", "method": "notifications/initialized"})  # fmt: skip
        for i in range(calls):
            params = {"name": "get_user_details", "arguments": {"user_id": USER}}
            body = {"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": params}
            started = time.perf_counter()
            reply = http.post(url, headers=headers, json=body)
            latencies.append(time.perf_counter() - started)
            assert reply.status_code == 200 and USER in reply.text
        http.post(url, headers=headers, json={"jsonrpc": "2.0", "id": -1, "method": "tools/call",
                                               "params": {"name": "end_conversation"}})  # fmt: skip
    thread.join(60)
    return latencies


async def _sdk_calls(client: Any, calls: int) -> list[float]:
    latencies = []
    for _ in range(calls):
        started = time.perf_counter()
        result = await client.call_tool("get_user_details", {"user_id": USER})
        latencies.append(time.perf_counter() - started)
        assert not result.is_error
    await client.call_tool("end_conversation", {})
    return latencies


def _sdk_http(calls: int, work: Path, name: str) -> list[float]:
    from mcp import Client

    front, thread = _serve_one(calls, work, name)

    async def main() -> list[float]:
        async with Client(front._url) as client:
            return await _sdk_calls(client, calls)

    latencies = asyncio.run(main())
    thread.join(60)
    return latencies


def _sdk_stdio(calls: int, work: Path, name: str) -> list[float]:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "sscbench", "serve", "--transport", "stdio", "--domain", "airline",
              "--tasks", "0", "--max-steps", str(2 * calls + 10), "--out", str(work / name)],
    )  # fmt: skip

    async def main() -> list[float]:
        async with Client(server) as client:
            return await _sdk_calls(client, calls)

    return asyncio.run(main())


def per_call(calls: int, trials: int, work: Path) -> dict[str, Any]:
    """The four arms, interleaved trial by trial."""
    arms = {"in_process": [], "http_raw": [], "http_sdk": [], "stdio_sdk": []}
    for trial in range(trials):
        arms["in_process"] += _in_process(calls, work / f"t{trial}")
        arms["http_raw"] += _raw_http(calls, work / f"t{trial}", "raw")
        arms["http_sdk"] += _sdk_http(calls, work / f"t{trial}", "sdk")
        arms["stdio_sdk"] += _sdk_stdio(calls, work / f"t{trial}", "stdio")
    out: dict[str, Any] = {name: _summary(values) for name, values in arms.items()}
    base = out["in_process"]["median_ms"]
    for name in ("http_raw", "http_sdk", "stdio_sdk"):
        out[name]["overhead_ms"] = out[name]["median_ms"] - base
    return out


# ------------------------------------------------------------------- sessions at once
CLIENT = string.Template(r'''
import asyncio, json, sys, time
from mcp import Client
url, sessions, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
async def one(i, slots):
    async with slots:
        async with Client(url) as c:
            run = json.loads((await c.read_resource("sscbench://run")).contents[0].text)
            lat = []
            async def call(name, args):
                t = time.perf_counter(); r = await c.call_tool(name, args)
                lat.append(time.perf_counter() - t); return r
            if mode == "leak":
                await call("get_user_details", {"user_id": "$user"})
                if i % 2 == 0:
                    await call("cancel_reservation", {"reservation_id": "$reservation"})
                read = await call("get_reservation_details", {"reservation_id": "$reservation"})
                seen = json.loads(read.content[0].text)
                await call("send_message_to_user", {"message": f"client {i} speaking"})
                await c.call_tool("end_conversation", {})
                return {"client": i, "run": run["run_id"], "status": seen["status"], "lat": lat}
            await call("get_user_details", {"user_id": "$user"})
            await c.call_tool("end_conversation", {})
            return {"client": i, "run": run["run_id"], "lat": lat}
async def main():
    slots = asyncio.Semaphore(int(sys.argv[4]))
    return await asyncio.gather(*(one(i, slots) for i in range(sessions)))
started = time.perf_counter()
out = asyncio.run(main())
print(json.dumps({"wall": time.perf_counter() - started, "clients": out}))
''').substitute(user=USER, reservation=RESERVATION)


def _serve_many(sessions: int, concurrency: int, work: Path, mode: str,
                on_record: Any = None) -> tuple[dict[str, Any], Any]:  # fmt: skip
    from sscbench.agents.external.hub import WAITING_PATH, Hub
    from sscbench.experiments.inline import clean_runs, command_line_experiment
    from sscbench.experiments.session import run_experiment

    hub = Hub.shared("127.0.0.1", 0)
    experiment = command_line_experiment(
        "bench", [("external", {})], seeds=tuple(range(sessions)), concurrency=concurrency
    )
    runs = clean_runs(experiment, [("airline", "0")], max_steps=30)
    result: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: result.setdefault("session", run_experiment(
        experiment, work, runs=runs, on_record=on_record, keep_records=False)))  # fmt: skip
    thread.start()
    script = work.parent / f"{work.name}-client.py"
    script.write_text(CLIENT, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script), f"{hub.base_url}{WAITING_PATH}", str(sessions), mode,
         str(concurrency)],
        capture_output=True, text=True, timeout=3600, check=False,
    )  # fmt: skip
    thread.join(600)
    if done.returncode != 0:
        raise SystemExit(f"the client process failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout), result["session"]


def sessions_at_once(sessions: int, work: Path) -> dict[str, Any]:
    """32 runs served together; the leak check (module docstring)."""
    from sscbench.records.ledger import read_ledger

    cpu = time.process_time()
    report, _ = _serve_many(sessions, sessions, work, "leak")
    cpu = time.process_time() - cpu
    problems = []
    for client in report["clients"]:
        ledger = read_ledger(next(work.glob(f"**/{client['run']}/ledger.jsonl")))
        said = [e.content for e in ledger.events if e.kind == "agent_message"][1:]
        if said != [f"client {client['client']} speaking"]:
            problems.append(f"run {client['run']} holds {said}")
        cancels = [
            e for e in ledger.events if e.kind == "tool_call" and e.name == "cancel_reservation"
        ]
        if len(cancels) != (client["client"] % 2 == 0):
            problems.append(f"run {client['run']} holds {len(cancels)} cancellations")
        expected = "cancelled" if client["client"] % 2 == 0 else BASE_STATUS
        if client["status"] != expected:
            problems.append(f"client {client['client']} saw {client['status']}, not {expected}")
    latencies = [x for c in report["clients"] for x in c["lat"]]
    return {
        "sessions": sessions,
        "wall_s": report["wall"],
        "calls": len(latencies),
        "latency": _summary(latencies),
        "server_cpu_s": cpu,
        "server_cpu_ms_per_session": 1000 * cpu / sessions,
        "leak_problems": problems,
        "no_leak": not problems,
    }


def memory(sessions: int, work: Path) -> dict[str, Any]:
    """Server RSS as sessions finish (module docstring)."""
    samples: list[tuple[int, float]] = [(0, _rss_mib())]
    finished = 0
    every = max(1, sessions // 20)

    def on_record(record: Any, ran: bool) -> None:
        nonlocal finished
        finished += 1
        if finished % every == 0:
            samples.append((finished, _rss_mib()))

    _serve_many(sessions, 8, work, "short", on_record)
    half = [s for s in samples if s[0] >= sessions // 2]
    xs, ys = [s[0] for s in half], [s[1] for s in half]
    mean_x, mean_y = statistics.fmean(xs), statistics.fmean(ys)
    slope = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mean_x) ** 2 for x in xs
    )
    return {
        "sessions": sessions,
        "rss_mib": samples,
        "first_half_growth_mib": half[0][1] - samples[1][1] if len(samples) > 1 else 0.0,
        "slope_kib_per_session_second_half": slope * 1024,
        "peak_mib": max(s[1] for s in samples),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer calls and sessions")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    calls, trials, memory_sessions = (100, 2, 200) if args.quick else (300, 5, 2000)
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    with tempfile.TemporaryDirectory(prefix="sscbench-mcp-bench-") as tmp:
        work = Path(tmp)
        started = time.time()
        results = {
            "mode": "quick" if args.quick else "full",
            "per_call": per_call(calls, trials, work / "per-call"),
            "sessions_at_once": sessions_at_once(32, work / "at-once"),
            "memory": memory(memory_sessions, work / "memory"),
            "wall_s": time.time() - started,
        }
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    pc = results["per_call"]
    print("| arm | median ms | p90 ms | overhead ms |\n|---|---:|---:|---:|")
    for name in ("in_process", "http_raw", "http_sdk", "stdio_sdk"):
        row = pc[name]
        print(f"| {name} | {row['median_ms']:.2f} | {row['p90_ms']:.2f} | "
              f"{row.get('overhead_ms', 0.0):.2f} |")  # fmt: skip
    at = results["sessions_at_once"]
    print(f"\n32 sessions at once: {at['calls']} calls in {at['wall_s']:.1f} s, per-call "
          f"median {at['latency']['median_ms']:.1f} ms (queued behind the other sessions), "
          f"server CPU {at['server_cpu_ms_per_session']:.0f} ms per session (start, "
          f"calls, grading, records), no leak: {at['no_leak']} "
          f"{at['leak_problems'][:3]}")  # fmt: skip
    mem = results["memory"]
    print(f"memory: {mem['sessions']} sessions, RSS {mem['rss_mib'][1][1]:.0f} -> "
          f"{mem['rss_mib'][-1][1]:.0f} MiB, second-half slope "
          f"{mem['slope_kib_per_session_second_half']:.2f} KiB/session")  # fmt: skip
    print(f"written to {args.out}")
    return 0 if at["no_leak"] else 1


if __name__ == "__main__":
    sys.exit(main())
