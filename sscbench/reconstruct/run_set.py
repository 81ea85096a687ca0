"""Which runs a labels file describes: a record of the ledgers' hashes written beside it.

``labels.jsonl`` is derived from the ledgers under a run directory. A run added, removed
or run again after it was written leaves it describing another run set, and every command
that reads it (``report``, ``oracles evaluate``, ``review export``) would silently count the
old runs. So whoever writes labels writes ``labels.runs.json`` beside them: the SHA-256 of
every ledger the labels were computed from and of the labels file itself. The readers call
:func:`check_labels_current` first; a mismatch is one line saying what changed and to run
``sscbench reconstruct`` again. A labels file from before this record existed is checked by
the run ids its labels name against the run ids of the ledgers present.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from sscbench.errors import ConfigError, OutputError
from sscbench.reconstruct.label import run_dirs
from sscbench.reconstruct.labels import LabelIndex, RunLabels
from sscbench.runs.episode import LEDGER_FILE
from sscbench.user_files import iter_files

RUN_SET_SUFFIX = ".runs.json"
SCHEMA = 1
RULES = "rules"
"""The record's ``classifier`` when the operators' rules alone labelled the runs (else
``reconstruct --classifier``'s value: ``llm`` or ``rules+llm``). A record written before
the field existed has none, and says nothing about what labelled its runs."""


def labels_classifier(labels_path: Path) -> str | None:
    """What labelled the runs of ``labels_path``, from its run-set record; ``None`` when
    there is no record, or one from before the record said (then it is not known)."""
    path = run_set_path(labels_path)
    streamed = _streamed_classifier(path)
    if streamed is not None:
        return streamed
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    value = record.get("classifier") if isinstance(record, dict) else None
    return value if isinstance(value, str) else None


def _streamed_classifier(path: Path) -> str | None:
    """The classifier of a record in :class:`LabelsWriter`'s layout, read from the lines
    before its ledgers (its keys are sorted: ``classifier`` comes first); ``None`` when it
    is not found there (another layout, a record from before the field: then the record is
    parsed whole, as before). At 100,000 runs the record parsed whole is about 15 MiB
    more, for one word."""
    try:
        with path.open(encoding="utf-8") as fh:
            if fh.readline() != "{\n":
                return None
            for line in fh:
                if line.startswith('"ledgers": '):
                    return None
                if line.startswith('"classifier": '):
                    value = json.loads("{" + line.rstrip().removesuffix(",") + "}")["classifier"]
                    return value if isinstance(value, str) else None
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    return None


def run_set_path(labels_path: Path) -> Path:
    """The record beside ``labels_path``: ``labels.jsonl`` → ``labels.runs.json``."""
    return labels_path.with_name(labels_path.stem + RUN_SET_SUFFIX)


def _sha256(path: Path) -> str:
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def ledger_hashes(root: Path) -> dict[str, str]:
    """Each run directory under ``root`` (as :func:`run_dirs` finds them, relative to
    ``root``) → the SHA-256 of its ledger."""
    return {
        run_dir.relative_to(root).as_posix(): ledger_sha256(run_dir) for run_dir in run_dirs(root)
    }


def ledger_sha256(run_dir: Path) -> str:
    """The SHA-256 of a run directory's ledger, read for it alone (a command that parsed
    the ledger has it: :attr:`~sscbench.records.ledger.Ledger.sha256`)."""
    return _sha256(run_dir / LEDGER_FILE)


def _atomic_write(path: Path, lines: Iterable[str]) -> None:
    """Write ``path`` whole or not at all: a full disk leaves the previous file in place and
    is one :class:`~sscbench.errors.OutputError` line naming it."""
    with _AtomicFile(path) as fh:
        for line in lines:
            fh.write(line)
        fh.commit()


class _AtomicFile:
    """A temporary sibling of ``path``, written a piece at a time and renamed over
    ``path`` by :meth:`commit`; left (deleted) on any exception or without a commit, so
    the previous file stays in place. An :class:`OSError` is one
    :class:`~sscbench.errors.OutputError` naming ``path``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            fd, name = tempfile.mkstemp(
                prefix=f".{path.name}.", suffix=".tmp", dir=path.absolute().parent
            )
        except OSError as exc:
            raise OutputError(path, exc) from None
        self._name = name
        self._fh: IO[str] | None = os.fdopen(fd, "w", encoding="utf-8")

    def write(self, text: str) -> None:
        """Append ``text`` to the temporary file."""
        assert self._fh is not None, "written after commit or discard"
        try:
            self._fh.write(text)
        except OSError as exc:
            self.discard()
            raise OutputError(self.path, exc) from None

    def commit(self) -> None:
        """Close the temporary file and put it at ``path``."""
        assert self._fh is not None, "committed twice"
        try:
            self._fh.close()
            self._fh = None
            os.replace(self._name, self.path)
        except OSError as exc:
            self.discard()
            raise OutputError(self.path, exc) from None

    def discard(self) -> None:
        """Drop the temporary file (nothing happens to ``path``)."""
        if self._fh is not None:
            with contextlib.suppress(OSError):
                self._fh.close()
            self._fh = None
        Path(self._name).unlink(missing_ok=True)

    def __enter__(self) -> _AtomicFile:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._fh is not None:  # an exception, or no commit: the old file stays
            self.discard()


