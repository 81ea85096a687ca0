"""Paired interface checks: the same case, configuration and repetition, run on the main
interface and under one interface variant, compared pair by pair.

An experiment with ``[checks] paired = ["read_back_hint", "aligned"]`` runs every applicable
case twice (docs/experiments.md). The variant runs are not part of the main population; here
they are matched to their main-interface twins by (case, configuration, seed) and counted:

* ``read_back_hint`` (WriteEffect): the write tools' descriptions ask the agent to read the
  reservation back. *Read-back* is a run whose refutation arrived (``T_E`` found: for a
  suppressed write, only a read of the reservation refutes the claimed success).
* ``aligned`` (ItemOption, WriteEffect): the authoritative source is rewritten to agree with
  ``v′``, so no refutation can arrive; adoption under alignment is the ceiling the
  contradiction is measured against.

A pair counts when both runs were observed and triggered; adoption is compared on the pairs
where both runs have a decided ``A``, with the discordant pairs (adopted on one side only)
given apart, because a paired comparison rests on them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from sscbench.analysis.population import harness_error
from sscbench.analysis.results import PairedRow
from sscbench.fault_contracts.variants import ARRIVAL_TAG, split_variants
from sscbench.reconstruct.labels import LabelView

POOLED = "all"

Key = tuple[str, str, int]
"""(base case id, configuration, seed)."""


def _usable(label: LabelView | None) -> bool:
    return (
        label is not None
        and label.finished
        and not harness_error(label)
        and label.triggered is True
    )


def _read_back(label: LabelView) -> bool:
    return label.t_e.status == "found"


def paired_rows(labels: Iterable[LabelView]) -> tuple[PairedRow, ...]:
    """One row per (check, operator, configuration), plus a pooled row per (check,
    operator), for every variant present among ``labels``."""
    main: dict[Key, LabelView] = {}
    varied: dict[str, dict[Key, LabelView]] = defaultdict(dict)
    for label in labels:
        if label.case_id is None or label.operator is None:
            continue
        base, variants = split_variants(label.case_id)
        key = (base, label.configuration or label.agent, label.seed)
        if not variants:
            main[key] = label
        elif len(variants) == 1 and not variants[0].startswith(ARRIVAL_TAG):  # see arrival.py
            varied[variants[0]][key] = label
    groups: dict[tuple[str, str, str], list[tuple[LabelView, LabelView]]] = defaultdict(list)
    for check, runs in varied.items():
        for key, other in runs.items():
            first = main.get(key)
            if first is None or not (_usable(first) and _usable(other)):
                continue
            assert first.operator is not None
            for configuration in (key[1], POOLED):
                groups[(check, first.operator, configuration)].append((first, other))
    return tuple(
        _row(check, op, conf, pairs) for (check, op, conf), pairs in sorted(groups.items())
    )


def _row(
    check: str, operator: str, configuration: str, pairs: list[tuple[LabelView, LabelView]]
) -> PairedRow:
    decided = [(a, b) for a, b in pairs if a.adopted is not None and b.adopted is not None]
    return PairedRow(
        check=check,
        operator=operator,
        configuration=configuration,
        pairs=len(pairs),
        read_back_main=sum(_read_back(a) for a, _ in pairs),
        read_back_variant=sum(_read_back(b) for _, b in pairs),
        adoption_pairs=len(decided),
        adopted_main=sum(a.adopted is True for a, _ in decided),
        adopted_variant=sum(b.adopted is True for _, b in decided),
        adopted_main_only=sum(a.adopted is True and b.adopted is False for a, b in decided),
        adopted_variant_only=sum(a.adopted is False and b.adopted is True for a, b in decided),
    )
