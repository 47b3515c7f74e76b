"""Adapter loading by name, entry point or module:attribute (harness/adapters)."""

from __future__ import annotations

import textwrap
from pathlib import Path
from importlib.metadata import EntryPoint

import pytest

import harness
import harness.converse
from harness.adapters import (
    CAPABILITIES,
    DECLARATIONS,
    ENTRY_POINT_GROUP,
    FEATURES,
    OWN_HISTORY,
    SERVED,
    SURFACE_FEATURES,
    Adapter,
    AdapterLoadError,
    known_adapters,
    load_adapter,
    registry,
)
from harness.converse import ConverseAdapter, InvokeAdapter

ADAPTER_MODULE = textwrap.dedent('''
    class Echo:
        name, version, capabilities = "echo", "1.0", frozenset({"text", "streaming"})

        def stream(self, turn, endpoint):
            yield {"type": "text", "text": "echo"}

    instance = Echo()

    def factory():
        return Echo()

    class Typo(Echo):
        capabilities = frozenset({"text", "tool_calls"})

    class Broken:
        def __init__(self):
            raise RuntimeError("no config")

    not_an_adapter = 42
''')


@pytest.fixture
def adapter_module(tmp_path, monkeypatch):
    (tmp_path / "my_adapters.py").write_text(ADAPTER_MODULE)
    (tmp_path / "needs_dep.py").write_text("import surely_missing_dependency_xyz\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    return "my_adapters"


@pytest.mark.parametrize("spec, cls", [("reference", ConverseAdapter), ("reference-invoke", InvokeAdapter)])
def test_builtin_names(spec, cls):
    adapter = load_adapter(spec)
    assert type(adapter) is cls and adapter.name == spec and adapter.version == harness.__version__
    # the InvokeModel path has no Converse twin, nor ConverseStream's service tiers, guardrail or response fields,
    # nor is its request judged, nor does its stream say cacheDetails: today's surface features are the Converse one's
    declared = {"non_streaming"} | SERVED if spec == "reference" else set()
    features = FEATURES if spec == "reference" else FEATURES - SURFACE_FEATURES
    assert adapter.capabilities == features | declared and isinstance(adapter, Adapter)
    assert adapter.conversation is None


@pytest.mark.parametrize("spec, cls", [("reference-conversation", ConverseAdapter),
                                       ("reference-invoke-conversation", InvokeAdapter)])
def test_builtin_conversation_names_own_their_history(spec, cls):
    adapter = load_adapter(spec)
    assert type(adapter) is cls and adapter.name == spec
    declared = {"non_streaming"} | SERVED if cls is ConverseAdapter else set()
    features = FEATURES if cls is ConverseAdapter else FEATURES - SURFACE_FEATURES
    assert adapter.capabilities == features | {OWN_HISTORY} | declared and adapter.conversation is not None
    assert load_adapter(spec).conversation is not adapter.conversation  # each load starts its own history


def test_capabilities_are_the_features_and_the_declarations():
    assert CAPABILITIES == FEATURES | SERVED | {"own_history", "usage_input_includes_cache", "non_streaming"}
    assert not FEATURES & DECLARATIONS and not SERVED & (FEATURES | DECLARATIONS)


def test_public_from_the_package():
    assert "load_adapter" in harness.__all__ and harness.load_adapter is load_adapter
    assert all(hasattr(harness.converse, name) for name in harness.converse.__all__)
    assert isinstance(harness.load_adapter("reference"), ConverseAdapter)


def test_builtins_are_registered_entry_points():
    from importlib.metadata import entry_points
    registered = {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)}
    assert registered["reference"] == "harness.converse:ConverseAdapter"
    assert registered["reference-invoke"] == "harness.converse:InvokeAdapter"
    assert registered["reference-conversation"] == "harness.converse:conversation_reference"


@pytest.mark.parametrize("attribute", ["instance", "Echo", "factory"])
def test_module_attribute_accepts_an_instance_a_class_or_a_factory(adapter_module, attribute):
    adapter = load_adapter(f"{adapter_module}:{attribute}")
    assert adapter.name == "echo" and list(adapter.stream({}, {})) == [{"type": "text", "text": "echo"}]


