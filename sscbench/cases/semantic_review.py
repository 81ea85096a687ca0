"""Final semantic review of included cases: review sheets, verdicts, decisions.

Four criteria, each judged ``pass`` / ``fail`` per case without seeing any agent run:

* ``task_relevance`` — the task genuinely concerns the targeted fact;
* ``evidence_authority`` — the refuting evidence is authoritative for that fact;
* ``visible_sufficiency`` — the refutation is sufficient *as the agent would see it*;
* ``scope`` — the false assertion is scoped to the right entity and request.

Decisions follow the run-level review's rule: reviewers A, B and C judge independently; a
criterion's value is accepted when all three agree, otherwise the adjudicator D's value is
taken, and a 2–1 majority is never accepted on its own. A case is **replaced** when any
accepted criterion fails, **kept** when all four are accepted and pass, and **pending**
otherwise. Only replacements change a rebuild; pending cases are reported, never guessed.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from sscbench.cases.build import ReviewOutcome
from sscbench.cases.caseset import Case, CaseSet, sha256_bytes
from sscbench.errors import ConfigError
from sscbench.user_files import read_user_bytes

Criterion = Literal["task_relevance", "evidence_authority", "visible_sufficiency", "scope"]
CRITERIA: tuple[Criterion, ...] = (
    "task_relevance",
    "evidence_authority",
    "visible_sufficiency",
    "scope",
)
QUESTIONS: dict[Criterion, str] = {
    "task_relevance": "Does the task genuinely concern the targeted fact?",
    "evidence_authority": "Is the refuting evidence authoritative for that fact?",
    "visible_sufficiency": "Is the refutation sufficient as the agent would see it?",
    "scope": "Is the false assertion scoped to the right entity and request?",
}
Judgement = Literal["pass", "fail"]
Reviewer = Literal["A", "B", "C", "D"]
INDEPENDENT: tuple[Reviewer, ...] = ("A", "B", "C")


class CaseVerdict(BaseModel):
    """One reviewer's judgements on one case (one line of a verdicts file). The
    adjudicator may judge only the criteria in dispute."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    case_id: str
    reviewer: Reviewer
    criteria: dict[Criterion, Judgement]
    note: str = ""


