"""The refutation's channel in a run's labels: written only when the refutation came
through the user (a schema-4 line), so every other line keeps the bytes it always had; a
reader takes the absent field as a tool observation when a refutation arrived."""

from __future__ import annotations

import json
from pathlib import Path

from sscbench.reconstruct.labels import EventTime, LabelIndex, LabelSummary, RunLabels, channel_of


def _label(channel: str | None, arrived: bool = True) -> RunLabels:
    t_e = EventTime(status="found", step=7, reason="r") if arrived else EventTime(
        status="never", reason="none"
    )
    t = EventTime(status="found", step=9, reason="use")
    return RunLabels(
        run_id="r", case_id="c", operator="device_reading", control=False, agent="a",
        seed=0, finished=True, success=True, triggered=True, triggered_reason="t",
        t_f=EventTime(status="found", step=5, reason="f"), t_e=t_e, t_s=t, t_u=t,
        adopted=False, adopted_reason="no", z_s="before" if arrived else "absent",
        y_end=None, refutation_channel=channel,
    )  # fmt: skip


def test_a_user_channel_line_is_schema_4_and_others_keep_their_bytes() -> None:
    user = json.loads(_label("user").model_dump_json())
    assert user["refutation_channel"] == "user" and user["schema_version"] == 4
    tool = json.loads(_label(None).model_dump_json())
    assert "refutation_channel" not in tool and "schema_version" not in tool
    assert RunLabels.model_validate_json(_label("user").model_dump_json()) == _label("user")


def test_the_channel_is_read_from_the_field_or_the_arrival() -> None:
    assert channel_of(_label("user")) == "user"
    assert channel_of(_label(None)) == "tool"
    assert channel_of(_label(None, arrived=False)) is None


def test_the_label_summary_keeps_the_channel(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_text(
        _label("user").model_dump_json() + "\n" + _label(None).model_dump_json() + "\n"
    )
    summaries: list[LabelSummary] = []
    LabelIndex(path, summaries)
    assert [channel_of(s) for s in summaries] == ["user", "tool"]
