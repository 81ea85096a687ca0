"""Figures of an :class:`AnalysisResult` (matplotlib, SVG, byte-for-byte deterministic).

Four figures, drawn to be read at their natural size (every count label 9 pt, 12 px,
horizontal):

* **adoption by arrival, per configuration** — the report's answer: every operator's runs
  pooled, ``A_P`` (analysis population ``P``) and ``a_s`` for each arrival stratum (before /
  after / absent) as dots with their 95% intervals, one row each, the counts *adopted /
  evaluable / clusters* at the right of every row.
* **adoption by arrival, per operator** — the same rows, one panel per operator in a grid;
  every panel has the same axes and the same configurations in the same order, so panels
  compare. An empty stratum keeps its row, ``0/0/0`` and "n/a"; nothing is dropped.
* **reliance gap** — the signed gap ``T_U − T_E`` per adopted run in ``P``, with a separate
  ``∞`` bucket for runs whose refutation never arrived (``T_E = ∞``).
* **q_U** — ``P(T_E < T_U | A=1, P)`` per configuration, one panel per operator, with
  intervals and counts.

Figures are drawn with the object-oriented API (no pyplot, no global backend switch) and
saved as SVG with glyphs as paths, a fixed hash salt and no date, so the same result gives
the same bytes on every machine with the same matplotlib.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import matplotlib
import numpy as np
from matplotlib.axes import Axes
from matplotlib.backend_bases import RendererBase
from matplotlib.backends.backend_mixed import MixedModeRenderer
from matplotlib.backends.backend_svg import FigureCanvasSVG, RendererSVG
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.transforms import blended_transform_factory

from sscbench.analysis.quantities import POOLED
from sscbench.analysis.results import (
    AdoptionRow,
    AnalysisResult,
    Interval,
    Rate,
    RelianceTimingRow,
)

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

GAP_MAX_BUCKETS = 16
"""Above this many distinct integer gaps in a panel, finite gaps are grouped into bins."""


@dataclass(frozen=True)
class Series:
    """One row (or bar) per group: a legend label, a colour, and a short name for the row."""

    label: str
    colour: str
    hatch: str | None = None
    short: str = ""


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


def _empty_panel(fig: Figure, message: str) -> None:
    ax = fig.add_subplot(1, 1, 1)
    ax.set_axis_off()
    ax.text(0.5, 0.5, message, ha="center", va="center", fontsize=10, color=GREY_DARK)


COUNT_PT = 9.0
"""Point size of every count label: 12 px when the figure is shown at its natural size (a
test keeps it at 11 px or more, and every label horizontal)."""
TICK_PT = 9.0
ROW_IN = 0.17
"""Height of one interval row, in inches (16 px at natural size: one 12 px label each)."""

ADOPTION_SERIES = (
    Series("$A_P$: every run of $P$", GREY_DARK, short="$A_P$"),
    Series("$a_s$: refutation before first use", BLUE, short="before"),
    Series("$a_s$: refutation after first use", ORANGE, short="after"),
    Series("$a_s$: refutation absent", VERMILLION, short="absent"),
)


def _adoption_rates(row: AdoptionRow) -> list[Rate]:
    return [row.a_p, row.a_before, row.a_after, row.a_absent]


def _forest_panel(
    ax: Axes,
    groups: Sequence[str],
    series: Sequence[Series],
    rates: Sequence[Sequence[Rate]],
    title: str,
    *,
    xlabel: str = "share adopted (95% interval)",
) -> None:
    """Per group (configuration) a header row with its name, then one row per series: the
    share as a dot with its interval as a line, the series' name at the left and the counts
    ``numerator/denominator/clusters`` at the right of every row, all horizontal. An empty
    slot keeps its row, marked "n/a" with ``0/0/0``. Groups run top to bottom."""
    n = len(series)
    headed = n > 1  # several series: a header row names the group; one: the row does
    step = n + 1 if headed else 1
    right = blended_transform_factory(ax.transAxes, ax.transData)
    ticks: list[float] = []
    names: list[str] = []
    for g, (group, group_rates) in enumerate(zip(groups, rates, strict=True)):
        top = g * step
        if headed:
            ax.text(
                0.0,
                top,
                group,
                transform=right,
                va="center",
                ha="left",
                fontsize=TICK_PT,
                fontweight="bold",
                gid="group",
            )
        for s, (spec, rate) in enumerate(zip(series, group_rates, strict=True)):
            y = top + 1 + s if headed else top
            ticks.append(y)
            names.append(spec.short if headed else group)
            if rate.value is None:
                ax.text(0.01, y, "n/a", va="center", fontsize=COUNT_PT, color=GREY_DARK)
            else:
                low, high = rate.interval.low, rate.interval.high
                # The lines ax.plot would make (same properties), without its parsing.
                if low is not None and high is not None:
                    ax.add_line(
                        Line2D([low, high], [y, y], color=spec.colour, linewidth=2.2, alpha=0.6)
                    )
                dot = Line2D([rate.value], [y], color=spec.colour, marker="o", markersize=6)
                dot.set_linestyle("None")
                ax.add_line(dot)
            ax.text(
                1.03,
                y,
                counts_label(rate),
                transform=right,
                va="center",
                ha="left",
                fontsize=COUNT_PT,
                color="#1a1a1a",
                gid="count",
            )
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(len(groups) * step - 0.5, -0.7 if headed else -0.5)
    # Tick styles first, so that every tick is made with them (not made, then restyled).
    ax.tick_params(axis="y", length=0, labelsize=TICK_PT)
    ax.tick_params(axis="x", labelsize=TICK_PT)
    ax.xaxis.grid(True, linewidth=0.4, color="#dddddd")
    ax.set_yticks(ticks, names)
    ax.set_xticks([0.0, 0.25, 0.5, 0.75, 1.0], ["0", ".25", ".5", ".75", "1"])
    ax.set_axisbelow(True)
    ax.set_xlabel(xlabel, fontsize=TICK_PT)
    # y=1.0: where the automatic placement would leave it (nothing is drawn above a panel:
    # no top ticks, and fixed tick labels have no offset text), without its pass over every
    # tick label of the panel.
    ax.set_title(title, loc="left", y=1.0, fontsize=10, fontweight="bold")


def _legend(fig: Figure, series: Sequence[Series]) -> None:
    handles = [
        Line2D([], [], color=s.colour, marker="o", linewidth=2.0, markersize=5.5) for s in series
    ]
    fig.legend(
        handles,
        [s.label for s in series],
        loc="outside upper left",
        ncols=2,
        fontsize=TICK_PT,
        frameon=False,
    )


def overall_figure(result: AnalysisResult) -> Figure:
    """The answer: per configuration, every operator pooled, ``A_P`` and ``a_s`` per
    arrival stratum with intervals and counts (falls back to one row per operator ×
    configuration for an analysis without the pooled rows)."""
    rows = list(result.overall_adoption) or list(result.adoption)
    pooled = bool(result.overall_adoption)
    groups = [r.configuration if pooled else f"{r.operator} · {r.configuration}" for r in rows]
    rows_in = max(len(rows), 1) * (len(ADOPTION_SERIES) + 1) * ROW_IN
    fig = Figure(figsize=(4.5, 1.1 + rows_in), layout="constrained")
    if not rows:
        _empty_panel(fig, "no adoption rows in this analysis")
        return fig
    ax = fig.add_subplot(1, 1, 1)
    _forest_panel(
        ax,
        groups,
        ADOPTION_SERIES,
        [_adoption_rates(r) for r in rows],
        "every operator pooled" if pooled else "per operator and configuration",
    )
    _legend(fig, ADOPTION_SERIES)
    return fig


PANEL_COLUMNS = 3
EMPTY = Rate(
    numerator=0,
    denominator=0,
    clusters=0,
    value=None,
    interval=Interval(low=None, high=None, method="none"),
)
"""The slot of a configuration an operator has no row for (shown ``0/0/0``, "n/a")."""


def _grid(panels: int, panel_in: float, header_in: float) -> tuple[Figure, Any]:
    """A figure of ``panels`` panels, :data:`PANEL_COLUMNS` to a row, each ``panel_in``
    inches tall; the slots past the last panel are left blank (no axes drawn). With no
    panels, the figure alone (and ``axes`` empty)."""
    cols = min(PANEL_COLUMNS, max(panels, 1))
    rows = -(-max(panels, 1) // cols)
    fig = Figure(figsize=(3.75 * cols, header_in + panel_in * rows), layout="constrained")
    if not panels:
        return fig, np.empty((0, cols), dtype=object)
    axes = fig.subplots(rows, cols, squeeze=False)
    for k in range(panels, rows * cols):
        axes[k // cols, k % cols].set_axis_off()
    return fig, axes


def adoption_figure(result: AnalysisResult) -> Figure:
    """Adoption by arrival per operator: one panel per operator in a grid, every panel the
    same axes (share 0–1, the same configurations in the same order), so panels compare."""
    by_op = _by_operator(result.adoption)
    configurations = sorted({r.configuration for rows in by_op.values() for r in rows})
    panel_in = 0.9 + max(len(configurations), 1) * (len(ADOPTION_SERIES) + 1) * ROW_IN
    fig, axes = _grid(len(by_op), panel_in, 0.5)
    if not by_op:
        _empty_panel(fig, "no adoption rows in this analysis")
        return fig
    cols = axes.shape[1]
    for k, (operator, rows) in enumerate(by_op.items()):
        ax = axes[k // cols, k % cols]
        own = {r.configuration: r for r in rows}
        _forest_panel(
            ax,
            [config_label(c) for c in configurations],
            ADOPTION_SERIES,
            [
                _adoption_rates(own[c]) if c in own else [EMPTY] * len(ADOPTION_SERIES)
                for c in configurations
            ],
            operator,
        )
    _legend(fig, ADOPTION_SERIES)
    return fig


def q_u_figure(result: AnalysisResult) -> Figure:
    """``q_U`` per configuration (one panel per operator, a grid as above) with intervals
    and counts."""
    by_op = _by_operator(result.timing)
    series = (Series("$q_U$", BLUE, short="$q_U$"),)
    configurations = sorted(
        {r.configuration for rows in by_op.values() for r in rows}, key=lambda c: (c == POOLED, c)
    )
    panel_in = 0.9 + max(len(configurations), 1) * 1.4 * ROW_IN
    fig, axes = _grid(len(by_op), panel_in, 0.3)
    if not by_op:
        _empty_panel(fig, "no reliance-timing rows in this analysis")
        return fig
    cols = axes.shape[1]
    for k, (operator, rows) in enumerate(by_op.items()):
        own = {r.configuration: r for r in rows}
        _forest_panel(
            axes[k // cols, k % cols],
            [config_label(c) for c in configurations],
            series,
            [[own[c].q_u if c in own else EMPTY] for c in configurations],
            operator,
            xlabel="$q_U$ (95% interval)",
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
        ax.set_xticks(range(len(labels)), labels, fontsize=TICK_PT)
        ax.set_xlim(-0.6, len(labels) - 0.4)
        ax.set_xlabel(
            "$T_U - T_E$ (steps): < 0 reliance before the refutation was complete, "
            "> 0 after it; ∞: never refuted"
        )
        # y=1.0 is where matplotlib's automatic placement leaves the title unless a y offset
        # text ("1e6") is drawn above the axis, which takes a bar of a million runs or more.
        title_y = None if len(all_gaps) >= 100_000 else 1.0
        ax.set_title(f"{operator} — adopted runs per gap", loc="left", y=title_y, fontsize=10)
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
            ax.legend(fontsize=TICK_PT, frameon=False, loc="upper left")
        ax.yaxis.grid(True, linewidth=0.4, color="#dddddd")
        ax.set_axisbelow(True)
    return fig


FIGURES: dict[str, tuple[str, Callable[[AnalysisResult], Figure]]] = {
    "adoption_overall": ("Adoption by arrival, per configuration", overall_figure),
    "adoption_by_arrival": ("Adoption by arrival, per operator", adoption_figure),
    "q_u": ("q_U per configuration", q_u_figure),
    "reliance_gap": ("Signed gap T_U − T_E per adopted run", gap_figure),
}
"""Every figure of the report: file stem → (title, drawing function)."""


class _OneDrawCanvas(FigureCanvasSVG):
    """An SVG canvas that draws its figure once, with one renderer for everything.

    ``savefig`` draws a figure with a layout engine twice (once to lay it out, once to
    write it) and lays it out with a third renderer of its own; matplotlib keeps text
    metrics per renderer, so every label was measured three times: a fifth of the
    figures' time. Drawing once, the layout engine borrowing the writing renderer
    (:meth:`get_renderer`), gives the same bytes (``tests/analysis/test_report.py``
    compares every figure with ``savefig``'s)."""

    _renderer: RendererBase | None = None

    def get_renderer(self) -> RendererBase | None:
        """The renderer the figure is being written with (the layout engine asks)."""
        return self._renderer

    def svg_text(self, metadata: dict[str, str | None]) -> str:
        """Draw the figure as ``print_svg`` does (at 72 dpi, images at the figure's)."""
        figure = self.figure
        out = io.StringIO()
        dpi = figure.dpi
        figure.dpi = 72
        try:
            width, height = figure.get_size_inches()
            # matplotlib ships both untyped; the mixed-mode renderer stands in for a
            # RendererBase by delegation, as in ``print_svg``.
            svg = RendererSVG(width * 72, height * 72, out, image_dpi=dpi, metadata=metadata)  # type: ignore[no-untyped-call]
            mixed = MixedModeRenderer(figure, width, height, dpi, svg)  # type: ignore[no-untyped-call]
            self._renderer = cast(RendererBase, mixed)
            figure.draw(self._renderer)
            mixed.finalize()
        finally:
            self._renderer = None
            figure.dpi = dpi
        return out.getvalue()


def svg_bytes(fig: Figure) -> bytes:
    """The figure as deterministic SVG (fixed salt, glyphs as paths, no date)."""
    with matplotlib.rc_context(RC):
        return _OneDrawCanvas(fig).svg_text(SVG_METADATA).encode("utf-8")


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