class LabelsWriter:
    """``labels.jsonl`` written one label at a time, as each run is labelled, so a command
    never holds every label: the lines go to a temporary sibling, and :meth:`commit`
    renames it over the labels file and then writes the run-set record — the bytes and
    the order of :func:`write_labels`. Leaving the ``with`` block without a commit (an
    error in a later step) leaves any previous labels file as it was."""

    def __init__(self, path: Path, root: Path, classifier: str = RULES) -> None:
        self.path, self.root, self.classifier = path, root, classifier
        self.count = 0
        self._file = _AtomicFile(path)

    def add(self, label: RunLabels) -> None:
        """Append one label's line."""
        self._file.write(label.model_dump_json() + "\n")
        self.count += 1

    def commit(self, hashes: Mapping[str, str] | None = None) -> None:
        """Put the labels in place, then their run-set record (``hashes`` as in
        :func:`write_labels`)."""
        if hashes is None:
            hashes = ledger_hashes(self.root)  # the runs the labels were computed from
        self._file.commit()
        record = {
            "schema_version": SCHEMA,
            "labels_sha256": _sha256(self.path),
            "ledgers": dict(hashes),
            "classifier": self.classifier,
        }
        _atomic_write(
            run_set_path(self.path), [json.dumps(record, indent=0, sort_keys=True) + "\n"]
        )

    def __enter__(self) -> LabelsWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self._file.__exit__(*exc)


def write_labels(
    path: Path,
    labels: Iterable[RunLabels],
    root: Path,
    hashes: Mapping[str, str] | None = None,
    classifier: str = RULES,
) -> None:
    """Write ``labels.jsonl`` whole (a temporary sibling renamed over it), then its run-set
    record (``classifier``: what labelled the runs, as :data:`RULES`). In that order, a
    crash between the two leaves a record that no longer matches the labels, which reads
    as stale (safe), never the reverse.

    ``hashes``: the :func:`ledger_hashes` of the very bytes the labels were computed from,
    when the caller parsed them (so the ledgers are not read again)."""
    if hashes is None:
        hashes = ledger_hashes(root)  # before writing: the runs the labels were computed from
    with LabelsWriter(path, root, classifier) as writer:
        for label in labels:
            writer.add(label)
        writer.commit(hashes)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _changes(added: list[str], removed: list[str], changed: list[str]) -> str:
    parts = [
        f"{_plural(len(names), 'run')} {verb} (first: {names[0]})"
        for names, verb in ((added, "added"), (removed, "removed"), (changed, "run again"))
        if names
    ]
    return ", ".join(parts)


def _stale(labels_path: Path, root: Path, what: str) -> ConfigError:
    return ConfigError(
        f"{labels_path} does not match the runs under {root}: {what} since it was written; "
        f"run `sscbench reconstruct {root}` to label them again"
    )


def check_labels_current(
    labels_path: Path, root: Path, labels: Iterable[RunLabels] | LabelIndex
) -> None:
    """Raise :class:`ConfigError` (one line) when the labels at ``labels_path`` were not
    computed from the ledgers now under ``root`` (``labels``: the file's labels, or its
    :class:`~sscbench.reconstruct.labels.LabelIndex`).

    Neither side is held: the record is read a line at a time and the ledgers are hashed
    as they are found, each side folded into a count and an order-free digest of its
    (run, hash) pairs (at 100,000 runs the record parsed whole took about 50 MiB). Only
    when the two differ is the record read whole, to name what changed."""
    record_path = run_set_path(labels_path)
    if not record_path.is_file():
        _check_run_ids(labels_path, root, labels)
        return
    streamed = _streamed_record(record_path)
    if streamed is None:
        record = _whole_record(record_path, root)
        labels_sha = str(record["labels_sha256"])
        recorded = _RunSetDigest()
        for key, value in record["ledgers"].items():
            recorded.add(key, str(value))
    else:
        labels_sha, recorded = streamed
    if _sha256(labels_path) != labels_sha:
        raise ConfigError(
            f"{labels_path} was changed after `sscbench reconstruct` wrote it (its run-set "
            f"record {record_path.name} no longer matches); run `sscbench reconstruct {root}`"
        )
    present = _RunSetDigest()
    for ledger_path in iter_files(root, LEDGER_FILE):
        present.add(ledger_path.parent.relative_to(root).as_posix(), _sha256(ledger_path))
    if present != recorded:
        _name_changes(labels_path, root, _whole_record(record_path, root)["ledgers"])


