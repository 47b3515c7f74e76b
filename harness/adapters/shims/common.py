"""What the shims share: the library's version as the adapter's, and the model an application keeps between turns."""

from __future__ import annotations

import importlib.metadata
from typing import Any, Callable

from harness.suite.protocol import FEATURES

__all__ = ["EXTRAS", "Shim", "install_hint", "installed_version"]

# shim module -> the bedrock-harness extra that installs its library (pyproject.toml's optional-dependencies)
EXTRAS = {"langchain_aws": "langchain-aws", "strands": "strands", "pydantic_ai": "pydantic-ai", "litellm": "litellm",
          "llama_index": "llama-index", "haystack": "haystack"}


def install_hint(extra: str) -> str:
    return f"pip install 'bedrock-harness[{extra}]'"


def installed_version(distribution: str, extra: str) -> str:
    """The installed library's version; a clear error naming the extra when it is missing."""
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        raise ImportError(f"{distribution} is not installed: {install_hint(extra)}") from None


class Shim:
    """A third-party library as an adapter; subclasses set ``distribution`` and ``extra`` and write ``stream``."""

    name = "?"
    distribution = "?"
    extra = "?"
    capabilities = FEATURES  # a shim that cannot express one leaves it out; one that owns its history adds own_history

    def __init__(self) -> None:
        self.version = installed_version(self.distribution, self.extra)
        self._last: tuple[str, Any] = ("", None)

    def kept(self, key: Any, build: Callable[[], Any]) -> Any:
        """The model built for the last turn when ``key`` is unchanged (an app keeps its model between turns)."""
        cached, model = self._last  # one read: threads sharing the adapter never mix endpoints
        if cached != repr(key):
            model = build()
            self._last = (repr(key), model)
        return model
