"""How a provider-backed participant is configured (one frozen record per agent or user).

Every field is recorded in the ledger header (``spec.params``) so a run can be rebuilt from
its ledger alone. Nothing here is secret: the API key is referred to by the *name* of the
environment variable that holds it.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from sscbench.errors import ConfigError
from sscbench.llm.credentials import ENV_NAME
from sscbench.llm.endpoints import check_base_url
from sscbench.llm.spread import Policy

ReasoningEffort = Literal["none", "minimal", "low", "medium", "high", "xhigh", "max"]


class Endpoint(BaseModel):
    """One API root of a configuration with several (``endpoints``), with its own cap on
    requests in flight (None: the configuration's ``max_in_flight``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    url: str = Field(min_length=1, description="API root, e.g. http://gpu1:8000/v1")
    max_in_flight: int | None = Field(default=None, ge=1, description="cap on this endpoint")

    @model_validator(mode="before")
    @classmethod
    def _plain_url(cls, value: Any) -> Any:
        # The common form is a list of URLs; a table adds a cap of its own.
        return {"url": value} if isinstance(value, str) else value

    @field_validator("url")
    @classmethod
    def _http_root(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError("an endpoint is an http:// or https:// API root")
        check_base_url(value)
        return value


DEFAULT_ONLY = ("endpoints", "endpoint_policy")
"""Fields left out of the recorded parameters while at their defaults, so ledgers of
configurations that do not use them read as they always did."""


class ProviderConfig(BaseModel):
    """Model, decoding settings and the client's operational settings.

    Defaults follow τ²: temperature 0 and three retries of an empty reply. ``seed=None``
    uses the episode's seed (τ²'s orchestrator sets the model seed to the run seed).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str = Field(min_length=1, description="provider model id, e.g. gpt-4.1")
    temperature: float | None = Field(default=0.0, ge=0.0, description="None: not sent")
    max_tokens: int | None = Field(default=None, ge=1, description="reply token limit")
    seed: int | None = Field(default=None, description="None: the episode's seed")
    send_seed: bool = Field(
        default=True, description="False for servers that reject a seed (it still keys the cache)"
    )
    reasoning_effort: ReasoningEffort | None = Field(
        default=None, description="OpenAI reasoning_effort / Anthropic output_config.effort"
    )
    thinking_budget: int | None = Field(
        default=None, ge=1024, description="Anthropic extended-thinking budget (tokens)"
    )
    extra_body: dict[str, Any] = Field(
        default_factory=dict, description="extra request fields, sent verbatim and hashed"
    )
    base_url: str | None = Field(default=None, description="API root; None: the SDK default")
    api_key_env: str | None = Field(
        default=None, description="NAME of the environment variable holding the key"
    )
    timeout: float = Field(default=120.0, gt=0, description="seconds per attempt (whole)")
    run_time_limit: float | None = Field(
        default=None, gt=0, description="wall-clock seconds per run (episode); None: none"
    )
    max_retries: int = Field(default=5, ge=0, description="retries of a transient failure")
    retry_initial_wait: float = Field(default=1.0, ge=0, description="backoff scale, seconds")
    retry_max_wait: float = Field(default=60.0, ge=0, description="backoff cap, seconds")
    empty_retries: int = Field(default=3, ge=0, description="re-asks after an empty reply")
    cache_dir: str | None = Field(default=None, description="response cache; None: off")
    requests_per_minute: float | None = Field(default=None, gt=0, description="rate limit")
    max_in_flight: int | None = Field(
        default=None, ge=1, description="requests in flight at once to this endpoint, shared"
    )
    endpoints: tuple[Endpoint, ...] | None = Field(
        default=None,
        description="several API roots serving the same model; requests spread over them",
    )
    endpoint_policy: Policy = Field(
        default="least_in_flight", description="how endpoints take turns: or round_robin"
    )
    input_price_per_mtok: float | None = Field(default=None, ge=0, description="USD / 1M")
    output_price_per_mtok: float | None = Field(default=None, ge=0, description="USD / 1M")
    server: Literal["llama.cpp"] | None = Field(
        default=None, description="start and manage a local server (openai-compatible only)"
    )
    server_model: str | None = Field(
        default=None, min_length=1, description="packaged model name or .gguf path; None: smollm2"
    )
    server_chat_format: str | None = Field(
        default=None, min_length=1, description="llama.cpp chat format; None: the model's own"
    )
    server_ctx: int | None = Field(
        default=None, ge=256, description="server context size in tokens; None: 8192"
    )

    @field_validator(
        "temperature",
        "max_tokens",
        "seed",
        "thinking_budget",
        "run_time_limit",
        "server_ctx",
        mode="before",
    )
    @classmethod
    def _none_word(cls, value: Any) -> Any:
        # The command line and TOML have no null: "none" (any case) unsets these fields.
        if isinstance(value, str) and value.strip().lower() in ("none", "null"):
            return None
        return value

    @field_validator("endpoints", mode="before")
    @classmethod
    def _comma_list(cls, value: Any) -> Any:
        # The command line gives text: --agent-param endpoints=http://a/v1,http://b/v1
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    @field_validator("api_key_env")
    @classmethod
    def _env_name(cls, value: str | None) -> str | None:
        if value is not None and not ENV_NAME.fullmatch(value):
            raise ValueError(
                "api_key_env is the NAME of the environment variable holding the key "
                "(e.g. OPENAI_API_KEY), not the key itself"
            )
        return value

    @model_validator(mode="after")
    def _one_endpoint(self) -> ProviderConfig:
        # A managed server brings its own endpoint; its settings mean nothing without it.
        if self.server is not None and self.base_url is not None:
            raise ValueError(
                "set base_url (a server already running) or server (one SSCBench starts), not both"
            )
        if self.endpoints is not None:
            if self.server is not None or self.base_url is not None:
                raise ValueError("set endpoints or base_url/server, not both")
            urls = [e.url for e in self.endpoints]
            if not urls:
                raise ValueError("endpoints is empty: list at least one API root")
            if len(set(urls)) != len(urls):
                raise ValueError("endpoints lists an API root twice")
        if self.server is None:
            for name in ("server_model", "server_chat_format", "server_ctx"):
                if getattr(self, name) is not None:
                    raise ValueError(f"{name} needs server=llama.cpp")
        return self

    @field_validator("base_url")
    @classmethod
    def _no_credentials_in_url(cls, value: str | None) -> str | None:
        if value is not None:
            check_base_url(value)
        return value

    def params(self) -> dict[str, Any]:
        """The configuration as recorded in the ledger header (JSON values, no secret)."""
        dumped = self.model_dump(mode="json")
        for name in DEFAULT_ONLY:
            if getattr(self, name) == type(self).model_fields[name].default:
                dumped.pop(name)
        return dumped

    def endpoint_caps(self) -> tuple[tuple[str, ...], tuple[int | None, ...]]:
        """The ``endpoints``' URLs and their caps (each its own, else ``max_in_flight``)."""
        endpoints = self.endpoints or ()
        urls = tuple(e.url for e in endpoints)
        caps = tuple(e.max_in_flight or self.max_in_flight for e in endpoints)
        return urls, caps

    def cost(self, input_tokens: int | None, output_tokens: int | None) -> float | None:
        """USD cost of one reply, or None when prices or token counts are unknown."""
        if self.input_price_per_mtok is None or self.output_price_per_mtok is None:
            return None
        if input_tokens is None or output_tokens is None:
            return None
        return (
            input_tokens * self.input_price_per_mtok + output_tokens * self.output_price_per_mtok
        ) / 1_000_000


def parse_config(params: dict[str, Any], **defaults: Any) -> ProviderConfig:
    """Validate registry parameters into a config; bad input is a :class:`ConfigError`."""
    try:
        return ProviderConfig.model_validate({**defaults, **params})
    except ValidationError as exc:
        # Input values are left out on purpose: a key pasted into the wrong field must not
        # end up in an error message.
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'config'}: {err['msg']}"
            for err in exc.errors(include_url=False, include_input=False)
        )
        raise ConfigError(f"invalid provider configuration: {problems}") from None
