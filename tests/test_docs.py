"""Docs that cannot drift: every fenced block in docs/ runs, or says why it cannot.

Each fenced block of ``docs/*.md`` is one of:

* run here, by its language — ``bash``/``sh`` with ``sscbench`` on the PATH and ``python``
  in a scratch directory that already holds a small demo run set (``runs/demo``, as after
  ``sscbench demo``), ``toml``/``yaml`` experiment files and fragments loaded by the
  experiment loader, ``json`` parsed (a ``.jsonl`` excerpt line by line);
* ``<!-- run by: PATH -->`` on the line before it: another test or CI script runs it, and
  PATH must name each of its commands and options;
* ``<!-- not run: REASON -->``: it needs a key, a GPU, a server that runs until stopped,
  or it is a layout, an output or an excerpt — the reason says which.

A block of any other kind without a marker fails. A file's blocks run in order in one
scratch directory, as a reader follows the page. The figures of the README that the
shipped data determines (operator candidate counts, case counts) are compared with their
sources here; the demo's figures are compared in tests/analysis/test_demo_analysis.py.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
RUN_HERE = {"bash", "sh", "python", "toml", "yaml", "json"}
MARKER = re.compile(r"^<!-- (not run|run by): (.+?) -->$")
TIMEOUT_S = 600


@dataclass(frozen=True)
class Block:
    """One fenced block: where it is, its language, its text, and its marker if any."""

    path: Path
    line: int
    lang: str
    text: str
    marker: tuple[str, str] | None

    @property
    def id(self) -> str:
        return f"{self.path.name}:{self.line}"


def blocks(path: Path) -> list[Block]:
    """The fenced blocks of one Markdown file."""
    lines = path.read_text(encoding="utf-8").split("\n")
    out: list[Block] = []
    i = 0
    while i < len(lines):
        opening = re.match(r"^```(\S*)\s*$", lines[i])
        if opening is None:
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        found = MARKER.match(lines[i - 1].strip()) if i else None
        marker = (found.group(1), found.group(2)) if found else None
        out.append(
            Block(path, i + 1, opening.group(1), "\n".join(lines[i + 1 : end]) + "\n", marker)
        )
        i = end + 1
    return out


ALL = [b for path in sorted(DOCS.glob("*.md")) for b in blocks(path)]
RUNNABLE = [b for b in ALL if b.marker is None]


def test_every_block_runs_here_or_says_why_not() -> None:
    unmarked = [b.id for b in RUNNABLE if b.lang not in RUN_HERE]
    assert not unmarked, f"blocks with no runner and no <!-- not run: … --> marker: {unmarked}"
    for block in ALL:
        if block.marker is not None and block.marker[0] == "not run":
            assert len(block.marker[1].split()) >= 2, f"{block.id}: say why in a few words"
    assert len(RUNNABLE) >= 15  # most of the docs' blocks do run


@pytest.mark.parametrize(
    "block", [b for b in ALL if b.marker and b.marker[0] == "run by"], ids=lambda b: b.id
)
def test_a_block_run_elsewhere_names_its_runner(block: Block) -> None:
    assert block.marker is not None
    runner = (ROOT / block.marker[1]).read_text(encoding="utf-8")
    for line in block.text.splitlines():
        words = shlex.split(line.split("#")[0])
        if not words or words[0] != "sscbench":
            continue
        for word in [words[1], *(w for w in words if w.startswith("--"))]:
            assert f'"{word}"' in runner or f" {word} " in runner, (block.id, word)


# ------------------------------------------------------------------ files and fragments

MINIMAL_EXPERIMENT = (
    '[cases]\nper_operator = 1\n[[configurations]]\nid = "c"\nagent = "scripted:gold"\n'
)


def _load(text: str, suffix: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sscbench.experiments.load import load_experiment

    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.setenv(name, "sk-docs-test")
    path = tmp_path / f"exp{suffix}"
    path.write_text(text, encoding="utf-8")
    experiment = load_experiment(path)
    assert experiment.configurations


@pytest.mark.parametrize(
    "block", [b for b in RUNNABLE if b.lang in ("toml", "yaml", "json")], ids=lambda b: b.id
)
def test_data_blocks_load(block: Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if block.lang == "json":
        try:
            json.loads(block.text)
        except ValueError:  # a .jsonl excerpt: one record per line
            for line in block.text.splitlines():
                if line.strip():
                    json.loads(line)
        return
    if block.lang == "yaml":
        data = yaml.safe_load(block.text)
        assert isinstance(data, dict)
        _load(block.text, ".yaml", tmp_path, monkeypatch)
        return
    data = tomllib.loads(block.text)
    if "project" in data or "tool" in data:  # a pyproject.toml fragment: it parses
        return
    text = block.text
    if "configurations" not in data:  # an experiment fragment: add a configuration
        text += '\n[[configurations]]\nid = "docs"\nagent = "scripted:gold"\n'
    if "cases" not in data:
        text += "\n[cases]\nper_operator = 1\n"
    _load(text, ".toml", tmp_path, monkeypatch)


# ------------------------------------------------------------------ commands and code


@pytest.fixture(scope="session")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A scratch directory as a user's after the first hour: a small case set and a demo run
    set on it at runs/demo (with its clean controls beside it)."""
    from sscbench.cli.main import main

    work = tmp_path_factory.mktemp("docs-work")
    cases = work / "cases-small"
    assert main(["build", "--out", str(cases), "--per-operator", "1"]) == 0
    out = work / "runs" / "demo"
    assert main(["demo", "--cases", str(cases), "--seeds", "1", "--out", str(out)]) == 0
    return work


