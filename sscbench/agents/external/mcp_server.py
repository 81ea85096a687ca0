"""One run's MCP server: τ²'s tools through the fault choke point, the user as a tool.

Built on the official ``mcp`` SDK's low-level :class:`mcp.server.lowlevel.Server` (its
handlers, its transports; no JSON-RPC of our own). What a client sees:

* **tools** — the domain's τ² tools with τ²'s own names, descriptions and JSON schemas (and
  the run's interface variants), plus ``send_message_to_user(message)``, which returns the
  user's reply, and ``end_conversation()``. Arguments are not validated against the
  schemas here: a wrongly typed call reaches τ²'s tool and gets τ²'s own error observation,
  recorded in the ledger like any call, exactly as an in-process agent's would;
* **prompts** — ``system_prompt`` (τ²'s agent system prompt and policy, plus how to talk to
  the user through the tools), ``tau2_system_prompt`` (τ²'s text verbatim) and
  ``conversation`` (the greeting and the user's opening message, as messages);
* **resources** — ``sscbench://policy``, ``sscbench://system-prompt`` and
  ``sscbench://conversation`` (the same texts, for clients that read resources), and
  ``sscbench://run`` (the run's id, domain, τ² task and seed: what a reference agent that
  plays the task's gold plan needs; never the fault).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sscbench.agents.external.agent import END, ClientLog
from sscbench.agents.external.bridge import Action, Bridge, ConversationOver
from sscbench.agents.providers.scaffold import agent_scaffold
from sscbench.envs.environment import tool_kinds
from sscbench.records.events import ExternalClient

if TYPE_CHECKING:
    import mcp_types as types
    from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
    from mcp.server.lowlevel import Server

    from sscbench.agents.base import EpisodeContext

SEND = "send_message_to_user"

CONVERSATION_NOTE = f"""
<conversation>
You are connected to the customer through tools. To say something to the customer, call
`{SEND}` with your message: it returns the customer's reply. The customer cannot see
anything you do not send that way. The prompt `conversation` (or the resource
sscbench://conversation) holds the customer's opening message. When the customer's requests
are handled and the customer has said goodbye, the conversation is over; call
`{END}` only if you must end it yourself.
</conversation>
""".strip()
"""How a served agent talks to the user, appended to τ²'s system prompt in ``system_prompt``."""

NATIVE_NOTE = f"""
<conversation>
The prompt `conversation` (or the resource sscbench://conversation) holds the user's
instruction. Do the task with the tools; when it is done, or cannot be done, tell the user
by calling `{SEND}` once: that message ends the task.
</conversation>
""".strip()
"""The same for a task of the native observation-contract suite, where the user gives one
instruction and the agent's first message to the user ends the episode."""

NATIVE_INSTRUCTIONS = (
    "An SSCBench run: a task of the native observation-contract suite (a service on a "
    "virtual clock). Load the prompt 'system_prompt' as your system prompt and "
    f"'conversation' for the user's instruction; report to the user with the tool '{SEND}'."
)

INSTRUCTIONS = (
    "An SSCBench run: a τ²-bench customer-service conversation with injected faults. Load the "
    "prompt 'system_prompt' as your system prompt and 'conversation' for the customer's "
    f"opening message; talk to the customer only with the tool '{SEND}'."
)


def _tools(ctx: EpisodeContext) -> list[types.Tool]:
    import mcp_types as types

    kinds = tool_kinds(ctx.domain) if ctx.tool_kinds is None else ctx.tool_kinds
    tools = []
    for schema in agent_scaffold(ctx).tools:
        function = schema["function"]
        tools.append(
            types.Tool(
                name=function["name"],
                description=function.get("description"),
                input_schema=function.get("parameters") or {"type": "object", "properties": {}},
                annotations=types.ToolAnnotations(
                    read_only_hint=kinds.get(function["name"]) in ("read", "think")
                ),
            )
        )
    tools.append(
        types.Tool(
            name=SEND,
            description="Send a message to the customer and wait for the reply, which this "
            "tool returns. It is the only way to talk to the customer.",
            input_schema={
                "type": "object",
                "properties": {
                    "message": {"type": "string", "description": "what to tell the customer"}
                },
                "required": ["message"],
            },
        )
    )
    tools.append(
        types.Tool(
            name=END,
            description="End the conversation with the customer. Nothing can be done after it.",
            input_schema={"type": "object", "properties": {}},
        )
    )
    return tools


def _text_result(
    text: str, *, error: bool = False, ended: str | None = None
) -> types.CallToolResult:
    import mcp_types as types

    result = types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], is_error=error
    )
    if ended is not None:  # the SDK's models take _meta by its wire name only
        result = result.model_copy(update={"meta": {"sscbench/conversation_ended": ended}})
    return result


