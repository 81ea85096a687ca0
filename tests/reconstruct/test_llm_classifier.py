"""The optional LLM classifier: its prompt carries the contract, its replies become uses,
its requests are cached, and no key reaches a file."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path

import pytest

from sscbench.cli.main import main
from sscbench.reconstruct.label import label_run
from sscbench.reconstruct.llm_classifier import LLMClassifier, parse_label

PROVIDERS = Path(__file__).parents[1] / "agents" / "providers" / "conftest.py"
FIXTURE = Path(__file__).parents[1] / "fixtures" / "reconstruct" / "rd_states_vprime"

_spec = importlib.util.spec_from_file_location("provider_fakes", PROVIDERS)
assert _spec is not None and _spec.loader is not None
fakes = importlib.util.module_from_spec(_spec)
sys.modules["provider_fakes"] = fakes
_spec.loader.exec_module(fakes)
fake = fakes.fake
key = fakes.key

RELIANCE = json.dumps(
    {"label": "dependent_use", "erroneous": True, "stance": "endorse", "reason": "states v'"}
)
NONE = json.dumps({"label": "none", "erroneous": False, "stance": None, "reason": "unrelated"})


def _run(tmp_path: Path) -> Path:
    run = tmp_path / "runs" / FIXTURE.name
    shutil.copytree(FIXTURE, run)
    return run


def test_replies_become_uses_and_requests_are_cached(
    tmp_path: Path, fake: object, key: str
) -> None:
    run = _run(tmp_path)
    params = {
        "model": "judge",
        "base_url": fake.openai_url,
        "api_key_env": key,
        "cache_dir": str(tmp_path / "cache"),
    }  # type: ignore[attr-defined]
    fake.responder = lambda path, body: fakes.openai_reply(  # type: ignore[attr-defined]
        RELIANCE
        if "2024-05" in json.dumps(body["messages"][-1])
        and "agent message" in json.dumps(body).lower()
        else NONE
    )
    labels = label_run(run, LLMClassifier("openai", **params))
    assert labels.triggered and labels.adopted is True
    assert labels.t_u.status == "found" and labels.t_u.reason.startswith("llm:")
    first = fake.requests[0].body  # type: ignore[attr-defined]
    prompt = json.dumps(first["messages"])
    assert "Injected value v'" in prompt and "return_date" in prompt
    sent = len(fake.requests)  # type: ignore[attr-defined]
    again = label_run(run, LLMClassifier("openai", **params))
    assert again == labels
    assert len(fake.requests) == sent, "a cached re-run sent requests"  # type: ignore[attr-defined]


def test_cli_writes_labels_and_call_records_without_the_key(
    tmp_path: Path, fake: object, key: str
) -> None:
    run = _run(tmp_path)
    fake.responder = lambda path, body: fakes.openai_reply(NONE)  # type: ignore[attr-defined]
    code = main(
        [
            "reconstruct",
            str(run.parent),
            "--classifier",
            "llm",
            "--classifier-param",
            "provider=openai",
            "--classifier-param",
            "model=judge",
            "--classifier-param",
            f"base_url={fake.openai_url}",  # type: ignore[attr-defined]
            "--classifier-param",
            f"api_key_env={key}",
        ]
    )
    assert code == 0
    labels = [json.loads(x) for x in (run.parent / "labels.jsonl").read_text().splitlines()]
    assert labels[0]["adopted"] is False and labels[0]["t_s"]["status"] == "none"
    calls = (run.parent / "classifier_calls.jsonl").read_text()
    assert calls.strip()
    for path in run.parent.rglob("*"):
        if path.is_file():
            assert fakes.SECRET not in path.read_text(errors="replace"), path


def test_an_unreadable_reply_is_undecidable_never_a_guess() -> None:
    [use] = parse_label("I think it is fine", 7, "message")
    assert use.kind == "undecidable"
    assert parse_label(NONE, 7, "message") == []
    [hedged] = parse_label(
        json.dumps(
            {"label": "dependent_use", "erroneous": False, "stance": None, "reason": "hedge"}
        ),
        3,
        "call",
    )
    assert (hedged.kind, hedged.erroneous, hedged.source) == ("dependent_use", False, "call")


def test_unknown_provider_is_a_config_error() -> None:
    from sscbench.errors import ConfigError

    with pytest.raises(ConfigError, match="unknown classifier provider"):
        LLMClassifier("telepathy", model="x")
