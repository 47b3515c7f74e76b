"""The companions of a Python release's era (harness/adapters/era.py): when releases came out, read from a package
index's JSON API (PEP 691/700) served on 127.0.0.1, and matrix running each release with the companion of its era.

The index: fakebedrock 2.0 (uploaded 2026-01-01) and 2.1 (2026-06-01), which take their bug from fakecompanion:
1.0 (2025-12-01) has none, 2.0 (2026-07-01) has it. fakebedrock's wheels also hold ``fakeshim``, a shim naming
fakecompanion as an era companion; the test process imports the same shim from a folder of its own.
"""

from __future__ import annotations

import hashlib
import json
import threading
import zipfile
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.adapters import era, installer
from harness.adapters.installer import PipOptions
from harness.cli import main
from test_matrix import PICKED, ROOT, SOURCE, wheel

SHIM = '''"""A shim naming its library's companion, whose release is the one of the library release's era."""


class Adapter:
    era_companions = ("fakecompanion",)

    def __new__(cls):
        from fakebedrock import Adapter as Release

        return Release()
'''
UPLOADS = {("fakebedrock", "2.0"): "2026-01-01T00:00:00.000000Z", ("fakebedrock", "2.1"): "2026-06-01T00:00:00Z",
           ("fakecompanion", "1.0"): "2025-12-01T00:00:00Z", ("fakecompanion", "2.0"): "2026-07-01T00:00:00Z"}


def _release(folder: Path, version: str) -> None:
    """fakebedrock ``version`` (bug from fakecompanion) with the shim module beside it."""
    source = SOURCE.format(version=version, imports="import fakecompanion", buggy="fakecompanion.BUGGY", keep=-1)
    wheel(folder, "fakebedrock", version, source, ("fakecompanion>=1",))
    with zipfile.ZipFile(folder / f"fakebedrock-{version}-py3-none-any.whl", "a") as out:
        out.writestr("fakeshim.py", SHIM)


