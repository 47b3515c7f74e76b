"""What the app templates share: the ``App`` they make, the serve line a script's head gives, and the turn's texts
and options as the scripts' literals (Python's or JavaScript's)."""

from __future__ import annotations

import json
import pprint
from dataclasses import dataclass

from harness.suite.scenario import Scenario

__all__ = ["App", "ends_with_prompt", "js_literal", "js_run", "npm_install", "plain_texts", "py_literal", "py_run", "sampling",
           "serve_line", "text_turn"]


@dataclass(frozen=True)
class App:
    """A reproduction's app script: its file name, its text, the line that runs it against the served URL and, for
    a library the harness's pip extras do not install (npm packages), the line that installs its release."""

    file: str
    text: str
    run: str
    install: str | None = None


def serve_line(scenario: Scenario) -> str:
    """The ``serve`` command the script's docstring gives: the cassette, each turn paired, the scenario's faults."""
    from harness.studies.repro import serve_command

    return serve_command(scenario, paired=True)


def py_literal(value) -> str:
    """A value as the script's Python literal."""
    return pprint.pformat(value, width=110, sort_dicts=False)


def plain_texts(turn: dict) -> list[tuple[str, str]] | None:
    """(role, text) of each of the turn's messages; None when one holds a block other than text (the shims map those
    into the library's own types, which a template does not write)."""
    texts = []
    for message in turn["messages"]:
        content = message["content"]
        if not isinstance(content, str):
            if any(block.get("type") != "text" for block in content):
                return None
            content = "".join(block["text"] for block in content)
        texts.append((message["role"], content))
    return texts


def text_turn(turn: dict) -> tuple[list[tuple[str, str]], str | None] | None:
    """(the turn's (role, text) pairs, its system prompt) when every message is text and the system prompt one string
    or none; else None: the shims map other blocks and system prompts of several blocks themselves."""
    texts, system = plain_texts(turn), turn.get("system")
    if texts is None or (system is not None and not isinstance(system, str)):
        return None
    return texts, system


def ends_with_prompt(texts: list[tuple[str, str]]) -> bool:
    """Whether an opening ends with the user's prompt, as an agent loop's run starts from."""
    return bool(texts) and texts[-1][0] == "user"


def sampling(options: dict, thinking_field: str) -> dict:
    """The thinking budget as ``thinking_field`` (the library's name for Bedrock's additional request fields), else
    the temperature, else nothing."""
    if options.get("thinking_budget"):
        return {thinking_field: {"thinking": {"type": "enabled", "budget_tokens": options["thinking_budget"]}}}
    return {"temperature": options["temperature"]} if options.get("temperature") is not None else {}


def npm_install(packages: dict) -> str:
    """The npm line that installs the releases a report ran."""
    return "npm install " + " ".join(f"{name}@{version}" for name, version in sorted(packages.items()))


def js_literal(value) -> str:
    """A value as the script's JavaScript literal (JSON, indented as the Python templates' literals are)."""
    return json.dumps(value, indent=2, ensure_ascii=False)


def py_run(scenario: Scenario) -> str:
    """The lines of an ``app.py`` docstring that serve the recorded stream and run the script against it."""
    return f"    {serve_line(scenario)}    # prints URL\n    python app.py URL"


def js_run(scenario: Scenario, install: str) -> str:
    """The comment lines of an ``app.mjs`` head that install the releases, serve the recorded stream and run it."""
    return f"//\n//   {install}\n//   {serve_line(scenario)}    # prints URL\n//   node app.mjs URL"
