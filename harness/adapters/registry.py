"""Adapter lookup by name or dotted path: ``reference``, ``reference-invoke`` (and each ``-conversation``), an entry
point, ``module:attribute``."""

from __future__ import annotations

import functools
import importlib
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from harness.adapters.shims.common import EXTRAS, install_hint
from harness.judge.protocol import CAPABILITIES

__all__ = ["ENTRY_POINT_GROUP", "AdapterLoadError", "known_adapters", "load_adapter", "resolve", "shim_extra"]

ENTRY_POINT_GROUP = "bedrock_harness.adapters"
# Built in, so they resolve even from a source checkout without installed metadata, and cannot be shadowed.
_BUILTIN = {"reference": "harness.converse:ConverseAdapter", "reference-invoke": "harness.converse:InvokeAdapter",
            "reference-conversation": "harness.converse:conversation_reference",
            "reference-invoke-conversation": "harness.converse:conversation_reference_invoke"}
_PROTOCOL = ("name", "version", "capabilities", "stream")
SHIMS = "harness.adapters.shims."  # the bundled third-party shims: a missing library is named with its extra


class AdapterLoadError(LookupError):
    """An adapter spec that does not resolve to an adapter; the message says which part failed."""


def _entry_points() -> dict[str, EntryPoint]:
    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def known_adapters() -> list[str]:
    """Every adapter name ``load_adapter`` accepts besides ``module:attribute``."""
    return sorted(set(_BUILTIN) | set(_entry_points()))


def _import(spec: str) -> Any:
    """The object ``module:attribute`` (the attribute may be dotted) names."""
    module, _, attribute = spec.partition(":")
    if not module or not attribute:
        raise AdapterLoadError(f"adapter spec {spec!r}: expected 'module:attribute'")
    try:
        obj = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name and (module == exc.name or module.startswith(exc.name + ".")):
            raise AdapterLoadError(f"module {module!r} not found") from None
        raise AdapterLoadError(f"importing module {module!r} failed: {exc}") from exc
    except Exception as exc:
        raise AdapterLoadError(f"importing module {module!r} failed: {type(exc).__name__}: {exc}") from exc
    for part in attribute.split("."):
        if not hasattr(obj, part):
            raise AdapterLoadError(f"no attribute {attribute!r} in module {module!r}")
        obj = getattr(obj, part)
    return obj


def _load_entry_point(ep: EntryPoint) -> Any:
    try:
        return ep.load()
    except ModuleNotFoundError as exc:
        extra = EXTRAS.get(ep.module.rpartition(".")[2]) if ep.module.startswith(SHIMS) else None
        if extra is None or not exc.name or exc.name.startswith("harness"):
            raise AdapterLoadError(f"adapter {ep.name!r} (entry point {ep.value}) failed to load: {exc}") from exc
        raise AdapterLoadError(f"adapter {ep.name!r} needs {exc.name!r}, which is not installed: "
                               f"{install_hint(extra)}") from None
    except Exception as exc:
        raise AdapterLoadError(f"adapter {ep.name!r} (entry point {ep.value}) failed to load: {exc}") from exc


def shim_extra(spec: str) -> str | None:
    """The bedrock-harness extra of the bundled shim registered as ``spec``, read without importing it (None for
    any other adapter)."""
    ep = _entry_points().get(spec) if isinstance(spec, str) and spec not in _BUILTIN else None
    return EXTRAS.get(ep.module.rpartition(".")[2]) if ep is not None and ep.module.startswith(SHIMS) else None


def _instantiate(obj: Any, spec: str) -> Any:
    """An adapter from an adapter object, an adapter class or a zero-argument factory; checks the protocol."""
    if isinstance(obj, type) or (callable(obj) and not hasattr(obj, "stream")):
        try:
            obj = obj()
        except AdapterLoadError:  # a factory's own one-line refusal (a JavaScript shim without Node or npm)
            raise
        except Exception as exc:
            raise AdapterLoadError(f"adapter {spec!r}: creating it failed: {type(exc).__name__}: {exc}") from exc
    missing = [attr for attr in _PROTOCOL if not hasattr(obj, attr)]
    if missing or not callable(obj.stream):
        raise AdapterLoadError(f"{spec!r} is not an adapter: missing {', '.join(missing) or 'a callable stream'}")
    unknown = sorted(set(obj.capabilities) - CAPABILITIES)
    if unknown:
        raise AdapterLoadError(f"adapter {spec!r} declares unknown capabilities {unknown} "
                               f"(known: {', '.join(sorted(CAPABILITIES))})")
    return obj


def resolve(spec: str) -> Any:
    """What ``spec`` names (an adapter, its class or a factory), not yet instantiated or checked."""
    if not isinstance(spec, str) or not spec.strip():
        raise AdapterLoadError(f"adapter spec must be a non-empty string, got {spec!r}")
    if spec in _BUILTIN:
        return _import(_BUILTIN[spec])
    if ":" in spec:
        return _import(spec)
    registered = _entry_points()
    if spec in registered:
        return _load_entry_point(registered[spec])
    raise AdapterLoadError(f"unknown adapter {spec!r} (known: {', '.join(known_adapters())})")


def load_adapter(spec: str, **release: Any) -> Any:
    """The adapter for ``spec``: a built-in or registered name, or ``module:attribute``. ``release`` (``version``,
    ``cache_dir``, ``pins``, ``timeout``) goes to a factory that takes it (the JavaScript shims); a ``version``,
    ``cache_dir`` or ``pins`` for any other adapter is refused."""
    obj = resolve(spec)
    if getattr(obj, "takes_release", False):
        return _instantiate(functools.partial(obj, **release), spec)
    if release.get("version") is not None or release.get("cache_dir") is not None or release.get("pins"):
        raise AdapterLoadError(f"adapter {spec!r} takes no --version, --cache-dir or --companion (the JavaScript "
                               "shims do; for a Python library's releases use `bedrock-harness matrix`)")
    return _instantiate(obj, spec)
