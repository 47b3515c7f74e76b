"""``langchain-js``: LangChain.js (``ChatBedrockConverse`` of ``@langchain/aws``, ``bindTools(...).stream``) run by
the Node shim ``langchain_js.mjs`` over the subprocess protocol; ``langchain-js-events``: the same model read through
``streamEvents(messages, {version: "v2"})`` (``langchain_js_events.mjs``); ``langchain-js-agent``: the ``langchain``
package's own agent loop, ``createAgent({model, tools})`` (``langchain_js_agent.mjs``). The shims share
``langchain_js_common.mjs``.

The release is one of ``@langchain/aws`` (``--version``, default the newest), installed with the newest
``@langchain/core`` within the range it asks for (``npm.peer``) into ``<cache>/@langchain+aws@<version>``; the agent
adds the newest ``langchain`` whose own ``@langchain/core`` range takes that core, in
``<cache>/@langchain+aws@<version>+langchain``. The Node that runs it is the system's when it is as new as the
release's engines ask, else one npm fetched into the cache.
``BEDROCK_HARNESS_LANGCHAIN_JS_MODULES`` names a folder to run instead (with the system's ``node``, nothing
installed): the offline tests point it at a fake of the library's surface.
"""

from __future__ import annotations

import json
from pathlib import Path

from harness.adapters.js import launch, npm
from harness.adapters.subprocess import DEFAULT_TIMEOUT, SubprocessAdapter

__all__ = ["AGENT_FLOOR", "AGENT_PROGRAM", "AGENTS", "COMPANION", "EVENTS_PROGRAM", "FLOOR", "LIBRARY", "MODULES_ENV",
           "PROGRAM", "agent_companions", "langchain_js", "langchain_js_agent", "langchain_js_events",
           "modules_folder", "shim_command"]

LIBRARY = "@langchain/aws"
FLOOR = "0.1.4"  # the oldest release certified (certification/langchain-js.floor.json); older ones uncertified
# createAgent (langchain >= 1) needs @langchain/core 1.x, which @langchain/aws asks for from 1.0.0 on (0.1.x: < 0.4)
AGENT_FLOOR = "1.0.0"
COMPANION = "@langchain/core"  # a peer dependency: the application installs it beside @langchain/aws
AGENTS = "langchain"  # createAgent's package, a peer of the same @langchain/core
MODULES_ENV = "BEDROCK_HARNESS_LANGCHAIN_JS_MODULES"
PROGRAM = "langchain_js.mjs"
EVENTS_PROGRAM = "langchain_js_events.mjs"
AGENT_PROGRAM = "langchain_js_agent.mjs"
_ENTRY = "bedrock-harness-langchain-js.mjs"  # re-exports the packages from the folder that holds them
_AGENT_ENTRY = "bedrock-harness-langchain-js-agent.mjs"  # the same, and langchain's
_AGENT_FLAVOUR = f"+{AGENTS}"


def _companions(version: str) -> list[str]:
    return [f"{COMPANION}@{npm.peer(LIBRARY, version, COMPANION)}"]


def _matching(spec: str) -> list[str]:
    """The releases the npm registry has for ``spec`` (``package@range``), oldest first."""
    out = npm.run_npm(["view", spec, "version", "--json"], f"asking the npm registry for {spec}").strip()
    found = json.loads(out) if out else []
    return [found] if isinstance(found, str) else list(found)


def agent_companions(version: str) -> list[str]:
    """@langchain/core as npm installs it for ``@langchain/aws@version`` (the newest in its range), and the newest
    ``langchain`` release whose own @langchain/core range takes that core."""
    core = (_matching(f"{COMPANION}@{npm.peer(LIBRARY, version, COMPANION)}") or [None])[-1]
    if core is None:
        raise npm.NpmError(f"no release of {COMPANION} is in the range {LIBRARY} {version} asks for")
    for release in reversed(npm.releases(AGENTS)):
        if int(release.split(".")[0]) < 1:  # createAgent is langchain 1's
            break
        if core in _matching(f"{COMPANION}@{npm.peer(AGENTS, release, COMPANION)}"):
            return [f"{COMPANION}@{core}", f"{AGENTS}@{release}"]
    raise npm.NpmError(f"no release of {AGENTS} >= 1 (createAgent) takes {COMPANION} {core}, which {LIBRARY} "
                       f"{version} runs on (createAgent needs @langchain/aws {AGENT_FLOOR} or newer)")


def modules_folder(version: str | None, cache: Path) -> tuple[Path, str]:
    """(the folder holding the release's node_modules, the node to run it with), installed on first use."""
    return launch.release_folder(LIBRARY, version, cache, _companions)


def shim_command(folder: Path, node: str, program: str = PROGRAM) -> list[str]:
    """The command running a shim on the packages in ``folder`` (its entry module refreshed beside them)."""
    return launch.shim_command(program, _AGENT_ENTRY if program == AGENT_PROGRAM else _ENTRY, folder, node)


def langchain_js(version: str | None = None, cache_dir: Path | None = None,
                 timeout: float = DEFAULT_TIMEOUT) -> SubprocessAdapter:
    """The ``langchain-js`` adapter: the release ``version`` of @langchain/aws (default: newest), started."""
    return launch.adapter(LIBRARY, PROGRAM, _ENTRY, MODULES_ENV, version, cache_dir, timeout, _companions)


def langchain_js_events(version: str | None = None, cache_dir: Path | None = None,
                        timeout: float = DEFAULT_TIMEOUT) -> SubprocessAdapter:
    """The ``langchain-js-events`` adapter: ``streamEvents`` v2 on the release ``version`` (default: newest)."""
    return launch.adapter(LIBRARY, EVENTS_PROGRAM, _ENTRY, MODULES_ENV, version, cache_dir, timeout, _companions)


def langchain_js_agent(version: str | None = None, cache_dir: Path | None = None,
                       timeout: float = DEFAULT_TIMEOUT) -> SubprocessAdapter:
    """The ``langchain-js-agent`` adapter: createAgent's loop on the release ``version`` (default: newest) with the
    ``langchain`` release for its core (``agent_companions``), started."""
    return launch.adapter(LIBRARY, AGENT_PROGRAM, _AGENT_ENTRY, MODULES_ENV, version, cache_dir, timeout,
                          agent_companions, _AGENT_FLAVOUR)


langchain_js.takes_release = True  # --version and --cache-dir go to it
langchain_js_events.takes_release = True
langchain_js_agent.takes_release = True