def test_module_attribute_reaches_dotted_attributes():
    assert isinstance(load_adapter("harness.converse:adapter.ConverseAdapter"), ConverseAdapter)


def test_third_party_entry_point(adapter_module, monkeypatch):
    fake = EntryPoint(name="echo", value=f"{adapter_module}:Echo", group=ENTRY_POINT_GROUP)
    monkeypatch.setattr(registry, "entry_points", lambda group: [fake] if group == ENTRY_POINT_GROUP else [])
    assert load_adapter("echo").name == "echo"
    assert known_adapters() == ["echo", "reference", "reference-conversation", "reference-invoke",
                                "reference-invoke-conversation"]


def test_entry_point_that_fails_to_load(monkeypatch):
    fake = EntryPoint(name="gone", value="surely_missing_module_xyz:Adapter", group=ENTRY_POINT_GROUP)
    monkeypatch.setattr(registry, "entry_points", lambda group: [fake])
    with pytest.raises(AdapterLoadError, match=r"adapter 'gone' \(entry point surely_missing_module_xyz:Adapter\) failed"):
        load_adapter("gone")


@pytest.mark.parametrize("spec, message", [
    ("surely_missing_module_xyz:Adapter", "module 'surely_missing_module_xyz' not found"),
    ("harness.nope_xyz:Adapter", "module 'harness.nope_xyz' not found"),
    ("harness.converse:NoSuchAdapter", "no attribute 'NoSuchAdapter' in module 'harness.converse'"),
    ("needs_dep:Adapter", "importing module 'needs_dep' failed: No module named 'surely_missing_dependency_xyz'"),
    ("my_adapters:not_an_adapter",
     "'my_adapters:not_an_adapter' is not an adapter: missing name, version, capabilities, stream"),
    ("my_adapters:Broken", "adapter 'my_adapters:Broken': creating it failed: RuntimeError: no config"),
    ("my_adapters:Typo", "adapter 'my_adapters:Typo' declares unknown capabilities ['tool_calls']"),
    ("my_adapters:", "adapter spec 'my_adapters:': expected 'module:attribute'"),
    ("", "adapter spec must be a non-empty string"),
])
def test_errors_say_which_part_failed(adapter_module, spec, message):
    with pytest.raises(AdapterLoadError) as info:
        load_adapter(spec)
    assert str(info.value).startswith(message)


def test_unknown_name_lists_the_known_ones():
    with pytest.raises(AdapterLoadError) as info:
        load_adapter("langchian")
    assert str(info.value) == f"unknown adapter 'langchian' (known: {', '.join(known_adapters())})"
    assert "reference, reference-conversation, reference-invoke, reference-invoke-conversation" in str(info.value)



def test_a_shim_whose_library_is_missing_names_the_extra(tmp_path, monkeypatch):
    (tmp_path / "fakeshims").mkdir()
    (tmp_path / "fakeshims" / "__init__.py").write_text("")
    (tmp_path / "fakeshims" / "litellm.py").write_text("import surely_missing_library_xyz\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "SHIMS", "fakeshims.")
    fake = EntryPoint(name="litellm", value="fakeshims.litellm:LiteLLMAdapter", group=ENTRY_POINT_GROUP)
    monkeypatch.setattr(registry, "entry_points", lambda group: [fake])
    with pytest.raises(AdapterLoadError, match=r"^adapter 'litellm' needs 'surely_missing_library_xyz', which is not "
                                               r"installed: pip install 'bedrock-harness\[litellm\]'$"):
        load_adapter("litellm")


def test_every_bundled_shim_entry_point_has_an_extra():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    from harness.adapters.shims.common import EXTRAS

    project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())["project"]
    for name, value in project["entry-points"][ENTRY_POINT_GROUP].items():
        module = value.partition(":")[0]
        if module.startswith(registry.SHIMS):
            assert EXTRAS[module.rpartition(".")[2]] in project["optional-dependencies"], name
