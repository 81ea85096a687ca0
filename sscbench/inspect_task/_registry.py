"""What Inspect loads through SSCBench's ``inspect_ai`` entry point: the tasks
(``sscbench/adoption``, ``sscbench/clean``) and the ``sscbench`` model provider."""

from sscbench.inspect_task.offline import use_bundled_tokenizers
from sscbench.inspect_task.scripted_model import sscbench_models
from sscbench.inspect_task.tasks import adoption, clean

use_bundled_tokenizers()

__all__ = ["adoption", "clean", "sscbench_models"]
