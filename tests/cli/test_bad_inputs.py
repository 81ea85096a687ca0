"""The bad-input table: every input a user can get wrong ends in exit 2 and one line.

Each case builds a small work directory (a copy of a labelled run set where it needs
runs), breaks one thing, runs the CLI in-process and checks three things: the exit code is
2, the error is exactly one line naming what is wrong, and nothing in the work directory
changed (no partial output). Read-only locations are simulated by making ``os.access``
answer as a read-only file system does (the tests may run as root, for whom permission
bits do not bind).
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from sscbench.cli.main import main

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "analysis"
CASES = Path(__file__).resolve().parents[2] / "sscbench" / "data" / "cases"
CONTRACT = CASES / "cases" / "write_effect_airline_7_2.yaml"

Setup = Callable[[Path], list[str]]


@dataclass(frozen=True)
class Bad:
    """One bad input: how to make it, and words the one error line must contain."""

    id: str
    setup: Setup
    says: str
    read_only: bool = False


def runs(d: Path) -> Path:
    """A labelled run set (ledgers + labels.jsonl) inside the work directory."""
    root = d / "runs"
    shutil.copytree(FIXTURE / "runs", root)
    shutil.copy(FIXTURE / "labels.jsonl", root / "labels.jsonl")
    return root


def ledger(root: Path) -> Path:
    return sorted(root.rglob("ledger.jsonl"))[0]


def edit_ledger(root: Path, fn: Callable[[list[bytes]], list[bytes]]) -> None:
    path = ledger(root)
    path.write_bytes(b"\n".join(fn(path.read_bytes().split(b"\n")[:-1])) + b"\n")


def write(path: Path, data: str | bytes) -> Path:
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data, encoding="utf-8")
    return path


def contract_run(d: Path, text: str | bytes) -> list[str]:
    return ["run", "--contract", str(write(d / "c.yaml", text)), "--out", str(d / "out")]


def reconstruct(d: Path, *extra: str) -> list[str]:
    root = runs(d)
    (root / "labels.jsonl").unlink()
    return ["reconstruct", str(root), *extra]


def report(d: Path, *extra: str, labels: str | bytes | None = None) -> list[str]:
    root = runs(d)
    if labels is not None:
        write(root / "labels.jsonl", labels)
    return ["report", str(root), *extra]


def schedule(d: Path, text: bytes) -> list[str]:
    root = runs(d)
    write(root / "schedule.jsonl", text)
    return ["report", str(root)]


RETURN_DATE = CASES / "cases" / "return_date_airline_11_GV1N64.yaml"
PAY_SOURCE = CASES / "cases" / "pay_source_airline_11_james_patel_9828_gift_card_1642017.yaml"


def contradicted(d: Path, source: Path, edit: Callable[[dict[str, Any]], object]) -> list[str]:
    """``run --contract`` on a copy of a shipped contract that ``edit`` made contradictory
    (the schema still accepts it)."""
    data = yaml.safe_load(source.read_text(encoding="utf-8"))
    edit(data)
    return contract_run(d, yaml.safe_dump(data, sort_keys=False))


def resume_over(d: Path, status: bytes) -> list[str]:
    """``run --case`` resuming into a directory whose status file is ``status``."""
    out = d / "out"
    out.mkdir()
    write(out / "schedule.jsonl", status)
    write(out / ".lock", b"")  # held by every session; made here so only the refusal is seen
    return [
        "run",
        "--case",
        "write_effect/airline/12/4",
        "--agent",
        "scripted:hasty",
        "--out",
        str(out),
    ]


GOOD_STATUS = b'{"kind":"session","ts":1.0,"experiment":"e","name":"e","scheduled":1,"pid":1}\n'


def relation(name: str) -> str:
    text = CONTRACT.read_text(encoding="utf-8")
    old = next(line for line in text.splitlines() if line.strip().startswith("relation:"))
    return text.replace(old, old.split(":")[0] + f": {name}")


EXPERIMENT = """name = "bad"
repetitions = 1
[cases]
per_operator = 1
controls = false
operators = ["write_effect"]
[[configurations]]
id = "mixed"
agent = "scripted:mixed"
"""


def experiment(d: Path, params: str, out: Path | None = None) -> list[str]:
    path = write(d / "exp.toml", EXPERIMENT + params)
    return ["run", "--config", str(path), "--out", str(out or d / "out")]


def case_set(d: Path, manifest: str) -> list[str]:
    (d / "cs").mkdir()
    write(d / "cs" / "manifest.json", manifest)
    return ["witness", "verify", str(d / "cs")]


def file_in_the_way(d: Path) -> Path:
    return write(d / "file", "x")


def shipped_copy(d: Path, damage: Callable[[Path], object]) -> Path:
    """A copy of the shipped case set with ``damage`` done to it."""
    root = d / "cs"
    shutil.copytree(CASES, root)
    damage(root)
    return root


def first_file(root: Path, suffix: str) -> Path:
    return sorted((root / "cases").glob(f"*{suffix}"))[0]


def loop(path: Path) -> Path:
    """Make ``path`` a symbolic link to itself (a loop)."""
    if path.exists() or path.is_symlink():
        path.unlink()
    path.symlink_to(path.name)
    return path


DEEP = b"[" * 100_000 + b"]" * 100_000
"""A JSON line nested 100,000 deep (Python's parser gives up at about 1,000)."""


def ledger_dir_link(root: Path) -> None:
    """Replace the first run's ledger by a link to a file that does not exist."""
    path = ledger(root)
    path.unlink()
    path.symlink_to("gone.jsonl")


def deep_ledger_line(root: Path) -> None:
    path = ledger(root)
    path.write_bytes(path.read_bytes() + DEEP + b"\n")


GOOD_LABEL = (FIXTURE / "labels.jsonl").read_text(encoding="utf-8").splitlines()[0]

CASES_TABLE = [
    # reconstruct
    Bad(
        "reconstruct-out-missing-dir",
        lambda d: reconstruct(d, "--out", str(d / "missing" / "labels.jsonl")),
        "does not exist",
    ),
    Bad(
        "reconstruct-out-existing-dir",
        lambda d: (d / "x").mkdir() or reconstruct(d, "--out", str(d / "x")),
        "is a directory",
    ),
    Bad(
        "reconstruct-out-read-only",
        lambda d: reconstruct(d, "--out", str(d / "ro" / "labels.jsonl")),
        "not writable",
        read_only=True,
    ),
    Bad(
        "reconstruct-no-runs",
        lambda d: (d / "empty").mkdir() or ["reconstruct", str(d / "empty")],
        "no runs",
    ),
    # report
    Bad("report-out-is-a-file", lambda d: report(d, "--out", str(file_in_the_way(d))), "is a file"),
    Bad(
        "report-out-under-a-file",
        lambda d: report(d, "--out", str(file_in_the_way(d) / "r")),
        "is a file",
    ),
    Bad(
        "report-out-read-only",
        lambda d: report(d, "--out", str(d / "ro" / "report")),
        "not writable",
        read_only=True,
    ),
    Bad(
        "report-out-foreign-directory",
        lambda d: report(d, "--out", str(d / "runs")),
        "not a report directory",
    ),
    Bad("report-labels-binary", lambda d: report(d, labels=b"\xff\xfe\x00\x80\n"), "UTF-8"),
    Bad("report-labels-bad-json", lambda d: report(d, labels="{oops\n"), "labels.jsonl:1"),
    Bad(
        "report-labels-wrong-schema",
        lambda d: report(d, labels='{"kind":"run_labels","run_id":3}\n'),
        "labels.jsonl:1",
    ),
    Bad("report-labels-not-an-object", lambda d: report(d, labels="[1]\n"), "labels.jsonl:1"),
    Bad("report-labels-empty", lambda d: report(d, labels=""), "no run labels"),
    Bad(
        "report-analysis-bad-json",
        lambda d: report(d, "--analysis", str(write(d / "a.json", "{"))),
        "a.json",
    ),
    Bad(
        "report-analysis-wrong-schema",
        lambda d: report(d, "--analysis", str(write(d / "a.json", '{"x": 1}'))),
        "a.json",
    ),
    Bad(
        "report-analysis-binary",
        lambda d: report(d, "--analysis", str(write(d / "a.json", b"\xff\xfe"))),
        "a.json",
    ),
    Bad(
        "report-schedule-record-without-key",
        lambda d: schedule(d, b'{"kind":"run","condition":"fault"}\n'),
        "schedule.jsonl:1",
    ),
    Bad(
        "report-schedule-key-not-an-object",
        lambda d: schedule(d, b'{"kind":"run","condition":"fault","key":3,"configuration":"c"}\n'),
        "schedule.jsonl:1",
    ),
    Bad(
        "report-schedule-seed-not-a-number",
        lambda d: schedule(
            d,
            b'{"kind":"run","condition":"fault","configuration":"c",'
            b'"key":{"case":"a","seed":"x","repetition":0}}\n',
        ),
        "schedule.jsonl:1",
    ),
    Bad(
        "report-schedule-is-a-directory",
        lambda d: (lambda r: ((r / "schedule.jsonl").mkdir(), ["report", str(r)])[1])(runs(d)),
        "schedule.jsonl",
    ),
    # resuming over a status file damaged in the middle (a cut last line is set aside)
    Bad(
        "run-resume-status-line-damaged-in-the-middle",
        lambda d: resume_over(d, GOOD_STATUS + b'{"kind":"run","ts":2.0,"ke\n' + GOOD_STATUS),
        "schedule.jsonl:2: not a status record",
    ),
    Bad(
        "run-resume-status-run-record-invalid",
        lambda d: resume_over(
            d, b'{"kind":"run","ts":2.0,"key":{"case":"x"},"state":"done"}\n' + GOOD_STATUS
        ),
        "schedule.jsonl:1: a damaged run record",
    ),
    # fault contracts
    Bad("contract-binary", lambda d: contract_run(d, b"\xff\xfe\x00"), "UTF-8"),
    Bad(
        "contract-unknown-relation",
        lambda d: contract_run(d, relation("no_such_relation")),
        "no_such_relation",
    ),
    Bad(
        "contract-without-refutation",
        lambda d: contract_run(d, CONTRACT.read_text(encoding="utf-8").split("refutation:")[0]),
        "refutation",
    ),
    Bad(
        "contract-unknown-domain",
        lambda d: contract_run(
            d, CONTRACT.read_text(encoding="utf-8").replace("domain: airline", "domain: telecom")
        ),
        "telecom",
    ),
    Bad(
        "contract-unknown-task",
        lambda d: contract_run(
            d, CONTRACT.read_text(encoding="utf-8").replace("task_id: '7'", "task_id: '9999'")
        ),
        "9999",
    ),
    # fault contracts the schema accepts but that contradict what a contract means
    Bad(
        "contract-v-prime-equals-v",
        lambda d: contradicted(
            d, CONTRACT, lambda c: c.update(injected_value=c["authoritative_value"])
        ),
        "v′ = v",
    ),
    Bad(
        "contract-scope-names-no-field-the-relation-reads",
        lambda d: contradicted(
            d,
            CONTRACT,
            lambda c: c["refutation"]["params"].update(affected_fields=["total_baggages"]),
        ),
        "name no field post_write_read_back reads",
    ),
    Bad(
        "contract-suppressed-write-matches-no-tool",
        lambda d: contradicted(
            d, CONTRACT, lambda c: c["interventions"][0].update(tool="update_reservation_flightz")
        ),
        "'update_reservation_flightz' is not a tool of the airline domain",
    ),
    Bad(
        "contract-suppresses-a-read-tool",
        lambda d: contradicted(
            d, CONTRACT, lambda c: c["interventions"][0].update(tool="get_reservation_details")
        ),
        "a read tool",
    ),
    Bad(
        "contract-match-names-an-argument-the-tool-does-not-take",
        lambda d: contradicted(
            d, CONTRACT, lambda c: c["interventions"][0]["match"].update(seat="12A")
        ),
        "does not take",
    ),
    Bad(
        "contract-write-fault-with-read-persistence",
        lambda d: contradicted(d, CONTRACT, lambda c: c.update(persistence="every_delivery")),
        "counts deliveries of a read",
    ),
    Bad(
        "contract-read-fault-with-write-persistence",
        lambda d: contradicted(d, RETURN_DATE, lambda c: c.update(persistence="all_attempts")),
        "counts attempts of a write",
    ),
    Bad(
        "contract-rewrite-without-expect",
        lambda d: contradicted(d, RETURN_DATE, lambda c: c["interventions"][0].update(expect={})),
        "without an expect value",
    ),
    Bad(
        "contract-rewrite-that-changes-nothing",
        lambda d: contradicted(
            d,
            RETURN_DATE,
            lambda c: c["interventions"][0]["edits"][0].update(
                value=c["interventions"][0]["expect"]["flights.1.date"]
            ),
        ),
        "changes nothing",
    ),
    Bad(
        "contract-relation-parameter-missing",
        lambda d: contradicted(
            d, PAY_SOURCE, lambda c: c["refutation"]["params"].pop("payment_id")
        ),
        "lacks payment_id",
    ),
    Bad(
        "contract-acquisition-the-relation-does-not-decide",
        lambda d: contradicted(
            d, CONTRACT, lambda c: c["refutation"].update(acquisition="co_delivered")
        ),
        "is not one post_write_read_back decides",
    ),
    Bad(
        "contract-relation-about-another-entity",
        lambda d: contradicted(
            d, CONTRACT, lambda c: c["refutation"]["params"].update(reservation_id="ZZZ999")
        ),
        "is not the target entity",
    ),
    Bad(
        "contract-relation-watches-another-request",
        lambda d: contradicted(
            d,
            CONTRACT,
            lambda c: c["refutation"]["params"].update(tool="update_reservation_baggages"),
        ),
        "another request",
    ),
    Bad(
        "contract-relation-needs-semantics",
        lambda d: contradicted(d, PAY_SOURCE, lambda c: c.update(semantics=[])),
        "needs quoted agent-visible semantics",
    ),
    # show
    Bad(
        "show-width-negative",
        lambda d: ["show", str(ledger(runs(d))), "--width", "-5"],
        "--width must be at least 1",
    ),
    Bad(
        "show-width-zero",
        lambda d: ["show", str(ledger(runs(d))), "--width", "0"],
        "--width must be at least 1",
    ),
    # scripted agents
    Bad(
        "mixed-p-out-of-range",
        lambda d: [
            "run",
            "--domain",
            "airline",
            "--tasks",
            "0",
            "--agent",
            "scripted:mixed",
            "--agent-param",
            "p=7",
            "--out",
            str(d / "out"),
        ],
        "p",
    ),
    Bad(
        "mixed-p-not-a-number",
        lambda d: [
            "run",
            "--domain",
            "airline",
            "--tasks",
            "0",
            "--agent",
            "scripted:mixed",
            "--agent-param",
            "p=abc",
            "--out",
            str(d / "out"),
        ],
        "p",
    ),
    Bad(
        "scripted-unknown-param",
        lambda d: [
            "run",
            "--domain",
            "airline",
            "--tasks",
            "0",
            "--agent-param",
            "foo=1",
            "--out",
            str(d / "out"),
        ],
        "foo",
    ),
    Bad("experiment-mixed-p-out-of-range", lambda d: experiment(d, "params = { p = 7 }\n"), "p"),
    Bad(
        "experiment-mixed-p-not-a-number", lambda d: experiment(d, 'params = { p = "abc" }\n'), "p"
    ),
    # experiment files
    Bad(
        "experiment-yaml-syntax",
        lambda d: [
            "run",
            "--config",
            str(write(d / "e.yaml", "a: [1,\n")),
            "--out",
            str(d / "out"),
        ],
        "e.yaml:2",
    ),
    Bad(
        "experiment-out-under-a-file",
        lambda d: experiment(d, "", file_in_the_way(d) / "out"),
        "is a file",
    ),
    Bad(
        "experiment-out-read-only",
        lambda d: experiment(d, "", d / "ro" / "out"),
        "not writable",
        read_only=True,
    ),
    # case sets
    Bad("case-set-manifest-bad-json", lambda d: case_set(d, "{"), "manifest.json"),
    Bad("case-set-manifest-wrong-schema", lambda d: case_set(d, '{"cases": 3}'), "manifest.json"),
    # case sets with a file missing, and other damaged case-set files
    Bad(
        "case-set-contract-missing",
        lambda d: [
            "witness",
            "verify",
            str(shipped_copy(d, lambda r: first_file(r, ".yaml").unlink())),
        ],
        "is missing (manifest.json lists it as a contract)",
    ),
    Bad(
        "case-set-witness-missing",
        lambda d: [
            "run",
            "--case",
            "write_effect/airline/12/4",
            "--cases",
            str(shipped_copy(d, lambda r: first_file(r, ".witness.json").unlink())),
            "--out",
            str(d / "out"),
        ],
        "is missing (manifest.json lists it as a witness)",
    ),
    Bad(
        "case-set-cases-directory-missing",
        lambda d: [
            "report",
            str(runs(d)),
            "--cases",
            str(shipped_copy(d, lambda r: shutil.rmtree(r / "cases"))),
        ],
        "is missing (manifest.json lists it",
    ),
    Bad(
        "case-set-contract-is-a-symlink-loop",
        lambda d: [
            "witness",
            "verify",
            str(shipped_copy(d, lambda r: loop(first_file(r, ".yaml")))),
        ],
        "symbolic link loop",
    ),
    Bad(
        "case-set-directory-is-a-symlink-loop",
        lambda d: ["witness", "verify", str(loop(d / "cs"))],
        "symbolic link loop",
    ),
    Bad(
        "experiment-file-is-a-symlink-loop",
        lambda d: ["run", "--config", str(loop(d / "exp.toml")), "--out", str(d / "out")],
        "symbolic link loop",
    ),
    # symbolic link loops in a run directory: never a run silently left out
    Bad(
        "reconstruct-ledger-is-a-symlink-loop",
        lambda d: (lambda r: (loop(ledger(r)), ["reconstruct", str(r)])[1])(runs(d)),
        "symbolic link loop",
    ),
    Bad(
        "report-ledger-is-a-symlink-loop",
        lambda d: (lambda r: (loop(ledger(r)), ["report", str(r)])[1])(runs(d)),
        "symbolic link loop",
    ),
    Bad(
        "rescore-ledger-is-a-symlink-loop",
        lambda d: (lambda r: (loop(ledger(r)), ["rescore", str(r)])[1])(runs(d)),
        "symbolic link loop",
    ),
    Bad(
        "review-export-ledger-is-a-dangling-link",
        lambda d: (
            lambda r: (
                ledger_dir_link(r),
                ["review", "export", str(r), "--sample", "2", "--out", str(d / "review")],
            )[1]
        )(runs(d)),
        "No such file or directory",
    ),
    # JSON nested 100,000 deep
    Bad(
        "reconstruct-ledger-line-nested-too-deeply",
        lambda d: (lambda r: (deep_ledger_line(r), ["reconstruct", str(r)])[1])(runs(d)),
        "nested too deeply",
    ),
    Bad(
        "report-schedule-line-nested-too-deeply",
        lambda d: schedule(d, DEEP + b"\n"),
        "nested too deeply",
    ),
    Bad(
        "report-labels-nested-too-deeply",
        lambda d: report(d, labels=DEEP + b"\n"),
        "labels.jsonl:1",
    ),
    Bad(
        "experiment-toml-nested-too-deeply",
        lambda d: [
            "run",
            "--config",
            str(write(d / "e.toml", b"a = " + DEEP + b"\n")),
            "--out",
            str(d / "out"),
        ],
        "nested too deeply",
    ),
    Bad(
        "report-analysis-nested-too-deeply",
        lambda d: report(d, "--analysis", str(write(d / "a.json", DEEP))),
        "a.json",
    ),
    # not regular files, and files too large to be what the flag wants
    Bad(
        "experiment-file-is-a-directory",
        lambda d: (
            (d / "exp.toml").mkdir()
            or ["run", "--config", str(d / "exp.toml"), "--out", str(d / "out")]
        ),
        "is a directory, not a regular file",
    ),
    Bad(
        "contract-larger-than-the-cap",
        lambda d: (
            os.truncate(write(d / "c.yaml", b""), 65 * 2**20),
            ["run", "--contract", str(d / "c.yaml"), "--out", str(d / "out")],
        )[1],
        "more than the 64 MiB",
    ),
    # oracles, build, cases, review: outputs
    Bad(
        "oracles-unknown-oracle",
        lambda d: ["oracles", "evaluate", str(runs(d)), "--oracle", "nope"],
        "nope",
    ),
    Bad(
        "oracles-judge-param-malformed",
        lambda d: ["oracles", "evaluate", str(runs(d)), "--judge-param", "x"],
        "KEY=VALUE",
    ),
    Bad(
        "oracles-out-is-a-file",
        lambda d: ["oracles", "evaluate", str(runs(d)), "--out", str(file_in_the_way(d))],
        "is a file",
    ),
    Bad(
        "oracles-clean-dir-missing",
        lambda d: ["oracles", "evaluate", str(runs(d)), "--clean", str(d / "none")],
        "none",
    ),
    Bad(
        "oracles-labels-bad-json",
        lambda d: (
            lambda r: (write(r / "labels.jsonl", "{bad\n"), ["oracles", "evaluate", str(r)])[1]
        )(runs(d)),
        "labels.jsonl:1",
    ),
    Bad(
        "build-out-is-a-file",
        lambda d: ["build", "--out", str(file_in_the_way(d)), "--per-operator", "1"],
        "is a file",
    ),
    Bad(
        "build-out-read-only",
        lambda d: ["build", "--out", str(d / "ro" / "cs"), "--per-operator", "1"],
        "not writable",
        read_only=True,
    ),
    Bad(
        "cases-sheet-out-is-a-file",
        lambda d: ["cases", "sheet", "--out", str(file_in_the_way(d))],
        "is a file",
    ),
    Bad(
        "review-export-out-is-a-file",
        lambda d: [
            "review",
            "export",
            str(runs(d)),
            "--sample",
            "2",
            "--out",
            str(file_in_the_way(d)),
        ],
        "is a file",
    ),
    Bad(
        "review-export-out-read-only",
        lambda d: [
            "review",
            "export",
            str(runs(d)),
            "--sample",
            "2",
            "--out",
            str(d / "ro" / "review"),
        ],
        "not writable",
        read_only=True,
    ),
    Bad(
        "review-export-labels-bad-json",
        lambda d: (
            lambda r: (
                write(r / "labels.jsonl", "{bad\n"),
                ["review", "export", str(r), "--sample", "2", "--out", str(d / "review")],
            )[1]
        )(runs(d)),
        "labels.jsonl:1",
    ),
]


def snapshot(root: Path) -> dict[str, str]:
    """Every file's digest and every directory under ``root``."""
    out: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        key = str(path.relative_to(root))
        out[key] = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "dir"
    return out


@pytest.mark.parametrize("bad", CASES_TABLE, ids=[b.id for b in CASES_TABLE])
def test_bad_input_is_exit_2_one_line_and_no_partial_write(
    bad: Bad, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    argv = bad.setup(work)
    if bad.read_only:
        (work / "ro").mkdir()
        read_only = str(work / "ro")
        real_access = os.access

        def access(path: object, mode: int, **kw: object) -> bool:
            if str(path).startswith(read_only) and mode & os.W_OK:
                return False
            return real_access(path, mode, **kw)  # type: ignore[arg-type]

        monkeypatch.setattr(os, "access", access)
    before = snapshot(work)
    capsys.readouterr()
    assert main(argv) == 2
    captured = capsys.readouterr()
    lines = [line for line in (captured.err + captured.out).splitlines() if line.strip()]
    errors = [line for line in lines if ": error: " in line]
    assert len(errors) == 1, lines
    block = lines[lines.index(errors[0]) :]
    if errors[0].endswith(": error: invalid experiment file"):
        block = block[1:]  # experiment files: one line per problem, here one problem
    assert len(block) == 1, lines
    assert not block[0].startswith(" ")
    assert bad.says in block[0], block[0]
    assert snapshot(work) == before
