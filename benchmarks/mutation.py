#!/usr/bin/env python
"""Mutation benchmark of the grading path and the grader audit: how many mutants the tests kill.

Each mutant changes one node of the source. It names the file, the function or method that
holds the node (``scope``, e.g. ``LiveStateGrader.grade``), the node itself as source code
and the code that replaces it. The node is found by comparing syntax trees, never text:
formatting, comments, quotes and line wrapping do not matter, and nothing outside the
scope can match. The node must occur exactly once in its scope; a mutant whose node is gone
stops the run with one line naming the mutant, so a refactor of the code under test shows
up as a broken mutant, not as a silently skipped one (CI runs ``--smoke``, which locates
every mutant).

Each mutant is applied to a temporary copy of the package and tests — the working tree is
never touched — and tests run against that copy (``PYTHONPATH`` puts it first). A mutant
is *killed* when pytest reports failing tests (exit status 1); any other status (a
collection error, an internal error) stops the run, since it would count a broken copy as
a kill.

* ``python benchmarks/mutation.py [--out PATH]``: the unmutated copy must pass the
  targeted tests (grading, audit, import); then every mutant runs them with ``-x``. Prints
  the kill rate per module and overall, writes ``benchmarks/mutation-results.json`` and
  exits 1 below the target.
* ``python benchmarks/mutation.py --smoke``: every mutant is located, applied and compiled;
  the tests each mutant names as its killer (``killed_by``) must pass on the unmutated
  copy and fail on the mutant. Writes nothing; 1–2 minutes on two cores.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = Path(__file__).resolve().parent / "mutation-results.json"
TESTS = ("tests/envs/test_grading.py", "tests/audit", "tests/imports")
TARGET = 0.95
TIMEOUT_S = 900
PYTEST_FAILED = 1  # pytest's exit status when tests ran and some failed


@dataclass(frozen=True)
class Mutant:
    """Replace the one node ``node`` inside ``scope`` of ``path`` by ``new``.

    ``origin`` says where the mutant comes from: ``prior`` (the first 18-mutant catalogue),
    ``survivor`` (one of the six the grader-audit tests missed) or ``audit`` (a further way
    to weaken one of the eight checks). ``killed_by`` names the tests that must kill it
    (pytest node ids); ``--smoke`` runs only those.
    """

    name: str
    path: str
    scope: str
    node: str
    new: str
    origin: str
    killed_by: tuple[str, ...]


GRADING = "sscbench/envs/grading.py"
EPISODE = "sscbench/runs/episode.py"
IMPORTER = "sscbench/imports/tau2_results.py"
CHECKS = "sscbench/audit/checks.py"
SCENARIOS = "sscbench/audit/scenarios.py"
TARGET_PY = "sscbench/audit/target.py"

T_GRADING = "tests/envs/test_grading.py"
T_PROPS = "tests/audit/test_check_properties.py"
T_CHECKS = "tests/audit/test_checks.py"
T_IMPORT = "tests/audit/test_import_grading.py"
T_RULE = f"{T_GRADING}::test_communicated_accepts_case_and_separators_and_needs_every_output"

REPLAY_INSTEAD_OF_LIVE = """\
from sscbench.envs.calls import ToolCall
replay = EpisodeEnvironment.open(spec.domain, task)
for e in rec.history:
    if isinstance(e, AgentToolCall):
        replay.execute(ToolCall(id=e.call_id, name=e.name, arguments=e.arguments), e.step)