class Decision(BaseModel):
    """The review outcome of one case."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    case_id: str
    status: Literal["keep", "replace", "pending"]
    failed: tuple[Criterion, ...] = ()
    pending: tuple[Criterion, ...] = ()

    @property
    def reason(self) -> str:
        """One line for the screening log."""
        if self.status == "replace":
            return "final semantic review failed: " + ", ".join(self.failed)
        if self.status == "pending":
            return "final semantic review pending: " + ", ".join(self.pending)
        return "final semantic review passed"


def read_verdicts(path: Path, known: Iterable[str] | None = None) -> list[CaseVerdict]:
    """Parse a verdicts JSONL file; any bad line is one :class:`ConfigError` naming it.
    With ``known``, a case id outside it is an error too (a typo must not pass silently)."""
    try:
        text = read_user_bytes(path, "semantic-review verdicts").decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"cannot read semantic-review verdicts {path}: not valid UTF-8 (byte {exc.start})"
        ) from None
    ids = set(known) if known is not None else None
    verdicts: list[CaseVerdict] = []
    seen: set[tuple[str, str]] = set()
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            verdict = CaseVerdict.model_validate(json.loads(line))
        except json.JSONDecodeError as exc:
            raise ConfigError(
                f"{where}: not JSON ({exc.msg}); one verdict object per line"
            ) from None
        except ValidationError as exc:
            first = exc.errors()[0]
            loc = ".".join(str(p) for p in first["loc"]) or "line"
            raise ConfigError(f"{where}: {loc}: {first['msg']}") from None
        except (RecursionError, ValueError):  # nested too deeply, a 5,000-digit number
            raise ConfigError(
                f"{where}: not a verdict object; one verdict object per line"
            ) from None
        if ids is not None and verdict.case_id not in ids:
            raise ConfigError(f"{where}: case {verdict.case_id!r} is not a candidate of this build")
        key = (verdict.case_id, verdict.reviewer)
        if key in seen:
            raise ConfigError(
                f"{where}: a second verdict by {verdict.reviewer} on {verdict.case_id}"
            )
        seen.add(key)
        verdicts.append(verdict)
    return verdicts


def _accepted(by: dict[str, CaseVerdict], criterion: Criterion) -> Judgement | None:
    values = [by[r].criteria.get(criterion) for r in INDEPENDENT if r in by]
    if len(values) == len(INDEPENDENT) and values[0] is not None and len(set(values)) == 1:
        return values[0]
    return by["D"].criteria.get(criterion) if "D" in by else None


def decide(verdicts: Sequence[CaseVerdict]) -> dict[str, Decision]:
    """Every reviewed case's decision, by case id."""
    grouped: dict[str, dict[str, CaseVerdict]] = {}
    for verdict in verdicts:
        grouped.setdefault(verdict.case_id, {})[verdict.reviewer] = verdict
    decisions = {}
    for case_id, by in sorted(grouped.items()):
        accepted = {c: _accepted(by, c) for c in CRITERIA}
        failed = tuple(c for c in CRITERIA if accepted[c] == "fail")
        pending = tuple(c for c in CRITERIA if accepted[c] is None)
        status: Literal["keep", "replace", "pending"] = (
            "replace" if failed else "pending" if pending else "keep"
        )
        decisions[case_id] = Decision(
            case_id=case_id, status=status, failed=failed, pending=pending
        )
    return decisions


def sheet_entry(case: Case) -> dict[str, Any]:
    """What a reviewer sees for one case: the task, the fault, the refutation, the
    witness — never an agent run."""
    from sscbench.envs.domain import load_domain

    c = case.contract
    task = load_domain(c.domain).task(c.task_id)
    return {
        "case_id": c.contract_id,
        "operator": c.operator,
        "domain": c.domain,
        "task_id": c.task_id,
        "task": str(task.user_scenario.instructions),
        "target": c.target.model_dump(mode="json"),
        "authoritative_value": c.authoritative_value,
        "injected_value": c.injected_value,
        "refutation": c.refutation.model_dump(mode="json"),
        "semantics": [q.model_dump(mode="json") for q in c.semantics],
        "witness": {
            "calls": [w.model_dump(mode="json") for w in case.witness.continuation],
            "use": case.witness.use_text,
            "refuting_steps": list(case.witness.refuting_steps),
        },
        "questions": QUESTIONS,
    }


def write_sheet(case_set: CaseSet, out: Path, only: Iterable[str] | None = None) -> int:
    """Write ``sheet.jsonl`` (one case per line) and an empty ``verdicts.jsonl`` template
    into ``out``; ``only`` limits the sheet to those case ids (e.g. the unreviewed ones)."""
    wanted = set(only) if only is not None else None
    out.mkdir(parents=True, exist_ok=True)
    count = 0
    with (out / "sheet.jsonl").open("w", encoding="utf-8") as fh:
        for case in case_set.cases:
            if wanted is None or case.entry.case_id in wanted:
                fh.write(json.dumps(sheet_entry(case), ensure_ascii=False, sort_keys=True) + "\n")
                count += 1
    (out / "verdicts.jsonl").touch()
    return count


def review_outcome(path: Path) -> ReviewOutcome:
    """Read a verdicts file and decide every case, in the form the build takes."""
    verdicts = read_verdicts(path)
    decisions = decide(verdicts)
    return ReviewOutcome(
        source_sha256=sha256_bytes(path.read_bytes()),
        status={c: d.status for c, d in decisions.items()},
        reasons={c: d.reason for c, d in decisions.items()},
    )
