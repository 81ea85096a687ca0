"""Inspect's own OpenAI-compatible provider with SmolLM2 on llama.cpp, offline: the
``sscbench/adoption`` task runs one case of every operator end to end — τ²'s loop on an
Inspect model, each sample an SSCBench run, scored by its reconstruction.

The model is tiny, so this proves the plumbing, not a robustness result. Skipped without
the ``local`` extra, the model package or ``inspect-ai``, except in CI
(``SSCBENCH_REQUIRE_LOCAL_SERVER=1``).
"""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import pytest

from sscbench.errors import ConfigError
from sscbench.llm import local_server


def _missing() -> str | None:
    for module, extra in (("llama_cpp", "local"), ("inspect_ai", "inspect")):
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


def test_inspect_runs_smollm2_on_one_case_of_every_operator(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from inspect_ai import eval as inspect_eval

    from sscbench.inspect_task import adoption
    from sscbench.operators.registry import operator_names

    local_server.keep_logs_in(tmp_path / "server-logs")
    try:
        spec = local_server.ServerSpec(
            model_path=str(local_server.resolve_model("smollm2")), alias="smollm2"
        )
        server = local_server.server_for(spec)
        monkeypatch.setenv("LLAMA_BASE_URL", server.base_url)  # Inspect's openai-api/<service>
        monkeypatch.setenv("LLAMA_API_KEY", "none")
        task = adoption(per_operator=1, controls=False, run_dir=str(tmp_path / "runs"))
        [log] = inspect_eval(
            task,
            model="openai-api/llama/smollm2",
            log_dir=str(tmp_path / "logs"),
            display="none",
            max_tokens=40,
            message_limit=10,
            max_samples=1,
        )
    finally:
        local_server.stop_all()
        local_server.keep_logs_in(None)
    assert log.status == "success", log.error
    assert len(log.samples) == len(operator_names())
    for sample in log.samples:
        score = sample.scores["reconstruction"]
        assert score.value != "failed", (sample.id, score.metadata)
        assert score.metadata["termination"] in ("user_stop", "agent_stop", "max_steps", "limit")
        ledger = Path(score.metadata["run_dir"]) / "ledger.jsonl"
        lines = [json.loads(x) for x in ledger.read_text(encoding="utf-8").splitlines()]
        assert lines[0]["agent"]["params"]["model"] == "openai-api/llama/smollm2"
        assert any(e["kind"] == "agent_message" and e["step"] >= 2 for e in lines[1:-1])
