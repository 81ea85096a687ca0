"""The scaffold is τ²'s: prompt texts equal the installed τ² source, tool schemas come from
τ²'s own toolkit, and nothing on the way imports litellm."""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from sscbench.agents.base import EpisodeContext
from sscbench.agents.providers import scaffold
from sscbench.envs import load_domain
from sscbench.fault_contracts.variants import READ_BACK_HINT
from sscbench.users import simulator


def _tau2_file(*parts: str) -> Path:
    spec = importlib.util.find_spec("tau2")
    assert spec is not None and spec.submodule_search_locations
    return Path(spec.submodule_search_locations[0], *parts)


def _string_constant(path: Path, name: str) -> str:
    """A module-level ``NAME = \"\"\"...\"\"\".strip()`` read without importing the module."""
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            value = node.value
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
                assert value.func.attr == "strip"
                inner = value.func.value
                assert isinstance(inner, ast.Constant) and isinstance(inner.value, str)
                return inner.value.strip()
            assert isinstance(value, ast.Constant) and isinstance(value.value, str)
            return value.value
    raise AssertionError(f"{name} not found in {path}")


def test_agent_prompt_texts_equal_tau2_source() -> None:
    source = _tau2_file("agent", "llm_agent.py")
    assert _string_constant(source, "AGENT_INSTRUCTION") == scaffold.AGENT_INSTRUCTION
    assert _string_constant(source, "SYSTEM_PROMPT") == scaffold.SYSTEM_PROMPT


def test_agent_system_prompt_embeds_the_domain_policy() -> None:
    policy = load_domain("airline").policy
    prompt = scaffold.agent_system_prompt(policy)
    assert prompt.startswith("<instructions>\nYou are a customer service agent")
    assert prompt.endswith(f"<policy>\n{policy}\n</policy>")


def test_user_prompt_texts_equal_tau2_source() -> None:
    source = _tau2_file("user", "user_simulator.py")
    assert _string_constant(source, "SYSTEM_PROMPT") == simulator.SYSTEM_PROMPT
    guidelines = _tau2_file(*simulator.GUIDELINES_FILE)
    assert simulator.simulation_guidelines() == guidelines.read_text()
    assert 'GLOBAL_USER_SIM_GUIDELINES_DIR / "simulation_guidelines.md"' in source.read_text()


@pytest.mark.parametrize("domain", ["airline", "retail"])
def test_tool_schemas_are_tau2s(domain: str) -> None:
    d = load_domain(domain)
    expected = [t.openai_schema for t in d.toolkit_class(d.base_db).get_tools().values()]
    assert scaffold.tool_schemas(domain) == expected
    if domain == "retail":  # the hint is an airline (WriteEffect) variant only
        assert scaffold.tool_schemas(domain, read_back_hint=True) == expected


def test_read_back_hint_extends_exactly_the_reservation_writes() -> None:
    from sscbench.operators.write_effect import TARGET_TOOLS

    assert set(scaffold.READ_BACK_TOOLS) == set(TARGET_TOOLS)
    plain = {s["function"]["name"]: s for s in scaffold.tool_schemas("airline")}
    hinted = {
        s["function"]["name"]: s for s in scaffold.tool_schemas("airline", read_back_hint=True)
    }
    for name, schema in hinted.items():
        description = schema["function"]["description"]
        if name in TARGET_TOOLS:
            assert description == plain[name]["function"]["description"] + READ_BACK_HINT
        else:
            assert schema == plain[name]
    assert scaffold.tool_schemas("airline") == list(plain.values())  # cache not mutated


@dataclass(frozen=True)
class _ContextWithVariants(EpisodeContext):
    variants: dict[str, Any] = field(default_factory=dict)


def test_scaffold_reads_variants_from_the_context_when_present() -> None:
    d = load_domain("airline")
    base = {"domain": "airline", "task": d.task("7"), "seed": 0, "policy": d.policy}
    without = scaffold.agent_scaffold(EpisodeContext(**base))
    hinted = scaffold.agent_scaffold(
        _ContextWithVariants(**base, variants={"read_back_hint": True})
    )
    assert without.tool_list() == scaffold.tool_schemas("airline")
    assert hinted.tool_list() == scaffold.tool_schemas("airline", read_back_hint=True)
    assert without.system == hinted.system == scaffold.agent_system_prompt(d.policy)


def test_nothing_imports_litellm_or_an_sdk_before_a_request() -> None:
    code = (
        "import sys, sscbench\n"
        "import sscbench.agents.providers as p\n"
        "import sscbench.users.simulator as s\n"
        "from sscbench.agents.providers.scaffold import tool_schemas, agent_system_prompt\n"
        "from sscbench.envs import load_domain\n"
        "tool_schemas('airline'); tool_schemas('retail')\n"
        "s.simulator_system_prompt('x')\n"
        "agent = p.openai_agent(model='m'); p.anthropic_agent(model='m')\n"
        "heavy = [m for m in ('litellm', 'openai', 'anthropic', 'tau2.agent.llm_agent')"
        " if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