graded = grade(replay, task, texts)"""
DB_CHECK = "final == self.reference_hash(env.domain.name, task.id)"
RULE = "any(info.lower() in t for t in texts)"
WITH_ARGUMENTS = (
    "[e.content if isinstance(e, AgentMessage) else str(e.arguments) for e in {events}"
    " if isinstance(e, (AgentMessage, AgentToolCall))]"
)


def _m(
    name: str, path: str, scope: str, node: str, new: str, origin: str, *killed_by: str
) -> Mutant:
    return Mutant(name, path, scope, node, new, origin, killed_by)


# fmt: off
MUTANTS: tuple[Mutant, ...] = (
    # -- the grader -----------------------------------------------------------------------
    _m("db check always true", GRADING, "LiveStateGrader.grade", DB_CHECK, "True", "prior",
       f"{T_GRADING}::test_saying_the_required_output_without_the_write_is_not_solved"),
    _m("db check inverted", GRADING, "LiveStateGrader.grade", DB_CHECK,
       "final != self.reference_hash(env.domain.name, task.id)", "prior",
       f"{T_GRADING}::test_hasty_trusting_a_suppressed_write_is_not_solved_and_careful_is"),
    _m("reference of another task", GRADING, "LiveStateGrader.grade",
       "self.reference_hash(env.domain.name, task.id)",
       "self.reference_hash(env.domain.name, '0')", "prior",
       f"{T_GRADING}::test_hasty_trusting_a_suppressed_write_is_not_solved_and_careful_is"),
    _m("required output graded on text alone", GRADING, "LiveStateGrader.grade", DB_CHECK,
       f"{DB_CHECK} or bool(required_outputs(task))", "prior",
       f"{T_GRADING}::test_saying_the_required_output_without_the_write_is_not_solved"),
    _m("success ignores outputs", GRADING, "Grade.success",
       "self.communicate_ok", "True", "prior",
       f"{T_GRADING}::test_user_and_tool_text_are_not_communicated_by_the_agent"),
    _m("success ignores state", GRADING, "Grade.success",
       "self.db_match", "True", "prior",
       f"{T_GRADING}::test_saying_the_required_output_without_the_write_is_not_solved"),
    _m("any one required output suffices", GRADING, "communicated",
       f"all({RULE} for info in required)", f"not required or any({RULE} for info in required)",
       "prior", f"{T_GRADING}::test_every_required_output_must_be_said"),
    _m("outputs case-sensitive", GRADING, "communicated", RULE,
       "any(info in t for t in texts)", "prior", T_RULE),
    _m("thousands separators kept", GRADING, "communicated",
       "[t.lower().replace(',', '') for t in agent_texts]", "[t.lower() for t in agent_texts]",
       "prior", T_RULE),
    _m("only the last message counts", GRADING, "communicated", RULE,
       "any(info.lower() in t for t in texts[-1:])", "prior", T_RULE),
    _m("no required outputs", GRADING, "required_outputs",
       "list(criteria.communicate_info or []) if criteria is not None else []", "[]", "prior",
       f"{T_GRADING}::test_user_and_tool_text_are_not_communicated_by_the_agent"),
    _m("gold replay drops the last action", GRADING, "replay_gold",
       "enumerate(actions or [])", "enumerate((actions or [])[:-1])", "prior",
       f"{T_GRADING}::test_shipped_gold_hashes_match_a_fresh_replay"),
    # -- the episode's end step and the τ² importer ---------------------------------------
    _m("grades a fresh replay, not the live state", EPISODE, "run_episode",
       "graded = grade(env, task, texts)", REPLAY_INSTEAD_OF_LIVE, "prior",
       f"{T_GRADING}::test_hasty_trusting_a_suppressed_write_is_not_solved_and_careful_is"),
    _m("harness-error runs graded", EPISODE, "run_episode",
       "termination not in ('harness_error', 'replay_divergence')", "True", "prior",
       f"{T_GRADING}::test_a_harness_error_run_is_never_graded"),
    _m("user and tool text count as communicated", EPISODE, "run_episode",
       "[e.content for e in rec.history if isinstance(e, AgentMessage)]",
       "[getattr(e, 'content', '') for e in rec.history]", "prior",
       f"{T_GRADING}::test_user_and_tool_text_are_not_communicated_by_the_agent"),
    _m("run success is the db check", EPISODE, "run_episode",
       "None if graded is None else graded.success",
       "None if graded is None else graded.db_match", "prior",
       f"{T_GRADING}::test_user_and_tool_text_are_not_communicated_by_the_agent"),
    _m("tool-call arguments count as communicated", EPISODE, "run_episode",
       "[e.content for e in rec.history if isinstance(e, AgentMessage)]",
       WITH_ARGUMENTS.format(events="rec.history"), "survivor",
       f"{T_GRADING}::test_tool_call_arguments_are_not_communicated"),
    _m("imported runs: user text communicated", IMPORTER, "_import_one",
       "[e.content for e in conv.events if isinstance(e, AgentMessage)]",
       "[getattr(e, 'content', '') for e in conv.events]", "prior",
       f"{T_IMPORT}::test_user_text_in_an_imported_run_is_not_communicated"),
    _m("imported runs graded on a fresh episode", IMPORTER, "_import_one",
       "grade(conv.env, conv.task, texts)",
       "grade(EpisodeEnvironment.open(domain, conv.task), conv.task, texts)", "prior",
       f"{T_IMPORT}::test_an_imported_run_is_graded_on_its_replayed_state"),
    _m("imported runs: tool-call arguments communicated", IMPORTER, "_import_one",
       "[e.content for e in conv.events if isinstance(e, AgentMessage)]",
       WITH_ARGUMENTS.format(events="conv.events"), "survivor",
       f"{T_IMPORT}::test_tool_call_arguments_in_an_imported_run_are_not_communicated"),
    # -- the audit's checks: the six survivors of the first audit mutants -----------------
    _m("a grader that raises passes CTL-1/2/3", CHECKS, "_expect",
       "return ((task, kind), f'{kind}: the grader raised {outcome.error}')", "return None",
       "survivor", f"{T_PROPS}::test_an_exception_is_not_a_verdict"),
    _m("INV-1 probes only the gold episode", CHECKS, "inv1",
       "('gold', 'idle', 'gold_write_fault', 'gold_read_fault')", "('gold',)", "survivor",
       f"{T_PROPS}::test_inv1_names_the_episode_whose_grading_changed_the_state"),
    _m("INV-2 ignores differing verdicts", CHECKS, "inv2", "first.label != second.label",
       "False", "survivor",
       f"{T_PROPS}::test_inv2_names_the_episode_whose_verdict_changed_on_the_second_call"),
    _m("CTL-1 drops its say-only episode", CHECKS, "ctl1", "kinds.append('say_only')", "pass",
       "survivor", f"{T_PROPS}::test_ctl1_names_the_episode_wrongly_solved"),
    _m("CTL-2 drops its read-fault episode", CHECKS, "ctl2", "('gold', 'gold_read_fault')",
       "('gold',)", "survivor", f"{T_PROPS}::test_ctl2_names_the_episode_wrongly_unsolved"),
    # -- the audit's checks: every other way the tests can miss a weakened check ----------
    _m("INV-2 ignores the state the second call leaves", CHECKS, "inv2",
       "session.peek() != after_first", "False", "audit",
       f"{T_PROPS}::test_inv2_names_the_episode_whose_second_call_changed_the_state"),
    _m("INV-3 compares an order with itself", CHECKS, "inv3", "range(3, -1, -1)", "range(4)",
       "audit", f"{T_PROPS}::test_inv3_names_the_episodes_whose_verdict_depends_on_the_order"),
    _m("INV-3 keeps module state between the orders", CHECKS, "inv3", "ctx.fresh_process()",
       "pass", "audit", f"{T_PROPS}::test_inv3_runs_each_order_as_a_new_process"),
    _m("INV-4 accepts a swallowed failure", CHECKS, "inv4", "not outcome.injected", "False",
       "audit", f"{T_PROPS}::test_inv4_names_the_episode_whose_failure_was_swallowed"),
    _m("INV-4 ignores state left unrestored", CHECKS, "inv4",
       "session.peek() != before or len(session.actions) != steps", "False", "audit",
       f"{T_PROPS}::test_inv4_names_the_episode_left_unrestored_after_a_failure"),
    _m("INV-4 never counts a probe point as reached", CHECKS, "inv4", "fired_any = True",
       "pass", "audit", f"{T_CHECKS}::test_a_grader_that_swallows_its_own_failure_violates_inv4"),
    _m("INV-5 ignores actions appended after the end", CHECKS, "inv5",
       "session.actions != trajectory", "False", "audit",
       f"{T_PROPS}::test_inv5_names_the_episode_whose_trajectory_grew"),
    _m("INV-5 ignores a changed final state", CHECKS, "inv5", "session.peek() != final",
       "False", "audit", f"{T_PROPS}::test_inv5_names_the_episode_whose_final_state_changed"),
    _m("CTL-1 drops its idle episode", CHECKS, "ctl1", "kinds.append('idle')", "pass", "audit",
       f"{T_PROPS}::test_ctl1_names_the_episode_wrongly_solved"),
    _m("CTL-1 drops its write-fault episode", CHECKS, "ctl1",
       "_kinds(ctx, task, ('gold_write_fault',))", "[]", "audit",
       f"{T_PROPS}::test_ctl1_names_the_episode_wrongly_solved"),
    _m("CTL-2 drops the reference solution", CHECKS, "ctl2", "('gold', 'gold_read_fault')",
       "('gold_read_fault',)", "audit",
       f"{T_PROPS}::test_ctl2_names_the_episode_wrongly_unsolved"),
    _m("CTL-3 never probes", CHECKS, "ctl3", "_kinds(ctx, task, ('paraphrase',))", "[]",
       "audit", f"{T_PROPS}::test_ctl3_names_the_rejected_paraphrase"),
    _m("controls accept a wrong verdict", CHECKS, "_expect", "outcome.solved != solved",
       "False", "audit", f"{T_PROPS}::test_ctl1_names_the_episode_wrongly_solved"),
    _m("a wrapped injected failure reads as swallowed", SCENARIOS, "call_grader",
       "_caused_by_injection(exc)", "isinstance(exc.__cause__ or exc.__context__, InjectedFault)",
       "audit", f"{T_PROPS}::test_inv4_accepts_a_failure_wrapped_on_its_way_out"),
    _m("the paraphrase episode says the outputs verbatim", SCENARIOS, "build",
       "paraphrase(o) or o", "o", "audit",
       f"{T_PROPS}::test_ctl3_names_the_rejected_paraphrase"),
    _m("the write-fault episode runs without its fault", SCENARIOS, "build",
       "fault_of(target, task_id, 'write')", "None", "audit",
       f"{T_PROPS}::test_ctl1_names_the_episode_wrongly_solved"),
    _m("a read-only task with outputs needs no action", TARGET_PY, "Target.needs_action",
       "fresh != self.reference(task_id) or bool(self.required_outputs(task_id))",
       "fresh != self.reference(task_id)", "audit",
       f"{T_PROPS}::test_ctl1_idle_counts_on_a_task_that_only_asks_for_outputs"),
    _m("the reference grader's outputs case-sensitive", TARGET_PY, "communicated_normalised",
       "[t.lower().replace(',', '') for t in session.texts]",
       "[t.replace(',', '') for t in session.texts]", "audit",
       f"{T_CHECKS}::test_synthetic_grader_passes_every_check_on_every_task"),
)
# fmt: on


# -- locating a node structurally -------------------------------------------------------
class MutantError(Exception):
    """A mutant that cannot be applied (its scope or node is gone, or not unique)."""


def _is_expression(source: str) -> bool:
    try:
        ast.parse(textwrap.dedent(source).strip(), mode="eval")
    except SyntaxError:
        return False
    return True


def _pattern(source: str, *, statement: bool) -> str:
    """The AST dump a node must have: an expression, or one statement.

    A call written as a statement (``kinds.append(x)``) is matched as an expression unless
    its replacement is a statement (``pass``): then the whole statement is replaced.
    """
    source = textwrap.dedent(source).strip()
    if not statement and _is_expression(source):
        return ast.dump(ast.parse(source, mode="eval").body)
    body = ast.parse(source).body
    if len(body) != 1:
        raise MutantError(f"pattern is not one node: {source!r}")
    return ast.dump(body[0])


def _scope(tree: ast.Module, dotted: str) -> ast.AST:
    node: ast.AST = tree
    for part in dotted.split("."):
        found = [
            n
            for n in getattr(node, "body", [])
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and n.name == part
        ]
        if len(found) != 1:
            raise MutantError(f"no single definition {part!r} on the way to {dotted!r}")
        node = found[0]
    return node


def _offset(lines: list[str], lineno: int, col_bytes: int) -> int:
    """Character offset of an AST position (1-based line, UTF-8 byte column)."""
    line = lines[lineno - 1]
    column = len(line.encode("utf-8")[:col_bytes].decode("utf-8"))
    return sum(len(x) for x in lines[: lineno - 1]) + column


def locate(source: str, mutant: Mutant) -> tuple[int, int, ast.AST]:
    """Start and end offsets of the mutant's node in ``source``, and the node."""
    tree = ast.parse(source)
    want = _pattern(mutant.node, statement=not _is_expression(mutant.new))
    hits = [
        n
        for n in ast.walk(_scope(tree, mutant.scope))
        if isinstance(n, (ast.expr, ast.stmt)) and ast.dump(n) == want
    ]
    if len(hits) != 1:
        raise MutantError(f"{len(hits)} nodes `{mutant.node}` in {mutant.scope}, not one")
    node = hits[0]
    assert isinstance(node, (ast.expr, ast.stmt))
    end_line, end_col = node.end_lineno, node.end_col_offset
    assert end_line is not None and end_col is not None
    lines = source.splitlines(keepends=True)
    return (
        _offset(lines, node.lineno, node.col_offset),
        _offset(lines, end_line, end_col),
        node,
    )


