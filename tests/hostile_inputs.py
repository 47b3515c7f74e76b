"""Hostile inputs besides cassette text (tests/hostile.py has those), generated into a folder, never checked in.

Four classes, each case a function ``make(folder) -> {command: argv}`` naming the commands that read it:

- ``compressed``: a 465 MB gzip in a 460 KB file, a bomb in a second gzip member, a bz2 bomb, a gzip of 7 MiB
  and one just under the 1 MiB decompression limit of the smallest mappings YAML has (``cassette scan``,
  ``cassette import``);
- ``path``: a FIFO, ``/dev/zero`` and a 10 GiB sparse file given as a cassette, a FIFO as a project's cassette or
  scenario (every cassette command, ``serve``, ``run``, ``list``);
- ``adapter``: adapter processes that write stdout without a newline (1 GiB), an unterminated 300 MB hello, a
  50 MB and a 7 MB traceback, 1 GiB of stderr without a newline, and an in-process adapter raising a 50 MB
  message (``certify --command``, ``run --adapter``);
- ``template``: scenarios whose ``tool_results`` template renders gigabytes through a format width (``run``).

Floods are written in 64 KiB pieces, so the adapter process itself stays small: what a benchmark measures is the
harness.
"""

from __future__ import annotations

import bz2
import os
import shutil
import sys
import zlib
from pathlib import Path
from typing import Callable

__all__ = ["INPUTS", "PROJECT"]

PROJECT = Path(__file__).resolve().parents[1]
_VCRPY = b"""interactions:
- request: {method: POST, uri: 'https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse', body: '{}'}
  response: {status: {code: 200, message: OK}, headers: {}, body: {string: '{}'}}
"""


