"""Offline replay with no AWS credentials: dummy ones only where nothing configures any, and the CI page's recipe (the
first cassette through the emulator, then CI replay) run as written on a machine with no AWS at all."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cassettes.offline import DUMMY_ENVIRONMENT, configured_by, offline_credentials, offline_environment

REPO = Path(__file__).resolve().parents[1]
EVERYTHING = {**DUMMY_ENVIRONMENT, "AWS_DEFAULT_REGION": "us-east-1"}


def bare(home: Path, **extra: str) -> dict[str, str]:
    """An environment with nothing of AWS in it, ``HOME`` at ``home``."""
    return {"PATH": "/usr/bin:/bin", "HOME": str(home), **extra}


def test_nothing_configured_gets_dummy_keys_a_region_and_no_metadata_service(tmp_path):
    assert configured_by(bare(tmp_path)) is None
    assert offline_environment(bare(tmp_path)) == EVERYTHING
    assert offline_environment(bare(tmp_path, AWS_REGION="eu-west-1")) == DUMMY_ENVIRONMENT


@pytest.mark.parametrize("name", ["AWS_ACCESS_KEY_ID", "AWS_PROFILE", "AWS_DEFAULT_PROFILE",
                                  "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
                                  "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_BEARER_TOKEN_BEDROCK"])
def test_credentials_from_a_variable_are_left_alone(tmp_path, name):
    assert configured_by(bare(tmp_path, **{name: "x"})) == name
    assert offline_environment(bare(tmp_path, **{name: "x"})) == {}


@pytest.mark.parametrize("file, text, configured", [
    ("credentials", "[default]\naws_access_key_id = A\naws_secret_access_key = B\n", True),
    ("config", "[default]\nsso_session = mine\n", True),
    ("config", "[profile default]\ncredential_process = /bin/get-keys\n", True),
    ("config", "[default]\nregion = eu-west-1\noutput = json\n", False),
    ("config", "[profile dev]\naws_access_key_id = A\n", False),  # not the default profile: AWS_PROFILE names it
    ("credentials", "this is [ not ini\n", True),  # unreadable: the user's, left alone
    ("credentials", "", False),
])
def test_a_default_profile_with_credentials_is_left_alone(tmp_path, file, text, configured):
    (tmp_path / ".aws").mkdir()
    (tmp_path / ".aws" / file).write_text(text)
    assert (configured_by(bare(tmp_path)) == str(tmp_path / ".aws" / file)) is configured
    added = offline_environment(bare(tmp_path))
    assert added == ({} if configured else DUMMY_ENVIRONMENT if "region" in text else EVERYTHING)


def test_the_files_the_variables_name_are_read(tmp_path):
    (tmp_path / "creds").write_text("[default]\naws_access_key_id = A\n")
    environ = bare(tmp_path / "empty-home", AWS_SHARED_CREDENTIALS_FILE=str(tmp_path / "creds"),
                   AWS_CONFIG_FILE=os.devnull)
    assert configured_by(environ) == str(tmp_path / "creds")


def test_an_instance_role_wanted_opts_out(tmp_path):
    assert offline_environment(bare(tmp_path, AWS_EC2_METADATA_DISABLED="false")) == {}
    assert offline_environment(bare(tmp_path, AWS_EC2_METADATA_DISABLED="true")) == EVERYTHING


def test_offline_credentials_hold_for_the_block_only(tmp_path):
    environ = bare(tmp_path)
    with offline_credentials(environ) as added:
        assert added == EVERYTHING and all(environ[k] == v for k, v in EVERYTHING.items())
    assert environ == bare(tmp_path)
    with offline_credentials(bare(tmp_path, AWS_PROFILE="dev")) as added:
        assert added == {}


def test_a_client_made_inside_replays_with_no_credentials_configured(tmp_path, monkeypatch):
    """Plain vcrpy, as the CI page shows it: no AWS_* variable, no files; the shipped cassette replays."""
    import boto3

    from harness.cassettes.vcr import make_vcr

    for name in [n for n in os.environ if n.startswith("AWS_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path))
    with offline_credentials(), make_vcr().use_cassette(str(REPO / "cassettes" / "core" / "smoke-text.yaml")):
        client = boto3.client("bedrock-runtime")
        response = client.converse_stream(
            modelId="us.anthropic.claude-sonnet-4-20250514-v1:0", system=[{"text": "You are a helpful assistant."}],
            messages=[{"role": "user", "content": [{"text": "Say hello in exactly 3 words."}]}],
            inferenceConfig={"maxTokens": 1024, "temperature": 0})
        assert "".join(e["contentBlockDelta"]["delta"]["text"] for e in response["stream"]
                       if "contentBlockDelta" in e) == "Hello there, friend!"
    assert not [n for n in os.environ if n.startswith("AWS_")]


# ---- the CI page's recipe (docs/ci.md), in a child process on a machine with no AWS and no network ----

# Loaded by every child Python (PYTHONPATH): each connection or name lookup beyond loopback is written down and
# refused, as on a machine whose only network is 127.0.0.1.
GUARD = """
import errno, os, socket

