"""The model client every SSCBench component shares: the provider agents under test, τ²'s
user simulator, the LLM classifier and the LLM judges.

One request pipeline (response cache → rate limit → retries → per-attempt records), the
wire formats of OpenAI chat completions and Anthropic messages through their official
SDKs, credentials read at the last moment and never written, endpoints and their
concurrency caps, and a llama.cpp server SSCBench can start offline. It sits above the
records and the τ² adapter and below the agents, so the judges and the classifier use it
without depending on the agents. See docs/providers.md.
"""
