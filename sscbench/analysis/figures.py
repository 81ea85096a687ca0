"""Figures of an :class:`AnalysisResult` (matplotlib, SVG, byte-for-byte deterministic).

Three figures, each one panel per operator:

* **adoption by arrival** — per configuration, ``A_T`` (triggered runs), ``A_P`` (analysis
  population ``P``) and ``a_s`` for each arrival stratum (before / after / absent), with 95%
  intervals and the counts *adopted / evaluable / clusters* under every bar. An empty stratum
  keeps its slot, labelled ``0/0/0`` and marked "n/a"; nothing is dropped.
* **reliance gap** — the signed gap ``T_U − T_E`` per adopted run in ``P``, with a separate
  ``∞`` bucket for runs whose refutation never arrived (``T_E = ∞``).
* **q_U** — ``P(T_E < T_U | A=1, P)`` per configuration, with intervals and counts.

Figures are drawn with the object-oriented API (no pyplot, no global backend switch) and
saved as SVG with glyphs as paths, a fixed hash salt and no date, so the same result gives
the same bytes on every machine with the same matplotlib.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import matplotlib
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.transforms import blended_transform_factory

from sscbench.analysis.quantities import POOLED
from sscbench.analysis.results import AdoptionRow, AnalysisResult, Rate, RelianceTimingRow

# Okabe–Ito colours (distinguishable with the common colour-vision deficiencies).
GREY_LIGHT = "#9a9a9a"
GREY_DARK = "#4d4d4d"
BLUE = "#0072B2"
ORANGE = "#E69F00"
VERMILLION = "#D55E00"
GREEN = "#009E73"
PURPLE = "#CC79A7"
SKY = "#56B4E9"
YELLOW = "#F0E442"
CONFIG_COLOURS = (BLUE, ORANGE, GREEN, VERMILLION, PURPLE, SKY, GREY_DARK, YELLOW)

RC: dict[Any, Any] = {
    "svg.hashsalt": "sscbench",
    "svg.fonttype": "path",
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "hatch.linewidth": 0.6,
}
"""rcParams every figure is drawn and saved under (fixed font, fixed SVG ids)."""

SVG_METADATA: dict[str, str | None] = {"Date": None, "Creator": "sscbench"}

GAP_MAX_BUCKETS = 40
"""Above this many distinct integer gaps in a panel, finite gaps are grouped into bins."""


@dataclass(frozen=True)
class Series:
    """One bar per group: a legend label, a colour and how to pick the rate from a row."""

    label: str
    colour: str
    hatch: str | None = None


def counts_label(rate: Rate) -> str:
    """``numerator/denominator/clusters`` — shown under every bar, ``0/0/0`` when empty."""
    return f"{rate.numerator}/{rate.denominator}/{rate.clusters}"


RowT = TypeVar("RowT", AdoptionRow, RelianceTimingRow)


def _by_operator(rows: Sequence[RowT], *, pooled: bool = True) -> dict[str, list[RowT]]:
    """Rows per operator, in the analysis's own order (pooled rows last, or left out)."""
    grouped: dict[str, list[RowT]] = {}
    for row in rows:
        if row.configuration == POOLED and not pooled:
            continue
        grouped.setdefault(row.operator, []).append(row)
    return {
        op: sorted(items, key=lambda r: r.configuration == POOLED) for op, items in grouped.items()
    }


def config_label(configuration: str) -> str:
    """The x label of a configuration (the per-operator pooled row is named as such)."""
    return "all (pooled)" if configuration == POOLED else configuration


