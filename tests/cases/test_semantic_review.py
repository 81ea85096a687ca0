"""Final semantic review: decisions, and replacement in the same frozen candidate order."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sscbench.cases.build import build_case_set
from sscbench.cases.caseset import load_case_set
from sscbench.cases.semantic_review import CRITERIA, decide, read_verdicts, review_outcome
from sscbench.cli.main import main
from sscbench.errors import ConfigError

ALL_PASS = dict.fromkeys(CRITERIA, "pass")


def verdict(case_id: str, reviewer: str, **fails: str) -> str:
    return json.dumps({"case_id": case_id, "reviewer": reviewer, "criteria": {**ALL_PASS, **fails}})


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_unanimity_or_adjudication_never_a_majority(tmp_path: Path) -> None:
    lines = [
        *(verdict("x", r) for r in "ABC"),  # unanimous pass → keep
        *(verdict("y", r, scope="fail") for r in "ABC"),  # unanimous fail → replace
        verdict("z", "A", task_relevance="fail"),  # 2–1, no adjudicator → pending
        verdict("z", "B"),
        verdict("z", "C"),
        verdict("w", "A", task_relevance="fail"),  # 2–1, D says fail → replace
        verdict("w", "B"),
        verdict("w", "C"),
        json.dumps({"case_id": "w", "reviewer": "D", "criteria": {"task_relevance": "fail"}}),
        verdict("v", "A"),  # only one reviewer → pending
    ]
    decisions = decide(read_verdicts(write(tmp_path / "v.jsonl", lines)))
    assert {c: d.status for c, d in decisions.items()} == {
        "v": "pending",
        "w": "replace",
        "x": "keep",
        "y": "replace",
        "z": "pending",
    }
    assert decisions["y"].failed == ("scope",)
    assert decisions["z"].pending == ("task_relevance",)
    assert decisions["w"].reason == "final semantic review failed: task_relevance"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json\n", "v.jsonl:1: not JSON"),
        ('{"case_id": "x", "reviewer": "E", "criteria": {}}\n', "v.jsonl:1: reviewer"),
        ('{"case_id": "x", "reviewer": "A", "criteria": {"vibes": "pass"}}\n', "criteria.vibes"),
        ('{"case_id": "x", "reviewer": "A", "criteria": {"scope": "maybe"}}\n', "criteria.scope"),
        (verdict("x", "A") + "\n" + verdict("x", "A") + "\n", "v.jsonl:2: a second verdict"),
    ],
)
def test_bad_verdict_lines_are_one_clear_error(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "v.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=message.replace(".", r"\.")) as info:
        read_verdicts(path)
    assert "\n" not in str(info.value)


def test_a_binary_file_is_one_clear_error_and_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "v.jsonl"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ConfigError, match="cannot read semantic-review verdicts"):
        read_verdicts(path)
    assert main(["cases", "decide", str(path)]) == 2


def test_replacement_in_frozen_order(tmp_path: Path) -> None:
    kwargs = {"per_operator": 3, "controls": 0, "operators": ["return_date"]}
    first = build_case_set(tmp_path / "first", **kwargs)  # type: ignore[arg-type]
    wider = build_case_set(tmp_path / "wider", **{**kwargs, "per_operator": 5})  # type: ignore[arg-type]
    ids = [c.case_id for c in first.cases]
    assert ids == [c.case_id for c in wider.cases][:3]
    # The sheet shows the task and the fault, never a run; the first case fails review.
    assert (
        main(["cases", "sheet", "--cases", str(tmp_path / "first"), "--out", str(tmp_path / "s")])
        == 0
    )
    sheet = [json.loads(x) for x in (tmp_path / "s" / "sheet.jsonl").read_text().splitlines()]
    assert [e["case_id"] for e in sheet] == ids
    assert sheet[0]["task"] and sheet[0]["injected_value"] is not None
    lines = [verdict(ids[0], r, evidence_authority="fail") for r in "ABC"]
    lines += [verdict(c, r) for c in ids[1:] for r in "ABC"]
    verdicts = write(tmp_path / "s" / "verdicts.jsonl", lines)

    rebuilt = build_case_set(tmp_path / "rebuilt", **kwargs, review=review_outcome(verdicts))  # type: ignore[arg-type]
    wider_ids = [c.case_id for c in wider.cases]
    assert [c.case_id for c in rebuilt.cases] == [*ids[1:], wider_ids[3]], "next in frozen order"
    review = rebuilt.semantic_review
    assert review is not None
    assert review["replaced"] == [ids[0]] and review["kept"] == 2
    assert review["unreviewed"] == [wider_ids[3]] and review["pending"] == []
    log = [
        json.loads(x) for x in (tmp_path / "rebuilt" / "screening.jsonl").read_text().splitlines()
    ]
    fates = {e["candidate_id"]: e for e in log}
    assert fates[ids[0]]["fate"] == "replaced"
    assert "evidence_authority" in fates[ids[0]]["reason"]
    counts = rebuilt.counts["return_date"]
    assert counts["replaced"] == 1 and counts["included"] == 3
    assert counts["filled_at_rank"] == fates[wider_ids[3]]["order"] + 1
    assert load_case_set(tmp_path / "rebuilt").manifest.semantic_review == review
    # The sheet for the next round holds just the replacement.
    out = tmp_path / "s2"
    assert (
        main(
            [
                "cases",
                "sheet",
                "--cases",
                str(tmp_path / "rebuilt"),
                "--out",
                str(out),
                "--unreviewed",
            ]
        )
        == 0
    )
    assert [json.loads(x)["case_id"] for x in (out / "sheet.jsonl").read_text().splitlines()] == [
        wider_ids[3]
    ]
    # Without a review the manifest has no review key (older sets stay byte-identical).
    assert "semantic_review" not in json.loads((tmp_path / "first" / "manifest.json").read_text())


def test_a_review_naming_an_unknown_case_is_refused(tmp_path: Path) -> None:
    verdicts = write(
        tmp_path / "v.jsonl", [verdict("return_date/airline/999/NOPE", r) for r in "ABC"]
    )
    with pytest.raises(ConfigError, match="not candidates of this build"):
        build_case_set(
            tmp_path / "out",
            per_operator=1,
            controls=0,
            operators=["return_date"],
            review=review_outcome(verdicts),
        )
    assert not (tmp_path / "out").exists(), "nothing written"
