"""``sscbench serve``: serve runs over MCP to an agent in its own loop, one run per session.

A thin front of ``sscbench run`` with the ``external`` agent: the same case and task
selection, the same executor, resume rule, ledgers and summary; what it adds is where the
client comes from (``--transport``, ``--launch``) and the server's address on stderr.
docs/external-agents.md has the protocol and a five-minute start for agent frameworks.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from sscbench.errors import ConfigError

TIMEOUTS = ("connect_timeout", "idle_timeout", "time_limit", "grace")


def register(sub: Any) -> None:
    """Add the ``serve`` subcommand."""
    from sscbench.cli.native import FAMILY_NAMES
    from sscbench.cli.run import INTERFACE_VARIANTS, _seeds

    p = sub.add_parser(
        "serve",
        help="serve runs over MCP to an agent in its own loop (one run per session)",
        description="Serve fault cases or clean tasks over the Model Context Protocol: each "
        "run is one MCP session of an external agent (docs/external-agents.md).",
    )
    what = p.add_argument_group("what to serve (as for sscbench run)")
    what.add_argument("--case", help="a case id of the case set")
    what.add_argument("--cases", type=Path, help="case set directory for --case")
    what.add_argument("--contract", type=Path, help="a fault contract file")
    what.add_argument(
        "--variant", action="append", default=[], choices=INTERFACE_VARIANTS, help="variant"
    )
    what.add_argument("--domain", help="airline or retail: serve clean tasks")
    what.add_argument("--tasks", default="all", help="clean tasks: all | 0-9 | 1,3,5")
    what.add_argument("--seed", type=_seeds, default=(0,), help="seed or comma-separated seeds")
    what.add_argument("--max-steps", type=int, default=100, help="model-visible step limit")
    what.add_argument("--user", default="scripted", help="scripted | simulator")
    what.add_argument("--user-param", action="append", default=[], metavar="KEY=VALUE")
    what.add_argument(
        "--native",
        action="store_true",
        help="serve the native observation-contract suite instead (sscbench native's tasks, "
        "one session per task, --seed's seeds; prints its verdict table)",
    )
    what.add_argument(
        "--family",
        action="append",
        choices=FAMILY_NAMES,
        metavar="FAMILY",
        help="with --native: serve only this family's tasks (repeatable)",
    )
    p.add_argument(
        "--out",
        type=Path,
        help="run directory (default runs/served; with --native runs/native/<UTC time>)",
    )
    how = p.add_argument_group("how clients connect")
    how.add_argument(
        "--transport",
        choices=("streamable-http", "stdio"),
        default="streamable-http",
        help="streamable-http (default; clients connect to http://HOST:PORT/mcp) or stdio "
        "(this process's stdin/stdout: one run, for clients that spawn their server)",
    )
    how.add_argument("--host", default="127.0.0.1", help="HTTP address (default 127.0.0.1)")
    how.add_argument("--port", type=int, default=0, help="HTTP port (default: any free one)")
    how.add_argument(
        "--launch",
        metavar="COMMAND",
        help="launch this agent program for each run (it finds the run in SSCBENCH_MCP_URL) "
        "instead of waiting for clients to connect",
    )
    how.add_argument(
        "--concurrency", type=int, default=1, help="runs served at once (clients at once)"
    )
    for name in TIMEOUTS:
        how.add_argument(f"--{name.replace('_', '-')}", type=float, metavar="SECONDS")
    p.set_defaults(handler=handle)


def _runs_selected(args: argparse.Namespace) -> int:
    """How many tasks or cases the selection names (before seeds)."""
    if args.case is not None or args.contract is not None:
        return 1
    if args.domain is None:
        return 0
    from sscbench.envs.task_spec import parse_task_spec

    return len(parse_task_spec(args.domain, args.tasks))


def _check_native(args: argparse.Namespace) -> None:
    """--native serves the native suite's tasks: no τ² selection beside it, and HTTP only."""
    given = [
        flag
        for flag, value in (
            ("--case", args.case),
            ("--contract", args.contract),
            ("--domain", args.domain),
            ("--variant", args.variant),
        )
        if value
    ]
    if given:
        raise ConfigError(f"--native serves the native suite; drop {', '.join(given)}")
    if args.transport == "stdio":
        raise ConfigError(
            "--native serves one session per task over streamable-http; stdio serves one "
            "run per process"
        )


def handle(args: argparse.Namespace) -> int:
    """Map the serving options onto the external agent's parameters and run."""
    from sscbench.cli import run

    if args.native:
        _check_native(args)
    elif args.family:
        raise ConfigError("--family selects native tasks; add --native")
    params = [f"transport={args.transport}"]
    if args.transport == "stdio":
        if args.launch is not None:
            raise ConfigError("--launch starts clients over HTTP; drop it with stdio")
        if len(args.seed) != 1 or _runs_selected(args) != 1:
            raise ConfigError(
                "stdio serves one run per process: give one --case (or --contract, or "
                "--domain with one --tasks id) and one --seed"
            )
    else:
        if not 0 <= args.port <= 65535:
            raise ConfigError(f"--port must be between 0 and 65535, got {args.port}")
        params += [f"host={args.host}", f"port={args.port}"]
    if args.launch is not None:
        params.append(f"command={args.launch}")
    for name in TIMEOUTS:
        value = getattr(args, name)
        if value is not None:
            params.append(f"{name}={value}")
    if args.transport == "streamable-http":  # a busy port is one line, before any run
        from sscbench.agents.external.hub import Hub

        Hub.shared(args.host, args.port)
    args.agent = "external"
    args.agent_param = params
    if args.native:
        from sscbench.cli import native

        args.solution = "reference"
        return native.play(args, args.seed)
    if args.out is None:
        args.out = Path("runs/served")
    args.config = None
    args.executor = None
    args.dry_run = False  # serving runs them; `run --config --dry-run` estimates experiments
    return run.handle(args)
