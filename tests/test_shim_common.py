"""The plumbing every shim shares (runs without any third-party library)."""

import pytest

from harness.adapters.shims.common import Shim, installed_version


def test_a_missing_library_names_the_extra_to_install():
    with pytest.raises(ImportError, match=r"no-such-dist is not installed: pip install 'bedrock-harness\[nope\]'"):
        installed_version("no-such-dist", "nope")


class Pytest(Shim):
    distribution, extra = "pytest", "test"


def test_the_version_is_the_librarys_and_the_model_is_kept_while_its_key_holds():
    import pytest as lib

    shim, built = Pytest(), []
    assert shim.version == lib.__version__
    first = shim.kept(("m", 1), lambda: built.append("a") or object())
    assert shim.kept(("m", 1), lambda: built.append("b") or object()) is first
    assert shim.kept(("m", 2), lambda: built.append("c") or object()) is not first
    assert built == ["a", "c"]