_LOG = os.environ["NETWORK_GUARD_LOG"]
_LOOPBACK = ("127.0.0.1", "::1", "localhost")
_connect, _connect_ex, _getaddrinfo = socket.socket.connect, socket.socket.connect_ex, socket.getaddrinfo


def _refuse(what, address):
    with open(_LOG, "a") as log:
        log.write(f"{what} {address!r}\\n")
    return OSError(errno.ENETUNREACH, f"no network beyond loopback (test guard): {address!r}")


def _beyond(address):
    return isinstance(address, tuple) and address[0] not in _LOOPBACK


def connect(self, address):
    if _beyond(address):
        raise _refuse("connect", address)
    return _connect(self, address)


def connect_ex(self, address):
    if _beyond(address):
        _refuse("connect_ex", address)
        return errno.ENETUNREACH
    return _connect_ex(self, address)


def getaddrinfo(host, *args, **kwargs):
    if host not in _LOOPBACK and host is not None:
        raise _refuse("getaddrinfo", host)
    return _getaddrinfo(host, *args, **kwargs)


socket.socket.connect, socket.socket.connect_ex, socket.getaddrinfo = connect, connect_ex, getaddrinfo
"""


def documented_recipe() -> dict[str, str]:
    """The snippets of the CI page's "In your own tests" section: its two files and its two shell blocks."""
    text = (REPO / "docs" / "ci.md").read_text()
    section = text[text.index("## In your own tests"): text.index("## Running the suite under pytest")]
    blocks = re.findall(r"```(\w+)\n(.*?)```", section, flags=re.DOTALL)
    found = {body.split("\n", 1)[0].removeprefix("# "): body for kind, body in blocks
             if kind == "python" and body.startswith(("# test", "# conftest"))}
    found["first cassette"] = next(body for kind, body in blocks if kind == "bash" and "serve --emulate" in body)
    found["ci"] = next(body for kind, body in blocks if kind == "bash" and "--block-network" in body)
    return found


@pytest.fixture
def machine(tmp_path):
    """(project folder, environment, guard log): no AWS_* variable, HOME an empty folder, no network."""
    project, home, guard = tmp_path / "project", tmp_path / "home", tmp_path / "guard"
    for folder in (project, home, guard):
        folder.mkdir()
    (guard / "sitecustomize.py").write_text(GUARD)
    log = tmp_path / "network.log"
    environ = bare(home, PATH=f"{Path(sys.executable).parent}{os.pathsep}/usr/bin{os.pathsep}/bin",
                   PYTHONPATH=str(guard), NETWORK_GUARD_LOG=str(log))
    return project, environ, log


def test_the_documented_recipe_records_a_first_cassette_and_replays_it_with_no_aws_at_all(machine):
    project, environ, log = machine
    recipe = documented_recipe()
    for name in ("conftest.py", "test_chat.py"):
        (project / name).write_text(recipe[name])
    made = subprocess.run(["bash", "-c", recipe["first cassette"]], cwd=project, env=environ, capture_output=True,
                          text=True, timeout=180)
    assert made.returncode == 0 and "1 passed" in made.stdout, made.stdout + made.stderr
    cassette = project / "cassettes" / "test_chat" / "test_says_hello.yaml"
    assert "source: emulator" in cassette.read_text()
    replayed = subprocess.run(["bash", "-c", recipe["ci"]], cwd=project, env=environ, capture_output=True, text=True,
                              timeout=180)
    assert replayed.returncode == 0 and "1 passed" in replayed.stdout, replayed.stdout + replayed.stderr
    assert "no AWS credentials configured: this session uses dummy ones" in replayed.stdout
    assert not log.exists(), log.read_text()  # not the metadata service, nor anything else beyond 127.0.0.1


def test_the_guard_would_see_the_metadata_service_asked(machine):
    """Without the plugin's dummy credentials (``-p no:bedrock_harness`` drops them, and the serializer with them),
    botocore asks the metadata service: the guard records it, so the test above would catch its return."""
    project, environ, log = machine
    probe = "import boto3\ntry:\n    boto3.client('bedrock-runtime', region_name='us-east-1').converse(modelId='m', " \
            "messages=[])\nexcept Exception as e:\n    print(type(e).__name__)\n"
    done = subprocess.run([sys.executable, "-c", probe], cwd=project, env=environ, capture_output=True, text=True,
                          timeout=60)
    assert "NoCredentialsError" in done.stdout, done.stdout + done.stderr
    assert "169.254.169.254" in log.read_text()
