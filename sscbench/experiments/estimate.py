"""What an experiment will cost before it runs: runs, model calls, tokens, dollars, hours.

``sscbench run --config X --dry-run`` plans the schedule exactly as a run would, then plays
each distinct episode once offline along the task's *gold path* — the task's gold actions
as tool calls, one per turn, then a closing message with its communicate-info, answered by
the scripted user — and at every turn measures the request a provider agent (or τ²'s user
simulator) would send, built from the same system prompt, tool schemas and transcript.
One episode per (task or case, variant, step limit) is played; its counts stand for every
configuration and repetition that runs it.

* **calls** — one per agent turn (and one per user turn with the simulator). The gold path
  is the shortest a model can take: a real one also greets, confirms with the user,
  re-reads and retries, so read the figure as a floor and scale it by a pilot's measured
  calls (docs/quickstart.md).
* **tokens** — request and reply sizes in characters over :data:`CHARS_PER_TOKEN` (English
  and JSON average about four characters per token in the tokenizers of the major APIs).
* **cost** — the configuration's own ``input_price_per_mtok`` / ``output_price_per_mtok``,
  else the model's prices in litellm's cost map (installed with τ²; read from its file,
  offline), else unpriced.
* **wall time** — every call at :data:`CALL_SECONDS` (override with ``--call-seconds``),
  episodes ``concurrency`` at a time, and no faster than each configuration's
  ``requests_per_minute``.

Faulted runs are gated on the clean task being solved; the estimate counts them all (the
most the experiment can run), and says so.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from sscbench.agents.base import AgentTurn, EpisodeContext
from sscbench.agents.providers.scaffold import agent_scaffold
from sscbench.envs.calls import ToolCall
from sscbench.experiments.execute import episode_spec
from sscbench.experiments.load import Configuration, Experiment
from sscbench.experiments.plan import ScheduledRun, plan_runs
from sscbench.fault_contracts.injection import ContractIntervention
from sscbench.llm.openai_chat import to_openai_messages
from sscbench.llm.transcript import agent_transcript, user_transcript
from sscbench.records.events import AgentToolCall, ParticipantSpec, VisibleEvent
from sscbench.runs.episode import run_episode
from sscbench.users.scripted import ScriptedUser
from sscbench.users.simulator import simulator_system_prompt

CHARS_PER_TOKEN = 4.0
CALL_SECONDS = 3.0
"""Assumed seconds per model call for the wall-time estimate (a hosted model's reply to a
τ²-sized prompt; a local server may be slower)."""
PROVIDER_AGENTS = {"openai": "openai", "anthropic": "anthropic", "openai-compatible": None}
"""Agents that call a model, and the provider their model names belong to in the cost map."""
COST_MAP_FILE = "model_prices_and_context_window_backup.json"
CLOSING = "Is there anything else I can help you with?"


def tokens(chars: int) -> int:
    """Estimated tokens of ``chars`` characters of English or JSON."""
    return round(chars / CHARS_PER_TOKEN)


@dataclass
class Usage:
    """Model calls and characters sent and received."""

    calls: int = 0
    chars_in: int = 0
    chars_out: int = 0

    def add(self, other: Usage, times: int = 1) -> None:
        """Add ``times`` copies of ``other``."""
        self.calls += other.calls * times
        self.chars_in += other.chars_in * times
        self.chars_out += other.chars_out * times

    @property
    def input_tokens(self) -> int:
        """Estimated prompt tokens."""
        return tokens(self.chars_in)

    @property
    def output_tokens(self) -> int:
        """Estimated completion tokens."""
        return tokens(self.chars_out)


def _request_chars(system: str, history: Sequence[Any], tools: Sequence[Any] | None) -> int:
    body: dict[str, Any] = {"messages": to_openai_messages(system, history)}
    if tools:
        body["tools"] = list(tools)
    return len(json.dumps(body, ensure_ascii=False))


class _MeasuringAgent:
    """The gold path: the task's gold actions as tool calls, one per turn, then a closing
    message with the task's communicate-info. Measures the request a provider agent would
    send at each turn and the reply it stands for."""

    def __init__(self) -> None:
        self.spec = ParticipantSpec(name="estimate:gold-path")
        self.usage = Usage()
        self._system = ""
        self._tools: tuple[dict[str, Any], ...] = ()
        self._actions: list[tuple[str, dict[str, Any]]] = []
        self._closing = CLOSING

    def start(self, ctx: EpisodeContext) -> None:
        scaffold = agent_scaffold(ctx)
        self._system, self._tools = scaffold.system, scaffold.tools
        criteria = ctx.task.evaluation_criteria
        self._actions = [(a.name, dict(a.arguments)) for a in (criteria.actions or [])]
        self._closing = " ".join([*(criteria.communicate_info or []), CLOSING])
        self.usage = Usage()

    def next_turn(self, history: Sequence[VisibleEvent]) -> AgentTurn:
        done = sum(isinstance(e, AgentToolCall) for e in history)
        if done < len(self._actions):
            name, arguments = self._actions[done]
            turn = AgentTurn(
                tool_calls=(ToolCall(id=f"call_{done}", name=name, arguments=arguments),)
            )
        else:
            turn = AgentTurn(text=self._closing)
        self.usage.calls += 1
        self.usage.chars_in += _request_chars(self._system, agent_transcript(history), self._tools)
        calls = [{"name": c.name, "arguments": json.dumps(c.arguments)} for c in turn.tool_calls]
        self.usage.chars_out += len(turn.text or "") + len(json.dumps(calls) if calls else "")
        return turn


class _MeasuringUser:
    """The scripted user's messages; measures what τ²'s user simulator would be sent."""

    def __init__(self) -> None:
        self.inner = ScriptedUser()
        self.spec = self.inner.spec
        self.usage = Usage()
        self._system = ""

    def start(self, ctx: EpisodeContext) -> None:
        self._system = simulator_system_prompt(str(ctx.task.user_scenario))
        self.usage = Usage()
        self.inner.start(ctx)

    def next_message(self, history: Sequence[VisibleEvent]) -> str:
        text = self.inner.next_message(history)
        self.usage.calls += 1
        self.usage.chars_in += _request_chars(self._system, user_transcript(history), None)
        self.usage.chars_out += len(text)
        return text


def _episode_key(run: ScheduledRun) -> tuple[str, ...]:
    contract = "" if run.contract is None else run.contract.contract_id
    variants = json.dumps(run.variants, sort_keys=True)
    return (run.domain, run.task_id, variants, contract, str(run.key.max_steps))


def _play(run: ScheduledRun, scratch: Path) -> tuple[Usage, Usage]:
    """One episode along the gold path: the agent's and the user's usage."""
    agent, user = _MeasuringAgent(), _MeasuringUser()
    contract = run.contract
    spec = episode_spec(run)
    with tempfile.TemporaryDirectory(dir=scratch) as run_dir:
        run_episode(
            spec,
            agent,
            user,
            Path(run_dir) / "run",
            run_id="estimate",
            intervention=None if contract is None else ContractIntervention(contract),
        )
    return agent.usage, user.usage


@dataclass(frozen=True)
class Price:
    """USD per million tokens, and where the figure came from."""

    input_per_mtok: float
    output_per_mtok: float
    source: str


def _cost_map() -> dict[str, Any]:
    spec = find_spec("litellm")
    if spec is None or spec.origin is None:
        return {}
    path = Path(spec.origin).parent / COST_MAP_FILE
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data


def model_price(
    agent: str, params: dict[str, Any], cost_map: dict[str, Any] | None = None
) -> Price | None:
    """The configuration's prices, else its model's in litellm's cost map, else None."""
    given_in, given_out = params.get("input_price_per_mtok"), params.get("output_price_per_mtok")
    if given_in is not None and given_out is not None:
        return Price(float(given_in), float(given_out), "configuration")
    model = params.get("model")
    provider = PROVIDER_AGENTS.get(agent)
    if not isinstance(model, str) or provider is None:
        return None
    table = _cost_map() if cost_map is None else cost_map
    for name in (model, f"{provider}/{model}"):
        entry = table.get(name)
        if (
            isinstance(entry, dict)
            and entry.get("litellm_provider") == provider
            and isinstance(entry.get("input_cost_per_token"), int | float)
            and isinstance(entry.get("output_cost_per_token"), int | float)
        ):
            return Price(
                entry["input_cost_per_token"] * 1e6,
                entry["output_cost_per_token"] * 1e6,
                "litellm cost map",
            )
    return None


