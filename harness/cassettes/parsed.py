"""YAML files read once: a parsed document is kept on disk by the sha256 of the file's bytes, as Python keeps
bytecode in ``__pycache__``, and read back with ``marshal`` (C, about twenty times faster than parsing the YAML).

Only what ``limits.load_yaml`` accepted is ever kept, under a key that also names the harness version and this
format, so a changed file, a changed reader or changed limits parse afresh. The cache lives in
``$XDG_CACHE_HOME/bedrock-harness/parsed`` (``~/.cache/...``); ``BEDROCK_HARNESS_PARSED_CACHE`` names another
folder, or ``off`` turns it off. Deleting it is always safe. A cache that cannot be read or written is skipped
silently: it only ever saves time. A document ``marshal`` cannot hold (a ``!!timestamp``) is parsed each time.

The same folder remembers which cassette files were checked and found clean (``checked_clean``, ``mark_clean``):
a mark under a key that also names the source of the code that checks and reads them (``harness/wire``,
``harness/cassettes``) and botocore's version, so a changed checker, or a botocore that parses differently,
checks afresh. The mark holds what the reader built from the file (``clean_form``), read back instead of building
it again. Only a clean verdict is kept; a file with problems is checked each time it is read. A ``kind`` keeps
verdicts of other checks apart (the vcrpy integration's secret scan: harness.cassettes.vcr), under keys that also
name what those depend on.
"""

from __future__ import annotations

import functools
import hashlib
import marshal
import os
from pathlib import Path
from typing import Any

from harness.cassettes.limits import load_yaml
from harness.version import __version__

__all__ = ["cache_folder", "checked_clean", "clean_form", "load_yaml_bytes", "mark_clean"]

_FORMAT = 1  # of the cached files: marshal of the document, under a key naming it
_OFF = ("off", "0", "no", "false")


def cache_folder() -> Path | None:
    """Where parsed documents are kept, or None when the cache is turned off."""
    environ = os.environ
    return _folder(environ.get("BEDROCK_HARNESS_PARSED_CACHE"), environ.get("XDG_CACHE_HOME"), environ.get("HOME"))


@functools.lru_cache(maxsize=16)  # asked for every file read; the answer changes only with these variables
def _folder(named: str | None, xdg: str | None, home: str | None) -> Path | None:
    if named is not None and named.strip().lower() in _OFF:
        return None
    if named:
        return Path(named)
    return Path(xdg or Path(home or Path.home()) / ".cache") / "bedrock-harness" / "parsed"


def _entry(data: bytes, folder: Path) -> Path:
    key = hashlib.sha256(f"{_FORMAT}\0{__version__}\0".encode() + data).hexdigest()
    return folder / key[:2] / f"{key[2:]}.marshal"


def _keep(entry: Path, document: Any) -> None:
    """Write ``document`` atomically into ``entry``; any failure leaves the cache as it was."""
    try:
        _write(entry, marshal.dumps(document))
    except ValueError:  # a value marshal cannot hold
        return


def _write(entry: Path, blob: bytes) -> None:
    """``blob`` into ``entry``, atomically (a temporary file renamed); a cache that cannot be written is skipped."""
    import tempfile  # only when a cache entry is written: reading one (list, every later run) needs none of it

    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=entry.parent, prefix=".", suffix=".tmp")
        with os.fdopen(fd, "wb") as out:
            out.write(blob)
        os.replace(temp, entry)
    except OSError:
        return


def load_yaml_bytes(data: bytes) -> Any:
    """``limits.load_yaml`` of ``data`` (UTF-8), from the cache when this exact text was parsed before.

    UnicodeDecodeError, yaml.YAMLError and LimitError as ``load_yaml`` raises them."""
    folder = cache_folder()
    entry = _entry(data, folder) if folder is not None else None
    if entry is not None:
        try:
            return marshal.loads(entry.read_bytes())
        except (OSError, EOFError, ValueError, TypeError):
            pass
    document = load_yaml(data.decode("utf-8"))
    if entry is not None:
        _keep(entry, document)
    return document


@functools.cache
def _checker() -> bytes:
    """What a clean mark's verdict depends on: the checking code's source and botocore's version."""
    import botocore  # only its version: the checks parse every stream with botocore's own parser

    digest = hashlib.sha256(botocore.__version__.encode())
    harness = Path(__file__).resolve().parents[1]
    for path in sorted([*(harness / "wire").glob("*.py"), *(harness / "cassettes").glob("*.py")]):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.digest()


def _mark(data: bytes, folder: Path, kind: bytes = b"clean") -> Path:
    key = hashlib.sha256(kind + b"\0" + __version__.encode() + b"\0" + _checker() + data).hexdigest()
    return folder / key[:2] / f"{key[2:]}.clean"


def checked_clean(data: bytes, kind: bytes = b"clean") -> bool:
    """Whether these exact bytes were checked before by the same checking code and found without problems (by the
    check ``kind`` names: ``verify``'s by default)."""
    folder = cache_folder()
    return folder is not None and _mark(data, folder, kind).is_file()


def mark_clean(data: bytes, form: Any = None, kind: bytes = b"clean") -> None:
    """Remember that these bytes were checked and found clean, with ``form`` beside the verdict when given (what
    the reader built from them, as marshal holds it; ``clean_form`` gives it back); a cache that cannot be written,
    or a form marshal cannot hold, keeps the verdict alone or nothing."""
    folder = cache_folder()
    if folder is None:
        return
    try:
        blob = b"" if form is None else marshal.dumps(form)
    except ValueError:
        blob = b""
    _write(_mark(data, folder, kind), blob)


def clean_form(data: bytes, kind: bytes = b"clean") -> Any:
    """The form ``mark_clean`` kept with these bytes' clean verdict (of ``kind``); None without a verdict or a form."""
    folder = cache_folder()
    if folder is None:
        return None
    try:
        blob = _mark(data, folder, kind).read_bytes()
        return marshal.loads(blob) if blob else None
    except (OSError, EOFError, ValueError, TypeError):
        return None
