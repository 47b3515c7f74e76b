"""``langchain-js``: LangChain.js (``ChatBedrockConverse`` of ``@langchain/aws``, ``bindTools(...).stream``) run by
the Node shim ``langchain_js.mjs`` over the subprocess protocol; ``langchain-js-events``: the same model read through
``streamEvents(messages, {version: "v2"})`` (``langchain_js_events.mjs``); ``langchain-js-agent`` and
``langchain-js-agent-events`` (``langchain_js_agent.py``) run ``langchain_js_agent.mjs`` and
``langchain_js_agent_events.mjs`` on the same packages and ``langchain``. The shims share
``langchain_js_common.mjs``.

The release is one of ``@langchain/aws`` (``--version``, default the newest), installed with the companions of
its era (``npm.era_end``): the newest ``@langchain/core`` within the range it asks for (``npm.peer``) and the newest
zod within core's range, each out before the next ``@langchain/aws`` release (``--companion`` overrides), into
``<cache>/@langchain+aws@<version>``. The Node that runs it is the system's when it is as new as the release's
engines ask, else one npm fetched into the cache.
``BEDROCK_HARNESS_LANGCHAIN_JS_MODULES`` names a folder to run instead (with the system's ``node``, nothing
installed): the offline tests point it at a fake of the library's surface.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from harness.adapters.js import launch, npm
from harness.adapters.subprocess import DEFAULT_TIMEOUT, SubprocessAdapter

__all__ = ["AGENT_ENTRY", "AGENT_EVENTS_PROGRAM", "AGENT_PROGRAM", "COMPANION", "EVENTS_PROGRAM", "FLOOR", "LIBRARY",
           "MODULES_ENV", "PROGRAM", "langchain_js", "langchain_js_events", "modules_folder", "shim_command"]

LIBRARY = "@langchain/aws"
FLOOR = "0.1.4"  # the oldest release certified (certification/langchain-js.floor.json); older ones uncertified
COMPANION = "@langchain/core"  # a peer dependency: the application installs it beside @langchain/aws
MODULES_ENV = "BEDROCK_HARNESS_LANGCHAIN_JS_MODULES"
PROGRAM = "langchain_js.mjs"
EVENTS_PROGRAM = "langchain_js_events.mjs"
AGENT_PROGRAM = "langchain_js_agent.mjs"
AGENT_EVENTS_PROGRAM = "langchain_js_agent_events.mjs"
_ENTRY = "bedrock-harness-langchain-js.mjs"  # re-exports the packages from the folder that holds them
AGENT_ENTRY = "bedrock-harness-langchain-js-agent.mjs"  # the same, and langchain's (langchain_js_agent.py)
_AGENT_PROGRAMS = (AGENT_PROGRAM, AGENT_EVENTS_PROGRAM)  # the programs run on AGENT_ENTRY


def _companions(version: str) -> list[str]:
    end = npm.era_end(LIBRARY, version)
    core = npm.in_era(COMPANION, npm.peer(LIBRARY, version, COMPANION), end)
    return [f"{COMPANION}@{core}", *npm.era_pins(COMPANION, core, ["zod"], end)]


def modules_folder(version: str | None, cache: Path) -> tuple[Path, str]:
    """(the folder holding the release's node_modules, the node to run it with), installed on first use."""
    return launch.release_folder(LIBRARY, version, cache, _companions)


def shim_command(folder: Path, node: str, program: str = PROGRAM) -> list[str]:
    """The command running a shim on the packages in ``folder`` (its entry module refreshed beside them)."""
    return launch.shim_command(program, AGENT_ENTRY if program in _AGENT_PROGRAMS else _ENTRY, folder, node)


def langchain_js(version: str | None = None, cache_dir: Path | None = None, timeout: float = DEFAULT_TIMEOUT,
                 pins: Mapping[str, str] | None = None) -> SubprocessAdapter:
    """The ``langchain-js`` adapter: the release ``version`` of @langchain/aws (default: newest), started."""
    return launch.adapter(LIBRARY, PROGRAM, _ENTRY, MODULES_ENV, version, cache_dir, timeout, _companions, pins)


def langchain_js_events(version: str | None = None, cache_dir: Path | None = None, timeout: float = DEFAULT_TIMEOUT,
                        pins: Mapping[str, str] | None = None) -> SubprocessAdapter:
    """The ``langchain-js-events`` adapter: ``streamEvents`` v2 on the release ``version`` (default: newest)."""
    return launch.adapter(LIBRARY, EVENTS_PROGRAM, _ENTRY, MODULES_ENV, version, cache_dir, timeout, _companions,
                          pins)


langchain_js.takes_release = True  # --version, --cache-dir and --companion go to it
langchain_js_events.takes_release = True
