"""SSCBench inside Inspect AI: the tasks, the run behind each sample, the tools for any
Inspect agent, the scorer and its metrics, and the export of runs as Inspect logs.

``pip install 'sscbench[inspect]'`` registers the tasks with Inspect (no file to copy):
``inspect eval sscbench/adoption --model … -T operator=write_effect``. See docs/inspect.md.
"""

from sscbench.inspect_task.offline import use_bundled_tokenizers
from sscbench.inspect_task.scorer import reconstruction, task_success
from sscbench.inspect_task.solver import sscbench_episode, tau2_agent
from sscbench.inspect_task.tasks import adoption, clean
from sscbench.inspect_task.tools import sscbench_tools

use_bundled_tokenizers()

__all__ = [
    "adoption",
    "clean",
    "reconstruction",
    "sscbench_episode",
    "sscbench_tools",
    "task_success",
    "tau2_agent",
]
