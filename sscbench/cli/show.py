"""``sscbench show LEDGER``: pretty-print a ledger with step numbers and roles."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from sscbench.records.events import AgentMessage, AgentToolCall, ToolObservation, UserMessage
from sscbench.records.ledger import read_ledger


def register(sub: Any) -> None:
    """Add the ``show`` subcommand."""
    p = sub.add_parser("show", help="pretty-print a ledger")
    p.add_argument("ledger", type=Path, help="a ledger.jsonl file or its run directory")
    p.add_argument(
        "--width", type=int, default=400, help="truncate observations to this many characters"
    )
    p.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    """Print the header, every model-visible event and the run end."""
    path: Path = args.ledger
    if path.is_dir():
        path = path / "ledger.jsonl"
    ledger = read_ledger(path)
    console = Console(highlight=False, soft_wrap=True)
    h = ledger.header
    console.print(
        f"[bold]{escape(h.run_id)}[/bold]  {h.domain} task {h.task_id}  agent "
        f"{escape(h.agent.name)}  user {escape(h.user.name)}  seed {h.seed}"
        + (f"  case {escape(h.case_id)}" if h.case_id else "")
    )
    for e in ledger.events:
        if isinstance(e, UserMessage):
            console.print(f"[dim]{e.step:>4}[/dim] [cyan]user[/cyan]  {escape(e.content)}")
        elif isinstance(e, AgentMessage):
            console.print(f"[dim]{e.step:>4}[/dim] [green]agent[/green] {escape(e.content)}")
        elif isinstance(e, AgentToolCall):
            args_text = json.dumps(e.arguments, ensure_ascii=False)
            call = f"{escape(e.name)}({escape(args_text)}) [dim]#{escape(e.call_id)}[/dim]"
            console.print(f"[dim]{e.step:>4}[/dim] [yellow]call[/yellow]  {call}")
        elif isinstance(e, ToolObservation):
            text = e.content if len(e.content) <= args.width else e.content[: args.width] + "…"
            tag = "[red]error[/red]" if e.error else "[magenta]obs[/magenta]  "
            console.print(
                f"[dim]{e.step:>4}[/dim] {tag} {escape(text)} [dim]#{escape(e.call_id)}[/dim]"
            )
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
