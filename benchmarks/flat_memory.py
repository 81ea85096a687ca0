"""Peak memory of ``sscbench reconstruct``, ``report`` and ``oracles evaluate`` against the
number of runs: 1k / 10k / 100k, and the exponent b of peak RSS ≈ a·N^b.

Each size is one seeded synthetic run set — the generator of ``report_scale.py`` (labels
and one small valid ledger per run over the shipped case set's real fault contracts),
with, for each faulted run, a hidden log confirming one fault delivery and a scripted
agent's truth file naming one use, so ``oracles evaluate`` has faulted runs to score
against the truth stand-in. The three commands then run on it in order, each in its own
child process (peak RSS as ``/usr/bin/time`` reports it): ``reconstruct`` (rewrites
``labels.jsonl`` and its run-set record), ``report --viewer link`` and ``oracles
evaluate``. The report folder's size and file count are recorded beside it.

    .venv/bin/python benchmarks/flat_memory.py                      # 1k, 10k, 100k
    .venv/bin/python benchmarks/flat_memory.py --sizes 1000,10000   # quicker
    .venv/bin/python benchmarks/flat_memory.py --only reconstruct   # one command

Writes ``benchmarks/flat-memory-results.json`` (``--out`` elsewhere). The 100k set takes a
few GB of disk and several minutes; it is deleted afterwards unless ``--keep``, and
``--reuse --work DIR`` measures the sets a ``--keep --work DIR`` run left there.
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
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from report_scale import _generate, _slope  # the same synthetic run sets

from sscbench.reconstruct.labels import read_labels
from sscbench.runs.episode import HIDDEN_FILE, LEDGER_FILE, TRUTH_FILE
from sscbench.user_files import find_files

RESULTS = Path(__file__).with_name("flat-memory-results.json")
COMMANDS: dict[str, list[str]] = {
    "reconstruct": ["reconstruct", "{root}"],
    "report": ["report", "{root}", "--viewer", "link"],
    "oracles": ["oracles", "evaluate", "{root}"],
}
TARGET_MIB = 250
GENERATED = "flat-memory-set.json"  # marks a finished run set, so that --reuse can trust it
TIME = "/usr/bin/time"
PYTHON_M = (sys.executable, "-m", "sscbench.cli.main")


def _add_hidden_and_truth(root: Path) -> int:
    """For every faulted run (header carries a fault): a hidden log with one effective
    fault delivery at the labelled ``T_F`` (or step 3) and a truth file with one operative
    use two steps later. Returns how many runs got them."""
    labels = {label.run_id: label for label in read_labels(root / "labels.jsonl")}
    done = 0
    for path in find_files(root, LEDGER_FILE):
        with path.open("rb") as fh:
            header = json.loads(fh.readline())
        fault = header.get("fault")
        if not fault:
            continue
        label = labels[header["run_id"]]
        step = label.t_f.step if label.t_f.step is not None else 3
        delivery = {
            "kind": "fault_delivery",
            "contract_id": fault["contract_id"],
            "step": step,
            "call_id": "c0",
            "tool": "get_details",
            "role": "fault",
            "action": "rewrite",
            "effective": True,
            "control": bool(fault.get("control")),
        }
        target = fault["target"]
        use = {
            "kind": "fact_use",
            "step": step + 2,
            "entity_type": target["entity_type"],
            "entity_id": target["entity_id"],
            "path": target["paths"][0],
            "value": fault.get("injected_value"),
            "source_step": step,
            "use": "mention",
            "operative": True,
        }
        (path.parent / HIDDEN_FILE).write_text(json.dumps(delivery) + "\n", encoding="utf-8")
        (path.parent / TRUTH_FILE).write_text(json.dumps(use) + "\n", encoding="utf-8")
        done += 1
    return done


def _run(command: str, root: Path) -> dict[str, float]:
    """Wall seconds, CPU seconds and peak RSS (MiB) of one command on ``root``.

    Measured by ``/usr/bin/time``, not this process's ``wait4``: a child's ``ru_maxrss``
    counts the pages it shared with its parent between fork and exec, so a child of this
    process (which has just written the run set) would inherit this process's size. The
    time program is small, and the command is its child."""
    argv = [a.format(root=root) for a in COMMANDS[command]]
    with tempfile.NamedTemporaryFile("r", suffix=".time") as out:
        started = time.perf_counter()
        child = subprocess.run(
            [TIME, "-f", "%M %U %S", "-o", out.name, *PYTHON_M, *argv],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            check=False,
        )
        wall = time.perf_counter() - started
        fields = out.read().split()[-3:]
    if child.returncode not in (0, 1):  # reconstruct exits 1 when a run could not be labelled
        err = child.stderr.decode()[-2000:]
        raise SystemExit(f"sscbench {' '.join(argv)} failed ({child.returncode}): {err}")
    kib, user, system = int(fields[0]), float(fields[1]), float(fields[2])
    return {
        "wall_s": round(wall, 1),
        "cpu_s": round(user + system, 1),
        "peak_rss_mib": round(kib / 1024, 1),
    }


def _folder(path: Path) -> tuple[int, float]:
    """Files and MB under ``path``."""
    files, size = 0, 0
    for dirpath, _, names in os.walk(path):
        for name in names:
            files += 1
            size += os.path.getsize(os.path.join(dirpath, name))
    return files, size / 1e6


def main() -> int:
    """Measure every size and command, print the table, write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000", help="comma-separated run counts")
    parser.add_argument("--only", action="append", choices=tuple(COMMANDS), help="repeatable")
    parser.add_argument("--work", type=Path, help="where run sets are written (default: temp)")
    parser.add_argument("--keep", action="store_true", help="keep the run sets")
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="measure run sets already under --work (kept by --keep) instead of writing them",
    )
    parser.add_argument("--out", type=Path, default=RESULTS, help="results JSON")
    args = parser.parse_args()
    commands = args.only or list(COMMANDS)
    work = args.work or Path(tempfile.mkdtemp(prefix="sscbench-flat-memory-"))
    rows: list[dict[str, Any]] = []
    for runs in (int(x) for x in args.sizes.split(",")):
        root = work / f"runs-{runs}"
        done = root / GENERATED
        if args.reuse and done.exists():
            row: dict[str, Any] = json.loads(done.read_text(encoding="utf-8"))
        else:
            shutil.rmtree(root, ignore_errors=True)
            row = {"runs": runs, "generate_s": round(_generate(root, runs), 1)}
            row["faulted_with_truth"] = _add_hidden_and_truth(root)
            done.write_text(json.dumps(row) + "\n", encoding="utf-8")
        for command in commands:
            if "reconstruct" not in commands and not (root / "labels.runs.json").exists():
                _run("reconstruct", root)  # the labels the others read
            row[command] = _run(command, root)
        if "report" in commands:
            files, mb = _folder(root / "report")
            row["report_folder"] = {"files": files, "mb": round(mb, 1)}
        rows.append(row)
        print(json.dumps(row), flush=True)
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    if args.work is None and not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    exponents = {
        command: _slope([(r["runs"], r[command]["peak_rss_mib"]) for r in rows])
        for command in commands
    }
    print()
    print("| runs | " + " | ".join(f"{c} peak RSS MiB (CPU s)" for c in commands) + " |")
    print("|---:|" + "---:|" * len(commands))
    for r in rows:
        cells = [f"{r[c]['peak_rss_mib']:.0f} ({r[c]['cpu_s']:.1f})" for c in commands]
        print(f"| {r['runs']:,} | " + " | ".join(cells) + " |")
    for command, b in exponents.items():
        shown = "–" if b is None else f"{b:.2f}"
        print(f"{command}: peak RSS ∝ N^{shown}")
    args.out.write_text(
        json.dumps({"target_mib": TARGET_MIB, "rows": rows, "rss_exponents": exponents}, indent=1)
        + "\n",
        encoding="utf-8",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