@pytest.fixture(scope="session")
def workdirs(seeded: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[Path, Path]:
    """One scratch directory per Markdown file, a copy of the seeded one: a file's blocks
    run in order in it, as a reader follows the page (files do not see each other's)."""
    return {}


def _scratch(block: Block, seeded: Path, workdirs: dict[Path, Path], base: Path) -> Path:
    import shutil

    if block.path not in workdirs:
        work = base / block.path.stem
        shutil.copytree(seeded, work, symlinks=True)
        workdirs[block.path] = work
    return workdirs[block.path]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        env.pop(name, None)
    return env


@pytest.mark.slow
@pytest.mark.parametrize(
    "block", [b for b in RUNNABLE if b.lang in ("bash", "sh", "python")], ids=lambda b: b.id
)
def test_command_and_code_blocks_run(
    block: Block,
    seeded: Path,
    workdirs: dict[Path, Path],
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    work = _scratch(block, seeded, workdirs, tmp_path_factory.getbasetemp())
    if block.lang == "python":
        command = [sys.executable, "-c", block.text]
    else:
        command = ["bash", "-euo", "pipefail", "-c", block.text]
    done = subprocess.run(
        command,
        cwd=work,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, f"{block.id} exited {done.returncode}:\n{done.stderr[-3000:]}"


# ------------------------------------------------------------------ README figures


def _readme_operator_rows() -> dict[str, list[str]]:
    rows = {}
    for line in (ROOT / "README.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 6 and re.fullmatch(r"[A-Z][A-Za-z]+", cells[0]):
            rows[cells[0]] = cells
    return rows


def test_readme_candidate_counts_are_the_cached_screening_counts() -> None:
    """The operator tables' frame and valid counts are ``sscbench operators list``'s."""
    from sscbench.cases.candidate_counts import COUNTS_FILE
    from sscbench.operators.registry import get_operator, operator_names

    counts = json.loads((ROOT / "sscbench" / "data" / COUNTS_FILE).read_text())["operators"]
    manifest = json.loads((ROOT / "sscbench" / "data" / "cases" / "manifest.json").read_text())
    rows = _readme_operator_rows()
    checked = 0
    for name in operator_names():
        display = get_operator(name).display_name
        if display not in rows:
            continue
        cells = rows[display]
        numbers = [c for c in cells if re.fullmatch(r"\d+", c)]
        frames = str(counts[name]["candidates"])
        assert numbers[0] == frames, (display, numbers, counts[name])
        second = numbers[1]
        shipped = manifest["counts"].get(name)  # an operator with no shipped cases yet
        included = "" if shipped is None else str(shipped["included"] + shipped["controls"])
        assert second in (str(counts[name]["valid"]), included), (display, numbers)
        checked += 1
    assert checked == len(operator_names()) == 13


def test_docs_candidate_counts_are_the_cached_screening_counts() -> None:
    from sscbench.cases.candidate_counts import COUNTS_FILE

    counts = json.loads((ROOT / "sscbench" / "data" / COUNTS_FILE).read_text())["operators"]
    text = (DOCS / "measurement.md").read_text(encoding="utf-8")
    for name, display in (
        ("return_date", "ReturnDate"),
        ("pay_source", "PaySource"),
        ("item_option", "ItemOption"),
        ("write_effect", "WriteEffect"),
    ):
        pair = f"{counts[name]['candidates']}/{counts[name]['valid']}"
        assert f"{display} {pair}" in text, (display, pair)


def test_readme_case_set_counts_are_the_manifests() -> None:
    manifest = json.loads((ROOT / "sscbench" / "data" / "cases" / "manifest.json").read_text())
    total = len(manifest["cases"])
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert f"{total} in all" in readme and f"{manifest['version']}: " in readme
    assert f"{total} cases × 5 agents × 2 repetitions" in readme
    assert f"{total * 5 * 2:,} faulted runs" in readme


def test_the_quickstart_estimates_are_a_fresh_dry_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The quickstart's run counts for the pilot and the full set, and the pilot's model
    calls and tokens, are what the dry run of its own files gives (prices are litellm's and
    may change with it, so they are not compared)."""
    from sscbench.experiments.estimate import estimate_experiment, estimate_lines
    from sscbench.experiments.load import load_experiment

    page = DOCS / "quickstart.md"
    text = page.read_text(encoding="utf-8")
    pilot = text.split("cat > pilot.toml <<'EOF'\n")[1].split("\nEOF\n")[0]
    full = next(b.text for b in blocks(page) if b.lang == "toml" and 'name = "full"' in b.text)
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    work = Path(os.environ.get("TMPDIR", "/tmp"))
    lines = {}
    for label, body in (("pilot", pilot), ("full", full)):
        path = work / f"sscbench-quickstart-{os.getpid()}-{label}.toml"
        path.write_text(body, encoding="utf-8")
        try:
            experiment = load_experiment(path)
        finally:
            path.unlink()
        if label == "pilot":
            lines[label] = list(estimate_lines(estimate_experiment(experiment)))
        else:
            from sscbench.experiments.plan import plan_runs

            runs = plan_runs(experiment)
            clean = sum(r.condition == "clean" for r in runs)
            fault = len(runs) - clean
            lines[label] = [
                f"{len(runs):,} scheduled runs: {clean:,} clean, up to {fault:,} faulted"
            ]
    for line in lines["pilot"]:
        if "prices:" in line or line.startswith("(") or " makes more" in line:
            continue
        head = line.split(", $")[0] if "$" in line else line  # prices are litellm's
        assert head in text, head
    assert lines["full"][0] in text
