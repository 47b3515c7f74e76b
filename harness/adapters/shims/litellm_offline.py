"""The environment under which LiteLLM reaches nothing beyond loopback, worked out without importing it (a bare
``import litellm`` fetches a price map): its local-only switches and, per release, its bundled tiktoken files."""

from __future__ import annotations

import contextlib
import importlib.util
import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

__all__ = ["SWITCHES", "bundled_tokenizers", "offline", "offline_environment"]

# LiteLLM fetches its model price map at import and Anthropic beta headers on first use unless told to use its
# bundled copies.
SWITCHES = {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS": "True"}


def bundled_tokenizers(package_folders: Sequence[str], environ: Mapping[str, str]) -> dict:
    """``TIKTOKEN_CACHE_DIR`` at the tiktoken files the package ships (LiteLLM's own rule: CUSTOM_TIKTOKEN_CACHE_DIR
    when set, else ``litellm_core_utils/tokenizers``); nothing when it ships none."""
    # Some releases' lazy ``litellm.encoding`` calls tiktoken.get_encoding("cl100k_base") without first pointing
    # TIKTOKEN_CACHE_DIR at the bundled copy, so a stream's first token count downloads the encoding from
    # openaipublic.blob.core.windows.net (1.80.17 does; 1.80.6 sets the variable when litellm.utils imports
    # default_encoding, 1.81.16 and later when the lazy loader imports it). Set for every release: it is the
    # folder each release points at itself.
    folders = [Path(folder) / "litellm_core_utils" / "tokenizers" for folder in package_folders]
    bundled = [str(folder) for folder in folders if folder.is_dir()]
    cache = environ.get("CUSTOM_TIKTOKEN_CACHE_DIR") or next(iter(bundled), None)
    return {"TIKTOKEN_CACHE_DIR": cache} if cache else {}


def offline_environment() -> dict:
    """The switches plus the installed LiteLLM's bundled tokenizers (found by its import spec, not an import)."""
    spec = importlib.util.find_spec("litellm")
    folders = list(spec.submodule_search_locations or ()) if spec else []
    return {**SWITCHES, **bundled_tokenizers(folders, os.environ)}


@contextlib.contextmanager
def offline(environment: Mapping[str, str]) -> Iterator[None]:
    """``environment`` set in os.environ for the duration, then each variable restored (or removed)."""
    saved = {key: os.environ.get(key) for key in environment}
    os.environ.update(environment)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