class _Index(BaseHTTPRequestHandler):
    folder: Path
    json_api = True

    def do_HEAD(self):  # noqa: N802 (http.server's name); uv asks before it fetches a wheel
        self.head_only = True
        self.do_GET()

    def do_GET(self):  # noqa: N802
        parts = [part for part in self.path.split("/") if part]
        if parts[:1] == ["files"] and len(parts) == 2 and (self.folder / parts[1]).is_file():
            return self._send((self.folder / parts[1]).read_bytes(), "application/octet-stream")
        if parts[:1] == ["simple"] and len(parts) == 2:
            files = [{"filename": path.name, "url": f"/files/{path.name}",
                      "hashes": {"sha256": hashlib.sha256(path.read_bytes()).hexdigest()},
                      "upload-time": UPLOADS[(parts[1], path.name.split("-")[1])]}
                     for path in sorted(self.folder.glob(f"{parts[1]}-*.whl"))]
            if files and self.json_api:
                page = {"meta": {"api-version": "1.1"}, "name": parts[1], "files": files,
                        "versions": sorted({f["filename"].split("-")[1] for f in files})}
                return self._send(json.dumps(page).encode(), "application/vnd.pypi.simple.v1+json")
            if files:
                links = "".join(f'<a href="{f["url"]}#sha256={f["hashes"]["sha256"]}">{f["filename"]}</a>'
                                for f in files)
                return self._send(f"<html><body>{links}</body></html>".encode(), "text/html")
        self.send_error(404)

    def _send(self, body: bytes, kind: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not getattr(self, "head_only", False):
            self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    """(the index URL, the shim's folder for this process, the wheels' folder) while the index serves."""
    files = tmp_path_factory.mktemp("files")
    for version in ("2.0", "2.1"):
        _release(files, version)
    for version, buggy in (("1.0", False), ("2.0", True)):
        wheel(files, "fakecompanion", version, f"BUGGY = {buggy}\n")
    shim = tmp_path_factory.mktemp("shim")
    (shim / "fakeshim.py").write_text(SHIM)
    handler = type("Index", (_Index,), {"folder": files})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/simple", shim, files
    server.shutdown()
    server.server_close()


def test_when_each_release_came_out_is_read_from_the_indexs_json_api(index):
    url, _, _ = index
    options = PipOptions(index_url=url)
    assert era.uploaded("fakebedrock", options) == {"2.0": datetime(2026, 1, 1, tzinfo=timezone.utc),
                                                     "2.1": datetime(2026, 6, 1, tzinfo=timezone.utc)}
    assert era.era_end("fakebedrock", "2.0", options) == datetime(2026, 6, 1, tzinfo=timezone.utc)
    assert era.era_end("fakebedrock", "2.1", options) is None  # the newest: its era is now


def test_an_index_that_cannot_date_its_releases_is_one_line(index, monkeypatch):
    url, _, _ = index
    with pytest.raises(era.EraError, match="--no-index: no package index dates the releases"):
        era.uploaded("fakebedrock", PipOptions(no_index=True))
    monkeypatch.setattr(_Index, "json_api", False)
    with pytest.raises(era.EraError, match=r"/simple/fakebedrock/ has no JSON API \(PEP 691\)"):
        era.uploaded("fakebedrock", PipOptions(index_url=url))
    with pytest.raises(era.EraError, match="asking http://127.0.0.1:9/simple/fakebedrock/"):
        era.uploaded("fakebedrock", PipOptions(index_url="http://127.0.0.1:9/simple"))


@pytest.mark.parametrize("filename, version", [("langchain_aws-1.1.0-py3-none-any.whl", "1.1.0"),
                                               ("langchain-aws-1.1.0.tar.gz", "1.1.0"),
                                               ("langchain_aws-1.1.0.tar.gz", "1.1.0"),
                                               ("langchain_aws-1.1.0.exe", None)])
def test_a_files_version_is_read_from_its_name(filename, version):
    assert era._version_of(filename, "langchain-aws") == version


@pytest.mark.parametrize("kind", ["uv", "pip"])
def test_the_installer_resolves_the_companion_of_the_era(index, tmp_path, kind):
    url, _, _ = index
    if kind == "uv" and installer.find_uv() is None:
        pytest.skip("uv is not installed")
    chosen = installer.choose(kind, tmp_path)
    options = PipOptions(index_url=url)
    if kind == "pip" and "--uploaded-prior-to" not in installer.run_command([*chosen.command, "install", "--help"], "help"):
        with pytest.raises(era.EraError, match="this pip has no --uploaded-prior-to"):  # pip before 26.0
            era.companions_of("fakebedrock", "2.0", ["fakecompanion"], chosen, options)
        return
    assert era.companions_of("fakebedrock", "2.0", ["fakecompanion", "missing"], chosen, options) == [
        "fakecompanion==1.0"]
    assert era.companions_of("fakebedrock", "2.1", ["fakecompanion"], chosen, options) == []  # today's


def _resolves_as_of_a_date(tmp_path) -> bool:
    """Whether the installer matrix picks (uv when installed, else pip) can resolve as of a date."""
    chosen = installer.choose("auto", tmp_path)
    return chosen.kind == "uv" or "--uploaded-prior-to" in installer.run_command(
        [*chosen.command, "install", "--help"], "pip's help")


def test_matrix_runs_each_release_with_the_companion_of_its_era(index, tmp_path, monkeypatch):
    """fakebedrock 2.0 passes with fakecompanion 1.0, the release of its era; 2.1 (the newest) runs with today's
    2.0 and fails; ``--with`` names the companion and takes its place."""
    if not _resolves_as_of_a_date(tmp_path):
        pytest.skip("neither uv nor a pip with --uploaded-prior-to (26.0 and later) is installed")
    url, shim, _ = index
    monkeypatch.syspath_prepend(str(shim))
    base = ["matrix", "fakeshim:Adapter", "--package", "fakebedrock", "--index-url", url, "--cache-dir",
            str(tmp_path / "cache"), "--root", str(ROOT), "--timeout", "30", *PICKED, "--format", "json"]
    done = CliRunner().invoke(main, [*base, "--versions", "2.0,2.1"])
    assert done.exit_code == 0, done.output
    rows = {row["release"]: {r["scenario"]: r["status"] for r in row["results"]}
            for row in json.loads(done.stdout)["releases"]}
    assert rows["2.0"]["core/parallel-calls"] == "pass" and rows["2.1"]["core/parallel-calls"] == "fail"
    assert "fakebedrock==2.0: with fakecompanion==1.0, of its era" in done.stderr
    assert "fakebedrock==2.1: with" not in done.stderr
    given = CliRunner().invoke(main, [*base, "--versions", "2.0", "--with", "fakecompanion==2.0"])
    [row] = json.loads(given.stdout)["releases"]
    assert {r["scenario"]: r["status"] for r in row["results"]}["core/parallel-calls"] == "fail"
    assert "of its era" not in given.stderr


def test_matrix_without_a_dated_index_runs_with_the_harnesss_own_and_says_so(index, tmp_path, monkeypatch):
    _, shim, files = index
    monkeypatch.syspath_prepend(str(shim))
    done = CliRunner().invoke(main, ["matrix", "fakeshim:Adapter", "--package", "fakebedrock", "--no-index",
                                     "--find-links", str(files), "--cache-dir", str(tmp_path / "cache"), "--root",
                                     str(ROOT), "--timeout", "30", "--scenario", "core/single-call",
                                     "--versions", "2.0"])
    assert done.exit_code == 0, done.output
    assert ("fakebedrock==2.0: with the harness's own fakecompanion (--no-index: no package index dates the "
            "releases)") in done.stderr


@pytest.mark.parametrize("spec, names", [("langchain-aws", ("langchain-core",)),
                                         ("langchain-aws-agent", ("langchain-core", "langchain", "langgraph")),
                                         ("langchain-aws-agent-events", ("langchain-core", "langchain", "langgraph")),
                                         ("haystack", ("haystack-ai",))])
def test_the_shims_name_the_companions_of_their_era(spec, names):
    from harness.adapters import releases
    from harness.adapters.registry import AdapterLoadError, resolve

    try:
        resolve(spec)
    except AdapterLoadError:
        pytest.skip(f"{spec}'s library is not installed here")
    assert releases.era_companions(spec) == names
