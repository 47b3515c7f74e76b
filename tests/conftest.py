import functools
import os
import re
from pathlib import Path

import pytest


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """Under pytest-xdist (the README's ``pytest -n auto``), tests are load-balanced as ``-n auto`` does, except
    that the tests of a module defining a module or session fixture (a whole suite run per adapter, a built wheel)
    go to one worker together, so the fixture is built once, not once per worker; such modules are sent first,
    largest first. Any other ``--dist`` given (``loadfile``, ``each``, ...) is kept. (xdist's own ``loadgroup``
    does not group under pytest 9: it renames ``item._nodeid``, which pytest 9 no longer reads.)"""
    if config.getoption("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ModuleFixtureScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return path if _defines_shared_fixture(config.rootpath / path) else nodeid

    return ModuleFixtureScheduling(config, log)


@functools.cache
def _defines_shared_fixture(path: Path) -> bool:
    try:
        return _SHARED_FIXTURE.search(path.read_text(encoding="utf-8")) is not None
    except (OSError, UnicodeDecodeError):
        return False


_SHARED_FIXTURE = re.compile(r"""@pytest\.fixture\(\s*scope=["'](?:module|session)["']""")


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
