"""The viewer's index: one short row per run, its filters, and the page section holding them.

The rows travel as one JSON document inside ``<script type="application/json">`` (data, never
run by the browser); names repeated across runs — configurations, operators, cases — are
listed once and referred to by position, so 100,000 runs stay a few megabytes. ``<``, ``>``
and ``&`` are written as ``\\u`` escapes, so no text of a run can close that element.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from html import escape
from typing import Any

from sscbench.analysis.viewer.marks import EVENTS, short_time
from sscbench.reconstruct.labels import LabelView

INDEX_ID = "run-index"
ARRIVAL_OPTIONS = (
    ("before", "Z_S = before"),
    ("after", "Z_S = after"),
    ("absent", "Z_S = absent"),
    ("none", "no dependent use"),
    ("undecidable", "Z_S undecidable"),
    ("-", "no arrival class (not triggered, unfinished)"),
)
ADOPTION_OPTIONS = (("1", "adopted"), ("0", "not adopted"), ("-1", "adoption undefined"))


def configuration_of(labels: LabelView) -> str:
    """The configuration a run belongs to (its agent's name when none was given)."""
    return labels.configuration or labels.agent


def run_order(labels: Iterable[LabelView]) -> list[LabelView]:
    """The index rows: each run id once (the first label wins), grouped by operator,
    configuration and case, then by seed and run id — the same order for the same input."""
    unique: dict[str, LabelView] = {}
    for lab in labels:
        unique.setdefault(lab.run_id, lab)
    return sorted(
        unique.values(),
        key=lambda x: (
            x.operator or "clean",
            configuration_of(x),
            x.case_id or "",
            x.seed,
            x.run_id,
        ),
    )


def _positions(values: Iterable[str]) -> dict[str, int]:
    return {v: i for i, v in enumerate(sorted(set(values)))}


def index_document(order: Sequence[LabelView]) -> dict[str, Any]:
    """The index as data: name lists and one row per run
    ``[run id, configuration, operator, case, seed, T_F, T_E, T_S, T_U, Z_S, adopted, control]``
    (names as positions in their list; ``adopted`` 1 / 0 / -1 for undefined; ``Z_S`` ``-``
    for no arrival class)."""
    names = _names(order)
    return {
        **{key: list(positions) for key, positions in names.items()},
        "runs": list(_rows(order, names)),
    }


def _names(order: Sequence[LabelView]) -> dict[str, dict[str, int]]:
    """The name lists of the index (each name → its position), in document order."""
    return {
        "configurations": _positions(configuration_of(x) for x in order),
        "operators": _positions(x.operator or "clean" for x in order),
        "cases": _positions(x.case_id or "" for x in order),
    }


def _rows(order: Sequence[LabelView], names: dict[str, dict[str, int]]) -> Iterator[list[Any]]:
    """The index rows, one at a time."""
    configurations, operators, cases = names["configurations"], names["operators"], names["cases"]
    for x in order:
        yield [
            x.run_id,
            configurations[configuration_of(x)],
            operators[x.operator or "clean"],
            cases[x.case_id or ""],
            x.seed,
            *(short_time(getattr(x, name)) for name in EVENTS),
            x.z_s or "-",
            -1 if x.adopted is None else int(x.adopted),
            int(x.control),
        ]


def index_json(document: dict[str, Any]) -> str:
    """An :func:`index_document` as compact JSON, safe inside a ``<script>`` element.

    The same text as one ``json.dumps`` of the document, but the rows are encoded one at a
    time, so no second copy of every row is held beside the text."""
    parts = ["{"]
    for n, (key, value) in enumerate(document.items()):
        parts.append(("," if n else "") + _dumps(key) + ":")
        if key == "runs":
            parts.append("[" + ",".join(_dumps(row) for row in value) + "]")
        else:
            parts.append(_dumps(value))
    parts.append("}")
    return _safe("".join(parts))


def index_json_parts(order: Sequence[LabelView]) -> Iterator[str]:
    """:func:`index_json` of the :func:`index_document` of ``order``, a row at a time,
    never built whole: at 100,000 runs the rows and their text were about 80 MiB at once
    (the escapes are of single characters, so escaping each piece escapes the whole)."""
    names = _names(order)
    yield "{"
    for key, positions in names.items():
        yield _safe(("," if key != "configurations" else "") + _dumps(key) + ":")
        yield _safe(_dumps(list(positions)))
    yield "," + _dumps("runs") + ":["
    for n, row in enumerate(_rows(order, names)):
        yield ("," if n else "") + _safe(_dumps(row))
    yield "]}"


def _safe(text: str) -> str:
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _select(element_id: str, label: str, every: str, options: Iterable[tuple[str, str]]) -> str:
    body = "".join(f'<option value="{escape(v)}">{escape(t)}</option>' for v, t in options)
    return (
        f'<label class="pick">{escape(label)} <select id="{element_id}">'
        f'<option value="">{escape(every)}</option>{body}</select></label>'
    )


def viewer_section(order: Sequence[LabelView]) -> str:
    """The viewer's part of a page: intro, filters, the (script-filled) list, the index."""
    return "".join(viewer_section_parts(order))


def viewer_section_parts(order: Sequence[LabelView]) -> Iterator[str]:
    """:func:`viewer_section` in pieces, the index a row at a time (for a page written to
    its file piece by piece)."""
    names = _names(order)

    def named(key: str) -> list[tuple[str, str]]:
        return [(str(i), name or "— (clean run)") for i, name in enumerate(names[key])]

    controls = "".join(
        (
            '<label class="pick">text <input id="run-filter" type="search" '
            'placeholder="run id, configuration (scripted:gold), case id"></label>',
            _select(
                "run-configuration", "configuration", "every configuration", named("configurations")
            ),
            _select("run-operator", "operator", "every operator", named("operators")),
            _select("run-case", "case", "every case", named("cases")),
            _select("run-class", "arrival", "every arrival class", ARRIVAL_OPTIONS),
            _select("run-adopted", "adoption", "adopted or not", ADOPTION_OPTIONS),
            '<span class="buttons"><button type="button" id="expand-all">expand shown</button> '
            '<button type="button" id="collapse-all">collapse all</button></span>',
        )
    )
    yield (
        f'<p class="note">{len(order)} labelled runs. Open a run to load its numbered '
        "model-visible history (from the <code>runs/</code> folder beside this page); "
        "markers show T_F (fault delivered), T_E (refutation complete), T_S (first "
        "dependent use) and T_U (first erroneous reliance), plus the evidence steps behind "
        "them and every classified use. All model, user and tool text is shown as plain "
        "text.</p>"
        f'<div class="controls" id="viewer-controls">{controls}</div>'
        '<p class="note" id="run-count" aria-live="polite">loading the run index…</p>'
        '<p class="no-match" id="run-none" hidden>No run matches these filters.</p>'
        '<div id="run-list"></div>'
        '<p><button type="button" id="run-more" hidden>show more</button></p>'
        f'<script type="application/json" id="{INDEX_ID}">'
    )
    yield from index_json_parts(order)
    yield "</script>"
