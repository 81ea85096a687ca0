"""One real request per provider (costs a fraction of a cent). Opt-in: skipped unless the
provider's key is set. Models can be overridden with SSCBENCH_PAID_OPENAI_MODEL /
SSCBENCH_PAID_ANTHROPIC_MODEL."""

from __future__ import annotations

import os
from typing import Any

import pytest

from sscbench.agents.providers import anthropic_agent, openai_agent

pytestmark = pytest.mark.paid

ASK = "Hi, my user id is daiki_muller_1116. Please look up my profile."


@pytest.mark.skipif(not os.environ.get("OPENAI_API_KEY"), reason="needs OPENAI_API_KEY")
def test_openai_real_turn(kit: Any) -> None:
    agent = openai_agent(
        model=os.environ.get("SSCBENCH_PAID_OPENAI_MODEL", "gpt-4.1-mini"), max_tokens=300
    )
    agent.start(kit.airline_context())
    turn = agent.next_turn(kit.opening(ASK))
    assert turn.tool_calls or turn.text
    assert agent.provider_calls[-1].status == "ok"
    assert (agent.provider_calls[-1].input_tokens or 0) > 1000  # policy + tool schemas


@pytest.mark.skipif(not os.environ.get("ANTHROPIC_API_KEY"), reason="needs ANTHROPIC_API_KEY")
def test_anthropic_real_turn(kit: Any) -> None:
    agent = anthropic_agent(
        model=os.environ.get("SSCBENCH_PAID_ANTHROPIC_MODEL", "claude-haiku-4-5"), max_tokens=300
    )
    agent.start(kit.airline_context())
    turn = agent.next_turn(kit.opening(ASK))
    assert turn.tool_calls or turn.text
    assert agent.provider_calls[-1].status == "ok"
    assert (agent.provider_calls[-1].input_tokens or 0) > 1000
