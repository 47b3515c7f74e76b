"""Shims that map third-party Bedrock adapters (LangChain, Strands, pydantic-ai, LiteLLM, LlamaIndex, Haystack)
to the harness adapter protocol; each imports its library lazily and ships as an optional extra."""

__all__: list[str] = []
