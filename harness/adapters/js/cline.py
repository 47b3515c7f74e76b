"""``cline``: the providers of the Cline coding agent (``@cline/llms``), driven as Cline's agent runtime
(``@cline/agents``) drives them: ``createGateway({providerConfigs}).createAgentModel({providerId: "bedrock",
modelId}).stream(request)``, its Bedrock provider running on ``@ai-sdk/amazon-bedrock`` and ``ai`` with Cline's own
message conversion, cache point and retry middleware; the Node shim ``cline.mjs`` speaks the subprocess protocol.

The release is one of ``@cline/llms`` (``--version``, default the newest; Node >= 22, fetched into the cache when
the system's is older), installed with ``@ai-sdk/amazon-bedrock``, ``ai`` and zod of its era: the newest within the range the release
asks for that was out before the next release (``npm.era_pins``; ``--companion`` overrides), named in the report,
into ``<cache>/@cline+llms@<version>``. ``BEDROCK_HARNESS_CLINE_MODULES`` names a folder to run instead (with the
system's ``node``, nothing installed): the offline tests point it at a fake of the package's surface.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from harness.adapters.js import launch, npm
from harness.adapters.subprocess import DEFAULT_TIMEOUT, SubprocessAdapter

__all__ = ["COMPANIONS", "FLOOR", "LIBRARY", "MODULES_ENV", "cline", "modules_folder", "shim_command"]

LIBRARY = "@cline/llms"
FLOOR = "0.0.41"  # the oldest release certified (certification/cline.floor.json), the first on npm
COMPANIONS = ["@ai-sdk/amazon-bedrock", "ai", "zod"]  # dependencies of the release, pinned to its era and named
MODULES_ENV = "BEDROCK_HARNESS_CLINE_MODULES"
_SHIM = "cline.mjs"
_ENTRY = "bedrock-harness-cline.mjs"  # re-exports the package from the folder that holds it


def _companions(version: str) -> list[str]:
    return npm.era_pins(LIBRARY, version, COMPANIONS, npm.era_end(LIBRARY, version))


def modules_folder(version: str | None, cache: Path) -> tuple[Path, str]:
    """(the folder holding the release's node_modules, the node to run it with), installed on first use."""
    return launch.release_folder(LIBRARY, version, cache, _companions)


def shim_command(folder: Path, node: str) -> list[str]:
    """The command running the shim on the packages in ``folder`` (the entry module refreshed beside them)."""
    return launch.shim_command(_SHIM, _ENTRY, folder, node)


def cline(version: str | None = None, cache_dir: Path | None = None, timeout: float = DEFAULT_TIMEOUT,
          pins: Mapping[str, str] | None = None) -> SubprocessAdapter:
    """The ``cline`` adapter: the release ``version`` of @cline/llms (default: newest), started."""
    return launch.adapter(LIBRARY, _SHIM, _ENTRY, MODULES_ENV, version, cache_dir, timeout, _companions, pins)


cline.takes_release = True  # --version, --cache-dir and --companion go to it
