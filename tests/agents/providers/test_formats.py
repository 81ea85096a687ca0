"""History conversion: ledger events → each participant's conversation → each wire format."""

from __future__ import annotations

import json

from sscbench.agents.base import GREETING
from sscbench.agents.providers.scaffold import tool_schemas
from sscbench.llm.anthropic_messages import (
    EMPTY_TEXT_PLACEHOLDER,
    OPENING_USER_TURN,
    to_anthropic_messages,
    to_anthropic_tools,
)
from sscbench.llm.arguments import (
    RAW_ARGUMENTS,
    dump_arguments,
    parse_arguments,
    raw_arguments,
)
from sscbench.llm.openai_chat import to_openai_messages
from sscbench.llm.transcript import agent_transcript, user_transcript
from sscbench.records.events import (
    AgentMessage,
    AgentToolCall,
    ToolObservation,
    UserMessage,
    VisibleEvent,
)

ARGS = {"reservation_id": "XEHM4B"}

HISTORY: list[VisibleEvent] = [
    AgentMessage(step=0, turn=0, content=GREETING),
    UserMessage(step=1, turn=1, content="Cancel XEHM4B and 59XX6W."),
    AgentMessage(step=2, turn=2, content="Let me look."),
    AgentToolCall(step=3, turn=2, call_id="c1", name="get_reservation_details", arguments=ARGS),
    AgentToolCall(
        step=4,
        turn=2,
        call_id="c2",
        name="get_reservation_details",
        arguments={RAW_ARGUMENTS: '{"reservation_id": "59XX6W"'},
    ),
    ToolObservation(step=5, turn=3, call_id="c1", content='{"status": "active"}', error=False),
    ToolObservation(step=6, turn=4, call_id="c2", content="Error: bad JSON", error=True),
    AgentMessage(step=7, turn=5, content="Shall I cancel XEHM4B (yes/no)?"),
    UserMessage(step=8, turn=6, content="Yes."),
    AgentToolCall(step=9, turn=7, call_id="c3", name="cancel_reservation", arguments=ARGS),
    ToolObservation(step=10, turn=8, call_id="c3", content='{"status": "cancelled"}', error=False),
]