def mutate(source: str, mutant: Mutant) -> str:
    """``source`` with the mutant applied; the result must parse and differ as a tree."""
    start, end, node = locate(source, mutant)
    new = textwrap.dedent(mutant.new).strip()
    if isinstance(node, ast.expr):
        new = f"({new})"
    else:  # a statement: later lines take the statement's own indentation
        line_start = source.rfind("\n", 0, start) + 1
        indent = source[line_start:start]
        new = new.replace("\n", "\n" + indent)
    mutated = source[:start] + new + source[end:]
    try:
        changed = ast.dump(ast.parse(mutated)) != ast.dump(ast.parse(source))
    except SyntaxError as exc:
        raise MutantError(f"the mutated file does not parse: {exc}") from None
    if not changed:
        raise MutantError("the replacement leaves the syntax tree unchanged")
    return mutated


# -- running tests on copies ------------------------------------------------------------
def _copy(into: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache")
    shutil.copytree(ROOT / "sscbench", into / "sscbench", ignore=ignore)
    shutil.copytree(ROOT / "tests", into / "tests", ignore=ignore)
    shutil.copy(ROOT / "pyproject.toml", into / "pyproject.toml")


def _clone(base: Path, into: Path, mutant: Mutant, mutated: str) -> None:
    """A copy of ``base`` made of hard links, with the mutated file written afresh."""
    shutil.copytree(
        base,
        into,
        copy_function=os.link,
        ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"),
    )
    target = into / mutant.path
    target.unlink()  # never write through a link into the base copy
    target.write_text(mutated, encoding="utf-8")


def _pytest(copy: Path, tests: Iterable[str], *, stop_first: bool = True) -> int:
    """pytest's exit status on ``tests`` of ``copy`` (the copy first on the path)."""
    env = {**os.environ, "PYTHONPATH": str(copy), "PYTHONDONTWRITEBYTECODE": "1"}
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests]
    if stop_first:
        cmd.insert(4, "-x")
    try:
        proc = subprocess.run(
            cmd,
            cwd=copy,
            env=env,
            capture_output=True,
            text=True,
            check=False,
            timeout=TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        return PYTEST_FAILED  # a mutant that hangs the tests is noticed: killed
    if proc.returncode not in (0, PYTEST_FAILED):
        tail = (proc.stdout + proc.stderr).strip().splitlines()[-5:]
        raise MutantError(f"pytest exited {proc.returncode}: " + " | ".join(tail))
    return proc.returncode


def _imports_from(copy: Path) -> bool:
    env = {**os.environ, "PYTHONPATH": str(copy)}
    code = "import sscbench, sys; sys.stdout.write(sscbench.__file__)"
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return Path(out).resolve().is_relative_to(copy.resolve())


def mutated_sources() -> list[str]:
    """Every mutant applied to the working tree's source (raises on the first that fails)."""
    out = []
    for i, mutant in enumerate(MUTANTS, 1):
        source = (ROOT / mutant.path).read_text(encoding="utf-8")
        try:
            mutated = mutate(source, mutant)
            compile(mutated, mutant.path, "exec")
        except MutantError as exc:
            raise MutantError(f"mutant {i} {mutant.name!r} ({mutant.path}): {exc}") from None
        out.append(mutated)
    return out


@dataclass(frozen=True)
class Outcome:
    """One mutant's result."""

    mutant: Mutant
    killed: bool
    seconds: float


def _run_one(base: Path, i: int, mutant: Mutant, mutated: str, tests: tuple[str, ...]) -> Outcome:
    started = time.perf_counter()
    copy = base.parent / f"m{i}"
    _clone(base, copy, mutant, mutated)
    try:
        killed = _pytest(copy, tests) == PYTEST_FAILED
    finally:
        shutil.rmtree(copy, ignore_errors=True)
    return Outcome(mutant, killed, time.perf_counter() - started)


def _children_usage() -> tuple[float, float]:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def _module(path: str) -> str:
    return "audit" if path.startswith("sscbench/audit/") else "grading"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--smoke", action="store_true", help="locate every mutant; run killers")
    parser.add_argument("--jobs", type=int, default=2, help="mutants tested at once")
    args = parser.parse_args()
    started = time.perf_counter()
    try:
        sources = mutated_sources()
    except MutantError as exc:
        print(f"mutation: {exc}; update the mutant to the code as it is now", file=sys.stderr)
        return 2
    print(f"located and compiled all {len(MUTANTS)} mutants")
    with tempfile.TemporaryDirectory(prefix="sscbench-mutation-") as tmp:
        base = Path(tmp) / "base"
        _copy(base)
        if not _imports_from(base):
            print("mutation: the copy's sscbench is not the one imported", file=sys.stderr)
            return 2
        killers = sorted({t for m in MUTANTS for t in m.killed_by})
        baseline = killers if args.smoke else list(TESTS)
        if _pytest(base, baseline, stop_first=False) != 0:
            print("mutation: the unmutated copy fails its tests; fix them first", file=sys.stderr)
            return 2
        jobs = [
            (i, m, src, m.killed_by if args.smoke else TESTS)
            for i, (m, src) in enumerate(zip(MUTANTS, sources, strict=True))
        ]
        try:
            with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
                outcomes = list(pool.map(lambda j: _run_one(base, *j), jobs))
        except MutantError as exc:
            print(f"mutation: {exc}", file=sys.stderr)
            return 2
    for o in outcomes:
        print(f"{'killed  ' if o.killed else 'SURVIVED'} {o.mutant.path}: {o.mutant.name}")
    cpu, peak = _children_usage()
    seconds = time.perf_counter() - started
    survivors = [o.mutant.name for o in outcomes if not o.killed]
    if args.smoke:
        print(
            f"\nsmoke: {len(outcomes) - len(survivors)}/{len(outcomes)} mutants killed by "
            f"their named tests in {seconds:.0f} s"
        )
        if survivors:
            print("not killed by their named tests: " + "; ".join(survivors), file=sys.stderr)
        return 1 if survivors else 0
    return _summarise(outcomes, args.out, seconds, cpu, peak)


def _summarise(outcomes: list[Outcome], out: Path, seconds: float, cpu: float, peak: float) -> int:
    by_module: dict[str, list[int]] = {}
    by_origin: dict[str, list[int]] = {}
    for o in outcomes:
        for table, key in ((by_module, o.mutant.path), (by_origin, o.mutant.origin)):
            counts = table.setdefault(key, [0, 0])
            counts[0] += o.killed
            counts[1] += 1
    killed = sum(o.killed for o in outcomes)
    rate = killed / len(outcomes)
    print("\n| module | killed | mutants |\n|---|---|---|")
    for module, (k, n) in by_module.items():
        print(f"| {module} | {k} | {n} |")
    print("\n| origin | killed | mutants |\n|---|---|---|")
    for origin, (k, n) in by_origin.items():
        print(f"| {origin} | {k} | {n} |")
    print(
        f"\nkill rate: {killed}/{len(outcomes)} = {rate:.1%} (target ≥ {TARGET:.0%}); "
        f"{seconds:.0f} s wall, {cpu:.0f} s CPU, largest test process {peak:.0f} MiB"
    )
    summary = {
        "tests": list(TESTS),
        "killed": killed,
        "mutants": len(outcomes),
        "kill_rate": round(rate, 4),
        "by_module": {m: {"killed": k, "mutants": n} for m, (k, n) in by_module.items()},
        "by_origin": {m: {"killed": k, "mutants": n} for m, (k, n) in by_origin.items()},
        "seconds": round(seconds, 1),
        "cpu_seconds": round(cpu, 1),
        "peak_rss_mib": round(peak),
        "results": [
            {
                "mutant": o.mutant.name,
                "module": o.mutant.path,
                "area": _module(o.mutant.path),
                "scope": o.mutant.scope,
                "origin": o.mutant.origin,
                "killed": o.killed,
                "seconds": round(o.seconds, 1),
            }
            for o in outcomes
        ],
    }
    out.write_text(json.dumps(summary, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0 if rate >= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
