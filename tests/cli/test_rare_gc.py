"""The batch commands' collector policy: rare young collections inside, the caller's
thresholds after, and nothing frozen that was already garbage."""

from __future__ import annotations

import gc
import weakref

import pytest

from sscbench.cli.rare_gc import YOUNG_THRESHOLD, rare_collections


class _Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the cyclic collector frees it


def test_thresholds_inside_and_restored_after_even_on_error() -> None:
    before = gc.get_threshold()
    with rare_collections():
        assert gc.get_threshold() == (YOUNG_THRESHOLD, *before[1:])
    assert gc.get_threshold() == before
    with pytest.raises(RuntimeError), rare_collections():
        raise RuntimeError("boom")
    assert gc.get_threshold() == before


def test_garbage_existing_at_entry_is_collected_not_frozen() -> None:
    gc.disable()  # keep the cycle uncollected until the block's own collection
    try:
        node = _Node()
        gone = weakref.ref(node)
        del node
        assert gone() is not None  # garbage, not yet collected
        with rare_collections():
            assert gone() is None
    finally:
        gc.enable()


def test_what_is_alive_at_entry_is_frozen_out_of_passes() -> None:
    alive = _Node()
    frozen = gc.get_freeze_count()
    with rare_collections():
        assert gc.get_freeze_count() > frozen
    assert gc.is_tracked(alive)


def test_a_decorated_handler_runs_collecting_rarely() -> None:
    from sscbench.cli import demo, oracles, report, run
    from sscbench.cli.rare_gc import collecting_rarely

    seen: list[tuple[int, ...]] = []

    @collecting_rarely
    def handler(args: int) -> int:
        seen.append(gc.get_threshold())
        return args + 1

    before = gc.get_threshold()
    assert handler(41) == 42
    assert seen == [(YOUNG_THRESHOLD, *before[1:])]
    assert gc.get_threshold() == before
    for batch in (demo.handle, report.handle, run.handle, oracles.handle_evaluate):
        assert getattr(batch, "__wrapped__", None) is not None, batch.__module__
