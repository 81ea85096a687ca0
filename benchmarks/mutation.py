#!/usr/bin/env python
"""Mutation benchmark of the grading code: how many curated grader mutants the tests kill.

Each mutant is a one-place source patch of the grading path (``sscbench/envs/grading.py``
and the two places that feed it: the episode's end step and the τ² importer). It is
applied to a temporary copy of the package and tests — the working tree is never touched —
and the grading tests run against that copy (``PYTHONPATH`` puts it first). A mutant is
*killed* when the tests fail. The unmutated copy must pass first, or the run stops.

Run ``python benchmarks/mutation.py [--out PATH]``; it prints the kill rate per module and
overall, and writes ``benchmarks/mutation-results.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = Path(__file__).resolve().parent / "mutation-results.json"
TESTS = ["tests/envs/test_grading.py", "tests/audit", "tests/imports"]
TARGET = 0.90


@dataclass(frozen=True)
class Mutant:
    """One patch: replace ``old`` (which must occur exactly once) by ``new`` in ``path``."""

    name: str
    path: str
    old: str
    new: str


GRADING = "sscbench/envs/grading.py"
EPISODE = "sscbench/runs/episode.py"
IMPORTER = "sscbench/imports/tau2_results.py"
REPLAY_INSTEAD_OF_LIVE = """            from sscbench.envs.calls import ToolCall
            replay = EpisodeEnvironment.open(spec.domain, task)
            for e in rec.history:
                if isinstance(e, AgentToolCall):
                    replay.execute(
                        ToolCall(id=e.call_id, name=e.name, arguments=e.arguments), e.step
                    )
            graded = grade(replay, task, texts)"""

MUTANTS: tuple[Mutant, ...] = (
    Mutant("db check always true", GRADING,
           "db_match=final == self.reference_hash(env.domain.name, task.id),",
           "db_match=True,"),
    Mutant("db check inverted", GRADING,
           "db_match=final == self.reference_hash(env.domain.name, task.id),",
           "db_match=final != self.reference_hash(env.domain.name, task.id),"),
    Mutant("reference of another task", GRADING,
           "self.reference_hash(env.domain.name, task.id)",
           'self.reference_hash(env.domain.name, "0")'),
    Mutant("required output graded on text alone", GRADING,
           "db_match=final == self.reference_hash(env.domain.name, task.id),",
           "db_match=final == self.reference_hash(env.domain.name, task.id)"
           " or bool(required_outputs(task)),"),
    Mutant("success ignores outputs", GRADING,
           "return self.db_match and self.communicate_ok", "return self.db_match"),
    Mutant("success ignores state", GRADING,
           "return self.db_match and self.communicate_ok", "return self.communicate_ok"),
    Mutant("any output suffices", GRADING,
           "return all(any(info.lower() in t for t in texts) for info in required)",
           "return any(any(info.lower() in t for t in texts) for info in required)"),
    Mutant("outputs case-sensitive", GRADING,
           "any(info.lower() in t for t in texts)", "any(info in t for t in texts)"),
    Mutant("thousands separators kept", GRADING,
           'texts = [t.lower().replace(",", "") for t in agent_texts]',
           "texts = [t.lower() for t in agent_texts]"),
    Mutant("only the last message counts", GRADING,
           "any(info.lower() in t for t in texts)", "any(info.lower() in t for t in texts[-1:])"),
    Mutant("no required outputs", GRADING,
           "return list(criteria.communicate_info or []) if criteria is not None else []",
           "return []"),
    Mutant("gold replay drops the last action", GRADING,
           "for index, action in enumerate(actions or []):",
           "for index, action in enumerate((actions or [])[:-1]):"),
    Mutant("grades a fresh replay, not the live state", EPISODE,
           "            graded = grade(env, task, texts)", REPLAY_INSTEAD_OF_LIVE),
    Mutant("harness-error runs graded", EPISODE,
           'if termination != "harness_error":\n            texts',
           "if True:\n            texts"),
    Mutant("user and tool text count as communicated", EPISODE,
           "texts = [e.content for e in rec.history if isinstance(e, AgentMessage)]",
           "texts = [getattr(e, 'content', '') for e in rec.history]"),
    Mutant("run success is the db check", EPISODE,
           "success=None if graded is None else graded.success,",
           "success=None if graded is None else graded.db_match,"),
    Mutant("imported runs: user text communicated", IMPORTER,
           "texts = [e.content for e in conv.events if isinstance(e, AgentMessage)]",
           "texts = [getattr(e, 'content', '') for e in conv.events]"),
    Mutant("imported runs graded on a fresh episode", IMPORTER,
           "graded = grade(conv.env, conv.task, texts)",
           "graded = grade(EpisodeEnvironment.open(domain, conv.task), conv.task, texts)"),
)


def _copy(into: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache")
    shutil.copytree(ROOT / "sscbench", into / "sscbench", ignore=ignore)
    shutil.copytree(ROOT / "tests", into / "tests", ignore=ignore)
    shutil.copy(ROOT / "pyproject.toml", into / "pyproject.toml")


def _run_tests(copy: Path) -> bool:
    env = {**os.environ, "PYTHONPATH": str(copy)}
    cmd = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *TESTS]
    proc = subprocess.run(cmd, cwd=copy, env=env, capture_output=True, text=True, check=False)
    return proc.returncode == 0


def _apply(copy: Path, mutant: Mutant) -> None:
    path = copy / mutant.path
    text = path.read_text(encoding="utf-8")
    if text.count(mutant.old) != 1:
        raise SystemExit(f"mutant {mutant.name!r}: its anchor is not unique in {mutant.path}")
    path.write_text(text.replace(mutant.old, mutant.new), encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="sscbench-mutation-") as tmp:
        base = Path(tmp) / "base"
        _copy(base)
        if not _run_tests(base):
            print("the unmutated copy fails its tests; fix them first", file=sys.stderr)
            return 2
        results = []
        for i, mutant in enumerate(MUTANTS):
            copy = Path(tmp) / f"m{i}"
            shutil.copytree(base, copy)
            _apply(copy, mutant)
            killed = not _run_tests(copy)
            shutil.rmtree(copy)
            results.append({"mutant": mutant.name, "module": mutant.path, "killed": killed})
            print(f"{'killed  ' if killed else 'SURVIVED'} {mutant.path}: {mutant.name}")
    by_module: dict[str, list[int]] = {}
    for r in results:
        counts = by_module.setdefault(str(r["module"]), [0, 0])
        counts[0] += bool(r["killed"])
        counts[1] += 1
    killed = sum(bool(r["killed"]) for r in results)
    rate = killed / len(results)
    print()
    print("| module | killed | mutants |")
    print("|---|---|---|")
    for module, (k, n) in by_module.items():
        print(f"| {module} | {k} | {n} |")
    print(f"\ngrading kill rate: {killed}/{len(results)} = {rate:.0%} (target ≥ {TARGET:.0%})")
    summary = {
        "tests": TESTS,
        "killed": killed,
        "mutants": len(results),
        "kill_rate": round(rate, 4),
        "seconds": round(time.perf_counter() - started, 1),
        "results": results,
    }
    args.out.write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return 0 if rate >= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
