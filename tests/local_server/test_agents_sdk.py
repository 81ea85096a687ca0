"""A real third-party agent framework through the served interface, offline: the OpenAI
Agents SDK (its own MCP client, its own loop) with SmolLM2 on llama.cpp as its model, run by
``sscbench run --config`` on one case of every operator, then reconstructed.

The model is tiny, so the labels say little about robustness; what this proves is that a
client SSCBench did not write gets through every part of the protocol — prompts, τ²'s
tools, the user as a tool, the end of the conversation — and that its runs are recorded,
graded and labelled like any other. Skipped without the ``local`` extra, the model package
or ``openai-agents``, except in CI (``SSCBENCH_REQUIRE_LOCAL_SERVER=1``).
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from sscbench.errors import ConfigError
from sscbench.llm import local_server

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "agents_sdk_agent.py"


def _missing() -> str | None:
    for module, extra in (("llama_cpp", "local"), ("agents", "frameworks"), ("mcp", "mcp")):
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed (pip install 'sscbench[{extra}]')"
    try:
        local_server.resolve_model("smollm2")
    except ConfigError as exc:
        return str(exc)
    return None


MISSING = _missing()
if MISSING and os.environ.get("SSCBENCH_REQUIRE_LOCAL_SERVER") == "1":
    pytest.fail(f"the llama.cpp server tests must run here: {MISSING}", pytrace=False)
pytestmark = [
    pytest.mark.local_server,
    pytest.mark.skipif(MISSING is not None, reason=MISSING or ""),
]


@pytest.fixture
def smollm2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """SmolLM2 on llama.cpp as the example program's model (through its environment
    variables, a few short turns), stopped after the test."""
    local_server.keep_logs_in(tmp_path / "server-logs")
    try:
        spec = local_server.ServerSpec(
            model_path=str(local_server.resolve_model("smollm2")), alias="smollm2"
        )
        server = local_server.server_for(spec)
        monkeypatch.setenv("AGENT_BASE_URL", server.base_url)
        monkeypatch.setenv("AGENT_MODEL", "smollm2")
        monkeypatch.setenv("AGENT_MAX_TOKENS", "40")
        monkeypatch.setenv("AGENT_MAX_TURNS", "3")
        monkeypatch.setenv("AGENT_MAX_CONVERSATION_TURNS", "2")
        yield
    finally:
        local_server.stop_all()
        local_server.keep_logs_in(None)


@pytest.mark.usefixtures("smollm2")
def test_the_openai_agents_sdk_runs_one_case_per_operator_end_to_end(tmp_path: Path) -> None:
    from sscbench.experiments import load_experiment, run_experiment
    from sscbench.operators.registry import operator_names
    from sscbench.reconstruct.label import label_dir

    config = tmp_path / "agents-sdk.toml"
    config.write_text(
        f"""
name = "agents-sdk-smollm2"
concurrency = 1
gate = "none"   # SmolLM2 solves no task; every faulted run must still run
[cases]
controls = false
per_operator = 1
[[configurations]]
id = "agents-sdk"
agent = "external"
params = {{ command = "{sys.executable} {EXAMPLE}", idle_timeout = 900 }}
""",
        encoding="utf-8",
    )
    out = tmp_path / "runs"
    result = run_experiment(load_experiment(config), out)
    failed = [(r.run_id, r.cause, r.detail) for r in result.records if r.failed]
    assert failed == []
    labels = [x for x in label_dir(out) if x.case_id is not None]
    assert sorted({x.operator for x in labels}) == sorted(operator_names())
    assert all(x.finished and x.termination in ("agent_stop", "user_stop", "max_steps")
               for x in labels)  # fmt: skip
    for ledger in (out / "fault").glob("agents-sdk-*/*/*/ledger.jsonl"):
        lines = [json.loads(line) for line in ledger.read_text(encoding="utf-8").splitlines()]
        assert lines[0]["client"]["transport"] == "streamable-http"
        assert any(e["kind"] == "agent_message" and e["step"] >= 2 for e in lines[1:-1]), (
            "the framework's words reached the user through the server"
        )


@pytest.mark.usefixtures("smollm2")
def test_the_openai_agents_sdk_plays_native_tasks_served_over_mcp(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same unmodified framework program on the native suite (`sscbench native --agent
    external`): it loads the native prompts, gets the family's tools, and its answer to the
    user ends each task, which the hidden verifier then judges."""
    from sscbench.cli.main import main
    from sscbench.native.agents import RUN_FILE

    out = tmp_path / "native"
    command = f"command={sys.executable} {EXAMPLE}"
    code = main(["native", "--agent", "external", "--agent-param", command,
                 "--agent-param", "idle_timeout=900", "--family", "version_conflict",
                 "--seeds", "2", "--out", str(out)])  # fmt: skip
    assert code == 0
    assert "seeded runs succeeded" in capsys.readouterr().out
    for seed in (0, 1):
        run = out / f"Q3-version_conflict-s{seed}"
        record = json.loads((run / RUN_FILE).read_text(encoding="utf-8"))
        assert record["termination"] in ("user_stop", "agent_stop", "max_steps")
        assert record["steps"] >= 3  # greeting, instruction, and the framework's own words
        assert record["verdict"]["task_id"] == "Q3-version_conflict"
        log = [json.loads(x) for x in (run / "client.jsonl").read_text().splitlines()]
        connected = [e for e in log if e["event"] == "connected"]
        assert len(connected) == 1 and connected[0]["detail"]["name"] != "sscbench-reference-agent"
        assert any(e["event"] == "exited" and e["detail"]["status"] == 0 for e in log)