def run_identity(ctx: EpisodeContext, run_id: str) -> dict[str, Any]:
    """What ``sscbench://run`` says about the run: enough for a reference agent (which plays
    the task's gold plan) to know its task; never the fault."""
    return {"run_id": run_id, "domain": ctx.domain, "task_id": str(ctx.task.id), "seed": ctx.seed}


def build_server(
    bridge: Bridge, episode: EpisodeContext, log: ClientLog, transport: str, run_id: str
) -> Server:
    """The MCP server of one run (the module docstring lists what it serves)."""
    import mcp_types as types
    from mcp.server.lowlevel import Server
    from mcp.shared.exceptions import MCPError

    from sscbench import __version__

    scaffold = agent_scaffold(episode)
    native = episode.tools is not None  # not a τ² domain: the native suite's tools
    system = f"{scaffold.system}\n{NATIVE_NOTE if native else CONVERSATION_NOTE}"
    tools = _tools(episode)

    async def list_tools(
        _: ServerRequestContext[Any], __: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(
        _: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        arguments = dict(params.arguments or {})
        if params.name == SEND:
            message = arguments.get("message")
            if not isinstance(message, str) or set(arguments) - {"message"}:
                log.add("rejected", method="tools/call", tool=SEND, why="needs one string message")
                return _text_result(
                    f"Error: {SEND} takes one argument, message, a string", error=True
                )
            action = Action(kind="say", text=message)
        elif params.name == END:
            action = Action(kind="end", text=END)
        else:
            action = Action(kind="call", name=params.name, arguments=arguments)
        try:
            reply = await bridge.submit(action)
        except ConversationOver as over:  # logged by the middleware below
            raise MCPError(code=types.INVALID_REQUEST, message=str(over)) from None
        if reply.ended:
            text = reply.content
            if not reply.error:
                text += f"\n\n[The conversation has ended: {reply.reason}.]"
            return _text_result(text, error=reply.error, ended=reply.reason)
        return _text_result(reply.content, error=reply.error)

    async def list_prompts(
        _: ServerRequestContext[Any], __: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        return types.ListPromptsResult(
            prompts=[
                types.Prompt(
                    name="system_prompt",
                    description="τ²'s agent system prompt with the domain policy, and how to "
                    "talk to the customer through this server's tools",
                ),
                types.Prompt(
                    name="tau2_system_prompt",
                    description="τ²'s agent system prompt with the domain policy, verbatim",
                ),
                types.Prompt(
                    name="conversation",
                    description="the conversation so far: the greeting and the customer's "
                    "opening message",
                ),
            ]
        )

    async def conversation_messages() -> list[types.PromptMessage]:
        events = await bridge.conversation()
        return [
            types.PromptMessage(
                role="assistant" if e.kind == "agent_message" else "user",
                content=types.TextContent(type="text", text=e.content),
            )
            for e in events
            if e.kind in ("agent_message", "user_message")
        ]

    async def get_prompt(
        _: ServerRequestContext[Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        if params.name in ("system_prompt", "tau2_system_prompt"):
            text = system if params.name == "system_prompt" else scaffold.system
            return types.GetPromptResult(
                description="use as the agent's system prompt",
                messages=[
                    types.PromptMessage(
                        role="user", content=types.TextContent(type="text", text=text)
                    )
                ],
            )
        if params.name == "conversation":
            return types.GetPromptResult(
                description="the conversation so far", messages=await conversation_messages()
            )
        raise MCPError(code=types.INVALID_PARAMS, message=f"unknown prompt {params.name!r}")

    identity = json.dumps(run_identity(episode, run_id))
    resources: dict[str, tuple[str, str, Callable[[], str]]] = {
        "sscbench://policy": ("policy", "text/markdown", lambda: episode.policy),
        "sscbench://system-prompt": ("system-prompt", "text/plain", lambda: system),
        "sscbench://run": ("run", "application/json", lambda: identity),
    }

    async def list_resources(
        _: ServerRequestContext[Any], __: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        listed = [
            types.Resource(name=name, uri=uri, mime_type=mime)
            for uri, (name, mime, _read) in resources.items()
        ]
        listed.append(
            types.Resource(
                name="conversation", uri="sscbench://conversation", mime_type="application/json"
            )
        )
        return types.ListResourcesResult(resources=listed)

    async def read_resource(
        _: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        if uri == "sscbench://conversation":
            events = await bridge.conversation()
            text = json.dumps(
                [
                    {"role": "assistant" if e.kind == "agent_message" else "user", "content": c}
                    for e in events
                    if (c := getattr(e, "content", None)) is not None
                ]
            )
            mime = "application/json"
        elif uri in resources:
            _name, mime, read = resources[uri]
            text = read()
        else:
            raise MCPError(code=types.INVALID_PARAMS, message=f"unknown resource {uri!r}")
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mime_type=mime, text=text)]
        )

    async def refuse_discover(
        _: ServerRequestContext[Any], __: types.RequestParams | None
    ) -> types.DiscoverResult:
        # A run is one stateful session; the stateless 2026-07-28 era has no session to
        # bind a run to, so clients fall back to the initialize handshake (they do so on
        # any error to this probe).
        raise MCPError(code=types.METHOD_NOT_FOUND, message="SSCBench serves session-era MCP")

    server: Server[Any] = Server(
        "sscbench",
        version=__version__,
        instructions=NATIVE_INSTRUCTIONS if native else INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
    )
    if transport != "stdio":  # over stdio the process is the session: either era binds
        server.add_request_handler("server/discover", types.RequestParams, refuse_discover)

    def bind(info: types.Implementation | None, protocol: str | None) -> None:
        client = ExternalClient(
            transport="stdio" if transport == "stdio" else "streamable-http",
            name=info.name if info is not None else "unknown",
            version=info.version if info is not None else "unknown",
            protocol_version=protocol,
        )
        if not bridge.attach(client):
            raise MCPError(code=types.INVALID_REQUEST, message="this run already has a client")
        log.add(
            "connected",
            name=client.name,
            version=client.version,
            protocol_version=client.protocol_version,
        )

    async def watch(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """Bind the run to the first client that initialises; refuse any other; log what
        never reached the episode."""
        if ctx.method == "initialize":
            init = types.InitializeRequestParams.model_validate(ctx.params or {}, by_name=False)
            if bridge.client is not None or bridge.ended is not None:
                log.add("refused", client=init.client_info.name, why="the run has a client")
                raise MCPError(
                    code=types.INVALID_REQUEST,
                    message="this run already has a client; two clients never share a run",
                )
            result = await call_next(ctx)
            negotiated = result.get("protocolVersion") if isinstance(result, dict) else None
            bind(init.client_info, negotiated if isinstance(negotiated, str) else None)
            return result
        if bridge.client is None and transport == "stdio" and ctx.method != "server/discover":
            # the stateless era over stdio: the first real request names its client
            params = ctx.session.client_params
            bind(None if params is None else params.client_info, ctx.protocol_version)
        try:
            return await call_next(ctx)
        except MCPError as exc:
            log.add("rejected", method=ctx.method, why=exc.error.message)
            raise
        except ValueError as exc:  # pydantic's ValidationError: malformed params
            log.add("rejected", method=ctx.method, why=str(exc).splitlines()[0])
            raise

    server.middleware.append(watch)
    return server
