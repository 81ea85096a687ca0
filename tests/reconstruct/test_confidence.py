"""The adoption label's confidence: which rule decided, competing readings, stance cues."""

from __future__ import annotations

from typing import Any

from sscbench.analysis.synthetic import synthetic_labels
from sscbench.cases.caseset import load_case_set
from sscbench.reconstruct.confidence import BASE, label_confidence
from sscbench.reconstruct.labels import RunLabels


def _label(adopted: bool | None, uses: list[dict[str, Any]], y_end: str | None = None) -> RunLabels:
    base = next(x for x in synthetic_labels(load_case_set(None), runs=50) if x.triggered)
    return base.model_copy(update={"adopted": adopted, "uses": tuple(uses), "y_end": y_end})


def _use(
    step: int, kind: str = "dependent_use", erroneous: bool = True, source: str = "message"
) -> dict[str, Any]:
    return {
        "step": step,
        "kind": kind,
        "erroneous": erroneous,
        "source": source,
        "reason": "",
        "evidence": "",
    }


def test_a_reliance_in_a_call_is_surer_than_one_in_a_sentence() -> None:
    call = label_confidence(_label(True, [_use(5, source="call")]))
    said = label_confidence(_label(True, [_use(5)]))
    assert call is not None and said is not None
    assert call.rule == "reliance in a tool call" and said.rule == "reliance in a message"
    assert (
        call.value == BASE["reliance in a tool call"] > said.value == BASE["reliance in a message"]
    )


def test_competing_readings_and_an_unread_stance_lower_it() -> None:
    plain = label_confidence(_label(True, [_use(5)]))
    competing = label_confidence(
        _label(True, [_use(3, erroneous=False), _use(4, kind="undecidable"), _use(5)])
    )
    unread = label_confidence(_label(True, [_use(5)], y_end="undecidable"))
    assert plain is not None and competing is not None and unread is not None
    assert competing.competing == 2 and competing.value < plain.value
    assert unread.stance == "undecidable" and unread.value < plain.value
    # a true-value use *after* the reliance competes with nothing
    later = label_confidence(_label(True, [_use(5), _use(7, erroneous=False)]))
    assert later is not None and later.competing == 0


def test_no_reliance_by_what_the_agent_did() -> None:
    none = label_confidence(_label(False, []))
    checks = label_confidence(_label(False, [_use(4, kind="verification", erroneous=False)]))
    truth = label_confidence(_label(False, [_use(4, erroneous=False)]))
    assert none is not None and checks is not None and truth is not None
    assert (none.rule, checks.rule, truth.rule) == (
        "no use found",
        "only checks or flags of v′",
        "uses, none relied on v′",
    )
    assert checks.value < none.value and checks.competing == 1


def test_nothing_to_be_sure_of_without_a_decided_label() -> None:
    assert label_confidence(_label(None, [_use(5, kind="undecidable")])) is None
    untriggered = _label(True, []).model_copy(update={"triggered": False})
    assert label_confidence(untriggered) is None
