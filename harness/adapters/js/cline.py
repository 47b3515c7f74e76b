"""``cline``: the providers of the Cline coding agent (``@cline/llms``), driven as Cline's agent runtime
(``@cline/agents``) drives them: ``createGateway({providerConfigs}).createAgentModel({providerId: "bedrock",
modelId}).stream(request)``, its Bedrock provider running on ``@ai-sdk/amazon-bedrock`` and ``ai`` with Cline's own
message conversion, cache point and retry middleware; the Node shim ``cline.mjs`` speaks the subprocess protocol.

The release is one of ``@cline/llms`` (``--version``, default the newest; Node >= 22, fetched into the cache when
the system's is older), installed with ``@ai-sdk/amazon-bedrock`` and ``ai`` in the ranges the release asks for
(``npm.peer``: npm picks the newest within each, the same ones the release itself resolves, named in the report)
into ``<cache>/@cline+llms@<version>``. ``BEDROCK_HARNESS_CLINE_MODULES`` names a folder to run instead (with the
system's ``node``, nothing installed): the offline tests point it at a fake of the package's surface.
"""

from __future__ import annotations

from pathlib import Path

from harness.adapters.js import launch, npm
from harness.adapters.subprocess import DEFAULT_TIMEOUT, SubprocessAdapter

__all__ = ["COMPANIONS", "FLOOR", "LIBRARY", "MODULES_ENV", "cline", "modules_folder", "shim_command"]

LIBRARY = "@cline/llms"
FLOOR = "0.0.41"  # the oldest release certified (certification/cline.floor.json), the first on npm
COMPANIONS = ("@ai-sdk/amazon-bedrock", "ai")  # dependencies of the release, installed beside it to be named
MODULES_ENV = "BEDROCK_HARNESS_CLINE_MODULES"
_SHIM = "cline.mjs"
_ENTRY = "bedrock-harness-cline.mjs"  # re-exports the package from the folder that holds it


def _companions(version: str) -> list[str]:
    return [f"{name}@{npm.peer(LIBRARY, version, name)}" for name in COMPANIONS]


def modules_folder(version: str | None, cache: Path) -> tuple[Path, str]:
    """(the folder holding the release's node_modules, the node to run it with), installed on first use."""
    return launch.release_folder(LIBRARY, version, cache, _companions)


def shim_command(folder: Path, node: str) -> list[str]:
    """The command running the shim on the packages in ``folder`` (the entry module refreshed beside them)."""
    return launch.shim_command(_SHIM, _ENTRY, folder, node)


def cline(version: str | None = None, cache_dir: Path | None = None,
          timeout: float = DEFAULT_TIMEOUT) -> SubprocessAdapter:
    """The ``cline`` adapter: the release ``version`` of @cline/llms (default: newest), started."""
    return launch.adapter(LIBRARY, _SHIM, _ENTRY, MODULES_ENV, version, cache_dir, timeout, _companions)


cline.takes_release = True  # --version and --cache-dir go to it
