"""The ledger digest a status line records is the SHA-256 of the ledger's bytes on disk,
computed while the ledger is written (no read-back), appends to an earlier file included."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from sscbench.cli.main import main
from sscbench.experiments import read_status
from sscbench.experiments.status import STATUS_FILE
from sscbench.records.events import AgentMessage, UserMessage
from sscbench.records.ledger import JsonlWriter
from sscbench.runs.episode import LEDGER_FILE


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_writer_hashes_the_bytes_it_appends(tmp_path: Path) -> None:
    path = tmp_path / LEDGER_FILE
    with JsonlWriter(path) as out:
        assert out.sha256 == hashlib.sha256(b"").hexdigest()
        out.append(UserMessage(step=0, turn=0, content="caf\u00e9 \u2014 \U0001f600 \\n \"q\""))
        out.append(AgentMessage(step=1, turn=0, content="ok"))
        assert out.sha256 == _sha(path)


def test_appending_to_an_earlier_file_hashes_the_whole_file(tmp_path: Path) -> None:
    path = tmp_path / LEDGER_FILE
    path.write_bytes(b'{"kind":"user_message"}\n{"cut')  # an earlier session's bytes
    with JsonlWriter(path) as out:
        out.append(AgentMessage(step=1, turn=0, content="after"))
        digest = out.sha256
    assert digest == _sha(path)
    assert path.read_bytes().startswith(b'{"kind":"user_message"}\n{"cut{')


def test_every_status_digest_is_the_sha256_of_its_ledger(tmp_path: Path) -> None:
    out = tmp_path / "runs"
    argv = ["run", "--domain", "airline", "--tasks", "0-3", "--agent", "scripted:careful"]
    assert main([*argv, "--out", str(out)]) == 0
    records = [r for r in read_status(out / STATUS_FILE).values() if r.state == "observed"]
    assert len(records) == 4
    for record in records:
        assert record.ledger_sha256 == _sha(out / record.run_id / LEDGER_FILE)
    # A resumed session reuses the finished runs; every digest still matches its file.
    assert main([*argv, "--out", str(out)]) == 0
    lines = (out / STATUS_FILE).read_text().splitlines()
    runs = [json.loads(x) for x in lines if '"kind":"run"' in x]
    assert runs and all(r["ledger_sha256"] == _sha(out / r["run_id"] / LEDGER_FILE) for r in runs)