def _rate_panel(
    ax: Axes,
    groups: Sequence[str],
    series: Sequence[Series],
    rates: Sequence[Sequence[Rate]],
    title: str,
    ylabel: str = "share (95% interval)",
) -> None:
    """Grouped bars (``rates[group][series]``) with intervals and per-bar counts."""
    n = len(series)
    width = 0.8 / n
    positions = [g - 0.4 + width * (s + 0.5) for g in range(len(groups)) for s in range(n)]
    count_labels = [counts_label(rate) for group_rates in rates for rate in group_rates]
    trans = blended_transform_factory(ax.transData, ax.transAxes)
    # One call per series (not per bar): far fewer artists, much faster to lay out and save.
    for s, spec in enumerate(series):
        xs = [g - 0.4 + width * (s + 0.5) for g in range(len(groups))]
        col = [group_rates[s] for group_rates in rates]
        ax.bar(
            xs,
            [r.value if r.value is not None else 0.0 for r in col],
            width=width * 0.92,
            color=spec.colour,
            hatch=spec.hatch,
            edgecolor="white" if spec.hatch else spec.colour,
            linewidth=0.0,
            label=spec.label,
        )
        valued = [(x, r) for x, r in zip(xs, col, strict=True) if r.value is not None]
        if valued:
            # A tick at each value, so a share of 0 with data differs from an empty slot.
            ax.plot(
                [x for x, _ in valued],
                [r.value or 0.0 for _, r in valued],
                marker="_",
                markersize=max(4.0, 40.0 * width),
                markeredgewidth=2.0,
                color=spec.colour,
                linestyle="none",
            )
        spans = [
            (x, r.value, r.interval.low, r.interval.high)
            for x, r in valued
            if r.value is not None and r.interval.low is not None and r.interval.high is not None
        ]
        if spans:
            ax.errorbar(
                [x for x, _, _, _ in spans],
                [v for _, v, _, _ in spans],
                yerr=[
                    [max(v - lo, 0.0) for _, v, lo, _ in spans],
                    [max(hi - v, 0.0) for _, v, _, hi in spans],
                ],
                fmt="none",
                ecolor="black",
                elinewidth=0.8,
                capsize=2,
            )
        for x, r in zip(xs, col, strict=True):
            if r.value is None:
                ax.text(
                    x,
                    0.02,
                    "n/a",
                    transform=trans,
                    rotation=90,
                    ha="center",
                    va="bottom",
                    fontsize=6,
                    color=GREY_DARK,
                )
    ax.set_ylim(-0.03, 1.05)
    ax.set_xlim(-0.55, len(groups) - 0.45)
    ax.set_ylabel(ylabel)
    ax.set_title(title, loc="left")
    ax.xaxis.remove_overlapping_locs = False  # one bar per group: minor ticks = major ticks
    ax.set_xticks(positions, count_labels, minor=True, rotation=90, fontsize=6)
    ax.tick_params(axis="x", which="minor", length=0, pad=2)
    longest = max((len(c) for c in count_labels), default=0)
    ax.set_xticks(range(len(groups)), list(groups), fontsize=8)
    ax.tick_params(axis="x", which="major", length=0, pad=6 + 3.9 * longest)
    ax.yaxis.grid(True, linewidth=0.4, color="#dddddd")
    ax.set_axisbelow(True)


def _empty_panel(fig: Figure, message: str) -> None:
    ax = fig.add_subplot(1, 1, 1)
    ax.set_axis_off()
    ax.text(0.5, 0.5, message, ha="center", va="center", fontsize=10, color=GREY_DARK)


ADOPTION_SERIES = (
    Series("$A_T$ (triggered runs)", GREY_LIGHT),
    Series("$A_P$ (population $P$)", GREY_DARK),
    Series("$a_s$, refutation before first use", BLUE),
    Series("$a_s$, refutation after first use", ORANGE),
    Series("$a_s$, refutation absent", VERMILLION, hatch="///"),
)


def adoption_figure(result: AnalysisResult) -> Figure:
    """Adoption by arrival: ``A_T``, ``A_P`` and ``a_s`` per stratum, per operator × config."""
    by_op = _by_operator(result.adoption)
    groups_max = max((len(v) for v in by_op.values()), default=1)
    width = max(9.0, 1.0 + groups_max * len(ADOPTION_SERIES) * 0.32)
    fig = Figure(figsize=(width, 0.6 + 3.4 * max(len(by_op), 1)), layout="constrained")
    if not by_op:
        _empty_panel(fig, "no adoption rows in this analysis")
        return fig
    axes = fig.subplots(len(by_op), 1, squeeze=False)
    for ax, (operator, rows) in zip(axes[:, 0], by_op.items(), strict=True):
        _rate_panel(
            ax,
            [config_label(r.configuration) for r in rows],
            ADOPTION_SERIES,
            [[r.a_t, r.a_p, r.a_before, r.a_after, r.a_absent] for r in rows],
            f"{operator} — counts under bars: adopted/evaluable/clusters",
        )
    axes[0, 0].legend(
        loc="lower left", bbox_to_anchor=(0.0, 1.12), ncols=3, fontsize=7, frameon=False
    )
    return fig


def q_u_figure(result: AnalysisResult) -> Figure:
    """``q_U`` per configuration (one panel per operator) with intervals and counts."""
    by_op = _by_operator(result.timing)
    groups_max = max((len(v) for v in by_op.values()), default=1)
    width = max(7.0, 1.5 + groups_max * 0.9)
    fig = Figure(figsize=(width, 0.4 + 3.0 * max(len(by_op), 1)), layout="constrained")
    if not by_op:
        _empty_panel(fig, "no reliance-timing rows in this analysis")
        return fig
    axes = fig.subplots(len(by_op), 1, squeeze=False)
    series = (Series("$q_U$", BLUE),)
    for ax, (operator, rows) in zip(axes[:, 0], by_op.items(), strict=True):
        _rate_panel(
            ax,
            [config_label(r.configuration) for r in rows],
            series,
            [[r.q_u] for r in rows],
            f"{operator} — counts: refuted before reliance/adopted/clusters",
            ylabel="$q_U$ (95% interval)",
        )
    return fig


