"""Recording through the emulator is deterministic: the same scenario gives the same cassette bytes, every time.

Every shipped cassette is recorded again into a temporary folder and compared byte for byte with the shipped
one; a second recording in another process (another hash seed, so another order of vcrpy's header set) must
match the first.
"""

import difflib
import os
import subprocess
import sys
from pathlib import Path

import botocore
import pytest
import yaml

from harness.converse import ConverseAdapter
from harness.suite.record import Target, record_scenario
from harness.suite.scenario import discover

REPO = Path(__file__).resolve().parents[1]
SCENARIOS = discover(REPO / "suites")
IDS = [s.id for s in SCENARIOS]


def _root(path: Path) -> Path:
    path.mkdir()
    (path / "suites").symlink_to(REPO / "suites", target_is_directory=True)
    return path


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> Path:
    """Every scenario recorded through the emulator, in this process."""
    root = _root(tmp_path_factory.mktemp("record") / "first")
    for scenario in SCENARIOS:
        outcome = record_scenario(scenario, ConverseAdapter(), root, Target("emulator"), "rewrite")
        assert outcome.status == "recorded", (scenario.id, outcome.messages)
    return root


@pytest.fixture(scope="module")
def recorded_again(tmp_path_factory) -> Path:
    """Every scenario recorded again by the CLI in another process, with another hash seed."""
    root = _root(tmp_path_factory.mktemp("record") / "second")
    command = [sys.executable, "-c", "from harness.cli import main; main()", "record", "--emulate", "--root", str(root)]
    done = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "4321"},
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return root


def _same_bytes(expected: Path, actual: Path, botocore_line: str = "") -> None:
    """Byte-identical, except the metadata's botocore release when ``botocore_line`` (the expected one) is given."""
    old, new = expected.read_bytes(), actual.read_bytes()
    if botocore_line:
        new = new.replace(f"  botocore: {botocore.__version__}\n".encode(), botocore_line.encode(), 1)
    if old != new:
        diff = difflib.unified_diff(old.decode().splitlines(), new.decode().splitlines(), str(expected), str(actual),
                                    lineterm="", n=1)
        pytest.fail("\n".join(list(diff)[:40]))


@pytest.mark.parametrize("sid", IDS)
def test_recording_twice_gives_the_same_bytes(recorded, recorded_again, sid):
    _same_bytes(recorded / "cassettes" / f"{sid}.yaml", recorded_again / "cassettes" / f"{sid}.yaml")


@pytest.mark.parametrize("sid", IDS)
def test_a_shipped_cassette_is_what_recording_it_again_gives(recorded, sid):
    shipped = REPO / "cassettes" / f"{sid}.yaml"
    meta = yaml.safe_load(shipped.read_text(encoding="utf-8"))["metadata"]
    if meta.get("source") != "emulator":
        pytest.skip(f"{shipped} was recorded from {meta.get('source')}, not the emulator")
    # The botocore release is recorded in the metadata; everything else must be what recording gives today (a
    # botocore that builds the request differently fails here: record the cassettes again with
    # `bedrock-harness record --emulate --record-mode rewrite`).
    _same_bytes(shipped, recorded / "cassettes" / f"{sid}.yaml", botocore_line=f"  botocore: {meta.get('botocore')}\n")


def test_nothing_volatile_is_left_in_a_recording(recorded):
    text = (recorded / "cassettes" / "faults" / "http-429-then-success.yaml").read_text(encoding="utf-8")
    for noise in ("127.0.0.1:", "Date:", "amz-sdk-request", "recorded:", "X-Amz-Date", "User-Agent"):
        assert noise not in text
    assert "Credential=SCRUBBED/SCRUBBED/us-east-1/" in text


SECRET_KEY = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYCANARYKEYZ"  # shaped like a secret access key, in no environment


@pytest.fixture
def leaky_project(tmp_path) -> Path:
    """A project whose one scenario has no checks and a secret-shaped value in its prompt."""
    data = yaml.safe_load((REPO / "suites" / "core" / "smoke-text.yaml").read_text())
    data.pop("checks", None)
    data["turns"][0]["messages"][0]["content"] = f"my key is {SECRET_KEY}, keep it"
    (tmp_path / "suites" / "core").mkdir(parents=True)
    (tmp_path / "suites" / "core" / "leaky.yaml").write_text(yaml.safe_dump(data))
    return tmp_path


def test_a_refused_secret_is_explained_and_nothing_is_written(leaky_project):
    from click.testing import CliRunner

    from harness.cli import main

    result = CliRunner().invoke(main, ["record", "--emulate", "core/leaky", "--root", str(leaky_project)])
    assert result.exit_code == 1, result.output
    [line] = result.output.splitlines()
    assert line.startswith("refused  core/leaky -> ") and "body.messages[0].content[0].text" in line
    assert "AWS secret access key wJal…YZ" in line and "--allow-secret" in line
    assert list((leaky_project / "cassettes" / "core").iterdir()) == []  # no cassette, no temporary file
    allowed = CliRunner().invoke(main, ["record", "--emulate", "core/leaky", "--root", str(leaky_project),
                                        "--allow-secret", SECRET_KEY])
    assert allowed.exit_code == 0 and allowed.output.startswith("recorded core/leaky"), allowed.output
    assert SECRET_KEY in (leaky_project / "cassettes" / "core" / "leaky.yaml").read_text()
