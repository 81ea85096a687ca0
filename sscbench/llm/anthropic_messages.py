"""Anthropic messages API with tool use, through the official ``anthropic`` SDK.

The neutral transcript is rendered the way litellm renders τ²'s messages for Anthropic:
the system prompt goes in ``system``; tool calls become ``tool_use`` blocks of the
assistant turn; tool results become ``tool_result`` blocks of a user turn, consecutive
results (and any user text right after them) merged into one user turn; empty text is
dropped from tool-use turns and replaced by litellm's placeholder elsewhere (Anthropic
rejects empty text blocks). Thinking blocks returned with a tool-use turn are sent back
with it, as the API requires when extended thinking is on.

Two departures from a literal rendering, both because the API (or an endpoint hosting it)
demands them: the conversation must open with a user turn, so τ²'s assistant greeting is
preceded by :data:`OPENING_USER_TURN` (litellm's placeholder for the same case); and a tool
result that τ² reports as an error carries ``is_error: true``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from sscbench.caching import shared_cache
from sscbench.llm.arguments import RAW_ARGUMENTS, raw_arguments
from sscbench.llm.config import ProviderConfig
from sscbench.llm.credentials import read_api_key
from sscbench.llm.endpoints import resolved_base_url
from sscbench.llm.errors import post_for_json
from sscbench.llm.records import Completion, CompletionCall
from sscbench.llm.retry import (
    Failure,
    classify_sdk_error,
)
from sscbench.llm.transcript import Message

DEFAULT_MAX_TOKENS = 8192
"""Anthropic requires ``max_tokens``; litellm (τ²) sends the model's maximum output."""

EMPTY_TEXT_PLACEHOLDER = "[System: Empty message content sanitised to satisfy protocol]"
"""litellm's substitute for an empty text turn (``factory._EMPTY_TEXT_PLACEHOLDER``)."""

OPENING_USER_TURN = "."
"""The neutral user turn before an opening assistant message (litellm inserts the same
``"."`` with ``modify_params``): the messages API, strictly, starts with a user turn."""

REASONING_BLOCKS = {
    "thinking": ("type", "thinking", "signature"),
    "redacted_thinking": ("type", "data"),
}
"""Blocks sent back verbatim with their turn, and the wire fields each one carries."""


def _text_blocks(text: str | None, *, droppable: bool) -> list[dict[str, Any]]:
    if text is not None and text.strip():
        return [{"type": "text", "text": text}]
    return [] if droppable else [{"type": "text", "text": EMPTY_TEXT_PLACEHOLDER}]


def _tool_input(arguments: Mapping[str, Any]) -> dict[str, Any]:
    # Anthropic's tool_use input is an object; unparseable output (possible only from
    # OpenAI-style servers) is passed back under its marker key rather than dropped.
    raw = raw_arguments(arguments)
    return {RAW_ARGUMENTS: raw} if raw is not None else dict(arguments)


def to_anthropic_messages(transcript: Sequence[Message]) -> list[dict[str, Any]]:
    """The messages-API ``messages`` array (system prompt excluded)."""
    out: list[dict[str, Any]] = []
    for message in transcript:
        if message.role == "tool":
            role = "user"
            result: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": message.call_id,
                "content": message.text,
            }
            if message.error:
                result["is_error"] = True
            blocks: list[dict[str, Any]] = [result]
        elif message.role == "assistant":
            role = "assistant"
            blocks = [dict(b) for b in message.reasoning]
            blocks += _text_blocks(message.text, droppable=bool(message.calls))
            blocks += [
                {
                    "type": "tool_use",
                    "id": call.call_id,
                    "name": call.name,
                    "input": _tool_input(call.arguments),
                }
                for call in message.calls
            ]
        else:
            role = "user"
            blocks = _text_blocks(message.text, droppable=False)
        if not out and role == "assistant":
            out.append({"role": "user", "content": [{"type": "text", "text": OPENING_USER_TURN}]})
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})
    return out