@dataclass(frozen=True)
class GapBuckets:
    """The x categories of one gap panel: finite bins (inclusive ranges) plus ``∞``."""

    bins: tuple[tuple[int, int], ...]

    @property
    def labels(self) -> list[str]:
        """``"3"`` for a one-value bin, ``"3…5"`` for a range, then ``"∞"``."""
        out = [str(lo) if lo == hi else f"{lo}…{hi}" for lo, hi in self.bins]
        return [*out, "∞"]

    def index(self, gap: int | None) -> int:
        """The bucket of one gap (``None`` = ``T_E = ∞``)."""
        if gap is None:
            return len(self.bins)
        for i, (lo, hi) in enumerate(self.bins):
            if lo <= gap <= hi:
                return i
        raise ValueError(f"gap {gap} outside the buckets")


def gap_buckets(gaps: Sequence[int | None]) -> GapBuckets:
    """One bucket per integer from the smallest to the largest finite gap (0 always shown);
    wider equal bins when that would exceed :data:`GAP_MAX_BUCKETS`."""
    finite = [g for g in gaps if g is not None]
    lo = min([*finite, 0])
    hi = max([*finite, 0])
    span = hi - lo + 1
    step = 1 if span <= GAP_MAX_BUCKETS else -(-span // GAP_MAX_BUCKETS)
    bins = tuple((a, min(a + step - 1, hi)) for a in range(lo, hi + 1, step))
    return GapBuckets(bins)


def gap_figure(result: AnalysisResult) -> Figure:
    """Histogram of ``T_U − T_E`` per adopted run in ``P`` with an ``∞`` bucket."""
    by_op = _by_operator(result.timing, pooled=False)
    fig = Figure(figsize=(9.0, 0.4 + 2.8 * max(len(by_op), 1)), layout="constrained")
    if not by_op:
        _empty_panel(fig, "no reliance-timing rows in this analysis")
        return fig
    axes = fig.subplots(len(by_op), 1, squeeze=False)
    for ax, (operator, rows) in zip(axes[:, 0], by_op.items(), strict=True):
        all_gaps = [g for r in rows for g in r.gaps]
        buckets = gap_buckets(all_gaps)
        labels = buckets.labels
        n = max(len(rows), 1)
        width = 0.8 / n
        for i, row in enumerate(rows):
            counts = [0] * len(labels)
            for g in row.gaps:
                counts[buckets.index(g)] += 1
            xs = [k - 0.4 + width * (i + 0.5) for k in range(len(labels))]
            ax.bar(
                xs,
                counts,
                width=width * 0.92,
                color=CONFIG_COLOURS[i % len(CONFIG_COLOURS)],
                label=f"{row.configuration} (n = {len(row.gaps)})",
            )
        zero = buckets.index(0)
        ax.axvline(zero, color=GREY_DARK, linewidth=0.6, linestyle=":")
        ax.axvline(len(labels) - 1.5, color=GREY_DARK, linewidth=0.8, linestyle="--")
        ax.set_xticks(
            range(len(labels)), labels, fontsize=7, rotation=90 if len(labels) > 20 else 0
        )
        ax.set_xlim(-0.6, len(labels) - 0.4)
        ax.set_ylabel("adopted runs")
        ax.set_xlabel(
            "$T_U - T_E$ (steps): < 0 reliance before the refutation was complete, "
            "> 0 after it; ∞: never refuted"
        )
        ax.set_title(operator, loc="left")
        ax.yaxis.get_major_locator().set_params(integer=True)
        if not all_gaps:
            ax.text(
                0.5,
                0.5,
                "no adopted runs in P",
                transform=ax.transAxes,
                ha="center",
                va="center",
                color=GREY_DARK,
            )
            ax.set_ylim(0, 1)
        else:
            ax.legend(fontsize=7, frameon=False, loc="upper left")
        ax.yaxis.grid(True, linewidth=0.4, color="#dddddd")
        ax.set_axisbelow(True)
    return fig


FIGURES: dict[str, tuple[str, Callable[[AnalysisResult], Figure]]] = {
    "adoption_by_arrival": ("Adoption by arrival", adoption_figure),
    "q_u": ("q_U per configuration", q_u_figure),
    "reliance_gap": ("Signed gap T_U − T_E per adopted run", gap_figure),
}
"""Every figure of the report: file stem → (title, drawing function)."""


def svg_bytes(fig: Figure) -> bytes:
    """The figure as deterministic SVG (fixed salt, glyphs as paths, no date)."""
    buf = io.BytesIO()
    with matplotlib.rc_context(RC):
        fig.savefig(buf, format="svg", metadata=SVG_METADATA)
    return buf.getvalue()


def render_svg(result: AnalysisResult, name: str) -> bytes:
    """Draw and save one named figure of :data:`FIGURES` under the fixed rcParams."""
    with matplotlib.rc_context(RC):
        fig = FIGURES[name][1](result)
        return svg_bytes(fig)


def render_all(result: AnalysisResult) -> dict[str, bytes]:
    """Every figure as SVG bytes, keyed by file stem, in a fixed order."""
    return {name: render_svg(result, name) for name in FIGURES}


def data_uri(svg: bytes) -> str:
    """An SVG as a base64 ``data:`` URI for an ``<img>`` (scripts in it never run)."""
    return "data:image/svg+xml;base64," + base64.b64encode(svg).decode("ascii")
