"""``langchain-js-blocks``: LangChain.js's content-block streaming, ``streamEvents`` without a version (a
``ChatModelStream``, @langchain/core >= 1.4) on ``ChatBedrockConverse``, run by the Node shim ``langchain_js_blocks.mjs``
on the packages ``langchain-js`` installs (``<cache>/@langchain+aws@<version>``, the newest @langchain/core in the
release's range).
"""

from __future__ import annotations

from pathlib import Path

from harness.adapters.js import launch, npm
from harness.adapters.js.langchain_js import COMPANION, LIBRARY, MODULES_ENV
from harness.adapters.subprocess import DEFAULT_TIMEOUT, SubprocessAdapter

__all__ = ["FLOOR", "LIBRARY", "PROGRAM", "langchain_js_blocks"]

# ChatModelStream is @langchain/core 1.4's, which @langchain/aws takes from 1.0.0 on (0.1.x: @langchain/core < 0.4), so
# 1.0.0 is the oldest release that streams content blocks (certification/langchain-js-blocks.floor.json)
FLOOR = "1.0.0"
PROGRAM = "langchain_js_blocks.mjs"
_ENTRY = "bedrock-harness-langchain-js.mjs"


def _companions(version: str) -> list[str]:
    return [f"{COMPANION}@{npm.peer(LIBRARY, version, COMPANION)}"]


def langchain_js_blocks(version: str | None = None, cache_dir: Path | None = None,
                        timeout: float = DEFAULT_TIMEOUT) -> SubprocessAdapter:
    """The ``langchain-js-blocks`` adapter: content-block streaming on the release ``version`` (default: newest)."""
    return launch.adapter(LIBRARY, PROGRAM, _ENTRY, MODULES_ENV, version, cache_dir, timeout, _companions)


langchain_js_blocks.takes_release = True  # --version and --cache-dir go to it
