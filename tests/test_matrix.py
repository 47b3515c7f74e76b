"""matrix and bisect over tiny releases of a fake adapter package, built into a temporary find-links folder.

The releases: 0.9 cannot be imported, 1.0 is good, 1.1 drops all but the last of parallel tool calls (the bug),
1.2 still fails but keeps the first call instead (another finding, the same verdict), 1.3 fixes it. Nothing reaches
a package index (--no-index --find-links).
"""

import json
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.studies import matrix
from harness.suite.results import Result, TurnResult

ROOT = Path(__file__).resolve().parents[1]
SOURCE = '''"""A fake adapter library, release {version}."""
{imports}
from harness.converse import ConverseAdapter

BUGGY = {buggy}
KEEP = {keep}  # the one call a buggy release keeps


class Adapter(ConverseAdapter):
    name = "fakebedrock"
    version = "{version}"

    def stream(self, turn, endpoint):
        chunks = list(super().stream(turn, endpoint))
        ids = [c["id"] for c in chunks if c.get("type") == "tool_call"]
        if BUGGY:  # the bug: parallel calls tracked in one "last started" slot
            chunks = [c for c in chunks if c.get("type") != "tool_call" or c["id"] == ids[KEEP]]
        yield from chunks
'''
RELEASES = {"0.9": ("import fakebedrock_missing_dependency", False), "1.0": ("", False), "1.1": ("", True),
            "1.2": ("", True), "1.3": ("", False)}
KEPT = {"1.2": 0}  # the index of the call a buggy release keeps (default -1: the last)
PICKED = ["--scenario", "core/parallel-calls", "--scenario", "core/single-call"]


def build_wheel(folder: Path, version: str, imports: str, buggy: bool, *, buggy_source: str = "",
                requires: tuple[str, ...] = ()) -> None:
    """A release of ``fakebedrock``: BUGGY as given, or (``buggy_source``) read from another package."""
    source = SOURCE.format(version=version, imports=imports, buggy=buggy_source or buggy, keep=KEPT.get(version, -1))
    wheel(folder, "fakebedrock", version, source, requires)


