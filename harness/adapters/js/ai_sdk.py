"""``ai-sdk``: the Vercel AI SDK (``streamText`` of ``ai`` with ``@ai-sdk/amazon-bedrock``) run by the Node shim
``ai_sdk.mjs`` over the subprocess protocol; ``ai-sdk-agent``: the SDK's own multi-step tool loop on the same
packages (``ai_sdk_agent.mjs``). Both shims share ``ai_sdk_common.mjs``.

The release is one of ``@ai-sdk/amazon-bedrock`` (``--version``, default the newest), installed with the companions of
its era (``npm.era_end``): the newest ``ai`` release on the same ``@ai-sdk/provider`` major (``npm.paired``) and the
newest zod within the range it asks for, each out before the provider's next release (``--companion`` overrides), into
``<cache>/@ai-sdk+amazon-bedrock@<version>``; the Node that runs it is the system's when it is as new as the
release's engines ask, else one npm fetched into the cache.
``BEDROCK_HARNESS_AI_SDK_MODULES`` names a folder to run instead (with the system's ``node``, nothing installed):
the offline tests point it at a fake of the SDK's surface.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from harness.adapters.js import launch, npm
from harness.adapters.subprocess import DEFAULT_TIMEOUT, SubprocessAdapter

__all__ = ["AGENT_PROGRAM", "COMPANION", "FLOOR", "LIBRARY", "MODULES_ENV", "PROGRAM", "ai_sdk", "ai_sdk_agent",
           "modules_folder", "shim_command"]

LIBRARY = "@ai-sdk/amazon-bedrock"
FLOOR = "4.0.159"  # the oldest release certified (certification/ai-sdk.floor.json); older ones run, uncertified
COMPANION = "ai"
SPECIFICATION = "@ai-sdk/provider"  # the interface between the two: a release of each speaks one major of it
MODULES_ENV = "BEDROCK_HARNESS_AI_SDK_MODULES"
_ENTRY = "bedrock-harness-ai-sdk.mjs"  # re-exports the packages from the folder that holds them
PROGRAM = "ai_sdk.mjs"
AGENT_PROGRAM = "ai_sdk_agent.mjs"


def _companions(version: str) -> list[str]:
    end = npm.era_end(LIBRARY, version)
    return [f"{COMPANION}@{npm.paired(LIBRARY, version, COMPANION, SPECIFICATION, end)}",
            *npm.era_pins(LIBRARY, version, ["zod"], end)]


def modules_folder(version: str | None, cache: Path) -> tuple[Path, str]:
    """(the folder holding the release's node_modules, the node to run it with), installed on first use."""
    return launch.release_folder(LIBRARY, version, cache, _companions)


def shim_command(folder: Path, node: str, program: str = PROGRAM) -> list[str]:
    """The command running a shim on the packages in ``folder`` (the entry module refreshed beside them)."""
    return launch.shim_command(program, _ENTRY, folder, node)


def ai_sdk(version: str | None = None, cache_dir: Path | None = None, timeout: float = DEFAULT_TIMEOUT,
           pins: Mapping[str, str] | None = None) -> SubprocessAdapter:
    """The ``ai-sdk`` adapter: the release ``version`` of @ai-sdk/amazon-bedrock (default: newest), started."""
    return launch.adapter(LIBRARY, PROGRAM, _ENTRY, MODULES_ENV, version, cache_dir, timeout, _companions, pins)


def ai_sdk_agent(version: str | None = None, cache_dir: Path | None = None, timeout: float = DEFAULT_TIMEOUT,
                 pins: Mapping[str, str] | None = None) -> SubprocessAdapter:
    """The ``ai-sdk-agent`` adapter: the SDK's own tool loop on the release ``version`` (default: newest), started."""
    return launch.adapter(LIBRARY, AGENT_PROGRAM, _ENTRY, MODULES_ENV, version, cache_dir, timeout, _companions, pins)


ai_sdk.takes_release = True  # --version, --cache-dir and --companion go to it
ai_sdk_agent.takes_release = True
