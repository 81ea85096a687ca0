"""The dialogue's focus, found only when a mention needs it, detects and labels exactly as
the focus found before every message (the definition): a text detected without it is
remembered for every focus, one detected with it only for that focus."""

from __future__ import annotations

from pathlib import Path

import pytest

from sscbench.fault_contracts.history import History
from sscbench.fault_contracts.io import ledger_contract
from sscbench.reconstruct.binding import RefIndex
from sscbench.reconstruct.detector import FactModel, LazyFocus, Source, Use, ValueMention, detect
from sscbench.reconstruct.label import fault_step, label_run, rules_for
from sscbench.reconstruct.rules import base
from sscbench.reconstruct.rules.base import GenericRules, RunView, UseRules, _lazy_focus
from sscbench.reconstruct.rules.write_effect import WriteEffectRules
from sscbench.reconstruct.segment import Unit
from sscbench.reconstruct.values import Mention
from sscbench.records.events import AgentMessage, ToolObservation, UserMessage, VisibleEvent
from sscbench.records.ledger import read_ledger
from sscbench.runs.episode import LEDGER_FILE

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
TEXTS = ("Your return is on May 5.", "Nothing about dates here.", "w1 returns on May 5.")
FOCI = (frozenset({"A"}), frozenset({"B"}), frozenset(), frozenset({"A", "B"}))


def _model() -> FactModel:
    """Reservation ``A`` (id w1) against ``B`` (w2), both holding May 5: a mention of it is
    bound by a reference in the text if there is one, else by the focus."""

    def find(unit: Unit) -> list[ValueMention]:
        at = unit.text.find("May 5")
        if at < 0:
            return []
        return [ValueMention(Mention("2024-05-05", at, at + 5, "full"), "v_prime", "return")]

    return FactModel(
        target="A",
        index=RefIndex({"w1": {"A"}, "w2": {"B"}}),
        find=find,
        holders=lambda _value: frozenset({"A", "B"}),
    )


def _asked(focus: frozenset[str], calls: list[frozenset[str]]) -> LazyFocus:
    def find() -> frozenset[str]:
        calls.append(focus)
        return focus

    return find


def test_a_shared_model_detects_every_text_under_every_focus_as_afresh() -> None:
    shared = _model()
    shared.detected = {}
    source: Source = "message"
    for _ in range(2):  # the second round answers from what the first remembered
        for step, (text, focus) in enumerate((t, f) for t in TEXTS for f in FOCI):
            calls: list[frozenset[str]] = []
            found = detect(shared, text, step, source, _asked(focus, calls))
            expected: list[Use] = detect(_model(), text, step, source, focus)
            assert found == expected, (text, focus)
            assert len(calls) <= 1
    kinds = {tuple(u.kind for u in detect(_model(), TEXTS[0], 0, source, f)) for f in FOCI}
    assert len(kinds) > 1  # the first text's uses do depend on the focus


def test_the_focus_is_found_only_for_a_text_that_names_a_value() -> None:
    shared = _model()
    shared.detected = {}
    for model in (_model(), shared, shared):
        calls: list[frozenset[str]] = []
        assert detect(model, TEXTS[1], 3, "message", _asked(frozenset({"B"}), calls)) == []
        assert calls == []
        detect(model, TEXTS[0], 3, "message", _asked(frozenset({"B"}), calls))
        assert calls == [frozenset({"B"})]


def test_a_rule_set_that_overrides_message_unmarked_gets_the_focus_itself() -> None:
    seen: list[object] = []

    class Plugin(GenericRules):
        def message(
            self,
            view: RunView,
            text: str,
            step: int,
            focus: LazyFocus = frozenset(),
            source: Source = "message",
        ) -> list[Use]:
            seen.append(focus)
            return super().message(view, text, step, focus, source)

    assert not _lazy_focus(Plugin)
    assert _lazy_focus(GenericRules) and _lazy_focus(WriteEffectRules)
    assert _lazy_focus(type("Inherits", (WriteEffectRules,), {}))
    for run in _fixture_runs():
        ledger = read_ledger(run / LEDGER_FILE)
        contract = ledger_contract(ledger)
        history = History(ledger.events)
        t_f = None if contract is None else fault_step(contract, history)
        if contract is not None and t_f is not None:
            Plugin().uses(RunView(history, t_f, contract), ledger.events)
        if len(seen) > 20:
            break
    assert len(seen) > 20
    assert all(isinstance(focus, frozenset) for focus in seen)


def _fixture_runs() -> list[Path]:
    found = [p.parent for p in FIXTURES.glob("reconstruction_*/**/ledger.jsonl")]
    found += [p.parent for p in (FIXTURES / "reconstruct").glob("*/ledger.jsonl")]
    return sorted(found)


def test_lazy_focus_labels_real_agent_runs_as_the_focus_found_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    runs = _fixture_runs()
    assert len(runs) >= 300
    lazy = [label_run(run).model_dump_json() for run in runs]
    monkeypatch.setattr(base, "_lazy_focus", lambda _rules: False)
    monkeypatch.setattr(base, "SHARED_MODELS", {})  # no text remembered from the lazy pass
    assert [label_run(run).model_dump_json() for run in runs] == lazy


def _first_asked(runs: list[Path], monkeypatch: pytest.MonkeyPatch) -> list[dict[int, int]]:
    """Per run: the step each model (by records delivered) was made at, the run labelled
    as it is and with a user message put after each observation the agent answers (a model
    asked for first at the user message's step, or at the agent's, may differ)."""
    made: list[dict[int, int]] = []
    model_at = UseRules.model_at

    def recording(self: UseRules, view: RunView, step: int) -> FactModel:
        at = max(step, view.t_f + 1)
        made[-1].setdefault(view.history.delivered_before(at), at)
        return model_at(self, view, step)

    monkeypatch.setattr(UseRules, "model_at", recording)
    for run in runs:
        made.append({})
        label_run(run)
        ledger = read_ledger(run / LEDGER_FILE)
        contract = ledger_contract(ledger)
        t_f = None if contract is None else fault_step(contract, History(ledger.events))
        if contract is not None and t_f is not None:
            events = _user_after_observations(list(ledger.events), t_f)
            made.append({})
            rules_for(contract.operator).uses(RunView(History(events), t_f, contract), events)
    monkeypatch.setattr(UseRules, "model_at", model_at)
    return made


def _user_after_observations(events: list[VisibleEvent], t_f: int) -> list[VisibleEvent]:
    """``events`` with a user message between each observation after ``t_f`` and an agent
    message that follows it, steps renumbered."""
    out: list[VisibleEvent] = []
    for event in events:
        previous = out[-1] if out else None
        if (
            isinstance(event, AgentMessage)
            and isinstance(previous, ToolObservation)
            and previous.step > t_f
        ):
            out.append(UserMessage(step=len(out), turn=event.turn, content="ok, go on"))
        out.append(event.model_copy(update={"step": len(out)}))
    return out


def test_lazy_focus_makes_each_model_at_the_step_the_focus_found_first_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A model may depend on the step it is made at (the turn so far): the lazy focus makes
    # no model the definition does not, and each at the same step.
    runs = _fixture_runs()
    lazy = _first_asked(runs, monkeypatch)
    monkeypatch.setattr(base, "_lazy_focus", lambda _rules: False)
    eager = _first_asked(runs, monkeypatch)
    for asked, defined in zip(lazy, eager, strict=True):
        assert asked.items() <= defined.items()
    assert sum(map(len, lazy)) > 900