def wheel(folder: Path, name: str, version: str, source: str, requires: tuple[str, ...] = ()) -> None:
    """A minimal pure-Python wheel of package ``name`` (a wheel is a zip with a dist-info)."""
    info = f"{name}-{version}.dist-info"
    metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    files = {f"{name}/__init__.py": source,
             f"{info}/METADATA": metadata + "".join(f"Requires-Dist: {r}\n" for r in requires),
             f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    files[f"{info}/RECORD"] = "".join(f"{path},,\n" for path in [*files, f"{info}/RECORD"])
    with zipfile.ZipFile(folder / f"{name}-{version}-py3-none-any.whl", "w") as out:
        for path, text in files.items():
            out.writestr(path, text)


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    """(find-links folder, cache folder) shared by the tests: each release's environment is built once."""
    links = tmp_path_factory.mktemp("links")
    for version, (imports, buggy) in RELEASES.items():
        build_wheel(links, version, imports, buggy)
    return links, tmp_path_factory.mktemp("cache")


def invoke(index, *args):
    links, cache = index
    options = ["--package", "fakebedrock", "--no-index", "--find-links", str(links), "--cache-dir", str(cache),
               "--root", str(ROOT), "--timeout", "30"]
    return CliRunner().invoke(main, [*args, *options])


def test_matrix_finds_the_release_that_introduced_the_bug_and_the_one_that_fixed_it(index, tmp_path):
    out = tmp_path / "matrix.json"
    done = invoke(index, "matrix", "fakebedrock:Adapter", "--last", "5", *PICKED, "--format", "json",
                  "--output", str(out))
    assert done.exit_code == 0, done.output
    rows = {r["release"]: r for r in json.loads(out.read_text())["releases"]}
    assert list(rows) == ["0.9", "1.0", "1.1", "1.2", "1.3"]
    verdicts = {v: {r["scenario"]: r["status"] for r in row["results"]} for v, row in rows.items()}
    assert not rows["0.9"]["ran"] and "fakebedrock_missing_dependency" in rows["0.9"]["why"]
    assert [verdicts[v]["core/parallel-calls"] for v in ("1.0", "1.1", "1.2", "1.3")] == ["pass", "fail", "fail", "pass"]
    assert {verdicts[v]["core/single-call"] for v in ("1.0", "1.1", "1.2", "1.3")} == {"pass"}
    assert rows["1.1"]["adapter"]["version"] == "1.1"
    # one progress line per release as it starts and as it ends
    assert done.stderr.count("fakebedrock==1.1") == 2 and "[5/5] fakebedrock==1.3: 2 pass" in done.stderr


def test_matrix_text_and_markdown_say_why_a_release_cannot_run(index):
    text = invoke(index, "matrix", "fakebedrock:Adapter", "--versions", "0.9,1.1", *PICKED)
    assert text.exit_code == 0, text.output
    lines = text.stdout.splitlines()
    release, said = lines[2].split(None, 1)
    assert release == "0.9" and said.startswith("cannot run: ") and "'fakebedrock_missing_dependency'" in said
    assert lines[3].split(None, 1) == ["1.1", "1 pass, 1 fail; not passing: core/parallel-calls fail"]
    markdown = invoke(index, "matrix", "fakebedrock:Adapter", "--versions", "1.0,1.1", *PICKED, "--format", "markdown")
    assert "| core/parallel-calls | pass | **fail** |" in markdown.stdout


def test_matrix_exits_1_when_no_release_could_run_and_still_writes_the_table(index):
    done = invoke(index, "matrix", "fakebedrock:Adapter", "--versions", "0.9", *PICKED)
    assert done.exit_code == 1 and "cannot run: " in done.stdout
    assert done.stderr.strip().splitlines()[-1] == "matrix: no release of fakebedrock could run (1 tried)"


@pytest.mark.parametrize("good, bad, first", [("1.0", "1.3", None), ("1.0", "1.2", "1.1"), ("1.3", "1.1", "1.2")])
def test_bisect_finds_the_first_release_where_the_verdict_changes(index, good, bad, first):
    done = invoke(index, "bisect", "fakebedrock:Adapter", "core/parallel-calls", "--good", good, "--bad", bad)
    if first is None:  # both ends pass: nothing to bisect, a usage error
        assert done.exit_code == 2 and "is pass at both 1.0 and 1.3" in done.output
        return
    assert done.exit_code == 0, done.output
    head, *columns = done.stdout.splitlines()
    last = {"1.0": "1.0", "1.3": "1.3"}[good]
    assert head.startswith(f"core/parallel-calls: pass at {last}, fail at {first}: the first release from {good} "
                           f"towards {bad} with another verdict is {first} (probed ")
    assert columns[0].startswith(f"{last}: pass") and columns[0].endswith(f"| {first}: fail")
    assert any("tool_call" in line for line in columns), "the failing side shows its diff"


def test_bisect_columns_fit_the_terminal_and_break_between_words(index, monkeypatch):
    monkeypatch.setenv("COLUMNS", "90")
    done = invoke(index, "bisect", "fakebedrock:Adapter", "core/parallel-calls", "--good", "1.0", "--bad", "1.2")
    assert done.exit_code == 0, done.output
    columns = done.stdout.splitlines()[1:]
    assert max(len(line) for line in columns) <= 90 and any(len(line) > 80 for line in columns)
    right = " ".join(line.split(" | ", 1)[1] for line in columns if " | " in line)
    assert "expected tool_call" in right  # a phrase the 43-character column would have cut mid-word before
    sentence = "turn 0 chunk 1 (tool_call): missing; expected tool_call with id tooluse_abc"
    assert matrix._wrap("    " + sentence, 30) == ["    turn 0 chunk 1", "    (tool_call): missing;",
                                                  "    expected tool_call with id", "    tooluse_abc"]
    assert matrix._wrap("x" * 25, 10) == ["x" * 10, "x" * 10, "x" * 5] and matrix._wrap("", 10) == [""]


# Of core/parallel-calls' three calls (chunks 1-3), 1.1 keeps the last and 1.2 the first.
LAST_KEPT, FIRST_KEPT = ("turn 0 chunk 1 (tool_call): missing; expected tool_call",
                         "turn 0 chunk 3 (tool_call): missing; expected tool_call")


@pytest.mark.parametrize("good, bad, finding, goes", [("1.1", "1.2", LAST_KEPT, True),
                                                     ("1.0", "1.2", FIRST_KEPT, False)])
def test_bisect_on_a_finding_finds_where_it_appears_or_goes_though_the_verdict_stays(index, good, bad, finding, goes):
    verdict = invoke(index, "bisect", "fakebedrock:Adapter", "core/parallel-calls", "--good", "1.1", "--bad", "1.2")
    assert verdict.exit_code == 2 and "is fail at both 1.1 and 1.2: nothing to bisect" in verdict.output
    done = invoke(index, "bisect", "fakebedrock:Adapter", "core/parallel-calls", "--good", good, "--bad", bad,
                  "--finding", finding)
    assert done.exit_code == 0, done.output
    head, *columns = done.stdout.splitlines()
    shown, absent = f"shows {finding!r}", f"does not show {finding!r}"
    before, after, last = (shown, absent, "1.1") if goes else (absent, shown, "1.1")
    assert head.startswith(f"core/parallel-calls: {before} at {last}, {after} at 1.2: the first release from "
                           f"{good} towards {bad} where the finding {'goes' if goes else 'appears'} is 1.2 (probed ")
    assert columns[0].startswith("1.1: fail") and columns[0].endswith("| 1.2: fail")


def test_bisect_on_a_finding_neither_end_shows_is_a_usage_error(index):
    done = invoke(index, "bisect", "fakebedrock:Adapter", "core/parallel-calls", "--good", "1.0", "--bad", "1.3",
                  "--finding", LAST_KEPT)
    assert done.exit_code == 2 and f"does not show {LAST_KEPT!r} at both 1.0 and 1.3: nothing to bisect" in done.output


def test_bisect_rejects_an_unknown_release(index):
    done = invoke(index, "bisect", "fakebedrock:Adapter", "core/parallel-calls", "--good", "1.0", "--bad", "7.0")
    assert done.exit_code == 2 and "--bad 7.0: not a known release (known: 0.9, 1.0, 1.1, 1.2, 1.3)" in done.output


def test_with_installs_a_companion_release_beside_each_release(tmp_path):
    """fakebedrock 2.0 takes its bug from its companion: fakecompanion 2.0 has it, 1.0 does not. pip picks the
    newest companion; ``--with fakecompanion==1.0`` runs the same release with the older one, in its own
    environment beside the first."""
    links, cache = tmp_path / "links", tmp_path / "cache"
    links.mkdir()
    build_wheel(links, "2.0", "import fakecompanion", False, buggy_source="fakecompanion.BUGGY",
                requires=("fakecompanion>=1",))
    for version, buggy in (("1.0", False), ("2.0", True)):
        wheel(links, "fakecompanion", version, f"BUGGY = {buggy}\n")
    rows = {}
    for companions in ((), ("--with", "fakecompanion==1.0")):
        out = tmp_path / "matrix.json"
        done = invoke((links, cache), "matrix", "fakebedrock:Adapter", "--versions", "2.0", *PICKED, *companions,
                      "--format", "json", "--output", str(out))
        assert done.exit_code == 0, done.output
        [row] = json.loads(out.read_text())["releases"]
        rows[companions] = {r["scenario"]: r["status"] for r in row["results"]}
    assert rows[()]["core/parallel-calls"] == "fail" and rows[("--with", "fakecompanion==1.0")]["core/parallel-calls"] == "pass"
    assert "[1/1] fakebedrock==2.0 with fakecompanion==1.0 ..." in done.stderr
    assert sorted(p.name.split("-py")[0] for p in cache.iterdir()) == ["fakebedrock-2.0", "fakebedrock-2.0+fakecompanion_1.0"]
    found = invoke((links, cache), "bisect", "fakebedrock:Adapter", "core/parallel-calls", "--versions", "2.0,2.1",
                   "--good", "2.0", "--bad", "2.1", "--with", "fakecompanion==1.0")  # 2.1 does not exist: not run
    assert "probing fakebedrock==2.0 with fakecompanion==1.0 ..." in found.stderr
    same = invoke((links, cache), "bisect", "fakebedrock:Adapter", "core/parallel-calls", "--versions", "2.0",
                  "--good", "2.0", "--bad", "2.0")
    assert (same.exit_code, same.output) == (2, "Error: --good and --bad both name 2.0: give two releases\n")


def test_an_adapter_without_a_library_needs_package(index):
    done = CliRunner().invoke(main, ["matrix", "reference", "--versions", "1.0"])
    assert done.exit_code == 2 and "does not name its library's distribution: give --package" in done.output


def fake_row(release: str, status: str) -> matrix.Row:
    return matrix.Row(release, (Result("s/x", status, "" if status == "pass" else "broken"),))


@pytest.mark.parametrize("statuses, first", [
    ("pppffff", 3), ("pfffffff", 1), ("ppppppf", 6), ("ppfpp", None),
])
def test_bisect_probes_a_binary_search(statuses, first):
    releases = [f"{n}.0" for n in range(len(statuses))]
    probed = []

    def probe(release):
        probed.append(release)
        return fake_row(release, "pass" if statuses[releases.index(release)] == "p" else "fail")

    if first is None:
        with pytest.raises(ValueError, match="nothing to bisect"):
            matrix.bisect(releases, releases[0], releases[-1], "s/x", probe)
        return
    found = matrix.bisect(releases, releases[0], releases[-1], "s/x", probe)
    assert (found.before.release, found.after.release) == (releases[first - 1], releases[first])
    assert len(probed) <= 2 + (len(releases) - 2).bit_length() and len(set(probed)) == len(probed)


def test_bisect_from_a_newer_good_release_to_the_oldest_one():
    """A fix bisected backwards down to the index's first release (the slice towards index 0 once came out empty)."""
    releases, statuses = ["1.0", "2.0", "3.0", "4.0"], {"1.0": "fail", "2.0": "pass", "3.0": "pass", "4.0": "pass"}
    found = matrix.bisect(releases, "4.0", "1.0", "s/x", lambda release: fake_row(release, statuses[release]))
    assert (found.before.release, found.after.release) == ("2.0", "1.0")


def finding_row(release: str, finding: str) -> matrix.Row:
    turn = TurnResult(0, laws=(finding,) if finding else ())
    return matrix.Row(release, (Result("s/x", "fail", finding or "other", (turn,)),))


@pytest.mark.parametrize("findings, first", [
    (["a", "a", "b", "b", "b"], 2), (["a", "b", "b", "b"], 1), (["", "", "", "a"], 3), (["a", "", "a"], None),
])
def test_bisect_on_a_finding_probes_a_binary_search_over_the_same_verdict(findings, first):
    """Every release fails; the finding "a" appears or goes: the verdict alone shows nothing."""
    releases = [f"{n}.0" for n in range(len(findings))]
    probed = []

    def probe(release):
        probed.append(release)
        return finding_row(release, findings[releases.index(release)])

    with pytest.raises(ValueError, match="is fail at both"):
        matrix.bisect(releases, releases[0], releases[-1], "s/x", probe)
    probed.clear()
    if first is None:
        with pytest.raises(ValueError, match="shows 'a' at both 0.0 and 2.0: nothing to bisect"):
            matrix.bisect(releases, releases[0], releases[-1], "s/x", probe, finding="a")
        return
    found = matrix.bisect(releases, releases[0], releases[-1], "s/x", probe, finding="a")
    assert (found.before.release, found.after.release, found.finding) == (releases[first - 1], releases[first], "a")
    assert len(probed) <= 2 + (len(releases) - 2).bit_length() and len(set(probed)) == len(probed)


def test_a_release_that_cannot_run_neither_shows_nor_hides_a_finding():
    broken = matrix.Row("1.0", why="cannot import")
    assert matrix.state_of(broken, "s/x", "a") == "not run" and matrix.said("not run", "a") == "is not run"
    row = finding_row("2.0", "a law: chunk 3")
    assert matrix.state_of(row, "s/x", "chunk 3") == matrix.SHOWN and matrix.state_of(row, "s/x", "zz") == matrix.NOT_SHOWN
    assert "a law: chunk 3" in matrix.findings_of(row, "s/x") and matrix.findings_of(row, "s/none") == ""


@pytest.mark.parametrize("kind", ["uv", "pip"])
def test_an_interrupted_environment_build_leaves_nothing_behind(index, monkeypatch, tmp_path, kind):
    from harness.adapters import installer, releases

    def broken(command, what):
        raise installer.InstallError(f"{what}: {kind} failed: simulated")

    monkeypatch.setattr(installer, "run_command", broken)
    with pytest.raises(releases.ReleaseError, match=f"installing fakebedrock==1.0: {kind} failed: simulated"):
        releases.environment("fakebedrock", "1.0", tmp_path, installer=installer.Installer(kind, (kind,)))
    assert list(tmp_path.iterdir()) == []


SHIM_LIBRARIES = [("pydantic-ai", "pydantic-ai-slim[bedrock]"), ("pydantic-ai-agent", "pydantic-ai-slim[bedrock]"),
                  ("langchain-aws", "langchain-aws"), ("langchain-aws-events", "langchain-aws"),
                  ("langchain-aws-agent", "langchain-aws"), ("langchain-aws-agent-events", "langchain-aws"),
                  ("strands", "strands-agents"), ("strands-agent", "strands-agents"),
                  ("litellm", "litellm[mcp]"), ("llama-index", "llama-index-llms-bedrock-converse"),
                  ("haystack", "amazon-bedrock-haystack")]


@pytest.mark.parametrize("spec, requirement", SHIM_LIBRARIES)
def test_a_shim_names_its_library_with_the_extras_the_harness_extra_adds(spec, requirement):
    from harness.adapters import releases

    assert releases.requirement_for(spec) == requirement


@pytest.mark.parametrize("spec, requirement", SHIM_LIBRARIES)
def test_a_shim_whose_library_is_not_installed_here_is_named_by_its_extra(spec, requirement, monkeypatch):
    """matrix installs the library into each release's environment; the harness's own need not have it."""
    from harness.adapters import releases

    def missing(name):
        raise releases.AdapterLoadError(f"adapter {name!r} needs 'x', which is not installed")

    monkeypatch.setattr(releases, "resolve", missing)
    assert releases.requirement_for(spec) == requirement
    with pytest.raises(releases.ReleaseError, match="needs 'x'"):
        releases.requirement_for("my_pkg:Adapter")