def test_openai_messages_follow_tau2s_litellm_rendering() -> None:
    messages = to_openai_messages("SYS", agent_transcript(HISTORY))
    assert messages == [
        {"role": "system", "content": "SYS"},
        {"role": "assistant", "content": GREETING},
        {"role": "user", "content": "Cancel XEHM4B and 59XX6W."},
        {
            "role": "assistant",
            "content": "Let me look.",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {
                        "name": "get_reservation_details",
                        "arguments": '{"reservation_id": "XEHM4B"}',
                    },
                },
                {
                    "id": "c2",
                    "type": "function",
                    "function": {
                        "name": "get_reservation_details",
                        "arguments": '{"reservation_id": "59XX6W"',
                    },
                },
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": '{"status": "active"}'},
        {"role": "tool", "tool_call_id": "c2", "content": "Error: bad JSON"},
        {"role": "assistant", "content": "Shall I cancel XEHM4B (yes/no)?"},
        {"role": "user", "content": "Yes."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c3",
                    "type": "function",
                    "function": {"name": "cancel_reservation", "arguments": json.dumps(ARGS)},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c3", "content": '{"status": "cancelled"}'},
    ]


def test_anthropic_messages_use_blocks_and_merge_consecutive_tool_results() -> None:
    messages = to_anthropic_messages(agent_transcript(HISTORY))
    # the API wants a user turn first: a neutral one precedes τ²'s greeting
    assert messages[0] == {"role": "user", "content": [{"type": "text", "text": "."}]}
    assert OPENING_USER_TURN == "."
    messages = messages[1:]
    assert [m["role"] for m in messages] == [
        "assistant",
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
    ]
    assert messages[2]["content"] == [
        {"type": "text", "text": "Let me look."},
        {"type": "tool_use", "id": "c1", "name": "get_reservation_details", "input": ARGS},
        {
            "type": "tool_use",
            "id": "c2",
            "name": "get_reservation_details",
            "input": {RAW_ARGUMENTS: '{"reservation_id": "59XX6W"'},
        },
    ]
    assert messages[3]["content"] == [
        {"type": "tool_result", "tool_use_id": "c1", "content": '{"status": "active"}'},
        {
            "type": "tool_result",
            "tool_use_id": "c2",
            "content": "Error: bad JSON",
            "is_error": True,  # τ²'s error flag, as the API expects it
        },
    ]
    assert messages[6]["content"] == [
        {"type": "tool_use", "id": "c3", "name": "cancel_reservation", "input": ARGS}
    ]


def test_anthropic_empty_text_is_dropped_or_replaced_like_litellm() -> None:
    history: list[VisibleEvent] = [
        AgentMessage(step=0, turn=0, content=GREETING),
        UserMessage(step=1, turn=1, content=""),
        AgentMessage(step=2, turn=2, content=""),
    ]
    messages = to_anthropic_messages(agent_transcript(history))[1:]  # after the opening turn
    assert messages[1]["content"] == [{"type": "text", "text": EMPTY_TEXT_PLACEHOLDER}]
    assert messages[2]["content"] == [{"type": "text", "text": EMPTY_TEXT_PLACEHOLDER}]


def test_anthropic_user_simulator_view_needs_no_opening_turn() -> None:
    flipped = to_anthropic_messages(user_transcript(HISTORY))
    assert flipped[0] == {"role": "user", "content": [{"type": "text", "text": GREETING}]}


def test_anthropic_tools_carry_tau2_schemas() -> None:
    schemas = tool_schemas("retail")
    tools = to_anthropic_tools(schemas)
    assert [t["name"] for t in tools] == [s["function"]["name"] for s in schemas]
    assert tools[0]["input_schema"] == schemas[0]["function"]["parameters"]
    assert tools[0]["description"] == schemas[0]["function"]["description"]


def test_user_transcript_is_tau2s_flipped_view() -> None:
    flipped = user_transcript(HISTORY)
    assert [(m.role, m.text) for m in flipped] == [
        ("user", GREETING),
        ("assistant", "Cancel XEHM4B and 59XX6W."),
        # "Let me look." shares its turn with tool calls: it went to the environment
        ("user", "Shall I cancel XEHM4B (yes/no)?"),
        ("assistant", "Yes."),
    ]
    assert to_openai_messages("U", flipped)[1:] == [
        {"role": "user", "content": GREETING},
        {"role": "assistant", "content": "Cancel XEHM4B and 59XX6W."},
        {"role": "user", "content": "Shall I cancel XEHM4B (yes/no)?"},
        {"role": "assistant", "content": "Yes."},
    ]


def test_arguments_round_trip() -> None:
    assert parse_arguments('{"a": 1}') == {"a": 1}
    assert parse_arguments("") == {}
    for bad in ('{"a": 1', "[1, 2]", "null", '{"__raw_arguments__": "x"}'):
        parsed = parse_arguments(bad)
        assert parsed == {RAW_ARGUMENTS: bad}
        assert raw_arguments(parsed) == bad
        assert dump_arguments(parsed) == bad
    assert dump_arguments({"a": 1, "b": [1, 2]}) == '{"a": 1, "b": [1, 2]}'
    assert raw_arguments({"a": 1}) is None


def test_compatible_servers_get_a_string_for_a_tool_only_assistant_message() -> None:
    from sscbench.llm.config import ProviderConfig
    from sscbench.llm.openai_chat import OpenAIChatBackend

    transcript = agent_transcript(HISTORY)
    tool_only = [m for m in to_openai_messages("S", transcript) if m.get("tool_calls")]
    assert any(m["content"] is None for m in tool_only), "OpenAI itself keeps null"
    compatible = OpenAIChatBackend(
        ProviderConfig(model="m", base_url="http://127.0.0.1:9/v1"), compatible=True
    )
    sent = compatible.build_request("S", transcript, None, 0)["params"]["messages"]
    for message in sent:
        if message.get("tool_calls"):
            assert isinstance(message["content"], str)  # llama.cpp's server wants a string
    openai = OpenAIChatBackend(ProviderConfig(model="m"))
    assert openai.build_request("S", transcript, None, 0)["params"]["messages"] == (
        to_openai_messages("S", transcript)
    )
