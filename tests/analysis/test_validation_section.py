"""The report's validation section (Tables II, III(b), V) renders saved files, escaped."""

from __future__ import annotations

from pathlib import Path

from sscbench.analysis.validation_html import EVAL_DIR, NOT_VALIDATED, validation_section
from sscbench.oracles.base import OracleSetting, Trajectory, Verdict
from sscbench.oracles.dataset import Item, Reference
from sscbench.oracles.evaluate import OracleResult, write_results
from sscbench.oracles.metrics import stratified
from sscbench.oracles.validation import COMPARISON_FILE, Agreement, ComparisonRecord

HOSTILE = "<script>alert(1)</script>"


def _item(n: int, adopted: bool, t_u: int | None, op: str) -> Item:
    trajectory = Trajectory(f"r{n}", Path("."), None, None, False)  # type: ignore[arg-type]
    return Item(trajectory, Reference(adopted, t_u, "before", op, control=False, clean=False))


def _write(root: Path) -> None:
    items = [_item(1, True, 4, "item_option"), _item(2, False, None, "item_option")]
    verdicts = [Verdict(adopted=True, t_u=4), Verdict(adopted=True, t_u=2)]
    plugin = OracleSetting(
        baseline="X9", method=HOSTILE, information="L0", positive="yes", scope=("item_option",)
    )
    step = OracleSetting(baseline="B4", method="m", information="L0", positive="-", output="step")
    results = [
        OracleResult(HOSTILE, plugin, items, verdicts, stratified(items, verdicts)),
        OracleResult("b4", step, items, verdicts, stratified(items, verdicts, step_only=True)),
        OracleResult("judge", step, skipped="no API key in $OPENAI_API_KEY"),
    ]
    write_results(root / EVAL_DIR, items, results)
    record = ComparisonRecord(
        reference="truth",
        quantities={
            "A": Agreement(agree=9, compared=10),
            "T_U step": Agreement(agree=0, compared=0),
        },
        mismatches=[("r1", "A", "yes", HOSTILE)],
    )
    (root / EVAL_DIR / COMPARISON_FILE).write_text(record.model_dump_json())


def test_tables_from_saved_files_are_escaped(tmp_path: Path) -> None:
    _write(tmp_path)
    html = validation_section(tmp_path)
    for caption in ("Table III(b)", "Table II — oracle settings", "Table V(a, b)", "Table V(c)"):
        assert caption in html
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "0.90 (9/10)" in html and "– (0/0)" in html, "empty quantities stay as 0/0"
    # The adoption oracle: 1 TP, 1 FP → precision 1/2; the step-only one has n/a.
    assert "0.50 (1/2)" in html and "n/a" in html
    assert "skipped: no API key" in html
    # Out of its scope an oracle's operator cell says so, not a zero.
    assert "not judged" in html


def test_without_validation_the_section_says_how(tmp_path: Path) -> None:
    assert validation_section(tmp_path) == NOT_VALIDATED
    (tmp_path / EVAL_DIR).mkdir()
    (tmp_path / EVAL_DIR / COMPARISON_FILE).write_text("{not json")
    html = validation_section(tmp_path)
    assert 'class="problems"' in html and "unreadable" in html
