#!/usr/bin/env python
"""Instructions per scripted episode, this tree against a baseline commit (valgrind).

CPU seconds of one episode (2–4 ms) move by 10–30 % on a shared machine; callgrind's
instruction count does not. Each side runs a fixed workload in a child process, per domain
and kind:

* **clean**: ``run_episode`` with ``scripted:gold`` and the scripted user on the domain's
  first N tasks, a new agent and user per episode (what P8's *ours* arm does);
* **fault**: the domain's first N faulted runs of the demo (the shipped case set × its five
  scripted agents, seed 0) through ``execute_into``, as the engine's workers run them.

Every episode is run once first (plans compiled, caches filled), then the same N episodes
``--passes`` more times. The child runs twice under callgrind, with no extra pass and with
``--passes``; the difference over ``passes × N`` is the instructions of one episode in a
warm process, without the imports and warm-up both runs share.

``python benchmarks/episode_instructions.py --baseline REF [--episodes 20] [--out FILE]``
(about 3 minutes per domain, kind and side on the 2-core development machine).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from commands import ROOT, compile_tree, unpack

CHILD = """
import shutil, sys
from pathlib import Path
from sscbench.agents import make_agent
from sscbench.cases.caseset import load_case_set
from sscbench.cli.demo import DEMO_AGENTS
from sscbench.envs import load_domain
from sscbench.experiments.execute import execute_into, prewarm
from sscbench.experiments.inline import command_line_experiment, fault_runs
from sscbench.runs.episode import EpisodeSpec, run_episode
from sscbench.runs.layout import run_id_for
from sscbench.users import make_user

domain, kind, root = sys.argv[1], sys.argv[2], Path(sys.argv[5])
n, passes = int(sys.argv[3]), int(sys.argv[4])
prewarm(domain)
jobs = []
if kind == "fault":
    cases = load_case_set(None)
    exp = command_line_experiment(
        cases.manifest.name, [(a, {}) for a in DEMO_AGENTS], seeds=range(1), case_set=cases
    )
    runs = [r for r in fault_runs(exp, [c.contract for c in cases.cases]) if r.domain == domain]
    for run in runs[:n]:
        def go(out, r=run):
            execute_into(r, exp.user, exp.records_configuration, out / r.run_id)
        jobs.append(go)
else:
    for task in load_domain(domain).tasks[:n]:
        def go(out, t=task):
            rid = run_id_for(domain, t.id, "scripted:gold", 0)
            spec = EpisodeSpec(domain=domain, task_id=t.id)
            agent, user = make_agent("scripted:gold"), make_user("scripted")
            run_episode(spec, agent, user, out / rid, run_id=rid)
        jobs.append(go)
for p in range(passes + 1):
    for i, job in enumerate(jobs):
        job(root / f"{p}-{i}")
print(len(jobs))
"""


def counted(pythonpath: Path, args: list[str], scratch: Path, log: Path) -> tuple[int, int]:
    """Instructions of one child under callgrind, and how many episodes a pass ran."""
    root = Path(tempfile.mkdtemp(dir=scratch))
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", PYTHONHASHSEED="0")
    env["PYTHONPATH"] = str(pythonpath)
    argv = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={log}"]
    argv += [sys.executable, "-c", CHILD, *args, str(root)]
    try:
        proc = subprocess.run(argv, cwd=scratch, env=env, capture_output=True, text=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    if proc.returncode != 0:
        raise SystemExit(f"child exited {proc.returncode}: {proc.stderr[-600:]}")
    found = re.search(r"Collected : (\d+)", proc.stderr)
    if found is None:
        raise SystemExit(f"callgrind printed no instruction count: {proc.stderr[-400:]}")
    return int(found.group(1)), int(proc.stdout.split()[-1])


def per_episode(
    pythonpath: Path, domain: str, kind: str, n: int, passes: int, scratch: Path
) -> int:
    """Instructions of one warm episode: (with ``passes`` − without) / (``passes`` × N)."""
    log = scratch / f"callgrind.{pythonpath.name}.{domain}.{kind}"
    none, ran = counted(pythonpath, [domain, kind, str(n), "0"], scratch, log)
    more, _ = counted(pythonpath, [domain, kind, str(n), str(passes)], scratch, log)
    return (more - none) // (passes * ran)


def main(argv: list[str] | None = None) -> int:
    """Count both sides for every domain and kind; print and optionally write the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--baseline", default="main", help="git commit to compare with")
    parser.add_argument("--episodes", type=int, default=20, help="episodes per pass")
    parser.add_argument("--passes", type=int, default=2, help="extra passes counted")
    parser.add_argument("--domains", default="airline,retail")
    parser.add_argument("--kinds", default="clean,fault")
    parser.add_argument("--scratch", type=Path, default=Path("/dev/shm"))
    parser.add_argument("--out", type=Path, help="write the results as JSON here")
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (Debian: apt-get install valgrind)")
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(dir=args.scratch) as tmp:
        base = unpack(args.baseline, Path(tmp) / "baseline")
        for tree in (base, ROOT):
            compile_tree(tree / "sscbench")
        for domain in args.domains.split(","):
            for kind in args.kinds.split(","):
                row: dict[str, Any] = {"domain": domain, "kind": kind}
                for side, tree in (("baseline", base), ("current", ROOT)):
                    row[side] = per_episode(
                        tree, domain, kind, args.episodes, args.passes, Path(tmp)
                    )
                row["ratio"] = round(row["current"] / row["baseline"], 4)
                print(json.dumps(row), flush=True)
                rows.append(row)
    if args.out is not None:
        args.out.write_text(json.dumps({"baseline": args.baseline, "rows": rows}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
