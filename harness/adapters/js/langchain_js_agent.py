"""``langchain-js-agent``: the ``langchain`` package's own agent loop, ``createAgent({model, tools})`` on LangChain.js's
``ChatBedrockConverse``, run by the Node shim ``langchain_js_agent.mjs`` (one model call per harness turn, streamed
with ``agent.stream``); ``langchain-js-agent-events``: the same loop read through ``agent.streamEvents`` v2
(``langchain_js_agent_events.mjs``). Both share ``langchain_js_loop.mjs``.

The release is one of ``@langchain/aws`` (``--version``), installed with the @langchain/core of its era (as for
``langchain-js``) and the newest ``langchain`` of that era whose own @langchain/core range takes that core
(``--companion`` overrides either), into ``<cache>/@langchain+aws@<version>+langchain``; ``BEDROCK_HARNESS_LANGCHAIN_JS_MODULES`` runs it on a given
folder instead (the offline tests' fake, which holds a fake ``langchain``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from harness.adapters.js import launch, npm
from harness.adapters.js.langchain_js import (AGENT_ENTRY, AGENT_EVENTS_PROGRAM, AGENT_PROGRAM, COMPANION, LIBRARY,
                                              MODULES_ENV)
from harness.adapters.subprocess import DEFAULT_TIMEOUT, SubprocessAdapter

__all__ = ["AGENTS", "FLOOR", "LIBRARY", "agent_companions", "langchain_js_agent", "langchain_js_agent_events"]

# createAgent is langchain 1's, which needs @langchain/core 1.x: @langchain/aws asks for it from 1.0.0 on (0.1.x:
# @langchain/core >=0.3.58 <0.4.0), so 1.0.0 is the oldest release the agent runs on (certification/
# langchain-js-agent.floor.json)
FLOOR = "1.0.0"
AGENTS = "langchain"  # createAgent's package, a peer of the same @langchain/core
_FLAVOUR = f"+{AGENTS}"
# what createAgent runs on, of the same era: langchain 1.2.10 (the era of @langchain/aws 1.0.0) with today's
# langgraph-checkpoint does not load (it imports @langchain/core/utils/uuid, which core 1.1 does not export)
_GRAPH = ["@langchain/langgraph", "@langchain/langgraph-checkpoint"]


def _matching(spec: str) -> list[str]:
    """The releases the npm registry has for ``spec`` (``package@range``), oldest first."""
    out = npm.run_npm(["view", spec, "version", "--json"], f"asking the npm registry for {spec}").strip()
    found = json.loads(out) if out else []
    return [found] if isinstance(found, str) else list(found)


def agent_companions(version: str) -> list[str]:
    """@langchain/core of ``@langchain/aws@version``'s era (the newest in its range out before the next release), the
    newest ``langchain`` release of that era (else of any time) whose own @langchain/core range takes that core, and
    the LangGraph packages of that era within its ranges."""
    end = npm.era_end(LIBRARY, version)
    core = npm.in_era(COMPANION, npm.peer(LIBRARY, version, COMPANION), end)
    agents = [release for release in npm.releases(AGENTS) if int(release.split(".")[0]) >= 1]  # createAgent: 1's
    if end is not None:
        times = npm.published(AGENTS)
        agents = [release for release in agents if release in times and times[release] <= end] or agents
    for release in reversed(agents):
        if core in _matching(f"{COMPANION}@{npm.peer(AGENTS, release, COMPANION)}"):
            return [f"{COMPANION}@{core}", f"{AGENTS}@{release}", *npm.era_pins(AGENTS, release, _GRAPH, end)]
    raise npm.NpmError(f"no release of {AGENTS} >= 1 (createAgent) takes {COMPANION} {core}, which {LIBRARY} "
                       f"{version} runs on (createAgent needs @langchain/aws {FLOOR} or newer)")


def langchain_js_agent(version: str | None = None, cache_dir: Path | None = None, timeout: float = DEFAULT_TIMEOUT,
                       pins: Mapping[str, str] | None = None) -> SubprocessAdapter:
    """The ``langchain-js-agent`` adapter: createAgent's loop on the release ``version`` (default: newest) with the
    ``langchain`` release for its core (``agent_companions``), started."""
    return launch.adapter(LIBRARY, AGENT_PROGRAM, AGENT_ENTRY, MODULES_ENV, version, cache_dir, timeout,
                          agent_companions, pins, _FLAVOUR)


def langchain_js_agent_events(version: str | None = None, cache_dir: Path | None = None,
                              timeout: float = DEFAULT_TIMEOUT,
                              pins: Mapping[str, str] | None = None) -> SubprocessAdapter:
    """The ``langchain-js-agent-events`` adapter: createAgent's loop read through ``streamEvents`` v2, on the packages
    of ``langchain_js_agent`` (the same folder)."""
    return launch.adapter(LIBRARY, AGENT_EVENTS_PROGRAM, AGENT_ENTRY, MODULES_ENV, version, cache_dir, timeout,
                          agent_companions, pins, _FLAVOUR)


langchain_js_agent.takes_release = True  # --version, --cache-dir and --companion go to it
langchain_js_agent_events.takes_release = True