def to_anthropic_tools(tools: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI function schemas as Anthropic tools (name, description, input_schema)."""
    return [
        {
            "name": t["function"]["name"],
            "description": t["function"]["description"],
            "input_schema": t["function"]["parameters"],
        }
        for t in tools
    ]


@shared_cache
def _shared_client(key: str | None, base_url: str, timeout: float) -> Any:
    """One SDK client (and connection pool) per endpoint and key, shared by every episode
    (see the OpenAI backend); the key only lives in memory here."""
    import anthropic  # 3 s: imported only when a request really goes out

    from sscbench.llm.transport import deadline_http_client

    return anthropic.Anthropic(
        api_key=key,
        base_url=base_url,
        timeout=timeout,
        max_retries=0,
        http_client=deadline_http_client(anthropic),
    )


class AnthropicMessagesBackend:
    """Messages API on api.anthropic.com (or a ``base_url`` speaking it)."""

    provider = "anthropic"

    def __init__(self, config: ProviderConfig) -> None:
        self.config = config
        if config.endpoints is not None:  # one name for the set (its rate limit's key)
            self.endpoint = ",".join(e.url for e in config.endpoints)
        else:
            self.endpoint = resolved_base_url("anthropic", config.base_url)
        self._key_env = config.api_key_env or "ANTHROPIC_API_KEY"
        self._key: str | None = None
        self._client: Any = None

    def build_request(
        self,
        system: str,
        transcript: Sequence[Message],
        tools: Sequence[Mapping[str, Any]] | None,
        seed: int,
    ) -> dict[str, Any]:
        """The wire body's fields (``params``, temperature among them: the API takes it
        even where this SDK's ``create`` does not) plus ``extra_body``. The seed is not
        sent: the API has none."""
        c = self.config
        params: dict[str, Any] = {
            "model": c.model,
            "max_tokens": c.max_tokens or DEFAULT_MAX_TOKENS,
            "system": system,
            "messages": to_anthropic_messages(transcript),
        }
        if tools:
            params["tools"] = to_anthropic_tools(tools)
            params["tool_choice"] = {"type": "auto"}
        if c.temperature is not None:
            params["temperature"] = c.temperature
        if c.thinking_budget is not None:
            params["thinking"] = {"type": "enabled", "budget_tokens": c.thinking_budget}
        if c.reasoning_effort is not None:
            params["output_config"] = {"effort": c.reasoning_effort}
        return {"params": params, "extra_body": dict(c.extra_body)}

    def _sdk(self, url: str | None = None) -> Any:
        if url is not None:  # one of several endpoints: one shared client per URL
            if self._key is None:
                self._key = read_api_key(self._key_env)
            return _shared_client(self._key, url, self.config.timeout)
        if self._client is None:
            self._key = read_api_key(self._key_env)
            self._client = _shared_client(self._key, self.endpoint, self.config.timeout)
        return self._client

    def prepare(self, url: str | None = None) -> None:
        """The SDK client for ``url``, built before an attempt's clock starts (the SDK's
        import alone takes seconds)."""
        self._sdk(url)

    def send_at(self, url: str, request: Mapping[str, Any]) -> dict[str, Any]:
        """:meth:`send` to one of the configuration's ``endpoints``."""
        return self._post(self._sdk(url), request)

    def send(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """One POST to ``/v1/messages``; the raw response as JSON.

        The body is posted as built (through the SDK's ``post``: same auth, headers,
        timeout and error classes), so every field reaches the API as a field of its own
        rather than through ``extra_body``.
        """
        return self._post(self._sdk(), request)

    def _post(self, client: Any, request: Mapping[str, Any]) -> dict[str, Any]:
        return post_for_json(client, "/v1/messages", request)

    def parse(self, response: Mapping[str, Any]) -> Completion:
        """Text blocks joined, ``tool_use`` blocks as calls, thinking blocks kept aside."""
        texts: list[str] = []
        calls: list[CompletionCall] = []
        reasoning: list[dict[str, Any]] = []
        for block in response["content"]:
            kind = block.get("type")
            if kind == "text":
                texts.append(block["text"])
            elif kind == "tool_use":
                calls.append(
                    CompletionCall(
                        id=block["id"], name=block["name"], arguments=json.dumps(block["input"])
                    )
                )
            elif kind in REASONING_BLOCKS:
                fields = REASONING_BLOCKS[kind]
                reasoning.append({k: block[k] for k in fields if k in block})
        usage = response.get("usage") or {}
        return Completion(
            text="".join(texts) if texts else None,
            calls=tuple(calls),
            reasoning=tuple(reasoning),
            input_tokens=usage.get("input_tokens"),
            output_tokens=usage.get("output_tokens"),
            finish_reason=response.get("stop_reason"),
        )

    def classify(self, exc: BaseException) -> Failure | None:
        """HTTP errors by status (529 overloaded included), connection errors, timeouts."""
        return classify_sdk_error(exc, "anthropic")

    def secret(self) -> str | None:
        """The key read from the environment, if any."""
        return self._key
