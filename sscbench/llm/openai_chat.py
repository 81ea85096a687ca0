"""OpenAI chat completions with tool calling, through the official ``openai`` SDK.

Used by :class:`~sscbench.agents.providers.agent.OpenAIAgent` and, with a ``base_url``, by
:class:`~sscbench.agents.providers.agent.OpenAICompatibleAgent` (vLLM, Ollama, llama.cpp
server, ...). Messages are rendered as τ²'s ``to_litellm_messages`` renders them: system
prompt first, one assistant message per agent turn with its ``tool_calls``, one ``tool``
message per observation with its ``tool_call_id``; ``tool_choice`` is ``"auto"`` whenever
tools are offered, as in τ²'s ``generate``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sscbench.caching import shared_cache
from sscbench.errors import ConfigError
from sscbench.llm.arguments import dump_arguments
from sscbench.llm.config import ProviderConfig
from sscbench.llm.credentials import read_api_key
from sscbench.llm.endpoints import resolved_base_url
from sscbench.llm.errors import post_for_json
from sscbench.llm.local_server import ServerSpec, managed_spec, server_for
from sscbench.llm.records import Completion, CompletionCall
from sscbench.llm.retry import (
    Failure,
    classify_sdk_error,
)
from sscbench.llm.transcript import Message

NO_KEY = "no-key"
"""Sent to compatible servers that need no key: the SDK would otherwise fall back to
``OPENAI_API_KEY`` and hand a real OpenAI key to a third-party server."""


def to_openai_messages(
    system: str, transcript: Sequence[Message], *, text_only_content: bool = False
) -> list[dict[str, Any]]:
    """The chat-completions ``messages`` array.

    An assistant message that only calls tools has ``content: null`` — valid for OpenAI,
    but some compatible servers (llama-cpp-python's among them) refuse the whole request
    with HTTP 500 unless it is a string; ``text_only_content`` sends ``""`` instead."""
    out: list[dict[str, Any]] = [{"role": "system", "content": system}]
    for message in transcript:
        if message.role == "tool":
            out.append({"role": "tool", "tool_call_id": message.call_id, "content": message.text})
        elif message.role == "assistant" and message.calls:
            out.append(
                {
                    "role": "assistant",
                    "content": message.text or ("" if text_only_content else None),
                    "tool_calls": [
                        {
                            "id": call.call_id,
                            "type": "function",
                            "function": {
                                "name": call.name,
                                "arguments": dump_arguments(call.arguments),
                            },
                        }
                        for call in message.calls
                    ],
                }
            )
        else:
            out.append({"role": message.role, "content": message.text or ""})
    return out


@shared_cache
def _shared_client(key: str, base_url: str, timeout: float) -> Any:
    """One SDK client (and connection pool) per endpoint and key, shared by every episode:
    building one costs a TLS context, and the SDK clients are thread-safe. The key only
    lives in memory here. Its network layer honours the attempt deadline."""
    import openai  # 1 s: imported only when a request really goes out

    from sscbench.llm.transport import deadline_http_client

    return openai.OpenAI(
        api_key=key,
        base_url=base_url,
        timeout=timeout,
        max_retries=0,
        http_client=deadline_http_client(openai),
    )


class OpenAIChatBackend:
    """Chat completions on api.openai.com or any server that speaks the same protocol.

    ``compatible`` servers get ``max_tokens`` (widely implemented) instead of OpenAI's
    ``max_completion_tokens`` (required by its reasoning models), and a placeholder key
    when ``api_key_env`` is unset. ``endpoint`` is the API root actually used (the
    ``OPENAI_BASE_URL`` fallback resolved here, not inside the SDK), or for a managed
    server (``server``) a stable name for it: its port is only known once it runs.
    """

    def __init__(self, config: ProviderConfig, *, compatible: bool = False) -> None:
        self.config = config
        self.compatible = compatible
        self.provider = "openai-compatible" if compatible else "openai"
        self._managed: ServerSpec | None = None
        if config.server is not None:
            if not compatible:
                raise ConfigError("server=llama.cpp is for openai-compatible participants")
            self._managed = managed_spec(config)  # checks the extra and the model file now
            self.endpoint = f"{config.server}:{self._managed.model_path}"
        elif config.endpoints is not None:  # one name for the set (its rate limit's key)
            self.endpoint = ",".join(e.url for e in config.endpoints)
        else:
            self.endpoint = resolved_base_url("openai", config.base_url)
        self._key_env = config.api_key_env or (None if compatible else "OPENAI_API_KEY")
        self._key: str | None = None
        self._client: Any = None

    def build_request(
        self,
        system: str,
        transcript: Sequence[Message],
        tools: Sequence[Mapping[str, Any]] | None,
        seed: int,
    ) -> dict[str, Any]:
        """SDK keyword arguments (``params``) plus provider-specific ``extra_body``."""
        c = self.config
        params: dict[str, Any] = {
            "model": c.model,
            "messages": to_openai_messages(system, transcript, text_only_content=self.compatible),
        }
        if tools:
            params["tools"] = [dict(t) for t in tools]
            params["tool_choice"] = "auto"
        if c.temperature is not None:
            params["temperature"] = c.temperature
        if c.send_seed:
            params["seed"] = seed
        if c.max_tokens is not None:
            params["max_tokens" if self.compatible else "max_completion_tokens"] = c.max_tokens
        if c.reasoning_effort is not None:
            params["reasoning_effort"] = c.reasoning_effort
        return {"params": params, "extra_body": dict(c.extra_body)}

    def prepare(self, url: str | None = None) -> None:
        """The SDK client for ``url`` (and the managed server, if any), built before a run's
        clock or an attempt's starts (the SDK's import alone takes about a second)."""
        self._sdk(url)

    def start_server(self) -> None:
        """Start the managed server, if the configuration has one. Reads no key: a run
        replayed from the response cache may have none, and the key is read only when the
        first request that misses the cache goes out (:meth:`prepare`)."""
        if self._managed is not None:
            server_for(self._managed)

    def _sdk(self, url: str | None = None) -> Any:
        if self._managed is not None:  # looked up each time: a crashed server is restarted
            url = server_for(self._managed).base_url
            return _shared_client(NO_KEY, url, self.config.timeout)
        if url is not None:  # one of several endpoints: one shared client per URL
            if self._key is None and self._key_env is not None:
                self._key = read_api_key(self._key_env)
            return _shared_client(self._key or NO_KEY, url, self.config.timeout)
        if self._client is None:
            if self._key_env is not None:
                self._key = read_api_key(self._key_env)
            self._client = _shared_client(self._key or NO_KEY, self.endpoint, self.config.timeout)
        return self._client

    def send_at(self, url: str, request: Mapping[str, Any]) -> dict[str, Any]:
        """:meth:`send` to one of the configuration's ``endpoints``."""
        return self._post(self._sdk(url), request)

    def send(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """One chat-completions POST; the raw response as JSON.

        The body is already in wire format, so it goes through the SDK's ``post`` (same
        auth, headers, timeout and error classes) rather than ``create``, whose transform of
        every message and tool schema is most of the client's CPU per call.
        """
        return self._post(self._sdk(), request)

    def _post(self, client: Any, request: Mapping[str, Any]) -> dict[str, Any]:
        return post_for_json(client, "/chat/completions", request)

    def parse(self, response: Mapping[str, Any]) -> Completion:
        """First choice's text and function calls, plus token usage."""
        choices = response.get("choices") or []
        if not choices:
            raise ValueError("response has no choices")
        choice = choices[0]
        message = choice["message"]
        calls = tuple(
            CompletionCall(
                id=call.get("id") or "",
                name=call["function"]["name"],
                arguments=call["function"].get("arguments") or "",
            )
            for call in message.get("tool_calls") or []
            if call.get("type", "function") == "function"
        )
        usage = response.get("usage") or {}
        return Completion(
            text=message.get("content"),
            calls=calls,
            input_tokens=usage.get("prompt_tokens"),
            output_tokens=usage.get("completion_tokens"),
            finish_reason=choice.get("finish_reason"),
        )

    def classify(self, exc: BaseException) -> Failure | None:
        """HTTP errors by status, connection errors and timeouts as transient."""
        return classify_sdk_error(exc, "openai")

    def secret(self) -> str | None:
        """The key read from the environment, if any."""
        return self._key