@dataclass
class Line:
    """One configuration's (or the user simulator's) share of the estimate."""

    name: str
    model: str
    clean_runs: int = 0
    fault_runs: int = 0
    usage: Usage = field(default_factory=Usage)
    price: Price | None = None
    requests_per_minute: float | None = None

    @property
    def cost_usd(self) -> float | None:
        """Estimated dollars (None: no price known)."""
        if self.price is None:
            return None
        return (
            self.usage.input_tokens * self.price.input_per_mtok
            + self.usage.output_tokens * self.price.output_per_mtok
        ) / 1e6


@dataclass
class Estimate:
    """The dry run's answer."""

    experiment: str
    scheduled: int
    clean_runs: int
    fault_runs: int
    lines: list[Line]
    concurrency: int
    call_seconds: float
    wall_seconds: float
    episodes_played: int

    @property
    def calls(self) -> int:
        """Model calls over every line."""
        return sum(line.usage.calls for line in self.lines)

    @property
    def cost_usd(self) -> float | None:
        """Dollars over the priced lines (None when none is priced)."""
        costs = [line.cost_usd for line in self.lines if line.cost_usd is not None]
        return sum(costs) if costs else None

    @property
    def unpriced(self) -> list[str]:
        """Lines that make calls but have no price."""
        return [x.name for x in self.lines if x.usage.calls and x.cost_usd is None]


