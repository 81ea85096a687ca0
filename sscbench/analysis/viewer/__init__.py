"""The trajectory viewer for run sets of any size.

An index page holds one short row per run and filters them (configuration, operator, case,
arrival class, adoption, free text); a run's numbered model-visible history, with its event
times marked, is loaded from its shard script file (256 runs a file) only when it is
opened. Everything works from disk (``file://``), with no server and nothing fetched from
anywhere else.

* :mod:`.marks` — what is marked on a run (shared with ``sscbench show``);
* :mod:`.runfiles` — each run's payload, made while the ledgers stream past;
* :mod:`.shards` — the payloads paged into shard files, each string once a shard;
* :mod:`.index` — the index rows and the filters;
* :mod:`.assets` — the page's style and script.
"""

from sscbench.analysis.viewer.assets import VIEWER_CSS, VIEWER_SCRIPT
from sscbench.analysis.viewer.index import run_order, viewer_section
from sscbench.analysis.viewer.marks import StepMarks, slug, step_marks
from sscbench.analysis.viewer.runfiles import (
    RunFiles,
    load_ledgers,
    model_of,
    run_payload,
    write_run_files,
)
from sscbench.analysis.viewer.shards import RUNS_DIR, read_shard, run_file, shard_count

__all__ = [
    "RUNS_DIR",
    "VIEWER_CSS",
    "VIEWER_SCRIPT",
    "RunFiles",
    "StepMarks",
    "load_ledgers",
    "model_of",
    "read_shard",
    "run_file",
    "run_order",
    "run_payload",
    "shard_count",
    "slug",
    "step_marks",
    "viewer_section",
    "write_run_files",
]
