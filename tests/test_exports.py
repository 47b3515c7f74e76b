"""The public surface is small and explicit: every module declares __all__, and every name in it exists."""

import importlib
import pkgutil

import pytest

import harness

# Command and plugin modules are reached through their entry points; shims import optional libraries.
ENTRY_POINT_MODULES = ("harness.cli", "harness.pytest.", "harness.adapters.shims.")
MODULES = sorted(m.name for m in pkgutil.walk_packages(harness.__path__, "harness.")
                 if not m.name.startswith(ENTRY_POINT_MODULES))


def test_the_package_exports_exactly_its_entry_points():
    assert sorted(harness.__all__) == ["__version__", "load_adapter"]
    assert harness.load_adapter("reference").name == "reference"


@pytest.mark.parametrize("name", MODULES)
def test_every_module_declares_all_and_every_name_exists(name):
    module = importlib.import_module(name)
    assert hasattr(module, "__all__"), f"{name} has no __all__"
    missing = [n for n in module.__all__ if not hasattr(module, n)]
    assert missing == [], f"{name}.__all__ names what it does not define: {missing}"
