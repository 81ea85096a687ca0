"""Merge independent annotation passes into the corpus's ``items.jsonl``.

    python tests/reconstruct/merge_labels.py PASS_A_DIR PASS_B_DIR [--items ITEMS]

Each pass directory holds JSON lines ``{"item_id", "t_s", "t_u", "adopted", "note", ...}``
(one per item, any file name ending in ``.jsonl``). Every item gets both passes; its
reference label is the passes' common answer, or — where they disagree, or where they agree
on something the written guideline rules out — the resolution recorded in
:data:`RESOLUTIONS` with its reason. The script refuses to write if an item lacks a pass, or
if a disagreement has no resolution.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from sscbench.accuracy.items import CorpusItem, HandLabel, read_items
from sscbench.records.ledger import dump_line

DEFAULT_ITEMS = (
    Path(__file__).resolve().parents[1] / "fixtures" / "reconstruction_corpus" / ("items.jsonl")
)

SILENCE = (
    "silence is not a use (guideline: 'Silence is not a use'): the method/reservation is never "
    "referred to after T_F; it is only left out of a list the agent gives"
)
NONE = HandLabel(t_s="none", t_u="none", adopted=False, note="resolution")

RESOLUTIONS: dict[str, tuple[HandLabel, str]] = {
    item: (NONE, f"pass A: none, pass B: omission at the list's step; {SILENCE}")
    for item in (
        "tau2.airline.1.trial0/pay_source/aarav_ahmed_6699/certificate_9645872",
        "tau2.airline.27.trial0/pay_source/omar_rossi_1241/certificate_1778167",
        "tau2.airline.27.trial0/pay_source/omar_rossi_1241/certificate_8390038",
        "tau2.airline.35.trial0/pay_source/sophia_taylor_9065/certificate_6193508",
        "tau2.airline.37.trial0/pay_source/sophia_silva_7557/certificate_3887113",
        "tau2.airline.37.trial0/pay_source/sophia_silva_7557/certificate_8045380",
        "tau2.airline.40.trial0/pay_source/omar_rossi_1241/certificate_1778167",
        "tau2.airline.40.trial0/pay_source/omar_rossi_1241/certificate_8390038",
        "tau2.airline.47.trial0/return_date/4XGCCM",
    )
} | {
    "tau2.airline.3.trial0/return_date/9MRJD4": (
        NONE,
        "both passes: step 29, where 9MRJD4 is missing from a list of upcoming reservations "
        f"(it is never named after T_F); {SILENCE}",
    ),
}


def _label(obj: dict[str, object]) -> HandLabel:
    return HandLabel(
        t_s=obj["t_s"],  # type: ignore[arg-type]
        t_u=obj["t_u"],  # type: ignore[arg-type]
        adopted=obj["adopted"],  # type: ignore[arg-type]
        note=str(obj.get("note", "")),
    )


def read_pass(folder: Path) -> dict[str, HandLabel]:
    """Every label of one pass, by item id."""
    out = {}
    for path in sorted(folder.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                obj = json.loads(line)
                out[obj["item_id"]] = _label(obj)
    return out


def merge(items: list[CorpusItem], passes: dict[str, dict[str, HandLabel]]) -> list[CorpusItem]:
    """Items with both passes and their reference label."""
    merged = []
    for item in items:
        labels = {name: p[item.item_id] for name, p in passes.items()}
        answers = {(lb.t_s, lb.t_u, lb.adopted) for lb in labels.values()}
        if item.item_id in RESOLUTIONS:
            reference, why = RESOLUTIONS[item.item_id]
        elif len(answers) == 1:
            first = next(iter(labels.values()))
            reference = first.model_copy(update={"note": "passes agree"})
            why = ""
        else:
            raise SystemExit(f"{item.item_id}: passes disagree {answers}; add a resolution")
        merged.append(
            item.model_copy(update={"passes": labels, "reference": reference, "resolution": why})
        )
    return merged


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pass_a", type=Path)
    parser.add_argument("pass_b", type=Path)
    parser.add_argument("--items", type=Path, default=DEFAULT_ITEMS)
    args = parser.parse_args(argv)
    items = read_items(args.items)
    passes = {"A": read_pass(args.pass_a), "B": read_pass(args.pass_b)}
    for name, labels in passes.items():
        missing = [i.item_id for i in items if i.item_id not in labels]
        if missing:
            raise SystemExit(f"pass {name} lacks {len(missing)} items, e.g. {missing[0]}")
    merged = merge(items, passes)
    args.items.write_text("".join(dump_line(i) + "\n" for i in merged), encoding="utf-8")
    agree = sum(1 for i in merged if not i.resolution)
    print(f"{len(merged)} items: {agree} agreed, {len(merged) - agree} resolved")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
