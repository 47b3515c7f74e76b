"""Any YAML/JSON file read the way every reader reads it: a regular file within the size limit, gzip, bz2 or xz
decompressed within theirs, UTF-16 and UTF-32 read as such (harness.cassettes.views.plain, as the secret scan reads
a file), then UTF-8, safe YAML within the YAML limits (JSON is YAML), or one JSON value per line.

``document_problems`` is what ``cassette scan`` says before it looks for secrets: the one line ``cassette verify``
gives for a file it cannot read or parse, and for a bedrock-harness cassette every problem ``verify`` reports, so
no reader accepts what another refuses.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.cassettes import cassette
from harness.cassettes.cassette import CassetteError, read_bytes

__all__ = ["document_problems", "json_lines", "read_bytes"]


def json_lines(data: bytes) -> list | None:
    """The JSON values of a text with one JSON value per non-blank line (two or more), or None when it is not one."""
    try:
        lines = [line for line in data.decode("utf-8").splitlines() if line.strip()]
        return [json.loads(line) for line in lines] if len(lines) > 1 else None
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None


def _document(path: Path, data: bytes) -> Any:
    """The parsed document (None for JSON lines); CassetteError with the line ``verify`` gives."""
    try:
        return cassette.parse_bytes(data, path)
    except CassetteError:
        if json_lines(data) is None:
            raise
        return None


def document_problems(path, data: bytes | None = None) -> list[str]:
    """Why a YAML/JSON file cannot be read as what it is: one line when it cannot be read or parsed, every problem
    ``verify`` reports when it is a bedrock-harness cassette; [] for anything else that parses. ``data``: the file's
    bytes as ``read_bytes`` gave them, when the caller has them already."""
    try:
        document = _document(Path(path), read_bytes(path) if data is None else data)
        if not cassette.is_cassette(document):
            return []
        return cassette.problems(cassette.from_document(document, path))
    except CassetteError as err:
        return [str(err)]
