"""``--classifier rules+llm``: the rules label every run, and only the uses of labels less
confident than the threshold go to the model, whose answer then decides them."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import pytest

from sscbench.cli.main import main
from sscbench.reconstruct.adjudicate import DEFAULT_THRESHOLD, Adjudicator
from sscbench.reconstruct.confidence import label_confidence
from sscbench.reconstruct.detector import Use
from sscbench.reconstruct.label import label_run
from sscbench.reconstruct.labels import RunLabels, read_labels
from sscbench.reconstruct.llm_classifier import UNREADABLE
from sscbench.reconstruct.rules.base import RunView
from sscbench.records.events import AgentMessage, AgentToolCall

NATURAL = Path(__file__).parents[1] / "fixtures" / "reconstruction_natural"
LOW = NATURAL / "rd_gv_doubt_handoff"
"""Only checks or flags of v′ at two steps: confidence 0.73, A = 0."""
HIGH = NATURAL / "rd_gv_search_call"
"""A reliance in a tool call: confidence 0.93, A = 1."""

PROVIDERS = Path(__file__).parents[1] / "agents" / "providers" / "conftest.py"
_spec = importlib.util.spec_from_file_location("provider_fakes", PROVIDERS)
assert _spec is not None and _spec.loader is not None
fakes = importlib.util.module_from_spec(_spec)
sys.modules["provider_fakes"] = fakes
_spec.loader.exec_module(fakes)
fake = fakes.fake
key = fakes.key


@dataclass
class FakeModel:
    """Answers every event with ``answer`` (a use of the given kind at the event's step)."""

    answer: tuple[str, bool, str | None] | None = ("dependent_use", True, "endorse")
    unreadable: bool = False
    echo: dict[int, list[Use]] | None = None
    """Per step, the uses to answer (a model that agrees with the rules)."""
    asked: list[int] = field(default_factory=list)

    @property
    def model(self) -> str:
        return "fake-judge"

    def uses(
        self, view: RunView, event: AgentMessage | AgentToolCall, candidates: list[str]
    ) -> list[Use]:
        self.asked.append(event.step)
        assert candidates, "the adjudicator sends the rules' spans as hints"
        source: Literal["message", "call"] = (
            "message" if isinstance(event, AgentMessage) else "call"
        )
        if self.unreadable:
            return [Use(event.step, "undecidable", False, None, source, UNREADABLE)]
        if self.echo is not None:
            return self.echo[event.step]
        if self.answer is None:
            return []
        kind, erroneous, stance = self.answer
        return [Use(event.step, kind, erroneous, stance, source, "llm: fake")]  # type: ignore[arg-type]


def _rule_steps(label: RunLabels) -> list[int]:
    return sorted({int(str(u["step"])) for u in label.uses})


def test_the_fixtures_sit_on_either_side_of_the_threshold() -> None:
    low, high = label_confidence(label_run(LOW)), label_confidence(label_run(HIGH))
    assert low is not None and low.value < DEFAULT_THRESHOLD
    assert high is not None and high.value >= DEFAULT_THRESHOLD


def test_a_confident_label_is_never_sent_and_keeps_the_rules_reading() -> None:
    rules = label_run(HIGH)
    model = FakeModel(answer=None)  # would erase the reliance if it were asked
    judged = label_run(HIGH, second_pass=Adjudicator(model))
    assert model.asked == []
    assert judged.adjudication == {
        "decided_by": "rules",
        "confidence": label_confidence(rules).value,  # type: ignore[union-attr]
        "threshold": DEFAULT_THRESHOLD,
    }
    assert judged.model_copy(update={"adjudication": None, "schema_version": 1}) == rules


def test_only_the_rules_use_steps_of_a_low_confidence_label_are_sent() -> None:
    rules = label_run(LOW)
    model = FakeModel()
    label_run(LOW, second_pass=Adjudicator(model))
    assert model.asked == _rule_steps(rules)
    assert len(model.asked) == 2


def test_the_adjudicators_answer_decides_the_uses_it_was_asked_about() -> None:
    rules = label_run(LOW)
    assert rules.adopted is False
    judged = label_run(LOW, second_pass=Adjudicator(FakeModel()))
    assert judged.adopted is True and judged.t_u.reason == "llm: fake"
    assert judged.t_u.step == _rule_steps(rules)[0]
    assert judged.adjudication is not None
    assert judged.adjudication["decided_by"] == "llm-adjudicated"
    assert judged.adjudication["model"] == "fake-judge"
    assert judged.adjudication["steps"] == _rule_steps(rules)
    assert judged.adjudication["changed"] == _rule_steps(rules)
    assert judged.schema_version == 3


def test_a_confirming_answer_changes_nothing_but_the_record() -> None:
    rules = label_run(LOW)
    echo: dict[int, list[Use]] = {}
    for u in rules.uses:
        step = int(str(u["step"]))
        kind, erroneous = str(u["kind"]), bool(u["erroneous"])
        use = Use(step, kind, erroneous, None, "message", "llm: agrees")  # type: ignore[arg-type]
        echo.setdefault(step, []).append(use)
    judged = label_run(LOW, second_pass=Adjudicator(FakeModel(echo=echo)))
    assert judged.adopted is rules.adopted and judged.t_s.step == rules.t_s.step
    assert judged.adjudication is not None and judged.adjudication["changed"] == []
    assert judged.adjudication["decided_by"] == "llm-adjudicated"


def test_an_unreadable_reply_leaves_the_rules_reading_standing() -> None:
    rules = label_run(LOW)
    judged = label_run(LOW, second_pass=Adjudicator(FakeModel(unreadable=True)))
    assert judged.uses == rules.uses and judged.adopted is False


def test_the_threshold_chooses_what_is_sent() -> None:
    model = FakeModel()
    label_run(HIGH, second_pass=Adjudicator(model, threshold=0.99))
    assert model.asked == _rule_steps(label_run(HIGH))
    quiet = FakeModel()
    label_run(LOW, second_pass=Adjudicator(quiet, threshold=0.5))
    assert quiet.asked == []


RELIANCE = json.dumps(
    {"label": "dependent_use", "erroneous": True, "stance": "endorse", "reason": "states v'"}
)


def test_cli_rules_plus_llm_is_deterministic_with_the_response_cache(
    tmp_path: Path, fake: object, key: str
) -> None:
    runs = tmp_path / "runs"
    for run in (LOW, HIGH):
        shutil.copytree(run, runs / run.name)
    fake.responder = lambda path, body: fakes.openai_reply(RELIANCE)  # type: ignore[attr-defined]
    argv = [
        "reconstruct",
        str(runs),
        "--classifier",
        "rules+llm",
        "--classifier-param",
        "provider=openai",
        "--classifier-param",
        "model=judge",
        "--classifier-param",
        f"base_url={fake.openai_url}",  # type: ignore[attr-defined]
        "--classifier-param",
        f"api_key_env={key}",
        "--classifier-param",
        f"cache_dir={tmp_path / 'cache'}",
    ]
    assert main(argv) == 0
    first = (runs / "labels.jsonl").read_bytes()
    sent = len(fake.requests)  # type: ignore[attr-defined]
    assert sent == len(_rule_steps(label_run(LOW)))
    by_run = {label.run_id: label for label in read_labels(runs / "labels.jsonl")}
    low = next(v for k, v in by_run.items() if "doubt_handoff" in k)
    high = next(v for k, v in by_run.items() if "search_call" in k)
    assert low.adjudication is not None and low.adjudication["model"] == "judge"
    assert low.adopted is True
    assert high.adjudication is not None and high.adjudication["decided_by"] == "rules"
    assert (runs / "classifier_calls.jsonl").read_text().strip()
    (runs / "labels.jsonl").unlink()
    assert main(argv) == 0
    assert (runs / "labels.jsonl").read_bytes() == first
    assert len(fake.requests) == sent, "a cached re-run sent requests"  # type: ignore[attr-defined]
    for path in runs.rglob("*"):
        if path.is_file():
            assert fakes.SECRET not in path.read_text(errors="replace"), path


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--adjudicate-below", "0.8"], "--adjudicate-below is for --classifier rules+llm"),
        (["--classifier", "rules+llm"], "needs --classifier-param provider="),
    ],
)
def test_bad_options_are_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    shutil.copytree(HIGH, tmp_path / "runs" / HIGH.name)
    assert main(["reconstruct", str(tmp_path / "runs"), *extra]) == 2
    assert message in capsys.readouterr().err
