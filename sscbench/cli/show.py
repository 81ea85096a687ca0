"""``sscbench show LEDGER``: pretty-print a ledger with step numbers and roles."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape

from sscbench.cli.reconstruct import LABELS_FILE
from sscbench.errors import ConfigError

if TYPE_CHECKING:
    from sscbench.reconstruct.labels import RunLabels


def register(sub: Any) -> None:
    """Add the ``show`` subcommand."""
    p = sub.add_parser("show", help="pretty-print a ledger")
    p.add_argument("ledger", type=Path, help="a ledger.jsonl file or its run directory")
    p.add_argument(
        "--width", type=int, default=400, help="truncate observations to this many characters"
    )
    p.add_argument(
        "--labels",
        type=Path,
        help="labels.jsonl with this run's labels, to mark T_F, T_E, T_S, T_U and the uses "
        "(default: the nearest labels.jsonl above the run)",
    )
    p.set_defaults(handler=handle)


def _labels_of(ledger: Path, run_id: str, explicit: Path | None) -> RunLabels | None:
    """This run's labels from ``explicit`` or the nearest ``labels.jsonl`` above the run
    (read a line at a time; only the matching line is parsed)."""
    from sscbench.reconstruct.labels import RunLabels

    candidates = [explicit] if explicit else [p / LABELS_FILE for p in ledger.parents[1:4]]
    needle = json.dumps(run_id, ensure_ascii=False)
    for candidate in candidates:
        if candidate is None or not candidate.is_file():
            continue
        with candidate.open(encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if needle in line:
                    label = RunLabels.model_validate_json(line)
                    if label.run_id == run_id:
                        return label
    return None


def handle(args: argparse.Namespace) -> int:
    """Print the header, every model-visible event and the run end."""
    from sscbench.records.events import (
        AgentMessage,
        AgentToolCall,
        SystemNotice,
        ToolObservation,
        UserMessage,
    )
    from sscbench.records.ledger import read_ledger

    if args.width < 1:
        raise ConfigError(
            f"--width must be at least 1 (characters of each observation shown), got {args.width}"
        )
    path: Path = args.ledger
    if path.is_dir():
        path = path / "ledger.jsonl"
    from sscbench.analysis.viewer.marks import fault_rows, label_rows, step_marks

    ledger = read_ledger(path)
    console = Console(highlight=False, soft_wrap=True)
    h = ledger.header
    console.print(
        f"[bold]{escape(h.run_id)}[/bold]  {h.domain} task {h.task_id}  agent "
        f"{escape(h.agent.name)}  user {escape(h.user.name)}  seed {h.seed}"
        + (f"  case {escape(h.case_id)}" if h.case_id else "")
    )
    labels = _labels_of(path, h.run_id, args.labels)
    rows = fault_rows(h.fault) + (label_rows(labels) if labels is not None else [])
    for name, text in rows:
        console.print(f"  [bold]{escape(name)}[/bold]: {escape(text)}")
    if h.fault and labels is None:
        console.print("  [dim](no labels found: run `sscbench reconstruct` to mark events)[/dim]")
    marks = step_marks(labels)
    for e in ledger.events:
        tags = marks.tags(e.step)
        if tags:
            styled = " ".join(
                f"[bold reverse]{escape(t)}[/bold reverse]"
                if c.startswith("m-t_")
                else f"[dim]\\[{escape(t)}][/dim]"
                for c, t, _ in tags
            )
            console.print(f"[dim]{e.step:>4}[/dim] {styled}")
        if isinstance(e, UserMessage):
            console.print(f"[dim]{e.step:>4}[/dim] [cyan]user[/cyan]  {escape(e.content)}")
        elif isinstance(e, AgentMessage):
            console.print(f"[dim]{e.step:>4}[/dim] [green]agent[/green] {escape(e.content)}")
        elif isinstance(e, AgentToolCall):
            args_text = json.dumps(e.arguments, ensure_ascii=False)
            call = f"{escape(e.name)}({escape(args_text)}) [dim]#{escape(e.call_id)}[/dim]"
            by = "[blue]harness[/blue] " if e.origin == "harness" else ""
            console.print(f"[dim]{e.step:>4}[/dim] [yellow]call[/yellow]  {by}{call}")
        elif isinstance(e, ToolObservation):
            text = e.content if len(e.content) <= args.width else e.content[: args.width] + "…"
            tag = "[red]error[/red]" if e.error else "[magenta]obs[/magenta]  "
            console.print(
                f"[dim]{e.step:>4}[/dim] {tag} {escape(text)} [dim]#{escape(e.call_id)}[/dim]"
            )
        elif isinstance(e, SystemNotice):  # a delivered refutation
            text = e.content if len(e.content) <= args.width else e.content[: args.width] + "…"
            console.print(f"[dim]{e.step:>4}[/dim] [blue]notice[/blue] {escape(text)}")
    end = ledger.end
    if end is None:
        console.print("[red]unfinished run (no run_end)[/red]")
    else:
        console.print(
            f"[bold]end[/bold] {end.termination} after {end.steps} steps: success={end.success} "
            f"(db_match={end.db_match}, communicate_ok={end.communicate_ok})"
        )
        if end.error:
            console.print(escape(end.error))
    return 0
