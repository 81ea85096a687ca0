#!/usr/bin/env python
"""Whole commands measured from outside, this tree against a baseline commit, side by side.

* ``sscbench demo`` on the shipped case set: CPU seconds (user + system of the process),
  peak RSS, and whether its report, labels and oracle files are byte-identical to the
  baseline's (the figures and tables must not change when only speed does);
* a cold ``sscbench reconstruct`` of the demo's ledgers (no ``labels.jsonl``; a fresh
  process, imports included): ledgers per CPU-second and peak RSS, labels compared byte
  for byte with the baseline's.

The baseline is ``git archive REF`` unpacked into a temporary directory and run with this
venv (``PYTHONPATH``), so both sides share every installed package. Runs alternate
baseline / current, so that the load of this shared machine hits both alike; CPU time is
per process (``os.wait4``), not wall time.

Both sides' modules are byte-compiled before anything is timed (the baseline's unpacked
tree has no ``__pycache__``, and compiling it on every run would charge the baseline for
what no installed copy pays).

``python benchmarks/commands.py [--baseline REF] [--rounds N]`` writes
``benchmarks/commands-results.json``. ``--runs DIR`` skips the demo and times only the
cold reconstruct of the ledgers under ``DIR`` (an earlier demo's ``runs/demo``), written
to ``--out`` (``benchmarks/commands-reconstruct-results.json`` by convention).
"""

from __future__ import annotations

import argparse
import filecmp
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
OUT = HERE / "commands-results.json"
COMPARED = ("report", "labels.jsonl", "oracle_eval")
"""What the demo writes from its runs (the ledgers themselves carry wall-clock stamps)."""


def unpack(ref: str, into: Path) -> Path:
    """The ``sscbench`` package of commit ``ref``, unpacked under ``into``, with the
    distribution metadata of that commit's ``pyproject.toml`` beside it.

    The venv's installed metadata names this tree's plugin entry points; a baseline that
    predates a plugin module would fail to load it. ``importlib.metadata`` keeps the first
    distribution of a name on the path, so the baseline's own metadata, first on
    ``PYTHONPATH``, is the one its registry reads.
    """
    data = subprocess.run(
        ["git", "-C", str(ROOT), "archive", ref, "sscbench"], check=True, capture_output=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    pyproject = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{ref}:pyproject.toml"], check=True, capture_output=True
    ).stdout
    project = tomllib.loads(pyproject.decode())["project"]
    info = into / f"sscbench-{project['version']}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: sscbench\nVersion: {project['version']}\n"
    )
    groups = dict(project.get("entry-points", {}))
    if "scripts" in project:
        groups["console_scripts"] = project["scripts"]
    (info / "entry_points.txt").write_text(
        "".join(
            f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in eps.items()) + "\n"
            for group, eps in groups.items()
        )
    )
    return into