def _model(config: Configuration) -> str:
    return str(config.params.get("model", "—"))


def estimate_experiment(experiment: Experiment, call_seconds: float = CALL_SECONDS) -> Estimate:
    """Plan ``experiment`` and estimate what running all of it would take."""
    runs = plan_runs(experiment)
    simulator = experiment.user.name == "simulator"
    lines: dict[str, Line] = {}
    user_line = Line("user simulator", str(experiment.user.params.get("model", "—")))
    user_provider = str(experiment.user.params.get("provider", "openai"))
    if simulator:
        user_line.price = model_price(user_provider, experiment.user.params)
        rpm = experiment.user.params.get("requests_per_minute")
        user_line.requests_per_minute = None if rpm is None else float(rpm)
    played: dict[tuple[str, ...], tuple[Usage, Usage]] = {}
    busy_seconds = 0.0
    with tempfile.TemporaryDirectory(prefix="sscbench-estimate-") as scratch:
        for run in runs:
            config = run.configuration
            line = lines.get(config.id)
            if line is None:
                line = lines[config.id] = Line(config.id, _model(config))
                line.price = model_price(config.agent, config.params)
                rpm = config.params.get("requests_per_minute")
                line.requests_per_minute = None if rpm is None else float(rpm)
            if run.condition == "clean":
                line.clean_runs += 1
            else:
                line.fault_runs += 1
            calls_model = config.agent in PROVIDER_AGENTS
            if not calls_model and not simulator:
                continue
            key = _episode_key(run)
            if key not in played:
                played[key] = _play(run, Path(scratch))
            agent_usage, user_usage = played[key]
            calls = 0
            if calls_model:
                line.usage.add(agent_usage)
                calls += agent_usage.calls
            if simulator:
                user_line.usage.add(user_usage)
                calls += user_usage.calls
            busy_seconds += calls * call_seconds
    out = list(lines.values()) + ([user_line] if simulator else [])
    concurrency = max(1, experiment.concurrency)
    wall = busy_seconds / min(concurrency, max(1, len(runs)))
    for line in out:
        if line.requests_per_minute:
            wall = max(wall, line.usage.calls / line.requests_per_minute * 60.0)
    clean = sum(r.condition == "clean" for r in runs)
    return Estimate(
        experiment=experiment.name,
        scheduled=len(runs),
        clean_runs=clean,
        fault_runs=len(runs) - clean,
        lines=out,
        concurrency=concurrency,
        call_seconds=call_seconds,
        wall_seconds=wall,
        episodes_played=len(played),
    )


def _usd(value: float) -> str:
    return f"${value:,.2f}" if value >= 0.1 else f"${value:.3g}"


def _duration(seconds: float) -> str:
    minutes = round(seconds / 60)
    if minutes < 1:
        return f"{seconds:.0f} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min" if hours else f"{minutes} min"


def estimate_lines(estimate: Estimate) -> Iterable[str]:
    """The estimate as text lines (each under 100 columns)."""
    yield (
        f"{estimate.experiment}: {estimate.scheduled:,} scheduled runs: "
        f"{estimate.clean_runs:,} clean, up to {estimate.fault_runs:,} faulted"
    )
    yield "  (a faulted run happens only if its configuration solved the clean task)"
    for line in estimate.lines:
        u = line.usage
        cost = "unpriced" if line.cost_usd is None else f"${line.cost_usd:,.2f}"
        runs = (
            "" if line.name == "user simulator" else f"{line.clean_runs + line.fault_runs:,} runs, "
        )
        yield (
            f"  {line.name} ({line.model}): {runs}{u.calls:,} model calls, "
            f"{u.input_tokens:,} input + {u.output_tokens:,} output tokens, {cost}"
        )
        if line.price is not None and u.calls:
            yield (
                f"    prices: {_usd(line.price.input_per_mtok)} / "
                f"{_usd(line.price.output_per_mtok)} per million input / output tokens "
                f"({line.price.source})"
            )
    total = estimate.cost_usd
    cost = "no priced model" if total is None else f"${total:,.2f}"
    if estimate.unpriced and total is not None:
        cost += f" (+ unpriced: {', '.join(estimate.unpriced)})"
    yield f"total: {estimate.calls:,} model calls, {cost}"
    yield (
        f"wall time: about {_duration(estimate.wall_seconds)} at concurrency "
        f"{estimate.concurrency}, {estimate.call_seconds:g} s per call"
    )
    yield (
        f"(gold path, {estimate.episodes_played:,} episodes played offline: a model that "
        "explores or retries\n makes more calls; cap the spend with [budget] max_cost_usd)"
    )
