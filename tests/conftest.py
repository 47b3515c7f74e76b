import os

import pytest


@pytest.fixture(scope="session")
def _parsed_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("parsed-cache")


@pytest.fixture(autouse=True)
def _dummy_aws_env(monkeypatch, _parsed_cache):
    """Tests never see real credentials and never reach AWS: dummy keys, a fixed region; parsed YAML is cached in the
    session's own folder (harness.cassettes.parsed), never in the user's."""
    monkeypatch.setenv("BEDROCK_HARNESS_PARSED_CACHE", str(_parsed_cache))
    for name in list(os.environ):
        if name.startswith("AWS_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", os.devnull)


from hypothesis import settings  # noqa: E402

# Shared machines are noisy: a property test is judged on its examples, never on wall time.
settings.register_profile("harness", deadline=None)
settings.load_profile("harness")
