"""bedrock-runtime's service model, read once from botocore's own data file.

The request rules (its input shapes) and the event-stream decoder (its output shapes) share one model, read from
the file botocore ships (``botocore/data/bedrock-runtime/<newest api version>/service-2.json[.gz]``): the rules walk
its JSON (``raw_model``; harness.endpoint.rules.validator), the decoder builds ``botocore.model.ServiceModel`` from
it (``service_model``): what a ``botocore.session`` would load, without the session's import, its loader and its
search of every service's folder. Finding the file imports nothing of botocore (``serve`` answers its first
request without botocore). Model files a user
adds through ``AWS_DATA_PATH`` are not read: the rules judge against the model botocore shipped.
"""

from __future__ import annotations

import functools
import gzip
import json
from pathlib import Path
from typing import Any

__all__ = ["SERVICE", "data_file", "operation_model", "raw_model", "service_model"]

SERVICE = "bedrock-runtime"


def data_file() -> Path:
    """The newest ``service-2`` file of bedrock-runtime in botocore's data folder (as botocore's loader picks it)."""
    import importlib.util  # where botocore is, without running its package (its logging set-up and version)

    spec = importlib.util.find_spec("botocore")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("botocore is not installed: its data folder holds bedrock-runtime's service model")
    folder = Path(list(spec.submodule_search_locations)[0]) / "data" / SERVICE
    versions = sorted((p for p in folder.iterdir() if p.is_dir()), key=lambda p: p.name)
    for version in reversed(versions):
        for name in ("service-2.json", "service-2.json.gz"):
            if (version / name).is_file():
                return version / name
    raise FileNotFoundError(f"{folder}: no service-2.json of {SERVICE} in botocore's data")


@functools.lru_cache(maxsize=1)
def raw_model() -> dict:
    """The service model file's JSON, read on the first call (nothing may change it: every caller shares it)."""
    path = data_file()
    raw = path.read_bytes()
    return json.loads(gzip.decompress(raw) if path.suffix == ".gz" else raw)


@functools.lru_cache(maxsize=1)
def service_model() -> Any:
    """The ``botocore.model.ServiceModel`` of bedrock-runtime, built on the first call."""
    from botocore.model import ServiceModel

    return ServiceModel(raw_model(), service_name=SERVICE)


@functools.lru_cache(maxsize=None)
def operation_model(operation: str) -> Any:
    """One operation of the model (``ConverseStream``, ``Converse``, ...), built once."""
    return service_model().operation_model(operation)
