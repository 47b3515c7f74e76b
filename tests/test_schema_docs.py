"""The adapter contract's reference page (docs/reference/adapter-schema.md) is the schemas rendered: the shipped
page equals ``render()``, and every chunk type and field of every schema is on it, so prose and enforcement agree."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.suite.contract import SCHEMAS, schema
from harness.suite.schema_docs import PAGE, main, render

ROOT = Path(__file__).resolve().parents[1]


def test_the_shipped_page_is_the_schemas_rendered():
    assert (ROOT / PAGE).read_text(encoding="utf-8") == render(), (
        "docs/reference/adapter-schema.md is stale: run `python -m harness.suite.schema_docs "
        "docs/reference/adapter-schema.md`")


def _definitions(name: str) -> list[tuple[str, dict]]:
    whole = schema(name)
    return [(name, whole), *whole.get("$defs", {}).items()]


@pytest.mark.parametrize("name", SCHEMAS)
def test_every_type_and_field_of_each_schema_is_documented(name):
    page = render()
    for title, definition in _definitions(name):
        assert f"### {title}" in page or f"### {name}: {title}" in page or title == name
        for field, spec in definition.get("properties", {}).items():
            assert f"| `{field}` |" in page and (spec.get("description", "") in page)


def test_every_documented_chunk_type_is_in_the_schema():
    page = render()
    listed = [line.split("`")[1] for line in page.split("## Hello")[0].splitlines() if line.startswith("| [`")]
    assert listed == list(schema("chunk")["$defs"])


def test_main_writes_the_page(tmp_path):
    assert main([str(tmp_path / "page.md")]) == 0
    assert (tmp_path / "page.md").read_text(encoding="utf-8") == render()


def test_an_option_is_not_taken_for_the_pages_path(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stopped:
        main(["--help"])
    assert stopped.value.code == 0 and "where to write the page" in capsys.readouterr().out
    assert list(tmp_path.iterdir()) == []  # no file named --help