def compile_tree(path: Path) -> None:
    """Byte-compile ``path`` (quietly) so that no timed run compiles a module."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(path)], check=True)


def timed(argv: list[str], cwd: Path, pythonpath: Path | None) -> dict[str, float]:
    """CPU seconds, wall seconds and peak RSS (MiB) of one child process."""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTHONPATH", None)
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {proc.returncode} in {cwd}")
    return {
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "wall_s": time.perf_counter() - t0,
        "peak_rss_mib": usage.ru_maxrss / 1024,
    }


def same_tree(a: Path, b: Path) -> bool:
    """Whether two files or directory trees hold the same names and bytes."""
    if a.is_file() or b.is_file():
        return a.is_file() and b.is_file() and filecmp.cmp(a, b, shallow=False)
    cmp = filecmp.dircmp(a, b)
    if cmp.left_only or cmp.right_only or cmp.funny_files:
        return False
    _, mismatch, errors = filecmp.cmpfiles(a, b, cmp.common_files, shallow=False)
    return not mismatch and not errors and all(same_tree(a / d, b / d) for d in cmp.common_dirs)


def demo(side: str, where: Path, pythonpath: Path | None) -> dict[str, float]:
    """One ``sscbench demo`` into a fresh directory, with the number of runs it made.

    The demo has grown since the issue's figures (more agents' clean runs, mitigations,
    telecom), so a baseline from then runs fewer runs: CPU per run is what compares.
    """
    work = where / side
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    out = timed([sys.executable, "-m", "sscbench", "demo", "--out", "demo"], work, pythonpath)
    out["runs"] = sum(1 for _ in work.rglob("ledger.jsonl"))
    out["cpu_ms_per_run"] = 1000 * out["cpu_s"] / max(out["runs"], 1)
    return out


def reconstruct(source: Path, work: Path, pythonpath: Path | None) -> dict[str, float]:
    """One cold ``sscbench reconstruct`` of a copy of ``source`` (its labels removed)."""
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(source, work, ignore=shutil.ignore_patterns("labels.*", "report", "oracle_*"))
    return timed([sys.executable, "-m", "sscbench", "reconstruct", str(work)], work, pythonpath)


def summary(runs: list[dict[str, float]], ledgers: int | None = None) -> dict[str, Any]:
    """Median CPU seconds (and ledgers per CPU-second), peak RSS, every run."""
    cpu = sorted(r["cpu_s"] for r in runs)
    per_run = sorted(r["cpu_ms_per_run"] for r in runs if "cpu_ms_per_run" in r)
    out: dict[str, Any] = {
        "cpu_s_median": cpu[len(cpu) // 2],
        "peak_rss_mib_max": max(r["peak_rss_mib"] for r in runs),
        "runs": runs,
    }
    if per_run:
        out["cpu_ms_per_run_median"] = per_run[len(per_run) // 2]
    if ledgers is not None:
        out["ledgers"] = ledgers
        out["ledgers_per_cpu_s"] = ledgers / out["cpu_s_median"]
    return out


def main(argv: list[str] | None = None) -> int:
    """Measure the demo and a cold reconstruct, baseline and current, interleaved."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--baseline", default="main", help="git commit to compare with")
    parser.add_argument("--rounds", type=int, default=2, help="demo runs per side")
    parser.add_argument("--reconstruct-rounds", type=int, default=5)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument(
        "--runs",
        type=Path,
        help="skip the demo; reconstruct the ledgers under this run directory",
    )
    args = parser.parse_args(argv)
    sha = (
        subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", args.baseline], check=True, capture_output=True
        )
        .stdout.decode()
        .strip()
    )
    results: dict[str, Any] = {
        "baseline": {"ref": args.baseline, "commit": sha},
        "current_commit": subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "HEAD"], check=True, capture_output=True
        )
        .stdout.decode()
        .strip(),
        "machine": {"nproc": os.cpu_count(), "loadavg_start": list(os.getloadavg())},
    }
    sides: dict[str, Path | None] = {}
    with tempfile.TemporaryDirectory(prefix="sscbench-commands-") as tmp:
        root = Path(tmp)
        sides = {"baseline": unpack(sha, root / "baseline-src"), "current": None}
        compile_tree(root / "baseline-src" / "sscbench")
        compile_tree(ROOT / "sscbench")
        if args.runs is None:
            demos: dict[str, list[dict[str, float]]] = {s: [] for s in sides}
            for r in range(args.rounds):
                order = list(sides) if r % 2 == 0 else list(reversed(sides))
                for side in order:
                    demos[side].append(demo(side, root / f"r{r}", sides[side]))
                    print(f"[commands] demo {side}: {demos[side][-1]}", file=sys.stderr)
            last = root / f"r{args.rounds - 1}"
            identical = {
                name: same_tree(last / "baseline" / "demo" / name, last / "current" / "demo" / name)
                for name in COMPARED
            }
            source = last / "current" / "demo"
            results["demo"] = {s: summary(v) for s, v in demos.items()}
            results["demo"]["outputs_identical"] = identical
            results["demo"]["cpu_ratio_current_over_baseline"] = (
                results["demo"]["current"]["cpu_s_median"]
                / results["demo"]["baseline"]["cpu_s_median"]
            )
            results["demo"]["cpu_per_run_ratio_current_over_baseline"] = (
                results["demo"]["current"]["cpu_ms_per_run_median"]
                / results["demo"]["baseline"]["cpu_ms_per_run_median"]
            )
        else:
            source = args.runs.resolve()
            results["demo"] = None
        ledgers = sum(1 for _ in source.rglob("ledger.jsonl"))
        recs: dict[str, list[dict[str, float]]] = {s: [] for s in sides}
        labels_same = True
        for r in range(args.reconstruct_rounds):
            order = list(sides) if r % 2 == 0 else list(reversed(sides))
            for side in order:
                recs[side].append(reconstruct(source, root / f"rec-{side}", sides[side]))
                print(f"[commands] reconstruct {side}: {recs[side][-1]}", file=sys.stderr)
            labels_same &= same_tree(
                root / "rec-baseline" / "labels.jsonl", root / "rec-current" / "labels.jsonl"
            )
        if args.reconstruct_rounds > 0:
            results["reconstruct"] = {s: summary(v, ledgers) for s, v in recs.items()}
            results["reconstruct"]["labels_identical"] = labels_same
        else:
            results["reconstruct"] = None
    results["machine"]["loadavg_end"] = list(os.getloadavg())
    print(render(results))
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    return 0


def render(results: dict[str, Any]) -> str:
    """The markdown table of a run."""
    d, r, m = results["demo"], results["reconstruct"], results["machine"]
    lines = [
        f"baseline {results['baseline']['ref']} ({results['baseline']['commit'][:10]}) vs "
        f"current {results['current_commit'][:10]}; loadavg "
        f"{m['loadavg_start'][0]:.2f} / {m['loadavg_end'][0]:.2f}",
        "",
        "| command | side | CPU s (median) | peak RSS MiB | throughput |",
        "|---|---|---:|---:|---:|",
    ]
    for side in ("baseline", "current") if d else ():
        runs = d[side]["runs"][-1].get("runs", 0)
        per_run = d[side].get("cpu_ms_per_run_median")
        rate = f"{runs:,} runs, {per_run:.2f} CPU ms/run" if per_run is not None else ""
        lines.append(
            f"| `sscbench demo` | {side} | {d[side]['cpu_s_median']:.1f} | "
            f"{d[side]['peak_rss_mib_max']:.0f} | {rate} |"
        )
    for side in ("baseline", "current") if r else ():
        lines.append(
            f"| cold `sscbench reconstruct` ({r[side]['ledgers']} ledgers) | {side} | "
            f"{r[side]['cpu_s_median']:.2f} | {r[side]['peak_rss_mib_max']:.0f} | "
            f"{r[side]['ledgers_per_cpu_s']:.0f} ledgers/CPU-s |"
        )
    labels = "not timed" if not r else "byte-identical" if r["labels_identical"] else "DIFFERENT"
    if d:
        outputs = d["outputs_identical"].items()
        same = ", ".join(f"{k} {'same' if v else 'DIFFERENT'}" for k, v in outputs)
        lines += ["", f"Demo outputs, current vs baseline: {same}; reconstruct labels {labels}."]
    else:
        lines += ["", f"Reconstruct labels, current vs baseline: {labels}."]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
