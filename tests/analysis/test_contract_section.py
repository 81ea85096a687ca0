"""The report's observation-contract section: counts by primary label, escaped, and absent
when no run has a contract label (so other reports are unchanged)."""

from __future__ import annotations

from sscbench.analysis.contract_section import contract_label_section
from sscbench.reconstruct.labels import EventTime, RunLabels

NONE = EventTime(status="none", reason="-")


def _label(run: str, config: str, primary: str | None) -> RunLabels:
    return RunLabels(
        run_id=run,
        case_id="c",
        operator="expiry" if primary else "return_date",
        control=False,
        agent=config,
        configuration=config,
        seed=0,
        finished=True,
        success=True,
        triggered=True,
        triggered_reason="-",
        t_f=NONE,
        t_e=NONE,
        t_s=NONE,
        t_u=NONE,
        adopted=None,
        adopted_reason="-",
        z_s=None,
        y_end=None,
        contract_label=None if primary is None else {"primary": primary},
    )


def test_the_section_counts_primary_labels_and_escapes_names() -> None:
    html = contract_label_section(
        [
            _label("a", "<b>x</b>", "EXPIRED_BEFORE_USE"),
            _label("b", "<b>x</b>", "EXPIRED_BEFORE_USE"),
            _label("c", "<b>x</b>", "SUCCESS"),
        ]
    )
    assert "&lt;b&gt;x&lt;/b&gt;" in html and "<b>x</b>" not in html
    assert (
        '<td class="key">expiry</td><td class="key">&lt;b&gt;x&lt;/b&gt;</td>'
        "<td>2</td><td>0</td><td>0</td><td>1</td>" in (html)
    )


def test_no_contract_labels_no_section() -> None:
    assert contract_label_section([_label("a", "g", None)]) == ""


def test_a_contract_labelled_line_is_version_2_and_others_stay_version_1() -> None:
    labelled = _label("a", "g", "SUCCESS")
    assert labelled.schema_version == 2
    assert '"schema_version":2' in labelled.model_dump_json()
    plain = _label("b", "g", None)
    assert plain.schema_version == 1 and "schema_version" not in plain.model_dump_json()
    again = RunLabels.model_validate_json(labelled.model_dump_json())
    assert again == labelled
