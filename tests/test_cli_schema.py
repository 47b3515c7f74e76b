"""``bedrock-harness schema chunk|turn|hello`` prints each schema as shipped; anything else is one usage line."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.suite.contract import SCHEMAS, schema, schema_text


@pytest.mark.parametrize("name", SCHEMAS)
def test_schema_prints_the_shipped_schema(name):
    done = CliRunner().invoke(main, ["schema", name])
    assert done.exit_code == 0 and done.output == schema_text(name)
    assert json.loads(done.output) == schema(name) and schema(name)["title"] == name


def test_help_lists_exactly_the_three_schemas():
    done = CliRunner().invoke(main, ["schema", "--help"])
    assert done.exit_code == 0 and "schema [OPTIONS] chunk|turn|hello" in done.output
    assert "--format" not in done.output and "--output" not in done.output


@pytest.mark.parametrize("args", [["signature"], []])
def test_an_unknown_or_missing_schema_is_one_usage_line(args):
    done = CliRunner().invoke(main, ["schema", *args])
    assert done.exit_code == 2 and done.output.count("\n") == 1 and done.output.startswith("Error: ")
    assert "Usage:" not in done.output
