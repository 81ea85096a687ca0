"""The tool-editing mechanism shared by the tool-contract mutants and the defect operators."""

from __future__ import annotations

import pytest

from sscbench.envs import load_domain
from sscbench.envs.tool_edit import SourceEdit, apply_edits, cached_subclass, edited_subclass
from sscbench.errors import ConfigError

SOURCE = """def f(x):
    if x < 0:
        raise ValueError("negative")
    total = sum(
        [x, x]
    )
    return total
"""


def test_edits_are_line_anchored_and_keep_the_source_compilable() -> None:
    deleted = apply_edits(SOURCE, (SourceEdit(op="delete", line="total = sum("),), "t")
    assert "    pass\n" in deleted and "[x, x]" not in deleted
    guarded = apply_edits(SOURCE, (SourceEdit(op="disable_guard", line="if x < 0:"),), "t")
    replaced = apply_edits(
        SOURCE, (SourceEdit(op="replace", line="return total", text="return -1"),), "t"
    )
    for text in (deleted, guarded, replaced):
        compile(text, "<t>", "exec")
    namespace: dict[str, object] = {}
    exec(guarded, namespace)
    assert namespace["f"](-1) == -2  # type: ignore[operator]


def test_an_anchor_must_match_exactly_one_line() -> None:
    with pytest.raises(ConfigError, match="matches 2 lines"):
        apply_edits(SOURCE + SOURCE, (SourceEdit(op="delete", line="return total"),), "t")
    with pytest.raises(ConfigError, match="matches 0 lines"):
        apply_edits(SOURCE, (SourceEdit(op="delete", line="return x"),), "t")


def test_an_edited_toolkit_subclasses_the_shipped_one_and_is_compiled_once() -> None:
    base = load_domain("retail").toolkit_class
    edits = (SourceEdit(op="disable_guard", line='if order.status != "pending":'),)
    cls = edited_subclass(base, "cancel_pending_order", edits, "t")
    assert issubclass(cls, base) and cls.cancel_pending_order is not base.cancel_pending_order
    first = cached_subclass(base, "cancel_pending_order", edits, "t")
    assert cached_subclass(base, "cancel_pending_order", edits, "t") is first