@dataclass
class _RunSetDigest:
    """A multiset hash of (run, ledger hash) pairs: the count and the sum, modulo 2**256,
    of each pair's SHA-256. Equal for the same pairs in any order; two different run sets
    agree by chance with probability about 2**-256."""

    count: int = 0
    total: int = 0

    def add(self, key: str, sha: str) -> None:
        """Fold in one run."""
        self.count += 1
        pair = hashlib.sha256(f"{key}\0{sha}".encode()).digest()
        self.total = (self.total + int.from_bytes(pair, "big")) % (1 << 256)


def _streamed_record(record_path: Path) -> tuple[str, _RunSetDigest] | None:
    """The labels' hash and the ledgers' digest of a record in the layout
    :class:`LabelsWriter` writes (``indent=0``: one member a line), read a line at a time;
    ``None`` for any other layout or a damaged file (the caller reads it whole and reports
    it as before)."""
    digest = _RunSetDigest()
    labels_sha: str | None = None
    in_ledgers = False
    pending_comma = True  # the previous member line ended with a comma (or there was none)
    try:
        with record_path.open(encoding="utf-8") as fh:
            if fh.readline() != "{\n":
                return None
            for line in fh:
                if in_ledgers:
                    if line in ("},\n", "}\n"):
                        in_ledgers = False
                        continue
                    if not pending_comma:
                        return None
                    pending_comma = line.endswith(",\n")
                    member = json.loads("{" + line.rstrip().removesuffix(",") + "}")
                    if len(member) != 1:
                        return None
                    ((key, value),) = member.items()
                    if not isinstance(value, str):
                        return None
                    digest.add(key, value)
                elif line in ('"ledgers": {\n', '"ledgers": {},\n', '"ledgers": {}\n'):
                    in_ledgers = line == '"ledgers": {\n'
                    pending_comma = True
                elif line.startswith('"labels_sha256": '):
                    labels_sha = str(
                        json.loads("{" + line.rstrip().removesuffix(",") + "}")["labels_sha256"]
                    )
                elif line == "}\n":
                    break
    except (OSError, ValueError, KeyError, UnicodeDecodeError):
        return None
    return None if labels_sha is None or in_ledgers else (labels_sha, digest)


def _whole_record(record_path: Path, root: Path) -> dict[str, Any]:
    """The record parsed whole, or one :class:`ConfigError` line when it is not one."""
    try:
        record: dict[str, Any] = json.loads(record_path.read_text(encoding="utf-8"))
        recorded = record["ledgers"]
        if not isinstance(recorded, dict):
            raise TypeError("ledgers")
        str(record["labels_sha256"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ConfigError(
            f"{record_path}: not a run-set record ({type(exc).__name__}); run "
            f"`sscbench reconstruct {root}` to write the labels and their record again"
        ) from None
    return record


def _name_changes(labels_path: Path, root: Path, recorded: dict[str, str]) -> None:
    """Raise the one line that names the runs added, removed or run again."""
    added: list[str] = []
    changed: list[str] = []
    for run_dir in run_dirs(root):
        key = run_dir.relative_to(root).as_posix()
        was = recorded.pop(key, None)
        if was is None:
            added.append(key)
        elif was != _sha256(run_dir / LEDGER_FILE):
            changed.append(key)
    removed = sorted(recorded)
    if added or removed or changed:
        raise _stale(labels_path, root, _changes(sorted(added), removed, sorted(changed)))


def _check_run_ids(labels_path: Path, root: Path, labels: Iterable[RunLabels] | LabelIndex) -> None:
    """Without a record (labels written before it existed): the labelled run ids against
    the run ids in the ledgers' headers."""
    present: set[str] = set()
    for run_dir in run_dirs(root):
        with (run_dir / LEDGER_FILE).open("rb") as fh:
            try:
                header = json.loads(fh.readline() or b"{}")
            except ValueError:
                continue  # a damaged ledger is the reader's error to report, by name
        run_id = header.get("run_id") if isinstance(header, dict) else None
        if isinstance(run_id, str):
            present.add(run_id)
    labelled = (
        set(labels.run_ids())
        if isinstance(labels, LabelIndex)
        else {label.run_id for label in labels}
    )
    added, removed = sorted(present - labelled), sorted(labelled - present)
    if added or removed:
        raise _stale(labels_path, root, _changes(added, removed, []))
