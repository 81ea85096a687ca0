"""The run-set walks hold one run at a time (issue #29 item 5: memory flat in runs).

``iter_files`` must give exactly what the sorted list did — order and errors — without
building that list; ``check_labels_current`` must compare the record with the ledgers
without parsing the record whole when they agree. Both are counted, not timed.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from sscbench.errors import ConfigError
from sscbench.reconstruct import run_set
from sscbench.reconstruct.labels import read_labels
from sscbench.reconstruct.run_set import check_labels_current, write_labels
from sscbench.user_files import SET_ASIDE, find_files, iter_files

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "analysis"
NAME = "ledger.jsonl"


def _sorted_walk(root: Path) -> list[Path]:
    """The list the command used to build: every ``NAME`` under ``root``, sorted."""
    found = []
    for directory, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if SET_ASIDE not in d)
        if NAME in names:
            found.append(Path(directory) / NAME)
    return sorted(found)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """Nested runs whose path order differs from a plain top-down walk: ``a/b`` sorts
    before ``a/ledger.jsonl``, ``a-c`` after ``a``; a set-aside run and a linked dir."""
    for d in ("a", "a/b", "a/b/c", "a-c", "A", "_", "z/y", f"r{SET_ASIDE}1", "."):
        (tmp_path / d).mkdir(parents=True, exist_ok=True)
        (tmp_path / d / NAME).write_text("{}\n", encoding="utf-8")
    os.symlink(tmp_path / "a", tmp_path / "linked")
    return tmp_path


def test_iter_files_gives_the_sorted_list_in_order(tree: Path) -> None:
    expected = _sorted_walk(tree)
    assert len(expected) == 8
    assert list(iter_files(tree, NAME)) == expected == find_files(tree, NAME)


def test_iter_files_reads_one_directory_per_run_it_has_yielded(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lazy: the first path comes after listing only the directories on its way, not the
    whole tree (a list of every path, built first, would list them all)."""
    listed: list[str] = []
    real = os.scandir

    def counting(path: str) -> object:
        listed.append(path)
        return real(path)

    monkeypatch.setattr(os, "scandir", counting)
    walk = iter_files(tree, NAME)
    assert next(walk) == tree / "A" / NAME  # "A" < "_" < "a" < "ledger.jsonl"
    assert listed == [os.fspath(tree), os.path.join(tree, "A")]
    assert next(walk) == tree / "_" / NAME
    assert len(listed) == 3


def test_iter_files_names_a_directory_called_like_the_file(tree: Path) -> None:
    shutil.rmtree(tree / "z")
    (tree / "z" / NAME).mkdir(parents=True)
    with pytest.raises(ConfigError, match="not a file"):
        list(iter_files(tree, NAME))


def test_a_current_record_is_never_parsed_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the ledgers match, the record is read a line at a time (about 50 MiB at
    100,000 runs parsed whole); only a mismatch reads it whole, to name the runs."""
    root = tmp_path / "runs"
    shutil.copytree(FIXTURE / "runs", root)
    labels_path = root / "labels.jsonl"
    labels = read_labels(FIXTURE / "labels.jsonl")
    write_labels(labels_path, labels, root)
    whole: list[Path] = []
    real = run_set._whole_record

    def counted(path: Path, at: Path) -> dict[str, object]:
        whole.append(path)
        return real(path, at)

    monkeypatch.setattr(run_set, "_whole_record", counted)
    real_loads = json.loads

    def loads(text: str, **kw: object) -> object:
        if text.startswith("{\n"):  # the record whole (a member line is '{"key": ...}')
            whole.append(Path(text[:20]))
        return real_loads(text, **kw)

    monkeypatch.setattr(json, "loads", loads)
    check_labels_current(labels_path, root, labels)
    assert run_set.labels_classifier(labels_path) == run_set.RULES
    assert whole == []
    ledger = sorted(root.rglob(NAME))[-1]
    ledger.write_bytes(ledger.read_bytes() + b"\n")  # run again: same runs, new bytes
    with pytest.raises(ConfigError, match="run again"):
        check_labels_current(labels_path, root, labels)
    assert whole  # a mismatch: read whole, to name the run
