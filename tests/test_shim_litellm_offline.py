"""LiteLLM's offline environment, worked out without LiteLLM installed (CI runs this; the shim's tests need it)."""

from __future__ import annotations

import os

from harness.adapters.shims import litellm_offline
from harness.adapters.shims.litellm_offline import SWITCHES, bundled_tokenizers, offline, offline_environment


def _release(tmp_path, tokenizers: bool = True) -> str:
    """A package folder shaped like an installed litellm release, with or without its bundled tiktoken files."""
    package = tmp_path / "litellm"
    (package / "litellm_core_utils" / ("tokenizers" if tokenizers else "")).mkdir(parents=True)
    return str(package)


def test_the_bundled_tokenizers_are_the_tiktoken_cache(tmp_path):
    package = _release(tmp_path)
    assert bundled_tokenizers([package], {}) == {"TIKTOKEN_CACHE_DIR": f"{package}/litellm_core_utils/tokenizers"}


def test_custom_tiktoken_cache_dir_wins_as_in_litellm(tmp_path):
    custom = {"CUSTOM_TIKTOKEN_CACHE_DIR": str(tmp_path / "mine")}
    assert bundled_tokenizers([_release(tmp_path)], custom) == {"TIKTOKEN_CACHE_DIR": str(tmp_path / "mine")}


def test_a_release_without_bundled_tokenizers_leaves_tiktoken_alone(tmp_path):
    assert bundled_tokenizers([_release(tmp_path, tokenizers=False)], {}) == {}
    assert bundled_tokenizers([], {}) == {}


def test_the_environment_is_the_switches_and_the_installed_releases_tokenizers(tmp_path, monkeypatch):
    package = _release(tmp_path)
    monkeypatch.setattr(litellm_offline.importlib.util, "find_spec",
                        lambda name: type("Spec", (), {"submodule_search_locations": [package]})())
    monkeypatch.delenv("CUSTOM_TIKTOKEN_CACHE_DIR", raising=False)
    assert offline_environment() == {**SWITCHES, "TIKTOKEN_CACHE_DIR": f"{package}/litellm_core_utils/tokenizers"}
    monkeypatch.setattr(litellm_offline.importlib.util, "find_spec", lambda name: None)
    assert offline_environment() == SWITCHES


def test_offline_sets_the_environment_for_the_duration_then_restores_it(monkeypatch):
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "/users/own")
    monkeypatch.delenv("LITELLM_LOCAL_MODEL_COST_MAP", raising=False)
    with offline({"TIKTOKEN_CACHE_DIR": "/bundled", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}):
        assert (os.environ["TIKTOKEN_CACHE_DIR"], os.environ["LITELLM_LOCAL_MODEL_COST_MAP"]) == ("/bundled", "True")
    assert os.environ["TIKTOKEN_CACHE_DIR"] == "/users/own" and "LITELLM_LOCAL_MODEL_COST_MAP" not in os.environ
