"""The adapter contract's reference page, rendered from the schemas (docs/reference/adapter-schema.md).

``python -m harness.suite.schema_docs PATH`` writes it; tests/test_schema_docs.py holds the shipped page equal to
``render()``, so the documentation cannot drift from what the harness enforces.
"""

from __future__ import annotations

import json
from pathlib import Path

from harness.cassettes.files import write_atomic
from harness.suite.contract import schema

__all__ = ["PAGE", "main", "render"]

PAGE = Path("docs") / "reference" / "adapter-schema.md"
HEAD = """# The adapter contract (JSON Schema)

<!-- Generated from harness/suite/schemas/*.json by `python -m harness.suite.schema_docs docs/reference/adapter-schema.md`;
     tests/test_schema_docs.py fails when this page and the schemas differ. Edit the schemas, not this page. -->

The harness validates what an adapter sends against three JSON Schemas (draft 2020-12), shipped in the package
and printed by `bedrock-harness schema chunk|turn|hello`. A chunk or hello the schema refuses breaks the protocol:
the scenario is an `error` whose reason names the turn, the chunk, the field (a JSON path) and the schema rule,
for example

```
adapter protocol error: turn 0 chunk 3 (usage): input_tokens: 'x' is not of type 'integer', 'null' (schema chunk, $defs/usage/properties/input_tokens/type)
```

Validate your own adapter's output with any JSON Schema validator, e.g. in Python
`jsonschema.validate(chunk, json.loads(subprocess.check_output(["bedrock-harness", "schema", "chunk"])))`.
"""


def _type(spec: dict) -> str:
    """How a property's type reads: ``string or null``, ``one of stream, converse``, ``any JSON``."""
    if "const" in spec:
        return f"`{json.dumps(spec['const'])}`"
    if "enum" in spec:
        return "one of " + ", ".join(f"`{json.dumps(v)}`" for v in spec["enum"])
    if "$ref" in spec:
        return f"{spec['$ref'].rsplit('/', 1)[-1]} (below)"
    kinds = spec.get("type")
    if kinds is None:
        return "any of the forms described" if "anyOf" in spec else "any JSON"
    text = " or ".join([kinds] if isinstance(kinds, str) else kinds)
    items = spec.get("items", {})
    text += f" of {_type(items)}" if items and kinds == "array" else ""
    return text + (f", at least {spec['minimum']}" if "minimum" in spec else "")


def _fields(definition: dict) -> list[str]:
    """A table of a definition's fields: name, type, required, what it means."""
    required = set(definition.get("required", ()))
    rows = ["| field | type | required | meaning |", "|---|---|---|---|"]
    for name, spec in definition.get("properties", {}).items():
        rows.append(f"| `{name}` | {_type(spec)} | {'yes' if name in required else 'no'} | "
                    f"{spec.get('description', '')} |")
    closed = definition.get("additionalProperties") is False
    return rows + ["", "No other field is allowed." if closed else "Other fields are allowed and ignored."]


def _examples(definition: dict) -> list[str]:
    lines = [json.dumps(example, ensure_ascii=False) for example in definition.get("examples", ())]
    return ["", "```json", *lines, "```"] if lines else []


def _section(level: str, title: str, definition: dict) -> list[str]:
    return ["", f"{level} {title}", "", definition.get("description", ""), "", *_fields(definition),
            *_examples(definition)]


def _chunks() -> list[str]:
    chunk = schema("chunk")
    lines = ["", "## Chunks (`bedrock-harness schema chunk`)", "", chunk["description"], "",
             "| type | what it is |", "|---|---|"]
    lines += [f"| [`{kind}`](#{kind}) | {d['description']} |" for kind, d in chunk["$defs"].items()]
    for kind, definition in chunk["$defs"].items():
        lines += _section("###", kind, definition)
    return lines


def _defs(name: str) -> list[str]:
    lines = []
    for title, definition in schema(name).get("$defs", {}).items():
        lines += _section("###", f"{name}: {title}", definition)
    return lines


def render() -> str:
    """The reference page, Markdown."""
    hello, turn = schema("hello"), schema("turn")
    lines = [HEAD.rstrip("\n"), *_chunks()]
    lines += _section("##", "Hello (`bedrock-harness schema hello`)", hello)
    lines += _section("##", "Turn (`bedrock-harness schema turn`)", turn) + _defs("turn")
    return "\n".join(lines).replace("\n\n\n", "\n\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write the page to the path given (default: docs/reference/adapter-schema.md)."""
    import argparse  # an option is no path: ``--help`` once wrote a file of that name

    parser = argparse.ArgumentParser(prog="python -m harness.suite.schema_docs", description=main.__doc__)
    parser.add_argument("path", nargs="?", type=Path, default=PAGE, help="where to write the page")
    write_atomic(parser.parse_args(argv).path, render())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
