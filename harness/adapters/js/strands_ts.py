"""``strands-ts``: the Strands Agents TypeScript SDK (the ``Agent`` of ``@strands-agents/sdk`` with its
``BedrockModel``) run by the Node shim ``strands_ts.mjs`` over the subprocess protocol, an agent-loop adapter as
the Python ``strands-agent`` shim is.

The release is one of ``@strands-agents/sdk`` (``--version``, default the newest), installed with the zod of its era
(the newest within its range out before the next release, ``npm.era_end``; ``--companion`` overrides) into
``<cache>/@strands-agents+sdk@<version>``; the Node that runs it is the system's when it is as new as the release's
engines ask (22 for the 1.x releases), else one npm fetched into the cache.
``BEDROCK_HARNESS_STRANDS_TS_MODULES`` names a folder to run instead (with the system's ``node``, nothing installed):
the offline tests point it at a fake of the SDK's surface.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from harness.adapters.js import launch, npm
from harness.adapters.subprocess import DEFAULT_TIMEOUT, SubprocessAdapter

__all__ = ["FLOOR", "LIBRARY", "MODULES_ENV", "modules_folder", "shim_command", "strands_ts"]

LIBRARY = "@strands-agents/sdk"
FLOOR = "0.7.0"  # the oldest release certified (certification/strands-ts.floor.json); older ones run, uncertified
MODULES_ENV = "BEDROCK_HARNESS_STRANDS_TS_MODULES"
_SHIM = "strands_ts.mjs"
_ENTRY = "bedrock-harness-strands-ts.mjs"  # re-exports the packages from the folder that holds them


def _companions(version: str) -> list[str]:
    return npm.era_pins(LIBRARY, version, ["zod"], npm.era_end(LIBRARY, version))


def modules_folder(version: str | None, cache: Path) -> tuple[Path, str]:
    """(the folder holding the release's node_modules, the node to run it with), installed on first use."""
    return launch.release_folder(LIBRARY, version, cache, _companions)


def shim_command(folder: Path, node: str) -> list[str]:
    """The command running the shim on the packages in ``folder`` (the entry module refreshed beside them)."""
    return launch.shim_command(_SHIM, _ENTRY, folder, node)


def strands_ts(version: str | None = None, cache_dir: Path | None = None, timeout: float = DEFAULT_TIMEOUT,
               pins: Mapping[str, str] | None = None) -> SubprocessAdapter:
    """The ``strands-ts`` adapter: the release ``version`` of @strands-agents/sdk (default: newest), started."""
    return launch.adapter(LIBRARY, _SHIM, _ENTRY, MODULES_ENV, version, cache_dir, timeout, _companions, pins)


strands_ts.takes_release = True  # --version, --cache-dir and --companion go to it
