"""The native suite served over MCP to an agent in its own loop: each task one session of
the ``external`` agent, its tools the family's, the hidden verifier judging what reached the
served server. The scripted native solutions played as an MCP client in another loop must
get exactly the verdicts they get in this process — the reference passes every task — which
is how the served path (tools, arguments, the virtual clock, the end) is checked."""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from sscbench.agents.base import EpisodeContext
from sscbench.agents.external import ExternalAgent, ExternalParams
from sscbench.agents.external.hub import WAITING_PATH, Hub
from sscbench.agents.external.mcp_server import NATIVE_INSTRUCTIONS, _tools, build_server
from sscbench.agents.external.reference import run_sessions
from sscbench.cli.main import main
from sscbench.native import SOLUTIONS, catalogue, run_suite
from sscbench.native.agents import POLICY, RUN_FILE, TOOL_KINDS, run_suite_with, tools_for
from sscbench.native.client import play_native
from sscbench.native.tasks import FAMILIES, Family

REFERENCE = f"{sys.executable} -m sscbench.native.client"


def _served(
    solution: str, seeds: list[int], families: tuple[Family, ...], out: Path
) -> tuple[list[Any], list[str]]:
    """The suite served on the process's hub, played by one client session per task."""
    hub = Hub.shared("127.0.0.1", 0)
    tasks = [t for seed in seeds for t in catalogue(seed, families)]
    outcome: dict[str, Any] = {}

    def serve() -> None:
        try:
            outcome["verdicts"] = run_suite_with(
                lambda: ExternalAgent(ExternalParams(connect_timeout=60)), seeds, families, out
            )
        except Exception as exc:  # re-raised in the test's thread
            outcome["error"] = exc

    thread = threading.Thread(target=serve)
    thread.start()
    endings = asyncio.run(
        run_sessions(
            f"native:{solution}",
            url=f"{hub.base_url}{WAITING_PATH}",
            sessions=len(tasks),
            player=play_native,
        )
    )
    thread.join(120)
    assert not thread.is_alive(), "the served suite did not end"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["verdicts"], endings


def test_the_served_reference_passes_every_task_with_the_verdicts_it_gets_in_process(
    tmp_path: Path,
) -> None:
    served, endings = _served("reference", [0, 1], FAMILIES, tmp_path / "runs")
    local = run_suite(SOLUTIONS["reference"], seeds=[0, 1])
    assert [v.model_dump() for v in served] == [v.model_dump() for v in local]
    assert len(served) == 2 * len(catalogue(0)) and all(v.success for v in served)
    assert set(endings) == {"user_stop"}  # "Done." to the user ended each task
    for verdict in served:
        run = tmp_path / "runs" / f"{verdict.task_id}-s{verdict.seed}"
        record = json.loads((run / RUN_FILE).read_text(encoding="utf-8"))
        assert record["termination"] == "user_stop"
        assert record["verdict"] == verdict.model_dump(mode="json")
        log = [json.loads(x) for x in (run / "client.jsonl").read_text().splitlines()]
        connected = next(e for e in log if e["event"] == "connected")
        assert connected["detail"]["name"] == "sscbench-reference-agent"


@pytest.mark.parametrize(
    ("solution", "family"),
    [
        ("copies_delivered", "link"),
        ("retries_at_once", "rate_limit"),
        ("ignores_maintenance", "maintenance"),
        ("rewrites_blindly", "version_conflict"),
    ],
)
def test_a_served_mistake_gets_the_label_it_gets_in_process(
    solution: str, family: Family, tmp_path: Path
) -> None:
    served, _ = _served(solution, [0], (family,), tmp_path / "runs")
    local = run_suite(SOLUTIONS[solution], seeds=[0], families=(family,))
    assert [(v.task_id, v.primary, v.labels) for v in served] == [
        (v.task_id, v.primary, v.labels) for v in local
    ]
    assert not all(v.success for v in served)  # each mistake fails some task of its family


def test_a_native_run_serves_the_family_tools_with_their_kinds_and_native_instructions() -> None:
    task = next(t for t in catalogue(0) if t.family == "version_conflict")
    ctx = EpisodeContext(
        domain="native",
        task=task,
        seed=0,
        policy=POLICY,
        tools=tools_for(task),
        tool_kinds=dict(TOOL_KINDS),
    )
    listed = {t.name: t.annotations.read_only_hint for t in _tools(ctx) if t.annotations}
    assert listed == {"get_report": True, "update_report": False}
    link = next(t for t in catalogue(0) if t.family == "maintenance")
    hints = _tools(EpisodeContext(domain="native", task=link, seed=0, policy=POLICY,
                                  tools=tools_for(link), tool_kinds=dict(TOOL_KINDS)))  # fmt: skip
    assert {t.name: t.annotations.read_only_hint for t in hints if t.annotations} == {
        "prepare_export": False, "issue_link": False, "resolve_link": True, "download": False,
        "service_status": True, "wait": False,
    }  # fmt: skip
    server = build_server(object(), ctx, object(), "streamable-http", "r")  # type: ignore[arg-type]
    assert server.instructions == NATIVE_INSTRUCTIONS
    assert task.id == task.task_id  # what sscbench://run announces


def test_sscbench_native_launches_an_external_agent_per_task(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "runs"
    argv = ["native", "--agent", "external", "--agent-param",
            f"command={REFERENCE} native:reference", "--family", "version_conflict",
            "--seeds", "2", "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    printed, said = capsys.readouterr()
    assert "2/2 seeded runs succeeded" in printed and "Q3-version_conflict" in printed
    assert f"2 tasks, each one MCP session of the external agent, in order; runs in {out}" in said
    for seed in (0, 1):
        run = out / f"Q3-version_conflict-s{seed}"
        assert json.loads((run / RUN_FILE).read_text())["verdict"]["primary"] == "SUCCESS"
        events = [json.loads(x)["event"] for x in (run / "client.jsonl").read_text().splitlines()]
        assert events[:3] == ["serving", "launched", "connected"] and "exited" in events
        assert (run / "agent.log").exists()
    assert main(argv) == 2  # the run directories exist: refused, nothing overwritten
    assert "is never overwritten" in capsys.readouterr().err


def test_sscbench_serve_native_launches_the_client_and_prints_the_verdicts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["serve", "--native", "--family", "version_conflict", "--seed", "3",
            "--launch", f"{REFERENCE} native:rewrites_blindly", "--out", str(tmp_path)]  # fmt: skip
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "0/1 seeded runs succeeded" in printed and "STALE_WRITE" in printed
    assert (tmp_path / "Q3-version_conflict-s3" / RUN_FILE).exists()
    cut = tmp_path / "short"
    short = ["serve", "--native", "--family", "maintenance", "--seed", "0", "--max-steps", "6",
             "--launch", f"{REFERENCE} native:reference", "--out", str(cut)]  # fmt: skip
    assert main(short) == 0  # serve's step limit reaches the native tasks
    record = json.loads((cut / "Q2-maintenance-s0" / RUN_FILE).read_text())
    assert record["termination"] == "max_steps" and record["steps"] == 6


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["serve", "--native", "--domain", "airline"], "drop --domain"),
        (["serve", "--native", "--transport", "stdio"], "streamable-http"),
        (["serve", "--family", "link", "--domain", "airline"], "add --native"),
        (["native", "--out", "x"], "a scripted --solution writes none"),
        (["native", "--max-steps", "2"], "--max-steps must be at least 3"),
        (["native", "--agent", "external", "--agent-param", "transport=stdio"], "stdio"),
    ],
)
def test_native_serving_mistakes_are_one_line_exit_2(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert says in err and len(err.splitlines()) == 1