def _squeezed(compressor, size: int, head: bytes = b"a: '", tail: bytes = b"'\n") -> bytes:
    """``head``, ``size`` bytes of ``x``, ``tail``, through ``compressor`` (one piece at a time)."""
    piece, out = b"x" * (1 << 20), [compressor.compress(head)]
    for _ in range(size // len(piece)):
        out.append(compressor.compress(piece))
    out += [compressor.compress(b"x" * (size % len(piece)) + tail), compressor.flush()]
    return b"".join(out)


def _gzip(size: int, **kw) -> bytes:
    return _squeezed(zlib.compressobj(9, zlib.DEFLATED, 31), size, **kw)


def _small_mappings(size: int) -> bytes:
    """YAML of one-key mappings, ``size`` bytes: the most objects per byte a reader builds."""
    return _gzip(0, head=b"items:\n" + b"- {a: 1}\n" * (size // 9), tail=b"")


def _file(name: str, data: bytes | Callable[[], bytes]) -> Callable[[Path], Path]:
    def make(folder: Path) -> Path:
        path = folder / name
        path.write_bytes(data() if callable(data) else data)
        return path
    return make


def _fifo(folder: Path) -> Path:
    path = folder / "fifo.yaml"
    os.mkfifo(path)
    return path


def _dev_zero(folder: Path) -> Path:
    path = folder / "zero.yaml"
    path.symlink_to("/dev/zero")
    return path


def _sparse(folder: Path) -> Path:
    path = folder / "sparse.yaml"
    with open(path, "wb") as handle:
        handle.truncate(10 << 30)
    return path


def _file_250mb(folder: Path) -> Path:
    """A 250 MB file (sparse: its size is what a reader looks at first)."""
    path = folder / "big-250mb.yaml"
    with open(path, "wb") as handle:
        handle.truncate(250 * 1000 * 1000)
    return path


def _readers(make: Callable[[Path], Path]) -> Callable[[Path], dict]:
    """Every command that reads a cassette file, on the file ``make`` leaves in the folder."""
    def commands(folder: Path) -> dict:
        path = str(make(folder))
        return {"verify": ["cassette", "verify", path], "show": ["cassette", "show", path],
                "scan": ["cassette", "scan", path], "import": ["cassette", "import", path, str(folder / "out.yaml")],
                "serve": ["serve", "--cassette", path]}
    return commands


def _importers(make: Callable[[Path], Path]) -> Callable[[Path], dict]:
    def commands(folder: Path) -> dict:
        path = str(make(folder))
        return {"scan": ["cassette", "scan", path], "import": ["cassette", "import", path, str(folder / "out.yaml")]}
    return commands


def _project(folder: Path, scenario: str = "core/smoke-text") -> Path:
    """A root holding one shipped scenario, its golden and its cassette."""
    root = folder / "project"
    for top, suffixes in (("suites", (".yaml", ".golden.yaml")), ("cassettes", (".yaml",))):
        for suffix in suffixes:
            (root / top / scenario).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(PROJECT / top / f"{scenario}{suffix}", root / top / f"{scenario}{suffix}")
    return root


def _cassette_fifo(folder: Path) -> dict:
    root = _project(folder)
    (root / "cassettes/core/smoke-text.yaml").unlink()
    os.mkfifo(root / "cassettes/core/smoke-text.yaml")
    return {"run": ["run", "--root", str(root)]}


def _scenario_fifo(folder: Path) -> dict:
    root = _project(folder)
    os.mkfifo(root / "suites/core/fifo.yaml")
    return {"list": ["list", "--root", str(root)], "run": ["run", "--root", str(root)]}


_ADAPTER = r'''
import json, sys, time
mode, out, err = sys.argv[1], sys.stdout.buffer, sys.stderr.buffer
def flood(stream, size, piece=b"x" * 65536):
    for _ in range(size // len(piece)):
        stream.write(piece)
    stream.flush()
def line(message):
    out.write(json.dumps(message).encode() + b"\n")
    out.flush()
sys.stdin.readline()
if mode == "hello-unterminated":
    flood(out, 300 << 20)
    time.sleep(600)
line({"type": "hello", "name": "hostile", "version": "1", "capabilities": ["text", "streaming", "errors"]})
for _ in sys.stdin:
    if mode == "stdout-unterminated":
        flood(out, 1 << 30)
        time.sleep(600)
    elif mode.startswith("traceback-"):
        out.write(b'{"type": "error", "message": "boom", "traceback": "')
        flood(out, int(mode.split("-")[1]) << 20)
        out.write(b'"}\n')
        out.flush()
    elif mode == "stderr-unterminated":
        flood(err, 1 << 30)
        sys.exit(3)
'''

_IN_PROCESS = '''
class Big:
    """An in-process adapter whose exception carries a 50 MB message."""
    name, version, capabilities = "big-exception", "1", {"text", "streaming", "errors"}

    def stream(self, turn, endpoint):
        raise RuntimeError("x" * (50 << 20))
        yield


BIG = Big()
'''


def _subprocess(mode: str) -> Callable[[Path], dict]:
    def commands(folder: Path) -> dict:
        script = folder / "adapter.py"
        script.write_text(_ADAPTER)
        command = f"{sys.executable} {script} {mode}"
        return {"certify": ["certify", "--command", command, "--scenario", "core/smoke-text", "--format", "json"]}
    return commands


def _in_process(folder: Path) -> dict:
    (folder / "hostile_adapter.py").write_text(_IN_PROCESS)
    return {"run": ["run", "--adapter", "hostile_adapter:BIG", "--scenario", "core/smoke-text", "--format", "json"]}


def _template(content: str) -> Callable[[Path], dict]:
    """core/round-trip with ``content`` as its read_file result template."""
    def commands(folder: Path) -> dict:
        root = _project(folder, "core/round-trip")
        path = root / "suites/core/round-trip.yaml"
        text = path.read_text()
        path.write_text(text.replace('read_file: {content: "Hello, this is the file content.", is_error: false}',
                                     f"read_file: {{content: {content}, is_error: false}}"))
        assert path.read_text() != text
        return {"run": ["run", "--root", str(root), "--format", "json"]}
    return commands


_MB = 1 << 20
# name -> (class, commands for a folder, a word every refusal's one line holds)
INPUTS: dict[str, tuple[str, Callable[[Path], dict], str]] = {
    "gzip-465mb-in-460kb": ("compressed", _importers(_file("bomb.yaml.gz", lambda: _gzip(465 * _MB))), "expands"),
    "gzip-bomb-second-member": ("compressed", _importers(_file("two.yaml.gz", lambda: _gzip(0, head=_VCRPY, tail=b"")
                                                               + _gzip(465 * _MB))), "expands"),
    "bz2-465mb": ("compressed", _importers(_file("bomb.yaml.bz2", lambda: _squeezed(bz2.BZ2Compressor(9), 465 * _MB))),
                  "expands"),
    "gzip-mappings-7mib": ("compressed", _importers(_file("many.yaml.gz", lambda: _small_mappings(7 * _MB))),
                           "expands"),
    "gzip-mappings-1mib": ("compressed", _importers(_file("many.yaml.gz", lambda: _small_mappings(_MB - 4096))),
                           ""),
    "fifo": ("path", _readers(_fifo), "regular file"),
    "dev-zero": ("path", _readers(_dev_zero), "regular file"),
    "sparse-10gib": ("path", _readers(_sparse), "limit"),
    "file-250mb": ("path", _readers(_file_250mb), "limit"),
    "cassette-fifo-in-run": ("path", _cassette_fifo, ""),
    "scenario-fifo": ("path", _scenario_fifo, "regular file"),
    "stdout-unterminated-1gib": ("adapter", _subprocess("stdout-unterminated"), "longer than"),
    "hello-unterminated-300mb": ("adapter", _subprocess("hello-unterminated"), "longer than"),
    "traceback-50mb": ("adapter", _subprocess("traceback-50"), "longer than"),
    "traceback-7mb": ("adapter", _subprocess("traceback-7"), ""),
    "stderr-unterminated-1gib": ("adapter", _subprocess("stderr-unterminated"), "exited"),
    "exception-50mb-in-process": ("adapter", _in_process, ""),
    "template-width-4g": ("template", _template('"{id:>4000000000}"'), "template"),
    "template-200-widths": ("template", _template("[" + ", ".join(['"{id:>50000000}"'] * 200) + "]"), "template"),
    "template-200-widths-1m": ("template", _template("[" + ", ".join(['"{id:>1000000}"'] * 200) + "]"), "template"),
}
