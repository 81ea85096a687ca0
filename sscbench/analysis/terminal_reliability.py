"""Task success under fault and pass^k on the terminal: the report's numbers, pooled over
operators per configuration (the per-operator rows are in ``analysis.json`` and the report)."""

from __future__ import annotations

from rich.table import Table

from sscbench.analysis.mitigation_cost import tokens_text, usd_text
from sscbench.analysis.results import ALL_OPERATORS, AnalysisResult, Interval, PassKRow, Rate
from sscbench.terminal import compact_table


def share(rate: Rate) -> str:
    """``0.42`` over ``12/52`` (two short lines), or ``–`` on 0/0."""
    if rate.value is None:
        return "–"
    return f"{rate.value:.2f}\n{rate.numerator}/{rate.denominator}"


def signed(value: float | None, interval: Interval) -> str:
    """``-0.25 [-0.40, -0.10]``, or ``–`` with no pairs."""
    if value is None:
        return "–"
    if interval.low is None or interval.high is None:
        return f"{value:+.2f}"
    return f"{value:+.2f}\n[{interval.low:+.2f}, {interval.high:+.2f}]"


def domain_table(result: AnalysisResult) -> Table | None:
    """Per configuration and τ² domain, adoption with every operator of the domain pooled
    (only when the runs span more than one domain)."""
    if not result.domains:
        return None
    table = compact_table(
        "adoption by arrival per τ² domain, every operator of the domain pooled",
        ("configuration", "domain", "trig.", "A_T", "A_P", "before", "after", "absent"),
    )
    for r in result.domains:
        table.add_row(
            r.configuration,
            r.domain,
            str(r.triggered),
            *(share(x) for x in (r.a_t, r.a_p, r.a_before, r.a_after, r.a_absent)),
        )
    return table


def channel_table(result: AnalysisResult) -> Table | None:
    """Per operator × configuration and channel, the refuted runs before and after their
    first dependent use (only when some refutation came through the user)."""
    if not result.channels:
        return None
    table = compact_table(
        "how the refutation reached the agent: a tool observation, or the user relaying a "
        "device reading",
        ("operator", "configuration", "channel", "before", "after"),
    )
    for r in result.channels:
        table.add_row(r.operator, r.configuration, r.channel, str(r.before), str(r.after))
    return table


def task_success_table(result: AnalysisResult) -> Table | None:
    """Per configuration, every operator pooled: clean and faulted success on the pairs,
    their difference, and faulted success by adoption and by arrival stratum."""
    rows = [r for r in result.task_success if r.operator == ALL_OPERATORS]
    if not rows:
        return None
    table = compact_table(
        "task success (τ² reward) under fault beside the same task's clean run, every "
        "operator pooled;\nfaulted success by adoption and by arrival stratum",
        (
            "configuration",
            "pairs",
            "clean",
            "fault",
            "fault − clean",
            "adopted",
            "not adopted",
            "before",
            "after",
            "absent",
        ),
        left=("configuration",),
    )
    for row in rows:
        table.add_row(
            row.configuration,
            str(row.pairs),
            share(row.clean),
            share(row.fault_paired),
            signed(row.difference, row.difference_interval),
            share(row.fault_adopted),
            share(row.fault_not_adopted),
            share(row.fault_before),
            share(row.fault_after),
            share(row.fault_absent),
        )
    return table


def _cell(row: PassKRow | None) -> str:
    if row is None or row.value is None:
        return "–"
    low, high = row.interval.low, row.interval.high
    ci = "" if low is None or high is None else f" [{low:.2f}, {high:.2f}]"
    return f"{row.value:.2f}\n{ci.strip()}"


def pass_k_table(result: AnalysisResult) -> Table | None:
    """Per configuration: pass^k clean and under fault, and adoption^k, for each k."""
    pooled = [r for r in result.pass_k if r.operator == ALL_OPERATORS]
    if not pooled:
        return None
    ks = sorted({r.k for r in pooled})
    index: dict[tuple[str, str, str, int], PassKRow] = {
        (r.metric, r.condition, r.configuration, r.k): r for r in pooled
    }
    columns = ["configuration"]
    for label in ("clean pass^", "fault pass^", "adoption^"):
        columns += [f"{label}{k}" for k in ks]
    table = compact_table(
        "trial reliability, every operator pooled: pass^k (all k trials solved) and\n"
        "adoption^k (all k repetitions avoid adoption), 95% intervals",
        columns,
        left=("configuration",),
    )
    for configuration in sorted({r.configuration for r in pooled}):
        cells = [configuration]
        for metric, condition in (
            ("success", "clean"),
            ("success", "fault"),
            ("no_adoption", "fault"),
        ):
            cells += [_cell(index.get((metric, condition, configuration, k))) for k in ks]
        table.add_row(*cells)
    return table


def mitigation_table(result: AnalysisResult) -> Table | None:
    """Per configuration and mitigation, every operator pooled: adoption, task success and
    steps without and with it on the same cases and seeds, the paired differences."""
    rows = [r for r in result.mitigations if r.operator == ALL_OPERATORS]
    if not rows:
        return None
    table = compact_table(
        "mitigations, every operator pooled: without → with on the same cases and seeds,\n"
        "with − without and its 95% paired interval (adopted on one side only: without/with)",
        (
            "configuration",
            "mitigation",
            "adopted",
            "Δ adoption",
            "one side",
            "solved",
            "Δ success",
            "steps",
            "Δ steps",
            "tokens",
            "USD",
        ),
        left=("configuration", "mitigation"),
    )
    for row in rows:
        steps = (
            "–"
            if row.steps_without is None or row.steps_with is None
            else f"{row.steps_without:.1f}\n→ {row.steps_with:.1f}"
        )
        table.add_row(
            row.configuration,
            row.mitigation,
            f"{_short(row.adopted_without)}\n→ {_short(row.adopted_with)}",
            signed(row.adoption_difference, row.adoption_interval),
            f"{row.adopted_without_only}/{row.adopted_with_only}",
            f"{_short(row.success_without)}\n→ {_short(row.success_with)}",
            signed(row.success_difference, row.success_interval),
            steps,
            "–" if row.steps_difference is None else f"{row.steps_difference:+.1f}",
            tokens_text(row).replace(" (", "\n("),
            usd_text(row).replace(" (", "\n("),
        )
    return table


def _short(rate: Rate) -> str:
    return "–" if rate.value is None else f"{rate.value:.2f}"


def reliability_tables(result: AnalysisResult) -> list[Table]:
    """The tables this result has (none when it was analysed without clean outcomes or
    mitigated configurations)."""
    tables = (
        domain_table(result),
        channel_table(result),
        task_success_table(result),
        pass_k_table(result),
        mitigation_table(result),
    )
    return [t for t in tables if t is not None]
