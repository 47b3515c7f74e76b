"""``langchain-js-blocks``: LangChain.js's content-block streaming, ``streamEvents`` without a version (a
``ChatModelStream``, @langchain/core >= 1.4) on ``ChatBedrockConverse``, run by the Node shim ``langchain_js_blocks.mjs``
with the @langchain/core of the release's era that has it (the newest in the release's range from 1.4 on, out
before the next release; the newest from 1.4 on when none was out by then; ``--companion`` overrides) and its zod, in
``<cache>/@langchain+aws@<version>+blocks`` (``langchain-js``'s own folder may hold an older core).
"""

from __future__ import annotations

from collections.abc import Mapping
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


_FLAVOUR = "+blocks"
_STREAMS = ">=1.4.0"  # the first @langchain/core with ChatModelStream


def _companions(version: str) -> list[str]:
    end = npm.era_end(LIBRARY, version)
    core = npm.in_era(COMPANION, f"{npm.peer(LIBRARY, version, COMPANION)} {_STREAMS}", end)
    return [f"{COMPANION}@{core}", *npm.era_pins(COMPANION, core, ["zod"], end)]


def langchain_js_blocks(version: str | None = None, cache_dir: Path | None = None, timeout: float = DEFAULT_TIMEOUT,
                        pins: Mapping[str, str] | None = None) -> SubprocessAdapter:
    """The ``langchain-js-blocks`` adapter: content-block streaming on the release ``version`` (default: newest)."""
    return launch.adapter(LIBRARY, PROGRAM, _ENTRY, MODULES_ENV, version, cache_dir, timeout, _companions, pins,
                          _FLAVOUR)


langchain_js_blocks.takes_release = True  # --version, --cache-dir and --companion go to it
